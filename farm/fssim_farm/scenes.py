"""Scenes: where the title's shots change, and each rendition's quality per
scene.

Cuts come from FFmpeg's `scdet` filter run on the reference by the given
ffmpeg (--scenes scdet; its threshold, 0-100, --scdet-threshold) or from
the user (--scenes 0,240,1210 or a file of frame numbers).  A scene runs
from its cut to the next; each rendition's mean and nearest-rank 5th
percentile are taken over the frames of the scene it was scored on.
"""
import os
import re
import subprocess
import tempfile

from .errors import FarmError
from .pooling import nearest_rank

SCDET_THRESHOLD = 10.0


def parse_cuts(spec):
    """Frame numbers from '0,240,1210' or from a file of them (separated by
    commas, spaces or lines; '#' starts a comment)."""
    text = spec
    if os.path.exists(spec):
        try:
            with open(spec, encoding="utf-8") as f:
                text = "\n".join(line.split("#", 1)[0] for line in f)
        except (OSError, UnicodeDecodeError) as e:
            raise FarmError("--scenes %s: cannot read it: %s" % (spec, getattr(e, "strerror",
                                                                               None) or e))
    items = [x for x in re.split(r"[\s,]+", text) if x]
    try:
        cuts = sorted(set(int(x) for x in items))
    except ValueError:
        raise FarmError("--scenes %s: give 'scdet', frame numbers (0,240,1210) or a file of "
                        "them" % spec)
    if any(c < 0 for c in cuts):
        raise FarmError("--scenes %s: frame numbers start at 0" % spec)
    return cuts


def detect(ffmpeg, reference, threshold=SCDET_THRESHOLD):
    """The times (s) at which FFmpeg's scdet finds a scene change in the
    reference."""
    fd, path = tempfile.mkstemp(prefix="fssim-scdet-", suffix=".txt")
    os.close(fd)
    try:
        graph = "scdet=threshold=%g,metadata=mode=print:key=lavfi.scd.time:file=%s" % (
            threshold, path.replace("\\", "\\\\").replace(":", "\\:"))
        cmd = [ffmpeg, "-hide_banner", "-nostdin", "-v", "error", "-i", reference,
               "-map", "0:v:0", "-vf", graph, "-f", "null", "-"]
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        except OSError as e:
            raise FarmError("cannot run %s: %s" % (ffmpeg, e.strerror or e))
        if p.returncode != 0:
            err = p.stderr.strip()
            if "scdet" in err and ("No such filter" in err or "not found" in err):
                raise FarmError("%s has no scdet filter: build fssim's ffmpeg (make), pass "
                                "another --ffmpeg, or give the cuts with --scenes FRAMES"
                                % ffmpeg)
            raise FarmError("%s: scene detection failed: %s" % (reference, err[-300:]))
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    finally:
        os.unlink(path)
    return [float(m.group(1)) for m in
            re.finditer(r"^frame:\s*\d+\s+pts:\S*\s+pts_time:(\S+)", text, re.M)
            if m.group(1) not in ("NOPTS", "nan")]


def cuts_from_times(times, title_n, title_t, fps):
    """The title frame at each cut time: the first frame from half a frame
    before it."""
    import numpy as np
    half = 0.5 / fps if fps else 1e-3
    out = []
    for t in times:
        i = int(np.searchsorted(title_t, t - half))
        if i < len(title_n):
            out.append(int(title_n[i]))
    return sorted(set(out))


def scenes(cuts, first_n, last_n):
    """[(first n, last n)] of the scenes from the cuts, covering the title."""
    bounds = sorted(set([first_n] + [c for c in cuts if first_n < c <= last_n]))
    return [(a, (bounds[i + 1] - 1) if i + 1 < len(bounds) else last_n)
            for i, a in enumerate(bounds)]


def per_scene(n, values, spans):
    """[(frames, mean, p5)] of each scene [(first n, last n)] over the
    frames of n (sorted) with their values; (0, None, None) where it has
    none."""
    import numpy as np
    out = []
    lo = np.searchsorted(n, [a for a, _ in spans], side="left")
    hi = np.searchsorted(n, [b for _, b in spans], side="right")
    for a, b in zip(lo, hi):
        v = values[a:b]
        v = v[np.isfinite(v)]
        if not len(v):
            out.append((0, None, None))
            continue
        s = np.sort(v)
        out.append((len(v), float(v.mean()), float(s[max(1, nearest_rank(5.0, len(v))) - 1])))
    return out
