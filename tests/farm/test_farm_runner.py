#!/usr/bin/env python3
"""fssim-farm score on a local Dask cluster of worker processes (the fssim
filter on the CPU): the merged log equals a whole run's, also when a
worker process is killed mid-run (Dask reschedules its segments; the nanny
starts a new worker); a failing segment is retried and then reported with
its frames; the progress bar reports frames per second; a GPU worker runs
as many segments at once as decode its stream budget (three ladders of 7
inputs, ten pairs), --slots N exactly N.
"""
import os
import shutil
import signal
import stat
import threading
import time

import fssimtest as ft
import farmtest as fm

OPTS = "algo=float+psnr"


def wrapper(d, name, delay, fail_first=None):
    """An ffmpeg that logs its runs and starts late (so that runs overlap a
    kill); fail_first: a segment start whose first run fails."""
    path = os.path.join(d, name)
    runs = path + ".runs"
    for f in (runs, path + ".failed"):
        if os.path.exists(f):
            os.unlink(f)
    extra = ""
    if fail_first is not None:
        extra = ('case "$*" in *seg_start=%d:*) [ -e "%s.failed" ] || '
                 '{ touch "%s.failed"; exit 3; } ;; esac\n' % (fail_first, path, path))
    with open(path, "w") as f:
        f.write('#!/bin/sh\necho "$*" >> "%s"\n%ssleep %s\nexec "%s" "$@"\n' % (
            runs, extra, delay, ft.FFMPEG))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path, runs


def main():
    tap = ft.Tap()
    if not fm.has_seg_options():
        tap.skip("runner", "the built fssim has no segment options")
        tap.done()
    if not ft.encoder_has("libx264"):
        tap.skip("runner", "ENCODER_FFMPEG lacks libx264")
        tap.done()
    from distributed import Client
    from fssim_farm import segments
    from fssim_farm.runner import local_cluster
    from fssim_farm.title import Title, run_titles
    from fssim_farm.progress import Progress

    d = ft.workdir("farm_runner")
    for f in os.listdir(d):         # no segment of an earlier run is taken up
        if f.endswith(".segments"):
            shutil.rmtree(os.path.join(d, f))
    ref, dists = fm.make_title(d, frames=96, gop=8)
    title_id = segments.input_identity(dists + [ref])
    whole = fm.whole_run("fssim", ref, dists, OPTS, os.path.join(d, "whole.json"), title_id)

    # 1. the command line, a cluster of two worker processes
    out = os.path.join(d, "cli.json")
    p = fm.fssim_farm("score", "--reference", ref, *dists, "-o", out, "--options", OPTS,
                      "--segment-frames", "16", "--workers", "2", "--slots", "1",
                      "--ffmpeg", ft.FFMPEG, "--ffprobe", ft.FFPROBE)
    if tap.ok(p.returncode == 0, "fssim-farm score: exit 0", p.stderr[-3000:]):
        fm.same_log(tap, "score, 2 workers", out, whole, relocate=True)
    tap.ok("frames/s" in p.stderr, "a progress report on stderr with frames/s", p.stderr[-500:])

    # 2. a worker process killed mid-run
    slow, runs = wrapper(d, "ffmpeg_slow", 1.5)
    out = os.path.join(d, "killed.json")
    t = Title(ref, dists, out, "fssim", OPTS, 16, ffmpeg=slow, ffprobe=ft.FFPROBE)
    with local_cluster(workers=2, slots=1) as cluster, Client(cluster) as client:
        pids = client.run(os.getpid)
        res = {}
        th = threading.Thread(target=lambda: res.update(s=run_titles([t], client, retries=2)))
        th.start()
        deadline = time.time() + 120
        while time.time() < deadline and not (
                os.path.exists(runs) and len(open(runs).read().splitlines()) >= 2):
            time.sleep(0.2)
        victim = sorted(pids.values())[0]
        killed = True
        try:
            os.kill(victim, signal.SIGKILL)
        except OSError:
            killed = False
        th.join(600)
        s = res.get("s", [{}])[0]
        nruns = len(open(runs).read().splitlines())
        tap.ok(killed and s.get("status") == "ok",
               "a worker process killed mid-run (pid %d): the title completes" % victim, s)
        tap.ok(nruns > len(t.segments),
               "the killed worker's segments ran again (%d runs for %d segments)" % (
                   nruns, len(t.segments)))
    if s.get("status") == "ok":
        fm.same_log(tap, "worker killed", out, whole, relocate=True)
    logs_ = sorted(f for f in os.listdir(t.workdir) if f.startswith("seg_") and
                   f.endswith(".json"))
    tap.ok(logs_ == sorted(os.path.basename(t.seg_log(s)) for s in t.segments),
           "one finished log per segment in the work folder (a killed run's .part is never "
           "one)", logs_)

    # 3. a failing segment is retried; with no retries it is reported
    flaky, runs = wrapper(d, "ffmpeg_flaky", 0, fail_first=16)
    out = os.path.join(d, "retried.json")
    p = fm.fssim_farm("score", "--reference", ref, *dists, "-o", out, "--options", OPTS,
                      "--segment-frames", "16", "--workers", "1", "--slots", "2",
                      "--ffmpeg", flaky, "--ffprobe", ft.FFPROBE, "--no-progress")
    tap.ok(p.returncode == 0, "a segment whose first run fails is retried", p.stderr[-2000:])
    if p.returncode == 0:
        fm.same_log(tap, "retried", out, whole, relocate=True)
    os.unlink(flaky + ".failed")
    out = os.path.join(d, "failed.json")
    p = fm.fssim_farm("score", "--reference", ref, *dists, "-o", out, "--options", OPTS,
                      "--segment-frames", "16", "--workers", "1", "--slots", "2",
                      "--ffmpeg", flaky, "--ffprobe", ft.FFPROBE, "--retries", "0",
                      "--no-progress")
    tap.ok(p.returncode == 1 and "frames 16-" in p.stderr and "exit 3" in p.stderr and
           not os.path.exists(out),
           "without retries the failed segment is reported with its frames, no log written",
           p.stderr[-2000:])

    # 4. several hosts' set-up, on this one: `dask scheduler` and
    # `fssim-farm worker` (one worker per GPU index), the client by --scheduler
    multi_host(tap, d, ref, dists, whole)

    # 5. segments at once per GPU worker, as Dask schedules them
    capacity(tap)

    # 6. the progress bar's arithmetic
    bar = Progress(stream=open(os.devnull, "w"))
    bar.add("a", 100)
    bar.add("b", 50)
    bar.event((0, {"job": "a", "frames": 40}))
    bar.done("b")
    tap.ok(bar.scored() == 90, "progress: frames of running and finished segments add up")
    tap.done()


def capacity(tap):
    """The most segments running at once on one GPU worker (threads in this
    process, so that the tasks can count each other)."""
    from distributed import Client
    from fssim_farm.runner import local_cluster, segment_resources
    for inputs, slots, want in ((7, None, 3), (2, None, 10), (17, None, 1), (2, 4, 4)):
        fm.RUNNING.update(now=0, peak=0)
        with local_cluster(gpus=[0], slots=slots, processes=False) as cluster, \
                Client(cluster) as c:
            futs = [c.submit(fm.busy, pure=False, resources=segment_resources(inputs))
                    for _ in range(want * 2 + 1)]
            c.gather(futs)
        tap.ok(fm.RUNNING["peak"] == want, "one GPU worker%s runs %d segments of %d inputs at "
               "once" % (" with --slots %d" % slots if slots else "", want, inputs),
               dict(fm.RUNNING))


def multi_host(tap, d, ref, dists, whole):
    import json
    import subprocess
    import sys
    sfile = os.path.join(d, "scheduler.json")
    if os.path.exists(sfile):
        os.unlink(sfile)
    env = fm.farm_env()
    env["DASK_LOGGING__DISTRIBUTED"] = "error"
    sched = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                              "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                              "--scheduler-file", sfile], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = None
    try:
        deadline = time.time() + 60
        while not os.path.exists(sfile) and time.time() < deadline:
            time.sleep(0.2)
        addr = json.load(open(sfile))["address"]
        worker = subprocess.Popen([sys.executable, "-m", "fssim_farm", "worker", addr,
                                   "--gpus", "0,1", "--slots", "1", "--name", "hostA"],
                                  env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        out = os.path.join(d, "multi.json")
        p = fm.fssim_farm("score", "--scheduler", addr, "--reference", ref, *dists, "-o", out,
                          "--options", OPTS, "--segment-frames", "16", "--ffmpeg", ft.FFMPEG,
                          "--ffprobe", ft.FFPROBE, "--no-progress", timeout=300)
        if tap.ok(p.returncode == 0, "dask scheduler + fssim-farm worker --gpus 0,1, the "
                  "client by --scheduler: exit 0", p.stderr[-2000:]):
            fm.same_log(tap, "several hosts' set-up", out, whole, relocate=True)
    finally:
        for proc in (worker, sched):
            if proc:
                proc.terminate()
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()


if __name__ == "__main__":
    main()
