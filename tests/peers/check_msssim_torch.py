#!/usr/bin/env python3
"""One-off check (not run by `make check`): tests/lib/msssim_np.py, the numpy
transcription of pytorch-msssim's ms_ssim, against the real pytorch-msssim
on float64 tensors; and, where the CPU reference's metrics_cli is given, the
reference against pytorch-msssim too.

Needs torch (the CPU build is enough), pytorch-msssim, numpy, scipy and
scikit-image, which the project's own Python does not carry: run it from a
scratch virtual environment, e.g.

    python3 -m venv /tmp/venv-torch
    /tmp/venv-torch/bin/pip install torch pytorch-msssim numpy scipy scikit-image
    /tmp/venv-torch/bin/python tests/peers/check_msssim_torch.py \
        [build/tests/unit/metrics_cli] > msssim-transcription.txt

For every case it prints, as the largest absolute difference over the five
per-scale S and CS means and the combined MS-SSIM:

  np32-torch   the transcription given pytorch-msssim's own window (built in
               float32) against ms_ssim as a user calls it;
  np64-torch64 the transcription with the float64 window against ms_ssim
               given that window through its `win` argument;
  C-torch64    metrics_cli (the reference, float64 window) against the same;
  win32 effect ms_ssim as a user calls it against the float64-window
               definition: what pytorch-msssim's float32 window changes
               (over the scales and the value; "on value": the value alone).
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import pytorch_msssim  # noqa: E402
from pytorch_msssim.ssim import _fspecial_gauss_1d, _ssim  # noqa: E402

import fssimtest as ft  # noqa: E402
import msssim_np  # noqa: E402

torch.set_num_threads(2)


def torch_scales(x, y, L, win1d):
    """Per-scale S and CS means with pytorch-msssim's own _ssim and pooling,
    in the loop of its ms_ssim; and ms_ssim's value with the same window."""
    X = torch.from_numpy(x.astype(np.float64))[None, None]
    Y = torch.from_numpy(y.astype(np.float64))[None, None]
    win = torch.from_numpy(np.asarray(win1d, dtype=np.float64)).reshape(1, 1, 1, -1)
    value = pytorch_msssim.ms_ssim(X, Y, data_range=L, win=win).item()
    s, cs = [], []
    for i in range(5):
        sp, cp = _ssim(X, Y, data_range=L, win=win, size_average=False, K=(0.01, 0.03))
        s.append(sp.item())
        cs.append(cp.item())
        if i < 4:
            padding = [n % 2 for n in X.shape[2:]]
            X = F.avg_pool2d(X, kernel_size=2, padding=padding)
            Y = F.avg_pool2d(Y, kernel_size=2, padding=padding)
    return s, cs, value


def torch_default(x, y, L, win_size, sigma):
    X = torch.from_numpy(x.astype(np.float64))[None, None]
    Y = torch.from_numpy(y.astype(np.float64))[None, None]
    return pytorch_msssim.ms_ssim(X, Y, data_range=L, win_size=win_size, win_sigma=sigma).item()


def run_cli(cli, x, y, depth, win_size, sigma):
    with tempfile.TemporaryDirectory() as d:
        pa, pb = os.path.join(d, "a.raw"), os.path.join(d, "b.raw")
        x.astype("<u2").tofile(pa)
        y.astype("<u2").tofile(pb)
        out = subprocess.run([cli, str(x.shape[1]), str(x.shape[0]), str(depth), str(win_size),
                              repr(sigma), pa, pb], check=True, stdout=subprocess.PIPE,
                             text=True).stdout
    return json.loads(out)


def worst(a, b):
    """max |a - b| over S_1..5, CS_1..5 and the value."""
    return max(max(abs(p - q) for p, q in zip(a[0], b[0])),
               max(abs(p - q) for p, q in zip(a[1], b[1])), abs(a[2] - b[2]))


def cases():
    nat, deg = ft.natural_frames, ft.degrade
    out = []
    for w, h in ((176, 176), (333, 201), (640, 360), (1920, 1080)):
        for fmt, img, seed in (("gray", "astronaut", 1), ("gray10", "coffee", 3)):
            m = nat(w, h, 1, fmt, image=img, seed=seed)[0][0]
            d = deg([[m]], fmt, blur=1.0, noise=3.0, seed=seed + 1)[0][0]
            out.append(("natural %s %dx%d" % (fmt, w, h), d, m, ft.pix_fmt(fmt).depth, 11, 1.5))
    # odd sizes at several scales, other windows
    for w, h, win, sig in ((161, 161, 11, 1.5), (163, 177, 11, 1.5), (321, 199, 11, 1.5),
                           (257, 385, 11, 1.5), (33, 47, 3, 0.5), (35, 65, 3, 1.0),
                           (97, 131, 7, 1.0), (225, 241, 15, 2.0), (171, 163, 9, 1.2)):
        m = nat(w, h, 1, "gray", image="chelsea", seed=w)[0][0]
        d = deg([[m]], "gray", blur=0.8, noise=4.0, shift=1, seed=h)[0][0]
        out.append(("odd gray %dx%d window %d sigma %g" % (w, h, win, sig), d, m, 8, win, sig))
    m = nat(200, 180, 1, "gray16", image="camera", seed=5)[0][0]
    out.append(("natural gray16 200x180", deg([[m]], "gray16", blur=0.7, noise=2.0, seed=6)[0][0],
                m, 16, 11, 1.5))
    # flat-ish planes: a constant with faint noise, against another constant
    rng = np.random.default_rng(7)
    for w, h in ((176, 192), (177, 169)):
        a = np.clip(np.rint(100 + rng.normal(0, 0.4, (h, w))), 0, 255).astype(np.uint8)
        b = np.full((h, w), 104, np.uint8)
        out.append(("flat-ish %dx%d" % (w, h), a, b, 8, 11, 1.5))
        out.append(("flat identical %dx%d" % (w, h), b, b.copy(), 8, 11, 1.5))
    return out


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else None
    print("# check_msssim_torch.py: tests/lib/msssim_np.py against pytorch-msssim")
    print("# date %s" % datetime.date.today().isoformat())
    print("# torch %s, pytorch-msssim %s, numpy %s, python %s" % (
        torch.__version__, getattr(pytorch_msssim, "__version__", "1.0.0 (pip)"),
        np.__version__, sys.version.split()[0]))
    print("# command: %s %s" % (os.path.basename(sys.executable), " ".join(sys.argv)))
    print("# columns: max |difference| over S_1..5, CS_1..5 and MS-SSIM")
    print("%-40s %12s %12s %12s %12s %12s %10s" % (
        "case", "np32-torch", "np64-torch64", "C-torch64", "win32 effect", "on value", "ms-ssim"))
    tot = {"np32": 0.0, "np64": 0.0, "c": 0.0, "w32": 0.0, "w32v": 0.0}
    for name, x, y, depth, win_size, sigma in cases():
        L = float((1 << depth) - 1)
        w32 = _fspecial_gauss_1d(win_size, sigma).flatten().double().numpy()
        w64 = msssim_np.gauss_window(win_size, sigma)
        # ms_ssim as users call it: the float32 window
        t32 = torch_scales(x, y, L, w32)
        default = torch_default(x, y, L, win_size, sigma)
        assert default == t32[2], (name, default, t32[2])
        n32 = msssim_np.ms_ssim_scales(x, y, L, win=w32)
        t64 = torch_scales(x, y, L, w64)
        n64 = msssim_np.ms_ssim_scales(x, y, L, win=w64)
        d32, d64 = worst(n32, t32), worst(n64, t64)
        effect = worst(t32, t64)
        dc = float("nan")
        if cli:
            r = run_cli(cli, x, y, depth, win_size, sigma)
            dc = worst((r["s"], r["cs"], r["msssim"]), t64)
            tot["c"] = max(tot["c"], dc)
        tot["np32"] = max(tot["np32"], d32)
        tot["np64"] = max(tot["np64"], d64)
        tot["w32"] = max(tot["w32"], effect)
        tot["w32v"] = max(tot["w32v"], abs(t32[2] - t64[2]))
        print("%-40s %12.3g %12.3g %12.3g %12.3g %12.3g %10.7f" % (
            name, d32, d64, dc, effect, abs(t32[2] - t64[2]), t32[2]))
        sys.stdout.flush()
    print("# largest: np32-torch %.3g, np64-torch64 %.3g, C-torch64 %.3g, win32 effect %.3g "
          "(on the MS-SSIM value %.3g)" % (tot["np32"], tot["np64"], tot["c"], tot["w32"],
                                          tot["w32v"]))


if __name__ == "__main__":
    main()
