#!/usr/bin/env python3
"""Logs that can be trusted (doc/outputs.md#reliability): whatever happens to
the run, the JSON log parses and the CSV log and stats files hold whole
rows, with every frame scored before the stop.

  - streams: log_path=-, /dev/stdout, /proc/self/fd/1 and a FIFO carry
    exactly one JSON document (FFmpeg probes a copy of the graph first);
    a FIFO without a reader is refused, not waited for forever; a reader
    that stops reading does not keep SIGTERM from ending the run;
  - kill -9 at seeded random moments of a ladder's run: every log parses
    and holds frames 0..k-1 with the values of a whole run;
  - a full disk (RLIMIT_FSIZE, SIGXFSZ ignored): the JSON and CSV logs and
    the stats file end after their last whole frame;
  - two writers of one file, in one process (by identity: ./x, links,
    stdout) or in several (a lock): a clear error;
  - the values kept for the percentiles: bytes per frame, and the same
    percentiles when they are spilled to a temporary file;
  - fssim3d's ring against the memory there is;
  - CSV comment lines, the pooled values of an empty rendition, a ladder's
    stats_file template, runs that score nothing, inputs that start at
    different times or run at different rates.
"""
import fcntl
import json
import math
import os
import random
import re
import resource
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time

import fssimtest as ft

CRASH = re.compile(r"Assertion|Segmentation|core dumped|Sanitizer|double free|"
                   r"stack smashing|Aborted|runtime error:", re.I)
SEED = int(os.environ.get("FSSIM_LOGS_SEED", "20261128"))
SRC = "testsrc2=s=64x48:r=25"

tap = ft.Tap()
D = ft.workdir("logs")


def path(name):
    return os.path.join(D, name)


def remove(*paths):
    for p in paths:
        if os.path.lexists(p):
            os.unlink(p)


def cmd(*args):
    return [ft.FFMPEG, "-hide_banner", "-nostdin", "-y"] + list(args)


def run(args, timeout=60, env=None, preexec_fn=None):
    """(returncode or None on a hang, stdout, stderr)."""
    p = subprocess.Popen(cmd(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env, preexec_fn=preexec_fn)
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        rc = None
    return rc, out.decode(errors="replace"), err.decode(errors="replace")


def pair(n, extra=""):
    """A graph of two inputs from one source: main blurred."""
    return "%s,trim=end_frame=%d,format=yuv420p,split[a][b];[a]avgblur=2[m];[m][b]" % (SRC, n)


def ladder(n, nb, size="64x48"):
    """A ladder of nb renditions of one source, each distorted its own way,
    some at other sizes (resampled)."""
    labels = "".join("[s%d]" % k for k in range(nb)) + "[r]"
    g = "testsrc2=s=%s:r=25,trim=end_frame=%d,format=yuv420p,split=%d%s;" % (
        size, n, nb + 1, labels)
    w, h = (int(x) for x in size.split("x"))
    for k in range(nb):
        if k % 3 == 1:
            g += "[s%d]scale=%d:%d,avgblur=%d[d%d];" % (k, w // 2, h // 2, 1 + k % 4, k)
        else:
            g += "[s%d]avgblur=%d[d%d];" % (k, 1 + k % 5, k)
    return g + "".join("[d%d]" % k for k in range(nb)) + "[r]"


def parse_json(text):
    try:
        return json.loads(text), None
    except ValueError as e:
        return None, str(e)


def frames_ok(log, ref_frames, desc):
    """The log's frames are ref_frames[0:k], in order, equal."""
    fr = log.get("frames", [])
    k = len(fr)
    good = log.get("frame_count") == k and [f.get("n") for f in fr] == list(range(k)) and \
        fr == ref_frames[:k]
    return good, "%s: frame_count %r, %d frames, n %s" % (
        desc, log.get("frame_count"), k, [f.get("n") for f in fr][:12])


def csv_rows(text):
    """(header, data rows, comment lines) of a CSV log."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    comments = [l for l in lines if l.startswith("#")]
    rows = [l for l in lines if not l.startswith("#")]
    return (rows[0].split(",") if rows else []), [r.split(",") for r in rows[1:]], comments


# ---- streams: one JSON document; FIFOs never hang the run ------------------------

def queued(fd):
    """The bytes waiting in a pipe."""
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4))[0]


class Reader(threading.Thread):
    """Reads a FIFO to its end (or only opens it, with read=False)."""

    def __init__(self, fifo, read=True):
        super().__init__(daemon=True)
        self.fifo, self.read, self.data = fifo, read, b""
        self.fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        self.start()

    def run(self):
        if not self.read:
            return
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                time.sleep(0.01)
                continue
            if not chunk:
                # end of file: no writer (yet, or any more)
                if self.data:
                    break
                time.sleep(0.01)
                continue
            self.data += chunk

    def close(self):
        os.close(self.fd)


def test_streams():
    fifo = path("log.fifo")
    for fname in ("fssim", "fssim3d=depth=3"):
        name = fname.split("=")[0]
        sep = ":" if "=" in fname else "="
        for target in ("-", "/dev/stdout", "/proc/self/fd/1", "fifo"):
            reader = None
            if target == "fifo":
                remove(fifo)
                os.mkfifo(fifo)
                reader = Reader(fifo)
            graph = pair(3) + "%s%slog_path=%s" % (fname, sep, fifo if reader else target)
            rc, out, err = run(["-v", "error", "-lavfi", graph, "-f", "null", "-"], timeout=30)
            if reader:
                reader.join(5)
                reader.close()
                out = reader.data.decode(errors="replace")
            log, why = parse_json(out)
            tap.ok(rc == 0 and log is not None and log.get("frame_count") == 3 and
                   "pooled" in log,
                   "%s, log_path=%s: exactly one JSON document with the 3 frames" % (
                       name, "a FIFO" if reader else target),
                   "exit %r, %s\n%s\n%s" % (rc, why, out[:400], err[-1500:]))
    # SIGTERM while the reader keeps reading: the run closes its document
    p = subprocess.Popen(cmd("-v", "error", "-lavfi", pair(100000) + "fssim=log_path=-",
                             "-f", "null", "-"), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    got = []
    reader = threading.Thread(target=lambda: got.append(p.stdout.read()), daemon=True)
    reader.start()
    time.sleep(1.5)
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
    reader.join(10)
    log, why = parse_json(got[0].decode(errors="replace") if got else "")
    tap.ok(log is not None and log.get("frame_count", 0) > 0 and "pooled" in log and
           log.get("complete") is False,
           "log_path=- on a pipe, SIGTERM: one whole JSON document, pooled values and all",
           "%s %s" % (why, p.stderr.read().decode(errors="replace")[-800:]))
    # a FIFO nobody reads: refused, not waited for
    remove(fifo)
    os.mkfifo(fifo)
    t = time.time()
    rc, out, err = run(["-lavfi", pair(3) + "fssim=log_path=" + fifo, "-f", "null", "-"],
                       timeout=30)
    tap.ok(rc is not None and rc > 0 and time.time() - t < 15 and
           "no process reads this FIFO" in err and not CRASH.search(err),
           "a FIFO without a reader: a clear error within seconds, not a hang",
           "exit %r after %.1f s\n%s" % (rc, time.time() - t, err[-1500:]))
    # a reader that stops reading: SIGTERM still ends the run
    remove(fifo)
    os.mkfifo(fifo)
    reader = Reader(fifo, read=False)
    p = subprocess.Popen(cmd("-lavfi", ladder(100000, 16) +
                             "fssim=inputs=17:algo=float+int+block:log_path=" + fifo,
                             "-f", "null", "-"),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # once the pipe is full (it stops filling), the filter waits for the reader
    end, last, still = time.time() + 120, -1, 0
    while time.time() < end and p.poll() is None and still < 20:
        time.sleep(0.1)
        now = queued(reader.fd)
        still = still + 1 if now == last and now > 16384 else 0
        last = now
    full = still >= 20
    p.send_signal(signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=15)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        tap.diag(ft.backtraces(p.pid))
        p.kill()
        _, err = p.communicate()
        rc = None
    reader.close()
    err = err.decode(errors="replace")
    msg = re.search(r".*stopped while waiting for its reader.*", err)
    tap.ok(full and rc is not None and rc > 0 and msg,
           "a FIFO whose reader stopped reading: SIGTERM ends the run with a clear error",
           "pipe full: %s (%d bytes), exit %r\n%s" % (full, last, rc, err[-1500:]))
    if msg:
        tap.diag(msg.group(0))
    remove(fifo)


# ---- kill -9 at random moments --------------------------------------------------

def test_kills():
    """A 17-input ladder rewrites a large record per frame: a kill at any
    moment leaves a log of whole frames."""
    rng = random.Random(SEED)
    n, nb = 400, 16
    opts = "inputs=%d:algo=float+int+block+psnr" % (nb + 1)
    whole = path("kill_whole.json")
    rc, _, err = run(["-lavfi", ladder(n, nb) + "fssim=%s:log_path=%s" % (opts, whole),
                      "-f", "null", "-"], timeout=300)
    try:
        ref = ft.load_log(whole)["frames"]
    except (OSError, ValueError, KeyError) as e:
        tap.ok(False, "kill -9: the whole run's log", "%s\n%s" % (e, err[-1500:]))
        return
    t = time.time()
    rc, _, _ = run(["-lavfi", ladder(n, nb) + "fssim=%s:log_path=%s" % (opts, whole),
                    "-f", "null", "-"], timeout=300)
    span = time.time() - t
    bad, counts = [], []
    log = path("kill.json")
    for i in range(20):
        remove(log)
        p = subprocess.Popen(cmd("-lavfi", ladder(n, nb) + "fssim=%s:log_path=%s" % (opts, log),
                                 "-f", "null", "-"),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.05, span * 0.9))
        p.send_signal(signal.SIGKILL)
        p.wait()
        if not os.path.exists(log):
            counts.append(None)
            continue
        with open(log) as f:
            text = f.read()
        lg, why = parse_json(text)
        if lg is None:
            bad.append("kill %d: the log does not parse (%s): ...%r" % (i, why, text[-200:]))
            continue
        good, diag = frames_ok(lg, ref, "kill %d" % i)
        if not good:
            bad.append(diag)
        counts.append(len(lg.get("frames", [])))
    tap.ok(not bad and any(c for c in counts if c),
           "kill -9 at 20 seeded random moments of a 17-input ladder (seed %d): every log "
           "parses, with frames 0..k-1 equal to a whole run's (k: %s)" % (SEED, counts),
           "\n".join(bad))


# ---- a full disk ------------------------------------------------------------------

def limit_fsize(size):
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return pre


def test_disk_full():
    n = 60
    whole = path("full_whole.json")
    sizes = {}
    for fmt in ("json", "csv"):
        run(["-lavfi", pair(n) + "fssim=algo=float+int+block:log_fmt=%s:log_path=%s" % (
            fmt, whole), "-f", "null", "-"])
        sizes[fmt] = os.path.getsize(whole)
    run(["-lavfi", pair(n) + "fssim=algo=float+int+block:log_path=" + whole, "-f", "null", "-"])
    ref = ft.load_log(whole)["frames"]
    # the disk fills a third of the way, and two thirds of the way, through the run
    for fmt, size in (("json", sizes["json"] // 3), ("json", sizes["json"] * 2 // 3),
                      ("csv", sizes["csv"] // 2)):
        log = path("full.%s" % fmt)
        remove(log)
        rc, _, err = run(["-lavfi", pair(n) + "fssim=algo=float+int+block:log_fmt=%s:"
                          "log_path=%s" % (fmt, log), "-f", "null", "-"],
                         preexec_fn=limit_fsize(size))
        desc = "%s log, the disk full at %d bytes" % (fmt.upper(), size)
        tap.ok(rc is not None and rc > 0 and not CRASH.search(err) and
               re.search(r"Could not write the log file %s: File too large" % re.escape(log), err),
               "%s: the run fails naming the log and the error" % desc, err[-1500:])
        with open(log) as f:
            text = f.read()
        if fmt == "json":
            lg, why = parse_json(text)
            good, diag = frames_ok(lg, ref, desc) if lg else (False, why)
            tap.ok(good and 0 < len(lg["frames"]) < n and "pooled" not in lg,
                   "%s: the log parses and ends after its last whole frame" % desc,
                   diag + "\n..." + text[-300:])
        else:
            header, rows, comments = csv_rows(text)
            whole_rows = all(len(r) == len(header) for r in rows)
            tap.ok(whole_rows and 0 < len(rows) < n and
                   [int(r[0]) for r in rows] == list(range(len(rows))) and
                   comments[-2:] == ["# frames=%d" % len(rows), "# complete=0"] and
                   text.endswith("\n"),
                   "%s: whole rows, then the frame count and complete=0" % desc, text[-400:])
    stats = path("full.txt")
    remove(stats)
    rc, _, err = run(["-lavfi", pair(n) + "fssim=stats_file=" + stats, "-f", "null", "-"],
                     preexec_fn=limit_fsize(1000))
    with open(stats) as f:
        text = f.read()
    lines = text.splitlines()
    tap.ok(rc is not None and rc > 0 and "Could not write the stats file" in err and
           text.endswith("\n") and 0 < len(lines) < n and
           all(re.match(r"^n:\d+ Y:\S+ U:\S+ V:\S+ All:\S+ \(\S+\)$", l) for l in lines),
           "stats_file, the disk full: the run fails, the file holds whole lines",
           err[-800:] + "\n" + text[-300:])
    # a device that is always full
    for opt, what in (("log_path", "log file"), ("stats_file", "stats file")):
        rc, _, err = run(["-lavfi", pair(3) + "fssim=%s=/dev/full" % opt, "-f", "null", "-"])
        tap.ok(rc is not None and rc > 0 and not CRASH.search(err) and
               "Could not write the %s /dev/full: No space left on device" % what in err,
               "%s=/dev/full: the run fails naming the file and the error" % opt, err[-800:])


# ---- two writers --------------------------------------------------------------------

def test_two_writers():
    x = path("x.json")
    link = path("x_link.json")
    remove(x, link)
    open(x, "w").close()
    os.symlink(x, link)
    rel = os.path.relpath(x)
    two = ("%s,trim=end_frame=3,format=yuv420p,split=4[a][b][c][e];[a][b]fssim=%s[o1];"
           "[c][e]fssim=%s[o2]")
    cases = [
        ("log_path=x:stats_file=x", ["-lavfi", pair(3) + "fssim=log_path=%s:stats_file=%s"
                                     % (x, x)], r"are the same file"),
        ("log_path=x and ./x in two filters",
         ["-lavfi", two % (SRC, "log_path=" + x, "log_path=./" + rel), "-map", "[o1]",
          "-map", "[o2]"], r"Another filter of this process writes the same file"),
        ("log_path=x and a link to x in two filters",
         ["-lavfi", two % (SRC, "log_path=" + x, "log_path=" + link), "-map", "[o1]",
          "-map", "[o2]"], r"Another filter of this process writes the same file"),
        ("one filter's log_path, another's stats_file",
         ["-lavfi", two % (SRC, "log_path=" + x, "stats_file=" + x), "-map", "[o1]",
          "-map", "[o2]"], r"Another filter of this process writes the same file"),
        ("a ladder's stats_file=c_%%d.txt and log_path=c_2.txt",
         ["-lavfi", ladder(3, 3) + "fssim=inputs=4:stats_file=%s:log_path=%s" % (
             path("c_%d.txt"), path("c_2.txt"))], r"are the same file"),
        ("log_path=-:stats_file=-",
         ["-lavfi", pair(3) + "fssim=log_path=-:stats_file=-"], r"are the same file"),
    ]
    for desc, args, msg in cases:
        rc, out, err = run(args + ["-f", "null", "-"])
        tap.ok(rc is not None and rc > 0 and re.search(msg, err) and not CRASH.search(err),
               "two writers, %s: a clear error" % desc, "exit %r\n%s" % (rc, err[-1500:]))
    # eight processes on one log: one writes it at a time
    log = path("shared.json")
    remove(log)
    procs = [subprocess.Popen(cmd("-lavfi", pair(300) + "fssim=algo=int:log_path=" + log,
                                  "-f", "null", "-"),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
             for _ in range(8)]
    results = [(p.wait(timeout=120), p.stderr.read().decode(errors="replace")) for p in procs]
    busy = [rc for rc, err in results if rc > 0 and "another process is writing" in err]
    other = [(rc, err[-300:]) for rc, err in results
             if rc != 0 and "another process is writing" not in err]
    lg, why = parse_json(open(log).read())
    tap.ok(busy and not other and lg is not None and lg["frame_count"] == 300 and
           [f["n"] for f in lg["frames"]] == list(range(300)),
           "eight processes on one log: each writes it whole or fails naming the other "
           "writer (%d of 8 failed)" % len(busy), "%s %s" % (other, why))


# ---- the values kept for the percentiles ------------------------------------------------

def max_rss(args, env=None):
    """The peak RSS (KiB) of one ffmpeg run."""
    probe = ("import resource, subprocess, sys\n"
             "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
             "stderr=subprocess.DEVNULL)\n"
             "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    p = subprocess.run([sys.executable, "-c", probe] + cmd(*args), stdout=subprocess.PIPE,
                       text=True, env=env, timeout=600)
    rc, kib = p.stdout.split()
    return int(rc), int(kib)


def sanitized():
    """Whether ffmpeg runs under AddressSanitizer, whose shadow memory and
    quarantine make its address space and resident memory its own."""
    with open(ft.FFMPEG, "rb") as f:
        return b"__asan_init" in f.read()


SANITIZED = "an AddressSanitizer build: its shadow memory and quarantine are in the figures"


def test_pool_memory():
    nb = 16
    opts = "inputs=%d:algo=float+int+block+psnr:log_path=%s" % (nb + 1, path("mem.json"))
    rss = {}
    rcs = []
    if sanitized():
        tap.skip("17-input ladder, four algorithms, a log: bytes per frame", SANITIZED)
        tap.skip("the same, past FSSIM_POOL_MEMORY: bytes per frame", SANITIZED)
        spill_identical()
        return
    for n in (1000, 4000):
        rc, rss[n] = max_rss(["-lavfi", ladder(n, nb, "32x32") + "fssim=" + opts,
                              "-f", "null", "-"])
        rcs.append(rc)
    per_frame = (rss[4000] - rss[1000]) * 1024.0 / 3000
    tap.diag("17-input ladder, four algorithms: %.0f bytes per frame (peak RSS %d KiB at "
             "1000 frames, %d KiB at 4000)" % (per_frame, rss[1000], rss[4000]))
    # one double per value kept: 16 renditions x 4 algorithms x 4 series
    tap.ok(rcs == [0, 0] and 1024 < per_frame < 3000, "17-input ladder, four algorithms, a "
           "log: %.0f bytes per frame (one double per value kept: 2048)" % per_frame, rcs)
    env = dict(os.environ, FSSIM_POOL_MEMORY=str(1 << 20))
    rcs = []
    for n in (1000, 4000):
        rc, rss[n] = max_rss(["-lavfi", ladder(n, nb, "32x32") + "fssim=" + opts,
                              "-f", "null", "-"], env=env)
        rcs.append(rc)
    per_frame = (rss[4000] - rss[1000]) * 1024.0 / 3000
    tap.ok(rcs == [0, 0] and per_frame < 400, "the same, past FSSIM_POOL_MEMORY=1 MiB the values go to a "
           "temporary file: %.0f bytes per frame" % per_frame)
    spill_identical()


def spill_identical():
    """Spilled or not, the same percentiles, bit for bit."""
    logs = {}
    for mem in ("0", ""):
        log = path("spill%s.json" % mem)
        env = dict(os.environ, FSSIM_POOL_MEMORY=mem)
        rc, _, err = run(["-v", "verbose", "-lavfi", pair(3000) +
                          "fssim=algo=float+int+psnr:log_path=" + log, "-f", "null", "-"],
                         env=env, timeout=300)
        with open(log) as f:
            logs[mem] = f.read().replace(log, "LOG")
        if mem == "0":
            m = re.search(r"(\d+\.\d) MiB of them in a temporary file", err)
            tap.ok(rc == 0 and m and float(m.group(1)) > 0,
                   "FSSIM_POOL_MEMORY=0: the values go to a temporary file", err[-1500:])
    tap.ok(logs["0"] == logs[""] and '"p50"' in logs[""],
           "the log of a run whose values were spilled is byte-identical to one kept in "
           "memory (percentiles and all)")


# ---- fssim3d's ring and the memory there is ------------------------------------------------

def limit_as(size):
    def pre():
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    return pre


def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return None


def test_ring():
    if sanitized():
        # AddressSanitizer reserves terabytes of address space for its shadow
        tap.skip("fssim3d, a ring larger than the machine: refused at configuration", SANITIZED)
        tap.skip("fssim3d, a ring the address space cannot hold: its size", SANITIZED)
        return
    # far more than any machine: refused at configuration, before any allocation
    # (the address-space limit guards this machine if it were not)
    rc, _, err = run(["-lavfi", "color=s=8192x8192:d=0.04,format=gbrap16,split[a][b];"
                      "[a][b]fssim3d=depth=63", "-f", "null", "-"],
                     preexec_fn=limit_as(16 << 30), timeout=120)
    m = re.search(r"needs ([\d.]+) MiB, but ([\d.]+) MiB of (host )?memory (is|are) available",
                  err)
    avail = mem_available()
    tap.ok(rc is not None and rc > 0 and m and float(m.group(1)) > 600000 and
           float(m.group(2)) * 1048576 <= avail * 1.1 + (64 << 20),
           "fssim3d, a ring larger than the machine: refused at configuration with the "
           "size needed and the size available", err[-1500:])
    # a ring that the address space cannot hold: the size it needed, not 0
    rc, _, err = run(["-lavfi", "color=s=1024x1024:d=0.04,format=yuv444p,split[a][b];"
                      "[a][b]fssim3d=depth=31", "-f", "null", "-"],
                     preexec_fn=limit_as(2 << 30), timeout=120)
    m = re.search(r"ring of (\d+) moment sets \(([\d.]+) MiB\)", err)
    want = 31 * 3 * 5 * 1014 * 1014 * 8 / 1048576.0
    tap.ok(rc is not None and rc > 0 and m and abs(float(m.group(2)) - want) < 1,
           "fssim3d, a ring the address space cannot hold: the message gives its size "
           "(%.1f MiB)" % want, err[-1500:])


# ---- smaller defects --------------------------------------------------------------------

def test_csv_comments():
    d = path("new\nline")
    os.makedirs(d, exist_ok=True)
    log = os.path.join(d, "log.csv")
    # (a newline inside an option's value is kept by the graph's parser)
    rc, _, err = run(["-lavfi", pair(3) + "fssim=log_fmt=csv:log_path=%s:stats_file=%s" % (
        log, os.path.join(d, "s.txt")), "-f", "null", "-"])
    text = open(log).read() if os.path.exists(log) else ""
    header, rows, comments = csv_rows(text)
    tap.ok(rc == 0 and header[:3] == ["n", "pts", "pts_time"] and
           all(len(r) == len(header) for r in rows) and "\\n" in comments[0],
           "CSV: a newline in a path is escaped in the comment line, no row is broken",
           "exit %r\n%s\n%s" % (rc, text[:600], err[-800:]))


def test_empty_rendition():
    log, csvl = path("empty_r.json"), path("empty_r.csv")
    g = ("testsrc2=s=64x48:r=25,trim=end_frame=4,format=yuv420p,split=3[a][b][r];"
         "[a]avgblur=2[d1];[b]trim=end_frame=0[d2];[d1][d2][r]fssim=inputs=3:algo=int:%s")
    rc, _, err = run(["-lavfi", g % ("log_path=" + log), "-f", "null", "-"])
    rc2, _, err2 = run(["-lavfi", g % ("log_fmt=csv:log_path=" + csvl), "-f", "null", "-"])
    lg = ft.load_log(log)
    r2 = lg["pooled"]["renditions"][1]
    tap.ok(rc == 0 and r2["frame_count"] == 0 and
           all(v is None for c in r2["int"].values() for v in c.values()),
           "an empty rendition: JSON pooled values null", json.dumps(r2)[:300])
    header, rows, _ = csv_rows(open(csvl).read())
    pooled = [r for r in rows if not r[0].isdigit() and r[3] == "2"]
    tap.ok(rc2 == 0 and len(pooled) == 7 and all(v == "" for r in pooled for v in r[4:]),
           "an empty rendition: CSV pooled fields empty (no nan, no inf dB)",
           "\n".join(",".join(r) for r in pooled))
    tap.ok(re.search(r"SSIM int dist2 frames:0", err) and
           re.search(r"SSIM int dist1 Y:.* frames:4", err),
           "an empty rendition: its summary line says frames:0", err[-1000:])


def test_stats_template():
    base = ladder(2, 3) + "fssim=inputs=4:stats_file="
    for tmpl, files, msg in (
            ("s_%%d.txt", None, r"needs %d exactly once"),
            ("s_%d_%d.txt", None, r"needs %d exactly once"),
            ("s_%s.txt", None, r"stats_file=.*'%s' is not a conversion"),
            ("s_%%_%d.txt", ["s_%_1.txt", "s_%_2.txt", "s_%_3.txt"], None),
            ("s_%03d.txt", ["s_001.txt", "s_002.txt", "s_003.txt"], None)):
        for f in os.listdir(D):
            if f.startswith("s_"):
                os.unlink(path(f))
        rc, _, err = run(["-lavfi", base + path(tmpl), "-f", "null", "-"])
        if files:
            made = sorted(f for f in os.listdir(D) if f.startswith("s_"))
            tap.ok(rc == 0 and made == files,
                   "stats_file=%s: printf's meaning, the files %s" % (tmpl, files),
                   "exit %r, made %s\n%s" % (rc, made, err[-800:]))
        else:
            tap.ok(rc is not None and rc > 0 and re.search(msg, err),
                   "stats_file=%s: an error naming the option" % tmpl, err[-800:])


def test_nothing_scored():
    """Zero frames scored: a warning naming the cause, summary lines with
    frames:0, complete logs, and FFmpeg's exit status for its ssim."""
    head = "%s,trim=end_frame=5,format=yuv420p," % SRC
    cases = (
        ("an empty reference", head + "split[a][b];[b]trim=end_frame=0[r];[a][r]{f}",
         r"reference input had no frame", ""),
        ("every rendition empty", head + "split=3[a][b][r];[a]trim=end_frame=0[d1];"
         "[b]trim=end_frame=0[d2];[d1][d2][r]{f}", r"no rendition had a frame", "inputs=3:"),
        ("enable='lt(n,0)'", head + "split[a][b];[a][b]{f}", r"enable expression was false",
         ""),
    )
    for desc, graph, cause, inputs in cases:
        en = ":enable='lt(n\\,0)'" if "enable" in desc else ""
        for fmt in ("json", "csv"):
            log = path("none.%s" % fmt)
            remove(log)
            opts = "%salgo=int:log_fmt=%s:log_path=%s%s" % (inputs, fmt, log, en)
            rc, _, err = run(["-lavfi", graph.format(f="fssim=" + opts), "-f", "null", "-"])
            text = open(log).read() if os.path.exists(log) else ""
            if fmt == "json":
                lg, why = parse_json(text)
                whole = lg is not None and lg.get("frame_count") == 0 and "pooled" in lg
            else:
                whole = text.endswith("\n# frames=0\n# complete=1\n") and "\nmean," in text
            tap.ok(rc is not None and re.search(r"No frame was scored: .*" + cause, err) and
                   re.search(r"SSIM int( dist\d)? frames:0", err) and whole,
                   "nothing scored, %s, %s log: a warning naming the cause, frames:0, a "
                   "complete log" % (desc, fmt), "exit %r\n%s\n%s" % (rc, text[-300:],
                                                                    err[-1200:]))
        if not inputs:
            rcs, _, _ = run(["-lavfi", graph.format(f="ssim" + en.replace(":", "=", 1)),
                             "-f", "null", "-"])
            tap.ok(rc == rcs, "nothing scored, %s: exit status %r, as FFmpeg's ssim (%r)" % (
                desc, rc, rcs))
    rc, _, err = run(["-lavfi", head + "split[a][b];[b]trim=end_frame=0[r];"
                      "[a][r]fssim3d=depth=3:tpadding=valid", "-f", "null", "-"])
    tap.ok(rc is not None and rc > 0 and "tpadding=valid" in err and "no frame" in err,
           "fssim3d, tpadding=valid on a sequence of 0 frames: an error, as on 2",
           err[-1000:])


def test_misaligned():
    # (the ffmpeg tool starts every input file at 0: the offset is made in the graph)
    rc, _, err = run(["-lavfi", "testsrc2=s=64x48:r=25:d=1,split[a][b];"
                      "[b]setpts=PTS+0.4/TB[r];[a][r]fssim", "-f", "null", "-"])
    tap.ok(rc == 0 and re.search(r"main input starts at 0 s and the reference at 0\.4 s", err)
           and "setpts=PTS-STARTPTS" in err,
           "inputs that start 0.4 s apart: a warning naming them and the offset", err[-1500:])
    rc, _, err = run(["-f", "lavfi", "-i", "testsrc2=s=64x48:r=25:d=1", "-f", "lavfi", "-i",
                      "testsrc2=s=64x48:r=30:d=1", "-lavfi", "[0:v][1:v]fssim", "-f", "null",
                      "-"])
    tap.ok(rc == 0 and re.search(r"frame rates differ: main 25 fps, reference 30 fps", err)
           and "fps=" in err, "inputs at 25 and 30 fps: a warning naming the rates",
           err[-1500:])
    rc, _, err = run(["-f", "lavfi", "-i", "testsrc2=s=64x48:r=25:d=1", "-f", "lavfi", "-i",
                      "testsrc2=s=64x48:r=25:d=1", "-lavfi", "[0:v][1:v]fssim", "-f", "null",
                      "-"])
    tap.ok(rc == 0 and "starts at" not in err and "frame rates differ" not in err,
           "aligned inputs: no such warning", err[-800:])


def test_hints():
    rc, _, err = run(["-lavfi", "testsrc2=s=160x160:d=0.04,format=gray,split[a][b];"
                      "[a][b]fssim=algo=msssim", "-f", "null", "-"])
    tap.ok(rc is not None and rc > 0 and "algo=msssim needs planes" in err and
           "4:4:4" not in err and "(window=3 needs 33) or larger frames." in err,
           "msssim on gray frames: no 4:4:4 advice", err[-800:])
    rc, _, err = run(["-lavfi", "testsrc2=s=400x240:d=0.04,format=yuv420p,split[a][b];"
                      "[a][b]fssim=algo=msssim", "-f", "null", "-"])
    tap.ok(rc is not None and rc > 0 and "4:4:4" in err,
           "msssim on small 4:2:0 chroma planes: the 4:4:4 advice", err[-800:])


def main():
    test_streams()
    test_kills()
    test_disk_full()
    test_two_writers()
    test_pool_memory()
    test_ring()
    test_csv_comments()
    test_empty_rendition()
    test_stats_template()
    test_nothing_scored()
    test_misaligned()
    test_hints()
    tap.done()


if __name__ == "__main__":
    main()
