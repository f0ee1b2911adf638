"""A title to score: its inputs, its segments, their work folder, its merge.

The work folder lies beside the output (OUTPUT.segments/).  It keeps the
reference's probe and every finished segment log, named by the segment's
frames and a digest of everything that shapes its scores (filter, options,
log format, inputs), so that a run started again -- after the client died,
or with more titles -- scores only the segments that are not finished, and
never takes up a log scored with other options.
"""
import hashlib
import json
import os
import time

from . import logs, merge, segments
from .errors import FarmError


class Title:
    def __init__(self, reference, dists, output, filter_name="fssim", options="",
                 segment_frames=600, name=None, hwaccel=None, ffmpeg="ffmpeg",
                 ffprobe=None, workdir=None, vulkan_from_cuda=False, upload=None):
        if filter_name not in segments.FILTERS:
            raise FarmError("unknown filter %r (one of %s)" % (filter_name,
                                                              ", ".join(segments.FILTERS)))
        if not dists:
            raise FarmError("%s: no rendition to score" % (name or reference))
        if filter_name == "fssim3d" and len(dists) != 1:
            raise FarmError("fssim3d scores one rendition against the reference, not %d"
                            % len(dists))
        self.reference = reference
        self.dists = list(dists)
        self.output = output
        self.filter = filter_name
        self.options = options or ""
        self.segment_frames = segment_frames
        self.name = name or os.path.splitext(os.path.basename(output))[0]
        self.hwaccel = hwaccel or segments.HWACCEL[filter_name]
        self.ffmpeg = ffmpeg
        self.ffprobe = ffprobe or _sibling(ffmpeg, "ffprobe")
        self.log_fmt = "csv" if output.endswith(".csv") else "json"
        self.workdir = workdir or output + ".segments"
        self.vulkan_from_cuda = vulkan_from_cuda
        self.upload = upload
        self.identity = segments.input_identity(self.dists + [self.reference])
        self.probe = None
        self.starts = None
        self.segments = []

    def digest(self):
        key = json.dumps([self.filter, self.options, self.log_fmt, self.hwaccel, self.upload,
                          self.identity, self.dists, self.reference])
        return hashlib.sha256(key.encode()).hexdigest()[:12]

    def key(self):
        """Unique per title and output: the Dask keys of its segments."""
        return hashlib.sha256((self.output + "\n" + self.digest()).encode()).hexdigest()[:16]

    def prepare(self):
        """Probe the reference (once: kept in the work folder) and cut."""
        os.makedirs(self.workdir, exist_ok=True)
        cache = os.path.join(self.workdir, "probe-%s.json" % self.identity)
        if os.path.exists(cache):
            with open(cache) as f:
                self.probe = segments.Probe.from_json(json.load(f))
        else:
            self.probe = segments.probe(self.reference, self.ffprobe)
            tmp = cache + ".tmp"
            with open(tmp, "w") as f:
                json.dump(self.probe.to_json(), f)
            os.replace(tmp, cache)
        ctx = segments.context_frames(self.filter, self.options)
        self.segments = segments.plan(self.probe, self.segment_frames, ctx)
        if any(s.base > 0 for s in self.segments):
            self.starts = self._first_frames()
        return self.segments

    def _first_frames(self):
        """Every input's first_frame_time() (kept in the work folder)."""
        cache = os.path.join(self.workdir, "starts-%s.json" % self.identity)
        if os.path.exists(cache):
            with open(cache) as f:
                return json.load(f)
        starts = [segments.first_frame_time(p, self.ffprobe)
                  for p in self.dists + [self.reference]]
        tmp = cache + ".tmp"
        with open(tmp, "w") as f:
            json.dump(starts, f)
        os.replace(tmp, cache)
        return starts

    def seg_log(self, seg):
        return os.path.join(self.workdir, "seg_%08d_%08d_%s.%s" % (
            seg.start, seg.end, self.digest(), self.log_fmt))

    def jobs(self):
        """One task description per segment (plain data, sent to workers)."""
        probe_json = self.probe.to_json()
        out = []
        for s in self.segments:
            out.append({
                "id": "%s#%d" % (self.name, s.index), "name": self.name,
                "ffmpeg": self.ffmpeg, "filter": self.filter, "options": self.options,
                "reference": self.reference, "dists": self.dists, "log_fmt": self.log_fmt,
                "title": self.identity, "hwaccel": self.hwaccel,
                "vulkan_from_cuda": self.vulkan_from_cuda, "upload": self.upload,
                "segment": {"index": s.index, "start": s.start, "end": s.end, "base": s.base},
                "log": self.seg_log(s),
                "probe": probe_json if s.base > 0 else None,
                "starts": self.starts if s.base > 0 else None,
            })
        return out

    def merge(self, segments_field=True):
        paths = [self.seg_log(s) for s in self.segments]
        return merge.merge_files(paths, self.output, segments_field=segments_field)


def _sibling(ffmpeg, tool):
    """ffprobe beside the given ffmpeg, else on PATH."""
    d = os.path.dirname(ffmpeg)
    cand = os.path.join(d, tool) if d else tool
    return cand if not d or os.path.exists(cand) else tool


def pooled_means(log_path):
    """{rendition: {algo: mean All}} of a merged log, for the summaries."""
    log = logs.read_log(log_path)
    pools, counts = merge.pool_frames(log)
    out = {}
    keys = [r["k"] for r in log.renditions] if log.is_ladder else [None]
    nc = len(log.components)
    for k in keys:
        out[str(k or 1)] = {slot: pools[(k, slot, nc)]["mean"] for slot in log.slots}
    return log, out


def summary(title, status, t0, error=None, segs_run=0, segs_skipped=0):
    d = {"title": title.name, "status": status, "output": title.output,
         "reference": title.reference, "renditions": title.dists,
         "segments": len(title.segments), "segments_scored": segs_run,
         "segments_reused": segs_skipped, "wall_s": round(time.time() - t0, 3),
         "error": error}
    if status == "ok":
        try:
            log, means = pooled_means(title.output)
            d["frames"] = len(log.frames)
            d["pooled_means"] = means
        except FarmError as e:
            d["status"], d["error"] = "failed", str(e)
    return d


def run_titles(titles, client, retries=2, progress=None):
    """Score titles on a Dask client: every segment not already finished is
    a task; a title is merged once its segments are all in.  Returns one
    summary dict per title (status "ok" or "failed", with the error)."""
    from distributed import as_completed
    from .runner import is_finished, run_segment, segment_resources

    futures, state = {}, {}
    for ti, t in enumerate(titles):
        state[ti] = {"pending": 0, "error": None, "run": 0, "skipped": 0, "t0": time.time()}
        try:
            t.prepare()
        except FarmError as e:
            state[ti]["error"] = str(e)
            continue
        for j in t.jobs():
            if is_finished(j["log"], j["title"], j["segment"]):
                state[ti]["skipped"] += 1       # finished by an earlier run
                continue
            if progress:
                progress.add(j["id"], j["segment"]["end"] - j["segment"]["start"])
            fut = client.submit(run_segment, j, key="fssim-%s-%s" % (
                t.key(), j["segment"]["index"]), retries=retries, pure=False,
                resources=segment_resources(len(t.dists) + 1), priority=-ti)
            futures[fut] = (ti, j)
            state[ti]["pending"] += 1
    results = {}
    for fut in as_completed(list(futures)):
        ti, j = futures[fut]
        st = state[ti]
        st["pending"] -= 1
        try:
            r = fut.result()
            st["run"] += 0 if r.get("skipped") else 1
            st["skipped"] += 1 if r.get("skipped") else 0
            if progress:
                progress.done(j["id"])
        except Exception as e:      # noqa: BLE001 -- reported per title
            msg = str(e) if isinstance(e, FarmError) else "segment %d of %s (frames %d-%d): %s: %s" % (
                j["segment"]["index"], titles[ti].name, j["segment"]["start"],
                j["segment"]["end"] - 1, type(e).__name__, e)
            if not st["error"]:
                st["error"] = msg
            if progress:
                progress.done(j["id"])
        if st["pending"] == 0 and not st["error"]:
            results[ti] = _finish(titles[ti], st)
    out = []
    for ti, t in enumerate(titles):
        st = state[ti]
        if st["error"]:
            out.append(summary(t, "failed", st["t0"], st["error"], st["run"], st["skipped"]))
        elif ti in results:
            out.append(results[ti])
        else:
            out.append(_finish(t, st))       # every segment was already finished
    return out


def _finish(title, st):
    try:
        title.merge()
    except FarmError as e:
        return summary(title, "failed", st["t0"], str(e), st["run"], st["skipped"])
    return summary(title, "ok", st["t0"], None, st["run"], st["skipped"])
