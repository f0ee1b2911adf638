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
import os
import re

import fssimtest as ft
import vkcheck

TOL = {"vmaf_ssim": 1e-6, "vmaf_msssim": 1e-6, "msssim": 1e-5, "float": 1e-5, "int": 1e-12,
       "block": 1e-6}
DEVICE = os.environ.get("FSSIM_VULKAN_DEVICE", "0")
HW = ["-init_hw_device", "vulkan=vk:%s" % DEVICE, "-filter_hw_device", "vk"]
CRASH = re.compile(r"Assertion|Segmentation|core dumped|AddressSanitizer|double free|"
                   r"stack smashing|Aborted", re.I)

tap = ft.Tap()
val = vkcheck.Validation(ft)   # every ffmpeg run from here on
WORK = ft.workdir("vulkan-vmaf")
worst = [0.0, ""]


def clips(fmt, w, h, n=2, kind="natural"):
    tag = "%s_%dx%d_%d_%s" % (fmt, w, h, n, kind)
    if kind == "flat":
        f = ft.pix_fmt(fmt)
        top = f.maxval
        a = ft.flat_frames(w, h, n, f, [top * 3 // 4, top // 2, top // 4, top])
        b = ft.flat_frames(w, h, n, f, [top * 2 // 3, top // 2 + 3, top // 5, top])
        return (ft.natural_clip(w, h, 0, f, WORK, tag + "_m", frames=a),
                ft.natural_clip(w, h, 0, f, WORK, tag + "_r", frames=b))
    ref = ft.natural_clip(w, h, n, fmt, WORK, tag + "_r", image="coffee", seed=5)
    if kind == "inverted":
        # the reference's negative: negative covariances, negative s
        top = ref.fmt.maxval
        neg = [[(top - p.astype("int64")).astype(p.dtype) for p in fr] for fr in ref.frames]
        return ft.natural_clip(w, h, 0, ref.fmt, WORK, tag + "_m", frames=neg), ref
    main = ft.natural_clip(w, h, n, fmt, WORK, tag + "_m", image="coffee", seed=5,
                           distort=dict(blur=1.0, noise=3.0, block=8))
    return main, ref


def score(inputs, graph, tag, hw=True):
    log = os.path.join(WORK, tag + ".json")
    if os.path.exists(log):
        os.unlink(log)
    p = ft.ffmpeg(*((HW if hw else []) + list(inputs) +
                    ["-lavfi", graph.replace("@LOG@", log), "-f", "null", "-"]), check=False)
    if p.returncode != 0 or not os.path.exists(log):
        return None, p
    return ft.load_log(log), p


def max_diff(cpu, gpu, algos):
    out = {}
    for a, b in zip(ft.log_values(cpu).items(), ft.log_values(gpu).items()):
        (ka, va), (kb, vb) = a, b
        for algo in algos:
            for c, v in va[algo].items():
                if c == "dB":
                    continue
                w = vb.get(algo, {}).get(c) if ka == kb else None
                d = abs(v - w) if v is not None and w is not None else float("inf")
                if d > out.get(algo, (-1.0,))[0]:
                    out[algo] = (d, (ka, c, v, w))
    return out


def compare(case, fmt, w, h, options, kind="natural", n=2):
    algos = options.split(":")[0][len("algo="):].split("+")
    main, ref = clips(fmt, w, h, n, kind)
    inputs = main.input_args() + ref.input_args()
    cpu, pc = score(inputs, "[0:v][1:v]fssim=%s:log_path=@LOG@" % options, case + "_cpu", False)
    gpu, pg = score(inputs, "[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim_vulkan=%s:"
                    "log_path=@LOG@" % options, case + "_vk")
    if not tap.ok(cpu is not None and gpu is not None and not CRASH.search(pg.stderr) and
                  gpu["frame_count"] == cpu["frame_count"] == n,
                  "%s: fssim and fssim_vulkan run (%s %dx%d, %s)" % (case, fmt, w, h, options),
                  (pc.stderr + pg.stderr)[-3000:]):
        return None
    d = max_diff(cpu, gpu, algos)
    for algo in algos:
        v, where = d.get(algo, (float("inf"), None))
        if algo.startswith("vmaf") and v > worst[0]:
            worst[:] = [v, case]
        tap.ok(v <= TOL[algo], "%s: %s within %g of fssim (max diff %.3g)" % (
            case, algo, TOL[algo], v), "worst at (frame, comp, cpu, gpu) %r" % (where,))
    return gpu


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
    inputs = sum((c.input_args() for c in clips("p010le", 400, 390)), [])
    g = ("[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim_vulkan=algo=vmaf_ssim+vmaf_msssim:"
         "log_path=@LOG@")
    a, pa = score(inputs, g, "det_a")
    b, pb = score(inputs, g, "det_b")
    if tap.ok(a is not None and b is not None, "determinism: two runs",
              (pa.stderr + pb.stderr)[-2000:]):
        tap.ok(a["frames"] == b["frames"], "determinism: two runs give bitwise identical "
               "values (17 significant digits)")


def check_ladder():
    """Ladders: renditions of the reference's size, and renditions of other
    sizes resampled on the device (the planes read from the resampled
    buffer): each rendition's values equal fssim's ladder."""
    f = ft.pix_fmt("yuv420p")
    ref = ft.natural_clip(362, 354, 2, f, WORK, "lad_r", image="coffee", seed=5)
    cases = (("of 2 renditions", [(362, 354), (362, 354)], "algo=vmaf_ssim+vmaf_msssim"),
             ("resampled (240x180 up, 400x380 down, 362x354), with psnr",
              [(240, 180), (400, 380), (362, 354)], "algo=vmaf_ssim+vmaf_msssim+psnr"))
    for name, sizes, opts in cases:
        rends = [ft.natural_clip(w, h, 2, f, WORK, "lad_%dx%d_%d" % (w, h, k), image="coffee",
                                 seed=5, distort=dict(blur=0.6 + 0.4 * k, noise=2.0 + k, seed=k))
                 for k, (w, h) in enumerate(sizes)]
        n = len(rends) + 1
        inputs = sum((c.input_args() for c in rends + [ref]), [])
        pads = "".join("[%d:v]" % i for i in range(n))
        cpu, pc = score(inputs, "%sfssim=inputs=%d:%s:log_path=@LOG@" % (pads, n, opts),
                        "ladder_cpu", False)
        up = ";".join("[%d:v]hwupload[u%d]" % (i, i) for i in range(n))
        gpu, pg = score(inputs, "%s;%sfssim_vulkan=inputs=%d:%s:log_path=@LOG@" % (
                            up, "".join("[u%d]" % i for i in range(n)), n, opts), "ladder_vk")
        if not tap.ok(cpu is not None and gpu is not None and
                      len(ft.log_values(gpu)) == len(ft.log_values(cpu)) == 2 * len(sizes),
                      "ladder %s: runs, every rendition scored" % name,
                      (pc.stderr + pg.stderr)[-2500:]):
            continue
        algos = ["vmaf_ssim", "vmaf_msssim"]
        diffs = max_diff(cpu, gpu, algos)
        bad = {a: d for a, d in diffs.items() if not d[0] <= TOL[a]}
        tap.ok(len(diffs) == len(algos) and not bad,
               "ladder %s: vmaf_ssim+vmaf_msssim within the contracts of fssim's ladder (%s)" % (
                   name, ", ".join("%s %.3g" % (a, d[0]) for a, d in diffs.items())), bad)


def check_errors():
    m = clips("yuv420p", 320, 240, 1)[0]
    _, p = score(m.input_args() * 2, "[0:v]hwupload[m];[1:v]hwupload[r];"
                 "[m][r]fssim_vulkan=algo=vmaf_msssim:log_path=@LOG@", "err")
    pats = [r"Plane U is 160x120", r"algo=vmaf_msssim", r"at least 176x176"]
    bad = [x for x in pats if not re.search(x, p.stderr)]
    tap.ok(p.returncode > 0 and not CRASH.search(p.stderr) and not bad,
           "error: a 4:2:0 chroma plane too small for vmaf_msssim (%s)" % ", ".join(pats),
           "missing %s in:\n%s" % (bad, p.stderr[-2000:]))


def vulkan_device():
    if not ft.has_filter("fssim_vulkan"):
        return "fssim_vulkan not built (FFmpeg without --enable-vulkan)"
    p = ft.ffmpeg(*HW, "-f", "lavfi", "-i", "color=s=64x64:d=0.04,format=yuv420p",
                  "-vf", "hwupload", "-f", "null", "-", check=False)
    return None if p.returncode == 0 else "no Vulkan device (-init_hw_device vulkan=vk:%s)" % DEVICE


def main():
    why = vulkan_device()
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
