#!/usr/bin/env python3
"""Session 25's ladder runs by algorithm (h200-ladder-algos-steady-*.txt):
decoding alone, then the ladder with the second output for each of
$ALGOS (default "psnr int float+int"), $REPS times, whole-run and steady
fps (bench/benchlib.py) and the filter's GPU time per ladder frame.
Run from the repository root on the device:

  ALGOS="psnr int float+int" python3 bench/results/session25/ladder_algos.py \
      FFMPEG CLIPS 900 cuda|vulkan
"""
import os, sys
sys.path.insert(0, "bench")
from benchlib import HW, VK_DEV, VK_HW, timed, fed_output, parse_gpu, gpu_name
import bench_ladder as bl
ff, clips, frames, what = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
loops = frames // 30 - 1
frames = 30 * (loops + 1)
paths = [os.path.join(clips, p) for p in bl.RENDITIONS + [bl.REFERENCE]]
base = [ff, "-hide_banner", "-nostdin", "-y", "-v", "verbose"]
maps = sum((["-map", "%d:v" % i] for i in range(7)), [])
pads = "".join("[%d:v]" % i for i in range(7))
print(gpu_name(), what, frames, flush=True)
if what == "cuda":
    hw_in = bl.inputs(paths, HW, loops); filt = "fssim_cuda"
else:
    hw_in = VK_DEV + bl.inputs(paths, VK_HW, loops); filt = "fssim_vulkan"
for rep in range(int(os.environ.get("REPS", "3"))):
    d = timed(base + hw_in + maps + ["-f", "null", "-"], frames, parse_gpu)
    print("rep %d decode whole %.1f steady %.1f" % (rep, d["fps"], d["steady_fps"] or 0), flush=True)
    for algo in os.environ.get("ALGOS", "psnr int float+int").split():
        cmd = base + hw_in + ["-lavfi", "%s%s=inputs=7:algo=%s" % (pads, filt, algo), "-f", "null", "-"] + fed_output(7)
        r = timed(cmd, frames, parse_gpu)
        print("rep %d %-10s fed whole %.1f (%.3f) steady %.1f (%.3f) GPU %s" % (rep, algo, r["fps"], r["fps"] / d["fps"], r["steady_fps"] or 0, (r["steady_fps"] or 0) / (d["steady_fps"] or 1), r.get("gpu_us")), flush=True)
