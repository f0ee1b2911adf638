#!/bin/sh
# Put in the checkout's .dev/ folder (ignored by git) what the GPU-machine
# scripts need there and cannot build: the ffmpeg and ffprobe of a build,
# unstripped (their stacks name functions) and xz-compressed, the Vulkan
# fault layer, the stack dumper (stacks.c, for a machine without gdb) and
# the benchmark clips; then say how much it is (a device call carries at
# most 64 MiB, .gl/ included).
#
# usage: tests/device/make_kit.sh BUILD_DIR BENCH_CLIPS_DIR [TEST_CLIPS_DIR]
#   BUILD_DIR        a configured and built tree (make, and make check for the
#                    fault layer: BUILD/tests/vulkan/fault)
#   BENCH_CLIPS_DIR  bench/make_bench_clips.py DIR --ladder (its .mkv files)
#   TEST_CLIPS_DIR   tests/cuda/make_clips.py DIR (the NVDEC clips of
#                    gpu_tests.sh: FSSIM_CLIPS=.dev/testclips)
set -eu
build=$(cd "${1:?usage: make_kit.sh BUILD_DIR BENCH_CLIPS_DIR}" && pwd)
clips=$(cd "${2:?usage: make_kit.sh BUILD_DIR BENCH_CLIPS_DIR}" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
kit="$top/.dev"

die() { echo "make_kit: $*" >&2; exit 1; }
[ -x "$build/ffmpeg-src/ffmpeg_g" ] || die "$build/ffmpeg-src/ffmpeg_g is not built (make)"
[ -f "$build/tests/vulkan/fault/libVkLayer_fssim_fault.so" ] ||
    make -C "$build" tests/vulkan/fault/libVkLayer_fssim_fault.so >/dev/null ||
    die "the fault layer does not build (make -C $build check builds it)"

rm -rf "$kit/bin" "$kit/fault" "$kit/lib" "$kit/clips" "$kit/testclips"
mkdir -p "$kit/bin" "$kit/fault" "$kit/lib" "$kit/clips"
xz -T2 -6 -c "$build/ffmpeg-src/ffmpeg_g" > "$kit/bin/ffmpeg.xz"
xz -T2 -6 -c "$build/ffmpeg-src/ffprobe_g" > "$kit/bin/ffprobe.xz"
cp "$build/tests/vulkan/fault/libVkLayer_fssim_fault.so" \
   "$build/tests/vulkan/fault/fault_layer.json" "$kit/fault/"
${CC:-cc} -O1 -Wall -fPIC -shared "$top/tests/device/stacks.c" -o "$kit/lib/libfssim_stacks.so"
# what bench_plain.py and vulkan_hang.py read (not the H.264 pairs)
for f in 1080_hevc_8_qp22 1080_hevc_8_qp34 2160_hevc_8_qp22 2160_hevc_8_qp34 \
         2160_hevc_10_qp22 2160_hevc_10_qp34 ladder_1440 ladder_1080 ladder_720 \
         ladder_540 ladder_360; do
    [ -f "$clips/$f.mkv" ] || die "$clips/$f.mkv is missing (bench/make_bench_clips.py DIR --ladder)"
    cp "$clips/$f.mkv" "$kit/clips/"
done
if [ -n "${3:-}" ]; then
    mkdir -p "$kit/testclips"
    cp "$3"/*.mkv "$kit/testclips/"
fi
gl=
[ -d "$top/.gl" ] && gl="$top/.gl"
du -sh "$kit" $gl
total=$(du -sk "$kit" $gl | awk '{ s += $1 } END { print s }')
[ "$total" -le 65536 ] || die "$total KiB: more than a device call carries (64 MiB); make fewer or shorter clips"
echo "make_kit: .dev/ ready ($total KiB, .gl/ included where there is one); carry .dev and .gl"
