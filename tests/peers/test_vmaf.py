#!/usr/bin/env python3
"""Peer check of the CPU reference's vmaf_ssim and vmaf_msssim
(doc/algorithms.md#vmaf_ssim): libvmaf's float_ssim and float_ms_ssim.

The reference's values come from tests/unit/vmaf_cli (the C reference on
two raw planes).  Peers:

- tests/lib/vmaf_np.py: libvmaf's definition transcribed to numpy, float32
  where libvmaf computes in float, float64 where it sums or divides in
  double, in libvmaf's order (written from libvmaf's sources, not from
  fssim's C).  float_ssim, the decimation factor, and float_ms_ssim with
  the means of l, c and s at every scale: bit for bit (tolerance 0).
- libvmaf itself, where FSSIM_LIBVMAF names a libvmaf.so built from its
  source (tests/lib/libvmaf_ctypes.py; fssim does not build libvmaf, so
  this part reports SKIP without it): the same planes, bit for bit.

  Run here once with libvmaf 3.2.0 (Netflix/vmaf commit f85a8536, built
  with meson's release defaults, gcc 12, x86-64): every value equal to
  the bit (max |diff| 0) on all the planes below.

Planes: natural content and a distorted copy (blur, noise, 8x8 blocks) at
8, 10, 12 and 16 bits; sizes whose decimation factor is 1, 2 and 3, odd
widths and heights (the decimated size's w / f + (w & 1)), the smallest
plane of five scales (176x176); a flat pair (every window flat: libvmaf's
clamp of a covariance rounded below zero); identical planes.
"""
import json
import os
import subprocess

import numpy as np

import fssimtest as ft
import libvmaf_ctypes
import vmaf_np

CLI = os.path.join(os.environ.get("top_builddir", "."), "tests", "unit", "vmaf_cli")
WORK = ft.workdir("peer_vmaf")


def run_cli(main, ref, depth):
    pa, pb = os.path.join(WORK, "a.raw"), os.path.join(WORK, "b.raw")
    np.asarray(main).astype("<u2").tofile(pa)
    np.asarray(ref).astype("<u2").tofile(pb)
    h, w = np.asarray(ref).shape
    out = subprocess.run([CLI, str(w), str(h), str(depth), pa, pb], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)


def planes():
    """(name, main plane, reference plane, depth)."""
    out = []
    for w, h, fmt, img in ((641, 387, "gray", "astronaut"), (641, 387, "gray10le", "coffee"),
                           (201, 179, "gray", "coffee"), (176, 176, "gray12le", "astronaut"),
                           (300, 200, "gray16le", "coffee"), (777, 641, "gray10le", "astronaut")):
        f = ft.pix_fmt(fmt)
        ref = ft.natural_frames(w, h, 1, f, image=img, seed=5)
        dist = ft.degrade(ref, f, blur=1.0, noise=3.0, seed=4, block=8)
        out.append(("%s %dx%d" % (fmt, w, h), dist[0][0], ref[0][0], f.depth))
    ref = ft.natural_frames(400, 300, 1, "gray", image="coffee", seed=2)[0][0]
    out.append(("identical gray 400x300", ref, ref, 8))
    flat = ft.flat_frames(384, 200, 1, "gray", [90])[0][0]
    out.append(("flat 90 against 92 gray 384x200", flat + 2, flat, 8))
    return out


def main():
    tap = ft.Tap()
    lib = libvmaf_ctypes.library()
    cases = planes()
    for name, main_p, ref_p, depth in cases:
        h, w = ref_p.shape
        c = run_cli(main_p, ref_p, depth)
        tap.ok(c["scale"] == vmaf_np.auto_scale(w, h), "%s: decimation factor %d" % (
            name, c["scale"]), "C %s numpy %s" % (c["scale"], vmaf_np.auto_scale(w, h)))
        ssim = vmaf_np.float_ssim(ref_p, main_p, depth)
        tap.ok(c["ssim"] == ssim, "%s: vmaf_ssim %.9f equals the numpy transcription bit for "
               "bit" % (name, ssim), "C %.17g numpy %.17g" % (c["ssim"], ssim))
        scales = vmaf_np.float_ms_ssim_scales(ref_p, main_p, depth)
        means = [[c[t][j] for t in "lcs"] for j in range(5)]
        ms = vmaf_np.float_ms_ssim(ref_p, main_p, depth)
        tap.ok(means == [list(x) for x in scales] and c["msssim"] == ms,
               "%s: vmaf_msssim %.9f and its 15 means equal the numpy transcription bit for "
               "bit" % (name, ms), "C %r %.17g\nnumpy %r %.17g" % (means, c["msssim"], scales,
                                                                   ms))
        if lib is None:
            tap.skip("%s: against libvmaf" % name, "FSSIM_LIBVMAF does not name a libvmaf.so")
            continue
        got = libvmaf_ctypes.scores(lib, [(ref_p, main_p)], depth)
        tap.ok(got["float_ssim"][0] == c["ssim"] and got["float_ms_ssim"][0] == c["msssim"],
               "%s: float_ssim and float_ms_ssim of libvmaf %s equal the reference bit for bit"
               % (name, libvmaf_ctypes.version(lib)),
               "libvmaf %.17g %.17g\nC       %.17g %.17g" % (
                   got["float_ssim"][0], got["float_ms_ssim"][0], c["ssim"], c["msssim"]))
    tap.done()


if __name__ == "__main__":
    main()
