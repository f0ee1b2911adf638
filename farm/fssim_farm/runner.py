"""Scoring titles in segments on a Dask cluster, one worker per GPU.

Dask distributed does the farming: placing tasks on workers, retrying a
failed task, rescheduling the tasks of a worker that died, and the
deployments (one host: a cluster made here; several: `dask scheduler` and
`fssim-farm worker`; Kubernetes and HPC: Dask's own deployers).  Each task
runs one ffmpeg process for one segment on its worker's GPU and leaves a
complete segment log in the title's work folder, or nothing.

A worker's GPU is the environment variable FSSIM_FARM_GPU of its process
(set by the cluster made here and by `fssim-farm worker`); a worker runs
`slots` segments at once (its threads), since one ffmpeg process leaves
most of a GPU's decoders idle.
"""
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid

from . import logs, segments
from .errors import LogError, ScoreError

PROGRESS_TOPIC = "fssim-farm-progress"
DEFAULT_SLOTS = None        # chosen per title: GPU_STREAMS below
DEFAULT_RETRIES = 2
GPU_ENV = "FSSIM_FARM_GPU"
RESOURCE = "fssim_slot"
# Every segment asks for one fssim_slot and for as many fssim_streams as it
# decodes.  A GPU worker runs several segments at once, so that one
# segment's start overlaps the others' decoding: as many as keep GPU_STREAMS
# streams decoding (three 7-stream ladders, ten pairs), at most MAX_SEGMENTS.
# --slots N instead runs N segments at once whatever they decode.
STREAMS = "fssim_streams"
GPU_STREAMS = 21
MAX_SEGMENTS = 16
MAX_INPUTS = 17             # the filters' limit
CPU_SLOTS = 3


def worker_capacity(slots, gpu):
    """(threads, resources) of a worker: `slots` segments at once if given,
    else as many as decode GPU_STREAMS streams (a GPU worker) or CPU_SLOTS
    (a CPU worker)."""
    if slots:
        return slots, {RESOURCE: slots, STREAMS: slots * MAX_INPUTS}
    if gpu:
        return MAX_SEGMENTS, {RESOURCE: MAX_SEGMENTS, STREAMS: GPU_STREAMS}
    return CPU_SLOTS, {RESOURCE: CPU_SLOTS, STREAMS: CPU_SLOTS * MAX_INPUTS}


def segment_resources(nb_inputs):
    """What one segment of a title with nb_inputs inputs asks of a worker."""
    return {RESOURCE: 1, STREAMS: min(nb_inputs, GPU_STREAMS)}


# ---------------------------------------------------------------------------
# The task: one segment, run on a worker
# ---------------------------------------------------------------------------

def worker_gpu():
    """The GPU of the worker running this task (None: a CPU worker)."""
    g = os.environ.get(GPU_ENV, "")
    return int(g) if g.strip().isdigit() else None


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
        log = logs.read_log(path)
    except LogError:
        return False
    return (log.complete is True and log.schema_version in logs.SCHEMA_VERSIONS and
            log.option("title") == title and
            log.seg_range() == (seg["start"], seg["end"]) and
            int(log.option("seg_base")) == seg["base"])


def _publish(job, frames):
    try:
        from distributed import get_worker
        get_worker().log_event(PROGRESS_TOPIC, {"job": job, "frames": frames})
    except (ImportError, ValueError):
        pass


def run_segment(job):
    """Score one segment (a dict made by Title.jobs()); return its log path
    and figures.  The log is written under a temporary name and renamed
    once ffmpeg has exited cleanly with a complete log, so that a killed
    run never leaves a file that looks finished."""
    seg = job["segment"]
    final = job["log"]
    if is_finished(final, job["title"], seg):
        return {"log": final, "frames": 0, "wall": 0.0, "skipped": True,
                "host": socket.gethostname(), "gpu": worker_gpu()}
    tmp = "%s.%s.part" % (final, uuid.uuid4().hex[:8])
    gpu = worker_gpu()
    probe_ = segments.Probe.from_json(job["probe"]) if job.get("probe") else None
    s = segments.Segment(seg["index"], seg["start"], seg["end"], seg["base"])
    cmd = segments.command(job["ffmpeg"], job["filter"], job["reference"], job["dists"],
                           job["options"], tmp, job["log_fmt"], job["title"], s, probe_,
                           job.get("hwaccel"), gpu, vulkan_from_cuda=job.get("vulkan_from_cuda"),
                           upload=job.get("upload"), starts=job.get("starts"))
    t0 = time.time()
    kw = {"preexec_fn": _die_with_parent} if sys.platform.startswith("linux") else {}
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    err = []
    t_err = threading.Thread(target=lambda: err.extend(p.stderr), daemon=True)
    t_err.start()
    skip = max(0, seg["start"] - seg["base"])
    last = 0.0
    for line in p.stdout:
        if line.startswith("frame="):
            now = time.time()
            if now - last >= 0.5:
                last = now
                _publish(job["id"], max(0, int(line[6:].strip() or 0) - skip))
    rc = p.wait()
    t_err.join()
    wall = time.time() - t0
    try:
        if rc != 0:
            raise ScoreError("segment %s of %s (frames %d-%d) on %s gpu %s: ffmpeg exit %d: %s" % (
                seg["index"], job["name"], seg["start"], seg["end"] - 1, socket.gethostname(),
                gpu, rc, "".join(err).strip()[-1500:]))
        log = logs.read_log(tmp)
        if log.complete is not True:
            raise ScoreError("segment %s of %s (frames %d-%d): the log is not complete" % (
                seg["index"], job["name"], seg["start"], seg["end"] - 1))
        os.replace(tmp, final)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    _publish(job["id"], seg["end"] - seg["start"])
    return {"log": final, "frames": len(log.frames), "wall": wall, "skipped": False,
            "host": socket.gethostname(), "gpu": gpu}


# ---------------------------------------------------------------------------
# Clusters
# ---------------------------------------------------------------------------

def quiet_dask():
    """Dask's INFO lines (workers starting and stopping) off stderr, where
    the progress bar and the errors are: in this process, and through the
    environment in the worker processes it starts."""
    import logging
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "error")
    logging.getLogger("distributed").setLevel(logging.ERROR)


def local_cluster(gpus=None, workers=None, slots=DEFAULT_SLOTS, processes=True):
    """A cluster on this host: one worker per GPU (FSSIM_FARM_GPU set), or
    `workers` CPU workers when no GPUs are given; each runs `slots`
    segments at once (None: worker_capacity's choice).  Workers are processes with a nanny, so a worker
    that dies is restarted and its segments rescheduled."""
    quiet_dask()
    from distributed import Nanny, Scheduler, SpecCluster, Worker
    names = ["gpu%d" % g for g in gpus] if gpus else ["cpu%d" % i for i in range(workers or 1)]
    envs = [{GPU_ENV: str(g)} for g in gpus] if gpus else [{GPU_ENV: ""} for _ in names]
    spec = {}
    for name, env in zip(names, envs):
        threads, res = worker_capacity(slots, bool(gpus))
        opts = {"nthreads": threads, "resources": res, "name": name, "dashboard": False}
        if processes:
            opts["env"] = env
        spec[name] = {"cls": Nanny if processes else Worker, "options": opts}
    sched = {"cls": Scheduler, "options": {"dashboard_address": None}}
    return SpecCluster(workers=spec, scheduler=sched, silence_logs=40)


def worker_main(scheduler, gpus, slots=DEFAULT_SLOTS, name=None):
    """fssim-farm worker: this host's workers, one per GPU, for a running
    `dask scheduler` (the multi-host deployment).  Blocks until they end."""
    import asyncio
    from distributed import Nanny

    host = name or socket.gethostname()

    async def run():
        nannies = []
        for g in gpus or [None]:
            threads, res = worker_capacity(slots, g is not None)
            nannies.append(Nanny(scheduler, nthreads=threads, resources=res,
                                 name="%s-%s" % (host, "gpu%d" % g if g is not None else "cpu"),
                                 env={GPU_ENV: "" if g is None else str(g)}))
        await asyncio.gather(*nannies)
        await asyncio.gather(*(n.finished() for n in nannies))

    asyncio.run(run())
