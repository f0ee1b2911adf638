#!/bin/sh
# Every GPU test on a machine with an NVIDIA GPU, against ffmpeg binaries
# built elsewhere: fssim_cuda (tests/cuda/test_cuda.py), fssim3d on CUDA
# frames (test_cuda3d.py), fssim_vulkan on the GPU's Vulkan driver
# (test_vulkan.py with its larger device cases), runs cut short on CUDA and
# Vulkan frames (tests/e2e/test_cutshort.py) and Vulkan device loss through
# the fault-injection layer (test_vulkan_faults.py), fssim3d on Vulkan
# frames (test_vulkan3d.py, with its 1080p/2160p cases), msssim on Vulkan
# frames (test_vulkan_msssim.py), and Vulkan Video decoded pairs and a
# ladder (tests/vulkan/device_check.sh, with FSSIM_CLIPS).  One TAP file per
# test in OUT, and a line per test: "name: N ok, N not ok, N skipped".
#
# usage: tests/device/gpu_tests.sh FFMPEG_DIR FAULT_LAYER_DIR OUT
#   FFMPEG_DIR       holds ffmpeg and ffprobe built with the fssim filters
#   FAULT_LAYER_DIR  holds libVkLayer_fssim_fault.so and fault_layer.json
#                    (make check builds them in BUILD/tests/vulkan/fault)
#   FSSIM_CLIPS      (environment) the NVDEC clips of tests/cuda/make_clips.py
#   GPU_TESTS        (environment) a subset, e.g. "vulkan/test_vulkan.py"
#   SKIP_DECODE=1    (environment) leave out device_check.sh
#   GPU_TEST_TIMEOUT (environment) seconds a test may run (default 1800)
set -u
dir=$(cd "${1:?usage: gpu_tests.sh FFMPEG_DIR FAULT_LAYER_DIR OUT}" && pwd)
layer=$(cd "${2:?usage}" && pwd)
out=${3:?usage}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
. "$top/tests/device/vulkan-env.sh"

export FFMPEG="$dir/ffmpeg" FFPROBE="$dir/ffprobe" top_srcdir="$top"
export PYTHONPATH="$top/tests/lib" PYTHONUNBUFFERED=1 FSSIM_VULKAN_DEVICE_TESTS=1
# a hang is a failure, found in minutes rather than test_vulkan.py's 15
export FSSIM_VULKAN_TIMEOUT=${FSSIM_VULKAN_TIMEOUT:-120}
export FSSIM_WORK=${FSSIM_WORK:-/tmp/fssim-work}
# test_vulkan_faults.py finds the layer under $top_builddir/tests/vulkan/fault
export top_builddir="$FSSIM_WORK/build"
mkdir -p "$top_builddir/tests/vulkan" "$FSSIM_WORK"
rm -rf "$top_builddir/tests/vulkan/fault"
cp -r "$layer" "$top_builddir/tests/vulkan/fault"

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
"$FFMPEG" -hide_banner -version | head -n 1 | tee -a "$out/device.txt"

status=0
all="cuda/test_cuda.py cuda/test_cuda3d.py vulkan/test_vulkan.py e2e/test_cutshort.py
     vulkan/test_vulkan_faults.py vulkan/test_vulkan3d.py vulkan/test_vulkan_msssim.py"
for t in ${GPU_TESTS:-$all}; do
    name=$(basename "$t" .py)
    start=$(date +%s)
    timeout "${GPU_TEST_TIMEOUT:-1800}" python3 "$top/tests/$t" > "$out/$name.tap" 2>&1 || status=1
    ok=$(grep -c '^ok' "$out/$name.tap")
    skip=$(grep -c '^ok .*# SKIP' "$out/$name.tap")
    bad=$(grep -c '^not ok' "$out/$name.tap")
    [ "$bad" = 0 ] || status=1
    grep -q '^1\.\.' "$out/$name.tap" || { status=1; echo "$name: no plan (crashed?)"; }
    echo "$name: $((ok - skip)) ok, $bad not ok, $skip skipped ($(( $(date +%s) - start )) s)"
    grep -A4 '^not ok' "$out/$name.tap" | head -n 30
done
if [ -n "${FSSIM_CLIPS:-}" ] && [ "${SKIP_DECODE:-0}" != 1 ]; then
    sh "$top/tests/vulkan/device_check.sh" "$FFMPEG" "$FSSIM_CLIPS" "$out/vulkan-decode" \
        > "$out/vulkan-decode.txt" 2>&1 || status=1
    echo "Vulkan Video decode (device_check.sh):"
    cat "$out/vulkan-decode.txt"
fi
exit $status
