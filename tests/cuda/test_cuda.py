"""fssim_cuda against fssim (the CPU reference) on the GPU.

Every case scores the same frames twice: with fssim on software frames and
with fssim_cuda on CUDA frames (hwupload_cuda, or NVDEC decoding of clips
that NVENC encodes here), and compares every plane of every frame:
int to 1e-12, float to 1e-5, block to 1e-6, msssim to 1e-5, vmaf_ssim and
vmaf_msssim to 1e-6 (libvmaf's contract; the kernels repeat libvmaf's float
arithmetic, so 0 is expected), psnr and mse exactly
(doc/algorithms.md#accuracy).  Ladders (inputs=N: renditions of
other sizes and formats resampled on the GPU, uploaded and NVDEC-decoded)
against fssim's ladder, rendition by rendition; pairs of another size and
format (a 720p encode against its 1080p source, 8-bit 4:2:0 against a
10-bit 4:2:2 mezzanine); frames whose samples lie above their format's
depth (random 16-bit words), read as stored.  Also: two GPU runs are bitwise
identical, frame counts match, errors are clear, and compute-sanitizer's
memcheck, racecheck and synccheck find nothing on a pair and on a ladder.

Without a CUDA device every check reports SKIP with the reason.
"""
import os
import re
import shutil
import subprocess
import sys

from fssimtest import (Tap, ffmpeg, has_filter, natural_clip, flat_frames,
                       workdir, run, log_values, FFMPEG)

# psnr and mse: the same exact integer sums on both, so the same doubles
TOL = {"int": 1e-12, "float": 1e-5, "block": 1e-6, "msssim": 1e-5, "psnr": 0.0, "mse": 0.0,
       "vmaf_ssim": 1e-6, "vmaf_msssim": 1e-6}
t = Tap()
WORK = workdir("cuda")
HW = ["-init_hw_device", "cuda=cu", "-filter_hw_device", "cu"]
summary = []   # (case, algo, max diff)


def cuda_device():
    """None if a CUDA device works, else why not."""
    if not has_filter("fssim_cuda"):
        return "fssim_cuda not built (configure --with-cuda)"
    p = ffmpeg(*HW, "-f", "lavfi", "-i", "color=s=64x64:d=0.04,format=nv12",
               "-vf", "hwupload_cuda", "-f", "null", "-", check=False)
    if p.returncode != 0:
        return "no CUDA device"
    return None


def graph_cuda(fmt, options, log):
    # hwupload on the one filter device: two hwupload_cuda would make two
    # CUDA contexts, which fssim_cuda refuses
    up = "format=%s,hwupload" % fmt
    return ("[0:v]%s[m];[1:v]%s[r];[m][r]fssim_cuda=%s:log_path=%s" %
            (up, up, options, log))


def graph_cpu(fmt, options, log):
    return ("[0:v]format=%s[m];[1:v]format=%s[r];[m][r]fssim=%s:log_path=%s" %
            (fmt, fmt, options, log))


def score(inputs, graph, tag, extra=()):
    log = os.path.join(WORK, tag + ".json")
    if os.path.exists(log):
        os.unlink(log)
    p = ffmpeg(*HW, *inputs, "-lavfi", graph(log), *extra, "-f", "null", "-", check=False)
    if p.returncode != 0:
        return None, p.stderr[-3000:]
    import json
    with open(log) as f:
        return json.load(f), p.stderr


def compare(name, cpu, gpu, algos):
    """One check per algorithm: every plane and All of every frame within
    TOL (dB = -10 log10(1 - All) is derived, and magnifies differences near
    1, so it is not compared)."""
    if cpu is None or gpu is None:
        t.ok(False, "%s: both runs succeed" % name)
        return
    # per frame, or per frame and rendition in a ladder
    fc, fg = log_values(cpu), log_values(gpu)
    t.ok(list(fc) == list(fg) and len(fc) > 0,
         "%s: frames (and renditions) match (cpu %d, gpu %d)" % (name, len(fc), len(fg)))
    for algo in algos:
        worst, where = 0.0, None
        for key, a in fc.items():
            b = fg.get(key, {})
            for c, v in a[algo].items():
                if c == "dB":
                    continue
                w = b.get(algo, {}).get(c)
                # null on both (an infinite PSNR: identical planes) is equal
                if v is None and w is None and c in b.get(algo, {}):
                    d = 0.0
                else:
                    d = abs(v - w) if v is not None and w is not None else float("inf")
                if d > worst:
                    worst, where = d, (key, c, v, w)
        summary.append((name, algo, worst))
        t.ok(worst <= TOL[algo], "%s: %s max diff %.3g <= %g" % (name, algo, worst, TOL[algo]),
             "worst at frame/comp/cpu/gpu %r" % (where,))


def upload_case(name, w, h, fmt, options="algo=float+int+block", frames=3,
                content="natural", nb_identical=False):
    algos = [a for a in ("float", "int", "block", "msssim", "psnr", "vmaf_ssim", "vmaf_msssim")
             if a in options.split("algo=")[1].split(":")[0].split("+")]
    algos += ["mse"] if "psnr" in algos else []
    if content == "flat":
        from fssimtest import pix_fmt
        f = pix_fmt(fmt)
        vals = [f.maxval // 3, f.maxval // 2, f.maxval // 4, f.maxval][:len(f.comps)]
        ref = natural_clip(w, h, frames, fmt, directory=WORK, name=name + "_r",
                           frames=flat_frames(w, h, frames, f, vals))
        vals2 = [v + 3 for v in vals]
        main = natural_clip(w, h, frames, fmt, directory=WORK, name=name + "_m",
                            frames=flat_frames(w, h, frames, f, vals2))
    else:
        ref = natural_clip(w, h, frames, fmt, directory=WORK, name=name + "_r", seed=1)
        main = ref if nb_identical else natural_clip(
            w, h, frames, fmt, directory=WORK, name=name + "_m", seed=1,
            distort={"blur": 1.2, "noise": 4.0, "block": 8})
    inputs = main.input_args() + ref.input_args()
    cpu, err_c = score(inputs, lambda log: graph_cpu(fmt, options, log), name + "_cpu")
    gpu, err_g = score(inputs, lambda log: graph_cuda(fmt, options, log), name + "_gpu")
    if gpu is None:
        t.diag(err_g)
    compare(name, cpu, gpu, algos)
    gpu2, _ = score(inputs, lambda log: graph_cuda(fmt, options, log), name + "_gpu2")
    t.ok(gpu is not None and gpu2 is not None and gpu["frames"] == gpu2["frames"],
         "%s: two GPU runs bitwise identical" % name)
    if nb_identical and gpu is not None:
        # libvmaf's arithmetic gives 1 only to within 1e-6
        bad = [(fr["n"], a, c, fr[a][c]) for fr in gpu["frames"] for a in algos
               if a not in ("psnr", "mse") for c in fr[a] if c != "dB" and
               (fr[a][c] != 1.0 if not a.startswith("vmaf") else abs(fr[a][c] - 1.0) > 1e-6)]
        t.ok(not bad, "%s: identical inputs score exactly 1 (vmaf_*: within 1e-6)" % name,
             bad[:6])


CLIPS = os.environ.get("FSSIM_CLIPS") or os.path.join(WORK, "nvdec-clips")


def nvdec_case(name, frames_expected=12):
    """NVDEC-decoded frames through fssim_cuda against the software-decoded
    frames of the same files (H.264 and HEVC decoders are bit-exact) through
    fssim.  The clips (tests/cuda/make_clips.py) hold natural content at two
    qualities: name_hi.mkv and name_lo.mkv."""
    import json
    hi, lo = (os.path.join(CLIPS, "%s_%s.mkv" % (name, q)) for q in ("hi", "lo"))
    if not (os.path.exists(hi) and os.path.exists(lo)):
        t.skip("%s (NVDEC)" % name, "clip not found in %s (make it with tests/cuda/make_clips.py)" % CLIPS)
        return
    opts = "algo=float+int+block"
    for q, path in (("hi", hi), ("lo", lo)):
        log_c = os.path.join(WORK, "%s_%s_cpu.json" % (name, q))
        log_g = os.path.join(WORK, "%s_%s_gpu.json" % (name, q))
        pc = ffmpeg("-i", path, "-i", hi,
                    "-lavfi", "[0:v][1:v]fssim=%s:log_path=%s" % (opts, log_c),
                    "-f", "null", "-", check=False)
        pg = ffmpeg("-hwaccel", "cuda", "-hwaccel_output_format", "cuda", "-i", path,
                    "-hwaccel", "cuda", "-hwaccel_output_format", "cuda", "-i", hi,
                    "-lavfi", "[0:v][1:v]fssim_cuda=%s:log_path=%s" % (opts, log_g),
                    "-f", "null", "-", check=False)
        if pg.returncode != 0:
            t.diag(pg.stderr[-3000:])
        cpu = json.load(open(log_c)) if pc.returncode == 0 else None
        gpu = json.load(open(log_g)) if pg.returncode == 0 else None
        compare("%s %s (NVDEC)" % (name, q), cpu, gpu, ("float", "int", "block"))
        if gpu is not None and cpu is not None:
            t.ok(len(gpu["frames"]) >= frames_expected,
                 "%s %s: NVDEC frames scored (%d), sw_format %s" % (
                     name, q, len(gpu["frames"]), gpu["input"]["pix_fmt"]))
            if q == "lo":
                t.ok(gpu["pooled"]["int"]["All"]["mean"] < 1.0,
                     "%s: the low-quality encode scores below 1" % name)


def ladder_upload_case(name, fmt, ref_size, sizes, options="algo=float+int+block+psnr"):
    """A ladder of uploaded frames: renditions of other sizes resampled on
    the GPU (up and down), one of the reference's size; every rendition
    against fssim's ladder."""
    n = len(sizes) + 1
    ref = natural_clip(*ref_size, 2, fmt, directory=WORK, name=name + "_r", seed=1)
    rends = [natural_clip(w, h, 2, fmt, directory=WORK, name="%s_%d" % (name, k), seed=1,
                          distort={"blur": 0.8 + 0.3 * k, "noise": 3.0, "seed": k})
             for k, (w, h) in enumerate(sizes)]
    inputs = sum((c.input_args() for c in rends + [ref]), [])
    pads = "".join("[%d:v]" % i for i in range(n))
    up = ";".join("[%d:v]format=%s,hwupload[u%d]" % (i, fmt, i) for i in range(n))
    ups = "".join("[u%d]" % i for i in range(n))
    cpu, _ = score(inputs, lambda log: "%sfssim=inputs=%d:%s:log_path=%s" % (
        pads, n, options, log), name + "_cpu")
    gpu, err = score(inputs, lambda log: "%s;%sfssim_cuda=inputs=%d:%s:log_path=%s" % (
        up, ups, n, options, log), name + "_gpu")
    if gpu is None:
        t.diag(err)
    algos = options.split(":")[0][len("algo="):].split("+")
    compare(name, cpu, gpu, algos + (["mse"] if "psnr" in algos else []))


def pair_upload_case(name, mfmt, msize, rfmt, rsize, options="algo=float+int+block+psnr",
                     frames=2, content="natural"):
    """A main input of another size or format than the reference, uploaded
    as it is and resampled on the GPU, against fssim on the same frames."""
    if content == "above":
        from fssimtest import above_depth_frames
        ref = natural_clip(*rsize, frames, rfmt, directory=WORK, name=name + "_r",
                           frames=above_depth_frames(*rsize, frames, rfmt, seed=1))
        main = natural_clip(*msize, frames, mfmt, directory=WORK, name=name + "_m",
                            frames=above_depth_frames(*msize, frames, mfmt, seed=2))
    else:
        ref = natural_clip(*rsize, frames, rfmt, directory=WORK, name=name + "_r", seed=1)
        main = natural_clip(*msize, frames, mfmt, directory=WORK, name=name + "_m", seed=1,
                            distort={"blur": 1.2, "noise": 4.0, "block": 8})
    inputs = main.input_args() + ref.input_args()
    cpu, _ = score(inputs, lambda log: "[0:v][1:v]fssim=%s:log_path=%s" % (options, log),
                   name + "_cpu")
    gpu, err = score(inputs, lambda log: "[0:v]hwupload[m];[1:v]hwupload[r];"
                     "[m][r]fssim_cuda=%s:log_path=%s" % (options, log), name + "_gpu")
    if gpu is None:
        t.diag(err)
    algos = options.split(":")[0][len("algo="):].split("+")
    compare(name, cpu, gpu, algos + (["mse"] if "psnr" in algos else []))
    if gpu is not None and (msize, mfmt) != (rsize, rfmt):
        t.ok(gpu["input"].get("main", {}).get("resampled") is True,
             "%s: the log records the main input resampled" % name, gpu["input"])


def mixed_ladder_case():
    """Renditions of other formats and sizes than the reference, uploaded as
    they are: yuv420p 720p and 360p, nv12 1080p, a p010 1080p reference."""
    sizes = [("yuv420p", 1280, 720), ("nv12", 1920, 1080), ("yuv420p", 640, 360),
             ("p010", 1920, 1080)]
    ref = natural_clip(1920, 1080, 2, "p010", directory=WORK, name="mixed_r", seed=1)
    rends = [natural_clip(w, h, 2, f, directory=WORK, name="mixed_%d" % k, seed=1,
                          distort={"blur": 0.8 + 0.3 * k, "noise": 3.0, "seed": k})
             for k, (f, w, h) in enumerate(sizes)]
    n = len(rends) + 1
    inputs = sum((c.input_args() for c in rends + [ref]), [])
    pads = "".join("[%d:v]" % i for i in range(n))
    up = ";".join("[%d:v]hwupload[u%d]" % (i, i) for i in range(n))
    ups = "".join("[u%d]" % i for i in range(n))
    opts = "algo=float+int+block+psnr"
    cpu, _ = score(inputs, lambda log: "%sfssim=inputs=%d:%s:log_path=%s" % (
        pads, n, opts, log), "mixed_cpu")
    gpu, err = score(inputs, lambda log: "%s;%sfssim_cuda=inputs=%d:%s:log_path=%s" % (
        up, ups, n, opts, log), "mixed_gpu")
    if gpu is None:
        t.diag(err)
    compare("ladder of mixed formats against p010 1080p", cpu, gpu,
            ("float", "int", "block", "psnr", "mse"))


def nvdec_ladder_case():
    """NVDEC-decoded renditions (H.264 640x360, HEVC 1280x720) against an
    HEVC 1280x720 reference, resampled on the GPU, against fssim's ladder
    of the software-decoded frames."""
    import json
    paths = [os.path.join(CLIPS, c) for c in ("h264_8bit_lo.mkv", "hevc_8bit_lo.mkv",
                                               "hevc_8bit_hi.mkv")]
    if not all(os.path.exists(p) for p in paths):
        t.skip("ladder (NVDEC)", "clips not found in %s (tests/cuda/make_clips.py)" % CLIPS)
        return
    opts = "algo=float+int+block+psnr"
    log_c, log_g = (os.path.join(WORK, "ladder_nvdec_%s.json" % k) for k in ("cpu", "gpu"))
    sw = sum((["-i", p] for p in paths), [])
    hw = sum((["-hwaccel", "cuda", "-hwaccel_output_format", "cuda", "-i", p]
              for p in paths), [])
    pc = ffmpeg(*sw, "-lavfi", "[0:v][1:v][2:v]fssim=inputs=3:%s:log_path=%s" % (opts, log_c),
                "-f", "null", "-", check=False)
    pg = ffmpeg(*hw, "-lavfi", "[0:v][1:v][2:v]fssim_cuda=inputs=3:%s:log_path=%s" % (
                    opts, log_g), "-f", "null", "-", check=False)
    if pg.returncode != 0:
        t.diag(pg.stderr[-3000:])
    cpu = json.load(open(log_c)) if pc.returncode == 0 else None
    gpu = json.load(open(log_g)) if pg.returncode == 0 else None
    compare("ladder h264 360p + hevc 720p (NVDEC)", cpu, gpu,
            ("float", "int", "block", "psnr", "mse"))
    if gpu is not None:
        r = gpu.get("renditions", [])
        t.ok([x.get("resampled") for x in r] == [True, False],
             "ladder (NVDEC): the 360p rendition resampled, the 720p one not", r)


def gpu_count():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
    except OSError:
        return 1
    return max(1, sum(1 for line in out.splitlines() if line.startswith("GPU ")))


def hwaccel_device_case():
    """-hwaccel_device N on both NVDEC inputs, for each GPU (two at most):
    both decoders and the filter share that one device, and the scores
    equal fssim's of the software-decoded frames."""
    import json
    hi, lo = (os.path.join(CLIPS, "hevc_8bit_%s.mkv" % q) for q in ("hi", "lo"))
    if not (os.path.exists(hi) and os.path.exists(lo)):
        t.skip("-hwaccel_device (NVDEC)", "clips not found in %s" % CLIPS)
        return
    opts = "algo=float+int+block+psnr"
    log_c = os.path.join(WORK, "hwdev_cpu.json")
    pc = ffmpeg("-i", lo, "-i", hi, "-lavfi", "[0:v][1:v]fssim=%s:log_path=%s" % (opts, log_c),
                "-f", "null", "-", check=False)
    cpu = json.load(open(log_c)) if pc.returncode == 0 else None
    for n in range(min(2, gpu_count())):
        log_g = os.path.join(WORK, "hwdev_%d.json" % n)
        dev = ["-hwaccel", "cuda", "-hwaccel_device", str(n), "-hwaccel_output_format", "cuda"]
        pg = ffmpeg(*dev, "-i", lo, *dev, "-i", hi,
                    "-lavfi", "[0:v][1:v]fssim_cuda=%s:log_path=%s" % (opts, log_g),
                    "-f", "null", "-", check=False)
        if pg.returncode != 0:
            t.diag(pg.stderr[-3000:])
        gpu = json.load(open(log_g)) if pg.returncode == 0 else None
        compare("hevc 8-bit, -hwaccel_device %d on both inputs (NVDEC)" % n, cpu, gpu,
                ("float", "int", "block", "psnr", "mse"))


def error_cases():
    # a clean failure: a positive exit code (ffmpeg exits with the error
    # code's low byte, e.g. 234 for EINVAL); a signal gives a negative one
    a = natural_clip(64, 48, 2, "nv12", directory=WORK, name="err_a")
    b = natural_clip(80, 48, 2, "nv12", directory=WORK, name="err_b")
    p = ffmpeg(*HW, *a.input_args(), *b.input_args(), "-lavfi",
               "[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim_cuda=scale=none",
               "-f", "null", "-", check=False)
    t.ok(p.returncode > 0 and "Input sizes differ" in p.stderr
         and "scale_cuda" in p.stderr, "size mismatch with scale=none: clear error naming "
         "scale_cuda", p.stderr[-1500:])
    p = ffmpeg(*HW, *a.input_args(), *a.input_args(), "-lavfi",
               "[0:v]hwupload[m];[1:v]format=bgr0,hwupload[r];[m][r]fssim_cuda",
               "-f", "null", "-", check=False)
    t.ok(p.returncode > 0 and "pixel formats differ" in p.stderr and "(YUV)" in p.stderr,
         "a reference of another colour family: clear error naming both", p.stderr[-1500:])
    p = ffmpeg(*HW, *a.input_args(), *a.input_args(), "-lavfi",
               "[0:v][1:v]fssim_cuda", "-f", "null", "-", check=False)
    t.ok(p.returncode > 0 and "carries no CUDA frames" in p.stderr,
         "software frames: clear error pointing to hwupload_cuda", p.stderr[-1500:])
    p = ffmpeg(*a.input_args(), *a.input_args(), "-lavfi",
               "[0:v]hwupload_cuda[m];[1:v]hwupload_cuda[r];[m][r]fssim_cuda",
               "-f", "null", "-", check=False)
    t.ok(p.returncode > 0 and "different CUDA" in p.stderr
         and "hwupload" in p.stderr, "two CUDA contexts: clear error with the fix",
         p.stderr[-1500:])


# memcheck: out-of-bounds and misaligned accesses; racecheck: shared-memory
# hazards between the kernels' passes; synccheck: barriers and warp shuffles
# (tile_sums) not reached by every thread they need
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck")


def sanitizer_case():
    tool = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    if not os.path.exists(tool):
        for name in SANITIZER_TOOLS:
            for what in ("a pair", "a ladder"):
                t.skip("compute-sanitizer %s, %s" % (name, what),
                       "compute-sanitizer not installed")
        return
    a = natural_clip(99, 70, 2, "p010", directory=WORK, name="san_a", seed=3)
    b = natural_clip(99, 70, 2, "p010", directory=WORK, name="san_b", seed=4)
    graphs = {
        "a pair": "[0:v]hwupload[m];[1:v]hwupload[r];"
                  "[m][r]fssim_cuda=algo=float+int+block+psnr:padding=same",
        # a ladder's kernels, and its resampler (a smaller rendition)
        "a ladder": "[0:v]split[a][b];[a]hwupload[m1];[b]scale=80:60,format=p010le,hwupload[m2];"
                    "[1:v]hwupload[r];[m1][m2][r]fssim_cuda=inputs=3:algo=float+int+block+psnr",
    }
    for name in SANITIZER_TOOLS:
        for what, graph in graphs.items():
            p = run([tool, "--tool", name, "--error-exitcode", "3", FFMPEG, "-hide_banner",
                     "-nostdin", "-y", *HW, *a.input_args(), *b.input_args(), "-lavfi", graph,
                     "-f", "null", "-"], check=False, timeout=600)
            out = p.stdout + p.stderr
            t.ok(p.returncode == 0 and re.search(r"SUMMARY: 0 (errors|hazards)", out),
                 "compute-sanitizer %s, %s: 0 errors" % (name, what), out[-2000:])


def main():
    why = cuda_device()
    if why:
        print("# SKIP: %s" % why)
        t.skip("fssim_cuda on the GPU", why)
        t.done()
    # 4:2:0 uploads keep even heights: hwupload to CUDA frames drops the last
    # chroma row of an odd-height frame (FFmpeg's hwcontext_cuda copies
    # height >> 1 chroma rows); odd heights are covered in 4:4:4
    upload_case("nv12_1920x1080", 1920, 1080, "nv12", frames=2)
    upload_case("yuv420p_1917x1078", 1917, 1078, "yuv420p", frames=2)
    upload_case("yuv444p_1917x1079", 1917, 1079, "yuv444p", frames=1)
    upload_case("p010_640x360", 640, 360, "p010")
    upload_case("yuv444p_333x201", 333, 201, "yuv444p")
    upload_case("yuv444p16_160x90", 160, 90, "yuv444p16")
    upload_case("yuv420p10_35x20_same", 35, 20, "yuv420p10", "algo=float+int+block:padding=same")
    upload_case("p016_64x48_same_w7", 64, 48, "p016", "algo=float+int+block:padding=same:window=7:sigma=1")
    upload_case("nv12_9x8_small", 9, 8, "nv12", "algo=float+int:padding=same")
    upload_case("yuv444p_7x5_int", 7, 5, "yuv444p", "algo=int")
    upload_case("nv12_flat", 128, 72, "nv12", content="flat")
    upload_case("p010_flat", 128, 72, "p010", content="flat")
    upload_case("yuv420p_identical", 256, 144, "yuv420p", nb_identical=True)
    upload_case("p010_identical_same", 98, 64, "p010", "algo=float+int+block:padding=same",
                nb_identical=True)
    upload_case("nv16_130x97_w15", 130, 97, "nv16", "algo=float+int+block:window=15:sigma=2.5")
    upload_case("p210_96x64_w3", 96, 64, "p210", "algo=float+int+block:window=3:sigma=0.7")
    # msssim: alone and with the fused kernels, sizes just above the smallest plane
    upload_case("msssim_nv12_1920x1080", 1920, 1080, "nv12", "algo=msssim", frames=2)
    upload_case("msssim_all_p010_640x360", 640, 360, "p010", "algo=float+int+block+msssim")
    upload_case("msssim_yuv444p10_161x165", 161, 165, "yuv444p10", "algo=msssim")
    upload_case("msssim_yuv420p_322x324", 322, 324, "yuv420p", "algo=msssim")
    upload_case("msssim_yuv444p16_w7", 200, 120, "yuv444p16", "algo=msssim:window=7:sigma=1")
    upload_case("msssim_nv12_flat", 512, 384, "nv12", "algo=msssim", content="flat")
    upload_case("msssim_yuv420p_identical", 400, 330, "yuv420p", "algo=msssim",
                nb_identical=True)
    # vmaf_ssim, vmaf_msssim: luma decimated by 4 (1080p), 3 (720p) and 1;
    # alone and with the fused kernels and msssim
    upload_case("vmaf_nv12_1920x1080", 1920, 1080, "nv12", "algo=vmaf_ssim+vmaf_msssim",
                frames=2)
    upload_case("vmaf_all_p010_640x360", 640, 360, "p010",
                "algo=float+int+block+msssim+vmaf_ssim+vmaf_msssim")
    upload_case("vmaf_yuv420p10_1280x720", 1280, 720, "yuv420p10",
                "algo=vmaf_ssim+vmaf_msssim", frames=2)
    upload_case("vmaf_yuv444p16_333x201", 333, 201, "yuv444p16", "algo=vmaf_ssim+vmaf_msssim")
    upload_case("vmaf_nv12_flat", 512, 384, "nv12", "algo=vmaf_ssim+vmaf_msssim",
                content="flat")
    upload_case("vmaf_yuv420p_identical", 400, 384, "yuv420p", "algo=vmaf_ssim+vmaf_msssim",
                nb_identical=True)
    # psnr: exact on both
    upload_case("psnr_p010_640x360", 640, 360, "p010", "algo=psnr+float")
    upload_case("psnr_yuv444p16_333x201", 333, 201, "yuv444p16", "algo=psnr")
    upload_case("psnr_yuv420p_identical", 256, 144, "yuv420p", "algo=psnr+int",
                nb_identical=True)
    # ladders: up, down and same size; 4:2:0 and 4:4:4; 8, 10 and 16 bits
    ladder_upload_case("ladder_nv12_1080", "nv12", (1920, 1080),
                       [(1920, 1080), (1280, 720), (640, 360), (2560, 1440)])
    ladder_upload_case("ladder_p010_odd", "p010", (640, 360), [(426, 240), (853, 480)],
                       "algo=float+int+psnr:scaler=lanczos")
    ladder_upload_case("ladder_yuv444p16", "yuv444p16", (333, 201), [(167, 101), (333, 201)],
                       "algo=float+int+block:scaler=bilinear")
    ladder_upload_case("ladder_msssim", "yuv420p", (640, 360), [(480, 270), (640, 360)],
                       "algo=msssim+int")
    ladder_upload_case("ladder_vmaf", "yuv420p", (1280, 720), [(640, 360), (1280, 720)],
                       "algo=vmaf_ssim+vmaf_msssim+int")
    for clip in ("h264_8bit", "h264_odd", "hevc_8bit", "hevc_10bit", "hevc_444", "hevc_444_10bit"):
        nvdec_case(clip)
    # pairs of another size and format, resampled on the GPU
    pair_upload_case("pair_720p_vs_1080p", "yuv420p", (1280, 720), "yuv420p", (1920, 1080))
    pair_upload_case("pair_yuv420p_vs_yuv422p10_1080p", "yuv420p", (1920, 1080), "yuv422p10",
                     (1920, 1080))
    pair_upload_case("pair_720p_nv12_vs_1080p_p010", "nv12", (1280, 720), "p010",
                     (1920, 1080), "algo=float+int+psnr+msssim:scaler=lanczos")
    pair_upload_case("pair_p010_vs_yuv444p_odd", "p010", (640, 360), "yuv444p", (333, 201))
    # samples above the depth: the 16-bit module, read as stored
    pair_upload_case("above_yuv420p10_640x360", "yuv420p10", (640, 360), "yuv420p10",
                     (640, 360), content="above")
    pair_upload_case("above_yuv444p10_333x201", "yuv444p10", (333, 201), "yuv444p10",
                     (333, 201), content="above")
    mixed_ladder_case()
    nvdec_ladder_case()
    hwaccel_device_case()
    error_cases()
    sanitizer_case()
    t.diag("%-34s %-6s %s" % ("case", "algo", "max |gpu - cpu|"))
    for name, algo, d in summary:
        t.diag("%-34s %-6s %.3g" % (name, algo, d))
    t.done()


if __name__ == "__main__":
    main()
