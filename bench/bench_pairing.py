#!/usr/bin/env python3
"""What pairing two NVDEC streams in one filter costs, run on a machine with
an NVIDIA GPU.  One clip pair of bench/make_bench_clips.py (HEVC 8-bit at
--size), looped to --frames frames, in the same run:
  decode   both streams decoded, no filter (the baseline)
  paired   both streams through fssim_cuda=enable=0: framesync and the
           filter's queue, no GPU work
  scored   fssim_cuda=algo=float+int
each with the decoders' default surface pool and with -extra_hw_frames N
more surfaces.  A decoder whose surfaces are all held downstream (by the
other stream's wait in framesync, by frames in flight on the GPU) stops
until one comes back; more surfaces show how much of the pairing cost
that is.
usage: bench_pairing.py FFMPEG CLIPS_DIR [--out DIR] [--frames N] [--size 2160]
                        [--extra 0,4,8,16]
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (HW, best, clip_args, gpu_name, parse_clip_args,  # noqa: E402
                      parse_gpu)


def ways(ff, dist, ref, loops, extra):
    """The three command lines for one surface count."""
    hw = HW + (["-extra_hw_frames", str(extra)] if extra else [])
    lp = ["-stream_loop", str(loops)]
    base = [ff, "-hide_banner", "-nostdin", "-y", "-v", "verbose"]
    ins = hw + lp + ["-i", dist] + hw + lp + ["-i", ref]
    return {
        "decode": base + ins + ["-map", "0:v", "-map", "1:v", "-f", "null", "-"],
        "paired": base + ins + ["-lavfi", "[0:v][1:v]fssim_cuda=enable=0", "-f", "null", "-"],
        "scored": base + ins + ["-lavfi", "[0:v][1:v]fssim_cuda=algo=float+int",
                                "-f", "null", "-"],
    }


def main():
    ap = clip_args()
    ap.add_argument("--size", default="2160")
    ap.add_argument("--extra", default="0,4,8,16")
    a, loops, frames = parse_clip_args(ap)
    ref = os.path.join(a.clips, "%s_hevc_8_qp22.mkv" % a.size)
    dist = os.path.join(a.clips, "%s_hevc_8_qp34.mkv" % a.size)
    gpu = gpu_name()
    results = {"device": gpu, "frames": frames, "size": a.size, "runs": []}
    print("device: %s; %s HEVC 8-bit pair, %d frames per run" % (gpu, a.size, frames),
          flush=True)
    for extra in (int(x) for x in a.extra.split(",")):
        r = {k: best(cmd, frames, parse_gpu) for k, cmd in
             ways(a.ffmpeg, dist, ref, loops, extra).items()}
        d = r["decode"]["fps"]
        print("extra_hw_frames %2d: decode %.1f fps, paired %.1f (%.3f), scored %.1f (%.3f), "
              "GPU %s us/pair" % (extra, d, r["paired"]["fps"], r["paired"]["fps"] / d,
                                  r["scored"]["fps"], r["scored"]["fps"] / d,
                                  r["scored"].get("gpu_us")), flush=True)
        results["runs"].append({"extra_hw_frames": extra, **r})
    with open(os.path.join(a.out, "bench_pairing.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
