# Sourced first by the tests that run FFmpeg's FATE in the build's FFmpeg
# tree.  They run there one at a time: FATE's make writes generated files
# (tests/pixfmts.mak, tests/data/) in several steps, and two makes at once
# interleave them, so the script runs again under flock(1), holding the
# tree's lock.  Then fate_result reads a FATE test's report.
if [ -z "${FSSIM_FATE_LOCK:-}" ] && [ -d "${FFMPEG_TREE:-}" ] && command -v flock >/dev/null 2>&1; then
    FSSIM_FATE_LOCK=$FFMPEG_TREE/.fssim-fate.lock
    export FSSIM_FATE_LOCK
    exec flock "$FSSIM_FATE_LOCK" sh "$0" "$@"
fi

# fate_result NAME: the TAP line of FATE test NAME (without "fate-"), from
# its report in the tree; a failure shows its diff and the end of its log.
# Needs tap and diag (tap.sh).
fate_result() {
    fate_data=$FFMPEG_TREE/tests/data/fate
    fate_status=$(cut -d: -f2 "$fate_data/$1.rep" 2>/dev/null)
    if [ "$fate_status" = 0 ]; then
        tap ok "FATE $1"
    else
        tap not-ok "FATE $1 (status ${fate_status:-no report})"
        [ -f "$fate_data/$1.diff" ] && head -n 40 "$fate_data/$1.diff" | diag
        [ -f "$fate_data/$1.err" ] && tail -n 10 "$fate_data/$1.err" | diag
    fi
}
