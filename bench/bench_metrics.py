#!/usr/bin/env python3
"""GPU time per frame pair of each algorithm set, run on a machine with an
NVIDIA GPU: what psnr, msssim, vmaf_ssim and vmaf_msssim cost beside
float+int (msssim and vmaf_ssim beside float, vmaf_msssim beside msssim).

One 2160p HEVC 8-bit clip pair of bench/make_bench_clips.py
(2160_hevc_8_qp34.mkv against 2160_hevc_8_qp22.mkv), looped to --frames
frames, decoded by NVDEC for fssim_cuda and by Vulkan Video for
fssim_vulkan.  For each algorithm set, in the same run: end-to-end fps and
the filter's own GPU time per frame pair (its verbose line at uninit), each
beside the same backend's float+int (and msssim beside float alone), and
decode alone as the fps baseline.

usage: bench_metrics.py FFMPEG CLIPS_DIR [--out DIR] [--frames N] [--no-vulkan]
                        [--algos SET,SET,...]
--algos: the algorithm sets to time (e.g. vmaf_ssim,vmaf_msssim,float), the
default list below otherwise.
Vulkan needs a loader: run under tests/device/vulkan-env.sh's set-up.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (HW, VK_DEV, VK_HW, best, clip_args, gpu_name,  # noqa: E402
                      parse_clip_args, parse_gpu)

ALGOS = ["float+int", "float+int+psnr", "float", "msssim", "psnr", "float+int+block",
         "vmaf_ssim", "vmaf_msssim"]
# what each set is compared with (float+int where not named)
BESIDE = {"msssim": "float", "vmaf_ssim": "float", "vmaf_msssim": "msssim"}


def backend(name, ff, hw, dev, filt, dist, ref, loops, frames, algos):
    base = [ff, "-hide_banner", "-nostdin", "-y", "-v", "verbose"] + dev
    lp = ["-stream_loop", str(loops)]
    ins = hw + lp + ["-i", dist] + hw + lp + ["-i", ref]
    out = {"decode": best(base + ins + ["-map", "0:v", "-map", "1:v", "-f", "null", "-"],
                          frames)}
    for algo in algos:
        out[algo] = best(base + ins + ["-lavfi", "[0:v][1:v]%s=algo=%s" % (filt, algo),
                                       "-f", "null", "-"], frames, parse_gpu)
    d = out["decode"]["fps"]
    print("%s: decode %.1f fps" % (name, d), flush=True)
    for algo in algos:
        r = out[algo]
        vs = BESIDE.get(algo, "float+int")
        ratio = (r["gpu_us"] / out[vs]["gpu_us"]) if vs in out and r["gpu_us"] and \
            out[vs]["gpu_us"] else None
        print("  %-16s %7.1f fps (%.3f of decode)  GPU %s us/pair  (%s x %s)"
              % (algo, r["fps"], r["fps"] / d, "%.1f" % r["gpu_us"] if r["gpu_us"] else "-",
                 "%.2f" % ratio if ratio else "-", vs), flush=True)
    return out


def main():
    ap = clip_args()
    ap.add_argument("--no-vulkan", action="store_true")
    ap.add_argument("--algos", help="comma-separated algorithm sets to time")
    a, loops, frames = parse_clip_args(ap)
    algos = a.algos.split(",") if a.algos else ALGOS
    ref = os.path.join(a.clips, "2160_hevc_8_qp22.mkv")
    dist = os.path.join(a.clips, "2160_hevc_8_qp34.mkv")
    if not (os.path.exists(ref) and os.path.exists(dist)):
        sys.exit("missing clips (bench/make_bench_clips.py): %s %s" % (dist, ref))
    res = {"device": gpu_name(), "frames": frames, "size": "2160p HEVC 8-bit"}
    print("device: %s; %d frame pairs per run, 2160p HEVC 8-bit" % (res["device"], frames),
          flush=True)
    res["cuda"] = backend("fssim_cuda (NVDEC)", a.ffmpeg, HW, [], "fssim_cuda", dist, ref,
                          loops, frames, algos)
    if not a.no_vulkan:
        try:
            res["vulkan"] = backend("fssim_vulkan (Vulkan decode)", a.ffmpeg, VK_HW, VK_DEV,
                                    "fssim_vulkan", dist, ref, loops, frames, algos)
        except RuntimeError as err:
            print("Vulkan runs failed: %s" % err, flush=True)
    with open(os.path.join(a.out, "bench_metrics.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
