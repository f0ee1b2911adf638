"""The self-contained HTML page of the report and of compare.

The page fetches nothing: plotly.js (from the installed plotly package),
its own script (page.js beside this file), the styles, the data (JSON in a
script element) and the pictures (data URLs) are all inside it.  What is
drawn is decimated, not what is computed: a series of more frames than
2 x MAX_BUCKETS is drawn as the lowest and highest value of each of
MAX_BUCKETS runs of frames (a dip of one frame still shows), while every
pooled value, event, scene and hull is computed on every frame.
"""
import base64
import html
import json
import math
import os

from .errors import FarmError

MAX_BUCKETS = 600
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
          "#17becf", "#7f7f7f", "#bcbd22"]

CSS = """
body{font:15px/1.45 -apple-system,'Segoe UI',Roboto,'DejaVu Sans',Arial,sans-serif;
color:#222;margin:0;background:#f4f5f7}
main{max-width:1240px;margin:0 auto;padding:14px 20px 40px;background:#fff}
h1{font-size:25px;margin:4px 0 2px}h2{font-size:19px;margin:24px 0 8px;
border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:15.5px;margin:14px 0 4px}
.meta{color:#555;font-size:13.5px;margin:0 0 8px}
.notes{background:#fff4e5;border:1px solid #f0c27b;padding:6px 10px;margin:8px 0;
font-size:13.5px}.notes li{margin:2px 0}
.controls{position:sticky;top:0;z-index:10;background:#eef1f5;border:1px solid #d5dae1;
padding:6px 10px;margin:8px 0;font-size:14px}
.controls label{margin-right:16px}.controls select{font-size:14px;margin-left:4px}
table{border-collapse:collapse;width:100%;font-size:13.5px;margin:6px 0}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:right;white-space:nowrap}
th{background:#eef1f5}td.l,th.l{text-align:left}td.w{white-space:normal;min-width:260px}
tr.bad td{background:#fdecec}tr.hull td{background:#eaf5ea}
td.neg{color:#1a7f1a}td.pos{color:#b00000}
.note{color:#666;font-size:13px;margin:4px 0}
.sw{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px}
.plot{width:100%}.still{width:100%;display:block}
.events{display:flex;flex-wrap:wrap;gap:10px}
.event{width:605px;font-size:13px;border:1px solid #ddd;padding:4px}
.event img{width:600px;display:block}
.event .cap{margin:2px 0}
.files a{margin-right:14px}
"""


def plotly_js():
    """plotly.js as the installed plotly package ships it."""
    try:
        from plotly.offline import get_plotlyjs
    except ImportError:
        raise FarmError("the report's page needs plotly: pip install './farm[report]'")
    return get_plotlyjs()


def page_js():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "page.js"),
              encoding="utf-8") as f:
        return f.read()


def _script_text(s):
    """Code inside a <script> element: nothing in it may close the element
    (the code of plotly.js and page.js has no such text; a name in the data
    might)."""
    import re
    return re.sub(r"</(script)", r"<\\/\1", s, flags=re.I).replace("<!--", "<\\!--")


def _json_text(data):
    """The data as JSON inside a <script> element."""
    return json.dumps(clean(data), separators=(",", ":"), allow_nan=False).replace(
        "</", "<\\/").replace("<!--", "<\\u0021--")


def clean(v):
    """JSON-ready: non-finite floats as null, numpy scalars as Python's."""
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [clean(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def rounded(a, digits):
    """A numpy array as a list of floats rounded to `digits` decimals, NaN as None."""
    import numpy as np
    a = np.round(np.asarray(a, dtype=float), digits)
    return [None if not math.isfinite(x) else x for x in a.tolist()]


def buckets(count, max_buckets=MAX_BUCKETS):
    """The first index of each run of frames a series is drawn with; None:
    every frame is drawn."""
    import numpy as np
    if count <= 2 * max_buckets:
        return None
    return np.linspace(0, count, max_buckets + 1).astype(np.int64)[:-1]


def decimated_axis(rung, starts):
    """x (ms, for a time axis) and n of the points drawn: each run's first
    and middle frame, or every frame."""
    import numpy as np
    t = np.where(np.isfinite(rung.t), rung.t, np.nan)
    if starts is None:
        idx = np.arange(len(rung.n))
    else:
        ends = np.append(starts[1:], len(rung.n))
        idx = np.empty(2 * len(starts), np.int64)
        idx[0::2] = starts
        idx[1::2] = (starts + ends) // 2
    return rounded(t[idx] * 1000.0, 1), rung.n[idx].tolist()


def decimated_values(v, starts, digits):
    """The values drawn: each run's lowest, then its highest (NaN ignored),
    or every value."""
    import numpy as np
    if starts is None:
        return rounded(v, digits)
    out = np.empty(2 * len(starts))
    with np.errstate(invalid="ignore"):
        out[0::2] = np.fmin.reduceat(v, starts)
        out[1::2] = np.fmax.reduceat(v, starts)
    return rounded(out, digits)


def img_data_url(path):
    with open(path, "rb") as f:
        data = base64.b64encode(f.read()).decode()
    mime = "image/jpeg" if path.lower().endswith((".jpg", ".jpeg")) else "image/png"
    return "data:%s;base64,%s" % (mime, data)


def write_page(path, title, body, data):
    """Write the page atomically: body (HTML) and data (the JSON page.js reads)."""
    e = html.escape
    # plotly.js is inert text until page.js starts it, once the page is
    # painted: the page opens with what needs no plotly.js
    parts = ["<!DOCTYPE html><html lang=en><head><meta charset=utf-8>",
             "<meta name=viewport content='width=1280'>",
             "<title>%s</title><style>%s</style></head><body><main>" % (e(title), CSS),
             body,
             "</main><script type='application/json' id=fssim-data>%s</script>" % _json_text(data),
             "<script type='text/plain' id=plotly-js>%s</script>" % _script_text(plotly_js()),
             "<script>%s</script></body></html>" % _script_text(page_js())]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(parts))
    os.replace(tmp, path)


def controls(algos, planes, algo, plane, scale, labels):
    """The switch of metric, plane and scale that every plot and table
    follows."""
    e = html.escape
    opts = "".join("<option value='%s'%s>%s</option>" % (e(a), " selected" if a == algo else "",
                                                        e(labels.get(a, a))) for a in algos)
    popts = "".join("<option value='%s'%s>%s</option>" % (e(p), " selected" if p == plane
                                                         else "", e(p)) for p in planes)
    sopts = "".join("<option value='%s'%s>%s</option>" % (s, " selected" if s == scale else "", t)
                    for s, t in (("value", "value"), ("dB", "dB: -10 log10(1 - SSIM)")))
    return ("<div class=controls><label>metric<select id=sel-algo>%s</select></label>"
            "<label>plane<select id=sel-plane>%s</select></label>"
            "<label>SSIM as<select id=sel-scale>%s</select></label>"
            "<span class=note id=sel-note></span></div>" % (opts, popts, sopts))
