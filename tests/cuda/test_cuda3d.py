"""fssim3d on CUDA frames against fssim3d on software frames (the CPU
reference backend) on the GPU.

Every case scores the same frames twice: with fssim3d on software frames
and with fssim3d on CUDA frames (hwupload on one filter device, or NVDEC
decoding of the clips of tests/cuda/make_clips.py), and compares every
component of every frame to 1e-6 (the CUDA backend's contract).  Also:
two GPU runs are bitwise identical, as many frames come out as went in
and every one is scored under tpadding=truncate (a 120-frame looped clip
through the ring and the flush), identical inputs score exactly 1, the
ring's device memory is logged, bad inputs get clear errors (doc/errors.md), and
compute-sanitizer's memcheck finds nothing.

Without a CUDA device every check reports SKIP with the reason.

With FSSIM_FAKE_CUDA=DIR, DIR holding the stand-in driver of
tests/cuda/fake_libcuda.cpp (a libcuda.so.1 that runs fssim3d's kernels
through the CPU emulator), the same checks run on small frames with no GPU:
the filter's whole host side (hwcontext_cuda, hwupload, streams and events,
launch geometry, ring slots, the window upload, the readback, the flush)
against the software backend.  NVDEC and compute-sanitizer are skipped
then (tests/cuda/test_cuda3d_emu.sh).

Environment: FFMPEG (the ffmpeg to test), FSSIM_CLIPS (the NVDEC clips;
default: the work folder), PYTHONPATH=tests/lib.
"""
import json
import os
import re
import shutil

from fssimtest import Tap, ffmpeg, has_filter, natural_clip, workdir, run, FFMPEG

TOL = 1e-6
t = Tap()
FAKE = os.environ.get("FSSIM_FAKE_CUDA")
WORK = workdir("cuda3d-emu" if FAKE else "cuda3d")
CRASH = re.compile(r"Assertion|Segmentation|core dumped|AddressSanitizer|double free|"
                   r"stack smashing|Aborted", re.I)
HW = ["-init_hw_device", "cuda=cu", "-filter_hw_device", "cu"]
NVDEC = ["-hwaccel", "cuda", "-hwaccel_output_format", "cuda"]
CLIPS = os.environ.get("FSSIM_CLIPS") or os.path.join(WORK, "nvdec-clips")
SKIP = None          # why the checks are skipped, once known
summary = []         # (case, max diff)


def cuda_device():
    """None if fssim3d can score CUDA frames here, else why not."""
    if not has_filter("fssim3d"):
        return "fssim3d not built"
    if not has_filter("fssim_cuda"):
        return "FFmpeg built without CUDA (configure --with-cuda=llvm|nvcc)"
    if FAKE:
        if not os.path.exists(os.path.join(FAKE, "libcuda.so.1")):
            return "the emulated driver %s/libcuda.so.1 is not built" % FAKE
        os.environ["LD_LIBRARY_PATH"] = FAKE + (":" + os.environ["LD_LIBRARY_PATH"]
                                                if os.environ.get("LD_LIBRARY_PATH") else "")
    p = ffmpeg(*HW, "-f", "lavfi", "-i", "color=s=64x64:d=0.04,format=nv12",
               "-vf", "hwupload", "-f", "null", "-", check=False)
    if p.returncode != 0:
        return "no CUDA device"
    return None


def label(desc):
    return "emulated driver: " + desc if FAKE else desc


def check(desc, fn):
    """One TAP check: fn() -> (cond, diag); skipped without a device."""
    desc = label(desc)
    if SKIP:
        t.skip(desc, SKIP)
        return
    try:
        cond, diag = fn()
    except Exception as e:      # a failed run is a failed check, not a crash
        cond, diag = False, "%s: %s" % (type(e).__name__, e)
    t.ok(cond, desc, diag)


def score(args, graph, tag, extra=()):
    """Run ffmpeg with -lavfi graph(log) and return (log, stderr, rc)."""
    log = os.path.join(WORK, tag + ".json")
    if os.path.exists(log):
        os.unlink(log)
    p = ffmpeg(*args, "-lavfi", graph(log), *extra, "-f", "null", "-", check=False)
    lg = None
    if p.returncode == 0 and os.path.exists(log):
        with open(log) as f:
            lg = json.load(f)
    return lg, p.stderr, p.returncode


def frames_out(stderr):
    m = re.findall(r"frame=\s*(\d+)", stderr)
    return int(m[-1]) if m else None


def max_diff(cpu, gpu):
    """Largest |gpu - cpu| over every frame and component (not dB, which
    magnifies differences near 1), and where."""
    worst, where = 0.0, None
    if len(cpu["frames"]) != len(gpu["frames"]):
        return float("inf"), "frame counts differ"
    for a, b in zip(cpu["frames"], gpu["frames"]):
        if a["n"] != b["n"]:
            return float("inf"), "frame numbers differ: %r %r" % (a["n"], b["n"])
        for c, v in a["fssim3d"].items():
            if c == "dB":
                continue
            w = b["fssim3d"].get(c)
            d = abs(v - w) if v is not None and w is not None else float("inf")
            if d > worst:
                worst, where = d, (a["n"], c, v, w)
    return worst, where


def compare(name, cpu, gpu, err_g, nb_frames=None, gpu2=None, identical=False):
    """The checks of one CPU/GPU pair of runs."""
    res = {}

    def diff():
        if "d" not in res:
            res["d"] = max_diff(cpu, gpu) if cpu and gpu else (float("inf"), err_g[-2000:])
            summary.append((name, res["d"][0]))
        return res["d"]
    check("%s: both runs succeed, same frames scored%s" % (
              name, "" if nb_frames is None else " (%d)" % nb_frames),
          lambda: (cpu is not None and gpu is not None and len(gpu["frames"]) > 0 and
                   [f["n"] for f in cpu["frames"]] == [f["n"] for f in gpu["frames"]] and
                   (nb_frames is None or len(gpu["frames"]) == nb_frames),
                   err_g[-2500:] if gpu is None else
                   "cpu %s gpu %s" % (cpu and len(cpu["frames"]), len(gpu["frames"]))))
    check("%s: every frame and component within %g of the software backend" % (name, TOL),
          lambda: (diff()[0] <= TOL, "max diff %.3g at frame/comp/cpu/gpu %r" % diff()))
    if gpu2 is not False:
        check("%s: two GPU runs bitwise identical" % name,
              lambda: (gpu is not None and gpu2 is not None and gpu["frames"] == gpu2["frames"],
                       None))
    if identical:
        check("%s: identical inputs score exactly 1" % name,
              lambda: (gpu is not None and all(v == 1.0 for f in gpu["frames"]
                                               for c, v in f["fssim3d"].items() if c != "dB"),
                       [f["fssim3d"] for f in gpu["frames"][:3]] if gpu else None))


def graph_cuda(fmt, opts):
    # hwupload on the one filter device: two hwupload_cuda would make two
    # CUDA contexts, which fssim3d refuses
    up = "format=%s,hwupload" % fmt
    return lambda log: "[0:v]%s[m];[1:v]%s[r];[m][r]fssim3d=%s:log_path=%s" % (
        up, up, opts, log)


def graph_cpu(fmt, opts):
    return lambda log: "[0:v]format=%s[m];[1:v]format=%s[r];[m][r]fssim3d=%s:log_path=%s" % (
        fmt, fmt, opts, log)


def upload_case(name, w, h, fmt, opts="", frames=12, identical=False, expect=None, loops=0):
    """Software frames of natural content, uploaded, against the same
    frames scored in software.  loops: the clips looped that many more
    times (-stream_loop): a long sequence through the ring."""
    opts = opts or "depth=11"
    nb = frames * (loops + 1)
    tag = "%s%s %s" % (name, " looped x%d" % (loops + 1) if loops else "", opts)
    cpu = gpu = gpu2 = None
    err = ""
    if not SKIP:
        ref = natural_clip(w, h, frames, fmt, directory=WORK, name=name + "_r", seed=2)
        main = ref if identical else natural_clip(
            w, h, frames, fmt, directory=WORK, name=name + "_m", seed=2,
            distort={"blur": 1.1, "noise": 4.0, "block": 8})
        lp = ["-stream_loop", str(loops)] if loops else []
        inputs = lp + main.input_args() + lp + ref.input_args()
        cpu, _, _ = score(HW + inputs, graph_cpu(fmt, opts), name + "_cpu")
        gpu, err, _ = score(HW + inputs, graph_cuda(fmt, opts), name + "_gpu")
        gpu2, _, _ = score(HW + inputs, graph_cuda(fmt, opts), name + "_gpu2")
    compare(tag, cpu, gpu, err, nb_frames=nb if expect is None else expect, gpu2=gpu2,
            identical=identical)
    if loops:
        check("%s: %d frames in, %d out, every one scored" % (tag, nb, nb),
              lambda: (gpu is not None and frames_out(err) == nb and gpu["frame_count"] == nb
                       and [f["n"] for f in gpu["frames"]] == list(range(nb)),
                       "frames out %r, log %r" % (frames_out(err), gpu and gpu["frame_count"])))


def pair_case(name, mfmt, msize, rfmt, rsize, opts="depth=5", frames=8):
    """A main input of another size and format than the reference, uploaded
    as it is: fssim3d's moments of its planes resampled on the GPU (the
    resampler's module), against the software backend."""
    tag = "%s %s" % (name, opts)
    cpu = gpu = gpu2 = None
    err = ""
    if not SKIP:
        ref = natural_clip(*rsize, frames, rfmt, directory=WORK, name=name + "_r", seed=2)
        main = natural_clip(*msize, frames, mfmt, directory=WORK, name=name + "_m", seed=2,
                            distort={"blur": 1.1, "noise": 4.0, "block": 8})
        inputs = main.input_args() + ref.input_args()
        cpu, _, _ = score(HW + inputs, lambda log: "[0:v][1:v]fssim3d=%s:log_path=%s" % (
            opts, log), name + "_cpu")
        gpu_graph = lambda log: "[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim3d=%s:" \
                                "log_path=%s" % (opts, log)
        gpu, err, _ = score(HW + inputs, gpu_graph, name + "_gpu")
        gpu2, _, _ = score(HW + inputs, gpu_graph, name + "_gpu2")
    compare(tag, cpu, gpu, err, nb_frames=frames, gpu2=gpu2)
    check("%s: the log records the main input resampled" % tag,
          lambda: (gpu is not None and gpu["input"].get("main", {}).get("resampled") is True,
                   gpu and gpu["input"]))


def ring_log_case():
    """The ring's size is logged at INFO: depth x 16 bytes x scored
    positions per component (each component's records 256-byte aligned)."""
    w, h, depth = 320, 180, 7
    positions = [(w - 10) * (h - 10)] + [(w // 2 - 10) * (h // 2 - 10)] * 2
    mib = depth * sum((n * 16 + 255) // 256 * 256 for n in positions) / 1048576.0
    err = ""
    if not SKIP:
        clip = natural_clip(w, h, 3, "nv12", directory=WORK, name="ring", seed=4)
        _, err, _ = score(HW + clip.input_args() + clip.input_args(),
                          graph_cuda("nv12", "depth=%d" % depth), "ring",
                          extra=("-v", "verbose"))
    check("the ring's device memory is logged (%d moment sets, %.1f MiB, CUDA)" % (depth, mib),
          lambda: (re.search(r"fssim3d: ring of %d moment sets, %.1f MiB \(CUDA, device memory"
                             % (depth, mib), err) is not None,
                   "\n".join(l for l in err.splitlines() if "ring" in l) or err[-1500:]))
    check("GPU time per frame is logged at -v verbose",
          lambda: (re.search(r"GPU time per frame pair: [\d.]+ us over 3 frames", err)
                   is not None, err[-1500:]))


def nvdec_case(name, loops=0, opts="", frames=24):
    """NVDEC-decoded frames through the CUDA backend against the
    software-decoded frames of the same files (H.264 and HEVC decoding are
    bit-exact) through the software backend."""
    hi, lo = (os.path.join(CLIPS, "%s_%s.mkv" % (name, q)) for q in ("hi", "lo"))
    tag = "%s%s NVDEC" % (name, " looped x%d" % (loops + 1) if loops else "")
    nb = frames * (loops + 1)
    descs = 2 + (loops > 0) * 3
    why = None
    if FAKE:
        why = "NVDEC needs the GPU (emulated driver)"
    elif not SKIP and not (os.path.exists(hi) and os.path.exists(lo)):
        why = "clip not found in %s (make it with tests/cuda/make_clips.py)" % CLIPS
    if why:
        for i in range(descs):
            t.skip(label("%s (check %d)" % (tag, i + 1)), why)
        return
    cpu = gpu = gpu2 = None
    err = ""
    lp = ["-stream_loop", str(loops)] if loops else []
    opts = opts or "depth=11"
    if not SKIP:
        cpu, _, _ = score(lp + ["-i", lo] + lp + ["-i", hi],
                          lambda log: "[0:v][1:v]fssim3d=%s:log_path=%s" % (opts, log),
                          name + "_cpu%d" % loops)
        gpu, err, _ = score(NVDEC + lp + ["-i", lo] + NVDEC + lp + ["-i", hi],
                            lambda log: "[0:v][1:v]fssim3d=%s:log_path=%s" % (opts, log),
                            name + "_gpu%d" % loops)
        if loops:
            gpu2, _, _ = score(NVDEC + lp + ["-i", lo] + NVDEC + lp + ["-i", hi],
                               lambda log: "[0:v][1:v]fssim3d=%s:log_path=%s" % (opts, log),
                               name + "_gpu%db" % loops)
    compare("%s %s" % (tag, opts), cpu, gpu, err, nb_frames=nb, gpu2=gpu2 if loops else False)
    if loops:
        check("%s: %d frames in, %d out, every one scored, numbered 0..%d" % (tag, nb, nb, nb - 1),
              lambda: (gpu is not None and frames_out(err) == nb and gpu["frame_count"] == nb
                       and [f["n"] for f in gpu["frames"]] == list(range(nb))
                       and all(f["fssim3d"]["Y"] is not None for f in gpu["frames"]),
                       "frames out %r, log %r" % (frames_out(err), gpu and gpu["frame_count"])))
        check("%s: decoded as %s on the GPU, the low-quality encode scores below 1" % (
                  tag, "p010" if "10bit" in name else "nv12"),
              lambda: (gpu is not None and gpu["input"]["pix_fmt"] in ("nv12", "p010le", "p010")
                       and gpu["pooled"]["fssim3d"]["All"]["mean"] < 0.999,
                       gpu and (gpu["input"], gpu["pooled"]["fssim3d"]["All"])))


def error_cases():
    a = b = c = None
    if not SKIP:
        a = natural_clip(64, 48, 2, "nv12", directory=WORK, name="err_a")
        b = natural_clip(80, 48, 2, "nv12", directory=WORK, name="err_b")
        c = natural_clip(64, 48, 2, "yuv420p", directory=WORK, name="err_c")

    def fails(args, graph, *needles):
        # ffmpeg exits with AVERROR & 0xff (234 for EINVAL); a signal is < 0
        p = ffmpeg(*args, "-lavfi", graph, "-f", "null", "-", check=False)
        return (p.returncode > 0 and not CRASH.search(p.stderr) and
                all(n in p.stderr for n in needles),
                "exit status %d\n%s" % (p.returncode, p.stderr[-1500:]))

    check("fssim3d CUDA: size mismatch with scale=none, clear error naming scale_cuda",
          lambda: fails(HW + a.input_args() + b.input_args(),
                        "[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim3d=scale=none",
                        "Input sizes differ", "scale_cuda"))
    check("fssim3d CUDA: a reference of another colour family, clear error naming both",
          lambda: fails(HW + a.input_args() + c.input_args(),
                        "[0:v]hwupload[m];[1:v]format=bgr0,hwupload[r];[m][r]fssim3d",
                        "pixel formats differ", "(YUV)"))
    check("fssim3d: CUDA main and software reference, clear error with the fix",
          lambda: fails(HW + a.input_args() + a.input_args(),
                        "[0:v]hwupload[m];[m][1:v]fssim3d",
                        "carries CUDA frames but the reference input software frames",
                        "hwupload"))
    check("fssim3d: two CUDA contexts, clear error with the fix",
          lambda: fails(a.input_args() + a.input_args(),
                        "[0:v]hwupload_cuda[m];[1:v]hwupload_cuda[r];[m][r]fssim3d",
                        "different CUDA", "hwupload"))
    check("fssim3d CUDA: tpadding=valid on a sequence shorter than depth, clear error",
          lambda: fails(HW + a.input_args() + a.input_args(),
                        "[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim3d=tpadding=valid",
                        "no frame was scored"))


def sanitizer_case():
    tool = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    desc = "compute-sanitizer memcheck: 0 errors (p010 99x70, padding=same, depth 5)"
    if FAKE:
        t.skip(label(desc), "compute-sanitizer needs the GPU (emulated driver)")
        return
    if not SKIP and not os.path.exists(tool):
        t.skip(label(desc), "compute-sanitizer not installed")
        return
    p = None
    if not SKIP:
        a = natural_clip(99, 70, 6, "p010", directory=WORK, name="san_a", seed=3)
        b = natural_clip(99, 70, 6, "p010", directory=WORK, name="san_b", seed=4)
        p = run([tool, "--tool", "memcheck", "--error-exitcode", "3", FFMPEG, "-hide_banner",
                 "-nostdin", "-y", *HW, *a.input_args(), *b.input_args(), "-lavfi",
                 "[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim3d=padding=same:depth=5",
                 "-f", "null", "-"], check=False, timeout=600)
    check(desc, lambda: (p.returncode == 0 and "ERROR SUMMARY: 0 errors" in p.stdout + p.stderr,
                         (p.stdout + p.stderr)[-2000:]))


def main():
    global SKIP
    SKIP = cuda_device()
    if SKIP:
        print("# SKIP: %s" % SKIP)
    # 4:2:0 uploads keep even heights: hwupload to CUDA frames drops the
    # last chroma row of an odd-height frame (FFmpeg's hwcontext_cuda
    # copies height >> 1 chroma rows); odd sizes are covered in 4:4:4 and
    # by odd widths.  The emulated driver runs the kernels on the CPU:
    # smaller frames there.
    big = not FAKE
    upload_case("yuv420p", 352 if big else 96, 288 if big else 64, "yuv420p",
                frames=16 if big else 12)
    upload_case("nv12_odd_w", 321 if big else 75, 180 if big else 44, "nv12", "depth=5:tsigma=1")
    upload_case("p010", 320 if big else 64, 180 if big else 36, "p010", "depth=7")
    upload_case("yuv420p10", 200 if big else 48, 112 if big else 30, "yuv420p10",
                "depth=3:padding=same")
    upload_case("yuv444p16_odd", 99 if big else 37, 71 if big else 23, "yuv444p16",
                "depth=5:window=7:sigma=1.1")
    upload_case("yuva420p", 96 if big else 48, 64 if big else 40, "yuva420p",
                "depth=5:window=15:sigma=2.5")
    upload_case("nv12_tvalid", 160 if big else 48, 90 if big else 32, "nv12",
                "depth=5:tpadding=valid", frames=9, expect=5)
    upload_case("nv12_short", 160 if big else 48, 90 if big else 32, "nv12", "depth=11", frames=4)
    upload_case("nv12_depth1", 128 if big else 40, 72 if big else 24, "nv12",
                "depth=1:padding=same", frames=3)
    upload_case("yuv420p_identical", 256 if big else 64, 144 if big else 36, "yuv420p",
                "depth=5", frames=6, identical=True)
    upload_case("p010_identical_same", 98 if big else 44, 64 if big else 26, "p010",
                "depth=3:padding=same:window=9", frames=4, identical=True)
    # 12 frames looped 10 times: 120 frames through the ring of 11
    upload_case("nv12_long", 128 if big else 40, 72 if big else 24, "nv12", "depth=11",
                frames=12, loops=9)
    # a main input of another size and format, resampled on the GPU
    pair_case("pair_yuv420p_vs_yuv420p10", "yuv420p", (240, 136) if big else (48, 36),
              "yuv420p10", (320, 180) if big else (64, 48))
    pair_case("pair_p010_vs_nv12_down", "p010", (352, 288) if big else (80, 60), "nv12",
              (256, 144) if big else (56, 42), "depth=3:scaler=lanczos:padding=same")
    ring_log_case()
    for clip in ("hevc_8bit", "hevc_10bit", "h264_8bit"):
        nvdec_case(clip)
    # 24-frame clips looped 5 times: 120 frames through the ring of 11
    nvdec_case("hevc_8bit", loops=4)
    nvdec_case("hevc_10bit", loops=4, opts="depth=11:padding=same")
    error_cases()
    sanitizer_case()
    if summary:
        t.diag("%-50s %s" % ("case", "max |gpu - cpu|"))
        for name, d in summary:
            t.diag("%-50s %.3g" % (name, d))
    t.done()


if __name__ == "__main__":
    main()
