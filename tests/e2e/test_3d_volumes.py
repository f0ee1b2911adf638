#!/usr/bin/env python3
"""fssim3d end to end on 3-D volumes (the README's volume recipe) and its
errors (doc/algorithms.md#fssim3d, doc/errors.md).

A volume is a stack of 2-D slices written one after the other as raw
little-endian samples; ffmpeg reads each file as rawvideo frames, one frame
a slice, and fssim3d scores the (slice, y, x) volume.  The recipe's command
is run exactly as documented and checked against scikit-image's n-D SSIM of
the same arrays.
"""
import math
import os
import re

import numpy as np

import fssimtest as ft
import fssim3d_naive as n3

tap = ft.Tap()
W, H, Z = 48, 40, 24          # slice width, height, number of slices
TOL_SKIMAGE = 1e-5            # doc/algorithms.md#accuracy
TOL_NAIVE = 1e-9


def phantom(Z, H, W, bits, seed):
    """A smooth scan-like volume (3-D blobs, a gradient, fine texture) and a
    degraded copy (3-D blur and noise, as from a faster acquisition)."""
    from scipy.ndimage import gaussian_filter
    L = (1 << bits) - 1
    rng = np.random.default_rng(seed)
    z, y, x = np.meshgrid(np.arange(Z), np.arange(H), np.arange(W), indexing="ij")
    v = 0.15 + 0.1 * x / W
    for _ in range(12):
        cz, cy, cx = rng.uniform(0, Z), rng.uniform(0, H), rng.uniform(0, W)
        s = rng.uniform(2, 8)
        v += rng.uniform(0.1, 0.5) * np.exp(-((z - cz) ** 2 + (y - cy) ** 2 + (x - cx) ** 2)
                                            / (2 * s * s))
    v += 0.03 * gaussian_filter(rng.normal(size=v.shape), 0.7)
    v = v / v.max() * 0.95
    ref = np.clip(np.rint(v * L), 0, L)
    deg = gaussian_filter(v, (0.8, 0.6, 0.6)) + rng.normal(0, 0.015, v.shape)
    deg[Z // 3] = v[Z // 3 - 1]  # one misregistered slice
    return ref, np.clip(np.rint(deg * L), 0, L)


def save(vol, path):
    """What a user does with numpy: slices one after the other, <u2."""
    vol.astype("<u2").tofile(path)


def recipe(a, b, pix_fmt, w, h, opts, log, extra=()):
    """The README recipe, verbatim but for the names."""
    args = ["-f", "rawvideo", "-pixel_format", pix_fmt, "-video_size", "%dx%d" % (w, h),
            "-framerate", "1", "-i", a,
            "-f", "rawvideo", "-pixel_format", pix_fmt, "-video_size", "%dx%d" % (w, h),
            "-framerate", "1", "-i", b,
            "-lavfi", "[0:v][1:v]fssim3d=%s:shortest=1:log_path=%s" % (opts, log)]
    return ft.ffmpeg(*args, *extra, "-f", "null", "-", check=False)


d = ft.workdir("3d-volumes")
VALID = "padding=valid:tpadding=valid"

# ---- 1. the recipe, 16-bit slices: equals skimage on the volume -----------
ref, deg = phantom(Z, H, W, 16, seed=3)
va, vb = os.path.join(d, "vol_a.raw"), os.path.join(d, "vol_b.raw")
save(deg, va)
save(ref, vb)
log = os.path.join(d, "vol16.json")
p = recipe(va, vb, "gray16le", W, H, VALID, log)
tap.ok(p.returncode == 0, "gray16le volume recipe runs", p.stderr[-2000:])
lg = ft.load_log(log) if os.path.exists(log) else None
sk = n3.skimage_3d(deg, ref, 65535)
got = lg["pooled"]["fssim3d"]["Y"]["mean"] if lg else None
tap.close("gray16le %dx%dx%d volume: pooled mean equals skimage n-D SSIM (data_range=65535)"
          % (Z, H, W), got, sk, TOL_SKIMAGE)
tap.diag("fssim3d %r skimage %r" % (got, sk))
tap.ok(lg and lg["frame_count"] == Z - 10 and [f["n"] for f in lg["frames"]] ==
       list(range(5, Z - 5)), "gray16le volume: slices 5..%d scored (full windows)" % (Z - 6))
ring = 11 * 5 * (W - 10) * (H - 10) * 8 / 1048576.0
tap.ok(re.search(r"fssim3d: ring of 11 moment sets, %.1f MiB" % ring, p.stderr) is not None,
       "the ring's memory is logged at config (%.1f MiB)" % ring,
       "\n".join(l for l in p.stderr.splitlines() if "ring" in l))
tap.ok(re.search(r"SSIM Y:[0-9.]+ \([0-9.]+\) All:", p.stderr) is not None,
       "summary line printed at the end")
tap.ok(sk < 0.99, "the degraded volume is not trivially similar (skimage %.4f)" % sk)

# ---- 2. 12-bit data in 16-bit words: pixel_format gray12le, L = 4095 -------
ref12, deg12 = phantom(Z, H, W, 12, seed=4)
a12, b12 = os.path.join(d, "ct_a.raw"), os.path.join(d, "ct_b.raw")
save(deg12, a12)
save(ref12, b12)
log = os.path.join(d, "vol12.json")
p = recipe(a12, b12, "gray12le", W, H, VALID, log)
lg = ft.load_log(log) if p.returncode == 0 else None
tap.close("gray12le volume: pooled mean equals skimage n-D SSIM (data_range=4095)",
          lg["pooled"]["fssim3d"]["Y"]["mean"] if lg else None,
          n3.skimage_3d(deg12, ref12, 4095), TOL_SKIMAGE)
# the same words read as gray16le would assume L = 65535: a different score
log16 = os.path.join(d, "vol12as16.json")
p16 = recipe(a12, b12, "gray16le", W, H, VALID, log16)
tap.ok(p16.returncode == 0 and lg and
       abs(ft.load_log(log16)["pooled"]["fssim3d"]["Y"]["mean"] -
           lg["pooled"]["fssim3d"]["Y"]["mean"]) > 1e-4,
       "the pixel format sets the data range: 12-bit data read as gray16le scores differently")

# ---- 3. per-slice values, anisotropic slices, CSV log ----------------------
csv = os.path.join(d, "slices.csv")
opts = "depth=5:tsigma=0.75:log_fmt=csv"
p = recipe(va, vb, "gray16le", W, H, opts, csv)
rows = []
if p.returncode == 0:
    with open(csv) as f:
        lines = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    hdr = lines[0].split(",")
    rows = [dict(zip(hdr, l.split(","))) for l in lines[1:] if l[0].isdigit()]
naive = n3.naive_3d(deg, ref, 65535, depth=5, tsigma=0.75)
tap.ok(len(rows) == Z and [int(r["n"]) for r in rows] == list(range(Z)) and
       [float(r["pts_time"]) for r in rows] == [float(i) for i in range(Z)],
       "CSV log: one row per slice, n and pts_time = slice index (framerate 1)",
       "rows %d" % len(rows))
worst = max((abs(float(r["fssim3d.Y"]) - naive[int(r["n"])]) for r in rows), default=None)
tap.ok(worst is not None and worst <= TOL_NAIVE,
       "depth=5:tsigma=0.75 (thicker slices): every slice equals the naive 3-D SSIM "
       "(max diff %s)" % worst)

# ---- 4. slice counts differ: shortest=1 stops at the shorter volume --------
vb_short = os.path.join(d, "vol_b_short.raw")
save(ref[:20], vb_short)
log = os.path.join(d, "short.json")
p = recipe(va, vb_short, "gray16le", W, H, "tpadding=truncate", log)
lg = ft.load_log(log) if p.returncode == 0 else None
naive20 = n3.naive_3d(deg[:20], ref[:20], 65535)
worst = max((abs(f["fssim3d"]["Y"] - naive20[f["n"]]) for f in lg["frames"]), default=1) \
    if lg else None
tap.ok(lg and lg["frame_count"] == 20 and worst <= TOL_NAIVE,
       "24 vs 20 slices with shortest=1: 20 slices scored, truncated at the new end "
       "(max diff %s)" % worst)

# eof_action=pass: after the reference ends, main frames pass unscored; the
# sequence (and its truncation) ends with the reference
p, lg, meta, md5 = n3.run_fssim3d("3d-volumes-pass", va, vb_short, "gray16le", W, H,
                                  "eof_action=pass", rate=1)
worst = max((abs(f["fssim3d"]["Y"] - naive20[f["n"]]) for f in lg["frames"]), default=1) \
    if lg else None
tap.ok(len(md5) == Z and sorted(meta) == list(range(20)) and lg["frame_count"] == 20 and
       worst <= TOL_NAIVE,
       "eof_action=pass: %d frames out, slices 0..19 scored, 20..23 passed through "
       "(max diff %s)" % (len(md5), worst), "metadata on %s" % sorted(meta))

# stats_file keeps the ssim line format; under tpadding=valid its n is the
# slice number (the first scored slice is depth/2)
p = recipe(va, vb, "gray16le", W, H, VALID + ":stats_file=-", os.path.join(d, "st.json"))
lines = [l for l in p.stdout.splitlines() if l.startswith("n:")]
tap.ok(p.returncode == 0 and len(lines) == Z - 10 and lines[0].startswith("n:6 Y:") and
       lines[-1].startswith("n:%d Y:" % (Z - 5)) and " All:" in lines[0],
       "stats_file: ssim's line format, n = slice number (6..%d, 1-based)" % (Z - 5),
       "\n".join(lines[:2]))

# ---- 5. the run stops early: held frames' scores still reach the log -------
log = os.path.join(d, "early.json")
p = recipe(va, vb, "gray16le", W, H, "depth=11", log, extra=("-frames:v", "8"))
lg = ft.load_log(log) if os.path.exists(log) else None
ns = [f["n"] for f in lg["frames"]] if lg else []
k = len(ns)
naive = n3.naive_3d(deg[:k], ref[:k], 65535) if k else []
worst = max((abs(f["fssim3d"]["Y"] - naive[f["n"]]) for f in lg["frames"]), default=1) \
    if lg else None
tap.ok(p.returncode == 0 and k >= 8 and ns == list(range(k)) and worst <= TOL_NAIVE,
       "-frames:v 8: the log is valid JSON with frames 0..%d, held ones scored as the "
       "sequence seen so far (max diff %s)" % (k - 1, worst), p.stderr[-1500:])

# ---- 6. errors ---------------------------------------------------------------
def fails(desc, p, *patterns):
    msg = p.stderr
    good = p.returncode != 0 and all(re.search(pt, msg) for pt in patterns)
    tap.ok(good, desc, "rc %d, stderr:\n%s" % (p.returncode, msg[-1500:]))


# tpadding=valid on fewer slices than the window: nothing to score
va8, vb8 = os.path.join(d, "a8.raw"), os.path.join(d, "b8.raw")
save(deg[:8], va8)
save(ref[:8], vb8)
log = os.path.join(d, "tooshort.json")
p = recipe(va8, vb8, "gray16le", W, H, VALID, log)
fails("tpadding=valid, 8 slices < depth=11: error naming depth and the frame count",
      p, r"depth=11", r"8 frames", r"tpadding=truncate")
try:
    lg = ft.load_log(log)
    tap.ok(lg["frame_count"] == 0 and lg["frames"] == [],
           "... and its log is valid JSON with no frame")
except (OSError, ValueError) as e:
    tap.ok(False, "... and its log is valid JSON with no frame", e)
p = recipe(va8, vb8, "gray16le", W, H, VALID + ":depth=7", os.path.join(d, "d7.json"))
tap.ok(p.returncode == 0 and ft.load_log(os.path.join(d, "d7.json"))["frame_count"] == 2,
       "the same 8 slices with depth=7 score slices 3 and 4")

p = recipe(va, vb, "gray16le", W, H, "depth=10", os.path.join(d, "even.json"))
fails("depth=10: error, the temporal window must be odd", p, r"depth=10", r"odd")

p = recipe(va, vb, "gray16le", W, H, "depth=65", os.path.join(d, "big.json"))
fails("depth=65: out of range", p, r"depth")

vb_small = os.path.join(d, "vol_b_36.raw")
save(ref[:, :36, :], vb_small)
args = ["-f", "rawvideo", "-pixel_format", "gray16le", "-video_size", "%dx%d" % (W, H),
        "-framerate", "1", "-i", va,
        "-f", "rawvideo", "-pixel_format", "gray16le", "-video_size", "%dx36" % W,
        "-framerate", "1", "-i", vb_small, "-lavfi", "[0:v][1:v]fssim3d=scale=none", "-f",
        "null", "-"]
fails("slice sizes differ, scale=none: error naming both sizes", ft.ffmpeg(*args, check=False),
      r"%dx%d" % (W, H), r"%dx36" % W)

# another bit depth is brought to the reference's; another colour family is not
args = ["-f", "rawvideo", "-pixel_format", "gray16le", "-video_size", "%dx%d" % (W, H),
        "-framerate", "1", "-i", va,
        "-f", "rawvideo", "-pixel_format", "gray12le", "-video_size", "%dx%d" % (W, H),
        "-framerate", "1", "-i", b12, "-lavfi", "[0:v]format=yuv444p16[m];[m][1:v]fssim3d",
        "-f", "null", "-"]
fails("sample formats of two colour families: error naming both", ft.ffmpeg(*args, check=False),
      r"yuv444p16le \(YUV\)", r"gray12le \(GRAY\)")

tiny_a, tiny_b = os.path.join(d, "tiny_a.raw"), os.path.join(d, "tiny_b.raw")
save(deg[:, :8, :8], tiny_a)
save(ref[:, :8, :8], tiny_b)
p = recipe(tiny_a, tiny_b, "gray16le", 8, 8, "padding=valid", os.path.join(d, "tiny.json"))
fails("8x8 slices, 11x11 window, padding=valid: error", p, r"8x8", r"11x11",
      r"padding=same")
log = os.path.join(d, "tiny_same.json")
p = recipe(tiny_a, tiny_b, "gray16le", 8, 8, "padding=same", log)
naive = n3.naive_3d(deg[:, :8, :8], ref[:, :8, :8], 65535, padding="same")
lg = ft.load_log(log) if p.returncode == 0 else None
tap.ok(lg and lg["frame_count"] == Z and
       max(abs(f["fssim3d"]["Y"] - naive[f["n"]]) for f in lg["frames"]) <= TOL_NAIVE,
       "the same 8x8 slices with padding=same: every slice scored, equal to naive")

p = recipe(va, vb, "gray16le", W, H, "tpadding=valid",
           os.path.join(d, "no-such-dir", "x.json"))
fails("unwritable log path: error naming it", p, r"no-such-dir")

tap.done()
