#!/bin/sh
# Install what building and testing fssim needs on Debian 12:
# compilers and autotools, nasm, clang (CUDA kernels to PTX), glslangValidator
# (Vulkan shaders to SPIR-V), Mesa's lavapipe (Vulkan on the CPU, for the
# tests), the Vulkan loader's headers (vk_layer.h: the tests' fault layer),
# the Khronos validation layer (loaded by the Vulkan tests), Debian's ffmpeg
# (only to encode the test clips), patch (applies patches/ffmpeg to the
# build's FFmpeg source), Chromium (the farm report's test renders the page
# headless), and a Python virtual environment in .venv with numpy and
# scikit-image, and for fssim-farm (farm/) dask, distributed, and for its
# report matplotlib, plotly (inlined in the page), scipy, bjontegaard
# (BD-rate) and pillow (the pictures of the worst frames).
# The newer Vulkan and ffnvcodec headers are fetched by ./configure itself
# into the build tree (see scripts/fetch-deps.sh).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo

$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
    build-essential autoconf automake pkg-config nasm clang glslang-tools \
    mesa-vulkan-drivers libvulkan1 libvulkan-dev vulkan-validationlayers ffmpeg \
    python3 python3-venv xz-utils curl ca-certificates dpkg-dev gdb patch chromium

if [ ! -x "$top/.venv/bin/python3" ]; then
    python3 -m venv "$top/.venv"
fi
"$top/.venv/bin/python3" -m pip install -q --upgrade pip
"$top/.venv/bin/python3" -m pip install -q numpy scikit-image dask distributed matplotlib \
    plotly scipy bjontegaard pillow
"$top/.venv/bin/python3" -c 'import numpy, scipy, skimage; print("python ok: numpy", numpy.__version__, "scikit-image", skimage.__version__)'
"$top/.venv/bin/python3" -c 'import distributed, matplotlib; print("python ok: distributed", distributed.__version__, "matplotlib", matplotlib.__version__)'
"$top/.venv/bin/python3" -c 'import plotly, bjontegaard, PIL; print("python ok: plotly", plotly.__version__, "bjontegaard", bjontegaard.__version__, "pillow", PIL.__version__)'
