"""The client's side: which worker scores which segment, and when.

Dask's resources say where a task may run, not how a title's segments
should spread: given all at once, the segments of a title pile up on the
workers the scheduler happens to pick (on four GPUs, 8 segments of 1500
frames left whole GPUs idle).  So the client places them itself:

- **Lanes.** Each fssim-farm worker (a Dask worker with the resource
  fssim_slot) is a lane that scores `capacity` segments at once
  (runner.capacity: its stream budget over the title's inputs; `--slots`).
- **Equal shares.** A title's segments are sized from its length and the
  lanes' total capacity S (plan_count): S segments of equal length, or a
  multiple of S where a title is long (at most MAX_SEGMENT_FRAMES each),
  so that every slot gets the same share and none waits at the end.
- **Placement.** The next segment goes to the lane with the lowest load
  (segments running over capacity), round robin among equals, with a
  worker restriction that Dask relaxes only when that worker is gone.
- **Starting early.** A segment that will end within its run's start-up
  time (measured: from the task's start to its first frame) no longer
  counts against its lane, so the next segment's ffmpeg starts while it
  ends and the GPU does not wait for seven decoders to open.
- **Retries.** A failed segment is run again (`retries` times), on
  another lane where there is one, unless its failure cannot change (a
  missing filter, option, decoder or input: runner.is_final) or the
  title's one-frame check failed: then its title stops at once.

Finished segment logs are read and checked as they come (a thread), so
that merging a title of hours is little more than pooling and writing.
"""
import collections
import math
import os
import threading
import time

from . import columns, merge
from .errors import FarmError
from .runner import (GPU_STREAMS, MAX_INPUTS, RESOURCE, STREAMS, SegmentFailed, capacity,
                     probe_run, run_segment, segment_resources)

# a title's segments: at least this many frames (a shorter one spends more
# on its ffmpeg's start than on scoring), at most this many (a lost run
# costs little, a resumed title keeps most of its work)
MIN_SEGMENT_FRAMES = 240
MAX_SEGMENT_FRAMES = 7200
# a run's start-up (seven decoders, a CUDA context) until it is measured
DEFAULT_START_S = 2.0
# workers to wait for (seconds) before a run with a scheduler gives up
WORKER_WAIT_S = 30.0


def plan_count(nb_frames, slots, min_frames=MIN_SEGMENT_FRAMES,
               max_frames=MAX_SEGMENT_FRAMES):
    """How many segments a title of nb_frames frames is cut into for
    `slots` segments at once: a multiple of slots (equal shares, no slot
    idle at the end), each at most max_frames long; fewer where segments
    would be shorter than min_frames."""
    if nb_frames <= min_frames or slots <= 0:
        return 1
    waves = max(1, math.ceil(nb_frames / (slots * max_frames)))
    return max(1, min(slots * waves, nb_frames // min_frames))


class Lane:
    """One worker: where its segments run, and how many at once."""

    def __init__(self, addr, name, resources):
        self.addr, self.name, self.resources = addr, name, dict(resources)
        self.running = set()          # job ids

    def capacity(self, nb_inputs):
        return capacity(self.resources, nb_inputs)

    def streams(self):
        return int(self.resources.get(STREAMS, self.slots() * MAX_INPUTS))

    def slots(self):
        """Segments at once, whatever they decode (half fssim_slot: the
        other half is for runs starting while others end)."""
        return int(self.resources.get(RESOURCE, 0)) // 2


def fssim_workers(client):
    """{address: Lane} of the cluster's fssim-farm workers, and the number
    of other workers."""
    info = client.scheduler_info(n_workers=-1)["workers"]
    lanes, others = {}, 0
    for addr, w in info.items():
        res = w.get("resources") or {}
        if res.get(RESOURCE, 0) > 0:
            lanes[addr] = Lane(addr, w.get("name", addr), res)
        else:
            others += 1
    return lanes, others


def wait_for_lanes(client, timeout=WORKER_WAIT_S, where="the cluster"):
    """The fssim-farm workers of a cluster, once there is one; FarmError
    within seconds when the cluster's workers are not fssim-farm's, or
    after `timeout` s without any worker."""
    t0 = time.time()
    while True:
        lanes, others = fssim_workers(client)
        if lanes:
            return lanes
        if others:
            # a plain worker is there: give fssim-farm workers starting at
            # the same time a moment, then refuse
            if time.time() - t0 > 3.0:
                raise FarmError(
                    "%s has %d worker%s but none started for fssim-farm (no %s resource): "
                    "start them with `fssim-farm worker ADDRESS --gpus 0,1,...`, or `dask "
                    "worker ADDRESS --nthreads 32 --resources \"%s=32,%s=%d\"` with "
                    "FSSIM_FARM_GPU=N in its environment" % (
                        where, others, "" if others == 1 else "s", RESOURCE, RESOURCE,
                        STREAMS, GPU_STREAMS))
        elif time.time() - t0 > timeout:
            raise FarmError("%s has no worker after %.0f s: start `fssim-farm worker "
                            "ADDRESS --gpus ...` on the GPU hosts" % (where, timeout))
        time.sleep(0.2)


class _Run:
    """A segment's task: where it runs, and how far it is."""

    def __init__(self, job, lane, future):
        self.job, self.lane, self.future = job, lane, future
        self.t_start = None           # the worker started it
        self.t_first = None           # its first frames came
        self.f_first = 0
        self.frames = 0
        self.rate = None              # frames per second
        self.ending = False


class TitleState:
    """A title's progress through the scheduler."""

    def __init__(self, index, title):
        self.index, self.title = index, title
        self.pending = 0
        self.error = None
        self.run = self.skipped = 0
        self.reads = []               # futures of columns.Columns, in segment order
        self.probe = None             # the one-frame check's future
        self.probe_ok = False
        self.t0 = getattr(title, "t_created", time.time())
        self.t_first_submit = None
        self.t_scored = None
        self.merge = None             # the merge's future
        self.summary = None
        self.workers = collections.Counter()


class Scheduler:
    """Runs the segments of titles on a Dask client (see the module's
    docstring); progress: a progress.Progress or None."""

    def __init__(self, client, retries=2, progress=None, prestart=True, readers=None):
        import concurrent.futures
        self.client = client
        self.retries = retries
        self.progress = progress
        self.prestart = prestart
        self.lanes = {}
        self.pending = collections.deque()
        self.runs = {}                # job id -> _Run
        self.attempts = collections.Counter()
        self.avoid = {}               # job id -> lane address that failed it
        self.wake = threading.Event()
        self.events = collections.deque()
        self.start_s = {}             # title index -> measured start-up (s)
        # the merges wait in threads; the segment logs are read in
        # processes where the host has cores to spare (a last round of
        # segments ends at once: their logs are read side by side)
        self.pool = concurrent.futures.ThreadPoolExecutor(2)
        self.readers = _reader_pool(readers)
        self.rr = 0
        self.seq = 0
        self.titles = []

    # -- lanes ---------------------------------------------------------------

    def refresh(self):
        lanes, _ = fssim_workers(self.client)
        for addr, lane in lanes.items():
            if addr in self.lanes:
                lane.running = self.lanes[addr].running
        self.lanes = lanes

    def slots_for(self, nb_inputs):
        return sum(lane.capacity(nb_inputs) for lane in self.lanes.values())

    # -- events from the workers ---------------------------------------------

    def event(self, ev):
        """Handler of the progress topic: (time, {"job", "frames"[, "start"]}).
        Runs in the client's event loop: it only queues the message (the
        loop must never wait for the thread that calls the client)."""
        msg = ev[1] if isinstance(ev, tuple) else ev
        if not isinstance(msg, dict) or "job" not in msg:
            return
        if self.progress:
            self.progress.event(ev)
        self.events.append((time.time(), msg))
        self.wake.set()

    def _take_events(self):
        while self.events:
            now, msg = self.events.popleft()
            r = self.runs.get(msg["job"])
            if r is None:
                continue
            if msg.get("start"):
                r.t_start = now
                continue
            r.frames = msg["frames"]
            if r.frames > 0 and r.t_first is None:
                r.t_first, r.f_first = now, r.frames
                if r.t_start is not None:
                    ti = r.job["title_index"]
                    was = self.start_s.get(ti)
                    took = now - r.t_start
                    self.start_s[ti] = took if was is None else 0.7 * was + 0.3 * took
            elif r.t_first is not None and now > r.t_first + 0.5:
                r.rate = (r.frames - r.f_first) / (now - r.t_first)
            if self.prestart and not r.ending and r.rate:
                left = (r.job["frames"] - r.frames) / r.rate if r.rate > 0 else math.inf
                lead = 1.5 * self.start_s.get(r.job["title_index"], DEFAULT_START_S)
                if left <= lead:
                    r.ending = True

    # -- placing -------------------------------------------------------------

    def _load(self, lane):
        """(segments counted against the lane, streams they decode)."""
        n = streams = 0
        for jid in lane.running:
            r = self.runs.get(jid)
            if r is not None and not r.ending:
                n += 1
                streams += r.job["streams"]
        return n, streams

    def _pick(self, job):
        """The lane for a job: free for it, lowest load first, round robin
        among equals; None when every lane is full."""
        best, best_key = None, None
        addrs = sorted(self.lanes)
        for i in range(len(addrs)):
            lane = self.lanes[addrs[(self.rr + i) % len(addrs)]]
            cap = lane.capacity(job["nb_inputs"])
            n, streams = self._load(lane)
            # the segments it takes at once, and the streams its decoders
            # take at once (titles of other ladders share them)
            if n >= max(1, lane.slots()) or (n and streams + job["streams"] > lane.streams()):
                continue
            key = (lane.addr == self.avoid.get(job["id"]), n / cap)
            if best is None or key < best_key:
                best, best_key = lane, key
        if best is not None:
            self.rr += 1
        return best

    def _submit(self, job, lane):
        st = self.titles[job["title_index"]]
        self.seq += 1
        fut = self.client.submit(
            run_segment, job, key="fssim-%s-%d-%d" % (job["key"], job["segment"]["index"],
                                                       self.seq),
            workers=[lane.addr], allow_other_workers=True, pure=False,
            resources=segment_resources(job["nb_inputs"]))
        r = _Run(job, lane.addr, fut)
        self.runs[job["id"]] = r
        lane.running.add(job["id"])
        if st.t_first_submit is None:
            st.t_first_submit = time.time()
        fut.add_done_callback(lambda f: self.wake.set())

    def fill(self):
        while self.pending:
            job = self.pending[0]
            st = self.titles[job["title_index"]]
            if st.error:
                self.pending.popleft()
                continue
            lane = self._pick(job)
            if lane is None:
                return
            self.pending.popleft()
            self._submit(job, lane)

    # -- results -------------------------------------------------------------

    def _fail_title(self, st, msg):
        if st.error:
            return
        st.error = msg
        cancel = [r.future for r in self.runs.values() if r.job["title_index"] == st.index]
        if st.probe is not None and not st.probe.done():
            cancel.append(st.probe)
        if cancel:
            self.client.cancel(cancel)
        for r in list(self.runs.values()):
            if r.job["title_index"] == st.index:
                self._drop(r)
                if self.progress:
                    self.progress.fail(r.job["id"])
        for j in [j for j in self.pending if j["title_index"] == st.index]:
            if self.progress:
                self.progress.fail(j["id"])

    def _drop(self, r):
        self.runs.pop(r.job["id"], None)
        for lane in self.lanes.values():
            lane.running.discard(r.job["id"])

    def _done(self, r):
        job = r.job
        st = self.titles[job["title_index"]]
        self._drop(r)
        fut = r.future
        if fut.status == "cancelled" or st.error:
            return
        if fut.status == "finished":
            res = fut.result()
            st.pending -= 1
            st.run += 0 if res.get("skipped") else 1
            st.skipped += 1 if res.get("skipped") else 0
            st.workers[res.get("worker") or res.get("host")] += job["frames"]
            st.reads[job["segment"]["index"]] = self.readers.submit(_read_checked, job["log"])
            if self.progress:
                self.progress.done(job["id"])
            return
        exc = fut.exception()
        final = isinstance(exc, SegmentFailed) and exc.final
        msg = str(exc) if isinstance(exc, FarmError) else \
            "segment %d of %s (frames %d-%d): %s: %s" % (
                job["segment"]["index"], job["name"], job["segment"]["start"],
                job["segment"]["end"] - 1, type(exc).__name__, exc)
        self.attempts[job["id"]] += 1
        if final or self.attempts[job["id"]] > self.retries:
            if not final and self.retries:
                msg += " (failed %d times)" % self.attempts[job["id"]]
            if self.progress:
                self.progress.fail(job["id"])
            self._fail_title(st, msg)
            return
        self.avoid[job["id"]] = r.lane
        if self.progress:
            self.progress.update(job["id"], 0)
        self.pending.appendleft(job)

    def _probe_done(self, st):
        fut = st.probe
        if fut.status == "finished":
            st.probe_ok = True
        elif fut.status == "error" and st.pending > 0:
            exc = fut.exception()
            self._fail_title(st, str(exc) if isinstance(exc, FarmError) else
                             "%s: the one-frame check failed: %s: %s" % (
                                 st.title.name, type(exc).__name__, exc))

    # -- the loop ------------------------------------------------------------

    def add_title(self, st, jobs, finished_logs):
        """Queue a title's jobs (and read its already finished logs)."""
        self.titles.append(st)
        st.reads = [None] * len(st.title.segments)
        for j in jobs:
            if j["log"] in finished_logs:
                st.skipped += 1
                st.reads[j["segment"]["index"]] = self.readers.submit(_read_checked, j["log"])
                continue
            st.pending += 1
            self.pending.append(j)
            if self.progress:
                self.progress.add(j["id"], j["frames"])
        if st.pending and jobs:
            lane = sorted(self.lanes.values(), key=lambda l: l.addr)[0]
            self.seq += 1
            st.probe = self.client.submit(
                probe_run, jobs[0], key="fssim-check-%s-%d" % (jobs[0]["key"], self.seq),
                workers=[lane.addr], allow_other_workers=True, pure=False,
                resources=segment_resources(jobs[0]["nb_inputs"]), priority=10)
            st.probe.add_done_callback(lambda f: self.wake.set())

    def run(self, on_title_done):
        """Until every title is scored (or failed); on_title_done(st) once a
        title's segments are all in (the merge, in a thread)."""
        last_refresh = 0.0
        started = set()
        lost = None
        while True:
            now = time.time()
            if now - last_refresh > 1.0:
                self.refresh()
                last_refresh = now
                # every fssim-farm worker gone (a remote cluster lost): the
                # titles fail once none came back in WORKER_WAIT_S
                lost = None if self.lanes else (lost or now)
                if lost and now - lost > WORKER_WAIT_S:
                    for st in [st for st in self.titles if st.pending > 0]:
                        self._fail_title(st, "%s: the cluster has had no fssim-farm worker "
                                         "for %.0f s" % (st.title.name, now - lost))
                    for r in list(self.runs.values()):
                        self._drop(r)
                    self.pending.clear()
            self.fill()
            self.wake.wait(0.25)
            self.wake.clear()
            self._take_events()
            for r in [r for r in self.runs.values() if r.future.done()]:
                self._done(r)
            for st in self.titles:
                if st.probe is not None and st.probe.done() and not st.probe_ok and \
                        not st.error:
                    self._probe_done(st)
            busy = False
            for st in self.titles:
                if st.index in started:
                    continue
                if st.error or st.pending == 0:
                    started.add(st.index)
                    st.t_scored = time.time()
                    on_title_done(st)
                else:
                    busy = True
            if not busy and not self.runs and not self.pending:
                return

    def close(self):
        self.pool.shutdown(wait=True)
        self.readers.shutdown(wait=True)


def _reader_pool(n=None):
    """Where finished segment logs are read: processes (spawned: the
    client runs threads) on a host with cores to spare, else a thread."""
    import concurrent.futures
    import multiprocessing
    if n is None:
        n = min(8, (os.cpu_count() or 1) // 4)
    if n >= 2:
        try:
            return concurrent.futures.ProcessPoolExecutor(
                n, mp_context=multiprocessing.get_context("spawn"))
        except (OSError, ValueError):
            pass
    return concurrent.futures.ThreadPoolExecutor(1)


def _read_checked(path):
    """A finished segment log as columns, its own pooled values checked
    (merge.pool_columns keeps the sorted values for the title's pooling)."""
    c = columns.read(path)
    pools, counts = merge.pool_columns(c, keep_sorted=True)
    merge._compare_pooled(c, pools, counts)
    return c


def job_streams(nb_inputs):
    return min(nb_inputs, GPU_STREAMS)


def finished_in(workdir):
    """The segment logs already in a work folder."""
    try:
        return {os.path.join(workdir, f) for f in os.listdir(workdir)
                if f.startswith("seg_") and not f.endswith(".part")}
    except OSError:
        return set()
