"""pytorch-msssim's ms_ssim transcribed to numpy (float64), for the MS-SSIM
peer tests (tests/peers/test_msssim.py; checked against the real
pytorch-msssim by tests/peers/check_msssim_torch.py).

One plane pair (pytorch's N = C = 1), 2-D.  What pytorch-msssim does, step
by step, and how it is written here:

- window: a 1-D Gaussian g_i = exp(-(i - r)^2 / (2 sigma^2)), normalised.
  pytorch-msssim builds it in float32 (then casts it to the input's dtype);
  gauss_window() builds it in float64, which is the definition fssim uses
  (doc/algorithms.md#msssim).  Either can be passed as `win`.
- filtering: conv2d with the window along the height, then along the width,
  no padding ("valid": only positions whose whole window is inside).
- per scale: C1 = (K1 L)^2, C2 = (K2 L)^2, population moments,
  cs_map = (2 cov + C2) / (var_x + var_y + C2),
  ssim_map = ((2 mu_x mu_y + C1) / (mu_x^2 + mu_y^2 + C1)) * cs_map,
  each map's plane mean.
- between scales: avg_pool2d(kernel_size=2, stride=2, padding=size % 2 per
  dimension, count_include_pad=True, ceil_mode=False).
- MS-SSIM = prod_{j<4} relu(cs_j)^w_j * relu(ssim_5)^w_5.
- the smaller side must exceed (win_size - 1) * 2^4.
"""
import math

import numpy as np

WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def gauss_window(size, sigma):
    """The normalised 1-D Gaussian in float64."""
    g = np.array([math.exp(-((i - size // 2) ** 2) / (2.0 * sigma * sigma))
                  for i in range(size)], dtype=np.float64)
    return g / g.sum()


def min_side(win_size):
    """The smallest side ms_ssim accepts: its assertion is side > (win-1)*16."""
    return (win_size - 1) * 16 + 1


def _conv_valid(x, win, axis):
    """Cross-correlation of x with win along axis, valid positions only:
    out[k] = sum_i win[i] x[k + i]."""
    n = x.shape[axis] - len(win) + 1
    out = None
    for i, wi in enumerate(win):
        sl = [slice(None)] * x.ndim
        sl[axis] = slice(i, i + n)
        term = wi * x[tuple(sl)]
        out = term if out is None else out + term
    return out


def gaussian_filter(x, win):
    """pytorch-msssim's gaussian_filter on a 2-D plane: height, then width."""
    return _conv_valid(_conv_valid(x, win, 0), win, 1)


def ssim_maps(x, y, data_range, win, K=(0.01, 0.03)):
    """(ssim_map, cs_map) of one scale."""
    C1 = (K[0] * data_range) ** 2
    C2 = (K[1] * data_range) ** 2
    mu1 = gaussian_filter(x, win)
    mu2 = gaussian_filter(y, win)
    mu1_sq = mu1 * mu1
    mu2_sq = mu2 * mu2
    mu1_mu2 = mu1 * mu2
    sigma1_sq = gaussian_filter(x * x, win) - mu1_sq
    sigma2_sq = gaussian_filter(y * y, win) - mu2_sq
    sigma12 = gaussian_filter(x * y, win) - mu1_mu2
    cs_map = (2 * sigma12 + C2) / (sigma1_sq + sigma2_sq + C2)
    ssim_map = ((2 * mu1_mu2 + C1) / (mu1_sq + mu2_sq + C1)) * cs_map
    return ssim_map, cs_map


def avg_pool(x):
    """avg_pool2d(kernel_size=2, stride=2, padding=(h % 2, w % 2)) with the
    padded zeros counted: pad p zeros on both sides of each dimension, then
    floor((n + 2p - 2) / 2) + 1 cells of 2 x 2, each divided by 4."""
    ph, pw = x.shape[0] % 2, x.shape[1] % 2
    xp = np.pad(x, ((ph, ph), (pw, pw)))
    oh = (x.shape[0] + 2 * ph - 2) // 2 + 1
    ow = (x.shape[1] + 2 * pw - 2) // 2 + 1
    xp = xp[:2 * oh, :2 * ow]
    return (xp[0::2, 0::2] + xp[0::2, 1::2] + xp[1::2, 0::2] + xp[1::2, 1::2]) / 4.0


def ms_ssim_scales(x, y, data_range, win_size=11, win_sigma=1.5, win=None,
                   weights=WEIGHTS, K=(0.01, 0.03)):
    """Per-scale means ([ssim_j], [cs_j]) and the MS-SSIM of planes x, y
    (any numeric arrays; computed in float64).  win: the 1-D window (default:
    the float64 Gaussian of win_size, win_sigma).  Raises ValueError where
    pytorch-msssim's assertion fails."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 2:
        raise ValueError("two 2-D planes of one size are needed")
    if win is None:
        win = gauss_window(win_size, win_sigma)
    win = np.asarray(win, dtype=np.float64)
    if len(win) % 2 != 1:
        raise ValueError("Window size should be odd.")
    if min(x.shape) <= (len(win) - 1) * 2 ** 4:
        raise ValueError("Image size should be larger than %d" % ((len(win) - 1) * 2 ** 4))
    s, cs = [], []
    for j in range(len(weights)):
        smap, csmap = ssim_maps(x, y, data_range, win, K)
        s.append(float(smap.mean()))
        cs.append(float(csmap.mean()))
        if j < len(weights) - 1:
            x = avg_pool(x)
            y = avg_pool(y)
    vals = [max(c, 0.0) for c in cs[:-1]] + [max(s[-1], 0.0)]
    v = 1.0
    for val, wt in zip(vals, weights):
        v *= val ** wt
    return s, cs, v


def ms_ssim(x, y, data_range, **kw):
    """MS-SSIM of one plane pair (pytorch-msssim's ms_ssim on float64)."""
    return ms_ssim_scales(x, y, data_range, **kw)[2]
