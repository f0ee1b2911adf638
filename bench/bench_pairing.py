#!/usr/bin/env python3
"""What pairing two hardware-decoded streams in one filter costs, run on a
machine with an NVIDIA GPU (NVDEC, --hw cuda) or any Vulkan Video GPU
(--hw vulkan).  One clip pair of bench/make_bench_clips.py (HEVC 8-bit at
--size), looped to --frames frames, in the same run:
  decode       both streams decoded, no filter (the baseline)
  paired       both streams through the filter with enable=0: framesync and
               the filter's queue, no GPU work
  scored       the scoring filter (--scored)
  paired_fed1, scored_fed1
               the same, with both decoded streams also mapped into the
               filter's null output
  paired_fed, scored_fed
               the same, with both decoded streams also sent to a second null
               output whose timestamps are 60 s back (benchlib.fed_output)
each with the decoders' default surface pool and with -extra_hw_frames N
more surfaces.

Why the _fed ways: the ffmpeg tool's scheduler feeds a filtergraph with
several inputs one input at a time.  While the graph waits for a frame of
one input, the demuxer and the decoder of every other input are stopped,
so two decoders that could run side by side take turns.  A decoded stream
that also goes to a muxer is paced by the muxers instead (no output more
than 0.1 s ahead of the one furthest behind), so both decoders keep
running; mapped into the filter's own output, only while the scores come
out less than 0.1 s late (doc/performance.md#keeping-the-decoders-busy).
A decoder whose surfaces are all held downstream stops as well; more
surfaces show how much of the cost that is.
usage: bench_pairing.py FFMPEG CLIPS_DIR [--out DIR] [--frames N] [--size 2160]
                        [--hw cuda|vulkan] [--scored FILTER] [--extra 0,16]
                        [--ways decode,scored,...] [--tag NAME]
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (HW, VK_DEV, VK_HW, best, clip_args, fed_output,  # noqa: E402
                      gpu_name, parse_clip_args, parse_gpu)

BACKENDS = {
    "cuda": ([], HW, "fssim_cuda", "fssim_cuda=algo=float+int"),
    "vulkan": (VK_DEV, VK_HW, "fssim_vulkan", "fssim_vulkan=algo=float+int"),
}


def ways(ff, hw, dist, ref, loops, extra, scored):
    """The command lines for one surface count."""
    dev, dec, filt, _ = BACKENDS[hw]
    dec = dec + (["-extra_hw_frames", str(extra)] if extra else [])
    lp = ["-stream_loop", str(loops)]
    base = [ff, "-hide_banner", "-nostdin", "-y", "-v", "verbose"] + dev
    ins = dec + lp + ["-i", dist] + dec + lp + ["-i", ref]
    null = ["-f", "null", "-"]
    both = ["-map", "0:v", "-map", "1:v"]
    graph = {"paired": "[0:v][1:v]%s=enable=0[o]" % filt, "scored": "[0:v][1:v]%s[o]" % scored}
    cmds = {"decode": base + ins + both + null}
    for k, g in graph.items():
        cmds[k] = base + ins + ["-filter_complex", g, "-map", "[o]"] + null
        cmds[k + "_fed1"] = base + ins + ["-filter_complex", g, "-map", "[o]"] + both + null
        cmds[k + "_fed"] = base + ins + ["-filter_complex", g, "-map", "[o]"] + null + \
            fed_output(2)
    return cmds


def main():
    ap = clip_args()
    ap.add_argument("--size", default="2160")
    ap.add_argument("--hw", choices=sorted(BACKENDS), default="cuda")
    ap.add_argument("--scored", help="the scoring filter (default: the backend's fssim, "
                    "float+int)")
    ap.add_argument("--extra", default="0,16")
    ap.add_argument("--ways", default="decode,paired,scored,paired_fed,scored_fed",
                    help="the ways to run; decode, the baseline, always runs")
    ap.add_argument("--tag", default="", help="suffix of the JSON file's name")
    a, loops, frames = parse_clip_args(ap)
    scored = a.scored or BACKENDS[a.hw][3]
    ref = os.path.join(a.clips, "%s_hevc_8_qp22.mkv" % a.size)
    dist = os.path.join(a.clips, "%s_hevc_8_qp34.mkv" % a.size)
    gpu = gpu_name()
    results = {"device": gpu, "ffmpeg": a.ffmpeg, "hw": a.hw, "scored_filter": scored,
               "frames": frames, "size": a.size, "runs": []}
    print("device: %s; %s HEVC 8-bit pair, %d frames per run, %s decode, scored: %s"
          % (gpu, a.size, frames, a.hw, scored), flush=True)
    for extra in (int(x) for x in a.extra.split(",")):
        r = {k: best(cmd, frames, parse_gpu) for k, cmd in
             ways(a.ffmpeg, a.hw, dist, ref, loops, extra, scored).items()
             if k == "decode" or k in a.ways.split(",")}
        d = r["decode"]["fps"]
        print("extra_hw_frames %2d: decode %.1f fps; %s; GPU %s us/frame" % (
            extra, d, ", ".join("%s %.1f (%.3f)" % (k, v["fps"], v["fps"] / d)
                                for k, v in r.items() if k != "decode"),
            r.get("scored", r.get("scored_fed", {})).get("gpu_us")), flush=True)
        results["runs"].append({"extra_hw_frames": extra, **r})
    name = "bench_pairing%s.json" % ("_" + a.tag if a.tag else "")
    with open(os.path.join(a.out, name), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
