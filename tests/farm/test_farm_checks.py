#!/usr/bin/env python3
"""fssim-farm checks before it scores, and never shows a traceback.

Each case is what a new user meets: the wrong ffmpeg (Debian's, without
fssim) or none, a misspelled option or one the farm sets itself, a missing
rendition, a rendition of another frame rate or length, an output that
cannot be written (a missing folder, a folder), --gpus with the CPU
filter, a misspelled manifest column, a segment size that the reference's
keyframes would round down, an option value the filter refuses (a failure
that cannot succeed: not retried, the progress line says it failed), an
ffprobe neither beside the ffmpeg nor on PATH, Ctrl-C (what was kept, how
to resume; the resumed run takes the finished segments up).  Every message
is one line on stderr with exit status 1 (130 interrupted), no traceback,
no work folder left behind; every subcommand has --json and --quiet and
every option a help text.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import fssimtest as ft
import farmtest as fm

OPTS = "algo=int+psnr"


def cli(tap, desc, args, expect, status=1, out=None, within=None):
    """Runs fssim-farm; checks the status, the message and that there is
    no traceback nor work folder left (out: the -o of the run)."""
    t0 = time.time()
    p = fm.fssim_farm(*args)
    took = time.time() - t0
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("fssim-farm: ")]
    good = (p.returncode == status and all(e in p.stderr for e in expect) and
            "Traceback" not in p.stderr + p.stdout and (len(lines) == 1 or status == 2) and
            (out is None or not os.path.exists(out + ".segments")) and
            (within is None or took < within))
    tap.ok(good, "%s (%.1f s)" % (desc, took),
           "exit %d, expected %d; stderr:\n%s" % (p.returncode, status, p.stderr[-3000:]))
    return p


def counting_ffmpeg(d, name, real):
    """An ffmpeg that counts its runs (the one-frame check and segments)."""
    path = os.path.join(d, name)
    runs = path + ".runs"
    if os.path.exists(runs):
        os.unlink(runs)
    with open(path, "w") as f:
        f.write('#!/bin/sh\ncase "$*" in *-lavfi*) echo "$*" >> "%s" ;; esac\n'
                'exec "%s" "$@"\n' % (runs, real))
    os.chmod(path, 0o755)
    return path, runs


def main():
    tap = ft.Tap()
    if not fm.has_seg_options():
        tap.skip("checks", "the built fssim has no segment options")
        tap.done()
    if not ft.encoder_has("libx264"):
        tap.skip("checks", "ENCODER_FFMPEG lacks libx264")
        tap.done()
    d = ft.workdir("farm_checks")
    for f in os.listdir(d):
        if f.endswith(".segments") or f.endswith(".json"):
            p = os.path.join(d, f)
            shutil.rmtree(p) if os.path.isdir(p) else os.unlink(p)
    ref, dists = fm.make_title(d, frames=48, gop=8)
    out = os.path.join(d, "t.json")
    base = ["score", "--reference", ref] + dists + ["--options", OPTS, "--no-progress",
                                                    "--ffmpeg", ft.FFMPEG]

    parser_help(tap)
    plans(tap)

    # the tools
    debian = shutil.which("ffmpeg") if ft.ENCODER_FFMPEG != ft.FFMPEG else None
    debian = ft.ENCODER_FFMPEG or debian
    if debian and not subprocess.run([debian, "-hide_banner", "-h", "filter=fssim"],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True).stdout.startswith("Filter fssim"):
        cli(tap, "an ffmpeg without fssim (%s): refused before scoring" % debian,
            base + ["-o", out, "--ffmpeg", debian], ["has no filter fssim", "--ffmpeg"],
            out=out, within=60)
    else:
        tap.skip("an ffmpeg without fssim", "no such ffmpeg here")
    cli(tap, "an ffmpeg that does not exist", base + ["-o", out, "--ffmpeg", "/nowhere/ffmpeg"],
        ["/nowhere/ffmpeg does not exist", "--ffmpeg"], out=out)
    ffprobe_beside(tap, d)

    # the options
    cli(tap, "log_path inside --options: the farm sets it", base + ["-o", out, "--options",
                                                                      "algo=int:log_path=x.json"],
        ["sets log_path", "leave it out"], out=out)
    cli(tap, "a misspelled option, with the one meant", base + ["-o", out, "--options",
                                                                 "algoo=int"],
        ["no option 'algoo'", "did you mean algo"], out=out)
    cli(tap, "--gpus with the CPU filter", base + ["-o", out, "--gpus", "0"],
        ["--gpus with --filter fssim", "--workers"], out=out)
    cli(tap, "--segment-frames 0", base + ["-o", out, "--segment-frames", "0"],
        ["must be 1 or more"], status=2)

    # the output
    cli(tap, "-o in a folder that does not exist", base + ["-o", os.path.join(d, "no", "t.json")],
        ["folder", "does not exist", "create it"])
    cli(tap, "-o naming a folder", base + ["-o", d], ["is a folder", "title.json"])
    cli(tap, "merge -o in a folder that does not exist",
        ["merge", os.path.join(d, "x.json"), "-o", os.path.join(d, "no", "m.json")],
        ["does not exist", "create it"])
    cli(tap, "merge of a log that does not exist",
        ["merge", os.path.join(d, "missing.json"), "-o", os.path.join(d, "m.json")],
        ["missing.json", "No such file"])

    # the inputs
    cli(tap, "a rendition that does not exist",
        ["score", "--reference", ref, os.path.join(d, "gone.mkv"), "-o", out, "--no-progress",
         "--ffmpeg", ft.FFMPEG], ["gone.mkv does not exist"], out=out, within=60)
    r30 = fm.encode(os.path.join(d, "rate30.mkv"), ["-i", ref, "-r", "30"], "libx264",
                    "yuv420p", 8)
    cli(tap, "a rendition of another frame rate: refused, the fix named",
        ["score", "--reference", ref, r30, "-o", out, "--no-progress", "--ffmpeg", ft.FFMPEG],
        ["rate30.mkv has 30 frames/s", "has 25", "fps=25"], out=out, within=60)
    short = fm.encode(os.path.join(d, "short.mkv"), ["-i", ref, "-frames:v", "40"], "libx264",
                      "yuv420p", 8)
    cli(tap, "a rendition of another length: refused, --unequal-lengths named",
        ["score", "--reference", ref, short, "-o", out, "--no-progress", "--ffmpeg", ft.FFMPEG],
        ["short.mkv has 40 frames", "has 48", "--unequal-lengths"], out=out, within=60)
    manifest(tap, d, ref, dists)
    try:
        import bokeh  # noqa: F401
        p = fm.fssim_farm(*base, "-o", out, "--dashboard", "--segment-frames", "48")
        tap.ok(p.returncode == 0 and "dashboard: http" in p.stderr,
               "--dashboard: the local cluster's dashboard address", p.stderr[-1000:])
    except ImportError:
        cli(tap, "--dashboard without bokeh: the package to install named",
            base + ["-o", out, "--dashboard"], ["needs bokeh", "pip install"], out=out)

    # an option value the filter refuses: found by the one-frame check
    # and the first runs, not retried, the progress line says it failed
    wrap, runs = counting_ffmpeg(d, "ffmpeg_counting", ft.FFMPEG)
    p = cli(tap, "algo=flaot: one message, exit 1",
            ["score", "--reference", ref] + dists + ["-o", out, "--options", "algo=flaot",
                                                     "--ffmpeg", wrap, "--segment-frames", "16",
                                                     "--workers", "1", "--slots", "1"],
            ["flaot", "cannot change"], out=out)
    nruns = len(open(runs).read().splitlines()) if os.path.exists(runs) else 0
    tap.ok(0 < nruns <= 2, "... not retried: %d ffmpeg runs for 3 segments and the check"
           % nruns)
    tap.ok("48/48 frames" not in p.stderr and "failed:" in p.stderr and "FAILED" in p.stderr,
           "... the progress line says the segments failed, not 48/48 frames", p.stderr)

    interrupt(tap, d, ref, dists)
    tap.done()


def parser_help(tap):
    """Every subcommand has --json and --quiet, every option a help text."""
    import argparse
    from fssim_farm import cli as farm_cli
    ap = farm_cli.build_parser()
    subs = [a for a in ap._actions if isinstance(a, argparse._SubParsersAction)][0]
    missing, no_json = [], []
    for name, sp in subs.choices.items():
        opts = {o for a in sp._actions for o in a.option_strings}
        if not {"--json", "--quiet"} <= opts:
            no_json.append(name)
        for a in sp._actions:
            if not a.help or a.help == argparse.SUPPRESS:
                missing.append("%s %s" % (name, "/".join(a.option_strings) or a.dest))
    for a in ap._actions:
        if a.option_strings and not a.help:
            missing.append(" ".join(a.option_strings))
    tap.ok(not no_json, "--json and --quiet on every subcommand (%s)" % ", ".join(
        subs.choices), no_json)
    tap.ok(not missing, "a help text for every option and argument", missing)


def plans(tap):
    """Segment sizes: equal shares for the slots; keyframes every 60
    frames do not round 150-frame segments down to 120."""
    from fractions import Fraction
    from fssim_farm import schedule, segments
    got = {(n, s): schedule.plan_count(n, s) for n, s in
           ((43200, 12), (43200, 3), (172800, 12), (12000, 12), (96, 8), (3000, 12))}
    want = {(43200, 12): 12, (43200, 3): 6, (172800, 12): 24, (12000, 12): 12, (96, 8): 1,
            (3000, 12): 12}
    tap.ok(got == want, "segment counts: a multiple of the slots, at most 7200 frames each, "
           "none under 240", got)
    pr = segments.Probe(list(range(6000)), list(range(0, 6000, 60)), Fraction(1, 25),
                        Fraction(0))
    segs = segments.plan(pr, 150)
    sizes = [s.frames for s in segs]
    tap.ok(abs(sum(sizes) / len(sizes) - 150) < 1 and len(segs) == 40,
           "--segment-frames 150 with a keyframe every 60 frames: %d segments, %.1f frames "
           "on average" % (len(segs), sum(sizes) / len(sizes)), sizes[:8])
    segs = segments.plan(pr, count=12)
    sizes = [s.frames for s in segs]
    tap.ok(len(segs) == 12 and max(sizes) - min(sizes) <= 60 and
           all(s.total == 6000 for s in segs),
           "12 equal shares, cut at keyframes, each knowing the title's 6000 frames", sizes)


def ffprobe_beside(tap, d):
    """ffprobe: the one beside the ffmpeg given (API and command line
    alike), and a message naming both places when neither has one."""
    from fssim_farm import FarmError, checks
    both = os.path.join(d, "both")
    os.makedirs(both, exist_ok=True)
    for tool, real in (("ffmpeg", ft.FFMPEG), ("ffprobe", ft.FFPROBE)):
        if not os.path.lexists(os.path.join(both, tool)):
            os.symlink(real, os.path.join(both, tool))
    empty = os.path.join(d, "empty")
    os.makedirs(empty, exist_ok=True)
    fake = os.path.join(empty, "ffmpeg")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(fake, 0o755)
    path = os.environ.get("PATH", "")
    os.environ["PATH"] = "/nonexistent"
    try:
        got = checks.find_ffprobe(os.path.join(both, "ffmpeg"))
        tap.ok(got == os.path.join(both, "ffprobe"), "ffprobe taken from beside the ffmpeg "
               "given, none on PATH", got)
        try:
            checks.find_ffprobe(fake)
            tap.ok(False, "no ffprobe beside the ffmpeg nor on PATH: an error")
        except FarmError as e:
            tap.ok(os.path.join(empty, "ffprobe") in str(e) and "PATH" in str(e) and
                   "--ffprobe" in str(e), "no ffprobe beside the ffmpeg nor on PATH: the "
                   "message names both and --ffprobe", e)
    finally:
        os.environ["PATH"] = path


def manifest(tap, d, ref, dists):
    m = os.path.join(d, "bad.csv")
    with open(m, "w") as f:
        f.write("title,reference,renditions,options,output,segment_frame\n")
        f.write("a,%s,%s,,a.json,100\n" % (ref, ";".join(dists)))
    cli(tap, "a manifest with a misspelled optional column",
        ["batch", m, "--no-progress", "--ffmpeg", ft.FFMPEG],
        ["unknown column 'segment_frame'", "did you mean segment_frames"])


def interrupt(tap, d, ref, dists):
    """Ctrl-C (SIGINT to the process group, as a terminal sends it): exit
    130, one message saying what was kept and how to resume, no
    traceback from any process, no temporary file left; the same command
    again finishes and takes the finished segments up (--quiet: nothing
    on stdout or stderr)."""
    slow = os.path.join(d, "ffmpeg_slow")
    with open(slow, "w") as f:
        f.write('#!/bin/sh\nsleep 1\nexec "%s" "$@"\n' % ft.FFMPEG)
    os.chmod(slow, 0o755)
    out = os.path.join(d, "intr.json")
    args = [sys.executable, "-m", "fssim_farm", "score", "--reference", ref] + dists + [
        "-o", out, "--options", OPTS, "--ffmpeg", slow, "--ffprobe", ft.FFPROBE,
        "--segment-frames", "8", "--workers", "1", "--slots", "1"]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=fm.farm_env(), start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    work = out + ".segments"
    deadline = time.time() + 300
    n = 0
    while time.time() < deadline and p.poll() is None:
        n = len([f for f in os.listdir(work) if f.startswith("seg_") and
                 f.endswith(".json")]) if os.path.isdir(work) else 0
        if n >= 2:
            break
        time.sleep(0.2)
    os.killpg(p.pid, signal.SIGINT)
    try:
        so, se = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        so, se = p.communicate()
    kept = len([f for f in os.listdir(work) if f.startswith("seg_") and f.endswith(".json")])
    parts = [f for f in os.listdir(work) if f.endswith(".part")]
    tap.ok(p.returncode == 130 and "interrupted: %d of 6 segments" % kept in se and
           "run the same command again" in se and "Traceback" not in se and not parts and
           not os.path.exists(out),
           "Ctrl-C after %d segments: exit 130, what was kept and how to resume, no "
           "traceback, no .part left" % n, "exit %s\n%s\n%s" % (p.returncode, se[-3000:], parts))
    q = subprocess.run(args + ["--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=fm.farm_env(), timeout=600)
    tap.ok(q.returncode == 0 and q.stdout == "" and q.stderr == "",
           "the same command again (--quiet): exit 0, nothing printed", q.stderr[-2000:])
    r = fm.fssim_farm("merge", *sorted(os.path.join(work, f) for f in os.listdir(work)
                                       if f.startswith("seg_")),
                      "-o", out + ".again.json", "--json")
    try:
        res = json.loads(r.stdout)
    except ValueError:
        res = {}
    tap.ok(r.returncode == 0 and res.get("frames") == 48 and res.get("segments") == 6,
           "merge --json: the merged log's frames and segments", r.stdout + r.stderr)
    whole = fm.whole_run("fssim", ref, dists, OPTS, os.path.join(d, "intr_whole.json"),
                         json.load(open(out))["options"]["title"])
    fm.same_log(tap, "the resumed title", out, whole, relocate=True)


if __name__ == "__main__":
    main()
