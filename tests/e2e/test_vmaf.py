#!/usr/bin/env python3
"""algo=vmaf_ssim and vmaf_msssim (libvmaf's float_ssim and float_ms_ssim,
doc/algorithms.md#vmaf_ssim) end to end.

1. Scores: every plane of every frame of the CPU filter against
   tests/lib/vmaf_np.py (libvmaf's definition transcribed to numpy, written
   from libvmaf's sources, not from fssim's C), each plane at its own size
   (its own decimation factor), All the planes' sample-weighted mean: 8-,
   10-, 12- and 16-bit, 4:2:0, 4:4:4, semi-planar (NV12, P010), gray, odd
   sizes, luma decimated by 1, 2 and 3; ladders (renditions of the
   reference's size, smaller and larger ones resampled first by the
   reference resampler); to 1e-6, the contract (the filter adds the
   positions' values by bands of rows, the transcription in one run, as
   libvmaf: they agree to about 1e-16 before vmaf_ssim's rounding to float).
2. The number of threads changes nothing (bitwise).
3. Identical inputs: 1 within 1e-6 per plane (libvmaf's luminance term
   divides a double numerator by a float denominator, so not exactly 1).
4. Outputs: lavfi.fssim.vmaf_ssim.<c> and lavfi.fssim.<k>.vmaf_msssim.<c>,
   stats_algo=vmaf_ssim, the summary lines, the CSV columns, the logs'
   header facts ("algorithms": description, db, pooling).
5. Errors: planes too small for vmaf_msssim (176x176) and vmaf_ssim
   (11x11), luma and 4:2:0 chroma, each naming the plane and its size.
6. libvmaf itself, where it is given (fssim builds no libvmaf; these checks
   report SKIP without it):
   - FSSIM_VMAF_TOOL=path of libvmaf's `vmaf` tool: the tool's per-frame
     float_ssim and float_ms_ssim (`vmaf -r REF.y4m -d DIST.y4m -n --json
     --feature float_ssim --feature float_ms_ssim`, printed with six
     decimals) against the luma values of fssim, of fssim_vulkan (where a
     Vulkan device runs) and of fssim_cuda (on the stand-in driver of
     tests/cuda, or with FSSIM_VMAF_CUDA=gpu on a CUDA GPU): |diff| <= 1e-6
     per frame;
   - FSSIM_LIBVMAF=path of libvmaf.so: libvmaf's doubles through its C API
     (tests/lib/libvmaf_ctypes.py) for the same frames' luma, the same way.
   Clips: y4m, yuv420p 8 and 10 bits, natural content at 642x386 and at
   the odd 641x387 (luma decimated by 2, chroma by 1) and its distorted
   copy (blur, noise, 8x8 blocks), and a flat pair (386x354: flat windows,
   the clamp of a covariance rounded below zero).  The test builds no
   libvmaf: build it from Netflix/vmaf (meson setup, ninja) and give the
   paths, e.g. FSSIM_VMAF_TOOL=.../build/tools/vmaf
   FSSIM_LIBVMAF=.../build/src/libvmaf.so make check
   TESTS=tests/e2e/test_vmaf.py.

   Run once with libvmaf 3.2.0 built from its source (Netflix/vmaf commit
   f85a8536, meson's release defaults: gcc 12, -O3, x86-64 without FMA),
   6 frames per clip, every backend that runs without a GPU (fssim_cuda on
   the stand-in driver, i.e. its kernels through the emulator; fssim_vulkan
   on lavapipe); max |diff| per frame, float_ssim / float_ms_ssim:

     clip                  backend              libvmaf's API    the vmaf tool
     natural 8-bit 642x386  fssim, _vulkan, _cuda  0 / 0          3.5e-7 / 4.9e-7
     natural 10-bit 642x386 fssim, _vulkan, _cuda  0 / 0          4.5e-7 / 5.0e-7
     natural 8-bit 641x387  fssim, _vulkan, _cuda  0 / 0          (odd 4:2:0)
     natural 10-bit 641x387 fssim, _vulkan, _cuda  0 / 0          (odd 4:2:0)
     flat 8-bit 386x354     fssim, _vulkan, _cuda  0 / 0          4.1e-7 / 4.1e-7

   Every backend gives libvmaf's doubles exactly; the tool's figures are
   the rounding of its six printed decimals.  The tool takes a 4:2:0
   chroma plane as w >> 1 samples wide, so it loses framing in odd-sized
   y4m files: those clips are compared through libvmaf's API alone.
"""
import json
import math
import os
import re
import subprocess
import sys

import numpy as np

import fssimtest as ft
import libvmaf_ctypes
import vmaf_np

sys.path.insert(0, os.path.join(ft.TOP_SRCDIR, "tests", "cuda"))
import fakecuda  # noqa: E402

t = ft.Tap()
WORK = ft.workdir("vmaf")
TOL = 1e-6
ALGOS = ("vmaf_ssim", "vmaf_msssim")
CRASH = re.compile(r"Assertion|Segmentation|core dumped|AddressSanitizer|double free|"
                   r"stack smashing|Aborted", re.I)


def clip(w, h, fmt, name, distort=None, n=2, seed=3, image="coffee", container="raw"):
    return ft.natural_clip(w, h, n, fmt, WORK, name, image=image, seed=seed, distort=distort,
                           container=container)


def want(main, ref, k, c, algo):
    """The transcription's value of plane c of frame k."""
    depth = ref.fmt.depth
    if algo == "vmaf_ssim":
        return vmaf_np.float_ssim(ref.frames[k][c], main.frames[k][c], depth)
    return vmaf_np.float_ms_ssim(ref.frames[k][c], main.frames[k][c], depth)


def check_log(name, values, main, ref, algos=ALGOS):
    """values(k) -> the rendition's dict of algorithms in frame k."""
    worst = {a: (0.0, None) for a in algos}
    for k in range(ref.nb_frames):
        got = values(k)
        for a in algos:
            planes = [want(main, ref, k, c, a) for c in range(len(ref.fmt.comps))]
            expect = dict(zip(ref.fmt.comps, planes))
            expect["All"] = sum(w * v for w, v in zip(ref.fmt.weights(ref.w, ref.h), planes))
            for c, v in expect.items():
                d = abs(got[a][c] - v)
                if d > worst[a][0]:
                    worst[a] = (d, (k, c, got[a][c], v))
    for a in algos:
        t.ok(worst[a][0] <= TOL, "%s: %s of every plane and All within %g of the numpy "
             "transcription (max diff %.3g)" % (name, a, TOL, worst[a][0]), worst[a][1])


# ---- 1. scores: two inputs ---------------------------------------------------

PAIRS = [
    # name, fmt, w, h, algos
    ("8-bit yuv420p 641x387 (luma decimated by 2)", "yuv420p", 641, 387, ALGOS),
    ("10-bit yuv420p10 401x385", "yuv420p10le", 401, 385, ALGOS),
    ("12-bit yuv444p12 200x181", "yuv444p12le", 200, 181, ALGOS),
    ("8-bit nv12 362x354 (semi-planar)", "nv12", 362, 354, ALGOS),
    ("10-bit p010 362x356 (MSB-aligned)", "p010le", 362, 356, ALGOS),
    ("16-bit gray16 177x190", "gray16le", 177, 190, ALGOS),
    ("8-bit gray 801x641 (decimated by 3)", "gray", 801, 641, ("vmaf_ssim",)),
    ("8-bit yuv420p 97x61 (vmaf_ssim alone)", "yuv420p", 97, 61, ("vmaf_ssim",)),
]
for name, fmt, w, h, algos in PAIRS:
    tag = re.sub(r"\W+", "_", name)
    ref = clip(w, h, fmt, tag + "_r")
    main = clip(w, h, fmt, tag + "_m", distort=dict(blur=1.0, noise=3.0, block=8))
    r = ft.run_fssim(main, ref, "algo=" + "+".join(algos), directory=WORK, tag=tag, check=False)
    if t.ok(r["log"] is not None, "%s: runs" % name, r["proc"].stderr[-1500:]):
        check_log(name, lambda k, lg=r["log"]: lg["frames"][k], main, ref, algos)

# ---- 1. scores: ladders ------------------------------------------------------


def resampled(c, ref, scaler, name):
    return ft.resampled_clip(c, ref, scaler, name, WORK)


def ladder(rends, ref, options, tag):
    return ft.run_ladder(rends, ref, options, tag, WORK)


ladder_md = None
ref = clip(400, 384, "yuv420p", "lad_ref")
rends = [clip(w, h, "yuv420p", "lad_%d" % k, distort=dict(blur=0.8, noise=3.0, seed=k))
         for k, (w, h) in enumerate([(400, 384), (360, 352), (480, 400)])]
p, lg, ladder_md = ladder(rends, ref, "algo=vmaf_ssim+vmaf_msssim:scaler=bicubic", "ladder")
if t.ok(lg is not None, "ladder 8-bit yuv420p: runs", p.stderr[-1500:]):
    for k, r in enumerate(rends):
        main = r if (r.w, r.h) == (ref.w, ref.h) else resampled(r, ref, "bicubic",
                                                                "lad_%d_rs" % k)
        check_log("ladder, rendition %d (%dx%d%s)" % (k + 1, r.w, r.h,
                                                      "" if main is r else ", resampled"),
                  lambda i, k=k: [x for x in lg["frames"][i]["renditions"]
                                  if x["k"] == k + 1][0], main, ref)

# ---- 2. threads ----------------------------------------------------------------

ref = clip(401, 385, "yuv420p10le", "thr_r")
main = clip(401, 385, "yuv420p10le", "thr_m", distort=dict(blur=1.2, noise=5.0))
runs = {}
for threads in (1, 3):
    r = ft.run_fssim(main, ref, "algo=vmaf_ssim+vmaf_msssim", directory=WORK,
                     tag="threads%d" % threads, extra_args=["-filter_threads", str(threads)],
                     check=False)
    runs[threads] = r["log"]
if t.ok(all(runs.values()), "threads: runs with 1 and 3 filter threads"):
    t.ok(runs[1]["frames"] == runs[3]["frames"],
         "threads: 1 and 3 threads give bitwise identical values (17 significant digits)")

# ---- 3. identical inputs ---------------------------------------------------------

c = clip(362, 354, "yuv420p", "same")
log = os.path.join(WORK, "same.json")
p = ft.ffmpeg(*(c.input_args() + ["-lavfi", "split[a][b];[a][b]fssim=algo=vmaf_ssim+"
                                  "vmaf_msssim:log_path=" + log, "-f", "null", "-"]), check=False)
lg = ft.load_log(log) if p.returncode == 0 else None
vals = [v for fr in lg["frames"] for a in ALGOS for comp, v in fr[a].items()
        if comp != "dB"] if lg else []
t.ok(vals and all(abs(v - 1.0) <= TOL for v in vals),
     "identical inputs: every plane and All within 1e-6 of 1", p.stderr[-1500:])

# ---- 4. outputs -----------------------------------------------------------------

ref = clip(362, 354, "yuv420p", "out_r", n=3)
main = clip(362, 354, "yuv420p", "out_m", n=3, distort=dict(noise=4.0))
stats = os.path.join(WORK, "out_stats.txt")
r = ft.run_fssim(main, ref, "algo=float+vmaf_ssim+vmaf_msssim:stats_algo=vmaf_ssim:"
                 "stats_file=" + stats, directory=WORK, tag="out", metadata=True, check=False)
if t.ok(r["log"] is not None and r["metadata"], "outputs: runs", r["proc"].stderr[-1500:]):
    lg, md = r["log"], r["metadata"]
    keys = set(md[0]["tags"])
    t.ok({"lavfi.fssim.%s.%s" % (a, c) for a in ALGOS for c in ("Y", "U", "V", "All", "dB")}
         <= keys, "metadata: lavfi.fssim.vmaf_ssim.<c> and lavfi.fssim.vmaf_msssim.<c>",
         sorted(keys))
    t.ok(all(float(f["tags"]["lavfi.fssim.vmaf_ssim.All"]) == lg["frames"][i]["vmaf_ssim"]["All"]
             for i, f in enumerate(md)), "metadata: the log's values (17 digits)")
    all_ = lg["frames"][0]["vmaf_msssim"]["All"]
    t.ok(abs(lg["frames"][0]["vmaf_msssim"]["dB"] - (-10 * math.log10(1 - all_))) <= 1e-12,
         "dB is -10 log10(1 - All)")
    lines = ft.parse_stats_file(open(stats).read()) if os.path.exists(stats) else []
    t.ok(len(lines) == 3 and all("%f" % lg["frames"][i]["vmaf_ssim"]["Y"] == l["Y"]
                                 for i, l in enumerate(lines)),
         "stats_algo=vmaf_ssim: the stats file holds the vmaf_ssim values", lines)
    summ = [l for l in r["proc"].stderr.splitlines()
            if re.search(r"SSIM vmaf_(ms)?ssim Y:", l)]
    t.ok(len(summ) == 2 and all("frames:3" in l for l in summ),
         "summary: a vmaf_ssim and a vmaf_msssim line", summ)
    facts = lg.get("algorithms", {})
    t.ok(facts.get("vmaf_ssim") == {"description": "libvmaf float_ssim", "db": True,
                                    "pooling": "mean"} and
         facts.get("vmaf_msssim", {}).get("description") == "libvmaf float_ms_ssim" and
         list(facts) == ["float", "vmaf_ssim", "vmaf_msssim"],
         "the log's header: the facts of each algorithm, in the log's order", facts)
if ladder_md:
    keys = set(ladder_md[0]["tags"])
    t.ok({"lavfi.fssim.%d.vmaf_msssim.%s" % (k, c) for k in (1, 2, 3)
          for c in ("Y", "U", "V", "All")} <= keys,
         "ladder metadata: lavfi.fssim.<k>.vmaf_msssim.<c>", sorted(keys)[:10])
csv = os.path.join(WORK, "out.csv")
p = ft.ffmpeg(*(main.input_args() + ref.input_args() +
                ["-lavfi", "[0:v][1:v]fssim=algo=vmaf_ssim+psnr:log_fmt=csv:log_path=" + csv,
                 "-f", "null", "-"]), check=False)
text = open(csv).read() if p.returncode == 0 else ""
head = [l for l in text.splitlines() if l and not l.startswith("#")][:1]
t.ok(head and head[0].startswith("n,pts,pts_time,psnr.Y,") and
     head[0].endswith(",mse.All,vmaf_ssim.Y,vmaf_ssim.U,vmaf_ssim.V,vmaf_ssim.All,"
                      "vmaf_ssim.dB"),
     "CSV: the algorithms' columns in the table's order, vmaf_ssim's with a dB column", head)
# spaces escaped as in every comment line of the CSV log (\x20)
t.ok("# algorithm vmaf_ssim db=1 pooling=mean description=libvmaf\\x20float_ssim\n" in text and
     "# algorithm psnr db=0 pooling=psnr description=PSNR\\x20(FFmpeg\\x20psnr\\x20filter)\n"
     in text, "CSV: the header's algorithm lines", text[:600])

# ---- 5. errors ------------------------------------------------------------------


def fails(desc, c, options, patterns):
    p = ft.ffmpeg(*(c.input_args() + c.input_args() +
                    ["-lavfi", "[0:v][1:v]fssim=" + options, "-f", "null", "-"]), check=False)
    missing = [x for x in patterns if not re.search(x, p.stderr)]
    t.ok(p.returncode > 0 and not CRASH.search(p.stderr) and not missing,
         "error: %s (%s)" % (desc, ", ".join(patterns)),
         "exit %d, missing %s\n%s" % (p.returncode, missing, p.stderr[-1500:]))


fails("vmaf_msssim, luma too small", clip(200, 175, "gray", "small_gray", n=1),
      "algo=vmaf_msssim", [r"Plane Y is 200x175", r"algo=vmaf_msssim", r"at least 176x176"])
fails("vmaf_msssim, 4:2:0 chroma too small", clip(320, 240, "yuv420p", "small_420", n=1),
      "algo=vmaf_msssim", [r"Plane U is 160x120", r"at least 176x176", r"4:4:4"])
fails("vmaf_ssim, a plane under the window", clip(20, 10, "gray", "tiny", n=1),
      "algo=vmaf_ssim", [r"Plane Y is 20x10", r"algo=vmaf_ssim", r"at least 11x11"])

# ---- 6. libvmaf itself ------------------------------------------------------------


def vk_runs():
    p = ft.ffmpeg("-init_hw_device", "vulkan=vk:%s" % os.environ.get("FSSIM_VULKAN_DEVICE", "0"),
                  "-f", "lavfi", "-i", "color=s=64x64:d=0.04,format=yuv420p", "-vf",
                  "hwupload", "-filter_hw_device", "vk", "-f", "null", "-", check=False)
    return ft.has_filter("fssim_vulkan") and p.returncode == 0


def backend_runs():
    """The backends that run here: (name, ffmpeg arguments before the
    inputs, graph head, environment)."""
    out = [("fssim", [], "[0:v][1:v]fssim", None)]
    if vk_runs():
        out.append(("fssim_vulkan", ["-init_hw_device", "vulkan=vk:%s" %
                                     os.environ.get("FSSIM_VULKAN_DEVICE", "0"),
                                     "-filter_hw_device", "vk"],
                    "[0:v]hwupload[a];[1:v]hwupload[b];[a][b]fssim_vulkan", None))
    # a CUDA GPU's driver (FSSIM_VMAF_CUDA=gpu), else the stand-in one
    if os.environ.get("FSSIM_VMAF_CUDA") == "gpu" or fakecuda.setup() is None:
        out.append(("fssim_cuda", fakecuda.HW,
                    "[0:v]hwupload[a];[1:v]hwupload[b];[a][b]fssim_cuda", fakecuda.env()))
    return out


def vmaf_tool(tool, ref, main, tag):
    out = os.path.join(WORK, tag + ".vmaf.json")
    p = subprocess.run([tool, "-r", ref.path, "-d", main.path, "-n", "-q", "--json", "-o", out,
                        "--feature", "float_ssim", "--feature", "float_ms_ssim"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("vmaf failed: " + p.stderr[-500:])
    with open(out) as f:
        frames = json.load(f)["frames"]
    return {"float_ssim": [fr["metrics"]["float_ssim"] for fr in frames],
            "float_ms_ssim": [fr["metrics"]["float_ms_ssim"] for fr in frames]}


tool = os.environ.get("FSSIM_VMAF_TOOL")
lib = libvmaf_ctypes.library()
CLIPS = []
for w, h in ((642, 386), (641, 387)):
    for fmt in ("yuv420p", "yuv420p10le"):
        tag = "lv_%s_%dx%d" % (fmt, w, h)
        r = clip(w, h, fmt, tag + "_r", n=6, container="y4m", image="astronaut")
        m = clip(w, h, fmt, tag + "_m", n=6, container="y4m", image="astronaut",
                 distort=dict(blur=1.0, noise=3.0, block=8))
        CLIPS.append(("natural %d-bit %dx%d" % (r.fmt.depth, w, h), r, m))
flat_r = ft.flat_frames(386, 354, 6, "yuv420p", [100, 120, 140])
flat_m = [[p + np.uint8(k % 3) for p in fr] for k, fr in enumerate(flat_r)]
CLIPS.append(("flat 8-bit 386x354",
              ft.natural_clip(386, 354, 0, "yuv420p", WORK, "lv_flat_r", frames=flat_r,
                              container="y4m"),
              ft.natural_clip(386, 354, 0, "yuv420p", WORK, "lv_flat_m", frames=flat_m,
                              container="y4m")))
if not tool and lib is None:
    t.skip("libvmaf: per-frame float_ssim and float_ms_ssim of every backend",
           "neither FSSIM_VMAF_TOOL (libvmaf's vmaf tool) nor FSSIM_LIBVMAF (libvmaf.so) given")
else:
    backends = backend_runs()
    for cname, ref, main in CLIPS:
        peers = []
        # the tool takes a 4:2:0 chroma plane as w >> 1 wide: its y4m
        # reader loses framing at odd sizes, which its API scores
        if tool and not (ref.w | ref.h) & 1:
            peers.append(("the vmaf tool (six decimals)",
                          vmaf_tool(tool, ref, main, re.sub(r"\W+", "_", cname))))
        if lib is not None:
            peers.append(("libvmaf %s" % libvmaf_ctypes.version(lib),
                          libvmaf_ctypes.scores(lib, [(ref.frames[k][0], main.frames[k][0])
                                                      for k in range(ref.nb_frames)],
                                                ref.fmt.depth)))
        for bname, pre, head, env in backends:
            tag = re.sub(r"\W+", "_", "lv_%s_%s" % (cname, bname))
            log = os.path.join(WORK, tag + ".json")
            p = ft.ffmpeg(*(pre + main.input_args() + ref.input_args() +
                            ["-lavfi", "%s=algo=vmaf_ssim+vmaf_msssim:log_path=%s" % (head, log),
                             "-f", "null", "-"]), check=False, env=env)
            if not t.ok(p.returncode == 0, "%s, %s: runs" % (cname, bname), p.stderr[-1500:]):
                continue
            frames = ft.load_log(log)["frames"]
            for pname, vals in peers:
                d = [max(abs(fr["vmaf_ssim"]["Y"] - vals["float_ssim"][k]),
                         abs(fr["vmaf_msssim"]["Y"] - vals["float_ms_ssim"][k]))
                     for k, fr in enumerate(frames)]
                ds = max(abs(fr["vmaf_ssim"]["Y"] - vals["float_ssim"][k])
                         for k, fr in enumerate(frames))
                dm = max(abs(fr["vmaf_msssim"]["Y"] - vals["float_ms_ssim"][k])
                         for k, fr in enumerate(frames))
                t.ok(len(frames) == ref.nb_frames and max(d) <= TOL,
                     "%s, %s against %s: %d frames, max |diff| float_ssim %.2g, float_ms_ssim "
                     "%.2g" % (cname, bname, pname, len(frames), ds, dm), d)
t.done()
