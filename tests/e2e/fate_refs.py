#!/usr/bin/env python3
"""Review of the committed FATE references (fate/ref/fssim-*) against
independent computations, run by test_fate.sh after FATE itself.

FATE only checks that the filter still prints what it printed when the
references were generated; this checks that what it printed was right.
For every fssim FATE test defined in fate/fssim.mak (refcmp_metadata style:
testsrc2 300x200, 5 frames, against its avgblur=4 copy) the two streams are
dumped as rawvideo and every value of the reference file is recomputed:
  int    exact numpy integer sums + the doc/algorithms.md#int double formula (<= 1e-12)
  float  scikit-image (valid, window 11) or numpy (other windows, same)
         (<= 1e-9)
  block  FFmpeg's own ssim filter on the same frames (%f strings equal;
         semi-planar formats through their planar equivalent)
  psnr   exact numpy integer sums of squared differences: MSE and PSNR
         (<= 1e-12 relative)
  msssim tests/lib/msssim_np.py, pytorch-msssim's ms_ssim transcribed to
         numpy (<= 1e-9)
The stats tests' lines are checked against the int and psnr values the
same way.

Prints unnumbered TAP lines ("ok - ..."); test_fate.sh numbers them.
"""
import math
import os
import re
import subprocess
import sys

import numpy as np

import fssimtest as ft
import msssim_np

W, H = 300, 200
K = np.array([2, 9, 28, 55, 68, 55, 28, 9, 2], np.int64)


def out(cond, desc, diag=None):
    print("%s - %s" % ("ok" if cond else "not ok", desc))
    if diag and not cond:
        for line in str(diag).splitlines():
            print("# " + line)
    sys.stdout.flush()


def corr_int(x):
    """Exact 9x9 separable correlation, taps outside the plane skipped."""
    h, w = x.shape
    p = np.pad(x, 4)
    t = np.zeros((h + 8, w), np.int64)
    for i in range(9):
        t += K[i] * p[:, i:i + w]
    o = np.zeros((h, w), np.int64)
    for i in range(9):
        o += K[i] * t[i:i + h, :]
    return o


def int_ssim(a, b, depth):
    a = a.astype(np.int64)
    b = b.astype(np.int64)
    L = float((1 << depth) - 1)
    mux, muy, x2, xy, y2 = [corr_int(v) for v in (a, b, a * a, a * b, b * b)]
    w = corr_int(np.ones_like(a))
    W_ = w.astype(float)
    c1 = L * L * (0.01 * 0.01) * W_ * W_
    c2 = L * L * (0.03 * 0.03) * W_ * W_
    fx, fy = mux.astype(float), muy.astype(float)
    mx2, mxy, my2 = fx * fx, fx * fy, fy * fy
    t = W_ * (2 * mxy + c1) * (c2 + 2 * (xy.astype(float) * W_ - mxy)) / \
        ((mx2 + my2 + c1) * (x2.astype(float) * W_ - mx2 + y2.astype(float) * W_ - my2 + c2))
    return t.sum() / w.sum()


def mse_psnr(a, b, depth):
    """Exact MSE and PSNR of a plane pair (doc/algorithms.md#psnr)."""
    d = a.astype(np.int64) - b.astype(np.int64)
    mse = float(int((d * d).sum())) / d.size
    L = float((1 << depth) - 1)
    return mse, (10 * math.log10(L * L / mse) if mse else float("inf"))


def close_rel(v, want, tol=1e-12):
    return v == want or abs(v - want) <= tol * abs(want)


def float_ssim(a, b, depth, window=11, sigma=1.5, same=False):
    L = (1 << depth) - 1
    if not same and window == 11 and sigma == 1.5:
        from skimage.metrics import structural_similarity
        return structural_similarity(a.astype(float), b.astype(float), gaussian_weights=True,
                                     sigma=1.5, use_sample_covariance=False, data_range=float(L))
    from scipy.ndimage import correlate1d
    r = window // 2
    g = np.array([math.exp(-((i - r) ** 2) / (2.0 * sigma * sigma)) for i in range(window)])
    g /= g.sum()

    def f(x):
        return correlate1d(correlate1d(x, g, axis=0, mode="constant"), g, axis=1, mode="constant")

    a, b = a.astype(float), b.astype(float)
    ma, mb = f(a), f(b)
    va, vb, cv = f(a * a) - ma * ma, f(b * b) - mb * mb, f(a * b) - ma * mb
    c1, c2 = (0.01 * L) ** 2, (0.03 * L) ** 2
    s = (2 * ma * mb + c1) * (2 * cv + c2) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
    if not same:
        s = s[r:-r, r:-r]
    return s.mean()


def parse_meta(path):
    frames = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("frame:"):
                frames.append({})
            elif "=" in line and frames:
                k, v = line.split("=", 1)
                frames[-1][k] = v
    return frames


def fate_tests(mak):
    """(name, options, pix_fmt, convert-back) of fssim's refcmp tests."""
    with open(mak) as f:
        text = f.read()
    tests = []
    for m in re.finditer(r"^fate-(fssim-\S+):\s*CMD\s*=\s*refcmp_metadata\s+fssim=(\S+)\s+(\S+)",
                         text, re.M):
        tests.append((m.group(1), m.group(2), m.group(3), False))
    for m in re.finditer(r"^fate-(fssim-\S+):\s*CMD\s*=\s*\$\(call FSSIM_REFCMP_SEMI,([^,]+),"
                         r"fssim=([^,]+),", text, re.M):
        tests.append((m.group(1), m.group(3), m.group(2), True))
    return tests


def opts_dict(opts):
    d = {}
    for kv in opts.split(":"):
        k, v = kv.split("=", 1)
        d[k] = v
    return d


def dump(d, pf, back, duration=5, fmt_filter=True):
    """The refcmp_metadata graph's two streams as rawvideo in pf."""
    g = "testsrc2=size=%dx%d:rate=1:duration=%d%s,split[ref][tmp];[tmp]avgblur=4%s[enc]" % (
        W, H, duration, (",format=%s" % pf) if fmt_filter else "",
        (",format=%s" % pf) if back else "")
    enc, ref = os.path.join(d, "enc.raw"), os.path.join(d, "ref.raw")
    ft.run([ft.FFMPEG, "-v", "error", "-y", "-auto_conversion_filters", "-lavfi", g,
            "-map", "[enc]", "-f", "rawvideo", "-pix_fmt", pf, enc,
            "-map", "[ref]", "-f", "rawvideo", "-pix_fmt", pf, ref])
    f = ft.pix_fmt(pf)
    return ft.read_raw(enc, W, H, f), ft.read_raw(ref, W, H, f)


def ssim_stats(d, enc, ref, pf):
    """FFmpeg ssim's stats lines on the frames (planar equivalent of pf)."""
    spf = {"nv12": "yuv420p", "p010le": "yuv420p10le"}.get(pf, pf)
    paths = []
    for name, frames in (("enc2", enc), ("ref2", ref)):
        p = os.path.join(d, name + ".raw")
        ft.write_raw(p, frames, spf)
        paths.append(p)
    stats = os.path.join(d, "ssim.txt")
    inp = lambda p: ["-f", "rawvideo", "-pix_fmt", spf, "-video_size", "%dx%d" % (W, H),
                     "-framerate", "1", "-i", p]
    ft.run([ft.FFMPEG, "-v", "error", "-y"] + inp(paths[0]) + inp(paths[1]) +
           ["-lavfi", "[0:v][1:v]ssim=stats_file=%s" % stats, "-f", "null", "-"])
    with open(stats) as f:
        return ft.parse_stats_file(f.read())


def review(d, refdir, name, opts, pf, back):
    path = os.path.join(refdir, name)
    if not os.path.exists(path):
        out(False, "%s: reference file exists" % name, path)
        return
    meta = parse_meta(path)
    f = ft.pix_fmt(pf)
    o = opts_dict(opts)
    fo = {}
    if "window" in o:
        fo["window"] = int(o["window"])
    if "sigma" in o:
        fo["sigma"] = float(o["sigma"])
    fo["same"] = o.get("padding") == "same"
    enc, ref = dump(d, pf, back)
    out(len(meta) == len(enc) == 5, "%s: 5 frames in the reference" % name, len(meta))
    stats = ssim_stats(d, enc, ref, pf)
    worst = {"int": 0.0, "float": 0.0, "msssim": 0.0}
    bad, count = [], {"int": 0, "float": 0, "block": 0, "psnr": 0, "msssim": 0}
    for k, m in enumerate(meta[:len(enc)]):
        for c, comp in enumerate(f.comps):
            if "lavfi.fssim.psnr.%s" % comp in m:
                count["psnr"] += 1
                mse, psnr = mse_psnr(enc[k][c], ref[k][c], f.depth)
                got = (float(m["lavfi.fssim.mse.%s" % comp]), float(m["lavfi.fssim.psnr.%s" % comp]))
                if not (close_rel(got[0], mse) and close_rel(got[1], psnr)):
                    bad.append("frame %d %s: mse/psnr %r, want %r" % (k, comp, got, (mse, psnr)))
            for algo in ("int", "float", "block", "msssim"):
                key = "lavfi.fssim.%s.%s" % (algo, comp)
                if key not in m:
                    continue
                v = float(m[key])
                count[algo] += 1
                if algo == "int":
                    worst["int"] = max(worst["int"], abs(v - int_ssim(enc[k][c], ref[k][c], f.depth)))
                elif algo == "float":
                    worst["float"] = max(worst["float"],
                                         abs(v - float_ssim(enc[k][c], ref[k][c], f.depth, **fo)))
                elif algo == "msssim":
                    w = msssim_np.ms_ssim(enc[k][c], ref[k][c], float(f.maxval),
                                          win_size=fo.get("window", 11),
                                          win_sigma=fo.get("sigma", 1.5))
                    worst["msssim"] = max(worst["msssim"], abs(v - w))
                elif "%f" % v != stats[k][comp]:
                    bad.append("frame %d %s: %f vs ssim %s" % (k, comp, v, stats[k][comp]))
    algos = [a for a in ("int", "float", "block", "psnr", "msssim") if count[a]]
    out(bool(algos), "%s: the reference holds values of %s" % (name, "+".join(algos) or "nothing"))
    if count["int"]:
        out(worst["int"] <= 1e-12, "%s: int values equal an exact numpy doc/algorithms.md#int (worst %.2g)" % (
            name, worst["int"]))
    if count["float"]:
        out(worst["float"] <= 1e-9, "%s: float values equal %s (worst %.2g)" % (
            name, "skimage" if not fo["same"] and fo.get("window", 11) == 11 else "numpy",
            worst["float"]))
    if count["msssim"]:
        out(worst["msssim"] <= 1e-9, "%s: msssim values equal the numpy transcription of "
            "pytorch-msssim (worst %.2g)" % (name, worst["msssim"]))
    if count["block"] or count["psnr"]:
        out(not bad, "%s: block values print as FFmpeg ssim's on the same frames, psnr and "
            "mse equal an exact numpy evaluation (%d, %d)" % (name, count["block"],
                                                           count["psnr"]), "\n".join(bad))


def review_stats(d, refdir, mak):
    path = os.path.join(refdir, "fssim-stats")
    with open(mak) as f:
        text = f.read()
    m = re.search(r'^fate-fssim-stats:.*testsrc2=size=(\d+)x(\d+):rate=1:duration=(\d+),split.*$',
                  text, re.M)
    if not (m and (int(m.group(1)), int(m.group(2))) == (W, H) and "fssim=algo=int:" in m.group(0)):
        out(False, "fssim-stats: the test is the int stats run this review knows", m and m.group(0))
        return
    n = int(m.group(3))
    # the format fssim gets there (testsrc2's, converted by lavfi): ask fssim
    log = os.path.join(d, "stats.json")
    ft.run([ft.FFMPEG, "-v", "error", "-y", "-lavfi",
            "testsrc2=size=%dx%d:rate=1:duration=%d,split[ref][tmp];[tmp]avgblur=4[enc];"
            "[enc][ref]fssim=algo=int:log_path=%s" % (W, H, n, log), "-f", "null", "-"])
    pf = ft.load_log(log)["input"]["pix_fmt"]
    enc, ref = dump(d, pf, False, duration=n, fmt_filter=False)
    f = ft.pix_fmt(pf)
    with open(path) as fh:
        lines = ft.parse_stats_file(fh.read())
    bad = []
    for k, line in enumerate(lines):
        vals = [int_ssim(enc[k][c], ref[k][c], f.depth) for c in range(len(f.comps))]
        wts = f.weights(W, H)
        want = {comp: "%f" % v for comp, v in zip(f.comps, vals)}
        want["All"] = "%f" % sum(w * v for w, v in zip(wts, vals))
        for key, v in want.items():
            if line.get(key) != v:
                bad.append("n:%d %s: %s, want %s" % (k + 1, key, line.get(key), v))
    out(len(lines) == n and not bad, "fssim-stats: %d lines, int values (%s) equal an exact "
        "numpy doc/algorithms.md#int" % (len(lines), pf), "\n".join(bad))


def review_psnr_stats(d, refdir, mak):
    """fssim-psnr-stats: FFmpeg psnr's line format, values of an exact
    numpy evaluation printed as psnr prints them (%0.2f)."""
    path = os.path.join(refdir, "fssim-psnr-stats")
    with open(mak) as f:
        text = f.read()
    m = re.search(r'^fate-fssim-psnr-stats:.*testsrc2=size=(\d+)x(\d+):rate=1:duration=(\d+),'
                  r'split.*stats_algo=psnr.*$', text, re.M)
    if not (m and (int(m.group(1)), int(m.group(2))) == (W, H)):
        out(False, "fssim-psnr-stats: the test is the psnr stats run this review knows",
            m and m.group(0))
        return
    n = int(m.group(3))
    log = os.path.join(d, "psnr_stats.json")
    ft.run([ft.FFMPEG, "-v", "error", "-y", "-lavfi",
            "testsrc2=size=%dx%d:rate=1:duration=%d,split[ref][tmp];[tmp]avgblur=4[enc];"
            "[enc][ref]fssim=algo=psnr:log_path=%s" % (W, H, n, log), "-f", "null", "-"])
    pf = ft.load_log(log)["input"]["pix_fmt"]
    enc, ref = dump(d, pf, False, duration=n, fmt_filter=False)
    f = ft.pix_fmt(pf)
    with open(path) as fh:
        lines = [l.split() for l in fh.read().splitlines() if l.strip()]
    bad = []
    for k, line in enumerate(lines):
        vals = [mse_psnr(enc[k][c], ref[k][c], f.depth) for c in range(len(f.comps))]
        wts = f.weights(W, H)
        mse_all = sum(w * v[0] for w, v in zip(wts, vals))
        L = float((1 << f.depth) - 1)
        want = ["n:%d" % (k + 1), "mse_avg:%0.2f" % mse_all] + \
            ["mse_%s:%0.2f" % (c.lower(), v[0]) for c, v in zip(f.comps, vals)] + \
            ["psnr_avg:%0.2f" % (10 * math.log10(L * L / mse_all))] + \
            ["psnr_%s:%0.2f" % (c.lower(), v[1]) for c, v in zip(f.comps, vals)]
        if line != want:
            bad.append("%s\nwant %s" % (" ".join(line), " ".join(want)))
    out(len(lines) == n and not bad, "fssim-psnr-stats: %d lines in psnr's format, values (%s) "
        "of an exact numpy evaluation" % (len(lines), pf), "\n".join(bad))


def main():
    top = ft.TOP_SRCDIR
    refdir = os.path.join(top, "fate", "ref")
    mak = os.path.join(top, "fate", "fssim.mak")
    d = ft.workdir("fate_refs")
    tests = fate_tests(mak)
    out(len(tests) >= 8, "fate/fssim.mak defines %d refcmp tests of fssim" % len(tests), tests)
    for name, opts, pf, back in tests:
        try:
            review(d, refdir, name, opts, pf, back)
        except (RuntimeError, ValueError, OSError) as e:
            out(False, "%s: review ran" % name, e)
    try:
        review_stats(d, refdir, mak)
    except (RuntimeError, ValueError, OSError) as e:
        out(False, "fssim-stats: review ran", e)
    try:
        review_psnr_stats(d, refdir, mak)
    except (RuntimeError, ValueError, OSError) as e:
        out(False, "fssim-psnr-stats: review ran", e)


if __name__ == "__main__":
    main()
