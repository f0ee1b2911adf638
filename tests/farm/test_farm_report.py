#!/usr/bin/env python3
"""fssim-farm report: the HTML page and its PNGs, rendered as a person sees
it by headless Chromium.

A ladder with a rung that falls apart in the middle (a stretch of frames
blurred hard in one rendition only) is scored; the report must name that
rendition as the lowest, mark the stretch among its worst, fetch nothing
(no http(s) URL, images inline), write PNGs that decode, and Chromium's
screenshot of the page at 1280 px must not be blank.
"""
import os
import re
import shutil
import subprocess

import fssimtest as ft
import farmtest as fm


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


def main():
    tap = ft.Tap()
    try:
        import matplotlib.image as mpimg
    except ImportError:
        tap.skip("report", "matplotlib is not installed")
        tap.done()
    d = ft.workdir("farm_report")
    clip = ft.natural_clip(160, 96, 60, "yuv420p", d, "ref", container="y4m", image="coffee")
    good = ft.natural_clip(160, 96, 60, "yuv420p", d, "good", container="y4m", image="coffee",
                           distort=dict(noise=2.0))
    # rung 2 falls apart over frames 30-39: hard blur there only
    bad_frames = [f if not 30 <= i < 40 else None for i, f in enumerate(good.frames)]
    blur = ft.natural_clip(160, 96, 60, "yuv420p", d, "blurred", container="y4m",
                           image="coffee", distort=dict(blur=3.0, noise=2.0))
    frames = [good.frames[i] if bad_frames[i] is not None else blur.frames[i]
              for i in range(60)]
    bad = ft.natural_clip(160, 96, 60, "yuv420p", d, "bad", container="y4m", frames=frames)
    log = os.path.join(d, "ladder.json")
    if os.path.exists(log):
        os.unlink(log)
    ft.ffmpeg("-i", good.path, "-i", bad.path, "-i", clip.path, "-lavfi",
              "[0:v][1:v][2:v]fssim=inputs=3:algo=float+psnr:log_path=%s" % log,
              "-f", "null", "-")
    html = os.path.join(d, "report", "ladder.html")
    p = fm.fssim_farm("report", log, "-o", html, "--bitrates", "1:3000,2:800")
    if not tap.ok(p.returncode == 0 and os.path.exists(html), "report written", p.stderr):
        tap.done()
    text = open(html).read()
    tap.ok(not re.search(r"(src|href)=[\"']?(https?:)?//", text) and "@import" not in text,
           "the page fetches nothing (no URLs)")
    imgs = re.findall(r"src=\"data:image/png;base64,", text)
    tap.ok(len(imgs) == 3, "three plots inline (scores over time, distribution, "
           "rate-quality): %d" % len(imgs))
    tap.ok("Lowest 5th percentile: <b>2: dist2" in text, "the broken rung is named as the lowest")
    m = re.search(r"<td class=l>2: dist2[^<]*</td><td>1</td><td>(\d+)&ndash;(\d+)</td>", text)
    tap.ok(m and 28 <= int(m.group(1)) and int(m.group(2)) <= 41,
           "its worst stretch lies in the broken frames 30-39: %s" % (m and m.groups(),))
    pngs = [os.path.join(d, "report", "ladder_%s.png" % n)
            for n in ("timeline", "distribution", "rate_quality")]
    for png in pngs:
        try:
            a = mpimg.imread(png)
            okp = a.ndim == 3 and a.shape[1] >= 700 and float(a[..., :3].std()) > 0.02
        except (OSError, ValueError) as e:
            okp, a = False, e
        tap.ok(okp, "%s exists, decodes, is not blank" % os.path.basename(png),
               getattr(a, "shape", a))
    browser = chromium()
    if not browser:
        tap.skip("Chromium screenshot", "no chromium on PATH (Debian: apt-get install chromium)")
        tap.done()
    shot = os.path.join(d, "report", "screenshot.png")
    if os.path.exists(shot):
        os.unlink(shot)
    q = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", "--window-size=1280,2000",
                        "--screenshot=%s" % shot, "file://" + os.path.abspath(html)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=180)
    try:
        a = mpimg.imread(shot)
        rgb = a[..., :3]
        dark = float((rgb.mean(axis=2) < 0.85).mean())
        good_shot = a.shape[:2] == (2000, 1280) and float(rgb.std()) > 0.05 and dark > 0.03
    except (OSError, ValueError) as e:
        good_shot, dark, a = False, 0.0, e
    tap.ok(good_shot, "Chromium renders the page: a 1280 px screenshot that is not blank "
           "(%.1f%% of its pixels drawn)" % (100 * dark), q.stderr[-1500:])
    tap.done()


if __name__ == "__main__":
    main()
