#!/usr/bin/env python3
"""fssim-farm report (doc/farm.md#report), tried as an encoding engineer
uses it, its page rendered by headless Chromium.

A title of two shots (a cut at frame 30) is encoded by libx264 as a sweep:
two sizes at two rates, one of them falling apart over frames 40-47 (a hard
blur there only).  The built ffmpeg scores the ladder as fssim-farm's
segments do (the farm's own command: the inputs' file names in the names
option), and the report, given the files, must:

1. name the renditions by their files and the title by the reference's;
   bitrates from the ffprobe beside --ffmpeg;
2. find the broken rung's dip as one event (neighbouring windows merged)
   ranked first, and write the reference's and the rendition's pictures of
   its worst frame side by side: the left picture is the reference at that
   frame;
3. find the cut with FFmpeg's scdet: two scenes, a mean and p5 per scene
   and rendition equal to those of the per-frame values;
4. list a convex hull that lies on or above every point;
5. export every frame of every rendition in CSV, equal to the log;
6. write a page that fetches nothing and that Chromium, with the network
   shut, draws (every plot, the pooled table by each metric chosen in the
   link), and a screenshot that is not blank;
7. refuse bad input in one sentence (no traceback): a count of names,
   bitrates or files other than one per rendition, an unknown metric.
"""
import csv
import json
import math
import os
import re
import shutil
import subprocess

import numpy as np

import fssimtest as ft
import farmtest as fm

W, H, N = 160, 96, 60


CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                # nothing reaches the network: a page that needs it stays blank
                "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND"]


def dump_dom(browser, url):
    """The page as drawn in a window tall enough to hold it all (a plot is
    drawn once it comes near the window), once plotly.js has started (after
    the first paint: the virtual time lets it)."""
    p = subprocess.run([browser] + CHROME_FLAGS + ["--window-size=1280,8000",
                                                   "--virtual-time-budget=60000", "--dump-dom",
                                                   url], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=180)
    return p.stdout


def ref_rgb(path):
    p = subprocess.run([ft.FFMPEG, "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt",
                        "rgb24", "pipe:1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return np.frombuffer(p.stdout, np.uint8).reshape(-1, H, W, 3).astype(float)


def make_title(d):
    """The reference (lossless H.264) and four renditions, their paths."""
    fmt = "yuv420p"
    a = ft.natural_frames(W, H, 30, fmt, image="coffee", noise=0.8)
    b = ft.natural_frames(W, H, N - 30, fmt, image="astronaut", noise=0.8, seed=1)
    frames = a + b
    src = ft.natural_clip(W, H, N, fmt, d, "title_src", container="y4m", frames=frames)
    blur = ft.degrade(frames, ft.pix_fmt(fmt), blur=4.0, noise=2.0)
    broken = [blur[i] if 40 <= i < 48 else frames[i] for i in range(N)]
    bsrc = ft.natural_clip(W, H, N, fmt, d, "title_broken", container="y4m", frames=broken)
    ref = os.path.join(d, "film_reference.mkv")
    ft.run([ft.ENCODER_FFMPEG, "-v", "error", "-y", "-i", src.path, "-c:v", "libx264", "-qp",
            "0", "-g", "12", ref])
    out = []
    for name, source, scale, crf in (("film_160x96_crf22.mp4", src, None, 22),
                                      ("film 160x96 crf34.mp4", src, None, 34),
                                      ("film_80x48_crf22.mkv", src, "80:48", 22),
                                      ("film_80x48_crf34_broken.mkv", bsrc, "80:48", 34)):
        path = os.path.join(d, name)
        fm.encode(path, ["-i", source.path], "libx264", fmt, 12,
                  extra=(["-vf", "scale=" + scale] if scale else []), crf=crf)
        out.append(path)
    return ref, out


def main():
    tap = ft.Tap()
    try:
        import matplotlib.image as mpimg
        import plotly  # noqa: F401
        import bjontegaard  # noqa: F401
    except ImportError as e:
        tap.skip("report", "%s: pip install './farm[report]'" % e)
        tap.done()
    if not ft.encoder_has("libx264"):
        tap.skip("report", "ENCODER_FFMPEG has no libx264")
        tap.done()
    from fssim_farm import segments
    d = ft.workdir("farm_report")
    ref, dists = make_title(d)
    log = os.path.join(d, "film.json")
    if os.path.exists(log):
        os.unlink(log)
    ft.run(segments.command(ft.FFMPEG, "fssim", ref, dists, "algo=float+psnr", log,
                            progress=False))
    lg = json.load(open(log))
    base = [os.path.basename(p) for p in dists]
    tap.ok([r.get("name") for r in lg["renditions"]] == base and
           lg["input"].get("name") == os.path.basename(ref),
           "fssim-farm's command names the inputs by their files in the log",
           ([r.get("name") for r in lg["renditions"]], lg["input"].get("name")))

    out_dir = os.path.join(d, "report")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    html = os.path.join(out_dir, "film.html")
    p = fm.fssim_farm("report", log, "-o", html, "--renditions", *dists, "--reference", ref,
                      "--ffmpeg", ft.FFMPEG, "--scenes", "scdet", "--json")
    if not tap.ok(p.returncode == 0 and os.path.exists(html), "report written", p.stderr[-2000:]):
        tap.done()
    s = json.loads(p.stdout)
    rs = s["renditions"]

    # 1. names, title, bitrates
    tap.ok([r["name"] for r in rs] == base and s["title"] == os.path.basename(ref),
           "renditions named by their files, the title by the reference's",
           ([r["name"] for r in rs], s["title"]))
    rates = [r["kbps"] for r in rs]
    tap.ok(all(r and r > 0 for r in rates) and rates[0] > rates[1] and rates[2] > rates[3],
           "bitrates from ffprobe beside --ffmpeg, higher at the lower CRF", rates)

    # 2. the broken rung's dip: one event, first, its picture
    evs = rs[3]["events"]
    e1 = evs[0] if evs else {}
    tap.ok(evs and e1["first_n"] <= 41 and e1["last_n"] >= 46 and 40 <= e1["worst_n"] <= 47,
           "the broken frames 40-47 are the broken rung's event #1, as one event", evs[:1])
    spans = sorted((e["first_n"], e["last_n"]) for e in evs)
    tap.ok(all(b[0] > a[1] + 1 for a, b in zip(spans, spans[1:])),
           "no two events of a rendition overlap or touch (neighbours merged)", spans)
    thumb = e1.get("thumbnail")
    okt, why = False, thumb
    if thumb and os.path.exists(thumb):
        from PIL import Image
        pic = np.asarray(Image.open(thumb).convert("RGB"), float)
        frames = ref_rgb(ref)
        left = pic[:, :W]
        diffs = [float(np.abs(left - frames[n]).mean()) for n in range(N)]
        best = int(np.argmin(diffs))
        # the rendition's frames, scaled to the picture's size by the same scaler
        q = subprocess.run([ft.FFMPEG, "-v", "error", "-i", dists[3], "-vf",
                            "scale=%d:%d:flags=bicubic,format=rgb24" % (W, H), "-f",
                            "rawvideo", "pipe:1"], stdout=subprocess.PIPE)
        rend = np.frombuffer(q.stdout, np.uint8).reshape(-1, H, W, 3).astype(float)
        right = pic[:, W + 6:]
        rbest = int(np.argmin([float(np.abs(right - rend[n]).mean()) for n in range(N)]))
        okt = pic.shape[:2] == (H, 2 * W + 6) and best == e1["worst_n"] == rbest
        why = ("shape %s, left half closest to reference frame %d, right half to rendition "
               "frame %d (worst frame %d)" % (pic.shape, best, rbest, e1["worst_n"]))
    tap.ok(okt, "its picture: the reference's worst frame left, the rendition's right", why)
    n_thumbs = sum(len(r["events"]) for r in rs)
    tap.ok(len(s["files"].get("worst", [])) == n_thumbs and n_thumbs >= len(rs),
           "a picture file per event: %d" % n_thumbs, s["files"].get("worst"))

    # 3. scenes by scdet
    rows = list(csv.DictReader(open(s["files"]["scenes_csv"])))
    firsts = sorted(set(int(r["first_n"]) for r in rows))
    tap.ok(s["scenes"] == 2 and firsts == [0, 30], "scdet finds the cut: scenes from 0 and 30",
           (s["scenes"], firsts))
    per = {}
    for fr in lg["frames"]:
        for e in fr["renditions"]:
            per.setdefault(e["k"], []).append((fr["n"], e["float"]["All"]))
    okm = True
    for r in rows:
        v = np.array([x for n, x in per[int(r["rendition"])]
                      if int(r["first_n"]) <= n <= int(r["last_n"])])
        p5 = np.sort(v)[int(math.ceil(5 * len(v) / 100.0 - 1e-9)) - 1]
        okm &= (abs(float(r["float.All.mean"]) - v.mean()) < 1e-8 and
                abs(float(r["float.All.p5"]) - p5) < 1e-8 and int(r["frames"]) == len(v))
    tap.ok(okm and len(rows) == 2 * len(rs), "per scene and rendition: frames, mean and p5 "
           "of the per-frame values")

    # 4. the hull
    pts = {r["name"]: (r["kbps"], r["pooled"]["mean"]) for r in rs}
    hull = [pts[n] for n in s["hull"]]

    def on_or_below(rate, q):
        for (r0, q0), (r1, q1) in zip(hull, hull[1:]):
            if r0 <= rate <= r1:
                return q <= q0 + (q1 - q0) * (rate - r0) / (r1 - r0) + 1e-12
        return rate < hull[0][0] or q <= hull[-1][1]
    tap.ok(len(hull) >= 2 and all(b[0] > a[0] and b[1] > a[1] for a, b in zip(hull, hull[1:]))
           and all(on_or_below(*v) for v in pts.values()),
           "the convex hull rises in rate and quality, every point on or below it", s["hull"])

    # 5. the per-frame CSV
    rows = list(csv.DictReader(open(s["files"]["frames_csv"])))
    okc = len(rows) == sum(len(v) for v in per.values())
    for r in rows[::7]:
        k = int(r["rendition"])
        want = dict(per[k])[int(r["n"])]
        okc &= abs(float(r["float.All"]) - want) <= 1e-9 * abs(want) and r["name"] == base[k - 1]
    tap.ok(okc, "the frames CSV: every frame of every rendition, the log's values (%d rows)"
           % len(rows))

    # 6. the page
    text = open(html).read()
    outside = re.sub(r"<script[^>]*>.*?</script>", "", text, flags=re.S)
    tap.ok(not re.search(r"(src|href)=[\"']?(https?:)?//", outside) and "@import" not in outside
           and "<link" not in outside and not re.search(r"<script[^>]+src=", text),
           "the page fetches nothing (no URLs, no scripts or styles from elsewhere)")
    tap.ok(text.count("data:image/jpeg;base64,") == n_thumbs,
           "the pictures inline: %d" % text.count("data:image/jpeg;base64,"))
    for png in s["files"]["png"]:
        try:
            a = mpimg.imread(png)
            okp = a.ndim == 3 and a.shape[1] >= 700 and float(a[..., :3].std()) > 0.02
        except (OSError, ValueError) as e:
            okp, a = False, e
        tap.ok(okp, "%s decodes, not blank" % os.path.basename(png), getattr(a, "shape", a))
    browser = fm.chromium()
    if not browser:
        tap.skip("Chromium", "no chromium on PATH (Debian: apt-get install chromium)")
    if browser:
        url = "file://" + os.path.abspath(html)
        dom = dump_dom(browser, url)
        m = re.search(r'data-open-ms="(\d+)"', dom)
        plots = dom.count('class="main-svg"')
        # the 2 s of a 2-hour title are bench/bench_report.py's; here, on a
        # shared machine, only a page that hangs fails
        tap.ok(m and plots >= 8 and 'data-pending=""' in dom and 'class="still"' not in dom,
               "Chromium without network draws the page: %d plot layers, the still picture "
               "replaced" % plots, dom[-800:])
        pooled = re.search(r"<div id=\"pooled\">(.*?)</div>", dom, re.S)
        tap.ok(pooled and all(n.replace("&", "&amp;") in pooled.group(1) for n in base) and
               "0.9" in pooled.group(1), "the pooled table lists every rendition by name")
        dom = dump_dom(browser, url + "#algo=psnr&plane=Y")
        m = re.search(r"Pooled values: <span class=\"metric-name\">([^<]*)<", dom)
        vals = re.findall(r"<td>(\d+\.\d+)</td>", re.search(
            r"<div id=\"pooled\">(.*?)</div>", dom, re.S).group(1))
        tap.ok(m and m.group(1) == "PSNR Y (dB)" and vals and
               all(15 < float(v) < 80 for v in vals[:3]),
               "the switch: #algo=psnr&plane=Y shows PSNR of Y in dB", (m and m.group(1),
                                                                         vals[:6]))
        dom = dump_dom(browser, url + "#algo=float&scale=dB")
        vals = re.findall(r"<td>(\d+\.\d+)</td>", re.search(
            r"<div id=\"pooled\">(.*?)</div>", dom, re.S).group(1))
        tap.ok(vals and all(3 < float(v) < 60 for v in vals[:3]),
               "SSIM in dB: #algo=float&scale=dB", vals[:6])
        shot = os.path.join(out_dir, "screenshot.png")
        q = subprocess.run([browser] + CHROME_FLAGS + ["--window-size=1280,2400",
                                                       "--screenshot=%s" % shot, url],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=180)
        try:
            a = mpimg.imread(shot)
            rgb = a[..., :3]
            dark = float((rgb.mean(axis=2) < 0.85).mean())
            good = a.shape[:2] == (2400, 1280) and float(rgb.std()) > 0.05 and dark > 0.03
        except (OSError, ValueError):
            good, dark = False, 0.0
        tap.ok(good, "a screenshot at 1280 px that is not blank (%.1f%% drawn)" % (100 * dark),
               q.stderr[-800:])

    # a sweep in two logs of one reference: one report, the same hull
    halves = []
    for i, part in enumerate((dists[:2], dists[2:])):
        hp = os.path.join(d, "film_part%d.json" % i)
        if os.path.exists(hp):
            os.unlink(hp)
        ft.run(segments.command(ft.FFMPEG, "fssim", ref, part, "algo=float+psnr", hp,
                                progress=False))
        halves.append(hp)
    p = fm.fssim_farm("report", *halves, "-o", os.path.join(out_dir, "sweep.html"),
                      "--bitrates", ",".join(map(str, rates)), "--no-thumbnails", "--json")
    sw = json.loads(p.stdout) if p.returncode == 0 else {}
    tap.ok(sw and [r["name"] for r in sw["renditions"]] == base and sw["hull"] == s["hull"],
           "a sweep in two logs: one report, the renditions in order, the same hull",
           (p.stderr[-500:], sw.get("hull")))
    other = os.path.join(d, "other_reference.json")
    if os.path.exists(other):
        os.unlink(other)
    ft.run(segments.command(ft.FFMPEG, "fssim", dists[0], dists[1:2], "algo=float", other,
                            progress=False))
    p = fm.fssim_farm("report", log, other, "-o", os.path.join(out_dir, "bad.html"))
    tap.ok(p.returncode == 1 and "score different references" in p.stderr and
           "Traceback" not in p.stderr, "logs of another reference refused", p.stderr[-500:])

    # the filters' pairing counts, where the log has them: shown where not zero
    lgp = json.load(open(log))
    lgp["pairing"] = {"mode": "nearest", "inputs": [
        {"pad": "dist1", "frames": N, "paired": N, "lacks": 0, "excess": 0, "damaged": 0},
        {"pad": "dist4", "frames": N - 2, "paired": N - 2, "lacks": 2, "excess": 0,
         "damaged": 3}, {"pad": "reference", "frames": N, "damaged": 0}]}
    plog = os.path.join(d, "film_pairing.json")
    with open(plog, "w") as f:
        json.dump(lgp, f)
    phtml = os.path.join(out_dir, "pairing.html")
    p = fm.fssim_farm("report", plog, "-o", phtml, "--bitrates", ",".join(map(str, rates)),
                      "--json")
    sp = json.loads(p.stdout) if p.returncode == 0 else {}
    note = [n for n in sp.get("notes", []) if base[3] in n]
    tap.ok(sp and sp["renditions"][3]["pairing"]["lacks"] == 2 and len(note) == 1 and
           "2 reference frames without a frame of it" in note[0] and
           "3 frames damaged in decoding" in note[0] and
           not any(base[0] in n for n in sp["notes"]) and
           "frames damaged in decoding" in open(phtml).read(),
           "the pairing counts: a note for the rendition that lacks frames, none for the "
           "others", (p.stderr[-500:], sp.get("notes")))
    if browser:
        dom = dump_dom(browser, "file://" + os.path.abspath(phtml))
        pooled = re.search(r"<div id=\"pooled\">(.*?)</div>", dom, re.S)
        tap.ok(pooled and "<th>lacks</th><th>damaged</th>" in pooled.group(1) and
               "<th>excess</th>" not in pooled.group(1),
               "the pooled table has the non-zero counts' columns", pooled and
               pooled.group(1)[:400])

    # 8. what an algorithm is comes from the log's header (the filters'
    # table of algorithms), not from its name: vmaf_ssim, which the
    # report's code never names, is a similarity shown also in dB and
    # labelled by its description; psnr a score in dB.  A log written
    # before the header carried the facts reads the same from its layout.
    vlog = os.path.join(d, "film_vmaf.json")
    if os.path.exists(vlog):
        os.unlink(vlog)
    ft.run(segments.command(ft.FFMPEG, "fssim", ref, dists, "algo=vmaf_ssim+psnr", vlog,
                            progress=False))
    bare = os.path.join(d, "film_bare.json")
    with open(vlog) as f:
        text = f.read()
    with open(bare, "w") as f:
        f.write(re.sub(r'  "algorithms": \{.*?\n  \},\n', "", text, count=1, flags=re.S))
    vl = json.load(open(vlog))
    want_mean = [r["vmaf_ssim"]["All"]["mean"] for r in vl["pooled"]["renditions"]]
    for tag, path in (("the facts in the header", vlog), ("no facts (an older log)", bare)):
        vhtml = os.path.join(out_dir, "vmaf_%s.html" % ("bare" if path == bare else "facts"))
        p = fm.fssim_farm("report", path, "-o", vhtml, "--metric", "vmaf_ssim",
                          "--bitrates", ",".join(map(str, rates)), "--no-thumbnails",
                          "--json")
        sv = json.loads(p.stdout) if p.returncode == 0 else {}
        data = {}
        if sv:
            m = re.search(r"<script type='application/json' id=fssim-data>(.*?)</script>",
                          open(vhtml).read(), re.S)
            data = json.loads(m.group(1)) if m else {}
        label = ("vmaf_ssim (libvmaf float_ssim)" if path == vlog else "vmaf_ssim")
        tap.ok(sv and data.get("ssim_like") == ["vmaf_ssim"] and
               data.get("in_db") == ["psnr"] and
               data.get("labels", {}).get("vmaf_ssim") == label and
               data.get("labels", {}).get("psnr") == "PSNR" and
               "vmaf_ssim|All|dB" in data.get("hull", {}) and
               "psnr|All|dB" not in data.get("hull", {}) and
               [r["pooled"]["mean"] for r in sv["renditions"]] == want_mean and
               "PSNR capped at" in open(vhtml).read(),
               "vmaf_ssim+psnr, %s: vmaf_ssim a similarity (value and dB), labelled %r; "
               "psnr in dB, capped; the pooled means the log's" % (tag, label),
               (p.stderr[-500:], {k: data.get(k) for k in ("ssim_like", "in_db", "labels")}))
    if browser:
        dom = dump_dom(browser, "file://" + os.path.abspath(
            os.path.join(out_dir, "vmaf_facts.html")) + "#algo=vmaf_ssim&scale=dB")
        m = re.search(r"Pooled values: <span class=\"metric-name\">([^<]*)<", dom)
        vals = re.findall(r"<td>(\d+\.\d+)</td>", (re.search(
            r"<div id=\"pooled\">(.*?)</div>", dom, re.S) or re.search("", "")).group(0))
        tap.ok(m and m.group(1) == "vmaf_ssim (libvmaf float_ssim) All (dB)" and vals and
               all(3 < float(v) < 60 for v in vals[:3]),
               "#algo=vmaf_ssim&scale=dB: vmaf_ssim of All in dB", (m and m.group(1), vals[:6]))

    # 7. refusals: one sentence, exit 1, no traceback
    for args, want in ((["--names", "a", "b"], "--names gives 2 names for 4 renditions"),
                       (["--bitrates", "1000k,800k"], "2 bitrates for 4 renditions"),
                       (["--bitrates", "1000k,fast,3,4"], "'fast' is not a bitrate"),
                       (["--renditions", dists[0]], "--renditions lists 1 files for 4"),
                       (["--metric", "vmaf"], "--metric vmaf: the logs have float, psnr"),
                       (["--scenes", "scdet"], "--scenes scdet runs on the reference")):
        p = fm.fssim_farm("report", log, "-o", os.path.join(out_dir, "bad.html"), *args)
        tap.ok(p.returncode == 1 and want in p.stderr and "Traceback" not in p.stderr and
               len(p.stderr.strip().splitlines()) == 1,
               "refused in one line: %s" % " ".join(args), p.stderr[-600:])
    tap.done()


if __name__ == "__main__":
    main()
