#!/bin/sh
# fssim_vulkan on frames from Vulkan Video decode, against fssim on the same
# streams decoded in software (H.264/HEVC decoding is bit-exact, so fssim on
# the software-decoded copy is the reference), on a GPU machine.
#
# usage: tests/vulkan/device_check.sh [-d DEVICE] FFMPEG CLIPS_DIR [OUT_DIR]
#   FFMPEG     ffmpeg built with fssim_vulkan (and the h264/hevc Vulkan hwaccels)
#   CLIPS_DIR  the clip pairs of tests/cuda/make_clips.py: NAME_lo.mkv (the
#              distorted, main input) and NAME_hi.mkv (the reference)
#   OUT_DIR    logs and summary (default: ./vulkan-device-out)
#   -d DEVICE  -init_hw_device vulkan=vk:DEVICE (index or name; default 0)
#
# Then fssim3d (depth 5) on the Vulkan Video decoded frames of every pair
# that decoded, against fssim3d on the software-decoded copies (its
# software backend): every frame and component within 1e-9
# (doc/algorithms.md#fssim3d-on-vulkan-frames).
#
# Then a ladder: the H.264 360p and HEVC 720p low-quality clips as
# renditions of the HEVC 720p high-quality one (fssim_vulkan=inputs=3, the
# 360p rendition resampled on the device, algo=float+int+block+psnr), against
# fssim's ladder of the software-decoded streams, rendition by rendition.
#
# Prints one line per pair: frames, the largest difference to fssim per
# algorithm (doc/algorithms.md#accuracy tolerances: int 1e-12, float 1e-5, block 1e-6), the
# decoded layout, and PASS/FAIL; exit status 1 if any pair fails.  A pair
# whose profile the device cannot decode with Vulkan Video is reported as
# SKIP with FFmpeg's reason (never scored in software behind our back:
# fssim_vulkan refuses software frames).
#
# Without a Vulkan loader on the machine, a .gl/ folder of Debian
# libvulkan1 packages next to this checkout is unpacked first (see
# doc/architecture.md, "Running on a GPU machine").
set -u
device=0
while getopts d: opt; do
    case $opt in
    d) device=$OPTARG ;;
    *) echo "usage: $0 [-d DEVICE] FFMPEG CLIPS_DIR [OUT_DIR]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
ff=${1:?usage: device_check.sh [-d DEVICE] FFMPEG CLIPS_DIR [OUT_DIR]}
clips=${2:?usage: device_check.sh [-d DEVICE] FFMPEG CLIPS_DIR [OUT_DIR]}
out=${3:-vulkan-device-out}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"

. "$top/tests/device/vulkan-env.sh"

hw="-init_hw_device vulkan=vk:$device -filter_hw_device vk"
dec="-hwaccel vulkan -hwaccel_device vk -hwaccel_output_format vulkan"
algos=float+int+block

# The device, and whether it has video decode queues.
"$ff" -hide_banner -v verbose $hw -f lavfi -i color=s=64x64:d=0.04 \
    -vf format=nv12,hwupload -f null - > "$out/device.log" 2>&1
grep -E "Device [0-9]+ selected|Using device:|^\[Vulkan[^]]*\] +[0-9]+: " "$out/device.log" |
    sed 's/^[^]]*\] *//'
command -v nvidia-smi >/dev/null &&
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

# max |gpu - cpu| per algorithm over frames (and renditions) and planes of
# two JSON logs; psnr (exact on both) only where the logs have it
compare() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
g, c = (json.load(open(p)) for p in sys.argv[1:3])
def values(log):
    return [r for f in log["frames"] for r in f.get("renditions", [f])]
res = []
ok = g["frame_count"] == c["frame_count"] and g["input"]["components"] == c["input"]["components"]
tols = [("float", 1e-5), ("int", 1e-12), ("block", 1e-6)]
if any("psnr" in r for r in values(c)):
    tols += [("psnr", 0.0), ("mse", 0.0)]
for algo, tol in tols:
    d = 0.0
    for fg, fc in zip(values(g), values(c)):
        for k, v in fc[algo].items():
            if k != "dB":
                w = fg[algo][k]
                d = max(d, 0.0 if w is None and v is None else
                        float("inf") if w is None or v is None else abs(w - v))
    ok = ok and d <= tol
    res.append("%-9.2g" % d)
print("%4d/%-4d %s %s %s" % (g["frame_count"], c["frame_count"], " ".join(res),
                             g["input"]["pix_fmt"], "PASS" if ok else "FAIL"))
EOF
}

# run_both TAG VULKAN_INPUTS SOFTWARE_INPUTS VULKAN_GRAPH SOFTWARE_GRAPH: the run on Vulkan
# Video decoded frames and the one on software-decoded frames, logged in OUT/TAG.vulkan.log
# and OUT/TAG.cpu.log; g and c are their exit statuses
run_both() {
    # shellcheck disable=SC2086
    "$ff" -hide_banner -nostdin -y -v verbose $hw $2 -lavfi "$4" -f null - \
        > "$out/$1.vulkan.log" 2>&1
    g=$?
    # shellcheck disable=SC2086
    "$ff" -hide_banner -nostdin -y $3 -lavfi "$5" -f null - > "$out/$1.cpu.log" 2>&1
    c=$?
}

# report TAG COMPARE VULKAN_JSON SOFTWARE_JSON [NOTE]: FAIL if a run failed, else COMPARE's
# line; the Vulkan run's GPU time below it.  Returns 1 if a run failed.
report() {
    if [ $g != 0 ] || [ $c != 0 ] || [ ! -s "$3" ] || [ ! -s "$4" ]; then
        printf '%-18s FAIL: ffmpeg exit %s (vulkan) / %s (cpu), see %s\n' "$1" $g $c "$out/$1.*.log"
        tail -n 5 "$out/$1.vulkan.log"
        status=1
        return 1
    fi
    line=$($2 "$3" "$4")
    printf '%-18s %s%s\n' "$1" "$line" "${5:-}"
    case $line in *FAIL) status=1 ;; esac
    grep -h -o "GPU time per frame.*" "$out/$1.vulkan.log" | sed 's/^/                   /'
}

status=0 scored=0 decoded=
printf '%-18s %-9s %-9s %-9s %-9s %-8s %s\n' clip frames float int block decoded result
for main in "$clips"/*_lo.mkv; do
    [ -e "$main" ] || { echo "no *_lo.mkv clips in $clips" >&2; exit 2; }
    name=$(basename "$main" _lo.mkv)
    ref="$clips/${name}_hi.mkv"
    [ -e "$ref" ] || continue
    gpu="$out/$name.vulkan.json" cpu="$out/$name.cpu.json"
    rm -f "$gpu" "$cpu"
    run_both "$name" "$dec -i $main $dec -i $ref" "-i $main -i $ref" \
        "[0:v][1:v]fssim_vulkan=algo=$algos:log_path=$gpu" \
        "[0:v][1:v]fssim=algo=$algos:log_path=$cpu"
    if [ $g != 0 ] && grep -q -E "fssim_vulkan scores Vulkan frames|Failed setup for format vulkan|hwaccel initialisation returned error|No decoder surfaces|not supported" "$out/$name.vulkan.log"; then
        printf '%-18s SKIP: no Vulkan Video decode of this stream here (%s)\n' "$name" \
            "$(grep -m1 -o -E "Failed setup[^.]*|hwaccel initialisation[^.]*|[^]]*not supported[^.]*" "$out/$name.vulkan.log")"
        continue
    fi
    report "$name" compare "$gpu" "$cpu" || continue
    scored=$((scored + 1)) decoded="$decoded $name"
done
# fssim3d on the pairs that decoded
compare3d() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
g, c = (json.load(open(p)) for p in sys.argv[1:3])
d = max((abs(fg["fssim3d"][k] - v) for fg, fc in zip(g["frames"], c["frames"])
         for k, v in fc["fssim3d"].items() if k != "dB"), default=float("inf"))
ok = g["frame_count"] == c["frame_count"] > 0 and d <= 1e-9
print("%4d/%-4d %-9.2g %s %s" % (g["frame_count"], c["frame_count"], d, g["input"]["pix_fmt"],
                                 "PASS" if ok else "FAIL"))
EOF
}
printf '%-18s %-9s %-9s %-8s %s\n' "fssim3d clip" frames max-diff decoded result
for name in $decoded; do
    main="$clips/${name}_lo.mkv" ref="$clips/${name}_hi.mkv"
    gpu="$out/$name.3d.vulkan.json" cpu="$out/$name.3d.cpu.json"
    rm -f "$gpu" "$cpu"
    run_both "$name.3d" "$dec -i $main $dec -i $ref" "-i $main -i $ref" \
        "[0:v][1:v]fssim3d=depth=5:log_path=$gpu" "[0:v][1:v]fssim3d=depth=5:log_path=$cpu"
    report "$name.3d" compare3d "$gpu" "$cpu"
done
# a ladder of Vulkan Video decoded renditions
lad="$clips/h264_8bit_lo.mkv $clips/hevc_8bit_lo.mkv $clips/hevc_8bit_hi.mkv"
if [ -e "$clips/h264_8bit_lo.mkv" ] && [ -e "$clips/hevc_8bit_lo.mkv" ] && [ $scored != 0 ]; then
    gpu="$out/ladder.vulkan.json" cpu="$out/ladder.cpu.json"
    rm -f "$gpu" "$cpu"
    hin="" sin=""
    for f in $lad; do hin="$hin $dec -i $f"; sin="$sin -i $f"; done
    run_both ladder "$hin" "$sin" \
        "[0:v][1:v][2:v]fssim_vulkan=inputs=3:algo=$algos+psnr:log_path=$gpu" \
        "[0:v][1:v][2:v]fssim=inputs=3:algo=$algos+psnr:log_path=$cpu"
    report ladder compare "$gpu" "$cpu" " (float int block psnr mse)"
fi
if [ $scored = 0 ]; then
    echo "no pair could be decoded with Vulkan Video on this device: nothing was checked" >&2
    exit 3
fi
exit $status
