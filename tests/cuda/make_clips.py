"""Encode the clips that tests/cuda/test_cuda.py decodes with NVDEC: natural
content (fssimtest.natural_frames) in H.264 and HEVC, 8 and 10-bit, 4:2:0
and 4:4:4, each at a high and a low quality (name_hi.mkv, name_lo.mkv).

The GPU machines have NVDEC but no NVENC, so the clips are made where
libx264/libx265 are (ENCODER_FFMPEG, default: the ffmpeg on PATH) and
carried along.

usage: make_clips.py OUT_DIR
"""
import os
import subprocess
import sys

from fssimtest import natural_frames, write_y4m, ENCODER_FFMPEG

CLIPS = [
    # name,           codec,     pix_fmt,      w,    h,   frames
    ("h264_8bit",     "libx264", "yuv420p",    640,  360, 24),
    ("h264_odd",      "libx264", "yuv420p",    638,  358, 12),
    ("hevc_8bit",     "libx265", "yuv420p",    1280, 720, 24),
    ("hevc_10bit",    "libx265", "yuv420p10",  1280, 720, 24),
    ("hevc_444",      "libx265", "yuv444p",    352,  288, 12),
    ("hevc_444_10bit", "libx265", "yuv444p10", 352,  288, 12),
]
QUALITY = {"hi": "16", "lo": "40"}


def main():
    out = sys.argv[1]
    enc = ENCODER_FFMPEG or "ffmpeg"
    os.makedirs(out, exist_ok=True)
    for name, codec, pix, w, h, n in CLIPS:
        y4m = os.path.join(out, name + ".y4m")
        write_y4m(y4m, natural_frames(w, h, n, pix, image="coffee", seed=5), pix)
        for q, crf in QUALITY.items():
            path = os.path.join(out, "%s_%s.mkv" % (name, q))
            extra = ["-x265-params", "log-level=error"] if codec == "libx265" else []
            subprocess.run([enc, "-hide_banner", "-v", "error", "-y", "-i", y4m, "-c:v", codec,
                            "-preset", "fast", "-crf", crf, "-g", "12"] + extra + [path],
                           check=True)
        os.unlink(y4m)
        print(name, "ok")


if __name__ == "__main__":
    main()
