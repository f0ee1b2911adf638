"""A title to score: its inputs, its checks, its segments, their work
folder, its merge.

The work folder lies beside the output (OUTPUT.segments/).  It keeps the
reference's probe, the inputs' first-frame times, the title's plan (its
segments) and every finished segment log, named by the segment's frames and a digest of everything
that shapes its scores (filter, options, log format, inputs), so that a
run started again -- after the client died or was interrupted, or with
more titles or other workers -- scores only the segments that are not
finished, and never takes up a log scored with other options.
"""
import glob
import hashlib
import json
import os
import time

from . import checks, merge, segments
from .errors import FarmError


class Title:
    def __init__(self, reference, dists, output, filter_name="fssim", options="",
                 segment_frames=None, name=None, hwaccel=None, ffmpeg="ffmpeg",
                 ffprobe=None, workdir=None, vulkan_from_cuda=False, upload=None,
                 unequal_lengths=False, make_dirs=False):
        if filter_name not in segments.FILTERS:
            raise FarmError("unknown filter %r (one of %s)" % (filter_name,
                                                              ", ".join(segments.FILTERS)))
        if not dists:
            raise FarmError("%s: no rendition to score" % (name or reference))
        if filter_name == "fssim3d" and len(dists) != 1:
            raise FarmError("fssim3d scores one rendition against the reference, not %d"
                            % len(dists))
        if len(dists) + 1 > 17:
            raise FarmError("%d renditions: a ladder has at most 16 renditions and the "
                            "reference (the filters' 17 inputs)" % len(dists))
        if segment_frames is not None and segment_frames <= 0:
            raise FarmError("--segment-frames %d: give a number of frames above 0 (or leave "
                            "it out: the farm sizes segments from the title's length and the "
                            "GPUs' slots)" % segment_frames)
        checks.check_options(options, filter_name)
        self.reference = reference
        self.dists = list(dists)
        self.output = output
        self.filter = filter_name
        self.options = options or ""
        self.segment_frames = segment_frames
        self.name = name or os.path.splitext(os.path.basename(output))[0]
        self.hwaccel = hwaccel or segments.HWACCEL[filter_name]
        self.ffmpeg = ffmpeg
        self.ffprobe = ffprobe
        self.log_fmt = "csv" if output.endswith(".csv") else "json"
        self.workdir = workdir or output + ".segments"
        self.vulkan_from_cuda = vulkan_from_cuda
        self.upload = upload
        self.unequal_lengths = unequal_lengths
        self.make_dirs = make_dirs
        self.identity = segments.input_identity(self.dists + [self.reference])
        self.probe = None
        self.inputs = None
        self.starts = None
        self.segments = []
        self.timings = {}
        self.t_created = time.time()        # the summary's wall_s counts from here

    @property
    def nb_inputs(self):
        return len(self.dists) + 1

    def digest(self):
        key = json.dumps([self.filter, self.options, self.log_fmt, self.hwaccel, self.upload,
                          self.identity, self.dists, self.reference])
        return hashlib.sha256(key.encode()).hexdigest()[:12]

    def key(self):
        """Unique per title and output: the Dask keys of its segments."""
        return hashlib.sha256((self.output + "\n" + self.digest()).encode()).hexdigest()[:16]

    # -- before scoring ------------------------------------------------------

    def check(self, remote=False):
        """check_quick() and check_inputs()."""
        self.check_quick(remote)
        self.check_inputs()

    def check_quick(self, remote=False):
        """What is checked in milliseconds (before a cluster starts): the
        output, the inputs' files, the tools (the ffmpeg only where it is
        on this host: remote, the workers' one-frame check does it), the
        options."""
        t0 = time.time()
        checks.check_output(self.output, create=self.make_dirs)
        checks.check_exist([self.reference] + self.dists)
        t = checks.tools(self.ffmpeg, self.ffprobe, need_local_ffmpeg=not remote)
        self.tools = t
        self.ffprobe = t.ffprobe
        if t.local:
            checks.check_options(self.options, self.filter,
                                 checks.filter_options(t, self.filter))
        if self.hwaccel != "none" and self.filter == "fssim":
            raise FarmError("--hwaccel %s with --filter fssim: fssim scores software frames; "
                            "use fssim_cuda or fssim_vulkan for GPU frames" % self.hwaccel)
        self.timings["checks"] = round(time.time() - t0, 3)

    def check_inputs(self):
        """The inputs, probed (in parallel) and checked against the
        reference (checks.check_inputs); the reference's frames probed
        once (kept in the work folder)."""
        t0 = time.time()
        self.probe = self._probe()
        self.inputs = checks.check_inputs(self.reference, self.dists, self.ffprobe, self.probe,
                                          self.unequal_lengths, getattr(self, "tools", None))
        if self.probe.nb_frames > 1:
            self.starts = self._first_frames()
        self.timings["checks"] = round(self.timings.get("checks", 0.0) + time.time() - t0, 3)

    def _probe(self):
        cache = os.path.join(self.workdir, "probe-%s.json" % self.identity)
        if os.path.exists(cache):
            try:
                with open(cache) as f:
                    return segments.Probe.from_json(json.load(f))
            except (OSError, ValueError, KeyError):
                pass
        return segments.probe(self.reference, self.ffprobe)

    def prepare(self, slots):
        """Cuts the title for `slots` segments at once (schedule.plan_count)
        unless segment_frames was given, or its work folder keeps a plan of
        an earlier run (whose finished segments are then taken up).
        Creates the work folder and keeps the probe and the plan there."""
        from .schedule import plan_count
        if self.probe is None:
            self.probe = self._probe()
        try:
            os.makedirs(self.workdir, exist_ok=True)
        except OSError as e:
            raise FarmError("cannot make the work folder %s: %s" % (self.workdir,
                                                                    e.strerror or e))
        _write_json(os.path.join(self.workdir, "probe-%s.json" % self.identity),
                    self.probe.to_json())
        ctx = segments.context_frames(self.filter, self.options)
        plan_path = os.path.join(self.workdir, "plan-%s.json" % self.digest())
        saved = _read_json(plan_path)
        want = {"segment_frames": self.segment_frames, "frames": self.probe.nb_frames}
        if saved and saved.get("frames") == self.probe.nb_frames and \
                (self.segment_frames is None or saved.get("segment_frames") ==
                 self.segment_frames):
            self.segments = [segments.Segment.from_json(s) for s in saved["segments"]]
        else:
            count = None if self.segment_frames else plan_count(self.probe.nb_frames, slots)
            self.segments = segments.plan(self.probe, self.segment_frames, ctx, count)
            want["segments"] = [s.to_json() for s in self.segments]
            _write_json(plan_path, want)
        if any(s.base > 0 for s in self.segments):
            if self.starts is None:
                self.starts = self._first_frames()
            _write_json(os.path.join(self.workdir, "starts-%s.json" % self.identity),
                        self.starts)
        return self.segments

    def _first_frames(self):
        """Every input's first_frame_time(), renditions first: the filters'
        seg_starts (kept in the work folder; probed side by side)."""
        import concurrent.futures
        cached = _read_json(os.path.join(self.workdir, "starts-%s.json" % self.identity))
        if isinstance(cached, list) and len(cached) == self.nb_inputs:
            return cached
        paths = self.dists + [self.reference]
        with concurrent.futures.ThreadPoolExecutor(min(8, len(paths))) as ex:
            return list(ex.map(lambda p: segments.first_frame_time(p, self.ffprobe), paths))

    def seg_log(self, seg):
        return os.path.join(self.workdir, "seg_%08d_%08d_%s.%s" % (
            seg.start, seg.end, self.digest(), self.log_fmt))

    def jobs(self, index=0):
        """One task description per segment (plain data, sent to workers)."""
        from .schedule import job_streams
        out = []
        for s in self.segments:
            out.append({
                "id": "%s#%d" % (self.name, s.index), "name": self.name, "key": self.key(),
                "title_index": index, "ffmpeg": self.ffmpeg, "filter": self.filter,
                "options": self.options, "reference": self.reference, "dists": self.dists,
                "log_fmt": self.log_fmt, "title": self.identity, "hwaccel": self.hwaccel,
                "vulkan_from_cuda": self.vulkan_from_cuda, "upload": self.upload,
                "segment": s.to_json(), "frames": s.frames, "log": self.seg_log(s),
                "nb_inputs": self.nb_inputs, "streams": job_streams(self.nb_inputs),
                "starts": self.starts if s.base > 0 else None,
            })
        return out

    def merge(self, segs=None, segments_field=True, timings=None):
        paths = [self.seg_log(s) for s in self.segments]
        return merge.merge_files(paths, self.output, segments_field=segments_field,
                                 segs=segs, timings=timings)

    def clean(self, failed=False):
        """Leftovers of runs that were killed: temporary logs; and where
        the title failed before a segment was finished (failed), its work
        folder (the probe and plan are made again in milliseconds)."""
        for p in glob.glob(os.path.join(glob.escape(self.workdir), "*.part")):
            try:
                os.unlink(p)
            except OSError:
                pass
        if failed and os.path.isdir(self.workdir):
            names = os.listdir(self.workdir)
            if not any(n.startswith("seg_") for n in names):
                for n in names:
                    if n.startswith(("probe-", "plan-", "starts-")):
                        try:
                            os.unlink(os.path.join(self.workdir, n))
                        except OSError:
                            pass
                try:
                    os.rmdir(self.workdir)
                except OSError:
                    pass

    def whole_run_command(self):
        """The ffmpeg command of a whole run whose log the merged log
        equals, byte for byte (merge --no-segments-field)."""
        return segments.command(self.ffmpeg, self.filter, self.reference, self.dists,
                                self.options, self.output, self.log_fmt, self.identity,
                                progress=False, hwaccel=self.hwaccel,
                                vulkan_from_cuda=self.vulkan_from_cuda, upload=self.upload)


def _write_json(path, obj):
    tmp = "%s.tmp%d" % (path, os.getpid())
    try:
        with open(tmp, "w") as f:
            json.dump(obj, f)
        os.replace(tmp, path)
    except OSError as e:
        raise FarmError("cannot write %s: %s" % (path, e.strerror or e))


def _read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def pooled_means(log_path):
    """{rendition: {algo: mean All}} of a merged log, for the summaries."""
    from . import columns
    c = columns.read(log_path)
    pools, counts = merge.pool_columns(c)
    nc = len(c.components)
    out = {}
    for k in c.keys():
        out[str(k or 1)] = {slot: pools[(k, slot, nc)]["mean"] for slot in c.slots}
    return c, out


def summary(title, status, t0, error=None, segs_run=0, segs_skipped=0, merged=None,
            means=None, workers=None):
    d = {"title": title.name, "status": status, "output": title.output,
         "reference": title.reference, "renditions": title.dists,
         "segments": len(title.segments), "segments_scored": segs_run,
         "segments_reused": segs_skipped, "wall_s": round(time.time() - t0, 3),
         "error": error}
    if status == "ok":
        d["frames"] = merged
        d["pooled_means"] = means
    d["timings_s"] = dict(title.timings)
    if workers:
        d["frames_per_worker"] = dict(workers)
    return d


def run_titles(titles, client, retries=2, progress=None, prestart=True, checked=False,
               remote=False):
    """Score titles on a Dask client: checks each (unless checked), cuts it
    for the cluster's slots, runs its segments (schedule.Scheduler) and
    merges each as soon as its segments are in.  Returns one summary dict
    per title (status "ok" or "failed", with the error)."""
    from .runner import PROGRESS_TOPIC
    from .runner import is_finished
    from .schedule import Scheduler, TitleState, wait_for_lanes
    sched = Scheduler(client, retries=retries, progress=progress, prestart=prestart)
    sched.lanes = wait_for_lanes(client)
    client.subscribe_topic(PROGRESS_TOPIC, sched.event)
    results = {}
    merges = {}
    states = []
    try:
        for ti, t in enumerate(titles):
            st = TitleState(ti, t)
            states.append(st)
            try:
                if getattr(t, "check_error", None):
                    raise FarmError(t.check_error)
                if not checked:
                    t.check(remote=remote)
                t.prepare(sched.slots_for(t.nb_inputs))
                t.clean()
            except FarmError as e:
                st.error = str(e)
                sched.titles.append(st)
                continue
            jobs = t.jobs(ti)
            done = {j["log"] for j in jobs if is_finished(j["log"], j["title"], j["segment"])}
            sched.add_title(st, jobs, done)

        def title_done(st):
            if st.error:
                return
            merges[st.index] = sched.pool.submit(_merge, st)

        sched.run(title_done)
        for ti, fut in merges.items():
            results[ti] = fut.result()
    finally:
        try:
            client.unsubscribe_topic(PROGRESS_TOPIC)
        except Exception:     # noqa: BLE001 -- the client may be closing
            pass
        sched.close()
    out = []
    for st in states:
        if st.index in results:
            out.append(results[st.index])
            if results[st.index]["status"] != "ok":
                st.title.clean(failed=True)
        else:
            st.title.clean(failed=True)
            out.append(summary(st.title, "failed", st.t0, st.error, st.run, st.skipped,
                               workers=st.workers))
    return out


def _merge(st):
    """The merge of a title whose segments are all in (a thread)."""
    t = st.title
    t0 = time.time()
    if st.t_first_submit is not None:
        t.timings["scoring"] = round(st.t_scored - st.t_first_submit, 3)
    try:
        segs = [r.result() for r in st.reads]
        log = t.merge(segs)
        t.clean()
        t.timings["merge"] = round(time.time() - t0, 3)
        means = _means(log)
        pairing = pairing_counts(log.trailer)
        partial = _partial(t, pairing)
    except FarmError as e:
        return summary(t, "failed", st.t0, str(e), st.run, st.skipped, workers=st.workers)
    except (OSError, ValueError, KeyError, IndexError) as e:
        return summary(t, "failed", st.t0, "%s: the merge failed: %s: %s" % (
            t.name, type(e).__name__, e), st.run, st.skipped, workers=st.workers)
    out = summary(t, "failed" if partial else "ok", st.t0, partial, st.run, st.skipped,
                  log.nb_frames, means, st.workers)
    if pairing:
        out["pairing"] = pairing
    return out


def pairing_counts(trailer):
    """{pad: {frames, paired, lacks, excess, damaged}} from a log's pairing
    section (JSON member or CSV # pairing lines), {} without one."""
    import json as _json
    import re as _re
    out = {}
    for name, text in trailer or ():
        if name == "pairing":
            try:
                d = _json.loads("{%s}" % text)["pairing"]
            except (ValueError, KeyError, TypeError):
                continue
            for inp in d.get("inputs", []):
                if isinstance(inp, dict) and "pad" in inp:
                    out[inp["pad"]] = {k: v for k, v in inp.items() if k != "pad"}
        elif name is None and text.startswith("# pairing "):
            kv = dict(_re.findall(r"(\w+)=(\S+)", text))
            if "pad" in kv:
                out[kv.pop("pad")] = {k: int(v) if v.lstrip("-").isdigit() else v
                                      for k, v in kv.items()}
    return out


def _partial(title, pairing):
    """The error of a title whose renditions lack frames or have frames in
    excess (some reference frames unscored), unless the renditions were
    to be scored as they are (unequal_lengths): None where it is whole."""
    if title.unequal_lengths:
        return None
    short = ["%s lacks %d" % (pad, c["lacks"]) for pad, c in pairing.items()
             if c.get("lacks")]
    extra = ["%s has %d in excess" % (pad, c["excess"]) for pad, c in pairing.items()
             if c.get("excess")]
    if not short and not extra:
        return None
    return ("%s: frames without a pair: %s; the log (%s) scores only the frames that pair. "
            "If the renditions are meant to differ, pass --unequal-lengths; else check "
            "their timelines against the reference's" % (
                title.name, ", ".join(short + extra), title.output))


def _means(log):
    """{rendition: {algo: mean All}} from the merged pools."""
    nc = len(log.components)
    keys = [r["k"] for r in log.renditions] if log.is_ladder else [None]
    return {str(k or 1): {slot: log.pools[(k, slot, nc)]["mean"] for slot in log.slots}
            for k in keys}
