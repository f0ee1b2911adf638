"""Reading and writing the filters' JSON and CSV logs in their own format.

The writer reproduces the filters' log writer (filters/output/fssim_log.c, once
fssim_output.c) character for character -- the same members in the same
order, the same separators and indents, numbers with %.17g (Python's and C's
%.17g print the same correctly rounded digits), non-finite numbers as
null -- so that a merged log can be compared with a whole run's by `cmp`.

A log is held as a `Log`: its header (filter, versions, options, input,
renditions), its frames in order, and for each frame the values that the
pooling reads.  JSON frames keep their parsed objects and are written back
from them; CSV frames keep their rows' text, which is copied unchanged.
"""
import json
import math
import re

from .errors import LogError
from .pooling import db

SCHEMA_VERSIONS = (1,)
# options that describe where one run writes or which part of the title it
# scores, not how it scores: they may differ between the segments of a title
SEGMENT_OPTIONS = ("seg_base", "seg_start", "seg_end", "seg_total", "seg_starts")
OUTPUT_OPTIONS = ("log_path", "stats_file")
# a segment option's value in a run that did not set it (the filters leave
# such an option out of the logs)
SEGMENT_DEFAULTS = {"seg_base": "0", "seg_start": "0", "seg_end": "-1", "seg_total": "-1",
                    "seg_starts": ""}


def fmt_number(v):
    """json_number()/"%.17g" of the C writer."""
    if isinstance(v, bool):
        raise TypeError("bool is not a number")
    if isinstance(v, int):
        return str(v)
    if v is None or not math.isfinite(v):
        return "null"
    return "%.17g" % v


def fmt_csv_number(v):
    """fprintf("%.17g") of a double, non-finite values included (inf, nan)."""
    return "%.17g" % v


def json_string(s):
    """json_string() of the C writer: only '"', '\\' and control bytes escaped."""
    out = ['"']
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def json_value(v):
    """A parsed JSON value back in the C writer's spacing: ", " and ": "."""
    if isinstance(v, dict):
        return "{" + ", ".join(json_string(k) + ": " + json_value(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(json_value(x) for x in v) + "]"
    if isinstance(v, str):
        return json_string(v)
    if v is True:
        return "true"
    if v is False:
        return "false"
    return fmt_number(v)


# ---------------------------------------------------------------------------
# What the log says of its algorithms
# ---------------------------------------------------------------------------

def algorithm_facts(log, slot):
    """The facts of one algorithm of a log: {"description", "db", "pooling"}.

    A log's header carries them (the filters' table of algorithms); a log
    written before it did says as much by its layout: a similarity has a
    dB value beside it and is pooled by its values, a score in dB (psnr)
    has its MSE beside it and is pooled as PSNR."""
    facts = (log.algorithms or {}).get(slot)
    if facts is not None:
        return facts
    db = slot in log.db_slots
    return {"description": slot, "db": db, "pooling": "mean" if db else "psnr"}


def has_db(log, slot):
    """A dB value is derived from the algorithm's score (not psnr's kind)."""
    return bool(algorithm_facts(log, slot)["db"])


def pooled_as_psnr(log, slot):
    """The algorithm's values are pooled as PSNR (capped, with the PSNR of
    the mean MSE)."""
    return algorithm_facts(log, slot)["pooling"] == "psnr"


def _algorithms_json(algorithms):
    """write_algorithms_json() of the C writer."""
    out = ['  "algorithms": {']
    for i, (name, f) in enumerate(algorithms.items()):
        out.append('%s\n    %s: {"description": %s, "db": %s, "pooling": %s}' % (
            "," if i else "", json_string(name), json_string(f["description"]),
            "true" if f["db"] else "false", json_string(f["pooling"])))
    out.append("\n  },\n")
    return "".join(out)


def _algorithms_csv(algorithms):
    """write_algorithms_csv() of the C writer."""
    return "".join("# algorithm %s db=%d pooling=%s description=%s\n" % (
        name, 1 if f["db"] else 0, f["pooling"], csv_comment_text(f["description"]))
        for name, f in algorithms.items())


def _csv_algorithm(line):
    """A `# algorithm NAME db=D pooling=P description=TEXT` line."""
    name, rest = line[len("# algorithm "):].split(" ", 1)
    head, desc = rest.split(" description=", 1)
    kv = dict(p.split("=", 1) for p in head.split())
    return name, {"description": _csv_unescape(desc), "db": kv["db"] == "1",
                  "pooling": kv["pooling"]}


class Entry:
    """The values of one rendition in one frame: per algorithm (or
    "fssim3d") the components and All in the log's order, and for psnr the
    per-component MSE."""
    __slots__ = ("k", "scores", "mse")

    def __init__(self, k, scores, mse):
        self.k, self.scores, self.mse = k, scores, mse


class Frame:
    __slots__ = ("n", "payload", "entries")

    def __init__(self, n, payload, entries):
        self.n, self.payload, self.entries = n, payload, entries


class Log:
    """One log, JSON or CSV.

    options      {name: value string}, in the log's order (CSV: those with a value)
    input        {"pix_fmt", "width", "height", "bit_depth"[, "components"]}
    components   component letters, e.g. ["Y", "U", "V"]
    renditions   ladders: the header's rendition list; None for two inputs
    main         two inputs: the main input's description where it is
                 resampled (pad, pix_fmt, size, depth), else None
    slots        the algorithms in the log's order ("fssim3d" for fssim3d)
    algorithms   {slot: facts} from the header (algorithm_facts()), or None
                 for a log written before the header carried them
    frames       [Frame]
    complete     True once the filter saw the end of its input (or seg_end)
    extra        the CSV's header lines as written (JSON: unused)
    """

    def __init__(self, path, fmt):
        self.path, self.fmt = path, fmt
        self.filter = None
        self.schema_version = None
        self.version = None
        self.options = {}
        self.input = {}
        self.components = []
        self.renditions = None
        self.main = None           # a pair's main input where it is resampled
        self.slots = []
        self.algorithms = None
        self.db_slots = set()      # a log without algorithms: slots with a dB value
        self.frames = []
        self.frame_count = None
        self.complete = None
        self.pooled = None
        self.pairing = None        # {"mode": ..., "inputs": [{"pad": ..., counts}]}
        self.segments = None
        self.csv_columns = None
        self.names = []            # CSV: the `# name PAD LABEL` lines, (pad, label)

    @property
    def is_ladder(self):
        return self.renditions is not None

    @property
    def depth(self):
        return int(self.input["bit_depth"])

    def option(self, name):
        return self.options.get(name, SEGMENT_DEFAULTS.get(name, ""))

    def seg_range(self):
        """(seg_start, seg_end) as ints; seg_end -1: to the title's end."""
        return int(self.option("seg_start")), int(self.option("seg_end"))

    def describe(self):
        """The file and the title frames it holds, for error messages."""
        a, b = self.seg_range()
        rng = "frames %d-%s" % (a, "end" if b < 0 else str(b - 1))
        if self.frames:
            rng += " (logged %d-%d)" % (self.frames[0].n, self.frames[-1].n)
        return "%s [%s]" % (self.path, rng)


# ---------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------

def _num(v, what, log, n):
    if v is None:
        return None
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    raise LogError("%s: frame %s: %s is not a number" % (log.path, n, what))


def _json_entry(log, obj, k, n):
    scores, mse = {}, None
    for slot in log.slots:
        vals = obj.get(slot)
        if vals is None:
            raise LogError("%s: frame %d lacks %s" % (log.path, n, slot))
        if "dB" in vals:
            log.db_slots.add(slot)
        scores[slot] = [_num(vals.get(c), slot + "." + c, log, n)
                        for c in log.components + ["All"]]
    if "mse" in obj:
        mse = [_num(obj["mse"].get(c), "mse." + c, log, n) for c in log.components + ["All"]]
    return Entry(k, scores, mse)


def _slots_of(frame_obj):
    return [key for key, v in frame_obj.items()
            if isinstance(v, dict) and key != "mse"]


def take_members(log, d, path):
    """Set log's fields from a JSON log's members d (its frames aside);
    a log whose run failed before scoring is refused."""
    if "error" in d:
        raise LogError("%s: the run failed before scoring: %s" % (path, d["error"]))
    log.filter = d.get("filter")
    log.schema_version = d.get("schema_version")
    log.version = d.get("version")
    log.options = d.get("options", {})
    log.input = d.get("input", {})
    log.components = list(log.input.get("components", []))
    log.main = log.input.get("main")
    log.renditions = d.get("renditions")
    log.frame_count = d.get("frame_count")
    log.complete = d.get("complete")
    log.pooled = d.get("pooled")
    log.pairing = d.get("pairing")
    log.segments = d.get("segments")
    log.algorithms = d.get("algorithms")


def read_json(path, text=None):
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    log = Log(path, "json")
    try:
        d = json.loads(text)
    except ValueError as e:
        raise LogError("%s: not valid JSON (%s)" % (path, e))
    if not isinstance(d, dict) or "frames" not in d:
        raise LogError("%s: not an fssim log" % path)
    take_members(log, d, path)
    pooled = log.pooled or {}
    first = (pooled.get("renditions") or [{}])[0] if log.is_ladder else pooled
    log.slots = [key for key, v in first.items() if isinstance(v, dict)]
    for fr in d["frames"]:
        n = fr.get("n")
        if not isinstance(n, int):
            raise LogError("%s: a frame without a number" % path)
        if log.is_ladder:
            entries = [_json_entry(log, r, r["k"], n) for r in fr.get("renditions", [])]
        else:
            if not log.slots:
                log.slots = _slots_of(fr)
            entries = [_json_entry(log, fr, None, n)]
        log.frames.append(Frame(n, fr, entries))
    return log


def _pooled_json(log, pools, k, indent):
    """write_json_pooled()."""
    out = []
    for i, slot in enumerate(log.slots):
        out.append("%s\n%s%s: {" % ("," if i else "", indent, json_string(slot)))
        for c, comp in enumerate(log.components + ["All"]):
            p = pools[(k, slot, c)]
            out.append("%s\n%s  %s: {" % ("," if c else "", indent, json_string(comp)))
            out.append(", ".join("%s: %s" % (json_string(name), fmt_number(v))
                                 for name, v in p.items()))
            out.append("}")
        out.append("\n%s}" % indent)
    return "".join(out)


# the pairing counts of an input, in the filter's order (a reference has
# no paired, lacks or excess)
PAIRING_COUNTS = ("frames", "paired", "lacks", "excess", "damaged")


def _pairing_json(pairing):
    """write_json_pairing()."""
    out = ['  "pairing": {"mode": %s' % json_string(pairing["mode"])]
    if "inputs" in pairing:
        out.append(', "inputs": [')
        for i, e in enumerate(pairing["inputs"]):
            out.append('%s\n    {"pad": %s' % ("," if i else "", json_string(e["pad"])))
            out.append("".join(', "%s": %d' % (k, e[k]) for k in PAIRING_COUNTS if k in e))
            out.append("}")
        out.append("\n  ]")
    out.append("},\n")
    return "".join(out)


def _pairing_csv(pairing):
    """write_csv_pairing()."""
    out = ["# pairing mode=%s\n" % pairing["mode"]]
    for e in pairing.get("inputs", []):
        out.append("# pairing pad=%s%s\n" % (csv_comment_text(e["pad"]), "".join(
            " %s=%d" % (k, e[k]) for k in PAIRING_COUNTS if k in e)))
    return "".join(out)


def write_json(log, pools, counts, f, segments=None, frame_lines=None, trailer=None):
    """The whole log as the filter writes it.  pools[(k, slot, c)] are the
    pooled values (pooling.Pool.pooled()), counts[k] the frames of
    rendition k; segments, if given, is added as the last member.
    frame_lines: the frames as text (each as the filter wrote it), instead
    of log.frames; trailer: the members the filter writes between
    "complete" and "pooled", as text (default: log.pairing's)."""
    if frame_lines is None:
        frame_lines = [json_value(fr.payload) for fr in log.frames]
    w = f.write
    w("{\n")
    w('  "filter": %s,\n' % json_string(log.filter))
    w('  "schema_version": %d,\n' % log.schema_version)
    w('  "version": %s,\n' % json_string(log.version))
    w('  "options": {')
    for i, (name, value) in enumerate(log.options.items()):
        w("%s\n    %s: %s" % ("," if i else "", json_string(name), json_string(value)))
    w("\n  },\n")
    inp = log.input
    w('  "input": {"pix_fmt": %s, "width": %d, "height": %d, "bit_depth": %d, '
      '"components": [%s]' % (json_string(inp["pix_fmt"]), inp["width"], inp["height"],
                              inp["bit_depth"],
                              ", ".join(json_string(c) for c in log.components)))
    if "name" in inp:
        w(', "name": %s' % json_string(inp["name"]))
    if log.main is not None:
        w(',\n    "main": %s' % json_value(log.main))
    w("},\n")
    if log.is_ladder:
        w('  "renditions": [')
        for i, r in enumerate(log.renditions):
            w("%s\n    %s" % ("," if i else "", json_value(r)))
        w("\n  ],\n")
    if log.algorithms is not None:
        w(_algorithms_json(log.algorithms))
    w('  "frames": [')
    if frame_lines:
        w("\n    ")
        w(",\n    ".join(frame_lines))
    w('\n  ],\n  "frame_count": %d,\n' % len(frame_lines))
    w('  "complete": %s,\n' % ("true" if log.complete else "false"))
    if trailer:
        for _, text in trailer:
            w("  %s,\n" % text)
    elif log.pairing is not None:
        w(_pairing_json(log.pairing))
    w('  "pooled": {')
    if log.is_ladder:
        w('\n    "renditions": [')
        for i, r in enumerate(log.renditions):
            k = r["k"]
            w('%s\n      {"k": %d, "frame_count": %d,' % ("," if i else "", k, counts[k]))
            w(_pooled_json(log, pools, k, "        "))
            w("\n      }")
        w("\n    ]")
    else:
        w(_pooled_json(log, pools, None, "    "))
    w("\n  }")
    if segments is not None:
        w(',\n  "segments": [%s]' % ", ".join(
            '{"start": %d, "end": %d}' % (a, b) for a, b in segments))
    w("\n}\n")


# ---------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------

_OPT_SPLIT = re.compile(r" (?=[A-Za-z_][A-Za-z0-9_]*=)")
_POOLED_ROWS = ("mean", "min", "max", "harmonic_mean", "p1", "p5", "p50", "psnr_of_mean_mse")


def _csv_float(s, log, n, col):
    try:
        return float(s)
    except ValueError:
        raise LogError("%s: frame %s: column %s is not a number: %r" % (log.path, n, col, s))


_CSV_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_CSV_UNESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|.)")


def csv_comment_text(s):
    """csv_comment_text() of the C writer: a comment line's text with a
    backslash, control characters and spaces escaped, so that none starts a
    line or splits a value."""
    return "".join(_CSV_ESCAPES.get(ch) or ("\\x%02x" % ord(ch) if ord(ch) <= 0x20 or
                                            ord(ch) == 0x7f else ch) for ch in s)


def _csv_unescape(s):
    def one(m):
        e = m.group(1)
        if e[0] == "x" and len(e) == 3:
            return chr(int(e[1:], 16))
        return {"n": "\n", "r": "\r", "t": "\t"}.get(e, e)
    return _CSV_UNESCAPE.sub(one, s)


def _csv_input(fields):
    """A `# rendition k` or `# main` line's pad=... fields, in the JSON
    log's order of the same description (pix_fmt and bit_depth where the
    log gives them)."""
    kv = dict(p.split("=", 1) for p in fields)
    d = {"pad": kv["pad"]}
    if "pix_fmt" in kv:
        d["pix_fmt"] = kv["pix_fmt"]
    d["width"], d["height"] = int(kv["width"]), int(kv["height"])
    if "bit_depth" in kv:
        d["bit_depth"] = int(kv["bit_depth"])
    d["resampled"] = kv["resampled"] == "1"
    return d


def _csv_input_line(d):
    """write_csv_header()'s line of one input: pad, size, resampled, then
    format and depth."""
    line = "pad=%s width=%d height=%d resampled=%d" % (d["pad"], d["width"], d["height"],
                                                       1 if d["resampled"] else 0)
    if "pix_fmt" in d:
        line += " pix_fmt=%s bit_depth=%d" % (d["pix_fmt"], d["bit_depth"])
    return line + "\n"


def read_csv(path, text=None):
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    log = Log(path, "csv")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i = 0
    while i < len(lines) and lines[i].startswith("#"):
        line = lines[i]
        if line.startswith("# filter="):
            parts = _OPT_SPLIT.split(line[len("# filter="):])
            log.filter = parts[0]
            log.options = dict((k, _csv_unescape(v)) for k, v in
                               (p.split("=", 1) for p in parts[1:]))
        elif line.startswith("# schema_version="):
            try:
                log.schema_version = int(line.split("=", 1)[1])
            except ValueError:
                log.schema_version = line.split("=", 1)[1]
        elif line.startswith("# version="):
            log.version = line.split("=", 1)[1]
        elif line.startswith("# input "):
            kv = dict(p.split("=", 1) for p in line[len("# input "):].split())
            log.input = {"pix_fmt": kv["pix_fmt"], "width": int(kv["width"]),
                         "height": int(kv["height"]), "bit_depth": int(kv["bit_depth"])}
        elif line.startswith("# rendition "):
            f = line.split()
            if log.renditions is None:
                log.renditions = []
            log.renditions.append(dict({"k": int(f[2])}, **_csv_input(f[3:])))
        elif line.startswith("# main "):
            log.main = _csv_input(line.split()[2:])
        elif line.startswith("# name "):
            pad, _, label = line[len("# name "):].partition(" ")
            log.names.append((pad, _csv_unescape(label)))
        elif line.startswith("# algorithm "):
            name, facts = _csv_algorithm(line)
            if log.algorithms is None:
                log.algorithms = {}
            log.algorithms[name] = facts
        i += 1
    _csv_names(log)
    if i >= len(lines) or not lines[i].startswith("n,pts,pts_time"):
        raise LogError("%s: no CSV column line (a log of fssim?)" % path)
    cols = lines[i].split(",")
    log.csv_columns = lines[i]
    first = 4 if log.is_ladder else 3
    for c in cols[first:]:
        slot, comp = c.rsplit(".", 1)
        if slot not in log.slots and slot != "mse":
            log.slots.append(slot)
        if comp == "dB":
            log.db_slots.add(slot)
        if comp not in ("All", "dB") and comp not in log.components:
            log.components.append(comp)
    log.input["components"] = list(log.components)
    nc = len(log.components) + 1
    # per slot: the column of its first component, and of its MSE (psnr's kind)
    layout, at = [], first
    for slot in log.slots:
        if not has_db(log, slot):
            layout.append((slot, at, at + nc))
            at += 2 * nc
        else:
            layout.append((slot, at, None))
            at += nc + 1
    i += 1
    cur = None
    while i < len(lines) and not lines[i].startswith("#"):
        row = lines[i]
        f = row.split(",")
        if not f[0].lstrip("-").isdigit():
            break                  # the pooled rows
        if len(f) != len(cols):
            raise LogError("%s: row %r has %d columns, not %d" % (path, row[:40], len(f),
                                                                   len(cols)))
        n = int(f[0])
        k = int(f[3]) if log.is_ladder else None
        scores, mse = {}, None
        for slot, a, m in layout:
            scores[slot] = [_csv_float(f[a + c], log, n, cols[a + c]) for c in range(nc)]
            if m is not None:
                mse = [_csv_float(f[m + c], log, n, cols[m + c]) for c in range(nc)]
        if cur is None or cur.n != n:
            cur = Frame(n, [], [])
            log.frames.append(cur)
        cur.payload.append(row)
        cur.entries.append(Entry(k, scores, mse))
        i += 1
    while i < len(lines) and not lines[i].startswith("#"):
        i += 1                     # pooled rows: recomputed, never read
    for line in lines[i:]:
        if line.startswith("# pairing mode="):
            log.pairing = {"mode": line.split("=", 1)[1]}
        elif line.startswith("# pairing pad=") and log.pairing is not None:
            kv = [p.split("=", 1) for p in line[len("# pairing "):].split(" ")]
            e = {"pad": _csv_unescape(kv[0][1])}
            e.update((k, int(v)) for k, v in kv[1:])
            log.pairing.setdefault("inputs", []).append(e)
        elif line.startswith("# frames="):
            log.frame_count = int(line.split("=", 1)[1])
        elif line.startswith("# complete="):
            log.complete = line.split("=", 1)[1] == "1"
        elif line.startswith("# segments="):
            log.segments = line.split("=", 1)[1]
    return log


def _csv_names(log):
    """The labels of the `# name` lines where a JSON log has them: in the
    renditions' (or the main input's) descriptions and the reference's."""
    for pad, label in log.names:
        for d in (log.renditions or []) + ([log.main] if log.main else []):
            if d["pad"] == pad:
                d["name"] = label
                break
        else:
            log.input["name"] = label


def write_csv(log, pools, counts, f, segments=None, frame_lines=None, trailer=None,
              nb_frames=None):
    """The whole CSV log as the filter writes it (write_csv_header(),
    log_frame_csv(), write_csv_pooled()); segments, if given, as a last
    `# segments=a-b,...` line.  frame_lines: the frame rows as text
    instead of log.frames (nb_frames: how many frames they are);
    trailer: the comment lines after the pooled rows as the filter wrote
    them (`# frames=` and `# complete=` are rewritten)."""
    if frame_lines is None:
        frame_lines = [row for fr in log.frames for row in fr.payload]
        nb_frames = len(log.frames)
    w = f.write
    w("# filter=%s%s\n" % (csv_comment_text(log.filter),
                           "".join(" %s=%s" % (k, csv_comment_text(v))
                                   for k, v in log.options.items() if v)))
    w("# schema_version=%d\n# version=%s\n" % (log.schema_version,
                                                 csv_comment_text(log.version)))
    inp = log.input
    w("# input pix_fmt=%s width=%d height=%d bit_depth=%d\n" % (
        inp["pix_fmt"], inp["width"], inp["height"], inp["bit_depth"]))
    if log.main is not None:
        w("# main " + _csv_input_line(log.main))
    for r in log.renditions or []:
        w("# rendition %d %s" % (r["k"], _csv_input_line(r)))
    for pad, label in log.names:
        w("# name %s %s\n" % (pad, csv_comment_text(label)))
    if log.algorithms is not None:
        w(_algorithms_csv(log.algorithms))
    w(log.csv_columns + "\n")
    if frame_lines:
        w("\n".join(frame_lines))
        w("\n")
    nc = len(log.components)
    psnr = any(pooled_as_psnr(log, slot) for slot in log.slots)
    # a series without frames has empty fields: no value, not a score
    keys = [r["k"] for r in log.renditions] if log.is_ladder else [None]
    for k in keys:
        has_frames = counts.get(k, len(log.frames)) > 0
        for r, row in enumerate(_POOLED_ROWS[:7 + psnr]):
            w("%s,," % row)
            if log.is_ladder:
                w(",%d" % k)
            for slot in log.slots:
                db_col = has_db(log, slot)
                v = 0.0
                for c in range(nc + 1):
                    v = pools[(k, slot, c)][row] if (r < 7 or not db_col) else math.nan
                    if has_frames and (r < 7 or not db_col):
                        w("," + fmt_csv_number(v))
                    else:
                        w(",")
                if db_col and r < 7 and has_frames:
                    w("," + fmt_csv_number(db(v)))
                else:
                    w("," * (1 if db_col else nc + 1))
            w("\n")
    if not trailer:
        trailer = ([(None, ln) for ln in _pairing_csv(log.pairing).splitlines()]
                   if log.pairing is not None else []) + \
            [(None, "# frames="), (None, "# complete=")]
    for _, line in trailer:
        if line.startswith("# frames="):
            line = "# frames=%d" % nb_frames
        elif line.startswith("# complete="):
            line = "# complete=%d" % (1 if log.complete else 0)
        w(line + "\n")
    if segments is not None:
        w("# segments=%s\n" % ",".join("%d-%d" % (a, b) for a, b in segments))


def read_log(path):
    """A JSON or CSV log, told apart by its first character."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise LogError("%s: %s" % (path, e.strerror or e))
    if text.lstrip().startswith("{"):
        return read_json(path, text)
    if text.startswith("#"):
        return read_csv(path, text)
    raise LogError("%s: neither a JSON nor a CSV log of fssim" % path)
