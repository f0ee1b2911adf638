#!/usr/bin/env python3
"""The mezzanines farms keep, decoded by the build: an FFV1 reference in
Matroska (the archives' lossless masters) and a JPEG 2000 one in MXF
(IMF's codec), made from the same clip.

- scored against renditions, the FFV1 master gives the scores of the clip
  it was made from (lossless); the JPEG 2000 one decodes to the frames
  ENCODER_FFMPEG's own decoder gives, and a ladder against it scores them;
- a ladder with the FFV1 reference scored by fssim-farm in segments (every
  FFV1 frame a keyframe) merges into the whole run's log byte for byte;
- the farm's checks refuse an input whose codec the ffmpeg cannot decode,
  naming the codec, the input and the fix, before any segment runs.

Skipped where the build was configured --disable-farm-formats (no FFV1 or
JPEG 2000 decoder: a build with the farm formats and without them fails)
or ENCODER_FFMPEG cannot encode them.
"""
import json
import os
import shutil

import fssimtest as ft
import farmtest as fm

OPTS = "algo=float+psnr"


def decoders():
    p = ft.run([ft.FFMPEG, "-hide_banner", "-decoders"], check=False)
    return {ln.split()[1] for ln in p.stdout.splitlines()[1:] if len(ln.split()) > 1}


def encoder(name):
    p = ft.run([ft.ENCODER_FFMPEG, "-hide_banner", "-encoders"], check=False)
    return any(ln.split()[1:2] == [name] for ln in p.stdout.splitlines())


def frame_values(path):
    log = json.load(open(path))
    return [[(r["k"], r["float"]["All"], r["psnr"]["All"]) for r in f["renditions"]]
            for f in log["frames"]]


def main():
    tap = ft.Tap()
    if not fm.has_seg_options():
        tap.skip("mezzanines", "the built fssim has no segment options")
        tap.done()
    have = decoders()
    if not {"ffv1", "jpeg2000"} <= have:
        if os.environ.get("FSSIM_FARM_FORMATS") == "yes":
            tap.ok(False, "the build's farm formats decode FFV1 and JPEG 2000",
                   "decoders: %s" % ", ".join(sorted(have)))
        else:
            tap.skip("mezzanines", "the build has no FFV1 or JPEG 2000 decoder "
                     "(--disable-farm-formats)")
        tap.done()
    if not (ft.encoder_has("libx264") and encoder("ffv1") and encoder("jpeg2000")):
        tap.skip("mezzanines", "ENCODER_FFMPEG lacks libx264, ffv1 or jpeg2000")
        tap.done()
    d = ft.workdir("farm_mezzanine")
    for f in os.listdir(d):
        if f.endswith(".segments"):
            shutil.rmtree(os.path.join(d, f))
    clip = ft.natural_clip(128, 72, 36, "yuv420p", d, "mezz_src", container="y4m",
                           image="rocket", noise=0.8, zoom=0.03, pan=(2.0, 1.0))
    src = ["-r", "24", "-i", clip.path]
    ffv1 = os.path.join(d, "master_ffv1.mkv")
    ft.run([ft.ENCODER_FFMPEG, "-hide_banner", "-v", "error", "-y"] + src +
           ["-c:v", "ffv1", "-level", "3", "-g", "1", "-pix_fmt", "yuv420p", ffv1])
    j2k = os.path.join(d, "master_j2k.mxf")
    ft.run([ft.ENCODER_FFMPEG, "-hide_banner", "-v", "error", "-y"] + src +
           ["-c:v", "jpeg2000", "-pred", "dwt53", "-pix_fmt", "yuv420p", j2k])
    # renditions in Matroska, as the masters: one container's timestamps
    dists = [fm.encode(os.path.join(d, "r1.mkv"), src, "libx264", "yuv420p", 12, crf=30),
             fm.encode(os.path.join(d, "r2.mkv"), src + ["-vf", "scale=64:36"], "libx264",
                       "yuv420p", 12, crf=26)]
    # the clip itself, as raw video with the masters' timeline
    ymkv = os.path.join(d, "master_y4m.mkv")
    ft.run([ft.ENCODER_FFMPEG, "-hide_banner", "-v", "error", "-y"] + src +
           ["-c:v", "rawvideo", "-pix_fmt", "yuv420p", ymkv])

    logs = {}
    for name, ref in (("y4m", ymkv), ("ffv1", ffv1), ("j2k", j2k)):
        logs[name] = fm.whole_run("fssim", ref, dists, OPTS, os.path.join(d, "whole_%s.json"
                                                                           % name))
    got, want = frame_values(logs["ffv1"]), frame_values(logs["y4m"])
    tap.ok(len(got) == 36 and got == want,
           "a ladder against an FFV1 master in Matroska: the scores of the clip it holds",
           "%d frames; first difference: %s" % (len(got), next(
               (i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)))
    # JPEG 2000: the build decodes the frames ENCODER_FFMPEG's own decoder
    # gives (the native encoder is not lossless), and scores them all
    md5 = ["\n".join(ln for ln in ft.run([f, "-hide_banner", "-v", "error", "-i", j2k, "-f",
                                           "framemd5", "-"]).stdout.splitlines()
                     if ln and not ln.startswith("#"))
           for f in (ft.FFMPEG, ft.ENCODER_FFMPEG)]
    tap.ok(len(md5[0].splitlines()) == 36 and md5[0] == md5[1],
           "a JPEG 2000 master in MXF: the build decodes its 36 frames as ENCODER_FFMPEG does",
           md5[0][-300:] + "\n" + md5[1][-300:])
    log = json.load(open(logs["j2k"]))
    tap.ok(log["complete"] and all(len(f["renditions"]) == 2 for f in log["frames"]) and
           len(log["frames"]) >= 36,
           "a ladder against the JPEG 2000 master: every frame scored, the log complete",
           len(log["frames"]))

    out = os.path.join(d, "farm_ffv1.json")
    p = fm.fssim_farm("score", "--reference", ffv1, *dists, "-o", out, "--options", OPTS,
                      "--segment-frames", "12", "--workers", "1", "--ffmpeg", ft.FFMPEG,
                      "--no-progress", "--json")
    if tap.ok(p.returncode == 0, "fssim-farm score with the FFV1 master as the reference",
              p.stderr[-2000:]):
        s = json.loads(p.stdout)
        tap.ok(s["segments"] == 3 and s["frames"] == 36, "... 3 segments, 36 frames", s)
        whole = fm.whole_run("fssim", ffv1, dists, OPTS, os.path.join(d, "farm_whole.json"),
                             json.load(open(out))["options"]["title"])
        fm.same_log(tap, "FFV1 master, in segments", out, whole, relocate=True)

    from fssim_farm import FarmError, checks
    t = checks.tools(ft.FFMPEG, ft.FFPROBE)
    t.decoders = {k: v for k, v in checks.decoders(t).items() if k != "ffv1"}
    try:
        checks.check_inputs(ffv1, dists, ft.FFPROBE, t=t)
        tap.ok(False, "an ffmpeg without an FFV1 decoder: refused before scoring")
    except FarmError as e:
        tap.ok("master_ffv1.mkv is ffv1" in str(e) and "cannot decode" in str(e) and
               "FFV1" in str(e), "an ffmpeg without an FFV1 decoder: refused before scoring, "
               "the codec, input and fix named", e)
    tap.done()


if __name__ == "__main__":
    main()
