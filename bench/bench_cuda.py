#!/usr/bin/env python3
"""fssim_cuda benchmark, run on a machine with an NVIDIA GPU.

Decodes the clip pairs of bench/make_bench_clips.py (natural-looking
content; the reference at a low QP, the distorted rendition at a higher
one), each looped to --frames frames, and times, on the same clips and in
the same run:

  decode    NVDEC decode of both streams, no filter (the baseline)
  cuda      NVDEC + fssim_cuda (algo=float+int, all planes)
  cuda_fed  the same, with both decoded streams also sent to a second null
            output (benchlib.fed_output), so that both decoders run side by
            side: the recipe of doc/performance.md
  cuda_off  the plain graph with scoring switched off (enable=0)
  dl_ssim   NVDEC + hwdownload + FFmpeg's CPU ssim on all cores
  sw_ssim   software decode + FFmpeg's CPU ssim on all cores

and reports fps, each as a ratio to decode, the GPU time per frame pair
(CUDA events around fssim_cuda's kernels and readback), device memory, and
the time from process start to the first scored frame with an empty and a
warm driver JIT cache.  A second line gives the "steady" fps of each, the
rate between 20% and 95% of the run from ffmpeg's progress reports
(benchlib.steady_fps: without the process start and teardown, which a short
run pays in full and a long farm job once; the best of the runs), each as
a ratio to decode's steady fps.

usage: bench_cuda.py FFMPEG CLIPS_DIR [--out DIR] [--frames N] [--sizes 1080,2160]
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (HW, best, clip_args, fed_output, gpu_name,  # noqa: E402
                      parse_clip_args, parse_gpu, start_summary, start_times,
                      steady_text)


def bench_pair(ff, dist, ref, frames, threads, depth, loops):
    base = [ff, "-hide_banner", "-nostdin", "-y", "-v", "verbose"]
    lp = ["-stream_loop", str(loops)]
    hw_in = HW + lp + ["-i", dist] + HW + lp + ["-i", ref]
    dl, sw = ("nv12", "yuv420p") if depth == "8" else ("p010", "yuv420p10")
    res = {}
    res["decode"] = best(base + hw_in + ["-map", "0:v", "-map", "1:v", "-f", "null", "-"],
                         frames, parse_gpu)
    res["cuda"] = best(base + hw_in + ["-lavfi", "[0:v][1:v]fssim_cuda=algo=float+int",
                                       "-f", "null", "-"], frames, parse_gpu)
    res["cuda_fed"] = best(base + hw_in + ["-lavfi", "[0:v][1:v]fssim_cuda=algo=float+int",
                                           "-f", "null", "-"] + fed_output(2), frames, parse_gpu)
    # the same graph with scoring switched off: what pairing the two streams
    # (framesync, the filter's queue) costs without any GPU work
    res["cuda_off"] = best(base + hw_in + ["-lavfi", "[0:v][1:v]fssim_cuda=enable=0",
                                           "-f", "null", "-"], frames, parse_gpu)
    res["dl_ssim"] = best(base + hw_in + [
        "-filter_threads", str(threads), "-lavfi",
        "[0:v]hwdownload,format=%s,format=%s[a];[1:v]hwdownload,format=%s,format=%s[b];"
        "[a][b]ssim" % (dl, sw, dl, sw), "-f", "null", "-"], frames, parse_gpu)
    res["sw_ssim"] = best(base + ["-threads", str(threads)] + lp + ["-i", dist, "-threads",
                                  str(threads)] + lp + ["-i", ref, "-filter_threads", str(threads),
                                  "-lavfi", "[0:v][1:v]ssim", "-f", "null", "-"], frames, parse_gpu)
    return res


def cold_start(ff, dist, ref):
    """Seconds from process start to the end of a one-frame scoring run,
    with CUDA_CACHE_DISABLE=1 (every run compiles the PTX) and warm."""
    cmd = [ff, "-hide_banner", "-nostdin", "-y"] + HW + ["-i", dist] + HW + ["-i", ref] + \
          ["-lavfi", "[0:v][1:v]fssim_cuda=algo=float+int", "-frames:v", "1", "-f", "null", "-"]
    dec = [ff, "-hide_banner", "-nostdin", "-y"] + HW + ["-i", dist] + HW + ["-i", ref] + \
          ["-map", "0:v", "-map", "1:v", "-frames:v", "1", "-f", "null", "-"]
    return start_times(cmd, dec)


def main():
    ap = clip_args()
    ap.add_argument("--sizes", default="1080,2160")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    a, loops, frames = parse_clip_args(ap)
    gpu = gpu_name()
    results = {"device": gpu, "frames": frames, "threads": a.threads, "runs": []}
    print("device: %s; %d frames per run (clips looped), %d threads for the CPU paths"
          % (gpu, frames, a.threads), flush=True)
    for size in a.sizes.split(","):
        for codec, depth in (("hevc", "8"), ("hevc", "10"), ("h264", "8")):
            ref = os.path.join(a.clips, "%s_%s_%s_qp22.mkv" % (size, codec, depth))
            dist = os.path.join(a.clips, "%s_%s_%s_qp34.mkv" % (size, codec, depth))
            if not (os.path.exists(ref) and os.path.exists(dist)):
                continue
            r = bench_pair(a.ffmpeg, dist, ref, frames, a.threads, depth, loops)
            entry = {"size": size, "codec": codec, "depth": depth, **r}
            if size == "1080" and codec == "hevc" and depth == "8":
                entry["start"] = cold_start(a.ffmpeg, dist, ref)
            results["runs"].append(entry)
            d = r["decode"]["fps"]
            print("%s %s %s-bit: decode %.1f fps, fssim_cuda %.1f fps (%.3f), with the second "
                  "output %.1f (%.3f), paired unscored "
                  "%.1f (%.3f), hwdownload+ssim %.1f (%.3f), sw+ssim %.1f (%.3f), GPU %.1f us/frame "
                  "pair, mem +%d MiB" % (size, codec, depth, d, r["cuda"]["fps"],
                                   r["cuda"]["fps"] / d, r["cuda_fed"]["fps"],
                                   r["cuda_fed"]["fps"] / d, r["cuda_off"]["fps"],
                                   r["cuda_off"]["fps"] / d, r["dl_ssim"]["fps"],
                                   r["dl_ssim"]["fps"] / d, r["sw_ssim"]["fps"],
                                   r["sw_ssim"]["fps"] / d, r["cuda"]["gpu_us"] or -1,
                                   r["cuda"]["mem_mib"] - r["decode"]["mem_mib"]),
                  flush=True)
            print("  steady: decode %s fps, fssim_cuda %s, with the second output %s, "
                  "paired unscored %s, hwdownload+ssim %s, sw+ssim %s"
                  % tuple(steady_text(r[k], r["decode"])
                          for k in ("decode", "cuda", "cuda_fed", "cuda_off", "dl_ssim",
                                    "sw_ssim")),
                  flush=True)
            if "start" in entry:
                print("start (1080p): " + start_summary(entry["start"]), flush=True)
    with open(os.path.join(a.out, "bench_cuda.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
