#!/bin/sh
# Add the fssim filters to an FFmpeg source tree.
#
# usage: ffmpeg-integrate.sh [--no-tool-patches] FFMPEG_TREE PROJECT_SRCDIR
#
# Sources are copied only when their content changed, so FFmpeg's own make
# rebuilds exactly what was edited.  Registration (allfilters.c, configure,
# libavfilter/Makefile, tests/Makefile) is done by inserting lines after
# anchor lines that exist in every supported release; a missing anchor is an
# error, never a silent mis-patch.  Running it twice changes nothing.
#
# It also patches the ffmpeg tool (fftools/) with the patches for the tree's
# release in patches/ffmpeg/ (doc/tool-patch.md says what they change), and
# says so; --no-tool-patches leaves fftools/ as it is.  A patch found
# applied is not applied again.
set -eu

usage="usage: ffmpeg-integrate.sh [--no-tool-patches] FFMPEG_TREE PROJECT_SRCDIR"
tool_patches=yes
case ${1:-} in
--no-tool-patches) tool_patches=no; shift ;;
-*) echo "$usage" >&2; exit 1 ;;
esac
tree=${1:?$usage}
src=${2:?$usage}
dst=$tree/libavfilter/fssim

die() { echo "ffmpeg-integrate: $*" >&2; exit 1; }

if [ "$tool_patches" = yes ]; then
    release=$(cut -d. -f1,2 "$tree/RELEASE" 2>/dev/null || true)
    set -- "$src/patches/ffmpeg/${release:-none}"/*.patch
    if [ -n "$release" ] && [ -f "$1" ]; then
        echo "ffmpeg-integrate: patching the ffmpeg tool in $tree with patches/ffmpeg/$release" \
             "(doc/tool-patch.md; --no-tool-patches leaves it as it is)"
        sh "$src/scripts/ffmpeg-tool-patches.sh" "$tree" "$@" ||
            die "the tool patches do not apply; rerun with --no-tool-patches to add the filters alone"
    else
        echo "ffmpeg-integrate: no patches to the ffmpeg tool for FFmpeg ${release:-of unknown release};" \
             "fftools/ is left as it is"
    fi
fi

sync_file() { # sync_file SRC DST: copy when different
    if ! cmp -s "$1" "$2"; then
        cp "$1" "$2.tmp" && mv "$2.tmp" "$2"
    fi
}

mkdir -p "$dst" "$tree/tests/ref/fate"
for f in "$src"/ref/*.[ch] "$src"/filters/*.[ch] "$src"/kernels/*.cuh "$src"/kernels/*.h \
         "$src"/vulkan_shaders/*.glsl; do
    [ -e "$f" ] || continue
    sync_file "$f" "$dst/$(basename "$f")"
done
sync_file "$src/filters/ffmpeg.mak" "$dst/Makefile"
# The GPU architectures to build CUDA machine code for, and the tools
# (FSSIM_SASS, FSSIM_PTXAS, FSSIM_FATBINARY from the environment: configure's
# --with-cuda-sass); none: the modules carry PTX alone.
printf 'FSSIM_SASS = %s\nFSSIM_PTXAS = %s\nFSSIM_FATBINARY = %s\n' \
    "${FSSIM_SASS:-}" "${FSSIM_PTXAS:-ptxas}" "${FSSIM_FATBINARY:-fatbinary}" > "$dst/sass.mak.new"
sync_file "$dst/sass.mak.new" "$dst/sass.mak"
rm -f "$dst/sass.mak.new"
sync_file "$src/fate/fssim.mak" "$tree/tests/fate/fssim.mak"
for f in "$src"/fate/ref/*; do
    [ -e "$f" ] || continue
    sync_file "$f" "$tree/tests/ref/fate/$(basename "$f")"
done

# insert_after FILE ANCHOR MARKER TEXT: add TEXT after the first line that
# starts with the literal string ANCHOR, unless MARKER is already in FILE.
insert_after() {
    file=$1 anchor=$2 marker=$3 text=$4
    grep -qF -- "$marker" "$file" && return 0
    awk -v anchor="$anchor" -v text="$text" '
        { print }
        !done && index($0, anchor) == 1 { print text; done = 1 }
        END { exit !done }
    ' "$file" > "$file.tmp" || {
        rm -f "$file.tmp"
        die "no line starting with '$anchor' in $file: unsupported FFmpeg version?"
    }
    cat "$file.tmp" > "$file"    # keeps the file's mode (configure stays executable)
    rm -f "$file.tmp"
}

# Filters: the type of the declaration is taken from ssim's own line.
decl=$(grep -E '^extern const [A-Za-z]+ ff_vf_ssim;' "$tree/libavfilter/allfilters.c" | awk '{ print $3 }')
[ -n "$decl" ] || die "ff_vf_ssim declaration not found in libavfilter/allfilters.c"
insert_after "$tree/libavfilter/allfilters.c" "extern const $decl ff_vf_ssim;" 'ff_vf_fssim;' \
"extern const $decl ff_vf_fssim;
extern const $decl ff_vf_fssim3d;
extern const $decl ff_vf_fssim_cuda;
extern const $decl ff_vf_fssim_vulkan;"

insert_after "$tree/configure" 'scale_cuda_filter_deps_any=' 'fssim_cuda_filter_deps' \
'fssim_cuda_filter_deps="ffnvcodec"
fssim_cuda_filter_deps_any="cuda_nvcc cuda_llvm"
fssim_vulkan_filter_deps="vulkan spirv_compiler"'

insert_after "$tree/libavfilter/Makefile" 'include $(SRC_PATH)/libavfilter/vulkan/Makefile' 'libavfilter/fssim/Makefile' \
'include $(SRC_PATH)/libavfilter/fssim/Makefile'

insert_after "$tree/tests/Makefile" 'include $(SRC_PATH)/tests/fate/filter-video.mak' 'tests/fate/fssim.mak' \
'include $(SRC_PATH)/tests/fate/fssim.mak'
