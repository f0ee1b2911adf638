"""Start-up of the CUDA filters: seconds from process start to the first
scored frame (when it reaches the output), and to the end of a run that
scores one frame (which adds the decoders' teardown), with an empty driver
cache (CUDA_CACHE_DISABLE=1: a fresh machine or container, where the driver
compiles any PTX it is given) and warm, for one or more ffmpeg builds in the
same run, so that a build whose modules carry machine code (configure
--with-cuda-sass) and one without compare on the same machine.  Also each build's GPU time per frame over a
short run: the machine code must score as fast as the driver's compilation
of the PTX.

Cases: a 2160p HEVC pair (fssim_cuda algo=float+int), the 7-stream ladder
of bench_ladder.py (fssim_cuda inputs=7) and fssim3d on the pair (depth
11); the decode-only time of the same streams is the floor.  Clips:
bench/make_bench_clips.py --sizes 2160 --ladder.

usage: bench_start.py CLIPS FFMPEG [FFMPEG...] [--out DIR] [--frames N]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (HW, best, gpu_name, parse_gpu, start_summary,  # noqa: E402
                      start_times)
from bench_ladder import REFERENCE, RENDITIONS  # noqa: E402

PAIR = ("2160_hevc_8_qp34.mkv", "2160_hevc_8_qp22.mkv")


def cases(clips):
    """(name, the inputs, the scoring graph's -lavfi) of each case."""
    pair = [os.path.join(clips, p) for p in PAIR]
    ladder = [os.path.join(clips, p) for p in RENDITIONS + [REFERENCE]]
    pads = "".join("[%d:v]" % i for i in range(len(ladder)))
    return [("pair", pair, "[0:v][1:v]fssim_cuda=algo=float+int"),
            ("ladder", ladder, "%sfssim_cuda=inputs=%d:algo=float+int" % (pads, len(ladder))),
            ("fssim3d", pair, "[0:v][1:v]fssim3d=depth=11")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("clips")
    ap.add_argument("ffmpeg", nargs="+")
    ap.add_argument("--out", default="bench-out")
    ap.add_argument("--frames", type=int, default=30,
                    help="frames of the GPU-time runs (the clips' length)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    res = {"device": gpu_name(), "builds": a.ffmpeg, "cases": {}}
    print("device: %s" % res["device"], flush=True)
    for name, paths, graph in cases(a.clips):
        ins = sum((HW + ["-i", p] for p in paths), [])
        maps = sum((["-map", "%d:v" % i] for i in range(len(paths))), [])
        res["cases"][name] = {}
        for ff in a.ffmpeg:
            base = [ff, "-hide_banner", "-nostdin", "-y"] + ins
            r = start_times(base + ["-lavfi", graph, "-frames:v", "1", "-f", "null", "-"],
                            base + maps + ["-frames:v", "1", "-f", "null", "-"])
            run = best(base[:1] + ["-v", "verbose"] + base[1:] +
                       ["-lavfi", graph, "-f", "null", "-"], a.frames, parse_gpu)
            r["gpu_us"] = run.get("gpu_us")
            res["cases"][name][ff] = r
            print("%-8s %-22s %s; GPU %s us per frame"
                  % (name, ff, start_summary(r), "%.1f" % r["gpu_us"] if r["gpu_us"] else "-"),
                  flush=True)
    with open(os.path.join(a.out, "bench_start.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
