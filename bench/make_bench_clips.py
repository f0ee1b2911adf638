#!/usr/bin/env python3
"""Make the clip pairs that bench/bench_cuda.py decodes: a pan and zoom over
a mosaic of scikit-image's photographs with light grain, encoded by
libx264/libx265 (the GPU machines have NVDEC but no NVENC) at a low QP (the
reference) and a higher QP (the distorted rendition).

usage: make_bench_clips.py OUT_DIR [--frames N] [--sizes 1080,2160] [--ladder]
  --ladder  also the renditions of an encoder ladder of the 2160p content:
            H.264 at 1440p, 1080p, 720p, 540p and 360p (ladder_<h>.mkv), the
            2160p HEVC clips being its reference and top rendition
Needs numpy, scikit-image and an ffmpeg with libx264/libx265 (ENCODER_FFMPEG
or the one on PATH).
"""
import argparse
import os
import subprocess

import numpy as np


def mosaic(path):
    """A 2048x1152 RGB mosaic of bundled photographs, as raw rgb24."""
    import skimage.data
    from skimage.transform import resize
    names = ["astronaut", "coffee", "rocket", "hubble_deep_field", "chelsea",
             "immunohistochemistry"]
    tiles = []
    for n in names:
        a = getattr(skimage.data, n)()
        if a.ndim == 2:
            a = np.stack([a] * 3, -1)
        tiles.append(resize(a[..., :3], (576, 683), anti_aliasing=True))
    rows = [np.concatenate(tiles[i:i + 3], 1) for i in (0, 3)]
    img = (np.concatenate(rows, 0)[:, :2048] * 255).round().astype(np.uint8)
    img.tofile(path)
    return img.shape[1], img.shape[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--sizes", default="1080,2160")
    ap.add_argument("--ladder", action="store_true")
    a = ap.parse_args()
    enc = os.environ.get("ENCODER_FFMPEG") or "ffmpeg"
    os.makedirs(a.out, exist_ok=True)
    src = os.path.join(a.out, "mosaic.rgb")
    sw, sh = mosaic(src)
    for size in a.sizes.split(","):
        w, h = {"1080": (1920, 1080), "2160": (3840, 2160)}[size]
        zoom = ("zoompan=z='1.15+0.002*on':x='(iw-iw/zoom)*(0.5+0.4*sin(on/20))':"
                "y='(ih-ih/zoom)*(0.5+0.4*cos(on/27))':d=1:s=%dx%d:fps=60" % (w, h))
        for depth, pix in (("8", "yuv420p"), ("10", "yuv420p10le")):
            encodes = [("hevc", "libx265", q) for q in (22, 34)]
            if depth == "8":    # NVDEC decodes 8-bit H.264 only
                encodes += [("h264", "libx264", q) for q in (22, 34)]
            n = len(encodes)
            graph = "[0:v]%s,noise=alls=2:allf=t,format=%s,split=%d%s" % (
                zoom, pix, n, "".join("[o%d]" % i for i in range(n)))
            cmd = [enc, "-hide_banner", "-v", "error", "-y", "-f", "rawvideo",
                   "-pix_fmt", "rgb24", "-video_size", "%dx%d" % (sw, sh), "-framerate", "60",
                   "-stream_loop", "-1", "-i", src, "-filter_complex", graph]
            for i, (name, codec, qp) in enumerate(encodes):
                path = os.path.join(a.out, "%s_%s_%s_qp%d.mkv" % (size, name, depth, qp))
                cmd += ["-map", "[o%d]" % i, "-frames:v", str(a.frames), "-c:v", codec,
                        "-preset", "ultrafast", "-g", "30"]
                cmd += (["-x265-params", "qp=%d:log-level=error" % qp] if codec == "libx265"
                        else ["-qp", str(qp)])
                cmd += [path]
            subprocess.run(cmd, check=True)
            print(size, depth, "ok", flush=True)
    if a.ladder:
        ladder(enc, src, sw, sh, a)
    os.unlink(src)


LADDER = (1440, 1080, 720, 540, 360)


def ladder(enc, src, sw, sh, a):
    """The 2160p content scaled to each rung (16:9, even sizes) and encoded
    by libx264, as a ladder's renditions."""
    w, h = 3840, 2160
    zoom = ("zoompan=z='1.15+0.002*on':x='(iw-iw/zoom)*(0.5+0.4*sin(on/20))':"
            "y='(ih-ih/zoom)*(0.5+0.4*cos(on/27))':d=1:s=%dx%d:fps=60" % (w, h))
    n = len(LADDER)
    graph = "[0:v]%s,noise=alls=2:allf=t,format=yuv420p,split=%d%s" % (
        zoom, n, "".join("[s%d]" % i for i in range(n)))
    for i, rh in enumerate(LADDER):
        graph += ";[s%d]scale=%d:%d:flags=bicubic[o%d]" % (i, (rh * 16 // 9) // 2 * 2, rh, i)
    cmd = [enc, "-hide_banner", "-v", "error", "-y", "-f", "rawvideo",
           "-pix_fmt", "rgb24", "-video_size", "%dx%d" % (sw, sh), "-framerate", "60",
           "-stream_loop", "-1", "-i", src, "-filter_complex", graph]
    for i, rh in enumerate(LADDER):
        cmd += ["-map", "[o%d]" % i, "-frames:v", str(a.frames), "-c:v", "libx264",
                "-preset", "ultrafast", "-g", "30", "-qp", "28",
                os.path.join(a.out, "ladder_%d.mkv" % rh)]
    subprocess.run(cmd, check=True)
    print("ladder ok", flush=True)


if __name__ == "__main__":
    main()
