"""The worst events of a rendition, and pictures of their worst frames.

An event is a stretch where the rendition is at its worst.  The windows of
about a second whose mean lies among the lowest 5 % of the title's windows
are its seeds; each run of them grows on both sides while the windows stay
below half the dip's depth (halfway from the title's median window to the
run's lowest), so that an event spans its whole dip; windows that overlap
or touch are one event, so that one dip is one event however long it
lasts.  Events are ranked by their lowest window mean; each has a worst
frame (its lowest value), of which the same
ffmpeg that scored the title extracts the reference's and the rendition's
pictures, written side by side (reference left) as a JPEG.
"""
import os
import subprocess

from .errors import FarmError

WINDOW_S = 1.0           # the window of an event, in seconds
LOW_PERCENT = 5.0        # windows among the lowest this many percent form events
THUMB_WIDTH = 480        # each picture of a pair, in pixels


class Event:
    """Frames [first, last] (indices into the rung's arrays), the mean over
    them, the lowest window mean, and the worst frame (index, value)."""

    def __init__(self, first, last, mean, low, worst, worst_value):
        self.first, self.last, self.mean, self.low = first, last, mean, low
        self.worst, self.worst_value = worst, worst_value
        self.thumb = None          # the picture's path, once extracted

    def to_json(self, rung):
        return {"first_n": int(rung.n[self.first]), "last_n": int(rung.n[self.last]),
                "t0": _f(rung.t[self.first]), "t1": _f(rung.t[self.last]),
                "mean": self.mean, "lowest_window_mean": self.low,
                "worst_n": int(rung.n[self.worst]), "worst_t": _f(rung.t[self.worst]),
                "worst_value": self.worst_value, "thumbnail": self.thumb}


def _f(v):
    import math
    return float(v) if math.isfinite(v) else None


def window_frames(fps, nb_frames):
    """About WINDOW_S of frames, at most a twentieth of the title (short
    clips still show where they are worst), at least one."""
    w = int(round(WINDOW_S * fps)) if fps else max(1, nb_frames // 100)
    return max(1, min(w, nb_frames // 20 or 1))


def worst_events(values, window, count):
    """The `count` worst events of per-frame values (numpy array), worst
    first."""
    import numpy as np
    v = np.asarray(values, dtype=float)
    n = len(v)
    if not n:
        return []
    finite = np.isfinite(v)
    if not finite.any():
        return []
    v = np.where(finite, v, np.nanmax(v[finite]))
    w = max(1, min(window, n))
    means = np.convolve(v, np.ones(w) / w, mode="valid")
    low = means <= np.percentile(means, LOW_PERCENT)
    median = float(np.median(means))
    # runs of seed windows, each grown to half its dip's depth; runs whose
    # frames overlap or touch are one event
    edges = np.flatnonzero(np.diff(np.concatenate(([0], low.astype(np.int8), [0]))))
    runs = []
    for a, b in zip(edges[::2], edges[1::2] - 1):
        half = median - (median - float(means[a:b + 1].min())) / 2.0
        while a > 0 and means[a - 1] < half:
            a -= 1
        while b + 1 < len(means) and means[b + 1] < half:
            b += 1
        runs.append((a, b))
    merged = []
    for a, b in sorted(runs):
        if merged and a <= merged[-1][1] + w:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    events = []
    for a, b in merged:
        first, last = int(a), int(b + w - 1)
        seg = v[first:last + 1]
        worst = first + int(np.argmin(seg))
        events.append(Event(first, last, float(seg.mean()), float(means[a:b + 1].min()),
                            worst, float(v[worst])))
    events.sort(key=lambda e: (e.low, e.first))
    return events[:count]


def _frame_rgb(ffmpeg, path, t, fps, size):
    """The picture of `path` at time t (s) as rgb24 bytes of size (w, h):
    an accurate seek to half a frame before t keeps the frame at t."""
    seek = max(0.0, t - (0.5 / fps if fps else 0.001))
    w, h = size
    cmd = [ffmpeg, "-hide_banner", "-nostdin", "-v", "error", "-ss", "%.6f" % seek, "-i", path,
           "-map", "0:v:0", "-frames:v", "1", "-vf",
           "scale=%d:%d:flags=bicubic,format=rgb24" % (w, h), "-f", "rawvideo", "pipe:1"]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise FarmError("cannot run %s: %s" % (ffmpeg, e.strerror or e))
    if p.returncode != 0 or len(p.stdout) != w * h * 3:
        why = p.stderr.decode("utf-8", "replace").strip()[-300:] or "no picture at that time"
        raise FarmError("%s at %.3f s: ffmpeg gave no picture (%s); pass --no-thumbnails to "
                        "write the report without pictures" % (path, t, why))
    return p.stdout


def thumb_size(ref_w, ref_h, sar=1.0):
    """Each picture's size: the reference's shape, THUMB_WIDTH wide at most,
    even sides."""
    w = min(THUMB_WIDTH, ref_w)
    h = max(2, int(round(w * ref_h / float(ref_w) / sar / 2.0)) * 2)
    return w - w % 2, h


def side_by_side(ref_rgb, dist_rgb, size, path):
    """Write the two pictures, reference left, as a JPEG."""
    import numpy as np
    from PIL import Image
    w, h = size
    gap = 6
    a = np.frombuffer(ref_rgb, np.uint8).reshape(h, w, 3)
    b = np.frombuffer(dist_rgb, np.uint8).reshape(h, w, 3)
    out = np.full((h, 2 * w + gap, 3), 255, np.uint8)
    out[:, :w] = a
    out[:, w + gap:] = b
    tmp = path + ".tmp"
    Image.fromarray(out).save(tmp, format="JPEG", quality=88)
    os.replace(tmp, path)


def extract_thumbnails(ffmpeg, reference, files, jobs, size, fps, out_dir, stem):
    """jobs: [(rung, event, event number)]; files: {rung index: path}.  The
    pairs are written as OUT_DIR/STEM_<rendition>_<event>.jpg; each
    reference picture is extracted once."""
    from concurrent.futures import ThreadPoolExecutor
    os.makedirs(out_dir, exist_ok=True)
    times = {}
    for rung, ev, _ in jobs:
        times[int(rung.n[ev.worst])] = float(rung.t[ev.worst])
    workers = max(1, min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(workers) as pool:
        refs = dict(zip(times, pool.map(lambda n: _frame_rgb(ffmpeg, reference, times[n], fps,
                                                             size), times)))
        dists = list(pool.map(lambda j: _frame_rgb(ffmpeg, files[j[0].index],
                                                   float(j[0].t[j[1].worst]), fps, size), jobs))
    for (rung, ev, num), dist in zip(jobs, dists):
        path = os.path.join(out_dir, "%s_r%d_e%d.jpg" % (stem, rung.index + 1, num))
        side_by_side(refs[int(rung.n[ev.worst])], dist, size, path)
        ev.thumb = path
