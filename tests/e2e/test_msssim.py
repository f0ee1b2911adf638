#!/usr/bin/env python3
"""algo=msssim in the CPU filter fssim (doc/algorithms.md#msssim), end to end.

1. Scores: every plane of every frame against tests/lib/msssim_np.py (pytorch-
   msssim's ms_ssim transcribed to numpy, float64, double window: written
   separately from the C code) on natural content, to 1e-9; two inputs and
   ladders (renditions of the reference's size, smaller and larger ones,
   resampled by the reference resampler first: tests/unit/resample_cli,
   checked against its own numpy peer in tests/peers/test_resample.py);
   8/10/16-bit, 4:2:0, 4:4:4 and semi-planar, odd sizes just above the
   smallest plane, another window and sigma.  All is the planes'
   sample-weighted mean, as for every algorithm.
2. The filter equals the reference's own evaluation (tests/unit/metrics_cli,
   ff_fssim_ref_msssim_scales) bit for bit, and its values do not depend on the
   number of threads: the bands are fixed and added in order.
3. Identical inputs: exactly 1 per plane and All, dB inf.  Each position's
   two ratios then have bit-identical numerators and denominators (the same
   double operations on the same values), so every map value is exactly 1,
   every scale's sum an exact integer equal to its divisor, every mean 1,
   and pow(1, w) = 1: nothing is left to round.
4. Outputs: the lavfi.fssim.msssim.<c> keys (ladder: lavfi.fssim.<k>.msssim.<c>),
   stats_algo=msssim in the stats file, the summary line, the CSV columns.
5. Errors: a plane whose smaller side is below (window-1)*16+1 fails with a
   message naming the plane, its size and that minimum (luma, and 4:2:0
   chroma that is too small while luma is not), for window 11 and 3.
"""
import json
import math
import os
import re
import subprocess

import numpy as np

import fssimtest as ft
import msssim_np

t = ft.Tap()
WORK = ft.workdir("msssim")
TOL = 1e-9
CRASH = re.compile(r"Assertion|Segmentation|core dumped|AddressSanitizer|double free|"
                   r"stack smashing|Aborted", re.I)
CLI = os.path.join(os.environ.get("top_builddir", "."), "tests", "unit", "metrics_cli")


def clip(w, h, fmt, name, distort=None, n=2, seed=3, image="coffee"):
    return ft.natural_clip(w, h, n, fmt, WORK, name, image=image, seed=seed, distort=distort)


def want(main, ref, k, c, window=11, sigma=1.5):
    return msssim_np.ms_ssim(main.frames[k][c], ref.frames[k][c], float(ref.fmt.maxval),
                             win_size=window, win_sigma=sigma)


def check_log(name, lg, main, ref, values, window=11, sigma=1.5):
    """values(frame) -> dict of the rendition's msssim values; compare every
    plane and All with the numpy transcription."""
    worst, where = 0.0, None
    for k in range(ref.nb_frames):
        got = values(lg["frames"][k])
        planes = [want(main, ref, k, c, window, sigma) for c in range(len(ref.fmt.comps))]
        wts = ref.fmt.weights(ref.w, ref.h)
        expect = dict(zip(ref.fmt.comps, planes))
        expect["All"] = sum(w * v for w, v in zip(wts, planes))
        for c, v in expect.items():
            d = abs(got[c] - v)
            if d > worst:
                worst, where = d, (k, c, got[c], v)
    t.ok(worst <= TOL, "%s: every plane and All within %g of the numpy transcription "
         "(max diff %.3g)" % (name, TOL, worst), where)


# ---- 1. scores: two inputs --------------------------------------------------

PAIRS = [
    # (name, fmt, w, h, options)
    ("8-bit yuv420p 322x324 (chroma 161x162)", "yuv420p", 322, 324, ""),
    ("10-bit yuv444p10 161x165", "yuv444p10le", 161, 165, ""),
    ("10-bit p010 338x322", "p010le", 338, 322, ""),
    ("16-bit gray16 170x200", "gray16le", 170, 200, ""),
    ("8-bit yuv420p 200x194 window=7 sigma=1", "yuv420p", 200, 194, "window=7:sigma=1"),
    ("12-bit yuv444p12 240x226 window=15 sigma=2.5", "yuv444p12le", 240, 226,
     "window=15:sigma=2.5"),
]

for name, fmt, w, h, opts in PAIRS:
    tag = re.sub(r"\W+", "_", name)
    ref = clip(w, h, fmt, tag + "_r")
    main = clip(w, h, fmt, tag + "_m", distort=dict(blur=1.0, noise=3.0, block=8))
    o = dict(kv.split("=") for kv in opts.split(":")) if opts else {}
    window, sigma = int(o.get("window", 11)), float(o.get("sigma", 1.5))
    r = ft.run_fssim(main, ref, "algo=msssim" + (":" + opts if opts else ""), directory=WORK,
                     tag=tag, check=False)
    if not t.ok(r["log"] is not None, "%s: runs" % name, r["proc"].stderr[-1500:]):
        continue
    check_log(name, r["log"], main, ref, lambda fr: fr["msssim"], window, sigma)

# ---- 1. scores: ladders ------------------------------------------------------


def resampled(c, ref, scaler, name):
    return ft.resampled_clip(c, ref, scaler, name, WORK)


def ladder(rends, ref, options, tag):
    return ft.run_ladder(rends, ref, options, tag, WORK)


LADDERS = [
    # (name, fmt, reference size, rendition sizes, scaler)
    ("ladder 8-bit yuv420p", "yuv420p", (322, 324), [(322, 324), (240, 180), (400, 360)],
     "bicubic"),
    ("ladder 10-bit yuv444p10 lanczos", "yuv444p10le", (161, 165), [(161, 165), (120, 100)],
     "lanczos"),
]
ladder_md = None
for name, fmt, (rw, rh), sizes, scaler in LADDERS:
    tag = re.sub(r"\W+", "_", name)
    ref = clip(rw, rh, fmt, tag + "_ref")
    rends = [clip(w, h, fmt, "%s_%d" % (tag, k), distort=dict(blur=0.8, noise=3.0, seed=k))
             for k, (w, h) in enumerate(sizes)]
    p, lg, md = ladder(rends, ref, "algo=msssim:scaler=" + scaler, tag)
    if not t.ok(lg is not None, "%s: runs" % name, p.stderr[-1500:]):
        continue
    ladder_md = ladder_md or md
    for k, r in enumerate(rends):
        main = r if (r.w, r.h) == (rw, rh) else resampled(r, ref, scaler, "%s_%d_rs" % (tag, k))
        check_log("%s, rendition %d (%dx%d%s)" % (name, k + 1, r.w, r.h,
                                                  "" if main is r else ", resampled"),
                  lg, main, ref,
                  lambda fr, k=k: [x for x in fr["renditions"] if x["k"] == k + 1][0]["msssim"])

# ---- 2. the reference, bit for bit; threads ------------------------------------


def cli_msssim(a, b, depth, window=11, sigma=1.5):
    pa, pb = os.path.join(WORK, "cli_a.raw"), os.path.join(WORK, "cli_b.raw")
    np.asarray(a).astype("<u2").tofile(pa)
    np.asarray(b).astype("<u2").tofile(pb)
    out = subprocess.run([CLI, str(a.shape[1]), str(a.shape[0]), str(depth), str(window),
                          repr(sigma), pa, pb], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    return json.loads(out)["msssim"]


ref = clip(322, 324, "yuv420p10le", "bits_r", n=2)
main = clip(322, 324, "yuv420p10le", "bits_m", n=2, distort=dict(blur=1.2, noise=5.0))
runs = {}
for threads in (1, 3):
    r = ft.run_fssim(main, ref, "algo=msssim", directory=WORK, tag="threads%d" % threads,
                     extra_args=["-filter_threads", str(threads)], check=False)
    runs[threads] = r["log"]
if t.ok(all(runs.values()), "threads: runs with 1 and 3 filter threads"):
    t.ok(runs[1]["frames"] == runs[3]["frames"],
         "threads: 1 and 3 threads give bitwise identical values (17 significant digits)")
    bad = []
    for k in range(2):
        for c, comp in enumerate(ref.fmt.comps):
            v = cli_msssim(main.frames[k][c], ref.frames[k][c], 10)
            if runs[3]["frames"][k]["msssim"][comp] != v:
                bad.append((k, comp, runs[3]["frames"][k]["msssim"][comp], v))
    t.ok(not bad, "the filter's values equal the reference's (ff_fssim_ref_msssim_scales through "
         "metrics_cli) bit for bit", bad)

# ---- 3. identical inputs ---------------------------------------------------------

for fmt, w, h in (("yuv420p", 322, 324), ("yuv444p10le", 161, 165), ("gray16le", 170, 161)):
    c = clip(w, h, fmt, "same_" + fmt)
    log = os.path.join(WORK, "same_%s.json" % fmt)
    p = ft.ffmpeg(*(c.input_args() + ["-lavfi", "split[a][b];[a][b]fssim=algo=msssim:"
                                      "log_path=" + log, "-f", "null", "-"]), check=False)
    lg = ft.load_log(log) if p.returncode == 0 else None
    vals = [(k, comp, v) for k, fr in enumerate(lg["frames"]) for comp, v in fr["msssim"].items()
            if comp != "dB"] if lg else []
    t.ok(lg is not None and vals and all(v == 1.0 for _, _, v in vals) and
         all(fr["msssim"]["dB"] is None for fr in lg["frames"]),
         "identical inputs (%s %dx%d): every plane and All exactly 1, dB inf" % (fmt, w, h),
         [x for x in vals if x[2] != 1.0] or p.stderr[-1500:])
c = clip(322, 324, "yuv420p", "same_ladder")
log = os.path.join(WORK, "same_ladder.json")
p = ft.ffmpeg(*(c.input_args() + ["-lavfi", "split=3[a][b][r];[a][b][r]fssim=inputs=3:"
                                  "algo=msssim:log_path=" + log, "-f", "null", "-"]), check=False)
lg = ft.load_log(log) if p.returncode == 0 else None
vals = [v for fr in lg["frames"] for x in fr["renditions"] for comp, v in x["msssim"].items()
        if comp != "dB"] if lg else []
t.ok(vals and all(v == 1.0 for v in vals), "identical inputs (ladder of 2): exactly 1",
     p.stderr[-1500:])

# ---- 4. outputs -----------------------------------------------------------------

ref = clip(322, 324, "yuv420p", "out_r", n=3)
main = clip(322, 324, "yuv420p", "out_m", n=3, distort=dict(noise=4.0))
stats = os.path.join(WORK, "out_stats.txt")
r = ft.run_fssim(main, ref, "algo=float+msssim:stats_algo=msssim:stats_file=" + stats,
                 directory=WORK, tag="out", metadata=True, check=False)
if t.ok(r["log"] is not None and r["metadata"], "outputs: runs", r["proc"].stderr[-1500:]):
    lg, md = r["log"], r["metadata"]
    keys = set(md[0]["tags"])
    t.ok({"lavfi.fssim.msssim.%s" % c for c in ("Y", "U", "V", "All", "dB")} <= keys,
         "metadata: lavfi.fssim.msssim.Y/U/V/All/dB", sorted(keys))
    t.ok(all(float(f["tags"]["lavfi.fssim.msssim.All"]) == lg["frames"][i]["msssim"]["All"]
             for i, f in enumerate(md)), "metadata: the log's values (17 digits)")
    all_ = lg["frames"][0]["msssim"]["All"]
    t.ok(abs(lg["frames"][0]["msssim"]["dB"] - (-10 * math.log10(1 - all_))) <= 1e-12,
         "dB is -10 log10(1 - All)")
    lines = ft.parse_stats_file(open(stats).read()) if os.path.exists(stats) else []
    t.ok(len(lines) == 3 and all("%f" % lg["frames"][i]["msssim"]["Y"] == l["Y"] and
                                 "%f" % lg["frames"][i]["msssim"]["All"] == l["All"]
                                 for i, l in enumerate(lines)),
         "stats_algo=msssim: the stats file holds the msssim values", lines)
    summ = [l for l in r["proc"].stderr.splitlines() if re.search(r"SSIM msssim Y:", l)]
    t.ok(len(summ) == 1 and "frames:3" in summ[0], "summary: an msssim line", summ)
if ladder_md:
    keys = set(ladder_md[0]["tags"])
    t.ok({"lavfi.fssim.%d.msssim.%s" % (k, c) for k in (1, 2, 3) for c in ("Y", "U", "V", "All")}
         <= keys, "ladder metadata: lavfi.fssim.<k>.msssim.<c>", sorted(keys)[:10])
csv = os.path.join(WORK, "out.csv")
p = ft.ffmpeg(*(main.input_args() + ref.input_args() +
                ["-lavfi", "[0:v][1:v]fssim=algo=msssim:log_fmt=csv:log_path=" + csv,
                 "-f", "null", "-"]), check=False)
head = [l for l in open(csv).read().splitlines() if l and not l.startswith("#")][0] \
    if p.returncode == 0 else ""
t.ok("msssim_Y" in head or "msssim.Y" in head, "CSV: msssim columns", head)

# ---- 5. errors ------------------------------------------------------------------


def fails(desc, c, options, patterns):
    p = ft.ffmpeg(*(c.input_args() + c.input_args() +
                    ["-lavfi", "[0:v][1:v]fssim=" + options, "-f", "null", "-"]), check=False)
    missing = [x for x in patterns if not re.search(x, p.stderr)]
    t.ok(p.returncode > 0 and not CRASH.search(p.stderr) and not missing,
         "error: %s (%s)" % (desc, ", ".join(patterns)),
         "exit %d, missing %s\n%s" % (p.returncode, missing, p.stderr[-1500:]))


fails("luma too small", clip(200, 160, "gray", "small_gray", n=1), "algo=msssim",
      [r"Plane Y is 200x160", r"algo=msssim", r"at least 161", r"window=11"])
fails("4:2:0 chroma too small, luma large enough", clip(320, 240, "yuv420p", "small_420", n=1),
      "algo=msssim", [r"Plane U is 160x120", r"at least 161"])
fails("window=3: minimum 33", clip(40, 32, "gray10le", "small_w3", n=1),
      "algo=msssim:window=3", [r"Plane Y is 40x32", r"at least 33", r"window=3"])
fails("with other algorithms too", clip(64, 48, "yuv444p", "small_444", n=1),
      "algo=float+msssim", [r"Plane Y is 64x48", r"at least 161"])
t.done()
