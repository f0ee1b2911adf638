#!/usr/bin/env python3
"""Peer check of fssim's `psnr` (doc/algorithms.md#psnr) end to end.

Every case scores natural content with fssim=algo=psnr and
1. an exact evaluation written here (numpy integer sums of squared
   differences, MSE and PSNR in Python floats) from the same frames: every
   plane's MSE and PSNR and All (FFmpeg psnr's weighting) to 1e-12
   relative (the contract is 1e-9);
2. FFmpeg's own psnr filter from the same build on the same frames: its
   metadata rounds each value to float and prints it with %f, so fssim's
   values, rounded and printed alike, must be the same strings;
3. the pooled values of the log recomputed from its per-frame values:
   mean, min, max of the per-frame PSNR capped at 6 * bitdepth + 12 dB
   (libvmaf's cap), nearest-rank p1, p5, p50, and psnr_of_mean_mse, equal
   to FFmpeg psnr's "average" in its summary line (%f strings equal).
Identical frames: MSE 0, PSNR inf (null in JSON), the pooled PSNR at the cap.
Samples above the format's depth (random 16-bit words in gray10 and
yuv420p10 frames) are read as stored, as FFmpeg's psnr reads them (which
adds each row's squared differences in 32 bits: the cases keep main within
300 of the reference, so that no row's sum wraps there).
"""
import math
import os
import re

import numpy as np

import fssimtest as ft

t = ft.Tap()
WORK = ft.workdir("psnr")
TOL = 1e-12
CASES = [
    ("yuv420p", 64, 48), ("yuv444p", 33, 21), ("yuv420p10le", 70, 46), ("gray", 41, 29),
    ("gbrp", 48, 32), ("nv12", 64, 40), ("p010le", 62, 38), ("yuv444p16le", 40, 36),
    ("gray16le", 32, 24), ("yuva420p", 48, 32),
    # random 16-bit words: samples above the depth, read as stored
    ("gray10le", 40, 30, "above"), ("yuv420p10le", 48, 32, "above"),
]
NB = 4


def exact(main, ref, fmt):
    """[frame] -> (mse per plane, All mse) with FFmpeg psnr's weighting."""
    out = []
    for a, b in zip(main.frames, ref.frames):
        mses, sizes = [], []
        for pa, pb in zip(a, b):
            d = pa.astype(np.int64) - pb.astype(np.int64)
            mses.append(float(int((d * d).sum())) / d.size)
            sizes.append(d.size)
        total = sum(sizes)
        out.append((mses, sum(m * (s / total) for m, s in zip(mses, sizes))))
    return out


def psnr(mse, depth):
    L = float((1 << depth) - 1)
    return 10 * math.log10(L * L / mse) if mse else float("inf")


def close(v, want):
    if want == float("inf") or want is None:
        return v is None or v == float("inf")
    return v is not None and abs(v - want) <= TOL * abs(want)


def ffmpeg_psnr(main, ref, fmt):
    meta = os.path.join(WORK, "ff.meta")
    p = ft.ffmpeg(*(main.input_args() + ref.input_args()),
                  "-lavfi", "[0:v][1:v]psnr,metadata=print:file=%s" % meta, "-f", "null", "-")
    avg = re.search(r"PSNR .* average:(\S+)", p.stderr)
    return ft.read_metadata(meta), avg.group(1) if avg else None


def f32(v):
    return "%f" % float(np.float32(v))


def nearest_rank(xs, p):
    s = sorted(xs)
    return s[max(1, math.ceil(p * len(s) / 100.0)) - 1]


for case in CASES:
    name, w, h = case[:3]
    fmt = ft.pix_fmt(name)
    tag = "%s_%dx%d%s" % (name, w, h, "_above" if case[3:] else "")
    if case[3:]:
        # FFmpeg's psnr adds a row's squared differences in 32 bits: main
        # differs from the reference by little, so that no row's sum wraps
        name += " holding values up to 65535"
        rf = ft.above_depth_frames(w, h, NB, fmt, seed=1)
        rng = np.random.default_rng(2)
        mf = [[np.clip(p.astype(np.int64) + rng.integers(-300, 301, p.shape), 0, 65535)
               .astype(np.uint16) for p in fr] for fr in rf]
        ref = ft.natural_clip(w, h, NB, fmt, WORK, tag + "_r", frames=rf)
        main = ft.natural_clip(w, h, NB, fmt, WORK, tag + "_m", frames=mf)
    else:
        ref = ft.natural_clip(w, h, NB, fmt, WORK, tag + "_r", seed=2)
        main = ft.natural_clip(w, h, NB, fmt, WORK, tag + "_m", seed=2,
                               distort=dict(blur=0.7, noise=4.0, block=8))
    run = ft.run_fssim(main, ref, "algo=psnr", directory=WORK, tag=tag, metadata=True)
    log, md = run["log"], run["metadata"]
    want = exact(main, ref, fmt)
    comps = list(fmt.comps)
    bad = []
    for i, f in enumerate(log["frames"]):
        mses, mall = want[i]
        for c, comp in enumerate(comps):
            if not (close(f["mse"][comp], mses[c]) and close(f["psnr"][comp], psnr(mses[c], fmt.depth))):
                bad.append("frame %d %s: %r %r, want %r" % (i, comp, f["mse"][comp], f["psnr"][comp], mses[c]))
        if not (close(f["mse"]["All"], mall) and close(f["psnr"]["All"], psnr(mall, fmt.depth))):
            bad.append("frame %d All: %r, want %r" % (i, f["mse"]["All"], mall))
    t.ok(len(log["frames"]) == NB and not bad,
         "%s %dx%d: every plane's MSE and PSNR, and All, equal an exact evaluation to 1e-12" %
         (name, w, h), "\n".join(bad[:8]))

    fmeta, favg = ffmpeg_psnr(main, ref, fmt)
    bad = []
    for i, (f, g) in enumerate(zip(md, fmeta)):
        for comp in comps:
            for key in ("psnr", "mse"):
                ours = f["tags"]["lavfi.fssim.%s.%s" % (key, comp)]
                theirs = g["tags"].get("lavfi.psnr.%s.%s" % (key, comp.lower()))
                if f32(float(ours)) != theirs:
                    bad.append("frame %d %s.%s: %s vs psnr's %s" % (i, key, comp, ours, theirs))
        for key, fk in (("psnr", "psnr_avg"), ("mse", "mse_avg")):
            ours = f["tags"]["lavfi.fssim.%s.All" % key]
            if f32(float(ours)) != g["tags"].get("lavfi.psnr." + fk):
                bad.append("frame %d %s All: %s vs psnr's %s" % (i, key, ours,
                                                               g["tags"].get("lavfi.psnr." + fk)))
    t.ok(len(md) == len(fmeta) == NB and not bad,
         "%s: the metadata, rounded and printed as FFmpeg's psnr prints its own, equal it" % name,
         "\n".join(bad[:8]))

    pooled = log["pooled"]["psnr"]
    cap = 6 * fmt.depth + 12
    bad = []
    for comp in comps + ["All"]:
        xs = [min(f["psnr"][comp], cap) for f in log["frames"]]
        mse = [f["mse"][comp] for f in log["frames"]]
        exp = {"mean": sum(xs) / len(xs), "min": min(xs), "max": max(xs),
               "p1": nearest_rank(xs, 1), "p5": nearest_rank(xs, 5), "p50": nearest_rank(xs, 50),
               "psnr_of_mean_mse": psnr(sum(mse) / len(mse), fmt.depth)}
        for k, v in exp.items():
            if not close(pooled[comp][k], v):
                bad.append("%s %s: %r, want %r" % (comp, k, pooled[comp][k], v))
    t.ok(not bad, "%s: pooled capped mean/min/max, p1/p5/p50 and psnr_of_mean_mse recomputed" % name,
         "\n".join(bad))
    t.ok(favg is not None and "%f" % pooled["All"]["psnr_of_mean_mse"] == favg,
         "%s: psnr_of_mean_mse prints as FFmpeg psnr's average (%s)" % (name, favg))

# identical frames
fmt = ft.pix_fmt("yuv420p10le")
same = ft.natural_clip(48, 32, 3, fmt, WORK, "same", seed=4)
log = ft.run_fssim(same, same, "algo=psnr", directory=WORK, tag="same")["log"]
cap = 6 * 10 + 12
t.ok(all(f["mse"][c] == 0 and f["psnr"][c] is None for f in log["frames"] for c in f["psnr"]),
     "identical frames: MSE 0 and PSNR inf (null in JSON) on every plane and All")
t.ok(all(log["pooled"]["psnr"][c]["mean"] == cap and log["pooled"]["psnr"][c]["p1"] == cap
         for c in log["pooled"]["psnr"]),
     "identical frames: the pooled PSNR is libvmaf's cap, 6 * 10 + 12 = 72 dB")
t.done()
