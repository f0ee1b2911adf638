#!/usr/bin/env python3
"""fssim-farm score on a local Dask cluster of worker processes (the fssim
filter on the CPU): the merged log equals a whole run's, also when a
worker process is killed mid-run (Dask reschedules its segments; the nanny
starts a new worker); a failing segment is retried and then reported with
its frames; the progress bar reports frames per second; the segments are
spread evenly over the GPU workers (equal frames on each); the next
segment starts on a worker whose segment is about to end; two worker
processes on a `dask scheduler`, as two hosts would run them (one
`fssim-farm worker`, one plain `dask worker` given fssim's resources),
each with its own GPU indices, score a title through --scheduler; a
cluster whose workers lack fssim's resources is refused within seconds;
the Python API runs on a Client it is given.
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

    # 4. several hosts' set-up, on this one: `dask scheduler` and two
    # worker processes with their own GPU indices, the client by --scheduler
    multi_host(tap, d, ref, dists, whole)

    # 5. placement: segments spread evenly over the GPU workers; the next
    # segment placed where one is about to end; the API on a given Client
    placement(tap, d, ref, dists, whole)
    prestart(tap)

    # 6. the progress bar's arithmetic
    bar = Progress(stream=open(os.devnull, "w"))
    bar.add("a", 100)
    bar.add("b", 50)
    bar.add("c", 30)
    bar.event((0, {"job": "a", "frames": 40}))
    bar.done("b")
    bar.fail("c")
    tap.ok(bar.scored() == 90 and bar.failed == {"c"},
           "progress: frames of running and finished segments add up, a failed one's not")
    tap.done()


def placement(tap, d, ref, dists, whole):
    """Four GPU workers (in this process) of 3 slots: 4 segments go one to
    each (Dask's resources would let one worker take three), the log is
    the whole run's; fssim_farm.score runs on the Client it is given and
    leaves it open."""
    import json
    from distributed import Client
    import fssim_farm
    from fssim_farm.runner import local_cluster
    from fssim_farm.title import Title, run_titles
    out = os.path.join(d, "placed.json")
    with local_cluster(gpus=[0, 1, 2, 3], slots=3, processes=False) as cluster, \
            Client(cluster) as client:
        t = Title(ref, dists, out, "fssim", OPTS, 24, ffmpeg=ft.FFMPEG, ffprobe=ft.FFPROBE)
        s = run_titles([t], client)[0]
        per = s.get("frames_per_worker", {})
        tap.ok(s["status"] == "ok" and sorted(per.values()) == [24, 24, 24, 24] and
               sorted(per) == ["gpu0", "gpu1", "gpu2", "gpu3"],
               "4 segments on 4 GPU workers of 3 slots: one each", s)
        if s["status"] == "ok":
            fm.same_log(tap, "placed", out, whole, relocate=True)
        out2 = os.path.join(d, "api_client.json")
        try:
            s2 = fssim_farm.score(ref, dists, out2, options=OPTS, client=client,
                                  ffmpeg=ft.FFMPEG, segment_frames=32, progress=False)
            ok = s2["status"] == "ok" and client.status == "running"
        except fssim_farm.FarmError as e:
            ok, s2 = False, str(e)
        tap.ok(ok, "fssim_farm.score(client=...): scored on the given Client, left open", s2)
        if ok:
            fm.same_log(tap, "API on a given Client", out2, whole, relocate=True)
            tap.ok("whole_run_command" in s2 and json.dumps(out2)[1:-1] in
                   s2["whole_run_command"],
                   "the summary says the whole run whose log the merged log equals",
                   s2.get("whole_run_command"))


def prestart(tap):
    """A lane full with a segment that will end within its start-up time
    takes the next segment (its ffmpeg starts while the last one ends);
    with --no-prestart it does not."""
    from fssim_farm import schedule
    for on in (True, False):
        sched = schedule.Scheduler(None, prestart=on)
        lane = schedule.Lane("w1", "gpu0", {"fssim_slot": 2, "fssim_streams": 17})
        sched.lanes = {"w1": lane}
        job = {"id": "t#0", "title_index": 0, "frames": 1000, "nb_inputs": 7, "streams": 7}
        r = schedule._Run(job, "w1", None)
        sched.runs["t#0"] = r
        lane.running.add("t#0")
        nxt = {"id": "t#1", "title_index": 0, "frames": 1000, "nb_inputs": 7, "streams": 7}
        before = sched._pick(nxt)
        t0 = time.time()
        sched.events.extend([(t0, {"job": "t#0", "start": True})])
        sched._take_events()
        r.t_start = t0 - 3.0
        sched.events.append((t0, {"job": "t#0", "frames": 100}))
        sched._take_events()
        r.t_first -= 8.0            # 100 frames/s from here
        sched.events.append((t0, {"job": "t#0", "frames": 900}))
        sched._take_events()
        after = sched._pick(nxt)
        want = lane if on else None
        tap.ok(before is None and after is want,
               "a segment 1 s from its end (start-up 3 s): the next one %s" % (
                   "starts on its lane" if on else "waits (--no-prestart)"),
               (before, after, r.rate, r.ending))
        sched.close()


def _scheduler(d, name, env):
    import json
    import subprocess
    import sys
    sfile = os.path.join(d, name + ".json")
    if os.path.exists(sfile):
        os.unlink(sfile)
    sched = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                              "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                              "--scheduler-file", sfile], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            return sched, json.load(open(sfile))["address"]
        except (OSError, ValueError, KeyError):
            time.sleep(0.2)
    return sched, None


def _stop(procs):
    import subprocess
    for proc in procs:
        if proc:
            proc.terminate()
    for proc in procs:
        if proc:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()


def multi_host(tap, d, ref, dists, whole):
    """doc/farm.md's several hosts, on this one: a `dask scheduler`, and two
    worker processes as two hosts would start them, each with its own GPU
    indices (fake: the CPU filter scores): `fssim-farm worker ADDR --gpus
    0,1` and a plain `dask worker` given fssim's resources and
    FSSIM_FARM_GPU=2.  Then a cluster with a plain `dask worker` alone."""
    import json
    import subprocess
    import sys
    env = fm.farm_env()
    env["DASK_LOGGING__DISTRIBUTED"] = "error"
    sched, addr = _scheduler(d, "scheduler", env)
    procs = [sched]
    try:
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "fssim_farm", "worker", addr, "--gpus", "0,1", "--slots", "1",
             "--name", "hostA"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        env_b = dict(env, FSSIM_FARM_GPU="2")
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", addr, "--nthreads", "2",
             "--nworkers", "1", "--resources", "fssim_slot=2,fssim_streams=17",
             "--name", "hostB-gpu2", "--no-dashboard"], env=env_b,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _wait_workers(addr, 3)
        out = os.path.join(d, "multi.json")
        p = fm.fssim_farm("score", "--scheduler", addr, "--reference", ref, *dists, "-o", out,
                          "--options", OPTS, "--segment-frames", "16", "--ffmpeg", ft.FFMPEG,
                          "--ffprobe", ft.FFPROBE, "--no-progress", "--json", timeout=300)
        try:
            s = json.loads(p.stdout)
        except ValueError:
            s = {}
        per = s.get("frames_per_worker", {})
        if tap.ok(p.returncode == 0, "dask scheduler + `fssim-farm worker --gpus 0,1` + `dask "
                  "worker --resources` (FSSIM_FARM_GPU=2), the client by --scheduler: exit 0",
                  p.stderr[-2000:]):
            fm.same_log(tap, "several hosts' set-up", out, whole, relocate=True)
        tap.ok(set(per) == {"hostA-gpu0", "hostA-gpu1", "hostB-gpu2"} and
               sum(per.values()) == 96,
               "the segments ran on both worker processes, each of their GPUs", per)
    finally:
        _stop(procs[::-1])

    sched, addr = _scheduler(d, "scheduler_plain", env)
    procs = [sched]
    try:
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", addr, "--nthreads", "1",
             "--no-dashboard"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _wait_workers(addr, 1)
        t0 = time.time()
        p = fm.fssim_farm("score", "--scheduler", addr, "--reference", ref, *dists, "-o",
                          os.path.join(d, "plain.json"), "--options", OPTS, "--ffmpeg",
                          ft.FFMPEG, "--no-progress", timeout=120)
        took = time.time() - t0
        tap.ok(p.returncode == 1 and "none started for fssim-farm" in p.stderr and
               "fssim-farm worker" in p.stderr and took < 60 and "Traceback" not in p.stderr,
               "a plain `dask worker` without fssim's resources: refused in %.1f s, the fix "
               "named" % took, p.stderr[-1500:])
    finally:
        _stop(procs[::-1])


def _wait_workers(addr, n, timeout=120):
    from distributed import Client
    with Client(addr, timeout=60) as c:
        c.wait_for_workers(n, timeout=timeout)


if __name__ == "__main__":
    main()
