#!/bin/sh
# TAP: tests/cuda/test_cuda3d.py with the stand-in CUDA driver of
# tests/cuda/fake_libcuda.cpp (built by `make check` into
# tests/cuda/fake/): fssim3d's CUDA path of the built ffmpeg, host code and
# kernels, on small frames through the CPU emulator, against the software
# backend — where no GPU exists.  NVDEC and compute-sanitizer are skipped.
if [ "${FSSIM_CUDA:-no}" = no ]; then
    echo "ok 1 - fssim3d on CUDA frames through the emulated driver # SKIP FFmpeg built without CUDA (configure --with-cuda=llvm|nvcc)"
    echo "1..1"
    exit 0
fi
FSSIM_FAKE_CUDA=${FSSIM_FAKE_CUDA:-$top_builddir/tests/cuda/fake}
export FSSIM_FAKE_CUDA
exec "$PYTHON" -u "$top_srcdir/tests/cuda/test_cuda3d.py"
