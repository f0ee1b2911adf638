"""Cutting a title into segments, and the ffmpeg command of one segment.

The reference's packets are probed once: sorted by presentation time they
are the title's frames, and their keyframe flags say where a decoder can
start.  A segment [start, end) begins at a reference keyframe; its run
decodes every input from `base` (the keyframe at or before the first frame
the filter needs: `start`, or for fssim3d `start - depth/2`, its temporal
context) with

    ffmpeg -copyts -start_at_zero -ss T-0.5 -i DIST ... -ss T -i REF
           -lavfi "...fssim=...:seg_base=base:seg_start=start:seg_end=end:seg_total=N" \
           -f null -

where T is halfway between the timestamps of frames base-1 and base: the
accurate seek keeps frame base of the input that leads framesync (a
ladder's reference; the main input of a pair and of fssim3d, whose
frames carry the reference's timestamps) and drops base-1, and -copyts
-start_at_zero keeps the whole run's timestamps, so the filter logs each
frame with the title's n and pts and the very values of a whole run
(seg_total, the title's frame count, goes into the log, so that a merge
knows when the title's head or tail is missing).  The
other inputs start half a second earlier (OTHER_LEAD), so that framesync
finds for the first leading frame the frame a whole run pairs with it,
even where that frame's timestamp lies a little before (coarser time
bases) or far before (lower frame rates).
"""
import bisect
import hashlib
import json
import os
import re
import subprocess
from fractions import Fraction
from urllib.parse import urlsplit

from .errors import ScoreError

FILTERS = ("fssim", "fssim_cuda", "fssim_vulkan", "fssim3d")
# the kind of frames each filter takes; fssim3d scores on whatever it gets
HWACCEL = {"fssim": "none", "fssim_cuda": "cuda", "fssim_vulkan": "vulkan", "fssim3d": "none"}
FSSIM3D_DEFAULT_DEPTH = 11
# the inputs that do not lead framesync start this much (seconds, exact)
# before the leading one: the frame a whole run pairs with the segment's
# first leading frame may lie before it (an input in a container of coarser
# timestamps, or of a lower frame rate), and framesync pairs it only if it
# is there
OTHER_LEAD = Fraction(1, 2)


class Probe:
    """The reference's frames: timestamps (in time_base units, presentation
    order), which of them are keyframes, and the file's start time; and
    the stream's codec, frame rate and size (stream: a dict of ffprobe's
    fields), for the checks before scoring."""

    def __init__(self, pts, keyframes, time_base, start_time, stream=None):
        self.pts = pts
        self.keyframes = keyframes
        self.time_base = time_base
        self.start_time = start_time
        self.stream = stream or {}

    @property
    def nb_frames(self):
        return len(self.pts)

    def seek_time(self, k):
        """T for a run that starts at frame k: the midpoint of frames k-1
        and k, in seconds from the file's start, as an exact decimal."""
        mid = Fraction(self.pts[k - 1] + self.pts[k], 2) * self.time_base - self.start_time
        return mid

    def to_json(self):
        return {"pts": self.pts, "keyframes": self.keyframes,
                "time_base": str(self.time_base), "start_time": str(self.start_time),
                "stream": self.stream}

    @classmethod
    def from_json(cls, d):
        return cls(d["pts"], d["keyframes"], Fraction(d["time_base"]), Fraction(d["start_time"]),
                   d.get("stream"))


STREAM_FIELDS = "codec_name,width,height,r_frame_rate,avg_frame_rate,time_base"


def probe(path, ffprobe="ffprobe"):
    """Probe the reference's first video stream's packets once (a title of
    two hours: 172,800 packets, read by the demuxer alone)."""
    cmd = [ffprobe, "-v", "error", "-select_streams", "v:0", "-show_entries",
           "stream=%s:format=start_time:packet=pts,flags" % STREAM_FIELDS, "-of", "json", path]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        raise ScoreError("cannot run %s: %s" % (ffprobe, e.strerror or e))
    if p.returncode != 0:
        raise ScoreError("%s: ffprobe cannot read it: %s" % (path, p.stderr.strip()[-500:]))
    try:
        d = json.loads(p.stdout)
    except ValueError:
        raise ScoreError("%s: ffprobe's output is not JSON" % path)
    try:
        st = d["streams"][0]
        tb = Fraction(st["time_base"])
    except (KeyError, IndexError, ValueError, ZeroDivisionError):
        raise ScoreError("%s: no video stream" % path)
    start = d.get("format", {}).get("start_time")
    start = Fraction(start) if start not in (None, "N/A") else Fraction(0)
    pkts = d.get("packets", [])
    if not pkts:
        raise ScoreError("%s: no video packets" % path)
    if any(pk.get("pts") in (None, "N/A") for pk in pkts):
        raise ScoreError("%s: packets without timestamps (a raw elementary stream?): remux "
                         "it into Matroska or MP4 so that segments can seek" % path)
    raw = [int(pk["pts"]) for pk in pkts]
    order = sorted(range(len(raw)), key=raw.__getitem__)
    pts = [raw[i] for i in order]
    if len(set(pts)) != len(pts):
        raise ScoreError("%s: two frames share a timestamp" % path)
    keys = [j for j, i in enumerate(order) if "K" in pkts[i].get("flags", "")]
    if not keys or keys[0] != 0:
        keys = [0] + keys
    stream = {k: st[k] for k in STREAM_FIELDS.split(",") if k in st}
    return Probe(pts, keys, tb, start, stream)


def first_frame_time(path, ffprobe="ffprobe"):
    """The time of the first frame the decoder gives of path's first video
    stream, in the timeline a segment's run has (-copyts -start_at_zero: the
    file's start time subtracted, rounded into the stream's time base as the
    ffmpeg tool does), as an exact "N/D" of seconds: the filters' seg_starts,
    from which pairing=nearest counts each input's times in every segment as
    a whole run does."""
    cmd = [ffprobe, "-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#60",
           "-show_entries", "stream=time_base:format=start_time:frame=pts,best_effort_timestamp",
           "-of", "json", path]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise ScoreError("%s: ffprobe failed: %s" % (path, p.stderr.strip()[-500:]))
    d = json.loads(p.stdout)
    try:
        tb = Fraction(d["streams"][0]["time_base"])
    except (KeyError, IndexError):
        raise ScoreError("%s: no video stream" % path)
    frames = [f.get("pts", f.get("best_effort_timestamp")) for f in d.get("frames", [])]
    frames = [int(x) for x in frames if x not in (None, "N/A")]
    if not frames:
        raise ScoreError("%s: no video frame decodes at its start" % path)
    start = d.get("format", {}).get("start_time")
    start_us = int(Fraction(start) * 1000000) if start not in (None, "N/A") else 0
    # av_rescale_q(-start_us, AV_TIME_BASE_Q, tb): rounded half away from zero
    off = Fraction(-start_us, 1000000) / tb
    off = int(off + (Fraction(1, 2) if off >= 0 else Fraction(-1, 2)))
    t = (frames[0] + off) * tb
    return "%d/%d" % (t.numerator, t.denominator)


class Segment:
    """Title frames [start, end) of a title of `total` frames, decoded from
    frame base; seek: the time its run seeks to (Fraction of seconds from
    the file's start; None: from the start)."""

    def __init__(self, index, start, end, base, total=None, seek=None):
        self.index, self.start, self.end, self.base = index, start, end, base
        self.total, self.seek = total, seek

    def __repr__(self):
        return "Segment(%d: %d-%d from %d)" % (self.index, self.start, self.end, self.base)

    @property
    def frames(self):
        return self.end - self.start

    def name(self, ext):
        return "seg_%08d_%08d.%s" % (self.start, self.end, ext)

    def to_json(self):
        return {"index": self.index, "start": self.start, "end": self.end, "base": self.base,
                "total": self.total, "seek": None if self.seek is None else str(self.seek)}

    @classmethod
    def from_json(cls, d):
        return cls(d["index"], d["start"], d["end"], d["base"], d.get("total"),
                   None if d.get("seek") is None else Fraction(d["seek"]))


def context_frames(filter_name, options):
    """The frames before a segment that its filter must see first: fssim3d's
    temporal context (depth/2), none for the 2-D filters."""
    if filter_name != "fssim3d":
        return 0
    depth = FSSIM3D_DEFAULT_DEPTH
    m = re.search(r"(?:^|:)depth=(\d+)", options or "")
    if m:
        depth = int(m.group(1))
    return depth // 2


def _nearest_key(keys, target, after):
    """The keyframe nearest to target that lies after `after` (the lower
    one on a tie), or None."""
    i = bisect.bisect_right(keys, target)
    below = keys[i - 1] if i and keys[i - 1] > after else None
    above = keys[i] if i < len(keys) else None
    if below is None:
        return above
    if above is None or target - below <= above - target:
        return below
    return above


def plan(probe_, segment_frames=None, context=0, count=None):
    """Segments cut at reference keyframes: about segment_frames frames
    each, or `count` segments of equal shares.  The i-th cut is the
    keyframe nearest to i times the segment size from the title's start
    (not from the previous cut, so that keyframes every K frames do not
    round every segment down: 150-frame segments of a title with a
    keyframe every 60 frames average 150 frames).  Never an empty
    segment.  Each is decoded from the last keyframe at or before start -
    context, and knows the title's frame count and its seek time."""
    n = probe_.nb_frames
    keys = probe_.keyframes
    if count is not None:
        size = n / max(1, count)
    else:
        size = segment_frames if segment_frames and segment_frames > 0 else n
    cuts = [0]
    i = 1
    while True:
        target = round(i * size)
        if target >= n:
            break
        cut = _nearest_key(keys, target, cuts[-1])
        if cut is None or cut >= n:
            break
        if cut > cuts[-1]:
            cuts.append(cut)
        i += 1
    segs = []
    for i, a in enumerate(cuts):
        b = cuts[i + 1] if i + 1 < len(cuts) else n
        first = max(0, a - context)
        base = keys[bisect.bisect_right(keys, first) - 1]
        segs.append(Segment(i, a, b, base, n, probe_.seek_time(base) if base > 0 else None))
    return segs


def input_identity(paths):
    """The title of a title's inputs, for the filters' `title` option: a
    digest of the paths (or URLs) with each file's size and modification
    time, so that segments of different inputs are never merged."""
    h = hashlib.sha256()
    for p in paths:
        h.update(p.encode())
        try:
            st = os.stat(p)
            h.update(b"\t%d\t%d" % (st.st_size, int(st.st_mtime)))
        except OSError:
            pass       # a URL: its name alone
        h.update(b"\n")
    return "fssimfarm-" + h.hexdigest()[:20]


def escape_value(s):
    """A filter option's value inside a -lavfi graph: escaped for the
    option parser (\\ ' :) and then for the graph parser (\\ ' [ ] , ;)."""
    s = re.sub(r"([\\':])", r"\\\1", s)
    return re.sub(r"([\\'\[\],;])", r"\\\1", s)


def hw_args(hwaccel, gpu, nb_inputs, vulkan_from_cuda=False, upload=False):
    """The device of a segment's run and its decoders' arguments per input
    (none with upload: software decoding, hwupload in the graph)."""
    if hwaccel == "none":
        return [], [[] for _ in range(nb_inputs)]
    if gpu is None:
        gpu = 0
    if hwaccel == "cuda":
        dev = ["-init_hw_device", "cuda=g:%d" % gpu]
    elif vulkan_from_cuda:
        # the Vulkan device of the same GPU as CUDA device `gpu` (by UUID)
        dev = ["-init_hw_device", "cuda=c:%d" % gpu, "-init_hw_device", "vulkan=g@c"]
    else:
        dev = ["-init_hw_device", "vulkan=g:%d" % gpu]
    per = [] if upload else ["-hwaccel", hwaccel, "-hwaccel_device", "g",
                             "-hwaccel_output_format", hwaccel]
    return dev + ["-filter_hw_device", "g"], [list(per) for _ in range(nb_inputs)]


def leading_input(filter_name, nb_dist):
    """The input whose frames lead framesync (and that seg_base counts):
    the main input of a pair and of fssim3d, the reference of a ladder."""
    return 0 if nb_dist == 1 else nb_dist


def names_value(paths):
    """The filters' `names` option of these inputs: each one's file name
    (a URL's last part), '|'-separated, a label's '|', quotes, backslashes
    and spaces escaped for the filter's split (av_get_token)."""
    labels = [os.path.basename((urlsplit(p).path if "://" in p else p).rstrip("/")) or p
              for p in paths]
    return "|".join(re.sub(r"([\\'|\s])", r"\\\1", x) for x in labels)


def filter_graph(filter_name, nb_dist, options, log_path, log_fmt, title, seg=None,
                 upload=None, starts=None, names=None):
    """The -lavfi graph: renditions first, the reference last; upload: a
    software format to upload every input in (hwupload to the run's
    device), for codecs the GPU does not decode or devices without video
    decoding (lavapipe); names: the `names` option (names_value())."""
    opts = []
    if filter_name != "fssim3d" and nb_dist > 1:
        opts.append("inputs=%d" % (nb_dist + 1))
    if options:
        opts.append(options)
    opts.append("log_path=" + escape_value(log_path))
    opts.append("log_fmt=" + log_fmt)
    if title:
        opts.append("title=" + escape_value(title))
    if names:
        opts.append("names=" + escape_value(names))
    if seg is not None:
        opts.append("seg_base=%d:seg_start=%d:seg_end=%d" % (seg.base, seg.start, seg.end))
        if seg.total is not None:
            opts.append("seg_total=%d" % seg.total)
        # a cut run does not see the title's first frames, from which
        # pairing=nearest counts times
        if seg.base > 0 and starts:
            opts.append("seg_starts=" + escape_value("|".join(starts)))
    if upload:
        chains = ";".join("[%d:v]format=%s,hwupload[u%d]" % (i, upload, i)
                          for i in range(nb_dist + 1))
        pads = "".join("[u%d]" % i for i in range(nb_dist + 1))
        return "%s;%s%s=%s" % (chains, pads, filter_name, ":".join(opts))
    pads = "".join("[%d:v]" % i for i in range(nb_dist + 1))
    return "%s%s=%s" % (pads, filter_name, ":".join(opts))


def command(ffmpeg, filter_name, reference, dists, options, log_path, log_fmt="json",
            title=None, seg=None, probe_=None, hwaccel=None, gpu=None, progress=True,
            vulkan_from_cuda=False, upload=None, starts=None):
    """The argument list of one run: a whole run with seg None, else the
    run of segment seg (its seek time, or probe_'s; starts every input's
    first_frame_time(), renditions first).  upload: decode in software and
    upload in this pixel format (filter_graph)."""
    hwaccel = hwaccel or HWACCEL[filter_name]
    inputs = list(dists) + [reference]
    dev, per = hw_args(hwaccel, gpu, len(inputs), vulkan_from_cuda, bool(upload))
    cmd = [ffmpeg, "-hide_banner", "-nostdin", "-y", "-v", "error"]
    if progress:
        cmd += ["-nostats", "-progress", "pipe:1", "-stats_period", "0.5"]
    cmd += dev
    seek_lead = seek_other = []
    if seg is not None and seg.base > 0:
        t = seg.seek if seg.seek is not None else probe_.seek_time(seg.base)
        cmd += ["-copyts", "-start_at_zero"]
        seek_lead = ["-ss", _decimal(t)]
        if t > OTHER_LEAD:
            seek_other = ["-ss", _decimal(t - OTHER_LEAD)]
    lead = leading_input(filter_name, len(dists))
    for i, path in enumerate(inputs):
        cmd += per[i] + (seek_lead if i == lead else seek_other) + ["-i", path]
    cmd += ["-lavfi", filter_graph(filter_name, len(dists), options, log_path, log_fmt,
                                   title, seg, upload, starts, names_value(inputs)), "-f", "null", "-"]
    return cmd


def _decimal(t):
    """An exact-enough decimal of a Fraction of seconds (to the nanosecond,
    far inside half a frame)."""
    ns = round(t * 1000000000)
    return "%d.%09d" % (ns // 1000000000, ns % 1000000000)
