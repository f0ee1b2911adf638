"""Runs of fssim_cuda and fssim3d on CUDA frames cut short, without a GPU
(the built ffmpeg on the stand-in driver of tests/cuda/fake_libcuda.cpp,
in its lazy mode, so that frames are still waiting in the filters'
pipelines when the run stops).

Each way of stopping a run: -frames:v 3 on an endless input, -t, -to,
SIGINT and SIGTERM mid-run (once the JSON log holds 3 frames), 'q' on
stdin, an input corrupt in its middle with -xerror.  For each, ffmpeg must
end with the exit status of the same command with FFmpeg's own ssim filter
in place of ours (for a signal, the 255 ffmpeg returns after one: compared,
not assumed), by itself (never by a signal, no crash, no hang), and leave
outputs that agree: a valid JSON log whose frame_count equals the frames
it lists (numbered from 0), the frames:K of every summary line, and the
lines of the stats file.

Without CUDA in the build every check reports SKIP.
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fakecuda as fc          # noqa: E402
import fssimtest as ft         # noqa: E402

t = ft.Tap()
SKIP = fc.setup()
WORK = ft.workdir("cuda-cut")
ENDLESS = ["-f", "lavfi", "-i", "testsrc2=s=64x48:r=25,format=yuv420p",
           "-f", "lavfi", "-i", "testsrc2=s=64x48:r=25,format=yuv420p,noise=alls=12"]
TIMEOUT = 90
BASELINE_TRIES = 3

FILTERS = {
    # name: (graph with {log} and {stats}, summary lines per run)
    "fssim_cuda": ("[0:v]hwupload[a];[1:v]hwupload[b];"
                   "[a][b]fssim_cuda=algo=float+int:log_path={log}:stats_file={stats}", 2),
    "fssim3d": ("[0:v]hwupload[a];[1:v]hwupload[b];"
                "[a][b]fssim3d=depth=3:log_path={log}:stats_file={stats}", 1),
    "ssim": ("[0:v][1:v]ssim=stats_file={stats}", 1),
}


def corrupt_input():
    """A 12-frame y4m pair whose main clip has its 6th frame header
    damaged."""
    ref = ft.natural_clip(64, 48, 12, "yuv420p", WORK, "xerror_ref", container="y4m", seed=5)
    bad = ft.damage_y4m(ref.path, os.path.join(WORK, "xerror_main.y4m"), 5)
    return ["-i", bad, "-i", ref.path]


def progress(name, log, stats):
    """Frames scored so far: the JSON log's (ours), the stats file's (ssim)."""
    if name == "ssim":
        return len(fc.stats_lines(stats) or [])
    lg, _ = fc.read_log(log)
    return len(lg["frames"]) if lg else 0


def run(name, case, inputs, opts=(), stop=None):
    """One run; stop: None, or (how, ) 'SIGINT', 'SIGTERM', 'q' sent once 3
    frames are scored.  Returns (returncode or None on a hang, stderr,
    log path, stats path).  FFmpeg 8.1's own ssim, the baseline, was seen
    once in CI to hang in this harness with -xerror on the damaged input
    (not reproduced in 270 runs here): a hung baseline is run again, up to
    BASELINE_TRIES times, since it measures FFmpeg, not fssim.  A hung run
    of ours fails; its threads' stacks go into the diagnostic."""
    for attempt in range(BASELINE_TRIES if name == "ssim" else 1):
        rc, err, log, stats = run_once(name, case, inputs, opts, stop)
        if rc is not None:
            break
        t.diag("%s, %s: hung (attempt %d)\n%s" % (name, case, attempt + 1, err[-3000:]))
    return rc, err, log, stats


def hang(p):
    """Kill a hung ffmpeg, after taking its stacks for the diagnostic."""
    bt = ft.backtraces(p.pid)
    p.kill()
    return "hang: killed after %ds\n%s" % (TIMEOUT, bt + "\n" if bt else "")


def run_once(name, case, inputs, opts=(), stop=None):
    graph, _ = FILTERS[name]
    tag = "%s_%s" % (name, case)
    log, stats = (os.path.join(WORK, tag + e) for e in (".json", ".txt"))
    fc.remove(log, stats)
    cmd = [ft.FFMPEG, "-hide_banner", "-y"] + ([] if stop == "q" else ["-nostdin"]) + \
        fc.HW + list(inputs) + ["-lavfi", graph.format(log=log, stats=stats)] + \
        list(opts) + ["-f", "null", "-"]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE if stop == "q" else subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         env=fc.env(FSSIM_FAKE_CUDA_LAZY=1))
    err_file = []
    if stop:
        # the stderr pipe must not fill up while we wait
        import threading
        th = threading.Thread(target=lambda: err_file.append(p.stderr.read()))
        th.start()
        end = time.time() + TIMEOUT
        while p.poll() is None and progress(name, log, stats) < 3 and time.time() < end:
            time.sleep(0.05)
        if p.poll() is None:
            if stop == "q":
                p.stdin.write("q")
                p.stdin.flush()
            else:
                p.send_signal(getattr(signal, stop))
        try:
            p.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            msg = hang(p)
            p.wait()
            th.join()
            return None, msg + "".join(err_file), log, stats
        th.join()
        err = "".join(err_file)
    else:
        try:
            _, err = p.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            msg = hang(p)
            _, err = p.communicate()
            return None, msg + err, log, stats
    return p.returncode, err, log, stats


def cases():
    yield "-frames:v 3", ENDLESS, ["-frames:v", "3"], None
    yield "-t 0.2", ENDLESS, ["-t", "0.2"], None
    yield "-to 0.24", ENDLESS, ["-to", "0.24"], None
    yield "SIGINT mid-run", ENDLESS, [], "SIGINT"
    yield "SIGTERM mid-run", ENDLESS, [], "SIGTERM"
    yield "'q' on stdin", ENDLESS, [], "q"
    yield "an input error with -xerror", None, ["-xerror"], None


for desc, inputs, opts, stop in cases():
    if SKIP:
        for name in ("fssim_cuda", "fssim3d"):
            t.skip("%s, %s: ends as with ssim, by itself" % (desc, name), SKIP)
            t.skip("%s, %s: log, summary and stats file agree" % (desc, name), SKIP)
        continue
    if inputs is None:
        inputs = corrupt_input()
    case = "".join(ch if ch.isalnum() else "_" for ch in desc)
    rc_ssim, err_ssim, _, _ = run("ssim", case, inputs, opts, stop)
    for name in ("fssim_cuda", "fssim3d"):
        rc, err, log, stats = run(name, case, inputs, opts, stop)
        lg, why = fc.read_log(log)
        t.ok(rc is not None and rc >= 0 and rc == rc_ssim and not fc.CRASH.search(err),
             "%s, %s: ends as with ssim (exit %r), by itself" % (desc, name, rc_ssim),
             "exit %r, ssim's %r\n%s" % (rc, rc_ssim, err[-2500:]))
        ok, diag = fc.consistent(lg, err, stats, FILTERS[name][1])
        if stop and lg is not None and len(lg["frames"]) < 3:
            ok, diag = False, "fewer than the 3 frames scored before the stop: " + diag
        t.ok(ok, "%s, %s: log, summary and stats file agree (%s frames)" % (
                 desc, name, len(lg["frames"]) if lg else "no"),
             (why or diag) + "\n" + err[-1500:])
t.done()
