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
#
# usage: ffmpeg-tool-patches.sh FFMPEG_TREE PATCH...
set -eu

tree=${1:?usage: ffmpeg-tool-patches.sh FFMPEG_TREE PATCH...}
shift

die() { echo "ffmpeg-tool-patches: $*" >&2; exit 1; }

command -v patch >/dev/null 2>&1 || die "'patch' not found (Debian: apt-get install patch)"
[ -f "$tree/fftools/ffmpeg.c" ] || die "$tree is not an FFmpeg source tree"

# run_patch PATCH ARGS...: GNU patch in the tree, exact (no fuzz), no backups
run_patch() {
    p=$1
    shift
    patch -d "$tree" -p1 -f -s --fuzz=0 --no-backup-if-mismatch "$@" < "$p"
}

applied=
undo() {
    for p in $applied; do
        run_patch "$p" -R >/dev/null 2>&1 || echo "ffmpeg-tool-patches: could not take $p out again" >&2
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
    elif run_patch "$p" -N --dry-run >/dev/null 2>&1 && run_patch "$p" -N; then
        applied="$p $applied"
        echo "ffmpeg-tool-patches: $name: applied"
    else
        undo
        die "$name does not apply to $tree (not the FFmpeg release it was made for, or fftools/ edited there); the tree is left as it was"
    fi
done
