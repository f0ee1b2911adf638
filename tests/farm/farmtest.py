"""Helpers of the fssim-farm tests: short encodes with GOPs, whole runs of the
built ffmpeg, fssim-farm itself (from the source tree's farm/ folder), and
comparing a merged log with a whole run's.

Clips are encoded by ENCODER_FFMPEG (Debian's ffmpeg: libx264, libx265)
with short GOPs and B-frames, so that segments cut at real keyframes and
decoders start mid-stream as a farm's do.
"""
import json
import os
import re
import shutil
import subprocess
import sys

import fssimtest as ft

FARM_DIR = os.path.join(ft.TOP_SRCDIR, "farm")
sys.path.insert(0, FARM_DIR)


def chromium():
    """The headless browser the report tests draw pages with, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


def farm_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = FARM_DIR + os.pathsep + env.get("PYTHONPATH", "")
    return env


def fssim_farm(*args, check=False, timeout=600, env=None):
    """Run `python -m fssim_farm ARGS`; CompletedProcess (text)."""
    return subprocess.run([sys.executable, "-m", "fssim_farm"] + [str(a) for a in args],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout, env=env or farm_env(), check=check)


def has_seg_options():
    p = ft.run([ft.FFMPEG, "-hide_banner", "-h", "filter=fssim"], check=False)
    return "seg_start" in p.stdout


def encode(path, src_args, codec, pix_fmt, gop, extra=(), crf=30):
    """Encode with ENCODER_FFMPEG: a GOP of `gop` frames, B-frames."""
    args = [ft.ENCODER_FFMPEG, "-hide_banner", "-nostdin", "-v", "error", "-y"] + \
        list(src_args) + ["-c:v", codec, "-pix_fmt", pix_fmt]
    if codec == "libx265":
        args += ["-x265-params", "keyint=%d:min-keyint=%d:scenecut=0:bframes=3:open-gop=1:"
                 "log-level=error" % (gop, gop), "-crf", str(crf)]
    else:
        args += ["-g", str(gop), "-keyint_min", str(gop), "-sc_threshold", "0", "-bf", "2",
                 "-crf", str(crf)]
    ft.run(args + list(extra) + [path])
    return path


def make_title(d, w=160, h=96, frames=60, pix_fmt="yuv420p", codec="libx264", gop=12,
               rate="25", ladder=True, seed="coffee"):
    """A reference (near-lossless, GOP `gop`) and renditions with GOPs of
    their own: same size at a high CRF, and (ladder) a half-size one.
    Returns (reference, [renditions])."""
    tag = "%s_%s_%s_%dx%d_%d_g%d" % (seed, codec, pix_fmt, w, h, frames, gop)
    clip = ft.natural_clip(w, h, frames, pix_fmt, d, "src_" + tag, container="y4m", image=seed,
                           noise=0.8, zoom=0.03, pan=(3.0, 1.5))
    src = ["-r", rate, "-i", clip.path]
    ext = "mkv" if codec == "libx264" else "mp4"
    ref = encode(os.path.join(d, "ref_%s.%s" % (tag, ext)), src, codec, pix_fmt, gop, crf=8)
    dists = [encode(os.path.join(d, "d1_%s.%s" % (tag, ext)), ["-i", ref], codec, pix_fmt,
                    gop + 5, crf=34)]
    if ladder:
        dists.append(encode(os.path.join(d, "d2_%s.mkv" % tag), ["-i", ref],
                            "libx264", pix_fmt, 7, extra=["-vf", "scale=%d:%d" % (w // 2, h // 2)],
                            crf=28))
    return ref, dists


def whole_run(filter_name, ref, dists, options, log_path, title=None, **kw):
    """The whole run fssim-farm's segments must equal."""
    from fssim_farm import segments
    if os.path.exists(log_path):
        os.unlink(log_path)
    fmt = "csv" if log_path.endswith(".csv") else "json"
    cmd = segments.command(ft.FFMPEG, filter_name, ref, dists, options, log_path, fmt, title,
                           progress=False, **kw)
    ft.run(cmd)
    return log_path


def segment_runs(d, tag, filter_name, ref, dists, options, fmt="json", frames=20, **kw):
    """Each segment of the title scored by its own run, as a farm's worker
    runs it; kw: hwaccel, upload, gpu of segments.command."""
    from fssim_farm import segments
    pr = segments.probe(ref, ft.FFPROBE)
    ctx = segments.context_frames(filter_name, options)
    segs = segments.plan(pr, frames, ctx)
    title = segments.input_identity(dists + [ref])
    starts = [segments.first_frame_time(p, ft.FFPROBE) for p in dists + [ref]]
    paths = []
    for s in segs:
        p = os.path.join(d, "%s_%s" % (tag, s.name(fmt)))
        ft.run(segments.command(ft.FFMPEG, filter_name, ref, dists, options, p, fmt, title, s,
                                pr, progress=False, starts=starts, **kw))
        paths.append(p)
    return segs, paths, title


def check_title(tap, d, tag, filter_name, ref, dists, options, fmt="json", frames=20, **kw):
    """Segments merged by fssim-farm merge against the whole run: checks."""
    segs, paths, title = segment_runs(d, tag, filter_name, ref, dists, options, fmt, frames,
                                      **kw)
    whole = os.path.join(d, "%s.%s" % (tag, fmt))
    whole_run(filter_name, ref, dists, options, whole, title, **kw)
    os.rename(whole, whole + ".whole")
    p = fssim_farm("merge", *paths, "-o", whole)
    if not tap.ok(p.returncode == 0, "%s: %d segments (%s) merged" % (
            tag, len(segs), ", ".join("%d-%d" % (s.start, s.end - 1) for s in segs)), p.stderr):
        return paths
    same_log(tap, tag, whole, whole + ".whole")
    p = fssim_farm("merge", *reversed(paths), "-o", whole + ".cmp", "--no-segments-field",
                      "--log-path", whole)
    tap.ok(p.returncode == 0 and open(whole + ".cmp").read() == open(whole + ".whole").read(),
           "%s: --no-segments-field, segments given in any order: cmp equal" % tag, p.stderr)
    return paths


def strip_segments(text):
    """A merged log without its segments field/line (the rest must equal a
    whole run's byte for byte)."""
    text = re.sub(r',\n  "segments": \[[^\]]*\]\n}\n$', "\n}\n", text)
    return re.sub(r"# segments=[0-9,-]*\n$", "", text)


def same_log(tap, desc, merged_path, whole_path, relocate=False):
    """Two checks: the same JSON structure (segments aside), the same bytes.
    relocate: the merged log was written to another path than the whole run's
    log, and names it in log_path (as a whole run would): compare as if at
    the whole run's path."""
    with open(merged_path) as f:
        m = f.read()
    with open(whole_path) as f:
        w = f.read()
    if relocate:
        m = m.replace(json.dumps(merged_path), json.dumps(whole_path)).replace(
            "log_path=" + merged_path + " ", "log_path=" + whole_path + " ")
    if whole_path.endswith(".json"):
        jm, jw = json.loads(m), json.loads(w)
        seg = jm.pop("segments", None)
        tap.ok(jm == jw and seg, desc + ": the same JSON as a whole run, and a segments field",
               _first_diff(jm, jw))
    tap.ok(strip_segments(m) == w, desc + ": byte for byte a whole run's log",
           _first_line_diff(strip_segments(m), w))


def _first_diff(a, b, path="$"):
    if type(a) is not type(b):
        return "%s: %r vs %r" % (path, a, b)
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return "%s.%s only in one" % (path, k)
            d = _first_diff(a[k], b[k], path + "." + k)
            if d:
                return d
        if list(a) != list(b):
            return "%s: key order" % path
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: length %d vs %d" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = _first_diff(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if a == b else "%s: %r vs %r" % (path, a, b)


def _first_line_diff(a, b):
    la, lb = a.split("\n"), b.split("\n")
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return "line %d:\n  merged %r\n  whole  %r" % (i + 1, x[:300], y[:300])
    return "lengths differ: %d vs %d lines" % (len(la), len(lb))
