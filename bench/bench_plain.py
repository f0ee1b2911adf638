#!/usr/bin/env python3
"""The plain command line against decoding alone, run on a machine with an
NVIDIA GPU: the ratios that the README's performance table gives.

For each workload, on the same clips and in the same run, the best of
--reps runs of each (by whole-run wall time):

  decode   the inputs decoded in one process with no filter, each stream
           mapped to a null output (the baseline)
  score    the same inputs into the filter, the user's command line as it
           is (no second output)

Workloads (clips of bench/make_bench_clips.py, looped to --frames frames,
at least 600 per stream): 1080p, 2160p and 2160p 10-bit HEVC pairs, the
7-stream ladder (2160p reference, six renditions down to 360p), and
fssim3d at depth 11 on the 2160p pair; each on NVDEC frames (fssim_cuda,
fssim3d) and on Vulkan Video frames (fssim_vulkan, fssim3d).  Beside each
ratio: the filter's mean GPU time per frame (its verbose line), the peak
resident memory of the process and the peak device memory.

With --stock FFMPEG2 (the same build with FFmpeg's own ffmpeg tool:
configure --disable-tool-patches), also the score command run by that
binary, in the same run: its ratio to decoding, peak RSS and device memory
beside the patched tool's.

With --gpu-time, also the GPU time alone per 2160p pair for each algorithm
and for float+int, at 8 and 10 bits, on CUDA and Vulkan (the filters' own
timers: each frame's mean, and the busy time per frame, which counts once
the moments where frames overlap on the device).

With --variants a,b (or "all"), also each Vulkan workload's score command
with each variant of what may hold Vulkan frames back, in the same run,
against the same decoding baseline (doc/performance.md#vulkan-video-frames-in-flight):
the tool's read-ahead (-filter_readahead), the filter's frames in flight and
command buffers per rendition (its test hooks FSSIM_VULKAN_FRAMES_IN_FLIGHT
and FSSIM_VULKAN_JOB_PER_RENDITION), the decoders' extra hardware frames
and frame threads.

A run that does not end within --timeout seconds (a hang) is killed and
recorded as hung, with the end of its log; the workload's other runs go on.
With --deadline (seconds since the epoch), no run starts after it: what is
left is recorded as skipped, so that a device call ends in time with the
figures measured so far.

usage: bench_plain.py FFMPEG CLIPS_DIR [--out DIR] [--frames N] [--reps N]
                      [--only cuda|vulkan] [--gpu-time] [--workloads a,b (none: "")]
                      [--stock FFMPEG2] [--variants a,b|all] [--variant-reps N]
                      [--timeout S] [--deadline T]
Vulkan needs a loader: run under tests/device/vulkan-env.sh's set-up.
"""
import json
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import HW, MemSampler, clip_args, gpu_name, parse_gpu  # noqa: E402

VK = ["-hwaccel", "vulkan", "-hwaccel_device", "vk", "-hwaccel_output_format", "vulkan"]
VK_INIT = ["-init_hw_device", "vulkan=vk:0", "-filter_hw_device", "vk"]
LADDER = ["2160_hevc_8_qp34.mkv", "ladder_1440.mkv", "ladder_1080.mkv", "ladder_720.mkv",
          "ladder_540.mkv", "ladder_360.mkv", "2160_hevc_8_qp22.mkv"]


def pair(size, depth):
    return ["%s_hevc_%s_qp34.mkv" % (size, depth), "%s_hevc_%s_qp22.mkv" % (size, depth)]


# What may hold Vulkan frames back, one candidate at a time (and the most
# promising together): name -> (global options, options before each -i,
# environment).
VARIANTS = {
    "readahead1": (["-filter_readahead", "1"], [], {}),
    "readahead4": (["-filter_readahead", "4"], [], {}),
    "readahead8": (["-filter_readahead", "8"], [], {}),
    "readahead16": (["-filter_readahead", "16"], [], {}),
    "inflight2": ([], [], {"FSSIM_VULKAN_FRAMES_IN_FLIGHT": "2"}),
    "inflight12": ([], [], {"FSSIM_VULKAN_FRAMES_IN_FLIGHT": "12"}),
    "inflight24": ([], [], {"FSSIM_VULKAN_FRAMES_IN_FLIGHT": "24"}),
    "jobperrendition": ([], [], {"FSSIM_VULKAN_JOB_PER_RENDITION": "1"}),
    "extrahwframes16": ([], ["-extra_hw_frames", "16"], {}),
    "decthreads1": ([], ["-threads", "1"], {}),
    "readahead8+inflight12": (["-filter_readahead", "8"], [],
                              {"FSSIM_VULKAN_FRAMES_IN_FLIGHT": "12"}),
}


class Hung(RuntimeError):
    """A run that did not end within its timeout."""


# name: (clips, the filter and its options by backend)
WORKLOADS = {
    "1080p": (pair("1080", "8"), "fssim_{b}"),
    "2160p": (pair("2160", "8"), "fssim_{b}"),
    "2160p10": (pair("2160", "10"), "fssim_{b}"),
    "ladder7": (LADDER, "fssim_{b}=inputs=7"),
    "fssim3d": (pair("2160", "8"), "fssim3d=depth=11"),
}


TIMEOUT = 120
DEADLINE = None


def run(cmd, env=None):
    """Run cmd: (wall seconds, stderr, peak resident memory of the process
    in MiB).  Raises on failure, Hung after TIMEOUT seconds."""
    if DEADLINE and time.time() + 5 > DEADLINE:
        raise RuntimeError("skipped: past the deadline")
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         env=dict(os.environ, **env) if env else None)
    err = []
    killed = []
    reader = threading.Thread(target=lambda: err.append(p.stderr.read()), daemon=True)
    reader.start()
    timer = threading.Timer(TIMEOUT, lambda: killed.append(p.kill()))
    timer.start()
    _, status, ru = os.wait4(p.pid, 0)
    timer.cancel()
    dt = time.perf_counter() - t0
    reader.join(10)
    p.returncode = os.waitstatus_to_exitcode(status)
    text = err[0].decode("utf-8", "replace") if err else ""
    if killed:
        sys.stderr.write(text[-3000:])
        e = Hung("hung: no end after %d s: %s" % (TIMEOUT, " ".join(cmd)))
        e.log = text[-4000:]
        raise e
    if p.returncode != 0:
        sys.stderr.write(text[-3000:])
        e = RuntimeError("failed (%d): %s" % (p.returncode, " ".join(cmd)))
        e.log = text[-4000:]
        raise e
    return dt, text, ru.ru_maxrss / 1024.0


def best(cmd, frames, reps, env=None):
    """The fastest of reps runs: fps, seconds, GPU time, peak RSS and
    device memory (the highest over the runs)."""
    runs = []
    for _ in range(reps):
        m = MemSampler()
        m.start()
        try:
            dt, err, rss = run(cmd, env)
        finally:
            m.stop = True
            m.join()
        runs.append({"s": dt, "fps": frames / dt, "rss_mib": rss, "mem_mib": m.peak,
                     **parse_gpu(err)})
    r = dict(min(runs, key=lambda x: x["s"]))
    r["rss_mib"] = max(x["rss_mib"] for x in runs)
    r["mem_mib"] = max(x["mem_mib"] for x in runs)
    return r


def inputs(paths, hw, loops):
    out = []
    for p in paths:
        out += hw + ["-stream_loop", str(loops), "-i", p]
    return out


def commands(ff, clips, name, backend, loops, variant=None):
    """(decode, score) commands of a workload on a backend, with a variant
    of VARIANTS (its options; its environment is the caller's)."""
    files, filt = WORKLOADS[name]
    glob, per_input, _ = VARIANTS[variant] if variant else ([], [], {})
    paths = [os.path.join(clips, f) for f in files]
    base = [ff, "-hide_banner", "-nostdin", "-y", "-v", "verbose"] + glob
    if backend == "vulkan":
        base += VK_INIT
    hw = (HW if backend == "cuda" else VK) + per_input
    ins = inputs(paths, hw, loops)
    maps = sum((["-map", "%d:v" % i] for i in range(len(paths))), [])
    pads = "".join("[%d:v]" % i for i in range(len(paths)))
    decode = base + ins + maps + ["-f", "null", "-"]
    score = base + ins + ["-lavfi", pads + filt.format(b=backend), "-f", "null", "-"]
    return decode, score


def gpu_time(ff, clips, loops, frames, reps, backends):
    """The filters' mean GPU time per 2160p pair, each algorithm alone and
    float+int, at 8 and 10 bits."""
    out = {}
    for depth in ("8", "10"):
        paths = [os.path.join(clips, f) for f in pair("2160", depth)]
        for backend in backends:
            base = [ff, "-hide_banner", "-nostdin", "-y", "-v", "verbose"]
            if backend == "vulkan":
                base += VK_INIT
            ins = inputs(paths, HW if backend == "cuda" else VK, loops)
            for algo in ("float", "int", "block", "psnr", "msssim", "float+int"):
                r = best(base + ins + ["-lavfi", "[0:v][1:v]fssim_%s=algo=%s" % (backend, algo),
                                       "-f", "null", "-"], frames, reps)
                out["%s/%s/%s" % (depth, backend, algo)] = {"mean_us": r["gpu_us"],
                                                            "busy_us": r["gpu_busy_us"]}
                print("  GPU time %s-bit %s %s: mean %.1f us, busy %.1f us"
                      % (depth, backend, algo, r["gpu_us"] or -1, r["gpu_busy_us"] or -1),
                      flush=True)
    return out


def variant_runs(a, name, loops, frames, d, names):
    """The Vulkan score command of workload name with each variant, against
    the decoding baseline d."""
    out = {}
    for v in names:
        _, score = commands(a.ffmpeg, a.clips, name, "vulkan", loops, v)
        try:
            s = best(score, frames, a.variant_reps or a.reps, VARIANTS[v][2])
        except RuntimeError as e:
            out[v] = {"error": str(e).split(":")[0], "log": getattr(e, "log", "")}
            print("%-8s vulkan %-22s %s" % (name, v, str(e).split(":")[0]), flush=True)
            continue
        out[v] = {"score": s, "ratio": s["fps"] / d["fps"]}
        print("%-8s vulkan %-22s scored %7.1f fps: %.3f; GPU %s us/frame"
              % (name, v, s["fps"], s["fps"] / d["fps"],
                 "%.0f" % s["gpu_us"] if s["gpu_us"] else "-"), flush=True)
    return out


def main():
    global TIMEOUT, DEADLINE
    ap = clip_args()
    ap.set_defaults(frames=600)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--only", choices=("cuda", "vulkan"))
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--gpu-time", action="store_true")
    ap.add_argument("--stock", default=None, help="the same build with FFmpeg's own tool")
    ap.add_argument("--variants", default="", help="Vulkan variants (VARIANTS), or all")
    ap.add_argument("--variant-reps", type=int, default=0, help="runs per variant (--reps)")
    ap.add_argument("--timeout", type=int, default=TIMEOUT, help="seconds a run may take")
    ap.add_argument("--deadline", type=float, default=None, help="no run starts after it")
    a = ap.parse_args()
    TIMEOUT = a.timeout
    DEADLINE = a.deadline
    variants = list(VARIANTS) if a.variants == "all" else [v for v in a.variants.split(",")
                                                           if v]
    for v in variants:
        if v not in VARIANTS:
            ap.error("unknown variant %s (known: %s)" % (v, ", ".join(VARIANTS)))
    os.makedirs(a.out, exist_ok=True)
    loops = max(0, -(-a.frames // a.clip_frames) - 1)
    frames = a.clip_frames * (loops + 1)
    backends = [a.only] if a.only else ["cuda", "vulkan"]
    res = {"device": gpu_name(), "frames": frames, "reps": a.reps, "runs": {}}
    print("device: %s; %d frames per stream, best of %d" % (res["device"], frames, a.reps),
          flush=True)
    for name in [w for w in a.workloads.split(",") if w]:
        files = WORKLOADS[name][0]
        if not all(os.path.exists(os.path.join(a.clips, f)) for f in files):
            print("%s: clips missing, skipped" % name, flush=True)
            continue
        for backend in backends:
            decode, score = commands(a.ffmpeg, a.clips, name, backend, loops)
            try:
                d = best(decode, frames, a.reps)
            except RuntimeError as e:
                print("%s %s: decoding alone: %s" % (name, backend, e), flush=True)
                res["runs"]["%s/%s" % (name, backend)] = {"error": "decode: " + str(e),
                                                          "log": getattr(e, "log", "")}
                save(a.out, res)
                continue
            try:
                s = best(score, frames, a.reps)
            except RuntimeError as e:
                print("%s %s: %s" % (name, backend, e), flush=True)
                res["runs"]["%s/%s" % (name, backend)] = {"decode": d, "error": str(e),
                                                          "log": getattr(e, "log", "")}
                if backend == "vulkan" and variants:
                    res["runs"]["%s/%s" % (name, backend)]["variants"] = variant_runs(
                        a, name, loops, frames, d, variants)
                save(a.out, res)
                continue
            ratio = s["fps"] / d["fps"]
            res["runs"]["%s/%s" % (name, backend)] = {"decode": d, "score": s, "ratio": ratio}
            if a.stock:
                try:
                    k = best([a.stock] + score[1:], frames, a.reps)
                except RuntimeError as e:
                    print("%s %s stock tool: %s" % (name, backend, e), flush=True)
                else:
                    res["runs"]["%s/%s" % (name, backend)].update(
                        stock=k, stock_ratio=k["fps"] / d["fps"])
                    print("%-8s %-6s FFmpeg's own tool: scored %7.1f fps: %.3f; RSS %.0f MiB, "
                          "device %d MiB" % (name, backend, k["fps"], k["fps"] / d["fps"],
                                             k["rss_mib"], k["mem_mib"]), flush=True)
            save(a.out, res)
            print("%-8s %-6s decode %7.1f fps, scored %7.1f fps: %.3f; GPU %s us/frame; "
                  "RSS %.0f/%.0f MiB, device %d/%d MiB"
                  % (name, backend, d["fps"], s["fps"], ratio,
                     "%.0f" % s["gpu_us"] if s["gpu_us"] else "-", d["rss_mib"], s["rss_mib"],
                     d["mem_mib"], s["mem_mib"]), flush=True)
            if backend == "vulkan" and variants:
                res["runs"]["%s/%s" % (name, backend)]["variants"] = variant_runs(
                    a, name, loops, frames, d, variants)
                save(a.out, res)
    if a.gpu_time:
        res["gpu_time"] = gpu_time(a.ffmpeg, a.clips, max(0, 300 // a.clip_frames - 1),
                                   a.clip_frames * max(1, 300 // a.clip_frames), a.reps, backends)
    save(a.out, res)


def save(out, res):
    """The figures so far: a run cut short keeps what it measured."""
    with open(os.path.join(out, "bench_plain.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
