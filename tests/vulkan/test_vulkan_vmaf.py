#!/usr/bin/env python3
"""fssim_vulkan's algo=vmaf_ssim and vmaf_msssim (fssim_vmaf.comp.glsl,
libvmaf's float_ssim and float_ms_ssim) against fssim (the CPU reference)
on a Vulkan device.

Every case scores the same stored frames with fssim on software frames and
with fssim_vulkan on frames made by hwupload, and compares every plane and
All of every frame to 1e-6 (libvmaf's contract, doc/algorithms.md#accuracy;
the shader repeats the reference's float arithmetic, so 0 is what it gives
on lavapipe): alone and with the fused algorithms (the fp64 shader in the
same command buffer) and msssim, 8 to 16 bits, 4:2:0 with the luma
decimated by 2, 4:4:4, semi-planar (one multi-plane image), gray, the
smallest five-scale plane (176), flat frames, a negative of the reference
(negative structure terms).  Also: two runs are bitwise
identical, ladders (renditions of the reference's size, and of other sizes
resampled on the device, whose planes the shader reads from the resampled
buffer) equal fssim's, the too-small plane error.  Where the Khronos
validation layer is installed every run has it and any message of it fails
a check (vkcheck.py).

Environment: FSSIM_VULKAN_DEVICE as for test_vulkan.py.  Without a Vulkan
device every check reports SKIP with the reason.
"""

import fssimtest as ft
import vkcheck
import vktest

TOL = {"vmaf_ssim": 1e-6, "vmaf_msssim": 1e-6, "msssim": 1e-5, "float": 1e-5, "int": 1e-12,
       "block": 1e-6}

tap = ft.Tap()
val = vkcheck.Validation(ft)   # every ffmpeg run from here on
cmp = vktest.Comparison(tap, "vulkan-vmaf", TOL, watch=lambda a: a.startswith("vmaf"))
worst = cmp.worst
clips, score, compare = cmp.clips, cmp.score, cmp.compare


def check_accuracy():
    V = "algo=vmaf_ssim+vmaf_msssim"
    compare("yuv420p-392x388", "yuv420p", 392, 388, V)
    compare("yuv444p10-176x181", "yuv444p10le", 176, 181, V)
    compare("p010-362x356-all", "p010le", 362, 356, V + "+float+int+block+msssim")
    compare("nv12-98x62-ssim", "nv12", 98, 62, "algo=vmaf_ssim")
    compare("gray16-177x190", "gray16le", 177, 190, V)
    compare("yuv444p12-200x180-float", "yuv444p12le", 200, 180, V + "+float")
    compare("flat-yuv444p", "yuv444p", 176, 176, V, kind="flat")
    # negative structure terms (the float division's sign)
    compare("inverted-yuv420p", "yuv420p", 130, 98, "algo=vmaf_ssim", kind="inverted")


def check_determinism():
    cmp.determinism("p010le", 400, 390, "algo=vmaf_ssim+vmaf_msssim")


def check_ladder():
    """Ladders: renditions of the reference's size, and renditions of other
    sizes resampled on the device (the planes read from the resampled
    buffer): each rendition's values equal fssim's ladder, psnr bit for
    bit."""
    cmp.ladder((362, 354),
               (("of 2 renditions", [(362, 354), (362, 354)], "algo=vmaf_ssim+vmaf_msssim"),
                ("resampled (240x180 up, 400x380 down, 362x354), with psnr",
                 [(240, 180), (400, 380), (362, 354)], "algo=vmaf_ssim+vmaf_msssim+psnr")),
               lambda opts: ["vmaf_ssim", "vmaf_msssim"])


def check_errors():
    m = clips("yuv420p", 320, 240, 1)[0]
    cmp.expect_error("a 4:2:0 chroma plane too small for vmaf_msssim", m.input_args() * 2,
                     "[0:v]hwupload[m];[1:v]hwupload[r];"
                     "[m][r]fssim_vulkan=algo=vmaf_msssim:log_path=@LOG@",
                     [r"Plane U is 160x120", r"algo=vmaf_msssim", r"at least 176x176"])


def main():
    why = vktest.vulkan_device()
    if why:
        for what in ("vmaf_ssim and vmaf_msssim against fssim", "determinism", "ladder",
                     "errors", "under the Khronos validation layer"):
            tap.skip("fssim_vulkan " + what, why)
        tap.done()
    check_accuracy()
    check_determinism()
    check_ladder()
    check_errors()
    tap.diag("largest vmaf difference to fssim: %.3g (%s)" % tuple(worst))
    val.report(tap)
    tap.done()


if __name__ == "__main__":
    main()
