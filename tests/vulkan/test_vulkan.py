#!/usr/bin/env python3
"""fssim_vulkan against fssim (the CPU reference) on a Vulkan device.

Every case scores the same stored frames twice, with fssim on software
frames and with fssim_vulkan on Vulkan frames made by hwupload (planar and
semi-planar formats: NV12/P010 become multi-plane images), and compares
every plane of every frame: int to 1e-12, float to 1e-5, block to 1e-6,
vmaf_ssim and vmaf_msssim to 1e-6 (libvmaf's contract; 0 expected: the
shader repeats libvmaf's float arithmetic) (doc/algorithms.md#accuracy).  Also: two GPU runs are bitwise identical, identical inputs score
exactly 1, frames held for readback all come out in order at EOF and under
timeline editing, and bad input fails with a clear message (doc/errors.md).
Ladders (inputs=N) against fssim's ladder, per rendition: renditions
smaller than the reference (upscaled by the GPU resampler), larger
(downscaled) and of its size, planar and semi-planar, 8 and 10 bits, and of
other formats than the reference.  Pairs of another size or format (bit
depth, chroma subsampling, layout), the main input resampled on the device.
Samples above the format's depth (raw gray10 and yuv420p10 words up to
65535), read as stored as fssim reads them.
Where the Khronos validation layer is installed, every run has it and any
message it prints fails a check (vkcheck.py; FFmpeg's own known ones are
left out by their exact text); without it, one SKIP line says so.

Content comes from the built ffmpeg's own sources (testsrc2: edges, text,
flat areas; geq for 16-bit detail and noise), so this runs with the Python
standard library alone, e.g. on a GPU machine.

Environment:
  FSSIM_VULKAN_DEVICE        what -init_hw_device vulkan=vk:<this> selects: an
                             index or a device-name substring (llvmpipe,
                             NVIDIA); default 0
  FSSIM_VULKAN_DEVICE_TESTS  1: also the sizes meant for a GPU (2160p)

Without a Vulkan device every check reports SKIP with the reason.
"""
import json
import os
import re
import subprocess
import sys

import fssimtest as ft
import vkcheck
import vktest

# psnr and mse: the same exact integer sums as the CPU, so the same doubles
TOL = {"int": 1e-12, "float": 1e-5, "block": 1e-6, "psnr": 1e-12, "mse": 1e-12,
       "vmaf_ssim": 1e-6, "vmaf_msssim": 1e-6}
ALGOS = ("float", "int", "block", "psnr", "vmaf_ssim", "vmaf_msssim")
DEVICE = os.environ.get("FSSIM_VULKAN_DEVICE", "0")
BIG = os.environ.get("FSSIM_VULKAN_DEVICE_TESTS", "") not in ("", "0")
HW = ["-init_hw_device", "vulkan=vk:%s" % DEVICE, "-filter_hw_device", "vk"]
CRASH = re.compile(r"Assertion|Segmentation|core dumped|AddressSanitizer|double free|"
                   r"stack smashing|Aborted", re.I)

tap = ft.Tap()
val = vkcheck.Validation(ft)   # every ffmpeg run from here on
WORK = ft.workdir("vulkan")
worst = {}     # algo -> (max diff, case)


# ---- clips -------------------------------------------------------------

def deep(fmt):
    return bool(re.search(r"(p9|p1[0246]|gray1[0246]|^p[024]1[026])", fmt))


def planar16(fmt):
    if fmt.startswith("gray"):
        return "gray16le", "lum"
    if fmt.startswith("gbr"):
        return ("gbrap16le" if "gbra" in fmt else "gbrp16le"), "rgb"
    return ("yuva444p16le" if "yuva" in fmt else "yuv444p16le"), "yuv"


def geq_noise(kind, amp, seed):
    """geq expressions adding fine 16-bit detail and noise to every plane."""
    def e(p, k):
        return ("clip(%s(X,Y)+%d*sin(X/5.3+%d)*cos(Y/3.7+T)+%d*(random(%d)-0.5),0,65535)"
                % (p, amp, k + seed, amp, k))
    if kind == "lum":
        return "geq=lum='%s'" % e("lum", 0)
    if kind == "rgb":
        return "geq=r='%s':g='%s':b='%s'" % (e("r", 0), e("g", 1), e("b", 2))
    return "geq=lum='%s':cb='%s':cr='%s'" % (e("lum", 0), e("cb", 1), e("cr", 2))


def make_clip(name, fmt, w, h, n, chain):
    return vktest.make_clip(WORK, name, fmt, w, h, n, chain)


def clips(fmt, w, h, n, kind="natural"):
    """(main, reference) ffmpeg input arguments of stored raw clips."""
    tag = "%s_%dx%d_%d_%s" % (fmt, w, h, n, kind)
    # sources round odd sizes to even ones: crop instead
    src = "testsrc2=s=%dx%d:r=25,crop=%d:%d:0:0:exact=1" % (w + (w & 1), h + (h & 1), w, h)
    if kind == "flat":
        main = "color=c=0x5a6e82:s=%dx%d:r=25,format=%s" % (w, h, fmt)
        ref = "color=c=0x5a6e84:s=%dx%d:r=25,format=%s" % (w, h, fmt)
    elif kind == "flat-same":
        main = ref = "color=c=0x3c3c3c:s=%dx%d:r=25,format=%s" % (w, h, fmt)
    elif kind != "natural":
        raise ValueError(kind)
    elif deep(fmt):
        p16, k = planar16(fmt)
        base = "%s,format=%s,%s" % (src, p16, geq_noise(k, 900, 1))
        main = "%s,format=%s" % (base, fmt)
        ref = "%s,avgblur=sizeX=1,%s,format=%s" % (base, geq_noise(k, 700, 5), fmt)
    else:
        main = "%s,format=%s" % (src, fmt)
        ref = "%s,avgblur=sizeX=1,noise=alls=14:allf=t,format=%s" % (src, fmt)
    return (make_clip(tag + "_m", fmt, w, h, n, main),
            make_clip(tag + "_r", fmt, w, h, n, ref))


# ---- running ------------------------------------------------------------

# seconds a run may take before it counts as a hang (FSSIM_VULKAN_TIMEOUT)
RUN_TIMEOUT = float(os.environ.get("FSSIM_VULKAN_TIMEOUT", "900"))


def score(inputs, graph, tag, hw=True, extra=(), timeout=RUN_TIMEOUT):
    """Run a graph whose scoring filter writes log_path=@LOG@; returns
    (parsed log or None, CompletedProcess)."""
    log = os.path.join(WORK, tag + ".json")
    if os.path.exists(log):
        os.unlink(log)
    args = (HW if hw else []) + list(inputs) + ["-lavfi", graph.replace("@LOG@", log)] + \
        list(extra) + ["-f", "null", "-"]
    try:
        p = ft.ffmpeg(*args, check=False, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        p = subprocess.CompletedProcess(args, -1, "", "timeout after %ss" % e.timeout)
    if p.returncode != 0 or not os.path.exists(log):
        return None, p
    try:
        return ft.load_log(log), p
    except ValueError:
        return None, p


def vk_graph(options):
    return "[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim_vulkan=%s:log_path=@LOG@" % options


def cpu_graph(options):
    return "[0:v][1:v]fssim=%s:log_path=@LOG@" % options


def diffs(a, b, algos):
    """Largest |a - b| per algorithm over frames and planes (All too)."""
    out = {}
    for fa, fb in zip(a["frames"], b["frames"]):
        for algo in algos:
            for k, v in fa[algo].items():
                if k == "dB":
                    continue
                w = fb[algo].get(k)
                # None: inf in JSON (psnr of identical planes), equal only to itself
                d = 0.0 if w is None and v is None else \
                    float("inf") if w is None or v is None else abs(v - w)
                out[algo] = max(out.get(algo, 0.0), d)
    return out


def algos_of(options):
    """The algorithms an option string asks for (psnr: its MSE too)."""
    algos = [a for a in ALGOS if re.search(r"\b%s\b" % a, options.split(":")[0])]
    return algos + (["mse"] if "psnr" in algos else [])


UPLOAD_PROBE_TIMEOUT = 30
upload_fails = {}


def upload_broken(inputs, key):
    """On a GPU (FSSIM_VULKAN_DEVICE_TESTS): why FFmpeg's own hwupload of
    these frames cannot be scored (no fssim filter in the graph: the frames
    do not come back from hwupload,hwdownload within UPLOAD_PROBE_TIMEOUT, or
    not byte for byte), or None.  The NVIDIA driver (580.159) hangs on
    odd-sized 4:2:0 uploads (doc/errors.md#known-limitations).  Lavapipe is never probed:
    there every case runs."""
    if not BIG:
        return None
    if key not in upload_fails:
        src = inputs[-1]
        back = os.path.join(WORK, "roundtrip.yuv")
        try:
            p = ft.ffmpeg(*(HW + list(inputs) + ["-vf", "hwupload,hwdownload,format=%s" % key[0],
                                                 "-f", "rawvideo", "-y", back]),
                          check=False, timeout=UPLOAD_PROBE_TIMEOUT)
            with open(src, "rb") as a, open(back, "rb") as b:
                same = p.returncode == 0 and a.read() == b.read()
            upload_fails[key] = None if same else \
                "FFmpeg's hwupload,hwdownload (no fssim filter) does not give these frames " \
                "back byte for byte on this device"
        except subprocess.TimeoutExpired:
            upload_fails[key] = "FFmpeg's hwupload,hwdownload of these frames alone (no fssim " \
                "filter) did not return within %d s on this device" % UPLOAD_PROBE_TIMEOUT
    return upload_fails[key]


def odd_subsampled(fmt, w, h):
    """Whether Vulkan leaves frames of this size undefined in this format:
    chroma-subsampled with an odd width, or an odd height in 4:2:0."""
    half_h = re.search(r"420|^nv12|^nv21|^p01", fmt)
    half_w = half_h or re.search(r"422|^nv16|^p21", fmt)
    return bool((half_w and w & 1) or (half_h and h & 1))


ODD_WARNING = "Vulkan defines chroma-subsampled images only with an even width"


def compare(case, fmt, w, h, n, options, kind="natural"):
    """fssim_vulkan == fssim within the tolerances of doc/algorithms.md#accuracy on the same frames."""
    algos = algos_of(options)
    inputs = sum(clips(fmt, w, h, n, kind), [])
    why = upload_broken(inputs[:len(inputs) // 2], (fmt, w, h, n, kind))
    if why:
        tap.skip("%s (%s %dx%d)" % (case, fmt, w, h), why)
        return None
    cpu, pc = score(inputs, cpu_graph(options), case + "_cpu", hw=False)
    gpu, pg = score(inputs, vk_graph(options), case + "_vk")
    if not tap.ok(cpu is not None, "%s: fssim runs" % case, pc.stderr[-2000:]):
        return None
    if not tap.ok(gpu is not None and not CRASH.search(pg.stderr),
                  "%s: fssim_vulkan runs (%s %dx%d, %s)" % (case, fmt, w, h, options),
                  pg.stderr[-3000:]):
        return None
    if odd_subsampled(fmt, w, h):
        tap.ok(ODD_WARNING in pg.stderr, "%s: warns that Vulkan leaves %s %dx%d undefined"
               % (case, fmt, w, h), pg.stderr[-2000:])
        if BIG:
            # NVIDIA (580.159): a 3x2 NV12 frame survives hwupload,hwdownload
            # byte for byte, yet the chroma the shader reads is not the uploaded
            tap.skip("%s: scores" % case, "odd-sized %s: what the driver keeps past the last "
                     "whole chroma sample is its own (the filter warns)" % fmt)
            return gpu
    tap.ok(gpu["frame_count"] == cpu["frame_count"] == n and
           gpu["input"]["pix_fmt"] == cpu["input"]["pix_fmt"] and
           gpu["input"]["components"] == cpu["input"]["components"],
           "%s: %d frames, %s, components %s" % (case, n, fmt, "".join(cpu["input"]["components"])),
           "gpu %s/%s cpu %s/%s" % (gpu["frame_count"], gpu["input"], cpu["frame_count"],
                                    cpu["input"]))
    d = diffs(gpu, cpu, algos)
    for algo in algos:
        v = d.get(algo, float("inf"))
        if v > worst.get(algo, (-1, ""))[0]:
            worst[algo] = (v, case)
        tap.ok(v <= TOL[algo], "%s: %s within %g of fssim (max diff %.3g)" % (case, algo, TOL[algo], v),
               "frame 0: gpu %s\ncpu %s" % (gpu["frames"][0].get(algo), cpu["frames"][0].get(algo)))
    return gpu


# ---- the checks ----------------------------------------------------------

def vulkan_device():
    """None if a Vulkan device works with hwupload, else why not."""
    if not ft.has_filter("fssim_vulkan"):
        return "fssim_vulkan not built (FFmpeg without --enable-vulkan)"
    p = ft.ffmpeg(*HW, "-f", "lavfi", "-i", "color=s=64x64:d=0.04,format=yuv420p",
                  "-vf", "hwupload", "-f", "null", "-", check=False)
    if p.returncode == 0:
        return None
    if re.search(r"init_hw_device|Device creation failed|No devices|Unable to find|"
                 r"Failed to create|VK_ERROR_INCOMPATIBLE_DRIVER|vkCreateInstance", p.stderr):
        return "no Vulkan device (-init_hw_device vulkan=vk:%s)" % DEVICE
    return "error"


def check_accuracy():
    A = "algo=float+int+block+psnr"
    compare("yuv420p", "yuv420p", 96, 64, 3, A)
    compare("yuv444p", "yuv444p", 80, 48, 2, A)
    compare("yuv422p", "yuv422p", 72, 40, 2, A)
    compare("yuv420p10", "yuv420p10le", 96, 64, 2, A)
    compare("yuv444p10", "yuv444p10le", 64, 48, 2, A)
    compare("yuv444p12", "yuv444p12le", 64, 40, 2, A)
    compare("yuv420p16", "yuv420p16le", 64, 48, 2, A)
    compare("nv12", "nv12", 96, 64, 2, A)
    compare("nv16", "nv16", 64, 48, 2, A)
    compare("nv24", "nv24", 64, 48, 2, A)
    compare("p010", "p010le", 96, 64, 2, A)
    compare("p012", "p012le", 64, 48, 2, A)
    compare("p016", "p016le", 64, 48, 2, A)
    compare("p210", "p210le", 64, 48, 2, A)
    compare("p410", "p410le", 64, 48, 2, A)
    compare("gray", "gray", 64, 48, 2, A)
    compare("gray16", "gray16le", 64, 48, 2, A)
    compare("gbrp", "gbrp", 64, 48, 2, A)
    compare("gbrp12", "gbrp12le", 64, 48, 2, A)
    compare("yuva420p", "yuva420p", 64, 48, 2, A)
    # libvmaf's float_ssim and float_ms_ssim: the luma decimated by 2, with
    # every fused algorithm in the same command buffer
    compare("vmaf", "yuv420p", 392, 388, 2, "algo=vmaf_ssim+vmaf_msssim")
    compare("vmaf-all-p010", "p010le", 362, 356, 2, A + "+vmaf_ssim+vmaf_msssim")
    # each algorithm alone (float alone takes the shader without 64-bit types)
    compare("float-only", "yuv420p", 96, 64, 2, "algo=float")
    compare("float-only-10", "p010le", 96, 64, 2, "algo=float")
    compare("int-only", "yuv420p10le", 64, 48, 2, "algo=int")
    compare("block-only", "p010le", 64, 48, 2, "algo=block")
    # block alone takes the smallest shared memory: its reduction staging
    # area alone sizes it (8-bit: sums in the tiles; deep: the window buffer)
    compare("block-only-8", "yuv420p", 96, 64, 2, "algo=block")
    compare("block-only-odd", "yuv444p", 35, 19, 2, "algo=block")
    compare("block-only-gray16", "gray16le", 100, 70, 2, "algo=block")
    compare("psnr-only", "p010le", 64, 48, 2, "algo=psnr")
    compare("psnr-only-16", "yuv444p16le", 100, 70, 2, "algo=psnr")
    # windows, sigma and padding
    compare("window3", "yuv420p", 64, 48, 2, A + ":window=3:sigma=0.5")
    compare("window15", "yuv444p10le", 64, 48, 2, A + ":window=15:sigma=3")
    compare("same", "yuv420p", 64, 48, 2, A + ":padding=same:window=7:sigma=1")
    compare("same-16", "gray16le", 64, 48, 2, "algo=float+int:padding=same:window=15")
    # odd sizes: partial tiles, odd chroma, windows of block at the edges
    compare("odd-35x19", "yuv420p", 35, 19, 3, A + ":window=7")
    compare("odd-35x19-p010", "p010le", 35, 19, 2, A + ":window=7")
    compare("odd-35x19-same", "yuv444p10le", 35, 19, 2, "algo=float+int:padding=same:window=15")
    compare("odd-1917x1079", "yuv420p", 1917, 1079, 1, A)
    # smaller than the window: int and padding=same score every pixel
    compare("tiny-7x5", "yuv420p", 7, 5, 2, "algo=int+float:padding=same")
    compare("tiny-5x3", "gray10le", 5, 3, 2, "algo=int+float:padding=same:window=15")
    compare("tiny-3x2-nv12", "nv12", 3, 2, 2, "algo=int")
    # flat frames: no variance anywhere (float cancellation, c1/c2 only)
    compare("flat", "yuv420p", 64, 48, 2, A, kind="flat")
    compare("flat-p010", "p010le", 64, 48, 2, A, kind="flat")
    compare("flat-equal", "yuv444p", 48, 32, 2, A, kind="flat-same")
    if BIG:
        compare("2160p", "yuv420p", 3840, 2160, 2, A)
        compare("2160p-p010", "p010le", 3840, 2160, 2, A)
        compare("2160p-same", "nv12", 3840, 2160, 1, A + ":padding=same")
        compare("2160p-vmaf", "p010le", 3840, 2160, 2, "algo=vmaf_ssim+vmaf_msssim")


LADDERS = [
    # name, pix_fmt, reference size, rendition sizes, options
    ("ladder yuv420p", "yuv420p", (64, 48), [(32, 24), (64, 48), (80, 60)],
     "algo=float+int+block+psnr"),
    ("ladder p010 lanczos", "p010le", (64, 40), [(40, 24), (48, 30)],
     "algo=float+int+block:scaler=lanczos"),
    ("ladder yuv444p odd bilinear", "yuv444p", (51, 35), [(33, 21), (51, 35)],
     "algo=float+int:scaler=bilinear:window=7"),
    # the resampler's tiles: several rows of them, with fewer rows each
    # where a downscale's bands need it (2:1: 32 rows, 3:1: 16 rows), and
    # the direct path of a downscale whose taps fit no band (26:1)
    ("ladder nv12 tall, 2:1 and 3:1 down", "nv12", (48, 150), [(96, 300), (144, 450)],
     "algo=float+int+psnr"),
    ("ladder yuv420p 26:1 down", "yuv420p", (32, 24), [(832, 624), (64, 48)],
     "algo=float+int+psnr"),
    # renditions of other formats than the reference (w, h, format): the p010
    # one scored in place, the others resampled through views of their formats
    ("ladder of mixed formats against p010", "p010le", (64, 48),
     [(32, 24, "yuv420p"), (64, 48, "nv12"), (80, 60, "yuv420p10le"), (64, 48, "p010le"),
      (64, 48, "yuv444p")], "algo=float+int+block+psnr"),
]


def check_ladder():
    """fssim_vulkan=inputs=N == fssim=inputs=N per rendition."""
    for name, fmt, (rw, rh), sizes, options in LADDERS:
        tag = re.sub(r"\W+", "_", name)
        algos = algos_of(options)
        rends = [clips(z[2] if len(z) > 2 else fmt, z[0], z[1], 3)[0] for z in sizes]
        inputs = sum(rends, []) + clips(fmt, rw, rh, 3)[1]
        n = len(sizes) + 1
        pads = "".join("[%d:v]" % i for i in range(n))
        up = ";".join("[%d:v]hwupload[u%d]" % (i, i) for i in range(n))
        cpu, pc = score(inputs, "%sfssim=inputs=%d:%s:log_path=@LOG@" % (pads, n, options),
                        tag + "_cpu", hw=False)
        gpu, pg = score(inputs, "%s;%sfssim_vulkan=inputs=%d:%s:log_path=@LOG@" % (
                            up, "".join("[u%d]" % i for i in range(n)), n, options), tag + "_vk")
        if not tap.ok(cpu is not None and gpu is not None and not CRASH.search(pg.stderr),
                      "%s: fssim and fssim_vulkan run (%s)" % (name, options),
                      (pc.stderr + pg.stderr)[-3000:]):
            continue
        a, b = ft.log_values(gpu), ft.log_values(cpu)
        tap.ok(sorted(a) == sorted(b) and len(a) == 3 * len(sizes) and
               gpu["renditions"] == cpu["renditions"],
               "%s: every rendition of every frame scored, resampled where fssim's are" % name,
               (sorted(a), gpu["renditions"]))
        for algo in algos:
            d = max((abs(v - b[key][algo][c]) for key, r in a.items() if key in b
                     for c, v in r[algo].items() if c != "dB"), default=float("inf"))
            tap.ok(d <= TOL[algo], "%s: %s within %g of fssim's ladder (max diff %.3g)" %
                   (name, algo, TOL[algo], d))


def close(v, w, tol):
    """Two logged values within tol; None (psnr inf) equals only None."""
    if v is None or w is None:
        return v is None and w is None
    return abs(v - w) <= tol


PAIRS = [
    # name, main format and size, reference format and size, options
    ("pair yuv420p 48x32 up to 96x64", "yuv420p", (48, 32), "yuv420p", (96, 64),
     "algo=float+int+block+psnr"),
    ("pair yuv420p against yuv422p10", "yuv420p", (64, 48), "yuv422p10le", (64, 48),
     "algo=float+int+block+psnr"),
    ("pair nv12 against yuv444p12, lanczos", "nv12", (64, 48), "yuv444p12le", (64, 48),
     "algo=float+int+block+psnr:scaler=lanczos"),
    ("pair p010 96x64 against yuv420p 64x48", "p010le", (96, 64), "yuv420p", (64, 48),
     "algo=float+int+block+psnr"),
    ("pair gray 33x25 against gray10 66x50, bilinear", "gray", (33, 25), "gray10le", (66, 50),
     "algo=float+int:scaler=bilinear"),
    ("pair gbrp against gbrp12", "gbrp", (48, 32), "gbrp12le", (48, 32),
     "algo=float+int+block+psnr"),
    ("pair nv12 against yuv420p (layout alone)", "nv12", (64, 48), "yuv420p", (64, 48),
     "algo=float+int+block+psnr"),
]


def compare_inputs(name, main, ref, options, algos, graph_vk=None, n=3):
    """fssim and fssim_vulkan (or graph_vk) on the same stored inputs, every
    value within the contracts."""
    tag = re.sub(r"\W+", "_", name)
    inputs = main + ref
    cpu, pc = score(inputs, cpu_graph(options), tag + "_cpu", hw=False)
    gpu, pg = score(inputs, graph_vk or vk_graph(options), tag + "_vk")
    if not tap.ok(cpu is not None and gpu is not None and not CRASH.search(pg.stderr),
                  "%s: fssim and fssim_vulkan run (%s)" % (name, options),
                  (pc.stderr + pg.stderr)[-3000:]):
        return None
    tap.ok(gpu["frame_count"] == cpu["frame_count"] == n and
           gpu["input"] == cpu["input"], "%s: %d frames, the same input section" % (name, n),
           "gpu %s, cpu %s" % (gpu["input"], cpu["input"]))
    d = diffs(gpu, cpu, algos)
    for algo in algos:
        v = d.get(algo, float("inf"))
        if v > worst.get(algo, (-1, ""))[0]:
            worst[algo] = (v, name)
        tap.ok(v <= TOL[algo], "%s: %s within %g of fssim (max diff %.3g)" %
               (name, algo, TOL[algo], v))
    return gpu


def check_pairs():
    """A main input of another size or format, resampled on the device by
    the resampler reading it through views of its own format."""
    for name, mfmt, (mw, mh), rfmt, (rw, rh), options in PAIRS:
        gpu = compare_inputs(name, clips(mfmt, mw, mh, 3)[0], clips(rfmt, rw, rh, 3)[1],
                             options, algos_of(options))
        if gpu is not None:
            tap.ok(gpu["input"].get("main", {}).get("resampled") is True,
                   "%s: the log records the main input resampled" % name, gpu["input"])
    if BIG:
        compare_inputs("pair 720p yuv420p against a 1080p yuv422p10 source", clips(
            "yuv420p", 1280, 720, 2)[0], clips("yuv422p10le", 1920, 1080, 2)[1],
            "algo=float+int+block+psnr", algos_of("algo=float+int+block+psnr"), n=2)


def above_depth_clip(fmt, w, h, n, name):
    """Raw frames of random 16-bit words: samples of a format that keeps them
    at the bottom of 16-bit words hold values up to 65535 whatever its depth,
    as a raw file may (doc/formats.md#sample-values)."""
    sub = 0 if fmt.startswith("gray") else 2 * ((w + 1) // 2) * ((h + 1) // 2)
    path = os.path.join(WORK, name + ".yuv")
    with open(path, "wb") as f:
        f.write(os.urandom(2 * (w * h + sub) * n))
    return ["-f", "rawvideo", "-pix_fmt", fmt, "-video_size", "%dx%d" % (w, h),
            "-framerate", "25", "-i", path]


def check_above_depth():
    """Samples above the format's depth: read as stored, with the wide
    (16-bit) sums, as fssim reads them (int to 1e-12, block and psnr as
    fssim's, which equal FFmpeg's ssim and psnr)."""
    for fmt, w, h, opts in (("gray10le", 64, 48, "algo=float+int+block+psnr"),
                            ("gray10le", 35, 19, "algo=float+int+block+psnr:padding=same"),
                            ("yuv420p10le", 70, 46, "algo=float+int+block+psnr")):
        name = "%s %dx%d holding values up to 65535" % (fmt, w, h)
        compare_inputs(name, above_depth_clip(fmt, w, h, 3, "above_m_%s_%d" % (fmt, w)),
                       above_depth_clip(fmt, w, h, 3, "above_r_%s_%d" % (fmt, w)),
                       opts, algos_of(opts))


def check_ladder_frames():
    """A ladder frame's renditions share one command buffer: renditions that
    are the reference's own frame (split after hwupload: one Vulkan image),
    and a rendition that ends before the others, score as fssim's do."""
    m, r = clips("yuv420p", 64, 48, 4)
    short = clips("yuv420p", 64, 48, 2)[0]
    inputs = m + r + short
    opts = "algo=float+int+block+psnr:eof_action=pass"
    cpu, pc = score(inputs, "[1:v]split=3[a][b][r];[a][0:v][b][2:v][r]fssim=inputs=5:%s:"
                    "log_path=@LOG@" % opts, "shared_cpu", hw=False)
    gpu, pg = score(inputs, "[1:v]hwupload,split=3[a][b][r];[0:v]hwupload[m];[2:v]hwupload[s];"
                    "[a][m][b][s][r]fssim_vulkan=inputs=5:%s:log_path=@LOG@" % opts, "shared_vk")
    if not tap.ok(cpu is not None and gpu is not None and not CRASH.search(pg.stderr),
                  "shared and ending renditions: fssim and fssim_vulkan run",
                  (pc.stderr + pg.stderr)[-3000:]):
        return
    a, b = ft.log_values(gpu), ft.log_values(cpu)
    ks = [sorted(x["k"] for x in f["renditions"]) for f in gpu["frames"]]
    tap.ok(ks == [[1, 2, 3, 4]] * 2 + [[1, 2, 3]] * 2 and sorted(a) == sorted(b),
           "shared and ending renditions: rendition 4 scored until it ends, the others on", ks)
    bad = [(key, algo, c) for key, rv in a.items() for algo in ("float", "int", "block", "psnr")
           for c, v in rv[algo].items() if c != "dB" and
           not close(v, b.get(key, {}).get(algo, {}).get(c, float("nan")), TOL[algo])]
    tap.ok(not bad, "shared and ending renditions: every score as fssim's", bad[:10])
    same = [rv["float"]["All"] for (n, k), rv in a.items() if k in (1, 3)]
    tap.ok(same and all(v == 1.0 for v in same),
           "shared and ending renditions: the reference's own frame scores float 1", same)


def check_determinism():
    inputs = sum(clips("p010le", 640, 360, 2), [])
    A = "algo=float+int+block"
    a, pa = score(inputs, vk_graph(A), "det_a")
    b, pb = score(inputs, vk_graph(A), "det_b")
    if not tap.ok(a is not None and b is not None, "determinism: two runs",
                  (pa.stderr + pb.stderr)[-2000:]):
        return
    tap.ok(a["frames"] == b["frames"], "determinism: two runs give bitwise identical values "
           "(17 significant digits)")


def check_hooks():
    """The measuring hooks (doc/performance.md#vulkan-video-frames-in-flight)
    change how frames are in flight, never the scores: a ladder scored with
    1 and 12 frames in flight and with a command buffer per rendition gives
    the default run's values, bit for bit."""
    main, ref = clips("yuv420p", 96, 64, 8)
    inputs = main + main + ref
    graph = ("[0:v]hwupload[a];[1:v]noise=alls=8:allf=t,hwupload[b];[2:v]hwupload[r];"
             "[a][b][r]fssim_vulkan=inputs=3:algo=float+int:log_path=@LOG@")
    base, p = score(inputs, graph, "hooks_default")
    if not tap.ok(base is not None, "hooks: the default run", p.stderr[-2000:]):
        return
    for hooks, says in (({"FSSIM_VULKAN_FRAMES_IN_FLIGHT": "1"}, r"1 frames in flight"),
                        ({"FSSIM_VULKAN_FRAMES_IN_FLIGHT": "12"}, r"12 frames in flight"),
                        ({"FSSIM_VULKAN_JOB_PER_RENDITION": "1"},
                         r"1 renditions per command buffer \(FSSIM_VULKAN_JOB_PER_RENDITION\)")):
        name = " ".join("%s=%s" % kv for kv in hooks.items())
        os.environ.update(hooks)
        try:
            got, p = score(inputs, graph, "hooks_" + re.sub(r"\W+", "_", name),
                           extra=("-v", "verbose"))
        finally:
            for k in hooks:
                os.environ.pop(k, None)
        tap.ok(got is not None and re.search(says, p.stderr) and
               got["frames"] == base["frames"],
               "hooks: %s says so and scores every frame as the default run" % name,
               p.stderr[-2000:])


def check_identical():
    """The same frame on both inputs (split after hwupload: one Vulkan image)."""
    for fmt in ("yuv420p", "p010le", "gray16le"):
        inputs = clips(fmt, 64, 48, 2)[0]
        log, p = score(inputs, "[0:v]hwupload,split[m][r];[m][r]fssim_vulkan="
                       "algo=float+int+block+psnr:log_path=@LOG@", "same_" + fmt)
        if not tap.ok(log is not None, "identical inputs (%s): runs" % fmt, p.stderr[-2000:]):
            continue
        vals = [(a, c, v) for fr in log["frames"] for a in ("float", "int", "block")
                for c, v in fr[a].items() if c != "dB"]
        tap.ok(all(v == 1.0 for a, c, v in vals if a != "int") and
               all(abs(v - 1.0) <= 1e-15 for a, c, v in vals if a == "int"),
               "identical inputs (%s): float and block exactly 1, int 1 to 1e-15" % fmt,
               [x for x in vals if x[2] != 1.0])
        tap.ok(all(fr["psnr"][c] is None and fr["mse"][c] == 0 for fr in log["frames"]
                   for c in fr["psnr"]),
               "identical inputs (%s): psnr inf (null), mse 0" % fmt,
               [fr["psnr"] for fr in log["frames"]])


def check_flow():
    """Frames held for readback: all out, in order, at EOF and under -frames,
    with timeline editing (unscored frames are held too)."""
    inputs = sum(clips("yuv420p", 64, 48, 12), [])
    meta = os.path.join(WORK, "flow.meta")
    log, p = score(inputs, "[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim_vulkan=algo=int:"
                   "enable='between(n,3,7)':log_path=@LOG@,showinfo,"
                   "metadata=print:file=%s" % meta, "flow")
    if tap.ok(log is not None, "timeline: runs", p.stderr[-2000:]):
        out = [int(x) for x in re.findall(r"\] n:\s*\d+ pts:\s*(\d+)", p.stderr)]
        scored = [int(fr["pts"]) for fr in ft.read_metadata(meta)
                  if "lavfi.fssim.int.Y" in fr["tags"]]
        tap.ok(out == list(range(12)) and log["frame_count"] == 5,
               "timeline: all 12 frames out, in order; 5 scored",
               "out %s, %d scored" % (out, log["frame_count"]))
        tap.ok(scored == [3, 4, 5, 6, 7], "timeline: frames 3..7 carry the scores", scored)

    cpu, _ = score(inputs, cpu_graph("algo=float+int"), "cut_cpu", hw=False)
    log, p = score(inputs, vk_graph("algo=float+int"), "cut", extra=["-frames:v", "4"])
    if tap.ok(log is not None and cpu is not None,
              "-frames:v 4: runs and leaves a valid log", p.stderr[-2000:]):
        n = log["frame_count"]
        good = n >= 4 and all(
            abs(log["frames"][i][a]["All"] - cpu["frames"][i][a]["All"]) <= TOL[a]
            for i in range(n) for a in ("float", "int"))
        tap.ok(good, "-frames:v 4: the %d frames scored (those held for readback too) "
               "are logged with their values" % n)


def check_errors():
    A = "algo=float+int+block"
    m = clips("yuv420p", 64, 48, 2)[0]
    other = clips("yuv420p", 64, 32, 2)[0]
    gbrp = clips("gbrp", 64, 48, 2)[0]

    def expect(desc, inputs, graph, patterns, hw=True, absent=()):
        _, p = score(inputs, graph, "err", hw=hw, timeout=120)
        bad = [x for x in patterns if not re.search(x, p.stderr)]
        bad += ["no " + x for x in absent if re.search(x, p.stderr)]
        tap.ok(p.returncode > 0 and not CRASH.search(p.stderr) and not bad,
               "error: %s (exit %d, message: %s)" % (desc, p.returncode, ", ".join(patterns)),
               "missing %s in:\n%s" % (bad, p.stderr[-2500:]))

    expect("sizes differ, scale=none", m + other, vk_graph(A + ":scale=none"),
           [r"sizes differ", r"64x48", r"64x32", r"scale=auto", r"scale_vulkan"])
    expect("formats of two colour families", m + gbrp, vk_graph(A),
           [r"formats differ", r"main is yuv420p \(YUV\)", r"reference is gbrp \(GBR\)",
            r"scale_vulkan=format=gbrp"])
    expect("software frames", m + m, "[0:v][1:v]fssim_vulkan=%s" % A,
           [r"fssim_vulkan scores Vulkan frames", r"hwupload", r"fssim filter"])
    expect("format fssim does not score", ["-f", "lavfi", "-i", "testsrc2=s=64x48:d=0.1",
                                           "-f", "lavfi", "-i", "testsrc2=s=64x48:d=0.1"],
           "[0:v]format=rgba,hwupload[m];[1:v]format=rgba,hwupload[r];[m][r]fssim_vulkan",
           [r"rgba is not supported", r"scale_vulkan=format="], absent=[r"scale_cuda"])
    expect("window larger than a plane", clips("yuv420p", 35, 19, 2)[0] * 2, vk_graph(A),
           [r"smaller than the 11x11 window", r"padding=same"])
    expect("log path not writable", m + m,
           "[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim_vulkan=log_path=/nonexistent/x.json",
           [r"/nonexistent/x.json", r"writable"])
    expect("window option out of range", m + m, vk_graph("window=17"), [r"window"])


def check_graph_errors():
    """Inputs on two devices, a device without 64-bit shader types: set up
    through the API (the CLI has one filter device)."""
    helper, why = vktest.build_graph_helper(WORK)
    if not helper:
        if why.startswith("building"):
            tap.ok(False, "build tests/vulkan/vk_graph_errors.c", why)
        else:
            tap.skip("different devices, missing features (API set-ups)", why)
        return

    def run(mode, opts):
        p = ft.run([helper, mode, DEVICE, opts], check=False, timeout=300)
        return p, p.stdout + p.stderr

    p, out = run("same", "algo=float+int+block")
    frames = re.findall(r"frame \d+: float.All (\S+)", out)
    tap.ok(p.returncode == 0 and len(frames) == 2 and "(none)" not in frames,
           "API graph, one device: configures; the 2 frames held at EOF come out scored", out)
    p, out = run("two-devices", "algo=float+int")
    tap.ok(p.returncode == 1 and "different Vulkan devices" in out and "-init_hw_device" in out
           and not CRASH.search(out),
           "error: inputs on two Vulkan devices fail at configuration, saying so", out)
    for algo in ("int", "block", "float+int"):
        p, out = run("no-fp64", "algo=" + algo)
        tap.ok(p.returncode == 1 and "lacks shaderFloat64 and shaderInt64" in out and
               "algo=float" in out and not CRASH.search(out),
               "error: algo=%s on a device without shaderFloat64/shaderInt64 names them and "
               "suggests algo=float" % algo, out)
    p, out = run("no-fp64", "algo=float")
    frames = re.findall(r"frame \d+: float.All (\S+)", out)
    tap.ok(p.returncode == 0 and len(frames) == 2 and "(none)" not in frames,
           "algo=float runs on a device without shaderFloat64/shaderInt64 (float-only shader)",
           out)


def main():
    why = vulkan_device()
    if why == "error":
        p = ft.ffmpeg(*HW, "-f", "lavfi", "-i", "color=s=64x64:d=0.04,format=yuv420p",
                      "-vf", "hwupload", "-f", "null", "-", check=False)
        tap.ok(False, "hwupload to the Vulkan device works", p.stderr[-3000:])
        tap.done()
    if why:
        for what in ("accuracy against fssim", "ladders", "pairs of other sizes and formats",
                     "samples above the depth", "determinism", "identical inputs",
                     "held frames and EOF", "errors", "different devices, missing features",
                     "under the Khronos validation layer"):
            tap.skip("fssim_vulkan " + what, why)
        tap.done()

    p = ft.ffmpeg(*HW, "-v", "verbose", "-f", "lavfi", "-i", "color=s=64x64:d=0.04",
                  "-vf", "format=yuv420p,hwupload,split[a][b];[a][b]fssim_vulkan",
                  "-f", "null", "-", check=False)
    dev = re.findall(r"Device '([^']*)': (.*)", p.stderr)
    ver = ft.run([ft.FFMPEG, "-hide_banner", "-version"], check=False).stdout.split("\n")[0]
    tap.diag("%s; Vulkan device: %s" % (ver, " / ".join(dev[0]) if dev else "?"))

    check_accuracy()
    check_ladder()
    check_pairs()
    check_above_depth()
    check_ladder_frames()
    check_determinism()
    check_hooks()
    check_identical()
    check_flow()
    check_errors()
    check_graph_errors()
    for algo, (v, case) in sorted(worst.items()):
        tap.diag("largest difference to fssim, %s: %.3g (%s)" % (algo, v, case))
    val.report(tap)
    tap.done()


if __name__ == "__main__":
    main()
