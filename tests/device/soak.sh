#!/bin/sh
# Soak test on the GPU machine: memory flat over long runs of fssim_cuda
# (NVDEC frames), fssim_vulkan (Vulkan Video frames) and fssim3d (CUDA
# frames); MODE=cpu runs fssim and fssim3d on software frames instead.
# See tests/device/soak.py for the options and what is checked.
#
# usage: tests/device/soak.sh FFMPEG CLIP FRAMES OUT
top=$(cd "$(dirname "$0")/../.." && pwd)
[ "${MODE:-gpu}" = gpu ] && . "$top/tests/device/vulkan-env.sh"
exec python3 -u "$top/tests/device/soak.py" "$@"
