"""fssim3d test helpers: an independent float64 evaluation of doc/algorithms.md#fssim3d
(naive separable Gaussian filtering of the whole (t, y, x) volume, the
temporal ends handled by explicit truncation and renormalisation),
synthetic content, raw-file writing and running the filter.

Used by tests/peers/test_3d_skimage.py and tests/e2e/test_3d_volumes.py.
"""
import os
import re

import numpy as np

import fssimtest as ft


def gauss(n, sigma):
    """doc/algorithms.md#float weights: exp(-(i-r)^2 / (2 sigma^2)), normalised to sum 1."""
    x = np.arange(n, dtype=np.float64) - n // 2
    g = np.exp(-(x * x) / (2.0 * sigma * sigma))
    return g / g.sum()


def _filter_axis(v, g, axis, padding):
    """Correlate v with g along axis: 'valid' keeps the positions whose
    whole window is inside, 'same' pads with zeros."""
    n, r = len(g), len(g) // 2
    if padding == "same":
        pad = [(0, 0)] * v.ndim
        pad[axis] = (r, r)
        v = np.pad(v, pad)
    out_len = v.shape[axis] - n + 1
    out = np.zeros(v.shape[:axis] + (out_len,) + v.shape[axis + 1:])
    for j in range(n):
        sl = [slice(None)] * v.ndim
        sl[axis] = slice(j, j + out_len)
        out += g[j] * v[tuple(sl)]
    return out


def _temporal(v, gt, tpadding, renormalise=True):
    """Weighted temporal sums of a (T, ...) array; list with None for
    frames that get no score (tpadding='valid' near the ends)."""
    T, r = v.shape[0], len(gt) // 2
    out = []
    for t in range(T):
        ks = [k for k in range(len(gt)) if 0 <= t - r + k < T]
        if tpadding == "valid" and len(ks) < len(gt):
            out.append(None)
            continue
        w = gt[ks] / gt[ks].sum() if renormalise else gt[ks]  # truncate: renormalise
        acc = np.zeros(v.shape[1:])
        for wk, k in zip(w, ks):
            acc += wk * v[t - r + k]
        out.append(acc)
    return out


def naive_3d(a, b, L, window=11, sigma=1.5, padding="valid", depth=11,
             tsigma=1.5, tpadding="truncate", renormalise=True):
    """Per-frame mean 3-D SSIM of two (T, H, W) volumes; None where a
    frame is not scored.  renormalise=False is the wrong variant (zeros
    beyond the time ends), for tests to show they can tell the two apart."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    g, gt = gauss(window, sigma), gauss(depth, tsigma)
    c1, c2 = (0.01 * L) ** 2, (0.03 * L) ** 2

    def spatial(v):
        return _filter_axis(_filter_axis(v, g, 2, padding), g, 1, padding)

    m = [_temporal(spatial(x), gt, tpadding, renormalise) for x in (a, b, a * a, b * b, a * b)]
    scores = []
    for t in range(a.shape[0]):
        if m[0][t] is None:
            scores.append(None)
            continue
        ma, mb, aa, bb, ab = (x[t] for x in m)
        va, vb, cov = aa - ma * ma, bb - mb * mb, ab - ma * mb
        s = ((2 * ma * mb + c1) * (2 * cov + c2)) / \
            ((ma * ma + mb * mb + c1) * (va + vb + c2))
        scores.append(float(s.mean()))
    return scores


def skimage_3d(a, b, L):
    """scikit-image's n-D SSIM of the (t, y, x) volume, the peer of doc/algorithms.md#fssim3d."""
    from skimage.metrics import structural_similarity
    return float(structural_similarity(
        np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64),
        gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
        data_range=L))


# ---- content ----------------------------------------------------------------

def clip(T, H, W, pix_fmt, seed=1):
    """Natural-looking content (fssimtest.natural_frames: a zoomed, panned
    photograph with fresh noise each frame) and a distorted copy
    (fssimtest.degrade, then a frozen frame: a temporal error that 2-D SSIM
    barely sees).  Both get the same perfectly flat patch, where only SSIM's
    constants keep the value defined.  Returns (ref, dist): lists of
    planes, each a (T, h, w) float64 array of sample values."""
    fmt = ft.pix_fmt(pix_fmt)
    frames = ft.natural_frames(W, H, T, fmt, seed=seed)
    dist = ft.degrade(frames, fmt, blur=0.8, noise=3.0, seed=seed + 1)
    if T > 2:
        dist[T // 2] = dist[T // 2 - 1]
    ref = [np.stack([f[c] for f in frames]).astype(np.float64) for c in range(len(frames[0]))]
    dis = [np.stack([f[c] for f in dist]).astype(np.float64) for c in range(len(dist[0]))]
    mid = (fmt.maxval + 1) // 2
    for p in ref + dis:
        p[:, 1:5, 1:7] = mid
    return ref, dis


def write_raw(path, planes, bits):
    """Frames as rawvideo: per frame each plane in turn, 8-bit samples as
    bytes, deeper ones as little-endian 16-bit words."""
    dt = np.uint8 if bits <= 8 else np.dtype("<u2")
    with open(path, "wb") as f:
        for t in range(planes[0].shape[0]):
            for p in planes:
                f.write(p[t].astype(dt).tobytes())


# ---- running the filter ------------------------------------------------------

def raw_input(path, pix_fmt, W, H, rate=25):
    return ["-f", "rawvideo", "-pixel_format", pix_fmt, "-video_size", "%dx%d" % (W, H),
            "-framerate", str(rate), "-i", path]


def parse_meta(path):
    """metadata=mode=print output: {frame index: {key: value}}."""
    frames, cur = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"frame:(\d+)", line)
            if m:
                cur = frames.setdefault(int(m.group(1)), {})
            elif "=" in line and cur is not None:
                k, v = line.strip().split("=", 1)
                cur[k] = v
    return frames


def framemd5(path):
    """The md5 column of a framemd5 file."""
    with open(path) as f:
        return [l.strip().split(",")[-1].strip() for l in f
                if l.strip() and not l.startswith("#")]


def run_fssim3d(name, main_raw, ref_raw, pix_fmt, W, H, opts, rate=25, threads=None,
                check=True, extra_filter=""):
    """Score main_raw against ref_raw; returns (process, JSON log or None,
    metadata per output frame index, md5 per output frame)."""
    d = ft.workdir(name)
    log, meta, md5 = (os.path.join(d, x) for x in ("log.json", "meta.txt", "out.md5"))
    for p in (log, meta, md5):
        if os.path.exists(p):
            os.remove(p)
    graph = "[0:v][1:v]fssim3d=%s%slog_path=%s,metadata=mode=print:file=%s%s" % (
        opts, ":" if opts else "", log, meta, extra_filter)
    args = raw_input(main_raw, pix_fmt, W, H, rate) + raw_input(ref_raw, pix_fmt, W, H, rate)
    if threads is not None:
        args += ["-filter_threads", str(threads)]
    args += ["-lavfi", graph, "-f", "framemd5", md5]
    p = ft.ffmpeg(*args, check=check)
    lg = ft.load_log(log) if os.path.exists(log) else None
    mt = parse_meta(meta) if os.path.exists(meta) else {}
    sums = framemd5(md5) if os.path.exists(md5) else []
    return p, lg, mt, sums


def input_md5(raw, pix_fmt, W, H, name):
    d = ft.workdir(name)
    out = os.path.join(d, "in.md5")
    ft.ffmpeg(*raw_input(raw, pix_fmt, W, H), "-f", "framemd5", out)
    return framemd5(out)
