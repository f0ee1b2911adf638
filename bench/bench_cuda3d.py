#!/usr/bin/env python3
"""fssim3d on CUDA frames: benchmark, run on a machine with an NVIDIA GPU.

Decodes the clip pairs of bench/make_bench_clips.py (the reference at a low
QP, the distorted rendition at a higher one), each looped to --frames
frames, and times on the same clips, in the same run:

  decode     NVDEC decode of both streams, no filter (the baseline)
  cuda3d     NVDEC + fssim3d on the CUDA frames (depth 11, all planes)
  cuda3d_fed the same, with both decoded streams also sent to a second null
             output, so that the two decoders run side by side
             (doc/performance.md#keeping-the-decoders-busy)
  sw3d       software decode + fssim3d on software frames on all cores
             (--cpu-frames frames: it is slow), the CPU baseline

and reports fps, each as a ratio to decode, fssim3d's GPU time per frame
(CUDA events around its kernels and readback, logged at -v verbose), the
ring's device memory (logged by fssim3d) and the peak device memory over
decode-only (nvidia-smi), and the time from process start to the first
scored frame at 1080p with an empty (CUDA_CACHE_DISABLE=1) and a warm
driver JIT cache.

The performance targets (doc/performance.md#targets): GPU time per frame at 2160p, depth 11, <= 1 ms; start
to first scored frame <= 1 s cold.

usage: bench_cuda3d.py FFMPEG CLIPS_DIR [--out DIR] [--frames N] [--sizes 1080,2160]
                       [--depth 11] [--cpu-frames N]
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (HW, best, clip_args, fed_output, gpu_name,  # noqa: E402
                      parse_clip_args, start_summary, start_times)


def parse_3d(err):
    """fssim3d's verbose GPU-time line, its ring size and the frames out."""
    gpu = re.search(r"GPU time per frame pair: ([\d.]+) us over (\d+) frames "
                    r"\(spatial moments ([\d.]+) us, temporal window and score ([\d.]+) us\)", err)
    ring = re.search(r"fssim3d: ring of \d+ moment sets, ([\d.]+) MiB", err)
    out = re.findall(r"frame=\s*(\d+)", err)
    r = {"frames_out": int(out[-1]) if out else None}
    if gpu:
        r.update(gpu_us=float(gpu.group(1)), gpu_frames=int(gpu.group(2)),
                 moments_us=float(gpu.group(3)), score_us=float(gpu.group(4)))
    if ring:
        r["ring_mib"] = float(ring.group(1))
    return r


def bench_pair(ff, dist, ref, frames, loops, depth, threads, cpu_frames, extra):
    base = [ff, "-hide_banner", "-nostdin", "-y", "-v", "verbose"]
    lp = ["-stream_loop", str(loops)]
    if extra:
        lp = ["-extra_hw_frames", str(extra)] + lp
    hw_in = HW + lp + ["-i", dist] + HW + lp + ["-i", ref]
    res = {}
    res["decode"] = best(base + hw_in + ["-map", "0:v", "-map", "1:v", "-f", "null", "-"],
                         frames, parse_3d)
    res["cuda3d"] = best(base + hw_in + ["-lavfi", "[0:v][1:v]fssim3d=depth=%d" % depth,
                                         "-f", "null", "-"], frames, parse_3d)
    res["cuda3d_fed"] = best(base + hw_in + ["-lavfi", "[0:v][1:v]fssim3d=depth=%d" % depth,
                                             "-f", "null", "-"] + fed_output(2),
                             frames, parse_3d)
    if cpu_frames:
        res["sw3d"] = best(base + ["-threads", str(threads), "-i", dist, "-threads",
                                   str(threads), "-i", ref, "-filter_threads", str(threads),
                                   "-lavfi", "[0:v][1:v]fssim3d=depth=%d" % depth,
                                   "-frames:v", str(cpu_frames), "-f", "null", "-"],
                           cpu_frames, parse_3d, reps=1)
    return res


def cold_start(ff, dist, ref, depth):
    """Seconds from process start to the end of a run whose first output
    frame is scored (fssim3d needs depth/2 + 1 frame pairs for it), with
    CUDA_CACHE_DISABLE=1 (the driver compiles the PTX) and warm."""
    head = [ff, "-hide_banner", "-nostdin", "-y"] + HW + ["-i", dist] + HW + ["-i", ref]
    cmd = head + ["-lavfi", "[0:v][1:v]fssim3d=depth=%d" % depth, "-frames:v", "1",
                  "-f", "null", "-"]
    dec = head + ["-map", "0:v", "-map", "1:v", "-frames:v", str(depth // 2 + 1),
                  "-f", "null", "-"]
    return start_times(cmd, dec)


def main():
    ap = clip_args()
    ap.add_argument("--sizes", default="1080,2160")
    ap.add_argument("--depth", type=int, default=11)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--cpu-frames", type=int, default=30,
                    help="frames of the software fssim3d baseline (0: skip it)")
    ap.add_argument("--extra-hw-frames", type=int, default=0,
                    help="-extra_hw_frames for both decoders, in the decode-only run too: "
                         "fssim3d holds depth/2 + 1 frames of each (0: FFmpeg's default)")
    a, loops, frames = parse_clip_args(ap)
    gpu = gpu_name()
    results = {"device": gpu, "frames": frames, "depth": a.depth, "threads": a.threads,
               "extra_hw_frames": a.extra_hw_frames, "runs": []}
    print("device: %s; %d frames per run (clips looped), fssim3d depth %d, %d threads for "
          "the CPU baseline, -extra_hw_frames %s" % (gpu, frames, a.depth, a.threads,
                                                     a.extra_hw_frames or "default"), flush=True)
    for size in a.sizes.split(","):
        for codec, depth in (("hevc", "8"), ("hevc", "10")):
            ref = os.path.join(a.clips, "%s_%s_%s_qp22.mkv" % (size, codec, depth))
            dist = os.path.join(a.clips, "%s_%s_%s_qp34.mkv" % (size, codec, depth))
            if not (os.path.exists(ref) and os.path.exists(dist)):
                continue
            r = bench_pair(a.ffmpeg, dist, ref, frames, loops, a.depth, a.threads,
                           a.cpu_frames, a.extra_hw_frames)
            entry = {"size": size, "codec": codec, "bits": depth, **r}
            if size == "1080" and depth == "8":
                entry["start"] = cold_start(a.ffmpeg, dist, ref, a.depth)
            results["runs"].append(entry)
            d, c = r["decode"], r["cuda3d"]
            print("%sp %s %s-bit: decode %.1f fps, fssim3d CUDA %.1f fps (%.3f of decode), "
                  "%d frames out; GPU %.1f us/frame (moments %.1f, temporal %.1f); ring %.1f MiB, "
                  "peak memory +%d MiB over decode"
                  % (size, codec, depth, d["fps"], c["fps"], c["fps"] / d["fps"],
                     c["frames_out"] or -1, c.get("gpu_us", -1), c.get("moments_us", -1),
                     c.get("score_us", -1), c.get("ring_mib", -1),
                     c["mem_mib"] - d["mem_mib"]), flush=True)
            print("    with the second output: %.1f fps (%.3f of decode)"
                  % (r["cuda3d_fed"]["fps"], r["cuda3d_fed"]["fps"] / d["fps"]), flush=True)
            if "sw3d" in r:
                print("    fssim3d software (%d threads): %.2f fps (cuda3d is %.1fx)"
                      % (a.threads, r["sw3d"]["fps"], c["fps"] / r["sw3d"]["fps"]), flush=True)
            if "start" in entry:
                print("    start (1080p): " + start_summary(entry["start"]), flush=True)
    with open(os.path.join(a.out, "bench_cuda3d.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
