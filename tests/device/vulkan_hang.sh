#!/bin/sh
# The hang of looped Vulkan Video ladders on a GPU machine: reproduced, every
# thread's stack when a run stalls, and the variants that tell its possible
# causes apart, each run bounded, all within a budget (vulkan_hang.py says
# which cases and what each tells).
#
# usage: tests/device/vulkan_hang.sh FFMPEG CLIPS_DIR OUT_DIR [--budget S]
#            [--limit S] [--fault-layer DIR] [--stacks-lib SO] [--only a,b]
#   FFMPEG     the unstripped ffmpeg (BUILD/ffmpeg-src/ffmpeg_g): gdb names
#              the functions where the threads wait
#   CLIPS_DIR  bench/make_bench_clips.py OUT --ladder
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/device/vulkan-env.sh"
exec python3 "$top/tests/device/vulkan_hang.py" "$@"
