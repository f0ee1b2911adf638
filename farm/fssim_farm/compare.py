"""fssim-farm compare: two ladders of one title (two encoders, two presets),
by Bjontegaard deltas.

For every algorithm both logs have, each plane, and SSIM both as a value
and in dB, the BD-rate of B against A (the anchor: negative is fewer bits
for the same quality) and the BD-quality (B's mean quality over A's at the
same bitrate), from each rendition's pooled mean and bitrate
(hull.bd(): the bjontegaard package, its interpolation named):

- on the hulls: A's convex hull against B's (hull.upper_hull());
- per resolution: A's encodes of one size against B's of the same size,
  where each side has two or more (a sweep).

The figures go to a table on the page (page.py, with a plot of both
ladders' points and hulls) and to --json with the very points they were
computed on.
"""
import html
import os

from . import hull as hull_mod
from . import page
from . import plots
from . import report as report_mod
from . import rungs as rungs_mod
from .errors import FarmError
from .rungs import DB_MAX


class Side:
    """One ladder: its Title, label and hull per metric key."""

    def __init__(self, label, title):
        self.label, self.title = label, title
        self.hull = None


def _load_side(path, label, names, bitrates, renditions, ffmpeg, ffprobe, flag):
    t = rungs_mod.load([path], names=names, files=renditions)
    report_mod.check_files(t, renditions, None)
    if bitrates is not None:
        rates = hull_mod.parse_bitrates(bitrates, len(t.rungs), "--%s-bitrates" % flag)
        report_mod.assign_bitrates(t, rates)
    elif renditions:
        report_mod.assign_bitrates(t, None, renditions, hull_mod.ffprobe_beside(ffmpeg, ffprobe))
    missing = [r.name for r in t.rungs if r.kbps is None]
    if missing:
        raise FarmError("%s: no bitrate for %s: give --%s-bitrates, or --%s-renditions (the "
                        "files, for ffprobe)" % (path, ", ".join(missing), flag, flag))
    return Side(label or os.path.splitext(os.path.basename(path))[0], t)


def _points(title, rs, algo, plane, scale):
    out = []
    for r in rs:
        p = r.pooled.get((algo, plane))
        if p is not None:
            out.append((r.kbps, float(report_mod.scaled(title, p["mean"], algo, scale))))
    return out


def bd_rows(a, b, method):
    """Every BD figure: [{algo, plane, scale, scope, bd_rate, bd_quality,
    note, a_points, b_points}]."""
    algos = [x for x in a.title.algos if x in b.title.algos]
    if not algos:
        raise FarmError("%s and %s have no algorithm in common (%s; %s)" % (
            a.title.logs[0].path, b.title.logs[0].path, ", ".join(a.title.algos),
            ", ".join(b.title.algos)))
    rows = []
    sizes = sorted(set(r.size for r in a.title.rungs) & set(r.size for r in b.title.rungs),
                   key=lambda s: -s[0] * s[1])
    for algo in algos:
        for plane in a.title.planes:
            for scale in report_mod.scales(a.title, algo):
                key = "%s|%s|%s" % (algo, plane, scale)
                scopes = [("convex hull", [a.title.rungs[i] for i in a.hull[key]],
                           [b.title.rungs[i] for i in b.hull[key]])]
                for w, h in sizes:
                    scopes.append(("%dx%d" % (w, h),
                                   [r for r in a.title.rungs if r.size == (w, h)],
                                   [r for r in b.title.rungs if r.size == (w, h)]))
                for scope, ra, rb in scopes:
                    d = hull_mod.bd(_points(a.title, ra, algo, plane, scale),
                                    _points(b.title, rb, algo, plane, scale), method)
                    d.update(algo=algo, plane=plane, scale=scale, scope=scope,
                             quality_unit="dB" if scale == "dB" or algo in a.title.in_db else "")
                    rows.append(d)
    return rows


def compare(a_path, b_path, html_path=None, **kw):
    """The BD figures of ladder B against ladder A; the page too if
    html_path.  Returns a JSON-ready summary.  Keywords: those of
    _compare."""
    try:
        return _compare(a_path, b_path, html_path, **kw)
    except OSError as e:
        raise FarmError("%s: %s" % (e.filename or html_path, e.strerror or e))


def _compare(a_path, b_path, html_path=None, a_label=None, b_label=None, a_names=None,
             b_names=None, a_bitrates=None, b_bitrates=None, a_renditions=None,
             b_renditions=None, interpolation="pchip", metric=None, plane=None,
             ffmpeg="ffmpeg", ffprobe=None):
    if interpolation not in hull_mod.INTERPOLATIONS:
        raise FarmError("--interpolation %s: choose %s" % (
            interpolation, " or ".join(hull_mod.INTERPOLATIONS)))
    a = _load_side(a_path, a_label, a_names, a_bitrates, a_renditions, ffmpeg, ffprobe, "a")
    b = _load_side(b_path, b_label, b_names, b_bitrates, b_renditions, ffmpeg, ffprobe, "b")
    rungs_mod._same_reference(a.title.logs[0], b.title.logs[0])
    if a.label == b.label:
        a.label, b.label = a.label + " (A)", b.label + " (B)"
    for s in (a, b):
        s.hull = report_mod.hulls(s.title)
    rows = bd_rows(a, b, interpolation)
    algo, plane = report_mod.choose_metric(a.title, metric, plane)
    out = {"a": _side_json(a, a_path), "b": _side_json(b, b_path),
           "interpolation": interpolation, "pooled": "mean",
           "bd_rate": "percent bitrate of B against A at equal quality (negative: B needs "
                      "fewer bits)",
           "bd_quality": "B's quality minus A's at equal bitrate", "bd": rows}
    if html_path:
        out_dir = os.path.dirname(os.path.abspath(html_path))
        if not os.path.isdir(out_dir):
            raise FarmError("-o %s: the folder %s does not exist" % (html_path, out_dir))
        stem = os.path.splitext(os.path.basename(html_path))[0]
        png = os.path.join(out_dir, stem + "_rate_quality.png")
        plots.plot_rate_quality(
            [(" [%s]" % a.label, a.title.rungs, a.hull["%s|%s|value" % (algo, plane)], "o", "-"),
             (" [%s]" % b.label, b.title.rungs, b.hull["%s|%s|value" % (algo, plane)], "s",
              "--")], algo, a.title.labels[algo], plane, png, "%s against %s" % (b.label, a.label))
        _page(a, b, rows, interpolation, algo, plane, html_path, png)
        out["html"] = html_path
        out["files"] = {"png": [png]}
    return out


def _side_json(s, path):
    return {"log": path, "label": s.label, "title": s.title.name,
            "renditions": [{"name": r.name, "size": r.size_label, "kbps": r.kbps,
                            "frames": r.frames} for r in s.title.rungs]}


def _page_side(s):
    rs = []
    for r in s.title.rungs:
        rs.append({"i": r.index, "name": r.name, "size": r.size_label, "kbps": r.kbps,
                   "color": page.COLORS[r.index % len(page.COLORS)],
                   "pooled": {"%s|%s" % k: {"mean": v["mean"], "p5": v["p5"]}
                              for k, v in r.pooled.items()}})
    return {"label": s.label, "rungs": rs, "hull": s.hull}


def _page(a, b, rows, method, algo, plane, html_path, png):
    e = html.escape
    algos = [x for x in a.title.algos if x in b.title.algos]
    name = {"pchip": "piecewise cubic Hermite (pchip, as in the JCT-VC/JVET common test "
                     "conditions)", "akima": "Akima"}[method]
    body = ["<h1>%s against %s</h1>" % (e(b.label), e(a.label)),
            "<p class=meta>title <b>%s</b> &middot; A: %s (%d renditions) &middot; B: %s (%d "
            "renditions) &middot; BD figures by the bjontegaard package, %s interpolation, on "
            "each rendition's pooled mean</p>" % (
                e(a.title.name), e(os.path.basename(a.title.logs[0].path)), len(a.title.rungs),
                e(os.path.basename(b.title.logs[0].path)), len(b.title.rungs), e(name))]
    notes = a.title.notes + b.title.notes
    if notes:
        body.append("<ul class=notes>%s</ul>" % "".join("<li>%s</li>" % e(n) for n in notes))
    body.append(page.controls(algos, a.title.planes, algo, plane, "value", a.title.labels))
    body.append("<h2>Bjøntegaard deltas of B against A</h2><div id=bd></div>"
                "<p class=note>BD-rate: how many more bits B needs than A for the same quality "
                "(negative: B saves), averaged over the qualities both curves reach; "
                "BD-quality: B's quality minus A's at the same bitrate. On the convex hulls of "
                "both ladders, and per resolution where each ladder has two encodes of it or "
                "more. Every metric of the plane and scale chosen above.</p>")
    body.append("<h2>Rate&ndash;quality: <span class=metric-name></span></h2>"
                "<div id=rq class=plot></div><p class=note>A: circles and solid hull; B: "
                "squares and dashed hull.</p>")
    body.append("<h3>A's hull: %s</h3><div id=hull-a></div><h3>B's hull: %s</h3>"
                "<div id=hull-b></div>" % (e(a.label), e(b.label)))
    body.append("<h2>Files</h2><p class=files><a href='%s'>%s</a></p>" % (
        e(os.path.basename(png)), e(os.path.basename(png))))
    data = {"kind": "compare", "algos": algos, "planes": a.title.planes,
            "labels": a.title.labels, "ssim_like": a.title.ssim_like,
            "in_db": a.title.in_db, "db_max": DB_MAX,
            "sel": {"algo": algo, "plane": plane, "scale": "value"},
            "sides": [_page_side(a), _page_side(b)], "interpolation": method,
            "bd": [{k: r[k] for k in ("algo", "plane", "scale", "scope", "bd_rate",
                                      "bd_quality", "note", "a_points", "b_points")}
                   for r in rows]}
    page.write_page(html_path, "%s against %s: %s" % (b.label, a.label, a.title.name),
                    "".join(body), data)
