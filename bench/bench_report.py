#!/usr/bin/env python3
"""How fast fssim-farm report's page opens for a long title.

Writes a synthetic ladder log in the filters' CSV format (the farm's own
writer, fssim_farm.logs): FRAMES frames (default 172,800: two hours at 24
fps) of RUNGS renditions (default 7), algo=float+psnr, each rendition with
its own level, noise, scene-to-scene variation and a few dips; writes the
report (--scenes: a cut every 5 s), and opens the page in headless
Chromium RUNS times, reading from the page the times (performance.now(),
from navigation start) at which it is open -- its tables, pictures and the
still plot of the primary metric shown, before plotly.js starts -- and, on
a copy that starts plotly.js at once, at which the plots near the window
are drawn.  The
same Chromium opening a page with plotly.js alone gives the floor that the
library's own start costs on this machine.  The window is 1280x900: what
it shows is drawn when the page opens (the plots further down are drawn as
they scroll into view).  On a machine shared with other work take the
minimum of the runs.

    bench/bench_report.py [--frames 172800] [--rungs 7] [--runs 5] [--out DIR]

Prints one JSON object: the log's and the page's sizes, the report's
wall time, and each run's time to the drawn page (ms).
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "farm"))


def synthetic_log(path, frames, rungs, fps=24.0, seed=1):
    import numpy as np
    from fssim_farm import logs
    from fssim_farm.pooling import psnr_cap
    rng = np.random.default_rng(seed)
    sizes = [(3840, 2160), (2560, 1440), (1920, 1080), (1280, 720), (960, 540), (640, 360),
             (480, 270), (384, 216), (320, 180)][:rungs]
    log = logs.Log(path, "csv")
    log.filter, log.schema_version, log.version = "fssim", 1, "0.1.0"
    log.options = {"algo": "float+psnr", "inputs": str(rungs + 1), "log_path": path,
                   "log_fmt": "csv"}
    log.input = {"pix_fmt": "yuv420p10le", "width": 3840, "height": 2160, "bit_depth": 10,
                 "components": ["Y", "U", "V"]}
    log.components = ["Y", "U", "V"]
    log.renditions = [{"k": k + 1, "pad": "dist%d" % (k + 1), "width": w, "height": h,
                       "resampled": k > 0, "pix_fmt": "yuv420p10le", "bit_depth": 10}
                      for k, (w, h) in enumerate(sizes)]
    log.names = [("dist%d" % (k + 1), "title_%dp.mp4" % h) for k, (w, h) in enumerate(sizes)]
    log.names.append(("reference", "title_mezzanine.mov"))
    log.slots = ["float", "psnr"]
    # no table of algorithms in the header: the reader tells them by their
    # columns, as in a log written before the header carried it
    log.db_slots = {"float"}
    cols = ["n", "pts", "pts_time", "rendition"]
    for c in ("Y", "U", "V", "All"):
        cols.append("float." + c)
    cols.append("float.dB")
    cols += ["psnr." + c for c in ("Y", "U", "V", "All")]
    cols += ["mse." + c for c in ("Y", "U", "V", "All")]
    log.csv_columns = ",".join(cols)
    log.complete = True
    scene = np.repeat(rng.normal(0, 1, frames // 120 + 1), 120)[:frames]
    t = np.arange(frames) / fps
    rows = []
    for k in range(rungs):
        db = 22.0 - 2.2 * k + 0.8 * scene + rng.normal(0, 0.4, frames)
        for _ in range(4):       # dips: a second or three of much worse frames
            a = int(rng.integers(0, frames - 72))
            db[a:a + int(rng.integers(24, 72))] -= 6.0
        s_all = 1.0 - 10.0 ** (-db / 10.0)
        comps = [s_all - 0.004, s_all + 0.006, s_all + 0.007]
        psnr = [30.0 + 0.9 * db + rng.normal(0, 0.2, frames) + o for o in (0.0, 2.5, 2.8)]
        mse = [1023.0 ** 2 / 10.0 ** (p / 10.0) for p in psnr]
        mse_all = (4 * mse[0] + mse[1] + mse[2]) / 6.0
        psnr_all = 10 * np.log10(1023.0 ** 2 / mse_all)
        m = np.column_stack([np.arange(frames), np.round(t * 1000.0), t, np.full(frames, k + 1)] +
                            comps + [s_all, -10 * np.log10(1 - s_all)] + psnr + [psnr_all] +
                            mse + [mse_all])
        rows.append(m)
    # the filter's order: per frame, every rendition
    inter = np.stack(rows, axis=1).reshape(frames * rungs, -1)
    import io
    buf = io.StringIO()
    np.savetxt(buf, inter, fmt=["%d", "%d", "%.17g", "%d"] + ["%.17g"] * (len(cols) - 4),
               delimiter=",")
    lines = buf.getvalue().split("\n")
    from fssim_farm.logs import Frame
    for i in range(frames):
        log.frames.append(Frame(i, lines[i * rungs:(i + 1) * rungs], []))
    # pooled rows: the farm's numpy pooling of the same values
    from fssim_farm.rungs import pool_values
    pools, counts = {}, {}
    for k in range(rungs):
        counts[k + 1] = frames
        m = rows[k]
        for s, base in (("float", 4), ("psnr", 9)):
            for c in range(4):
                v = m[:, base + c]
                if s == "psnr":
                    v = np.minimum(v, psnr_cap(10))
                p = pool_values(v)
                p = {x: p[x] for x in ("mean", "min", "max", "harmonic_mean", "p1", "p5", "p50")}
                if s == "psnr":
                    p["psnr_of_mean_mse"] = 10 * math.log10(1023.0 ** 2 / m[:, 13 + c].mean())
                pools[(k + 1, s, c)] = p
    with open(path, "w") as f:
        logs.write_csv(log, pools, counts, f)


def drawn_ms(browser, url, attr="data-render-ms"):
    p = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--window-size=1280,900", "--proxy-server=127.0.0.1:9",
                        "--host-resolver-rules=MAP * ~NOTFOUND", "--dump-dom", url],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    import re
    m = re.search(attr + r'="(\d+)"', p.stdout)
    return int(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=172800)
    ap.add_argument("--rungs", type=int, default=7)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default="/tmp/fssim-bench-report")
    ap.add_argument("--reuse", action="store_true",
                    help="measure the page already in --out (the log and report not written "
                         "again)")
    a = ap.parse_args()
    browser = None
    for name in ("chromium", "chromium-browser", "google-chrome"):
        browser = browser or shutil.which(name)
    if not browser:
        sys.exit("no chromium on PATH")
    os.makedirs(a.out, exist_ok=True)
    log = os.path.join(a.out, "title.csv")
    t0 = time.time()
    if not a.reuse or not os.path.exists(log):
        synthetic_log(log, a.frames, a.rungs)
    t_log = time.time() - t0
    cuts = os.path.join(a.out, "cuts.txt")
    with open(cuts, "w") as f:
        f.write("\n".join(str(n) for n in range(0, a.frames, 120)))
    html = os.path.join(a.out, "title.html")
    t0 = time.time()
    from fssim_farm.report import write_report
    if not a.reuse or not os.path.exists(html):
        write_report([log], html, scenes=cuts, bitrates=",".join(
            "%d" % (16000 / 1.6 ** k) for k in range(a.rungs)))
    t_report = time.time() - t0
    from plotly.offline import get_plotlyjs
    floor = os.path.join(a.out, "plotly_only.html")
    with open(floor, "w") as f:
        f.write("<!DOCTYPE html><html><body><script>%s</script><script>document.body."
                "setAttribute('data-render-ms', performance.now().toFixed(0))</script>"
                "</body></html>" % get_plotlyjs())
    # the same page with plotly.js started at once, not after the first paint
    eager = os.path.join(a.out, "title_eager.html")
    with open(html) as f, open(eager, "w") as g:
        g.write(f.read().replace("<script type='text/plain' id=plotly-js>",
                                 "<script id=plotly-js>", 1))
    opens = [drawn_ms(browser, "file://" + html, "data-open-ms") for _ in range(a.runs)]
    runs = [drawn_ms(browser, "file://" + eager) for _ in range(a.runs)]
    floors = [drawn_ms(browser, "file://" + floor) for _ in range(a.runs)]
    ok = [r for r in runs if r is not None]
    print(json.dumps({
        "frames": a.frames, "rungs": a.rungs, "log_mib": round(os.path.getsize(log) / 2 ** 20, 1),
        "page_mib": round(os.path.getsize(html) / 2 ** 20, 2), "log_write_s": round(t_log, 1),
        "report_s": round(t_report, 1), "open_ms": opens,
        "open_ms_min": min(o for o in opens if o), "drawn_ms": runs,
        "drawn_ms_min": min(ok) if ok else None,
        "drawn_ms_median": statistics.median(ok) if ok else None,
        "plotly_only_ms": floors, "plotly_only_ms_min": min(f for f in floors if f),
        "load_average": os.getloadavg(), "cpus": os.cpu_count()}, indent=1))


if __name__ == "__main__":
    main()
