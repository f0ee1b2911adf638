"""Rate and quality: the renditions' bitrates, the convex hull of a ladder
or sweep, and Bjontegaard deltas between two ladders.

- Bitrates are given (--bitrates) or measured by ffprobe: the video
  stream's packets, their sizes summed over their duration.
- The convex hull is the upper hull of the (bitrate, quality) points in
  linear bitrate -- the operational rate-quality curve: a mix in time of
  two encodes reaches every point of the segment between them -- from the
  lowest bitrate up to the best quality (scipy.spatial.ConvexHull, Qhull).
  Points below it are encodes another resolution or rate beats.
- BD-rate and BD-quality are the `bjontegaard` package's (bd_rate and
  bd_psnr on log10 of the bitrate), with its piecewise cubic Hermite
  (pchip, the JCT-VC/JVET common test conditions' sheet) or Akima
  interpolation; a curve needs two points or more, rising in both rate and
  quality.
"""
import json
import math
import os
import re
import shutil
import subprocess
import warnings

from .errors import FarmError

INTERPOLATIONS = ("pchip", "akima")


def ffprobe_beside(ffmpeg, ffprobe=None):
    """The ffprobe to run: the one given, else the one beside --ffmpeg, else
    ffprobe on PATH."""
    if ffprobe:
        if os.sep in ffprobe and not os.access(ffprobe, os.X_OK):
            raise FarmError("--ffprobe %s: no such program" % ffprobe)
        if os.sep not in ffprobe and not shutil.which(ffprobe):
            raise FarmError("--ffprobe %s: not found on PATH" % ffprobe)
        return ffprobe
    if ffmpeg and os.sep in ffmpeg:
        beside = os.path.join(os.path.dirname(ffmpeg), "ffprobe")
        if os.access(beside, os.X_OK):
            return beside
    found = shutil.which("ffprobe")
    if not found:
        raise FarmError("no ffprobe beside --ffmpeg %s nor on PATH: give --ffprobe, or "
                        "--bitrates" % (ffmpeg or "ffmpeg"))
    return found


_RATE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([kKmM]?)(?:bit/s|bps|b)?\s*$")


def _kbps(text, what):
    m = _RATE.match(text)
    if not m:
        raise FarmError("%s: %r is not a bitrate: give kbit/s as a number, e.g. 4500, 4500k "
                        "or 4.5M" % (what, text))
    v = float(m.group(1)) * (1000.0 if m.group(2) in "mM" and m.group(2) else 1.0)
    if not v > 0 or not math.isfinite(v):
        raise FarmError("%s: %r: a bitrate must be positive" % (what, text))
    return v


def parse_bitrates(text, count, what="--bitrates"):
    """kbit/s per rendition from '4500,3000,1200' (one per rendition, in
    order; k and M suffixes) or '1:4500,3:1200' (by position, 1-based);
    a list of `count` values, None where not given."""
    items = [x for x in text.split(",") if x.strip()]
    out = [None] * count
    if items and all(":" in x for x in items):
        for x in items:
            i, v = x.split(":", 1)
            try:
                i = int(i)
            except ValueError:
                raise FarmError("%s: %r: the position before ':' must be a rendition's "
                                "number (1 to %d)" % (what, x, count))
            if not 1 <= i <= count:
                raise FarmError("%s: %r: there are %d renditions (1 to %d)"
                                % (what, x, count, count))
            out[i - 1] = _kbps(v, what)
        return out
    if any(":" in x for x in items):
        raise FarmError("%s: mix of 'N:rate' and plain rates: give one form" % what)
    if len(items) != count:
        raise FarmError("%s: %d bitrates for %d renditions: give one per rendition in order, "
                        "or 'N:rate' for some" % (what, len(items), count))
    return [_kbps(x, what) for x in items]


def probe_kbps(path, ffprobe):
    """The video stream's bitrate in kbit/s: its packets' sizes over the
    time they span."""
    cmd = [ffprobe, "-v", "error", "-select_streams", "v:0", "-show_entries",
           "stream=time_base:packet=pts,dts,duration,size", "-of", "json", path]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        raise FarmError("%s: cannot run %s: %s" % (path, ffprobe, e.strerror or e))
    if p.returncode != 0:
        raise FarmError("%s: ffprobe failed: %s" % (path, p.stderr.strip()[-300:]))
    try:
        d = json.loads(p.stdout)
        from fractions import Fraction
        tb = Fraction(d["streams"][0]["time_base"])
    except (ValueError, KeyError, IndexError):
        raise FarmError("%s: no video stream" % path)
    size, lo, hi = 0, None, None
    for pk in d.get("packets", []):
        size += int(pk.get("size", 0))
        ts = pk.get("pts", pk.get("dts"))
        if ts in (None, "N/A"):
            continue
        ts = int(ts)
        dur = int(pk.get("duration", 0) or 0)
        lo = ts if lo is None else min(lo, ts)
        hi = ts + dur if hi is None else max(hi, ts + dur)
    if not size or lo is None or hi <= lo:
        raise FarmError("%s: ffprobe gives no packets with timestamps: give --bitrates" % path)
    return size * 8.0 / float((hi - lo) * tb) / 1000.0


def upper_hull(points):
    """Indices of the points on the rate-quality hull, by rising rate:
    the upper convex hull in (rate, quality), from the lowest rate to the
    best quality.  points: [(kbps, quality)]."""
    import numpy as np
    pts = [(i, r, q) for i, (r, q) in enumerate(points)
           if r is not None and q is not None and math.isfinite(r) and math.isfinite(q)]
    if not pts:
        return []
    # the efficient points: none cheaper is as good (ties: the cheaper)
    pts.sort(key=lambda p: (p[1], -p[2]))
    front = []
    for p in pts:
        if not front or p[2] > front[-1][2]:
            front.append(p)
    if len(front) < 3:
        return [p[0] for p in front]
    xy = np.array([[p[1], p[2]] for p in front])
    # Qhull on coordinates of comparable scale; a straight line has no area
    span = xy.max(axis=0) - xy.min(axis=0)
    span[span == 0] = 1.0
    from scipy.spatial import ConvexHull
    from scipy.spatial import QhullError
    try:
        hull = ConvexHull((xy - xy.min(axis=0)) / span)
    except QhullError:
        return [p[0] for p in front]          # collinear: all of them
    on = set()
    for simplex, eq in zip(hull.simplices, hull.equations):
        if eq[1] > 0:                           # facets facing up
            on.update(int(v) for v in simplex)
    # the first and last efficient points are always on it
    on.update((0, len(front) - 1))
    return [front[j][0] for j in sorted(on)]


def curve_ok(points):
    """None if the points (rate, quality) make a curve the BD figures can
    be computed on, else why not."""
    if len(points) < 2:
        return "one point: a curve needs two or more"
    pts = sorted(points)
    for (r0, q0), (r1, q1) in zip(pts, pts[1:]):
        if r1 <= r0:
            return "two points of one bitrate"
        if q1 <= q0:
            return "quality does not rise with the bitrate"
    return None


def bd(a_points, b_points, method):
    """BD-rate (%) and BD-quality of B against A (the anchor), with the
    bjontegaard package.  Returns {"bd_rate", "bd_quality", "note",
    "a_points", "b_points"}: values None with a note where they cannot be
    computed."""
    import numpy as np
    if method not in INTERPOLATIONS:
        raise FarmError("interpolation %r: choose %s" % (method, " or ".join(INTERPOLATIONS)))
    a, b = sorted(a_points), sorted(b_points)
    out = {"a_points": [list(p) for p in a], "b_points": [list(p) for p in b],
           "bd_rate": None, "bd_quality": None, "note": None}
    why = curve_ok(a) or curve_ok(b)
    if why:
        out["note"] = "not computed: %s" % why
        return out
    bjontegaard = import_bjontegaard()
    ra, qa = np.array([p[0] for p in a]), np.array([p[1] for p in a])
    rb, qb = np.array([p[0] for p in b]), np.array([p[1] for p in b])
    notes = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            rate = bjontegaard.bd_rate(ra, qa, rb, qb, method=method,
                                       require_matching_points=False)
            qual = bjontegaard.bd_psnr(ra, qa, rb, qb, method=method,
                                       require_matching_points=False)
        except (ValueError, AssertionError) as e:
            out["note"] = "not computed: %s" % e
            return out
    for w in caught:
        msg = str(w.message)
        m = re.search(r"overlap: '([0-9.]+)'\. Minimum overlap: '([0-9.]+)'", msg)
        if m:
            msg = ("the curves share %s %% of their range only (less than %s %%): the figure "
                   "rests on that part" % (m.group(1), m.group(2)))
        elif "do not overlap" in msg:
            continue
        if msg not in notes:
            notes.append(msg)
    out["bd_rate"] = float(rate) if math.isfinite(rate) else None
    out["bd_quality"] = float(qual) if math.isfinite(qual) else None
    if out["bd_rate"] is None or out["bd_quality"] is None:
        notes.insert(0, "the curves do not overlap")
    out["note"] = "; ".join(notes) or None
    return out


def import_bjontegaard():
    """The bjontegaard package (it imports matplotlib's pyplot: no display
    is used)."""
    import matplotlib
    matplotlib.use("Agg")
    try:
        import bjontegaard
    except ImportError:
        raise FarmError("BD-rate needs the bjontegaard package: pip install './farm[report]'")
    return bjontegaard
