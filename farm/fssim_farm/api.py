"""The Python API: score a title, score a manifest of titles, merge, report.

    import fssim_farm
    s = fssim_farm.score("ref.mkv", ["1080.mp4", "720.mp4"], "title.json",
                         filter="fssim_cuda", options="algo=float+psnr", gpus=[0, 1])
    s["status"], s["pooled_means"]
    fssim_farm.merge_segments(["seg0.json", "seg1.json"], "title.json")
    fssim_farm.batch("titles.csv")           # {"titles": [...], "failed": [...]}
    fssim_farm.write_report("title.json", "title.html")
"""
import contextlib
import json
import os
import time

from . import manifest as manifest_mod
from . import merge as merge_mod
from .errors import FarmError
from .runner import DEFAULT_RETRIES, DEFAULT_SLOTS, PROGRESS_TOPIC, local_cluster
from .title import Title, run_titles


@contextlib.contextmanager
def client_for(scheduler=None, gpus=None, workers=None, slots=DEFAULT_SLOTS):
    """A Dask client: of a running scheduler (ADDR), or of a cluster made
    here with one worker per GPU (or `workers` CPU workers)."""
    from distributed import Client
    if scheduler:
        with Client(scheduler) as c:
            yield c
        return
    with local_cluster(gpus=gpus, workers=workers, slots=slots) as cluster, \
            Client(cluster) as c:
        yield c


def _titles_run(titles, client_kw, retries, progress):
    from .progress import Progress
    with client_for(**client_kw) as client:
        bar = Progress() if progress else None
        if bar:
            client.subscribe_topic(PROGRESS_TOPIC, bar.event)
        try:
            return run_titles(titles, client, retries=retries, progress=bar)
        finally:
            if bar:
                client.unsubscribe_topic(PROGRESS_TOPIC)
                bar.close()


def score(reference, dists, output, filter="fssim", options="", segment_frames=600,
          gpus=None, workers=None, slots=DEFAULT_SLOTS, scheduler=None, ffmpeg="ffmpeg",
          ffprobe=None, retries=DEFAULT_RETRIES, progress=True, hwaccel=None,
          vulkan_from_cuda=False, name=None, upload=None):
    """Score one title in segments and merge them into `output` (.json or
    .csv).  Returns its summary (status, frames, pooled means, wall time,
    error); raises FarmError when it failed."""
    t = Title(reference, dists, output, filter, options, segment_frames, name=name,
              hwaccel=hwaccel, ffmpeg=ffmpeg, ffprobe=ffprobe,
              vulkan_from_cuda=vulkan_from_cuda, upload=upload)
    s = _titles_run([t], dict(scheduler=scheduler, gpus=gpus, workers=workers, slots=slots),
                    retries, progress)[0]
    if s["status"] != "ok":
        raise FarmError(s["error"])
    return s


def batch(manifest, summary_path=None, filter="fssim", segment_frames=600, gpus=None,
          workers=None, slots=DEFAULT_SLOTS, scheduler=None, ffmpeg="ffmpeg", ffprobe=None,
          retries=DEFAULT_RETRIES, progress=True, hwaccel=None, vulkan_from_cuda=False,
          upload=None):
    """Score every title of a manifest (manifest.py) on one cluster.
    Resumable: titles whose output is complete and segments already
    finished are not scored again.  Writes and returns the summary
    {"titles": [...], "ok": n, "failed": [titles]}."""
    rows = manifest_mod.read_manifest(manifest)
    titles, done = [], []
    t0 = time.time()
    for r in rows:
        t = Title(r["reference"], r["renditions"], r["output"], r.get("filter", filter),
                  r["options"], r.get("segment_frames", segment_frames), name=r["title"],
                  hwaccel=hwaccel, ffmpeg=ffmpeg, ffprobe=ffprobe,
                  vulkan_from_cuda=vulkan_from_cuda, upload=upload)
        titles.append(t)
    results = _titles_run(titles, dict(scheduler=scheduler, gpus=gpus, workers=workers,
                                       slots=slots), retries, progress) if titles else []
    done.extend(results)
    out = {"manifest": os.path.abspath(manifest), "wall_s": round(time.time() - t0, 3),
           "ok": sum(1 for s in done if s["status"] == "ok"),
           "failed": [s["title"] for s in done if s["status"] != "ok"],
           "titles": done}
    path = summary_path or os.path.splitext(manifest)[0] + ".summary.json"
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)
    out["summary_path"] = path
    return out


def merge_segments(paths, output, log_path=None, segments_field=True):
    """Merge segment logs into `output`; see merge.merge_files."""
    return merge_mod.merge_files(paths, output, log_path=log_path,
                                 segments_field=segments_field)


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
