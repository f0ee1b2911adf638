#!/bin/sh
# Build tests/device/two_graphs.c against a configured and built fssim
# FFmpeg tree (static libraries), with that build's compiler, include paths
# and EXTRALIBS, so that the binary can be carried to the GPU machine next to
# ffmpeg: it must need nothing there but the C library (libcuda and
# libvulkan are dlopen'ed by FFmpeg at run time).  The ldd check fails the
# build otherwise.
#
# usage: tests/device/build_two_graphs.sh BUILD_DIR [OUTPUT]
#   BUILD_DIR  the fssim build tree (holds ffmpeg-src/ with the built .a files)
#   OUTPUT     the binary (default: BUILD_DIR/tests/device/two_graphs)
set -eu
build=${1:?usage: build_two_graphs.sh BUILD_DIR [OUTPUT]}
tree=$build/ffmpeg-src
out=${2:-$build/tests/device/two_graphs}
src=$(cd "$(dirname "$0")" && pwd)/two_graphs.c
mak=$tree/ffbuild/config.mak
[ -f "$mak" ] || { echo "build_two_graphs.sh: no $mak: configure and build FFmpeg first" >&2; exit 2; }

# one variable of config.mak, as written there
conf() { sed -n "s/^$1=//p" "$mak" | head -n 1; }

libs="libavfilter libswscale libavformat libavcodec libswresample libavutil"
archives='' extra=''
for l in $libs; do
    [ -f "$tree/$l/$l.a" ] || { echo "build_two_graphs.sh: $tree/$l/$l.a is missing" >&2; exit 2; }
    archives="$archives $tree/$l/$l.a"
    extra="$extra $(conf "EXTRALIBS-${l#lib}")"
done
# shellcheck disable=SC2046,SC2086
extra=$(echo $extra $(conf EXTRALIBS) | tr ' ' '\n' | sort -u | tr '\n' ' ')
incs=$(conf CFLAGS | tr ' ' '\n' | grep '^-I' | tr '\n' ' ')
cc=$(conf CC)
mkdir -p "$(dirname "$out")"
set -x
# shellcheck disable=SC2086
${cc:-cc} -std=c17 -O2 -Wall -I"$tree" $incs -o "$out" "$src" $archives \
    -Wl,--as-needed $extra -lpthread -ldl -lm
{ set +x; } 2>/dev/null

# Only the C library's own parts may be needed at run time.
deps=$(ldd "$out" | awk '{ print $1 }')
for d in $deps; do
    case $d in
    linux-vdso.so.*|/lib*/ld-linux*|libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*) ;;
    *) echo "build_two_graphs.sh: $out needs $d, which the GPU machine may lack:" >&2
       ldd "$out" >&2
       exit 1 ;;
    esac
done
ldd "$out"
echo "built $out"
