"""fssim-farm report: the page an encoding engineer decides with.

One self-contained HTML page (page.py) of one title -- one log of a ladder,
or several logs of one reference (a sweep: several encodes per
resolution) -- and files beside it:

- every algorithm of the logs and every plane, SSIM also in dB, behind
  one switch: the pooled values of each rendition (and its difference to
  the next rung up), the per-frame scores over time, their distribution,
  and, with bitrates (--bitrates, or ffprobe of --renditions), the
  rate-quality points of every rendition and their convex hull across
  resolutions (hull.py), drawn and listed;
- the worst events of each rendition (events.py) by the primary metric
  (--metric, --plane; float SSIM's All by default), with the reference's
  and the rendition's pictures of each event's worst frame side by side
  (given --reference and --renditions), in the page and as JPEG files;
- the scenes (scenes.py: FFmpeg's scdet, or cuts given): each rendition's
  mean and p5 per scene;
- REPORT_frames.csv (every frame of every rendition, every algorithm and
  plane), REPORT_scenes.csv, and PNG plots of the primary metric
  (plots.py) for documents that cannot hold the page.
"""
import csv
import html
import math
import os

from . import events as events_mod
from . import hull as hull_mod
from . import page
from . import plots
from . import rungs as rungs_mod
from . import scenes as scenes_mod
from .errors import FarmError
from .rungs import DB_MAX, to_db

HIST_BINS = 80
QUANTILES = 201            # the cumulative distribution drawn: every 0.5 %
DEFAULT_EVENTS = 3


def choose_metric(title, metric=None, plane=None):
    """The primary algorithm and plane: float SSIM's All unless asked."""
    if metric:
        if metric not in title.algos:
            raise FarmError("--metric %s: the logs have %s" % (metric, ", ".join(title.algos)))
    else:
        metric = "float" if "float" in title.algos else title.algos[0]
    if plane:
        if plane not in title.planes:
            raise FarmError("--plane %s: the logs have %s" % (plane, ", ".join(title.planes)))
    else:
        plane = "All"
    return metric, plane


def scaled(title, values, algo, scale):
    """Values of algo on the scale: a similarity's in dB for "dB"."""
    return to_db(values) if scale == "dB" and algo in title.ssim_like else values


def scales(title, algo):
    """A similarity is shown as its values and in dB; any other score as is."""
    return ("value", "dB") if algo in title.ssim_like else ("value",)


def assign_bitrates(title, bitrates=None, renditions=None, ffprobe=None):
    """Each rung's kbit/s: from --bitrates (text, a list, or {k: kbps} of a
    single log), else from ffprobe of the renditions' files."""
    n = len(title.rungs)
    if bitrates is not None:
        if isinstance(bitrates, str):
            rates = hull_mod.parse_bitrates(bitrates, n)
        elif isinstance(bitrates, dict):
            rates = [bitrates.get(r.k if r.k is not None else 1) for r in title.rungs]
        else:
            rates = list(bitrates)
            if len(rates) != n:
                raise FarmError("%d bitrates for %d renditions" % (len(rates), n))
    elif renditions:
        rates = [hull_mod.probe_kbps(f, ffprobe) for f in renditions]
    else:
        return
    for r, v in zip(title.rungs, rates):
        r.kbps = float(v) if v is not None else None


def check_files(title, renditions, reference):
    if renditions is not None and len(renditions) != len(title.rungs):
        raise FarmError("--renditions lists %d files for %d renditions: give every rendition's "
                        "file, in the logs' order" % (len(renditions), len(title.rungs)))
    for f in list(renditions or []) + ([reference] if reference else []):
        if "://" not in f and not os.path.exists(f):
            raise FarmError("%s: no such file" % f)


def hulls(title):
    """{"algo|plane|scale": [rung positions on the hull, by rising rate]}."""
    out = {}
    for algo in title.algos:
        for plane in title.planes:
            for scale in scales(title, algo):
                pts = []
                for r in title.rungs:
                    p = r.pooled.get((algo, plane))
                    q = None if p is None else float(scaled(title, p["mean"], algo, scale))
                    pts.append((r.kbps, q))
                out["%s|%s|%s" % (algo, plane, scale)] = hull_mod.upper_hull(pts)
    return out


def _distributions(title):
    """Shared histogram bins per algorithm, plane and scale: {key: {lo, hi,
    counts: [per rung or None]}}."""
    import numpy as np
    out = {}
    for algo in title.algos:
        for plane in title.planes:
            for scale in scales(title, algo):
                vals = {}
                for r in title.rungs:
                    v = r.values.get((algo, plane))
                    if v is not None:
                        v = np.asarray(scaled(title, v, algo, scale), float)
                        vals[r.index] = v[np.isfinite(v)]
                allv = [v for v in vals.values() if len(v)]
                if not allv:
                    continue
                lo = min(float(v.min()) for v in allv)
                hi = max(float(v.max()) for v in allv)
                if hi <= lo:
                    hi = lo + (1e-6 if algo in title.ssim_like and scale == "value" else 0.01)
                counts = [None] * len(title.rungs)
                for i, v in vals.items():
                    counts[i] = np.histogram(v, bins=HIST_BINS, range=(lo, hi))[0].tolist()
                out["%s|%s|%s" % (algo, plane, scale)] = {"lo": lo, "hi": hi, "counts": counts}
    return out


def _page_rungs(title, primary_events):
    import numpy as np
    out = []
    for r in title.rungs:
        starts = page.buckets(len(r.n))
        x, n = page.decimated_axis(r, starts)
        y, q, pooled = {}, {}, {}
        for (algo, plane), v in r.values.items():
            key = "%s|%s" % (algo, plane)
            digits = 4 if algo in title.in_db else 7
            y[key] = page.decimated_values(v, starts, digits)
            fin = v[np.isfinite(v)]
            q[key] = page.rounded(np.quantile(fin, np.linspace(0, 1, QUANTILES))
                                  if len(fin) else np.full(QUANTILES, np.nan), digits)
            pooled[key] = r.pooled[(algo, plane)]
        # an event's shading ends where its last frame does
        dur = 1.0 / title.fps if title.fps else 0.0
        evs = [[page.rounded([r.t[e.first] * 1000.0], 1)[0],
                page.rounded([(r.t[e.last] + dur) * 1000.0], 1)[0], j + 1]
               for j, e in enumerate(primary_events[r.index])]
        p = r.pairing or {}
        out.append({"i": r.index, "name": r.name, "size": r.size_label,
                    "pixels": r.size[0] * r.size[1], "color": page.COLORS[r.index %
                                                                          len(page.COLORS)],
                    "kbps": r.kbps, "frames": r.frames,
                    "pairing": {c: p.get(c, 0) for c in ("lacks", "excess", "damaged")}
                    if p else None,
                    "x": x, "n": n, "y": y, "q": q, "pooled": pooled, "events": evs})
    return out


def write_frames_csv(title, path):
    """Every frame of every rendition: n, pts_time, rendition, name, then
    every algorithm's every plane (10 significant digits)."""
    import numpy as np
    cols = [(a, p) for a in title.algos for p in title.planes]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write("n,pts_time,rendition,name,%s\n" % ",".join("%s.%s" % c for c in cols))
        for r in title.rungs:
            name = '"%s"' % r.name.replace('"', '""')
            have = [c for c in cols if c in r.values]
            fmt = "%%d,%%.10g,%d,%s," % (r.index + 1, name.replace("%", "%%")) + ",".join(
                "%.10g" if c in r.values else "" for c in cols)
            m = np.column_stack([r.n.astype(float), r.t] + [r.values[c] for c in have])
            np.savetxt(f, m, fmt=fmt)
    os.replace(tmp, path)


def write_scenes_csv(title, spans, path):
    """Per scene and rendition: frames, and each algorithm's mean and p5 of
    each plane."""
    cols = [(a, p) for a in title.algos for p in title.planes]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scene", "first_n", "last_n", "rendition", "name", "frames"] +
                   ["%s.%s.%s" % (a, p, s) for a, p in cols for s in ("mean", "p5")])
        per = {}
        for r in title.rungs:
            for c in cols:
                if c in r.values:
                    per[(r.index, c)] = scenes_mod.per_scene(r.n, r.values[c], spans)
        for s, (a, b) in enumerate(spans):
            for r in title.rungs:
                cells, frames = [], 0
                for c in cols:
                    v = per.get((r.index, c))
                    if v is None:
                        cells += ["", ""]
                        continue
                    frames = v[s][0]
                    cells += ["" if x is None else "%.10g" % x for x in v[s][1:]]
                w.writerow([s + 1, a, b, r.index + 1, r.name, frames] + cells)
    os.replace(tmp, path)


def _scene_spans(title, spec, reference, ffmpeg, threshold):
    import numpy as np
    first = min(int(r.n[0]) for r in title.rungs)
    last = max(int(r.n[-1]) for r in title.rungs)
    if spec == "scdet":
        if not reference:
            raise FarmError("--scenes scdet runs on the reference: give --reference FILE")
        times = scenes_mod.detect(ffmpeg, reference, threshold)
        # the title's frames and times, from the rendition that has most
        r = max(title.rungs, key=lambda x: x.frames)
        order = np.argsort(r.t)
        cuts = scenes_mod.cuts_from_times(times, r.n[order], r.t[order], title.fps)
    else:
        cuts = scenes_mod.parse_cuts(spec)
    return scenes_mod.scenes(cuts, first, last), cuts


def _time_of(title, n):
    """The time of title frame n, from a rendition scored on it."""
    import numpy as np
    for r in title.rungs:
        i = int(np.searchsorted(r.n, n))
        if i < len(r.n) and r.n[i] == n and math.isfinite(r.t[i]):
            return float(r.t[i])
    return None


def _fmt(v, in_db):
    """A value for the page; in_db: a score in dB (two decimals)."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "&ndash;"
    return "%.2f" % v if in_db else "%.5f" % v


def _hms(t):
    if t is None or not math.isfinite(t):
        return "&ndash;"
    h, rem = divmod(t, 3600)
    m, s = divmod(rem, 60)
    return "%d:%02d:%05.2f" % (h, m, s) if h else "%d:%05.2f" % (m, s)


def _events_html(title, evs, algo, plane, out_dir, window, note):
    e = html.escape
    in_db = algo in title.in_db
    parts = ["<p class=note>Stretches where a rendition is at its worst by <b>%s %s</b>: the "
             "windows of %d frame%s%s among the lowest %g %% of the title's, grown to half "
             "their dip's depth, neighbouring windows merged into one event, ranked by their "
             "lowest window; the pictures are the event's worst frame, the reference left and "
             "the rendition right.%s</p>" % (
                 e(title.labels[algo]), e(plane), window, "" if window == 1 else "s",
                 " (%.2f s)" % (window / title.fps) if title.fps else "",
                 events_mod.LOW_PERCENT, (" " + note) if note else "")]
    for r in title.rungs:
        rows = evs[r.index]
        parts.append("<h3><span class=sw style='background:%s'></span>%s <span class=note>"
                     "(%s)</span></h3>" % (page.COLORS[r.index % len(page.COLORS)], e(r.name),
                                           r.size_label))
        if not rows:
            parts.append("<p class=note>no frames</p>")
            continue
        parts.append("<div class=events>")
        for j, ev in enumerate(rows):
            cap = ("<b>#%d</b> frames %d&ndash;%d (%s&ndash;%s), mean %s, worst %s at frame %d"
                   % (j + 1, r.n[ev.first], r.n[ev.last], _hms(r.t[ev.first]),
                      _hms(r.t[ev.last]), _fmt(ev.mean, in_db), _fmt(ev.worst_value, in_db),
                      r.n[ev.worst]))
            img = ""
            if ev.thumb:
                img = ("<img alt='reference and %s at frame %d' src='%s'>" % (
                    e(r.name), r.n[ev.worst], page.img_data_url(ev.thumb)) +
                    "<div class=note>%s &middot; reference | %s</div>" % (
                        e(os.path.relpath(ev.thumb, out_dir)), e(r.name)))
            parts.append("<div class=event><div class=cap>%s</div>%s</div>" % (cap, img))
        parts.append("</div>")
    return "".join(parts)


def _scenes_html(title, spans, per, algo, plane, worst_count=12):
    """The worst scenes (lowest p5 of any rendition) as a table."""
    e = html.escape
    score = []
    for s in range(len(spans)):
        p5s = [per[r.index][s][2] for r in title.rungs if per[r.index][s][2] is not None]
        score.append(min(p5s) if p5s else math.inf)
    order = sorted(range(len(spans)), key=lambda s: score[s])[:worst_count]
    head = ("<table><tr><th class=l>scene</th><th>frames</th><th>from</th>" +
            "".join("<th>%s<br>mean / p5</th>" % e(r.name) for r in title.rungs) + "</tr>")
    rows = []
    for s in order:
        a, b = spans[s]
        t = _time_of(title, a)
        in_db = algo in title.in_db
        cells = "".join("<td>%s / %s</td>" % (_fmt(per[r.index][s][1], in_db),
                                              _fmt(per[r.index][s][2], in_db))
                        for r in title.rungs)
        rows.append("<tr><td class=l>%d</td><td>%d&ndash;%d</td><td>%s</td>%s</tr>"
                    % (s + 1, a, b, _hms(t), cells))
    return ("<p class=note>%d scenes; the %d whose lowest p5 of any rendition is lowest, by "
            "<b>%s %s</b> (every scene, every metric: the scenes CSV).</p>" % (
                len(spans), len(order), e(title.labels[algo]), e(plane)) +
            head + "".join(rows) + "</table>")


# ---------------------------------------------------------------------------

def write_report(logs_, html_path, **kw):
    """Write the report of one title's log(s) (a path or a list) to
    html_path and its files beside it; returns a summary (JSON-ready).
    Keywords: those of _write_report."""
    try:
        return _write_report(logs_, html_path, **kw)
    except OSError as e:
        raise FarmError("%s: %s" % (e.filename or html_path, e.strerror or e))


def _write_report(logs_, html_path, bitrates=None, renditions=None, reference=None, names=None,
                  title=None, metric=None, plane=None, ffmpeg="ffmpeg", ffprobe=None,
                  scenes=None, scdet_threshold=scenes_mod.SCDET_THRESHOLD,
                  events=DEFAULT_EVENTS, thumbnails=True, probe_bitrates=True):
    paths = [logs_] if isinstance(logs_, str) else list(logs_)
    if events < 0:
        raise FarmError("--events %d: give 0 or more" % events)
    t = rungs_mod.load(paths, names=names, title=title, files=renditions)
    if not title and not t.reference.get("name") and reference:
        t.name = os.path.basename(reference.rstrip("/")) or reference
    check_files(t, renditions, reference)
    algo, plane = choose_metric(t, metric, plane)
    if bitrates is None and renditions and probe_bitrates:
        ffprobe = hull_mod.ffprobe_beside(ffmpeg, ffprobe)
    assign_bitrates(t, bitrates, renditions if probe_bitrates else None, ffprobe)

    out_dir = os.path.dirname(os.path.abspath(html_path))
    stem = os.path.splitext(os.path.basename(html_path))[0]
    if not os.path.isdir(out_dir):
        raise FarmError("-o %s: the folder %s does not exist" % (html_path, out_dir))
    files = {}

    window = events_mod.window_frames(t.fps, max(r.frames for r in t.rungs))
    evs = {r.index: (events_mod.worst_events(r.values[(algo, plane)], window, events)
                     if (algo, plane) in r.values else []) for r in t.rungs}
    thumb_note = None
    if thumbnails and events and reference and renditions:
        jobs = [(r, ev, j + 1) for r in t.rungs for j, ev in enumerate(evs[r.index])]
        ref_w, ref_h = int(t.reference["width"]), int(t.reference["height"])
        events_mod.extract_thumbnails(ffmpeg, reference, dict(enumerate(renditions)), jobs,
                                      events_mod.thumb_size(ref_w, ref_h), t.fps,
                                      os.path.join(out_dir, stem + "_worst"), stem)
        files["worst"] = sorted(ev.thumb for _, ev, _ in jobs)
    elif thumbnails and events:
        thumb_note = "Give --reference and --renditions for their pictures."

    spans = cuts = None
    if scenes:
        spans, cuts = _scene_spans(t, scenes, reference, ffmpeg, scdet_threshold)
        files["scenes_csv"] = os.path.join(out_dir, stem + "_scenes.csv")
        write_scenes_csv(t, spans, files["scenes_csv"])
        if scenes == "scdet":
            files["cuts"] = os.path.join(out_dir, stem + "_cuts.txt")
            with open(files["cuts"], "w") as f:
                f.write("# scene cuts of %s by scdet (threshold %g): title frame numbers\n"
                        % (reference, scdet_threshold))
                f.write("".join("%d\n" % c for c in cuts))

    files["frames_csv"] = os.path.join(out_dir, stem + "_frames.csv")
    write_frames_csv(t, files["frames_csv"])

    hull = hulls(t)
    dist = _distributions(t)
    has_rates = any(r.kbps is not None for r in t.rungs)
    pngs = {"timeline": os.path.join(out_dir, stem + "_timeline.png"),
            "distribution": os.path.join(out_dir, stem + "_distribution.png")}
    plots.plot_timeline(t, algo, plane, evs, pngs["timeline"])
    plots.plot_distribution(t, algo, plane, dist, pngs["distribution"])
    if has_rates:
        pngs["rate_quality"] = os.path.join(out_dir, stem + "_rate_quality.png")
        plots.plot_rate_quality([("", t.rungs, hull["%s|%s|value" % (algo, plane)], "o", "-")],
                          algo, t.labels[algo], plane, pngs["rate_quality"],
                          "Rate-quality points and their convex hull")
    files["png"] = list(pngs.values())

    data = {"kind": "report", "algos": t.algos, "planes": t.planes, "labels": t.labels,
            "ssim_like": t.ssim_like, "in_db": t.in_db, "db_max": DB_MAX,
            "sel": {"algo": algo, "plane": plane, "scale": "value"},
            "rungs": _page_rungs(t, evs), "dist": dist, "hull": hull}
    if spans:
        per = {r.index: scenes_mod.per_scene(r.n, r.values[(algo, plane)], spans)
               if (algo, plane) in r.values else [(0, None, None)] * len(spans)
               for r in t.rungs}
        xs = [_time_of(t, a) for a, _ in spans]
        data["scenes"] = {"x": [None if x is None else round(x * 1000.0, 1) for x in xs],
                          "first": [a for a, _ in spans],
                          "end_ms": round((_time_of(t, spans[-1][1]) or 0.0) * 1000.0, 1),
                          "metric": "%s %s" % (t.labels[algo], plane),
                          "mean": [[v[1] for v in per[r.index]] for r in t.rungs]}
    body = _report_body(t, algo, plane, evs, window, thumb_note, spans,
                        per if spans else None, has_rates, files, out_dir, scenes)
    page.write_page(html_path, "%s: quality report" % t.name, body, data)

    return {"html": html_path, "title": t.name, "metric": algo, "plane": plane,
            "files": files, "renditions": [_summary(r, algo, plane, evs[r.index], hull, t)
                                           for r in t.rungs],
            "hull": [t.rungs[i].name for i in hull["%s|%s|value" % (algo, plane)]],
            "scenes": len(spans) if spans else None, "notes": t.notes}


def _summary(r, algo, plane, evs, hull, t):
    p = r.pooled.get((algo, plane), {})
    return {"name": r.name, "log": r.log.path, "k": r.k, "pad": r.pad, "size": r.size_label,
            "kbps": r.kbps, "frames": r.frames,
            "pooled": {k: p.get(k) for k in rungs_mod.POOLED},
            "pairing": r.pairing, "events": [e.to_json(r) for e in evs]}


def _report_body(t, algo, plane, evs, window, thumb_note, spans, per, has_rates, files,
                 out_dir, scenes):
    e = html.escape
    ref = t.reference
    parts = ["<h1>%s</h1>" % e(t.name)]
    dur = max((float(r.t[-1] - r.t[0]) for r in t.rungs if len(r.t) > 1 and
               math.isfinite(r.t[-1] - r.t[0])), default=None)
    parts.append("<p class=meta>reference <b>%s</b> %s %dx%d, %d-bit &middot; %d frames%s%s "
                 "&middot; %d rendition%s &middot; algorithms: %s &middot; filter %s (fssim "
                 "%s) &middot; log%s: %s</p>" % (
                     e(ref.get("name") or "(unnamed)"), e(ref.get("pix_fmt", "")),
                     ref.get("width", 0), ref.get("height", 0), t.depth,
                     max(r.frames for r in t.rungs),
                     (", %s" % _hms(dur)) if dur else "",
                     (" at %.3f fps" % t.fps) if t.fps else "", len(t.rungs),
                     "" if len(t.rungs) == 1 else "s",
                     e(", ".join(t.labels[a] for a in t.algos)), e(t.filter or ""),
                     e(str(t.version)), "s" if len(t.logs) > 1 else "",
                     e(", ".join(os.path.basename(lg.path) for lg in t.logs))))
    if t.notes:
        parts.append("<ul class=notes>%s</ul>" % "".join("<li>%s</li>" % e(n) for n in t.notes))
    parts.append(page.controls(t.algos, t.planes, algo, plane, "value", t.labels))
    parts.append("<h2>Pooled values: <span class=metric-name></span></h2><div id=pooled></div>"
                 "<p class=note>Mean, harmonic mean (libvmaf's), nearest-rank percentiles over "
                 "the frames each rendition was scored on%s; in dB, the dB of each pooled "
                 "value. The lowest p5 is shaded.</p>" % (
                     "; %s capped at %g dB per frame" % (
                         ", ".join(t.labels[x] for x in t.in_db), 6 * t.depth + 12)
                     if t.in_db else ""))
    decim = any(page.buckets(r.frames) is not None for r in t.rungs)
    still = ("<img class=still alt='scores over time' src='%s'>" % page.img_data_url(
        files["png"][0])) if files.get("png") else ""
    parts.append("<h2>Scores over time</h2><div id=timeline class=plot>%s</div>"
                 "<div id=timeline-rungs class=plot></div>"
                 "<p class=note>Drag to zoom, double-click to reset; shaded: the worst events "
                 "by %s %s.%s</p>" % (still, e(t.labels[algo]), e(plane),
                                     (" Each line draws the lowest and highest value of %d "
                                      "runs of frames; every frame is in the frames CSV."
                                      % page.MAX_BUCKETS) if decim else ""))
    parts.append("<h2>Worst events</h2>" + _events_html(t, evs, algo, plane, out_dir, window,
                                                         thumb_note))
    parts.append("<h2>Distribution of per-frame scores</h2><div id=dist class=plot></div>")
    parts.append("<h2>Rate&ndash;quality</h2>")
    if has_rates:
        parts.append("<div id=rq class=plot></div><div id=hull></div><p class=note>The convex "
                     "hull: the upper hull of the points in bitrate and quality, from the "
                     "lowest bitrate to the best quality; points below it are beaten by a mix "
                     "of the encodes on it. Grey lines join the encodes of one size.</p>")
    else:
        parts.append("<p class=note>No bitrates: give --bitrates, or --renditions (their "
                     "files, for ffprobe) for the rate&ndash;quality points and the hull.</p>")
    parts.append("<h2>Scenes</h2>")
    if spans:
        src = ("FFmpeg's scdet on the reference" if scenes == "scdet" else "the cuts given")
        parts.append("<p class=note>Scene cuts from %s.</p><div id=scenes class=plot></div>"
                     % e(src) + _scenes_html(t, spans, per, algo, plane))
    else:
        parts.append("<p class=note>No scene cuts: give --scenes scdet (FFmpeg's scdet on "
                     "--reference) or --scenes with the cuts' frame numbers.</p>")
    links = [("per-frame values (CSV)", files["frames_csv"])]
    if "scenes_csv" in files:
        links.append(("per-scene values (CSV)", files["scenes_csv"]))
    links += [(os.path.basename(p), p) for p in files["png"]]
    parts.append("<h2>Files</h2><p class=files>%s</p>" % "".join(
        "<a href='%s'>%s</a>" % (e(os.path.relpath(p, out_dir)), e(label))
        for label, p in links))
    return "".join(parts)
