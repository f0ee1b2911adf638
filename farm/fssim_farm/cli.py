"""fssim-farm: the command line (doc/farm.md).

    fssim-farm score --reference REF DIST... [-o LOG.json] [--filter F] [--options O]
                     [--segment-frames N] [--gpus 0,1] [--slots N] [--scheduler ADDR]
    fssim-farm batch MANIFEST [--summary S.json] ...
    fssim-farm merge SEGMENT... -o LOG
    fssim-farm report LOG... -o REPORT.html [--renditions FILE... --reference FILE]
                     [--bitrates 4500,3000] [--names N...] [--scenes scdet]
    fssim-farm compare A.json B.json [-o COMPARE.html] [--a-bitrates ...] [--b-bitrates ...]
    fssim-farm worker SCHEDULER [--gpus 0,1,2,3] [--slots N]

Exit status: 0 success; 1 failure, with one message naming the file,
segment or title (batch: at least one title failed, the summary lists
them, or the manifest could not be read); 2 bad usage.
"""
import argparse
import json
import sys

from . import __version__
from .errors import FarmError
from .runner import CPU_SLOTS, DEFAULT_RETRIES, DEFAULT_SLOTS, GPU_STREAMS
from .segments import FILTERS


def _gpus(s):
    if s is None or s == "":
        return None
    try:
        return [int(x) for x in s.split(",") if x.strip() != ""]
    except ValueError:
        raise argparse.ArgumentTypeError("--gpus takes device indices, e.g. 0,1,2,3")


def _cluster_args(p):
    g = p.add_argument_group("cluster")
    g.add_argument("--gpus", type=_gpus, default=None,
                   help="GPU indices as the filter's backend enumerates them (CUDA: "
                        "CUDA_DEVICE_ORDER applies; Vulkan: the loader's order), one worker "
                        "each; default: one CPU worker per --workers")
    g.add_argument("--workers", type=int, default=None,
                   help="CPU workers on this host when no --gpus are given (default 1)")
    g.add_argument("--slots", type=int, default=DEFAULT_SLOTS,
                   help="segments scored at once per worker (default: per GPU, as many "
                        "as decode %d streams, e.g. 3 ladders of 7 or 10 pairs; per CPU "
                        "worker %d)" % (GPU_STREAMS, CPU_SLOTS))
    g.add_argument("--scheduler", default=None,
                   help="address of a running Dask scheduler (tcp://host:8786) whose "
                        "workers run fssim-farm worker; default: a cluster on this host")
    g.add_argument("--retries", type=int, default=DEFAULT_RETRIES,
                   help="times a failed segment is run again (default %d)" % DEFAULT_RETRIES)
    g.add_argument("--ffmpeg", default="ffmpeg", help="the ffmpeg with the fssim filters, as "
                   "the workers see it (default: ffmpeg on their PATH)")
    g.add_argument("--ffprobe", default=None,
                   help="ffprobe (default: beside --ffmpeg, else on PATH)")
    g.add_argument("--hwaccel", choices=("none", "cuda", "vulkan"), default=None,
                   help="decoding (fssim3d: the device it scores on); default: the "
                        "filter's own (fssim: none, fssim_cuda: cuda, fssim_vulkan: vulkan)")
    g.add_argument("--vulkan-from-cuda", action="store_true",
                   help="Vulkan devices derived from CUDA device --gpus N (same GPU by "
                        "UUID), so that both backends use CUDA's indices")
    g.add_argument("--upload", metavar="PIX_FMT", default=None,
                   help="decode in software and upload each input in this format to the "
                        "device (hwupload): codecs the GPU does not decode")
    g.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def build_parser():
    ap = argparse.ArgumentParser(prog="fssim-farm", description=__doc__.split("\n")[0])
    ap.add_argument("--version", action="version", version="fssim-farm " + __version__)
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("score", help="score one title in segments and merge its log")
    p.add_argument("--reference", required=True, help="the reference (path or URL)")
    p.add_argument("dists", nargs="+", metavar="DIST", help="the renditions")
    p.add_argument("-o", "--output", required=True, help="the merged log (.json or .csv)")
    p.add_argument("--filter", choices=FILTERS, default="fssim")
    p.add_argument("--options", default="", help="the filter's options, e.g. "
                   "'algo=float+int:window=11' (no log_path, log_fmt or seg options)")
    p.add_argument("--segment-frames", type=int, default=600,
                   help="about this many frames per segment, cut at the reference's "
                        "keyframes (default 600)")
    p.add_argument("--name", default=None, help="the title's name in messages")
    _cluster_args(p)

    p = sub.add_parser("batch", help="score the titles of a manifest (resumable)")
    p.add_argument("manifest", help="CSV or JSON: title, reference, renditions, options, output")
    p.add_argument("--summary", default=None,
                   help="the summary JSON (default MANIFEST.summary.json)")
    p.add_argument("--filter", choices=FILTERS, default="fssim",
                   help="the filter of rows without one")
    p.add_argument("--segment-frames", type=int, default=600)
    _cluster_args(p)

    p = sub.add_parser("merge", help="merge segment logs into the log of a whole run")
    p.add_argument("segments", nargs="+", metavar="SEGMENT")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--log-path", default=None,
                   help="the log_path option written in the merged log (default: -o as given)")
    p.add_argument("--no-segments-field", action="store_true",
                   help="leave out the segments field: the log then equals a whole run's "
                        "byte for byte")

    add_report_parser(sub)
    add_compare_parser(sub)

    p = sub.add_parser("worker", help="this host's Dask workers, one per GPU")
    p.add_argument("scheduler", help="the scheduler's address, tcp://host:8786")
    p.add_argument("--gpus", type=_gpus, default=None)
    p.add_argument("--slots", type=int, default=DEFAULT_SLOTS)
    p.add_argument("--name", default=None, help="prefix of the worker names (default: host)")
    return ap


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


def run_report(a):
    from .report import write_report
    s = write_report(a.logs, a.output, bitrates=a.bitrates, renditions=a.renditions,
                     reference=a.reference, names=a.names, title=a.title, metric=a.metric,
                     plane=a.plane, ffmpeg=a.ffmpeg, ffprobe=a.ffprobe, scenes=a.scenes,
                     scdet_threshold=a.scdet_threshold, events=a.events,
                     thumbnails=not a.no_thumbnails)
    if a.json:
        json.dump(s, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif not a.quiet:
        print("%s: %d renditions, %s %s; files beside it: %s" % (
            s["html"], len(s["renditions"]), s["metric"], s["plane"],
            ", ".join(sorted(s["files"]))))
    return 0


def run_compare(a):
    from .compare import compare
    s = compare(a.a, a.b, a.output, a_label=a.a_label, b_label=a.b_label, a_names=a.a_names,
                b_names=a.b_names, a_bitrates=a.a_bitrates, b_bitrates=a.b_bitrates,
                a_renditions=a.a_renditions, b_renditions=a.b_renditions,
                interpolation=a.interpolation, metric=a.metric, plane=a.plane,
                ffmpeg=a.ffmpeg, ffprobe=a.ffprobe)
    if a.json:
        json.dump(s, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif not a.quiet:
        print("BD of %s against %s (%s), the plane All:" % (s["b"]["label"], s["a"]["label"],
                                                          s["interpolation"]))
        for r in s["bd"]:
            # the rows in dB: a similarity's dB, a score in dB as is
            if r["plane"] != "All" or r["quality_unit"] != "dB":
                continue
            print("  %-8s %-12s BD-rate %9s  BD-quality %9s%s" % (
                r["algo"], r["scope"],
                "-" if r["bd_rate"] is None else "%+.2f %%" % r["bd_rate"],
                "-" if r["bd_quality"] is None else "%+.3f dB" % r["bd_quality"],
                ("  (%s)" % r["note"]) if r["note"] else ""))
        if s.get("html"):
            print(s["html"])
    return 0


def _cluster_kw(a):
    return dict(gpus=a.gpus, workers=a.workers, slots=a.slots, scheduler=a.scheduler,
                ffmpeg=a.ffmpeg, ffprobe=a.ffprobe, retries=a.retries,
                progress=not a.no_progress, hwaccel=a.hwaccel,
                vulkan_from_cuda=a.vulkan_from_cuda, upload=a.upload)


def main(argv=None):
    a = build_parser().parse_args(argv)
    from . import api
    try:
        if a.cmd == "merge":
            api.merge_segments(a.segments, a.output, log_path=a.log_path,
                      segments_field=not a.no_segments_field)
            return 0
        if a.cmd == "score":
            s = api.score(a.reference, a.dists, a.output, filter=a.filter, options=a.options,
                          segment_frames=a.segment_frames, name=a.name, **_cluster_kw(a))
            json.dump(s, sys.stdout, indent=2)
            sys.stdout.write("\n")
            return 0
        if a.cmd == "batch":
            s = api.batch(a.manifest, a.summary, filter=a.filter,
                          segment_frames=a.segment_frames, **_cluster_kw(a))
            print("%d titles ok, %d failed%s; summary: %s" % (
                s["ok"], len(s["failed"]),
                (": " + ", ".join(s["failed"])) if s["failed"] else "", s["summary_path"]))
            return 1 if s["failed"] else 0
        if a.cmd == "report":
            return run_report(a)
        if a.cmd == "compare":
            return run_compare(a)
        if a.cmd == "worker":
            from .runner import worker_main
            worker_main(a.scheduler, a.gpus, a.slots, a.name)
            return 0
    except FarmError as e:
        print("fssim-farm: %s" % e, file=sys.stderr)
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
