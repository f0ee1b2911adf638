"""libvmaf's float_ssim and float_ms_ssim transcribed to numpy, operation for
operation, for the vmaf_ssim / vmaf_msssim peer and end-to-end tests
(tests/peers/test_vmaf.py, tests/e2e/test_vmaf.py).

Written from libvmaf's definition (libvmaf/src/feature/float_ssim.c,
float_ms_ssim.c, ssim.c, ms_ssim.c, picture_copy.c and iqa/), as
doc/algorithms.md#vmaf_ssim states it, not from fssim's C code.  libvmaf
computes in single precision with double accumulators; numpy's float32
operations round as C's float operations do (IEEE, round to nearest, no
fused multiply-add) and its float64 ones as C's double ones, so each array
expression below is written in the type and order of libvmaf's expression:

- samples: float(v) for 8 bits, float(v) / 2^(depth - 8) above (libvmaf's
  picture_copy divides 10-, 12- and 16-bit samples by 4, 16 and 256);
- a convolution output: float(sum over taps, in tap order, of
  double(float(x * k))), the sum starting from 0.0 in double;
- float_ssim's decimation: each output sample is the box average of
  scale x scale samples around (x * scale, y * scale), taps u, v from
  -scale/2 to scale/2 - (1 if scale is even), rows outer, mirrored at the
  borders (-1 - x, 2 w - 1 - x), the same float products and double sum;
  out size w/scale + (w & 1), scale = max(1, round(min(w, h) / 256));
- float_ms_ssim's scales: the 9x9 low-pass table at every second sample,
  out size ceil(w / 2), mirrored borders;
- per scored position, l, c and s in the types of libvmaf's expressions
  (see ssim_terms), their plane sums in row-major order (np.cumsum adds
  left to right, as libvmaf's running double does), their means rounded to
  float.
"""
import math

import numpy as np

F32 = np.float32
F64 = np.float64

# libvmaf's 11-tap Gaussian (sigma 1.5), its values to six decimals, as floats
GAUSS = np.array([0.001028, 0.007599, 0.036001, 0.109361, 0.213006, 0.266012, 0.213006,
                  0.109361, 0.036001, 0.007599, 0.001028], dtype=F32)
# the 9x9 low-pass table of float_ms_ssim's scales (the 9/7 biorthogonal
# wavelet's low-pass filter, both ways, to six decimals): its upper-left
# quadrant; the table is symmetric about its middle row and column
LPF_QUADRANT = ((0.000714, -0.000450, -0.002090, 0.007132, 0.016114),
                (-0.000450, 0.000283, 0.001316, -0.004490, -0.010146),
                (-0.002090, 0.001316, 0.006115, -0.020867, -0.047149),
                (0.007132, -0.004490, -0.020867, 0.071207, 0.160885),
                (0.016114, -0.010146, -0.047149, 0.160885, 0.363505))
# the exponents of the scales, finest first (floats in libvmaf)
ALPHAS = (0.0, 0.0, 0.0, 0.0, 0.1333)
BETAS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)
GAMMAS = BETAS
SCALES = 5
WINDOW = 11


def lpf_table():
    """The 9x9 low-pass table, as floats."""
    t = np.empty((9, 9), dtype=F32)
    for i in range(9):
        for j in range(9):
            t[i, j] = F32(LPF_QUADRANT[min(i, 8 - i)][min(j, 8 - j)])
    return t


def constants():
    """C1, C2, C3 as libvmaf computes them: in float, L = 255."""
    k1, k2 = F32(0.01), F32(0.03)
    c1 = (k1 * F32(255)) * (k1 * F32(255))
    c2 = (k2 * F32(255)) * (k2 * F32(255))
    return c1, c2, c2 / F32(2.0)


def to_float(plane, depth):
    """picture_copy: the samples as floats, 8-bit scale."""
    p = np.asarray(plane).astype(F32)
    if depth > 8:
        p = p / F32(1 << (depth - 8))
    return p


def auto_scale(w, h):
    """float_ssim's decimation factor: max(1, round(min(w, h) / 256)),
    halves rounded up."""
    a = F32(min(w, h)) / F32(256.0)
    i = int(a)
    return max(1, i + 1 if a - F32(i) >= 0.5 else i)


def decimated_size(n, f):
    """_iqa_decimate's output size along an axis of n samples."""
    return n // f + (n & 1)


def _mirror(i, n):
    i = np.where(i < 0, -1 - i, i)
    return np.where(i >= n, 2 * n - 1 - i, i)


def _decimate(img, f, taps2d, lo):
    """Every f-th sample of the 2-D filter taps2d (rows outer), whose first
    tap lies lo samples before the centre, mirrored at the borders."""
    h, w = img.shape
    sh, sw = decimated_size(h, f), decimated_size(w, f)
    ys, xs = np.arange(sh) * f, np.arange(sw) * f
    acc = np.zeros((sh, sw), dtype=F64)
    for v in range(taps2d.shape[0]):
        rows = _mirror(ys + v - lo, h)
        for u in range(taps2d.shape[1]):
            cols = _mirror(xs + u - lo, w)
            acc += (img[np.ix_(rows, cols)] * taps2d[v, u]).astype(F64)
    return acc.astype(F32)


def box_decimate(img, f):
    """float_ssim's decimation by f (f > 1)."""
    k = F32(1.0) / F32(f * f)
    return _decimate(img, f, np.full((f, f), k, dtype=F32), f // 2)


def lpf_decimate(img):
    """The next scale of float_ms_ssim."""
    return _decimate(img, 2, lpf_table(), 4)


def conv_valid(img, k=GAUSS):
    """_iqa_convolve, separable: rows, then columns, valid positions only."""
    h, w = img.shape
    n = len(k)
    dw, dh = w - n + 1, h - n + 1
    acc = np.zeros((h, dw), dtype=F64)
    for u in range(n):
        acc += (img[:, u:u + dw] * k[u]).astype(F64)
    hor = acc.astype(F32)
    acc = np.zeros((dh, dw), dtype=F64)
    for v in range(n):
        acc += (hor[v:v + dh, :] * k[v]).astype(F64)
    return acc.astype(F32)


def ssim_terms(ref, cmp):
    """_iqa_ssim's default path: the l, c and s maps (doubles) of two float
    planes, over the valid positions of the 11x11 Gaussian."""
    c1, c2, c3 = constants()
    mu1, mu2 = conv_valid(ref), conv_valid(cmp)
    s11 = conv_valid(ref * ref)
    s22 = conv_valid(cmp * cmp)
    s12 = conv_valid(ref * cmp)
    s11 = s11 - mu1 * mu1
    s22 = s22 - mu2 * mu2
    s11 = np.where(F32(0.0) > s11, F32(0.0), s11)
    s22 = np.where(F32(0.0) > s22, F32(0.0), s22)
    s12 = s12 - mu1 * mu2
    srsc = np.sqrt((s11 * s22).astype(F64)).astype(F32)
    l = (2.0 * mu1.astype(F64) * mu2.astype(F64) + F64(c1)) / \
        (mu1 * mu1 + mu2 * mu2 + c1).astype(F64)
    c = (2.0 * srsc.astype(F64) + F64(c2)) / (s11 + s22 + c2).astype(F64)
    clamped = np.where((s12 < F32(0.0)) & (srsc <= F32(0.0)), F32(0.0), s12)
    s = ((clamped + c3) / (srsc + c3)).astype(F64)
    return l, c, s


def running_sum(a):
    """libvmaf's `sum += v` over the positions in row-major order."""
    flat = np.ascontiguousarray(a, dtype=F64).ravel()
    return float(np.cumsum(flat)[-1]) if flat.size else 0.0


def float_ssim(ref, dist, depth, scale=None):
    """float_ssim of two planes (samples): (double)(float)(sum l c s / n)."""
    r, d = to_float(ref, depth), to_float(dist, depth)
    f = auto_scale(r.shape[1], r.shape[0]) if scale is None else scale
    if f > 1:
        r, d = box_decimate(r, f), box_decimate(d, f)
    l, c, s = ssim_terms(r, d)
    lcs = l * c * s
    return float(F32(running_sum(lcs) / F64(lcs.size)))


def min_side_msssim():
    """float_ms_ssim refuses a side that falls below 11 when halved
    (rounding down) four times: 176."""
    return WINDOW << (SCALES - 1)


def float_ms_ssim_scales(ref, dist, depth):
    """The means l_j, c_j, s_j (floats) of the five scales, finest first."""
    r, d = to_float(ref, depth), to_float(dist, depth)
    out = []
    for j in range(SCALES):
        if j:
            r, d = lpf_decimate(r), lpf_decimate(d)
        l, c, s = ssim_terms(r, d)
        n = F64(l.size)
        out.append(tuple(float(F32(running_sum(m) / n)) for m in (l, c, s)))
    return out


def _pow(x, y):
    try:
        return math.pow(x, y)
    except ValueError:          # a negative mean to a fractional power: C gives NaN
        return math.nan


def float_ms_ssim(ref, dist, depth):
    """float_ms_ssim of two planes: the product over the scales of
    l^alpha c^beta s^gamma, in double, the exponents as floats."""
    h, w = np.asarray(ref).shape
    if min(w, h) < min_side_msssim():
        raise ValueError("float_ms_ssim needs planes of at least %d samples a side"
                         % min_side_msssim())
    v = 1.0
    for j, (l, c, s) in enumerate(float_ms_ssim_scales(ref, dist, depth)):
        a, b, g = (float(F32(x)) for x in (ALPHAS[j], BETAS[j], GAMMAS[j]))
        v *= _pow(l, a) * _pow(c, b) * _pow(s, g)
    return v
