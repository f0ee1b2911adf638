#!/usr/bin/env python3
"""Session 25's queue-depth runs (h200-queue-depth-ladder-*.txt): the ladder
with the second output for each of $VARIANTS, a queue depth, or "x" and a
depth for the same with -extra_hw_frames 8 on every input.  The depth
reaches the filter through the environment variable FSSIM_QD, which only
the experiment build read (fssim_engine.c: e->nb_slots = FSSIM_QD + 1); the
product has no such variable.  Run from the repository root:

  VARIANTS="4 8 16 x4" python3 bench/results/session25/queue_depth.py FFMPEG CLIPS 900 cuda
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
algo = os.environ.get("ALGO", "float+int")
def ins(extra):
    if what == "cuda":
        return bl.inputs(paths, HW + extra, loops)
    return VK_DEV + bl.inputs(paths, VK_HW + extra, loops)
filt = "fssim_cuda" if what == "cuda" else "fssim_vulkan"
for rep in range(int(os.environ.get("REPS", "2"))):
    d = timed(base + ins([]) + maps + ["-f", "null", "-"], frames, parse_gpu)
    print("rep %d decode whole %.1f steady %.1f" % (rep, d["fps"], d["steady_fps"] or 0), flush=True)
    for v in os.environ.get("VARIANTS", "4 8 16 x4").split():
        extra = ["-extra_hw_frames", "8"] if v.startswith("x") else []
        qd = v.lstrip("x")
        env = dict(os.environ, FSSIM_QD=qd)
        cmd = base + ins(extra) + ["-lavfi", "%s%s=inputs=7:algo=%s" % (pads, filt, algo), "-f", "null", "-"] + fed_output(7)
        r = timed(cmd, frames, parse_gpu, env=env)
        print("rep %d qd %-4s fed whole %.1f (%.3f) steady %.1f (%.3f) GPU %s mem %d" % (rep, v, r["fps"], r["fps"] / d["fps"], r["steady_fps"] or 0, (r["steady_fps"] or 0) / (d["steady_fps"] or 1), r.get("gpu_us"), r["mem_mib"]), flush=True)
