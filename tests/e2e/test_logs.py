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
    different times or run at different rates;
  - signals, limits and bytes: a file size limit with SIGXFSZ at its
    default, a run stopped by SIGINT/SIGTERM (not complete, nothing scored
    against another frame than its pair), the disk full while the pooled
    values are written, /dev/stdout and /proc/self/fd/1 on a regular file,
    the fssim3d rings of one process, CSV comment lines that read back,
    bytes that are not UTF-8, segment numbers past 2^53, the CSV log of a
    filter refused at configuration, a log on stdout beside a muxer
    writing stdout, the pooled rows' mse columns.

FSSIM_LOGS_ONLY=test_a,test_b runs only those parts.
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
                      "[b]setpts=PTS+0.4/TB[r];[a][r]fssim=pairing=pts", "-f", "null", "-"])
    tap.ok(rc == 0 and re.search(r"main input starts at 0 s and the reference at 0\.4 s", err)
           and "setpts=PTS-STARTPTS" in err,
           "pairing=pts, inputs that start 0.4 s apart: a warning naming them and the offset",
           err[-1500:])
    rc, _, err = run(["-lavfi", "testsrc2=s=64x48:r=25:d=1,split[a][b];"
                      "[b]setpts=PTS+0.4/TB[r];[a][r]fssim", "-f", "null", "-"])
    tap.ok(rc == 0 and re.search(r"main input's first frame is 0\.4 s before the reference's",
                                 err) and "pairing=pts" in err,
           "pairing=nearest, inputs that start 0.4 s apart: a warning that they are paired "
           "from their first frames, naming pairing=pts", err[-1500:])
    rc, _, err = run(["-f", "lavfi", "-i", "testsrc2=s=64x48:r=25:d=1", "-f", "lavfi", "-i",
                      "testsrc2=s=64x48:r=30:d=1", "-lavfi", "[0:v][1:v]fssim=pairing=framesync",
                      "-f", "null", "-"])
    tap.ok(rc == 0 and re.search(r"frame rates differ: main 25 fps, reference 30 fps", err)
           and "fps=" in err, "pairing=framesync, inputs at 25 and 30 fps: a warning naming "
           "the rates", err[-1500:])
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


# ---- signals, limits and bytes ----------------------------------------------------------

def lavfi_ladder(nb, dur=None, rate=25):
    """A ladder whose inputs are demuxed (-f lavfi -i), as files are: a stop
    signal ends each of them where its demuxer is.  The renditions are the
    source distorted nb ways, two of them at half size."""
    args = []
    d = ":d=%g" % dur if dur else ""
    for k in range(nb):
        dist = "scale=32:24,avgblur=%d" % (1 + k) if k % 2 else "avgblur=%d" % (1 + k)
        args += ["-f", "lavfi", "-i", "testsrc2=s=64x48:r=%d%s,format=yuv420p,%s" % (rate, d, dist)]
    args += ["-f", "lavfi", "-i", "testsrc2=s=64x48:r=%d%s,format=yuv420p" % (rate, d)]
    pads = "".join("[%d:v]" % i for i in range(nb + 1))
    return args, pads


def default_xfsz(size):
    """RLIMIT_FSIZE with SIGXFSZ at its default: a write past the limit
    would end the process, unless the filters hold the signal off."""
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return pre


def test_size_limit_signal():
    """ulimit -f with SIGXFSZ at its default: the write fails (EFBIG), the
    process is not killed, and every file ends after its last whole record."""
    nb, n = 3, 300
    base = ladder(n, nb) + "fssim=inputs=%d:algo=float+int+block+psnr:" % (nb + 1)
    for fmt in ("json", "csv"):
        log = path("xfsz.%s" % fmt)
        stats = path("xfsz_%d.txt")
        remove(log, *[stats % (k + 1) for k in range(nb)])
        rc, _, err = run(["-lavfi", base + "log_fmt=%s:log_path=%s:stats_file=%s" % (
            fmt, log, stats), "-f", "null", "-"], preexec_fn=default_xfsz(20 * 1024))
        desc = "ulimit -f 20, SIGXFSZ at its default, a 4-input ladder, %s log" % fmt.upper()
        tap.ok(rc is not None and rc > 0 and not CRASH.search(err) and
               re.search(r"Could not write the (log|stats) file \S+: File too large", err),
               "%s: the run fails naming the file and the error, not killed by SIGXFSZ "
               "(exit %r)" % (desc, rc), err[-1500:])
        text = open(log).read() if os.path.exists(log) else ""
        if fmt == "json":
            lg, why = parse_json(text)
            good = lg is not None and lg.get("frame_count") == len(lg.get("frames", [])) and \
                [f["n"] for f in lg["frames"]] == list(range(lg["frame_count"])) and \
                lg.get("complete") is False
        else:
            header, rows, comments = csv_rows(text)
            good = text.endswith("\n") and all(len(r) == len(header) for r in rows) and \
                comments[-1:] == ["# complete=0"]
            why = text[-300:]
        tap.ok(good, "%s: the log holds whole frames and says it is not complete" % desc,
               "%s\n...%s" % (why, text[-300:]))
        lines = []
        for k in range(nb):
            if os.path.exists(stats % (k + 1)):
                t = open(stats % (k + 1)).read()
                lines.append(not t or (t.endswith("\n") and all(
                    l.startswith("n:") and l.count("n:") == 1 for l in t.splitlines())))
        tap.ok(lines and all(lines), "%s: every stats file holds whole lines" % desc)


def whole_frames(args, log):
    """The frames of a whole run's JSON log (None: the run failed)."""
    remove(log)
    rc, _, err = run(args, timeout=300)
    if rc != 0:
        tap.diag(err[-1000:])
        return None
    return ft.load_log(log)["frames"]


def wait_csv_rows(path, n, proc, timeout=60):
    """Wait until the CSV log at path holds n data rows, while proc runs."""
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        if os.path.exists(path):
            with open(path) as f:
                if sum(1 for l in f if l[:1].isdigit()) >= n:
                    return True
        time.sleep(0.05)
    return False


def stopped_run(args, log, sig, frames=30):
    """Run args, send sig once its log holds frames frames (rows of a CSV
    log).  (exit status, stderr, the log's text)."""
    remove(log)
    p = subprocess.Popen(cmd(*args), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait = wait_csv_rows if log.endswith(".csv") else ft.wait_log_frames
    started = wait(log, frames, p)
    p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=60)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        rc = None
    err = err.decode(errors="replace")
    if not started:
        err = "(the log never reached %d frames)\n" % frames + err
    return rc, err, open(log).read() if os.path.exists(log) else ""


def re_inputs(seconds, realtime):
    """Two demuxed inputs, main blurred, read at their rate or not."""
    re_ = ["-re"] if realtime else []
    return re_ + ["-f", "lavfi", "-i", "testsrc2=s=64x48:r=25:d=%d,avgblur=2" % seconds] + \
        re_ + ["-f", "lavfi", "-i", "testsrc2=s=64x48:r=25:d=%d" % seconds]


def test_stop_signals():
    """A run stopped by SIGINT/SIGTERM is not complete, and no frame paired
    after the stop (the inputs end one by one, and framesync repeats the
    last frame of the first to end) is logged."""
    nb = 3
    opts = "inputs=%d:algo=float+int+psnr" % (nb + 1)
    whole = path("stop_whole.json")
    inputs, pads = lavfi_ladder(nb, dur=120)
    ref = whole_frames(inputs + ["-lavfi", pads + "fssim=%s:log_path=%s" % (opts, whole),
                                 "-f", "null", "-"], whole)
    inputs, pads = lavfi_ladder(nb)
    for sig in (signal.SIGINT, signal.SIGTERM):
        name = signal.Signals(sig).name
        log = path("stop.json")
        rc, err, text = stopped_run(inputs + ["-lavfi", pads + "fssim=%s:log_path=%s" % (
            opts, log), "-f", "null", "-"], log, sig)
        lg, why = parse_json(text)
        tap.ok(rc is not None and rc > 0 and lg is not None and lg.get("complete") is False and
               "pooled" in lg and not CRASH.search(err) and
               re.search(r"The run was stopped by %s" % name, err),
               "a ladder of demuxed inputs stopped by %s: \"complete\": false, pooled values, "
               "a warning that says so" % name,
               "exit %r, %s, complete %r\n%s" % (rc, why, lg and lg.get("complete"), err[-1500:]))
        if lg is None or ref is None:
            tap.ok(False, "a ladder stopped by %s: every logged frame is the whole run's" % name,
                   why)
            continue
        k = len(lg["frames"])
        good, diag = frames_ok(lg, ref, "stopped by %s" % name)
        tap.ok(good and 0 < k < len(ref),
               "a ladder stopped by %s: its %d frames are the whole run's, none scored against "
               "another frame than its pair" % (name, k), diag)
    log = path("stop.csv")
    rc, err, text = stopped_run(inputs + ["-lavfi", pads + "fssim=%s:log_fmt=csv:log_path=%s" % (
        opts, log), "-f", "null", "-"], log, signal.SIGINT)
    header, rows, comments = csv_rows(text)
    tap.ok(rc is not None and rc > 0 and comments[-1:] == ["# complete=0"] and
           "\nmean," in text and not CRASH.search(err),
           "CSV log of a ladder stopped by SIGINT: # complete=0, with its pooled rows",
           "exit %r\n%s\n%s" % (rc, text[-400:], err[-1200:]))
    # fssim3d: its held frames are scored with the window truncated at the
    # last frame paired, as in a whole run of those frames
    log = path("stop3d.json")
    rc, err, text = stopped_run(re_inputs(120, False) + [
        "-lavfi", "[0:v][1:v]fssim3d=depth=5:log_path=" + log, "-f", "null", "-"], log,
        signal.SIGINT)
    lg, why = parse_json(text)
    k = len(lg["frames"]) if lg else 0
    ref3d = whole_frames([a.replace(":d=120", ":d=120,trim=end_frame=%d" % k)
                          for a in re_inputs(120, False)] +
                         ["-lavfi", "[0:v][1:v]fssim3d=depth=5:log_path=" + path("stop3d_ref.json"),
                          "-f", "null", "-"], path("stop3d_ref.json")) if k else None
    tap.ok(rc is not None and rc > 0 and lg is not None and lg.get("complete") is False and
           ref3d is not None and lg["frames"] == ref3d and 0 < k < 3000,
           "fssim3d stopped by SIGINT: not complete, and its %d frames are those of a whole run "
           "of the first %d frame pairs (the held ones with the window truncated)" % (k, k),
           "exit %r, %s\n%s" % (rc, why, err[-1200:]))
    # two inputs read at their rate (-re), stopped: the inputs end at
    # different frames, and the other input's last frames would be scored
    # against the repeated last frame of the first to end
    log = path("stop_re.json")
    ref_re = whole_frames(re_inputs(4, False) + ["-lavfi", "[0:v][1:v]fssim=log_path=" + log,
                                                 "-f", "null", "-"], log)
    bad = []
    for attempt in range(3):
        rc, err, text = stopped_run(re_inputs(4, True) + [
            "-lavfi", "[0:v][1:v]fssim=log_path=" + log, "-f", "null", "-"], log,
            signal.SIGTERM, frames=20)
        lg, why = parse_json(text)
        if lg is None or ref_re is None:
            bad.append("run %d: %s" % (attempt, why))
            continue
        good, diag = frames_ok(lg, ref_re, "run %d" % attempt)
        if not good or lg.get("complete") is not False or len(lg["frames"]) >= len(ref_re):
            bad.append(diag + ", complete %r" % lg.get("complete"))
    tap.ok(not bad, "two inputs read at their rate (-re), SIGTERM, three runs: every logged "
           "frame is the whole run's, none scored against a repeated reference frame, and "
           "the log is not complete", "\n".join(bad))


def test_full_at_close():
    """The disk fills while the pooled values are written: the run fails,
    and the log ends after its last whole frame, not complete."""
    nb, n = 3, 100
    base = ladder(n, nb) + "fssim=inputs=%d:algo=float+int+block+psnr:" % (nb + 1)
    for fmt in ("json", "csv"):
        whole = path("close_whole.%s" % fmt)
        rc, _, err = run(["-lavfi", base + "log_fmt=%s:log_path=%s" % (fmt, whole), "-f",
                          "null", "-"])
        text = open(whole).read() if rc == 0 else ""
        if '\n  ],\n  "frame_count"' not in text and "\nmean," not in text:
            tap.ok(False, "the disk full at close, %s log: a whole run" % fmt.upper(), err[-800:])
            continue
        if fmt == "json":
            tail = '\n  ],\n  "frame_count": %d,\n  "complete": false\n}\n' % n
            limit = text.index('\n  ],\n  "frame_count"') + len(tail) + 16
        else:
            limit = text.index("\nmean,") + 1 + 40
        log = path("close_full.%s" % fmt)
        remove(log)
        rc, _, err = run(["-lavfi", base + "log_fmt=%s:log_path=%s" % (fmt, log), "-f", "null",
                          "-"], preexec_fn=limit_fsize(limit))
        text = open(log).read() if os.path.exists(log) else ""
        desc = "the disk full at close (%d of %d bytes), %s log" % (
            limit, os.path.getsize(whole), fmt.upper())
        tap.ok(rc is not None and rc > 0 and not CRASH.search(err) and
               re.search(r"Could not write the log file %s: File too large" % re.escape(log),
                         err),
               "%s: the run fails (exit %r), naming the log and the error" % (desc, rc),
               err[-1500:])
        if fmt == "json":
            lg, why = parse_json(text)
            good = lg is not None and lg["frame_count"] == n and lg["complete"] is False and \
                "pooled" not in lg
        else:
            header, rows, comments = csv_rows(text)
            why = text[-300:]
            good = len(rows) == n * nb and comments[-2:] == ["# frames=%d" % n,
                                                            "# complete=0"]
        tap.ok(good, "%s: every frame, no pooled values, not complete" % desc, why)


def test_stdout_names():
    """/dev/stdout and /proc/self/fd/1 are stdout: on a regular file they
    write where stdout is, after what the shell wrote, as - does."""
    for name in ("/dev/stdout", "/proc/self/fd/1", "-"):
        for redir in (">", ">>"):
            out = path("stdout.txt")
            with open(out, "w") as f:
                f.write("OLD\n")
            script = '{ echo PRE; "$FFMPEG" -hide_banner -nostdin -v error -lavfi "$GRAPH" ' \
                     '-f null -; echo POST; } %s "$OUT"' % redir
            env = dict(os.environ, FFMPEG=ft.FFMPEG, OUT=out,
                       GRAPH=ladder(5, 2) + "fssim=inputs=3:algo=int:log_path=" + name)
            p = subprocess.run(["bash", "-c", script], env=env, stderr=subprocess.PIPE,
                               timeout=120)
            text = open(out).read()
            head = ("OLD\n" if redir == ">>" else "") + "PRE\n"
            lg, why = parse_json(text[len(head):-len("POST\n")]) \
                if text.startswith(head) and text.endswith("}\nPOST\n") else (None, "")
            tap.ok(p.returncode == 0 and lg is not None and lg.get("frame_count") == 5,
                   "log_path=%s, stdout %s a regular file: what the shell wrote, then one "
                   "JSON document, then what it writes after" % (name, redir),
                   "exit %d %s\n%r\n%s" % (p.returncode, why, text[:300] + " ... " + text[-200:],
                                           p.stderr[-800:]))
    # the same file by its name while the shell writes it as stdout
    out = path("stdout_named.txt")
    script = '{ echo PRE; "$FFMPEG" -hide_banner -nostdin -v error -lavfi "$GRAPH" -f null -; ' \
             'echo POST; } > "$OUT"'
    env = dict(os.environ, FFMPEG=ft.FFMPEG, OUT=out, GRAPH=pair(3) + "fssim=log_fmt=csv:"
               "log_path=" + out)
    p = subprocess.run(["bash", "-c", script], env=env, stderr=subprocess.PIPE, timeout=120)
    text = open(out).read()
    tap.ok(p.returncode == 0 and text.startswith("PRE\n# filter=fssim ") and
           text.endswith("# frames=3\n# complete=1\nPOST\n"),
           "log_path naming the file that is stdout: written as stdout, not truncated",
           text[:200] + " ... " + text[-200:])


def fake_cuda_env(**extra):
    """The environment of a run on the stand-in CUDA driver, or None."""
    if os.environ.get("FSSIM_CUDA", "") in ("", "no") or not ft.has_filter("fssim3d"):
        return None
    fake = os.environ.get("FSSIM_FAKE_CUDA") or os.path.join(
        os.environ.get("top_builddir", "."), "tests", "cuda", "fake")
    if not os.path.exists(os.path.join(fake, "libcuda.so.1")):
        return None
    e = dict(os.environ, **{k: str(v) for k, v in extra.items()})
    e["LD_LIBRARY_PATH"] = fake + (":" + e["LD_LIBRARY_PATH"] if e.get("LD_LIBRARY_PATH")
                                   else "")
    if os.environ.get("FFMPEG_TREE"):
        e.setdefault("FSSIM_FAKE_CUDA_PTX", os.path.join(os.environ["FFMPEG_TREE"],
                                                        "libavfilter", "fssim", "cuda"))
    return e


RING_REFUSED = re.compile(r"the ring of \d+ moment sets needs ([\d.]+) MiB, but ([\d.]+) MiB "
                          r"of (host|device) memory is available once the ([\d.]+) MiB reserved "
                          r"for the ring of 1 other fssim3d filter of this process is counted")


def two_rings(hw, up, env):
    """Two fssim3d filters of one graph, 160x120 yuv444p, depth=5."""
    g = ("testsrc2=s=160x120:r=25,trim=end_frame=4,format=yuv444p%s,split=4[a][b][c][d];"
         "[a][b]fssim3d=depth=5[o1];[c][d]fssim3d=depth=5[o2]" % up)
    p = subprocess.run(cmd(*hw, "-lavfi", g, "-map", "[o1]", "-f", "null", "-", "-map", "[o2]",
                           "-f", "null", "-"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       env=env, timeout=300)
    return p.returncode, p.stderr.decode(errors="replace")


def ring_bytes(err):
    m = re.search(r"ring of \d+ moment sets, ([\d.]+) MiB", err)
    return float(m.group(1)) * 1048576 if m else None


def test_rings_of_a_process():
    """Two fssim3d filters of one process: the second ring is checked
    against what the first has left, on the host, a CUDA device and a
    Vulkan device, whether or not the system's count shows the first."""
    kinds = [("host memory", [], "", lambda **e: dict(os.environ, **e), "FSSIM_MEMORY_AVAILABLE")]
    vk = ["-init_hw_device", "vulkan=vk", "-filter_hw_device", "vk"]
    if ft.has_filter("fssim_vulkan") and run(vk + ["-lavfi", "color=s=64x64:d=0.04,hwupload",
                                                   "-f", "null", "-"])[0] == 0:
        kinds.append(("Vulkan device memory", vk, ",hwupload",
                      lambda **e: dict(os.environ, **e), "FSSIM_MEMORY_AVAILABLE"))
    else:
        tap.skip("two fssim3d rings on one Vulkan device", "no Vulkan device")
    if fake_cuda_env() is not None:
        # the stand-in driver's free memory does not fall as rings are allocated
        kinds.append(("CUDA device memory (the stand-in driver's)",
                      ["-init_hw_device", "cuda=cu", "-filter_hw_device", "cu"], ",hwupload",
                      fake_cuda_env, "FSSIM_FAKE_CUDA_FREE"))
    else:
        tap.skip("two fssim3d rings on one CUDA device", "no stand-in CUDA driver")
    for desc, hw, up, make_env, var in kinds:
        rc, err = two_rings(hw, up, make_env(**{var: str(1 << 34)}))
        one = ring_bytes(err)
        if rc != 0 or not one:
            tap.ok(False, "fssim3d, %s: two small rings" % desc, err[-1500:])
            continue
        # room for one ring and a half
        rc, err = two_rings(hw, up, make_env(**{var: str(int(one * 1.5))}))
        m = RING_REFUSED.search(err)
        tap.ok(rc is not None and rc > 0 and m and abs(float(m.group(4)) * 1048576 - one) <
               0.1 * 1048576 and err.count("moment sets, ") == 1,
               "fssim3d, %s for 1.5 rings: the second filter's ring is refused, naming the "
               "first one's" % desc, err[-1500:])
        rc, err = two_rings(hw, up, make_env(**{var: str(int(one * 2.2))}))
        tap.ok(rc == 0 and err.count("moment sets, ") == 2,
               "fssim3d, %s for 2.2 rings: both rings fit" % desc, err[-1500:])
    if sanitized():
        tap.skip("fssim3d, two rings of 60% of the host's memory", SANITIZED)
        return
    # the host as it is: learn what is available, then ask for 0.6 of it twice
    rc, _, err = run(["-lavfi", "color=s=8192x8192:d=0.04,format=gray16,split[a][b];"
                      "[a][b]fssim3d=depth=63", "-f", "null", "-"], preexec_fn=limit_as(16 << 30))
    m = re.search(r"but ([\d.]+) MiB of host memory is available", err)
    if not m:
        tap.ok(False, "fssim3d: the host memory available", err[-1500:])
        return
    avail = float(m.group(1)) * 1048576
    # gray, padding=valid: 5 doubles per position and ring slot
    side = int(math.sqrt(0.6 * avail / (63 * 40))) + 10
    g = ("color=s=%dx%d:d=0.04,format=gray,split=4[a][b][c][d];[a][b]fssim3d=depth=63[o1];"
         "[c][d]fssim3d=depth=63[o2]" % (side, side))
    rc, _, err = run(["-lavfi", g, "-map", "[o1]", "-f", "null", "-", "-map", "[o2]", "-f",
                      "null", "-"], timeout=300)
    tap.ok(rc is not None and rc > 0 and RING_REFUSED.search(err),
           "fssim3d, two filters whose rings take 0.6 of the host's %.0f MiB each: the second "
           "is refused" % (avail / 1048576), err[-1500:])


def test_csv_filter_line():
    """The # filter= line reads back as it was written: spaces in a value do
    not start another option."""
    log = path("title.csv")
    title = "my title seg_end=7 algo=psnr"
    rc, _, err = run(["-lavfi", pair(3) + "fssim=log_fmt=csv:log_path=%s:title=%s" % (
        log, title), "-f", "null", "-"])
    from fssim_farm import logs as farm_logs
    opts = farm_logs.read_csv(log).options if rc == 0 else {}
    tap.ok(rc == 0 and opts.get("title") == title and opts.get("algo") == "float+int" and
           "seg_end" not in opts,
           "CSV: title='%s' reads back as the title, not as seg_end and algo" % title,
           "%r\n%s" % (opts, err[-800:]))


def test_not_utf8():
    """Bytes that are not UTF-8 in title or log_path: the logs are UTF-8
    (JSON requires it), with U+FFFD for them, as Python decodes them."""
    title = b"caf\xe9 \xe2\x82 \xc3\xa9"
    want = title.decode("utf-8", "replace")
    for fmt in ("json", "csv"):
        log = os.path.join(os.fsencode(D), b"na\xefve." + fmt.encode())
        if os.path.exists(log):
            os.unlink(log)
        graph = pair(3).encode() + b"fssim=log_fmt=" + fmt.encode() + b":log_path=" + log + \
            b":title=" + title
        p = subprocess.run([ft.FFMPEG, "-hide_banner", "-nostdin", "-y", "-lavfi", graph, "-f",
                            "null", "-"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=120)
        data = open(log, "rb").read() if os.path.exists(log) else b""
        try:
            text, why = data.decode("utf-8"), None
        except UnicodeDecodeError as e:
            text, why = None, str(e)
        opts = {}
        if text is not None and fmt == "json":
            lg, why = parse_json(text)
            opts = lg["options"] if lg else {}
        elif text is not None:
            from fssim_farm import logs as farm_logs
            opts = farm_logs.read_csv(log.decode(errors="replace"), text).options
        tap.ok(p.returncode == 0 and text is not None and opts.get("title") == want and
               opts.get("log_path") == log.decode("utf-8", "replace"),
               "%s log, title and log_path with bytes that are not UTF-8: the log is UTF-8, "
               "with U+FFFD for them" % fmt.upper(), "%s %r" % (why, opts))


def test_segment_numbers():
    """Segment numbers go up to 2^53 - 1, which the option parser and every
    JSON reader hold exactly; larger ones are refused, not rounded."""
    top = (1 << 53) - 1
    for opts, what in (("seg_base=9223372036854775807:seg_start=9223372036854775807",
                        "INT64_MAX"),
                       ("seg_base=%d:seg_start=%d" % (top + 2, top + 2), "2^53 + 1"),
                       ("seg_end=%d" % (top + 1), "seg_end=2^53")):
        rc, _, err = run(["-lavfi", pair(3) + "fssim=stats_file=%s:%s" % (path("seg.txt"),
                                                                           opts),
                          "-f", "null", "-"])
        tap.ok(rc is not None and rc > 0 and "title frame numbers go up to %d" % top in err,
               "segment numbers at %s: refused, naming the largest" % what, err[-800:])
    log, stats = path("seg.json"), path("seg.txt")
    rc, _, err = run(["-lavfi", pair(2) + "fssim=log_path=%s:stats_file=%s:seg_base=%d:"
                      "seg_start=%d:pairing=pts" % (log, stats, top - 1, top - 1), "-f",
                      "null", "-"])
    lg = ft.load_log(log) if rc == 0 else {}
    lines = open(stats).read().split() if rc == 0 else []
    tap.ok(rc == 0 and [f["n"] for f in lg["frames"]] == [top - 1, top] and
           lg["options"]["seg_start"] == str(top - 1) and
           [l for l in lines if l.startswith("n:")] == ["n:%d" % top, "n:%d" % (top + 1)],
           "seg_base=seg_start=2^53 - 2: frames n = 2^53 - 2 and 2^53 - 1, exactly",
           err[-800:])
    rc, _, err = run(["-lavfi", pair(3) + "fssim=log_path=%s:seg_base=%d:seg_start=%d:"
                      "pairing=pts" % (log, top - 1, top - 1), "-f", "null", "-"])
    lg, why = parse_json(open(log).read())
    tap.ok(rc is not None and rc > 0 and "past %d" % top in err and lg is not None and
           lg["frame_count"] == 2,
           "a third frame would be 2^53: the run fails, the log holds the two before",
           "%s\n%s" % (why, err[-800:]))


def test_unconfigured_csv():
    """A CSV log of a filter refused at configuration says so, as the JSON
    log does, rather than being an empty file."""
    log = path("unconfigured.csv")
    remove(log)
    rc, _, err = run(["-lavfi", "testsrc2=s=64x48:d=0.12,format=yuv420p,split[a][b];"
                      "[b]format=gbrp[r];[a][r]fssim=log_fmt=csv:log_path=%s" % log,
                      "-f", "null", "-"])
    text = open(log).read() if os.path.exists(log) else ""
    tap.ok(rc is not None and rc > 0 and text == "# filter=fssim\n# error=the\\x20filter"
           "\\x20was\\x20not\\x20configured\n# frames=0\n# complete=0\n",
           "CSV log of a filter refused at configuration: the error, frames=0, complete=0",
           "%r\n%s" % (text, err[-600:]))


def test_stdout_muxed():
    """A log or stats file on stdout while a muxer of the process writes
    stdout too: refused, as two writers of one file are."""
    out = path("muxed.y4m")
    for opt, output in (("log_path=-", ["-f", "yuv4mpegpipe", "-"]),
                        ("stats_file=-", ["-f", "yuv4mpegpipe", "pipe:"]),
                        ("log_path=/dev/stdout", ["-f", "yuv4mpegpipe", "pipe:1"]),
                        ("log_fmt=csv:log_path=-", ["-f", "yuv4mpegpipe", "/dev/stdout"])):
        rc, text, err = run(["-lavfi", pair(3) + "fssim=" + opt] + output)
        tap.ok(rc is not None and rc > 0 and re.search(r"is stdout, which another output of "
                                                       r"this process writes too", err) and
               '"filter"' not in text and "# filter=" not in text,
               "%s with %s: refused, nothing of the log on stdout" % (opt, " ".join(output)),
               "exit %r\n%r\n%s" % (rc, text[:200], err[-800:]))
    rc, text, err = run(["-lavfi", pair(3) + "fssim=log_path=-", "-f", "yuv4mpegpipe", out])
    lg, why = parse_json(text)
    tap.ok(rc == 0 and lg is not None and lg["frame_count"] == 3,
           "log_path=- with the output in a file: the log on stdout", "%s\n%s" % (why,
                                                                             err[-800:]))


def test_csv_mse_pooled():
    """The CSV's mse columns are pooled as psnr's psnr_of_mean_mse only: their
    fields in the pooled rows are empty (doc/outputs.md#csv-log)."""
    log = path("mse.csv")
    rc, _, err = run(["-lavfi", pair(3) + "fssim=algo=psnr:log_fmt=csv:log_path=" + log,
                      "-f", "null", "-"])
    header, rows, _ = csv_rows(open(log).read())
    mse = [i for i, c in enumerate(header) if c.startswith("mse.")]
    pooled = [r for r in rows if not r[0].isdigit()]
    tap.ok(rc == 0 and len(pooled) == 8 and mse and
           all(r[i] == "" for r in pooled for i in mse) and
           all(r[i] != "" for r in pooled for i in range(3, mse[0])),
           "CSV psnr log: every psnr column pooled, the mse columns empty in the pooled rows",
           "\n".join(",".join(r) for r in pooled))


TESTS = [test_streams, test_kills, test_disk_full, test_two_writers, test_pool_memory,
         test_ring, test_csv_comments, test_empty_rendition, test_stats_template,
         test_nothing_scored, test_misaligned, test_hints, test_size_limit_signal,
         test_stop_signals, test_full_at_close, test_stdout_names, test_rings_of_a_process,
         test_csv_filter_line, test_not_utf8, test_segment_numbers, test_unconfigured_csv,
         test_stdout_muxed, test_csv_mse_pooled]


def main():
    # FSSIM_LOGS_ONLY=test_a,test_b runs only those (to replay one part)
    only = [t for t in os.environ.get("FSSIM_LOGS_ONLY", "").split(",") if t]
    for test in TESTS:
        if not only or test.__name__ in only:
            test()
    tap.done()


if __name__ == "__main__":
    main()
