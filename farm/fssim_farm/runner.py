"""The workers' side of scoring in segments, and the clusters they run in.

Dask distributed does the farming: running tasks on workers, rescheduling
the tasks of a worker that died, and the deployments (one host: a cluster
made here; several: `dask scheduler` and `fssim-farm worker`; Kubernetes
and HPC: Dask's own deployers).  Each task runs one ffmpeg process for one
segment on its worker's GPU and leaves a complete segment log in the
title's work folder, or nothing.  Which worker runs which segment, and
when, is the client's choice (schedule.py).

A worker's GPU is the environment variable FSSIM_FARM_GPU of its process
(set by the cluster made here and by `fssim-farm worker`; for a worker in
the client's process, the number at the end of its name, gpuN).  A worker
declares what it can run as Dask resources: `fssim_slot`, the segment runs
it takes at once (twice the segments it scores at once, so that the next
segment's ffmpeg can start before the last one ends), and `fssim_streams`,
the input streams its GPU decodes at once (GPU_STREAMS: three 7-stream
ladders, ten pairs).
"""
import ctypes
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid

from . import columns, logs, segments
from .errors import LogError, ScoreError

PROGRESS_TOPIC = "fssim-farm-progress"
DEFAULT_SLOTS = None        # chosen per title: capacity() below
DEFAULT_RETRIES = 2
GPU_ENV = "FSSIM_FARM_GPU"
RESOURCE = "fssim_slot"
STREAMS = "fssim_streams"
GPU_STREAMS = 21
MAX_SEGMENTS = 16
MAX_INPUTS = 17             # the filters' limit
CPU_SLOTS = 3


class SegmentFailed(ScoreError):
    """A segment's run failed; final: it cannot succeed when run again
    (the filter, an option, a decoder or an input is missing), so it is
    not retried."""

    def __init__(self, message, final=False):
        super().__init__(message, final)
        self.final = final

    def __str__(self):
        return self.args[0]


def worker_capacity(slots, gpu):
    """(threads, resources) of a worker: `slots` segments at once if given,
    else as many as decode GPU_STREAMS streams (a GPU worker, at most
    MAX_SEGMENTS) or CPU_SLOTS (a CPU worker).  fssim_slot is twice that:
    room for the next segments' runs starting while the last ones end."""
    if slots:
        return 2 * slots, {RESOURCE: 2 * slots, STREAMS: slots * MAX_INPUTS}
    if gpu:
        return 2 * MAX_SEGMENTS, {RESOURCE: 2 * MAX_SEGMENTS, STREAMS: GPU_STREAMS}
    return 2 * CPU_SLOTS, {RESOURCE: 2 * CPU_SLOTS, STREAMS: CPU_SLOTS * MAX_INPUTS}


def capacity(resources, nb_inputs):
    """The segments of a title with nb_inputs inputs that a worker with
    these resources scores at once (0: not an fssim-farm worker)."""
    slot = int(resources.get(RESOURCE, 0))
    if slot <= 0:
        return 0
    streams = int(resources.get(STREAMS, slot * MAX_INPUTS))
    return max(1, min(max(1, slot // 2), streams // max(1, min(nb_inputs, GPU_STREAMS))))


def segment_resources(nb_inputs):
    """What one segment's run asks of a worker (Dask's restriction: only
    fssim-farm workers run it)."""
    return {RESOURCE: 1}


# ---------------------------------------------------------------------------
# The tasks: one segment, or the one-frame check of a title, run on a worker
# ---------------------------------------------------------------------------

def worker_gpu():
    """The GPU of the worker running this task (None: a CPU worker)."""
    g = os.environ.get(GPU_ENV, "")
    if g.strip().isdigit():
        return int(g)
    try:
        from distributed import get_worker
        m = re.search(r"gpu(\d+)$", str(get_worker().name))
        return int(m.group(1)) if m else None
    except (ImportError, ValueError):
        return None


def _die_with_parent():
    """In the ffmpeg child: a SIGKILL when the worker that started it dies,
    so that a lost worker leaves no orphan holding a GPU and writing logs."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)    # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def is_finished(path, title, seg):
    """A segment log that needs no new run: complete, valid, and scored for
    this title and this segment (its options are checked by the caller's
    file name, which carries a digest of them)."""
    if not os.path.exists(path):
        return False
    try:
        log = columns.read(path, values=False)
    except (LogError, ValueError, KeyError):
        return False
    return (log.complete is True and log.schema_version in logs.SCHEMA_VERSIONS and
            log.option("title") == title and
            log.seg_range() == (seg["start"], seg["end"]) and
            int(log.option("seg_base")) == seg["base"] and
            int(log.option("seg_total")) == (seg.get("total") if seg.get("total") is not None
                                             else -1))


def _worker_name():
    try:
        from distributed import get_worker
        return str(get_worker().name)
    except (ImportError, ValueError):
        return socket.gethostname()


def _publish(msg):
    try:
        from distributed import get_worker
        get_worker().log_event(PROGRESS_TOPIC, msg)
    except (ImportError, ValueError):
        pass


def _task_cancelled():
    """Whether the client no longer wants the task this thread runs (it
    was cancelled: the title failed, or the client left)."""
    try:
        from distributed import get_worker
        w = get_worker()
        ts = w.state.tasks.get(w.get_current_task())
    except (ImportError, ValueError, AttributeError, KeyError):
        return False
    return ts is None or ts.state in ("cancelled", "released", "forgotten")


# ffmpeg's messages of a run that cannot succeed if run again
_FINAL = ("No such filter", "Option not found", "Error applying option",
          "Unable to parse option", "Decoding requested, but no decoder found",
          "No such file or directory", "Permission denied", "Invalid data found",
          "Cannot load libcuda", "cuInit", "Failed to set value", "Error parsing",
          "Invalid argument")


def is_final(stderr):
    return any(m in stderr for m in _FINAL)


def _command(job, log_path, seg):
    return segments.command(job["ffmpeg"], job["filter"], job["reference"], job["dists"],
                            job["options"], log_path, job["log_fmt"], job["title"], seg,
                            None, job.get("hwaccel"), worker_gpu(),
                            vulkan_from_cuda=job.get("vulkan_from_cuda"),
                            upload=job.get("upload"),
                            starts=job.get("starts") if seg.base > 0 else None)


def _run_ffmpeg(cmd, job, on_frames=None):
    """Runs one ffmpeg; returns (exit status, stderr).  Reads its -progress
    reports (on_frames(frames) at most twice a second) and kills it when
    the task is cancelled."""
    kw = {"preexec_fn": _die_with_parent} if sys.platform.startswith("linux") else {}
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             errors="replace", **kw)
    except OSError as e:
        raise SegmentFailed("%s: cannot run %s on %s: %s" % (
            job["name"], job["ffmpeg"], socket.gethostname(), e.strerror or e), final=True)
    err = []
    t_err = threading.Thread(target=lambda: err.extend(p.stderr), daemon=True)
    t_err.start()
    last = 0.0
    for line in p.stdout:
        now = time.time()
        if now - last >= 0.5:
            last = now
            if _task_cancelled():
                p.kill()
                break
            if on_frames and line.startswith("frame="):
                on_frames(int(line[6:].strip() or 0))
    rc = p.wait()
    t_err.join()
    return rc, "".join(err).strip()


def run_segment(job):
    """Score one segment (a dict made by Title.jobs()); return its log path
    and figures.  The log is written under a temporary name and renamed
    once ffmpeg has exited cleanly with a complete log, so that a killed
    run never leaves a file that looks finished."""
    seg = job["segment"]
    final = job["log"]
    gpu = worker_gpu()
    host = socket.gethostname()
    if is_finished(final, job["title"], seg):
        return {"log": final, "frames": 0, "wall": 0.0, "skipped": True, "host": host,
                "gpu": gpu, "worker": _worker_name()}
    tmp = "%s.%s.part" % (final, uuid.uuid4().hex[:8])
    s = segments.Segment.from_json(seg)
    cmd = _command(job, tmp, s)
    skip = max(0, seg["start"] - seg["base"])
    t0 = time.time()
    _publish({"job": job["id"], "frames": 0, "start": True})
    try:
        rc, err = _run_ffmpeg(cmd, job, lambda n: _publish(
            {"job": job["id"], "frames": max(0, n - skip)}))
        wall = time.time() - t0
        where = "segment %s of %s (frames %d-%d) on %s%s" % (
            seg["index"], job["name"], seg["start"], seg["end"] - 1, host,
            "" if gpu is None else " gpu %d" % gpu)
        if _task_cancelled():
            raise SegmentFailed("%s: cancelled" % where, final=True)
        if rc != 0:
            final = is_final(err)
            raise SegmentFailed("%s: ffmpeg exit %d%s: %s" % (
                where, rc, " (a failure that running it again cannot change)" if final else "",
                _essential(err)), final=final)
        try:
            # the header and the end alone: the client reads the values
            log = columns.read(tmp, values=False)
        except LogError as e:
            raise SegmentFailed("%s: %s" % (where, e))
        if log.complete is not True:
            raise SegmentFailed("%s: the log is not complete (the run ended before the "
                                "segment's last frame: does an input end early?)" % where)
        try:
            os.replace(tmp, final)
        except OSError as e:
            raise SegmentFailed("%s: cannot write %s: %s" % (where, final, e.strerror),
                                final=True)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    _publish({"job": job["id"], "frames": seg["end"] - seg["start"]})
    return {"log": final, "frames": log.frame_count, "wall": wall, "skipped": False,
            "host": host, "gpu": gpu, "worker": _worker_name()}


def probe_run(job):
    """The title's command on one frame, on a worker: its ffmpeg has the
    filter, the options are the filter's, the device opens, every input
    decodes.  SegmentFailed(final) with ffmpeg's message otherwise; the
    scores are not kept."""
    seg = segments.Segment(0, 0, 1, 0, job["segment"].get("total"))
    tmp = os.path.join(os.path.dirname(job["log"]), "check.%s.part" % uuid.uuid4().hex[:8])
    gpu = worker_gpu()
    host = socket.gethostname()
    where = "%s on %s%s" % (job["name"], host, "" if gpu is None else " gpu %d" % gpu)
    try:
        rc, err = _run_ffmpeg(_command(job, tmp, seg), job)
        if rc != 0:
            raise SegmentFailed("%s: the title's ffmpeg command fails on its first frame (a "
                                "failure that running it again cannot change): %s" % (
                                    where, _essential(err)), final=True)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return {"host": host, "gpu": gpu}


def _essential(err):
    """ffmpeg's error lines, without the repeats that follow the first."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    keep = []
    for ln in lines:
        if ln not in keep:
            keep.append(ln)
    return " | ".join(keep)[-1200:] or "no message"


# ---------------------------------------------------------------------------
# Clusters
# ---------------------------------------------------------------------------

def quiet_dask():
    """Dask's INFO lines (workers starting and stopping) off stderr, where
    the progress bar and the errors are: in this process, and through the
    environment in the worker processes it starts."""
    import logging
    # a failed task is reported by the client once, as one sentence: the
    # workers' own "Compute Failed" report with its traceback is not shown
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")
    logging.getLogger("distributed").setLevel(logging.CRITICAL)


def dask_setup(worker):
    """Run in each worker process fssim-farm starts (Dask's preload): an
    interrupt (Ctrl-C in the terminal, which signals every process of the
    group) is the client's to handle, stopping the workers in order; a
    worker process stopped by it would print a traceback of its own."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:
        pass                    # not the main thread: a worker in the client's process


PRELOAD = ["fssim_farm.runner"]


def local_cluster(gpus=None, workers=None, slots=DEFAULT_SLOTS, processes=True,
                  dashboard=False):
    """A cluster on this host: one worker per GPU (FSSIM_FARM_GPU set), or
    `workers` CPU workers when no GPUs are given; each scores `slots`
    segments at once (None: capacity()'s choice per title).  Workers are
    processes with a nanny, so a worker that dies is restarted and its
    segments run again.  dashboard: Dask's dashboard on a free port
    (cluster.dashboard_link; needs bokeh)."""
    quiet_dask()
    if dashboard:
        try:
            import bokeh  # noqa: F401
        except ImportError:
            raise ScoreError("the dashboard needs bokeh: pip install 'bokeh>=3.1' (or "
                             "'./farm[dashboard]')")
    from distributed import Nanny, Scheduler, SpecCluster, Worker
    names = ["gpu%d" % g for g in gpus] if gpus else ["cpu%d" % i for i in range(workers or 1)]
    envs = [{GPU_ENV: str(g)} for g in gpus] if gpus else [{GPU_ENV: ""} for _ in names]
    spec = {}
    for name, env in zip(names, envs):
        threads, res = worker_capacity(slots, bool(gpus))
        opts = {"nthreads": threads, "resources": res, "name": name, "dashboard": False}
        if processes:
            opts["env"] = env
            opts["preload"] = PRELOAD
        spec[name] = {"cls": Nanny if processes else Worker, "options": opts}
    # the scheduler's HTTP server (its dashboard, when asked) on a free port:
    # Dask's default 8787 may be another cluster's, and then it says so
    sched = {"cls": Scheduler, "options": {"dashboard_address": ":0",
                                           "dashboard": bool(dashboard)}}
    return SpecCluster(workers=spec, scheduler=sched, silence_logs=50)


def worker_main(scheduler, gpus, slots=DEFAULT_SLOTS, name=None, ready=None):
    """fssim-farm worker: this host's workers, one per GPU, for a running
    `dask scheduler` (the multi-host deployment).  Blocks until they end;
    ready(names) once they are connected."""
    import asyncio
    from distributed import Nanny

    quiet_dask()
    host = name or socket.gethostname()

    async def run():
        nannies = []
        for g in gpus or [None]:
            threads, res = worker_capacity(slots, g is not None)
            nannies.append(Nanny(scheduler, nthreads=threads, resources=res,
                                 name="%s-%s" % (host, "gpu%d" % g if g is not None else "cpu"),
                                 env={GPU_ENV: "" if g is None else str(g)}, dashboard=False,
                                 silence_logs=50, preload=PRELOAD))
        await asyncio.gather(*nannies)
        if ready:
            ready([n.name for n in nannies])
        await asyncio.gather(*(n.finished() for n in nannies))

    asyncio.run(run())
