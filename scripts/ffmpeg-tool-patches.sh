#!/bin/sh
# Apply the patches to the ffmpeg tool (patches/ffmpeg/MAJOR.MINOR/, see
# doc/tool-patch.md) to an FFmpeg source tree, in order, each one unless the
# tree already has it.  The patches are a series: a later one may change
# what an earlier one added, so the tree has the first k of them when the
# k-th comes out in reverse, whatever the earlier ones then do.  A patch
# that does not apply exactly (offsets allowed, no fuzz) is an error: the
# patches this run applied are taken out again, so that the tree is left
# as it was, never partly or approximately patched.  Running it twice
# changes nothing.
# Each patch applied is kept in the tree (.fssim-tool-patches/), so that
# --reset can take them out again: a built tree copied for another build
# (configure --with-ffmpeg-build) gets that build's patches, or none.
#
# usage: ffmpeg-tool-patches.sh FFMPEG_TREE PATCH...
#        ffmpeg-tool-patches.sh --reset FFMPEG_TREE
set -eu

reset=
if [ "${1:-}" = --reset ]; then
    reset=1
    shift
fi
tree=${1:?usage: ffmpeg-tool-patches.sh [--reset] FFMPEG_TREE [PATCH...]}
shift
kept=$tree/.fssim-tool-patches

die() { echo "ffmpeg-tool-patches: $*" >&2; exit 1; }

command -v patch >/dev/null 2>&1 || die "'patch' not found (Debian: apt-get install patch)"
[ -f "$tree/fftools/ffmpeg.c" ] || die "$tree is not an FFmpeg source tree"

# run_patch PATCH ARGS...: GNU patch in the tree, exact (no fuzz), no backups
run_patch() {
    p=$1
    shift
    patch -d "$tree" -p1 -f -s --fuzz=0 --no-backup-if-mismatch "$@" < "$p"
}

# --reset: take the kept patches out, the last applied first
if [ -n "$reset" ]; then
    [ -d "$kept" ] || exit 0
    for p in $(ls "$kept" | sort -r); do
        run_patch "$kept/$p" -R || die "$p: could not be taken out of $tree again"
        echo "ffmpeg-tool-patches: ${p#??-}: taken out"
    done
    rm -rf "$kept"
    exit 0
fi

# keep: a copy of PATCH, numbered in the order applied
keep() {
    mkdir -p "$kept"
    n=$(ls "$kept" | wc -l)
    cp "$1" "$kept/$(printf %02d "$n")-$(basename "$1")"
}

applied=
undo() {
    for p in $applied; do
        run_patch "$p" -R >/dev/null 2>&1 || echo "ffmpeg-tool-patches: could not take $p out again" >&2
        rm -f "$kept"/*-"$(basename "$p")"
    done
}

# the last patch of the series that the tree has
have=0 i=0
for p in "$@"; do
    i=$((i + 1))
    run_patch "$p" -R --dry-run >/dev/null 2>&1 && have=$i
done

i=0
for p in "$@"; do
    i=$((i + 1))
    name=$(basename "$p")
    if [ "$i" -le "$have" ]; then
        echo "ffmpeg-tool-patches: $name: already applied"
        ls "$kept" 2>/dev/null | grep -q -- "-$name\$" || keep "$p"
    elif run_patch "$p" -N --dry-run >/dev/null 2>&1 && run_patch "$p" -N; then
        applied="$p $applied"
        keep "$p"
        echo "ffmpeg-tool-patches: $name: applied"
    else
        undo
        die "$name does not apply to $tree (not the FFmpeg release it was made for, or fftools/ edited there); the tree is left as it was"
    fi
done
