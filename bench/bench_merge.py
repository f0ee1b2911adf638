#!/usr/bin/env python3
"""The merge's own time on a title of real length, on the CPU.

Builds the segment logs of a synthetic title -- by default 172,800 frames
(two hours at 24 fps) of a 7-input ladder (six renditions) scored with
`algo=float` -- and times `fssim-farm merge` on them (reading, checking,
pooling, the self-check of each segment's pooled values, writing), phase by
phase.

The header is a real one: the built ffmpeg's fssim writes a short ladder
log of the same shape, whose header the synthetic logs keep.  The frames
carry random scores; the segment logs and the whole log are written by the
farm's own writer (logs.write_json / write_csv, which reproduce the
filter's format), each segment with the options a farm's run sets
(seg_base, seg_start, seg_end, seg_total, title) and its own pooled values.
The merged log is checked against the whole log byte for byte.

usage: bench_merge.py FFMPEG [--frames 172800] [--renditions 6] [--segments 36]
                      [--algo float] [--fmt json] [--out DIR]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "farm"))

from fssim_farm import logs, merge, pooling, schedule  # noqa: E402


def template(ffmpeg, renditions, algo, fmt, out):
    """A real ladder log of the filter (three frames), for its header."""
    path = os.path.join(out, "template." + fmt)
    n = renditions + 1
    cmd = [ffmpeg, "-hide_banner", "-v", "error", "-y"]
    for _ in range(n):
        cmd += ["-f", "lavfi", "-i", "testsrc2=s=64x48:r=24:d=0.125"]
    cmd += ["-lavfi", "%sfssim=inputs=%d:algo=%s:log_path=%s:log_fmt=%s" % (
        "".join("[%d:v]" % i for i in range(n)), n, algo, path, fmt), "-f", "null", "-"]
    subprocess.run(cmd, check=True)
    return logs.read_log(path)


def synth_frames(tpl, frames, seed=1):
    """Frames of random scores in the template's shape (JSON payloads or
    CSV rows), with their entries for the pooling."""
    rnd = random.Random(seed)
    comps = tpl.components + ["All"]
    keys = [r["k"] for r in tpl.renditions]
    out = []
    for n in range(frames):
        pts = n
        pts_time = n / 24.0
        entries, payload_r, rows = [], [], []
        for k in keys:
            scores, mse, obj = {}, None, {"k": k}
            for slot in tpl.slots:
                if slot == "psnr":
                    m = [rnd.uniform(1.0, 60.0) for _ in comps]
                    v = [pooling.psnr_from_mse(x, tpl.depth) for x in m]
                    mse = m
                    obj[slot] = dict(zip(comps, v))
                else:
                    v = [1.0 - rnd.random() ** 3 * 0.2 for _ in comps]
                    d = dict(zip(comps, v))
                    d["dB"] = pooling.db(v[-1])
                    obj[slot] = d
                scores[slot] = v
            if mse is not None:
                obj["mse"] = dict(zip(comps, mse))
            entries.append(logs.Entry(k, scores, mse))
            payload_r.append(obj)
            if tpl.fmt == "csv":
                f = [str(n), str(pts), logs.fmt_csv_number(pts_time), str(k)]
                for slot in tpl.slots:
                    f += [logs.fmt_csv_number(x) for x in scores[slot]]
                    if slot == "psnr":
                        f += [logs.fmt_csv_number(x) for x in mse]
                    else:
                        f.append(logs.fmt_csv_number(pooling.db(scores[slot][-1])))
                rows.append(",".join(f))
        payload = rows if tpl.fmt == "csv" else {"n": n, "pts": pts, "pts_time": pts_time,
                                                  "renditions": payload_r}
        out.append(logs.Frame(n, payload, entries))
    return out


def write(tpl, frames, path, options):
    log = logs.Log(path, tpl.fmt)
    # the header as the filter wrote it (its pairing counts are the
    # template's three frames': none are written)
    for attr in ("filter", "schema_version", "version", "input", "components", "renditions",
                 "main", "slots", "algorithms", "db_slots", "names", "csv_columns"):
        setattr(log, attr, getattr(tpl, attr))
    log.options = options
    log.complete = True
    log.frames = frames
    pools, counts = merge.pool_frames(log)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        (logs.write_json if tpl.fmt == "json" else logs.write_csv)(log, pools, counts, f)


def with_options(tpl, path, extra):
    """The template's options, log_path set to path, the segment options
    after seg_end's place (the filter's order) and a title."""
    out = {}
    for k, v in tpl.options.items():
        if k == "log_path":
            v = path
        if k == "title":
            v = "fssimfarm-bench"
        out[k] = v
        if k == "log_fmt":
            for name, value in extra:
                out[name] = value
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ffmpeg", help="the built ffmpeg (for the header of a real log)")
    ap.add_argument("--frames", type=int, default=172800, help="the title's frames")
    ap.add_argument("--renditions", type=int, default=6, help="renditions of the ladder")
    ap.add_argument("--segments", type=int, default=36, help="segments of the title")
    ap.add_argument("--algo", default="float", help="the filter's algo option")
    ap.add_argument("--fmt", choices=("json", "csv"), default="json", help="log format")
    ap.add_argument("--out", default="/tmp/bench_merge", help="folder of the logs")
    ap.add_argument("--keep", action="store_true", help="reuse logs made by an earlier call")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    tpl = template(a.ffmpeg, a.renditions, a.algo, a.fmt, a.out)
    whole = os.path.join(a.out, "whole." + a.fmt)
    bounds = [a.frames * i // a.segments for i in range(a.segments + 1)]
    paths = [os.path.join(a.out, "seg_%08d_%08d.%s" % (bounds[i], bounds[i + 1], a.fmt))
             for i in range(a.segments)]
    if not (a.keep and all(os.path.exists(p) for p in paths + [whole])):
        t0 = time.time()
        frames = synth_frames(tpl, a.frames)
        write(tpl, frames, whole, with_options(tpl, whole, []))
        for i, p in enumerate(paths):
            s, e = bounds[i], bounds[i + 1]
            opts = with_options(tpl, p, [("seg_base", str(s)), ("seg_start", str(s)),
                                         ("seg_end", str(e)), ("seg_total", str(a.frames))])
            write(tpl, frames[s:e], p, opts)
        print("made %d segment logs of %d frames, %d renditions (%.1f MB) in %.1f s" % (
            a.segments, a.frames, a.renditions,
            sum(os.path.getsize(p) for p in paths) / 1e6, time.time() - t0), flush=True)
    merged = os.path.join(a.out, "merged." + a.fmt)
    # fssim-farm merge: one call does it all
    timings = {}
    t0, c0 = time.perf_counter(), time.process_time()
    merge.merge_files(paths, merged, log_path=whole, segments_field=False, timings=timings)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    same = open(merged, "rb").read() == open(whole, "rb").read()
    # fssim-farm score: each segment read and checked as it comes in (while
    # the others are scored), then the title's pooling and the writing
    t0, c0 = time.perf_counter(), time.process_time()
    segs = [schedule._read_checked(p) for p in paths]
    each = (time.perf_counter() - t0, time.process_time() - c0)
    late = {}
    t0, c0 = time.perf_counter(), time.process_time()
    merge.merge_files(paths, merged, log_path=whole, segments_field=False, timings=late,
                      segs=segs)
    end = (time.perf_counter() - t0, time.process_time() - c0)
    same = same and open(merged, "rb").read() == open(whole, "rb").read()
    r = lambda v: round(v, 3)  # noqa: E731
    print(json.dumps({
        "frames": a.frames, "renditions": a.renditions, "segments": a.segments,
        "algo": a.algo, "fmt": a.fmt,
        "merge": {"wall_s": r(wall), "cpu_s": r(cpu),
                  "phases_s": {k: r(v) for k, v in timings.items()}},
        "in_score": {"per_segment_as_it_comes": {"wall_s": r(each[0] / len(paths)),
                                                 "cpu_s": r(each[1] / len(paths))},
                     "after_the_last_segment": {"wall_s": r(end[0]), "cpu_s": r(end[1]),
                                                "phases_s": {k: r(v) for k, v in
                                                             late.items()}}},
        "equal_to_whole": same}, indent=1))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
