#!/usr/bin/env python3
"""Ladders (doc/options.md#ladders-inputsn): one reference against N renditions in one
filter, `inputs=N`.

1. Scores: each rendition's scores in the ladder equal the scores of that
   rendition alone (two inputs) after the same resampling, done here by an
   independent implementation of the resampler (tests/lib/resample_np.py,
   which equals the reference's on every sample: tests/peers/test_resample.py):
   int to 1e-12, float to 1e-5, block to 1e-6 (the contracts); the CPU
   computes the same doubles either way, so it is also held to 1e-15.
   Renditions smaller than the reference (upscaled), larger (the downscale
   path), of the reference's size (not resampled), odd sizes, 4:2:0 and
   4:4:4, 8 and 10 bits, every scaler; renditions of other formats than the
   reference (bit depth, chroma subsampling, layout), as farms have them.
2. Outputs: the lavfi.fssim.<k>.<algo>.<c> keys on the reference's frames,
   the JSON log (renditions with pad, size, resampled; per-frame values per
   rendition; pooled per rendition), the CSV log (a rendition column), one
   stats file per rendition (%d), one summary line per rendition and
   algorithm.
3. Errors: inputs out of range, stats_file without %d, a rendition of
   another colour family (the pad and both formats named), scale=none with
   another size or chroma subsampling.
4. eof_action=pass: a rendition that ends early stops being scored; the
   others go on.
"""
import json
import os
import re

import numpy as np

import fssimtest as ft
from resample_np import resample_frame

t = ft.Tap()
WORK = ft.workdir("ladder")
TOL = {"int": 1e-12, "float": 1e-5, "block": 1e-6}
CPU_TOL = 1e-15
ALGOS = "float+int+block"


def clip(w, h, fmt, name, distort=None, n=4, seed=3):
    return ft.natural_clip(w, h, n, fmt, WORK, name, seed=seed, distort=distort)


def resampled_clip(c, ref, scaler, name):
    """c's frames resampled to ref's planes and depth by the numpy
    resampler, in ref's format."""
    frames = [resample_frame(fr, c.fmt, ref.fmt, ref.w, ref.h, scaler) for fr in c.frames]
    return ft.natural_clip(ref.w, ref.h, len(frames), ref.fmt, WORK, name, frames=frames)


def ladder(rends, ref, options, tag, extra=()):
    """Run fssim with the renditions then the reference; returns
    (process, log, metadata list, log path)."""
    log = os.path.join(WORK, tag + ".json")
    meta = os.path.join(WORK, tag + ".meta")
    for p in (log, meta):
        if os.path.exists(p):
            os.unlink(p)
    n = len(rends) + 1
    pads = "".join("[%d:v]" % i for i in range(n))
    graph = "%sfssim=inputs=%d:%s:log_path=%s,metadata=print:file=%s" % (
        pads, n, options, log, meta)
    args = []
    for c in rends + [ref]:
        args += c.input_args()
    p = ft.ffmpeg(*(args + ["-lavfi", graph] + list(extra) + ["-f", "null", "-"]),
                  check=False)
    lg = ft.load_log(log) if p.returncode == 0 and os.path.exists(log) else None
    md = ft.read_metadata(meta) if os.path.exists(meta) else None
    return p, lg, md, log


def alone(main, ref, options, tag):
    return ft.run_fssim(main, ref, options, directory=WORK, tag=tag)["log"]


# ---- 1. scores -------------------------------------------------------------

CASES = [
    # (name, fmt, reference size, rendition sizes, scaler)
    ("yuv420p up and same", "yuv420p", (96, 64), [(48, 32), (96, 64), (66, 44)], "bicubic"),
    ("yuv420p odd, larger (down)", "yuv420p", (71, 53), [(35, 27), (101, 77)], "bicubic"),
    ("yuv444p bilinear", "yuv444p", (64, 48), [(40, 30), (80, 60)], "bilinear"),
    ("yuv420p10 lanczos", "yuv420p10le", (80, 48), [(40, 24), (57, 35)], "lanczos"),
    ("gray16 bicubic", "gray16le", (48, 40), [(33, 29), (48, 40)], "bicubic"),
    # renditions of other formats: (w, h, format)
    ("mixed formats against a 10-bit 4:2:2 reference", "yuv422p10le", (96, 64),
     [(48, 32, "yuv420p"), (96, 64, "nv12"), (66, 44, "p010le"), (96, 64, "yuv422p10le"),
      (96, 64, "yuv444p12le")], "bicubic"),
    ("mixed formats against an 8-bit 4:2:0 reference, lanczos", "yuv420p", (64, 48),
     [(64, 48, "yuv420p10le"), (32, 24, "yuv444p16le"), (80, 60, "nv21")], "lanczos"),
]

for name, fmt, (rw, rh), sizes, scaler in CASES:
    tag = "".join(ch if ch.isalnum() else "_" for ch in name)
    ref = clip(rw, rh, fmt, tag + "_ref")
    rends = [clip(z[0], z[1], z[2] if len(z) > 2 else fmt, "%s_r%d" % (tag, k),
                  distort={"blur": 0.8, "noise": 3, "seed": k})
             for k, z in enumerate(sizes)]
    p, lg, md, _ = ladder(rends, ref, "algo=%s:scaler=%s" % (ALGOS, scaler), tag)
    if not t.ok(lg is not None, "%s: the ladder runs" % name, p.stderr[-2000:]):
        continue
    for k, r in enumerate(rends):
        if (r.w, r.h, r.pix_fmt) == (rw, rh, ref.pix_fmt):
            main = r
        else:
            main = resampled_clip(r, ref, scaler, "%s_r%d_rs" % (tag, k))
        single = alone(main, ref, "algo=" + ALGOS, "%s_alone%d" % (tag, k))
        worst = {a: 0.0 for a in TOL}
        for i, fr in enumerate(lg["frames"]):
            rr = [x for x in fr["renditions"] if x["k"] == k + 1][0]
            for a in TOL:
                for c, v in rr[a].items():
                    worst[a] = max(worst[a], abs(v - single["frames"][i][a][c]))
        for a in TOL:
            t.ok(worst[a] <= min(TOL[a], CPU_TOL),
                 "%s: rendition %d (%dx%d %s%s), %s equals its score alone after the same "
                 "resampling (max diff %.3g)" % (name, k + 1, r.w, r.h, r.pix_fmt,
                                                  "" if main is r else ", resampled", a,
                                                  worst[a]))
        rec = lg["renditions"][k]
        t.ok(rec["pix_fmt"] == r.pix_fmt and rec["bit_depth"] == r.fmt.depth and
             rec["resampled"] == (main is not r),
             "%s: the log records rendition %d's format and depth, %s" % (
                 name, k + 1, "resampled" if main is not r else "not resampled"), rec)
    t.ok(lg["frame_count"] == ref.nb_frames and
         all(len(f["renditions"]) == len(rends) for f in lg["frames"]),
         "%s: every reference frame carries every rendition" % name)

# ---- 2. outputs ------------------------------------------------------------

ref = clip(64, 48, "yuv420p", "out_ref", n=5)
r1 = clip(32, 24, "yuv420p", "out_r1", distort={"noise": 4}, n=5)
r2 = clip(64, 48, "yuv420p", "out_r2", distort={"blur": 1.0}, n=5)
stats = os.path.join(WORK, "out_stats_%d.txt")
p, lg, md, log_path = ladder([r1, r2], ref, "algo=float+int:stats_file=" + stats, "out")
t.ok(p.returncode == 0, "outputs: the ladder runs", p.stderr[-2000:])
if lg:
    t.ok([(r["k"], r["pad"], r["width"], r["height"], r["resampled"]) for r in lg["renditions"]]
         == [(1, "dist1", 32, 24, True), (2, "dist2", 64, 48, False)],
         "JSON: the renditions with their pad, size and whether they are resampled")
    pooled = lg["pooled"]["renditions"]
    ok = len(pooled) == 2
    for k in range(2):
        vals = [[x for x in f["renditions"] if x["k"] == k + 1][0]["int"]["All"]
                for f in lg["frames"]]
        ok &= pooled[k]["frame_count"] == 5 and \
            abs(pooled[k]["int"]["All"]["mean"] - sum(vals) / 5) <= 1e-15 and \
            pooled[k]["int"]["All"]["min"] == min(vals)
    t.ok(ok, "JSON: pooled per rendition (frame count, mean and min recomputed from the frames)")
if md:
    keys = set(md[0]["tags"])
    want = {"lavfi.fssim.%d.%s.%s" % (k, a, c) for k in (1, 2) for a in ("float", "int")
            for c in ("Y", "U", "V", "All", "dB")}
    t.ok(want <= keys and not any(re.match(r"lavfi\.fssim\.(float|int)\.", k) for k in keys),
         "metadata: lavfi.fssim.<k>.<algo>.<c> for every rendition, no two-input keys",
         sorted(keys)[:12])
    t.ok(len(md) == 5, "metadata: on the reference's 5 frames")
for k in (1, 2):
    lines = ft.parse_stats_file(open(stats.replace("%d", str(k))).read()) \
        if os.path.exists(stats.replace("%d", str(k))) else []
    vals = [[x for x in f["renditions"] if x["k"] == k][0]["float"]["Y"]
            for f in lg["frames"]] if lg else []
    t.ok(len(lines) == 5 and all(abs(float(l["Y"]) - v) <= 5e-7 for l, v in zip(lines, vals)),
         "stats_file %%d: rendition %d's file has its 5 lines in ssim's format" % k)
summ = [l for l in p.stderr.splitlines() if re.search(r"SSIM (float|int) dist\d Y:", l)]
t.ok(len(summ) == 4 and all("frames:5" in l for l in summ),
     "summary: one line per rendition and algorithm", "\n".join(summ))

csv = os.path.join(WORK, "out.csv")
p = ft.ffmpeg(*(r1.input_args() + r2.input_args() + ref.input_args() +
                ["-lavfi", "[0:v][1:v][2:v]fssim=inputs=3:log_fmt=csv:log_path=" + csv,
                 "-f", "null", "-"]), check=False)
rows = [l for l in open(csv).read().splitlines() if l and not l.startswith("#")] \
    if p.returncode == 0 else []
t.ok(rows and rows[0].startswith("n,pts,pts_time,rendition,") and
     [r.split(",")[3] for r in rows[1:11]] == ["1", "2"] * 5,
     "CSV: one row per frame per rendition, with a rendition column", "\n".join(rows[:4]))

# ---- 3. errors -------------------------------------------------------------


def fails(desc, args, patterns):
    p = ft.ffmpeg(*args, check=False)
    t.ok(p.returncode != 0 and all(re.search(x, p.stderr) for x in patterns),
         desc, p.stderr[-1500:])


base = r1.input_args() + r2.input_args() + ref.input_args()
fails("inputs=1 is refused", ref.input_args() + ["-lavfi", "fssim=inputs=1", "-f", "null", "-"],
      [r"inputs"])
fails("inputs=18 is refused", ref.input_args() + ["-lavfi", "fssim=inputs=18", "-f", "null", "-"],
      [r"inputs"])
fails("stats_file without %d: error", base + ["-lavfi", "[0:v][1:v][2:v]fssim=inputs=3:"
                                              "stats_file=" + os.path.join(WORK, "x.txt"),
                                              "-f", "null", "-"], [r"%d", r"stats_file"])
fails("a rendition of another colour family: names the pad and both formats",
      base + ["-lavfi", "[1:v]format=gbrp[b];[0:v][b][2:v]fssim=inputs=3",
              "-f", "null", "-"], [r"dist2 is gbrp \(GBR\)", r"reference is yuv420p \(YUV\)"])
fails("scale=none and a rendition of another chroma subsampling: names the pad and both "
      "formats", base + ["-lavfi", "[1:v]split[a][c];[c]format=yuv444p[b];"
                         "[a][b][2:v]fssim=inputs=3:scale=none", "-f", "null", "-"],
      [r"chroma subsampling differs", r"dist2 is yuv444p", r"reference is yuv420p"])
fails("scale=none with another size: names the pad and both sizes",
      base + ["-lavfi", "[0:v][1:v][2:v]fssim=inputs=3:scale=none", "-f", "null", "-"],
      [r"dist1", r"32x24", r"64x48"])

# ---- 4. a rendition ends early ---------------------------------------------

short = clip(32, 24, "yuv420p", "short_r1", distort={"noise": 4}, n=2)
p, lg, _, _ = ladder([short, r2], ref, "algo=int:eof_action=pass", "short")
if t.ok(lg is not None, "eof_action=pass: a rendition shorter than the reference",
        p.stderr[-1500:]):
    ks = [sorted(x["k"] for x in f["renditions"]) for f in lg["frames"]]
    t.ok(ks == [[1, 2], [1, 2], [2], [2], [2]] and
         lg["pooled"]["renditions"][0]["frame_count"] == 2,
         "eof_action=pass: the ended rendition stops being scored, the others go on", ks)
t.done()
