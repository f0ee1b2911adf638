#!/usr/bin/env python3
"""fssim's outputs (doc/outputs.md): frame metadata at full precision, All and dB,
the stats_file in FFmpeg ssim's line format (and stats_algo), the JSON and
CSV logs with pooled values recomputed here from the per-frame values, the
uninit summary line, framesync options (shortest, eof_action, repeatlast),
thread-count independence, the timeline `enable` option, and the same scores
with the decoded streams also sent to a second output.
"""
import csv
import io
import json
import math
import os
import re

import fssimtest as ft

W, H, N = 64, 48, 5
ALGOS = ("float", "int", "block")
F6 = r"-?\d+\.\d{6}"


def clips(d):
    """A 5-frame natural clip and a distorted copy whose distortion grows
    frame by frame (so min, max, mean and harmonic mean differ)."""
    ref = ft.natural_frames(W, H, N, "yuv420p", image="coffee", seed=1, zoom=0.03)
    main = [ft.degrade([fr], "yuv420p", blur=0.3 + 0.35 * k, noise=1.0 + k, seed=10 + k)[0]
            for k, fr in enumerate(ref)]
    return (ft.natural_clip(W, H, 0, "yuv420p", d, "out_main", frames=main),
            ft.natural_clip(W, H, 0, "yuv420p", d, "out_ref", frames=ref))


def lavfi(main, ref, graph, *extra, check=True):
    return ft.ffmpeg(*main.input_args(), *ref.input_args(), "-lavfi", graph, *extra,
                     "-f", "null", "-", check=check)


def harmonic(xs):
    """libvmaf's harmonic mean: 1 / mean(1 / (1 + x)) - 1."""
    return len(xs) / sum(1.0 / (1.0 + x) for x in xs) - 1.0


def nearest_rank(xs, p):
    """The value at rank ceil(p/100 * n) of xs sorted ascending."""
    return sorted(xs)[max(1, math.ceil(p * len(xs) / 100.0)) - 1]


def db(x):
    return -10.0 * math.log10(1.0 - x)


def test_metadata(tap, d, main, ref):
    res = ft.run_fssim(main, ref, "algo=float+int+block", directory=d, tag="meta", metadata=True)
    log, meta = res["log"], res["metadata"]
    tap.ok(len(meta) == N and len(log["frames"]) == N, "metadata printed for all %d frames" % N)
    bad_rt, bad_short, bad_all = [], [], []
    weights = ft.pix_fmt("yuv420p").weights(W, H)
    tap.ok(abs(weights[0] - 2 / 3.0) < 1e-15 and abs(weights[1] - 1 / 6.0) < 1e-15,
           "4:2:0 sample weights are 4/6, 1/6, 1/6")
    for k, (fr, m) in enumerate(zip(log["frames"], meta)):
        for a in ALGOS:
            for c in ("Y", "U", "V", "All", "dB"):
                s = m["tags"].get("lavfi.fssim.%s.%s" % (a, c))
                v = fr[a][c]
                if s is None or float(s) != v or s != "%.17g" % v:
                    bad_rt.append("frame %d %s.%s: metadata %r, JSON %r" % (k, a, c, s, v))
                if s is not None and len(s.replace("-", "").replace(".", "").lstrip("0")) < 15:
                    bad_short.append("frame %d %s.%s: %r" % (k, a, c, s))
            all_ = sum(wt * fr[a][c] for wt, c in zip(weights, "YUV"))
            if abs(all_ - fr[a]["All"]) > 1e-15:
                bad_all.append("frame %d %s: All %r, weighted planes %r" % (k, a, fr[a]["All"], all_))
            if abs(db(fr[a]["All"]) - fr[a]["dB"]) > 1e-12:
                bad_all.append("frame %d %s: dB %r, -10 log10(1 - All) %r" % (
                    k, a, fr[a]["dB"], db(fr[a]["All"])))
    tap.ok(not bad_rt, "metadata values are %.17g strings that round-trip to the JSON values",
           "\n".join(bad_rt))
    tap.ok(not bad_short, "metadata values carry full precision (>= 15 significant digits)",
           "\n".join(bad_short))
    tap.ok(not bad_all, "All = planes weighted by sample count; dB = -10 log10(1 - All)",
           "\n".join(bad_all))
    vals = [fr["float"]["All"] for fr in log["frames"]]
    tap.ok(all(vals[i] > vals[i + 1] for i in range(N - 1)),
           "float All falls frame by frame as the distortion grows", vals)
    return log


def test_json(tap, log):
    tap.ok(log.get("filter") == "fssim", "JSON: filter is fssim")
    o = log.get("options", {})
    tap.ok(o.get("algo") == "float+int+block" and o.get("window") == "11" and
           float(o.get("sigma", "nan")) == 1.5 and o.get("padding") == "valid" and
           o.get("log_fmt") == "json" and "shortest" in o and "eof_action" in o,
           "JSON: options hold the filter's and framesync's options", o)
    inp = log.get("input", {})
    tap.ok(inp == {"pix_fmt": "yuv420p", "width": W, "height": H, "bit_depth": 8,
                   "components": ["Y", "U", "V"]}, "JSON: input describes the frames", inp)
    fr = log["frames"]
    tap.ok(log.get("frame_count") == N == len(fr), "JSON: frame_count = %d = number of frames" % N)
    tap.ok([f["n"] for f in fr] == list(range(N)) and [f["pts"] for f in fr] == list(range(N)) and
           all(abs(f["pts_time"] - f["pts"] / 25.0) < 1e-12 for f in fr),
           "JSON: frames carry n, pts and pts_time (25 fps)", [(f["n"], f["pts"], f["pts_time"]) for f in fr])
    tap.ok(all(set(f[a]) == {"Y", "U", "V", "All", "dB"} for f in fr for a in ALGOS) and
           all(set(f) == {"n", "pts", "pts_time"} | set(ALGOS) for f in fr),
           "JSON: every frame has {Y,U,V,All,dB} for each algorithm and nothing else")
    pooled = log.get("pooled", {})
    bad = []
    for a in ALGOS:
        for c in ("Y", "U", "V", "All"):
            xs = [f[a][c] for f in fr]
            want = {"mean": sum(xs) / len(xs), "min": min(xs), "max": max(xs),
                    "harmonic_mean": harmonic(xs), "p1": nearest_rank(xs, 1),
                    "p5": nearest_rank(xs, 5), "p50": nearest_rank(xs, 50)}
            got = pooled.get(a, {}).get(c, {})
            if set(got) != set(want):
                bad.append("%s.%s: keys %s" % (a, c, sorted(got)))
                continue
            for k in want:
                tol = 0 if k in ("min", "max", "p1", "p5", "p50") else 1e-15
                if abs(got[k] - want[k]) > tol:
                    bad.append("%s.%s.%s: %r, recomputed %r" % (a, c, k, got[k], want[k]))
    tap.ok(set(pooled) == set(ALGOS) and not bad,
           "JSON: pooled mean/min/max/harmonic_mean (libvmaf's) and the nearest-rank "
           "p1/p5/p50 equal those recomputed from the frames", "\n".join(bad))
    hm = pooled["float"]["All"]["harmonic_mean"]
    tap.ok(hm < pooled["float"]["All"]["mean"], "harmonic mean below the mean for varying frames")


def test_csv(tap, d, main, ref, log):
    path = os.path.join(d, "log.csv")
    lavfi(main, ref, "[0:v][1:v]fssim=algo=float+int+block:log_path=%s:log_fmt=csv" % path)
    with open(path) as f:
        text = f.read()
    lines = text.splitlines()
    comments = [l for l in lines if l.startswith("#")]
    rows = list(csv.reader(l for l in lines if not l.startswith("#")))
    header, data = rows[0], rows[1:]
    want_header = ["n", "pts", "pts_time"] + ["%s.%s" % (a, c) for a in ALGOS
                                             for c in ("Y", "U", "V", "All", "dB")]
    tap.ok(header == want_header, "CSV: header n,pts,pts_time,<algo>.<c>...,<algo>.All,<algo>.dB",
           header)
    tap.ok(any(l.startswith("# filter=fssim") and "algo=float+int+block" in l for l in comments) and
           any("pix_fmt=yuv420p" in l and "width=%d" % W in l for l in comments) and
           "# frames=%d" % N in comments, "CSV: comment lines give the filter, options, input and "
           "frame count", "\n".join(comments))
    frames = [r for r in data if r and r[0].isdigit()]
    pooled = {r[0]: r for r in data if r and not r[0].isdigit()}
    bad = []
    for k, r in enumerate(frames):
        jf = log["frames"][k]
        if int(r[0]) != k or int(r[1]) != jf["pts"] or float(r[2]) != jf["pts_time"]:
            bad.append("row %d: %r" % (k, r[:3]))
        for i, col in enumerate(header[3:]):
            a, c = col.split(".")
            if float(r[3 + i]) != jf[a][c]:
                bad.append("row %d %s: %s, JSON %r" % (k, col, r[3 + i], jf[a][c]))
    tap.ok(len(frames) == N and not bad, "CSV: %d frame rows equal the JSON values exactly" % N,
           "\n".join(bad))
    bad = []
    for stat in ("mean", "min", "max", "harmonic_mean", "p1", "p5", "p50"):
        r = pooled.get(stat)
        if not r:
            bad.append("no %s row" % stat)
            continue
        for i, col in enumerate(header[3:]):
            a, c = col.split(".")
            v = float(r[3 + i])
            want = db(log["pooled"][a]["All"][stat]) if c == "dB" else log["pooled"][a][c][stat]
            if abs(v - want) > 1e-12 * max(1.0, abs(want)):
                bad.append("%s %s: %r, want %r" % (stat, col, v, want))
    tap.ok(not bad, "CSV: pooled rows mean/min/max/harmonic_mean/p1/p5/p50 equal the JSON's "
           "(dB of the row's All)", "\n".join(bad))


STATS_RE = re.compile(r"^n:(\d+) Y:(%s) U:(%s) V:(%s) All:(%s) \((%s|inf)\)$" % (F6, F6, F6, F6, F6))


def test_stats(tap, d, main, ref, log):
    """stats_file: FFmpeg ssim's line format, for stats_algo."""
    ssim_path = os.path.join(d, "ssim.stats")
    lavfi(main, ref, "[0:v][1:v]ssim=stats_file=%s" % ssim_path)
    with open(ssim_path) as f:
        ssim_lines = f.read().splitlines()
    tap.ok(len(ssim_lines) == N and all(STATS_RE.match(l) for l in ssim_lines),
           "FFmpeg ssim's stats lines have the shape n:N Y:%f U:%f V:%f All:%f (%f)",
           "\n".join(ssim_lines))
    for algo in ALGOS + ("default", "f"):
        path = os.path.join(d, "stats_%s.txt" % algo)
        if algo == "default":
            opts = "algo=int+block:stats_file=%s" % path        # first computed: int
            want_algo = "int"
        elif algo == "f":
            opts = "algo=block+float:f=%s:stats_algo=block" % path  # the short name
            want_algo = "block"
        else:
            opts = "algo=float+int+block:stats_file=%s:stats_algo=%s" % (path, algo)
            want_algo = algo
        lavfi(main, ref, "[0:v][1:v]fssim=%s" % opts)
        with open(path) as f:
            lines = f.read().splitlines()
        want = ["n:%d Y:%f U:%f V:%f All:%f (%f)" % (
            k + 1, fr[want_algo]["Y"], fr[want_algo]["U"], fr[want_algo]["V"], fr[want_algo]["All"],
            db(fr[want_algo]["All"])) for k, fr in enumerate(log["frames"])]
        tap.ok(lines == want and all(STATS_RE.match(l) for l in lines),
               "stats_file (%s): ssim's line format with the %s values, n from 1" % (
                   {"default": "no stats_algo, algo=int+block", "f": "option f"}.get(algo,
                                                                                  "stats_algo=" + algo),
                   want_algo), "got:\n%s\nwant:\n%s" % ("\n".join(lines), "\n".join(want)))
        if algo == "block":
            tap.ok(lines == ssim_lines, "stats_file with stats_algo=block is byte-identical to "
                   "FFmpeg ssim's stats_file", "fssim:\n%s\nssim:\n%s" % ("\n".join(lines),
                                                                         "\n".join(ssim_lines)))
    # stdout
    p = lavfi(main, ref, "[0:v][1:v]fssim=algo=block:stats_file=-")
    out = [l for l in p.stdout.splitlines() if l.startswith("n:")]
    tap.ok(out == ssim_lines, "stats_file=- writes the same lines to stdout", p.stdout[-2000:])
    # planar RGB: R G B in ssim's order
    g = ft.natural_frames(48, 32, 2, "gbrp", image="chelsea", seed=3)
    gm = ft.degrade(g, "gbrp", blur=1.0, noise=2.0, seed=4)
    cm = ft.natural_clip(48, 32, 0, "gbrp", d, "gbr_main", frames=gm)
    cr = ft.natural_clip(48, 32, 0, "gbrp", d, "gbr_ref", frames=g)
    a, b = os.path.join(d, "gbr_fssim.txt"), os.path.join(d, "gbr_ssim.txt")
    lavfi(cm, cr, "[0:v][1:v]fssim=algo=block:stats_file=%s" % a)
    lavfi(cm, cr, "[0:v][1:v]ssim=stats_file=%s" % b)
    with open(a) as fa, open(b) as fb:
        la, lb = fa.read(), fb.read()
    tap.ok(la == lb and la.startswith("n:1 R:"), "gbrp: stats_file lines (R G B) identical to "
           "FFmpeg ssim's", "fssim:\n%s\nssim:\n%s" % (la, lb))


def test_summary(tap, d, main, ref, log):
    p = lavfi(main, ref, "[0:v][1:v]fssim=algo=float+int+block")
    for a in ALGOS:
        pl = log["pooled"][a]
        m = re.search(r"\] SSIM %s Y:(%s) \((%s)\) U:(%s) \((%s)\) V:(%s) \((%s)\) All:(%s) \((%s)\) "
                      r"min:(%s) frames:(\d+)\s*$" % ((a,) + (F6,) * 9), p.stderr, re.M)
        if not tap.ok(m is not None, "summary line for %s: SSIM %s Y:%%f (%%f) U:.. V:.. All:%%f "
                      "(%%f) min:%%f frames:N" % (a, a), p.stderr[-3000:]):
            continue
        g = m.groups()
        want = []
        for c in ("Y", "U", "V", "All"):
            want += ["%f" % pl[c]["mean"], "%f" % db(pl[c]["mean"])]
        want += ["%f" % pl["All"]["min"], str(N)]
        tap.ok(list(g) == want, "summary line for %s: pooled means, their dB, min All and the "
               "frame count" % a, "got %s\nwant %s" % (g, want))
    # same shape as FFmpeg ssim's: SSIM Y:%f (%f) U:%f (%f) V:%f (%f) All:%f (%f)
    q = lavfi(main, ref, "[0:v][1:v]ssim")
    ms = re.search(r"\] SSIM (Y:%s \(%s\) U:%s \(%s\) V:%s \(%s\) All:%s \(%s\))" % ((F6,) * 8),
                   q.stderr)
    mf = re.search(r"\] SSIM block (Y:%s \(%s\) U:%s \(%s\) V:%s \(%s\) All:%s \(%s\)) min:" %
                   ((F6,) * 8), p.stderr)
    tap.ok(ms is not None and mf is not None and ms.group(1) == mf.group(1),
           "summary line of block has FFmpeg ssim's Y/U/V/All part, same values",
           "ssim: %s\nfssim: %s" % (ms and ms.group(1), mf and mf.group(1)))


def count_out(stderr):
    """Frames that left the filter, from showinfo's lines."""
    return len(re.findall(r"Parsed_showinfo_\d+ @ \S+\] n:\s*\d+ pts:", stderr))


def framesync_run(d, main, ref, opts, tag):
    """fssim with pairing=framesync and FFmpeg ssim with the same framesync
    options: frames out, frames scored, fssim's log."""
    log_path = os.path.join(d, tag + ".json")
    stats = os.path.join(d, tag + ".ssim")
    sep = ":" if opts else ""
    p = lavfi(main, ref, "[0:v][1:v]fssim=algo=int:pairing=framesync%s%s:log_path=%s,showinfo" %
              (sep, opts, log_path))
    q = lavfi(main, ref, "[0:v][1:v]ssim=stats_file=%s%s%s,showinfo" % (stats, sep, opts))
    with open(stats) as f:
        ssim_scored = len(f.read().splitlines())
    log = ft.load_log(log_path)
    return count_out(p.stderr), log["frame_count"], count_out(q.stderr), ssim_scored, log


def test_framesync(tap, d, main, ref):
    short = ft.natural_clip(W, H, 0, "yuv420p", d, "ref_short", frames=ref.frames[:3])
    full = ft.run_fssim(main, ref, "algo=int", directory=d, tag="fs_full")["log"]
    ints = lambda log, a=0, b=None: [f["int"] for f in log["frames"][a:b]]

    # (options, frames out, frames scored) for a 5-frame main, 3-frame reference,
    # the same as FFmpeg's ssim (the same framesync)
    for opts, out, scored, what in (
            ("shortest=1", 3, 3, "stops with the shorter reference"),
            ("", 5, 5, "default eof_action=repeat scores the rest against the last reference frame"),
            ("eof_action=endall", 3, 3, "ends both streams with the reference"),
            ("eof_action=pass", 5, 3, "passes the main frames past the reference unscored"),
            ("repeatlast=0", 5, 3, "does not repeat the reference's last frame")):
        fo, fs, so, ss, log = framesync_run(d, main, short, opts, "fs_" + (opts.replace("=", "_") or "default"))
        tap.ok((fo, fs) == (out, scored) and (so, ss) == (out, scored),
               "%s: %s (%d out, %d scored, as FFmpeg ssim)" % (opts or "no option", what, out, scored),
               "fssim %d out %d scored; ssim %d out %d scored" % (fo, fs, so, ss))
        if scored >= 3:
            tap.ok(ints(log, 0, 3) == ints(full, 0, 3),
                   "%s: the paired frames score as in a run of equal lengths" % (opts or "no option"))
        if opts == "":
            rep = ft.natural_clip(W, H, 0, "yuv420p", d, "ref_rep",
                                  frames=ref.frames[:3] + [ref.frames[2], ref.frames[2]])
            want = ft.run_fssim(main, rep, "algo=int", directory=d, tag="fs_rep_explicit")["log"]
            tap.ok(ints(log) == ints(want), "eof_action=repeat: frames 3-4 equal scoring against an "
                   "explicit copy of the reference's last frame")

    # a longer reference: framesync repeats the main input's last frame (as ssim)
    longer = ft.natural_clip(W, H, 0, "yuv420p", d, "ref_long", frames=ref.frames + ref.frames[:2])
    fo, fs, so, ss, log = framesync_run(d, main, longer, "", "fs_longref")
    tap.ok((fo, fs) == (so, ss) == (N + 2, N + 2),
           "a reference 2 frames longer: %d frames out and scored, as FFmpeg ssim" % (N + 2),
           "fssim %d/%d ssim %d/%d" % (fo, fs, so, ss))
    mrep = ft.natural_clip(W, H, 0, "yuv420p", d, "main_rep",
                           frames=main.frames + [main.frames[-1]] * 2)
    want = ft.run_fssim(mrep, longer, "algo=int", directory=d, tag="fs_long_explicit")["log"]
    tap.ok(ints(log) == ints(want) and ints(log, 0, N) == ints(full),
           "a longer reference: the main's last frame is scored against the extra reference frames")
    fo, fs, so, ss, log = framesync_run(d, main, longer, "shortest=1", "fs_longref_shortest")
    tap.ok((fo, fs) == (so, ss) == (N, N), "a longer reference with shortest=1: %d frames" % N,
           "fssim %d/%d ssim %d/%d" % (fo, fs, so, ss))

    # pairing=nearest (the default): nothing is repeated, what lacks a pair
    # is counted; shortest and eof_action=endall end with the first input
    for ref_, opts, out, scored, counts, what in (
            (short, "", N, 3, (3, 0, 2), "a 3-frame reference: the 2 main frames after it go "
             "out unscored, counted in excess"),
            (short, "shortest=1", 3, 3, (3, 0, 0), "shortest=1 ends with the 3-frame reference"),
            (short, "eof_action=endall", 3, 3, (3, 0, 0), "eof_action=endall ends with it too"),
            (longer, "", N, N, (N, 2, 0), "a reference 2 frames longer: the main frames are "
             "scored, the 2 reference frames it lacks counted")):
        log_path = os.path.join(d, "near_%s.json" % (opts.replace("=", "_") or len(ref_.frames)))
        p = lavfi(main, ref_, "[0:v][1:v]fssim=algo=int%s:log_path=%s,showinfo" % (
            ":" + opts if opts else "", log_path))
        log = ft.load_log(log_path)
        e = log.get("pairing", {}).get("inputs", [{}])[0]
        tap.ok((count_out(p.stderr), log["frame_count"]) == (out, scored) and
               (e.get("paired"), e.get("lacks"), e.get("excess")) == counts and
               ints(log) == ints(full, 0, scored),
               "pairing=nearest, %s: %s (%d out, %d scored)" % (opts or "no option", what, out,
                                                                scored),
               (count_out(p.stderr), log["frame_count"], log.get("pairing")))


def test_threads(tap, d):
    """Slice threading must not change a bit (fixed bands, summed in order)."""
    w, h = 256, 144
    ref = ft.natural_frames(w, h, 2, "yuv420p10", image="astronaut", seed=5)
    main = ft.degrade(ref, "yuv420p10", blur=0.7, noise=2.0, block=8, seed=6)
    cm = ft.natural_clip(w, h, 0, "yuv420p10", d, "thr_main", frames=main)
    cr = ft.natural_clip(w, h, 0, "yuv420p10", d, "thr_ref", frames=ref)
    for opts in ("algo=float+int+block:padding=same:window=7", "algo=float+int+block"):
        logs = {}
        for n in (1, 2, 3, 4, 7):
            res = ft.run_fssim(cm, cr, opts, directory=d, tag="thr%d" % n,
                               extra_args=["-filter_complex_threads", str(n)])
            logs[n] = res["log"]
        base = logs[1]
        for n in (2, 3, 4, 7):
            tap.ok(logs[n]["frames"] == base["frames"] and logs[n]["pooled"] == base["pooled"],
                   "%s: -filter_complex_threads %d gives bitwise the JSON values of 1 thread"
                   % (opts, n))
    # (-filter_threads sets the threads of simple graphs only; a two-input graph given
    # with -lavfi is a complex graph, whose thread count is -filter_complex_threads.)


def test_enable(tap, d, main, ref):
    full = ft.run_fssim(main, ref, "algo=float+int+block", directory=d, tag="en_full")["log"]
    r = ft.run_fssim(main, ref, "algo=float+int+block:enable='gte(n\\,2)'", directory=d,
                     tag="en_gte2", metadata=True, post="showinfo")
    log, meta = r["log"], r["metadata"]
    # metadata=print prints only frames that carry metadata; showinfo counts them all
    scored = [m["frame"] for m in meta if any(k.startswith("lavfi.fssim.") for k in m["tags"])]
    tap.ok(count_out(r["proc"].stderr) == N and scored == [2, 3, 4],
           "enable='gte(n,2)': all frames pass, only frames 2-4 carry metadata",
           "%d out, scored %s" % (count_out(r["proc"].stderr), scored))
    tap.ok(log["frame_count"] == 3 and [f["pts"] for f in log["frames"]] == [2, 3, 4] and
           [{a: f[a] for a in ALGOS} for f in log["frames"]] ==
           [{a: f[a] for a in ALGOS} for f in full["frames"][2:]],
           "enable: the log holds frames 2-4 with the values of an unrestricted run",
           [f["pts"] for f in log["frames"]])
    xs = [f["int"]["All"] for f in full["frames"][2:]]
    tap.ok(abs(log["pooled"]["int"]["All"]["mean"] - sum(xs) / 3) < 1e-15,
           "enable: pooled values cover the scored frames only")
    r = ft.run_fssim(main, ref, "algo=int:enable='between(t\\,0.039\\,0.041)'", directory=d,
                     tag="en_t")["log"]
    tap.ok(r["frame_count"] == 1 and r["frames"][0]["pts"] == 1,
           "enable on time: only the frame at t=0.04 is scored", r["frame_count"])


def test_identical(tap, d, ref):
    """Identical inputs: every plane and All exactly 1, dB infinite (null in
    JSON, inf in metadata and in the stats line, as FFmpeg ssim prints)."""
    res = ft.run_fssim(ref, ref, "algo=float+int+block:stats_algo=block:stats_file=%s" %
                       os.path.join(d, "id.stats"), directory=d, tag="identical", metadata=True)
    log, meta = res["log"], res["metadata"]
    tap.ok(all(f[a][c] == 1.0 for f in log["frames"] for a in ALGOS for c in ("Y", "U", "V", "All")),
           "identical inputs: every plane and All are exactly 1.0",
           [f["int"] for f in log["frames"]])
    tap.ok(all(f[a]["dB"] is None for f in log["frames"] for a in ALGOS) and
           all(m["tags"]["lavfi.fssim.%s.dB" % a] == "inf" for m in meta for a in ALGOS),
           "identical inputs: dB is null in JSON and inf in metadata")
    lavfi(ref, ref, "[0:v][1:v]ssim=stats_file=%s" % os.path.join(d, "id.ssim"))
    with open(os.path.join(d, "id.stats")) as a, open(os.path.join(d, "id.ssim")) as b:
        la, lb = a.read(), b.read()
    tap.ok(la == lb and "(inf)" in la, "identical inputs: the block stats lines equal FFmpeg "
           "ssim's, (inf) included", "fssim:\n%s\nssim:\n%s" % (la, lb))


def test_second_output(tap, d, main, ref):
    """doc/performance.md#keeping-the-decoders-busy: the decoded streams also
    sent to a second output, its timestamps moved back, change no score, also
    with -frames:v given to both outputs."""
    second = ["-map", "0:v", "-map", "1:v", "-vf", "setpts=PTS-60/TB",
              "-enc_time_base", "filter"]
    for name, graph in (("fssim", "fssim=algo=float+int+block"), ("fssim3d", "fssim3d=depth=3")):
        logs = []
        for k, extra in enumerate(([], second + ["-f", "null", "-"],
                                   second + ["-frames:v", "3", "-f", "null", "-"])):
            path = os.path.join(d, "second%d_%s.json" % (k, name))
            args = ["-frames:v", "3"] if k == 2 else []
            ft.ffmpeg(*main.input_args(), *ref.input_args(), "-lavfi",
                      "[0:v][1:v]%s:log_path=%s[o]" % (graph, path), "-map", "[o]", *args,
                      "-f", "null", "-", *extra)
            with open(path) as f:
                logs.append(json.load(f))
        tap.ok(len(logs[0]["frames"]) == N and logs[1]["frames"] == logs[0]["frames"] and
               logs[1]["pooled"] == logs[0]["pooled"],
               "%s: a second output taking the decoded streams changes no score" % name)
        # frames that reached the filter before the stop are scored and logged too, and
        # fssim3d's delay line with truncated windows (doc/outputs.md#runs-cut-short)
        got = logs[2]["frames"]
        same = len(got) if name == "fssim" else 3
        tap.ok(len(got) >= 3 and got[:same] == logs[0]["frames"][:same],
               "%s: -frames:v 3 on both outputs: the first 3 frames sent, with the same scores"
               % name, len(got))


def test_long_percentiles(tap, d):
    """More frames than the percentile heaps first hold (64), so that they
    grow: p1, p5 and p50 still equal the nearest ranks recomputed here."""
    n = 300
    log_path = os.path.join(d, "long.json")
    src = "testsrc2=s=32x24:r=25,trim=end_frame=%d" % n
    ft.ffmpeg("-f", "lavfi", "-i", src + ",noise=alls=40:allf=t+u,format=yuv420p",
              "-f", "lavfi", "-i", src + ",format=yuv420p", "-lavfi",
              "[0:v][1:v]fssim=algo=float+int+block:log_path=%s:log_fmt=json" % log_path,
              "-f", "null", "-")
    with open(log_path) as f:
        log = json.load(f)
    fr, bad = log["frames"], []
    for a in ALGOS:
        for c in ("Y", "U", "V", "All"):
            xs = [f[a][c] for f in fr]
            for p in (1, 5, 50):
                got = log["pooled"][a][c]["p%d" % p]
                if got != nearest_rank(xs, p):
                    bad.append("%s.%s.p%d: %r, recomputed %r" % (a, c, p, got, nearest_rank(xs, p)))
    tap.ok(len(fr) == n and len(set(f["float"]["All"] for f in fr)) > n // 2 and not bad,
           "JSON over %d frames: the nearest-rank p1/p5/p50 equal those recomputed" % n,
           "%d frames\n%s" % (len(fr), "\n".join(bad)))


def main():
    tap = ft.Tap()
    d = ft.workdir("outputs")
    main_clip, ref_clip = clips(d)
    log = test_metadata(tap, d, main_clip, ref_clip)
    test_json(tap, log)
    test_csv(tap, d, main_clip, ref_clip, log)
    test_stats(tap, d, main_clip, ref_clip, log)
    test_summary(tap, d, main_clip, ref_clip, log)
    test_framesync(tap, d, main_clip, ref_clip)
    test_threads(tap, d)
    test_enable(tap, d, main_clip, ref_clip)
    test_identical(tap, d, ref_clip)
    test_second_output(tap, d, main_clip, ref_clip)
    test_long_percentiles(tap, d)
    tap.done()


if __name__ == "__main__":
    main()
