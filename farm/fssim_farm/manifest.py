"""The batch manifest: one row per title.

CSV (a header row, then one row per title):

    title,reference,renditions,options,output
    film1,/m/film1/ref.mkv,/m/film1/1080.mp4;/m/film1/720.mp4,algo=float+psnr,/out/film1.json

renditions separated by ";".  JSON: a list of objects with the same keys,
renditions a list.  Optional columns/keys: filter (default: the command
line's --filter), segment_frames (default auto); any other column is an
error (a misspelled optional column would otherwise be ignored).
Relative paths are taken from the
manifest's folder, so a manifest travels with its media.
"""
import csv
import difflib
import json
import os

from .errors import FarmError

REQUIRED = ("title", "reference", "renditions", "output")
OPTIONAL = ("options", "filter", "segment_frames")


def _abs(base, p):
    if "://" in p or os.path.isabs(p):
        return p
    return os.path.normpath(os.path.join(base, p))


def read_manifest(path):
    """[{"title", "reference", "renditions": [...], "options", "output",
    "filter"?, "segment_frames"?}] from a CSV or JSON manifest."""
    base = os.path.dirname(os.path.abspath(path))
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise FarmError("%s: %s" % (path, e.strerror))
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except ValueError as e:
            raise FarmError("%s: not valid JSON: %s" % (path, e))
    else:
        rows = list(csv.DictReader(text.splitlines()))
        for r in rows:
            r["renditions"] = [p for p in (r.get("renditions") or "").split(";") if p]
    if not isinstance(rows, list):
        raise FarmError("%s: a JSON manifest is a list of objects, one per title" % path)
    out, names = [], set()
    known = REQUIRED + OPTIONAL
    for i, r in enumerate(rows):
        where = "%s: row %d" % (path, i + 1)
        if not isinstance(r, dict):
            raise FarmError("%s: not an object" % where)
        for k in r:
            if k is None:
                raise FarmError("%s: more fields than the header has columns (a ';' between "
                                "renditions, not ',')" % where)
            if k not in known:
                near = difflib.get_close_matches(str(k), known, 1)
                raise FarmError("%s: unknown column %r%s (the columns: %s)" % (
                    where if text.lstrip().startswith("[") else path, k,
                    " -- did you mean %s?" % near[0] if near else "", ", ".join(known)))
        missing = [k for k in REQUIRED if not r.get(k)]
        if missing:
            raise FarmError("%s: missing %s" % (where, ", ".join(missing)))
        if r["title"] in names:
            raise FarmError("%s: title %r appears twice" % (where, r["title"]))
        names.add(r["title"])
        rends = r["renditions"]
        if isinstance(rends, str):
            rends = [p for p in rends.split(";") if p]
        row = {"title": r["title"], "reference": _abs(base, r["reference"]),
               "renditions": [_abs(base, p) for p in rends],
               "options": r.get("options") or "", "output": _abs(base, r["output"])}
        if r.get("filter"):
            from .segments import FILTERS
            if r["filter"] not in FILTERS:
                raise FarmError("%s: filter %r is not one of %s" % (where, r["filter"],
                                                                   ", ".join(FILTERS)))
            row["filter"] = r["filter"]
        if r.get("segment_frames") not in (None, "", "auto"):
            try:
                row["segment_frames"] = int(r["segment_frames"])
            except (TypeError, ValueError):
                raise FarmError("%s: segment_frames %r is not a number of frames (or auto)"
                                % (where, r["segment_frames"]))
            if row["segment_frames"] <= 0:
                raise FarmError("%s: segment_frames must be above 0" % where)
        out.append(row)
    outputs = [r["output"] for r in out]
    if len(set(outputs)) != len(outputs):
        raise FarmError("%s: two titles write the same output" % path)
    return out
