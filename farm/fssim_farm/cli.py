"""fssim-farm: the command line (doc/farm.md).

    fssim-farm score --reference REF DIST... [-o LOG.json] [--filter F] [--options O]
                     [--segment-frames N] [--gpus 0,1] [--slots N] [--scheduler ADDR]
    fssim-farm batch MANIFEST [--summary S.json] ...
    fssim-farm merge SEGMENT... -o LOG
    fssim-farm report LOG -o REPORT.html [--bitrates 1:4500,2:3000]
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

    p = sub.add_parser("report", help="an HTML report of a log, with PNG plots")
    p.add_argument("log")
    p.add_argument("-o", "--output", required=True, help="REPORT.html; plots beside it")
    p.add_argument("--bitrates", default=None,
                   help="kbit/s per rendition, '1:4500,2:3000' or '4500,3000' in order")
    p.add_argument("--renditions", nargs="*", default=None,
                   help="the renditions' files, in order, to ffprobe their bitrates")
    p.add_argument("--metric", default=None,
                   help="algorithm to plot (default: float, else the log's first)")

    p = sub.add_parser("worker", help="this host's Dask workers, one per GPU")
    p.add_argument("scheduler", help="the scheduler's address, tcp://host:8786")
    p.add_argument("--gpus", type=_gpus, default=None)
    p.add_argument("--slots", type=int, default=DEFAULT_SLOTS)
    p.add_argument("--name", default=None, help="prefix of the worker names (default: host)")
    return ap


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
            from .report import parse_bitrates
            api.write_report(a.log, a.output, bitrates=parse_bitrates(a.bitrates, a.renditions),
                       metric=a.metric)
            return 0
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
