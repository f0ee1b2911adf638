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
"""
import json
import os
import re
import signal
import subprocess
import time

import fssimtest as ft

CRASH = re.compile(r"Assertion|Segmentation|core dumped|AddressSanitizer|double free|"
                   r"stack smashing|Aborted|runtime error:", re.I)
SRC = "testsrc2=size=96x64:rate=25,format=yuv420p"
VK_DEVICE = os.environ.get("FSSIM_VULKAN_DEVICE", "0")

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


def stop(args, how, log=None):
    """Run args and stop it by how: None (the command ends by itself), "q",
    or a signal once the log holds 3 frames.  Returns (status, stderr)."""
    proc = launch(args, stdin=how == "q")
    if how is None:
        return finish(proc)
    started = ft.wait_log_frames(log, 3, proc) if log else (time.sleep(1.0) or True)
    if how == "q":
        try:
            proc.stdin.write("q")
            proc.stdin.flush()
        except BrokenPipeError:
            pass
    else:
        proc.send_signal(how)
    status, err = finish(proc)
    if not started:
        err = "(the log never reached 3 frames)\n" + (err or "")
        status = "not started"
    return status, err


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
        status, err = stop(hw + ["-lavfi", g] + out_args + ["-f", "null", "-"], how, log)
        d2 = "%s on %s frames, %s" % (fname, name, desc)
        tap.ok(status == expected[desc] and not CRASH.search(err or ""),
               "%s: exit status %s, as FFmpeg's ssim (%s)" % (d2, status, expected[desc]),
               (err or "")[-2500:])
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
            status, _ = stop(proc_args, None)
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
    for name, hw, up, scorers in backends():
        for scorer in scorers:
            cut_short(d, name, hw, up, scorer, expected)
            input_error(d, name, hw, up, scorer, bad, good)
            unwritable(d, name, hw, up, scorer)
    reinit(d)
    two_writers(d)
    tap.done()


if __name__ == "__main__":
    main()
