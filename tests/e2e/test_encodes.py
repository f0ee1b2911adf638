#!/usr/bin/env python3
"""End to end on real encodes: natural-looking clips (fssimtest.natural_clip)
encoded by ENCODER_FFMPEG with libx264 and libx265, 8 and 10-bit, at CRF
18 / 28 / 38, decoded and scored by the built ffmpeg:

    ffmpeg -i dist.mkv -i ref.y4m \
        -lavfi fssim=algo=float+int+block:log_path=s.json:log_fmt=json -f null -

The JSON must be valid and complete, and every algorithm's scores must fall
as the quality drops.  A codec ENCODER_FFMPEG lacks is skipped, with the
reason.
"""
import os

import fssimtest as ft

W, H, N = 176, 112, 10
CRFS = (18, 28, 38)
ALGOS = ("float", "int", "block")


def encode(ref, codec, pix_fmt, crf, path):
    args = [ft.ENCODER_FFMPEG, "-hide_banner", "-nostdin", "-v", "error", "-y",
            "-i", ref.path, "-c:v", codec, "-preset", "veryfast", "-crf", str(crf),
            "-pix_fmt", pix_fmt]
    if codec == "libx265":
        args += ["-x265-params", "log-level=error"]
    ft.run(args + [path])


def main():
    tap = ft.Tap()
    d = ft.workdir("encodes")
    if not ft.ENCODER_FFMPEG or not os.path.exists(ft.ENCODER_FFMPEG):
        tap.skip("encodes", "ENCODER_FFMPEG (%r) is not available" % ft.ENCODER_FFMPEG)
        tap.done()
    for codec in ("libx264", "libx265"):
        for fmt, image in (("yuv420p", "coffee"), ("yuv420p10", "astronaut")):
            f = ft.pix_fmt(fmt)
            name = "%s %d-bit" % (codec, f.depth)
            if not ft.encoder_has(codec):
                tap.skip(name, "%s has no %s encoder" % (ft.ENCODER_FFMPEG, codec))
                continue
            ref = ft.natural_clip(W, H, N, f, d, "ref_%s" % f.name, container="y4m",
                                  image=image, seed=3, zoom=0.04, pan=(4.0, 2.0), noise=0.7)
            pooled, ok_runs = {}, True
            for crf in CRFS:
                dist = os.path.join(d, "%s_%s_crf%d.mkv" % (codec, f.name, crf))
                try:
                    encode(ref, codec, f.name, crf, dist)
                except RuntimeError as e:
                    ok_runs = tap.ok(False, "%s CRF %d: %s encodes" % (name, crf, codec), e)
                    break
                log_path = os.path.join(d, "%s_%s_crf%d.json" % (codec, f.name, crf))
                if os.path.exists(log_path):
                    os.unlink(log_path)
                p = ft.ffmpeg("-i", dist, "-i", ref.path, "-lavfi",
                              "[0:v][1:v]fssim=algo=float+int+block:log_path=%s:log_fmt=json"
                              % log_path, "-f", "null", "-", check=False)
                try:
                    log = ft.load_log(log_path)
                except (OSError, ValueError) as e:
                    ok_runs = tap.ok(False, "%s CRF %d: scored, valid JSON" % (name, crf),
                                     "%s\n%s" % (e, p.stderr[-2000:]))
                    break
                good = p.returncode == 0 and log["frame_count"] == N == len(log["frames"]) and \
                    log["input"]["pix_fmt"] == f.name and \
                    all(0.0 < fr[a][c] < 1.0 for fr in log["frames"] for a in ALGOS
                        for c in ("Y", "U", "V", "All"))
                tap.ok(good, "%s CRF %d: decoded and scored %d %s frames, valid JSON, scores in "
                       "(0, 1)" % (name, crf, N, f.name), p.stderr[-2000:])
                pooled[crf] = log["pooled"]
                if crf == CRFS[1]:
                    # the decoded frames through FFmpeg's own ssim: block prints the same
                    stats = log_path + ".ssim"
                    q = ft.ffmpeg("-i", dist, "-i", ref.path, "-lavfi",
                                  "[0:v][1:v]ssim=stats_file=%s" % stats, "-f", "null", "-",
                                  check=False)
                    lines = ft.parse_stats_file(open(stats).read()) if q.returncode == 0 else []
                    bad = ["frame %d %s: block %.17g, ssim %s" % (k, c, fr["block"][c], sl[c])
                           for k, (fr, sl) in enumerate(zip(log["frames"], lines))
                           for c in ("Y", "U", "V", "All") if "%f" % fr["block"][c] != sl[c]]
                    tap.ok(len(lines) == N and not bad, "%s CRF %d: block equals FFmpeg ssim "
                           "(%%f) on the decoded frames" % (name, crf), "\n".join(bad) or q.stderr[-1500:])
            if not ok_runs or len(pooled) != len(CRFS):
                continue
            for a in ALGOS:
                means = [pooled[c][a]["All"]["mean"] for c in CRFS]
                ys = [pooled[c][a]["Y"]["mean"] for c in CRFS]
                mins = [pooled[c][a]["All"]["min"] for c in CRFS]
                tap.ok(means[0] > means[1] > means[2] and ys[0] > ys[1] > ys[2] and
                       mins[0] > mins[2],
                       "%s, %s: scores fall as quality drops (All %s, Y %s at CRF %s)" % (
                           name, a, "/".join("%.4f" % m for m in means),
                           "/".join("%.4f" % m for m in ys), "/".join(map(str, CRFS))),
                       "All means %r\nY means %r\nmins %r" % (means, ys, mins))
            hi = pooled[CRFS[0]]
            tap.ok(all(hi[a]["All"]["mean"] > 0.9 for a in ALGOS),
                   "%s CRF %d: every algorithm scores above 0.9 (frames aligned)" % (name, CRFS[0]),
                   {a: hi[a]["All"]["mean"] for a in ALGOS})
    tap.done()


if __name__ == "__main__":
    main()
