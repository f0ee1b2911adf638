"""What the benchmark scripts share: running ffmpeg with a wall clock (and
the frame rate in the middle of the run, from its progress reports: the
"steady" figures), the peak GPU memory while it runs, the best of a few
runs."""
import argparse
import datetime
import os
import re
import subprocess
import sys
import threading
import time

HW = ["-hwaccel", "cuda", "-hwaccel_output_format", "cuda"]
VK_DEV = ["-init_hw_device", "vulkan=vk:0", "-filter_hw_device", "vk"]
VK_HW = ["-hwaccel", "vulkan", "-hwaccel_device", "vk", "-hwaccel_output_format", "vulkan"]


def fed_output(nb_inputs):
    """A second output that takes every decoded input stream as it comes
    (doc/performance.md#keeping-the-decoders-busy): with it the ffmpeg
    tool's scheduler runs all decoders side by side, instead of feeding a
    filtergraph's inputs one at a time.  Its timestamps are moved 60 s back
    so that it is always the output furthest behind, the one the scheduler
    paces the inputs by, however late the scores come out; kept in the
    input's time base, as rounding those negative timestamps to the frame
    rate would now and then repeat one."""
    return (sum((["-map", "%d:v" % i] for i in range(nb_inputs)), []) +
            ["-vf", "setpts=PTS-60/TB", "-enc_time_base", "filter", "-f", "null", "-"])


def parse_gpu(err):
    """The GPU time the fssim filters of a graph report at uninit (verbose),
    summed over them: fssim_cuda's per frame pair, fssim_vulkan's mean per
    frame.  One filter: its own time."""
    us = [float(x) for x in re.findall(r"GPU time per frame pair: ([\d.]+) us", err)]
    us += [float(x) for x in re.findall(r"GPU time per frame: mean ([\d.]+) us", err)]
    # fssim_vulkan's frames overlap on the device: its busy time per frame
    # counts each moment once (CUDA's frames run one after another, so its
    # mean is its busy time)
    busy = [float(x) for x in re.findall(r"GPU busy time per frame: ([\d.]+) us", err)]
    busy += [float(x) for x in re.findall(r"GPU time per frame pair: ([\d.]+) us", err)]
    return {"gpu_us": sum(us) if us else None, "gpu_busy_us": sum(busy) if busy else None}


def clip_args():
    """The arguments every benchmark takes: FFMPEG CLIPS_DIR [--out DIR]
    [--frames N] [--clip-frames N]; the caller adds its own."""
    ap = argparse.ArgumentParser()
    ap.add_argument("ffmpeg")
    ap.add_argument("clips")
    ap.add_argument("--out", default="bench-out")
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--clip-frames", type=int, default=60)
    return ap


def parse_clip_args(ap):
    """Parsed arguments (the output folder made), the -stream_loop count and
    the frames a run then decodes (whole clips: --frames rounded down)."""
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    loops = max(0, a.frames // a.clip_frames - 1)
    return a, loops, a.clip_frames * (loops + 1)


STATS = re.compile(rb"^frame=\s*(\d+)")


def run(cmd, env=None, timeout=900, samples=None):
    """Run cmd; return (seconds, stderr).  Raises on failure.

    stderr is read as it comes, so that each of the ffmpeg tool's progress
    reports ("frame=  123 fps=... speed=...", ended by '\r', the last by
    '\n') can be stamped with the time it arrived: with `samples` (a list)
    each report appends (seconds since the start, frames).  -stats_period
    0.1 (a global option, put after the binary) makes the reports come
    every 0.1 s rather than 0.5 s; it does not delay the end of a run (the
    tool's main loop wakes when the last output is done).  The stderr
    returned is the text subprocess.run(text=True) gave: '\r' and '\r\n'
    read as '\n', so that parsers anchored at line starts see the report
    lines as lines.  (Under -v time+..., as start_times runs, each report
    starts with the time of day and is not taken: only timed() wants
    them.)"""
    if "-stats_period" not in cmd:
        cmd = cmd[:1] + ["-stats_period", "0.1"] + cmd[1:]
    chunks = []

    def read(pipe):
        """Whole lines only: a report split across two reads is stamped
        when its end arrives."""
        part = b""
        while True:
            data = os.read(pipe.fileno(), 65536)
            if not data:
                break
            t = time.perf_counter() - t0
            chunks.append(data)
            lines = re.split(rb"[\r\n]", part + data)
            part = lines.pop()
            if samples is not None:
                for line in lines:
                    m = STATS.match(line)
                    if m:
                        samples.append((t, int(m.group(1))))

    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    reader = threading.Thread(target=read, args=(p.stderr,), daemon=True)
    reader.start()
    try:
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        raise
    finally:
        reader.join()
        p.stderr.close()
    dt = time.perf_counter() - t0
    err = b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    if p.returncode != 0:
        sys.stderr.write(err[-3000:])
        raise RuntimeError("failed: " + " ".join(cmd))
    return dt, err


def steady_fps(samples, frames):
    """Frames per second in the middle of a run, from the progress reports
    of run(samples=...): (f_b - f_a) / (t_b - t_a) between report a, the
    first at or beyond 20% of `frames`, and report b, the last below 95%
    of them; the last report of all (the tool prints it after the outputs'
    trailers, as the teardown begins) is never b.  None when there are no
    two such reports, when they came at the same time, or when they span
    less than 30% of the frames (too few reports to say).

    Why: frames / wall seconds of a short run (300-600 frames at ~200 fps)
    also counts the process start (hardware decoder set-up, CUDA or Vulkan
    initialisation, the driver's JIT) and the teardown (closing seven NVDEC
    decoders alone takes 0.3-0.5 s), paid once per process.  A long farm
    job pays them once over hours, so what it sees is the rate between
    them: this one."""
    body = samples[:-1]
    a = next((s for s in body if s[1] >= 0.2 * frames), None)
    b = next((s for s in reversed(body) if s[1] < 0.95 * frames), None)
    if a is None or b is None or b[0] <= a[0] or b[1] - a[1] < 0.3 * frames:
        return None
    return (b[1] - a[1]) / (b[0] - a[0])


class MemSampler(threading.Thread):
    """Peak GPU memory in use while a command runs (nvidia-smi)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.peak = 0
        self.stop = False

    def run(self):
        while not self.stop:
            try:
                out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used",
                                      "--format=csv,noheader,nounits"],
                                     stdout=subprocess.PIPE, text=True, timeout=5).stdout
                self.peak = max(self.peak, int(out.split()[0]))
            except Exception:
                pass
            time.sleep(0.2)


def timed(cmd, frames, parse=None, env=None):
    """Run cmd once: seconds, fps over `frames` (the whole process, start and
    teardown included), steady_fps (the rate in the middle of the run,
    steady_fps(); None when the run is too short to tell), peak GPU memory
    (MiB), plus whatever parse(stderr) returns (a dict)."""
    m = MemSampler()
    m.start()
    samples = []
    dt, err = run(cmd, env=env, samples=samples)
    m.stop = True
    m.join()
    r = {"s": dt, "fps": frames / dt, "steady_fps": steady_fps(samples, frames),
         "mem_mib": m.peak}
    if parse:
        r.update(parse(err))
    return r


def best(cmd, frames, parse=None, reps=2):
    """The fastest of `reps` runs (runs vary by +-15% on a shared machine),
    by whole-run fps; with steady_fps_best, the highest steady_fps of all
    the runs (None when no run could tell), as the two need not come from
    the same run."""
    runs = [timed(cmd, frames, parse) for _ in range(reps)]
    r = dict(max(runs, key=lambda r: r["fps"]))
    steady = [x["steady_fps"] for x in runs if x["steady_fps"] is not None]
    r["steady_fps_best"] = max(steady) if steady else None
    return r


def steady_text(r, base=None):
    """r's steady fps (the best of its runs) and, with base, its ratio to
    base's: "197.0 (0.952)"; "-" where no run could tell (a run too short,
    or one timed by wall clock only)."""
    s = r.get("steady_fps_best")
    if s is None:
        return "-"
    b = base.get("steady_fps_best") if base else None
    return "%.1f (%.3f)" % (s, s / b) if b else "%.1f" % s


def gpu_name():
    """The GPU and driver, as nvidia-smi names them."""
    return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                           "--format=csv,noheader"],
                          stdout=subprocess.PIPE, text=True).stdout.strip()


def first_output(t0, err):
    """Seconds from t0 (time.time() at the start of a run) to the first
    frame reaching the output: the line "Output #0" that the ffmpeg tool
    prints as it writes the output's header, stamped with the time of day
    by -v time+info; None without it."""
    m = re.search(r"^(\d\d):(\d\d):(\d\d)\.(\d{3}) Output #0", err, re.M)
    if not m:
        return None
    h, mi, s, ms = (int(x) for x in m.groups())
    t = datetime.datetime.fromtimestamp(t0).replace(hour=h, minute=mi, second=s,
                                                    microsecond=ms * 1000).timestamp()
    return t - t0 + (86400 if t < t0 - 43200 else 0)


def start_times(cmd, decode_cmd):
    """Seconds from process start to the end of cmd (a run that scores one
    frame), fastest of 3: with CUDA_CACHE_DISABLE=1, so the driver compiles
    any PTX it is given, and with a warm cache; and decode_cmd's, the same
    frames decoded with no filter.  The "_first" keys: to the first frame
    at the output (the first scored frame), without the teardown that
    follows (closing seven decoders alone took 0.3-0.5 s on an H100)."""
    env_cold = dict(os.environ, CUDA_CACHE_DISABLE="1")
    out = {}

    def times(key, c, env=None):
        c = c[:1] + ["-v", "time+info"] + c[1:]
        runs = []
        for _ in range(3):
            t0 = time.time()
            dt, err = run(c, env=env)
            runs.append((dt, first_output(t0, err)))
        out[key] = min(r[0] for r in runs)
        firsts = [r[1] for r in runs if r[1] is not None]
        out[key + "_first"] = min(firsts) if firsts else None

    times("cold", cmd, env_cold)
    run(cmd)  # fills the cache
    times("warm", cmd)
    times("decode_only", decode_cmd)
    return out


def start_summary(s):
    """start_times' figures as one line."""
    first = ("%.2f" % s[k + "_first"] if s.get(k + "_first") is not None else "-"
             for k in ("cold", "warm", "decode_only"))
    return ("first scored frame: cold %s s, warm %s s (decode only %s s); end of the one-frame "
            "run: cold %.2f s, warm %.2f s (decode only %.2f s)"
            % (*first, s["cold"], s["warm"], s["decode_only"]))
