"""Small helpers shared by fssim's Python tests: TAP output, running the
built ffmpeg, reading fssim's JSON logs and raw frames, and natural-looking
test clips in every pixel format fssim takes.

Every test prints TAP (https://testanything.org), read by automake's
tap-driver: one line per check, so `make check` counts checks, not scripts.

Test content (for every backend's tests: CPU, CUDA, Vulkan, fssim3d)
--------------------------------------------------------------------
    clip = natural_clip(64, 48, 5, "yuv420p10", workdir("x"), image="coffee")
    dist = natural_clip(64, 48, 5, "yuv420p10", workdir("x"), image="coffee",
                        distort=dict(blur=1.0, noise=3.0))
    ffmpeg(*dist.input_args(), *clip.input_args(), "-lavfi", "[0:v][1:v]fssim", ...)
    clip.frames[k][c]   # numpy plane of component c of frame k (sample values)

natural_frames() renders frames from scikit-image's bundled photographs
(astronaut, coffee, chelsea, camera, rocket, ...), slowly panned and zoomed,
with mild temporal noise; degrade() makes a distorted version (blur, noise,
a small shift); write_raw()/write_y4m() store them in FFmpeg's exact memory
layout (planar, semi-planar NV12/P010..., MSB-aligned P0xx, little-endian).
Components are always in fssim's order: Y, U, V[, A] or R, G, B[, A] (for
GBR formats the planes in memory are G, B, R, as FFmpeg lays them out).
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

FFMPEG = os.environ.get("FFMPEG", "ffmpeg")
FFPROBE = os.environ.get("FFPROBE", "ffprobe")
ENCODER_FFMPEG = os.environ.get("ENCODER_FFMPEG", "")
WORK = os.environ.get("FSSIM_WORK") or tempfile.mkdtemp(prefix="fssim-")
TOP_SRCDIR = os.environ.get("top_srcdir") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Tap:
    """TAP producer: ok()/skip() per check, plan printed at the end."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, desc, diag=None):
        self.n += 1
        if not cond:
            self.failed += 1
        print(("ok" if cond else "not ok") + " %d - %s" % (self.n, desc))
        if diag and not cond:
            for line in str(diag).splitlines():
                print("# " + line)
        sys.stdout.flush()
        return cond

    def close(self, desc, value, expected, tol):
        """|value - expected| <= tol."""
        good = value is not None and expected is not None and abs(value - expected) <= tol
        return self.ok(good, desc, "got %r, expected %r (tolerance %g, diff %s)" % (
            value, expected, tol,
            None if value is None or expected is None else abs(value - expected)))

    def skip(self, desc, reason):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, desc, reason))
        sys.stdout.flush()

    def diag(self, msg):
        for line in str(msg).splitlines():
            print("# " + line)
        sys.stdout.flush()

    def bail(self, reason):
        print("Bail out! " + reason)
        sys.exit(1)

    def done(self):
        print("1..%d" % self.n)
        sys.exit(0)


def workdir(name):
    """A fresh directory under the tests' work folder."""
    d = os.path.join(WORK, name)
    os.makedirs(d, exist_ok=True)
    return d


def run(args, check=True, timeout=600, env=None):
    """Run a command; return CompletedProcess with text stdout/stderr."""
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=timeout, env=env)
    if check and p.returncode != 0:
        raise RuntimeError("command failed (%d): %s\n%s" % (
            p.returncode, " ".join(args), p.stderr[-4000:]))
    return p


def ffmpeg(*args, check=True, timeout=600, env=None):
    return run([FFMPEG, "-hide_banner", "-nostdin", "-y"] + list(args),
               check=check, timeout=timeout, env=env)


def has_filter(name):
    p = run([FFMPEG, "-hide_banner", "-h", "filter=" + name], check=False)
    return p.returncode == 0 and "Unknown filter" not in (p.stdout + p.stderr)


def demuxer_has(name):
    """Whether the built ffmpeg reads format `name` (configure
    --disable-farm-formats leaves out MPEG-TS, for one)."""
    p = run([FFMPEG, "-hide_banner", "-h", "demuxer=" + name], check=False)
    return p.returncode == 0 and ("Demuxer %s " % name) in p.stdout


def load_log(path):
    with open(path) as f:
        return json.load(f)


def log_values(log):
    """A JSON log's per-frame values by (n, rendition): rendition None for
    two inputs, k for a ladder's renditions.  Each value is the frame's (or
    the rendition's) dict of algorithms."""
    out = {}
    for f in log["frames"]:
        for r in f.get("renditions", [f]):
            out[(f["n"], r.get("k"))] = r
    return out


def per_frame(log, algo):
    """[{comp: value}, ...] for one algorithm ("float", "int", "block",
    or "fssim3d") from a JSON log."""
    return [fr[algo] for fr in log["frames"] if algo in fr]


# ---------------------------------------------------------------------------
# Frame metadata as printed by the metadata filter
# ---------------------------------------------------------------------------

def parse_metadata_print(text):
    """Parse the output of `metadata=print:file=PATH` (FFmpeg's format:
    `frame:N    pts:P    pts_time:T` then `key=value` lines) into a list of
    {"frame": N, "pts": P, "pts_time": T, "tags": {key: value string}}."""
    frames = []
    for line in text.splitlines():
        m = re.match(r"frame:(\d+)\s+pts:(\S+)\s+pts_time:(\S+)", line)
        if m:
            frames.append({"frame": int(m.group(1)), "pts": m.group(2),
                           "pts_time": m.group(3), "tags": {}})
        elif "=" in line and frames:
            k, v = line.split("=", 1)
            frames[-1]["tags"][k] = v
    return frames


def read_metadata(path):
    with open(path) as f:
        return parse_metadata_print(f.read())


def parse_stats_file(text):
    """Lines `n:1 Y:0.9 U:... V:... All:0.9 (10.0)` of FFmpeg's ssim
    stats_file (and fssim's) into [{"n": 1, "Y": "0.9", ..., "All": ...,
    "dB": ...}] with the values kept as the printed strings."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        m = re.match(r"^n:(\d+) (.*) \((\S+)\)$", line)
        if not m:
            raise ValueError("not a stats line: %r" % line)
        d = {"n": int(m.group(1)), "dB": m.group(3)}
        for item in m.group(2).split():
            k, v = item.split(":", 1)
            d[k] = v
        out.append(d)
    return out


# ---------------------------------------------------------------------------
# Pixel formats: the memory layout of every software format fssim takes
# ---------------------------------------------------------------------------

_CHROMA = {"420": (1, 1), "422": (1, 0), "444": (0, 0), "440": (0, 1),
           "411": (2, 0), "410": (2, 2)}


class PixFmt:
    """Layout of one software pixel format, as FFmpeg's pixdesc gives it.

    name      canonical FFmpeg name (little-endian high-depth variants end in
              "le": "yuv420p10le")
    depth     bits per sample; L = 2**depth - 1
    comps     component names in fssim's order ("YUV", "YUVA", "RGB", "Y"...)
    log2_cw, log2_ch   chroma subsampling (0 for RGB/GRAY/alpha planes)
    semi      True for NV12/NV21/NV16/NV24/NV42/P0xx/P2xx/P4xx
    swap_uv   NV21/NV42: V before U in the interleaved plane
    shift     MSB alignment of the P0xx formats (P010: 6)
    bytes     container size of one sample (1 or 2)
    rgb, alpha, full_range (yuvj)
    """

    def __init__(self, name, depth, comps, log2_cw=0, log2_ch=0, semi=False,
                 swap_uv=False, shift=0, rgb=False, full_range=False):
        self.name = name
        self.depth = depth
        self.comps = comps
        self.log2_cw = log2_cw
        self.log2_ch = log2_ch
        self.semi = semi
        self.swap_uv = swap_uv
        self.shift = shift
        self.rgb = rgb
        self.alpha = "A" in comps
        self.full_range = full_range or rgb
        self.bytes = 2 if depth + shift > 8 else 1

    @property
    def maxval(self):
        return (1 << self.depth) - 1

    def plane_size(self, c, w, h):
        """(width, height) of component c at frame size w x h."""
        if self.comps[c] in "UV":
            return (-(-w >> self.log2_cw), -(-h >> self.log2_ch))
        return (w, h)

    def weights(self, w, h):
        """Each component's share of the samples (FFmpeg ssim's `All`)."""
        n = [a * b for a, b in (self.plane_size(c, w, h) for c in range(len(self.comps)))]
        return [x / float(sum(n)) for x in n]

    def __repr__(self):
        return "PixFmt(%s)" % self.name


def pix_fmt(name):
    """PixFmt for an FFmpeg pixel format name ("yuv420p10", "yuv420p10le",
    "nv12", "p010", "gbrap12le", "gray16"...).  Raises ValueError for a
    format outside fssim's list."""
    n = name[:-2] if name.endswith("le") else name
    if name.endswith("be"):
        raise ValueError("big-endian formats are not used by the tests: " + name)
    m = re.match(r"^gray(\d*)$", n)
    if m:
        d = int(m.group(1) or 8)
        return PixFmt("gray" + (m.group(1) + "le" if d > 8 else ""), d, "Y")
    m = re.match(r"^(yuvj?|yuva)(4[0-4][0-4]|41[01])p(\d*)$", n)
    if m:
        kind, sub, d = m.group(1), m.group(2), int(m.group(3) or 8)
        cw, ch = _CHROMA[sub]
        comps = "YUVA" if kind == "yuva" else "YUV"
        canon = "%s%sp%s" % (kind, sub, (m.group(3) + "le") if d > 8 else "")
        return PixFmt(canon, d, comps, cw, ch, full_range=kind == "yuvj")
    m = re.match(r"^(yuv444|gbr)p(10|12)msb$", n)
    if m:
        d = int(m.group(2))
        rgb = m.group(1) == "gbr"
        return PixFmt(n + "le", d, "RGB" if rgb else "YUV", shift=16 - d, rgb=rgb)
    m = re.match(r"^gbr(a?)p(\d*)$", n)
    if m:
        d = int(m.group(2) or 8)
        canon = "gbr%sp%s" % (m.group(1), (m.group(2) + "le") if d > 8 else "")
        return PixFmt(canon, d, "RGBA" if m.group(1) else "RGB", rgb=True)
    m = re.match(r"^nv(12|21|16|24|42)$", n)
    if m:
        cw, ch = {"12": (1, 1), "21": (1, 1), "16": (1, 0), "24": (0, 0), "42": (0, 0)}[m.group(1)]
        return PixFmt(n, 8, "YUV", cw, ch, semi=True, swap_uv=m.group(1) in ("21", "42"))
    m = re.match(r"^p([024])(10|12|16)$", n)
    if m:
        cw, ch = {"0": (1, 1), "2": (1, 0), "4": (0, 0)}[m.group(1)]
        d = int(m.group(2))
        return PixFmt(n + "le", d, "YUV", cw, ch, semi=True, shift=16 - d)
    raise ValueError("unknown pixel format " + name)


def fssim_sw_pix_fmts(src=None):
    """The software formats of the fssim filter, read from
    ff_fssim_sw_pix_fmts in filters/core/fssim_format.c (so the tests follow
    the list), as FFmpeg names (native little-endian)."""
    src = src or os.path.join(TOP_SRCDIR, "filters", "core", "fssim_format.c")
    with open(src) as f:
        text = f.read()
    m = re.search(r"ff_fssim_sw_pix_fmts\[\]\s*=\s*\{(.*?)AV_PIX_FMT_NONE", text, re.S)
    body = m.group(1)
    # a PF(suf) helper macro: its definition runs over backslash-continued lines
    macro = []
    lines, kept, in_def = body.split("\n"), [], False
    for line in lines:
        if line.lstrip().startswith("#define PF(") or in_def:
            macro += re.findall(r"AV_PIX_FMT_(\w+?)##suf", line)
            in_def = line.rstrip().endswith("\\")
            continue
        if line.lstrip().startswith("#"):
            continue
        kept.append(line)
    names = []
    for tok in re.findall(r"PF\((\w+)\)|AV_PIX_FMT_(\w+)", "\n".join(kept)):
        if tok[0]:
            names += [p + tok[0] for p in macro]
        elif tok[1] != "NONE":
            names.append(tok[1])
    return [pix_fmt(n.lower()).name for n in names]


# ---------------------------------------------------------------------------
# Natural-looking content
# ---------------------------------------------------------------------------

IMAGES = ("astronaut", "coffee", "chelsea", "camera", "rocket", "immunohistochemistry",
          "hubble_deep_field", "moon", "cat")


_SOURCES = {}


def _source_rgb(image):
    """A bundled scikit-image photograph as float RGB in [0, 1] (cached)."""
    if image in _SOURCES:
        return _SOURCES[image]
    import numpy as np
    import skimage.data
    a = getattr(skimage.data, image)()
    if a.ndim == 2:
        a = np.stack([a, a, a], axis=-1)
    _SOURCES[image] = a[..., :3].astype(np.float64) / 255.0
    return _SOURCES[image]


def _base_scale(src, w, h):
    """Source pixels per output pixel at t = 0: 80% of the largest window of
    the frame's aspect that fits in the photograph."""
    sh, sw = src.shape[:2]
    return min(sw / float(w), sh / float(h)) * 0.8


def _prefilter(src, scale):
    """The source blurred once against aliasing when it is scaled down."""
    from scipy import ndimage
    if scale <= 1.0:
        return src
    return ndimage.gaussian_filter(src, (0.45 * scale, 0.45 * scale, 0))


def _render_rgb(src, w, h, t, zoom, pan):
    """One w x h RGB frame (float64 in [0, 1]) of the (prefiltered) source
    photograph: a window of the picture, zoomed by (1 + zoom*t), moved by
    pan*t source pixels, bilinear."""
    import numpy as np
    from scipy import ndimage
    sh, sw = src.shape[:2]
    scale = _base_scale(src, w, h) / (1.0 + zoom * t)   # source px per output px
    cw, ch = w * scale, h * scale
    cx = sw / 2.0 + pan[0] * t
    cy = sh / 2.0 + pan[1] * t
    x0 = min(max(cx - cw / 2.0, 0.0), sw - cw - 1.0)
    y0 = min(max(cy - ch / 2.0, 0.0), sh - ch - 1.0)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    coords = [y0 + (yy + 0.5) * scale - 0.5, x0 + (xx + 0.5) * scale - 0.5]
    out = np.empty((h, w, 3))
    for c in range(3):
        out[..., c] = ndimage.map_coordinates(src[..., c], coords, order=1, mode="nearest")
    return out


def _subsample(p, sx, sy):
    """Average (2**sx x 2**sy) blocks; edge samples repeated for odd sizes."""
    import numpy as np
    fx, fy = 1 << sx, 1 << sy
    h, w = p.shape
    ph, pw = -(-h // fy) * fy, -(-w // fx) * fx
    q = np.pad(p, ((0, ph - h), (0, pw - w)), mode="edge")
    return q.reshape(ph // fy, fy, pw // fx, fx).mean(axis=(1, 3))


def _to_components(rgb, fmt, alpha_phase=0.0):
    """float RGB [0, 1] -> list of float planes in fssim's component order,
    in sample units (0 .. L), BT.601, limited range for yuv, full for
    yuvj/gbr."""
    import numpy as np
    L = float(fmt.maxval)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    h, w = r.shape
    planes = []
    if fmt.rgb:
        planes = [r * L, g * L, b * L]
    else:
        y = 0.299 * r + 0.587 * g + 0.114 * b
        cb = 0.5 + 0.564 * (b - y)
        cr = 0.5 + 0.713 * (r - y)
        if fmt.full_range:
            ys, cs, off, coff = L, L, 0.0, 0.0
        else:
            k = (1 << fmt.depth) / 256.0
            ys, cs, off, coff = 219.0 * k, 224.0 * k, 16.0 * k, 16.0 * k
        planes.append(off + ys * y)
        if "U" in fmt.comps:
            planes.append(_subsample(coff + cs * cb, fmt.log2_cw, fmt.log2_ch))
            planes.append(_subsample(coff + cs * cr, fmt.log2_cw, fmt.log2_ch))
    if fmt.alpha:
        yy, xx = np.mgrid[0:h, 0:w]
        a = 0.6 + 0.25 * np.sin(xx / 7.0 + alpha_phase) * np.cos(yy / 5.0) + 0.15 * g
        planes.append(a * L)
    return planes


def _quantize(planes, fmt):
    import numpy as np
    dt = np.uint8 if fmt.depth <= 8 else np.uint16
    return [np.clip(np.rint(p), 0, fmt.maxval).astype(dt) for p in planes]


def natural_frames(w, h, nb_frames, fmt, image="astronaut", seed=0, noise=1.0,
                   zoom=0.02, pan=(3.0, 1.5)):
    """Frames of natural-looking content in pixel format fmt (name or
    PixFmt): a scikit-image photograph (`image`, one of IMAGES), zoomed by
    `zoom` and moved by `pan` source pixels per frame, plus Gaussian noise
    of `noise` 8-bit levels (standard deviation, scaled to the bit depth),
    new each frame (seeded: the same arguments give the same frames).

    Returns [frame][component] numpy arrays (uint8 up to 8 bits, else
    uint16) of sample values, components in fssim's order (Y U V [A] or
    R G B [A]), each plane at its own (subsampled) size."""
    import numpy as np
    fmt = fmt if isinstance(fmt, PixFmt) else pix_fmt(fmt)
    src = _source_rgb(image)
    src = _prefilter(src, _base_scale(src, w, h))
    rng = np.random.default_rng(seed)
    frames = []
    for t in range(nb_frames):
        rgb = _render_rgb(src, w, h, t, zoom, pan)
        planes = _to_components(rgb, fmt, alpha_phase=0.3 * t)
        scale = fmt.maxval / 255.0
        planes = [p + rng.normal(0.0, noise * scale, p.shape) if noise else p for p in planes]
        frames.append(_quantize(planes, fmt))
    return frames


def degrade(frames, fmt, blur=1.0, noise=3.0, shift=0, seed=1, block=0):
    """A distorted copy of frames (as natural_frames returns): Gaussian blur
    of `blur` pixels, a horizontal shift of `shift` pixels, blocking
    (the mean of `block` x `block` tiles mixed in by half) and noise of
    `noise` 8-bit levels.  Deterministic for a given seed."""
    import numpy as np
    from scipy import ndimage
    fmt = fmt if isinstance(fmt, PixFmt) else pix_fmt(fmt)
    rng = np.random.default_rng(seed)
    scale = fmt.maxval / 255.0
    out = []
    for fr in frames:
        planes = []
        for p in fr:
            q = p.astype(np.float64)
            if blur:
                q = ndimage.gaussian_filter(q, blur, mode="nearest")
            if shift:
                q = np.roll(q, shift, axis=1)
            if block and q.shape[0] >= block and q.shape[1] >= block:
                hb, wb = q.shape[0] // block * block, q.shape[1] // block * block
                t = q[:hb, :wb].reshape(hb // block, block, wb // block, block)
                m = t.mean(axis=(1, 3), keepdims=True)
                q[:hb, :wb] = (0.5 * t + 0.5 * m).reshape(hb, wb)
            if noise:
                q = q + rng.normal(0.0, noise * scale, q.shape)
            planes.append(q)
        out.append(_quantize(planes, fmt))
    return out


def flat_frames(w, h, nb_frames, fmt, values):
    """Frames whose every component c is the constant values[c]."""
    import numpy as np
    fmt = fmt if isinstance(fmt, PixFmt) else pix_fmt(fmt)
    dt = np.uint8 if fmt.depth <= 8 else np.uint16
    return [[np.full(fmt.plane_size(c, w, h)[::-1], values[c], dt)
             for c in range(len(fmt.comps))] for _ in range(nb_frames)]


def above_depth_frames(w, h, nb_frames, fmt, seed=0):
    """Frames of a format whose samples sit at the bottom of 16-bit words
    (gray10, yuv420p10...), every word random: values up to 65535 whatever
    the depth, as a raw file may hold; fssim reads them as stored
    (doc/formats.md#sample-values)."""
    import numpy as np
    fmt = fmt if isinstance(fmt, PixFmt) else pix_fmt(fmt)
    if fmt.bytes != 2 or fmt.shift:
        raise ValueError("%s keeps no bits above its depth" % fmt.name)
    rng = np.random.default_rng(seed)
    return [[rng.integers(0, 65536, fmt.plane_size(c, w, h)[::-1]).astype(np.uint16)
             for c in range(len(fmt.comps))] for _ in range(nb_frames)]


def frame_bytes(frame, fmt):
    """One frame's planes in FFmpeg's memory layout for fmt (no padding,
    little-endian): planar planes in FFmpeg's plane order (GBR formats:
    G, B, R, then A), semi-planar chroma interleaved (NV21/NV42: V first),
    P0xx samples MSB-aligned."""
    import numpy as np
    fmt = fmt if isinstance(fmt, PixFmt) else pix_fmt(fmt)
    dt = np.dtype("<u2") if fmt.bytes == 2 else np.uint8
    conv = [(p.astype(np.uint32) << fmt.shift).astype(dt) for p in frame]
    if fmt.semi:
        u, v = (conv[2], conv[1]) if fmt.swap_uv else (conv[1], conv[2])
        uv = np.empty((u.shape[0], u.shape[1] * 2), dt)
        uv[:, 0::2] = u
        uv[:, 1::2] = v
        order = [conv[0], uv]
    elif fmt.rgb:
        order = [conv[1], conv[2], conv[0]] + conv[3:]
    else:
        order = conv
    return b"".join(np.ascontiguousarray(p).tobytes() for p in order)


def frame_size(w, h, fmt):
    """Bytes of one w x h frame of fmt in FFmpeg's packed rawvideo layout."""
    fmt = fmt if isinstance(fmt, PixFmt) else pix_fmt(fmt)
    n = 0
    for c in range(len(fmt.comps)):
        pw, ph = fmt.plane_size(c, w, h)
        n += pw * ph
    return n * fmt.bytes


def read_raw(path, w, h, fmt):
    """The inverse of write_raw(): frames[k][c] numpy planes (sample values,
    P0xx shift undone, components in fssim's order) of a rawvideo file
    (e.g. one written by `ffmpeg ... -f rawvideo -pix_fmt FMT file`)."""
    import numpy as np
    fmt = fmt if isinstance(fmt, PixFmt) else pix_fmt(fmt)
    dt = np.dtype("<u2") if fmt.bytes == 2 else np.dtype(np.uint8)
    out_dt = np.uint8 if fmt.depth <= 8 else np.uint16
    size = frame_size(w, h, fmt)
    with open(path, "rb") as f:
        data = f.read()
    frames = []
    for k in range(len(data) // size):
        buf = np.frombuffer(data, dt, size // fmt.bytes, k * size)
        pos, mem = 0, []
        sizes = [fmt.plane_size(c, w, h) for c in range(len(fmt.comps))]
        if fmt.semi:
            layout = [sizes[0], (sizes[1][0] * 2, sizes[1][1])]
        elif fmt.rgb:
            layout = [sizes[1], sizes[2], sizes[0]] + sizes[3:]
        else:
            layout = sizes
        for pw, ph in layout:
            mem.append(buf[pos:pos + pw * ph].reshape(ph, pw))
            pos += pw * ph
        if fmt.semi:
            a, b = mem[1][:, 0::2], mem[1][:, 1::2]
            u, v = (b, a) if fmt.swap_uv else (a, b)
            planes = [mem[0], u, v]
        elif fmt.rgb:
            planes = [mem[2], mem[0], mem[1]] + mem[3:]
        else:
            planes = mem
        frames.append([(p >> fmt.shift).astype(out_dt) for p in planes])
    return frames


def write_raw(path, frames, fmt):
    with open(path, "wb") as f:
        for fr in frames:
            f.write(frame_bytes(fr, fmt))


_Y4M_CS = {("420", 8): "420jpeg", ("422", 8): "422", ("444", 8): "444",
           ("420", 10): "420p10", ("422", 10): "422p10", ("444", 10): "444p10",
           ("420", 12): "420p12", ("422", 12): "422p12", ("444", 12): "444p12",
           ("420", 16): "420p16", ("422", 16): "422p16", ("444", 16): "444p16"}


def write_y4m(path, frames, fmt, rate=25):
    """YUV4MPEG2 of planar yuv 4:2:0/4:2:2/4:4:4 (8-16 bit) or gray frames."""
    fmt = fmt if isinstance(fmt, PixFmt) else pix_fmt(fmt)
    h, w = frames[0][0].shape
    if fmt.comps == "Y":
        cs = {8: "mono", 16: "mono16"}.get(fmt.depth)
    elif fmt.comps == "YUV" and not fmt.semi:
        sub = {(1, 1): "420", (1, 0): "422", (0, 0): "444"}.get((fmt.log2_cw, fmt.log2_ch))
        cs = _Y4M_CS.get((sub, fmt.depth))
    else:
        cs = None
    if not cs:
        raise ValueError("y4m cannot hold " + fmt.name)
    rng = " XCOLORRANGE=FULL" if fmt.full_range else ""
    with open(path, "wb") as f:
        f.write(("YUV4MPEG2 W%d H%d F%d:1 Ip A1:1 C%s%s\n" % (w, h, rate, cs, rng)).encode())
        for fr in frames:
            f.write(b"FRAME\n")
            f.write(frame_bytes(fr, fmt))


# Formats libx264 stores losslessly and FFmpeg's h264 decoder gives back as such.
MKV_FORMATS = ("yuv420p", "yuv422p", "yuv444p", "yuv420p10le", "yuv422p10le", "yuv444p10le")


def damage_y4m(src, dst, frame):
    """Copy the y4m file src to dst with the header of frame `frame` (from
    0) made unreadable: a demuxer error in the middle of a stream."""
    with open(src, "rb") as f:
        data = bytearray(f.read())
    pos = -1
    for _ in range(frame + 1):
        pos = data.index(b"FRAME", pos + 1)
    data[pos:pos + 5] = b"JUNK!"
    with open(dst, "wb") as f:
        f.write(data)
    return dst


RESAMPLE_CLI = os.path.join(os.environ.get("top_builddir", "."), "tests", "unit",
                            "resample_cli")


def resample_plane(plane, scaler, out_w, out_h, depth, directory=None, in_depth=None):
    """plane resampled to out_w x out_h by the reference resampler
    (doc/algorithms.md#resampling, filters/core/ref_resample.c through the built
    tests/unit/resample_cli), as int64 samples; in_depth: the plane's bit
    depth where it is not depth, the output's."""
    import numpy as np
    directory = directory or workdir("resample")
    cli = RESAMPLE_CLI
    h_in, w_in = plane.shape
    src = os.path.join(directory, "in.raw")
    dst = os.path.join(directory, "out.raw")
    plane.astype("<u2").tofile(src)
    depths = "%d:%d" % (in_depth or depth, depth)
    subprocess.run([cli, scaler, depths, str(w_in), str(h_in), str(out_w), str(out_h),
                    src, dst], check=True, stderr=subprocess.PIPE)
    return np.fromfile(dst, "<u2").reshape(out_h, out_w).astype(np.int64)


def resampled_clip(c, ref, scaler, name, directory):
    """Clip c with every plane resampled to its plane of ref's size by the
    reference resampler (resample_plane), as a ladder's filter resamples a
    rendition before it scores it."""
    frames = []
    for fr in c.frames:
        planes = []
        for k, p in enumerate(fr):
            ow, oh = c.fmt.plane_size(k, ref.w, ref.h)
            planes.append(resample_plane(p, scaler, ow, oh, c.fmt.depth,
                                         directory).astype(p.dtype))
        frames.append(planes)
    return natural_clip(ref.w, ref.h, len(frames), c.fmt, directory, name, frames=frames)


def run_ladder(rends, ref, options, tag, directory):
    """fssim with options over the renditions, then the reference, its log
    and metadata into directory: (process, log or None, metadata or None)."""
    log = os.path.join(directory, tag + ".json")
    meta = os.path.join(directory, tag + ".meta")
    for p in (log, meta):
        if os.path.exists(p):
            os.unlink(p)
    n = len(rends) + 1
    graph = "%sfssim=inputs=%d:%s:log_path=%s,metadata=print:file=%s" % (
        "".join("[%d:v]" % i for i in range(n)), n, options, log, meta)
    args = sum((c.input_args() for c in rends + [ref]), [])
    p = ffmpeg(*(args + ["-lavfi", graph, "-f", "null", "-"]), check=False)
    lg = load_log(log) if p.returncode == 0 and os.path.exists(log) else None
    md = read_metadata(meta) if os.path.exists(meta) else None
    return p, lg, md


def backtraces(pid):
    """Every thread's stack of a live process, from gdb (for the diagnostic
    of a hung run; empty where gdb is missing or cannot attach)."""
    import shutil
    if not shutil.which("gdb"):
        return ""
    try:
        r = subprocess.run(["gdb", "-p", str(pid), "-batch", "-nx",
                            "-ex", "thread apply all bt"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=60)
        return r.stdout[-6000:]
    except (OSError, subprocess.SubprocessError):
        return ""


def wait_log_frames(path, n, proc, timeout=60):
    """Wait until the JSON log at path parses with >= n frames, while proc
    runs.  True if it did."""
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        try:
            with open(path) as f:
                if len(json.load(f)["frames"]) >= n:
                    return True
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    return False


def size_change_h264(directory):
    """With ENCODER_FFMPEG's libx264: an H.264 stream of 5 frames of 64x48
    then 5 of 80x48 (FFmpeg rebuilds the graph at the change), and a stream
    of its first 5 frames alone.  Returns (changing, first)."""
    a, b = os.path.join(directory, "a.h264"), os.path.join(directory, "b.h264")
    for path, size in ((a, "64x48"), (b, "80x48")):
        run([ENCODER_FFMPEG, "-hide_banner", "-v", "error", "-y", "-f", "lavfi", "-i",
             "testsrc2=size=%s:rate=25:duration=0.2" % size, "-c:v", "libx264",
             "-pix_fmt", "yuv420p", path])
    ab = os.path.join(directory, "ab.h264")
    with open(ab, "wb") as f, open(a, "rb") as fa, open(b, "rb") as fb:
        f.write(fa.read() + fb.read())
    return ab, a


def encode_lossless_mkv(path, frames, fmt, w, h, rate=25):
    """Store frames as lossless H.264 (libx264 -qp 0, by ENCODER_FFMPEG) in
    Matroska, and check that the built ffmpeg decodes them back bit-exact.
    fmt must be one of MKV_FORMATS (raw video in Matroska does not keep
    high-depth formats, so it is not offered)."""
    fmt = fmt if isinstance(fmt, PixFmt) else pix_fmt(fmt)
    if fmt.name not in MKV_FORMATS:
        raise ValueError("mkv clips hold %s only, not %s" % (", ".join(MKV_FORMATS), fmt.name))
    if not ENCODER_FFMPEG:
        raise RuntimeError("mkv clips need ENCODER_FFMPEG with libx264")
    raw = path + ".yuv"
    write_raw(raw, frames, fmt)
    run([ENCODER_FFMPEG, "-hide_banner", "-nostdin", "-v", "error", "-y", "-f", "rawvideo",
         "-pix_fmt", fmt.name, "-video_size", "%dx%d" % (w, h), "-framerate", str(rate),
         "-i", raw, "-c:v", "libx264", "-qp", "0", "-preset", "ultrafast",
         "-pix_fmt", fmt.name, path])
    back = path + ".check.yuv"
    ffmpeg("-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", fmt.name, back)
    with open(raw, "rb") as a, open(back, "rb") as b:
        same = a.read() == b.read()
    os.unlink(raw)
    os.unlink(back)
    if not same:
        raise RuntimeError("%s does not decode back to the frames stored" % path)


class Clip:
    """A stored clip: path, size, format, rate, the frames it holds
    (frames[k][c] numpy planes) and the ffmpeg arguments that read it."""

    def __init__(self, path, w, h, fmt, frames, rate=25, container="raw"):
        self.path = path
        self.w = w
        self.h = h
        self.fmt = fmt if isinstance(fmt, PixFmt) else pix_fmt(fmt)
        self.pix_fmt = self.fmt.name
        self.frames = frames
        self.nb_frames = len(frames)
        self.rate = rate
        self.container = container

    def input_args(self):
        """ffmpeg input options plus `-i path`."""
        if self.container == "raw":
            return ["-f", "rawvideo", "-pix_fmt", self.pix_fmt, "-video_size",
                    "%dx%d" % (self.w, self.h), "-framerate", str(self.rate), "-i", self.path]
        return ["-i", self.path]


def natural_clip(w, h, nb_frames, fmt, directory=None, name=None, container="raw",
                 image="astronaut", seed=0, noise=1.0, zoom=0.02, pan=(3.0, 1.5),
                 distort=None, rate=25, frames=None):
    """Write a clip of natural_frames() content and return a Clip.

    w, h, nb_frames   size and length
    fmt               pixel format name (any of fssim's software formats)
    directory, name   where to write it (default: the work folder, a name
                      made from the arguments)
    container         "raw" (rawvideo, any format), "y4m" (planar yuv /
                      gray) or "mkv" (lossless H.264 by ENCODER_FFMPEG's
                      libx264, checked to decode back bit-exact; MKV_FORMATS)
    image, seed, noise, zoom, pan   as natural_frames()
    distort           None, or keyword arguments of degrade() to store a
                      distorted version of the same content instead
    frames            store these frames instead of rendering new ones
    """
    f = pix_fmt(fmt) if not isinstance(fmt, PixFmt) else fmt
    directory = directory or workdir("clips")
    if frames is None:
        frames = natural_frames(w, h, nb_frames, f, image=image, seed=seed, noise=noise,
                                zoom=zoom, pan=pan)
        if distort is not None:
            frames = degrade(frames, f, **distort)
    if name is None:
        name = "%s_%dx%d_%d_%s_s%d%s" % (image, w, h, nb_frames, f.name, seed,
                                         "_d" if distort is not None else "")
    ext = {"raw": "yuv", "y4m": "y4m", "mkv": "mkv"}[container]
    path = os.path.join(directory, name + "." + ext)
    if container == "y4m":
        write_y4m(path, frames, f, rate)
    elif container == "raw":
        write_raw(path, frames, f)
    else:
        encode_lossless_mkv(path, frames, f, w, h, rate)
    return Clip(path, w, h, f, frames, rate, container)


# ---------------------------------------------------------------------------
# Running fssim
# ---------------------------------------------------------------------------

def run_fssim(main, ref, options="", filter_name="fssim", directory=None, tag="run",
              extra_args=(), check=True, timeout=600, log=True, metadata=False, post=""):
    """Score clip `main` against clip `ref` with the built ffmpeg.

    options       the filter's options string ("algo=int:window=7")
    log           write a JSON log (log_path/log_fmt are added) and return it
    metadata      also print the frame metadata and return it parsed
    post          filters to append after the scoring filter ("showinfo")
    extra_args    more ffmpeg options (before the output)
    Returns a dict: "log" (parsed JSON or None), "metadata" (list, see
    parse_metadata_print, or None), "proc" (CompletedProcess).
    """
    directory = directory or workdir("runs")
    opts = [options] if options else []
    log_path = os.path.join(directory, tag + ".json")
    meta_path = os.path.join(directory, tag + ".meta")
    for p in (log_path, meta_path):
        if os.path.exists(p):
            os.unlink(p)
    if log:
        opts.append("log_path=%s:log_fmt=json" % log_path)
    graph = "[0:v][1:v]%s%s" % (filter_name, "=" + ":".join(opts) if opts else "")
    if post:
        graph += "," + post
    if metadata:
        graph += ",metadata=print:file=%s" % meta_path
    args = list(main.input_args()) + list(ref.input_args()) + \
        ["-lavfi", graph] + list(extra_args) + ["-f", "null", "-"]
    p = ffmpeg(*args, check=check, timeout=timeout)
    res = {"proc": p, "log": None, "metadata": None, "log_path": log_path}
    if log and os.path.exists(log_path) and p.returncode == 0:
        res["log"] = load_log(log_path)
    if metadata and os.path.exists(meta_path):
        res["metadata"] = read_metadata(meta_path)
    return res


def encoder_has(codec):
    """Whether ENCODER_FFMPEG has encoder `codec` (e.g. libx264)."""
    if not ENCODER_FFMPEG or not os.path.exists(ENCODER_FFMPEG):
        return False
    p = run([ENCODER_FFMPEG, "-hide_banner", "-h", "encoder=" + codec], check=False)
    return p.returncode == 0 and ("Encoder %s " % codec) in p.stdout
