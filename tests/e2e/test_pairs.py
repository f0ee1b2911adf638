#!/usr/bin/env python3
"""Two inputs of different sizes and formats (doc/formats.md#sizes-and-formats):
the main input resampled to the reference's planes and bit depth.

1. Sizes: a main input smaller (upscaled), larger (downscaled), of odd
   sizes, every scaler, scores what the main input resampled by an
   independent implementation of the resampler (tests/lib/resample_np.py)
   and then scored at the reference's size scores: the CPU computes the
   same doubles from the same samples, so every value is equal (psnr's too).
2. Formats: bit depth up and down (8 to 16 bits), chroma subsampling
   (4:2:0, 4:2:2, 4:4:4 both ways), layout (planar, NV12/NV21, P010,
   MSB-aligned), gray, GBR, alpha; the same comparison.  A format that
   lies in its frames as the reference's (yuvj420p against yuv420p) is
   scored in place, not resampled.
3. Outputs: the main frames go out untouched at their own size, with the
   pair's keys (lavfi.fssim.<algo>.<c>); the log's input section records
   the main input's size and format and that it was resampled (JSON and
   CSV), and nothing where it is not.
4. Errors: another colour family or set of components (GBR against YUV,
   gray against YUV, alpha on one side) names the pad and both formats;
   scale=none keeps the size error and refuses another chroma subsampling,
   and scores another bit depth.
5. fssim3d: its moments of the resampled main planes; the same comparison.
"""
import os
import re

import fssimtest as ft
from resample_np import resample_frame

t = ft.Tap()
WORK = ft.workdir("pairs")
ALGOS = ("float", "int", "block", "psnr")
OPTS = "algo=float+int+block+psnr"


def clip(w, h, fmt, name, distort=None, n=3, seed=3):
    return ft.natural_clip(w, h, n, fmt, WORK, name, image="coffee", seed=seed, distort=distort)


def resampled(main, ref, name, scaler="bicubic"):
    """main's frames brought to ref's planes and depth by the numpy resampler,
    stored in ref's format."""
    frames = [resample_frame(fr, main.fmt, ref.fmt, ref.w, ref.h, scaler) for fr in main.frames]
    return ft.natural_clip(ref.w, ref.h, len(frames), ref.fmt, WORK, name, frames=frames)


def values(log, algos):
    return [{a: fr[a] for a in algos} for fr in log["frames"]]


def compare(name, main, ref, options="", scaler="bicubic", resample=True):
    """fssim on (main, ref) equals fssim on (main resampled here, ref)."""
    tag = re.sub(r"\W+", "_", name)
    opts = OPTS + (":" + options if options else "")
    try:
        got = ft.run_fssim(main, ref, opts, directory=WORK, tag=tag)["log"]
    except RuntimeError as e:
        t.ok(False, "%s: fssim scores %s %dx%d against %s %dx%d" % (
            name, main.pix_fmt, main.w, main.h, ref.pix_fmt, ref.w, ref.h), e)
        return None
    rs = resampled(main, ref, tag + "_rs", scaler) if resample else main
    want = ft.run_fssim(rs, ref, OPTS, directory=WORK, tag=tag + "_alone")["log"]
    bad = [(i, a, c, g[a][c], w[a][c]) for i, (g, w) in
           enumerate(zip(values(got, ALGOS), values(want, ALGOS)))
           for a in ALGOS for c in g[a] if g[a][c] != w[a][c]]
    t.ok(got["frame_count"] == main.nb_frames and not bad,
         "%s: %s %dx%d against %s %dx%d scores what the main input %s scores, every value "
         "equal (%s)" % (name, main.pix_fmt, main.w, main.h, ref.pix_fmt, ref.w, ref.h,
                         "resampled independently" if resample else "as it is",
                         ", ".join(ALGOS)), bad[:6])
    rec = got["input"].get("main")
    if resample:
        t.ok(rec == {"pad": "main", "pix_fmt": main.pix_fmt, "width": main.w,
                     "height": main.h, "bit_depth": main.fmt.depth, "resampled": True},
             "%s: the log's input records the main input's format and size, resampled" % name,
             got["input"])
    else:
        t.ok(rec is None and got["input"]["pix_fmt"] == ref.pix_fmt,
             "%s: scored in place, the log's input as for one format" % name, got["input"])
    return got


# ---- 1. sizes ---------------------------------------------------------------

SIZES = [
    # name, format, reference size, main size, scaler
    ("upscaled", "yuv420p", (96, 64), (48, 32), "bicubic"),
    ("1.5x, a 720p encode against its 1080p source", "yuv420p", (192, 108), (128, 72),
     "bicubic"),
    ("downscaled, odd sizes", "yuv420p", (71, 53), (101, 77), "bicubic"),
    ("odd, upscaled, bilinear", "yuv444p", (65, 47), (33, 23), "bilinear"),
    ("10-bit lanczos", "yuv420p10le", (80, 48), (57, 35), "lanczos"),
    ("gray16 downscaled lanczos", "gray16le", (40, 30), (64, 52), "lanczos"),
]

for name, fmt, (rw, rh), (mw, mh), scaler in SIZES:
    tag = re.sub(r"\W+", "_", name)
    ref = clip(rw, rh, fmt, tag + "_ref")
    main = clip(mw, mh, fmt, tag + "_main", distort={"blur": 0.8, "noise": 3, "seed": 4})
    compare("sizes, " + name, main, ref, "scaler=" + scaler, scaler)

# ---- 2. formats -------------------------------------------------------------

FORMATS = [
    # name, main format, reference format, main size, reference size
    ("8-bit 4:2:0 against a 10-bit 4:2:2 mezzanine", "yuv420p", "yuv422p10le", (64, 48), None),
    ("nv12 against yuv444p12", "nv12", "yuv444p12le", (64, 48), None),
    ("p010 against yuv420p (10 -> 8 bits)", "p010le", "yuv420p", (64, 48), None),
    ("gray against gray10", "gray", "gray10le", (48, 40), None),
    ("yuv420p10 against yuv420p", "yuv420p10le", "yuv420p", (64, 48), None),
    ("gbrp against gbrp12", "gbrp", "gbrp12le", (48, 32), None),
    ("yuva420p against yuva444p10", "yuva420p", "yuva444p10le", (48, 32), None),
    ("yuv444p12 against p010 (chroma down)", "yuv444p12le", "p010le", (64, 48), None),
    ("nv21 against nv12 (layout alone)", "nv21", "nv12", (64, 48), None),
    ("yuv444p10msb against yuv444p16", "yuv444p10msb", "yuv444p16le", (40, 32), None),
    ("a 720p 8-bit encode against a 1080p 10-bit 4:2:2 source", "yuv420p", "yuv422p10le",
     (128, 72), (192, 108)),
]

for name, mfmt, rfmt, (mw, mh), rsize in FORMATS:
    tag = re.sub(r"\W+", "_", name)
    rw, rh = rsize or (mw, mh)
    ref = clip(rw, rh, rfmt, tag + "_ref")
    main = clip(mw, mh, mfmt, tag + "_main", distort={"blur": 0.8, "noise": 3, "seed": 5})
    compare("formats, " + name, main, ref)

# the same layout under another name: scored in place
ref = clip(64, 48, "yuv420p", "inplace_ref")
main = ft.natural_clip(64, 48, 3, "yuvj420p", WORK, "inplace_main",
                       frames=clip(64, 48, "yuv420p", "inplace_src",
                                   distort={"noise": 4}).frames)
compare("formats, yuvj420p against yuv420p (one layout)", main, ref, resample=False)

# ---- 3. outputs -------------------------------------------------------------

ref = clip(96, 64, "yuv422p10le", "out_ref", n=4)
main = clip(48, 32, "yuv420p", "out_main", distort={"noise": 3}, n=4)
raw = os.path.join(WORK, "out.yuv")
meta = os.path.join(WORK, "out.meta")
csv = os.path.join(WORK, "out.csv")
p = ft.ffmpeg(*(main.input_args() + ref.input_args() +
                ["-lavfi", "[0:v][1:v]fssim=algo=float+psnr:log_fmt=csv:log_path=%s,"
                 "metadata=print:file=%s" % (csv, meta), "-f", "rawvideo", "-pix_fmt",
                 main.pix_fmt, "-y", raw]), check=False)
if t.ok(p.returncode == 0, "outputs: a 48x32 yuv420p main against a 96x64 yuv422p10 reference",
        p.stderr[-2000:]):
    with open(raw, "rb") as a, open(main.path, "rb") as b:
        t.ok(a.read() == b.read(), "outputs: the main frames go out untouched, at 48x32 yuv420p")
    md = ft.read_metadata(meta)
    keys = set(md[0]["tags"]) if md else set()
    want = {"lavfi.fssim.%s.%s" % (a, c) for a in ("float", "psnr") for c in "YUV"}
    t.ok(len(md) == 4 and want <= keys and not any(re.match(r"lavfi\.fssim\.\d", k) for k in keys),
         "outputs: the pair's keys lavfi.fssim.<algo>.<c> on the 4 main frames", sorted(keys))
    lines = open(csv).read().splitlines()
    t.ok("# input pix_fmt=yuv422p10le width=96 height=64 bit_depth=10" in lines and
         "# main pad=main width=48 height=32 resampled=1 pix_fmt=yuv420p bit_depth=8" in lines,
         "CSV: the input line, then the main input's, resampled", "\n".join(lines[:4]))
same = clip(96, 64, "yuv422p10le", "out_same", distort={"noise": 3}, n=2)
lg = ft.run_fssim(same, ref, "algo=int", directory=WORK, tag="out_same")["log"]
t.ok("main" not in lg["input"], "JSON: no main record where the formats and sizes match",
     lg["input"])

# ---- 4. errors --------------------------------------------------------------


def fails(desc, args, patterns):
    p = ft.ffmpeg(*args, check=False)
    bad = [x for x in patterns if not re.search(x, p.stderr)]
    t.ok(p.returncode != 0 and not bad, "error: %s (%s)" % (desc, ", ".join(patterns)),
         "missing %s in:\n%s" % (bad, p.stderr[-1500:]))


a = clip(64, 48, "yuv420p", "err_a", n=2)
for fmt, fam, desc in (("gbrp", "GBR", "GBR against YUV"),
                       ("gray", "GRAY", "gray against YUV"),
                       ("yuva420p", "YUV with alpha", "alpha on one side")):
    for filt in ("fssim", "fssim3d=depth=1"):
        fails("%s, %s" % (desc, filt.split("=")[0]),
              a.input_args() + a.input_args() +
              ["-lavfi", "[0:v]format=%s[m];[m][1:v]%s" % (fmt, filt), "-f", "null", "-"],
              [r"formats differ", r"main is %s \(%s\)" % (fmt, re.escape(fam)),
               r"reference is yuv420p \(YUV\)", r"format=yuv420p"])
b = clip(48, 32, "yuv420p", "err_b", n=2)
fails("scale=none, sizes differ", b.input_args() + a.input_args() +
      ["-lavfi", "[0:v][1:v]fssim=scale=none", "-f", "null", "-"],
      [r"sizes differ", r"main is 48x32", r"reference is 64x48", r"scale=auto",
       r"scale=64:48 on main"])
fails("scale=none, chroma subsampling differs", a.input_args() + a.input_args() +
      ["-lavfi", "[1:v]format=yuv444p[r];[0:v][r]fssim=scale=none", "-f", "null", "-"],
      [r"chroma subsampling differs", r"main is yuv420p", r"reference is yuv444p",
       r"scale=auto"])
p = ft.ffmpeg(*(a.input_args() + a.input_args() +
                ["-lavfi", "[1:v]format=yuv420p10[r];[0:v][r]fssim=scale=none", "-f", "null",
                 "-"]), check=False)
t.ok(p.returncode == 0, "scale=none: another bit depth of the same planes is scored",
     p.stderr[-1500:])

# ---- 5. fssim3d -------------------------------------------------------------

ref = clip(64, 48, "yuv420p10le", "f3d_ref", n=5)
main = clip(48, 36, "yuv420p", "f3d_main", distort={"blur": 0.8, "noise": 3}, n=5)
rs = resampled(main, ref, "f3d_rs")
got = ft.run_fssim(main, ref, "depth=3", filter_name="fssim3d", directory=WORK,
                   tag="f3d")["log"]
want = ft.run_fssim(rs, ref, "depth=3", filter_name="fssim3d", directory=WORK,
                    tag="f3d_alone")["log"]
t.ok(got["frame_count"] == 5 and ft.per_frame(got, "fssim3d") == ft.per_frame(want, "fssim3d"),
     "fssim3d: a 48x36 yuv420p main against a 64x48 yuv420p10 reference scores what the "
     "independently resampled main scores, every value equal")
t.ok(got["input"].get("main", {}).get("resampled") is True,
     "fssim3d: the log's input records the resampled main input", got["input"])
t.done()
