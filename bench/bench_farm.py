#!/usr/bin/env python3
"""fssim-farm on a GPU host: decoding layouts against the farm, scaling over
GPUs, the merged log against a whole run, a worker killed mid-run.

The title is the ladder of bench/make_bench_clips.py --ladder (a 2160p HEVC
reference and six renditions: 2160p HEVC, 1440p..360p H.264), each looped
by stream copy into a Matroska file of --frames frames (the loop keeps the
clips' GOP of 30, so segments cut at real keyframes).

  (a) decoding alone: P processes per GPU (1..4) on G GPUs, each decoding
      the seven streams with NVDEC to null outputs; ladder frames/s of all
      processes together (frames decoded / wall time of the slowest)
  (b) fssim-farm score --filter fssim_cuda (inputs=7) on the same G GPUs:
      title frames/s (wall time of the run, cluster start included, and
      the rate while scoring), and its ratio to the best layout of (a)
  (c) (a) and (b) on 1, 2 and 4 GPUs (those the host has)
  (d) the merged log against one whole run of fssim_cuda=inputs=7: equal
      JSON and equal bytes (the segments field aside)
  (e) a worker process killed mid-run: the run completes, the log is equal

Writes one JSON of all figures (--out) and prints a short summary.  Runs
where only the repository, an ffmpeg binary and Python wheels exist: with
--wheels DIR, dask and distributed are installed from DIR into a venv under
the output folder (no network) if they are not importable.  The wheels, made
on a machine with a network:
    pip download -d WHEELS --only-binary=:all: --python-version 3.12 dask distributed
The title's runs use the fssim_cuda of FFMPEG (built with the segment
options); --filter fssim runs the same script on the CPU as a smoke test.

usage: bench_farm.py FFMPEG CLIPS_DIR [--gpus 4] [--frames 1200] [--out DIR]
                     [--wheels DIR] [--slots N] [--segment-frames 150] [--algo float]
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "farm"))

REFERENCE = "2160_hevc_8_qp22.mkv"
RENDITIONS = ["2160_hevc_8_qp34.mkv", "ladder_1440.mkv", "ladder_1080.mkv",
              "ladder_720.mkv", "ladder_540.mkv", "ladder_360.mkv"]


def ensure_dask(wheels, out):
    try:
        import distributed  # noqa: F401
        return None
    except ImportError:
        pass
    if not wheels:
        sys.exit("distributed is not installed: pass --wheels DIR (dask, distributed and "
                 "their dependencies as wheels)")
    venv = os.path.join(out, "venv")
    py = os.path.join(venv, "bin", "python3")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv],
                       check=True)
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-index", "--find-links", wheels,
                    "dask", "distributed"], check=True)
    os.execv(py, [py] + sys.argv)


def loop_clips(ffmpeg, clips, frames, out):
    """Each clip looped by stream copy to `frames` frames (Matroska)."""
    paths = []
    for name in [REFERENCE] + RENDITIONS:
        src = os.path.join(clips, name)
        dst = os.path.join(out, "title_" + name)
        if not os.path.exists(dst):
            subprocess.run([ffmpeg, "-hide_banner", "-v", "error", "-y", "-stream_loop", "-1",
                            "-i", src, "-frames:v", str(frames), "-c", "copy", "-an", dst],
                           check=True)
        paths.append(dst)
    return paths[0], paths[1:]


def decode_cmd(ffmpeg, gpu, inputs, hw=True, frames=None):
    cmd = [ffmpeg, "-hide_banner", "-nostdin", "-v", "error"]
    if hw:
        cmd += ["-init_hw_device", "cuda=g:%d" % gpu]
    for p in inputs:
        if hw:
            cmd += ["-hwaccel", "cuda", "-hwaccel_device", "g", "-hwaccel_output_format",
                    "cuda"]
        cmd += ["-i", p]
    for i in range(len(inputs)):
        cmd += ["-map", "%d:v" % i] + (["-frames:v", str(frames)] if frames else []) + \
               ["-f", "null", "-"]
    return cmd


class Load(threading.Thread):
    """What the host and the GPUs are busy with while a run goes: the mean
    NVDEC and SM utilisation of GPUs 0..gpus-1 (nvidia-smi, every 0.2 s)
    and the host's CPU time in use, in cores (/proc/stat).  Says which of
    the decoders, the SMs or the CPUs bounds a layout."""

    def __init__(self, gpus):
        super().__init__(daemon=True)
        self.gpus, self.dec, self.sm, self.stop = gpus, [], [], False

    @staticmethod
    def cpu():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v) - v[3] - v[4], sum(v)

    def run(self):
        self.c0 = self.cpu()
        while not self.stop:
            try:
                out = subprocess.run(["nvidia-smi", "--query-gpu=utilization.decoder,"
                                      "utilization.gpu", "--format=csv,noheader,nounits",
                                      "-i", ",".join(str(g) for g in range(self.gpus))],
                                     stdout=subprocess.PIPE, text=True, timeout=5).stdout
                rows = [[float(x) for x in r.split(",")] for r in out.split("\n") if r.strip()]
                self.dec.append(sum(r[0] for r in rows) / len(rows))
                self.sm.append(sum(r[1] for r in rows) / len(rows))
            except (OSError, ValueError, subprocess.SubprocessError, ZeroDivisionError):
                pass
            time.sleep(0.2)

    def result(self):
        self.stop = True
        self.join()
        busy, total = (b - a for a, b in zip(self.c0, self.cpu()))
        mean = lambda v: round(sum(v) / len(v), 1) if v else None  # noqa: E731
        return {"nvdec_util": mean(self.dec), "sm_util": mean(self.sm),
                "cpu_cores_busy": round(os.cpu_count() * busy / total, 1) if total else None}


def decode_layout(ffmpeg, gpus, per_gpu, inputs, frames, hw=True):
    """Ladder frames/s of per_gpu processes on each of `gpus`, together."""
    load = Load(gpus)
    load.start()
    t0 = time.time()
    procs = [subprocess.Popen(decode_cmd(ffmpeg, g, inputs, hw, frames), stderr=subprocess.PIPE)
             for g in range(gpus) for _ in range(per_gpu)]
    errs = [p.communicate()[1] for p in procs]
    wall = time.time() - t0
    bad = [e.decode(errors="replace")[-300:] for p, e in zip(procs, errs) if p.returncode]
    return {"gpus": gpus, "per_gpu": per_gpu, "processes": len(procs), "wall_s": round(wall, 3),
            "fps": round(len(procs) * frames / wall, 1), "errors": bad, **load.result()}


def farm_run(args, ref, dists, gpus, out_log, kill_after=None, slots=None):
    """fssim-farm score on GPUs 0..gpus-1; with kill_after, a worker
    process is killed once that many segment runs have started."""
    from distributed import Client
    from fssim_farm.progress import Progress
    from fssim_farm.runner import PROGRESS_TOPIC, local_cluster
    from fssim_farm.title import Title, run_titles

    if os.path.exists(out_log):
        os.unlink(out_log)
    workdir = out_log + ".segments"
    subprocess.run(["rm", "-rf", workdir])
    t = Title(ref, dists, out_log, args.filter, "algo=%s" % args.algo, args.segment_frames,
              ffmpeg=args.ffmpeg)
    load = Load(gpus)
    load.start()
    t0 = time.time()
    with local_cluster(gpus=list(range(gpus)), slots=slots or args.slots) as cluster, \
            Client(cluster) as client:
        t_ready = time.time()
        bar = Progress(stream=open(os.devnull, "w"))
        client.subscribe_topic(PROGRESS_TOPIC, bar.event)
        killed = None
        res = {}
        th = threading.Thread(target=lambda: res.update(s=run_titles([t], client)))
        t1 = time.time()
        th.start()
        if kill_after is not None:
            pids = client.run(os.getpid)
            while th.is_alive() and bar.scored() < kill_after:
                time.sleep(0.1)
            killed = sorted(pids.values())[0]
            os.kill(killed, signal.SIGKILL)
        th.join()
        t2 = time.time()
    s = res["s"][0]
    frames = s.get("frames") or 0
    return {"gpus": gpus, "slots": slots or args.slots or "auto", "status": s["status"],
            "error": s["error"], "frames": frames, "segments": len(t.segments),
            "wall_s": round(t2 - t0, 3), "cluster_start_s": round(t_ready - t0, 3),
            "scoring_s": round(t2 - t1, 3),
            "fps_wall": round(frames / (t2 - t0), 1) if frames else 0,
            "fps_scoring": round(frames / (t2 - t1), 1) if frames else 0,
            "killed_pid": killed, **load.result()}


def same_as_whole(merged_path, whole_path):
    with open(merged_path) as f:
        m = f.read()
    with open(whole_path) as f:
        w = f.read()
    jm, jw = json.loads(m), json.loads(w)
    jm.pop("segments", None)
    m2 = re.sub(r',\n  "segments": \[[^\]]*\]\n}\n$', "\n}\n", m)
    return {"json_equal": jm == jw, "bytes_equal": m2 == w}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ffmpeg")
    ap.add_argument("clips")
    ap.add_argument("--gpus", type=int, default=4)
    ap.add_argument("--frames", type=int, default=1200)
    ap.add_argument("--out", default="bench_farm_out")
    ap.add_argument("--wheels", default=None)
    ap.add_argument("--decode-frames", type=int, default=None,
                    help="frames each process of a decoding layout decodes (default: the "
                         "whole title); the rate is what is compared")
    ap.add_argument("--slots", type=int, default=None,
                    help="segments at once per GPU (default: the runner's own choice)")
    ap.add_argument("--slots-list", default="2,4,6", help="more --slots tried on all GPUs")
    ap.add_argument("--segment-frames", type=int, default=150)
    ap.add_argument("--algo", default="float")
    ap.add_argument("--skip-decode", action="store_true")
    ap.add_argument("--filter", default="fssim_cuda",
                    help="fssim_cuda (NVDEC decoding); fssim: software decoding, a smoke "
                         "test of this script on any machine")
    args = ap.parse_args()
    args.ffmpeg = os.path.abspath(args.ffmpeg)
    os.makedirs(args.out, exist_ok=True)
    ensure_dask(args.wheels, args.out)

    from fssim_farm import segments
    ref, dists = loop_clips(args.ffmpeg, args.clips, args.frames, args.out)
    inputs = dists + [ref]
    res = {"ffmpeg": args.ffmpeg, "frames": args.frames, "algo": args.algo,
           "filter": args.filter,
           "slots": args.slots, "segment_frames": args.segment_frames, "decode": [],
           "farm": [], "date": time.strftime("%Y-%m-%d")}
    try:
        res["gpu"] = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                                    stdout=subprocess.PIPE, text=True).stdout.strip()
    except OSError:
        res["gpu"] = None
    counts = [g for g in (1, 2, 4) if g <= args.gpus]
    for g in counts:
        best = None
        if not args.skip_decode:
            for p in (1, 2, 3, 4, 6):
                r = decode_layout(args.ffmpeg, g, p, inputs, args.decode_frames or args.frames,
                                  hw=args.filter == "fssim_cuda")
                res["decode"].append(r)
                print("decode %d GPU x %d proc: %7.1f ladder fps, NVDEC %s%%, SM %s%%, "
                      "CPU %s cores%s" % (g, p, r["fps"], r["nvdec_util"], r["sm_util"],
                                          r["cpu_cores_busy"],
                                          "  ERR " + r["errors"][0] if r["errors"] else ""),
                      flush=True)
                if not r["errors"] and (best is None or r["fps"] > best["fps"]):
                    best = r
        f = farm_run(args, ref, dists, g, os.path.join(args.out, "farm_%dgpu.json" % g))
        f["best_decode_fps"] = best["fps"] if best else None
        f["ratio_to_best_decode"] = round(f["fps_scoring"] / best["fps"], 3) if best else None
        res["farm"].append(f)
        print("farm   %d GPU slots %s: %7.1f fps scoring (%.1f with cluster start), %s%s; "
              "NVDEC %s%%, SM %s%%, CPU %s cores" % (
                  g, f["slots"], f["fps_scoring"], f["fps_wall"], f["status"],
                  "  ratio %.2f to best decode" % f["ratio_to_best_decode"] if best else "",
                  f["nvdec_util"], f["sm_util"], f["cpu_cores_busy"]), flush=True)
    top = counts[-1]
    for sl in [int(x) for x in args.slots_list.split(",") if x]:
        f = farm_run(args, ref, dists, top,
                     os.path.join(args.out, "farm_%dgpu_slots%d.json" % (top, sl)), slots=sl)
        res["farm"].append(f)
        print("farm   %d GPU slots %s: %7.1f fps scoring, %s" % (top, sl, f["fps_scoring"],
                                                                f["status"]), flush=True)

    # (d) the merged log against a whole run
    title = segments.input_identity(dists + [ref])
    whole = os.path.join(args.out, "whole.json")
    merged = os.path.join(args.out, "farm_%dgpu.json" % top)
    t0 = time.time()
    cmd = segments.command(args.ffmpeg, args.filter, ref, dists, "algo=%s" % args.algo,
                           whole, "json", title, progress=False, gpu=0)
    with open(merged) as f:
        text = f.read()
    p = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
    res["whole_run"] = {"rc": p.returncode, "wall_s": round(time.time() - t0, 3),
                        "fps": round(args.frames / (time.time() - t0), 1),
                        "error": p.stderr[-500:] if p.returncode else None}
    with open(merged + ".as_whole", "w") as f:
        f.write(text.replace(merged, whole))
    res["merged_vs_whole"] = same_as_whole(merged + ".as_whole", whole) \
        if p.returncode == 0 else None
    print("whole run: %.1f fps; merged == whole: %s" % (res["whole_run"]["fps"],
                                                       res["merged_vs_whole"]), flush=True)

    # (e) a worker killed mid-run
    killed = os.path.join(args.out, "farm_killed.json")
    f = farm_run(args, ref, dists, top, killed, kill_after=args.frames // 4)
    res["killed"] = f
    if f["status"] == "ok" and p.returncode == 0:
        with open(killed) as fh:
            text = fh.read()
        with open(killed + ".as_whole", "w") as fh:
            fh.write(text.replace(killed, whole))
        res["killed"]["vs_whole"] = same_as_whole(killed + ".as_whole", whole)
    print("killed worker pid %s: %s, equal to whole: %s" % (
        f["killed_pid"], f["status"], f.get("vs_whole")), flush=True)
    path = os.path.join(args.out, "bench_farm.json")
    with open(path, "w") as fh:
        json.dump(res, fh, indent=1)
    print("figures:", path)


if __name__ == "__main__":
    main()
