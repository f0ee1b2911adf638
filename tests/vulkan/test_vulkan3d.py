#!/usr/bin/env python3
"""fssim3d on Vulkan frames against fssim3d on software frames.

Every comparison scores the same stored frames twice: fssim3d on software
frames (the software backend, double throughout) and fssim3d on Vulkan
frames made by hwupload on one filter device (the Vulkan backend), and
compares every component of every frame to 1e-9 (doc/algorithms.md#fssim3d).
The cases cover 8-, 10- and 16-bit samples, planar, semi-planar (multi-plane
images) and gray formats, odd sizes, depth 1/3/5/11, tpadding valid and
truncate, padding same and valid, windows 3, 7, 11 and 15, and a main input
of another size or format than the reference, resampled on the device.  Also: flat frames;
identical inputs score exactly 1; two runs are bitwise identical; runs cut
short (-frames:v, SIGINT) leave a valid log whose every frame equals the
software backend's on the frames that reached the filter; an unwritable
log fails the run; bad inputs fail with the messages of doc/errors.md; a
lost device (tests/vulkan/fault_layer.c) fails the run naming the error and
the log holds only completely scored frames.  Where the Khronos validation
layer is installed every run has it, and any message of it fails a check
(vkcheck.py).

Content comes from the built ffmpeg's own sources (testsrc2 with noise;
geq for 16-bit detail), so this runs with the Python standard library alone,
e.g. on a GPU machine.

Environment:
  FSSIM_VULKAN_DEVICE   as for test_vulkan.py (default 0)
  FSSIM_VULKAN_DEVICE_TESTS  1: also the sizes meant for a GPU (1080p, 2160p)
  FFMPEG_TREE           the FFmpeg build tree, for the API set-ups
                        (tests/vulkan/vk_graph_errors.c)

Without a Vulkan device, or without fssim3d's Vulkan backend, every check
reports SKIP with the reason.
"""
import json
import os
import re
import signal
import subprocess
import time

import fssimtest as ft
import vkcheck
import vktest

TOL = 1e-9
DEVICE = os.environ.get("FSSIM_VULKAN_DEVICE", "0")
BIG = os.environ.get("FSSIM_VULKAN_DEVICE_TESTS", "") not in ("", "0")
HW = ["-init_hw_device", "vulkan=vk:%s" % DEVICE, "-filter_hw_device", "vk"]
CRASH = re.compile(r"Assertion|Segmentation|core dumped|AddressSanitizer|LeakSanitizer|"
                   r"runtime error:|double free|stack smashing|Aborted", re.I)
LAYER_DIR = vktest.LAYER_DIR

tap = ft.Tap()
val = vkcheck.Validation(ft)   # every ffmpeg run from here on
WORK = ft.workdir("vulkan3d")
summary = []                   # (case, max diff)


# ---- clips -------------------------------------------------------------

def noise16(amp, seed, gray):
    """geq adding fine 16-bit detail and noise to every plane of a 16-bit
    planar YUV or gray frame."""
    def e(p, k):
        return ("clip(%s(X,Y)+%d*sin(X/5.3+%d)*cos(Y/3.7+T)+%d*(random(%d)-0.5),0,65535)"
                % (p, amp, k + seed, amp, k))
    if gray:
        return "geq=lum='%s'" % e("lum", 0)
    return "geq=lum='%s':cb='%s':cr='%s'" % (e("lum", 0), e("cb", 1), e("cr", 2))


def make_clip(name, fmt, w, h, n, chain):
    return vktest.make_clip(WORK, name, fmt, w, h, n, chain)


def clips(fmt, w, h, n, kind="natural"):
    """(main, reference) ffmpeg input arguments of stored raw clips:
    testsrc2's moving content, the reference blurred and noisy."""
    tag = "%s_%dx%d_%d_%s" % (fmt, w, h, n, kind)
    # sources round odd sizes to even ones: crop instead
    src = "testsrc2=s=%dx%d:r=25,crop=%d:%d:0:0:exact=1" % (w + (w & 1), h + (h & 1), w, h)
    if kind == "flat":
        main = "color=c=0x5a6e82:s=%dx%d:r=25,format=%s" % (w, h, fmt)
        ref = "color=c=0x5a6e84:s=%dx%d:r=25,format=%s" % (w, h, fmt)
    elif re.search(r"1[026]le$|^p01", fmt):
        # deep samples: 16-bit detail below the 8-bit source's steps
        gray = fmt.startswith("gray")
        p16 = "gray16le" if gray else "yuv444p16le"
        base = "%s,format=%s,%s" % (src, p16, noise16(900, 1, gray))
        main = "%s,format=%s" % (base, fmt)
        ref = "%s,avgblur=sizeX=1,%s,format=%s" % (base, noise16(700, 5, gray), fmt)
    else:
        main = "%s,format=%s" % (src, fmt)
        ref = "%s,avgblur=sizeX=1,noise=alls=14:allf=t,format=%s" % (src, fmt)
    return (make_clip(tag + "_m", fmt, w, h, n, main),
            make_clip(tag + "_r", fmt, w, h, n, ref))


# ---- running ------------------------------------------------------------

def log_path(tag):
    path = os.path.join(WORK, tag + ".json")
    if os.path.exists(path):
        os.unlink(path)
    return path


def load(path):
    try:
        return ft.load_log(path)
    except (OSError, ValueError):
        return None


def score(inputs, graph, tag, hw=True, extra=(), env=None, timeout=300):
    """Run a graph whose fssim3d writes log_path=@LOG@; returns (parsed log
    or None, CompletedProcess)."""
    log = log_path(tag)
    args = (HW if hw else []) + list(inputs) + ["-lavfi", graph.replace("@LOG@", log)] + \
        list(extra) + ["-f", "null", "-"]
    try:
        p = ft.ffmpeg(*args, check=False, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        p = subprocess.CompletedProcess(args, -1, "", "timeout after %ss" % e.timeout)
    return (load(log) if p.returncode == 0 else None), p


def vk_graph(opts, trim=None):
    t = "trim=end_frame=%d," % trim if trim else ""
    return "[0:v]%shwupload[m];[1:v]%shwupload[r];[m][r]fssim3d=%s:log_path=@LOG@" % (
        t, t, opts)


def cpu_graph(opts, trim=None):
    if trim:
        return ("[0:v]trim=end_frame=%d[m];[1:v]trim=end_frame=%d[r];"
                "[m][r]fssim3d=%s:log_path=@LOG@" % (trim, trim, opts))
    return "[0:v][1:v]fssim3d=%s:log_path=@LOG@" % opts


def max_diff(cpu, gpu, frames=None):
    """Largest |gpu - cpu| over the frames of gpu (or those numbered in
    frames) and every component (not dB), and where."""
    ref = {f["n"]: f["fssim3d"] for f in cpu["frames"]}
    worst, where = 0.0, None
    for f in gpu["frames"]:
        if frames is not None and f["n"] not in frames:
            continue
        r = ref.get(f["n"])
        if r is None:
            return float("inf"), "frame %d not scored by the software backend" % f["n"]
        for c, v in f["fssim3d"].items():
            if c == "dB":
                continue
            w = r.get(c)
            d = abs(v - w) if v is not None and w is not None else float("inf")
            if d > worst:
                worst, where = d, (f["n"], c, w, v)
    return worst, where


def compare(case, fmt, w, h, n, opts, kind="natural", nb_scored=None, twice=False):
    """fssim3d on Vulkan frames == on software frames within TOL, every frame
    and component."""
    inputs = sum(clips(fmt, w, h, n, kind), [])
    cpu, pc = score(inputs, cpu_graph(opts), case + "_cpu", hw=False)
    gpu, pg = score(inputs, vk_graph(opts), case + "_vk")
    if not tap.ok(cpu is not None, "%s: fssim3d on software frames runs" % case,
                  pc.stderr[-2000:]):
        return None
    if not tap.ok(gpu is not None and not CRASH.search(pg.stderr),
                  "%s: fssim3d on Vulkan frames runs (%s %dx%d, %d frames, %s)"
                  % (case, fmt, w, h, n, opts), pg.stderr[-3000:]):
        return None
    want = n if nb_scored is None else nb_scored
    tap.ok([f["n"] for f in gpu["frames"]] == [f["n"] for f in cpu["frames"]] and
           len(gpu["frames"]) == gpu["frame_count"] == want and
           gpu["input"]["pix_fmt"] == cpu["input"]["pix_fmt"],
           "%s: the same %d frames scored, %s" % (case, want, cpu["input"]["pix_fmt"]),
           "gpu %s cpu %s" % ([f["n"] for f in gpu["frames"]], [f["n"] for f in cpu["frames"]]))
    d, where = max_diff(cpu, gpu)
    summary.append((case, d))
    tap.ok(d <= TOL, "%s: every frame and component within %g of the software backend "
           "(max diff %.3g)" % (case, TOL, d), "frame/comp/cpu/gpu %r" % (where,))
    if twice:
        again, pa = score(inputs, vk_graph(opts), case + "_vk2")
        tap.ok(again is not None and again["frames"] == gpu["frames"],
               "%s: two runs give bitwise identical values (17 significant digits)" % case,
               pa.stderr[-1500:])
    return gpu


# ---- the checks ----------------------------------------------------------

def vulkan_device():
    """None if fssim3d scores Vulkan frames here, else why not."""
    if not ft.has_filter("fssim3d"):
        return "fssim3d not built"
    if not ft.has_filter("fssim_vulkan"):
        return "FFmpeg built without Vulkan (fssim3d's Vulkan backend is built with fssim_vulkan)"
    p = ft.ffmpeg(*HW, "-f", "lavfi", "-i", "color=s=64x64:d=0.04,format=yuv420p",
                  "-vf", "hwupload", "-f", "null", "-", check=False)
    if p.returncode != 0:
        return "no Vulkan device (-init_hw_device vulkan=vk:%s)" % DEVICE
    return None


def check_accuracy():
    compare("yuv420p-depth11", "yuv420p", 96, 64, 13, "depth=11")
    # many score workgroups per component, every one's partial sum
    compare("yuv420p-352x288", "yuv420p", 352, 288, 12, "depth=11", twice=True)
    compare("nv12-tvalid", "nv12", 80, 48, 8, "depth=5:tpadding=valid", nb_scored=4)
    compare("p010-same-w7", "p010le", 64, 48, 6, "depth=3:padding=same:window=7:sigma=1")
    compare("yuv444p-odd", "yuv444p", 35, 19, 5, "depth=5:window=7:sigma=1.1")
    compare("gray-depth1", "gray", 64, 48, 3, "depth=1:padding=same")
    compare("yuv420p10-tvalid-w7", "yuv420p10le", 70, 46, 13,
            "depth=11:tpadding=valid:window=7:padding=same", nb_scored=3)
    compare("yuv420p16", "yuv420p16le", 48, 40, 6, "depth=3")
    compare("gray16-w15", "gray16le", 40, 30, 4, "depth=3:window=15:sigma=3:padding=same")
    compare("yuv420p-w3", "yuv420p", 50, 34, 5, "depth=3:window=3:sigma=0.5")
    if BIG:
        # ring slots larger than lavapipe's 128 MiB descriptor range, a full ring
        compare("2160p-nv12", "nv12", 3840, 2160, 4, "depth=3")
        compare("2160p-p010-same", "p010le", 3840, 2160, 3, "depth=3:padding=same")
        compare("1080p-depth11", "yuv420p", 1920, 1080, 13, "depth=11", twice=True)
    # no variance anywhere: c1 and c2 alone, the means' rounding
    compare("flat", "yuv420p", 48, 32, 4, "depth=5", kind="flat")


def check_pairs():
    """A main input of another size or format: the moments of its planes
    resampled on the device to the reference's (fssim_resample.comp.glsl),
    read by the spatial pass from the resampler's buffer."""
    for case, mfmt, (mw, mh), rfmt, (rw, rh), opts in (
            ("pair yuv420p 48x36 against yuv420p10 64x48", "yuv420p", (48, 36), "yuv420p10le",
             (64, 48), "depth=3"),
            ("pair p010 against yuv444p, padding=same", "p010le", (64, 48), "yuv444p",
             (64, 48), "depth=5:padding=same:window=7:sigma=1"),
            ("pair nv12 80x60 down to yuv420p 56x42, lanczos", "nv12", (80, 60), "yuv420p",
             (56, 42), "depth=3:scaler=lanczos")):
        inputs = clips(mfmt, mw, mh, 5)[0] + clips(rfmt, rw, rh, 5)[1]
        cpu, pc = score(inputs, cpu_graph(opts), re.sub(r"\W+", "_", case) + "_cpu", hw=False)
        gpu, pg = score(inputs, vk_graph(opts), re.sub(r"\W+", "_", case) + "_vk")
        if not tap.ok(cpu is not None and gpu is not None and not CRASH.search(pg.stderr),
                      "%s: fssim3d on software and on Vulkan frames run (%s)" % (case, opts),
                      (pc.stderr + pg.stderr)[-3000:]):
            continue
        d, where = max_diff(cpu, gpu)
        summary.append((case, d))
        tap.ok(len(gpu["frames"]) == 5 and gpu["input"] == cpu["input"] and
               gpu["input"].get("main", {}).get("resampled") is True and d <= TOL,
               "%s: the main input resampled, every frame and component within %g of the "
               "software backend (max diff %.3g)" % (case, TOL, d),
               "frame/comp/cpu/gpu %r; input %r" % (where, gpu["input"]))


def check_peers():
    """The Vulkan backend against the peers of doc/algorithms.md#fssim3d
    directly, where numpy and scikit-image are installed: under
    padding=valid:tpadding=valid, window=depth=11, the pooled mean of each
    component equals scikit-image's n-D SSIM of the (t, y, x) volume to
    1e-5, and every frame an independent float64 evaluation
    (tests/lib/fssim3d_naive.py) to 1e-9."""
    try:
        import fssim3d_naive as n3
        import skimage.metrics  # noqa: F401 (fssim3d_naive imports it when used)
    except ImportError as e:
        tap.skip("fssim3d on Vulkan frames against scikit-image and a float64 evaluation",
                 "needs numpy and scikit-image: %s" % e)
        return
    w, h, n = 48, 40, 16
    for pix_fmt, bits, comps in (("gray", 8, "Y"), ("gray16le", 16, "Y"),
                                 ("yuv420p", 8, "YUV")):
        case = "peers-" + pix_fmt
        ref, dist = n3.clip(n, h, w, pix_fmt, seed=3)
        paths = [os.path.join(WORK, "%s_%s.raw" % (case, x)) for x in ("m", "r")]
        n3.write_raw(paths[0], dist, bits)
        n3.write_raw(paths[1], ref, bits)
        inputs = n3.raw_input(paths[0], pix_fmt, w, h) + n3.raw_input(paths[1], pix_fmt, w, h)
        gpu, p = score(inputs, vk_graph("padding=valid:tpadding=valid:window=11:depth=11:"
                                        "sigma=1.5:tsigma=1.5"), case)
        if not tap.ok(gpu is not None and gpu["frame_count"] == n - 10,
                      "%s: runs, frames 5..%d scored" % (case, n - 6), p.stderr[-2000:]):
            continue
        L = (1 << bits) - 1
        worst_sk = worst_naive = 0.0
        for i, c in enumerate(comps):
            sk = n3.skimage_3d(dist[i], ref[i], L)
            worst_sk = max(worst_sk, abs(gpu["pooled"]["fssim3d"][c]["mean"] - sk))
            naive = n3.naive_3d(dist[i], ref[i], L, tpadding="valid")
            for f in gpu["frames"]:
                worst_naive = max(worst_naive, abs(f["fssim3d"][c] - naive[f["n"]]))
        summary.append((case + " (skimage)", worst_sk))
        summary.append((case + " (float64)", worst_naive))
        tap.ok(worst_sk <= 1e-5, "%s: pooled mean of every component within 1e-5 of "
               "scikit-image's n-D SSIM (max diff %.3g)" % (case, worst_sk))
        tap.ok(worst_naive <= TOL, "%s: every frame within %g of a float64 evaluation "
               "(max diff %.3g)" % (case, TOL, worst_naive))


def check_identical():
    """The same frames on both inputs (split after hwupload: one Vulkan image
    per frame pair): var_a + var_b == 2 cov and SSIM exactly 1 everywhere."""
    for fmt, opts in (("yuv420p", "depth=5"), ("p010le", "depth=3:padding=same:window=7")):
        inputs = clips(fmt, 64, 48, 5)[0]
        log, p = score(inputs, "[0:v]hwupload,split[m][r];[m][r]fssim3d=%s:log_path=@LOG@"
                       % opts, "same_" + fmt)
        if not tap.ok(log is not None, "identical inputs (%s): runs" % fmt, p.stderr[-2000:]):
            continue
        vals = [(f["n"], c, v) for f in log["frames"] for c, v in f["fssim3d"].items()
                if c != "dB"]
        tap.ok(len(log["frames"]) == 5 and all(v == 1.0 for _, _, v in vals),
               "identical inputs (%s, %s): every frame and component exactly 1" % (fmt, opts),
               [x for x in vals if x[2] != 1.0][:8])


def check_ring_log():
    """The ring's size at INFO (24 bytes a position, each component's two
    arrays 256-byte aligned), the GPU time at -v verbose."""
    w, h, depth = 96, 64, 5
    sizes = [(w - 10) * (h - 10)] + [(w // 2 - 10) * (h // 2 - 10)] * 2
    slot = sum((n * 16 + 255) // 256 * 256 + (n * 8 + 255) // 256 * 256 for n in sizes)
    mib = (depth + 1) * slot / 1048576.0   # one slot more than depth: two frames a pass
    inputs = sum(clips("yuv420p", w, h, 4), [])
    _, p = score(inputs, vk_graph("depth=%d" % depth), "ring", extra=["-v", "verbose"])
    tap.ok(re.search(r"fssim3d: ring of %d moment sets, %.1f MiB \(Vulkan, device memory, "
                     r"24 bytes per position" % (depth + 1, mib), p.stderr) is not None,
           "the ring's device memory is logged (%d moment sets, %.1f MiB, Vulkan)"
           % (depth + 1, mib),
           "\n".join(l for l in p.stderr.splitlines() if "ring" in l) or p.stderr[-1500:])
    tap.ok(re.search(r"GPU time per frame pair: [\d.]+ us over 4 frames \(spatial moments "
                     r"[\d.]+ us, temporal window and score [\d.]+ us", p.stderr) is not None,
           "GPU time per frame is logged at -v verbose", p.stderr[-1500:])
    # frames 0 and 1 go as one pass once frame 1's window is in; at EOF the
    # flush waits for each frame as it is queued, so 2 and 3 go alone
    tap.ok(re.search(r"4 frames scored in 3 passes", p.stderr) is not None,
           "consecutive frames are scored two to a pass over the ring",
           "\n".join(l for l in p.stderr.splitlines() if "passes" in l) or p.stderr[-1500:])


def same_as_cpu_prefix(desc, inputs, log, p, sent, most):
    """A log of a run cut after K frame pairs reached the filter: frames
    numbered 0..K-1, each equal to the software backend's on those K frames
    (the held frames are scored with the sequence ending at frame K-1)."""
    if not tap.ok(log is not None and p.returncode >= 0 and not CRASH.search(p.stderr),
                  "%s: no signal or crash, the JSON log parses" % desc, p.stderr[-2000:]):
        return
    k = log["frame_count"]
    tap.ok(k == len(log["frames"]) >= sent and k < most and
           [f["n"] for f in log["frames"]] == list(range(k)) and
           all(-1.0 <= v <= 1.0 for f in log["frames"] for c, v in f["fssim3d"].items()
               if c != "dB"),
           "%s: the log holds %d frames (of %d), numbered 0..%d, every one scored"
           % (desc, k, most, k - 1), "frame_count %s, frames %s" % (k, log["frames"][-3:]))
    cpu, pc = score(inputs, cpu_graph("depth=5", trim=k), "cut_cpu_%d" % k, hw=False)
    if not tap.ok(cpu is not None and cpu["frame_count"] == k,
                  "%s: software backend on the first %d frames" % (desc, k), pc.stderr[-1500:]):
        return
    d, where = max_diff(cpu, log)
    summary.append((desc, d))
    tap.ok(d <= TOL, "%s: every frame within %g of the software backend on those %d frames "
           "(max diff %.3g)" % (desc, TOL, k, d), "frame/comp/cpu/gpu %r" % (where,))


def check_cut_short():
    inputs = sum(clips("yuv420p", 64, 48, 12), [])
    log, p = score(inputs, vk_graph("depth=5"), "cut_frames", extra=["-frames:v", "2"])
    if log is None:
        # an error status would leave no parsed log above: read it anyway
        log = load(os.path.join(WORK, "cut_frames.json"))
    same_as_cpu_prefix("-frames:v 2, depth 5", inputs, log, p, sent=2, most=12)

    # SIGINT once a few frames are logged, on a clip looped long enough.
    # shortest=1: the inputs stop unevenly, and under the default
    # eof_action=repeat framesync would pair the main frames left over with
    # the last reference frame (the software backend too)
    # (2000 times: at 400 an H200 scored all 4800 frames before the signal
    # landed, once its shaders got faster)
    loops = 2000
    loop = ["-stream_loop", str(loops - 1)]
    long_in = loop + inputs[:len(inputs) // 2] + loop + inputs[len(inputs) // 2:]
    log_file = log_path("cut_sigint")
    cmd = [ft.FFMPEG, "-hide_banner", "-nostdin", "-y"] + HW + long_in + \
        ["-lavfi", vk_graph("depth=5:shortest=1").replace("@LOG@", log_file), "-f", "null", "-"]
    # output to files: the validation layer's messages would fill a pipe
    # and block ffmpeg before the signal
    with open(os.path.join(WORK, "cut_sigint.out"), "w+") as fo, \
            open(os.path.join(WORK, "cut_sigint.err"), "w+") as fe:
        proc = subprocess.Popen(cmd, stdout=fo, stderr=fe, text=True)
        started = ft.wait_log_frames(log_file, 3, proc, timeout=120)
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=120)
            late = ""
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            late = "(no exit within 120 s of SIGINT)\n"
        fo.seek(0)
        fe.seek(0)
        out, err = fo.read(), late + fe.read()
    val.check(cmd, out + err)
    p = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    if not started:
        tap.ok(False, "SIGINT mid-run: the log reached 3 frames first", err[-1500:])
        return
    same_as_cpu_prefix("SIGINT mid-run, depth 5", long_in, load(log_file), p, sent=3,
                       most=12 * loops)


def check_unwritable():
    inputs = sum(clips("yuv420p", 64, 48, 4), [])
    _, p = score(inputs, "[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim3d=depth=3:"
                 "log_path=/dev/full", "devfull")
    tap.ok(p.returncode > 0 and not CRASH.search(p.stderr) and
           re.search(r"/dev/full: No space left on device", p.stderr) is not None,
           "log_path=/dev/full: the run fails naming the path and the error",
           p.stderr[-2000:])


def check_errors():
    m = clips("yuv420p", 64, 48, 2)[0]
    other = clips("yuv420p", 64, 32, 2)[0]
    gbrp = clips("gbrp", 64, 48, 2)[0]

    def expect(desc, inputs, graph, patterns):
        _, p = score(inputs, graph, "err", timeout=120)
        bad = [x for x in patterns if not re.search(x, p.stderr)]
        tap.ok(p.returncode > 0 and not CRASH.search(p.stderr) and not bad,
               "error: %s (exit %d, message: %s)" % (desc, p.returncode, ", ".join(patterns)),
               "missing %s in:\n%s" % (bad, p.stderr[-2500:]))

    expect("Vulkan main, software reference", m + m, "[0:v]hwupload[m];[m][1:v]fssim3d",
           [r"The main input carries Vulkan frames but the reference input software frames "
            r"\(yuv420p\)", r"-init_hw_device vulkan", r"hwdownload"])
    expect("software main, Vulkan reference", m + m, "[1:v]hwupload[r];[0:v][r]fssim3d",
           [r"The reference input carries Vulkan frames but the main input software frames"])
    expect("sizes differ, scale=none", m + other, vk_graph("depth=3:scale=none"),
           [r"sizes differ", r"64x48", r"64x32", r"scale_vulkan"])
    expect("formats of two colour families", m + gbrp, vk_graph("depth=3"),
           [r"formats differ", r"main is yuv420p \(YUV\)", r"reference is gbrp \(GBR\)",
            r"scale_vulkan=format=gbrp"])
    expect("tpadding=valid on fewer frames than depth", m + m, vk_graph("tpadding=valid"),
           [r"no frame was scored", r"depth=11"])
    # about 310 GB of ring: more than any device here has (an H200 has 141 GB),
    # refused before allocation
    big = ["-f", "lavfi", "-i", "color=s=8192x8192:d=0.04,format=yuv444p"]
    expect("a ring larger than the device's memory", big + big, vk_graph("depth=63"),
           [r"fssim3d: the ring of \d+ moment sets needs [\d.]+ MiB, but [\d.]+ MiB of "
            r"device memory is available"])


def check_graph_errors():
    """Inputs on two devices, a device without shaderFloat64 or
    bufferDeviceAddress: set up through the API (the CLI has one filter
    device)."""
    helper, why = vktest.build_graph_helper(WORK)
    if not helper:
        if why.startswith("building"):
            tap.ok(False, "build tests/vulkan/vk_graph_errors.c", why)
        else:
            tap.skip("fssim3d: different devices, missing features (API set-ups)", why)
        return

    def run(mode, opts="depth=3"):
        p = ft.run([helper, mode, DEVICE, opts, "fssim3d"], check=False, timeout=300)
        return p, p.stdout + p.stderr

    p, out = run("same")
    frames = re.findall(r"frame \d+: fssim3d.All (\S+)", out)
    tap.ok(p.returncode == 0 and len(frames) == 2 and "(none)" not in frames,
           "API graph, one device: configures; the 2 frames held at EOF come out scored", out)
    p, out = run("two-devices")
    tap.ok(p.returncode == 1 and "different Vulkan devices" in out and "-init_hw_device" in out
           and not CRASH.search(out),
           "error: inputs on two Vulkan devices fail at configuration, saying so", out)
    for mode, feature in (("no-fp64", "shaderFloat64"), ("no-bda", "bufferDeviceAddress")):
        p, out = run(mode)
        tap.ok(p.returncode == 1 and re.search(r"The Vulkan device '[^']*' lacks %s" % feature,
                                               out) and "hwdownload" in out and
               not CRASH.search(out),
               "error: a device without %s: the message names it and the way out" % feature,
               out)


fault_env = vktest.fault_env


def check_faults():
    """The device lost after N frame submissions (fault_layer.c counts every
    submission with a dispatch: fssim3d makes one for the moments of each
    frame pair and one for each scored frame)."""
    if not os.path.exists(os.path.join(LAYER_DIR, "libVkLayer_fssim_fault.so")):
        tap.skip("fssim3d on Vulkan frames under a lost device",
                 "the fault layer is not built (%s; make check builds it)" % LAYER_DIR)
        return
    inputs = sum(clips("yuv420p", 64, 48, 12), [])
    cpu, pc = score(inputs, cpu_graph("depth=5"), "fault_cpu", hw=False)
    if not tap.ok(cpu is not None, "faults: the software backend scores the 12 frames",
                  pc.stderr[-1500:]):
        return
    for n, scope in ((6, "dispatch"), (0, "dispatch"), (8, "all")):
        case = "device lost after %d submissions (scope=%s)" % (n, scope)
        tag = "fault_%d_%s" % (n, scope)
        log = log_path(tag)
        try:
            p = ft.ffmpeg(*HW, *inputs, "-lavfi", vk_graph("depth=5").replace("@LOG@", log),
                          "-f", "null", "-", check=False, timeout=300,
                          env=fault_env("device_lost_after=%d,scope=%s" % (n, scope)))
        except subprocess.TimeoutExpired:
            tap.ok(False, "%s: the run ends (no hang)" % case)
            continue
        out = p.stdout + p.stderr
        tap.ok(p.returncode > 0 and not CRASH.search(out),
               "%s: ffmpeg fails with an error status (%d), no signal or crash report"
               % (case, p.returncode), out[-3000:])
        want = [r"VK_ERROR_DEVICE_LOST"]
        if scope == "dispatch":
            want.append(r"\[Parsed_fssim3d_\d+ @ [^]]*\] (Vulkan error while waiting for the "
                        r"(scores of frame|spatial moments of frame pair) \d+: "
                        r"VK_ERROR_DEVICE_LOST|Submitting the (scores of frame|spatial "
                        r"moments of frame pair) \d+ to the Vulkan device failed)")
        missing = [w for w in want if not re.search(w, out)]
        tap.ok(not missing, "%s: the error names VK_ERROR_DEVICE_LOST%s" % (
                   case, " in fssim3d's message" if scope == "dispatch" else ""),
               "missing %s in:\n%s" % (missing, out[-3000:]))
        lg = load(log)
        if not tap.ok(lg is not None, "%s: the JSON log parses" % case):
            continue
        k = len(lg["frames"])
        d, where = max_diff(cpu, lg)
        tap.ok(lg["frame_count"] == k < 12 and [f["n"] for f in lg["frames"]] == list(range(k))
               and d <= TOL,
               "%s: the log holds %d frames, in order, each with the software backend's "
               "values (completely scored)" % (case, k),
               "frame_count %s, n %s, max diff %s at %r" % (
                   lg["frame_count"], [f["n"] for f in lg["frames"]], d, where))


def main():
    why = vulkan_device()
    if why:
        tap.skip("fssim3d on Vulkan frames", why)
        tap.done()
    p = ft.ffmpeg(*HW, "-v", "verbose", "-f", "lavfi", "-i", "color=s=64x64:d=0.04",
                  "-vf", "format=yuv420p,hwupload,split[a][b];[a][b]fssim3d=depth=1",
                  "-f", "null", "-", check=False)
    dev = re.findall(r"Vulkan device '([^']*)'", p.stderr)
    ver = ft.run([ft.FFMPEG, "-hide_banner", "-version"], check=False).stdout.split("\n")[0]
    tap.diag("%s; Vulkan device: %s" % (ver, dev[0] if dev else "?"))

    t0 = time.time()
    check_accuracy()
    check_pairs()
    check_peers()
    check_identical()
    check_ring_log()
    check_cut_short()
    check_unwritable()
    check_errors()
    check_graph_errors()
    check_faults()
    for case, d in summary:
        tap.diag("%-32s max |vulkan - software| %.3g" % (case, d))
    tap.diag("%.0f s" % (time.time() - t0))
    val.report(tap)
    tap.done()


if __name__ == "__main__":
    main()
