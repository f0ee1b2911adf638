"""Soak test: host and device memory stay flat over a long run.

One clip pair looped (-stream_loop -1, -frames:v FRAMES) through each filter
in turn; every SOAK_INTERVAL seconds the ffmpeg process's resident memory
(/proc/PID/status VmRSS, and RssAnon beside it) and the GPU memory it uses
(nvidia-smi --query-compute-apps; the device's total use where the process
is not listed, e.g. a Vulkan-only process) are sampled.  A filter is FLAT when
the run exits 0, its JSON log holds every output frame (at least FRAMES
entries, n = 0.. with no gap, every one scored) and, after the warm-up, neither memory grows by more
than the thresholds between the first sample after warm-up and any later one.

usage: tests/device/soak.sh FFMPEG CLIP FRAMES OUT
  CLIP    the reference clip; the main (distorted) input is SOAK_MAIN or the
          clip's pair by name (bench/make_bench_clips.py: _qp22 -> _qp34;
          tests/cuda/make_clips.py: _hi -> _lo)
  FRAMES  output frames per run
  OUT     a folder: OUT/soak_<filter>.csv (one row per sample),
          OUT/soak_<filter>.log (ffmpeg's output), OUT/soak.json (summary)
Environment:
  MODE=gpu|cpu    the default filter list: gpu "cuda vulkan cuda3d" (NVDEC +
                  fssim_cuda, Vulkan Video + fssim_vulkan, NVDEC + fssim3d);
                  cpu "cpu cpu3d" (software frames: fssim, fssim3d)
  SOAK_FILTERS    space-separated list from: cuda vulkan cuda3d cpu cpu3d
                  vkup (hwupload to Vulkan + fssim_vulkan) cuup3d (hwupload
                  to CUDA + fssim3d); baselines, no fssim filter: base_nvdec,
                  base_vkdec, base_sw (both streams decoded, no filter), ssim
                  (FFmpeg's ssim on software frames)
  SOAK_FRAMES_3D  frames for the fssim3d runs (default FRAMES)
  SOAK_ALGO       algo of fssim/fssim_cuda/fssim_vulkan (float+int+block)
  SOAK_INTERVAL   seconds between samples (10); SOAK_WARMUP seconds (30)
  SOAK_RSS_MIB, SOAK_GPU_MIB  growth thresholds (5, 1): flat means below
  SOAK_TIMEOUT    seconds per run before SIGTERM (300)
  SOAK_KEEP_LOGS=1  keep the per-frame score logs (OUT/soak_<filter>.scores.json)
Exit status 0 when every filter is flat, 1 otherwise, 2 on a usage error.
"""
import csv
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devlib  # noqa: E402

FILTERS = {
    # name: (frame source, filter with {algo} and {log}, 3-D)
    "cuda":   ("nvdec", "fssim_cuda=algo={algo}:log_path={log}", False),
    "vulkan": ("vkdec", "fssim_vulkan=algo={algo}:log_path={log}", False),
    "cuda3d": ("nvdec", "fssim3d=log_path={log}", True),
    "cpu":    ("sw", "fssim=algo={algo}:log_path={log}", False),
    "cpu3d":  ("sw", "fssim3d=log_path={log}", True),
    "vkup":   ("vkup", "fssim_vulkan=algo={algo}:log_path={log}", False),
    "cuup3d": ("cuup", "fssim3d=log_path={log}", True),
    # baselines: the same decoding and looping with no filter (both streams
    # decoded and sent to the null muxer), and FFmpeg's own ssim, to tell
    # FFmpeg's growth from the filters'
    "base_nvdec": ("nvdec", None, False),
    "base_vkdec": ("vkdec", None, False),
    "base_sw":    ("sw", None, False),
    "ssim":       ("sw", "ssim", False),
}
MIB = 1024.0


def env_num(name, default):
    v = os.environ.get(name)
    try:
        return float(v) if v else default
    except ValueError:
        devlib.die("%s=%s is not a number" % (name, v))


def proc_mem(pid):
    """(VmRSS, RssAnon) in MiB, or (None, None) once the process is gone."""
    rss = anon = None
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) / MIB
                elif line.startswith("RssAnon:"):
                    anon = int(line.split()[1]) / MIB
    except OSError:
        pass
    return rss, anon


def nvsmi(args):
    try:
        return subprocess.run(["nvidia-smi"] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None


def gpu_mem(pid, have_smi):
    """(MiB used by pid or None if not listed, MiB used on the device)."""
    if not have_smi:
        return None, None
    proc = None
    out = nvsmi(["--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"])
    for line in (out or "").splitlines():
        parts = [x.strip() for x in line.split(",")]
        if len(parts) == 2 and parts[0] == str(pid) and parts[1].isdigit():
            proc = (proc or 0) + int(parts[1])
    out = nvsmi(["--query-gpu=memory.used", "--format=csv,noheader,nounits"])
    try:
        dev = sum(int(x) for x in out.split())
    except (AttributeError, ValueError):
        dev = None
    return proc, dev


def last_frame(progress):
    """The frame count of ffmpeg's latest -progress block."""
    try:
        with open(progress) as f:
            frames = [l for l in f.read().splitlines() if l.startswith("frame=")]
        return int(frames[-1].split("=")[1]) if frames else 0
    except (OSError, ValueError):
        return None


def soak(name, ffmpeg, ref, main, frames, out, cfg):
    source, filt, _ = FILTERS[name]
    src = devlib.SOURCES[source]
    scores = os.path.join(out, "soak_%s.scores.json" % name)
    progress = os.path.join(out, "soak_%s.progress" % name)
    stderr_log = os.path.join(out, "soak_%s.log" % name)
    for p in (scores, progress):
        if os.path.exists(p):
            os.unlink(p)
    fgraph = filt and devlib.graph(source, filt.format(algo=cfg["algo"], log=scores))
    cmd = [ffmpeg, "-hide_banner", "-nostdin", "-y", "-nostats", "-progress", progress,
           "-stats_period", "1"] + src["global"]
    for clip in (main, ref):
        cmd += src["input"] + ["-stream_loop", "-1", "-i", clip]
    cmd += (["-lavfi", fgraph] if fgraph else ["-map", "0:v", "-map", "1:v"]) + \
        ["-frames:v", str(frames), "-f", "null", "-"]

    samples = []
    with open(stderr_log, "w") as logf:
        logf.write("# " + " ".join(cmd) + "\n")
        logf.flush()
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        k, status = 1, None
        while status is None:
            now = time.monotonic() - t0
            if now >= k * cfg["interval"]:
                rss, anon = proc_mem(p.pid)
                gproc, gdev = gpu_mem(p.pid, cfg["smi"])
                if rss is not None and p.poll() is None:
                    samples.append({"t_s": round(now, 2), "frame": last_frame(progress),
                                    "rss_mib": rss, "rss_anon_mib": anon,
                                    "gpu_proc_mib": gproc, "gpu_dev_mib": gdev})
                k += 1
            if now > cfg["timeout"]:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
                status = "timeout after %d s" % cfg["timeout"]
                break
            try:
                status = p.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
        wall = time.monotonic() - t0
    done = last_frame(progress)     # frames out, as ffmpeg counted them

    with open(os.path.join(out, "soak_%s.csv" % name), "w", newline="") as f:
        keys = ["t_s", "frame", "rss_mib", "rss_anon_mib", "gpu_proc_mib", "gpu_dev_mib"]
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for s in samples:
            w.writerow({k: ("" if s[k] is None else
                            "%.3f" % s[k] if isinstance(s[k], float) else s[k]) for k in keys})

    log = devlib.load_log(scores)
    # At least FRAMES: -frames:v stops the output, and frames the filter
    # scored that were still on their way (fssim3d's depth/2 lag, the GPU
    # filters' readback pipeline) are in the log too, after the FRAMES.
    log_probs = devlib.check_log(log, frames, exact=False) if "log_path" in (filt or "") else []
    logged = len(log["frames"]) if log else 0

    # The process's own GPU memory where nvidia-smi lists it in every sample
    # after the warm-up, else the device total (a machine to ourselves).
    warm = [s for s in samples if s["t_s"] >= cfg["warmup"]]
    gkey = "gpu_proc_mib" if warm and all(s["gpu_proc_mib"] is not None for s in warm) else \
           "gpu_dev_mib" if warm and all(s["gpu_dev_mib"] is not None for s in warm) else None

    def growth(key):
        if not key or len(warm) < 2 or any(s[key] is None for s in warm):
            return None, None
        base = warm[0][key]
        return warm[-1][key] - base, max(s[key] - base for s in warm[1:])

    rss_last, rss_max = growth("rss_mib")
    anon_last, anon_max = growth("rss_anon_mib")
    gpu_last, gpu_max = growth(gkey)
    why = []
    if status != 0:
        why.append("exit status %s" % status)
    why += ["log: " + x for x in log_probs]
    if len(warm) < 2:
        why.append("only %d samples after the %g s warm-up: run more frames" %
                   (len(warm), cfg["warmup"]))
    if rss_max is not None and rss_max >= cfg["rss_mib"]:
        why.append("RSS grew %.2f MiB (threshold %g)" % (rss_max, cfg["rss_mib"]))
    if gpu_max is not None and gpu_max >= cfg["gpu_mib"]:
        why.append("GPU memory grew %g MiB (threshold %g)" % (gpu_max, cfg["gpu_mib"]))
    if cfg["smi"] and source not in ("sw",) and gpu_max is None and len(warm) >= 2:
        why.append("no GPU memory reading from nvidia-smi")
    verdict = "FLAT" if not why else "NOT FLAT" if status == 0 and not log_probs else "FAIL"

    def point(s):
        return s and {k: s[k] for k in ("t_s", "frame", "rss_mib", "rss_anon_mib", "gpu_proc_mib",
                                        "gpu_dev_mib")}
    res = {
        "filter": name, "graph": fgraph, "command": cmd, "frames": frames,
        "exit_status": status, "frames_out": done, "wall_s": round(wall, 2),
        "fps": round((done or 0) / wall, 1),
        "frames_logged": logged, "log_problems": log_probs, "pooled_all": devlib.pooled_all(log),
        "samples": len(samples), "samples_after_warmup": len(warm),
        "first_after_warmup": point(warm[0]) if warm else None,
        "last": point(samples[-1]) if samples else None,
        "rss_growth_mib": rss_last, "rss_max_growth_mib": rss_max,
        "rss_anon_growth_mib": anon_last, "rss_anon_max_growth_mib": anon_max,
        "gpu_source": {"gpu_proc_mib": "process", "gpu_dev_mib": "device"}.get(gkey),
        "gpu_growth_mib": gpu_last, "gpu_max_growth_mib": gpu_max,
        "peak_rss_mib": max((s["rss_mib"] for s in samples), default=None),
        "verdict": verdict, "why": why,
    }
    if log and verdict != "FAIL" and not os.environ.get("SOAK_KEEP_LOGS"):
        os.unlink(scores)
    return res


def fmt(v, unit="MiB"):
    return "n/a" if v is None else "%+.2f %s" % (v, unit)


def main():
    if len(sys.argv) != 5:
        devlib.die("usage: soak.sh FFMPEG CLIP FRAMES OUT")
    ffmpeg, ref, frames, out = sys.argv[1:]
    devlib.check_ffmpeg(ffmpeg)
    try:
        frames = int(frames)
    except ValueError:
        devlib.die("FRAMES must be a number, not %s" % frames)
    mode = os.environ.get("MODE", "gpu")
    if mode not in ("gpu", "cpu"):
        devlib.die("MODE must be gpu or cpu")
    names = os.environ.get("SOAK_FILTERS",
                           "cuda vulkan cuda3d" if mode == "gpu" else "cpu cpu3d").split()
    for n in names:
        if n not in FILTERS:
            devlib.die("unknown filter %s in SOAK_FILTERS (known: %s)" % (n, " ".join(FILTERS)))
    main_clip = os.environ.get("SOAK_MAIN") or devlib.pair_of(ref)
    for c in (ref, main_clip):
        if not c or not os.path.isfile(c):
            devlib.die("clip %s not found (the main clip: SOAK_MAIN, or CLIP named *_qp22.* "
                       "or *_hi.*, with its *_qp34.* / *_lo.* pair beside it)" % c)
    cfg = {"algo": os.environ.get("SOAK_ALGO", "float+int+block"),
           "interval": env_num("SOAK_INTERVAL", 10.0), "warmup": env_num("SOAK_WARMUP", 30.0),
           "rss_mib": env_num("SOAK_RSS_MIB", 5.0), "gpu_mib": env_num("SOAK_GPU_MIB", 1.0),
           "timeout": env_num("SOAK_TIMEOUT", 300.0),
           "smi": nvsmi(["-L"]) is not None}
    if mode == "gpu" and not cfg["smi"]:
        devlib.die("MODE=gpu needs nvidia-smi")
    frames3d = int(env_num("SOAK_FRAMES_3D", frames))
    os.makedirs(out, exist_ok=True)
    gpu = (nvsmi(["--query-gpu=name,driver_version", "--format=csv,noheader"]) or "").strip()
    print("soak: %s (main) vs %s (reference), %d frames (%d for fssim3d), sample every %g s, "
          "warm-up %g s, flat: RSS < %g MiB and GPU < %g MiB of growth%s" %
          (main_clip, ref, frames, frames3d, cfg["interval"], cfg["warmup"], cfg["rss_mib"],
           cfg["gpu_mib"], "; " + gpu if gpu else ""), flush=True)
    results = []

    def save():
        # after every run: what was measured survives a later run's hang
        with open(os.path.join(out, "soak.json"), "w") as f:
            json.dump({"mode": mode, "gpu": gpu, "ref": ref, "main": main_clip,
                       "thresholds_mib": {"rss": cfg["rss_mib"], "gpu": cfg["gpu_mib"]},
                       "interval_s": cfg["interval"], "warmup_s": cfg["warmup"],
                       "filters": names, "runs": results}, f, indent=1)
    for n in names:
        r = soak(n, ffmpeg, ref, main_clip, frames3d if FILTERS[n][2] else frames, out, cfg)
        results.append(r)
        save()
        print("%-7s %-8s %s frames in %.1f s (%.0f fps), log %d frames, %d samples (%d after "
              "warm-up); RSS %s (max %s, anon %s), GPU %s (max %s, %s)%s" %
              (n, r["verdict"], r["frames_out"], r["wall_s"], r["fps"], r["frames_logged"],
               r["samples"], r["samples_after_warmup"], fmt(r["rss_growth_mib"]),
               fmt(r["rss_max_growth_mib"]), fmt(r["rss_anon_growth_mib"]),
               fmt(r["gpu_growth_mib"]), fmt(r["gpu_max_growth_mib"]), r["gpu_source"] or "-",
               "".join("\n        - " + w for w in r["why"])), flush=True)
        if r["verdict"] == "FAIL":
            sys.stdout.write(devlib.tail(os.path.join(out, "soak_%s.log" % n)))
    ok = all(r["verdict"] == "FLAT" for r in results)
    print("soak: %s (%s)" % ("all flat" if ok else "NOT all flat",
                             ", ".join("%s %s" % (r["filter"], r["verdict"]) for r in results)))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
