#!/bin/sh
# The demo behind `make demo`: make a clip pair of natural-looking content
# (a pan over a scikit-image photograph; the reference stored losslessly,
# the distorted rendition an H.264 encode at a low quality), score it with
# fssim, and show the per-frame values, the summary and the pooled log.
# fssim_cuda and fssim_vulkan are run too where a device is there.
#
# usage: demo.sh FFMPEG
set -eu
ff=${1:-./ffmpeg}
top=$(cd "$(dirname "$0")/.." && pwd)
py=$top/.venv/bin/python3
[ -x "$py" ] || py=python3
enc=${ENCODER_FFMPEG:-$(command -v ffmpeg || true)}
work=demo-out
mkdir -p "$work"

echo "== making a 640x360, 30-frame clip pair of natural content in $work/"
PYTHONPATH="$top/tests/lib" FSSIM_WORK="$work" "$py" - "$work" <<'PY'
import sys
from fssimtest import natural_clip
natural_clip(640, 360, 30, "yuv420p", directory=sys.argv[1], name="ref", container="y4m",
             image="coffee")
natural_clip(640, 360, 30, "yuv420p", directory=sys.argv[1], name="dist_raw", container="y4m",
             image="coffee", distort={"blur": 1.0, "noise": 4.0, "block": 8})
PY
if [ -n "$enc" ] && "$enc" -hide_banner -h encoder=libx264 2>/dev/null | grep -q libx264; then
    "$enc" -hide_banner -v error -y -i "$work/ref.y4m" -c:v libx264 -crf 38 "$work/dist.mkv"
    dist=$work/dist.mkv
    echo "   distorted: H.264 CRF 38 of the reference ($enc)"
else
    dist=$work/dist_raw.y4m
    echo "   distorted: blurred, noisy, blocky copy (no libx264 encoder found)"
fi

echo
echo "== fssim (CPU): per-frame lines in FFmpeg ssim's format (stats_file=-), then the summary"
"$ff" -hide_banner -nostats -nostdin -y -i "$dist" -i "$work/ref.y4m" \
    -lavfi "[0:v][1:v]fssim=algo=float+int+block:stats_file=-:stats_algo=int:log_path=$work/scores.json" \
    -f null - 2>&1 | grep -E '^n:|SSIM (float|int|block)'

echo
echo "== pooled scores from $work/scores.json"
"$py" - "$work/scores.json" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
print("   %d frames, %s %dx%d" % (log["frame_count"], log["input"]["pix_fmt"],
                                 log["input"]["width"], log["input"]["height"]))
for algo, comps in log["pooled"].items():
    a = comps["All"]
    print("   %-5s All: mean %.6f  min %.6f  max %.6f  harmonic mean %.6f"
          % (algo, a["mean"], a["min"], a["max"], a["harmonic_mean"]))
PY

if "$ff" -hide_banner -v error -init_hw_device cuda=cu -f lavfi -i color=s=64x64:d=0.04 \
        -vf format=nv12,hwupload -filter_hw_device cu -f null - 2>/dev/null; then
    echo
    echo "== fssim_cuda on the GPU (frames uploaded with hwupload)"
    "$ff" -hide_banner -nostdin -y -init_hw_device cuda=cu -filter_hw_device cu \
        -i "$dist" -i "$work/ref.y4m" \
        -lavfi "[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim_cuda=algo=float+int+block" \
        -f null - 2>&1 | grep -E 'SSIM (float|int|block)'
else
    echo; echo "== fssim_cuda: skipped, no CUDA device"
fi

if "$ff" -hide_banner -v error -init_hw_device vulkan=vk -f lavfi -i color=s=64x64:d=0.04 \
        -vf format=yuv420p,hwupload -filter_hw_device vk -f null - 2>/dev/null; then
    echo
    echo "== fssim_vulkan (frames uploaded with hwupload; on lavapipe when no GPU)"
    "$ff" -hide_banner -nostdin -y -init_hw_device vulkan=vk -filter_hw_device vk \
        -i "$dist" -i "$work/ref.y4m" \
        -lavfi "[0:v]format=yuv420p,hwupload[m];[1:v]format=yuv420p,hwupload[r];[m][r]fssim_vulkan=algo=float+int+block" \
        -f null - 2>&1 | grep -E 'SSIM (float|int|block)'
else
    echo; echo "== fssim_vulkan: skipped, no Vulkan device"
fi
