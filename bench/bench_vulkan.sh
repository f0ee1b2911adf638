#!/bin/sh
# fssim_vulkan benchmark on a GPU machine (doc/performance.md), the Vulkan counterpart of
# bench/bench_cuda.py, on the same clip pairs (bench/make_bench_clips.py:
# SIZE_CODEC_DEPTH_qp22.mkv the reference, _qp34.mkv the distorted one).
#
# usage: bench/bench_vulkan.sh [-d DEVICE] [-n FRAMES] [-s SIZES] FFMPEG CLIPS_DIR [OUT_DIR]
#   -d DEVICE  -init_hw_device vulkan=vk:DEVICE (default 0)
#   -n FRAMES  frames per run, the clips looped (default 300)
#   -s SIZES   comma-separated clip heights (default 1080,2160)
#
# For each pair, on the same clips and in the same run (the best of 2):
#   decode     Vulkan Video decode of both streams, no filter (the baseline)
#   vulkan     Vulkan decode + fssim_vulkan=algo=float+int (all planes)
#   vk_all     Vulkan decode + fssim_vulkan=algo=float+int+block
#   sw_ssim    software decode + FFmpeg's CPU ssim on all cores
# fps, each as a ratio to decode; the GPU time per frame pair from
# fssim_vulkan's timestamp queries (its verbose line at uninit: the time
# from the start to the end of its command buffer, both dispatches per plane
# and the readback barrier); and the time from process start to the first
# scored frame, beside the same for decoding alone.  Writes
# OUT_DIR/bench_vulkan.json and prints a table.
set -u
device=0 frames=300 sizes=1080,2160
while getopts d:n:s: opt; do
    case $opt in
    d) device=$OPTARG ;;
    n) frames=$OPTARG ;;
    s) sizes=$OPTARG ;;
    *) echo "usage: $0 [-d DEVICE] [-n FRAMES] [-s SIZES] FFMPEG CLIPS_DIR [OUT_DIR]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
ff=${1:?usage: bench_vulkan.sh [-d DEVICE] [-n FRAMES] [-s SIZES] FFMPEG CLIPS_DIR [OUT_DIR]}
clips=${2:?usage: bench_vulkan.sh [-d DEVICE] [-n FRAMES] [-s SIZES] FFMPEG CLIPS_DIR [OUT_DIR]}
out=${3:-bench-out}
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
json="$out/bench_vulkan.json"
threads=$(nproc)

. "$top/tests/device/vulkan-env.sh"
. "$top/bench/benchlib.sh"

hw="-init_hw_device vulkan=vk:$device -filter_hw_device vk"
dec="-hwaccel vulkan -hwaccel_device vk -hwaccel_output_format vulkan"
base="-hide_banner -nostdin -y -v verbose"

# timed LOG CMD...: run, keep stderr in LOG, print the wall seconds
timed() {
    log=$1; shift
    t0=$(now)
    "$@" > "$log" 2>&1 || { echo "failed: $*" >&2; tail -n 20 "$log" >&2; echo -1; return 1; }
    t1=$(now)
    echo "$t1 $t0" | awk '{ printf "%.3f", $1 - $2 }'
}

gpu_us() { sed -n 's/.*GPU time per frame: mean \([0-9.]*\) us.*/\1/p' "$1" | tail -n 1; }

devname=$(vk_device "$ff" "$hw")
drv=$(gpu_driver)
echo "device: $devname${drv:+ (driver $drv)}; $frames frames per run; $threads threads for sw_ssim"
printf '{\n "device": "%s", "driver": "%s", "frames": %s, "threads": %s,\n "runs": [' \
    "$devname" "$drv" "$frames" "$threads" > "$json"

# run_pair: the runs of one clip pair (each_pair sets size, cd, ref, dist, total, lp)
run_pair() {
    tag="$out/${size}_${cd}"
    # shellcheck disable=SC2086
    t_dec=$(best "$tag.decode.log" "$ff" $base $hw $dec $lp -i "$dist" $dec $lp -i "$ref" \
        -map 0:v -map 1:v -f null -)
    # shellcheck disable=SC2086
    t_vk=$(best "$tag.vulkan.log" "$ff" $base $hw $dec $lp -i "$dist" $dec $lp -i "$ref" \
        -lavfi "[0:v][1:v]fssim_vulkan=algo=float+int" -f null -)
    us_vk=$(gpu_us "$tag.vulkan.log")
    # shellcheck disable=SC2086
    t_all=$(best "$tag.vk_all.log" "$ff" $base $hw $dec $lp -i "$dist" $dec $lp -i "$ref" \
        -lavfi "[0:v][1:v]fssim_vulkan=algo=float+int+block" -f null -)
    us_all=$(gpu_us "$tag.vk_all.log")
    # shellcheck disable=SC2086
    t_sw=$(best "$tag.sw_ssim.log" "$ff" $base -threads $threads $lp -i "$dist" \
        -threads $threads $lp -i "$ref" -filter_threads $threads \
        -lavfi "[0:v][1:v]ssim" -f null -)
    # start to first scored frame, beside decoding one frame
    # shellcheck disable=SC2086
    s_vk=$(best "$tag.start.log" "$ff" $base $hw $dec -i "$dist" $dec -i "$ref" \
        -lavfi "[0:v][1:v]fssim_vulkan=algo=float+int" -frames:v 1 -f null -)
    # shellcheck disable=SC2086
    s_dec=$(best "$tag.start_dec.log" "$ff" $base $hw $dec -i "$dist" $dec -i "$ref" \
        -map 0:v -map 1:v -frames:v 1 -f null -)
    line=$(echo "$total $t_dec $t_vk $t_all $t_sw" | awk '{
        n = $1; d = n / $2; v = n / $3; a = n / $4; s = n / $5;
        printf "%.1f %.1f %.3f %.1f %.3f %.1f %.3f", d, v, v / d, a, a / d, s, s / d }')
    set -- $line
    printf '%s %s-bit %s: decode %s fps, fssim_vulkan %s fps (%s), +block %s fps (%s), sw+ssim %s fps (%s); GPU %s us/frame pair (%s with block); start %s s (decode-only %s s)\n' \
        "$size" "${cd#*_}" "${cd%_*}" "$1" "$2" "$3" "$4" "$5" "$6" "$7" \
        "${us_vk:-?}" "${us_all:-?}" "$s_vk" "$s_dec"
    printf '%s\n  {"size": %s, "codec": "%s", "depth": %s, "frames": %s,\n   "decode": {"s": %s, "fps": %s},\n   "vulkan": {"s": %s, "fps": %s, "ratio": %s, "gpu_us": %s},\n   "vk_all": {"s": %s, "fps": %s, "ratio": %s, "gpu_us": %s},\n   "sw_ssim": {"s": %s, "fps": %s, "ratio": %s},\n   "start": {"fssim_vulkan": %s, "decode_only": %s}}' \
        "$sep" "$size" "${cd%_*}" "${cd#*_}" "$total" "$t_dec" "$1" "$t_vk" "$2" "$3" \
        "${us_vk:-null}" "$t_all" "$4" "$5" "${us_all:-null}" "$t_sw" "$6" "$7" \
        "$s_vk" "$s_dec" >> "$json"
    sep=,
}

sep=
each_pair "$ff" "$clips" "$sizes" "$frames" run_pair
printf '\n ]\n}\n' >> "$json"
echo "wrote $json"
