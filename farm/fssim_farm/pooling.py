"""The filters' pooling, in Python, operation for operation.

A merged log must carry the very doubles a whole run would have written, so
every pooled value is recomputed here from the per-frame values with the
arithmetic of the filters' pooling code (the C functions named below), in
the same order: Python floats are IEEE doubles and its operators round as
C's do, so the same operations in the same order give the same bits.

The per-frame values are read back from the logs, which print them with
%.17g: they round-trip to the exact doubles the filter pooled.
"""
import math
from functools import reduce
from itertools import repeat
from operator import add, truediv

# the percentiles of the logs, by name (pct_rank/pct_name in C)
PERCENTILES = (("p1", 1.0), ("p5", 5.0), ("p50", 50.0))


def psnr_cap(depth):
    """ff_fssim_psnr_cap: libvmaf's cap of a frame's PSNR before pooling."""
    return 6.0 * depth + 12.0


def psnr_from_mse(mse, depth):
    """fssim_ref_psnr_from_mse: 10 log10(L^2 / mse), +inf for mse 0."""
    L = float((1 << depth) - 1)
    num = L * L
    if mse == 0.0:
        q = math.inf      # C divides by zero: +inf (L > 0)
    elif math.isnan(mse):
        return math.nan
    else:
        q = num / mse
    if q == math.inf:
        return math.inf
    if q < 0.0 or math.isnan(q):
        return math.nan
    if q == 0.0:
        return -math.inf
    return 10.0 * math.log10(q)


def db(ssim):
    """ff_fssim_db: -10 log10(1 - ssim), +inf from 1 up (and for NaN, as in C)."""
    if ssim < 1.0:
        return -10.0 * math.log10(1.0 - ssim)
    return math.inf


def _inv(v):
    """1.0 / (1.0 + v) with C's division by zero (v = -1: +inf)."""
    d = 1.0 + v
    if d == 0.0:
        return math.copysign(math.inf, d)
    return 1.0 / d


def _fmin(a, b):
    """FFMIN(a, b): ((a) > (b) ? (b) : (a)), NaN and signed zeros included."""
    return b if a > b else a


def _fmax(a, b):
    """FFMAX(a, b): ((a) > (b) ? (a) : (b))."""
    return a if a > b else b


def nearest_rank(p, n):
    """pct_add's rank: ceil(p n / 100 - 1e-9), n converted to double first."""
    return int(math.ceil(p * float(n) / 100.0 - 1e-9))


class _TwoHeaps:
    """pct_add/heap_push/heap_pop of the C code, line for line.

    Used only where the sorted list could pick another double than the
    filter's heaps (NaN, or both signed zeros among the values): there the
    heaps' exact history decides which of the equal-comparing values comes
    out on top."""

    def __init__(self):
        self.lo, self.hi = [], []

    @staticmethod
    def _push(h, v):
        h.append(v)
        i = len(h) - 1
        while i and h[(i - 1) // 2] < v:
            h[i] = h[(i - 1) // 2]
            i = (i - 1) // 2
        h[i] = v

    @staticmethod
    def _pop(h):
        top = h[0]
        v = h.pop()
        n = len(h)
        i = 0
        while True:
            c = 2 * i + 1
            if c >= n:
                break
            if c + 1 < n and h[c + 1] > h[c]:
                c += 1
            if h[c] <= v:
                break
            h[i] = h[c]
            i = c
        if n:
            h[i] = v
        return top

    def add(self, p, n, v):
        k = nearest_rank(p, n)
        if self.lo and v < self.lo[0]:
            self._push(self.lo, v)
        else:
            self._push(self.hi, -v)
        while len(self.lo) > k:
            self._push(self.hi, -self._pop(self.lo))
        while len(self.lo) < k:
            self._push(self.lo, -self._pop(self.hi))

    def value(self):
        return self.lo[0] if self.lo else math.nan


def _needs_heaps(values):
    has_pos_zero = has_neg_zero = False
    for v in values:
        if v != v:
            return True
        if v == 0.0:
            if math.copysign(1.0, v) < 0:
                has_neg_zero = True
            else:
                has_pos_zero = True
    return has_pos_zero and has_neg_zero


def percentiles(values):
    """{"p1": .., "p5": .., "p50": ..} of values (in frame order) as the
    filter's heaps give them: the nearest-rank value of the sorted series."""
    n = len(values)
    if not n:
        return {name: math.nan for name, _ in PERCENTILES}
    if _needs_heaps(values):
        out = {}
        for name, p in PERCENTILES:
            t = _TwoHeaps()
            for i, v in enumerate(values):
                t.add(p, i + 1, v)
            out[name] = t.value()
        return out
    s = sorted(values)
    return {name: s[nearest_rank(p, n) - 1] for name, p in PERCENTILES}


def _fast_ok(values):
    """Whether the C-speed path gives the filter's doubles: no NaN (FFMAX
    takes the later of two values that compare equal, max() the earlier,
    and the percentiles order by '<'), and not both signed zeros."""
    if any(map(math.isnan, values)):
        return False
    if 0.0 in values:
        return not _needs_heaps(values)
    return True


def _sums(values):
    """(sum, inv_sum) of values in order from 0.0, as the C loop adds them;
    None where 1.0 + v is 0 (C divides by zero there, Python raises)."""
    try:
        inv = reduce(add, map(truediv, repeat(1.0), map(add, repeat(1.0), values)), 0.0)
    except ZeroDivisionError:
        return None
    return reduce(add, values, 0.0), inv


def pool_values(values, mse=None, depth=None, presorted=None):
    """The pooled values of one series (frame order), as Pool.pooled():
    mean, min, max, harmonic_mean, p1, p5, p50 [, psnr_of_mean_mse].
    psnr (depth given): values already capped (cap_psnr), mse their MSE.
    presorted: the values sorted, if the caller has them (a merge sorts
    each segment's values once; the concatenation of sorted runs sorts in
    linear time)."""
    n = len(values)
    if not n or not _fast_ok(values):
        p = Pool(depth)
        p.values = list(values)
        p.mse = list(mse) if mse is not None else None
        return p.pooled_slow()
    sums = _sums(values)
    if sums is None:
        p = Pool(depth)
        p.values = list(values)
        p.mse = list(mse) if mse is not None else None
        return p.pooled_slow()
    s, inv = sums
    fn = float(n)
    out = {"mean": s / fn, "min": min(values), "max": max(values),
           "harmonic_mean": (fn / inv if inv else math.copysign(math.inf, fn)) - 1.0}
    srt = presorted if presorted is not None else sorted(values)
    for name, pc in PERCENTILES:
        out[name] = srt[nearest_rank(pc, n) - 1]
    if depth is not None:
        out["psnr_of_mean_mse"] = psnr_from_mse(reduce(add, mse, 0.0) / fn, depth)
    return out


def cap_psnr(values, depth):
    """Each frame's PSNR capped before pooling: FFMIN(v, 6 * depth + 12)
    (min(v, cap) is the same expression, NaN included)."""
    return list(map(min, values, repeat(psnr_cap(depth))))


class Pool:
    """One FSSIMPool: the values of one rendition, algorithm and component
    (or All) in frame order, and for psnr the MSE of each frame."""

    def __init__(self, psnr_depth=None):
        self.values = []
        self.mse = [] if psnr_depth is not None else None
        self.depth = psnr_depth

    def add(self, v, mse=None):
        """pool_add(p, n, pooled_value(v)); psnr: capped, and its MSE summed."""
        if self.depth is not None:
            v = _fmin(v, psnr_cap(self.depth))
            self.mse.append(mse)
        self.values.append(v)

    def pooled(self):
        """The pooled values in the order the logs print them (dict: mean,
        min, max, harmonic_mean, p1, p5, p50[, psnr_of_mean_mse])."""
        return pool_values(self.values, self.mse, self.depth)

    def pooled_slow(self):
        """pooled(), one value at a time as the C loop goes: for the series
        the C-speed path cannot take (NaN, both signed zeros, 1 + v = 0)."""
        vals = self.values
        n = len(vals)
        if not n:
            out = dict(mean=math.nan, min=math.nan, max=math.nan, harmonic_mean=math.nan)
            out.update(percentiles(vals))
            if self.depth is not None:
                out["psnr_of_mean_mse"] = math.nan
            return out
        s = inv = 0.0
        mn = mx = vals[0]
        for v in vals:
            s += v
            inv += _inv(v)
            mn = _fmin(mn, v)
            mx = _fmax(mx, v)
        fn = float(n)
        out = {"mean": s / fn, "min": mn, "max": mx,
               "harmonic_mean": (fn / inv if inv else math.copysign(math.inf, fn)) - 1.0}
        out.update(percentiles(vals))
        if self.depth is not None:
            mse_sum = 0.0
            for m in self.mse:
                mse_sum += m
            out["psnr_of_mean_mse"] = psnr_from_mse(mse_sum / fn, self.depth)
        return out
