"""The renditions of one title as the report and compare read them.

A `Title` holds one or more logs of one reference (a ladder, or a sweep
scored in several ladders) as `Rung`s: each rendition's name, size, frame
numbers, times and per-frame values of every algorithm and plane as numpy
arrays, its pooled values, and the filter's pairing counts where the log
has them.  Names come from --names, else from the log (the filters'
`names` option, which fssim-farm score sets to the inputs' file names),
else from the pads.
"""
import math
import os

from . import logs
from .errors import FarmError
from .pooling import nearest_rank, psnr_cap

# What an algorithm is -- a similarity in [0, 1] shown also in dB
# (-10 log10(1 - s)), or a score in dB pooled as PSNR -- and its
# description come from the log (the filters' table of algorithms, see
# logs.algorithm_facts), not from a list here.  These are only shorter
# labels for the page than the descriptions of the first algorithms; any
# other algorithm is labelled by its description.
LABELS = {"float": "float SSIM", "int": "int SSIM", "block": "block SSIM (FFmpeg ssim)",
          "psnr": "PSNR", "msssim": "MS-SSIM", "fssim3d": "3-D SSIM"}
# the dB of a similarity of 1 (identical planes) is infinite: drawn and
# listed at this ceiling (1 - s = 1e-10)
DB_MAX = 100.0
POOLED = ("mean", "harmonic_mean", "min", "p1", "p5", "p50")


def to_db(v):
    """-10 log10(1 - v) of a similarity (scalar or numpy array), at most DB_MAX."""
    import numpy as np
    a = np.asarray(v, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        d = -10.0 * np.log10(np.maximum(1.0 - a, 10.0 ** (-DB_MAX / 10.0)))
    return d if d.ndim else float(d)


class Rung:
    """One rendition of the title.

    index     its place in the report (0-based, the order of the logs and
              their renditions)
    k         its number in its log (None: a pair's main input)
    pad       the filter's pad ("dist2", "main")
    name      what the report calls it
    size      (width, height) of the rendition as decoded
    n, t      numpy arrays: the title frame numbers scored and their times (s)
    values    {(algo, plane): numpy array of per-frame values}; PSNR capped
              as the filters pool it
    pooled    {(algo, plane): {"mean", "harmonic_mean", "min", "p1", "p5",
              "p50", ...}}
    pairing   the filter's counts for this input ({"lacks", "excess",
              "damaged", ...}) or None
    kbps      its bitrate in kbit/s, or None
    """

    def __init__(self, index, log, k, pad, size):
        self.index, self.log, self.k, self.pad, self.size = index, log, k, pad, size
        self.name = None
        self.file_name = None      # the log's label of it (the names option)
        self.n = self.t = None
        self.values = {}
        self.pooled = {}
        self.pairing = None
        self.kbps = None

    @property
    def algos(self):
        return self.log.slots

    @property
    def size_label(self):
        return "%dx%d" % self.size

    @property
    def label(self):
        return "%s (%s)" % (self.name, self.size_label)

    @property
    def frames(self):
        return len(self.n)


class Title:
    """The logs of one title: rungs, the reference, the algorithms and planes."""

    def __init__(self, logs_, rungs):
        self.logs, self.rungs = logs_, rungs
        first = logs_[0]
        self.components = list(first.components)
        self.planes = self.components + ["All"]
        self.algos = []
        self.facts = {}          # {algo: {"description", "db", "pooling"}}
        for lg in logs_:
            for a in lg.slots:
                if a not in self.algos:
                    self.algos.append(a)
                    self.facts[a] = logs.algorithm_facts(lg, a)
        # similarities, shown also in dB; scores that are dB already (psnr)
        self.ssim_like = [a for a in self.algos if self.facts[a]["db"]]
        self.in_db = [a for a in self.algos if self.facts[a]["pooling"] == "psnr"]
        self.labels = {a: LABELS.get(a) or _label(a, self.facts[a]) for a in self.algos}
        self.reference = dict(first.input)
        self.depth = first.depth
        self.filter = first.filter
        self.version = first.version
        self.name = None
        self.notes = []          # what a reader must know: cut-short logs, pairing
        ts = [r.t for r in rungs if len(r.t) > 1]
        self.fps = _fps(ts[0]) if ts else None

    @property
    def reference_pairing(self):
        for lg in self.logs:
            for e in (lg.pairing or {}).get("inputs", []):
                if e.get("pad") == "reference" and e.get("damaged"):
                    return e
        return None


def _label(algo, facts):
    d = facts.get("description") or algo
    return d if algo in d else "%s (%s)" % (algo, d)


def _fps(t):
    import numpy as np
    d = np.diff(t[np.isfinite(t)])
    d = d[d > 0]
    return float(1.0 / np.median(d)) if len(d) else None


def _pts_time(fr):
    if isinstance(fr.payload, dict):
        v = fr.payload.get("pts_time")
        return math.nan if v is None else v
    try:
        return float(fr.payload[0].split(",")[2])
    except (IndexError, ValueError):
        return math.nan


def _rungs_of(log, first_index):
    """The log's renditions as Rungs, their per-frame values read."""
    import numpy as np
    if log.is_ladder:
        keys = [r["k"] for r in log.renditions]
        descr = {r["k"]: r for r in log.renditions}
    else:
        keys = [None]
        descr = {None: log.main or dict(log.input, pad="main")}
    inp = log.input
    rungs = {}
    for i, k in enumerate(keys):
        d = descr[k]
        r = Rung(first_index + i, log, k, d.get("pad", "main"),
                 (int(d.get("width", inp["width"])), int(d.get("height", inp["height"]))))
        r.file_name = d.get("name")
        rungs[k] = r
    acc = {k: ([], [], {a: [] for a in log.slots}) for k in keys}
    for fr in log.frames:
        pt = _pts_time(fr)
        for e in fr.entries:
            a = acc.get(e.k)
            if a is None:
                raise FarmError("%s: frame %d has rendition %s, which the header lacks"
                                % (log.path, fr.n, e.k))
            a[0].append(fr.n)
            a[1].append(pt)
            for slot in log.slots:
                a[2][slot].append(e.scores[slot])
    planes = log.components + ["All"]
    cap = psnr_cap(log.depth)
    for k in keys:
        r = rungs[k]
        n, t, vals = acc[k]
        r.n = np.asarray(n, dtype=np.int64)
        r.t = np.asarray(t, dtype=float)
        for slot in log.slots:
            # None (JSON null) reads as NaN: for psnr an infinite PSNR, capped
            m = np.asarray(vals[slot], dtype=float).reshape(len(n), len(planes))
            if logs.pooled_as_psnr(log, slot):
                m = np.where(np.isnan(m), cap, np.minimum(m, cap))
            for c, plane in enumerate(planes):
                r.values[(slot, plane)] = np.ascontiguousarray(m[:, c])
    _pool(log, [rungs[k] for k in keys])
    _pairing(log, [rungs[k] for k in keys])
    return [rungs[k] for k in keys]


def _pool(log, rungs):
    """The pooled values: the filter's own where the log is a complete JSON
    log, else computed here with the filters' definitions."""
    planes = log.components + ["All"]
    own = None
    if log.fmt == "json" and log.complete and log.pooled:
        own = ({r["k"]: r for r in log.pooled.get("renditions", [])} if log.is_ladder
               else {None: log.pooled})
    for r in rungs:
        src = own.get(r.k) if own else None
        for slot in log.slots:
            for plane in planes:
                if src and slot in src and plane in src[slot]:
                    r.pooled[(slot, plane)] = {name: _num(v) for name, v in
                                               src[slot][plane].items()}
                else:
                    r.pooled[(slot, plane)] = pool_values(r.values[(slot, plane)])


def _num(v):
    return math.nan if v is None else float(v)


def pool_values(v):
    """mean, harmonic mean (libvmaf's), min, max and the nearest-rank p1, p5
    and median of per-frame values, as the filters pool them."""
    import numpy as np
    v = np.asarray(v, dtype=float)
    if not len(v):
        return {name: math.nan for name in POOLED + ("max",)}
    s = np.sort(v)
    n = len(v)
    with np.errstate(divide="ignore"):
        inv = float(np.sum(1.0 / (1.0 + v)))
    out = {"mean": float(np.mean(v)), "min": float(s[0]), "max": float(s[-1]),
           "harmonic_mean": (n / inv - 1.0) if inv else math.inf}
    for name, p in (("p1", 1.0), ("p5", 5.0), ("p50", 50.0)):
        out[name] = float(s[max(1, nearest_rank(p, n)) - 1])
    return out


def _pairing(log, rungs):
    inputs = (log.pairing or {}).get("inputs", [])
    for r in rungs:
        for e in inputs:
            if e.get("pad") == r.pad:
                r.pairing = e


def _same_reference(a, b):
    ka = (a.input.get("pix_fmt"), a.input.get("width"), a.input.get("height"))
    kb = (b.input.get("pix_fmt"), b.input.get("width"), b.input.get("height"))
    if ka != kb:
        raise FarmError("%s and %s score different references (%s %sx%s against %s %sx%s): "
                        "give logs of one title" % ((a.path, b.path) + ka + kb))
    if list(a.components) != list(b.components):
        raise FarmError("%s and %s have different planes (%s, %s)" % (
            a.path, b.path, "".join(a.components), "".join(b.components)))
    na, nb = a.input.get("name"), b.input.get("name")
    if na and nb and na != nb:
        raise FarmError("%s and %s score different references (%s, %s): give logs of one "
                        "title" % (a.path, b.path, na, nb))


def load(paths, names=None, title=None, files=None):
    """The Title of one or more logs of one reference.  names: one per
    rendition of all the logs, in order (--names), or None; files: the
    renditions' files, whose names are used where a log has none."""
    if not paths:
        raise FarmError("no log given")
    logs_ = [logs.read_log(p) for p in paths]
    for lg in logs_:
        if not lg.frames:
            raise FarmError("%s: no frames scored: nothing to report" % lg.path)
        if lg.input.get("pix_fmt") is None:
            raise FarmError("%s: the log has no input description (a log of fssim?)" % lg.path)
    for lg in logs_[1:]:
        _same_reference(logs_[0], lg)
    rungs = []
    for lg in logs_:
        rungs += _rungs_of(lg, len(rungs))
    t = Title(logs_, rungs)
    _name_rungs(t, names, len(logs_) > 1, files)
    ref = t.reference.get("name")
    t.name = title or ref or os.path.splitext(os.path.basename(paths[0]))[0]
    for lg in logs_:
        if not lg.complete:
            t.notes.append("%s was cut short (complete: false): %d frames, no pooled values "
                           "from the filter" % (os.path.basename(lg.path), len(lg.frames)))
    for r in rungs:
        p = r.pairing or {}
        bad = ["%d %s" % (p[x], w) for x, w in (("lacks", "reference frames without a frame "
                                                 "of it"),
                                                ("excess", "frames of its own in excess"),
                                                ("damaged", "frames damaged in decoding"))
               if p.get(x)]
        if bad:
            t.notes.append("%s: %s" % (r.name, ", ".join(bad)))
    rp = t.reference_pairing
    if rp:
        t.notes.append("the reference: %d frames damaged in decoding" % rp["damaged"])
    return t


def _name_rungs(t, names, several, files=None):
    if names is not None:
        if len(names) != len(t.rungs):
            raise FarmError("--names gives %d names for %d renditions: give one per rendition, "
                            "in the logs' order" % (len(names), len(t.rungs)))
        for r, name in zip(t.rungs, names):
            r.name = name
    else:
        for r in t.rungs:
            if r.file_name:
                r.name = r.file_name
            elif files and len(files) == len(t.rungs):
                r.name = os.path.basename(files[r.index].rstrip("/")) or files[r.index]
            else:
                stem = os.path.splitext(os.path.basename(r.log.path))[0]
                r.name = "%s:%s" % (stem, r.pad) if several else r.pad
    seen = {}
    for r in t.rungs:
        if r.name in seen:
            seen[r.name] += 1
            r.name = "%s #%d" % (r.name, seen[r.name])
        else:
            seen[r.name] = 1
