"""Merging the segment logs of a title into the log of a whole run.

A segment run logs the title's frames [seg_start, seg_end) with the title's
own frame numbers and timestamps, each value bit for bit what a whole run
logs for that frame (the filters' segment options see to that).  The merge
therefore only has to

- check that the segments belong together (same filter, version, schema,
  options, title, input and renditions), that each is complete, and that
  their ranges tile the title from frame 0 without gap or overlap;
- concatenate their frames in title order;
- pool the concatenated frames again with the filters' own arithmetic
  (pooling.py), since means, extremes and percentiles of a whole do not
  follow from those of its parts in floating point;
- write the log in the filter's format (logs.py).

Before trusting its pooling, the merge recomputes each segment's own pooled
values from the segment's frames and compares them with what the filter
wrote: a difference is reported as an error, never written.
"""
import os

from . import logs
from .errors import LogError
from .pooling import Pool

__all__ = ["merge_logs", "merge_files", "check_segments", "pool_frames"]


def pool_frames(log):
    """Pools of a log's frames: ({(k, slot, c): pooled dict}, {k: count})."""
    comps = len(log.components) + 1
    pools, counts = {}, {}
    keys = [r["k"] for r in log.renditions] if log.is_ladder else [None]
    for k in keys:
        counts[k] = 0
        for slot in log.slots:
            for c in range(comps):
                pools[(k, slot, c)] = Pool(log.depth if logs.pooled_as_psnr(log, slot)
                                           else None)
    for fr in log.frames:
        for e in fr.entries:
            if e.k not in counts:
                raise LogError("%s: frame %d has rendition %s, which the header lacks"
                               % (log.path, fr.n, e.k))
            counts[e.k] += 1
            for slot in log.slots:
                vals = e.scores[slot]
                psnr = logs.pooled_as_psnr(log, slot)
                for c in range(comps):
                    v = vals[c]
                    mse = e.mse[c] if psnr else None
                    if v is None:
                        # JSON writes a non-finite value as null: a PSNR of
                        # identical planes (MSE 0) is +inf; nothing else is
                        # pooled from a null
                        if psnr and mse == 0.0:
                            v = float("inf")
                        else:
                            raise LogError(
                                "%s: frame %d: %s has a non-finite value (null), which a "
                                "JSON log cannot give back exactly: use log_fmt=csv"
                                % (log.path, fr.n, slot))
                    pools[(e.k, slot, c)].add(v, mse)
    return {key: p.pooled() for key, p in pools.items()}, counts


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


def check_segments(segs):
    """Refuses segments that cannot make one log; returns them in title order.

    Each error names the segment (file and frame range) it is about."""
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
    order = sorted(segs, key=lambda s: s.seg_range()[0])
    for s in order:
        a, b = s.seg_range()
        if b >= 0 and b <= a:
            raise LogError("%s: seg_end %d is not after seg_start %d" % (s.describe(), b, a))
        last = -1
        for fr in s.frames:
            if fr.n < a or (b >= 0 and fr.n >= b) or fr.n <= last:
                raise LogError("%s: frame %d lies outside the segment or out of order" % (
                    s.describe(), fr.n))
            last = fr.n
    if order[0].seg_range()[0] != 0:
        raise LogError("gap: the title's frames 0-%d are in no segment (the first, %s, "
                       "starts later)" % (order[0].seg_range()[0] - 1, order[0].describe()))
    for prev, nxt in zip(order, order[1:]):
        pa, pb = prev.seg_range()
        na, nb = nxt.seg_range()
        if pb < 0 or pb > na:
            raise LogError("overlap: %s and %s both cover frames from %d on" % (
                prev.describe(), nxt.describe(), na))
        if pb < na:
            raise LogError("gap: frames %d-%d are in no segment (between %s and %s)" % (
                pb, na - 1, prev.describe(), nxt.describe()))
    return order


def merge_pairing(order):
    """The title's pairing counts: each segment counts the frames of its own
    range, so the whole run's are their sums."""
    first = order[0].pairing
    if first is None:
        return None
    merged = {"mode": first["mode"]}
    if "inputs" not in first:
        return merged
    merged["inputs"] = [dict(e) for e in first["inputs"]]
    for s in order[1:]:
        other = s.pairing or {}
        if other.get("mode") != first["mode"] or [e["pad"] for e in other.get("inputs", [])] \
                != [e["pad"] for e in first["inputs"]]:
            raise LogError("%s: its pairing (%s) is not %s's" % (
                s.describe(), other.get("mode"), order[0].describe()))
        for m, e in zip(merged["inputs"], other["inputs"]):
            for k in logs.PAIRING_COUNTS:
                if k in m:
                    m[k] += e.get(k, 0)
    return merged


def merge_logs(segs, log_path=None, verify=True):
    """One Log of the whole title from segment Logs (any order).

    log_path: the value of the merged log's log_path option (a whole run
    names the file it writes there); None keeps the first segment's.
    Returns (log, pools, counts, segments) for logs.write_json/write_csv."""
    order = check_segments(segs)
    if verify:
        for s in order:
            pools, counts = pool_frames(s)
            _compare_pooled(s, pools, counts)
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
    merged.pairing = merge_pairing(order)
    for s in order:
        merged.frames.extend(s.frames)
    ranges = []
    for s in order:
        a, b = s.seg_range()
        ranges.append((a, b if b >= 0 else (s.frames[-1].n + 1 if s.frames else a)))
    pools, counts = pool_frames(merged)
    return merged, pools, counts, ranges


def merge_files(paths, out_path, log_path=None, segments_field=True, verify=True):
    """fssim-farm merge: reads the segment logs, writes the merged log to
    out_path (atomically: a reader never sees half a log).  log_path
    defaults to out_path as given, as a whole run writing there would
    name it.  Returns the merged Log."""
    segs = [logs.read_log(p) for p in paths]
    merged, pools, counts, ranges = merge_logs(
        segs, log_path=out_path if log_path is None else log_path, verify=verify)
    tmp = "%s.tmp%d" % (out_path, os.getpid())
    write = logs.write_json if merged.fmt == "json" else logs.write_csv
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        write(merged, pools, counts, f, ranges if segments_field else None)
    os.replace(tmp, out_path)
    return merged
