#!/bin/sh
# TAP: the CUDA side of fssim3d's build, checkable without a GPU.  Its two
# PTX modules (fssim3d for the default window, fssim3d_any)
# are in the tree with their three kernels, small (the driver's JIT of the
# one loaded is the cold start), with the explicit fused / unfused .rn
# double operations and no local memory; they compile with the other CUDA
# compiler too; and ptxas, when present, assembles them for Hopper (sm_90)
# without spills.  (The kernels run in tests/cuda/test_kernel3d_emu, and
# for real in tests/cuda/test_cuda3d.py on a GPU.)
. "$top_srcdir/tests/cuda/ptxlib.sh"
work=${FSSIM_WORK:-/tmp}/cuda-build3d
mkdir -p "$work"
mods="fssim3d fssim3d_any"
max_ptx=163840

if [ "${FSSIM_CUDA:-no}" = no ]; then
    skip "fssim3d CUDA build checks" "FFmpeg built without CUDA (configure --with-cuda=llvm|nvcc)"
    echo "1..$n"
    exit 0
fi

# the CUDA backend (fssim_be_cuda.c) serves fssim3d with its 3-D part
# (fssim_be_cuda3d.c), its kernel parameters (fssim_cuda_params_host.c) and
# modules
grep -q "fssim_be_cuda3d\.o" "$FFMPEG_TREE/libavfilter/fssim/Makefile" 2>/dev/null &&
    [ -e "$FFMPEG_TREE/libavfilter/fssim/cuda/fssim_be_cuda.o" ] &&
    [ -e "$FFMPEG_TREE/libavfilter/fssim/cuda/fssim_be_cuda3d.o" ] &&
    [ -e "$FFMPEG_TREE/libavfilter/fssim/cuda/fssim_cuda_params_host.o" ] &&
    [ -e "$FFMPEG_TREE/libavfilter/fssim/cuda/fssim3d.ptx.o" ]
ok $? "the CUDA backend of fssim3d is built into libavfilter ($FSSIM_CUDA)"

for m in $mods; do
    ptx="$FFMPEG_TREE/libavfilter/fssim/cuda/$m.ptx"
    size=$(wc -c < "$ptx" 2>/dev/null || echo 0)
    grep -q "\.entry fssim3d_moments" "$ptx" 2>/dev/null && grep -q "\.entry fssim3d_score" "$ptx" &&
        grep -q "\.entry fssim3d_sum" "$ptx" && grep -q "fma\.rn\.f64" "$ptx" &&
        grep -q "div\.rn\.f64" "$ptx" && ! grep -q "\.local" "$ptx" &&
        [ "$size" -gt 0 ] && [ "$size" -le $max_ptx ]
    ok $? "$m.ptx ($FSSIM_CUDA, $size bytes <= $max_ptx): three kernels, explicit .rn double operations, no local memory"
done

for m in $mods; do
    other_compiler "$m" "$work"
done

for ptx in "$FFMPEG_TREE"/libavfilter/fssim/cuda/fssim3d*.ptx "$work"/fssim3d*.ptx; do
    [ -e "$ptx" ] || continue
    if [ -z "$ptxas" ]; then
        skip "ptxas $(basename "$ptx")" "ptxas (CUDA toolkit) not installed"
        continue
    fi
    assemble "$ptx" "$work/ptxas.log" &&
        [ "$(grep -c '0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads' "$work/ptxas.log")" = 3 ]
    ok $? "ptxas assembles $(basename "$ptx") for sm_90, no stack, no spills"
done
echo "1..$n"
