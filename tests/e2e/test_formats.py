#!/usr/bin/env python3
"""Every software pixel format the fssim filter lists (ff_fssim_sw_pix_fmts
in filters/core/fssim_format.c, read from the source so the test follows the
list) is accepted as it is (no conversion), gets the metadata keys
lavfi.fssim.<algo>.<c> with the right component letters (Y/U/V, R/G/B, A),
an `All` that weighs the planes by their sample counts, and -- for the
semi-planar, P0xx, alpha, gray and yuvj variants -- exactly the scores of the
planar format holding the same sample values.
"""
import math
import re

import fssimtest as ft

W, H, N = 64, 48, 2
ALGOS = ("float", "int", "block")


def planar_equiv(name):
    """The planar 3-component format holding the same sample values."""
    f = ft.pix_fmt(name)
    d = "" if f.depth == 8 else str(f.depth)
    sub = {(1, 1): "420", (1, 0): "422", (0, 0): "444", (0, 1): "440",
           (2, 0): "411", (2, 2): "410"}[(f.log2_cw, f.log2_ch)]
    if f.rgb:
        return ft.pix_fmt("gbrp" + d).name
    if f.comps == "Y":
        return ft.pix_fmt("yuv444p" + d).name
    return ft.pix_fmt(("yuvj" if f.full_range else "yuv") + sub + "p" + d).name


def frames_for(name, cache={}):
    """(main, ref) frames of natural content in format `name`; formats with
    the same planar equivalent get the same Y/U/V or R/G/B values; alpha is
    L - Y (or L - G)."""
    f = ft.pix_fmt(name)
    base = planar_equiv(name)
    if base not in cache:
        ref = ft.natural_frames(W, H, N, base, image="astronaut", seed=7, zoom=0.03)
        main = ft.degrade(ref, base, blur=0.8, noise=3.0, block=4, seed=8)
        cache[base] = (main, ref)
    out = []
    for frames in cache[base]:
        conv = []
        for fr in frames:
            planes = list(fr[:len(f.comps.replace("A", ""))])
            if f.alpha:
                planes.append((f.maxval - fr[0].astype("int64")).astype(fr[0].dtype))
            conv.append(planes)
        out.append(conv)
    return out


def main():
    tap = ft.Tap()
    fmts = ft.fssim_sw_pix_fmts()
    tap.ok(len(fmts) >= 60 and "nv12" in fmts and "p010le" in fmts and "gbrap16le" in fmts and
           "yuv420p10le" in fmts and "gbrp14le" in fmts,
           "ff_fssim_sw_pix_fmts lists %d formats, the semi-planar and alpha ones among them"
           % len(fmts), fmts)
    d = ft.workdir("formats")
    results = {}
    for name in fmts:
        f = ft.pix_fmt(name)
        main_frames, ref_frames = frames_for(name)
        main = ft.natural_clip(W, H, 0, f, d, name + "_main", frames=main_frames)
        ref = ft.natural_clip(W, H, 0, f, d, name + "_ref", frames=ref_frames)
        res = ft.run_fssim(main, ref, "algo=float+int+block", directory=d, tag=name,
                           check=False, metadata=True)
        p = res["proc"]
        if not tap.ok(p.returncode == 0 and res["log"] is not None,
                      "%s: accepted (exit 0, JSON log)" % name, p.stderr[-2000:]):
            continue
        log = res["log"]
        inp = log["input"]
        tap.ok(inp["pix_fmt"] == f.name and inp["bit_depth"] == f.depth and
               inp["width"] == W and inp["height"] == H and log["frame_count"] == N,
               "%s: scored as %s, %d-bit, %d frames (no conversion)" % (name, f.name, f.depth, N), inp)
        tap.ok(inp["components"] == list(f.comps),
               "%s: components %s" % (name, "".join(f.comps)), inp["components"])

        # metadata keys
        want = {"lavfi.fssim.%s.%s" % (a, c) for a in ALGOS for c in list(f.comps) + ["All", "dB"]}
        meta = res["metadata"] or []
        bad = []
        for fr in meta:
            keys = {k for k in fr["tags"] if k.startswith("lavfi.fssim")}
            if keys != want:
                bad.append("frame %d: missing %s, extra %s" % (
                    fr["frame"], sorted(want - keys), sorted(keys - want)))
        tap.ok(len(meta) == N and not bad,
               "%s: metadata keys lavfi.fssim.{float,int,block}.{%s,All,dB} on every frame"
               % (name, ",".join(f.comps)), "\n".join(bad) or "%d frames of metadata" % len(meta))

        # values: metadata = JSON, in range, below 1, All weighted by samples, dB
        weights = f.weights(W, H)
        bad = []
        for k, fr in enumerate(log["frames"]):
            tags = meta[k]["tags"] if k < len(meta) else {}
            for a in ALGOS:
                vals = fr[a]
                for c in list(f.comps) + ["All", "dB"]:
                    key = "lavfi.fssim.%s.%s" % (a, c)
                    if key in tags and float(tags[key]) != vals[c]:
                        bad.append("frame %d %s: metadata %s != JSON %r" % (k, key, tags[key], vals[c]))
                for c in f.comps:
                    if not (-1.0 <= vals[c] < 1.0):
                        bad.append("frame %d %s.%s = %r out of [-1, 1)" % (k, a, c, vals[c]))
                all_ = sum(wt * vals[c] for wt, c in zip(weights, f.comps))
                if abs(all_ - vals["All"]) > 1e-15:
                    bad.append("frame %d %s.All %r != sample-weighted %r" % (k, a, vals["All"], all_))
                if abs(-10 * math.log10(1 - vals["All"]) - vals["dB"]) > 1e-12:
                    bad.append("frame %d %s.dB %r != -10 log10(1 - All)" % (k, a, vals["dB"]))
        tap.ok(not bad, "%s: values in [-1, 1), equal in metadata and JSON, All = planes weighted "
               "by sample count %s, dB = -10 log10(1 - All)" % (
                   name, "/".join("%.4f" % x for x in weights)), "\n".join(bad))
        results[name] = log

    # the same sample values in another layout give exactly the same scores
    for name in fmts:
        base = planar_equiv(name)
        if name == base or name not in results or base not in results:
            continue
        f = ft.pix_fmt(name)
        comps = [c for c in f.comps if c != "A"]
        bad = []
        for k, (fa, fb) in enumerate(zip(results[name]["frames"], results[base]["frames"])):
            for a in ALGOS:
                for c in comps:
                    if fa[a][c] != fb[a][c]:
                        bad.append("frame %d %s.%s: %s %r, %s %r" % (k, a, c, name, fa[a][c], base,
                                                                     fb[a][c]))
        what = {True: "semi-planar", False: "layout"}[f.semi]
        if f.alpha:
            what = "alpha"
        elif f.comps == "Y":
            what = "gray"
        tap.ok(not bad and len(results[name]["frames"]) == N,
               "%s (%s) scores %s exactly as %s with the same samples (float, int, block)" % (
                   name, what, "/".join(comps), base), "\n".join(bad))

    # yuvj (full range) formats score the same samples as the yuv ones
    for name in [n for n in fmts if n.startswith("yuvj")]:
        base = name.replace("yuvj", "yuv")
        if base not in results:
            continue
        main_frames, ref_frames = frames_for(base)
        main = ft.natural_clip(W, H, 0, name, d, name + "_as_yuv_main", frames=main_frames)
        ref = ft.natural_clip(W, H, 0, name, d, name + "_as_yuv_ref", frames=ref_frames)
        res = ft.run_fssim(main, ref, "algo=float+int+block", directory=d, tag=name + "_as_yuv",
                           check=False)
        log = res["log"]
        same = log is not None and log["input"]["pix_fmt"] == name and all(
            fa[a][c] == fb[a][c] for fa, fb in zip(log["frames"], results[base]["frames"])
            for a in ALGOS for c in "YUV") and len(log["frames"]) == N
        tap.ok(same, "%s scores the samples of %s exactly as %s does" % (name, base, base),
               res["proc"].stderr[-2000:])

    # spot check that the formats really differ in memory: nv12's file is not yuv420p's
    with open("%s/nv12_main.yuv" % d, "rb") as a, open("%s/yuv420p_main.yuv" % d, "rb") as b:
        da, db = a.read(), b.read()
    tap.ok(len(da) == len(db) and da != db, "nv12 and yuv420p inputs hold the same samples in "
           "different layouts (the equivalence above is not a tautology)")
    with open("%s/p010le_main.yuv" % d, "rb") as a, open("%s/yuv420p10le_main.yuv" % d, "rb") as b:
        da, db = a.read(), b.read()
    tap.ok(len(da) == len(db) and da != db, "p010 and yuv420p10 inputs differ in memory")
    tap.done()


if __name__ == "__main__":
    main()
