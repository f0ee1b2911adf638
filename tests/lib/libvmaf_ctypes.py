"""libvmaf's own float_ssim and float_ms_ssim of plane pairs, through its C
API (ctypes), for the peer tests that run where a libvmaf built from its
source is given (FSSIM_LIBVMAF=/path/to/libvmaf.so; fssim builds no libvmaf).

Each plane is handed to libvmaf as a gray (YUV400P) picture of its own size
and bit depth, so a chroma plane is scored as libvmaf scores a luma plane
of that size: the per-plane definition of doc/algorithms.md#vmaf_ssim.
The scores come back as the doubles libvmaf's feature collector holds
(its vmaf tool prints them with six decimals).
"""
import ctypes
import os

import numpy as np

VMAF_PIX_FMT_YUV400P = 4
VMAF_LOG_LEVEL_NONE = 0


class VmafConfiguration(ctypes.Structure):
    _fields_ = [("log_level", ctypes.c_int), ("n_threads", ctypes.c_uint),
                ("n_subsample", ctypes.c_uint), ("cpumask", ctypes.c_uint64),
                ("gpumask", ctypes.c_uint64)]


class VmafPicture(ctypes.Structure):
    _fields_ = [("pix_fmt", ctypes.c_int), ("bpc", ctypes.c_uint),
                ("w", ctypes.c_uint * 3), ("h", ctypes.c_uint * 3),
                ("stride", ctypes.c_ssize_t * 3), ("data", ctypes.c_void_p * 3),
                ("ref", ctypes.c_void_p), ("priv", ctypes.c_void_p)]


def library():
    """The libvmaf of FSSIM_LIBVMAF, or None."""
    path = os.environ.get("FSSIM_LIBVMAF")
    if not path or not os.path.exists(path):
        return None
    lib = ctypes.CDLL(path)
    lib.vmaf_version.restype = ctypes.c_char_p
    lib.vmaf_init.argtypes = [ctypes.POINTER(ctypes.c_void_p), VmafConfiguration]
    lib.vmaf_use_feature.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    lib.vmaf_picture_alloc.argtypes = [ctypes.POINTER(VmafPicture), ctypes.c_int,
                                       ctypes.c_uint, ctypes.c_uint, ctypes.c_uint]
    lib.vmaf_read_pictures.argtypes = [ctypes.c_void_p, ctypes.POINTER(VmafPicture),
                                       ctypes.POINTER(VmafPicture), ctypes.c_uint]
    lib.vmaf_feature_score_at_index.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                                ctypes.POINTER(ctypes.c_double), ctypes.c_uint]
    lib.vmaf_close.argtypes = [ctypes.c_void_p]
    return lib


def version(lib):
    return lib.vmaf_version().decode()


def _picture(lib, plane, depth):
    p = VmafPicture()
    h, w = plane.shape
    if lib.vmaf_picture_alloc(ctypes.byref(p), VMAF_PIX_FMT_YUV400P, depth, w, h):
        raise RuntimeError("vmaf_picture_alloc failed")
    dtype = np.uint8 if depth == 8 else np.uint16
    row = np.dtype(dtype).itemsize * w
    for y in range(h):
        ctypes.memmove(p.data[0] + y * p.stride[0],
                       np.ascontiguousarray(plane[y], dtype=dtype).ctypes.data, row)
    return p


def scores(lib, pairs, depth, features=("float_ssim", "float_ms_ssim")):
    """{feature: [score per pair]} of (reference, distorted) plane pairs of
    one size, scored as consecutive frames."""
    ctx = ctypes.c_void_p()
    if lib.vmaf_init(ctypes.byref(ctx), VmafConfiguration(VMAF_LOG_LEVEL_NONE, 0, 0, 0, 0)):
        raise RuntimeError("vmaf_init failed")
    try:
        for f in features:
            if lib.vmaf_use_feature(ctx, f.encode(), None):
                raise RuntimeError("libvmaf has no feature %s" % f)
        for i, (ref, dist) in enumerate(pairs):
            pr, pd = _picture(lib, np.asarray(ref), depth), _picture(lib, np.asarray(dist), depth)
            if lib.vmaf_read_pictures(ctx, ctypes.byref(pr), ctypes.byref(pd), i):
                raise RuntimeError("vmaf_read_pictures failed at frame %d" % i)
        if lib.vmaf_read_pictures(ctx, None, None, 0):
            raise RuntimeError("vmaf_read_pictures (flush) failed")
        out = {}
        for f in features:
            vals = []
            for i in range(len(pairs)):
                v = ctypes.c_double()
                if lib.vmaf_feature_score_at_index(ctx, f.encode(), ctypes.byref(v), i):
                    raise RuntimeError("no %s score for frame %d" % (f, i))
                vals.append(v.value)
            out[f] = vals
        return out
    finally:
        lib.vmaf_close(ctx)
