# Sourced by the Vulkan benchmarks (bench_vulkan.sh, bench_vulkan3d.sh), after
# they define timed LOG CMD... (a run, its wall seconds): what they share.

now() { date +%s.%N; }

# best LOG CMD...: the faster of two runs, in seconds (the log of the second)
best() {
    a=$(timed "$@") || { echo -1; return; }
    b=$(timed "$@") || { echo -1; return; }
    echo "$a $b" | awk '{ print ($1 < $2) ? $1 : $2 }'
}

# vk_device FFMPEG HW_OPTIONS: the name of the Vulkan device that HW_OPTIONS open
vk_device() {
    # shellcheck disable=SC2086
    "$1" -hide_banner -v verbose $2 -f lavfi -i color=s=64x64:d=0.04 \
        -vf format=nv12,hwupload -f null - 2>&1 | sed -n 's/.*Using device: //p' | head -n 1
}

# gpu_driver: the NVIDIA driver's version, where nvidia-smi is
gpu_driver() {
    nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1
}

# each_pair FFMPEG CLIPS_DIR SIZES FRAMES FUNC: FUNC once for each clip pair of
# bench/make_bench_clips.py there (SIZE_CODEC_DEPTH_qp22.mkv the reference,
# _qp34.mkv the distorted one) of the comma-separated SIZES, with size, cd
# (CODEC_DEPTH), ref, dist, total (the frames of a run: the clip looped to
# about FRAMES) and lp (its -stream_loop option) set.
each_pair() {
    _ff=$1 _clips=$2 _sizes=$3 _frames=$4 _fn=$5
    for size in $(echo "$_sizes" | tr , ' '); do
        for cd in hevc_8 hevc_10 h264_8; do
            ref="$_clips/${size}_${cd}_qp22.mkv" dist="$_clips/${size}_${cd}_qp34.mkv"
            [ -e "$ref" ] && [ -e "$dist" ] || continue
            n=$("$_ff" -v error -i "$ref" -map 0:v -c copy -f null - -stats 2>&1 |
                sed -n 's/.*frame= *\([0-9]*\).*/\1/p' | tail -n 1)
            loops=$(( _frames / ${n:-60} - 1 )); [ $loops -lt 0 ] && loops=0
            total=$(( ${n:-60} * (loops + 1) ))
            lp="-stream_loop $loops"
            "$_fn"
        done
    done
}
