#!/bin/sh
# Run fssim's GPU tests (and, with --bench, the benchmarks) on a machine
# with an NVIDIA GPU, using ffmpeg binaries built elsewhere.
#
# usage: tests/device/run.sh [--bench CLIPS] [--vulkan] FFMPEG_DIR [OUT_DIR]
#   FFMPEG_DIR holds ffmpeg built with the fssim filters
#   OUT_DIR    receives the TAP logs and benchmark JSON (default: ./device-out)
#   --bench    also run bench/bench_cuda.py on the clips of
#              bench/make_bench_clips.py in CLIPS
#   FSSIM_CLIPS (environment) the NVDEC test clips of tests/cuda/make_clips.py
#
# A .gl/ folder of Debian libvulkan1/libglvnd packages next to this
# checkout (doc/architecture.md, "Running on a GPU machine") is unpacked
# first when the machine has no Vulkan loader.
set -u
bench= vulkan=0
while [ $# -gt 0 ]; do
    case $1 in
    --bench)  bench=$2; shift 2 ;;
    --vulkan) vulkan=1; shift ;;
    *) break ;;
    esac
done
dir=${1:?usage: run.sh [--bench CLIPS] [--vulkan] FFMPEG_DIR [OUT_DIR]}
out=${2:-device-out}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

[ "$vulkan" = 1 ] && . "$top/tests/device/vulkan-env.sh"

dir=$(cd "$dir" && pwd)
export FFMPEG="$dir/ffmpeg" FFPROBE="$dir/ffprobe"
export PYTHONPATH="$top/tests/lib" PYTHONUNBUFFERED=1
export FSSIM_WORK=${FSSIM_WORK:-/tmp/fssim-work}
export top_srcdir="$top"
mkdir -p "$FSSIM_WORK"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
"$FFMPEG" -hide_banner -version | head -n 1 | tee -a "$out/device.txt"

status=0
python3 "$top/tests/cuda/test_cuda.py" > "$out/cuda.tap" 2>&1 || status=1
grep -c '^ok' "$out/cuda.tap" | sed 's/^/cuda ok: /'
grep '^not ok' "$out/cuda.tap" | head -n 40
grep '^# ' "$out/cuda.tap" | tail -n 60

if [ "$vulkan" = 1 ] && [ -f "$top/tests/vulkan/test_vulkan.py" ]; then
    FSSIM_VULKAN_DEVICE_TESTS=1 python3 "$top/tests/vulkan/test_vulkan.py" > "$out/vulkan.tap" 2>&1 || status=1
    grep -c '^ok' "$out/vulkan.tap" | sed 's/^/vulkan ok: /'
    grep '^not ok' "$out/vulkan.tap" | head -n 40
fi
if [ -n "$bench" ]; then
    python3 "$top/bench/bench_cuda.py" "$FFMPEG" "$bench" --out "$FSSIM_WORK/bench" > "$out/bench.log" 2>&1 || status=1
    cp "$FSSIM_WORK/bench/bench_cuda.json" "$out/" 2>/dev/null
    grep -v '^{' "$out/bench.log" | tail -n 30
fi
exit $status
