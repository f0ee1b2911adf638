#!/usr/bin/env python3
"""bench/bench_report.py, the measure of how fast the report's page opens
(doc/performance.md#the-farm-report), run small: a title of 2,400 frames
of 3 renditions, one run.  The script writes its synthetic log with the
farm's own log writer and the report with the farm's own writer, so that a
change to either that the script does not follow breaks it; here it must
end well and give every figure it prints: the page open, the plots drawn,
plotly.js alone."""
import json
import os
import shutil
import subprocess
import sys

import fssimtest as ft


def main():
    tap = ft.Tap()
    try:
        import plotly  # noqa: F401
        import numpy  # noqa: F401
    except ImportError as e:
        tap.skip("bench_report.py", "%s: pip install './farm[report]'" % e)
        tap.done()
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        tap.skip("bench_report.py", "no chromium on PATH (Debian: apt-get install chromium)")
        tap.done()
    d = ft.workdir("bench_report")
    script = os.path.join(os.environ["top_srcdir"], "bench", "bench_report.py")
    p = subprocess.run([sys.executable, script, "--frames", "2400", "--rungs", "3",
                        "--runs", "1", "--out", d], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=600)
    try:
        r = json.loads(p.stdout)
    except ValueError:
        r = None
    tap.ok(p.returncode == 0 and r is not None,
           "bench_report.py on 2,400 frames of 3 renditions ends well and prints its JSON",
           p.stderr[-2000:])
    r = r or {}
    figures = [r.get(k) for k in ("open_ms_min", "drawn_ms_min", "plotly_only_ms_min")]
    tap.ok(all(isinstance(v, (int, float)) and v > 0 for v in figures),
           "it measures the page open, the plots drawn and plotly.js alone: %s ms" % figures)
    tap.ok(r.get("frames") == 2400 and r.get("rungs") == 3 and (r.get("page_mib") or 0) > 0,
           "it says what it measured: %s frames, %s renditions, a page of %s MiB" % (
               r.get("frames"), r.get("rungs"), r.get("page_mib")))
    tap.done()


if __name__ == "__main__":
    main()
