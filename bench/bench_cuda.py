#!/usr/bin/env python3
"""fssim_cuda benchmark, run on a machine with an NVIDIA GPU.

Makes natural-looking clip pairs with NVENC (a pan and zoom over a mosaic
of scikit-image's photographs, with film grain; the reference encoded at a
low QP, the distorted one at a higher QP), then times, on the same clips and
in the same run:

  decode    NVDEC decode of both streams, no filter (the baseline)
  cuda      NVDEC + fssim_cuda (algo=float+int, all planes)
  dl_ssim   NVDEC + hwdownload + FFmpeg's CPU ssim on all cores
  sw_ssim   software decode + FFmpeg's CPU ssim on all cores

and reports fps, each as a ratio to decode, the GPU time per frame pair
(CUDA events around fssim_cuda's kernels and readback), device memory, and
the time from process start to the first scored frame with an empty and a
warm driver JIT cache.

usage: bench_cuda.py FFMPEG [--out DIR] [--frames N] [--sizes 1080,2160]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time

HW = ["-hwaccel", "cuda", "-hwaccel_output_format", "cuda"]


def run(cmd, env=None, timeout=900):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=env, timeout=timeout)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.stderr.write(p.stderr[-3000:])
        raise RuntimeError("failed: " + " ".join(cmd))
    return dt, p.stderr


def mosaic(path):
    """A 2048x1152 RGB mosaic of bundled photographs, as raw rgb24."""
    import numpy as np
    import skimage.data
    from skimage.transform import resize
    names = ["astronaut", "coffee", "rocket", "hubble_deep_field", "chelsea", "immunohistochemistry"]
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


def make_clips(ff, src, sw, sh, w, h, pix, encodes, frames):
    """One pass over the source, several encodes: [(codec, qp, path)]."""
    todo = [e for e in encodes if not os.path.exists(e[2])]
    if not todo:
        return
    zoom = "zoompan=z='1.15+0.0015*on':x='(iw-iw/zoom)*(0.5+0.4*sin(on/40))':" \
           "y='(ih-ih/zoom)*(0.5+0.4*cos(on/55))':d=1:s=%dx%d:fps=60" % (w, h)
    n = len(todo)
    graph = "[0:v]%s,noise=alls=5:allf=t,format=%s,split=%d%s" % (
        zoom, pix, n, "".join("[o%d]" % i for i in range(n)))
    cmd = [ff, "-hide_banner", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-video_size",
           "%dx%d" % (sw, sh), "-framerate", "60", "-stream_loop", "-1", "-i", src,
           "-filter_complex", graph]
    for i, (codec, qp, path) in enumerate(todo):
        cmd += ["-map", "[o%d]" % i, "-frames:v", str(frames), "-c:v", codec, "-rc", "constqp",
                "-qp", str(qp), "-g", "60", "-bf", "2", path]
    run(cmd)


class MemSampler(threading.Thread):
    """Peak GPU memory in use while a command runs (nvidia-smi)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.peak = 0
        self.stop = False

    def run(self):
        while not self.stop:
            try:
                out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used",
                                      "--format=csv,noheader,nounits"],
                                     stdout=subprocess.PIPE, text=True, timeout=5).stdout
                self.peak = max(self.peak, int(out.split()[0]))
            except Exception:
                pass
            time.sleep(0.05)


def timed(cmd, frames, env=None):
    m = MemSampler()
    m.start()
    dt, err = run(cmd, env=env)
    m.stop = True
    m.join()
    gpu = re.search(r"GPU time per frame pair: ([\d.]+) us", err)
    return {"s": dt, "fps": frames / dt, "mem_mib": m.peak,
            "gpu_us": float(gpu.group(1)) if gpu else None}


def best(cmd, frames, reps=2):
    """The faster of `reps` runs (runs vary by +-15% on a shared machine)."""
    rs = [timed(cmd, frames) for _ in range(reps)]
    return max(rs, key=lambda r: r["fps"])


def bench_pair(ff, dist, ref, frames, threads, depth):
    base = [ff, "-hide_banner", "-nostdin", "-y", "-v", "verbose"]
    hw_in = HW + ["-i", dist] + HW + ["-i", ref]
    dl, sw = ("nv12", "yuv420p") if depth == "8" else ("p010", "yuv420p10")
    res = {}
    res["decode"] = best(base + hw_in + ["-map", "0:v", "-map", "1:v", "-f", "null", "-"], frames)
    res["cuda"] = best(base + hw_in + ["-lavfi", "[0:v][1:v]fssim_cuda=algo=float+int",
                                       "-f", "null", "-"], frames)
    res["dl_ssim"] = best(base + hw_in + [
        "-filter_threads", str(threads), "-lavfi",
        "[0:v]hwdownload,format=%s,format=%s[a];[1:v]hwdownload,format=%s,format=%s[b];"
        "[a][b]ssim" % (dl, sw, dl, sw), "-f", "null", "-"], frames)
    res["sw_ssim"] = best(base + ["-threads", str(threads), "-i", dist, "-threads",
                                  str(threads), "-i", ref, "-filter_threads", str(threads),
                                  "-lavfi", "[0:v][1:v]ssim", "-f", "null", "-"], frames)
    return res


def cold_start(ff, dist, ref):
    """Seconds from process start to the end of a one-frame scoring run,
    with CUDA_CACHE_DISABLE=1 (every run compiles the PTX) and warm."""
    cmd = [ff, "-hide_banner", "-nostdin", "-y"] + HW + ["-i", dist] + HW + ["-i", ref] + \
          ["-lavfi", "[0:v][1:v]fssim_cuda=algo=float+int", "-frames:v", "1", "-f", "null", "-"]
    dec = [ff, "-hide_banner", "-nostdin", "-y"] + HW + ["-i", dist] + HW + ["-i", ref] + \
          ["-map", "0:v", "-map", "1:v", "-frames:v", "1", "-f", "null", "-"]
    env_cold = dict(os.environ, CUDA_CACHE_DISABLE="1")
    out = {}
    out["cold"] = min(run(cmd, env=env_cold)[0] for _ in range(3))
    run(cmd)  # fills the cache
    out["warm"] = min(run(cmd)[0] for _ in range(3))
    out["decode_only"] = min(run(dec)[0] for _ in range(3))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ffmpeg")
    ap.add_argument("--out", default="bench-out")
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--sizes", default="1080,2160")
    ap.add_argument("--codecs", default="hevc_nvenc,h264_nvenc")
    ap.add_argument("--depths", default="8,10")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    src = os.path.join(a.out, "mosaic.rgb")
    sw, sh = mosaic(src)
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         stdout=subprocess.PIPE, text=True).stdout.strip()
    results = {"device": gpu, "frames": a.frames, "threads": a.threads, "runs": []}
    for size in a.sizes.split(","):
        w, h = {"1080": (1920, 1080), "2160": (3840, 2160)}[size]
        for depth in a.depths.split(","):
            pix = "yuv420p" if depth == "8" else "p010"
            # NVENC's H.264 has no 10-bit profile
            codecs = [c for c in a.codecs.split(",") if depth == "8" or c != "h264_nvenc"]
            clip = lambda c, qp: os.path.join(a.out, "%s_%s_%s_qp%d.mkv" % (size, c, depth, qp))
            make_clips(a.ffmpeg, src, sw, sh, w, h, pix,
                       [(c, qp, clip(c, qp)) for c in codecs for qp in (20, 34)], a.frames)
            for codec in codecs:
                ref, dist = clip(codec, 20), clip(codec, 34)
                r = bench_pair(a.ffmpeg, dist, ref, a.frames, a.threads, depth)
                entry = {"size": size, "codec": codec.split("_")[0], "depth": depth, **r}
                if size == "1080" and codec == "hevc_nvenc" and depth == "8":
                    entry["start"] = cold_start(a.ffmpeg, dist, ref)
                results["runs"].append(entry)
                d = r["decode"]["fps"]
                print("%s %s %s-bit: decode %.1f fps, fssim_cuda %.1f fps (%.3f), "
                      "hwdownload+ssim %.1f (%.3f), sw+ssim %.1f (%.3f), GPU %.1f us/frame, "
                      "mem +%d MiB" % (size, codec, depth, d, r["cuda"]["fps"],
                                       r["cuda"]["fps"] / d, r["dl_ssim"]["fps"],
                                       r["dl_ssim"]["fps"] / d, r["sw_ssim"]["fps"],
                                       r["sw_ssim"]["fps"] / d, r["cuda"]["gpu_us"] or -1,
                                       r["cuda"]["mem_mib"] - r["decode"]["mem_mib"]),
                      flush=True)
                if "start" in entry:
                    print("start to first scored frame (1080p): cold %.2f s, warm %.2f s, "
                          "decode-only %.2f s" % (entry["start"]["cold"], entry["start"]["warm"],
                                                  entry["start"]["decode_only"]), flush=True)
    with open(os.path.join(a.out, "bench_cuda.json"), "w") as f:
        json.dump(results, f, indent=1)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
