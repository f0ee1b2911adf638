#!/bin/sh
# FFmpeg's own FATE tests of the ffmpeg tool that this build can run
# without FATE's samples, in the build's FFmpeg tree, on the tool as built
# (with the patches of patches/ffmpeg unless configure --disable-tool-patches,
# doc/tool-patch.md): the tests of the tool itself (tests/fate/ffmpeg.mak:
# filtergraphs with one and several inputs, streamcopy, -t), the filter
# tests, which run filtergraphs through the tool (two inputs for the
# reference comparisons), and the vsynth encode and decode round trips.
# One TAP line per FATE test; a failing test shows its diff and the tail of
# its log.  `make fate-tool` runs this.
#
# Environment (tests/env.sh): FFMPEG_TREE, top_srcdir.

. "$top_srcdir/tests/lib/fate.sh"
. "$top_srcdir/tests/lib/tap.sh"

if [ -z "$FFMPEG_TREE" ] || [ ! -x "$FFMPEG_TREE/ffmpeg" ]; then
    echo "1..0 # SKIP no built FFmpeg tree (FFMPEG_TREE=$FFMPEG_TREE)"
    exit 0
fi

# a make started from `make check` must not inherit its jobserver
unset MAKEFLAGS MFLAGS MAKELEVEL
work=${FSSIM_WORK:-/tmp}/fate-tool
mkdir -p "$work"

make -s -C "$FFMPEG_TREE" fate-list SAMPLES= > "$work/list" 2>&1
tests=$(grep -E '^fate-(ffmpeg-|filter-|vsynth|force_key_frames$|unknown_layout-)' "$work/list")
count=$(echo "$tests" | grep -c .)
# the tool's own tests with one and with two inputs, at least
if echo "$tests" | grep -q '^fate-ffmpeg-filter_complex$' &&
   echo "$tests" | grep -q '^fate-ffmpeg-filter-in-eof$'; then
    tap ok "FATE lists $count tests of the tool without samples"
else
    tap not-ok "FATE lists $count tests of the tool without samples, fate-ffmpeg-filter_complex and fate-ffmpeg-filter-in-eof among them"
    diag < "$work/list"
fi

# FATE writes tests/data/fate/NAME.rep for the target fate-NAME
data=$FFMPEG_TREE/tests/data/fate
for t in $tests; do
    rm -f "$data/${t#fate-}.rep" "$data/${t#fate-}.diff"
done
# shellcheck disable=SC2086
make -k -C "$FFMPEG_TREE" -j2 $tests SAMPLES= > "$work/fate.log" 2>&1
rc=$?
if [ $rc -eq 0 ]; then tap ok "make ${count} FATE tests of the tool succeeds"
else tap not-ok "make ${count} FATE tests of the tool succeeds (exit $rc)"; tail -n 30 "$work/fate.log" | diag; fi

for t in $tests; do
    fate_result "${t#fate-}"
done
echo "1..$n"
