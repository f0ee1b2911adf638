"""fssim_cuda end to end without a GPU: the built ffmpeg's whole CUDA path
(hwupload on one filter device, the filter's host code: module choice,
stream and event order, launch geometry, the pipelined readback, the
flush) runs on the stand-in driver of tests/cuda/fake_libcuda.cpp, which
runs the filter's kernels through the CPU emulator.

Each case scores a few small frames of natural content (tests/lib
fssimtest.natural_clip; flat frames for the flat cases) twice: with
fssim_cuda on uploaded frames and with the CPU fssim on the same software
frames, and compares every frame's every component to the contracts: int
<= 1e-12, float <= 1e-5, block <= 1e-6.  The cases cover the six PTX
modules (8-bit samples, 9-12-bit MSB-aligned ones (P010, P012) and 16-bit
words, which LSB-aligned 9-16-bit samples take since they may exceed their
depth, each with the default window and with another), planar and
semi-planar formats, both paddings, odd widths (even
heights for 4:2:0: FFmpeg's hwcontext_cuda drops the last chroma row of an
odd-height 4:2:0 upload), the stand-in driver's lazy mode (events complete
only when waited for, so that frames wait in the pipeline and leave at
EOF), and identical frames, which score exactly 1.  The module the driver
was given is checked too: a host choosing the wrong one fails.

Ladders (inputs=N): the same comparison per rendition, with renditions
smaller than the reference (upscaled), larger (downscaled) and of its size,
in a planar and a semi-planar 10-bit format, the resampling done on the
GPU (the resampler's module, fssim_resample, loaded only then)
against the CPU reference's, in tiles of 32 and of 16 rows and by the
direct path.

vmaf_ssim and vmaf_msssim (the fssim_vmaf module, loaded after the
filter's): <= 1e-6 per plane per frame (libvmaf's contract; the kernels
repeat the reference's float arithmetic, so 0 is what they give), 8- and
10-bit, 4:2:0 with the luma decimated by 2, 4:4:4, P010, gray, with the
fused algorithms, the lazy driver, a ladder with a resampled rendition.

msssim (fssim_ms_scale, fssim_ms_reduce): <= 1e-5 per plane per frame, alone
and with the fused algorithms, two inputs and ladders (a resampled
rendition's pyramid built from the GPU's resampled frame), 8/10/16-bit,
4:2:0, 4:4:4 and semi-planar, sizes just above the smallest plane
(161x165 4:4:4, 322x324 4:2:0 whose chroma is 161x162), another window, the
lazy driver, identical frames (exactly 1).

The kernels' machine code (configure --with-cuda-sass), which the driver
is offered before the PTX: taken where the build made it for the GPU, and
the PTX loaded, with the same scores, where it did not.

A GPU with less shared memory per block than the options need fails with
a message that names both sizes.

The real GPU test is tests/cuda/test_cuda.py.  Without CUDA in the build
every check reports SKIP.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fakecuda as fc          # noqa: E402
import fssimtest as ft         # noqa: E402

# psnr and mse: the same exact sums on both, so the same doubles
TOLS = {"int": 1e-12, "float": 1e-5, "block": 1e-6, "psnr": 1e-12, "mse": 1e-12,
        "msssim": 1e-5, "vmaf_ssim": 1e-6, "vmaf_msssim": 1e-6}
SSIMS = ("int", "float", "block", "msssim")
NB = 3
NB_LAZY = 6          # more than fssim_cuda's pipeline depth (4)
t = ft.Tap()
SKIP = fc.setup()
WORK = ft.workdir("cuda-emu")

# name, pix_fmt, w, h, options, the module the filter must load, content
CASES = [
    ("8-bit yuv420p 66x38", "yuv420p", 66, 38, "", "fssim_8.ptx", "natural"),
    # samples at the bottom of 16-bit words may exceed the depth: the 16-bit class
    ("10-bit yuv420p10 70x46", "yuv420p10le", 70, 46, "", "fssim_16.ptx", "natural"),
    ("16-bit yuv444p16 40x36", "yuv444p16le", 40, 36, "", "fssim_16.ptx", "natural"),
    ("8-bit nv12 50x34 window=7", "nv12", 50, 34, "window=7", "fssim_8_any.ptx", "natural"),
    ("10-bit p010 70x40 window=9 padding=same", "p010le", 70, 40, "window=9:padding=same",
     "fssim_12_any.ptx", "natural"),
    ("16-bit yuv444p16 36x40 window=13 sigma=2", "yuv444p16le", 36, 40, "window=13:sigma=2",
     "fssim_16_any.ptx", "natural"),
    ("8-bit yuv420p 64x48 lazy driver (frames wait in the pipeline)", "yuv420p", 64, 48, "",
     "fssim_8.ptx", "lazy"),
    ("8-bit yuv420p 48x32 flat frames, two levels", "yuv420p", 48, 32, "", "fssim_8.ptx",
     "flat"),
    ("10-bit yuv420p10 48x32 flat frames, two levels", "yuv420p10le", 48, 32, "",
     "fssim_16.ptx", "flat"),
    ("12-bit p012 64x64 flat frames, two levels", "p012le", 64, 64, "", "fssim_12.ptx", "flat"),
    ("10-bit p010 58x34 identical frames", "p010le", 58, 34, "", "fssim_12.ptx", "identical"),
]

# msssim: name, pix_fmt, w, h, options, module, content, algorithms
MS_CASES = [
    ("msssim 8-bit yuv420p 322x324", "yuv420p", 322, 324, "", "fssim_8.ptx", "natural",
     "msssim"),
    ("msssim 10-bit yuv444p10 161x165", "yuv444p10le", 161, 165, "", "fssim_16.ptx", "natural",
     "msssim+float+int+block"),
    ("msssim 10-bit p010 196x194 window=7", "p010le", 196, 194, "window=7:sigma=1.2",
     "fssim_12_any.ptx", "natural", "msssim"),
    ("msssim 16-bit yuv444p16 170x161 lazy driver", "yuv444p16le", 170, 161, "",
     "fssim_16.ptx", "lazy", "msssim+int"),
    ("msssim 8-bit yuv444p 161x163 identical frames", "yuv444p", 161, 163, "", "fssim_8.ptx",
     "identical", "msssim"),
]
NB_MS = 2

# vmaf_ssim, vmaf_msssim (filters/cuda/fssim_vmaf.cuh, a module of its own, loaded
# after the filter's): name, pix_fmt, w, h, options, modules, content, algorithms
VMAF_CASES = [
    ("vmaf 8-bit yuv420p 392x388 (luma decimated by 2)", "yuv420p", 392, 388, "",
     ["fssim_8.ptx", "fssim_vmaf.ptx"], "natural", "vmaf_ssim+vmaf_msssim"),
    ("vmaf 10-bit yuv444p10 180x177 lazy driver, with float", "yuv444p10le", 180, 177, "",
     ["fssim_16.ptx", "fssim_vmaf.ptx"], "lazy", "vmaf_msssim+float"),
    ("vmaf 10-bit p010 98x62 (MSB-aligned, semi-planar)", "p010le", 98, 62, "",
     ["fssim_12.ptx", "fssim_vmaf.ptx"], "natural", "vmaf_ssim"),
    ("vmaf 8-bit yuv444p 97x61 flat frames", "yuv444p", 97, 61, "",
     ["fssim_8.ptx", "fssim_vmaf.ptx"], "flat", "vmaf_ssim"),
]


def clips(name, fmt, w, h, content, nb):
    tag = re.sub(r"\W+", "_", name)
    f = ft.pix_fmt(fmt)
    if content == "flat":
        top = f.maxval
        a = ft.flat_frames(w, h, nb, f, [top * 3 // 4, top // 2, top // 4])
        b = ft.flat_frames(w, h, nb, f, [top * 2 // 3, top // 2 + 3, top // 5])
        return (ft.natural_clip(w, h, 0, f, WORK, tag + "_m", frames=a),
                ft.natural_clip(w, h, 0, f, WORK, tag + "_r", frames=b))
    ref = ft.natural_clip(w, h, nb, f, WORK, tag + "_r", image="coffee", seed=3)
    if content == "identical":
        return ref, ref
    main = ft.natural_clip(w, h, nb, f, WORK, tag + "_m", image="coffee", seed=3,
                           distort=dict(blur=1.0, noise=3.0, block=8))
    return main, ref


def run_case(name, fmt, w, h, opts, module, content, algos="float+int+block+psnr", nb=NB):
    """module: the module the filter must load, or the list of them."""
    algo = "algo=" + algos + (":" + opts if opts else "")
    modules = module if isinstance(module, list) else [module]
    module = " and ".join(modules)
    desc = "%s (%s)" % (name, algo)
    asked = algos.split("+")
    tols = [a for a in TOLS if a in asked or (a == "mse" and "psnr" in asked)]
    contract = "every frame within %s of fssim" % ", ".join("%s %g" % (a, TOLS[a]) for a in tols)
    if SKIP:
        for what in ("scored on the emulated driver, %s loaded" % module, contract):
            t.skip("%s: %s" % (desc, what), SKIP)
        if content == "identical":
            t.skip("%s: every score exactly 1" % desc, SKIP)
        return
    nb = NB_LAZY if content == "lazy" else nb
    main, ref = clips(name, fmt, w, h, content, nb)
    tag = re.sub(r"\W+", "_", name)
    cpu_log, gpu_log = (os.path.join(WORK, tag + s + ".json") for s in ("_cpu", "_gpu"))
    fc.remove(cpu_log, gpu_log)
    inputs = main.input_args() + ref.input_args()
    pc = ft.ffmpeg(*inputs, "-lavfi", "[0:v][1:v]fssim=%s:log_path=%s" % (algo, cpu_log),
                   "-f", "null", "-", check=False)
    extra = {"FAKE_CUDA_VERBOSE": 1}
    if content == "lazy":
        extra["FSSIM_FAKE_CUDA_LAZY"] = 1
    pg = ft.ffmpeg(*fc.HW, *inputs, "-lavfi",
                   "[0:v]hwupload[a];[1:v]hwupload[b];[a][b]fssim_cuda=%s:log_path=%s"
                   % (algo, gpu_log), "-f", "null", "-", check=False, env=fc.env(**extra))
    cpu, why_c = fc.read_log(cpu_log)
    gpu, why_g = fc.read_log(gpu_log)
    got = gpu and gpu["input"]["pix_fmt"]
    if got and cpu and got != cpu["input"]["pix_fmt"]:
        # this FFmpeg's CUDA frames cannot hold the format: hwupload was
        # given a conversion of the frames (FFmpeg 8.1 turns P012 into
        # yuv444p12msb), so the two runs scored different planes
        why = "FFmpeg's CUDA frames have no %s here (hwupload got %s)" % (
            cpu["input"]["pix_fmt"], got)
        t.skip("%s: scored on the emulated driver, %s loaded" % (desc, module), why)
        t.skip("%s: %s" % (desc, contract), why)
        if content == "identical":
            t.skip("%s: every score exactly 1" % desc, why)
        return
    loaded = re.findall(r"\[fake cuda\] module (\S+)", pg.stderr)
    t.ok(pc.returncode == 0 and pg.returncode == 0 and cpu and gpu and
         len(gpu["frames"]) == nb and loaded == modules,
         "%s: scored on the emulated driver, %s loaded" % (desc, module),
         "rc cpu %d gpu %d, %s %s, modules loaded %r\n%s" % (
             pc.returncode, pg.returncode, why_c, why_g, loaded,
             "\n".join(l for l in pg.stderr.splitlines() if "launch" not in l)[-2500:]))
    worst, where = (fc.max_diff(cpu, gpu, {a: TOLS[a] for a in tols}) if cpu and gpu and
                    len(gpu["frames"]) == len(cpu["frames"]) else (float("inf"), "no runs"))
    t.ok(worst <= 1.0, "%s: %s" % (desc, contract),
         "worst |diff|/tolerance %.3g at (n, algo, comp, cpu, gpu) %r" % (worst, where))
    if content == "identical":
        t.ok(gpu is not None and all(v == 1.0 for f in gpu["frames"] for a in tols if a in SSIMS
                                     for c, v in f[a].items() if c != "dB"),
             "%s: every score exactly 1" % desc,
             gpu and [f[[a for a in tols if a in SSIMS][0]] for f in gpu["frames"]])


# name, pix_fmt, reference size, rendition sizes, options, the module the filter must load
LADDERS = [
    ("ladder 8-bit yuv420p", "yuv420p", (64, 48), [(32, 24), (64, 48), (80, 60)], "",
     "fssim_8_ladder.ptx"),
    ("ladder 10-bit p010 lanczos, lazy driver", "p010le", (64, 40), [(40, 24), (48, 30)],
     "scaler=lanczos", "fssim_12_ladder.ptx"),
    ("ladder 16-bit yuv444p16 bilinear", "yuv444p16le", (36, 34), [(27, 25), (41, 37)],
     "scaler=bilinear:window=7", "fssim_16_any_ladder.ptx"),
    # the resampler's tiles of fewer rows, where 32 rows' taps overflow a
    # block's band, and its direct path, where even one row's do
    ("ladder 8-bit yuv420p 3:1 lanczos", "yuv420p", (64, 48), [(200, 150), (64, 48)],
     "scaler=lanczos",
     "fssim_8_ladder.ptx", {16, 32}),
    ("ladder 8-bit yuv444p 31:1", "yuv444p", (32, 24), [(1000, 750), (32, 24)], "",
     "fssim_8_ladder.ptx", {0}),
    # renditions of other formats (w, h, format): three resampled, from 8- and
    # 16-bit containers, the p010 one scored in place
    ("ladder of mixed formats against p010", "p010le", (64, 48),
     [(32, 24, "yuv420p"), (64, 48, "nv12"), (80, 60, "yuv420p10le"), (64, 48, "p010le")],
     "", "fssim_12_ladder.ptx", None, ["fssim_resample_16to16", "fssim_resample_8to16"]),
]


# msssim ladders: the renditions' pyramids from the GPU's resampled frames
MS_LADDERS = [
    ("ladder msssim 8-bit yuv420p", "yuv420p", (322, 324), [(322, 324), (240, 180)],
     "algo=msssim", "fssim_8_ladder.ptx"),
    ("ladder msssim 10-bit yuv444p10 lanczos", "yuv444p10le", (161, 165),
     [(161, 165), (120, 100)], "algo=msssim+float:scaler=lanczos", "fssim_16_ladder.ptx"),
    ("ladder msssim 10-bit p010", "p010le", (322, 324), [(322, 324), (240, 180)],
     "algo=msssim+int", "fssim_12_ladder.ptx"),
    # a rendition's vmaf planes from the GPU's resampled frame
    ("ladder vmaf 8-bit yuv420p", "yuv420p", (128, 96), [(128, 96), (96, 72)],
     "algo=vmaf_ssim+int", "fssim_8_ladder.ptx"),
]


def run_ladder(name, fmt, size, sizes, opts, module, rows=None, kernels=None, nb=NB):
    algo = opts if opts.startswith("algo=") else \
        "algo=float+int+block+psnr" + (":" + opts if opts else "")
    n = len(sizes) + 1
    if SKIP:
        t.skip("%s: scored on the emulated driver, %s loaded" % (name, module), SKIP)
        t.skip("%s: every rendition within the contracts of fssim's ladder" % name, SKIP)
        return
    tag = re.sub(r"\W+", "_", name)
    f = ft.pix_fmt(fmt)
    ref = ft.natural_clip(size[0], size[1], nb, f, WORK, tag + "_r", image="coffee", seed=3)
    rends = [ft.natural_clip(z[0], z[1], nb, z[2] if len(z) > 2 else f, WORK, "%s_%d" % (tag, k),
                             image="coffee", seed=3, distort=dict(blur=0.8, noise=3.0, seed=k))
             for k, z in enumerate(sizes)]
    inputs = sum((c.input_args() for c in rends + [ref]), [])
    cpu_log, gpu_log = (os.path.join(WORK, tag + s + ".json") for s in ("_cpu", "_gpu"))
    fc.remove(cpu_log, gpu_log)
    pads = "".join("[%d:v]" % i for i in range(n))
    pc = ft.ffmpeg(*inputs, "-lavfi", "%sfssim=inputs=%d:%s:log_path=%s" % (pads, n, algo, cpu_log),
                   "-f", "null", "-", check=False)
    up = ";".join("[%d:v]hwupload[u%d]" % (i, i) for i in range(n))
    pg = ft.ffmpeg(*fc.HW, *inputs, "-lavfi", "%s;%sfssim_cuda=inputs=%d:%s:log_path=%s" % (
                       up, "".join("[u%d]" % i for i in range(n)), n, algo, gpu_log),
                   "-f", "null", "-", check=False,
                   env=fc.env(FAKE_CUDA_VERBOSE=1,
                              **({"FSSIM_FAKE_CUDA_LAZY": 1} if "lazy" in name else {})))
    cpu, why_c = fc.read_log(cpu_log)
    gpu, why_g = fc.read_log(gpu_log)
    loaded = re.findall(r"\[fake cuda\] module (\S+)", pg.stderr)
    tiles = {int(r) for r in re.findall(r"fssim_resample_\w+ component \d+: (\d+)-row",
                                        pg.stderr)}
    # the resampler's module only where a rendition is resampled, vmaf's
    # only where it is asked for
    resampled = [tuple(z[:2]) != size or (len(z) > 2 and z[2] != fmt) for z in sizes]
    modules = [module] + (["fssim_resample.ptx"] if any(resampled) else []) + \
        (["fssim_vmaf.ptx"] if "vmaf" in algo else [])
    used = sorted(set(re.findall(r"(fssim_resample_\w+) component", pg.stderr)))
    t.ok(pc.returncode == 0 and pg.returncode == 0 and cpu and gpu and
         len(ft.log_values(gpu)) == nb * len(sizes) and loaded == modules and
         (rows is None or tiles == rows) and (kernels is None or used == kernels) and
         [r["resampled"] for r in gpu["renditions"]] == resampled,
         "%s: scored on the emulated driver, %s loaded" % (name, module) +
         (", resampled %s" % " and ".join("by the direct path" if r == 0 else "in %d-row tiles" % r
                                           for r in sorted(rows)) if rows else ""),
         "rc cpu %d gpu %d, %s %s, modules loaded %r, resampler tiles of %r rows, kernels %r\n%s" % (
             pc.returncode, pg.returncode, why_c, why_g, loaded, tiles, used,
             pg.stderr[-2500:]))
    asked = algo.split(":")[0][len("algo="):].split("+")
    tols = {a: TOLS[a] for a in TOLS if a in asked or (a == "mse" and "psnr" in asked)}
    # a run that failed may still leave a log, with no frames
    full = cpu and gpu and len(ft.log_values(cpu)) == len(ft.log_values(gpu)) == nb * len(sizes)
    worst, where = fc.max_diff(cpu, gpu, tols) if full else (float("inf"), "no full runs")
    t.ok(worst <= 1.0, "%s: every rendition within the contracts of fssim's ladder" % name,
         "worst |diff|/tolerance %.3g at (n/k, algo, comp, cpu, gpu) %r" % (worst, where))


# Pairs of another size or format (doc/formats.md): the main input resampled
# on the GPU by the resampler's module, read in its own layout and written
# in the reference's.  name, main format, main size, reference format,
# reference size, options, the scoring module
PAIRS = [
    ("pair yuv420p 48x32 up to 96x64", "yuv420p", (48, 32), "yuv420p", (96, 64), "",
     "fssim_8.ptx"),
    ("pair yuv420p 100x76 down to 70x46, lanczos", "yuv420p", (100, 76), "yuv420p", (70, 46),
     "scaler=lanczos", "fssim_8.ptx"),
    ("pair yuv420p against yuv422p10 (depth and chroma up)", "yuv420p", (64, 48),
     "yuv422p10le", (64, 48), "", "fssim_16.ptx"),
    ("pair nv12 against p010 (8 -> 10 bits, semi-planar both)", "nv12", (64, 48), "p010le",
     (64, 48), "window=7", "fssim_12_any.ptx"),
    ("pair p010 96x64 against yuv420p 64x48 (10 -> 8 bits, down)", "p010le", (96, 64),
     "yuv420p", (64, 48), "", "fssim_8.ptx"),
    ("pair yuv444p16 against nv12 (16 -> 8 bits, chroma down)", "yuv444p16le", (64, 48),
     "nv12", (64, 48), "", "fssim_8.ptx"),
    ("pair nv16 34x26 up to 68x52 against yuv444p10msb, bilinear", "nv16", (34, 26),
     "yuv444p10msble", (68, 52), "scaler=bilinear", "fssim_12.ptx"),
    ("pair yuv420p against nv12 (layout alone)", "yuv420p", (64, 48), "nv12", (64, 48), "",
     "fssim_8.ptx"),
]


def run_inputs(desc, main, ref, algo, modules, graph_gpu, graph_cpu, tols, nb):
    """fssim (graph_cpu) and the CUDA graph on the same stored clips: both
    run, the modules in order, every value within tols."""
    tag = re.sub(r"\W+", "_", desc)
    cpu_log, gpu_log = (os.path.join(WORK, tag + s + ".json") for s in ("_cpu", "_gpu"))
    fc.remove(cpu_log, gpu_log)
    inputs = main.input_args() + ref.input_args()
    pc = ft.ffmpeg(*inputs, "-lavfi", graph_cpu % cpu_log, "-f", "null", "-", check=False)
    pg = ft.ffmpeg(*fc.HW, *inputs, "-lavfi", graph_gpu % gpu_log, "-f", "null", "-",
                   check=False, env=fc.env(FAKE_CUDA_VERBOSE=1))
    cpu, why_c = fc.read_log(cpu_log)
    gpu, why_g = fc.read_log(gpu_log)
    loaded = re.findall(r"\[fake cuda\] module (\S+)", pg.stderr)
    t.ok(pc.returncode == 0 and pg.returncode == 0 and cpu and gpu and
         len(gpu["frames"]) == nb and loaded == modules,
         "%s: scored on the emulated driver, %s loaded" % (desc, " and ".join(modules)),
         "rc cpu %d gpu %d, %s %s, modules loaded %r\n%s" % (
             pc.returncode, pg.returncode, why_c, why_g, loaded,
             "\n".join(l for l in pg.stderr.splitlines() if "launch" not in l)[-2500:]))
    full = cpu and gpu and len(ft.log_values(cpu)) == len(ft.log_values(gpu))
    worst, where = fc.max_diff(cpu, gpu, tols) if full else (float("inf"), "no full runs")
    t.ok(worst <= 1.0, "%s: every frame within %s of fssim" % (
        desc, ", ".join("%s %g" % kv for kv in tols.items())),
         "worst |diff|/tolerance %.3g at (n, algo, comp, cpu, gpu) %r" % (worst, where))
    return gpu


def run_pair(name, mfmt, msize, rfmt, rsize, opts, module):
    algo = "algo=float+int+block+psnr" + (":" + opts if opts else "")
    if SKIP:
        t.skip("%s: scored on the emulated driver" % name, SKIP)
        t.skip("%s: every frame within the contracts of fssim" % name, SKIP)
        return
    tag = re.sub(r"\W+", "_", name)
    ref = ft.natural_clip(rsize[0], rsize[1], NB, rfmt, WORK, tag + "_r", image="coffee",
                          seed=3)
    main = ft.natural_clip(msize[0], msize[1], NB, mfmt, WORK, tag + "_m", image="coffee",
                           seed=3, distort=dict(blur=1.0, noise=3.0, block=8))
    tols = {a: TOLS[a] for a in ("int", "float", "block", "psnr", "mse")}
    gpu = run_inputs(name + " (%s)" % algo, main, ref, algo, [module, "fssim_resample.ptx"],
                     "[0:v]hwupload[a];[1:v]hwupload[b];[a][b]fssim_cuda=%s:log_path=%%s" % algo,
                     "[0:v][1:v]fssim=%s:log_path=%%s" % algo, tols, NB)
    t.ok(gpu is not None and gpu["input"].get("main", {}).get("resampled") is True,
         "%s: the log records the main input resampled" % name, gpu and gpu["input"])


def above_depth_clip(fmt, w, h, tag, seed):
    """Raw frames of a format whose samples sit at the bottom of 16-bit words,
    every word random: values up to 65535 whatever the depth, as a raw file
    may hold (doc/formats.md#sample-values)."""
    import numpy as np
    f = ft.pix_fmt(fmt)
    rng = np.random.default_rng(seed)
    frames = [[rng.integers(0, 65536, f.plane_size(c, w, h)[::-1]).astype(np.uint16)
               for c in range(len(f.comps))] for _ in range(NB)]
    return ft.natural_clip(w, h, NB, f, WORK, tag, frames=frames)


def run_above_depth():
    """Samples above the format's depth: read as stored, by the 16-bit
    module, as fssim reads them."""
    for fmt in ("yuv420p10le", "yuv422p10le", "yuv444p10le"):
        name = "%s frames holding values up to 65535" % fmt
        if SKIP:
            t.skip("%s: scored on the emulated driver" % name, SKIP)
            t.skip("%s: every frame within the contracts of fssim" % name, SKIP)
            continue
        main = above_depth_clip(fmt, 48, 36, "above_m_" + fmt, 1)
        ref = above_depth_clip(fmt, 48, 36, "above_r_" + fmt, 2)
        algo = "algo=float+int+block+psnr"
        tols = {a: TOLS[a] for a in ("int", "float", "block", "psnr", "mse")}
        run_inputs(name, main, ref, algo, ["fssim_16.ptx"],
                   "[0:v]hwupload[a];[1:v]hwupload[b];[a][b]fssim_cuda=%s:log_path=%%s" % algo,
                   "[0:v][1:v]fssim=%s:log_path=%%s" % algo, tols, NB)


def run_pair3d():
    """fssim3d on CUDA frames with a main input of another size and format:
    the moments of its resampled planes (16-bit values)."""
    name = "fssim3d, a yuv420p 48x36 main against a yuv420p10 64x48 reference"
    if SKIP:
        t.skip("%s: scored on the emulated driver" % name, SKIP)
        t.skip("%s: every frame within 1e-6 of the software backend" % name, SKIP)
        return
    ref = ft.natural_clip(64, 48, 5, "yuv420p10le", WORK, "p3d_r", image="coffee", seed=3)
    main = ft.natural_clip(48, 36, 5, "yuv420p", WORK, "p3d_m", image="coffee", seed=3,
                           distort=dict(blur=1.0, noise=3.0))
    run_inputs(name, main, ref, "", ["fssim3d.ptx", "fssim_resample.ptx"],
               "[0:v]hwupload[a];[1:v]hwupload[b];[a][b]fssim3d=depth=3:log_path=%s",
               "[0:v][1:v]fssim3d=depth=3:log_path=%s", {"fssim3d": 1e-6}, 5)


def run_images():
    """The module's machine code (configure --with-cuda-sass): the emulated
    GPU (sm_90) is offered it first and takes it; one that refuses it
    (FSSIM_FAKE_CUDA_NO_SASS=1, as a GPU the build made none for) gets the
    PTX, with a verbose line that says so, and the same scores.  fssim_cuda
    and fssim3d.  A build without machine code loads the PTX and says so."""
    sass = os.environ.get("FSSIM_SASS", "").split()
    said = {True: "CUDA kernels: machine code for sm_90",
            False: "CUDA kernels: no machine code for sm_90 (CUDA_ERROR_NO_BINARY_FOR_GPU); "
                   "the driver compiles the PTX"}
    for name, graph in (("fssim_cuda", "fssim_cuda=algo=float+int"),
                        ("fssim3d", "fssim3d=depth=3")):
        what = "%s: %s" % (name, "the machine code loaded, and the PTX where the GPU refuses "
                           "it, with the same scores" if sass else
                           "built without machine code, the PTX loaded")
        if SKIP:
            t.skip(what, SKIP)
            continue
        main, ref = clips("images " + name, "yuv420p", 66, 38, "natural", NB)
        runs = []
        for refuse in ([False, True] if sass else [None]):
            log = os.path.join(WORK, "images_%s_%s.json" % (name, refuse))
            fc.remove(log)
            p = ft.ffmpeg("-v", "verbose", *fc.HW, *main.input_args(), *ref.input_args(),
                          "-lavfi", "[0:v]hwupload[a];[1:v]hwupload[b];[a][b]%s:log_path=%s"
                          % (graph, log), "-f", "null", "-", check=False,
                          env=fc.env(FAKE_CUDA_VERBOSE=1,
                                     **({"FSSIM_FAKE_CUDA_NO_SASS": 1} if refuse else {})))
            runs.append((refuse, p, fc.read_log(log)[0]))
        good = True
        for refuse, p, log in runs:
            line = said[not refuse] if refuse is not None else \
                "CUDA kernels: built without machine code; the driver compiles the PTX for sm_90"
            fake = re.findall(r"\[fake cuda\] module \S+( \(machine code\))?", p.stderr)
            good &= (p.returncode == 0 and log is not None and line in p.stderr and
                     (name != "fssim_cuda" or fake == [" (machine code)" if refuse is False
                                                       else ""]))
        logs = [json.dumps(log and log["frames"], sort_keys=True) for _, _, log in runs]
        t.ok(good and len(set(logs)) == 1, what,
             "\n".join("refused %s: rc %d\n%s" % (refuse, p.returncode,
                                                   "\n".join(l for l in p.stderr.splitlines()
                                                             if "CUDA kernels" in l or
                                                             "fake cuda" in l)[-1500:])
                       for refuse, p, _ in runs))


def run_smem_limits():
    """A GPU with less shared memory per block than the options need (the
    stand-in driver's FSSIM_FAKE_CUDA_SMEM_OPTIN; Turing offers 65536, which
    an 8-bit pair's float+int (52992 bytes) and float+int+psnr+block (54616)
    fit, not float+int on 16-bit words (88832), which LSB-aligned 9-12-bit
    samples take, while MSB-aligned ones (P010, yuv444p12msb) keep 12-bit
    sums): the run
    fails by itself with a
    message that names both numbers, no signal; the same GPU scores what
    fits."""
    cases = [  # limit, filter graph, runs, what the message names, format;
               # msssim's five scales need 161 samples
        (65536, "fssim_cuda=algo=float+int", True, None, "yuv444p"),
        (65536, "fssim_cuda=algo=float+int+psnr+block", True, None, "yuv444p"),
        (65536, "fssim_cuda=algo=float+int", False, "fssim_cuda needs 88832", "yuv444p16le"),
        # samples at the bottom of 16-bit words take the 16-bit module; P010's not
        (65536, "fssim_cuda=algo=float+int", False, "fssim_cuda needs 88832", "yuv444p10le"),
        (65536, "fssim_cuda=algo=float+int", True, None, "yuv444p12msb"),
        (49152, "fssim_cuda=algo=float+int+psnr", False, "fssim_cuda needs 52992", "yuv444p"),
        (49152, "fssim_cuda=algo=float", True, None, "yuv444p"),
        (32768, "fssim_cuda=algo=msssim", False, "algo=msssim needs", "yuv444p"),
        (16384, "fssim3d=depth=3", False, "fssim3d needs", "yuv444p"),
    ]
    for limit, graph, runs, names, fmt in cases:
        size = (161, 165) if "msssim" in graph else (66, 38)
        what = "%s (%s) with %d bytes of shared memory per block: %s" % (
            graph, fmt, limit, "scores" if runs else "fails naming both sizes")
        if SKIP:
            t.skip(what, SKIP)
            continue
        main, ref = clips("smem %dx%d %s" % (size + (fmt,)), fmt, size[0], size[1], "natural", NB)
        p = ft.ffmpeg(*fc.HW, *main.input_args(), *ref.input_args(), "-lavfi",
                      "[0:v]hwupload[a];[1:v]hwupload[b];[a][b]%s" % graph, "-f", "null", "-",
                      check=False, env=fc.env(FSSIM_FAKE_CUDA_SMEM_OPTIN=limit))
        line = "The CUDA device offers %d bytes of shared memory per block; " % limit
        if runs:
            good = p.returncode == 0 and line not in p.stderr
        else:
            good = (p.returncode > 0 and not fc.CRASH.search(p.stderr) and
                    re.search(re.escape(line + names) + r"[ \d]* with these options",
                              p.stderr) is not None)
        t.ok(good, what, "rc %d\n%s" % (p.returncode, p.stderr[-1500:]))


def run_ring_memory():
    """fssim3d's ring against the device's free memory (the stand-in
    driver's FSSIM_FAKE_CUDA_FREE): a ring larger than what is free is
    refused at configuration, naming both sizes; the same ring fits where
    more is free."""
    for free, fits in ((100000, False), (1 << 30, True)):
        what = "fssim3d=depth=5 on CUDA frames, %d bytes of device memory free: %s" % (
            free, "scores" if fits else "refused naming the ring's size and the free size")
        if SKIP:
            t.skip(what, SKIP)
            continue
        main, ref = clips("ring 66x38 yuv444p", "yuv444p", 66, 38, "natural", NB)
        p = ft.ffmpeg(*fc.HW, *main.input_args(), *ref.input_args(), "-lavfi",
                      "[0:v]hwupload[a];[1:v]hwupload[b];[a][b]fssim3d=depth=5", "-f", "null",
                      "-", check=False, env=fc.env(FSSIM_FAKE_CUDA_FREE=free))
        m = re.search(r"fssim3d: the ring of 5 moment sets needs ([\d.]+) MiB, but ([\d.]+) "
                      r"MiB of device memory is available", p.stderr)
        if fits:
            good = p.returncode == 0 and not m
        else:
            good = (p.returncode > 0 and not fc.CRASH.search(p.stderr) and m is not None and
                    float(m.group(1)) > 0.2 and abs(float(m.group(2)) - free / 1048576.0) <= 0.05)
        t.ok(good, what, "rc %d\n%s" % (p.returncode, p.stderr[-1500:]))


for case in CASES:
    run_case(*case)
for case in LADDERS:
    run_ladder(*case)
for case in MS_CASES:
    run_case(*case, nb=NB_MS)
for case in MS_LADDERS:
    run_ladder(*case, nb=NB_MS)
for case in VMAF_CASES:
    run_case(*case, nb=NB_MS)
for case in PAIRS:
    run_pair(*case)
run_above_depth()
run_pair3d()
run_images()
run_smem_limits()
run_ring_memory()
t.done()
