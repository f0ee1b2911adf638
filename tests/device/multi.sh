#!/bin/sh
# Several fssim filters on one GPU: eight fssim_cuda in one graph against
# each alone, and two filter graphs on one CUDA context in one process
# (tests/device/two_graphs); scores must be bitwise identical.  MODE=cpu runs
# the same on software frames.  See tests/device/multi.py.
#
# usage: tests/device/multi.sh FFMPEG CLIPS OUT
top=$(cd "$(dirname "$0")/../.." && pwd)
[ "${MODE:-gpu}" != cpu ] && . "$top/tests/device/vulkan-env.sh"
exec python3 -u "$top/tests/device/multi.py" "$@"
