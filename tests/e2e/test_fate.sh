#!/bin/sh
# FATE tests of the fssim filters, run by FFmpeg's own FATE in the build's
# FFmpeg tree (make -C $FFMPEG_TREE fate-fssim SAMPLES=), one TAP line per
# FATE test; a failing test shows its diff and the tail of its log.  Then
# tests/e2e/fate_refs.py checks the committed references themselves against
# independent computations.
#
# Environment (tests/env.sh): FFMPEG_TREE, PYTHON, top_srcdir.

. "$top_srcdir/tests/lib/fate.sh"
. "$top_srcdir/tests/lib/tap.sh"

if [ -z "$FFMPEG_TREE" ] || [ ! -f "$FFMPEG_TREE/tests/fate/fssim.mak" ]; then
    echo "1..0 # SKIP no FFmpeg tree with fssim's FATE tests (FFMPEG_TREE=$FFMPEG_TREE)"
    exit 0
fi

# a make started from `make check` must not inherit its jobserver
unset MAKEFLAGS MFLAGS MAKELEVEL
work=${FSSIM_WORK:-/tmp}/fate
mkdir -p "$work"

tests=$(make -s -C "$FFMPEG_TREE" fate-list SAMPLES= 2>/dev/null | sed -n 's/^fate-\(fssim[-0-9a-z]*\)$/\1/p')
count=$(echo "$tests" | grep -c .)
if [ "$count" -ge 9 ]; then
    tap ok "FATE lists $count fssim tests"
else
    tap not-ok "FATE lists $count fssim tests (expected at least 9)"
    echo "$tests" | diag
fi

for t in $tests; do
    rm -f "$FFMPEG_TREE/tests/data/fate/$t.rep" "$FFMPEG_TREE/tests/data/fate/$t.diff"
done
make -k -C "$FFMPEG_TREE" -j2 fate-fssim SAMPLES= > "$work/fate.log" 2>&1
rc=$?
if [ $rc -eq 0 ]; then tap ok "make fate-fssim succeeds"
else tap not-ok "make fate-fssim succeeds (exit $rc)"; tail -n 30 "$work/fate.log" | diag; fi

for t in $tests; do
    if grep -q "^TEST *$t\$" "$work/fate.log"; then
        fate_result "$t"
    else
        tap not-ok "FATE $t ran"
    fi
done

# the references themselves, against independent computations
if [ -n "$PYTHON" ] && "$PYTHON" -c 'import numpy, skimage, scipy' 2>/dev/null; then
    "$PYTHON" "$top_srcdir/tests/e2e/fate_refs.py" > "$work/refs.tap" 2>&1
    prc=$?
    while IFS= read -r line; do
        case $line in
            "ok - "*)     tap ok "refs: ${line#ok - }" ;;
            "not ok - "*) tap not-ok "refs: ${line#not ok - }" ;;
            *)            echo "# $line" ;;
        esac
    done < "$work/refs.tap"
    if [ $prc -eq 0 ]; then tap ok "refs: the review ran to its end"
    else tap not-ok "refs: the review ran to its end (exit $prc)"; fi
else
    n=$((n + 1)); echo "ok $n - refs: review of the references # SKIP no Python with numpy, scipy and scikit-image"
fi

echo "1..$n"
