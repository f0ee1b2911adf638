#!/usr/bin/env python3
"""Peer check of the resampler (doc/algorithms.md#resampling,
filters/core/ref_resample.c, driven through tests/unit/resample_cli).

1. Exactness.  A second implementation, tests/lib/resample_np.py, written
   from the definition in doc/algorithms.md: per axis, the taps and weights of every output in
   Python floats (the same IEEE double operations the definition spells
   out, math.sin for the sinc), then a sparse integer matrix with the taps
   that fall outside the plane folded onto the edge sample; the plane is
   out = clip(floor((My @ (X @ Mx^T) + 2^(n-1)) / 2^n), 0, L) in int64,
   n = 28 - (D_out - D_in) bringing the input's bit depth to the output's.
   The C reference must give the same samples, every one, for the three
   scalers over ladder ratios (at reduced size), 4:2:0 chroma sizes, odd
   sizes, downscales, 1-pixel planes and identities, on 8/10/16-bit
   natural content, degraded content and full-range noise; and across bit
   depths (8 to 16 bits, up and down, same size and scaled, samples as
   stored above the input's depth).

2. Agreement with FFmpeg's scale filter (bicubic, the built ffmpeg) on
   natural luma, upscaling to a reference rendered at the target size:
   the mean signed difference (ours - FFmpeg's) must be below 0.1 LSB in
   magnitude, and the float SSIM (scikit-image, Gaussian sigma 1.5,
   population covariance, data_range L) of our upscale against the
   reference must be within 1e-3 of FFmpeg's upscale's.  The flags are
   `bicubic+accurate_rnd`: without accurate_rnd, swscale's x86 vertical
   filter for 8-bit output (yuv2yuvX) multiplies with pmulhw, which
   truncates every product, and its output sits ~0.05 LSB low; the plain
   `bicubic` flags are checked too and reported.  full_chroma_int only
   concerns chroma into packed RGB output and changes nothing here.

3. The bit-depth rule against FFmpeg's own conversion (format=..., which
   swscale does with planarCopyWrapper at equal sizes): up, FFmpeg shifts
   limited-range luma and all chroma left (s * 2^d), as the rule does, and
   replicates the top bits into the bottom ones for full-range luma (gray,
   yuvj); down, FFmpeg adds an 8x8 ordered dither before the shift, unless
   sws_dither=none, where it rounds half up exactly as the rule.  Measured
   and checked here: equal samples where FFmpeg shifts or rounds; its
   dither within 1 LSB of the rule, its bit replication within 2^d - 1; and
   against the source scaled exactly (s * L_out / L_in, in float), the
   rule's samples are at least as close in SSIM as FFmpeg's.
"""
import os

import fssimtest as ft
from resample_np import ONE, SCALERS, output_weights, resample_numpy

# ---------------------------------------------------------------------------
# The C reference through resample_cli
# ---------------------------------------------------------------------------

def resample_c(plane, scaler, out_w, out_h, depth, directory, in_depth=None):
    return ft.resample_plane(plane, scaler, out_w, out_h, depth, directory, in_depth=in_depth)


# ---------------------------------------------------------------------------
# 1. exactness
# ---------------------------------------------------------------------------

def check_identity_formula(tap):
    """The general formula, unchanged sizes: one weight of 16384 at i = x."""
    good = True
    for scaler in SCALERS:
        for n in (1, 2, 5, 17, 64, 360):
            for x in range(n):
                taps = [(i, q) for i, q in output_weights(scaler, n, n, x) if q]
                good &= taps == [(x, ONE)]
    tap.ok(good, "numpy: in == out gives exactly one tap of 16384 at i = x, every scaler")


def planes_for(w, h, depth, seed):
    """(label, plane) pairs of w x h content at depth bits: natural luma,
    natural 4:2:0 chroma at this size, degraded luma, full-range noise."""
    import numpy as np
    fmt = {8: "yuv444p", 10: "yuv444p10", 16: "yuv444p16"}[depth]
    images = ("astronaut", "coffee", "chelsea", "rocket")
    nat = ft.natural_frames(w, h, 1, fmt, image=images[seed % 4], seed=seed)
    deg = ft.degrade(nat, fmt, blur=1.0, noise=4.0, seed=seed + 1, block=4)
    rng = np.random.default_rng(seed)
    return [("natural", nat[0][0]), ("chroma", nat[0][1]), ("degraded", deg[0][0]),
            ("noise", rng.integers(0, 1 << depth, (h, w)))]


def check_exact(tap):
    import numpy as np
    d = ft.workdir("peer_resample")
    # (in_w, in_h, out_w, out_h, what)
    pairs = [
        (128, 72, 384, 216, "640x360->1920x1080 at 1/5"),
        (256, 144, 384, 216, "1280x720->1920x1080 at 1/5"),
        (192, 108, 384, 216, "960x540->1920x1080 at 1/5"),
        (64, 36, 192, 108, "4:2:0 chroma of 640x360->1920x1080 at 1/5"),
        (128, 72, 192, 108, "4:2:0 chroma of 1280x720->1920x1080 at 1/5"),
        (96, 54, 192, 108, "4:2:0 chroma of 960x540->1920x1080 at 1/5"),
        (171, 96, 384, 216, "854x480->1920x1080 at 1/5 (odd width)"),
        (17, 9, 33, 21, "odd up"),
        (33, 21, 17, 9, "odd down"),
        (9, 5, 17, 11, "4:2:0 chroma of 17x9 -> 33x21"),
        (17, 11, 9, 5, "4:2:0 chroma of 33x21 -> 17x9"),
        (384, 216, 256, 144, "rendition larger than the reference (1.5x down)"),
        (384, 216, 128, 72, "rendition 3x larger"),
        (300, 170, 301, 169, "near-identity"),
        (48, 16, 8, 3, "6x / 5.3x down (ties in the weights)"),
        (128, 3, 1, 2, "128x down (bilinear: every 16384 w an exact half)"),
        (37, 23, 37, 23, "identity"),
        (37, 23, 37, 40, "identity across, up down"),
        (1, 1, 5, 3, "1x1 up"),
        (1, 9, 4, 1, "1-pixel wide plane"),
        (7, 1, 1, 1, "1-pixel tall plane to 1x1"),
        (1, 20, 3, 9, "1-pixel wide, down vertically"),
    ]
    seed = 0
    for depth in (8, 10, 16):
        for w_in, h_in, w_out, h_out, what in pairs:
            seed += 1
            bad = []
            n = 0
            for label, plane in planes_for(w_in, h_in, depth, seed):
                for scaler in SCALERS:
                    got = resample_c(plane, scaler, w_out, h_out, depth, d)
                    want = resample_numpy(plane, scaler, w_out, h_out, depth)
                    n += got.size
                    if not np.array_equal(got, want):
                        k = int(np.argmax(got != want))
                        y, x = divmod(k, w_out)
                        bad.append("%s %s: %d samples differ, first (%d, %d): C %d numpy %d" % (
                            scaler, label, int((got != want).sum()), x, y, got[y, x], want[y, x]))
            tap.ok(not bad, "%d-bit %dx%d -> %dx%d (%s): C equals numpy on every sample, "
                   "3 scalers x natural/chroma/degraded/noise (%d samples)"
                   % (depth, w_in, h_in, w_out, h_out, what, n), "\n".join(bad))


def check_depths(tap):
    """Across bit depths: the C reference equals the definition on every
    sample, same size (identity axes) and scaled, up and down."""
    import numpy as np
    d = ft.workdir("peer_resample")
    depth_pairs = [(8, 10), (10, 8), (8, 16), (16, 8), (12, 10), (10, 12), (9, 14), (14, 9),
                   (10, 16), (16, 12)]
    sizes = [(37, 23, 37, 23, "same size"), (32, 18, 64, 36, "2x up"),
             (48, 27, 40, 22, "down, odd"), (16, 9, 32, 18, "4:2:0 chroma to 4:4:4"),
             (1, 7, 3, 5, "1-pixel wide")]
    rng = np.random.default_rng(7)
    for din, dout in depth_pairs:
        bad, n = [], 0
        for w_in, h_in, w_out, h_out, what in sizes:
            nat = ft.natural_frames(w_in, h_in, 1, {8: "gray", 9: "gray9", 10: "gray10",
                                                    12: "gray12", 14: "gray14",
                                                    16: "gray16"}[din],
                                    image="coffee", seed=din + dout)[0][0]
            planes = [("natural", nat), ("noise", rng.integers(0, 1 << din, (h_in, w_in)))]
            if din < 16:
                # as stored: a raw file's 16-bit words above the depth
                planes.append(("above its depth", rng.integers(0, 65536 if din > 8 else 256,
                                                               (h_in, w_in))))
            for label, plane in planes:
                for scaler in SCALERS:
                    got = resample_c(plane, scaler, w_out, h_out, dout, d, in_depth=din)
                    want = resample_numpy(plane, scaler, w_out, h_out, dout, in_depth=din)
                    n += got.size
                    if not np.array_equal(got, want):
                        bad.append("%s %s %s: %d samples differ" % (
                            what, label, scaler, int((got != want).sum())))
        tap.ok(not bad, "%d -> %d bits: C equals numpy on every sample, %d samples (same "
               "size, up, down, chroma, 1-pixel; natural, noise%s; 3 scalers)" % (
                   din, dout, n, ", as stored above the depth" if din < 16 else ""),
               "\n".join(bad))
        # same size: exactly s * 2^d up, s / 2^-d rounded half up down
        plane = rng.integers(0, 1 << din, (9, 13))
        got = resample_c(plane, "bicubic", 13, 9, dout, d, in_depth=din)
        want = plane << (dout - din) if dout > din else \
            np.minimum((plane + (1 << (din - dout - 1))) >> (din - dout), (1 << dout) - 1)
        tap.ok(np.array_equal(got, want), "%d -> %d bits, same size: %s" % (
            din, dout, "s * 2^%d exactly" % (dout - din) if dout > din else
            "(s + 2^%d) >> %d, clamped to L" % (din - dout - 1, din - dout)))


# ---------------------------------------------------------------------------
# 2. FFmpeg's scale filter
# ---------------------------------------------------------------------------

def ffmpeg_scale(plane_frames, fmt, w_in, h_in, w_out, h_out, flags, directory):
    """Luma of FFmpeg's scale=W:H:flags=FLAGS of one frame."""
    src = os.path.join(directory, "ff_in.raw")
    dst = os.path.join(directory, "ff_out.raw")
    ft.write_raw(src, plane_frames, fmt)
    ft.ffmpeg("-v", "error", "-f", "rawvideo", "-pix_fmt", fmt.name, "-video_size",
              "%dx%d" % (w_in, h_in), "-i", src,
              "-vf", "scale=%d:%d:flags=%s" % (w_out, h_out, flags),
              "-f", "rawvideo", "-pix_fmt", fmt.name, dst)
    return ft.read_raw(dst, w_out, h_out, fmt)[0][0]


def float_ssim(a, b, L):
    from skimage.metrics import structural_similarity
    return float(structural_similarity(a.astype(float), b.astype(float), gaussian_weights=True,
                                       sigma=1.5, use_sample_covariance=False, data_range=L))


def check_ffmpeg(tap):
    import numpy as np
    d = ft.workdir("peer_resample")
    cases = [
        # fmt, in size, out size, image
        ("gray", 640, 360, 1280, 720, "astronaut"),
        ("yuv420p", 480, 270, 1280, 720, "coffee"),
        ("gray10", 640, 360, 1280, 720, "chelsea"),
    ]
    for fmt_name, w_in, h_in, w_out, h_out, image in cases:
        fmt = ft.pix_fmt(fmt_name)
        L = fmt.maxval
        low = ft.natural_frames(w_in, h_in, 1, fmt, image=image, noise=0)
        ref = ft.natural_frames(w_out, h_out, 1, fmt, image=image, noise=0)[0][0]
        ours = resample_c(low[0][0], "bicubic", w_out, h_out, fmt.depth, d)
        s_ours = float_ssim(ref, ours, L)
        name = "%s luma %dx%d -> %dx%d" % (fmt.name, w_in, h_in, w_out, h_out)
        for flags in ("bicubic+accurate_rnd", "bicubic"):
            try:
                theirs = ffmpeg_scale(low, fmt, w_in, h_in, w_out, h_out, flags, d).astype(np.int64)
            except RuntimeError as e:
                tap.ok(False, "%s: ffmpeg scale (%s) runs" % (name, flags), e)
                continue
            diff = ours - theirs
            mean, mad = float(diff.mean()), float(np.abs(diff).mean())
            s_theirs = float_ssim(ref, theirs, L)
            inner = diff[8:-8, 8:-8]
            tap.diag("%s, flags=%s: ours - ffmpeg: mean %+.4f LSB, mean |d| %.4f LSB, "
                     "max |d| %d, %.2f%% of samples equal; away from the 8-sample border: "
                     "mean %+.4f, max |d| %d" % (
                         name, flags, mean, mad, int(np.abs(diff).max()),
                         100.0 * float((diff == 0).mean()), float(inner.mean()),
                         int(np.abs(inner).max())))
            tap.diag("%s, flags=%s: SSIM vs the %dx%d reference: ours %.6f, ffmpeg %.6f "
                     "(diff %+.2e)" % (name, flags, w_out, h_out, s_ours, s_theirs,
                                       s_ours - s_theirs))
            tap.ok(abs(mean) < 0.1, "%s, flags=%s: mean signed difference from FFmpeg's scale "
                   "%+.4f LSB, |.| < 0.1" % (name, flags, mean))
            tap.ok(abs(s_ours - s_theirs) <= 1e-3, "%s, flags=%s: SSIM against the reference "
                   "within 1e-3 of FFmpeg's (%.6f vs %.6f)" % (name, flags, s_ours, s_theirs))


# ---------------------------------------------------------------------------
# 3. the bit-depth rule against FFmpeg's conversion
# ---------------------------------------------------------------------------

def ffmpeg_convert(frames, fmt_in, fmt_out, w, h, directory, vf_extra=""):
    src = os.path.join(directory, "cv_in.raw")
    dst = os.path.join(directory, "cv_out.raw")
    ft.write_raw(src, frames, fmt_in)
    vf = "%sformat=%s" % (vf_extra, fmt_out.name)
    ft.ffmpeg("-v", "error", "-f", "rawvideo", "-pix_fmt", fmt_in.name, "-video_size",
              "%dx%d" % (w, h), "-i", src, "-vf", vf, "-f", "rawvideo", "-pix_fmt",
              fmt_out.name, dst)
    return ft.read_raw(dst, w, h, fmt_out)[0]


def check_ffmpeg_depth(tap):
    """Our rule (resample_cli at equal sizes) against FFmpeg's format
    conversion of the same natural frames: the difference in LSB, and the
    SSIM (scikit-image, as above) of each against the source brought to
    the same depth by the exact scale L_out / L_in, in float."""
    import numpy as np
    d = ft.workdir("peer_resample")
    w, h = 320, 180
    cases = [
        # from, to, extra filters, what FFmpeg does, its largest deviation from the rule
        ("yuv420p", "yuv420p10", "", "shift (limited range)", 0),
        ("yuv422p10", "yuv422p", "scale=sws_dither=none,", "rounds half up", 0),
        ("yuv420p10", "yuv420p", "", "ordered dither", 1),
        ("yuv444p12", "yuv444p10", "", "ordered dither", 1),
        ("gray", "gray10", "", "bit replication (full range)", 3),
        ("yuvj420p", "yuv420p10", "", "bit replication of the luma (full range)", 3),
    ]
    for name_in, name_out, extra, how, tol in cases:
        fi, fo = ft.pix_fmt(name_in), ft.pix_fmt(name_out)
        src = ft.natural_frames(w, h, 1, fi, image="astronaut", seed=3)
        try:
            theirs = ffmpeg_convert(src, fi, fo, w, h, d, extra)
        except RuntimeError as e:
            tap.ok(False, "%s -> %s: ffmpeg converts" % (fi.name, fo.name), e)
            continue
        worst, report = 0, []
        for c in range(len(fi.comps)):
            pw, ph = fi.plane_size(c, w, h)
            ours = resample_c(src[0][c], "bicubic", pw, ph, fo.depth, d, in_depth=fi.depth)
            diff = ours - theirs[c].astype(np.int64)
            worst = max(worst, int(np.abs(diff).max()))
            exact = src[0][c].astype(float) * fo.maxval / fi.maxval
            s_ours = float_ssim(exact, ours, fo.maxval)
            s_theirs = float_ssim(exact, theirs[c], fo.maxval)
            report.append("%s: ours - ffmpeg mean %+.4f, max |d| %d LSB, %.1f%% equal; SSIM "
                          "to the exact scaling ours %.7f ffmpeg %.7f" % (
                              fi.comps[c], float(diff.mean()), int(np.abs(diff).max()),
                              100.0 * float((diff == 0).mean()), s_ours, s_theirs))
            tap.ok(s_ours >= s_theirs - 1e-9, "%s -> %s %s (%s): the rule is at least as "
                   "close to the exact scaling as FFmpeg's conversion (SSIM %.7f, FFmpeg's "
                   "%.7f)" % (fi.name, fo.name, fi.comps[c], how, s_ours, s_theirs))
        for r in report:
            tap.diag("%s -> %s%s: %s" % (fi.name, fo.name, " (%s)" % extra.rstrip(",")
                                         if extra else "", r))
        tap.ok(worst <= tol, "%s -> %s: FFmpeg %s; the rule's samples %s (largest "
               "difference %d LSB)" % (fi.name, fo.name, how,
                                       "equal FFmpeg's" if not tol else
                                       "within %d LSB of FFmpeg's" % tol, worst))


def main():
    tap = ft.Tap()
    if not os.access(ft.RESAMPLE_CLI, os.X_OK):
        tap.bail("%s not built (make check builds it)" % ft.RESAMPLE_CLI)
    check_identity_formula(tap)
    check_exact(tap)
    check_depths(tap)
    check_ffmpeg(tap)
    check_ffmpeg_depth(tap)
    tap.done()


if __name__ == "__main__":
    main()
