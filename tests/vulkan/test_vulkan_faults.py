#!/usr/bin/env python3
"""fssim_vulkan when the Vulkan device is lost or hangs mid-run.

A test layer (fault_layer.c, built by make check) makes the device report
VK_ERROR_DEVICE_LOST once N frames' submissions went through, or from the
first one (N = 0): for fssim_vulkan's own submissions and fences only
(scope=dispatch, so the error reaches the filter while hwupload still
works), or for everything, as a real lost device (scope=all).  Every run
writes log_path (JSON) and stats_file; the checks:
  - ffmpeg exits with an error status, not a signal, with no crash or
    sanitizer report, and the message names VK_ERROR_DEVICE_LOST (and, with
    scope=dispatch, fssim_vulkan's own "waiting for the scores of frame"
    or "Submitting the scoring of frame" message);
  - the JSON log parses and holds at most the frames scored before the
    fault, in order from frame 0;
  - every logged value equals fssim's (the CPU reference) for that frame,
    to the tolerances of doc/algorithms.md#accuracy: nothing stale from an earlier frame;
  - stats_file has one line per logged frame.
A run with the layer loaded and no fault scores every frame as fssim does.

A hung device (stall_after=N: the fences of fssim_vulkan's submissions after
the N-th never signal, and a wait on them without a timeout never returns):
  - without a signal, the run fails within the filter's wait timeout
    (FSSIM_VULKAN_WAIT_TIMEOUT_MS, shortened here) with an error status and
    a message that says the device did not finish a frame in time and what
    to do; the log holds only frames that were scored, equal to fssim's;
    the same for fssim3d on Vulkan frames;
  - SIGTERM and SIGINT, sent while the filter waits for the stalled fence
    (the default timeout of 10 s), end the run within 2 s with FFmpeg's
    status for them (255), and the filter closes its log: the frames scored
    before the stall, frame_count, "complete": false (frames were still in
    flight) and the pooled values.
Where the Khronos validation layer is installed it is loaded too, and any
message of it fails a check (vkcheck.py).  Without a Vulkan device,
without fssim_vulkan or without the built layer, the checks report SKIP.

Environment: FSSIM_VULKAN_DEVICE as for test_vulkan.py.
"""
import json
import os
import re
import signal
import subprocess
import time

import fssimtest as ft
import vkcheck
import vktest

TOL = {"int": 1e-12, "float": 1e-5, "block": 1e-6}
ALGOS = ("float", "int", "block")
DEVICE = os.environ.get("FSSIM_VULKAN_DEVICE", "0")
HW = ["-init_hw_device", "vulkan=vk:%s" % DEVICE, "-filter_hw_device", "vk"]
LAYER_DIR = vktest.LAYER_DIR
CRASH = re.compile(r"Assertion|Segmentation|core dumped|AddressSanitizer|LeakSanitizer|"
                   r"UndefinedBehaviorSanitizer|runtime error:|double free|stack smashing|"
                   r"Aborted", re.I)
NB = 12          # frames of the clips
W, H = 64, 48

tap = ft.Tap()
val = vkcheck.Validation(ft)
WORK = ft.workdir("vulkan_faults")


def clip(name, chain):
    path = os.path.join(WORK, name + ".yuv")
    if not os.path.exists(path):
        ft.ffmpeg("-f", "lavfi", "-i", chain, "-frames:v", str(NB), "-f", "rawvideo",
                  "-pix_fmt", "yuv420p", path + ".part")
        os.rename(path + ".part", path)
    return ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-video_size", "%dx%d" % (W, H),
            "-framerate", "25", "-i", path]


def inputs():
    src = "testsrc2=s=%dx%d:r=25,format=yuv420p" % (W, H)
    return clip("main", src) + clip("ref", src + ",avgblur=sizeX=1,noise=alls=14:allf=t")


fault_env = vktest.fault_env


def run(tag, graph, fault, hw=True, timeout=300, extra_env=None,
        algo="algo=float+int+block:"):
    """(CompletedProcess, log path, stats path) of one run."""
    log = os.path.join(WORK, tag + ".json")
    stats = os.path.join(WORK, tag + ".stats")
    for f in (log, stats):
        if os.path.exists(f):
            os.unlink(f)
    graph = graph % {"out": "%slog_path=%s:stats_file=%s" % (algo, log, stats)}
    args = (HW if hw else []) + inputs() + ["-lavfi", graph, "-f", "null", "-"]
    env = fault_env(fault)
    env.update(extra_env or {})
    try:
        p = ft.ffmpeg(*args, check=False, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        p = subprocess.CompletedProcess(args, -1, "", "timeout after %ss" % e.timeout)
    return p, log, stats


VK_GRAPH = "[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim_vulkan=%(out)s"


def load(path):
    try:
        return ft.load_log(path), None
    except (OSError, ValueError) as e:
        return None, str(e)


def same_as_cpu(log, cpu, algos=ALGOS):
    """[] if every logged frame's values equal fssim's for that frame."""
    bad = []
    for fr in log["frames"]:
        ref = cpu["frames"][fr["n"]]
        for algo in algos:
            for c, v in fr[algo].items():
                if c == "dB":
                    continue
                w = ref[algo].get(c)
                if v is None or w is None or abs(v - w) > TOL[algo]:
                    bad.append("frame %d %s.%s: %r, fssim %r" % (fr["n"], algo, c, v, w))
    return bad


STALL_TIMEOUT_MS = 1500


def check_stall(cpu, graph, name, nb, algo="algo=float+int+block:"):
    """A hung device, no signal: the run fails in time, naming the wait."""
    case = "%s, device hung after %d frames" % (name, nb)
    env_extra = {"FSSIM_VULKAN_WAIT_TIMEOUT_MS": str(STALL_TIMEOUT_MS)}
    t0 = time.monotonic()
    p, log_path, _ = run("stall_%s" % name, graph, "stall_after=%d" % nb, timeout=60,
                         extra_env=env_extra, algo=algo)
    dt = time.monotonic() - t0
    out = p.stdout + p.stderr
    tap.ok(p.returncode > 0 and not CRASH.search(out) and dt < 30,
           "%s: ffmpeg fails with an error status (%d) in %.1f s, no hang, signal or crash"
           % (case, p.returncode, dt), out[-3000:])
    tap.ok(re.search(r"\] The Vulkan device '[^']*' did not finish the [a-z ]+ \d+ within "
                     r"1\.5 s: it is hung, or lost without reporting it\. .*Check the GPU", out),
           "%s: the error says the device did not finish a frame in time, and what to do"
           % case, out[-3000:])
    log, err = load(log_path)
    if not tap.ok(log is not None, "%s: the JSON log parses" % case, err):
        return
    frames = log["frames"]
    tap.ok(len(frames) <= nb and [fr["n"] for fr in frames] == list(range(len(frames))) and
           not same_as_cpu(log, cpu, algos=[a for a in ALGOS if a in (frames or [{}])[0]]),
           "%s: the log holds %d frames scored before the stall, equal to fssim's"
           % (case, len(frames)), "n %s" % [fr["n"] for fr in frames])


def check_stall_signal(cpu, sig, signame, nb=3):
    """A hung device, then a signal while the filter waits: the run ends in
    2 s (a machine too busy to schedule the threads in time gets a second
    try)."""
    for attempt in range(2):
        if stall_signal_run(cpu, sig, signame, nb, last=attempt == 1):
            return


def stall_signal_run(cpu, sig, signame, nb, last):
    """One run of check_stall_signal(); False if only its time failed and
    it is not the last try."""
    case = "device hung after %d frames, %s while the filter waits" % (nb, signame)
    log = os.path.join(WORK, "stall_sig_%s.json" % signame)
    if os.path.exists(log):
        os.unlink(log)
    graph = VK_GRAPH % {"out": "algo=float+int+block:log_path=%s" % log}
    env = fault_env("stall_after=%d" % nb)
    env.pop("FSSIM_VULKAN_WAIT_TIMEOUT_MS", None)
    args = [ft.FFMPEG, "-hide_banner", "-nostdin", "-y"] + HW + inputs() + \
        ["-lavfi", graph, "-f", "null", "-"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    # the twelve frames are uploaded at once: the filter is in its wait for
    # the stalled frame a moment after its log is opened
    got = ft.wait_log_frames(log, 0, proc, timeout=60)
    time.sleep(2.0)
    t0 = time.monotonic()
    proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=20)
        dt = time.monotonic() - t0
    except subprocess.TimeoutExpired:
        trace = ft.backtraces(proc.pid)
        proc.kill()
        out, err = proc.communicate()
        dt = None
        err += "\n" + trace
    if not last and got and proc.returncode == 255 and dt is not None and dt >= 2.0:
        tap.diag("%s: ended %.2f s after the signal; once more" % (case, dt))
        return False
    tap.ok(got and dt is not None and dt < 2.0 and proc.returncode == 255,
           "%s: the run ends %s after the signal with status 255 (%s)"
           % (case, "%.2f s" % dt if dt is not None else "never (killed after 20 s)",
              proc.returncode), (err or "")[-3000:])
    data, e = load(log)
    tap.ok(data is not None and data.get("complete") is False and "pooled" in data and
           data["frame_count"] == len(data["frames"]) <= nb and
           [fr["n"] for fr in data["frames"]] == list(range(len(data["frames"]))) and
           not same_as_cpu(data, cpu),
           "%s: the log is closed (frames scored before the stall, frame_count, complete "
           "false, pooled) and its frames equal fssim's" % case,
           e or json.dumps({k: v for k, v in data.items() if k != "frames"})[:1500])
    return True


def check_fault(cpu, n, scope):
    case = "device lost after %d frames (scope=%s)" % (n, scope)
    p, log_path, stats_path = run("lost_%d_%s" % (n, scope), VK_GRAPH,
                                  "device_lost_after=%d,scope=%s" % (n, scope))
    out = p.stdout + p.stderr
    # a signal is a negative status here
    tap.ok(p.returncode > 0 and not CRASH.search(out),
           "%s: ffmpeg fails with an error status (%d), no signal or crash report"
           % (case, p.returncode), out[-3000:])
    want = [r"VK_ERROR_DEVICE_LOST"]
    if scope == "dispatch":
        # fssim_vulkan's own message, naming what failed
        want.append(r"\[Parsed_fssim_vulkan_\d+ @ [^]]*\] (Vulkan error while waiting for "
                    r"the scores of frame \d+: VK_ERROR_DEVICE_LOST|Submitting the "
                    r"scoring of frame \d+ to the Vulkan device failed)")
    missing = [w for w in want if not re.search(w, out)]
    tap.ok(not missing, "%s: the error names VK_ERROR_DEVICE_LOST%s" %
           (case, " in fssim_vulkan's message" if scope == "dispatch" else ""),
           "missing %s in:\n%s" % (missing, out[-3000:]))

    log, err = load(log_path)
    if not tap.ok(log is not None, "%s: the JSON log parses" % case, err):
        return
    frames = log["frames"]
    tap.ok(log["frame_count"] == len(frames) <= n and
           [fr["n"] for fr in frames] == list(range(len(frames))),
           "%s: the log holds %d frames, at most the %d submitted before the fault, in order"
           % (case, len(frames), n),
           "frame_count %s, n %s" % (log["frame_count"], [fr["n"] for fr in frames]))
    bad = same_as_cpu(log, cpu)
    tap.ok(not bad, "%s: every logged value equals fssim's for its frame (none stale)" % case,
           "\n".join(bad[:12]))
    try:
        with open(stats_path) as f:
            lines = ft.parse_stats_file(f.read())
    except (OSError, ValueError) as e:
        lines = None
        tap.diag("stats_file: %s" % e)
    tap.ok(lines is not None and len(lines) == len(frames) and
           [x["n"] for x in lines] == list(range(1, len(frames) + 1)),
           "%s: stats_file has one line per logged frame (%d)" % (case, len(frames)),
           "stats lines %s" % (None if lines is None else [x["n"] for x in lines]))


def main():
    reasons = []
    if not ft.has_filter("fssim_vulkan"):
        reasons.append("fssim_vulkan not built (FFmpeg without --enable-vulkan)")
    elif not os.path.exists(os.path.join(LAYER_DIR, "libVkLayer_fssim_fault.so")):
        reasons.append("the fault layer is not built (%s; make check builds it)" % LAYER_DIR)
    else:
        p = ft.ffmpeg(*HW, "-f", "lavfi", "-i", "color=s=64x64:d=0.04,format=yuv420p",
                      "-vf", "hwupload", "-f", "null", "-", check=False, env=fault_env(None))
        if p.returncode != 0:
            reasons.append("no Vulkan device with the fault layer (-init_hw_device "
                           "vulkan=vk:%s): %s" % (DEVICE, p.stderr.strip().splitlines()[-1:]))
    if reasons:
        tap.skip("fssim_vulkan under a lost device", reasons[0])
        tap.done()

    cpu, p = None, None
    p, cpu_log, _ = run("cpu", "[0:v][1:v]fssim=%(out)s", None, hw=False)
    cpu, err = load(cpu_log)
    if not tap.ok(p.returncode == 0 and cpu is not None and cpu["frame_count"] == NB,
                  "fssim (CPU) scores the %d frames" % NB, (err or "") + p.stderr[-2000:]):
        tap.done()

    # the layer alone changes nothing
    p, log_path, stats_path = run("nofault", VK_GRAPH, None)
    log, err = load(log_path)
    tap.ok(p.returncode == 0 and log is not None and log["frame_count"] == NB and
           not same_as_cpu(log, cpu),
           "fault layer loaded, no fault: the %d frames scored as fssim scores them" % NB,
           (err or "") + p.stderr[-2000:])

    for scope in ("dispatch", "all"):
        for n in (5, 1, 0):
            check_fault(cpu, n, scope)
    check_stall(cpu, VK_GRAPH, "fssim_vulkan", 3)
    check_stall(cpu, "[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim3d=depth=3:%(out)s",
                "fssim3d", 3, algo="")
    check_stall_signal(cpu, signal.SIGTERM, "SIGTERM")
    check_stall_signal(cpu, signal.SIGINT, "SIGINT")
    val.report(tap)
    tap.done()


if __name__ == "__main__":
    main()
