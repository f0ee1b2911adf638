# Sourced first by the tests that run FFmpeg's FATE in the build's FFmpeg
# tree, so that they run there one at a time: FATE's make writes generated
# files (tests/pixfmts.mak, tests/data/) in several steps, and two makes at
# once interleave them.  The script runs again under flock(1), holding the
# tree's lock.
if [ -z "${FSSIM_FATE_LOCK:-}" ] && [ -d "${FFMPEG_TREE:-}" ] && command -v flock >/dev/null 2>&1; then
    FSSIM_FATE_LOCK=$FFMPEG_TREE/.fssim-fate.lock
    export FSSIM_FATE_LOCK
    exec flock "$FSSIM_FATE_LOCK" sh "$0" "$@"
fi
