#!/usr/bin/env python3
"""Peer check of the CPU reference's MS-SSIM (doc/algorithms.md#msssim).

The reference's values come from tests/unit/metrics_cli (the C reference on
two raw planes).  Peers:

- tests/lib/msssim_np.py: pytorch-msssim's ms_ssim transcribed to numpy in
  float64, with the float64 Gaussian window (the transcription equals the
  real pytorch-msssim to ~3e-15: doc/algorithms.md#msssim).
  Per-scale S and CS means and the combined MS-SSIM, to <= 1e-12.
- scikit-image's structural_similarity(gaussian_weights=True, sigma,
  use_sample_covariance=False, data_range=L) for the finest scale's S: it is
  the same Gaussian SSIM with valid borders.  skimage fixes its Gaussian's
  truncate at 3.5, so only window/sigma pairs with 2*int(3.5 sigma + 0.5) + 1
  == window are compared with it.  <= 1e-12.

Also: the smallest scorable side (window 11: 161 scored, 160 refused, in
either dimension), identical planes (exactly 1), negated content (0).
"""
import json
import os
import subprocess

import numpy as np

import fssimtest as ft
import msssim_np

TOL = 1e-12
CLI = os.path.join(os.environ.get("top_builddir", "."), "tests", "unit", "metrics_cli")


def run_cli(x, y, depth, window=11, sigma=1.5):
    """The reference's values of planes x (main) and y (reference)."""
    d = ft.workdir("peer_msssim")
    pa, pb = os.path.join(d, "a.raw"), os.path.join(d, "b.raw")
    np.asarray(x).astype("<u2").tofile(pa)
    np.asarray(y).astype("<u2").tofile(pb)
    out = subprocess.run([CLI, str(x.shape[1]), str(x.shape[0]), str(depth), str(window),
                          repr(sigma), pa, pb], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    return json.loads(out)


def skimage_s1(x, y, L, sigma):
    from skimage.metrics import structural_similarity
    return float(structural_similarity(
        x.astype(np.float64), y.astype(np.float64), gaussian_weights=True, sigma=sigma,
        use_sample_covariance=False, data_range=float(L)))


def check(tap, name, x, y, depth, window=11, sigma=1.5):
    L = (1 << depth) - 1
    r = run_cli(x, y, depth, window, sigma)
    s, cs, v = msssim_np.ms_ssim_scales(x, y, float(L), win_size=window, win_sigma=sigma)
    lines = ["scale %d: S C %.17g np %.17g | CS C %.17g np %.17g" % (j + 1, r["s"][j], s[j],
                                                                     r["cs"][j], cs[j])
             for j in range(5)]
    lines.append("MS-SSIM C %.17g np %.17g" % (r["msssim"], v))
    worst = max([abs(a - b) for a, b in zip(r["s"], s)] +
                [abs(a - b) for a, b in zip(r["cs"], cs)] + [abs(r["msssim"] - v)])
    tap.ok(worst <= TOL, "%s: S, CS at 5 scales and MS-SSIM %.6f equal the numpy "
           "transcription to <= 1e-12 (worst %.2g)" % (name, v, worst), "\n".join(lines))
    if 2 * int(3.5 * sigma + 0.5) + 1 == window:
        sk = skimage_s1(x, y, L, sigma)
        tap.ok(abs(r["s"][0] - sk) <= TOL, "%s: S_1 equals scikit-image's SSIM to <= 1e-12 "
               "(diff %.2g)" % (name, abs(r["s"][0] - sk)),
               "C %.17g skimage %.17g" % (r["s"][0], sk))
    return r


def main():
    tap = ft.Tap()
    nat, deg = ft.natural_frames, ft.degrade

    # natural content, 8 and 10 bits, the sizes of the transcription check
    for w, h in ((176, 176), (333, 201), (640, 360)):
        for fmt, img, seed in (("gray", "astronaut", 1), ("gray10", "coffee", 3)):
            m = nat(w, h, 1, fmt, image=img, seed=seed)[0][0]
            d = deg([[m]], fmt, blur=1.0, noise=3.0, seed=seed + 1)[0][0]
            check(tap, "natural %s %dx%d" % (fmt, w, h), d, m, ft.pix_fmt(fmt).depth)
    # 1080p luma, 12 and 16 bits
    m = nat(1920, 1080, 1, "gray", image="rocket", seed=5)[0][0]
    check(tap, "natural gray 1920x1080", deg([[m]], "gray", blur=0.6, noise=2.0, block=8,
                                             seed=6)[0][0], m, 8)
    for fmt in ("gray12", "gray16"):
        m = nat(203, 181, 1, fmt, image="camera", seed=7)[0][0]
        check(tap, "natural %s 203x181" % fmt, deg([[m]], fmt, blur=0.7, noise=2.0, seed=8)[0][0],
              m, ft.pix_fmt(fmt).depth)

    # odd sizes at several scales, other windows and sigmas
    for w, h, win, sig in ((161, 161, 11, 1.5), (163, 177, 11, 1.5), (321, 199, 11, 1.5),
                           (257, 385, 11, 1.5), (33, 47, 3, 0.3), (35, 65, 3, 1.0),
                           (97, 131, 7, 0.8), (97, 98, 7, 1.0), (225, 241, 15, 2.0),
                           (171, 163, 9, 1.2), (81, 83, 5, 0.6)):
        m = nat(w, h, 1, "gray", image="chelsea", seed=w)[0][0]
        d = deg([[m]], "gray", blur=0.8, noise=4.0, shift=1, seed=h)[0][0]
        check(tap, "odd %dx%d window %d sigma %g" % (w, h, win, sig), d, m, 8, win, sig)

    # flat-ish planes
    rng = np.random.default_rng(9)
    for w, h in ((176, 192), (177, 169)):
        a = np.clip(np.rint(100 + rng.normal(0, 0.4, (h, w))), 0, 255).astype(np.uint8)
        check(tap, "flat-ish %dx%d" % (w, h), a, np.full((h, w), 104, np.uint8), 8)
        check(tap, "flat %dx%d against another flat" % (w, h), np.full((h, w), 60, np.uint8),
              np.full((h, w), 200, np.uint8), 8)

    # identical planes: exactly 1 at every scale and combined
    m = nat(333, 201, 1, "gray10", image="cat", seed=11)[0][0]
    r = check(tap, "identical 333x201", m, m.copy(), 10)
    tap.ok(r["msssim"] == 1.0 and all(v == 1.0 for v in r["s"] + r["cs"]),
           "identical planes: S, CS and MS-SSIM exactly 1", repr(r))

    # negated content: CS_1 < 0 is clamped to 0, so MS-SSIM is 0
    m = nat(176, 176, 1, "gray", image="astronaut", seed=12)[0][0]
    r = check(tap, "negated 176x176", 255 - m, m, 8)
    tap.ok(r["msssim"] == 0.0 and r["cs"][0] < 0, "negated content: MS-SSIM 0 (CS_1 %g)"
           % r["cs"][0], repr(r))

    # the smallest side: (window - 1) * 16 + 1, in either dimension; the
    # transcription (pytorch-msssim's assertion) agrees
    for win, side in ((11, 161), (3, 33), (15, 225)):
        for w, h in ((side, side + 40), (side + 40, side), (side - 1, side + 40),
                     (side + 40, side - 1)):
            m = nat(w, h, 1, "gray", image="coffee", seed=w + h)[0][0]
            d = deg([[m]], "gray", blur=0.5, noise=2.0, seed=h)[0][0]
            r = run_cli(d, m, 8, win, 1.5)
            try:
                msssim_np.ms_ssim(d, m, 255.0, win_size=win)
                np_ok = True
            except ValueError:
                np_ok = False
            want = min(w, h) >= side
            tap.ok((r["msssim"] is not None) == want and np_ok == want,
                   "window %d, %dx%d: %s by the reference and by the transcription"
                   % (win, w, h, "scored" if want else "refused"), repr(r))
    tap.done()


if __name__ == "__main__":
    main()
