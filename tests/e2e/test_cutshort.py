#!/usr/bin/env python3
"""Runs cut short, unwritable logs and graphs rebuilt mid-stream.

Every filter, on every kind of frame this machine has (software frames;
Vulkan frames on lavapipe or a GPU; CUDA frames where a CUDA device works),
is stopped by -frames:v, -t, -to, 'q' on stdin, SIGINT, SIGTERM and an input
error (-xerror on a corrupt input).  Each run must:

- end with the exit status that FFmpeg gives the same command with its own
  `ssim` filter in place of ours (never a signal, no crash report);
- leave a JSON log that parses, whose frames are numbered 0..K-1, whose
  frame_count is K, whose pooled values exist, and whose K equals the
  summary line's frames:K and the stats_file's line count;
- have sent on, in the frame metadata, exactly the values the log holds
  for those frames (metadata=print after the filter).

log_path and stats_file on /dev/full must fail the run, naming the path and
the error.  A graph that FFmpeg rebuilds mid-stream (the input changes size)
keeps appending to the same JSON/CSV log and stats file.

Stopped in time: a run stopped by SIGINT or SIGTERM ends within 2 s of the
signal, also when one of its inputs is stalled (a named pipe whose writer
sent a few frames and then nothing more, holding it open: its demuxer is
blocked in read() for good; the tool patches give such a thread 1 s, then
finish its stream for it, doc/tool-patch.md), for every filter on every kind
of frame, the CUDA stand-in driver of tests/cuda included where no CUDA
device works; the stalled runs' outputs must agree as above.  (A run that
misses the 2 s on a machine too busy to schedule its threads is tried once
more.)  (A stalled
device wait is test_vulkan_faults.py's.)  With FFmpeg's own tool
(--disable-tool-patches) the stalled runs report SKIP: it waits for such an
input for good.
"""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import fssimtest as ft

sys.path.insert(0, os.path.join(ft.TOP_SRCDIR, "tests", "cuda"))
import fakecuda                # noqa: E402

CRASH = re.compile(r"Assertion|Segmentation|core dumped|AddressSanitizer|double free|"
                   r"stack smashing|Aborted|runtime error:", re.I)
SRC = "testsrc2=size=96x64:rate=25,format=yuv420p"
VK_DEVICE = os.environ.get("FSSIM_VULKAN_DEVICE", "0")
STOP_WITHIN = 2.0       # seconds from a signal to the end of the run
# what the tool (patch 0005) says when it ends a run whose teardown took
# too long after a signal: the outputs were not finished
WATCHDOG = "did not end in time after the signal"


def in_time(took, err):
    """Whether a stopped run ended within STOP_WITHIN by itself, not by the
    tool's watchdog."""
    return took is not None and took < STOP_WITHIN and WATCHDOG not in (err or "")


PATCHED = bool(os.environ.get("FSSIM_TOOL_PATCHES", "").strip())

tap = ft.Tap()


# ---- the kinds of frames -----------------------------------------------------

def backends():
    """(name, global ffmpeg args, upload filter, filters to test) for each kind
    of frame that works here; a SKIP line for the others."""
    found = [("software", [], "null", ["fssim", "fssim3d=depth=5"])]
    vk = ["-init_hw_device", "vulkan=vk:%s" % VK_DEVICE, "-filter_hw_device", "vk"]
    if not ft.has_filter("fssim_vulkan"):
        tap.skip("cut-short runs on Vulkan frames", "fssim_vulkan not built")
    elif works(vk, "hwupload"):
        found.append(("Vulkan", vk, "hwupload", ["fssim_vulkan", "fssim3d=depth=5"]))
    else:
        tap.skip("cut-short runs on Vulkan frames", "no Vulkan device")
    cu = ["-init_hw_device", "cuda=gpu", "-filter_hw_device", "gpu"]
    if not ft.has_filter("fssim_cuda"):
        tap.skip("cut-short runs on CUDA frames", "fssim_cuda not built")
    elif works(cu, "hwupload"):
        found.append(("CUDA", cu, "hwupload", ["fssim_cuda", "fssim3d=depth=5"]))
    else:
        tap.skip("cut-short runs on CUDA frames", "no CUDA device")
    return found


def works(hw, up):
    p = ft.ffmpeg(*hw, "-f", "lavfi", "-i", "color=s=64x64:d=0.04,format=yuv420p",
                  "-vf", up, "-f", "null", "-", check=False, timeout=60)
    return p.returncode == 0


def graph(up, scorer, src=SRC):
    """Main: the source blurred; reference: the source; both through up."""
    return ("%s,split[a][b];[a]avgblur=2,%s[m];[b]%s[r];[m][r]%s" % (src, up, up, scorer))


def baseline_graph(src=SRC):
    return "%s,split[a][b];[a]avgblur=2[m];[m][b]ssim" % src


# ---- one run and its checks ----------------------------------------------------

def remove(*paths):
    for p in paths:
        if os.path.exists(p):
            os.unlink(p)


def launch(args, stdin=False):
    cmd = [ft.FFMPEG, "-hide_banner", "-y"] + ([] if stdin else ["-nostdin"]) + args
    return subprocess.Popen(cmd, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def finish(proc, timeout=120):
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        return None, err
    return proc.returncode, err


def log_frames(path):
    """The frames the JSON log at path holds so far (0 if it does not parse)."""
    try:
        with open(path) as f:
            return len(json.load(f)["frames"])
    except (OSError, ValueError, KeyError):
        return 0


def wait_idle(log, proc, frames, quiet, timeout=120):
    """Wait until the log holds frames frames and has not grown for quiet
    seconds (the run waits for its stalled input), while proc runs."""
    end = time.time() + timeout
    n, since = -1, time.time()
    while time.time() < end and proc.poll() is None:
        k = log_frames(log)
        if k != n:
            n, since = k, time.time()
        elif n >= frames and time.time() - since >= quiet:
            return True
        time.sleep(0.05)
    return False


def stop(args, how, log=None, env=None, frames=3, idle=0.0):
    """Run args and stop it by how: None (the command ends by itself), "q",
    or a signal once the log holds frames frames (and, with idle, once it has
    not grown for idle seconds).  Returns (status, stderr, seconds from the
    stop to the end or None)."""
    cmd = [ft.FFMPEG, "-hide_banner", "-y"] + ([] if how == "q" else ["-nostdin"]) + args
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if how == "q" else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=env)
    if how is None:
        return finish(proc) + (None,)
    if idle:
        started = wait_idle(log, proc, frames, idle)
    else:
        started = ft.wait_log_frames(log, frames, proc) if log else (time.sleep(1.0) or True)
    t0 = time.monotonic()
    if how == "q":
        try:
            proc.stdin.write("q")
            proc.stdin.flush()
        except BrokenPipeError:
            pass
    else:
        proc.send_signal(how)
    status, err = finish(proc)
    took = time.monotonic() - t0 if status is not None else None
    if not started:
        err = "(the log never reached %d frames)\n" % frames + (err or "")
        status = "not started"
    return status, err, took


def summary_frames(err):
    """frames:K of each of the filter's summary lines."""
    return [int(k) for k in re.findall(r"SSIM .* frames:(\d+)", err or "")]


def check_outputs(desc, log, stats, meta, err, min_frames):
    try:
        lg = ft.load_log(log)
    except (OSError, ValueError) as e:
        tap.ok(False, "%s: the JSON log parses" % desc, "%s\n%s" % (e, (err or "")[-2000:]))
        return
    fr = lg.get("frames", [])
    algos = [k for k in lg.get("pooled", {})]
    tap.ok(lg.get("frame_count") == len(fr) >= min_frames and
           [f["n"] for f in fr] == list(range(len(fr))) and algos and
           all(set(lg["pooled"][a]) >= {"All"} for a in algos),
           "%s: the JSON log parses and holds %d frames (>= %d), numbered, pooled" % (
               desc, len(fr), min_frames), json.dumps(lg)[:600])
    counts = summary_frames(err)
    # (no frame scored: summary lines say frames:0, or there are none when the
    # run ended before the filter was configured)
    tap.ok(all(k == len(fr) for k in counts) and (bool(counts) or not fr),
           "%s: the summary line counts the frames of the log (%s)" % (desc, counts),
           (err or "")[-1500:])
    with open(stats) as f:
        text = f.read()
    lines = text.splitlines()
    tap.ok((not text or text.endswith("\n")) and len(lines) == len(fr),
           "%s: stats_file has one whole line per logged frame (%d)" % (desc, len(lines)),
           text[-400:])
    if meta:
        sent = ft.read_metadata(meta) if os.path.exists(meta) else []
        by_pts = {f["pts"]: f for f in fr}
        bad = []
        for m in sent:
            values = {k: v for k, v in m["tags"].items() if k.endswith(".All")}
            f = by_pts.get(int(m["pts"]))
            if f is None or not values:
                bad.append(m["pts"])
                continue
            for key, v in values.items():
                # lavfi.fssim.<algo>.All, lavfi.fssim3d.All
                logged = f.get(key.split(".")[-2], {}).get("All")
                if logged is None or float(v) != logged:
                    bad.append((m["pts"], key, v, logged))
        tap.ok(sent and not bad, "%s: the %d frames sent on carry the logged values" % (
            desc, len(sent)), bad[:5])


STOPS = [
    ("-frames:v 5", ["-frames:v", "5"], None, 5),
    ("-t 0.4", ["-t", "0.4"], None, 10),
    ("-to 0.4", ["-to", "0.4"], None, 10),
    ("q on stdin", [], "q", 3),
    ("SIGINT", [], signal.SIGINT, 3),
    ("SIGTERM", [], signal.SIGTERM, 3),
]


def cut_short(d, name, hw, up, scorer, expected):
    fname = scorer.split("=")[0]
    for desc, out_args, how, min_frames in STOPS:
        tag = "%s_%s_%s" % (name, fname, re.sub(r"\W", "", desc))
        log, stats, meta = (os.path.join(d, tag + ext) for ext in (".json", ".txt", ".meta"))
        remove(log, stats, meta)
        opts = "%s%slog_path=%s:stats_file=%s" % (scorer, ":" if "=" in scorer else "=",
                                                 log, stats)
        # metadata=print reads the frames on the CPU side of the graph
        post = ",hwdownload,format=yuv420p" if up != "null" else ""
        g = graph(up, opts) + "%s,metadata=print:file=%s" % (post, meta)
        status, err, took = stop(hw + ["-lavfi", g] + out_args + ["-f", "null", "-"], how,
                                 log)
        d2 = "%s on %s frames, %s" % (fname, name, desc)
        tap.ok(status == expected[desc] and not CRASH.search(err or ""),
               "%s: exit status %s, as FFmpeg's ssim (%s)" % (d2, status, expected[desc]),
               (err or "")[-2500:])
        if isinstance(how, signal.Signals):
            tap.ok(took is not None and took < STOP_WITHIN,
                   "%s: the run ends %s after the signal (< %g s)"
                   % (d2, "%.2f s" % took if took is not None else "never", STOP_WITHIN),
                   (err or "")[-1500:])
        check_outputs(d2, log, stats, meta, err, min_frames)


def baseline_status(d):
    """FFmpeg's exit status for each way of stopping, with its own ssim."""
    expected = {}
    for desc, out_args, how, _ in STOPS:
        stats = os.path.join(d, "baseline.txt")
        remove(stats)
        g = baseline_graph().replace("ssim", "ssim=stats_file=%s" % stats)
        proc_args = ["-lavfi", g] + out_args + ["-f", "null", "-"]
        if how is None:
            status, _, _ = stop(proc_args, None)
        else:
            proc = launch(proc_args, stdin=how == "q")
            end = time.time() + 60
            while time.time() < end and not (os.path.exists(stats) and
                                              os.path.getsize(stats) > 200):
                time.sleep(0.05)
            if how == "q":
                proc.stdin.write("q")
                proc.stdin.flush()
            else:
                proc.send_signal(how)
            status, _ = finish(proc)
        expected[desc] = status
    tap.diag("FFmpeg's own exit statuses: %s" % expected)
    return expected


def corrupt_input(d):
    """A y4m clip whose 11th frame header is damaged, and the intact clip."""
    clip = ft.natural_clip(64, 48, 20, "yuv420p", d, "long", seed=8)
    good = os.path.join(d, "good.y4m")
    ft.write_y4m(good, clip.frames, clip.fmt)
    return ft.damage_y4m(good, os.path.join(d, "corrupt.y4m"), 10), good


def input_error(d, name, hw, up, scorer, bad, good):
    fname = scorer.split("=")[0]
    base = ft.ffmpeg("-xerror", "-i", bad, "-i", good, "-lavfi", "[0:v][1:v]ssim",
                     "-f", "null", "-", check=False, timeout=120).returncode
    log, stats = os.path.join(d, "xerr.json"), os.path.join(d, "xerr.txt")
    remove(log, stats)
    opts = "%s%slog_path=%s:stats_file=%s" % (scorer, ":" if "=" in scorer else "=", log, stats)
    p = ft.ffmpeg(*hw, "-xerror", "-i", bad, "-i", good, "-lavfi",
                  "[0:v]%s[m];[1:v]%s[r];[m][r]%s" % (up, up, opts), "-f", "null", "-",
                  check=False, timeout=120)
    desc = "%s on %s frames, an input error with -xerror" % (fname, name)
    tap.ok(p.returncode == base and not CRASH.search(p.stderr),
           "%s: exit status %d, as FFmpeg's ssim (%d)" % (desc, p.returncode, base),
           p.stderr[-2500:])
    check_outputs(desc, log, stats, None, p.stderr, 0)


def unwritable(d, name, hw, up, scorer):
    fname = scorer.split("=")[0]
    sep = ":" if "=" in scorer else "="
    for opt in ("log_path", "stats_file"):
        p = ft.ffmpeg(*hw, "-lavfi", graph(up, "%s%s%s=/dev/full" % (scorer, sep, opt)),
                      "-frames:v", "5", "-f", "null", "-", check=False, timeout=120)
        tap.ok(p.returncode > 0 and not CRASH.search(p.stderr) and
               re.search(r"Could not write the \w+ file /dev/full: No space left on device",
                         p.stderr),
               "%s on %s frames, %s=/dev/full: the run fails naming the path and the error "
               "(exit %d)" % (fname, name, opt, p.returncode), p.stderr[-2000:])


# ---- stopped in time, with an input stalled ------------------------------------------

class StalledPipe:
    """A named pipe carrying a y4m clip's header and its first nb frames,
    then nothing, held open until close(): a live input that stalled."""

    def __init__(self, d, clip, nb):
        self.path = os.path.join(d, "stalled.fifo")
        remove(self.path)
        os.mkfifo(self.path)
        with open(clip, "rb") as f:
            data = f.read()
        head, _, body = data.partition(b"\n")
        frames = [b"FRAME" + x for x in body.split(b"FRAME")[1:]]
        self.data = head + b"\n" + b"".join(frames[:nb])
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._feed, daemon=True)
        self.thread.start()

    def _feed(self):
        try:
            with open(self.path, "wb", buffering=0) as f:
                f.write(self.data)
                self.done.wait(300)
        except OSError:
            pass

    def close(self):
        self.done.set()
        # a reader that never came: open it ourselves so that the writer ends
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            pass
        self.thread.join(10)
        remove(self.path)


def stalled_input(d, name, hw, up, scorer, expected, ref_clip, env=None):
    """SIGINT and SIGTERM while the main input is stalled and the run waits
    for it: the run ends in time, with outputs that agree."""
    fname = scorer.split("=")[0]
    for signame, sig in (("SIGINT", signal.SIGINT), ("SIGTERM", signal.SIGTERM)):
        desc = "%s on %s frames, %s while an input is stalled" % (fname, name, signame)
        if not PATCHED:
            tap.skip(desc, "FFmpeg's own tool (--disable-tool-patches) waits for a "
                     "stalled input for good after a signal")
            continue
        log, stats = (os.path.join(d, "stalled" + ext) for ext in (".json", ".txt"))
        # a machine too busy to run the threads in time gets a second try
        for _ in range(2):
            remove(log, stats)
            pipe = StalledPipe(d, ref_clip, 12)
            opts = "%s%slog_path=%s:stats_file=%s" % (scorer, ":" if "=" in scorer else "=",
                                                     log, stats)
            args = hw + ["-i", pipe.path, "-i", ref_clip, "-lavfi",
                         "[0:v]%s[m];[1:v]%s[r];[m][r]%s" % (up, up, opts), "-f", "null", "-"]
            try:
                # once the run waits for the stalled input, its filter idle
                status, err, took = stop(args, sig, log, env=env, frames=2, idle=3.0)
            finally:
                pipe.close()
            if status != expected[signame] or in_time(took, err):
                break
        tap.ok(status == expected[signame] and not CRASH.search(err or "") and
               took is not None and took < STOP_WITHIN,
               "%s: exit status %s, as FFmpeg's ssim (%s), %s after the signal (< %g s)"
               % (desc, status, expected[signame],
                  "%.2f s" % took if took is not None else "never", STOP_WITHIN),
               (err or "")[-2500:])
        check_outputs(desc, log, stats, None, err, 2)


def cuda_stand_in():
    """The CUDA stand-in driver as a kind of frame, where no CUDA device
    works: (name, args, upload, filters, env), or None."""
    why = fakecuda.setup()
    if why:
        tap.skip("stopped in time on the CUDA stand-in driver", why)
        return None
    return ("CUDA stand-in", fakecuda.HW, "hwupload", ["fssim_cuda", "fssim3d=depth=5"],
            fakecuda.env())


# ---- graphs rebuilt mid-stream ----------------------------------------------------

def reinit(d):
    """One input that changes size, split to both pads after a scale: FFmpeg
    rebuilds the graph at the change, the new filter configures, and its 5
    frames follow the first one's 5 in the same logs.  (With two inputs, how
    many frames the rebuilt graphs pair depends on FFmpeg's timing, for its
    own ssim too; tests/e2e/test_errors.py checks that frames scored before a
    rebuilt graph fails stay in the logs.)"""
    if not ft.encoder_has("libx264"):
        tap.skip("a graph rebuilt mid-stream keeps appending to the logs",
                 "no libx264 in ENCODER_FFMPEG")
        return
    ab, _ = ft.size_change_h264(d)
    for fname in ("fssim", "fssim3d=depth=3"):
        for fmt in ("json", "csv"):
            name = fname.split("=")[0]
            log, stats = os.path.join(d, "re.%s" % fmt), os.path.join(d, "re.txt")
            remove(log, stats)
            sep = ":" if "=" in fname else "="
            p = ft.ffmpeg("-i", ab, "-lavfi", "[0:v]scale=64:48,split[m][r];"
                          "[m][r]%s%slog_path=%s:log_fmt=%s:stats_file=%s" % (
                              fname, sep, log, fmt, stats), "-f", "null", "-",
                          check=False, timeout=120)
            desc = "%s, %s log, a graph rebuilt mid-stream" % (name, fmt)
            tap.ok(p.returncode == 0 and "Reconfiguring filter graph" in p.stderr and
                   not CRASH.search(p.stderr), "%s: the run succeeds" % desc, p.stderr[-2000:])
            counts = summary_frames(p.stderr)
            total = 10
            tap.ok(counts and counts[0] == 5 and counts[-1] == total,
                   "%s: the first instance counts 5 frames, the rebuilt one all %d (%s)" % (
                       desc, total, counts))
            with open(stats) as f:
                lines = f.read().splitlines()
            tap.ok([int(l.split()[0][2:]) for l in lines] == list(range(1, total + 1)),
                   "%s: stats_file numbers the %d frames of all the graphs 1..%d" % (
                       desc, total, total), lines)
            if fmt == "json":
                try:
                    lg = ft.load_log(log)
                except (OSError, ValueError) as e:
                    tap.ok(False, "%s: the log parses" % desc, e)
                    continue
                fr = lg["frames"]
                key = "int" if name == "fssim" else "fssim3d"
                pts = [f["pts"] for f in fr]
                tap.ok(lg["frame_count"] == total and [f["n"] for f in fr] == list(range(total))
                       and pts == sorted(pts),
                       "%s: the JSON log holds the %d frames of all the graphs in order" % (
                           desc, total), json.dumps(lg)[:800])
                tap.ok(all(f[key]["All"] == 1.0 for f in fr) and
                       lg["pooled"][key]["All"]["mean"] == 1.0,
                       "%s: identical inputs score 1 before and after" % desc)
            else:
                with open(log) as f:
                    text = f.read()
                rows = [l for l in text.splitlines() if l and l[0].isdigit()]
                tap.ok([int(r.split(",")[0]) for r in rows] == list(range(total)) and
                       text.count("\nmean,") == 1 and text.count("\nn,pts") == 1 and
                       text.rstrip().endswith("# frames=%d\n# complete=1" % total),
                       "%s: the CSV log holds the %d frames under one header, then the "
                       "pooled rows once" % (desc, total), text[-800:])


def two_writers(d):
    """Two live filters on one log path: the second fails, the first's log
    stays whole."""
    log = os.path.join(d, "shared.json")
    remove(log)
    p = ft.ffmpeg("-lavfi", "%s,split=4[a][b][c][e];[a][b]fssim=log_path=%s[o1];"
                  "[c][e]fssim=log_path=%s[o2]" % (SRC, log, log), "-map", "[o1]", "-map",
                  "[o2]", "-frames:v", "3", "-f", "null", "-", check=False, timeout=60)
    tap.ok(p.returncode > 0 and "Another filter of this process writes the same" in
           p.stderr and not CRASH.search(p.stderr),
           "two fssim filters on one log_path: a clear error", p.stderr[-2000:])
    remove(log)
    p = ft.ffmpeg("-lavfi", "%s,split=4[a][b][c][e];[a][b]fssim=log_path=%s[o1];"
                  "[c][e]fssim3d=depth=3:log_path=%s[o2]" % (SRC, log, log), "-map", "[o1]",
                  "-map", "[o2]", "-frames:v", "3", "-f", "null", "-", check=False, timeout=60)
    tap.ok(p.returncode > 0 and "Another filter of this process writes the same" in
           p.stderr and not CRASH.search(p.stderr),
           "fssim and fssim3d on one log_path: a clear error", p.stderr[-2000:])


def main():
    d = ft.workdir("cutshort")
    expected = baseline_status(d)
    bad, good = corrupt_input(d)
    # as many frames as the stalled input gets: nothing is left to score
    # after the signal but what the filter holds (the built ffmpeg's own
    # source: no numpy needed on a GPU machine)
    ref = os.path.join(d, "stall_ref.y4m")
    ft.ffmpeg("-f", "lavfi", "-i", "testsrc2=s=64x48:r=25,format=yuv420p", "-frames:v", "12",
              ref, timeout=60)
    kinds = backends()
    for name, hw, up, scorers in kinds:
        for scorer in scorers:
            cut_short(d, name, hw, up, scorer, expected)
            input_error(d, name, hw, up, scorer, bad, good)
            unwritable(d, name, hw, up, scorer)
            stalled_input(d, name, hw, up, scorer, expected, ref)
    reinit(d)
    two_writers(d)
    # last: the stand-in driver is then on the library path of every run
    if not any(k[0] == "CUDA" for k in kinds):
        stand_in = cuda_stand_in()
        if stand_in:
            name, hw, up, scorers, env = stand_in
            for scorer in scorers:
                for desc, sig in (("SIGINT", signal.SIGINT), ("SIGTERM", signal.SIGTERM)):
                    log, stats = (os.path.join(d, "standin" + ext) for ext in (".json", ".txt"))
                    for _ in range(2):
                        remove(log, stats)
                        opts = "%s%slog_path=%s:stats_file=%s" % (
                            scorer, ":" if "=" in scorer else "=", log, stats)
                        status, err, took = stop(hw + ["-lavfi", graph(up, opts), "-f", "null",
                                                       "-"], sig, log, env=env)
                        if status != expected[desc] or in_time(took, err):
                            break
                    d2 = "%s on %s frames, %s" % (scorer.split("=")[0], name, desc)
                    tap.ok(status == expected[desc] and not CRASH.search(err or "") and
                           took is not None and took < STOP_WITHIN,
                           "%s: exit status %s, as FFmpeg's ssim (%s), %s after the signal "
                           "(< %g s)" % (d2, status, expected[desc], "%.2f s" % took
                                         if took is not None else "never", STOP_WITHIN),
                           (err or "")[-2500:])
                    check_outputs(d2, log, stats, None, err, 3)
                stalled_input(d, name, hw, up, scorer, expected, ref, env=env)
    tap.done()


if __name__ == "__main__":
    main()
