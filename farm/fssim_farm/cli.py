"""fssim-farm: the command line (doc/farm.md).

    fssim-farm score --reference REF DIST... -o LOG.json [--filter F] [--options O]
                     [--gpus 0,1] [--scheduler ADDR] ...
    fssim-farm batch MANIFEST [--summary S.json] ...
    fssim-farm merge SEGMENT... -o LOG
    fssim-farm report LOG... -o REPORT.html [--renditions FILE... --reference FILE]
                     [--bitrates 4500,3000] [--names N...] [--scenes scdet]
    fssim-farm compare A.json B.json [-o COMPARE.html] [--a-bitrates ...] [--b-bitrates ...]
    fssim-farm worker SCHEDULER [--gpus 0,1,2,3] [--slots N]

Every subcommand takes --json (its result as JSON on stdout) and --quiet
(nothing but errors).  Exit status: 0 success; 1 failure, with one message
naming the file, segment or title (batch: at least one title failed, the
summary lists them); 2 bad usage; 130 interrupted (what was kept and how
to resume on stderr).  A failure is never shown as a Python traceback
(FSSIM_FARM_DEBUG=1 shows one for an internal error).

Each subcommand is two functions: one builds its parser (with --json and
--quiet), _run_NAME(a) runs it and returns (exit status, result dict for
--json, text for stdout); main() prints them and turns every error into
one line.
"""
import argparse
import json
import os
import sys

from . import __version__
from .errors import FarmError, Interrupted
from .runner import CPU_SLOTS, DEFAULT_RETRIES, GPU_STREAMS
from .segments import FILTERS


def _gpus(s):
    try:
        gpus = [int(x) for x in s.split(",") if x.strip() != ""]
    except ValueError:
        raise argparse.ArgumentTypeError("takes GPU indices, e.g. 0,1,2,3")
    if not gpus or min(gpus) < 0:
        raise argparse.ArgumentTypeError("takes GPU indices from 0, e.g. 0,1,2,3")
    return gpus


def _positive(s):
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number" % s)
    if v < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return v


def _count(s):
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number" % s)
    if v < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return v


def _segment_frames(s):
    if s == "auto":
        return None
    return _positive(s)


def _common(p):
    g = p.add_argument_group("output")
    g.add_argument("--json", action="store_true",
                   help="print the result (or the error) as JSON on stdout")
    g.add_argument("--quiet", action="store_true",
                   help="print nothing but errors (no progress, no summary)")


def _cluster_args(p):
    g = p.add_argument_group("cluster")
    g.add_argument("--gpus", type=_gpus, default=None, metavar="0,1,...",
                   help="GPU indices as the filter's backend enumerates them (CUDA: "
                        "CUDA_DEVICE_ORDER applies; Vulkan: the loader's order), one worker "
                        "each on this host; default: CPU workers (--workers)")
    g.add_argument("--workers", type=_positive, default=None, metavar="N",
                   help="CPU workers on this host when no --gpus are given (default 1)")
    g.add_argument("--slots", type=_positive, default=None, metavar="N",
                   help="segments scored at once per worker (default: per GPU as many as "
                        "decode %d streams, e.g. 3 ladders of 7 inputs or 10 pairs; per CPU "
                        "worker %d)" % (GPU_STREAMS, CPU_SLOTS))
    g.add_argument("--scheduler", default=None, metavar="ADDR",
                   help="address of a running Dask scheduler (tcp://host:8786) whose "
                        "workers were started by `fssim-farm worker`; default: a cluster on "
                        "this host")
    g.add_argument("--dashboard", action="store_true",
                   help="print the address of Dask's dashboard (a cluster made here needs "
                        "bokeh)")
    g.add_argument("--retries", type=_count, default=DEFAULT_RETRIES, metavar="N",
                   help="times a failed segment is run again (default %d); a failure that "
                        "cannot change (no such filter, option, decoder or input) is not "
                        "retried" % DEFAULT_RETRIES)
    g.add_argument("--ffmpeg", default="ffmpeg", metavar="PATH",
                   help="the ffmpeg with the fssim filters, as the workers see it (default: "
                        "ffmpeg on PATH)")
    g.add_argument("--ffprobe", default=None, metavar="PATH",
                   help="the ffprobe that probes the inputs here (default: the one beside "
                        "--ffmpeg, else on PATH)")
    g.add_argument("--hwaccel", choices=("none", "cuda", "vulkan"), default=None,
                   help="decoding (fssim3d: the device it scores on); default: the "
                        "filter's own (fssim: none, fssim_cuda: cuda, fssim_vulkan: vulkan)")
    g.add_argument("--vulkan-from-cuda", action="store_true",
                   help="Vulkan devices derived from CUDA device --gpus N (same GPU by "
                        "UUID), so that both backends use CUDA's indices")
    g.add_argument("--upload", metavar="PIX_FMT", default=None,
                   help="decode in software and upload each input in this format to the "
                        "device (hwupload): codecs the GPU does not decode")
    g.add_argument("--segment-frames", type=_segment_frames, default=None, metavar="N",
                   help="about N frames per segment, cut at the reference's keyframes "
                        "(default auto: equal shares for the cluster's slots, at most "
                        "7200 frames each)")
    g.add_argument("--unequal-lengths", action="store_true",
                   help="score renditions whose frame count differs from the reference's "
                        "(default: an error): only frames that pair are scored, the log "
                        "counts the others")
    g.add_argument("--no-prestart", action="store_true",
                   help="start a segment's ffmpeg only once a slot is free (default: the "
                        "next one starts while the last one ends)")
    g.add_argument("--no-progress", action="store_true", help="no progress line on stderr")


def _cluster_kw(a):
    return dict(gpus=a.gpus, workers=a.workers, slots=a.slots, scheduler=a.scheduler,
                ffmpeg=a.ffmpeg, ffprobe=a.ffprobe, retries=a.retries,
                progress=not (a.no_progress or a.quiet), hwaccel=a.hwaccel,
                vulkan_from_cuda=a.vulkan_from_cuda, upload=a.upload,
                segment_frames=a.segment_frames, unequal_lengths=a.unequal_lengths,
                dashboard=a.dashboard, prestart=not a.no_prestart)


# ---------------------------------------------------------------------------
# score
# ---------------------------------------------------------------------------

def _score_parser(sub):
    p = sub.add_parser("score", help="score one title in segments and merge its log",
                       description="Score one title (a reference and its renditions) in "
                       "segments on the GPUs of this host or of a cluster, and merge the "
                       "segment logs into the log of a whole run.")
    p.add_argument("--reference", required=True, metavar="REF",
                   help="the reference (a path every worker sees, or a URL)")
    p.add_argument("dists", nargs="+", metavar="DIST", help="the renditions, in order")
    p.add_argument("-o", "--output", required=True, metavar="LOG",
                   help="the merged log (.json or .csv); its segments go to LOG.segments/")
    p.add_argument("--filter", choices=FILTERS, default="fssim",
                   help="the filter that scores (default fssim, on the CPU)")
    p.add_argument("--options", default="", metavar="OPTS",
                   help="the filter's options, e.g. 'algo=float+int:window=11' (not "
                        "log_path, log_fmt, seg_*, title, inputs: the farm sets them)")
    p.add_argument("--name", default=None, help="the title's name in messages (default: "
                   "the output's)")
    _cluster_args(p)
    _common(p)


def _means_text(s):
    lines = []
    for k, algos in (s.get("pooled_means") or {}).items():
        lines.append("  rendition %s: %s" % (k, "  ".join(
            "%s %.6g" % (a, v) for a, v in algos.items())))
    return lines


def _pairing_warnings(s):
    """Frames a decoder flagged as damaged, lacking or in excess: said on
    stderr even where the title is scored (a log with damaged frames is
    the scores of what the decoder made of them)."""
    for pad, c in sorted((s.get("pairing") or {}).items()):
        what = ["%d %s" % (c[k], k) for k in ("damaged", "lacks", "excess") if c.get(k)]
        if what:
            sys.stderr.write("fssim-farm: warning: %s: %s (of %s frames)\n" % (
                pad, ", ".join(what), c.get("frames", "?")))


def _run_score(a):
    from . import api
    kw = _cluster_kw(a)
    s = api.score(a.reference, a.dists, a.output, filter=a.filter, options=a.options,
                  name=a.name, **kw)
    if not a.quiet:
        _pairing_warnings(s)
    text = ["%s: %d frames, %d segments (%d scored, %d reused) in %.1f s" % (
        s["output"], s["frames"], s["segments"], s["segments_scored"], s["segments_reused"],
        s["wall_s"])] + _means_text(s)
    return 0, s, "\n".join(text)


# ---------------------------------------------------------------------------
# batch
# ---------------------------------------------------------------------------

def _batch_parser(sub):
    p = sub.add_parser("batch", help="score the titles of a manifest (resumable)",
                       description="Score every title of a manifest on one cluster; run it "
                       "again to resume.")
    p.add_argument("manifest", help="CSV or JSON: title, reference, renditions, options, "
                   "output (and optionally filter, segment_frames)")
    p.add_argument("--summary", default=None, metavar="PATH",
                   help="the summary JSON (default MANIFEST.summary.json)")
    p.add_argument("--filter", choices=FILTERS, default="fssim",
                   help="the filter of rows without one (default fssim)")
    _cluster_args(p)
    _common(p)


def _run_batch(a):
    from . import api
    kw = _cluster_kw(a)
    s = api.batch(a.manifest, a.summary, filter=a.filter, **kw)
    text = "%d titles ok, %d failed%s; summary: %s" % (
        s["ok"], len(s["failed"]), (": " + ", ".join(s["failed"])) if s["failed"] else "",
        s["summary_path"])
    for t in s["titles"]:
        if t["status"] != "ok":
            sys.stderr.write("fssim-farm: %s: %s\n" % (t["title"], t["error"]))
    return (1 if s["failed"] else 0), s, text


# ---------------------------------------------------------------------------
# merge
# ---------------------------------------------------------------------------

def _merge_parser(sub):
    p = sub.add_parser("merge", help="merge segment logs into the log of a whole run",
                       description="Merge segment logs (JSON or CSV, any order) into the "
                       "log of a whole run, checking that they make the whole title.")
    p.add_argument("segments", nargs="+", metavar="SEGMENT", help="the segment logs")
    p.add_argument("-o", "--output", required=True, metavar="LOG",
                   help="the merged log (the segments' format)")
    p.add_argument("--log-path", default=None, metavar="PATH",
                   help="the log_path option written in the merged log (default: -o as given)")
    p.add_argument("--frames", type=_positive, default=None, metavar="N",
                   help="the title's frame count, for segments that do not carry it "
                        "(seg_total: logs of older runs)")
    p.add_argument("--no-segments-field", action="store_true",
                   help="leave out the segments field: the log then equals a whole run's "
                        "byte for byte")
    _common(p)


def _run_merge(a):
    from . import api
    log = api.merge_segments(a.segments, a.output, log_path=a.log_path,
                             segments_field=not a.no_segments_field, frames=a.frames)
    res = {"output": a.output, "frames": log.nb_frames, "segments": len(a.segments)}
    return 0, res, "%s: %d frames from %d segments" % (a.output, log.nb_frames,
                                                       len(a.segments))


# ---------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------

def _report_output_args(p, ffmpeg_help):
    p.add_argument("--ffmpeg", default="ffmpeg", help=ffmpeg_help)
    p.add_argument("--ffprobe", default=None,
                   help="ffprobe for the bitrates (default: beside --ffmpeg, else on PATH)")
    p.add_argument("--json", action="store_true",
                   help="print what was written and found as JSON on stdout")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")


def add_report_parser(sub):
    """fssim-farm report (doc/farm.md#report)."""
    p = sub.add_parser(
        "report", help="the HTML page of a title's log(s): every metric, worst events "
        "with pictures, rate-quality hull, scenes, CSV",
        description="Write one self-contained HTML page of a title (one ladder's log, or "
        "several logs of one reference: a sweep), its plots as PNG and its values as CSV "
        "beside it.")
    p.add_argument("logs", nargs="+", metavar="LOG",
                   help="the title's log(s), JSON or CSV, of one reference")
    p.add_argument("-o", "--output", required=True,
                   help="REPORT.html; REPORT_*.png, REPORT_*.csv and REPORT_worst/ beside it")
    p.add_argument("--renditions", nargs="+", metavar="FILE", default=None,
                   help="every rendition's file, in the logs' order: their bitrates by "
                        "ffprobe, and the pictures of the worst frames (with --reference)")
    p.add_argument("--reference", metavar="FILE", default=None,
                   help="the reference's file: the pictures of the worst frames, and "
                        "--scenes scdet")
    p.add_argument("--bitrates", default=None,
                   help="kbit/s per rendition instead of ffprobe: '4500,3000,1200' in "
                        "order (k or M suffix), or '1:4500,3:1200' by position")
    p.add_argument("--names", nargs="+", metavar="NAME", default=None,
                   help="the renditions' names, in the logs' order (default: the names in "
                        "the logs, fssim's names option, else the pads)")
    p.add_argument("--title", default=None,
                   help="the title's name (default: the reference's name in the log)")
    p.add_argument("--metric", default=None,
                   help="the algorithm shown first, and of the worst events and scenes "
                        "(default: float, else the log's first)")
    p.add_argument("--plane", default=None,
                   help="the plane shown first, and of the worst events and scenes: Y, U, "
                        "V, ... or All (default All)")
    p.add_argument("--events", type=int, default=3, metavar="N",
                   help="worst events shown per rendition (default 3)")
    p.add_argument("--no-thumbnails", action="store_true",
                   help="no pictures of the worst frames")
    p.add_argument("--scenes", default=None, metavar="scdet|FRAMES|FILE",
                   help="scene cuts: 'scdet' (FFmpeg's scdet on --reference), frame "
                        "numbers '0,240,1210', or a file of them")
    p.add_argument("--scdet-threshold", type=float, default=10.0, metavar="T",
                   help="scdet's threshold, 0-100 (default 10)")
    _report_output_args(p, "the ffmpeg that scored the title: it extracts the pictures and "
                           "runs scdet (default: ffmpeg on PATH); ffprobe is looked for "
                           "beside it")


def add_compare_parser(sub):
    """fssim-farm compare (doc/farm.md#compare)."""
    p = sub.add_parser(
        "compare", help="BD-rate and BD-quality of ladder B against ladder A, per metric, "
        "on the hulls and per resolution",
        description="Compare two ladders of one title (two encoders, two presets): the "
        "Bjontegaard deltas of B against A (the anchor) by the bjontegaard package.")
    p.add_argument("a", metavar="A.json", help="the anchor's log")
    p.add_argument("b", metavar="B.json", help="the log compared with it")
    p.add_argument("-o", "--output", default=None,
                   help="COMPARE.html, with COMPARE_rate_quality.png beside it (default: "
                        "the figures on stdout only)")
    for side in ("a", "b"):
        up = side.upper()
        p.add_argument("--%s-bitrates" % side, default=None, metavar="RATES",
                       help="kbit/s of %s's renditions, as report's --bitrates" % up)
        p.add_argument("--%s-renditions" % side, nargs="+", default=None, metavar="FILE",
                       help="%s's renditions' files, in order, for ffprobe" % up)
        p.add_argument("--%s-names" % side, nargs="+", default=None, metavar="NAME",
                       help="%s's renditions' names (default: the log's)" % up)
        p.add_argument("--%s-label" % side, default=None,
                       help="what %s is called (default: its log's file name)" % up)
    p.add_argument("--interpolation", choices=("pchip", "akima"), default="pchip",
                   help="the curves' interpolation (default pchip, as the JCT-VC/JVET "
                        "common test conditions)")
    p.add_argument("--metric", default=None, help="the algorithm shown first")
    p.add_argument("--plane", default=None, help="the plane shown first (default All)")
    _report_output_args(p, "the ffmpeg beside which ffprobe is looked for (default: ffmpeg "
                           "on PATH)")


def _run_report(a):
    from .report import write_report
    s = write_report(a.logs, a.output, bitrates=a.bitrates, renditions=a.renditions,
                     reference=a.reference, names=a.names, title=a.title, metric=a.metric,
                     plane=a.plane, ffmpeg=a.ffmpeg, ffprobe=a.ffprobe, scenes=a.scenes,
                     scdet_threshold=a.scdet_threshold, events=a.events,
                     thumbnails=not a.no_thumbnails)
    return 0, s, "%s: %d renditions, %s %s; files beside it: %s" % (
        s["html"], len(s["renditions"]), s["metric"], s["plane"], ", ".join(sorted(s["files"])))


def _run_compare(a):
    from .compare import compare
    s = compare(a.a, a.b, a.output, a_label=a.a_label, b_label=a.b_label, a_names=a.a_names,
                b_names=a.b_names, a_bitrates=a.a_bitrates, b_bitrates=a.b_bitrates,
                a_renditions=a.a_renditions, b_renditions=a.b_renditions,
                interpolation=a.interpolation, metric=a.metric, plane=a.plane,
                ffmpeg=a.ffmpeg, ffprobe=a.ffprobe)
    lines = ["BD of %s against %s (%s), the plane All:" % (s["b"]["label"], s["a"]["label"],
                                                          s["interpolation"])]
    for r in s["bd"]:
        # the rows in dB: a similarity's dB, a score in dB as is
        if r["plane"] != "All" or r["quality_unit"] != "dB":
            continue
        lines.append("  %-8s %-12s BD-rate %9s  BD-quality %9s%s" % (
            r["algo"], r["scope"],
            "-" if r["bd_rate"] is None else "%+.2f %%" % r["bd_rate"],
            "-" if r["bd_quality"] is None else "%+.3f dB" % r["bd_quality"],
            ("  (%s)" % r["note"]) if r["note"] else ""))
    if s.get("html"):
        lines.append(s["html"])
    return 0, s, "\n".join(lines)


# ---------------------------------------------------------------------------
# worker
# ---------------------------------------------------------------------------

def _worker_parser(sub):
    p = sub.add_parser("worker", help="this host's Dask workers, one per GPU",
                       description="Start this host's fssim-farm workers for a running "
                       "`dask scheduler`: one per GPU (or one CPU worker), until stopped.")
    p.add_argument("scheduler", help="the scheduler's address, tcp://host:8786")
    p.add_argument("--gpus", type=_gpus, default=None, metavar="0,1,...",
                   help="this host's GPU indices, one worker each (default: one CPU worker)")
    p.add_argument("--slots", type=_positive, default=None, metavar="N",
                   help="segments each worker scores at once (default: as many as decode "
                        "%d streams per GPU, %d per CPU worker)" % (GPU_STREAMS, CPU_SLOTS))
    p.add_argument("--name", default=None,
                   help="prefix of the worker names (default: the host's name)")
    _common(p)


def _run_worker(a):
    from .runner import worker_main

    def ready(names):
        if a.json:
            print(json.dumps({"scheduler": a.scheduler, "workers": names}), flush=True)
        elif not a.quiet:
            print("fssim-farm worker: %s connected to %s" % (", ".join(names), a.scheduler),
                  flush=True)

    try:
        worker_main(a.scheduler, a.gpus, a.slots, a.name, ready=ready)
    except KeyboardInterrupt:
        pass                        # the way a worker is stopped
    except (OSError, TimeoutError, RuntimeError) as e:
        raise FarmError("cannot start workers for %s: %s (is `dask scheduler` running "
                        "there?)" % (a.scheduler, str(e).split("\n")[0]))
    return 0, {"scheduler": a.scheduler, "status": "stopped"}, None


# ---------------------------------------------------------------------------

COMMANDS = {"score": (_score_parser, _run_score), "batch": (_batch_parser, _run_batch),
            "merge": (_merge_parser, _run_merge), "report": (add_report_parser, _run_report),
            "compare": (add_compare_parser, _run_compare),
            "worker": (_worker_parser, _run_worker)}


def build_parser():
    ap = argparse.ArgumentParser(prog="fssim-farm", description=__doc__.split("\n")[0])
    ap.add_argument("--version", action="version", version="fssim-farm " + __version__,
                    help="print the version and exit")
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND")
    for make, _ in COMMANDS.values():
        make(sub)
    return ap


def _fail(a, status, msg, kind="failed"):
    print("fssim-farm: %s" % msg, file=sys.stderr)
    if getattr(a, "json", False):
        print(json.dumps({"status": kind, "error": msg}))
    return status


def main(argv=None):
    a = build_parser().parse_args(argv)
    try:
        status, res, text = COMMANDS[a.cmd][1](a)
    except Interrupted as e:
        return _fail(a, 130, str(e), "interrupted")
    except KeyboardInterrupt:
        return _fail(a, 130, "interrupted", "interrupted")
    except FarmError as e:
        return _fail(a, 1, str(e))
    except Exception as e:      # noqa: BLE001 -- never a traceback for the user
        if os.environ.get("FSSIM_FARM_DEBUG"):
            raise
        return _fail(a, 1, "internal error: %s: %s (FSSIM_FARM_DEBUG=1 shows where; please "
                     "report it with the command line)" % (type(e).__name__, e))
    if a.json:
        json.dump(res, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif text and not a.quiet:
        print(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
