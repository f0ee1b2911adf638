"""The report's plots as PNG files (matplotlib, Agg): the primary metric
over time with the worst events shaded, its distribution, and the
rate-quality points with their hulls -- for documents that cannot hold the
page, and as the page's still plot until plotly.js draws.
"""
from . import page
from .errors import FarmError

PLOT_WIDTH_IN = 12.4       # 1240 px at 100 dpi: the page is 1280 px wide
DPI = 100


def _mpl():
    try:
        import matplotlib
    except ImportError:
        raise FarmError("the report needs matplotlib: pip install './farm[report]'")
    matplotlib.use("Agg")
    import warnings
    # a name's character the font lacks is drawn as a box: not worth a line
    warnings.filterwarnings("ignore", message="Glyph .* missing from font")
    import matplotlib.pyplot as plt
    return plt


def plot_timeline(title, algo, plane, evs, path):
    import numpy as np
    plt = _mpl()
    rs = [r for r in title.rungs if (algo, plane) in r.values]
    rows = len(rs) + 1
    fig = plt.figure(figsize=(PLOT_WIDTH_IN, 2.9 + 1.4 * len(rs)), dpi=DPI)
    gs = fig.add_gridspec(rows, 1, height_ratios=[2.2] + [1] * len(rs), hspace=0.45)
    ylab = "%s %s" % (title.labels[algo], plane)
    ax0 = fig.add_subplot(gs[0])
    series = []
    for r in rs:
        starts = page.buckets(len(r.n))
        x = np.asarray(page.decimated_axis(r, starts)[0], float) / 1000.0
        y = np.asarray([np.nan if v is None else v for v in
                        page.decimated_values(r.values[(algo, plane)], starts, 7)])
        series.append((r, x, y))
        ax0.plot(x, y, lw=0.9, color=page.COLORS[r.index % len(page.COLORS)], label=r.label)
    ax0.set_title("Per-frame %s of every rendition" % ylab, fontsize=13, loc="left")
    ax0.set_ylabel(ylab, fontsize=11)
    ax0.grid(alpha=0.3)
    ax0.legend(loc="upper left", bbox_to_anchor=(0.0, -0.1), fontsize=9,
               ncol=min(4, len(rs)), frameon=False)
    lo, hi = ax0.get_ylim()
    for i, (r, x, y) in enumerate(series):
        ax = fig.add_subplot(gs[i + 1], sharex=ax0)
        ax.plot(x, y, lw=0.8, color=page.COLORS[r.index % len(page.COLORS)])
        ax.axhline(r.pooled[(algo, plane)]["mean"], color="k", lw=0.8, ls="--", alpha=0.6)
        for j, ev in enumerate(evs[r.index]):
            ax.axvspan(r.t[ev.first], r.t[ev.last] + (1.0 / title.fps if title.fps else 0.0),
                       color="#d62728", alpha=0.35 if not j
                       else 0.22, lw=0)
            ax.text(r.t[ev.first], hi - (hi - lo) * 0.04, "#%d" % (j + 1), fontsize=8.5,
                    color="#a00000", va="top")
        ax.set_ylim(lo, hi)
        ax.set_ylabel(r.name if len(r.name) < 24 else r.name[:22] + "..", fontsize=9,
                      rotation=0, ha="right", va="center")
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=9)
        if i < len(series) - 1:
            plt.setp(ax.get_xticklabels(), visible=False)
        else:
            ax.set_xlabel("time (s)", fontsize=11)
    fig.subplots_adjust(left=0.16, right=0.985, top=0.95,
                        bottom=0.55 / (2.9 + 1.4 * len(rs)) + 0.03)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def plot_distribution(title, algo, plane, dist, path):
    import numpy as np
    plt = _mpl()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(PLOT_WIDTH_IN, 4.2), dpi=DPI)
    lab = "%s %s" % (title.labels[algo], plane)
    d = dist.get("%s|%s|value" % (algo, plane))
    for r in title.rungs:
        v = r.values.get((algo, plane))
        if v is None:
            continue
        c = page.COLORS[r.index % len(page.COLORS)]
        v = v[np.isfinite(v)]
        if d and d["counts"][r.index]:
            edges = np.linspace(d["lo"], d["hi"], len(d["counts"][r.index]) + 1)
            ax1.stairs(d["counts"][r.index], edges, color=c, lw=1.4, label=r.label)
        xs = np.sort(v)
        ax2.plot(xs, np.arange(1, len(xs) + 1) / len(xs) * 100.0, color=c, lw=1.4,
                 label=r.label)
    ax1.set_title("Histogram of per-frame scores", fontsize=12, loc="left")
    ax1.set_xlabel(lab, fontsize=11)
    ax1.set_ylabel("frames", fontsize=11)
    ax2.set_title("Cumulative: % of frames at or below a score", fontsize=12, loc="left")
    ax2.set_xlabel(lab, fontsize=11)
    ax2.set_ylabel("% of frames", fontsize=11)
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
    ax2.legend(loc="upper left", fontsize=9, framealpha=0.9)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def plot_rate_quality(sides, algo, metric_label, plane, path, title_text):
    """sides: [(label, rungs, hull positions, marker, linestyle)]; metric_label:
    what the y axis is (the title's label of algo)."""
    plt = _mpl()
    from matplotlib.ticker import FuncFormatter
    fig, ax = plt.subplots(figsize=(PLOT_WIDTH_IN * 0.7, 4.8), dpi=DPI)
    for label, rs, hk, marker, ls in sides:
        groups = {}
        for r in rs:
            if r.kbps is not None and (algo, plane) in r.pooled:
                groups.setdefault(r.size, []).append(r)
        for g in groups.values():
            if len(g) > 1:
                g = sorted(g, key=lambda r: r.kbps)
                ax.plot([r.kbps for r in g], [r.pooled[(algo, plane)]["mean"] for r in g],
                        ls=ls, color="#aaa", lw=1)
        for r in rs:
            if r.kbps is None or (algo, plane) not in r.pooled:
                continue
            p = r.pooled[(algo, plane)]
            c = page.COLORS[r.index % len(page.COLORS)]
            ax.plot([r.kbps], [p["mean"]], marker, color=c, ms=8)
            ax.plot([r.kbps, r.kbps], [p["p5"], p["mean"]], "-", color=c, lw=1.1, alpha=0.7)
            ax.annotate(r.name, (r.kbps, p["mean"]), textcoords="offset points", xytext=(6, 5),
                        fontsize=8.5)
        if len(hk) > 1:
            ax.plot([rs[i].kbps for i in hk], [rs[i].pooled[(algo, plane)]["mean"] for i in hk],
                    ls=ls, color="#222", lw=2, label="convex hull" + label)
    ax.set_xscale("log")
    plain = FuncFormatter(lambda x, _: "%g" % x)
    ax.xaxis.set_major_formatter(plain)
    ax.xaxis.set_minor_formatter(plain)
    ax.set_xlabel("bitrate (kbit/s, log scale)", fontsize=11)
    ax.set_ylabel("mean %s %s; bar down to p5" % (metric_label, plane), fontsize=10)
    ax.set_title(title_text, fontsize=12, loc="left")
    ax.grid(alpha=0.3, which="both")
    if any(len(s[2]) > 1 for s in sides):
        ax.legend(loc="lower right", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
