#!/usr/bin/env python3
"""The segment options on Vulkan frames (lavapipe here, a GPU on the
device): fssim_vulkan on a pair and on a ladder with a resampled rung, and
fssim3d on Vulkan frames, each title scored in segments and merged by
fssim-farm, against a whole run of the same filter: the same JSON and the
same bytes.

lavapipe has no video decoding, so the inputs are decoded in software and
uploaded (the runner's --upload); a GPU with Vulkan Video decodes them
itself (--hwaccel vulkan), which bench/bench_farm.py and the device tests
exercise.

Environment: FSSIM_VULKAN_DEVICE (default 0), as test_vulkan.py.  Without
a Vulkan device or without fssim_vulkan every check reports SKIP.
"""
import os

import fssimtest as ft
import farmtest as fm

DEVICE = int(os.environ.get("FSSIM_VULKAN_DEVICE", "0") or 0)


def vulkan_works(d):
    p = ft.ffmpeg("-init_hw_device", "vulkan=vk:%d" % DEVICE, "-filter_hw_device", "vk",
                  "-f", "lavfi", "-i", "testsrc2=s=64x48:d=0.04", "-vf",
                  "format=yuv420p,hwupload", "-f", "null", "-", check=False)
    return p.returncode == 0, p.stderr[-300:]


def main():
    tap = ft.Tap()
    if not fm.has_seg_options():
        tap.skip("vulkan segments", "the built fssim has no segment options")
        tap.done()
    if not ft.has_filter("fssim_vulkan"):
        tap.skip("vulkan segments", "ffmpeg was built without fssim_vulkan")
        tap.done()
    if not ft.encoder_has("libx264"):
        tap.skip("vulkan segments", "ENCODER_FFMPEG lacks libx264")
        tap.done()
    d = ft.workdir("farm_vulkan")
    ok, why = vulkan_works(d)
    if not ok:
        tap.skip("vulkan segments", "no Vulkan device %d: %s" % (DEVICE, why))
        tap.done()
    ref, dists = fm.make_title(d, w=96, h=64, frames=36, gop=8)
    kw = dict(hwaccel="vulkan", gpu=DEVICE, upload="yuv420p")
    fm.check_title(tap, d, "vk_pair", "fssim_vulkan", ref, dists[:1], "algo=float+int+psnr",
                   frames=12, **kw)
    fm.check_title(tap, d, "vk_ladder", "fssim_vulkan", ref, dists, "algo=float+block",
                   frames=12, **kw)
    fm.check_title(tap, d, "vk_fssim3d", "fssim3d", ref, dists[:1], "depth=3", frames=12, **kw)
    tap.done()


if __name__ == "__main__":
    main()
