#!/usr/bin/env python3
"""Frame pairing on the GPU decoders, on a GPU machine: one H.264 encode
stored in MP4, Matroska and MPEG-TS (30000/1001 fps), each scored against
an MP4 reference by fssim (software decoding), fssim_cuda (NVDEC) and
fssim_vulkan (Vulkan Video); and a 100-frame rendition against the
150-frame reference.  Every container must give the MP4's values on every
backend (psnr exactly: its sums are exact everywhere; float to 1e-5,
vmaf_ssim to 1e-6, as doc/algorithms.md#accuracy), and the short one must
be scored on its 100 frames with 50 lacking.

The clips are made where an encoder is (the GPU machines have none):
    ffmpeg -f lavfi -i "testsrc2=s=640x360:r=30000/1001:d=5,noise=alls=5:allf=t" \
        -c:v libx264 -crf 16 -pix_fmt yuv420p ref.mp4
    ffmpeg -i ref.mp4 -c:v libx264 -crf 32 -bf 3 enc.mp4
    ffmpeg -i enc.mp4 -c copy enc.mkv; ffmpeg -i enc.mp4 -c copy enc.ts
    ffmpeg -i ref.mp4 -frames:v 100 -c:v libx264 -crf 30 short.mkv

usage: pairing_check.py FFMPEG CLIPS_DIR OUT_DIR     (TAP on stdout)
"""
import json
import os
import subprocess
import sys

TOL = {"psnr": 0.0, "float": 1e-5, "vmaf_ssim": 1e-6}
BACKENDS = {
    "fssim": ([], []),
    "fssim_cuda": (["-init_hw_device", "cuda=g", "-filter_hw_device", "g"],
                   ["-hwaccel", "cuda", "-hwaccel_device", "g", "-hwaccel_output_format", "cuda"]),
    "fssim_vulkan": (["-init_hw_device", "vulkan=g", "-filter_hw_device", "g"],
                     ["-hwaccel", "vulkan", "-hwaccel_device", "g", "-hwaccel_output_format",
                      "vulkan"]),
}
n = 0


def ok(cond, desc, diag=""):
    global n
    n += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, desc))
    if not cond and diag:
        for line in str(diag).splitlines()[-15:]:
            print("# " + line)
    sys.stdout.flush()


def score(ffmpeg, filt, dist, ref, out, tag):
    dev, per = BACKENDS[filt]
    log = os.path.join(out, tag + ".json")
    cmd = [ffmpeg, "-hide_banner", "-nostdin", "-y", "-v", "error"] + dev + per + \
        ["-i", dist] + per + ["-i", ref, "-lavfi", "[0:v][1:v]%s=algo=psnr+float+vmaf_ssim:"
                              "log_path=%s" % (filt, log), "-f", "null", "-"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=120)
    if p.returncode != 0:
        return None, p.stderr
    with open(log) as f:
        return json.load(f), p.stderr


def values(log):
    return {f["n"]: {a: f[a]["All"] for a in TOL} for f in log["frames"]}


def main():
    ffmpeg, clips, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    ref = os.path.join(clips, "ref.mp4")
    base, err = score(ffmpeg, "fssim", os.path.join(clips, "enc.mp4"), ref, out, "cpu_mp4")
    ok(base is not None and base["frame_count"] == 150, "fssim, MP4 against MP4: 150 frames",
       err)
    want = values(base) if base else {}
    for filt in BACKENDS:
        for ext in ("mp4", "mkv", "ts"):
            lg, err = score(ffmpeg, filt, os.path.join(clips, "enc." + ext), ref, out,
                            "%s_%s" % (filt, ext))
            got = values(lg) if lg else {}
            worst = {a: max((abs(got[k][a] - want[k][a]) for k in want if k in got),
                            default=None) for a in TOL}
            good = lg is not None and set(got) == set(want) and \
                all(worst[a] is not None and worst[a] <= TOL[a] for a in TOL)
            ok(good, "%s, the encode in %s: every frame paired as the MP4's on the CPU "
               "(max diff %s)" % (filt, ext.upper(), worst), err)
        lg, err = score(ffmpeg, filt, os.path.join(clips, "short.mkv"), ref, out,
                        filt + "_short")
        e = (lg or {}).get("pairing", {}).get("inputs", [{}])[0]
        ok(lg is not None and lg["frame_count"] == 100 and
           (e.get("paired"), e.get("lacks"), e.get("excess")) == (100, 50, 0),
           "%s, a 100-frame rendition of the 150-frame reference: 100 scored, 50 lacking"
           % filt, err or (lg and lg.get("pairing")))
    print("1..%d" % n)


main()
