#!/usr/bin/env python3
"""Peer check of the CPU reference's PSNR (doc/algorithms.md#psnr).

The reference's values come from tests/unit/metrics_cli (the C reference on
two raw planes).  Peers:

- an exact evaluation in Python integers: the SSE must be equal, the MSE
  within one rounding of SSE / (w h) (a Fraction), and the PSNR within
  1e-12 (relative; absolute below 1 dB) of 10 log10(L^2 w h / SSE)
  evaluated in 50-digit decimal arithmetic.  Includes 16-bit planes whose SSE exceeds 2^53 (a
  double cannot hold it), odd SSEs there, and identical planes (+inf);
- FFmpeg's own psnr filter (the built ffmpeg) on the same frames: its
  per-plane MSE and PSNR (metadata, printed from a float) to float
  precision.
"""
import decimal
import fractions
import json
import os
import subprocess

import numpy as np

import fssimtest as ft

CLI = os.path.join(os.environ.get("top_builddir", "."), "tests", "unit", "metrics_cli")


def run_cli(x, y, depth):
    d = ft.workdir("peer_psnr")
    pa, pb = os.path.join(d, "a.raw"), os.path.join(d, "b.raw")
    np.asarray(x).astype("<u2").tofile(pa)
    np.asarray(y).astype("<u2").tofile(pb)
    # window 0: MS-SSIM is refused at once, only PSNR is computed
    out = subprocess.run([CLI, str(x.shape[1]), str(x.shape[0]), str(depth), "0", "1.5", pa, pb],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)


def exact_sse(x, y):
    """Sum of squared differences in Python integers (each row's sum in
    int64 is exact: at most 65535^2 * width < 2^63)."""
    d = x.astype(np.int64) - y.astype(np.int64)
    return sum(int(r) for r in (d * d).sum(axis=1))


def exact_psnr(sse, n, depth):
    """10 log10(L^2 n / SSE) to 50 digits (None for SSE 0)."""
    if sse == 0:
        return None
    L = (1 << depth) - 1
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        return float(decimal.Decimal(10) * (decimal.Decimal(L * L * n) / decimal.Decimal(sse)).log10())


def check(tap, name, x, y, depth):
    r = run_cli(x, y, depth)
    sse = exact_sse(x, y)
    n = x.shape[0] * x.shape[1]
    tap.ok(r["sse"] == sse, "%s: SSE %d exact" % (name, sse), "C %r, exact %d" % (r["sse"], sse))
    mse = fractions.Fraction(sse, n)
    err = abs(fractions.Fraction(r["mse"]) - mse)
    tap.ok(err <= mse * fractions.Fraction(1, 2 ** 51), "%s: MSE within two roundings of "
           "SSE / (w h) (%.17g)" % (name, r["mse"]), "exact %s" % float(mse))
    want = exact_psnr(sse, n, depth)
    if want is None:
        tap.ok(r["psnr"] == float("inf"), "%s: identical planes give PSNR +inf" % name, repr(r))
    else:
        # relative, and absolute below 1 dB: near 0 dB the PSNR is a
        # difference of nearly equal logarithms, its rounding error absolute
        rel = abs(r["psnr"] - want) / max(abs(want), 1.0)
        tap.ok(rel <= 1e-12, "%s: PSNR %.6f within 1e-12 (relative) of the 50-digit value "
               "(%.2g)" % (name, want, rel), "C %.17g exact %.17g" % (r["psnr"], want))
    return r


def check_ffmpeg(tap, name, w, h, fmt, main, ref):
    """FFmpeg's psnr filter against the reference, plane by plane."""
    f = ft.pix_fmt(fmt)
    d = ft.workdir("peer_psnr")
    cm = ft.natural_clip(w, h, 1, f, d, name + "_main", frames=main)
    cr = ft.natural_clip(w, h, 1, f, d, name + "_ref", frames=ref)
    meta = os.path.join(d, name + ".meta")
    try:
        ft.ffmpeg(*cm.input_args(), *cr.input_args(), "-lavfi",
                  "[0:v][1:v]psnr,metadata=print:file=%s" % meta, "-f", "null", "-")
    except RuntimeError as e:
        tap.ok(False, "%s: ffmpeg psnr runs" % name, e)
        return
    tags = ft.read_metadata(meta)[0]["tags"]
    lines, good = [], True
    for c, comp in enumerate(f.comps):
        r = run_cli(main[0][c], ref[0][c], f.depth)
        key = comp.lower()
        ff_mse = float(tags["lavfi.psnr.mse." + key])
        ff_psnr = float(tags["lavfi.psnr.psnr." + key])
        # metadata holds a float printed with %f
        ok = (abs(ff_mse - r["mse"]) <= 2e-7 * r["mse"] + 1e-6 and
              abs(ff_psnr - r["psnr"]) <= 2e-7 * r["psnr"] + 1e-6)
        good &= ok
        lines.append("%s: mse C %.17g ffmpeg %s, psnr C %.17g ffmpeg %s" % (
            comp, r["mse"], tags["lavfi.psnr.mse." + key], r["psnr"],
            tags["lavfi.psnr.psnr." + key]))
    tap.ok(good, "%s: every plane's MSE and PSNR equal FFmpeg psnr's (float precision)" % name,
           "\n".join(lines))


def main():
    tap = ft.Tap()
    nat, deg = ft.natural_frames, ft.degrade

    for fmt, w, h, img in (("gray", 176, 144, "astronaut"), ("gray10", 333, 201, "coffee"),
                           ("gray12", 64, 48, "camera"), ("gray16", 97, 61, "rocket")):
        m = nat(w, h, 1, fmt, image=img, seed=1)[0][0]
        d = deg([[m]], fmt, blur=1.0, noise=3.0, seed=2)[0][0]
        check(tap, "natural %s %dx%d" % (fmt, w, h), d, m, ft.pix_fmt(fmt).depth)
        check(tap, "identical %s %dx%d" % (fmt, w, h), m, m.copy(), ft.pix_fmt(fmt).depth)

    rng = np.random.default_rng(3)
    a = rng.integers(0, 65536, (129, 131), dtype=np.uint16)
    b = rng.integers(0, 65536, (129, 131), dtype=np.uint16)
    check(tap, "random 16-bit 131x129", a, b, 16)
    one = np.zeros((5, 7), np.uint16)
    one[2, 3] = 1
    r = check(tap, "one sample off by one, 7x5", one, np.zeros_like(one), 8)
    tap.ok(r["sse"] == 1, "SSE of a single difference of 1 is 1")

    # 16-bit extremes: 2048 x 2048 of 0 against 65535, SSE 2^22 * 65535^2
    # = 18013848757862400 > 2^53; then a few samples changed so that the
    # SSE is odd (no double holds it)
    z = np.zeros((2048, 2048), np.uint16)
    m = np.full((2048, 2048), 65535, np.uint16)
    r = check(tap, "16-bit 0 vs 65535 2048x2048", z, m, 16)
    tap.ok(r["sse"] == 18013848757862400 and r["sse"] > 2 ** 53,
           "16-bit extremes: SSE 18013848757862400, above 2^53", repr(r["sse"]))
    m[0, 0] = 0        # one odd square less: the SSE turns odd
    m[1, 1] = 65533    # an odd square for an odd square: stays odd
    r = check(tap, "16-bit near-extremes 2048x2048", m, z, 16)
    tap.ok(r["sse"] % 2 == 1 and r["sse"] > 2 ** 53 and float(r["sse"]) != r["sse"],
           "near-extremes: the SSE is odd and above 2^53, exact all the same", repr(r["sse"]))

    # FFmpeg's psnr filter: 4:2:0 8-bit and 10-bit, gray16
    m = nat(64, 48, 1, "yuv420p", image="astronaut", seed=4)
    check_ffmpeg(tap, "ffmpeg_yuv420p", 64, 48, "yuv420p",
                 deg(m, "yuv420p", blur=1.0, noise=3.0, seed=5), m)
    m = nat(37, 23, 1, "yuv420p10", image="coffee", seed=6)
    check_ffmpeg(tap, "ffmpeg_yuv420p10", 37, 23, "yuv420p10",
                 deg(m, "yuv420p10", blur=0.7, noise=2.0, seed=7), m)
    m = nat(40, 30, 1, "gray16", image="camera", seed=8)
    check_ffmpeg(tap, "ffmpeg_gray16", 40, 30, "gray16",
                 deg(m, "gray16", blur=1.0, noise=2.0, seed=9), m)
    tap.done()


if __name__ == "__main__":
    main()
