"""One CUDA device per -hwaccel_device (patches/ffmpeg, doc/tool-patch.md),
without a GPU: the built ffmpeg runs on the stand-in CUDA driver of
tests/cuda/fake_libcuda.cpp.

-hwaccel cuda -hwaccel_device 0 on two inputs: the patched tool opens one
device for both; FFmpeg's own tool (configure --disable-tool-patches)
opens one per input.  The inputs are y4m clips, whose decoder has no
hwaccel, so the device each input's decoder gets is all that differs, and
the CPU fssim scores them; the tool offers its last device to the graph
when it configures it, and warns when it holds several ("There are 2
hardware devices").

And the error of two CUDA contexts (two hwupload_cuda, each making one)
names the command line that puts both inputs on one device.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fakecuda as fc          # noqa: E402
import fssimtest as ft         # noqa: E402

PATCHED = bool(os.environ.get("FSSIM_TOOL_PATCHES", "").strip())
SEVERAL = "There are 2 hardware devices"
t = ft.Tap()
SKIP = fc.setup()
WORK = ft.workdir("hwaccel-device")


def main():
    if SKIP:
        for d in ("-hwaccel_device 0 on two inputs: the tool's devices",
                  "-hwaccel_device 0 on two inputs: fssim scores the pair",
                  "two CUDA contexts: the error names -init_hw_device and -hwaccel_device"):
            t.skip(d, SKIP)
        return
    a = ft.natural_clip(64, 48, 3, "yuv420p", WORK, name="a", container="y4m")
    b = ft.natural_clip(64, 48, 3, "yuv420p", WORK, name="b", container="y4m",
                        distort=dict(blur=1.0, noise=3.0))
    dev = ["-hwaccel", "cuda", "-hwaccel_device", "0"]
    log = os.path.join(WORK, "pair.json")
    if os.path.exists(log):
        os.unlink(log)
    p = ft.ffmpeg(*dev, "-i", a.path, *dev, "-i", b.path, "-lavfi",
                  "[0:v][1:v]fssim=log_path=%s:log_fmt=json" % log, "-f", "null", "-",
                  check=False, env=fc.env())
    if PATCHED:
        t.ok(p.returncode == 0 and SEVERAL not in p.stderr,
             "-hwaccel_device 0 on two inputs: one device for both (patched tool)",
             p.stderr[-2000:])
    else:
        t.ok(p.returncode == 0 and SEVERAL in p.stderr,
             "-hwaccel_device 0 on two inputs: a device per input (FFmpeg's own tool, "
             "--disable-tool-patches)", p.stderr[-2000:])
    frames = ft.load_log(log)["frames"] if p.returncode == 0 and os.path.exists(log) else []
    t.ok(len(frames) == 3, "-hwaccel_device 0 on two inputs: fssim scores the pair "
         "(%d of 3 frames)" % len(frames), p.stderr[-2000:])

    p = ft.ffmpeg("-i", a.path, "-i", b.path, "-lavfi",
                  "[0:v]hwupload_cuda[m];[1:v]hwupload_cuda[r];[m][r]fssim_cuda",
                  "-f", "null", "-", check=False, env=fc.env())
    t.ok(p.returncode != 0 and "different CUDA devices or contexts" in p.stderr
         and "-init_hw_device cuda=g:1" in p.stderr and "-hwaccel_device g" in p.stderr
         and "-filter_hw_device g" in p.stderr,
         "two CUDA contexts: the error names -init_hw_device cuda=g:1 with -hwaccel_device g "
         "and -filter_hw_device g", p.stderr[-2000:])


main()
t.done()
