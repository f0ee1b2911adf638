#!/usr/bin/env python3
"""Peer check of fssim's `block` algorithm (doc/algorithms.md#block) against FFmpeg's own
`ssim` filter from the same build, on the same frames.

FFmpeg's ssim prints its values with %f (stats_file), so for every plane of
every frame:
  - |fssim - ssim| <= 1e-6, and
  - fssim's full-precision value, printed with %f, is ssim's string,
and the same for the `All` value.  Formats: yuv420p, yuv422p, yuv444p,
yuv440p/411p/410p, gray, gbrp, 9/10/12/16-bit, odd sizes; and frames whose
samples lie above their format's depth (random 16-bit words), which both
read as stored.
"""
import os

import fssimtest as ft

TOL = 1e-6


def run_ssim(main, ref, directory, tag):
    stats = os.path.join(directory, tag + ".ssim.stats")
    ft.ffmpeg(*main.input_args(), *ref.input_args(),
              "-lavfi", "[0:v][1:v]ssim=stats_file=%s" % stats, "-f", "null", "-")
    with open(stats) as f:
        return ft.parse_stats_file(f.read())


def check_case(tap, name, w, h, fmt, main_frames, ref_frames):
    d = ft.workdir("peer_block")
    f = ft.pix_fmt(fmt)
    main = ft.natural_clip(w, h, 0, f, d, name + "_main", frames=main_frames)
    ref = ft.natural_clip(w, h, 0, f, d, name + "_ref", frames=ref_frames)
    try:
        res = ft.run_fssim(main, ref, "algo=block", directory=d, tag=name)
        ssim = run_ssim(main, ref, d, name)
    except RuntimeError as e:
        tap.ok(False, "%s: ffmpeg runs" % name, e)
        return
    log = res["log"]
    got = ft.per_frame(log, "block")
    tap.ok(log["input"]["pix_fmt"] == f.name and len(got) == len(main_frames) == len(ssim),
           "%s: fssim and ssim scored the same %d %s %dx%d frames" % (
               name, len(main_frames), f.name, w, h),
           "fssim input %r, %d frames; ssim %d lines" % (log["input"], len(got), len(ssim)))
    worst = 0.0
    bad_tol, bad_str, lines = [], [], []
    for k, (fr, sl) in enumerate(zip(got, ssim)):
        for comp in list(f.comps) + ["All"]:
            v, s = fr[comp], sl.get(comp)
            if s is None:
                bad_tol.append("frame %d: ssim printed no %s" % (k, comp))
                continue
            diff = abs(v - float(s))
            worst = max(worst, diff)
            line = "frame %d %s: fssim %.17g (%%f %s) ssim %s diff %.3g" % (k, comp, v, "%f" % v, s, diff)
            lines.append(line)
            if not diff <= TOL:
                bad_tol.append(line)
            if "%f" % v != s:
                bad_str.append(line)
    tap.ok(not bad_tol, "%s: block equals FFmpeg ssim to <= 1e-6 on every plane and All (worst %.2g)"
           % (name, worst), "\n".join(bad_tol or lines))
    tap.ok(not bad_str, "%s: block printed with %%f is ssim's stats_file string, every plane and All"
           % name, "\n".join(bad_str))
    tap.ok(all(-1.0 <= fr[c] <= 1.0 for fr in got for c in f.comps) and
           any(fr[c] < 0.9999 for fr in got for c in f.comps),
           "%s: the distorted frames score within [-1, 1] and below 1" % name)


def main():
    tap = ft.Tap()
    nat = ft.natural_frames
    deg = ft.degrade
    cases = [
        # name, w, h, fmt, image, distortion
        ("yuv420p_64x48", 64, 48, "yuv420p", "astronaut", dict(blur=1.0, noise=3.0)),
        ("yuv420p_odd_37x23", 37, 23, "yuv420p", "coffee", dict(blur=0.7, noise=4.0, block=4)),
        ("yuv422p_odd_45x30", 45, 30, "yuv422p", "chelsea", dict(blur=0.8, noise=2.0)),
        ("yuv444p_40x28", 40, 28, "yuv444p", "rocket", dict(blur=0, noise=5.0, shift=1)),
        ("yuv440p_32x40", 32, 40, "yuv440p", "cat", dict(blur=1.0, noise=2.0)),
        ("yuv411p_64x24", 64, 24, "yuv411p", "astronaut", dict(blur=1.0, noise=2.0)),
        ("yuv410p_65x49", 65, 49, "yuv410p", "coffee", dict(blur=1.0, noise=2.0)),
        ("yuvj420p_48x32", 48, 32, "yuvj420p", "immunohistochemistry", dict(blur=1.2, noise=2.0)),
        ("gray_odd_33x19", 33, 19, "gray", "camera", dict(blur=1.0, noise=3.0)),
        ("gbrp_odd_35x27", 35, 27, "gbrp", "chelsea", dict(blur=0.9, noise=3.0)),
        ("yuv420p9_48x36", 48, 36, "yuv420p9", "astronaut", dict(blur=0.9, noise=3.0)),
        ("yuv420p10_64x48", 64, 48, "yuv420p10", "coffee", dict(blur=0.8, noise=2.0, block=8)),
        ("yuv422p10_odd_41x29", 41, 29, "yuv422p10", "rocket", dict(blur=1.0, noise=2.0)),
        ("yuv444p12_36x24", 36, 24, "yuv444p12", "moon", dict(blur=0.6, noise=3.0)),
        ("gbrp10_32x32", 32, 32, "gbrp10", "astronaut", dict(blur=1.0, noise=2.0)),
        ("gray16_odd_43x21", 43, 21, "gray16", "camera", dict(blur=1.0, noise=2.0)),
        ("yuv420p16_48x40", 48, 40, "yuv420p16", "cat", dict(blur=0.7, noise=3.0)),
        ("gray10_160x96", 160, 96, "gray10", "hubble_deep_field", dict(blur=1.0, noise=1.0)),
        ("yuv420p_320x180", 320, 180, "yuv420p", "rocket", dict(blur=0.6, noise=2.0, block=8)),
        ("yuv444p_odd_321x181", 321, 181, "yuv444p", "coffee", dict(blur=1.5, noise=1.0)),
    ]
    for i, (name, w, h, fmt, image, dist) in enumerate(cases):
        m = nat(w, h, 3, fmt, image=image, seed=2 * i)
        check_case(tap, name, w, h, fmt, deg(m, fmt, seed=2 * i + 1, **dist), m)

    # samples above the depth (random 16-bit words), read as stored by both
    for fmt, w, h in (("gray10", 40, 32), ("yuv420p10", 48, 36), ("yuv422p12", 41, 29)):
        check_case(tap, "%s_above_%dx%d" % (fmt, w, h), w, h, fmt,
                   ft.above_depth_frames(w, h, 2, fmt, seed=w),
                   ft.above_depth_frames(w, h, 2, fmt, seed=h))

    # flat and identical frames
    check_case(tap, "flat_yuv420p_16x16", 16, 16, "yuv420p",
               ft.flat_frames(16, 16, 1, "yuv420p", [40, 120, 135]),
               ft.flat_frames(16, 16, 1, "yuv420p", [60, 128, 128]))
    m = nat(32, 24, 2, "yuv420p10", image="coffee", seed=99)
    d = ft.workdir("peer_block")
    clip = ft.natural_clip(32, 24, 0, "yuv420p10", d, "identical", frames=m)
    res = ft.run_fssim(clip, clip, "algo=block", directory=d, tag="identical")
    tap.ok(all(fr[c] == 1.0 for fr in ft.per_frame(res["log"], "block") for c in "YUV"),
           "identical frames: block gives exactly 1.0 on every plane")
    tap.done()


if __name__ == "__main__":
    main()
