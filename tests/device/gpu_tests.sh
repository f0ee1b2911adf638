#!/bin/sh
# The GPU tests on a machine with an NVIDIA GPU, against ffmpeg binaries
# built elsewhere, in groups that each fit one device call (10 minutes):
#
#   vulkan     fssim_vulkan on the GPU's Vulkan driver (tests/vulkan/test_vulkan.py
#              with its larger device cases, 2160p), Vulkan device loss and
#              hangs through the fault-injection layer (test_vulkan_faults.py),
#              msssim on Vulkan frames (test_vulkan_msssim.py), vmaf_ssim and
#              vmaf_msssim on Vulkan frames (test_vulkan_vmaf.py)
#   vulkan3d   fssim3d on Vulkan frames (test_vulkan3d.py, with its 1080p and
#              2160p cases)
#   cuda       fssim_cuda (tests/cuda/test_cuda.py: NVDEC and uploads against
#              the CPU) and fssim3d on CUDA frames (test_cuda3d.py)
#   cutshort   runs cut short on CUDA and Vulkan frames, stopped in time with
#              a stalled input (tests/e2e/test_cutshort.py), and Vulkan Video
#              decoded pairs, fssim3d and a ladder (tests/vulkan/device_check.sh,
#              with FSSIM_CLIPS)
#   all        the four groups in turn (more than one call's worth)
#
# compute-sanitizer over the CUDA filters is tests/device/sanitize.sh, a call
# of its own (SAN_BUDGET).
#
# usage: tests/device/gpu_tests.sh [--group NAME] FFMPEG_DIR FAULT_LAYER_DIR OUT
#   FFMPEG_DIR       holds ffmpeg and ffprobe built with the fssim filters, or
#                    their .xz (tests/device/make_kit.sh's .dev/bin)
#   FAULT_LAYER_DIR  holds libVkLayer_fssim_fault.so and fault_layer.json
#                    (make check builds them in BUILD/tests/vulkan/fault)
#   FSSIM_CLIPS      (environment) the NVDEC clips of tests/cuda/make_clips.py
#   PYTHON           (environment) the Python of the tests (default python3;
#                    the tests that make clips need numpy)
#   GPU_TESTS        (environment) the tests to run instead of a group's,
#                    e.g. "vulkan/test_vulkan.py"
#   SKIP_DECODE=1    (environment) leave out device_check.sh
#   GPU_TESTS_BUDGET (environment) seconds for the call (default 540): each
#                    test gets what is left, at most GPU_TEST_TIMEOUT (default
#                    540); a test stopped at its limit keeps the checks it made
#                    and is reported as stopped; tests with no time left are
#                    reported as not run
# One TAP file per test in OUT, and a line per test:
# "name: N ok, N not ok, N skipped (S s)".
set -u
group=all
if [ "${1:-}" = --group ]; then
    group=${2:?usage: gpu_tests.sh [--group NAME] FFMPEG_DIR FAULT_LAYER_DIR OUT}
    shift 2
fi
case $group in
vulkan)   tests="vulkan/test_vulkan.py vulkan/test_vulkan_faults.py vulkan/test_vulkan_msssim.py
                 vulkan/test_vulkan_vmaf.py"
          decode=0 ;;
vulkan3d) tests="vulkan/test_vulkan3d.py"; decode=0 ;;
cuda)     tests="cuda/test_cuda.py cuda/test_cuda3d.py"; decode=0 ;;
cutshort) tests="e2e/test_cutshort.py"; decode=1 ;;
all)      tests="vulkan/test_vulkan.py vulkan/test_vulkan_faults.py vulkan/test_vulkan_msssim.py
                 vulkan/test_vulkan_vmaf.py vulkan/test_vulkan3d.py cuda/test_cuda.py
                 cuda/test_cuda3d.py e2e/test_cutshort.py"
          decode=1 ;;
*) echo "gpu_tests: unknown group $group (vulkan, vulkan3d, cuda, cutshort, all)" >&2; exit 2 ;;
esac
start=$(date +%s)
budget=${GPU_TESTS_BUDGET:-540}
dir=$(cd "${1:?usage: gpu_tests.sh [--group NAME] FFMPEG_DIR FAULT_LAYER_DIR OUT}" && pwd)
layer=$(cd "${2:?usage}" && pwd)
out=${3:?usage}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
. "$top/tests/device/vulkan-env.sh"

export FSSIM_WORK=${FSSIM_WORK:-/tmp/fssim-work}
mkdir -p "$FSSIM_WORK"
# the kit's compressed tools
if [ ! -x "$dir/ffmpeg" ] && [ -f "$dir/ffmpeg.xz" ]; then
    . "$top/tests/device/kit-tools.sh"
    unpack_tools "$dir" "$FSSIM_WORK/bin" || exit 2
    dir="$FSSIM_WORK/bin"
fi

export FFMPEG="$dir/ffmpeg" FFPROBE="$dir/ffprobe" top_srcdir="$top"
export PYTHONPATH="$top/tests/lib" PYTHONUNBUFFERED=1 FSSIM_VULKAN_DEVICE_TESTS=1
# the tool patches are in the build the kit comes from (the stalled-input
# checks of test_cutshort.py need them)
export FSSIM_TOOL_PATCHES=${FSSIM_TOOL_PATCHES:-patches}
# a hang is a failure, found in minutes rather than test_vulkan.py's 15
export FSSIM_VULKAN_TIMEOUT=${FSSIM_VULKAN_TIMEOUT:-120}
# test_vulkan_faults.py finds the layer under $top_builddir/tests/vulkan/fault
export top_builddir="$FSSIM_WORK/build"
mkdir -p "$top_builddir/tests/vulkan"
rm -rf "$top_builddir/tests/vulkan/fault"
cp -r "$layer" "$top_builddir/tests/vulkan/fault"

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
"$FFMPEG" -hide_banner -version | head -n 1 | tee -a "$out/device.txt"

left() { echo $(( budget - ($(date +%s) - start) )); }

status=0
for t in ${GPU_TESTS:-$tests}; do
    name=$(basename "$t" .py)
    limit=$(left)
    [ "$limit" -gt "${GPU_TEST_TIMEOUT:-540}" ] && limit=${GPU_TEST_TIMEOUT:-540}
    if [ "$limit" -lt 20 ]; then
        echo "$name: not run (no time left in GPU_TESTS_BUDGET=$budget)"
        status=1
        continue
    fi
    t0=$(date +%s)
    timeout -k 10 "$limit" "${PYTHON:-python3}" "$top/tests/$t" > "$out/$name.tap" 2>&1
    rc=$?
    ok=$(grep -c '^ok' "$out/$name.tap")
    skip=$(grep -c '^ok .*# SKIP' "$out/$name.tap")
    bad=$(grep -c '^not ok' "$out/$name.tap")
    [ "$bad" = 0 ] && [ "$rc" = 0 ] || status=1
    note=
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        note=", stopped at its limit of $limit s"
    elif ! grep -q '^1\.\.' "$out/$name.tap"; then
        note=", no plan (crashed?)"
    fi
    echo "$name: $((ok - skip)) ok, $bad not ok, $skip skipped ($(( $(date +%s) - t0 )) s$note)"
    grep -A4 '^not ok' "$out/$name.tap" | head -n 30
done
if [ "$decode" = 1 ] && [ -n "${FSSIM_CLIPS:-}" ] && [ "${SKIP_DECODE:-0}" != 1 ]; then
    if [ "$(left)" -lt 30 ]; then
        echo "device_check.sh: not run (no time left in GPU_TESTS_BUDGET=$budget)"
        status=1
    else
        timeout -k 10 "$(left)" sh "$top/tests/vulkan/device_check.sh" "$FFMPEG" "$FSSIM_CLIPS" \
            "$out/vulkan-decode" > "$out/vulkan-decode.txt" 2>&1 || status=1
        echo "Vulkan Video decode (device_check.sh):"
        cat "$out/vulkan-decode.txt"
    fi
fi
exit $status
