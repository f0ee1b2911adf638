#!/usr/bin/env python3
"""The benchmarks that run on the CPU, run small: bench/bench_merge.py (the
merge's time, doc/farm.md) and bench/bench_report.py (how fast the report's
page opens, doc/performance.md#the-farm-report).  Both write their
synthetic logs with the farm's own log writer, and bench_report.py its page
with the farm's report writer, so that a change to either that a script
does not follow breaks it; here each must end well and give every figure
it prints, and the merge's log must equal the whole log byte for byte."""
import json
import os
import subprocess
import sys

import farmtest as fm
import fssimtest as ft

BENCH = os.path.join(os.environ["top_srcdir"], "bench")


def bench(tap, name, args):
    """Run bench/NAME with args; its JSON, or {} after a failed check."""
    p = subprocess.run([sys.executable, os.path.join(BENCH, name)] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    out = p.stdout[p.stdout.find("{"):] if "{" in p.stdout else ""
    try:
        r = json.loads(out)
    except ValueError:
        r = None
    tap.ok(p.returncode == 0 and r is not None,
           "%s %s ends well and prints its JSON" % (name, " ".join(args[-6:])),
           (p.stdout + p.stderr)[-2000:])
    return r or {}


def merge(tap):
    for fmt, algo in (("json", "float"), ("csv", "float+psnr")):
        d = ft.workdir("bench_merge_" + fmt)
        r = bench(tap, "bench_merge.py", [ft.FFMPEG, "--out", d, "--fmt", fmt, "--algo", algo,
                                          "--frames", "1200", "--renditions", "2",
                                          "--segments", "3"])
        tap.ok(r.get("equal_to_whole") is True,
               "bench_merge.py, %s, algo=%s: the merge of 3 segment logs equals the whole "
               "log byte for byte" % (fmt, algo), r)
        tap.ok(isinstance(r.get("merge", {}).get("cpu_s"), (int, float)),
               "bench_merge.py, %s: it times the merge" % fmt)


def report(tap):
    try:
        import plotly  # noqa: F401
        import numpy  # noqa: F401
    except ImportError as e:
        tap.skip("bench_report.py", "%s: pip install './farm[report]'" % e)
        return
    if not fm.chromium():
        tap.skip("bench_report.py", "no chromium on PATH (Debian: apt-get install chromium)")
        return
    r = bench(tap, "bench_report.py", ["--out", ft.workdir("bench_report"), "--frames",
                                       "2400", "--rungs", "3", "--runs", "1"])
    figures = [r.get(k) for k in ("open_ms_min", "drawn_ms_min", "plotly_only_ms_min")]
    tap.ok(all(isinstance(v, (int, float)) and v > 0 for v in figures),
           "bench_report.py measures the page open, the plots drawn and plotly.js alone: "
           "%s ms" % figures)
    tap.ok(r.get("frames") == 2400 and r.get("rungs") == 3 and (r.get("page_mib") or 0) > 0,
           "bench_report.py says what it measured: %s frames, %s renditions, a page of %s MiB"
           % (r.get("frames"), r.get("rungs"), r.get("page_mib")))


def main():
    tap = ft.Tap()
    merge(tap)
    report(tap)
    tap.done()


if __name__ == "__main__":
    main()
