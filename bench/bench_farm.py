#!/usr/bin/env python3
"""fssim-farm on a GPU host against the best hand layout of whole runs.

The title is the ladder of bench/make_bench_clips.py --ladder (a 2160p HEVC
reference and six renditions: 2160p HEVC, 1440p..360p H.264), each clip
looped by stream copy (-stream_loop, -c copy) into a Matroska file of
--frames frames (the GPU hosts have no encoder; the loop keeps the clips'
GOP, so segments cut at real keyframes).  In one call, for 1, 2 and 4 GPUs
(those the host has, --gpus):

  hand    whole runs of `fssim_cuda=inputs=7` (the command a user would
          write, one process per run), P = 1..4 processes on each GPU at
          once, each scoring the first --hand-frames frames of the title;
          ladder frames/s of all processes together (frames scored / wall
          time of the slowest).  The best P is the baseline.
  decode  (--decode) decoding alone, the same layouts with seven null
          outputs per process: a second column, not a bound (the ffmpeg
          tool's output scheduling holds that command back).
  farm    `fssim-farm score` (the command line, as a user runs it) on the
          same GPUs, the whole --frames title: wall time of the command
          (cluster start, checks, scoring, merge), its phases (the
          summary's timings_s) and its ratio to the best hand layout.

--variants adds farm runs on the most GPUs with the runner's choices
changed (`600`: fixed 600-frame segments, the old default; `noprestart`:
no early start of the next segment; `slotsN`), to measure what each choice
is worth, and `split`: a `dask scheduler` and two `fssim-farm worker`
processes with half the GPUs each, as two hosts, the farm through
--scheduler (its merged log compared with the local cluster's).  --check-whole also scores the title with one whole run and
compares the farm's merged log with it byte for byte (the title's frames
at one process's rate: minutes for a long title).  --compare-plans runs
the farm twice with different segment sizes and compares the two merged
logs byte for byte (the exactness check that fits a long title).

Writes one JSON of all figures (--out/bench_farm.json) and prints a table.
--filter fssim runs the same on the CPU (CPU workers for GPUs, software
decoding), with --tiny-clips DIR to make small clips of the same names:
a test of this script on any machine.

usage: bench_farm.py FFMPEG CLIPS_DIR [--gpus 4] [--frames 43200] [--hand-frames 2400]
                     [--per-gpu 1,2,3,4] [--decode] [--variants 600,noprestart]
                     [--check-whole] [--compare-plans] [--out DIR] [--filter fssim_cuda]
                     [--wheels DIR]
The wheels, made on a machine with a network:
    pip download -d WHEELS --only-binary=:all: --python-version 3.12 dask distributed
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "farm"))

REFERENCE = "2160_hevc_8_qp22.mkv"
RENDITIONS = ["2160_hevc_8_qp34.mkv", "ladder_1440.mkv", "ladder_1080.mkv",
              "ladder_720.mkv", "ladder_540.mkv", "ladder_360.mkv"]
# --tiny-clips: the same names, small sizes (w, h, encoder, crf)
TINY = {"2160_hevc_8_qp22.mkv": (128, 72, "libx265", 12),
        "2160_hevc_8_qp34.mkv": (128, 72, "libx265", 30),
        "ladder_1440.mkv": (96, 54, "libx264", 26), "ladder_1080.mkv": (80, 46, "libx264", 26),
        "ladder_720.mkv": (64, 36, "libx264", 28), "ladder_540.mkv": (48, 28, "libx264", 28),
        "ladder_360.mkv": (32, 18, "libx264", 30)}


def ensure_dask(wheels, out):
    """dask and distributed, from local wheels where they are missing (the
    GPU hosts reach no package index): into a venv under the output
    folder, and the script started again there."""
    try:
        import distributed  # noqa: F401
        return
    except ImportError:
        pass
    if not wheels:
        sys.exit("distributed is not installed: pass --wheels DIR (dask, distributed and "
                 "their dependencies as wheels)")
    venv = os.path.join(os.path.abspath(out), "venv")
    py = os.path.join(venv, "bin", "python3")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv],
                       check=True)
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-index", "--find-links", wheels,
                    "dask", "distributed"], check=True)
    os.execv(py, [py] + sys.argv)


def tiny_clips(d, frames=60):
    """Small clips of the ladder's names (ENCODER_FFMPEG: libx264/libx265)."""
    os.makedirs(d, exist_ok=True)
    enc = os.environ.get("ENCODER_FFMPEG") or "ffmpeg"
    for name, (w, h, codec, crf) in TINY.items():
        path = os.path.join(d, name)
        if os.path.exists(path):
            continue
        gop = ["-x265-params", "keyint=30:min-keyint=30:scenecut=0:log-level=error"] \
            if codec == "libx265" else ["-g", "30", "-keyint_min", "30", "-sc_threshold", "0"]
        subprocess.run([enc, "-hide_banner", "-v", "error", "-y", "-f", "lavfi", "-i",
                        "testsrc2=s=128x72:r=24:d=%g" % (frames / 24.0), "-vf",
                        "noise=alls=6:allf=t,scale=%d:%d" % (w, h), "-c:v", codec, "-crf",
                        str(crf), "-pix_fmt", "yuv420p"] + gop + [path], check=True)
    return d


def loop_clips(ffmpeg, clips, frames, out, tag):
    """Each clip looped by stream copy to `frames` frames (Matroska)."""
    paths = []
    for name in [REFERENCE] + RENDITIONS:
        src = os.path.join(clips, name)
        dst = os.path.join(out, "%s_%d_%s" % (tag, frames, name))
        if not os.path.exists(dst):
            subprocess.run([ffmpeg, "-hide_banner", "-v", "error", "-y", "-stream_loop", "-1",
                            "-i", src, "-frames:v", str(frames), "-c", "copy", "-an",
                            dst + ".tmp.mkv"], check=True)
            os.replace(dst + ".tmp.mkv", dst)
        paths.append(dst)
    return paths[0], paths[1:]


class Load(threading.Thread):
    """NVDEC and SM use of GPUs 0..gpus-1 (nvidia-smi, every 0.5 s) and the
    host's CPU time in use, in cores (/proc/stat), while a run goes."""

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
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, timeout=5).stdout
                rows = [[float(x) for x in r.split(",")] for r in out.split("\n") if r.strip()]
                self.dec.append(sum(r[0] for r in rows) / len(rows))
                self.sm.append(sum(r[1] for r in rows) / len(rows))
            except (OSError, ValueError, subprocess.SubprocessError, ZeroDivisionError):
                pass
            time.sleep(0.5)

    def result(self):
        self.stop = True
        self.join()
        busy, total = (b - a for a, b in zip(self.c0, self.cpu()))
        mean = lambda v: round(sum(v) / len(v), 1) if v else None  # noqa: E731
        return {"nvdec_util": mean(self.dec), "sm_util": mean(self.sm),
                "cpu_cores_busy": round(os.cpu_count() * busy / total, 1) if total else None}


def gpu_of(args, g):
    return g if args.filter != "fssim" else None


def hand_layout(args, gpus, per_gpu, ref, dists, decode=False):
    """per_gpu whole runs at once on each of `gpus` GPUs: ladder frames/s
    of all of them together."""
    from fssim_farm import segments
    load = Load(gpus)
    load.start()
    procs = []
    t0 = time.time()
    for g in range(gpus):
        for i in range(per_gpu):
            if decode:
                cmd = decode_cmd(args, g, dists + [ref])
            else:
                log = os.path.join(args.out, "hand_g%d_%d.json" % (g, i))
                cmd = segments.command(args.ffmpeg, args.filter, ref, dists, args.options, log,
                                       "json", None, progress=False, gpu=gpu_of(args, g))
            procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE))
    errs = [p.communicate()[1] for p in procs]
    wall = time.time() - t0
    bad = [e.decode(errors="replace")[-300:] for p, e in zip(procs, errs) if p.returncode]
    return {"gpus": gpus, "per_gpu": per_gpu, "processes": len(procs),
            "wall_s": round(wall, 3), "fps": round(len(procs) * args.hand_frames / wall, 1),
            "errors": bad, **load.result()}


def decode_cmd(args, gpu, inputs):
    hw = args.filter != "fssim"
    cmd = [args.ffmpeg, "-hide_banner", "-nostdin", "-v", "error"]
    if hw:
        cmd += ["-init_hw_device", "cuda=g:%d" % gpu]
    for p in inputs:
        if hw:
            cmd += ["-hwaccel", "cuda", "-hwaccel_device", "g", "-hwaccel_output_format",
                    "cuda"]
        cmd += ["-i", p]
    for i in range(len(inputs)):
        cmd += ["-map", "%d:v" % i, "-f", "null", "-"]
    return cmd


class TwoHosts:
    """A `dask scheduler` and two `fssim-farm worker` processes here, the
    GPUs split between them as two hosts would hold them (--variants
    split): the farm then runs through --scheduler."""

    def __init__(self, args, gpus):
        self.args, self.gpus, self.procs = args, gpus, []

    def __enter__(self):
        env = _farm_env()
        sfile = os.path.join(self.args.out, "scheduler.json")
        if os.path.exists(sfile):
            os.unlink(sfile)
        self.procs.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
             "--port", "0", "--no-dashboard", "--scheduler-file", sfile], env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.time() + 60
        while not os.path.exists(sfile) and time.time() < deadline:
            time.sleep(0.2)
        time.sleep(0.5)
        self.addr = json.load(open(sfile))["address"]
        half = max(1, self.gpus // 2)
        for name, ids in (("hostA", range(half)), ("hostB", range(half, self.gpus))):
            ids = list(ids)
            if not ids:
                continue
            cmd = [sys.executable, "-m", "fssim_farm", "worker", self.addr, "--name", name,
                   "--quiet"]
            cmd += ["--gpus", ",".join(map(str, ids))] if self.args.filter != "fssim" else []
            self.procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                               stderr=subprocess.DEVNULL))
        from distributed import Client
        with Client(self.addr, timeout=60) as c:
            c.wait_for_workers(self.gpus if self.args.filter != "fssim" else 2, timeout=120)
        return self

    def __exit__(self, *exc):
        for p in self.procs[::-1]:
            p.terminate()
        for p in self.procs[::-1]:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()


def _farm_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(TOP, "farm") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def farm_run(args, gpus, ref, dists, out_log, extra=()):
    """`fssim-farm score` on GPUs 0..gpus-1 (CPU: gpus workers), the whole
    title: the command's wall time, its summary's phases, the load."""
    subprocess.run(["rm", "-rf", out_log, out_log + ".segments"])
    cmd = [sys.executable, "-m", "fssim_farm", "score", "--reference", ref] + dists + [
        "-o", out_log, "--filter", args.filter, "--options", args.options, "--ffmpeg",
        args.ffmpeg, "--json", "--no-progress"]
    if "--scheduler" in extra:
        pass
    elif args.filter == "fssim":
        cmd += ["--workers", str(gpus)]
    else:
        cmd += ["--gpus", ",".join(str(g) for g in range(gpus))]
    cmd += list(extra)
    env = _farm_env()
    load = Load(gpus)
    load.start()
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=env)
    wall = time.time() - t0
    try:
        s = json.loads(p.stdout)
    except ValueError:
        s = {"status": "failed", "error": p.stderr[-1000:]}
    frames = s.get("frames") or 0
    tm = s.get("timings_s", {})
    return {"gpus": gpus, "extra": list(extra), "status": s.get("status"),
            "error": s.get("error") if p.returncode else None, "frames": frames,
            "segments": s.get("segments"), "wall_s": round(wall, 3),
            "fps": round(frames / wall, 1) if frames else 0.0,
            "phases_s": {"python_and_imports": round(wall - s.get("wall_s", wall), 3),
                         "cluster_start": tm.get("cluster_start"),
                         "checks_probe": tm.get("checks"), "ready": tm.get("ready"),
                         "scoring": tm.get("scoring"), "merge": tm.get("merge")},
            "frames_per_worker": s.get("frames_per_worker"), **load.result()}


def same_bytes(a, b, drop_segments=True):
    """Two logs, the same bytes (the segments field/line aside)."""
    import re
    with open(a) as f:
        x = f.read()
    with open(b) as f:
        y = f.read()
    if drop_segments:
        x = re.sub(r',\n  "segments": \[[^\]]*\]\n}\n$', "\n}\n", x)
        x = re.sub(r"# segments=[0-9,-]*\n$", "", x)
        y = re.sub(r',\n  "segments": \[[^\]]*\]\n}\n$', "\n}\n", y)
        y = re.sub(r"# segments=[0-9,-]*\n$", "", y)
    return x == y


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ffmpeg", help="the built ffmpeg (ffprobe beside it)")
    ap.add_argument("clips", help="the clips of make_bench_clips.py --ladder (or --tiny-clips)")
    ap.add_argument("--gpus", type=int, default=4, help="the most GPUs to use (1, 2, 4)")
    ap.add_argument("--gpu-counts", default=None, help="GPU counts to measure (default 1,2,4 "
                    "up to --gpus)")
    ap.add_argument("--frames", type=int, default=43200, help="the farm's title, frames")
    ap.add_argument("--hand-frames", type=int, default=2400,
                    help="frames of each whole run of the hand layouts")
    ap.add_argument("--per-gpu", default="1,2,3,4", help="hand layouts: processes per GPU")
    ap.add_argument("--decode", action="store_true", help="also decoding alone (second column)")
    ap.add_argument("--variants", default="", help="more farm runs on the most GPUs: 600 "
                    "(600-frame segments), noprestart, slotsN, split (two worker processes "
                    "through a scheduler), comma-separated")
    ap.add_argument("--check-whole", action="store_true",
                    help="a whole run of the title, compared with the farm's merged log")
    ap.add_argument("--compare-plans", action="store_true",
                    help="a second farm run with other segments, its log compared")
    ap.add_argument("--skip-hand", action="store_true", help="no hand layouts")
    ap.add_argument("--algo", default="float", help="the filter's algo (default float)")
    ap.add_argument("--filter", default="fssim_cuda", choices=("fssim_cuda", "fssim"),
                    help="fssim_cuda (NVDEC); fssim: the CPU, a test of this script")
    ap.add_argument("--tiny-clips", action="store_true",
                    help="make small clips of the ladder's names in CLIPS_DIR first (CPU test)")
    ap.add_argument("--out", default="bench_farm_out", help="folder of the titles and logs")
    ap.add_argument("--wheels", default=None,
                    help="a folder of dask and distributed wheels, installed into a venv "
                         "under --out where they are missing")
    args = ap.parse_args()
    args.ffmpeg = os.path.abspath(args.ffmpeg)
    args.options = "algo=%s" % args.algo
    os.makedirs(args.out, exist_ok=True)
    ensure_dask(args.wheels, args.out)
    if args.tiny_clips:
        tiny_clips(args.clips)
    t_start = time.time()
    ref, dists = loop_clips(args.ffmpeg, args.clips, args.frames, args.out, "title")
    href, hdists = loop_clips(args.ffmpeg, args.clips, args.hand_frames, args.out, "hand")
    res = {"ffmpeg": args.ffmpeg, "filter": args.filter, "algo": args.algo,
           "frames": args.frames, "hand_frames": args.hand_frames,
           "date": time.strftime("%Y-%m-%d"), "hand": [], "decode": [], "farm": [],
           "variants": [], "build_titles_s": round(time.time() - t_start, 1)}
    try:
        res["gpu"] = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                                    stdout=subprocess.PIPE, text=True).stdout.strip()
    except OSError:
        res["gpu"] = None
    res["host_cores"] = os.cpu_count()
    counts = [int(x) for x in args.gpu_counts.split(",")] if args.gpu_counts else \
        [g for g in (1, 2, 4) if g <= args.gpus]
    per_gpu = [int(x) for x in args.per_gpu.split(",") if x]
    rows = []
    for g in counts:
        best = None
        if not args.skip_hand:
            for p in per_gpu:
                r = hand_layout(args, g, p, href, hdists)
                res["hand"].append(r)
                print("hand   %d GPU x %d: %7.1f ladder frames/s  NVDEC %s%% SM %s%% CPU %s%s"
                      % (g, p, r["fps"], r["nvdec_util"], r["sm_util"], r["cpu_cores_busy"],
                         "  ERR " + r["errors"][0] if r["errors"] else ""), flush=True)
                if not r["errors"] and (best is None or r["fps"] > best["fps"]):
                    best = r
                if args.decode:
                    dr = hand_layout(args, g, p, href, hdists, decode=True)
                    res["decode"].append(dr)
                    print("decode %d GPU x %d: %7.1f ladder frames/s" % (g, p, dr["fps"]),
                          flush=True)
        f = farm_run(args, g, ref, dists, os.path.join(args.out, "farm_%dgpu.json" % g))
        f["best_hand_fps"] = best["fps"] if best else None
        f["best_hand_per_gpu"] = best["per_gpu"] if best else None
        f["ratio"] = round(f["fps"] / best["fps"], 3) if best and f["fps"] else None
        res["farm"].append(f)
        rows.append(f)
        print("farm   %d GPU: %7.1f frames/s (%d frames, %s segments, %.1f s: %s)%s; NVDEC %s%% "
              "SM %s%% CPU %s%s" % (
                  g, f["fps"], f["frames"], f["segments"], f["wall_s"],
                  ", ".join("%s %s" % kv for kv in f["phases_s"].items()),
                  "  ratio %.3f" % f["ratio"] if f["ratio"] else "", f["nvdec_util"],
                  f["sm_util"], f["cpu_cores_busy"],
                  "" if f["status"] == "ok" else "  FAILED " + str(f["error"])), flush=True)
    top = counts[-1]
    merged = os.path.join(args.out, "farm_%dgpu.json" % top)
    for v in [v for v in args.variants.split(",") if v]:
        extra = {"600": ["--segment-frames", "600"], "noprestart": ["--no-prestart"]}.get(v)
        if extra is None and v.startswith("slots"):
            extra = ["--slots", v[5:]]
        log = os.path.join(args.out, "farm_%s.json" % v)
        if v == "split":
            # two worker processes, half the GPUs each, through --scheduler
            with TwoHosts(args, top) as hosts:
                f = farm_run(args, top, ref, dists, log, ["--scheduler", hosts.addr])
        elif extra is None:
            sys.exit("unknown variant %r" % v)
        else:
            f = farm_run(args, top, ref, dists, log, extra)
        if f["status"] == "ok" and os.path.exists(merged):
            f["bytes_equal_to_farm"] = same_bytes(_relocated(log, merged), merged)
        res["variants"].append(dict(f, variant=v))
        print("farm   %d GPU %s: %7.1f frames/s (%s segments, %.1f s)%s%s" % (
            top, v, f["fps"], f["segments"], f["wall_s"],
            "; merged log equal to the farm's: %s" % f.get("bytes_equal_to_farm")
            if "bytes_equal_to_farm" in f else "",
            "" if f["status"] == "ok" else "  FAILED " + str(f["error"])), flush=True)
    if args.compare_plans and os.path.exists(merged):
        other = os.path.join(args.out, "farm_plan2.json")
        n = max(1, args.frames // 5)
        f = farm_run(args, top, ref, dists, other, ["--segment-frames", str(n)])
        same = f["status"] == "ok" and same_bytes(
            merged, _relocated(other, merged), drop_segments=True)
        res["compare_plans"] = {"segments": [res["farm"][-1]["segments"], f["segments"]],
                                "bytes_equal": same}
        print("two segmentations (%s and %s segments): merged logs equal byte for byte: %s"
              % (res["farm"][-1]["segments"], f["segments"], same), flush=True)
    if args.check_whole and os.path.exists(merged):
        from fssim_farm import segments
        title = json.load(open(merged))["options"]["title"]
        whole = os.path.join(args.out, "whole.json")
        cmd = segments.command(args.ffmpeg, args.filter, ref, dists, args.options, whole,
                               "json", title, progress=False, gpu=gpu_of(args, 0))
        t0 = time.time()
        p = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
        wall = time.time() - t0
        same = p.returncode == 0 and same_bytes(_relocated(merged, whole), whole)
        res["whole_run"] = {"rc": p.returncode, "wall_s": round(wall, 3),
                            "fps": round(args.frames / wall, 1), "bytes_equal": same,
                            "error": p.stderr[-500:] if p.returncode else None}
        print("whole run: %.1f frames/s; the farm's merged log equals it byte for byte: %s" % (
            args.frames / wall, same), flush=True)
    res["wall_s"] = round(time.time() - t_start, 1)
    path = os.path.join(args.out, "bench_farm.json")
    with open(path, "w") as fh:
        json.dump(res, fh, indent=1)
    print("\n| GPUs | best hand layout (P per GPU) | fssim-farm score, whole command | ratio |")
    print("| --- | --- | --- | --- |")
    for f in rows:
        print("| %d | %s | %.1f | %s |" % (
            f["gpus"], "%.1f (%d)" % (f["best_hand_fps"], f["best_hand_per_gpu"])
            if f["best_hand_fps"] else "-", f["fps"],
            "%.3f" % f["ratio"] if f["ratio"] else "-"))
    print("figures: %s (%.0f s in all)" % (path, res["wall_s"]))
    return 0 if all(f["status"] == "ok" for f in res["farm"] + res["variants"]) else 1


def _relocated(src, as_path):
    """A copy of log src with its log_path naming as_path (as if written
    there), for a byte comparison."""
    with open(src) as f:
        text = f.read()
    dst = src + ".as_" + os.path.basename(as_path)
    with open(dst, "w") as f:
        f.write(text.replace(json.dumps(src)[1:-1], json.dumps(as_path)[1:-1]))
    return dst


if __name__ == "__main__":
    sys.exit(main())
