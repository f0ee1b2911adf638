"""fssim-farm report: one self-contained HTML page per log, its plots also as
PNG files beside it.

What a person should see at a glance is which rung of the ladder falls
apart where, so the page leads with the per-frame scores of every rendition
over time, the worst stretches of each marked and listed, then a table of
the pooled values, the distribution of the per-frame scores, and (given
bitrates, or the renditions' files to ffprobe) the ladder's rate-quality
points.  One metric is plotted: float SSIM's All if the log has it (the
Gaussian SSIM of Wang et al., the most widely compared), else the log's
first algorithm; --metric picks another.

The page fetches nothing: the PNGs are inlined as data URLs and the style
is in the page.  Matplotlib draws with its Agg backend (no display).
"""
import base64
import html
import json
import math
import os
import subprocess

from . import logs
from .errors import FarmError

PLOT_WIDTH_IN = 12.4       # 1240 px at 100 dpi: the page is 1280 px wide
DPI = 100
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
          "#17becf", "#7f7f7f", "#bcbd22"]
LABELS = {"float": "float SSIM", "int": "int SSIM", "block": "block SSIM (FFmpeg ssim)",
          "psnr": "PSNR (dB)", "msssim": "MS-SSIM", "fssim3d": "3-D SSIM"}


def parse_bitrates(text, files=None, ffprobe="ffprobe"):
    """{k: kbit/s} from '1:4500,2:3000' or '4500,3000' (renditions in
    order), else from ffprobe of the renditions' files; None without."""
    if text:
        out = {}
        for i, item in enumerate(text.split(",")):
            if ":" in item:
                k, v = item.split(":", 1)
                out[int(k)] = float(v)
            else:
                out[i + 1] = float(item)
        return out
    if files:
        return {i + 1: probe_bitrate(f, ffprobe) for i, f in enumerate(files)}
    return None


def probe_bitrate(path, ffprobe="ffprobe"):
    """The video stream's bitrate in kbit/s (the container's if the stream
    does not say)."""
    p = subprocess.run([ffprobe, "-v", "error", "-select_streams", "v:0", "-show_entries",
                        "stream=bit_rate:format=bit_rate", "-of", "json", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise FarmError("%s: ffprobe failed: %s" % (path, p.stderr.strip()[-300:]))
    d = json.loads(p.stdout)
    for src in (d.get("streams", [{}])[0], d.get("format", {})):
        v = src.get("bit_rate")
        if v not in (None, "N/A"):
            return float(v) / 1000.0
    raise FarmError("%s: no bitrate known to ffprobe" % path)


class Series:
    """The per-frame values of one rendition for the plotted metric."""

    def __init__(self, k, label, n, t, v):
        self.k, self.label, self.n, self.t, self.v = k, label, n, t, v


def choose_metric(log, metric=None):
    if metric:
        if metric not in log.slots:
            raise FarmError("%s: no %s in the log (it has %s)" % (log.path, metric,
                                                                 ", ".join(log.slots)))
        return metric
    return "float" if "float" in log.slots else log.slots[0]


def series(log, metric):
    """One Series per rendition, the frames it was scored on."""
    nc = len(log.components)
    keys = [r["k"] for r in log.renditions] if log.is_ladder else [None]
    data = {k: ([], [], []) for k in keys}
    cap = 6.0 * log.depth + 12.0
    for fr in log.frames:
        pt = _pts_time(fr)
        for e in fr.entries:
            v = e.scores[metric][nc]
            if v is None or (metric == "psnr" and v > cap):
                v = cap if metric == "psnr" else float("nan")
            d = data[e.k]
            d[0].append(fr.n)
            d[1].append(pt)
            d[2].append(v)
    out = []
    for k in keys:
        if log.is_ladder:
            r = next(r for r in log.renditions if r["k"] == k)
            label = "%d: %s %dx%d" % (k, r["pad"], r["width"], r["height"])
        else:
            label = "rendition"
        out.append(Series(k, label, *data[k]))
    return out


def _pts_time(fr):
    if isinstance(fr.payload, dict):
        return fr.payload.get("pts_time")
    row = fr.payload[0].split(",")
    try:
        return float(row[2])
    except (IndexError, ValueError):
        return None


def worst_stretches(s, window, count=3):
    """The `count` lowest-mean runs of `window` consecutive frames, not
    overlapping: [(first index, last index, mean)], worst first."""
    import numpy as np
    v = np.asarray(s.v, dtype=float)
    if len(v) == 0:
        return []
    w = max(1, min(window, len(v)))
    finite = np.where(np.isfinite(v), v, np.nanmax(v) if np.isfinite(v).any() else 0.0)
    means = np.convolve(finite, np.ones(w) / w, mode="valid")
    taken = np.zeros(len(means), bool)
    out = []
    for i in np.argsort(means, kind="stable"):
        if len(out) == count:
            break
        if taken[i]:
            continue
        out.append((int(i), int(i + w - 1), float(means[i])))
        taken[max(0, i - w + 1):i + w] = True
    return out


def _fps(ss):
    for s in ss:
        if len(s.t) > 1 and s.t[0] is not None and s.t[-1] is not None and s.t[-1] > s.t[0]:
            return (len(s.t) - 1) / (s.t[-1] - s.t[0])
    return None


def _ylim(ss, metric):
    import numpy as np
    vals = np.concatenate([np.asarray(s.v, float) for s in ss if s.v] or [np.zeros(1)])
    vals = vals[np.isfinite(vals)]
    if not len(vals):
        return 0, 1
    lo, hi = np.percentile(vals, 0.2), vals.max()
    lo = min(lo, vals.min() if len(vals) < 500 else lo)
    pad = (hi - lo) * 0.08 or 0.01
    top = hi + pad if metric == "psnr" else min(1.0 + pad / 4, hi + pad)
    return lo - pad, top


def plot_timeline(ss, metric, stretches, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rows = len(ss) + 1
    fig = plt.figure(figsize=(PLOT_WIDTH_IN, 2.9 + 1.55 * len(ss)), dpi=DPI)
    gs = fig.add_gridspec(rows, 1, height_ratios=[2.2] + [1] * len(ss), hspace=0.45)
    ylab = LABELS.get(metric, metric) + " (All)"
    ylim = _ylim(ss, metric)
    ax0 = fig.add_subplot(gs[0])
    for i, s in enumerate(ss):
        ax0.plot(s.n, s.v, lw=0.9, color=COLORS[i % len(COLORS)], label=s.label)
    ax0.set_title("Per-frame %s of every rendition" % ylab, fontsize=13, loc="left")
    ax0.set_ylabel(ylab, fontsize=11)
    ax0.set_ylim(*ylim)
    ax0.grid(alpha=0.3)
    ax0.legend(loc="upper left", bbox_to_anchor=(0.0, -0.1), fontsize=9, ncol=min(5, len(ss)),
               frameon=False)
    ax0.tick_params(labelsize=10)
    for i, s in enumerate(ss):
        ax = fig.add_subplot(gs[i + 1], sharex=ax0)
        color = COLORS[i % len(COLORS)]
        ax.plot(s.n, s.v, lw=0.8, color=color)
        if s.v:
            mean = float(np.nanmean(np.asarray(s.v, float)))
            ax.axhline(mean, color="k", lw=0.8, ls="--", alpha=0.6)
        for j, (a, b, m) in enumerate(stretches[i]):
            ax.axvspan(s.n[a], s.n[b], color="#d62728", alpha=0.22 if j else 0.35, lw=0)
            ax.text(s.n[a], ylim[1] - (ylim[1] - ylim[0]) * 0.04, "#%d" % (j + 1),
                    fontsize=8.5, color="#a00000", va="top")
        ax.set_ylim(*ylim)
        ax.set_ylabel(s.label.split(" ", 1)[-1] if len(s.label) < 26 else "k=%s" % s.k,
                      fontsize=9, rotation=0, ha="right", va="center")
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=9)
        if i < len(ss) - 1:
            plt.setp(ax.get_xticklabels(), visible=False)
        else:
            ax.set_xlabel("frame (title frame number n)", fontsize=11)
    fig.subplots_adjust(left=0.14, right=0.985, top=0.95,
                        bottom=0.55 / (2.9 + 1.55 * len(ss)) + 0.03)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def plot_distribution(ss, metric, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(PLOT_WIDTH_IN, 4.2), dpi=DPI)
    lab = LABELS.get(metric, metric) + " (All)"
    lo, hi = _ylim(ss, metric)
    bins = np.linspace(lo, hi, 60)
    for i, s in enumerate(ss):
        v = np.asarray(s.v, float)
        v = v[np.isfinite(v)]
        if not len(v):
            continue
        c = COLORS[i % len(COLORS)]
        ax1.hist(np.clip(v, lo, hi), bins=bins, histtype="step", lw=1.4, color=c, label=s.label)
        xs = np.sort(v)
        ax2.plot(xs, np.arange(1, len(xs) + 1) / len(xs) * 100.0, color=c, lw=1.4,
                 label=s.label)
    ax1.set_title("Histogram of per-frame scores", fontsize=12, loc="left")
    ax1.set_xlabel(lab, fontsize=11)
    ax1.set_ylabel("frames", fontsize=11)
    ax2.set_title("Cumulative: % of frames at or below a score", fontsize=12, loc="left")
    ax2.set_xlabel(lab, fontsize=11)
    ax2.set_ylabel("% of frames", fontsize=11)
    ax2.set_xlim(lo, hi)
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=10)
    ax2.legend(loc="upper left", fontsize=9, framealpha=0.9)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def plot_rate_quality(points, metric, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(PLOT_WIDTH_IN * 0.62, 4.6), dpi=DPI)
    pts = sorted(points, key=lambda p: p[0])
    ax.plot([p[0] for p in pts], [p[1] for p in pts], "-", color="#888", lw=1)
    for i, (rate, mean, p5, label, idx) in enumerate(pts):
        c = COLORS[idx % len(COLORS)]
        ax.plot([rate], [mean], "o", color=c, ms=8)
        ax.plot([rate, rate], [p5, mean], "-", color=c, lw=1.2, alpha=0.7)
        ax.annotate(label, (rate, mean), textcoords="offset points", xytext=(6, 6), fontsize=9)
    ax.set_xscale("log")
    from matplotlib.ticker import FuncFormatter
    plain = FuncFormatter(lambda x, _: "%g" % x)
    ax.xaxis.set_major_formatter(plain)
    ax.xaxis.set_minor_formatter(plain)
    ax.set_xlabel("bitrate (kbit/s, log scale)", fontsize=11)
    ax.set_ylabel("mean %s (All); bar down to p5" % LABELS.get(metric, metric), fontsize=10)
    ax.set_title("Rate-quality points of the ladder", fontsize=12, loc="left")
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def _fmt(v, metric=None):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "&ndash;"
    if metric == "psnr":
        return "%.2f" % v
    return "%.5f" % v


CSS = """
body{font:15px/1.45 -apple-system,'Segoe UI',Roboto,'DejaVu Sans',Arial,sans-serif;
color:#222;margin:0;background:#f4f5f7}
main{max-width:1240px;margin:0 auto;padding:18px 20px 40px;background:#fff}
h1{font-size:24px;margin:6px 0 4px}h2{font-size:19px;margin:26px 0 8px;
border-bottom:1px solid #ddd;padding-bottom:4px}
.meta{color:#555;font-size:13.5px;margin:0 0 10px}
table{border-collapse:collapse;width:100%;font-size:13.5px;margin:6px 0}
th,td{border:1px solid #ddd;padding:4px 7px;text-align:right;white-space:nowrap}
th{background:#eef1f5}td.l,th.l{text-align:left}
tr.bad td{background:#fdecec}
img{max-width:100%;display:block;margin:6px 0}
.note{color:#666;font-size:13px}
.sw{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px}
"""


def write_report(log_path, html_path, bitrates=None, metric=None, probe_bitrates=True,
                 ffprobe="ffprobe"):
    """Write the report of a log; returns {"html": path, "pngs": [paths]}."""
    log = logs.read_log(log_path)
    if not log.frames:
        raise FarmError("%s: no frames to report" % log_path)
    from .merge import pool_frames
    metric = choose_metric(log, metric)
    pools, counts = pool_frames(log)
    ss = series(log, metric)
    fps = _fps(ss)
    # about 2 s, but never more than a twentieth of the title: short clips
    # still show where they are worst
    window = int(round(2 * fps)) if fps else len(log.frames) // 100
    window = max(3, min(window, len(log.frames) // 20))
    stretches = [worst_stretches(s, window) for s in ss]

    out_dir = os.path.dirname(os.path.abspath(html_path))
    stem = os.path.splitext(os.path.basename(html_path))[0]
    os.makedirs(out_dir, exist_ok=True)
    pngs = {"timeline": os.path.join(out_dir, stem + "_timeline.png"),
            "distribution": os.path.join(out_dir, stem + "_distribution.png")}
    plot_timeline(ss, metric, stretches, pngs["timeline"])
    plot_distribution(ss, metric, pngs["distribution"])
    nc = len(log.components)
    points = []
    if bitrates:
        for i, s in enumerate(ss):
            k = s.k or 1
            if k in bitrates:
                p = pools[(s.k, metric, nc)]
                points.append((bitrates[k], p["mean"], p["p5"], s.label.split(" ")[0] +
                               " " + s.label.split(" ")[-1], i))
        if points:
            pngs["rate_quality"] = os.path.join(out_dir, stem + "_rate_quality.png")
            plot_rate_quality(points, metric, pngs["rate_quality"])

    def img(key, alt):
        with open(pngs[key], "rb") as f:
            data = base64.b64encode(f.read()).decode()
        return '<img alt="%s" src="data:image/png;base64,%s">' % (html.escape(alt), data)

    e = html.escape
    worst_all = min(range(len(ss)), key=lambda i: pools[(ss[i].k, metric, nc)]["p5"]
                    if math.isfinite(pools[(ss[i].k, metric, nc)]["p5"]) else math.inf)
    parts = ["<!DOCTYPE html><html lang=en><head><meta charset=utf-8>",
             "<meta name=viewport content='width=1280'>",
             "<title>%s: %s</title><style>%s</style></head><body><main>" % (
                 e(log.filter), e(os.path.basename(log_path)), CSS)]
    parts.append("<h1>%s &mdash; %s</h1>" % (e(os.path.basename(log_path)),
                                             e(LABELS.get(metric, metric))))
    inp = log.input
    parts.append("<p class=meta>filter <b>%s</b> (fssim %s) &middot; reference %s %dx%d, "
                 "%d-bit &middot; %d frames &middot; %d rendition%s &middot; algorithms: %s%s</p>"
                 % (e(log.filter), e(str(log.version)), e(inp.get("pix_fmt", "")),
                    inp.get("width", 0), inp.get("height", 0), log.depth, len(log.frames),
                    len(ss), "" if len(ss) == 1 else "s", e(", ".join(log.slots)),
                    (" &middot; segments: %d" % len(log.segments)) if log.segments else ""))
    parts.append("<p>Lowest 5th percentile: <b>%s</b> (p5 %s). Shaded in red below: the three "
                 "worst stretches of %d frames%s of each rendition.</p>" % (
                     e(ss[worst_all].label), _fmt(pools[(ss[worst_all].k, metric, nc)]["p5"],
                                                 metric), window,
                     " (%.1f s)" % (window / fps) if fps else ""))
    parts.append("<h2>Scores over time</h2>" + img("timeline", "per-frame scores over time"))
    parts.append("<h2>Pooled values</h2>")
    parts.append(_pooled_table(log, ss, pools, counts, metric, bitrates))
    parts.append("<h2>Worst stretches</h2>" + _stretch_table(ss, stretches, metric, window))
    parts.append("<h2>Distribution of per-frame scores</h2>" +
                 img("distribution", "distribution of scores"))
    if "rate_quality" in pngs:
        parts.append("<h2>Rate&ndash;quality</h2>" + img("rate_quality", "rate-quality points"))
    else:
        parts.append("<p class=note>No bitrates given: pass --bitrates or --renditions for the "
                     "rate&ndash;quality plot.</p>")
    parts.append("<p class=note>Pooled values as in the log: mean, harmonic mean "
                 "(libvmaf's), nearest-rank percentiles over the frames each rendition was "
                 "scored on%s.</p></main></body></html>" % (
                     "; PSNR pooled with each frame capped at %g dB" % (6 * log.depth + 12)
                     if "psnr" in log.slots else ""))
    tmp = html_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(parts))
    os.replace(tmp, html_path)
    return {"html": html_path, "pngs": list(pngs.values()), "metric": metric}


def _pooled_table(log, ss, pools, counts, metric, bitrates):
    nc = len(log.components)
    others = [a for a in log.slots if a != metric]
    head = ["<table><tr><th class=l>rendition</th><th>frames</th>"]
    if bitrates:
        head.append("<th>kbit/s</th>")
    head.append("".join("<th>%s</th>" % h for h in
                        ("mean", "harmonic", "min", "p1", "p5", "median")))
    head.append("".join("<th>%s mean</th>" % html.escape(a) for a in others))
    head.append("</tr>")
    p5s = [pools[(s.k, metric, nc)]["p5"] for s in ss]
    worst = min((v for v in p5s if math.isfinite(v)), default=None)
    rows = []
    for i, s in enumerate(ss):
        p = pools[(s.k, metric, nc)]
        cls = " class=bad" if len(ss) > 1 and p["p5"] == worst else ""
        cells = ["<td class=l><span class=sw style='background:%s'></span>%s</td><td>%d</td>"
                 % (COLORS[i % len(COLORS)], html.escape(s.label), counts[s.k])]
        if bitrates:
            b = bitrates.get(s.k or 1)
            cells.append("<td>%s</td>" % ("%.0f" % b if b else "&ndash;"))
        cells.append("".join("<td>%s</td>" % _fmt(p[x], metric) for x in
                             ("mean", "harmonic_mean", "min", "p1", "p5", "p50")))
        cells.append("".join("<td>%s</td>" % _fmt(pools[(s.k, a, nc)]["mean"], a)
                             for a in others))
        rows.append("<tr%s>%s</tr>" % (cls, "".join(cells)))
    return "".join(head) + "".join(rows) + "</table>"


def _stretch_table(ss, stretches, metric, window):
    rows = ["<table><tr><th class=l>rendition</th><th>#</th><th>frames</th><th>time (s)</th>"
            "<th>mean over the stretch</th></tr>"]
    for i, s in enumerate(ss):
        for j, (a, b, m) in enumerate(stretches[i]):
            t = ("%.2f&ndash;%.2f" % (s.t[a], s.t[b])) if s.t[a] is not None and \
                s.t[b] is not None else "&ndash;"
            rows.append("<tr><td class=l>%s</td><td>%d</td><td>%d&ndash;%d</td><td>%s</td>"
                        "<td>%s</td></tr>" % (html.escape(s.label), j + 1, s.n[a], s.n[b], t,
                                              _fmt(m, metric)))
    rows.append("</table>")
    return "".join(rows)
