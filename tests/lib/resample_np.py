"""The resampler of doc/algorithms.md#resampling written again in Python
and numpy, from the definition alone (no code shared with filters/core/): per
axis, the taps and weights of every output in Python floats (the same IEEE
double operations the definition spells out, math.sin for the sinc), then a
sparse integer matrix with the taps that fall outside the plane folded onto
the edge sample; the plane is

    out = clip(floor((My @ (X @ Mx^T) + 2^(n-1)) / 2^n), 0, L)

in int64, n = 28 - (D_out - D_in) bringing the input's bit depth to the
output's.  tests/peers/test_resample.py checks the C reference against it
sample for sample; the pair and ladder tests use it as their independent
evaluation of a resampled input (resample_frame: every component to the
reference's planes and depth).
"""
import math

SCALERS = ("bicubic", "bilinear", "lanczos")
RADIUS = {"bicubic": 2, "bilinear": 1, "lanczos": 3}
A = -0.6
ONE = 16384


def kernel(scaler, x):
    t = abs(x)
    if scaler == "bilinear":
        return 1.0 - t if t < 1.0 else 0.0
    if scaler == "bicubic":
        if t <= 1.0:
            return ((A + 2) * t - (A + 3)) * t * t + 1
        if t < 2.0:
            return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A
        return 0.0
    if t >= 3.0:
        return 0.0

    def sinc(y):
        return 1.0 if y == 0 else math.sin(math.pi * y) / (math.pi * y)
    return sinc(x) * sinc(x / 3)


def round_half_away(v):
    r = math.floor(v)
    if v - r >= 0.5:
        r += 1
    return int(r)


def output_weights(scaler, n_in, n_out, x):
    """[(source index, quantised weight)] of output x, unclamped."""
    u = ((x + 0.5) * n_in) / n_out - 0.5
    f = max(1.0, n_in / n_out)
    reach = RADIUS[scaler] * f
    taps = [i for i in range(math.floor(u - reach) - 2, math.ceil(u + reach) + 3)
            if abs(i - u) < reach]
    w = [kernel(scaler, (i - u) / f) for i in taps]
    total = 0.0
    for v in w:               # ascending i, as the definition sums
        total += v
    w = [v / total for v in w]
    q = [round_half_away(v * ONE) for v in w]
    best = max(range(len(w)), key=lambda k: (w[k], -k))   # first of equal largest
    q[best] += ONE - sum(q)
    return list(zip(taps, q))


_MATRICES = {}


def matrix(scaler, n_in, n_out):
    """n_out x n_in sparse int64 matrix of the axis; taps outside [0, n_in)
    are added onto the edge sample they read."""
    import numpy as np
    import scipy.sparse as sp
    key = (scaler, n_in, n_out)
    if key not in _MATRICES:
        rows, cols, vals = [], [], []
        for x in range(n_out):
            for i, q in output_weights(scaler, n_in, n_out, x):
                rows.append(x)
                cols.append(min(max(i, 0), n_in - 1))
                vals.append(q)
        _MATRICES[key] = sp.csr_matrix((np.array(vals, np.int64), (rows, cols)),
                                       shape=(n_out, n_in), dtype=np.int64)
    return _MATRICES[key]


def resample_numpy(plane, scaler, out_w, out_h, depth, in_depth=None):
    """The definition; in_depth (default depth): the plane's bit depth,
    brought to depth by the final rounding."""
    import numpy as np
    h_in, w_in = plane.shape
    mx = matrix(scaler, w_in, out_w)
    my = matrix(scaler, h_in, out_h)
    hsum = (mx @ plane.astype(np.int64).T).T        # h_in x out_w
    v = my @ hsum                                    # out_h x out_w
    n = 28 - (depth - (in_depth or depth))
    return np.clip((v + (1 << (n - 1))) // (1 << n), 0, (1 << depth) - 1)


def resample_frame(frame, fmt_in, fmt_out, w, h, scaler="bicubic"):
    """One frame (a list of component planes of fmt_in, sample values)
    brought to fmt_out's planes at w x h and its bit depth, component by
    component: the planes an input of fmt_in is scored from against a
    reference of fmt_out (doc/formats.md)."""
    import numpy as np
    out = []
    for c, plane in enumerate(frame):
        ow, oh = fmt_out.plane_size(c, w, h)
        v = resample_numpy(plane, scaler, ow, oh, fmt_out.depth, in_depth=fmt_in.depth)
        out.append(v.astype(np.uint8 if fmt_out.depth <= 8 else np.uint16))
    return out
