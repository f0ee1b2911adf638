#!/usr/bin/env python3
"""Peer check of fssim's `float` algorithm (doc/algorithms.md#float).

padding=valid against scikit-image's structural_similarity(
    gaussian_weights=True, sigma=S, use_sample_covariance=False,
    data_range=L) on float64 planes.  scikit-image (0.26 at least) fixes
    the Gaussian's truncate at 3.5 whatever its caller passes, so its window
    is 2*int(3.5*S + 0.5) + 1: the cases with other windows pick sigmas
    that give them (window 7: sigma 0.8, 15: 2.0, 3: 0.3, ...).  Pairs that
    skimage cannot express (window 7 with sigma 1.0) are checked against the
    numpy implementation below with valid cropping, itself checked against
    skimage where both apply.
padding=same against a float64 numpy/scipy implementation written here:
    separable Gaussian correlation with zeros outside the plane, SSIM map
    over every pixel, mean.

The contract is <= 1e-5 per plane per frame.  fssim's CPU filter computes in
double, so it is also held to 1e-9 (a float32 slip would show there).
"""
import math

import fssimtest as ft

CONTRACT = 1e-5
CPU_TOL = 1e-9


SKIMAGE_TRUNCATE = 3.5


def skimage_window(sigma):
    """The window skimage's structural_similarity uses for a sigma."""
    return 2 * int(SKIMAGE_TRUNCATE * sigma + 0.5) + 1


def skimage_ssim(a, b, L, window, sigma):
    import numpy as np
    from skimage.metrics import structural_similarity
    assert skimage_window(sigma) == window
    return float(structural_similarity(
        a.astype(np.float64), b.astype(np.float64), gaussian_weights=True, sigma=sigma,
        use_sample_covariance=False, data_range=float(L)))


def numpy_ssim(a, b, L, window, sigma, same):
    """doc/algorithms.md#float: same -- zeros outside the plane, every pixel scored;
    valid -- only positions whose whole window lies in the plane."""
    import numpy as np
    from scipy.ndimage import correlate1d
    r = window // 2
    g = np.array([math.exp(-((i - r) ** 2) / (2.0 * sigma * sigma)) for i in range(window)])
    g /= g.sum()

    def filt(x):
        x = correlate1d(x, g, axis=0, mode="constant", cval=0.0)
        return correlate1d(x, g, axis=1, mode="constant", cval=0.0)

    a = a.astype(np.float64)
    b = b.astype(np.float64)
    ma, mb = filt(a), filt(b)
    va = filt(a * a) - ma * ma
    vb = filt(b * b) - mb * mb
    cv = filt(a * b) - ma * mb
    c1 = (0.01 * L) ** 2
    c2 = (0.03 * L) ** 2
    s = (2 * ma * mb + c1) * (2 * cv + c2) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
    if not same:
        s = s[r:s.shape[0] - r, r:s.shape[1] - r]
    return float(s.mean())


def check_case(tap, name, w, h, fmt, main_frames, ref_frames, window=11, sigma=1.5,
               padding="valid"):
    d = ft.workdir("peer_float")
    f = ft.pix_fmt(fmt)
    main = ft.natural_clip(w, h, 0, f, d, name + "_main", frames=main_frames)
    ref = ft.natural_clip(w, h, 0, f, d, name + "_ref", frames=ref_frames)
    opts = "algo=float:window=%d:sigma=%s:padding=%s" % (window, repr(sigma), padding)
    try:
        res = ft.run_fssim(main, ref, opts, directory=d, tag=name)
    except RuntimeError as e:
        tap.ok(False, "%s: ffmpeg runs" % name, e)
        return None
    log = res["log"]
    tap.ok(log["input"]["pix_fmt"] == f.name and log["frame_count"] == len(main_frames),
           "%s: fssim scored %d %s frames (%s)" % (name, len(main_frames), f.name, opts),
           log["input"])
    got = ft.per_frame(log, "float")
    use_sk = padding == "valid" and skimage_window(sigma) == window
    peer = "skimage" if use_sk else "numpy " + padding
    worst = 0.0
    lines = []
    for k, (fm, fr) in enumerate(zip(main_frames, ref_frames)):
        for c, comp in enumerate(f.comps):
            if use_sk:
                want = skimage_ssim(fm[c], fr[c], f.maxval, window, sigma)
            else:
                want = numpy_ssim(fm[c], fr[c], f.maxval, window, sigma, padding == "same")
            v = got[k][comp]
            diff = abs(v - want)
            worst = max(worst, diff)
            lines.append("frame %d %s: fssim %.17g %s %.17g diff %.3g" % (k, comp, v, peer, want, diff))
    tap.ok(worst <= CONTRACT, "%s: float equals %s to <= 1e-5 on every plane and frame "
           "(worst %.2g)" % (name, peer, worst), "\n".join(lines))
    tap.ok(worst <= CPU_TOL, "%s: the CPU filter's double arithmetic matches %s to <= 1e-9"
           % (name, peer), "\n".join(lines))
    return got


def main():
    tap = ft.Tap()
    nat = ft.natural_frames
    deg = ft.degrade

    # natural content, default window, 8 and 10 bit, 4:2:0 (chroma 32x24)
    m = nat(64, 48, 3, "yuv420p", image="astronaut", seed=1)
    check_case(tap, "natural_420_8bit", 64, 48, "yuv420p",
               deg(m, "yuv420p", blur=1.0, noise=3.0, seed=2), m)
    m = nat(80, 60, 2, "yuv420p10", image="coffee", seed=3)
    check_case(tap, "natural_420_10bit", 80, 60, "yuv420p10",
               deg(m, "yuv420p10", blur=0.7, noise=2.0, block=8, seed=4), m)
    # odd size, 4:4:4
    m = nat(37, 23, 2, "yuv444p", image="chelsea", seed=5)
    check_case(tap, "natural_444_8bit_37x23", 37, 23, "yuv444p",
               deg(m, "yuv444p", blur=0.5, noise=4.0, shift=1, seed=6), m)
    # 12 and 16 bit, gray and planar RGB
    m = nat(40, 30, 1, "gray16", image="camera", seed=7)
    check_case(tap, "natural_gray16", 40, 30, "gray16", deg(m, "gray16", blur=1.0, noise=2.0, seed=8), m)
    m = nat(33, 25, 1, "gbrp12", image="rocket", seed=9)
    check_case(tap, "natural_gbrp12", 33, 25, "gbrp12", deg(m, "gbrp12", blur=0.8, noise=3.0, seed=10), m)

    # other windows and sigmas: with skimage where its fixed truncate gives
    # the window, else with the numpy implementation (checked against
    # skimage first)
    m = nat(48, 36, 2, "yuv444p", image="immunohistochemistry", seed=11)
    dm = deg(m, "yuv444p", blur=0.9, noise=3.0, seed=12)
    for window, sigma in ((7, 0.8), (15, 2.0), (3, 0.3), (9, 1.2), (5, 0.6), (13, 1.7)):
        check_case(tap, "window%d_sigma%s" % (window, sigma), 48, 36, "yuv444p", dm, m,
                   window=window, sigma=sigma)
    worst = 0.0
    for window, sigma in ((11, 1.5), (7, 0.8), (3, 0.3)):
        for c in range(3):
            worst = max(worst, abs(numpy_ssim(dm[0][c], m[0][c], 255, window, sigma, False) -
                                   skimage_ssim(dm[0][c], m[0][c], 255, window, sigma)))
    tap.ok(worst < 1e-12, "the numpy valid implementation equals skimage (worst %.2g)" % worst)
    for window, sigma in ((7, 1.0), (9, 3.0), (15, 1.5), (3, 1.0)):
        check_case(tap, "window%d_sigma%s" % (window, sigma), 48, 36, "yuv444p", dm, m,
                   window=window, sigma=sigma)

    # flat areas: a flat frame pair and a frame half flat
    check_case(tap, "flat_420_8bit", 32, 24, "yuv420p",
               ft.flat_frames(32, 24, 1, "yuv420p", [40, 120, 135]),
               ft.flat_frames(32, 24, 1, "yuv420p", [60, 128, 128]))
    import numpy as np
    m = nat(48, 32, 1, "yuv444p10", image="moon", seed=13)
    for p in m[0]:
        p[:, :24] = 512
    dm = deg(m, "yuv444p10", blur=0, noise=0.5, seed=14)
    check_case(tap, "half_flat_444_10bit", 48, 32, "yuv444p10", dm, m)

    # padding=same against the numpy zero-padded implementation
    m = nat(37, 23, 2, "yuv420p", image="astronaut", seed=15)
    dm = deg(m, "yuv420p", blur=1.0, noise=3.0, seed=16)
    check_case(tap, "same_420_8bit_37x23", 37, 23, "yuv420p", dm, m, padding="same")
    check_case(tap, "same_420_8bit_w7s1", 37, 23, "yuv420p", dm, m, window=7, sigma=1.0,
               padding="same")
    # planes smaller than the window: 5x5 luma, 3x3 chroma
    m = nat(5, 5, 1, "yuv420p10", image="coffee", seed=17)
    check_case(tap, "same_5x5_10bit", 5, 5, "yuv420p10",
               deg(m, "yuv420p10", blur=0, noise=20.0, seed=18), m, padding="same")

    # identical frames give exactly 1
    m = nat(40, 30, 2, "yuv420p", image="cat", seed=19)
    for padding in ("valid", "same"):
        got = check_case(tap, "identical_" + padding, 40, 30, "yuv420p", m, m, padding=padding)
        if got is not None:
            tap.ok(all(fr[c] == 1.0 for fr in got for c in "YUV"),
                   "identical frames (%s): float gives exactly 1.0" % padding, repr(got))
    tap.done()


if __name__ == "__main__":
    main()
