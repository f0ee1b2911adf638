#!/usr/bin/env python3
"""fssim-farm merge against whole runs, and what it refuses.

A title (encodes with GOPs and B-frames: libx264 8-bit, libx265 10-bit with
open GOPs, a half-size rendition resampled by the filter) is cut at the
reference's keyframes; each segment is scored by its own ffmpeg run with
the segment options (segments.command, as the farm's workers run it), the
logs are merged by `fssim-farm merge`, and the merged log must be the
whole run's: the same JSON and the same bytes (the segments field aside),
for pairs (a resampled main input too), ladders, every algorithm, CSV logs
and fssim3d.  The merge pools each algorithm as the log's header says
(its facts from the filters' table of algorithms), so vmaf_ssim, which the
farm's code never names, merges like any other; a log written before the
header carried the facts merges from its layout alone.

Then the refusals, each naming the segment: a gap, an overlap, other
options, another title (inputs), another filter version, an unknown schema
version, a log that is not complete.
"""
import json
import os
import re

import fssimtest as ft
import farmtest as fm

ALL = "algo=float+int+block+psnr+msssim:window=3"


def refused(tap, desc, paths, expect, out):
    p = fm.fssim_farm("merge", *paths, "-o", out)
    tap.ok(p.returncode == 1 and all(e in p.stderr for e in expect) and not os.path.exists(out),
           "refused: %s" % desc, "exit %d: %s" % (p.returncode, p.stderr))


def edited(path, new, old_text, new_text):
    with open(path) as f:
        text = f.read()
    assert old_text in text, old_text
    with open(new, "w") as f:
        f.write(text.replace(old_text, new_text, 1))
    return new


def main():
    tap = ft.Tap()
    if not fm.has_seg_options():
        tap.skip("merge", "the built fssim has no segment options")
        tap.done()
    if not ft.encoder_has("libx264") or not ft.encoder_has("libx265"):
        tap.skip("merge", "ENCODER_FFMPEG lacks libx264/libx265")
        tap.done()
    d = ft.workdir("farm_merge")
    ref8, dists8 = fm.make_title(d, pix_fmt="yuv420p", codec="libx264", gop=12)
    ref10, dists10 = fm.make_title(d, pix_fmt="yuv420p10le", codec="libx265", gop=12,
                                   seed="astronaut")

    pair = fm.check_title(tap, d, "pair8", "fssim", ref8, dists8[:1], ALL)
    fm.check_title(tap, d, "ladder8", "fssim", ref8, dists8, ALL)
    fm.check_title(tap, d, "ladder10_hevc", "fssim", ref10, dists10, ALL)
    fm.check_title(tap, d, "ladder8_csv", "fssim", ref8, dists8, ALL, fmt="csv")
    fm.check_title(tap, d, "pair10_csv", "fssim", ref10, dists10[:1], "algo=psnr+int", fmt="csv")
    # a pair whose main input is resampled: its description in the header
    fm.check_title(tap, d, "pair8_resampled", "fssim", ref8, dists8[1:2], "algo=int")
    fm.check_title(tap, d, "pair8_resampled_csv", "fssim", ref8, dists8[1:2], "algo=int",
                   fmt="csv")
    # an algorithm the farm's code does not name: its facts from the header
    fm.check_title(tap, d, "ladder8_vmaf", "fssim", ref8, dists8, "algo=vmaf_ssim+float")
    fm.check_title(tap, d, "pair8_vmaf_csv", "fssim", ref8, dists8[:1], "algo=vmaf_ssim+psnr",
                   fmt="csv")
    fm.check_title(tap, d, "fssim3d", "fssim3d", ref8, dists8[:1], "depth=5")
    fm.check_title(tap, d, "fssim3d_valid10", "fssim3d", ref10, dists10[:1],
                "depth=7:tpadding=valid", frames=16)

    # refusals, on the pair's three segments
    out = os.path.join(d, "refused.json")
    a, b, c = pair
    refused(tap, "a gap (middle segment missing)", [a, c], ["gap", a, c], out)
    _, over, _ = fm.segment_runs(d, "over", "fssim", ref8, dists8[:1], ALL, frames=36)
    refused(tap, "an overlap", [a, b, c, over[1]], ["overlap"], out)
    segs2, other, _ = fm.segment_runs(d, "other", "fssim", ref8, dists8[:1],
                                   ALL + ":sigma=1.2")
    refused(tap, "other options", [a, other[1], c], ["different options", "sigma"], out)
    _, inputs2, _ = fm.segment_runs(d, "inputs2", "fssim", ref8, [ref8], ALL)
    refused(tap, "another title (other inputs)", [a, inputs2[1], c],
            ["different inputs", inputs2[1]], out)
    log = json.load(open(b))
    v = edited(b, os.path.join(d, "ver.json"), '"version": "%s"' % log["version"],
               '"version": "0.0.1"')
    refused(tap, "another filter version", [a, v, c], ["0.0.1", v], out)
    s = edited(b, os.path.join(d, "schema.json"), '"schema_version": 1', '"schema_version": 99')
    refused(tap, "an unknown schema version", [a, s, c], ["unknown schema_version 99", s], out)
    mean = json.load(open(b))["pooled"]["float"]["All"]["mean"]
    pm = edited(b, os.path.join(d, "pooled.json"), '"mean": %.17g' % mean,
                '"mean": %.17g' % (mean + 1e-12))
    refused(tap, "a segment whose pooled values its frames do not give (the self-check)",
            [a, pm, c], ["does not pool as the filter", pm], out)
    k = edited(b, os.path.join(d, "killed.json"), '"complete": true', '"complete": false')
    refused(tap, "a log marked incomplete", [a, k, c], ["not complete", k], out)
    # a real run cut short: the same segment stopped by -frames:v
    from fssim_farm import segments
    pr = segments.probe(ref8, ft.FFPROBE)
    seg = segments.plan(pr, 20)[1]
    short = os.path.join(d, "short.json")
    starts = [segments.first_frame_time(p, ft.FFPROBE) for p in dists8[:1] + [ref8]]
    cmd = segments.command(ft.FFMPEG, "fssim", ref8, dists8[:1], ALL, short, "json",
                           json.load(open(a))["options"]["title"], seg, pr, progress=False,
                           starts=starts)
    ft.run(cmd[:-3] + ["-frames:v", "5"] + cmd[-3:])
    refused(tap, "a run cut short (-frames:v 5)", [a, short, c], ["not complete", short], out)
    csvs = [p for p in os.listdir(d) if p.startswith("ladder8_csv_seg")]
    refused(tap, "JSON and CSV segments together",
            [a, os.path.join(d, sorted(csvs)[1]), c], ["CSV"], out)
    without_facts(tap, d, pair)
    option_errors(tap, d, ref8, dists8)
    pooling_edges(tap)
    tap.done()


def without_facts(tap, d, paths):
    """Segments whose header lacks the algorithms' facts (a filter before
    the table wrote them): merged from their layout, the same log as from
    the segments with them, less the facts."""
    strip = re.compile(r'  "algorithms": \{.*?\n  \},\n', re.S)
    bare = []
    for i, p in enumerate(paths):
        with open(p) as f:
            text = f.read()
        new = os.path.join(d, "bare_%d.json" % i)
        with open(new, "w") as f:
            f.write(strip.sub("", text, count=1))
        bare.append(new)
    out, ref = os.path.join(d, "bare.json"), os.path.join(d, "facts.json")
    pb = fm.fssim_farm("merge", *bare, "-o", out, "--log-path", "x")
    pf = fm.fssim_farm("merge", *paths, "-o", ref, "--log-path", "x")
    same = pb.returncode == 0 and pf.returncode == 0 and \
        open(out).read() == strip.sub("", open(ref).read(), count=1)
    tap.ok(same and '"algorithms"' in open(ref).read(),
           "segments without the algorithms' facts (psnr among them) merge from their layout: "
           "the same log, less the facts", pb.stderr + pf.stderr)


def option_errors(tap, d, ref, dists):
    """Invalid segment options fail at init naming them; a segment's
    stats_file numbers its lines by title frame."""
    base = ["-i", dists[0], "-i", ref, "-lavfi"]
    for filt, opts, expect in (
            ("fssim", "seg_base=10:seg_start=5", "seg_start=5 lies before seg_base=10"),
            ("fssim", "seg_start=12:seg_end=12", "seg_end=12 is not after seg_start=12"),
            ("fssim3d", "depth=5:seg_base=8:seg_start=9:seg_end=20",
             "the temporal window needs 2 frames")):
        p = ft.ffmpeg(*base, "[0:v][1:v]%s=%s" % (filt, opts), "-f", "null", "-", check=False)
        tap.ok(p.returncode != 0 and expect in p.stderr,
               "%s=%s fails at init: %s" % (filt, opts, expect), p.stderr[-600:])
    stats = os.path.join(d, "seg_stats.txt")
    p = ft.ffmpeg(*base, "[0:v][1:v]fssim=seg_start=5:seg_end=9:stats_file=%s" % stats,
                  "-f", "null", "-", check=False)
    lines = ft.parse_stats_file(open(stats).read()) if p.returncode == 0 else []
    tap.ok([x["n"] for x in lines] == [6, 7, 8, 9],
           "stats_file of title frames 5-8: n:6 to n:9, and the run ends at seg_end by itself",
           p.stderr[-600:] or lines)


def pooling_edges(tap):
    """The percentiles from the sorted values against the filter's two heaps
    (ported line for line), on ties, signed zeros and NaN."""
    import random
    from fssim_farm import pooling
    rnd = random.Random(5)
    bad = []
    for case in range(300):
        n = rnd.randint(1, 120)
        vals = [rnd.choice([0.0, -0.0, 0.5, 0.25, 1.0, rnd.random(), float("nan")])
                if case % 3 == 0 else rnd.choice([0.5, 0.25, rnd.random()]) for _ in range(n)]
        got = pooling.percentiles(vals)
        for name, p in pooling.PERCENTILES:
            t = pooling._TwoHeaps()
            for i, v in enumerate(vals):
                t.add(p, i + 1, v)
            if repr(got[name]) != repr(t.value()):
                bad.append((case, name, got[name], t.value()))
    tap.ok(not bad, "percentiles: the sorted values give the filter's heaps' doubles "
           "(300 series with ties, signed zeros, NaN)", bad[:3])


if __name__ == "__main__":
    main()
