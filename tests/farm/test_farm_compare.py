#!/usr/bin/env python3
"""fssim-farm compare (doc/farm.md#compare): two ladders of one title.

Ladder A (libx264 -preset slow) and ladder B (-preset ultrafast) of one
title, each two sizes at two rates, scored by the built ffmpeg.  compare
must give, per metric, plane and scale, on the convex hulls and per
resolution:

1. the points it computed on: each rendition's bitrate (ffprobe) and the
   pooled mean of its log (dB of it for SSIM in dB); the hull's points
   among them;
2. BD-rate and BD-quality equal to the bjontegaard package's on those
   points with the interpolation named (pchip by default, akima asked);
3. no figure, and a note saying why, where a curve cannot carry one
   (quality that does not rise with the bitrate);
4. a page Chromium draws without network: the BD table and the plot;
5. a one-line refusal without bitrates, or with a count of them other than
   one per rendition.
"""
import json
import os
import re
import subprocess

import fssimtest as ft
import farmtest as fm

W, H, N = 160, 96, 40


def main():
    tap = ft.Tap()
    try:
        import bjontegaard
        import numpy as np
    except ImportError as e:
        tap.skip("compare", "%s: pip install './farm[report]'" % e)
        tap.done()
    if not ft.encoder_has("libx264"):
        tap.skip("compare", "ENCODER_FFMPEG has no libx264")
        tap.done()
    from fssim_farm import segments
    d = ft.workdir("farm_compare")
    src = ft.natural_clip(W, H, N, "yuv420p", d, "src", container="y4m", image="coffee",
                          noise=1.5)
    ref = os.path.join(d, "ref.mkv")
    ft.run([ft.ENCODER_FFMPEG, "-v", "error", "-y", "-i", src.path, "-c:v", "libx264", "-qp",
            "0", ref])
    ladders = {}
    for side, preset in (("a", "slow"), ("b", "ultrafast")):
        files = []
        for scale in (None, "80:48"):
            for crf in (24, 36):
                path = os.path.join(d, "%s_%s_crf%d.mp4" % (side, scale and "80x48" or
                                                            "160x96", crf))
                fm.encode(path, ["-i", src.path], "libx264", "yuv420p", 20, crf=crf,
                          extra=["-preset", preset] + (["-vf", "scale=" + scale]
                                                       if scale else []))
                files.append(path)
        log = os.path.join(d, "%s.json" % side)
        if os.path.exists(log):
            os.unlink(log)
        ft.run(segments.command(ft.FFMPEG, "fssim", ref, files, "algo=float+psnr", log,
                                progress=False))
        ladders[side] = (log, files)
    (a_log, a_files), (b_log, b_files) = ladders["a"], ladders["b"]
    html = os.path.join(d, "compare.html")
    if os.path.exists(html):
        os.unlink(html)
    p = fm.fssim_farm("compare", a_log, b_log, "-o", html, "--a-renditions", *a_files,
                      "--b-renditions", *b_files, "--ffmpeg", ft.FFMPEG, "--json")
    if not tap.ok(p.returncode == 0, "compare ran", p.stderr[-2000:]):
        tap.done()
    s = json.loads(p.stdout)
    rows = s["bd"]
    scopes = sorted(set(r["scope"] for r in rows))
    tap.ok(s["interpolation"] == "pchip" and scopes == ["160x96", "80x48", "convex hull"] and
           set(r["algo"] for r in rows) == {"float", "psnr"} and
           set((r["algo"], r["scale"]) for r in rows) ==
           {("float", "value"), ("float", "dB"), ("psnr", "value")},
           "every metric, plane and scale, on the hulls and per resolution (pchip)", scopes)

    # 1. the points: bitrates and the logs' pooled means
    from fssim_farm import hull as hull_mod
    ffprobe = os.path.join(os.path.dirname(ft.FFMPEG), "ffprobe")
    good = True
    for side, (log, files) in ladders.items():
        lg = json.load(open(log))
        for plane in ("Y", "All"):
            for scale in ("value", "dB"):
                row = next(r for r in rows if r["algo"] == "float" and r["plane"] == plane and
                           r["scale"] == scale and r["scope"] == "160x96")
                want = []
                for i in (0, 1):
                    m = lg["pooled"]["renditions"][i]["float"][plane]["mean"]
                    q = -10 * np.log10(1 - m) if scale == "dB" else m
                    want.append([hull_mod.probe_kbps(files[i], ffprobe), q])
                got = row["%s_points" % side]
                good &= len(got) == 2 and all(abs(g[0] - w[0]) < 1e-9 and abs(g[1] - w[1]) < 1e-9
                                              for g, w in zip(got, sorted(want)))
    tap.ok(good, "the points: ffprobe's bitrates and each rendition's pooled mean (dB of it)")
    hull_rows = [r for r in rows if r["scope"] == "convex hull"]
    per_res = [r for r in rows if r["scope"] != "convex hull"]
    tap.ok(all(set(map(tuple, h["a_points"])) <= set(
        tuple(p) for r in per_res if (r["algo"], r["plane"], r["scale"]) ==
        (h["algo"], h["plane"], h["scale"]) for p in r["a_points"]) and len(h["a_points"]) >= 2
        for h in hull_rows), "the hull's points are among the renditions'")

    # 2. equal to the bjontegaard package on the same points
    def package(r, method):
        import warnings
        warnings.simplefilter("ignore")
        a, b = np.array(r["a_points"]), np.array(r["b_points"])
        return (bjontegaard.bd_rate(a[:, 0], a[:, 1], b[:, 0], b[:, 1], method=method,
                                    require_matching_points=False),
                bjontegaard.bd_psnr(a[:, 0], a[:, 1], b[:, 0], b[:, 1], method=method,
                                    require_matching_points=False))
    computed = [r for r in rows if r["bd_rate"] is not None]
    same = all(package(r, "pchip") == (r["bd_rate"], r["bd_quality"]) for r in computed)
    tap.ok(len(computed) >= 6 and same, "%d BD figures equal the bjontegaard package's (pchip) "
           "on the same points" % len(computed))
    h = next(r for r in hull_rows if r["algo"] == "psnr" and r["plane"] == "All")
    tap.diag("hull, PSNR All: BD-rate %s %%, BD-PSNR %s dB" % (h["bd_rate"], h["bd_quality"]))
    p = fm.fssim_farm("compare", a_log, b_log, "--a-renditions", *a_files, "--b-renditions",
                      *b_files, "--ffmpeg", ft.FFMPEG, "--interpolation", "akima", "--json")
    ak = json.loads(p.stdout)["bd"] if p.returncode == 0 else []
    comp = [r for r in ak if r["bd_rate"] is not None]
    tap.ok(comp and all(package(r, "akima") == (r["bd_rate"], r["bd_quality"]) for r in comp),
           "--interpolation akima: equal to the package's akima figures", p.stderr[-600:])

    # 3. a curve that cannot carry a figure: quality falling as the bitrate rises
    rates = [hull_mod.probe_kbps(f, ffprobe) for f in b_files]
    swapped = "%g,%g,%g,%g" % (rates[1], rates[0], rates[3], rates[2])
    p = fm.fssim_farm("compare", a_log, b_log, "--a-renditions", *a_files, "--b-bitrates",
                      swapped, "--ffmpeg", ft.FFMPEG, "--json")
    rs = json.loads(p.stdout)["bd"] if p.returncode == 0 else []
    r = next((x for x in rs if x["scope"] == "160x96"), None)
    tap.ok(r and r["bd_rate"] is None and "quality does not rise" in (r["note"] or ""),
           "no figure where B's quality falls as its bitrate rises, and why", r)

    # 4. the page
    browser = fm.chromium()
    if not browser:
        tap.skip("Chromium", "no chromium on PATH")
    else:
        q = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                            "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
                            "--window-size=1280,4000", "--virtual-time-budget=60000",
                            "--dump-dom", "file://" + html],
                           stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=180)
        bd = re.search(r"<div id=\"bd\">(.*?)</div>", q.stdout, re.S)
        cells = re.findall(r"[+-]\d+\.\d\d %", bd.group(1)) if bd else []
        tap.ok(len(cells) >= 3 and q.stdout.count('class="main-svg"') >= 2,
               "Chromium draws the BD table (%d figures) and the plot" % len(cells),
               q.stdout[-600:])

    # 5. refusals
    for args, want in (([], "no bitrate for"),
                       (["--a-bitrates", "100,200", "--b-bitrates", "1,2,3,4"],
                        "--a-bitrates: 2 bitrates for 4 renditions")):
        p = fm.fssim_farm("compare", a_log, b_log, *args)
        tap.ok(p.returncode == 1 and want in p.stderr and "Traceback" not in p.stderr,
               "refused in one line: %s" % (" ".join(args) or "no bitrates"), p.stderr[-600:])
    tap.done()


if __name__ == "__main__":
    main()
