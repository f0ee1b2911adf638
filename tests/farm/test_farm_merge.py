#!/usr/bin/env python3
"""fssim-farm merge against whole runs, and what it refuses.

A title (encodes with GOPs and B-frames: libx264 8-bit, libx265 10-bit with
open GOPs, a half-size rendition resampled by the filter) is cut at the
reference's keyframes; each segment is scored by its own ffmpeg run with
the segment options (segments.command, as the farm's workers run it), the
logs are merged by `fssim-farm merge`, and the merged log must be the
whole run's: the same JSON and the same bytes (the segments field aside),
for pairs (a resampled main input too), ladders, every algorithm, CSV logs,
fssim3d, and a ladder in MP4, Matroska and MPEG-TS at once.  The merge pools
each algorithm as the log's header says (its facts from the filters' table
of algorithms), so vmaf_ssim, which the farm's code never names, merges like
any other; a log written before the header carried the facts merges from its
layout alone.

Then the refusals, each naming the segment: a gap, a missing head or tail
(the segments carry the title's frame count, seg_total), a duplicated or
out-of-order timestamp, an overlap, other options, another title (inputs
or length), another filter version, an unknown schema version, a log that
is not complete.
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
    csvs = fm.check_title(tap, d, "ladder8_csv", "fssim", ref8, dists8, ALL, fmt="csv")
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

    containers(tap, d)

    # refusals, on the pair's three segments
    out = os.path.join(d, "refused.json")
    if os.path.exists(out):        # a failed check of an earlier run
        os.unlink(out)
    a, b, c = pair
    refused(tap, "a gap (middle segment missing)", [a, c], ["gap", a, c], out)
    refused(tap, "a missing tail (the last segment missing): the segments carry the title's "
            "frame count", [a, b], ["missing tail", "frames 36-59", b], out)
    refused(tap, "a missing head (the first segment missing)", [b, c],
            ["missing head", "frames 0-23", b], out)
    pts = json.load(open(b))["frames"][0]["pts"]
    prev = json.load(open(a))["frames"][-1]["pts"]
    dup = edited(b, os.path.join(d, "dup.json"), '{"n": 24, "pts": %d,' % pts,
                 '{"n": 24, "pts": %d,' % prev)
    refused(tap, "a duplicated timestamp across segments, named", [a, dup, c],
            ["duplicated or out-of-order timestamps", "pts %d" % prev, dup, "n=24"], out)
    n25 = json.load(open(b))["frames"][1]["pts"]
    swap = edited(b, os.path.join(d, "swap.json"), '{"n": 25, "pts": %d,' % n25,
                  '{"n": 25, "pts": %d,' % (pts - 1))
    refused(tap, "an out-of-order timestamp inside a segment, named", [a, swap, c],
            ["duplicated or out-of-order timestamps", "n=25", swap], out)
    other_total = edited(c, os.path.join(d, "total.json"), '"seg_total": "60"',
                         '"seg_total": "72"')
    refused(tap, "segments of titles of other lengths (seg_total)", [a, b, other_total],
            ["different titles", "72"], out)
    # logs without seg_total (an older build's): the tail is unknown
    old = [edited(p, os.path.join(d, "old%d.json" % i), ',\n    "seg_total": "60"', "")
           for i, p in enumerate((a, b))]
    refused(tap, "segments that do not carry the title's frame count, last one missing",
            old, ["do not say how many frames", "--frames"], out)
    given = os.path.join(d, "frames_given.json")
    p = fm.fssim_farm("merge", *old, "-o", given, "--frames", "36")
    tap.ok(p.returncode == 0 and os.path.exists(given),
           "... merged once --frames gives the title's frame count", p.stderr)
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
    refused(tap, "JSON and CSV segments together", [a, sorted(csvs)[1], c], ["CSV"], out)
    pairing_counts(tap, d, pair, sorted(csvs))
    without_facts(tap, d, pair)
    option_errors(tap, d, ref8, dists8)
    pooling_edges(tap)
    tap.done()


def containers(tap, d):
    """A ladder whose reference and renditions are in MP4, Matroska and
    MPEG-TS (1/12800, 1 ms and 90 kHz timestamps; MPEG-TS starting at
    1.4 s): in segments, the whole run's log.  At 25 frames/s every
    container holds the frame times exactly; at 30000/1001 Matroska
    rounds them to the millisecond, which only the filters' pairing by
    nearest timestamp (the pairing option) pairs as a whole run does."""
    for rate, tag in (("25", "mixed25"), ("30000/1001", "mixed2997")):
        if not ft.demuxer_has("mpegts"):
            tap.skip("%s: MP4, Matroska and MPEG-TS in one ladder" % tag,
                     "the build reads no MPEG-TS (configure --disable-farm-formats)")
            continue
        if rate != "25" and not has_pairing():
            tap.skip("%s: MP4, Matroska and MPEG-TS in one ladder" % tag,
                     "the filters pair by framesync alone (no pairing option)")
            continue
        clip = ft.natural_clip(160, 96, 48, "yuv420p", d, "src_" + tag, container="y4m",
                               image="chelsea", noise=0.8, zoom=0.03, pan=(3.0, 1.5))
        src = ["-r", rate, "-i", clip.path]
        ref = fm.encode(os.path.join(d, "%s_ref.mp4" % tag), src, "libx264", "yuv420p", 12,
                        crf=8)
        dists = [fm.encode(os.path.join(d, "%s_d1.mkv" % tag), ["-i", ref], "libx264",
                           "yuv420p", 10, crf=34),
                 fm.encode(os.path.join(d, "%s_d2.ts" % tag), ["-i", ref], "libx264",
                           "yuv420p", 7, extra=["-vf", "scale=80:48"], crf=28)]
        fm.check_title(tap, d, tag, "fssim", ref, dists, "algo=float+psnr", frames=16)


def has_pairing():
    p = ft.run([ft.FFMPEG, "-hide_banner", "-h", "filter=fssim"], check=False)
    return "\n   pairing " in p.stdout


def pairing_counts(tap, d, jsons, csvs):
    """The counts the filters write after the frames (pairing: frames each
    input had, paired, lacking, in excess, damaged) add up over the
    segments, in the member's or line's own place and shape."""
    member = ('  "pairing": {"mode": "nearest", "inputs": [{"pad": "main", "frames": %d, '
              '"paired": %d, "lacks": %d, "excess": 0, "damaged": %d}, {"pad": "reference", '
              '"frames": %d, "damaged": 0}]},\n')
    import re
    paths = []
    for i, p in enumerate(jsons):
        n = len(json.load(open(p))["frames"])
        # the filter's own pairing member, where it writes one, replaced
        text = re.sub(r'  "pairing": \{.*?\]\},\n', "", open(p).read(), flags=re.S)
        path = os.path.join(d, "pairing%d.json" % i)
        with open(path, "w") as f:
            f.write(text.replace('  "pooled": {', member % (n, n - i, i, 2 * i, n) +
                                 '  "pooled": {', 1))
        paths.append(path)
    out = os.path.join(d, "pairing_merged.json")
    p = fm.fssim_farm("merge", *paths, "-o", out)
    want = '  "complete": true,\n' + member % (60, 57, 3, 6, 60) + '  "pooled": {'
    tap.ok(p.returncode == 0 and want in open(out).read(),
           "JSON: the pairing counts of the segments added up, the member in its place",
           p.stderr or open(out).read()[-3000:])
    from fssim_farm import columns, title
    counts = title.pairing_counts(columns.read(out, values=False).trailer)
    t = title.Title(jsons[0], [jsons[0]], out)
    err = title._partial(t, counts)
    tap.ok(counts.get("main") == {"frames": 60, "paired": 57, "lacks": 3, "excess": 0,
                                  "damaged": 6} and err and "main lacks 3" in err and
           "--unequal-lengths" in err and title._partial(
               title.Title(jsons[0], [jsons[0]], out, unequal_lengths=True), counts) is None,
           "the title's summary takes the counts up: 3 frames lacking fail it, unless "
           "--unequal-lengths", (counts, err))
    line = "# pairing pad=dist%d frames=%d paired=%d lacks=%d excess=%d damaged=%d\n"
    paths = []
    for i, p in enumerate(csvs):
        text = re.sub(r"# pairing [^\n]*\n", "", open(p).read())
        n = int(text.split("# frames=")[1].split("\n")[0])
        lines = "".join(line % (k, n, n - i, i, k, i * k) for k in (1, 2))
        path = os.path.join(d, "pairing%d.csv" % i)
        with open(path, "w") as f:
            f.write(text.replace("# frames=", lines + "# frames=", 1))
        paths.append(path)
    out = os.path.join(d, "pairing_merged.csv")
    p = fm.fssim_farm("merge", *paths, "-o", out)
    want = "\n" + "".join(line % (k, 60, 57, 3, 3 * k, 3 * k) for k in (1, 2)) + \
        "# frames=60\n# complete=1\n# segments="
    tap.ok(p.returncode == 0 and want in open(out).read(),
           "CSV: the # pairing lines of the segments added up, in their place",
           p.stderr or open(out).read()[-1500:])
    bad = edited(paths[1], os.path.join(d, "pairing_bad.csv"), "pad=dist2", "pad=dist9")
    p = fm.fssim_farm("merge", paths[0], bad, paths[2], "-o", out + ".bad.csv")
    tap.ok(p.returncode == 1 and "pairing" in p.stderr,
           "refused: segments whose pairing lines differ in more than their counts", p.stderr)


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
             "the temporal window needs 2 frames"),
            ("fssim", "seg_start=12:seg_end=24:seg_total=20", "seg_total=20"),
            ("fssim", "seg_start=12:seg_total=60", "sets seg_end")):
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
