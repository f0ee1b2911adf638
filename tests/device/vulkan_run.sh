#!/bin/sh
# One call on a GPU machine (one H200, at most 9 minutes): the hang of looped
# Vulkan Video ladders reproduced with its diagnostics, then
# bench/bench_plain.py on every CUDA and Vulkan workload, with the Vulkan
# variants of what may hold frames back; everything into OUT.
#
# usage: tests/device/vulkan_run.sh [OUT]      (default: $OUT, else ./device-out)
#   from a checkout that has .dev/ (tests/device/make_kit.sh) and, where the
#   machine has no Vulkan loader, .gl/ (tests/device/vulkan-env.sh)
# environment:
#   RUN_BUDGET    seconds for the whole call (default 520)
#   HANG_BUDGET   seconds of it for the hang cases (default 170)
#   VARIANTS      bench_plain.py --variants (default below)
#
# OUT gets: device.txt (GPU, driver, ffmpeg, the Vulkan queue families),
# hang/ (vulkan_hang.py: hang.txt, hang.json, each run's log, stacks and GPU
# snapshot), bench/bench_plain.json and bench.log, summary.txt.
set -u
start=$(date +%s)
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-${OUT:-device-out}}
mkdir -p "$out"
out=$(cd "$out" && pwd)
budget=${RUN_BUDGET:-520}
hang_budget=${HANG_BUDGET:-170}
variants=${VARIANTS:-readahead4,readahead8,readahead16,inflight12,jobperrendition,readahead8+inflight12}
kit="$top/.dev"
work=${FSSIM_WORK:-/tmp/fssim-dev}

log() { echo "$*" | tee -a "$out/summary.txt"; }
left() { echo $(( budget - ($(date +%s) - start) )); }

[ -d "$kit/bin" ] || { echo "vulkan_run: no $kit (tests/device/make_kit.sh)" >&2; exit 2; }
. "$top/tests/device/vulkan-env.sh"

# the tools, unpacked
. "$top/tests/device/kit-tools.sh"
unpack_tools "$kit/bin" "$work/bin" || exit 2
ff="$work/bin/ffmpeg"

{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    "$ff" -hide_banner -version | head -n 1
    echo "debuggers: gdb=$(command -v gdb || echo none) eu-stack=$(command -v eu-stack || echo none)"
    # the queue families FFmpeg uses: how many video decode queues the
    # decoders share, and the compute queues of the filter
    "$ff" -hide_banner -v debug -init_hw_device vulkan=vk:0 -f lavfi -i nullsrc=d=0.04 \
        -f null - 2>&1 | grep -iE "queue|device name|driver" | head -n 40
} > "$out/device.txt" 2>&1
cat "$out/device.txt" | head -n 3 | tee -a "$out/summary.txt"

# 1. the hang
log "== hang cases (budget ${hang_budget} s)"
python3 "$top/tests/device/vulkan_hang.py" "$ff" "$kit/clips" "$out/hang" \
    --budget "$hang_budget" --limit 15 --fault-layer "$kit/fault" \
    --stacks-lib "$kit/lib/libfssim_stacks.so" 2>&1 | tee -a "$out/summary.txt"

# 2. the plain command lines against decoding alone, with the variants
log "== bench_plain ($(left) s left)"
deadline=$(( start + budget - 15 ))
timeout $(( $(left) - 5 )) python3 "$top/bench/bench_plain.py" "$ff" "$kit/clips" \
    --out "$out/bench" --frames 600 --reps 2 --variant-reps 1 --timeout 40 \
    --variants "$variants" --deadline "$deadline" \
    --workloads 1080p,2160p,2160p10,fssim3d,ladder7 > "$out/bench.log" 2>&1
grep -v '^{' "$out/bench.log" | grep -vE "^\[|^ |^Input|^Output|^Stream|^frame=" |
    tail -n 80 | tee -a "$out/summary.txt"
log "== done in $(( $(date +%s) - start )) s"
