#!/usr/bin/env python3
"""fssim-farm batch: a manifest of titles, one of them broken.

The client (with its local cluster) is killed once a few segments are
finished; the batch run again must not score any finished segment again
(the ffmpeg runs are counted, and the finished logs keep their mtimes),
must complete every good title with logs equal to whole runs, and must
exit 1 with the broken title listed as failed in the summary.
"""
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import fssimtest as ft
import farmtest as fm

OPTS = "algo=int+psnr"


def seg_files(d):
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            if f.startswith("seg_") and not f.endswith(".part"):
                p = os.path.join(root, f)
                out[p] = os.stat(p).st_mtime_ns
    return out


def runs_of(path):
    if not os.path.exists(path):
        return []
    out = []
    for line in open(path).read().splitlines():
        if "-lavfi" not in line:
            continue            # the checks' -h filter=..., -decoders
        i = line.find("seg_start=")
        name = line[line.find("log_path=") + 9:].split(":")[0].split("\\")[0]
        if os.path.basename(name).startswith("check."):
            continue            # a title's one-frame check, not a segment
        out.append((os.path.basename(os.path.dirname(name)), line[i:].split(":")[0]))
    return out


def main():
    tap = ft.Tap()
    if not fm.has_seg_options():
        tap.skip("batch", "the built fssim has no segment options")
        tap.done()
    if not ft.encoder_has("libx264"):
        tap.skip("batch", "ENCODER_FFMPEG lacks libx264")
        tap.done()
    from fssim_farm import segments
    d = ft.workdir("farm_batch")
    for f in os.listdir(d):          # a fresh batch: media kept, outputs gone
        p = os.path.join(d, f)
        if f == "media":
            continue
        if os.path.isdir(p):
            shutil.rmtree(p)
        else:
            os.unlink(p)
    media = os.path.join(d, "media")
    os.makedirs(media, exist_ok=True)
    ref_a, dists_a = fm.make_title(media, frames=72, gop=8)
    ref_b, dists_b = fm.make_title(media, frames=48, gop=8, ladder=False, seed="chelsea")
    out = os.path.join(d, "out")
    rows = [("alpha", ref_a, dists_a, os.path.join(out, "alpha.json")),
            ("beta", ref_b, dists_b, os.path.join(out, "beta.csv")),
            ("broken", os.path.join(media, "missing.mkv"), dists_b, os.path.join(out, "broken.json"))]
    manifest = os.path.join(d, "titles.csv")
    with open(manifest, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["title", "reference", "renditions", "options", "output"])
        for name, ref, dists, o in rows:
            w.writerow([name, os.path.relpath(ref, d), ";".join(os.path.relpath(x, d)
                                                                 for x in dists), OPTS,
                        os.path.relpath(o, d)])
    runs = os.path.join(d, "ffmpeg.runs")
    wrap = os.path.join(d, "ffmpeg_counting")
    with open(wrap, "w") as f:
        f.write('#!/bin/sh\necho "$*" >> "%s"\nsleep 0.7\nexec "%s" "$@"\n' % (runs, ft.FFMPEG))
    os.chmod(wrap, 0o755)
    summary = os.path.join(d, "summary.json")
    args = [sys.executable, "-m", "fssim_farm", "batch", manifest, "--summary", summary,
            "--segment-frames", "8", "--workers", "2", "--slots", "1", "--ffmpeg", wrap,
            "--ffprobe", ft.FFPROBE, "--no-progress"]

    # the first client, killed with its cluster once 3 segments are finished
    p = subprocess.Popen(args, env=fm.farm_env(), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline and len(seg_files(out)) < 3 and p.poll() is None:
        time.sleep(0.1)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    time.sleep(0.5)
    finished = seg_files(out)
    first_runs = runs_of(runs)
    tap.ok(len(finished) >= 3 and not os.path.exists(summary),
           "client killed mid-batch with %d segments finished, no summary yet" % len(finished))

    # the batch again, to the end
    t0 = time.time()
    p = subprocess.run(args, env=fm.farm_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=900)
    again = runs_of(runs)[len(first_runs):]
    done_before = {(os.path.basename(os.path.dirname(f)), "seg_start=%d" %
                    int(os.path.basename(f).split("_")[1])) for f in finished}
    rescored = [r for r in again if r in done_before]
    tap.ok(not rescored, "no finished segment scored again (%d runs now, %d segments were "
           "finished)" % (len(again), len(finished)), rescored)
    kept = all(os.path.exists(f) and os.stat(f).st_mtime_ns == m for f, m in finished.items())
    tap.ok(kept, "the finished segment logs were not rewritten (mtimes kept)")
    tap.ok(p.returncode == 1 and "broken" in p.stdout,
           "exit status 1, the failed title named (%.0f s)" % (time.time() - t0),
           p.stdout + p.stderr[-2000:])
    try:
        s = json.load(open(summary))
    except (OSError, ValueError) as e:
        tap.ok(False, "summary written", e)
        tap.done()
    by = {t["title"]: t for t in s["titles"]}
    tap.ok(s["failed"] == ["broken"] and by["broken"]["status"] == "failed" and
           "missing.mkv" in (by["broken"]["error"] or ""),
           "summary: broken failed, its error names the missing reference", by.get("broken"))
    for name, ref, dists, o in rows[:2]:
        t = by[name]
        good = t["status"] == "ok" and t["frames"] == (72 if name == "alpha" else 48) and \
            all(isinstance(v, float) for r in t["pooled_means"].values() for v in r.values()) \
            and t["wall_s"] >= 0 and t["error"] is None
        tap.ok(good, "summary of %s: ok, frames, pooled means per rendition, wall time" % name, t)
        whole = os.path.join(d, "whole_" + os.path.basename(o))
        fm.whole_run("fssim", ref, dists, OPTS, whole, segments.input_identity(dists + [ref]))
        with open(o) as f:
            text = f.read()
        text = text.replace(o, whole)
        with open(whole + ".merged", "w") as f:
            f.write(text)
        fm.same_log(tap, "batch %s" % name, whole + ".merged", whole)
    # a third run: nothing left to score
    n = len(runs_of(runs))
    p = subprocess.run(args, env=fm.farm_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=600)
    tap.ok(len(runs_of(runs)) == n and p.returncode == 1,
           "a batch run again on finished titles runs no ffmpeg", runs_of(runs)[n:])
    tap.done()


if __name__ == "__main__":
    main()
