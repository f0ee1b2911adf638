"""A segment log read for merging: its header, its frames as the filter
wrote them (text), and its values as columns.

logs.read_log builds an object per frame and per rendition, which the
report and small logs need.  A merge of a title of hours (172,800 frames,
six renditions) only copies the frames and pools their values, so this
reader keeps each frame's text untouched (the merged log copies it, byte
for byte) and takes the values out with one pattern per algorithm over the
whole frames block, into one list per rendition, algorithm and component
(All last).  The logs' format is the filters' (filters/output/fssim_log.c): JSON
frames one per line, CSV rows with fixed columns.
"""
import json
import re

from . import logs
from .errors import LogError

_NUM = r"([^,}\]]+)"
_FRAMES_OPEN = '\n  "frames": ['
_FRAMES_CLOSE = '\n  ],\n  "frame_count": '


class Columns:
    """A log's header (the attributes of logs.Log: filter, schema_version,
    version, options, input, components, renditions, main, slots, complete,
    pooled, csv_columns), and

    frame_text  the frames as written: JSON one string per frame, CSV one
                string per row (a ladder's frame has a row per rendition)
    n, pts      per frame (pts None where the frame had none)
    values      {(k, slot): [column per component, All last]} (k None for
                two inputs), floats (None where JSON wrote null)
    mse         {k: [column per component, All last]} where psnr is scored
    counts      {k: frames of rendition k}
    trailer     JSON: the members between "complete" and "pooled" (text, in
                order); CSV: the comment lines after the pooled rows
    """

    def __init__(self, path, fmt):
        self.path, self.fmt = path, fmt
        self.filter = self.schema_version = self.version = None
        self.options, self.input, self.components = {}, {}, []
        self.renditions = self.main = self.pooled = self.complete = None
        self.slots, self.csv_columns = [], None
        self.algorithms = None              # the header's facts (logs.algorithm_facts)
        self.db_slots = set()               # without them: the slots with a dB value
        self.names = []                     # CSV: the # name lines, (pad, label)
        self.frame_text, self.n, self.pts = [], [], []
        self.values, self.mse, self.counts = {}, {}, {}
        self.frame_count = None
        self.trailer = []
        self.segments = None
        self.series = self.sorted = None    # merge.pool_columns(keep_sorted=True)

    is_ladder = logs.Log.is_ladder
    depth = logs.Log.depth
    option = logs.Log.option
    seg_range = logs.Log.seg_range

    def keys(self):
        return [r["k"] for r in self.renditions] if self.is_ladder else [None]

    def describe(self):
        a, b = self.seg_range()
        rng = "frames %d-%s" % (a, "end" if b < 0 else str(b - 1))
        if self.n:
            rng += " (logged %d-%d)" % (self.n[0], self.n[-1])
        return "%s [%s]" % (self.path, rng)


def read(path, values=True):
    """A JSON or CSV log as Columns (LogError when it cannot be read);
    values False: the header and the end alone (is the log complete, of
    which segment), without the frames' values."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise LogError("%s: %s" % (path, e.strerror or e))
    except UnicodeDecodeError:
        raise LogError("%s: not a log of fssim (not UTF-8 text)" % path)
    if text.lstrip().startswith("{"):
        return _read_json(path, text, values)
    if text.startswith("#"):
        return _read_csv(path, text, values)
    raise LogError("%s: neither a JSON nor a CSV log of fssim" % path)


def _floats(col, path, what):
    try:
        return list(map(float, col))
    except ValueError:
        pass
    out = []
    for s in col:
        if s == "null":
            out.append(None)
            continue
        try:
            out.append(float(s))
        except ValueError:
            raise LogError("%s: %s is not a number: %r" % (path, what, s[:40]))
    return out


def _members_between(text, start, end):
    """The top-level members of a JSON log between two offsets, as the
    filter wrote them ("name": value, one after the other)."""
    out, dec = [], json.JSONDecoder()
    i = start
    while True:
        m = re.compile(r',?\n  "([^"]+)": ').match(text, i)
        if not m or m.start() >= end:
            return out
        try:
            _, j = dec.raw_decode(text, m.end())
        except ValueError:
            return out
        out.append((m.group(1), text[m.start():j].lstrip(",").strip()))
        i = j


def _read_json(path, text, values=True):
    c = Columns(path, "json")
    i = text.find(_FRAMES_OPEN)
    j = text.find(_FRAMES_CLOSE, i)
    if i < 0 or j < 0:
        # a log cut short, or not the filter's layout: the slow reader
        # says what is wrong, or reads it
        return _from_log(logs.read_json(path, text))
    block = text[i + len(_FRAMES_OPEN):j]
    try:
        d = json.loads(text[:i] + '\n  "frames": []' + text[j + len("\n  ]"):])
    except ValueError as e:
        raise LogError("%s: not valid JSON (%s)" % (path, e))
    if not isinstance(d, dict):
        raise LogError("%s: not an fssim log" % path)
    logs.take_members(c, d, path)
    # what the filter writes between "complete" and "pooled" (pairing)
    k0 = text.find('\n  "complete": ', j)
    k1 = text.find('\n  "pooled": ', k0)
    if k0 >= 0:
        names = [n for n in d if n not in ("frame_count", "complete", "pooled", "segments")]
        after = _members_between(text, text.find("\n", k0 + 1), k1 if k1 >= 0 else len(text))
        c.trailer = [(n, t) for n, t in after if n in names]
    if not values:
        return c
    c.frame_text = block[5:].split(",\n    ") if block else []
    if not c.frame_text:
        c.slots = _slots_from_pooled(c)
        for k in c.keys():
            c.counts[k] = 0
        return c
    first = None
    for line in c.frame_text:
        fr = json.loads(line)
        ent = fr.get("renditions", [None])[0] if c.is_ladder else fr
        if ent:
            first = ent
            break
    c.slots = [key for key, v in first.items() if isinstance(v, dict) and key != "mse"] \
        if first else _slots_from_pooled(c)
    c.db_slots = {key for key in c.slots if first and "dB" in first[key]}
    heads = re.findall(r'^    \{"n": (-?\d+), "pts": (-?\d+|null)', block, re.M)
    if len(heads) != len(c.frame_text):
        raise LogError("%s: %d frames, but %d frame numbers" % (path, len(c.frame_text),
                                                                 len(heads)))
    c.n = [int(a) for a, _ in heads]
    c.pts = [None if b == "null" else int(b) for _, b in heads]
    comps = c.components + ["All"]
    if c.is_ladder:
        ks = list(map(int, re.findall(r'\{"k": (\d+)', block)))
    else:
        ks = None
    for slot in c.slots + (["mse"] if _has_mse(c) else []):
        rx = '"%s": \\{%s' % (re.escape(slot), ", ".join(
            '"%s": %s' % (re.escape(comp), _NUM) for comp in comps))
        rows = re.findall(rx, block)
        _columns(c, slot, rows, ks, len(comps))
    return c


def _has_mse(c):
    """A score in dB (psnr's kind) has its MSE beside it."""
    return any(not logs.has_db(c, slot) for slot in c.slots)


def _slots_from_pooled(c):
    pooled = c.pooled or {}
    first = (pooled.get("renditions") or [{}])[0] if c.is_ladder else pooled
    return [key for key, v in first.items() if isinstance(v, dict)]


def _columns(c, slot, rows, ks, nc):
    """rows: one tuple of strings per entry (frame, rendition), in order;
    ks: each entry's rendition (ladders)."""
    keys = c.keys()
    if ks is None:
        per = {None: rows}
        if len(rows) != len(c.frame_text):
            raise LogError("%s: %d frames but %d %s entries" % (c.path, len(c.frame_text),
                                                                len(rows), slot))
    else:
        if len(rows) != len(ks):
            raise LogError("%s: %d rendition entries but %d %s entries" % (
                c.path, len(ks), len(rows), slot))
        r = len(keys)
        if len(ks) == r * len(c.frame_text) and ks[:r] == keys and ks == keys * len(c.frame_text):
            per = {k: rows[i::r] for i, k in enumerate(keys)}
        else:
            per = {k: [] for k in keys}
            for k, row in zip(ks, rows):
                if k not in per:
                    raise LogError("%s: a frame has rendition %s, which the header lacks"
                                   % (c.path, k))
                per[k].append(row)
    for k in keys:
        cols = list(zip(*per[k])) if per[k] else [() for _ in range(nc)]
        vals = [_floats(col, c.path, "a %s value" % slot) for col in cols]
        if slot == "mse":
            c.mse[k] = vals
        else:
            c.values[(k, slot)] = vals
        c.counts[k] = len(per[k])


def _read_csv(path, text, values=True):
    c = Columns(path, "csv")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i = 0
    while i < len(lines) and lines[i].startswith("#"):
        i += 1
    # the header through the full reader, on the header lines alone
    head = logs.read_csv(path, "\n".join(lines[:i + 1]) + "\n")
    for attr in ("filter", "schema_version", "version", "options", "input", "components",
                 "renditions", "main", "slots", "csv_columns", "names", "algorithms",
                 "db_slots"):
        setattr(c, attr, getattr(head, attr))
    ncols = len(c.csv_columns.split(","))
    j = end = i + 1
    while end < len(lines) and lines[end][:1].isdigit():
        end += 1
    rows = lines[j:end]
    c.frame_text = rows
    k = end
    while k < len(lines) and not lines[k].startswith("#"):
        k += 1                      # the pooled rows: recomputed, never read
    for line in lines[k:]:
        if line.startswith("# frames="):
            c.frame_count = int(line.split("=", 1)[1])
        elif line.startswith("# complete="):
            c.complete = line.split("=", 1)[1] == "1"
        if line.startswith("# segments="):
            c.segments = line.split("=", 1)[1]
        else:
            c.trailer.append((None, line))
    if not values:
        return c
    fields = ",".join(rows).split(",") if rows else []
    if len(fields) != ncols * len(rows):
        for r in rows:
            if len(r.split(",")) != ncols:
                raise LogError("%s: row %r has %d columns, not %d" % (
                    path, r[:40], len(r.split(",")), ncols))
    col = [fields[x::ncols] for x in range(ncols)] if rows else [[] for _ in range(ncols)]
    try:
        ns = list(map(int, col[0]))
        ks = list(map(int, col[3])) if c.is_ladder else None
    except ValueError:
        raise LogError("%s: a frame row without a frame number" % path)
    c.pts = [int(p) if p else None for p in col[1]]
    # one frame per n: a ladder's rows of one frame are consecutive
    first = 4 if c.is_ladder else 3
    nc = len(c.components) + 1
    at = first
    keys = c.keys()
    for k in keys:
        c.counts[k] = 0
    sel = {k: None for k in keys}
    if c.is_ladder:
        for k in keys:
            sel[k] = [x for x, kk in enumerate(ks) if kk == k]
        bad = set(ks) - set(keys)
        if bad:
            raise LogError("%s: a frame has rendition %s, which the header lacks"
                           % (path, sorted(bad)[0]))
    for slot in c.slots:
        width = nc + 1 if logs.has_db(c, slot) else 2 * nc
        for k in keys:
            rowsel = sel[k]
            vals = []
            for x in range(nc):
                src = col[at + x]
                vals.append(_floats(src if rowsel is None else [src[r] for r in rowsel],
                                    path, "column " + c.csv_columns.split(",")[at + x]))
            c.values[(k, slot)] = vals
            if not logs.has_db(c, slot):
                mse = []
                for x in range(nc):
                    src = col[at + nc + x]
                    mse.append(_floats(src if rowsel is None else [src[r] for r in rowsel],
                                       path, "an mse column"))
                c.mse[k] = mse
            c.counts[k] = len(vals[0])
        at += width
    # frames: runs of rows with one n
    c.n, frame_rows = [], []
    prev = None
    for x, nn in enumerate(ns):
        if nn != prev:
            c.n.append(nn)
            frame_rows.append(x)
            prev = nn
    c.pts = [c.pts[x] for x in frame_rows]
    c.row_frames = frame_rows
    return c


def _from_log(log):
    """Columns of a log read by the slow reader (logs.read_json)."""
    c = Columns(log.path, log.fmt)
    for attr in ("filter", "schema_version", "version", "options", "input", "components",
                 "renditions", "main", "slots", "csv_columns", "complete", "pooled",
                 "frame_count", "segments", "names", "algorithms", "db_slots"):
        setattr(c, attr, getattr(log, attr))
    nc = len(c.components) + 1
    for k in c.keys():
        c.counts[k] = 0
        for slot in c.slots:
            c.values[(k, slot)] = [[] for _ in range(nc)]
        if _has_mse(c):
            c.mse[k] = [[] for _ in range(nc)]
    for fr in log.frames:
        c.n.append(fr.n)
        pts = fr.payload.get("pts") if isinstance(fr.payload, dict) else None
        c.pts.append(pts)
        c.frame_text.append(logs.json_value(fr.payload))
        for e in fr.entries:
            if e.k not in c.counts:
                raise LogError("%s: frame %d has rendition %s, which the header lacks"
                               % (log.path, fr.n, e.k))
            c.counts[e.k] += 1
            for slot in c.slots:
                for x in range(nc):
                    c.values[(e.k, slot)][x].append(e.scores[slot][x])
            if e.mse is not None:
                for x in range(nc):
                    c.mse[e.k][x].append(e.mse[x])
    return c
