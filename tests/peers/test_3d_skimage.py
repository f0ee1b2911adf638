#!/usr/bin/env python3
"""fssim3d (software frames) against its peers (doc/algorithms.md#fssim3d).

- padding=valid:tpadding=valid, window=depth=11, sigma=tsigma=1.5: the
  pooled mean of each component equals scikit-image's n-D
  structural_similarity of the (t, y, x) volume to <= 1e-5 (the contract);
- every frame's value equals an independent float64 evaluation (naive
  separable filtering of the whole volume, explicit truncation and
  renormalisation at the time ends) under both temporal paddings, both
  spatial paddings, other window/depth sizes and sequences shorter than the
  window, for 8/10/16-bit gray and yuv420p;
- frames in = frames out, untouched, with the metadata exactly where a
  score is due; results do not depend on the number of threads; depth=1
  is the 2-D Gaussian SSIM of fssim.
"""
import math
import os

import numpy as np

import fssimtest as ft
import fssim3d_naive as n3

tap = ft.Tap()
W, H, T = 48, 40, 24
# The CPU filter computes in double like the naive evaluation; only the
# summation order differs.  The skimage tolerance is the contract of doc/algorithms.md#accuracy.
TOL_NAIVE = 1e-9
TOL_SKIMAGE = 1e-5

FORMATS = {  # pix_fmt: (bits, chroma)
    "gray": (8, False),
    "gray10le": (10, False),
    "gray16le": (16, False),
    "yuv420p": (8, True),
}


def comps(chroma):
    return ["Y", "U", "V"] if chroma else ["Y"]


def make(name, pix_fmt, T=T, W=W, H=H, seed=1):
    bits, chroma = FORMATS[pix_fmt]
    ref, dist = n3.clip(T, H, W, pix_fmt, seed=seed)
    d = ft.workdir(name)
    a, b = os.path.join(d, "main.raw"), os.path.join(d, "ref.raw")
    n3.write_raw(a, dist, bits)
    n3.write_raw(b, ref, bits)
    return a, b, ref, dist, bits, chroma


def check_frames(name, lg, meta, md5, in_md5, cnames, nframes, expected):
    """expected[t]: {comp: value} or None (frame not scored)."""
    tap.ok(len(md5) == nframes and md5 == in_md5,
           "%s: %d frames in, %d out, untouched" % (name, nframes, len(md5)),
           "in %s\nout %s" % (in_md5, md5))
    scored = [t for t in range(nframes) if expected[t] is not None]
    tap.ok(sorted(meta) == scored,
           "%s: fssim3d metadata on exactly the scored frames" % name,
           "metadata on %s, expected %s" % (sorted(meta), scored))
    frames = lg["frames"] if lg else []
    tap.ok(len(frames) == len(scored) and lg["frame_count"] == len(scored) and
           [f["n"] for f in frames] == scored,
           "%s: log has frames %s" % (name, scored[:3] + ["..."] if len(scored) > 3 else scored),
           "log n %s" % [f["n"] for f in frames])
    worst = 0.0
    bad = []
    for f in frames:
        t = f["n"]
        if t >= nframes or expected[t] is None:
            bad.append(t)
            continue
        for c in cnames:
            worst = max(worst, abs(f["fssim3d"][c] - expected[t][c]))
        # metadata carries the log's values; All and dB as doc/outputs.md defines them
        m = meta.get(t, {})
        for c in cnames + ["All", "dB"]:
            v = m.get("lavfi.fssim3d." + c)
            if v is None or float(v) != f["fssim3d"][c]:
                bad.append((t, c, v, f["fssim3d"][c]))
    tap.ok(not bad and frames, "%s: metadata equals the log on every scored frame" % name,
           "mismatches: %s" % bad[:5])
    tap.ok(frames and worst <= TOL_NAIVE,
           "%s: every frame equals the naive float64 3-D SSIM (max diff %.3g)" % (name, worst),
           "max diff %r" % worst)
    return frames


def weights(chroma):
    if not chroma:
        return {"Y": 1.0}
    ny, nc = W * H, (W // 2) * (H // 2)
    tot = ny + 2 * nc
    return {"Y": ny / tot, "U": nc / tot, "V": nc / tot}


def expected_scores(ref, dist, bits, chroma, nframes, **kw):
    L = (1 << bits) - 1
    per = {c: n3.naive_3d(dist[i], ref[i], L, **kw) for i, c in enumerate(comps(chroma))}
    out = []
    for t in range(nframes):
        if per["Y"][t] is None:
            out.append(None)
        else:
            out.append({c: per[c][t] for c in per})
    return out


# ---- 1. the contract: skimage n-D SSIM of the volume ----------------------
for pix_fmt in FORMATS:
    name = "3d-skimage-" + pix_fmt
    a, b, ref, dist, bits, chroma = make(name, pix_fmt)
    L = (1 << bits) - 1
    p, lg, meta, md5 = n3.run_fssim3d(name, a, b, pix_fmt, W, H,
                                      "padding=valid:tpadding=valid:window=11:depth=11:"
                                      "sigma=1.5:tsigma=1.5")
    in_md5 = n3.input_md5(a, pix_fmt, W, H, name)
    exp = expected_scores(ref, dist, bits, chroma, T, tpadding="valid")
    check_frames(name, lg, meta, md5, in_md5, comps(chroma), T, exp)
    for i, c in enumerate(comps(chroma)):
        sk = n3.skimage_3d(dist[i], ref[i], L)
        got = lg["pooled"]["fssim3d"][c]["mean"] if lg else None
        tap.close("%s: pooled %s mean equals skimage n-D SSIM of the %dx%dx%d volume"
                  % (name, c, *dist[i].shape), got, sk, TOL_SKIMAGE)
        tap.diag("%s %s: fssim3d %.12f skimage %.12f diff %.3g"
                 % (name, c, got, sk, abs(got - sk)))
    # All pools the planes by sample count; dB from All
    if lg:
        f = lg["frames"][0]["fssim3d"]
        all_ = sum(w * f[c] for c, w in weights(chroma).items())
        tap.close("%s: All weights planes by sample count" % name, f["All"], all_, 1e-15)
        tap.close("%s: dB = -10 log10(1 - All)" % name, f["dB"],
                  -10 * math.log10(1 - f["All"]), 1e-9)

# ---- 2. temporal truncation, both spatial paddings, other sizes ------------
CASES = [
    # name, pix_fmt, frames, filter options, naive options
    ("trunc-gray", "gray", T, "", {}),
    ("trunc-gray10", "gray10le", T, "tpadding=truncate", {}),
    ("trunc-yuv420p", "yuv420p", T, "depth=7:tsigma=2", {"depth": 7, "tsigma": 2.0}),
    ("same-gray16", "gray16le", T, "padding=same:window=7:sigma=1:depth=5:tsigma=1",
     {"padding": "same", "window": 7, "sigma": 1.0, "depth": 5, "tsigma": 1.0}),
    ("same-valid-yuv420p", "yuv420p", 12, "padding=same:tpadding=valid:depth=3",
     {"padding": "same", "tpadding": "valid", "depth": 3}),
    ("valid-gray10-d5", "gray10le", 16, "tpadding=valid:depth=5:tsigma=0.8:window=9:sigma=2",
     {"tpadding": "valid", "depth": 5, "tsigma": 0.8, "window": 9, "sigma": 2.0}),
    # shorter than the temporal window: truncated at both ends at once
    ("short4-gray", "gray", 4, "depth=11", {}),
    ("short1-gray16", "gray16le", 1, "", {}),
    ("short7-yuv420p", "yuv420p", 7, "depth=9:padding=same",
     {"depth": 9, "padding": "same"}),
]
for name, pix_fmt, nframes, opts, kw in CASES:
    name = "3d-" + name
    a, b, ref, dist, bits, chroma = make(name, pix_fmt, T=nframes, seed=len(name))
    p, lg, meta, md5 = n3.run_fssim3d(name, a, b, pix_fmt, W, H, opts)
    in_md5 = n3.input_md5(a, pix_fmt, W, H, name)
    exp = expected_scores(ref, dist, bits, chroma, nframes, **kw)
    frames = check_frames(name, lg, meta, md5, in_md5, comps(chroma), nframes, exp)
    if kw.get("tpadding", "truncate") == "truncate":
        tap.ok(lg and lg["frame_count"] == nframes,
               "%s: truncate scores every frame (%d)" % (name, nframes))
        if frames:
            ends = [(t, abs(frames[t]["fssim3d"]["Y"] - exp[t]["Y"]))
                    for t in sorted({0, nframes - 1})]
            tap.ok(all(d <= TOL_NAIVE for _, d in ends),
                   "%s: first and last frames (truncated windows) equal the naive value"
                   % name, "diffs %s" % ends)

# The truncation checks above can fail: the filter's frame 0 is far from
# what un-renormalised taps (zeros before the sequence) would give.
name = "3d-trunc-gray"
a, b, ref, dist, bits, chroma = make(name, "gray", T=T, seed=len(name))
L = (1 << bits) - 1
lg = ft.load_log(os.path.join(ft.workdir(name), "log.json"))
zeros = n3.naive_3d(dist[0], ref[0], L, renormalise=False)
got = lg["frames"][0]["fssim3d"]["Y"]
tap.ok(abs(got - zeros[0]) > 1e-4 and abs(lg["frames"][T // 2]["fssim3d"]["Y"] - zeros[T // 2]) <= TOL_NAIVE,
       "3d-trunc-gray: frame 0 uses renormalised taps (%.6f), not zeros before it (%.6f)"
       % (got, zeros[0]))

# ---- 3. depth=1 is the 2-D Gaussian SSIM -----------------------------------
name = "3d-depth1"
a, b, ref, dist, bits, chroma = make(name, "yuv420p", T=6)
p, lg, meta, md5 = n3.run_fssim3d(name, a, b, "yuv420p", W, H, "depth=1")
d = ft.workdir(name)
flog = os.path.join(d, "fssim.json")
ft.ffmpeg(*n3.raw_input(a, "yuv420p", W, H), *n3.raw_input(b, "yuv420p", W, H),
          "-lavfi", "[0:v][1:v]fssim=algo=float:log_path=%s" % flog, "-f", "null", "-")
f2 = ft.per_frame(ft.load_log(flog), "float")
f3 = ft.per_frame(lg, "fssim3d") if lg else []
diff = max((abs(x[c] - y[c]) for x, y in zip(f2, f3) for c in ("Y", "U", "V")), default=None)
tap.ok(len(f2) == len(f3) == 6 and diff is not None and diff <= 1e-15,
       "depth=1: fssim3d equals fssim algo=float on every frame (max diff %s)" % diff)

# ---- 4. thread count does not change a bit ---------------------------------
name = "3d-threads"
W2, H2 = 96, 80
bits, chroma = 10, True
ref, dist = n3.clip(14, H2, W2, "yuv420p10le", seed=5)
d = ft.workdir(name)
a, b = os.path.join(d, "main.raw"), os.path.join(d, "ref.raw")
n3.write_raw(a, dist, bits)
n3.write_raw(b, ref, bits)
logs = []
for th in (1, 3, 8):
    p, lg, meta, md5 = n3.run_fssim3d(name, a, b, "yuv420p10le", W2, H2, "depth=5",
                                      threads=th)
    logs.append(lg["frames"] if lg else None)
tap.ok(logs[0] and logs[0] == logs[1] == logs[2],
       "yuv420p10le %dx%d: identical per-frame values with 1, 3 and 8 threads" % (W2, H2))
exp = expected_scores(ref, dist, bits, chroma, 14, depth=5)
worst = max(abs(f["fssim3d"][c] - exp[f["n"]][c]) for f in logs[0] for c in "YUV")
tap.ok(worst <= TOL_NAIVE, "yuv420p10le %dx%d: equals the naive evaluation (max diff %.3g)"
       % (W2, H2, worst))

tap.done()
