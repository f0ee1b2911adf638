#!/usr/bin/env python3
"""Ladder benchmark, run on a machine with an NVIDIA GPU.

One 2160p HEVC reference and six renditions (2160p HEVC at a higher QP,
1440p/1080p/720p/540p/360p H.264: bench/make_bench_clips.py --ladder), each
looped to --frames frames.  On the same clips and in the same run (the best
of 2):

  decode       NVDEC decode of the seven streams, no filter (the baseline)
  ladder       NVDEC + one fssim_cuda=inputs=7 (renditions resampled inside)
  ladder_fed   the same, with the seven decoded streams also sent to a second
               null output (benchlib.fed_output), so that the seven decoders
               run side by side
  split_scale  NVDEC + FFmpeg's own filters: split the reference six ways,
               scale_cuda each rendition to 2160p, six fssim_cuda
  processes    six processes at once, each NVDEC of the reference and one
               rendition, scale_cuda, fssim_cuda (the reference decoded six
               times); fps = frames / wall time of the slowest (no steady
               figure: the six are timed by wall clock only)
  vk_decode    Vulkan Video decode of the seven streams, no filter
  vk_ladder    Vulkan decode + one fssim_vulkan=inputs=7
  vk_ladder_fed  the same with the second output
  sw           (--sw) software decode + scale + six FFmpeg ssim on all cores

fps as ladder frames (one reference frame and its six renditions) per
second, each as a ratio to its decode baseline; beside it the "steady" fps,
the rate between 20% and 95% of the run from ffmpeg's progress reports
(benchlib.steady_fps: without the process start and teardown, which a short
run pays in full and a long farm job once; the best of the runs), as a
ratio to the decode baseline's steady fps; the filters' GPU time per
ladder frame (their verbose line at uninit); device memory; and, for the
CUDA ladder, the time from process start to the first scored ladder frame
with an empty and a warm driver JIT cache.  Vulkan needs a loader: run
under tests/device/vulkan-env.sh's set-up (tests/device/gpu_tests.sh does).

usage: bench_ladder.py FFMPEG CLIPS_DIR [--out DIR] [--frames N] [--algo A] [--sw]
"""
import json
import os
import sys
import time
import subprocess

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (HW, VK_DEV, VK_HW, MemSampler, best, clip_args,  # noqa: E402
                      fed_output, gpu_name, parse_clip_args, parse_gpu, start_summary,
                      start_times, steady_text)

RENDITIONS = ["2160_hevc_8_qp34.mkv", "ladder_1440.mkv", "ladder_1080.mkv",
              "ladder_720.mkv", "ladder_540.mkv", "ladder_360.mkv"]
REFERENCE = "2160_hevc_8_qp22.mkv"


def inputs(paths, hw, loops):
    out = []
    for p in paths:
        out += hw + ["-stream_loop", str(loops), "-i", p]
    return out


def six_outputs():
    """-map [oK] -f null - for K = 1..6."""
    out = []
    for k in range(1, 7):
        out += ["-map", "[o%d]" % k, "-f", "null", "-"]
    return out


def split_scale_graph(scale, score):
    """The reference (input 6) split six ways, each rendition scaled to 2160p
    and scored against one copy."""
    g = ["[6:v]split=6" + "".join("[r%d]" % k for k in range(1, 7))]
    for k in range(1, 7):
        g.append("[%d:v]%s[s%d];[s%d][r%d]%s[o%d]" % (k - 1, scale, k, k, k, score, k))
    return ";".join(g)


def processes(ff, clips, loops, frames, algo):
    """Six ffmpeg processes at once, one per rendition."""
    ref = os.path.join(clips, REFERENCE)
    cmds = []
    for r in RENDITIONS:
        cmds.append([ff, "-hide_banner", "-nostdin", "-y"] +
                    inputs([os.path.join(clips, r), ref], HW, loops) +
                    ["-lavfi", "[0:v]scale_cuda=3840:2160[s];[s][1:v]fssim_cuda=algo=%s" % algo,
                     "-f", "null", "-"])
    m = MemSampler()
    m.start()
    t0 = time.perf_counter()
    ps = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
          for c in cmds]
    errs = [p.communicate()[1] for p in ps]
    dt = time.perf_counter() - t0
    m.stop = True
    m.join()
    if any(p.returncode for p in ps):
        sys.stderr.write("".join(e[-2000:] for e in errs))
        raise RuntimeError("a ladder process failed")
    return {"s": dt, "fps": frames / dt, "mem_mib": m.peak}


def main():
    ap = clip_args()
    ap.add_argument("--algo", default="float+int")
    ap.add_argument("--sw", action="store_true")
    ap.add_argument("--no-vulkan", action="store_true")
    ap.add_argument("--ways", default="cuda,start,vulkan",
                    help="which groups run: cuda (decode, ladder, split_scale, processes), "
                         "start (cold and warm start), vulkan")
    a, loops, frames = parse_clip_args(ap)
    ways = a.ways.split(",")
    ff = a.ffmpeg
    paths = [os.path.join(a.clips, p) for p in RENDITIONS + [REFERENCE]]
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        sys.exit("missing clips (bench/make_bench_clips.py --ladder): " + " ".join(missing))
    base = [ff, "-hide_banner", "-nostdin", "-y", "-v", "verbose"]
    maps = sum((["-map", "%d:v" % i] for i in range(7)), [])
    pads = "".join("[%d:v]" % i for i in range(7))
    hw_in = inputs(paths, HW, loops)
    res = {"device": gpu_name(), "frames": frames, "algo": a.algo}
    print("device: %s; %d ladder frames per run, algo=%s" % (res["device"], frames, a.algo),
          flush=True)

    def done(k):
        """Each way as it ends: a run cut short still says how far it got."""
        print("  %s: %.1f ladder frames/s, steady %s" % (k, res[k]["fps"],
                                                        steady_text(res[k])), flush=True)

    if "cuda" in ways:
        res["decode"] = best(base + hw_in + maps + ["-f", "null", "-"], frames, parse_gpu)
        done("decode")
        res["ladder"] = best(base + hw_in + ["-lavfi", "%sfssim_cuda=inputs=7:algo=%s"
                                             % (pads, a.algo), "-f", "null", "-"],
                             frames, parse_gpu)
        done("ladder")
        res["ladder_fed"] = best(base + hw_in + ["-lavfi", "%sfssim_cuda=inputs=7:algo=%s"
                                                 % (pads, a.algo), "-f", "null", "-"]
                                 + fed_output(7), frames, parse_gpu)
        done("ladder_fed")
        res["split_scale"] = best(base + hw_in + [
            "-filter_complex", split_scale_graph("scale_cuda=3840:2160",
                                                 "fssim_cuda=algo=" + a.algo)]
            + six_outputs(), frames, parse_gpu)
        done("split_scale")
        res["processes"] = processes(ff, a.clips, loops, frames, a.algo)
        done("processes")
    if "start" in ways:
        one = [ff, "-hide_banner", "-nostdin", "-y"] + inputs(paths, HW, 0)
        res["start"] = start_times(one + ["-lavfi", "%sfssim_cuda=inputs=7:algo=%s"
                                          % (pads, a.algo), "-frames:v", "1", "-f", "null", "-"],
                                   one + maps + ["-frames:v", "1", "-f", "null", "-"])
    if not a.no_vulkan and "vulkan" in ways:
        vk_in = VK_DEV + inputs(paths, VK_HW, loops)
        try:
            res["vk_decode"] = best(base + vk_in + maps + ["-f", "null", "-"], frames, parse_gpu)
            done("vk_decode")
            res["vk_ladder"] = best(base + vk_in + ["-lavfi", "%sfssim_vulkan=inputs=7:algo=%s"
                                                    % (pads, a.algo), "-f", "null", "-"],
                                    frames, parse_gpu)
            done("vk_ladder")
            res["vk_ladder_fed"] = best(base + vk_in + [
                "-lavfi", "%sfssim_vulkan=inputs=7:algo=%s" % (pads, a.algo), "-f", "null", "-"]
                + fed_output(7), frames, parse_gpu)
            done("vk_ladder_fed")
        except RuntimeError as err:
            print("Vulkan runs failed: %s" % err, flush=True)
    if a.sw:
        threads = str(os.cpu_count())
        sw_in = []
        for p in paths:
            sw_in += ["-threads", threads, "-stream_loop", str(loops), "-i", p]
        res["sw"] = best(base + sw_in + ["-filter_threads", threads, "-filter_complex",
                                         split_scale_graph("scale=3840:2160:flags=bicubic",
                                                           "ssim")] + six_outputs(),
                         frames, parse_gpu, reps=1)

    d = res["decode"]["fps"] if "decode" in res else None
    for k in ("decode", "ladder", "ladder_fed", "split_scale", "processes", "sw"):
        if k in res and d:
            r = res[k]
            print("%-12s %7.1f ladder frames/s (%.3f of NVDEC decode), steady %s  "
                  "GPU %s us/ladder frame  GPU memory %d MiB"
                  % (k, r["fps"], r["fps"] / d, steady_text(r, res["decode"]),
                     "%.1f" % r["gpu_us"] if r.get("gpu_us") else "-",
                     r["mem_mib"]), flush=True)
    if "vk_ladder" in res:
        vd = res["vk_decode"]["fps"]
        for k in ("vk_decode", "vk_ladder", "vk_ladder_fed"):
            if k not in res:
                continue
            r = res[k]
            print("%-12s %7.1f ladder frames/s (%.3f of Vulkan decode), steady %s  "
                  "GPU %s us/ladder frame"
                  % (k, r["fps"], r["fps"] / vd, steady_text(r, res["vk_decode"]),
                     "%.1f" % r["gpu_us"] if r.get("gpu_us") else "-"), flush=True)
    if "start" in res:
        print("start, ladder: " + start_summary(res["start"]), flush=True)
    with open(os.path.join(a.out, "bench_ladder.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
