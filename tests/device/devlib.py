"""What the GPU-machine scripts of tests/device share (soak.py, multi.py):
the command lines that put frames on each device, the fssim logs, and
failing loudly.  Standard library only: the GPU machine has python3 but
not the project's virtual environment."""
import json
import os
import shutil
import subprocess
import sys

# Decoder options per input, and global options, for each way of getting
# frames to a filter.  "nvdec": NVDEC into CUDA frames; "vkdec": Vulkan Video
# decode into Vulkan frames; "sw": software decode; "cuup"/"vkup": software
# decode then hwupload on the one filter device (one CUDA context / Vulkan
# device for both inputs).
SOURCES = {
    "nvdec": {"global": ["-init_hw_device", "cuda=cu", "-filter_hw_device", "cu"],
              "input": ["-hwaccel", "cuda", "-hwaccel_device", "cu",
                        "-hwaccel_output_format", "cuda"],
              "upload": False},
    "vkdec": {"global": ["-init_hw_device", "vulkan=vk", "-filter_hw_device", "vk"],
              "input": ["-hwaccel", "vulkan", "-hwaccel_device", "vk",
                        "-hwaccel_output_format", "vulkan"],
              "upload": False},
    "sw":    {"global": [], "input": [], "upload": False},
    "cuup":  {"global": ["-init_hw_device", "cuda=cu", "-filter_hw_device", "cu"],
              "input": [], "upload": True},
    "vkup":  {"global": ["-init_hw_device", "vulkan=vk", "-filter_hw_device", "vk"],
              "input": [], "upload": True},
}


def die(msg, status=2):
    sys.stderr.write("%s: %s\n" % (os.path.basename(sys.argv[0]), msg))
    sys.exit(status)


def check_ffmpeg(ffmpeg):
    if not (os.path.isfile(ffmpeg) and os.access(ffmpeg, os.X_OK)) and not shutil.which(ffmpeg):
        die("%s is not an executable ffmpeg" % ffmpeg)


def pair_of(ref):
    """The distorted (main) clip that goes with a reference clip of
    bench/make_bench_clips.py (_qp22 -> _qp34) or tests/cuda/make_clips.py
    (_hi -> _lo)."""
    for a, b in (("_qp22.", "_qp34."), ("_hi.", "_lo.")):
        if a in os.path.basename(ref):
            d, f = os.path.split(ref)
            return os.path.join(d, f.replace(a, b))
    return None


def graph(source, filt, inputs=("0:v", "1:v")):
    """[main][ref]filt, with hwupload on each input where the source needs it."""
    if SOURCES[source]["upload"]:
        return "[%s]hwupload[m];[%s]hwupload[r];[m][r]%s" % (inputs[0], inputs[1], filt)
    return "[%s][%s]%s" % (inputs[0], inputs[1], filt)


def load_log(path):
    """The JSON log of an fssim filter, or None if missing or not valid JSON."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def check_log(log, frames, exact=True):
    """Problems with a JSON log that should hold `frames` scored frames
    (at least that many when not exact): [] when none."""
    if log is None:
        return ["the log is missing or not valid JSON"]
    probs = []
    fr = log.get("frames", [])
    if log.get("frame_count") != len(fr):
        probs.append("frame_count %s but %d frames listed" % (log.get("frame_count"), len(fr)))
    if len(fr) < frames or (exact and len(fr) != frames):
        probs.append("%d frames logged, %s%d expected" % (len(fr), "" if exact else ">= ", frames))
    ns = [f.get("n") for f in fr]
    if ns != list(range(len(fr))):
        bad = next(i for i, n in enumerate(ns) if n != i)
        probs.append("frame numbers not 0..%d: entry %d has n=%s" % (len(fr) - 1, bad, ns[bad]))
    for f in fr:
        algos = [k for k in f if k not in ("n", "pts", "pts_time")]
        if not algos or any(not isinstance(f[a].get("All"), (int, float)) for a in algos):
            probs.append("frame %s has no score: %s" % (f.get("n"), json.dumps(f)[:200]))
            break
    return probs


def pooled_all(log):
    """{algo: pooled mean of All} of a JSON log."""
    if not log:
        return {}
    return {a: v["All"]["mean"] for a, v in log.get("pooled", {}).items() if "All" in v}


def tail(path, n=15):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def run(cmd, log, timeout):
    """Run cmd with stdout+stderr into the file log; the exit status
    (-signal if killed by one, 'timeout' after SIGTERM at the limit)."""
    with open(log, "w") as f:
        f.write("# " + " ".join(cmd) + "\n")
        f.flush()
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            return p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.terminate()
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            return "timeout"
