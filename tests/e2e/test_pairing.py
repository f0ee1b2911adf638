"""Frame pairing (doc/options.md#pairing): the frames of two inputs are
paired by nearest timestamp within half a reference frame, whatever the
containers' time bases; renditions that differ in length, with holes or
with decode errors are scored only where a true pair exists and counted;
a rate mismatch is an error unless the user resamples in time.

The clips are made here with ENCODER_FFMPEG's libx264: one encode stored
in MP4, Matroska (whose millisecond timestamps broke framesync's pairing)
and MPEG-TS, scored against an MP4 reference.  Every check fails on a
build that pairs by framesync (the MKV scores differ from the MP4 ones,
the short rendition repeats its last frame, the rate mismatch runs).
Where a CUDA device or a Vulkan Video device works, the MKV/MP4 case runs
on NVDEC and Vulkan Video frames too and must give the CPU's values.
"""
import json
import os
import re

from fssimtest import (Tap, ENCODER_FFMPEG, FFMPEG, demuxer_has, encoder_has, ffmpeg, has_filter,
                       load_log, run, workdir)

t = Tap()
D = workdir("pairing")
SIZE = "320x180"


def encode(path, *args, src=None, rate="30", frames=150):
    """An H.264 clip by ENCODER_FFMPEG: noisy test content (every frame
    differs), or src re-encoded."""
    inp = (["-i", src] if src else
           ["-f", "lavfi", "-i", "testsrc2=s=%s:r=%s,noise=alls=24:allf=t" % (SIZE, rate)])
    run([ENCODER_FFMPEG, "-hide_banner", "-v", "error", "-y"] + inp +
        ["-frames:v", str(frames), "-pix_fmt", "yuv420p", "-c:v", "libx264",
         "-preset", "ultrafast"] + list(args) + [path])
    return path


def remux(src, dst, *args):
    run([ENCODER_FFMPEG, "-hide_banner", "-v", "error", "-y", "-i", src, "-c", "copy"] +
        list(args) + [dst])
    return dst


def score(inputs, options="algo=psnr", tag="run", filt="fssim", pre=None, extra=(),
          check=True):
    """Run the filter on inputs (paths, the reference last); returns
    (log or None, CompletedProcess)."""
    log = os.path.join(D, tag + ".json")
    if os.path.exists(log):
        os.unlink(log)
    args = []
    for i in inputs:
        args += ["-i", i]
    n = len(inputs)
    opts = options + ":log_path=" + log
    if n > 2:
        opts = "inputs=%d:" % n + opts
    pads = pre or "".join("[%d:v]" % i for i in range(n))
    graph = "%s%s=%s" % (pads, filt, opts)
    p = ffmpeg(*extra, *args, "-lavfi", graph, "-f", "null", "-", check=False)
    lg = load_log(log) if p.returncode == 0 and os.path.exists(log) else None
    return lg, p


def frame_values(log, algo="psnr", k=None):
    """{n: All} of a log (a ladder's rendition k)."""
    out = {}
    for f in log["frames"]:
        if k is None:
            out[f["n"]] = f[algo]["All"]
        else:
            for r in f["renditions"]:
                if r["k"] == k:
                    out[f["n"]] = r[algo]["All"]
    return out


def pairing_of(log, pad):
    for e in (log or {}).get("pairing", {}).get("inputs", []):
        if e["pad"] == pad:
            return e
    return None


def main():
    if not encoder_has("libx264"):
        t.skip("frame pairing", "no libx264 in ENCODER_FFMPEG to make the clips")
        t.done()
    ref = encode(os.path.join(D, "ref.mp4"), "-qp", "0")
    enc = encode(os.path.join(D, "enc.mp4"), "-crf", "35", "-bf", "3", src=ref)
    mkv = remux(enc, os.path.join(D, "enc.mkv"))
    ts = remux(enc, os.path.join(D, "enc.ts"))

    # -- containers -------------------------------------------------------
    base, p = score([enc, ref], tag="mp4")
    t.ok(base is not None and base["frame_count"] == 150,
         "MP4 rendition against an MP4 reference: 150 frames scored", p.stderr[-1500:])
    base_v = frame_values(base) if base else {}
    has_ts = demuxer_has("mpegts")
    for name, path in (("Matroska", mkv), ("MPEG-TS", ts)):
        if name == "MPEG-TS" and not has_ts:
            t.skip("MPEG-TS scores as MP4", "the build reads no MPEG-TS "
                   "(configure --disable-farm-formats)")
            t.skip("MPEG-TS: the log's pairing", "the build reads no MPEG-TS")
            continue
        lg, p = score([path, ref], tag=name)
        got = frame_values(lg) if lg else None
        t.ok(got == base_v, "the same frames in %s score exactly as in MP4, every frame "
             "(nearest pairing, whatever the time base)" % name,
             p.stderr[-1500:] if lg is None else
             [(n, got.get(n), base_v[n]) for n in base_v if got.get(n) != base_v[n]][:5])
        e = pairing_of(lg, "main")
        t.ok(e is not None and (e["paired"], e["lacks"], e["excess"], e["damaged"]) ==
             (150, 0, 0, 0), "%s: the log's pairing says 150 paired, none lacking, in "
             "excess or damaged" % name, lg and lg.get("pairing"))
    lg, p = score([mkv, ts if has_ts else mkv, ref], tag="mkv-ladder")
    t.ok(lg is not None and frame_values(lg, k=1) == base_v and
         frame_values(lg, k=2) == base_v,
         "a ladder: the Matroska and %s renditions score as the MP4 one" %
         ("MPEG-TS" if has_ts else "(no MPEG-TS in the build) Matroska"),
         p.stderr[-1500:])

    # FFmpeg's own pairing stays available: with pairing=framesync the
    # Matroska frames are paired as FFmpeg's psnr pairs them
    lg, p = score([mkv, ref], options="algo=psnr:pairing=framesync:stats_file=%s" %
                  os.path.join(D, "fs.txt"), tag="mkv-fs")
    psnr_stats = os.path.join(D, "psnr.txt")
    q = ffmpeg("-i", mkv, "-i", ref, "-lavfi", "[0:v][1:v]psnr=stats_file=%s" % psnr_stats,
               "-f", "null", "-", check=False)
    same = False
    if lg is not None and q.returncode == 0:
        with open(os.path.join(D, "fs.txt")) as a, open(psnr_stats) as b:
            same = a.read() == b.read()
    t.ok(same, "pairing=framesync pairs the Matroska frames as FFmpeg's psnr does "
         "(identical stats_file lines)", p.stderr[-800:])
    t.ok(lg is not None and frame_values(lg) != base_v and
         lg.get("pairing") == {"mode": "framesync"},
         "pairing=framesync on Matroska is not the MP4 result (frames paired with their "
         "neighbours), and its log says the mode without counts", lg and lg.get("pairing"))
    t.ok("different time bases" in p.stderr and "pairing=nearest" in p.stderr,
         "pairing=framesync warns that the time bases differ and names pairing=nearest",
         p.stderr[-800:])

    # 1001 rates: an MP4 reference against the same frames in Matroska
    for rate in ("30000/1001", "24000/1001"):
        tag = rate.split("/")[0]
        r = encode(os.path.join(D, "ref%s.mp4" % tag), "-qp", "0", rate=rate, frames=120)
        e = encode(os.path.join(D, "enc%s.mp4" % tag), "-crf", "33", "-bf", "2", src=r,
                   frames=120)
        m = remux(e, os.path.join(D, "enc%s.mkv" % tag))
        a, _ = score([e, r], tag="a" + tag)
        b, p = score([m, r], tag="b" + tag)
        t.ok(a is not None and b is not None and frame_values(a) == frame_values(b) and
             a["frame_count"] == 120, "%s fps: the Matroska rendition scores exactly as "
             "the MP4 one, 120 frames" % rate, p.stderr[-800:])

    # -- renditions that differ --------------------------------------------
    r25 = encode(os.path.join(D, "r25.mp4"), "-crf", "30", "-vf", "fps=25", src=ref)
    lg, p = score([r25, ref], tag="r25")
    t.ok(p.returncode != 0 and lg is None and "frame rates differ" in p.stderr and
         "fps=30" in p.stderr and "pairing=framesync" in p.stderr,
         "a 25 fps rendition against a 30 fps reference is an error naming fps=30 and "
         "pairing=framesync", p.stderr[-800:])
    lg, p = score([r25, ref], tag="r25fps", pre="[0:v]fps=30[a];[a][1:v]")
    t.ok(lg is not None and lg["frame_count"] == 150,
         "resampled in time by the fps filter, it is scored (150 frames)", p.stderr[-800:])
    lg, p = score([r25, ref], tag="r25fs", options="algo=psnr:pairing=framesync")
    t.ok(lg is not None and "frame rates differ" in p.stderr,
         "with pairing=framesync it is scored as FFmpeg pairs it, with a warning",
         p.stderr[-800:])

    short = encode(os.path.join(D, "short.mp4"), "-crf", "30", src=ref, frames=100)
    lg, p = score([short, enc, ref], tag="short")
    if lg:
        ns1 = sorted(frame_values(lg, k=1))
        e = pairing_of(lg, "dist1")
    t.ok(lg is not None and ns1 == list(range(100)) and
         [r["frame_count"] for r in lg["pooled"]["renditions"]] == [100, 150],
         "a ladder with a 100-frame rendition against a 150-frame reference: it is scored "
         "on its 100 frames, never against a repeated frame", p.stderr[-800:])
    t.ok(lg is not None and e and (e["frames"], e["paired"], e["lacks"], e["excess"]) ==
         (100, 100, 50, 0) and "dist1 lacks 50 of the reference's frames" in p.stderr,
         "the log and the summary say the short rendition lacks 50 frames",
         (lg and lg.get("pairing"), p.stderr[-600:]))
    # the longer one of a pair: main longer than the reference
    lg, p = score([enc, short], tag="long")
    e = pairing_of(lg, "main")
    t.ok(lg is not None and lg["frame_count"] == 100 and e and
         (e["paired"], e["lacks"], e["excess"]) == (100, 0, 50) and
         "main has 50 frames in excess" in p.stderr,
         "a main input 50 frames longer than its reference: 100 scored, 50 in excess, "
         "said in the log and the summary", (lg and lg.get("pairing"), p.stderr[-600:]))

    # a rendition that lost five frames in the middle (timestamps kept),
    # beside the same frames whole: lossless intra encodes of the rendition,
    # so that a frame is the same picture in both
    holes, whole = os.path.join(D, "holes.mkv"), os.path.join(D, "whole.mkv")
    for path, vf in ((holes, ["-vf", "select='not(between(n\\,70\\,74))'"]), (whole, [])):
        run([ENCODER_FFMPEG, "-hide_banner", "-v", "error", "-y", "-i", enc] + vf +
            ["-fps_mode", "passthrough", "-c:v", "libx264", "-preset", "ultrafast", "-qp",
             "0", "-g", "1", path])
    lg, p = score([holes, ref], tag="holes")
    full, _ = score([whole, ref], tag="whole")
    e = pairing_of(lg, "main")
    hv = fv = {}
    if lg and full:
        # the same frames by time: n counts the scored frames
        hv = {round(f["pts_time"], 3): f["psnr"]["All"] for f in lg["frames"]}
        fv = {round(f["pts_time"], 3): f["psnr"]["All"] for f in full["frames"]}
    t.ok(lg is not None and full is not None and e and (e["paired"], e["lacks"]) ==
         (145, 5) and len(hv) == 145 and
         [round(f["pts_time"], 3) for f in lg["frames"]][69:71] ==
         [round(69 / 30, 3), round(75 / 30, 3)] and
         all(hv[n] == fv[n] for n in hv),
         "a rendition that lost 5 frames: 145 pairs, 5 lacking, every frame scored against "
         "its own reference frame (as where nothing is lost)", (lg and lg.get("pairing"), p.stderr[-600:]))

    # decode errors: 20 KB of garbage in the middle of a Matroska rendition.
    # FFmpeg 9.0's frame-threaded H.264 decoder does not flag the frames it
    # conceals (its own "corrupt decoded frame" warning stays silent too);
    # with one decoding thread it does.
    with open(mkv, "rb") as f:
        data = bytearray(f.read())
    import random
    rnd = random.Random(7)
    at, n = len(data) // 2, min(20000, len(data) // 4)
    data[at:at + n] = bytes(rnd.randrange(256) for _ in range(n))
    bad = os.path.join(D, "bad.mkv")
    with open(bad, "wb") as f:
        f.write(data)
    lg, p = score([bad, ref], tag="bad", extra=("-threads", "1"))
    e = pairing_of(lg, "main")
    t.ok(lg is not None and e and e["damaged"] > 0 and
         re.search(r"\d+ main frames? came from the decoder with errors", p.stderr),
         "a rendition with 20 KB of garbage: the frames its decoder flagged are counted as "
         "damaged in the log and said after the summary", (lg and lg.get("pairing"),
                                                           p.stderr[-600:]))
    t.ok(lg is not None and e and e["lacks"] > 0 and e["paired"] + e["lacks"] == 150 and
         "main lacks" in p.stderr, "the frames it lost are counted as lacking, and said",
         lg and lg.get("pairing"))

    # starts shifted by the ffmpeg tool: two MPEG-TS files of the same frames
    # with an audio stream that starts 20 ms before the video; the tool
    # starts the first input at its audio (mapped to the output) and the
    # second at its video, so their frames lie 20 ms apart
    if not has_ts:
        t.skip("MPEG-TS inputs with audio", "the build reads no MPEG-TS")
    elif encoder_has("aac"):
        tsa = []
        for name, src in (("tsa-enc.ts", enc), ("tsa-ref.ts", ref)):
            out = os.path.join(D, name)
            run([ENCODER_FFMPEG, "-hide_banner", "-v", "error", "-y", "-i", src, "-f", "lavfi",
                 "-i", "sine=d=5", "-c:v", "copy", "-c:a", "aac", "-af", "adelay=0",
                 "-f", "mpegts", out])
            tsa.append(out)
        lg, p = score(tsa, tag="tsa")
        e = pairing_of(lg, "main")
        t.ok(lg is not None and frame_values(lg) == base_v and e and e["lacks"] == 0,
             "MPEG-TS inputs whose starts the ffmpeg tool shifts apart (an audio stream): "
             "paired from their first frames, every frame scores as in MP4",
             (lg and lg.get("pairing"), p.stderr[-800:]))
    else:
        t.skip("MPEG-TS inputs with audio", "no aac encoder in ENCODER_FFMPEG")

    # a cut run must be given the title's first frames
    lg, p = score([enc, ref], tag="cut", options="algo=psnr:seg_base=30:seg_start=30")
    t.ok(lg is None and "seg_starts" in p.stderr and "pairing=pts" in p.stderr,
         "seg_base > 0 without seg_starts is an error naming seg_starts and pairing=pts",
         p.stderr[-600:])

    # -- fssim3d -------------------------------------------------------------
    a, _ = score([enc, ref], tag="3d-mp4", options="depth=3", filt="fssim3d")
    b, p = score([mkv, ref], tag="3d-mkv", options="depth=3", filt="fssim3d")
    t.ok(a is not None and b is not None and frame_values(a, "fssim3d") ==
         frame_values(b, "fssim3d") and a["frame_count"] == 150,
         "fssim3d: the Matroska rendition scores exactly as the MP4 one", p.stderr[-800:])

    # -- segments: the counts of two halves add up to the whole run's -------
    seg_counts(short, ref)

    # -- the GPU decoders ---------------------------------------------------
    gpu_cases(mkv, enc, ref, base_v)
    t.done()


def seg_counts(short, ref):
    """A pair of a 150-frame main and a 100-frame reference, scored whole and
    as two segments cut at frame 75 (as fssim-farm runs them): the pairing
    counts of the segments add up to the whole run's."""
    from fssim_farm.segments import first_frame_time
    from fssimtest import FFPROBE
    starts = "|".join(first_frame_time(x, FFPROBE) for x in (ref, short))
    whole, p = score([ref, short], tag="seg-whole")
    parts = []
    for (a, b, ss) in ((0, 75, None), (75, 150, 75)):
        extra, opts = [], ""
        args = ["-i", ref, "-i", short]
        if ss is not None:
            t0 = (ss - 0.5) / 30
            args = ["-ss", "%.6f" % t0, "-i", ref, "-ss", "%.6f" % max(0, t0 - 0.5), "-i",
                    short]
            extra = ["-copyts", "-start_at_zero"]
            opts = ":seg_starts=" + starts.replace("|", "\\|")
        log = os.path.join(D, "seg%d.json" % a)
        q = ffmpeg(*extra, *args, "-lavfi", "[0:v][1:v]fssim=algo=psnr:seg_base=%d:"
                   "seg_start=%d:seg_end=%d%s:log_path=%s" % (a, a, b, opts, log), "-f", "null",
                   "-", check=False)
        parts.append(load_log(log) if q.returncode == 0 else None)
    ok = whole is not None and all(parts)
    if ok:
        keys = ("frames", "paired", "lacks", "excess", "damaged")
        sums = {}
        for lg in parts:
            for e in lg["pairing"]["inputs"]:
                for k in keys:
                    if k in e:
                        sums[(e["pad"], k)] = sums.get((e["pad"], k), 0) + e[k]
        want = {(e["pad"], k): e[k] for e in whole["pairing"]["inputs"] for k in keys if k in e}
        ok = sums == want
    t.ok(ok, "the pairing counts of two segments add up to the whole run's",
         (whole and whole.get("pairing"), [x and x.get("pairing") for x in parts]))


def gpu_cases(mkv, mp4, ref, base_v):
    """Vulkan frames uploaded (lavapipe here), NVDEC and Vulkan Video frames:
    the Matroska rendition scores exactly as the MP4 one on the CPU (psnr's
    sums are exact on every backend)."""
    desc = "fssim_vulkan on uploaded Matroska frames scores as the CPU on MP4"
    if has_filter("fssim_vulkan"):
        log = os.path.join(D, "vk-upload.json")
        p = ffmpeg("-init_hw_device", "vulkan=vk", "-filter_hw_device", "vk", "-i", mkv,
                   "-i", ref, "-lavfi", "[0:v]format=yuv420p,hwupload[a];[1:v]format=yuv420p,"
                   "hwupload[b];[a][b]fssim_vulkan=algo=psnr:log_path=%s" % log, "-f", "null",
                   "-", check=False)
        lg = load_log(log) if p.returncode == 0 else None
        if lg is None and "vulkan" in p.stderr.lower() and "device" in p.stderr.lower():
            t.skip(desc, "no Vulkan device")
        else:
            t.ok(lg is not None and frame_values(lg) == base_v, desc, p.stderr[-1500:])
    else:
        t.skip(desc, "fssim_vulkan not built")
    cases = (("fssim_cuda", ["-init_hw_device", "cuda=g", "-filter_hw_device", "g"],
              ["-hwaccel", "cuda", "-hwaccel_device", "g", "-hwaccel_output_format", "cuda"]),
             ("fssim_vulkan", ["-init_hw_device", "vulkan=g", "-filter_hw_device", "g"],
              ["-hwaccel", "vulkan", "-hwaccel_device", "g", "-hwaccel_output_format",
               "vulkan"]))
    for filt, dev, per in cases:
        desc = "%s on hardware-decoded Matroska frames scores as the CPU on MP4" % filt
        if not has_filter(filt):
            t.skip(desc, "%s not built" % filt)
            continue
        # the decoder falls back to software frames without a device:
        # hwdownload then fails
        probe = ffmpeg(*dev, *per, "-i", ref, "-frames:v", "1", "-vf",
                       "hwdownload,format=nv12", "-f", "null", "-", check=False)
        if probe.returncode != 0:
            t.skip(desc, "no device decodes H.264 for %s" % filt)
            continue
        log = os.path.join(D, filt + ".json")
        p = ffmpeg(*dev, *per, "-i", mkv, *per, "-i", ref, "-lavfi",
                   "[0:v][1:v]%s=algo=psnr:log_path=%s" % (filt, log), "-f", "null", "-",
                   check=False)
        lg = load_log(log) if p.returncode == 0 else None
        t.ok(lg is not None and frame_values(lg) == base_v, desc, p.stderr[-1500:])


main()
