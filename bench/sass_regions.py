#!/usr/bin/env python3
"""Where a kernel's instructions go, from Nsight Compute's per-instruction counts.

Reads the export of one profiled launch,

    ncu --section SourceCounters -k regex:fssim_plane --launch-count 1 -o rep ...
    ncu --import rep.ncu-rep --page source --print-source sass --csv > rep.csv

(optionally xz-compressed), and prints runs of consecutive SASS instructions
that executed the same number of times: straight-line code executed once per
warp, a loop's body, a rendition loop's body.  Each run with its execution
count (also as a multiple of the launch's warp count), its length, its share
of the launch's warp instructions and of its warp stall samples, and its most
frequent opcodes.  Runs below --min percent of the instructions are left out.

usage: sass_regions.py REPORT.csv[.xz] [--min PERCENT] [--warps N]
"""
import argparse
import collections
import csv
import io
import lzma
import re


def load(path):
    raw = lzma.open(path) if path.endswith(".xz") else open(path, "rb")
    rows = list(csv.reader(io.TextIOWrapper(raw, encoding="utf8")))
    head = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    h = rows[head]
    src, n = h.index("Source"), h.index("Instructions Executed")
    stall = h.index("Warp Stall Sampling (All Samples)")
    return [(r[src].strip(), int(r[n] or 0), int(r[stall] or 0))
            for r in rows[head + 1:] if len(r) > n]


def opcode(sass):
    return re.sub(r"^@!?U?P\w+\s+", "", sass).split()[0].split(".")[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--min", type=float, default=0.6)
    ap.add_argument("--warps", type=int, default=0,
                    help="warps of the launch (default: the first instruction's count)")
    a = ap.parse_args()
    seq = load(a.report)
    total = sum(n for _, n, _ in seq) or 1
    stalls = sum(s for _, _, s in seq) or 1
    warps = a.warps or seq[0][1] or 1
    runs = []
    for i, (sass, n, s) in enumerate(seq):
        if runs and runs[-1]["n"] == n:
            runs[-1]["ops"].append(opcode(sass))
            runs[-1]["stall"] += s
        else:
            runs.append({"n": n, "start": i, "ops": [opcode(sass)], "stall": s})
    print("%d warp instructions, %d stall samples, %d warps" % (total, stalls, warps))
    for r in runs:
        share = 100.0 * r["n"] * len(r["ops"]) / total
        if share < a.min:
            continue
        mix = collections.Counter(r["ops"]).most_common(8)
        print("start %5d  len %4d  x%6.3f  instr %5.1f%%  stall %5.1f%%  %s"
              % (r["start"], len(r["ops"]), r["n"] / warps, share, 100.0 * r["stall"] / stalls,
                 " ".join("%s:%d" % kv for kv in mix)))


if __name__ == "__main__":
    main()
