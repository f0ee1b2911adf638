#!/bin/sh
# fssim3d on Vulkan frames: benchmark on a GPU machine (doc/performance.md), the Vulkan
# counterpart of bench/bench_cuda3d.py, on the same clip pairs (bench/make_bench_clips.py:
# SIZE_CODEC_DEPTH_qp22.mkv the reference, _qp34.mkv the distorted one).  Not run by
# make check.
#
# usage: bench/bench_vulkan3d.sh [-d DEVICE] [-n FRAMES] [-s SIZES] [-t DEPTH] [-c CPU_FRAMES]
#                                [-x EXTRA] FFMPEG CLIPS_DIR [OUT_DIR]
#   -d DEVICE      -init_hw_device vulkan=vk:DEVICE (default 0)
#   -n FRAMES      frames per run, the clips looped (default 300)
#   -s SIZES       comma-separated clip heights (default 2160,1080)
#   -t DEPTH       fssim3d's temporal window (default 11)
#   -c CPU_FRAMES  frames of the software fssim3d run (default 24; 0: none)
#   -x EXTRA       -extra_hw_frames for both decoders, in the decode-only run too
#                  (fssim3d holds depth/2 + 1 frames of each; default: FFmpeg's)
#
# For each pair, on the same clips and in the same run (the best of 2):
#   decode     Vulkan Video decode of both streams, no filter (the baseline)
#   vk3d       Vulkan decode + fssim3d=depth=DEPTH on the Vulkan frames (all planes)
#   vk3d_fed   the same, with both decoded streams also sent to a second null output, so
#              that the two decoders run side by side
#              (doc/performance.md#keeping-the-decoders-busy)
#   sw3d       software decode + fssim3d on software frames on all cores, CPU_FRAMES
#              frames (it is slow), the CPU baseline
# fps, each as a ratio to decode; fssim3d's GPU time per frame pair from its timestamp
# queries (its verbose line at uninit: spatial moments, and temporal window + score + sums
# + readback barrier), the ring's device memory as fssim3d logs it, the peak device memory
# of each run (nvidia-smi, sampled every 50 ms); and the time from process start to the
# first scored frame (fssim3d needs DEPTH/2 + 1 frame pairs for it), beside decoding as
# many frames.  Writes OUT_DIR/bench_vulkan3d.json and prints a table.
set -u
device=0 frames=300 sizes=2160,1080 depth=11 cpu_frames=24 extra=
usage="usage: $0 [-d DEVICE] [-n FRAMES] [-s SIZES] [-t DEPTH] [-c CPU_FRAMES] [-x EXTRA] FFMPEG CLIPS_DIR [OUT_DIR]"
while getopts d:n:s:t:c:x: opt; do
    case $opt in
    d) device=$OPTARG ;;
    n) frames=$OPTARG ;;
    s) sizes=$OPTARG ;;
    t) depth=$OPTARG ;;
    c) cpu_frames=$OPTARG ;;
    x) extra=$OPTARG ;;
    *) echo "$usage" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
ff=${1:?$usage}
clips=${2:?$usage}
out=${3:-bench-out}
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
json="$out/bench_vulkan3d.json"
threads=$(nproc)

. "$top/tests/device/vulkan-env.sh"

hw="-init_hw_device vulkan=vk:$device -filter_hw_device vk"
dec="-hwaccel vulkan -hwaccel_device vk -hwaccel_output_format vulkan${extra:+ -extra_hw_frames $extra}"
base="-hide_banner -nostdin -y -v verbose"
have_smi=$(command -v nvidia-smi > /dev/null 2>&1 && echo 1)
. "$top/bench/benchlib.sh"

# timed LOG CMD...: run, keep stderr in LOG, print the wall seconds; the peak device
# memory in use while it ran goes to LOG.mem (MiB)
timed() {
    log=$1; shift
    rm -f "$log.mem"
    if [ -n "$have_smi" ]; then
        ( peak=0
          while :; do
              m=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null |
                  head -n 1)
              [ "${m:-0}" -gt "$peak" ] 2>/dev/null && peak=$m && echo "$peak" > "$log.mem"
              sleep 0.05
          done ) &
        sampler=$!
    fi
    t0=$(now)
    "$@" > "$log" 2>&1
    rc=$?
    t1=$(now)
    [ -n "$have_smi" ] && kill "$sampler" 2> /dev/null && wait "$sampler" 2> /dev/null
    if [ $rc -ne 0 ]; then
        echo "failed: $*" >&2; tail -n 20 "$log" >&2; echo -1; return 1
    fi
    echo "$t1 $t0" | awk '{ printf "%.3f", $1 - $2 }'
}

# fssim3d's verbose line: GPU time per frame pair, spatial moments, temporal pass
gpu3d() {
    sed -n 's/.*GPU time per frame pair: \([0-9.]*\) us over [0-9]* frames (spatial moments \([0-9.]*\) us, temporal window and score \([0-9.]*\) us.*/\1 \2 \3/p' \
        "$1" | tail -n 1
}
ring_mib() { sed -n 's/.*fssim3d: ring of [0-9]* moment sets, \([0-9.]*\) MiB.*/\1/p' "$1" | tail -n 1; }
mem() { cat "$1.mem" 2> /dev/null || echo null; }

devname=$(vk_device "$ff" "$hw")
drv=$(gpu_driver)
echo "device: $devname${drv:+ (driver $drv)}; $frames frames per run, depth $depth;" \
     "$threads threads for sw3d ($cpu_frames frames); -extra_hw_frames ${extra:-default}"
printf '{\n "device": "%s", "driver": "%s", "frames": %s, "depth": %s, "threads": %s, "extra_hw_frames": %s,\n "runs": [' \
    "$devname" "$drv" "$frames" "$depth" "$threads" "${extra:-null}" > "$json"

# run_pair: the runs of one clip pair (each_pair sets size, cd, ref, dist, total, lp)
run_pair() {
    tag="$out/${size}_${cd}_d$depth"
    # shellcheck disable=SC2086
    t_dec=$(best "$tag.decode.log" "$ff" $base $hw $dec $lp -i "$dist" $dec $lp -i "$ref" \
        -map 0:v -map 1:v -f null -)
    m_dec=$(mem "$tag.decode.log")
    # shellcheck disable=SC2086
    t_vk=$(best "$tag.vk3d.log" "$ff" $base $hw $dec $lp -i "$dist" $dec $lp -i "$ref" \
        -lavfi "[0:v][1:v]fssim3d=depth=$depth" -f null -)
    m_vk=$(mem "$tag.vk3d.log")
    # shellcheck disable=SC2086
    t_fed=$(best "$tag.vk3d_fed.log" "$ff" $base $hw $dec $lp -i "$dist" $dec $lp -i "$ref" \
        -lavfi "[0:v][1:v]fssim3d=depth=$depth" -f null - \
        -map 0:v -map 1:v -vf "setpts=PTS-60/TB" -enc_time_base filter -f null -)
    g=$(gpu3d "$tag.vk3d.log")
    ring=$(ring_mib "$tag.vk3d.log")
    t_sw=-1
    if [ "$cpu_frames" -gt 0 ]; then
        # shellcheck disable=SC2086
        t_sw=$(timed "$tag.sw3d.log" "$ff" $base -threads $threads -i "$dist" \
            -threads $threads -i "$ref" -filter_threads $threads \
            -lavfi "[0:v][1:v]fssim3d=depth=$depth" -frames:v "$cpu_frames" -f null -)
    fi
    # start to first scored frame, beside decoding the frames it needs
    # shellcheck disable=SC2086
    s_vk=$(best "$tag.start.log" "$ff" $base $hw $dec -i "$dist" $dec -i "$ref" \
        -lavfi "[0:v][1:v]fssim3d=depth=$depth" -frames:v 1 -f null -)
    # shellcheck disable=SC2086
    s_dec=$(best "$tag.start_dec.log" "$ff" $base $hw $dec -i "$dist" $dec -i "$ref" \
        -map 0:v -map 1:v -frames:v $((depth / 2 + 1)) -f null -)
    line=$(echo "$total $t_dec $t_vk $cpu_frames $t_sw $t_fed" | awk '{
        d = $1 / $2; v = $1 / $3; s = $5 > 0 ? $4 / $5 : 0; f = $1 / $6;
        printf "%.1f %.1f %.3f %.2f %.4f %.1f %.3f", d, v, v / d, s, s / d, f, f / d }')
    set -- $line ${g:-null null null}
    printf '%s %s-bit %s: decode %s fps, fssim3d %s fps (%s), with the second output %s fps (%s), sw fssim3d %s fps (%s); GPU %s us/frame pair (moments %s, temporal %s); ring %s MiB; peak device memory %s MiB (decode %s); start %s s (decode-only %s s)\n' \
        "$size" "${cd#*_}" "${cd%_*}" "$1" "$2" "$3" "$6" "$7" "$4" "$5" "$8" "$9" "${10}" \
        "${ring:-?}" "$m_vk" "$m_dec" "$s_vk" "$s_dec"
    printf '%s\n  {"size": %s, "codec": "%s", "bits": %s, "frames": %s,\n   "decode": {"s": %s, "fps": %s, "peak_mib": %s},\n   "vk3d": {"s": %s, "fps": %s, "ratio": %s, "gpu_us": %s, "moments_us": %s, "score_us": %s, "ring_mib": %s, "peak_mib": %s},\n   "vk3d_fed": {"s": %s, "fps": %s, "ratio": %s},\n   "sw3d": {"frames": %s, "s": %s, "fps": %s, "ratio": %s},\n   "start": {"fssim3d": %s, "decode_only": %s}}' \
        "$sep" "$size" "${cd%_*}" "${cd#*_}" "$total" "$t_dec" "$1" "$m_dec" \
        "$t_vk" "$2" "$3" "$8" "$9" "${10}" "${ring:-null}" "$m_vk" \
        "$t_fed" "$6" "$7" \
        "$cpu_frames" "$t_sw" "$4" "$5" "$s_vk" "$s_dec" >> "$json"
    sep=,
}

sep=
each_pair "$ff" "$clips" "$sizes" "$frames" run_pair
printf '\n ]\n}\n' >> "$json"
echo "wrote $json"
