#!/usr/bin/env python3
"""Peer check of fssim's `int` algorithm (doc/algorithms.md#int) against a second,
deliberately naive implementation written here from doc/algorithms.md alone:

- a direct 9x9 window per pixel with weights k[i]*k[j] (no separable
  passes), taps outside the plane skipped, exact sums in Python ints;
- the per-pixel term in IEEE double in exactly the association of doc/algorithms.md#int
  (CPython never fuses multiply-adds);
- plane score = sum of terms / sum of weights.

The contract: fssim equals it to <= 1e-12 per plane per frame, on natural
and synthetic content, 8/10/16-bit, 4:2:0 and 4:4:4, odd sizes, flat and
identical frames, and 10-bit samples above their depth (read as stored).  Sizes are small: this is pure Python.
"""
import fssimtest as ft

K = [2, 9, 28, 55, 68, 55, 28, 9, 2]
TOL = 1e-12


def naive_int_ssim(a, b, depth):
    """doc/algorithms.md#int on two planes given as lists of rows of ints."""
    h, w = len(a), len(a[0])
    L = float((1 << depth) - 1)
    tsum = 0.0
    wsum = 0
    for y in range(h):
        for x in range(w):
            mux = muy = x2 = xy = y2 = wt = 0
            for j in range(-4, 5):
                yy = y + j
                if yy < 0 or yy >= h:
                    continue
                ra, rb, kj = a[yy], b[yy], K[j + 4]
                for i in range(-4, 5):
                    xx = x + i
                    if xx < 0 or xx >= w:
                        continue
                    k = kj * K[i + 4]
                    s, d = ra[xx], rb[xx]
                    mux += k * s
                    muy += k * d
                    x2 += k * s * s
                    xy += k * s * d
                    y2 += k * d * d
                    wt += k
            W = float(wt)
            c1 = L * L * (0.01 * 0.01) * W * W
            c2 = L * L * (0.03 * 0.03) * W * W
            mx2 = float(mux) * float(mux)
            mxy = float(mux) * float(muy)
            my2 = float(muy) * float(muy)
            t = W * (2 * mxy + c1) * (c2 + 2 * (float(xy) * W - mxy)) / \
                ((mx2 + my2 + c1) * (float(x2) * W - mx2 + float(y2) * W - my2 + c2))
            tsum += t
            wsum += wt
    return tsum / float(wsum)


def synthetic_frames(w, h, n, fmt, seed):
    """Synthetic content: gradients, a hard edge and uniform noise."""
    import numpy as np
    f = ft.pix_fmt(fmt)
    rng = np.random.default_rng(seed)
    frames = []
    for t in range(n):
        planes = []
        for c in range(len(f.comps)):
            pw, ph = f.plane_size(c, w, h)
            yy, xx = np.mgrid[0:ph, 0:pw]
            v = (xx * 37 + yy * 11 + t * 5) % 97 / 96.0
            v = np.where(xx > pw // 2, 1.0 - v, v) * 0.8 + 0.2 * rng.random((ph, pw))
            planes.append(np.clip(np.rint(v * f.maxval), 0, f.maxval).astype(
                np.uint8 if f.depth <= 8 else np.uint16))
        frames.append(planes)
    return frames


def check_case(tap, name, w, h, fmt, main_frames, ref_frames):
    d = ft.workdir("peer_int")
    f = ft.pix_fmt(fmt)
    main = ft.natural_clip(w, h, 0, f, d, name + "_main", frames=main_frames)
    ref = ft.natural_clip(w, h, 0, f, d, name + "_ref", frames=ref_frames)
    try:
        res = ft.run_fssim(main, ref, "algo=int", directory=d, tag=name)
    except RuntimeError as e:
        tap.ok(False, "%s: ffmpeg runs" % name, e)
        return
    log = res["log"]
    tap.ok(log["input"]["pix_fmt"] == f.name and log["input"]["width"] == w and
           log["input"]["height"] == h and log["frame_count"] == len(main_frames),
           "%s: fssim scored %d %s %dx%d frames without conversion" % (
               name, len(main_frames), f.name, w, h), log["input"])
    got = ft.per_frame(log, "int")
    worst = 0.0
    bad = []
    for k, (fm, fr) in enumerate(zip(main_frames, ref_frames)):
        for c, comp in enumerate(f.comps):
            want = naive_int_ssim(fm[c].tolist(), fr[c].tolist(), f.depth)
            v = got[k][comp]
            diff = abs(v - want)
            worst = max(worst, diff)
            if not diff <= TOL:
                bad.append("frame %d %s: fssim %.17g naive %.17g diff %.3g" % (k, comp, v, want, diff))
    tap.ok(not bad, "%s: int equals the naive doc/algorithms.md#int to <= 1e-12 on every plane of every "
           "frame (worst %.2g)" % (name, worst), "\n".join(bad))
    return got


def main():
    tap = ft.Tap()
    nat = ft.natural_frames
    deg = ft.degrade

    # natural content, 4:2:0 8-bit, odd size
    m = nat(37, 23, 3, "yuv420p", image="astronaut", seed=1)
    check_case(tap, "natural_420_8bit_37x23", 37, 23, "yuv420p",
               deg(m, "yuv420p", blur=0.8, noise=3.0, seed=2), m)

    # natural content, 4:2:0 8-bit, zooming
    m = nat(64, 48, 3, "yuv420p", image="astronaut", seed=18, zoom=0.05)
    check_case(tap, "natural_420_8bit_64x48", 64, 48, "yuv420p",
               deg(m, "yuv420p", blur=0.6, noise=2.0, block=4, seed=19), m)

    # natural content, 4:2:0 10-bit, with blocking
    m = nat(64, 48, 2, "yuv420p10", image="coffee", seed=3)
    check_case(tap, "natural_420_10bit_64x48", 64, 48, "yuv420p10",
               deg(m, "yuv420p10", blur=0.5, noise=2.0, block=8, seed=4), m)

    # natural content, 4:4:4 8-bit, odd size, shifted
    m = nat(21, 13, 2, "yuv444p", image="chelsea", seed=5)
    check_case(tap, "natural_444_8bit_21x13", 21, 13, "yuv444p",
               deg(m, "yuv444p", blur=0, noise=4.0, shift=1, seed=6), m)

    # natural content, 4:4:4 10-bit
    m = nat(19, 14, 1, "yuv444p10", image="rocket", seed=7)
    check_case(tap, "natural_444_10bit_19x14", 19, 14, "yuv444p10",
               deg(m, "yuv444p10", blur=1.2, noise=1.0, seed=8), m)

    # synthetic content, tiny frames (smaller than the 9x9 window)
    check_case(tap, "synthetic_444_8bit_8x5", 8, 5, "yuv444p",
               synthetic_frames(8, 5, 2, "yuv444p", 9), synthetic_frames(8, 5, 2, "yuv444p", 10))
    check_case(tap, "synthetic_420_10bit_9x7", 9, 7, "yuv420p10",
               synthetic_frames(9, 7, 2, "yuv420p10", 11), synthetic_frames(9, 7, 2, "yuv420p10", 12))
    check_case(tap, "synthetic_gray_8bit_30x17", 30, 17, "gray",
               synthetic_frames(30, 17, 1, "gray", 13), synthetic_frames(30, 17, 1, "gray", 14))
    # 16-bit: products beyond 2^53 in the double formula
    m = nat(15, 11, 1, "gray16", image="camera", seed=15)
    check_case(tap, "natural_gray16_15x11", 15, 11, "gray16",
               deg(m, "gray16", blur=1.0, noise=2.0, seed=16), m)

    # samples above the depth (random 16-bit words in a 10-bit format), read as stored
    check_case(tap, "above_depth_gray10_13x9", 13, 9, "gray10",
               ft.above_depth_frames(13, 9, 2, "gray10", seed=20),
               ft.above_depth_frames(13, 9, 2, "gray10", seed=21))

    # flat frames: var = cov = 0
    check_case(tap, "flat_420_8bit_16x12", 16, 12, "yuv420p",
               ft.flat_frames(16, 12, 1, "yuv420p", [40, 120, 135]),
               ft.flat_frames(16, 12, 1, "yuv420p", [60, 128, 128]))
    check_case(tap, "flat_444_10bit_11x9", 11, 9, "yuv444p10",
               ft.flat_frames(11, 9, 1, "yuv444p10", [64, 512, 1000]),
               ft.flat_frames(11, 9, 1, "yuv444p10", [940, 500, 1010]))

    # identical frames: exactly 1 on both sides
    m = nat(37, 23, 2, "yuv420p10", image="immunohistochemistry", seed=17)
    got = check_case(tap, "identical_420_10bit_37x23", 37, 23, "yuv420p10", m, m)
    if got is not None:
        tap.ok(all(fr[c] == 1.0 for fr in got for c in "YUV"),
               "identical frames: fssim int gives exactly 1.0 on every plane",
               repr(got))
    tap.done()


if __name__ == "__main__":
    main()
