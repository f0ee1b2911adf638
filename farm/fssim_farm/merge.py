"""Merging the segment logs of a title into the log of a whole run.

A segment run logs the title's frames [seg_start, seg_end) with the title's
own frame numbers and timestamps, each value bit for bit what a whole run
logs for that frame (the filters' segment options see to that).  The merge
therefore only has to

- check that the segments belong together (same filter, version, schema,
  options, title, input and renditions), that each is complete, that
  their ranges tile the title from frame 0 to its last frame (seg_total,
  the title's frame count each segment carries) without gap or overlap,
  and that the timestamps increase from frame to frame through the title;
- concatenate their frames in title order, as text (columns.py), and add
  up the counts the filter writes after the frames (pairing);
- pool the concatenated frames again with the filters' own arithmetic
  (pooling.py), since means, extremes and percentiles of a whole do not
  follow from those of its parts in floating point;
- write the log in the filter's format (logs.py).

Before trusting its pooling, the merge recomputes each segment's own pooled
values from the segment's frames and compares them with what the filter
wrote: a difference is reported as an error, never written.
"""
import os
import re
import time
from itertools import chain
from operator import lt

from . import columns, logs
from .errors import LogError
from .pooling import cap_psnr, pool_values

__all__ = ["merge_logs", "merge_files", "check_segments", "pool_frames", "pool_columns"]


def _series(c, k, slot, x):
    """The values one pool takes, in frame order: psnr capped (a null PSNR
    is +inf where its MSE is 0: identical planes), anything else null is
    refused.  Returns (values, mse or None)."""
    vals = c.values[(k, slot)][x]
    psnr = logs.pooled_as_psnr(c, slot)
    mse = c.mse[k][x] if psnr else None
    if None in vals:
        fixed = []
        for i, v in enumerate(vals):
            if v is None:
                # JSON writes a non-finite value as null: a PSNR of
                # identical planes (MSE 0) is +inf; nothing else is pooled
                # from a null
                if psnr and mse[i] == 0.0:
                    v = float("inf")
                else:
                    raise LogError(
                        "%s: frame %d: %s has a non-finite value (null), which a JSON log "
                        "cannot give back exactly: use log_fmt=csv" % (
                            c.path, _frame_of(c, k, i), slot))
            fixed.append(v)
        vals = fixed
    if psnr:
        if None in mse:
            raise LogError("%s: a psnr frame without its MSE (null)" % c.path)
        vals = cap_psnr(vals, c.depth)
    return vals, mse


def _frame_of(c, k, i):
    """The frame number of rendition k's i-th entry (for messages)."""
    if not c.is_ladder or all(c.counts.get(kk) == len(c.n) for kk in c.keys()):
        return c.n[i] if i < len(c.n) else i
    return i


def pool_columns(c, presorted=None, keep_sorted=False):
    """The pools of a Columns log: ({(k, slot, x): pooled dict}, {k: count}).
    presorted: {(k, slot, x): sorted values} where the caller has them;
    keep_sorted: leave each series' sorted values in c.sorted (a merge
    sorts the concatenation of sorted runs in linear time)."""
    pools = {}
    nc = len(c.components) + 1
    if keep_sorted:
        c.sorted, c.series = {}, {}
    for k in c.keys():
        for slot in c.slots:
            for x in range(nc):
                vals, mse = _series(c, k, slot, x)
                if keep_sorted:
                    c.series[(k, slot, x)] = (vals, mse)
                srt = presorted.get((k, slot, x)) if presorted else None
                if srt is None and keep_sorted:
                    srt = c.sorted[(k, slot, x)] = sorted(vals)
                pools[(k, slot, x)] = pool_values(vals, mse, c.depth if logs.pooled_as_psnr(c, slot) else None,
                                                  presorted=srt)
    return pools, dict(c.counts)


def pool_frames(log):
    """Pools of a logs.Log's frames: ({(k, slot, c): pooled dict}, {k: count})."""
    return pool_columns(columns._from_log(log))


def _compare_pooled(log, pools, counts):
    """The filter's own pooled values of one log against ours, as printed."""
    if log.fmt != "json" or log.pooled is None:
        return
    comps = log.components + ["All"]
    if log.is_ladder:
        blocks = [(r["k"], r) for r in log.pooled.get("renditions", [])]
    else:
        blocks = [(None, log.pooled)]
    for k, block in blocks:
        if log.is_ladder and block.get("frame_count") != counts.get(k):
            raise LogError("%s: rendition %s: frame_count %s, but %s frames logged"
                           % (log.path, k, block.get("frame_count"), counts.get(k)))
        for slot in log.slots:
            for c, comp in enumerate(comps):
                theirs = block.get(slot, {}).get(comp, {})
                ours = pools[(k, slot, c)]
                for name, v in ours.items():
                    if logs.fmt_number(v) != logs.fmt_number(theirs.get(name)):
                        raise LogError(
                            "%s: the pooled %s of %s.%s%s is %s in the log but %s recomputed "
                            "from its frames: this fssim-farm does not pool as the filter "
                            "(version %s) does" % (
                                log.path, name, slot, comp,
                                "" if k is None else " (rendition %d)" % k,
                                logs.fmt_number(theirs.get(name)), logs.fmt_number(v),
                                log.version))


def _header(log):
    return (log.filter, log.input.get("pix_fmt"), log.input.get("width"),
            log.input.get("height"), log.input.get("bit_depth"), tuple(log.components))


def _scoring_options(log):
    return {k: v for k, v in log.options.items()
            if k not in logs.SEGMENT_OPTIONS and k not in logs.OUTPUT_OPTIONS and k != "title"}


def _increasing(v):
    """Index of the first value not greater than the one before, or None."""
    if all(map(lt, v, v[1:])):
        return None
    return next(i for i in range(1, len(v)) if not v[i - 1] < v[i])


def _frame_desc(c, i):
    pts = c.pts[i]
    return "frame n=%d%s" % (c.n[i], "" if pts is None else " (pts %d)" % pts)


def _check_order(order):
    """Frame numbers inside each segment's range and increasing, and the
    timestamps increasing through the title: a duplicated or out-of-order
    timestamp means two segments scored the same frames (renditions of
    another frame rate led, or inputs that are not one title)."""
    for s in order:
        a, b = s.seg_range()
        if s.n and (s.n[0] < a or (b >= 0 and s.n[-1] >= b)):
            bad = s.n[0] if s.n[0] < a else s.n[-1]
            raise LogError("%s: frame %d lies outside the segment" % (s.describe(), bad))
        i = _increasing(s.n)
        if i is not None:
            raise LogError("%s: frame %d comes after frame %d: out of order" % (
                s.describe(), s.n[i], s.n[i - 1]))
    prev = None
    for s in order:
        idx = [i for i, p in enumerate(s.pts) if p is not None] \
            if None in s.pts else range(len(s.pts))
        pts = [s.pts[i] for i in idx] if None in s.pts else s.pts
        i = _increasing(pts)
        if i is not None:
            raise LogError(
                "%s: %s does not come after %s: duplicated or out-of-order timestamps (do "
                "the inputs have the reference's frame rate?)" % (
                    s.describe(), _frame_desc(s, idx[i]), _frame_desc(s, idx[i - 1])))
        if pts:
            if prev is not None and not prev[0].pts[prev[1]] < pts[0]:
                raise LogError(
                    "%s and %s: %s of the second does not come after %s of the first: "
                    "duplicated or out-of-order timestamps between segments (do the inputs "
                    "have the reference's frame rate?)" % (
                        prev[0].describe(), s.describe(), _frame_desc(s, idx[0]),
                        _frame_desc(prev[0], prev[1])))
            prev = (s, idx[-1])


def _title_frames(segs, frames=None):
    """The title's frame count that the segments carry (seg_total), or
    `frames` as given; None where neither says."""
    totals = {}
    for s in segs:
        t = int(s.option("seg_total"))
        if t >= 0:
            totals.setdefault(t, s)
    if len(totals) > 1:
        (t1, s1), (t2, s2) = sorted(totals.items())[:2]
        raise LogError("different titles: %s was cut from a title of %d frames but %s from "
                       "one of %d (seg_total)" % (s1.describe(), t1, s2.describe(), t2))
    total = next(iter(totals)) if totals else None
    if frames is not None and total is not None and frames != total:
        raise LogError("the segments are of a title of %d frames (seg_total), not %d" % (
            total, frames))
    return total if total is not None else frames


def check_segments(segs, frames=None):
    """Refuses segments that cannot make one log; returns them in title order.

    frames: the title's frame count, where the segments do not carry it
    (seg_total).  Each error names the segment (file and frame range) it
    is about."""
    if not segs:
        raise LogError("no segment logs to merge")
    for s in segs:
        if s.schema_version is None:
            raise LogError("%s: the log has no schema_version (a filter without segment "
                           "support wrote it)" % s.describe())
        if s.schema_version not in logs.SCHEMA_VERSIONS:
            raise LogError("%s: unknown schema_version %r (this fssim-farm reads %s)" % (
                s.describe(), s.schema_version, ", ".join(map(str, logs.SCHEMA_VERSIONS))))
        if s.complete is not True:
            raise LogError("%s: the log is not complete: its run was cut short or killed "
                           "before the segment's end" % s.describe())
    first = segs[0]
    for s in segs[1:]:
        if s.fmt != first.fmt:
            raise LogError("%s is a %s log but %s a %s log" % (
                s.describe(), s.fmt.upper(), first.describe(), first.fmt.upper()))
        if s.schema_version != first.schema_version:
            raise LogError("%s has schema_version %s but %s has %s" % (
                s.describe(), s.schema_version, first.describe(), first.schema_version))
        if s.version != first.version:
            raise LogError("%s was written by fssim %s but %s by fssim %s" % (
                s.describe(), s.version, first.describe(), first.version))
        if s.option("title") != first.option("title"):
            raise LogError("different inputs: %s has title %r but %s has %r" % (
                s.describe(), s.option("title"), first.describe(), first.option("title")))
        if _header(s) != _header(first):
            raise LogError("%s scored %s %s %dx%d but %s %s %s %dx%d (different filter or "
                           "input)" % (s.describe(), s.filter, s.input.get("pix_fmt"),
                                       s.input.get("width"), s.input.get("height"),
                                       first.describe(), first.filter,
                                       first.input.get("pix_fmt"), first.input.get("width"),
                                       first.input.get("height")))
        if s.renditions != first.renditions:
            raise LogError("%s and %s have different renditions" % (
                s.describe(), first.describe()))
        a, b = _scoring_options(s), _scoring_options(first)
        if a != b or list(a) != list(b):
            diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            raise LogError("%s and %s were scored with different options (%s)" % (
                s.describe(), first.describe(),
                ", ".join("%s=%r vs %r" % (k, a.get(k), b.get(k)) for k in diff) or "order"))
        if s.slots != first.slots or s.csv_columns != first.csv_columns or \
                s.algorithms != first.algorithms:
            raise LogError("%s and %s log different algorithms" % (
                s.describe(), first.describe()))
        if [n for n, _ in s.trailer if n] != [n for n, _ in first.trailer if n]:
            raise LogError("%s and %s end differently (%s against %s)" % (
                s.describe(), first.describe(),
                ", ".join(n for n, _ in s.trailer if n) or "nothing",
                ", ".join(n for n, _ in first.trailer if n) or "nothing"))
    total = _title_frames(segs, frames)
    order = sorted(segs, key=lambda s: s.seg_range()[0])
    for s in order:
        a, b = s.seg_range()
        if b >= 0 and b <= a:
            raise LogError("%s: seg_end %d is not after seg_start %d" % (s.describe(), b, a))
    if order[0].seg_range()[0] != 0:
        raise LogError("missing head: the title's frames 0-%d are in no segment (the first, "
                       "%s, starts later)" % (order[0].seg_range()[0] - 1, order[0].describe()))
    for prev, nxt in zip(order, order[1:]):
        pa, pb = prev.seg_range()
        na, nb = nxt.seg_range()
        if pb < 0 or pb > na:
            raise LogError("overlap: %s and %s both cover frames from %d on" % (
                prev.describe(), nxt.describe(), na))
        if pb < na:
            raise LogError("gap: frames %d-%d are in no segment (between %s and %s)" % (
                pb, na - 1, prev.describe(), nxt.describe()))
    last = order[-1]
    end = last.seg_range()[1]
    if end >= 0:
        if total is None:
            raise LogError(
                "%s ends at frame %d, and the segments do not say how many frames the title "
                "has (seg_total, which fssim-farm's runs set): if that is the title's end, "
                "give its frame count (merge --frames N)" % (last.describe(), end - 1))
        if end < total:
            raise LogError("missing tail: the title's frames %d-%d are in no segment (the "
                           "title has %d frames; the last segment, %s, ends before)" % (
                               end, total - 1, total, last.describe()))
        if end > total:
            raise LogError("%s ends after the title's %d frames" % (last.describe(), total))
    _check_order(order)
    return order


_SUM_JSON = re.compile(r'("[^"]*": )(-?\d+)(?=[,}\]])')
_SUM_CSV = re.compile(r'( [A-Za-z_]+=)(-?\d+)(?= |$)')


def _summed(texts, rx, what):
    """Texts of one shape whose integers add up over the segments (the
    pairing counts): the first text with each integer the sum of all
    texts' (a "k" is an index, not a count: it must be equal)."""
    parts = [rx.split(t) for t in texts]
    first = parts[0]
    for p in parts[1:]:
        if len(p) != len(first) or p[0::3] != first[0::3] or p[1::3] != first[1::3]:
            raise LogError("the segments' %s differ in more than their counts" % what)
    out = list(first)
    for i in range(2, len(first), 3):
        vals = [int(p[i]) for p in parts]
        if first[i - 1] == '"k": ':
            if len(set(vals)) != 1:
                raise LogError("the segments' %s differ in more than their counts" % what)
            continue
        out[i] = str(sum(vals))
    return "".join(out)


def _merged_trailer(order):
    """The members (JSON) or comment lines (CSV) after the frames, with
    their counts added up over the segments."""
    first = order[0]
    out = []
    for i, (name, text) in enumerate(first.trailer):
        texts = [s.trailer[i][1] if i < len(s.trailer) else "" for s in order]
        if first.fmt == "json":
            out.append((name, _summed(texts, _SUM_JSON, name)))
        elif text.startswith("# pairing"):
            out.append((name, _summed(texts, _SUM_CSV, "pairing lines")))
        elif text.startswith(("# frames=", "# complete=")):
            out.append((name, text))
        else:
            if any(t != text for t in texts):
                raise LogError("%s and %s end with different lines (%r, %r)" % (
                    first.describe(), next(s for s, t in zip(order, texts) if t != text)
                    .describe(), text, next(t for t in texts if t != text)))
            out.append((name, text))
    return out


def merge_logs(segs, log_path=None, verify=True, frames=None, timings=None):
    """One log of the whole title from segment logs (columns.Columns, any
    order).

    log_path: the value of the merged log's log_path option (a whole run
    names the file it writes there); None keeps the first segment's.
    frames: the title's frame count where the segments do not carry it.
    Returns (log, pools, counts, ranges, frame_lines, trailer) for
    logs.write_json/write_csv."""
    t = _clock()
    order = check_segments(segs, frames)
    t = _lap(timings, "check", t)
    for s in order:
        if getattr(s, "series", None) is not None:
            continue              # read and checked as it came (schedule.py)
        pools, counts = pool_columns(s, keep_sorted=True)
        if verify:
            _compare_pooled(s, pools, counts)
    t = _lap(timings, "pool_segments", t)
    first = order[0]
    merged = logs.Log(log_path or first.path, first.fmt)
    for attr in ("filter", "schema_version", "version", "input", "components",
                 "renditions", "main", "slots", "algorithms", "db_slots", "csv_columns",
                 "names"):
        setattr(merged, attr, getattr(first, attr))
    merged.options = {k: v for k, v in first.options.items() if k not in logs.SEGMENT_OPTIONS}
    if log_path is not None and "log_path" in merged.options:
        merged.options["log_path"] = log_path
    merged.complete = True
    ranges = []
    for s in order:
        a, b = s.seg_range()
        ranges.append((a, b if b >= 0 else (s.n[-1] + 1 if s.n else a)))
    pools, counts = {}, {}
    nc = len(first.components) + 1
    for k in first.keys():
        counts[k] = sum(s.counts.get(k, 0) for s in order)
        for slot in first.slots:
            for x in range(nc):
                key = (k, slot, x)
                vals = list(chain.from_iterable(s.series[key][0] for s in order))
                mse = list(chain.from_iterable(s.series[key][1] for s in order)) \
                    if logs.pooled_as_psnr(first, slot) else None
                srt = sorted(chain.from_iterable(s.sorted[key] for s in order))
                pools[key] = pool_values(vals, mse, first.depth if logs.pooled_as_psnr(first, slot) else None,
                                         presorted=srt)
    t = _lap(timings, "pool_title", t)
    frame_lines = list(chain.from_iterable(s.frame_text for s in order))
    merged.nb_frames = sum(len(s.n) for s in order)
    trailer = _merged_trailer(order)
    return merged, pools, counts, ranges, frame_lines, trailer


def _clock():
    return (time.perf_counter(), time.process_time())


def _lap(timings, name, t):
    """Adds the wall and CPU seconds since t (a _clock()) to timings[name]
    and timings[name + "_cpu"]; returns the clock now."""
    now = _clock()
    if timings is not None:
        timings[name] = timings.get(name, 0.0) + now[0] - t[0]
        timings[name + "_cpu"] = timings.get(name + "_cpu", 0.0) + now[1] - t[1]
    return now


def read_segments(paths, timings=None):
    """The segment logs as columns.Columns."""
    t = _clock()
    segs = [columns.read(p) for p in paths]
    _lap(timings, "read", t)
    return segs


def check_output(out_path):
    """Refuses an output that cannot be written, before any work: a
    folder, a missing or read-only folder."""
    if os.path.isdir(out_path):
        raise LogError("%s is a folder: give the merged log's file name (-o DIR/title.json)"
                       % out_path)
    d = os.path.dirname(os.path.abspath(out_path))
    if not os.path.isdir(d):
        raise LogError("cannot write %s: the folder %s does not exist (create it first)"
                       % (out_path, d))
    if not os.access(d, os.W_OK | os.X_OK):
        raise LogError("cannot write %s: the folder %s is not writable" % (out_path, d))


def write_merged(out_path, merged, pools, counts, ranges, frame_lines, trailer,
                 segments_field=True):
    """Writes the merged log atomically: a reader never sees half a log,
    and nothing is left behind when writing fails."""
    tmp = "%s.tmp%d" % (out_path, os.getpid())
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            if merged.fmt == "json":
                logs.write_json(merged, pools, counts, f, ranges if segments_field else None,
                                frame_lines=frame_lines, trailer=trailer)
            else:
                logs.write_csv(merged, pools, counts, f, ranges if segments_field else None,
                               frame_lines=frame_lines, trailer=trailer,
                               nb_frames=merged.nb_frames)
        os.replace(tmp, out_path)
    except OSError as e:
        raise LogError("cannot write %s: %s" % (out_path, e.strerror or e))
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def merge_files(paths, out_path, log_path=None, segments_field=True, verify=True,
                frames=None, timings=None, segs=None):
    """fssim-farm merge: reads the segment logs, writes the merged log to
    out_path (atomically: a reader never sees half a log).  log_path
    defaults to out_path as given, as a whole run writing there would
    name it; frames: the title's frame count where the segments do not
    carry it; segs: the logs already read (columns.read), in any order.
    timings: a dict that gets the seconds of each phase.  Returns the
    merged log's header (logs.Log) with nb_frames, pools and counts."""
    check_output(out_path)
    if segs is None:
        segs = read_segments(paths, timings)
    merged, pools, counts, ranges, frame_lines, trailer = merge_logs(
        segs, log_path=out_path if log_path is None else log_path, verify=verify,
        frames=frames, timings=timings)
    t = _clock()
    write_merged(out_path, merged, pools, counts, ranges, frame_lines, trailer,
                 segments_field)
    _lap(timings, "write", t)
    merged.pools, merged.counts, merged.trailer = pools, counts, trailer
    return merged
