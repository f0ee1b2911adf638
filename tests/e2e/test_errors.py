#!/usr/bin/env python3
"""Bad input gets a clear error and nothing is lost (doc/errors.md).

Each failing case must: exit non-zero by itself (not killed by a signal, no
assertion, no crash, no hang: a timeout fails the check), print a message
that names what is wrong (checked against the offending values), and leave a
log that is still valid JSON.  Runs cut short (kill -9, an input corrupt in
its second half with -xerror, SIGTERM) keep valid JSON holding the frames
scored so far.

Formats: FFmpeg converts an input in a format fssim does not list (rgb24)
to one it lists before the filter sees it (as for FFmpeg's ssim); that is
checked as such, and with -noauto_conversion_filters the run fails cleanly.
A reference in another *listed* format than the main input reaches fssim
(each input has its own format list) and gets fssim's message.
"""
import json
import os
import re
import signal
import subprocess

import fssimtest as ft

CRASH = re.compile(r"Assertion|Segmentation|core dumped|AddressSanitizer|double free|"
                   r"stack smashing|Aborted", re.I)


def clip(d, name, w, h, fmt="yuv420p", n=2, seed=0):
    fr = ft.natural_frames(w, h, n, fmt, image="astronaut", seed=seed)
    return ft.natural_clip(w, h, 0, fmt, d, name, frames=fr)


def run(args, timeout=60):
    try:
        return ft.ffmpeg(*args, check=False, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def expect_error(tap, desc, args, patterns, log_path=None):
    """The run fails cleanly with a message matching every pattern."""
    if log_path and os.path.exists(log_path):
        os.unlink(log_path)
    p = run(args)
    if not tap.ok(p is not None, "%s: ffmpeg ends (no hang)" % desc):
        return None
    tap.ok(p.returncode > 0 and not CRASH.search(p.stderr),
           "%s: non-zero exit status %d, not a signal, no crash" % (desc, p.returncode),
           p.stderr[-3000:])
    missing = [pat for pat in patterns if not re.search(pat, p.stderr)]
    tap.ok(not missing, "%s: the message says what is wrong (%s)" % (
        desc, ", ".join(patterns)), "missing %s in:\n%s" % (missing, p.stderr[-3000:]))
    if log_path:
        try:
            log = ft.load_log(log_path)
            good = log.get("filter") == "fssim" and log.get("frames") == [] and \
                log.get("frame_count") == 0
        except (OSError, ValueError) as e:
            good, log = False, e
        tap.ok(good, "%s: the log is valid JSON with no frames" % desc, log)
    return p


def fssim_line(p):
    """fssim's own error lines (from its log context)."""
    return [l for l in p.stderr.splitlines() if "fssim" in l and "@" in l]


def test_config_errors(tap, d):
    a = clip(d, "a_64x48", 64, 48)
    b = clip(d, "b_48x48", 48, 48, seed=1)
    c444 = clip(d, "c_64x48_444", 64, 48, "yuv444p", seed=2)
    log = os.path.join(d, "err.json")

    def graph(opts, m=a, r=a):
        return list(m.input_args()) + list(r.input_args()) + [
            "-lavfi", "[0:v][1:v]fssim=%s" % opts, "-f", "null", "-"]

    p = expect_error(tap, "sizes 64x48 vs 48x48, scale=none",
                     graph("scale=none:log_path=%s" % log, a, b),
                     [r"main is 64x48", r"reference is 48x48", r"scale=auto",
                      r"scale=48:48 on main"], log)
    if p:
        tap.ok(len([l for l in fssim_line(p) if "sizes differ" in l]) == 1,
               "sizes: one fssim message, not a cascade from fssim", "\n".join(fssim_line(p)))
    expect_error(tap, "chroma yuv420p vs yuv444p, scale=none",
                 graph("scale=none:log_path=%s" % log, a, c444),
                 [r"chroma subsampling differs", r"main is yuv420p", r"reference is yuv444p",
                  r"format=yuv444p"], log)
    expect_error(tap, "window=17 (out of range)", graph("window=17"),
                 [r"window", r"17", r"range"])
    expect_error(tap, "window=4 (even)", graph("window=4:log_path=%s" % log),
                 [r"window=4", r"odd"], log)
    expect_error(tap, "window=1 (too small)", graph("window=1"), [r"window", r"range"])
    expect_error(tap, "sigma=0", graph("sigma=0"), [r"sigma", r"range"])
    expect_error(tap, "sigma=-1", graph("sigma=-1"), [r"sigma", r"range"])
    expect_error(tap, "algo=none", graph("algo=none:log_path=%s" % log),
                 [r"algo selects no algorithm", r"float", r"int", r"block"], log)
    expect_error(tap, "algo=0 (nothing to compute)", graph("algo=0"), [r"algo selects no algorithm"])
    expect_error(tap, "algo=ssim (unknown name)", graph("algo=ssim"), [r"algo|ssim"])
    expect_error(tap, "padding=mirror", graph("padding=mirror"), [r"padding|mirror"])
    expect_error(tap, "log_fmt=xml", graph("log_fmt=xml"), [r"log_fmt|xml"])
    expect_error(tap, "stats_algo=block not computed",
                 graph("algo=int+float:stats_algo=block:stats_file=%s" % os.path.join(d, "s.txt")),
                 [r"stats_algo=block", r"not among the computed"])
    expect_error(tap, "log_path in a missing directory",
                 graph("log_path=%s" % os.path.join(d, "no", "such", "dir", "x.json")),
                 [r"Could not open log file", r"no/such/dir/x\.json", r"No such file"])
    expect_error(tap, "log_path is a directory", graph("log_path=%s" % d),
                 [r"Could not open log file", r"Is a directory"])
    expect_error(tap, "stats_file in a missing directory",
                 graph("stats_file=%s" % os.path.join(d, "no", "such", "s.txt")),
                 [r"Could not open stats file", r"no/such/s\.txt"])

    # planes smaller than the window / than block's 8x8
    s16 = clip(d, "s_16x16", 16, 16, seed=3)
    expect_error(tap, "padding=valid on 8x8 chroma with window 11",
                 graph("algo=float:log_path=%s" % log, s16, s16),
                 [r"Plane U is 8x8", r"smaller than the 11x11 window", r"padding=same"], log)
    s6 = clip(d, "s_6x6", 6, 6, seed=4)
    expect_error(tap, "algo=block on a 6x6 frame", graph("algo=block:log_path=%s" % log, s6, s6),
                 [r"Plane Y is 6x6", r"algo=block", r"8x8"], log)
    s16x12 = clip(d, "s_16x12", 16, 12, seed=5)
    expect_error(tap, "algo=block on 4:2:0 16x12 (chroma 8x6)",
                 graph("algo=block", s16x12, s16x12), [r"Plane U is 8x6", r"8x8"])
    # and the same small frames where they are valid
    p = run(graph("algo=float+int:padding=same", s6, s6))
    tap.ok(p is not None and p.returncode == 0,
           "a 6x6 frame is fine with int and padding=same (the checks are not blanket refusals)",
           p and p.stderr[-2000:])
    p = run(graph("algo=float:window=7", s16, s16))
    tap.ok(p is not None and p.returncode == 0, "16x16 4:2:0 is fine with window 7 (chroma 8x8)",
           p and p.stderr[-2000:])


def test_unsupported(tap, d):
    """rgb24 is not in fssim's list."""
    w, h = 48, 32
    fr = ft.natural_frames(w, h, 2, "gbrp", image="coffee", seed=6)
    import numpy as np
    raw = os.path.join(d, "rgb24.raw")
    with open(raw, "wb") as f:
        for planes in fr:
            f.write(np.stack([planes[0], planes[1], planes[2]], axis=-1).tobytes())  # R G B
    inp = ["-f", "rawvideo", "-pix_fmt", "rgb24", "-video_size", "%dx%d" % (w, h),
           "-framerate", "25", "-i", raw]
    log = os.path.join(d, "rgb.json")
    p = run(inp + inp + ["-lavfi", "[0:v][1:v]fssim=log_path=%s" % log, "-f", "null", "-"])
    ok = p is not None and p.returncode == 0
    lg = ft.load_log(log) if ok else {}
    tap.ok(ok and lg["input"]["pix_fmt"] in ft.fssim_sw_pix_fmts() and
           lg["input"]["pix_fmt"].startswith("gbr") and
           all(f["float"][c] == 1.0 for f in lg["frames"] for c in "RGB"),
           "rgb24 (not listed): FFmpeg converts it losslessly to %s before fssim, as for its "
           "own ssim" % (lg.get("input", {}).get("pix_fmt")), p and p.stderr[-2000:])
    expect_error(tap, "rgb24 with -noauto_conversion_filters",
                 ["-noauto_conversion_filters"] + inp + inp +
                 ["-lavfi", "[0:v][1:v]fssim", "-f", "null", "-"],
                 [r"fssim", r"common format|conversion"])
    # rgb24 main against a yuv420p reference: FFmpeg converts the main input to a listed
    # format and picks the reference's, so the run scores (documented behaviour)
    b = clip(d, "ref_yuv_48x32", w, h, seed=7)
    p = run(inp + list(b.input_args()) + ["-lavfi", "[0:v][1:v]fssim=log_path=%s" % log,
                                          "-f", "null", "-"])
    lg = ft.load_log(log) if p is not None and p.returncode == 0 else {}
    tap.ok(lg.get("input", {}).get("pix_fmt") == "yuv420p" and lg.get("frame_count") == 2,
           "rgb24 main vs yuv420p reference: FFmpeg converts the main input to yuv420p",
           p and p.stderr[-2000:])
    # a listed format on each side, different: fssim's own message (no silent conversion)
    g = ft.natural_clip(w, h, 0, "gbrp", d, "gbrp_48x32", frames=fr)
    expect_error(tap, "gbrp main vs yuv420p reference",
                 list(g.input_args()) + list(b.input_args()) +
                 ["-lavfi", "[0:v][1:v]fssim", "-f", "null", "-"],
                 [r"formats differ", r"main is gbrp \(GBR\)", r"reference is yuv420p \(YUV\)",
                  r"format=yuv420p"])


def check_cut_log(tap, desc, log_path, min_frames, stats_path=None, pooled=True):
    """A log cut short holds its frames so far; with pooled, the pooled
    values too (a SIGKILLed log has none: doc/outputs.md#logs-are-always-valid)."""
    try:
        log = ft.load_log(log_path)
    except (OSError, ValueError) as e:
        tap.ok(False, "%s: the JSON log parses" % desc, e)
        return None
    fr = log.get("frames", [])
    tap.ok(True, "%s: the JSON log parses" % desc)
    tap.ok(log.get("frame_count") == len(fr) >= min_frames and
           [f["n"] for f in fr] == list(range(len(fr))) and
           all(set(f["int"]) == {"Y", "U", "V", "All", "dB"} for f in fr) and
           (set(log.get("pooled", {}).get("int", {})) == {"Y", "U", "V", "All"} if pooled
            else "pooled" not in log and log.get("complete") is False),
           "%s: it holds the %d frames scored so far (>= %d), %s" % (
               desc, len(fr), min_frames, "complete, with pooled values" if pooled else
               "\"complete\": false, no pooled values"),
           {k: log.get(k) for k in ("frame_count", "complete")})
    if stats_path:
        with open(stats_path) as f:
            text = f.read()
        lines = text.splitlines()
        tap.ok(text.endswith("\n") and len(lines) >= len(fr) and
               all(re.match(r"^n:\d+ Y:\S+ U:\S+ V:\S+ All:\S+ \(\S+\)$", l) for l in lines),
               "%s: the stats file holds whole lines (%d)" % (desc, len(lines)))
    return log


def test_cut_short(tap, d):
    graph = ("testsrc2=size=160x120:rate=25,split[a][b];[a]avgblur=2[m];"
             "[m][b]fssim=algo=float+int+block:log_path=%s:stats_file=%s")
    # kill -9 mid-run: no uninit, no final trailer
    log, stats = os.path.join(d, "kill9.json"), os.path.join(d, "kill9.txt")
    for p in (log, stats):
        if os.path.exists(p):
            os.unlink(p)
    proc = subprocess.Popen([ft.FFMPEG, "-hide_banner", "-nostdin", "-y", "-lavfi",
                             graph % (log, stats), "-f", "null", "-"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started = ft.wait_log_frames(log, 5, proc, 30)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    tap.ok(started and proc.returncode == -signal.SIGKILL,
           "kill -9 after >= 5 frames (an endless input)", proc.returncode)
    check_cut_log(tap, "kill -9", log, 5, stats, pooled=False)

    # SIGTERM: ffmpeg stops cleanly, the log gets its final trailer
    log = os.path.join(d, "term.json")
    if os.path.exists(log):
        os.unlink(log)      # a stale log would let the signal come before ffmpeg runs
    proc = subprocess.Popen([ft.FFMPEG, "-hide_banner", "-nostdin", "-y", "-lavfi",
                             graph % (log, os.path.join(d, "term.txt")), "-f", "null", "-"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    started = ft.wait_log_frames(log, 3, proc, 30)
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    lg = check_cut_log(tap, "SIGTERM", log, 3)
    tap.ok(started and lg is not None and
           re.search(r"SSIM int .* frames:%d" % lg["frame_count"], err or ""),
           "SIGTERM: the summary line counts the frames in the log", (err or "")[-1500:])

    # an input whose second half is corrupt, with -xerror: ffmpeg stops on the error
    ref = clip(d, "long_ref", 64, 48, n=20, seed=8)
    y4m = os.path.join(d, "good.y4m")
    ft.write_y4m(y4m, ref.frames, ref.fmt)
    bad = ft.damage_y4m(y4m, os.path.join(d, "corrupt.y4m"), 10)
    # without -xerror ffmpeg goes on past the bad frame; with it, it stops on the error
    # (how many frames reach the filter before the stop depends on thread timing)
    for xerror in (False, True):
        desc = "corrupt input%s" % (" with -xerror" if xerror else "")
        log = os.path.join(d, "corrupt%d.json" % xerror)
        if os.path.exists(log):
            os.unlink(log)
        p = run((["-xerror"] if xerror else []) + ["-i", bad, "-i", y4m, "-lavfi",
                "[0:v][1:v]fssim=algo=int:log_path=%s" % log, "-f", "null", "-"])
        tap.ok(p is not None and not CRASH.search(p.stderr) and
               (p.returncode > 0 if xerror else p.returncode >= 0),
               "%s: ffmpeg ends %s" % (desc, "with an error" if xerror else "without a crash"),
               p and p.stderr[-2000:])
        lg = check_cut_log(tap, desc, log, 0 if xerror else 10)
        if lg and not xerror:
            # (with -xerror the main input may stop before its last intact frames reach
            # the filter, and framesync then repeats an earlier one: no fixed values)
            intact = [f for f in lg["frames"] if f["pts"] < 10]
            tap.ok(all(f["int"]["All"] == 1.0 for f in intact) and len(intact) == 10,
                   "%s: the 10 frames before the damage score exactly 1 (identical to the "
                   "reference)" % desc, [f["int"]["All"] for f in intact])


def load_log_or_error(path):
    try:
        return ft.load_log(path)
    except (OSError, ValueError) as e:
        return {"error": str(e)}


def stats_rows(path):
    """stats_file's lines as ft.parse_stats_file reads them; None when the
    file is missing or holds a line that is not a stats line."""
    try:
        with open(path) as f:
            return ft.parse_stats_file(f.read())
    except (OSError, ValueError):
        return None


def test_reinit(tap, d):
    """A main input that changes size mid-stream makes FFmpeg rebuild the
    graph: with scale=none the new fssim instance fails (sizes differ), and
    the frames scored before must stay in the logs (doc/errors.md); with
    scale=auto it resamples the new size and the logs go on."""
    if not ft.encoder_has("libx264"):
        tap.skip("frames scored before a graph reinit stay in the log", "no libx264 in "
                 "ENCODER_FFMPEG to make a stream that changes size")
        return
    ab, a = ft.size_change_h264(d)
    log, stats = os.path.join(d, "reinit.json"), os.path.join(d, "reinit.txt")
    # Both inputs come from the one decoder, so each main frame reaches
    # fssim with its reference and all 5 before the change are scored
    # whatever the threads' timing; the reference is scaled to the first
    # size, so the rebuilt graph's fssim fails.
    p = run(["-i", ab, "-lavfi", "[0:v]split[m][r];[r]scale=64:48[s];"
             "[m][s]fssim=algo=int:scale=none:log_path=%s:stats_file=%s" % (log, stats),
             "-f", "null", "-"])
    tap.ok(p is not None and p.returncode > 0 and "sizes differ" in p.stderr and
           not CRASH.search(p.stderr), "a mid-stream size change: the rebuilt fssim fails with "
           "its size message", p and p.stderr[-2000:])
    lg = load_log_or_error(log)
    frames = lg.get("frames", [])
    tap.ok(lg.get("frame_count") == 5 and [f["n"] for f in frames] == list(range(5)) and
           all(f["int"]["All"] == 1.0 for f in frames),
           "a graph reinit keeps the 5 frames scored before it in the JSON log, each "
           "scoring 1 (the reference is the same frame)", json.dumps(lg)[:400])
    rows = stats_rows(stats)
    tap.ok(rows is not None and [r["n"] for r in rows] == list(range(1, 6)) and
           all(r["All"] == "1.000000" for r in rows),
           "a graph reinit keeps the 5 frames scored before it in stats_file", rows)

    # Two inputs, as a ladder run reads them: how many of the 5 frames are
    # paired before the rebuild depends on the decoders' threads (FFmpeg
    # frees the old graph with main frames still waiting there for their
    # reference; its own ssim loses them too, and on a loaded machine all 5
    # can be lost).  What the filter owes: no crash, and the logs agree on
    # the frames it did score, numbered from 0.
    for path in (log, stats):
        if os.path.exists(path):
            os.unlink(path)
    p = run(["-i", ab, "-i", a, "-lavfi", "[0:v][1:v]fssim=algo=int:scale=none:log_path=%s:"
             "stats_file=%s" % (log, stats), "-f", "null", "-"])
    tap.ok(p is not None and p.returncode > 0 and "sizes differ" in p.stderr and
           not CRASH.search(p.stderr), "a size change on one of two inputs: the rebuilt fssim "
           "fails with its size message", p and p.stderr[-2000:])
    lg, rows = load_log_or_error(log), stats_rows(stats)
    n = lg.get("frame_count", -1)
    tap.ok(0 <= n <= 5 and [f["n"] for f in lg.get("frames", [])] == list(range(n)) and
           rows is not None and [r["n"] for r in rows] == list(range(1, n + 1)),
           "a size change on one of two inputs: the JSON log and stats_file hold the same "
           "%s frame(s) scored before it, numbered from 0" % n, json.dumps(lg)[:400])

    # scale=auto: the rebuilt instance resamples the main input's new size
    # (80x48 to the reference's 64x48) and continues the logs
    for path in (log, stats):
        if os.path.exists(path):
            os.unlink(path)
    p = run(["-i", ab, "-lavfi", "[0:v]split[m][r];[r]scale=64:48[s];"
             "[m][s]fssim=algo=int:log_path=%s:stats_file=%s" % (log, stats), "-f", "null", "-"])
    lg, rows = load_log_or_error(log), stats_rows(stats)
    frames = lg.get("frames", [])
    tap.ok(p is not None and p.returncode == 0 and lg.get("frame_count") == 10 and
           [f["n"] for f in frames] == list(range(10)) and
           all(f["int"]["All"] == 1.0 for f in frames[:5]) and
           all(0.9 < f["int"]["All"] < 1.0 for f in frames[5:]) and
           rows is not None and len(rows) == 10,
           "a mid-stream size change with scale=auto: the rebuilt fssim resamples the new "
           "80x48 main frames and the logs go on, 10 frames numbered from 0",
           (p and p.stderr[-1500:], json.dumps(lg)[:600]))


def test_warnings(tap, d):
    """As FFmpeg's ssim, fssim warns when the inputs' colour ranges or time
    bases differ; unlike a filter with one colour-range list, it scores the
    samples as decoded: FFmpeg inserts no conversion of the reference."""
    a = clip(d, "w_64x48", 64, 48, n=3, seed=3)
    y4m = os.path.join(d, "w.y4m")
    ft.write_y4m(y4m, a.frames, a.fmt)
    p = run(["-color_range", "pc", "-i", y4m, "-i", y4m, "-lavfi",
             "[0:v][1:v]fssim=algo=int", "-f", "null", "-"])
    tap.ok(p is not None and p.returncode == 0 and
           re.search(r"different colour ranges \(pc and unknown\)", p.stderr) and
           re.search(r"SSIM int Y:1\.000000 \(inf\) U:1\.000000 \(inf\) V:1\.000000 \(inf\)",
                     p.stderr),
           "colour ranges differ: a warning naming both, and identical samples still score 1 "
           "(no conversion inserted)", p and p.stderr[-2000:])
    p = run(["-f", "lavfi", "-i", "testsrc2=s=64x48:d=0.2:r=25", "-f", "lavfi", "-i",
             "testsrc2=s=64x48:d=0.2:r=30", "-lavfi", "[0:v][1:v]fssim=pairing=framesync",
             "-f", "null", "-"])
    tap.ok(p is not None and p.returncode == 0 and
           "different time bases (1/25 and 1/30)" in p.stderr,
           "pairing=framesync, time bases differ: a warning naming both", p and p.stderr[-2000:])
    p = run(["-f", "lavfi", "-i", "testsrc2=s=64x48:d=0.2:r=25", "-f", "lavfi", "-i",
             "testsrc2=s=64x48:d=0.2:r=30", "-lavfi", "[0:v][1:v]fssim", "-f", "null", "-"])
    tap.ok(p is not None and p.returncode != 0 and
           "main is 25 fps, the reference 30 fps" in p.stderr and "fps=30" in p.stderr,
           "pairing=nearest, frame rates differ: an error naming both and the fix",
           p and p.stderr[-2000:])


def test_in_graph_changes(tap, d):
    """A size changed inside the graph reaches the filter without a rebuild:
    it fails naming both sizes (scoring it with the configured layout would
    read outside the frame); the frames before stay in the log."""
    log = os.path.join(d, "ingraph.json")
    for fname in ("fssim=algo=int", "fssim3d=depth=3"):
        if os.path.exists(log):
            os.unlink(log)
        # The size changes right before the filter: a filter between (a
        # blur, say) may not follow the change itself and read outside.
        p = run(["-lavfi", "testsrc2=s=64x48:r=25:d=0.4,format=yuv420p,split[a][b];"
                 "[a]scale=w='if(gt(n,3),32,64)':h='if(gt(n,3),24,48)':eval=frame[m];"
                 "[m][b]%s:log_path=%s" % (fname, log), "-f", "null", "-"])
        name = fname.split("=")[0]
        tap.ok(p is not None and p.returncode > 0 and not CRASH.search(p.stderr) and
               re.search(r"frame is 32x24 yuv420p, but the filter was configured for 64x48 "
                         r"yuv420p", p.stderr),
               "%s: a size changed inside the graph fails, naming both sizes" % name,
               p and p.stderr[-2000:])
        try:
            lg = ft.load_log(log)
            good = lg["frame_count"] == len(lg["frames"]) <= 4
        except (OSError, ValueError, KeyError) as e:
            good, lg = False, e
        tap.ok(good, "%s: the log holds only the frames of the configured size" % name, lg)


def test_stdout_log(tap, d):
    """log_path=- : stdout holds one JSON document (FFmpeg also frees an
    unconfigured copy of the graph, which must write nothing)."""
    for fname in ("fssim", "fssim3d=depth=3"):
        p = run(["-v", "error", "-lavfi", "testsrc2=s=32x32,trim=end_frame=3,split[a][b];"
                 "[a][b]%s%slog_path=-" % (fname, ":" if "=" in fname else "="),
                 "-f", "null", "-"])
        try:
            lg = json.loads(p.stdout)
            good = lg["frame_count"] == 3
        except (ValueError, KeyError, AttributeError) as e:
            good, lg = False, e
        tap.ok(good, "%s, log_path=-: stdout is one JSON log of the 3 frames" % fname.split("=")[0],
               (p and p.stdout[:600], lg))


def main():
    tap = ft.Tap()
    d = ft.workdir("errors")
    test_config_errors(tap, d)
    test_unsupported(tap, d)
    test_cut_short(tap, d)
    test_reinit(tap, d)
    test_warnings(tap, d)
    test_in_graph_changes(tap, d)
    test_stdout_log(tap, d)
    tap.done()


if __name__ == "__main__":
    main()
