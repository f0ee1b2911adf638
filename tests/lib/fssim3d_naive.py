"""fssim3d test helpers: an independent float64 evaluation of SPEC 2.4
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
    """SPEC 2.2 weights: exp(-(i-r)^2 / (2 sigma^2)), normalised to sum 1."""
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
    """scikit-image's n-D SSIM of the (t, y, x) volume, SPEC 2.4's peer."""
    from skimage.metrics import structural_similarity
    return float(structural_similarity(
        np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64),
        gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
        data_range=L))


# ---- content ----------------------------------------------------------------

def _pan(img, T, H, W, y0, x0, dy, dx):
    return np.stack([img[y0 + dy * t:y0 + dy * t + H, x0 + dx * t:x0 + dx * t + W]
                     for t in range(T)])


def _blur(v, s):
    from scipy.ndimage import gaussian_filter
    return np.stack([gaussian_filter(f, s) for f in v])


def distort(ref, L, seed, freeze=None):
    """A distorted copy: time-varying blur and noise, quantised, plus a
    frozen frame (a temporal error 2-D SSIM barely sees)."""
    rng = np.random.default_rng(seed)
    T = ref.shape[0]
    out = np.empty_like(ref, dtype=np.float64)
    for t in range(T):
        f = _blur(ref[t:t + 1], 0.5 + 0.6 * (t % 5) / 4)[0]
        f += rng.normal(0.0, L * (0.01 + 0.02 * t / T), f.shape)
        out[t] = f
    if freeze is not None and 0 < freeze < T:
        out[freeze] = out[freeze - 1]
    return np.clip(np.rint(out), 0, L)


def clip(T, H, W, bits, seed=1, chroma=False):
    """Natural-looking content: panning crops of scikit-image's photos with
    a brightness flicker and a flat patch.  Returns (ref, dist) lists of
    planes, each a (T, h, w) float64 array of integer sample values; with
    chroma, Y and 4:2:0 U and V."""
    from skimage import data
    L = (1 << bits) - 1
    lum = data.camera().astype(np.float64) / 255.0
    flick = 0.85 + 0.15 * np.sin(np.arange(T) / 2.5)[:, None, None]
    y = _pan(lum, T, H, W, 120, 180, 2, 3) * flick
    rng = np.random.default_rng(seed)
    planes = [np.clip(np.rint(y * L + rng.normal(0, 0.002 * L, y.shape)), 0, L)]
    planes[0][:, 2:10, 2:14] = (L + 1) // 2  # flat area: SSIM's constants matter here
    if chroma:
        rgb = data.astronaut().astype(np.float64) / 255.0
        for ch in (1, 2):
            c = _pan(rgb[:, :, ch], T, H // 2, W // 2, 60, 200, 1, 2)
            planes.append(np.clip(np.rint(c * L), 0, L))
    dist = [distort(p, L, seed + 10 + i, freeze=T // 2) for i, p in enumerate(planes)]
    return planes, dist


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
