"""Shared by the tests that run the built ffmpeg's CUDA path without a GPU,
through the stand-in driver of tests/cuda/fake_libcuda.cpp (a libcuda.so.1
that runs fssim_cuda's and fssim3d's kernels through the CPU emulator and
injects GPU faults on request): where the driver is, how to run ffmpeg on
it, and how to read what a run left (JSON log, stats file, summary lines).

Environment: FSSIM_CUDA (configure's CUDA setting: empty or "no" skips
everything), FSSIM_FAKE_CUDA (the folder of the stand-in libcuda.so.1;
default top_builddir/tests/cuda/fake), FFMPEG_TREE (where the PTX files the
driver identifies modules by are), FFMPEG, PYTHONPATH=tests/lib.
"""
import json
import os
import re

import fssimtest as ft

CRASH = re.compile(r"Assertion|Segmentation|core dumped|AddressSanitizer|double free|"
                   r"stack smashing|Aborted|free\(\)|corrupted", re.I)
# one filter device: two hwupload_cuda would make two CUDA contexts
HW = ["-init_hw_device", "cuda=cu", "-filter_hw_device", "cu"]
# what ffmpeg exits with when a filter fails with AVERROR_EXTERNAL (the
# status is the error code's low byte)
EXIT_EXTERNAL = (-(ord("E") | ord("X") << 8 | ord("T") << 16 | ord(" ") << 24)) & 0xff


def setup():
    """Point the dynamic loader at the stand-in driver.  Returns None if
    ffmpeg's CUDA path runs on it, else why the checks are skipped."""
    if os.environ.get("FSSIM_CUDA", "") in ("", "no"):
        return "FFmpeg built without CUDA (configure --with-cuda=llvm|nvcc)"
    fake = os.environ.get("FSSIM_FAKE_CUDA") or os.path.join(
        os.environ.get("top_builddir", "."), "tests", "cuda", "fake")
    if not os.path.exists(os.path.join(fake, "libcuda.so.1")):
        return "the emulated driver %s/libcuda.so.1 is not built (make check builds it)" % fake
    for name in ("fssim_cuda", "fssim3d"):
        if not ft.has_filter(name):
            return "%s not built" % name
    old = os.environ.get("LD_LIBRARY_PATH")
    os.environ["LD_LIBRARY_PATH"] = fake + (":" + old if old else "")
    if os.environ.get("FFMPEG_TREE"):
        os.environ.setdefault("FSSIM_FAKE_CUDA_PTX", os.path.join(
            os.environ["FFMPEG_TREE"], "libavfilter", "fssim", "cuda"))
    p = ft.ffmpeg(*HW, "-f", "lavfi", "-i", "color=s=64x64:d=0.04,format=nv12",
                  "-vf", "hwupload", "-f", "null", "-", check=False)
    if p.returncode != 0:
        return "ffmpeg does not run on the emulated driver: " + p.stderr[-300:].strip()
    return None


def env(**extra):
    """The environment of one run: os.environ plus the stand-in driver's
    settings (FSSIM_FAKE_CUDA_FAULT=..., FSSIM_FAKE_CUDA_LAZY=1, ...)."""
    e = dict(os.environ)
    for k in ("FSSIM_FAKE_CUDA_FAULT", "FSSIM_FAKE_CUDA_LAZY", "FSSIM_FAKE_CUDA_COUNTS",
              "FSSIM_FAKE_CUDA_NO_SASS", "FSSIM_FAKE_CUDA_SMEM_OPTIN",
              "FAKE_CUDA_VERBOSE"):
        e.pop(k, None)
    e.update({k: str(v) for k, v in extra.items()})
    return e


def fake_counts(path):
    """The driver calls a run made ({"launch": n, "sync": n, "memcpy": n}),
    as the stand-in driver writes them to FSSIM_FAKE_CUDA_COUNTS."""
    with open(path) as f:
        return {k: int(v) for k, v in (line.split() for line in f if line.strip())}


def remove(*paths):
    for p in paths:
        if os.path.exists(p):
            os.unlink(p)


def read_log(path):
    """(parsed JSON log, None) or (None, why not)."""
    try:
        with open(path) as f:
            return json.load(f), None
    except (OSError, ValueError) as e:
        return None, "%s: %s" % (path, e)


def summary_frames(stderr):
    """The frames:K of every summary line (SSIM [algo] Y:... frames:K)."""
    return [int(k) for k in re.findall(r"\] SSIM (?:\w+ )?[A-Z]:\S+ .* frames:(\d+)", stderr)]


def stats_lines(path):
    try:
        with open(path) as f:
            return [l for l in f.read().splitlines() if l.strip()]
    except OSError:
        return None


def consistent(log, stderr, stats_path, algos):
    """Whether a run's outputs agree on what was scored: the log's
    frame_count, its frames (numbered 0..K-1), the summary lines' frames:K
    (one per algorithm; none if nothing was scored) and the stats file's
    lines.  Returns (ok, diagnosis)."""
    if log is None:
        return False, "no valid JSON log"
    fr = log.get("frames", [])
    k = len(fr)
    summ = summary_frames(stderr)
    lines = stats_lines(stats_path) if stats_path else None
    ok = (log.get("frame_count") == k and [f["n"] for f in fr] == list(range(k)) and
          (summ == [k] * algos or (k == 0 and summ == [])) and
          (stats_path is None or (lines is not None and len(lines) == k)))
    return ok, "frame_count %r, frames logged %d (n %r), summary frames %r, stats lines %r" % (
        log.get("frame_count"), k, [f["n"] for f in fr][:12], summ,
        None if lines is None else len(lines))


def max_diff(cpu, gpu, tols):
    """Largest |gpu - cpu| / tol over the frames gpu logged (each must be
    in cpu, same number; a ladder's: every rendition), every algorithm of
    tols and component but dB.  Returns (worst ratio, where)."""
    ref = ft.log_values(cpu)
    worst, where = 0.0, None
    for key, g in ft.log_values(gpu).items():
        c = ref.get(key)
        if c is None:
            return float("inf"), "frame/rendition %r not in the CPU run" % (key,)
        for algo, tol in tols.items():
            for comp, v in c[algo].items():
                if comp == "dB":
                    continue
                w = g.get(algo, {}).get(comp)
                # None: inf in JSON (psnr of identical planes), equal only to itself
                d = abs(v - w) if v is not None and w is not None else \
                    0.0 if v is None and w is None else float("inf")
                if d / tol > worst:
                    worst, where = d / tol, (key, algo, comp, v, w)
    return worst, where
