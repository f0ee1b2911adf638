#!/usr/bin/env python3
"""fssim_vulkan's algo=msssim (fssim_msssim.comp.glsl) against fssim (the CPU
reference) on a Vulkan device.

Every case scores the same stored frames with fssim on software frames and
with fssim_vulkan on frames made by hwupload, and compares every plane and
All of every frame to 1e-5 (doc/algorithms.md#accuracy): msssim alone (no
64-bit shader types needed) and with the fused algorithms (the fp64
shader in the same command buffer), 8 to 16 bits, 4:2:0, 4:4:4,
semi-planar (one multi-plane image), gray and GBR, sizes just above the
smallest plane (161x165 4:4:4; 322x324 4:2:0, whose chroma is 161x162),
windows 7 and 15, flat frames.  Also: two runs are bitwise identical,
identical inputs score exactly 1, ladders (renditions of the
reference's size, and of other sizes resampled on the device) equal
fssim's, the too-small plane error.  Where the
Khronos validation layer is installed every run has it and any message of
it fails a check (vkcheck.py).

Environment: FSSIM_VULKAN_DEVICE as for test_vulkan.py.  Without a Vulkan
device every check reports SKIP with the reason.
"""

import fssimtest as ft
import vkcheck
import vktest

TOL = {"msssim": 1e-5, "float": 1e-5, "int": 1e-12, "block": 1e-6}

tap = ft.Tap()
val = vkcheck.Validation(ft)   # every ffmpeg run from here on
cmp = vktest.Comparison(tap, "vulkan-msssim", TOL, watch=lambda a: a == "msssim")
worst = cmp.worst
clips, score, compare = cmp.clips, cmp.score, cmp.compare


def check_accuracy():
    M = "algo=msssim"
    compare("yuv420p-322x324", "yuv420p", 322, 324, M)
    compare("yuv444p10-161x165", "yuv444p10le", 161, 165, M)
    compare("p010-338x322-all", "p010le", 338, 322, "algo=msssim+float+int+block")
    compare("nv12-200x194-w7", "nv12", 200, 194, M + ":window=7:sigma=1.2")
    compare("gray16-170x161", "gray16le", 170, 161, M)
    compare("gbrp12-176x170-float", "gbrp12le", 176, 170, "algo=msssim+float")
    compare("yuv444p-240x226-w15", "yuv444p", 240, 226, M + ":window=15:sigma=2.5")
    # (even width: hwupload of odd-width semi-planar frames trips the validation
    # layer in FFmpeg's own copy, see vkcheck.py)
    compare("nv24-162x161", "nv24", 162, 161, M)
    compare("flat-yuv444p", "yuv444p", 176, 176, M, kind="flat")
    compare("flat-p010", "p010le", 322, 322, M, kind="flat")


def check_determinism():
    cmp.determinism("p010le", 400, 330, "algo=msssim")


def check_identical():
    for fmt, w, h in (("yuv420p", 322, 324), ("p010le", 322, 324), ("yuv444p12le", 161, 165)):
        inputs = clips(fmt, w, h)[0].input_args()
        log, p = score(inputs, "[0:v]hwupload,split[m][r];[m][r]fssim_vulkan=algo=msssim:"
                       "log_path=@LOG@", "same_" + fmt)
        if not tap.ok(log is not None, "identical inputs (%s): runs" % fmt, p.stderr[-2000:]):
            continue
        vals = [(c, v) for fr in log["frames"] for c, v in fr["msssim"].items() if c != "dB"]
        tap.ok(vals and all(v == 1.0 for _, v in vals),
               "identical inputs (%s %dx%d): every plane and All exactly 1" % (fmt, w, h),
               [x for x in vals if x[1] != 1.0])


def check_ladder():
    """Ladders: renditions of the reference's size, and renditions of other
    sizes resampled on the device (msssim's scale 1 read from the resampled
    planes): each rendition's values equal fssim's ladder."""
    cmp.ladder((322, 324),
               (("of 2 renditions", [(322, 324), (322, 324)], "algo=msssim"),
                ("resampled (240x180 up, 400x360 down, 322x324)",
                 [(240, 180), (400, 360), (322, 324)], "algo=msssim"),
                ("resampled, with float+psnr, lanczos", [(200, 170), (322, 324)],
                 "algo=msssim+float+psnr:scaler=lanczos")),
               lambda opts: [a for a in ("msssim", "float") if "algo=" in opts and a in opts])


def check_errors():
    m = clips("yuv420p", 320, 240, 1)[0]
    cmp.expect_error("a 4:2:0 chroma plane too small for msssim", m.input_args() * 2,
                     "[0:v]hwupload[m];[1:v]hwupload[r];"
                     "[m][r]fssim_vulkan=algo=msssim:log_path=@LOG@",
                     [r"Plane U is 160x120", r"algo=msssim", r"at least 161"])


def main():
    why = vktest.vulkan_device()
    if why:
        for what in ("msssim against fssim", "determinism", "identical inputs", "ladder",
                     "errors", "under the Khronos validation layer"):
            tap.skip("fssim_vulkan " + what, why)
        tap.done()
    check_accuracy()
    check_determinism()
    check_identical()
    check_ladder()
    check_errors()
    tap.diag("largest msssim difference to fssim: %.3g (%s)" % tuple(worst))
    val.report(tap)
    tap.done()


if __name__ == "__main__":
    main()
