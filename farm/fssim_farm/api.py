"""The Python API: score a title, score a manifest of titles, merge, report.

    import fssim_farm
    s = fssim_farm.score("ref.mkv", ["1080.mp4", "720.mp4"], "title.json",
                         filter="fssim_cuda", options="algo=float+psnr", gpus=[0, 1])
    s["status"], s["pooled_means"]
    fssim_farm.merge_segments(["seg0.json", "seg1.json"], "title.json")
    fssim_farm.batch("titles.csv")           # {"titles": [...], "failed": [...]}
    fssim_farm.write_report("title.json", "title.html")

score() and batch() take a running cluster's scheduler address
(scheduler=) or a distributed.Client (client=: a notebook's, a Kubernetes
or SLURM cluster's), else make a cluster on this host for the call.
"""
import contextlib
import json
import os
import shlex
import sys
import threading
import time

from . import manifest as manifest_mod
from . import merge as merge_mod
from .errors import FarmError, Interrupted
from .runner import DEFAULT_RETRIES, DEFAULT_SLOTS, local_cluster
from .title import Title, run_titles


def _say(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def open_client(scheduler=None, gpus=None, workers=None, slots=DEFAULT_SLOTS, client=None,
                dashboard=False, on_dashboard=_say):
    """(client, close): the client given (close leaves it open), one of a
    running scheduler (ADDR), or one of a cluster made here with one
    worker per GPU (or `workers` CPU workers).  dashboard:
    on_dashboard(line) with the dashboard's address."""
    from distributed import Client
    if client is not None:
        if dashboard and on_dashboard:
            on_dashboard("dashboard: %s" % client.dashboard_link)
        return client, lambda: None
    if scheduler:
        try:
            c = Client(scheduler, timeout=20, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as e:
            raise FarmError("cannot reach the Dask scheduler at %s (%s): start it with `dask "
                            "scheduler`, and check the address and the network" % (
                                scheduler, str(e).split("\n")[0]))
        if dashboard and on_dashboard:
            on_dashboard("dashboard: %s" % c.dashboard_link)
        return c, c.close
    try:
        cluster = local_cluster(gpus=gpus, workers=workers, slots=slots, dashboard=dashboard)
    except (OSError, RuntimeError) as e:
        raise FarmError("cannot start a Dask cluster on this host: %s" % e)
    try:
        c = Client(cluster, set_as_default=False)
    except BaseException:
        cluster.close()
        raise
    if dashboard and on_dashboard:
        on_dashboard("dashboard: %s" % cluster.dashboard_link)

    def close():
        try:
            c.close()
        finally:
            cluster.close()
    return c, close


@contextlib.contextmanager
def client_for(**kw):
    """open_client() as a context manager."""
    c, close = open_client(**kw)
    try:
        yield c
    finally:
        close()


class _Starting(threading.Thread):
    """A cluster made here, started while the titles are checked."""

    def __init__(self, kw):
        super().__init__(daemon=True)
        self.kw, self.closer, self.client, self.error = kw, None, None, None
        self.t = 0.0

    def run(self):
        t0 = time.time()
        try:
            self.client, self.closer = open_client(**self.kw)
        except BaseException as e:      # noqa: BLE001 -- given to the caller's thread
            self.error = e
        self.t = time.time() - t0

    def result(self):
        self.join()
        if self.error is not None:
            raise self.error
        return self.client

    def close(self):
        self.join()
        closer, self.closer = self.closer, None
        if closer is not None:
            closer()


def _check_cluster_args(titles, gpus, workers, upload):
    gpu_filters = {t.filter for t in titles if t.hwaccel != "none" or t.upload}
    if gpus and not gpu_filters:
        raise FarmError("--gpus with --filter fssim: the CPU filter decodes and scores on the "
                        "CPU; give --workers N for N CPU workers, or --filter fssim_cuda "
                        "(fssim_vulkan) to score on the GPUs")
    if gpus is not None and len(set(gpus)) != len(gpus):
        raise FarmError("--gpus %s names a GPU twice" % ",".join(map(str, gpus)))
    if gpus and workers:
        raise FarmError("--gpus and --workers: a cluster here has one worker per GPU, or "
                        "--workers CPU workers, not both")
    if workers is not None and workers < 1:
        raise FarmError("--workers %d: give 1 or more" % workers)


def _titles_run(titles, cluster_kw, retries, progress, prestart=True):
    """Checks the titles while the cluster starts, then scores them.
    Returns their summaries; Interrupted on Ctrl-C (the finished segments
    kept), FarmError on a failure of the cluster."""
    from .progress import Progress
    remote = bool(cluster_kw.get("scheduler") or cluster_kw.get("client"))
    _check_cluster_args(titles, cluster_kw.get("gpus"), cluster_kw.get("workers"),
                        any(t.upload for t in titles))
    t0 = time.time()
    for t in titles:
        try:
            t.check_quick(remote=remote)
        except FarmError as e:
            t.check_error = str(e)
    if all(getattr(t, "check_error", None) for t in titles):
        if len(titles) == 1:
            raise FarmError(titles[0].check_error)
        return [_failed(t) for t in titles]
    # the inputs are probed while the cluster starts
    starting = _Starting(cluster_kw)
    starting.start()
    bar = None
    try:
        for t in titles:
            if getattr(t, "check_error", None):
                continue
            try:
                t.check_inputs()
            except FarmError as e:
                t.check_error = str(e)
        if len(titles) == 1 and getattr(titles[0], "check_error", None):
            raise FarmError(titles[0].check_error)
        client = starting.result()
        t_ready = time.time()
        for t in titles:
            t.timings["cluster_start"] = round(starting.t, 3)
            t.timings["ready"] = round(t_ready - t0, 3)
        bar = Progress() if progress else None
        return run_titles(titles, client, retries=retries, progress=bar, prestart=prestart,
                          checked=True, remote=remote)
    except KeyboardInterrupt:
        if bar:
            bar.close(interrupted=True)
            bar = None
        starting.close()
        for t in titles:
            t.clean()
        raise Interrupted(_interrupted(titles))
    finally:
        if bar:
            bar.close()
        starting.close()


def _failed(t):
    from .title import summary
    return summary(t, "failed", t.t_created, t.check_error)


def _interrupted(titles):
    kept, total, where = 0, 0, []
    for t in titles:
        n = sum(1 for s in t.segments if os.path.exists(t.seg_log(s)))
        kept += n
        total += len(t.segments)
        if n:
            where.append(t.workdir)
    if not total:
        return "interrupted before any segment was scored; nothing was kept"
    return ("interrupted: %d of %d segments finished and kept (%s); run the same command "
            "again to resume: the finished segments are not scored again" % (
                kept, total, ", ".join(where) if where else "none"))


def score(reference, dists, output, filter="fssim", options="", segment_frames=None,
          gpus=None, workers=None, slots=DEFAULT_SLOTS, scheduler=None, client=None,
          ffmpeg="ffmpeg", ffprobe=None, retries=DEFAULT_RETRIES, progress=True,
          hwaccel=None, vulkan_from_cuda=False, name=None, upload=None,
          unequal_lengths=False, dashboard=False, prestart=True):
    """Score one title in segments and merge them into `output` (.json or
    .csv).  segment_frames None: sized from the title's length and the
    cluster's slots.  client: a distributed.Client to run on (else
    `scheduler`, else a cluster made here).  ffprobe: default, the one
    beside ffmpeg.  Returns its summary (status, frames, pooled means, wall
    time, timings); raises FarmError when it failed."""
    t = Title(reference, dists, output, filter, options, segment_frames, name=name,
              hwaccel=hwaccel, ffmpeg=ffmpeg, ffprobe=ffprobe,
              vulkan_from_cuda=vulkan_from_cuda, upload=upload,
              unequal_lengths=unequal_lengths)
    s = _titles_run([t], dict(scheduler=scheduler, gpus=gpus, workers=workers, slots=slots,
                              client=client, dashboard=dashboard), retries, progress,
                    prestart)[0]
    if s["status"] != "ok":
        raise FarmError(s["error"])
    s["whole_run_command"] = " ".join(shlex.quote(a) for a in t.whole_run_command())
    return s


def batch(manifest, summary_path=None, filter="fssim", segment_frames=None, gpus=None,
          workers=None, slots=DEFAULT_SLOTS, scheduler=None, client=None, ffmpeg="ffmpeg",
          ffprobe=None, retries=DEFAULT_RETRIES, progress=True, hwaccel=None,
          vulkan_from_cuda=False, upload=None, unequal_lengths=False, dashboard=False,
          prestart=True):
    """Score every title of a manifest (manifest.py) on one cluster.
    Resumable: segments already finished are not scored again.  Writes
    and returns the summary {"titles": [...], "ok": n, "failed": [titles]}."""
    rows = manifest_mod.read_manifest(manifest)
    path = summary_path or os.path.splitext(manifest)[0] + ".summary.json"
    merge_mod.check_output(path)
    titles, failed_early = [], []
    t0 = time.time()
    for r in rows:
        try:
            t = Title(r["reference"], r["renditions"], r["output"], r.get("filter", filter),
                      r["options"], r.get("segment_frames", segment_frames), name=r["title"],
                      hwaccel=hwaccel, ffmpeg=ffmpeg, ffprobe=ffprobe,
                      vulkan_from_cuda=vulkan_from_cuda, upload=upload,
                      unequal_lengths=unequal_lengths, make_dirs=True)
        except FarmError as e:
            failed_early.append({"title": r["title"], "status": "failed",
                                 "output": r["output"], "reference": r["reference"],
                                 "renditions": r["renditions"], "error": str(e)})
            continue
        titles.append(t)
    results = _titles_run(titles, dict(scheduler=scheduler, gpus=gpus, workers=workers,
                                       slots=slots, client=client, dashboard=dashboard),
                          retries, progress, prestart) if titles else []
    by = {s["title"]: s for s in results + failed_early}
    done = [by[r["title"]] for r in rows]
    out = {"manifest": os.path.abspath(manifest), "wall_s": round(time.time() - t0, 3),
           "ok": sum(1 for s in done if s["status"] == "ok"),
           "failed": [s["title"] for s in done if s["status"] != "ok"],
           "titles": done}
    tmp = "%s.tmp%d" % (path, os.getpid())
    try:
        with open(tmp, "w") as f:
            json.dump(out, f, indent=2)
            f.write("\n")
        os.replace(tmp, path)
    except OSError as e:
        raise FarmError("cannot write the summary %s: %s" % (path, e.strerror or e))
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    out["summary_path"] = path
    return out


def merge_segments(paths, output, log_path=None, segments_field=True, frames=None):
    """Merge segment logs into `output`; see merge.merge_files."""
    return merge_mod.merge_files(paths, output, log_path=log_path,
                                 segments_field=segments_field, frames=frames)


def write_report(logs, html_path, **kw):
    """The HTML report of a title's log(s), its files beside it; see
    report.write_report for the keywords."""
    from . import report as report_mod
    return report_mod.write_report(logs, html_path, **kw)


def compare(a_log, b_log, html_path=None, **kw):
    """BD-rate and BD-quality of ladder B against ladder A; see
    compare.compare for the keywords."""
    from . import compare as compare_mod
    return compare_mod.compare(a_log, b_log, html_path, **kw)
