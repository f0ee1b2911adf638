#!/usr/bin/env python3
"""Seeded fuzzing of fssim, fssim3d and fssim_vulkan (when a Vulkan device
works): hundreds of small random runs, each checked by one oracle.

Each case is one ffmpeg process on tiny frames (16x16 to 96x72, 2-12
frames) with random choices of:
  - the filter and its options, in and out of range and malformed (algo,
    window, sigma, padding, stats_algo, log_fmt, depth/tsigma/tpadding,
    the framesync options, enable, unknown option names);
  - log_path/stats_file: a good path, stdout (as -, /dev/stdout or
    /proc/self/fd/1; a pipe, or a regular file the "shell" wrote first), a
    FIFO read by the test, /dev/full, a missing directory, a directory, the
    other file's path (two writers of one file), and a file-size limit
    (RLIMIT_FSIZE, SIGXFSZ ignored or at its default: the disk fills at a
    random size);
  - a title with spaces, '=' and bytes that are not UTF-8; segment numbers
    past 2^53 - 1;
  - the inputs: sources inside the graph, lavfi inputs at different frame
    rates (different time bases), stored clips (y4m, raw, lossless H.264 in
    Matroska) intact, truncated, cut mid-frame or with corrupt bytes;
    variable timestamps (setpts with random expressions, fps); a size
    change inside the graph (scale with eval=frame, which FFmpeg does not
    turn into a graph rebuild) and across a rebuild (concatenated H.264
    streams of two sizes or formats); runs cut short (-frames:v, -t),
    stopped (SIGINT or SIGTERM while the inputs are read at their rate) and
    killed (kill -9 after a random delay).

The oracle, for every case:
  - the process ends (a timeout is a hang: failure) with an exit status
    >= 0 (not killed by a signal), and stderr holds no crash or sanitizer
    text;
  - either it exits 0, or it exits non-zero with at least one error line
    (`[error]` / `[fatal]`, from -loglevel level+info);
  - a log is UTF-8, and its title the one given (bytes that are not UTF-8
    replaced by U+FFFD, as Python decodes them), in a CSV log too as
    fssim-farm reads it; a log on stdout follows what the shell wrote there;
  - a JSON log, where it exists, is valid JSON after every run, failed or
    killed too: frame_count == len(frames), n counts up by one from 0 (from
    depth/2 under fssim3d's tpadding=valid), every value a finite number or
    null, and pooled values in the log of a run that succeeded; a CSV log
    holds whole rows after every run, and a frame count line, where there
    is one, that counts them; a stats file holds whole lines, and those of
    a run that succeeded count the same frames; a log that says it is
    complete has its pooled values, and, where the number of frames is
    known, all of them (a run stopped by a signal is not complete);
  - the last summary line `SSIM <algo> ... frames:K` of each algorithm
    agrees with the log's frame_count (no summary when nothing was scored);
  - where the generator knows the outcome: a case whose options and inputs
    are all valid must exit 0 with scores; a case with a definite error
    must fail, and, when that is its only fault, with a message naming it
    (/dev/full, the missing directory...).  A log on /dev/full never gives
    exit 0 once a frame was scored.  A frame whose size differs from the one
    the filter was configured with (a size change inside the graph) must
    not be scored silently: the run must fail.

Environment:
  FSSIM_FUZZ_SEED     the seed (default 20240611); printed in the plan
  FSSIM_FUZZ_SECONDS  time budget in seconds (default 100): stop when spent
  FSSIM_FUZZ_CASES    number of cases (default 1000)
  FSSIM_FUZZ_ONLY     comma-separated case numbers: replay only these
  FSSIM_FUZZ_VERBOSE  1: print every case's command line, not only a failing one's
A failing case prints its seed, number and exact command line.
"""
import json
import math
import os
import random
import re
import resource
import shlex
import shutil
import signal
import subprocess
import threading
import time
import traceback
from fractions import Fraction

import fssimtest as ft
from fssim_farm import logs as farm_logs

SEED = int(os.environ.get("FSSIM_FUZZ_SEED", "20240611"))
BUDGET = float(os.environ.get("FSSIM_FUZZ_SECONDS", "100"))
NB_CASES = int(os.environ.get("FSSIM_FUZZ_CASES", "1000"))
VERBOSE = os.environ.get("FSSIM_FUZZ_VERBOSE", "") not in ("", "0")
ONLY = [int(x) for x in os.environ.get("FSSIM_FUZZ_ONLY", "").split(",") if x.strip()]
TIMEOUT = 30
VK_TIMEOUT = 60

CRASH = re.compile(r"Assertion|Segmentation|core dumped|Sanitizer|double free|"
                   r"stack smashing|Aborted|runtime error:", re.I)
ERROR_LINE = re.compile(r"\[(error|fatal)\] ")
SUMMARY = re.compile(r"\] \[info\] (?:SSIM(?: (float|int|block|msssim|vmaf_ssim|vmaf_msssim))?|"
                     r"(PSNR))(?: .*)? "
                     r"frames:(\d+)\s*$")

WORK = ft.workdir("fuzz")
CLIPS = os.path.join(WORK, "clips")
CASES = os.path.join(WORK, "cases")

SW_FMTS = ft.fssim_sw_pix_fmts()
VK_FMTS = ["yuv420p", "yuv444p", "yuv422p", "yuv420p10le", "yuv444p10le", "yuv444p12le",
           "yuv420p16le", "nv12", "nv16", "nv24", "p010le", "p012le", "p016le", "p210le",
           "p410le", "gray", "gray16le", "gbrp", "gbrp12le", "yuva420p"]
VK_DEVICE = os.environ.get("FSSIM_VULKAN_DEVICE", "0")
VK_HW = ["-init_hw_device", "vulkan=vk:%s" % VK_DEVICE, "-filter_hw_device", "vk"]


def same_family(a, b):
    """Formats fssim scores against each other: one colour family and set of
    components (doc/formats.md#sizes-and-formats)."""
    fa, fb = ft.pix_fmt(a), ft.pix_fmt(b)
    return fa.rgb == fb.rgb and len(fa.comps) == len(fb.comps)


def planes(fmt, w, h):
    f = ft.pix_fmt(fmt)
    return [f.plane_size(c, w, h) for c in range(len(f.comps))]


# ---- stored clips (made once, independent of the seed) ------------------

class Stored:
    def __init__(self, name, w, h, fmt, n):
        self.name, self.w, self.h, self.fmt, self.n = name, w, h, fmt, n
        self.files = {}     # (kind, "ref"/"dist") -> path; kind: y4m, raw, mkv


STORED = [Stored("a", 48, 32, "yuv420p", 8), Stored("b", 33, 17, "yuv420p", 6),
          Stored("c", 64, 48, "yuv444p", 10), Stored("d", 40, 24, "yuv420p10le", 7),
          Stored("e", 16, 16, "gray", 12), Stored("f", 96, 72, "yuv420p", 5),
          Stored("g", 24, 24, "yuv422p", 9), Stored("h", 32, 32, "nv12", 4)]
H264 = {}       # name -> path of the raw H.264 streams for graph rebuilds


def make_clips(tap):
    os.makedirs(CLIPS, exist_ok=True)
    x264 = ft.encoder_has("libx264")
    stamp = os.path.join(CLIPS, "v1-%d.stamp" % x264)
    fresh = not os.path.exists(stamp)
    for s in STORED:
        pf = ft.pix_fmt(s.fmt)
        kinds = ["raw"]
        if (pf.comps == "Y" and pf.depth in (8, 16)) or (
                pf.comps == "YUV" and not pf.semi and pf.depth in (8, 10, 12, 16)):
            kinds.append("y4m")
        if x264 and pf.name in ft.MKV_FORMATS and s.w % 2 == 0 and s.h % 2 == 0:
            kinds.append("mkv")
        ref = dist = None
        for kind in kinds:
            for role in ("ref", "dist"):
                path = os.path.join(CLIPS, "%s_%s.%s" % (s.name, role, "yuv" if kind == "raw"
                                                          else kind))
                s.files[(kind, role)] = path
                if not fresh and os.path.exists(path):
                    continue
                if ref is None:
                    ref = ft.natural_frames(s.w, s.h, s.n, pf, image="astronaut", seed=3)
                    dist = ft.degrade(ref, pf, blur=0.8, noise=4.0, seed=4)
                ft.natural_clip(s.w, s.h, 0, pf, CLIPS, os.path.basename(path).rsplit(".", 1)[0],
                                container=kind, frames=ref if role == "ref" else dist)
    if x264:
        specs = {"a": ("64x48", "yuv420p", "testsrc2", 5), "b": ("80x48", "yuv420p", "testsrc2", 5),
                 "c": ("64x48", "yuv444p", "testsrc2", 5), "a10": ("64x48", "yuv420p", "testsrc2", 10),
                 "m": ("64x48", "yuv420p", "mandelbrot", 5)}
        for name, (size, fmt, src, n) in specs.items():
            path = os.path.join(CLIPS, name + ".h264")
            H264[name] = path
            if fresh or not os.path.exists(path):
                ft.run([ft.ENCODER_FFMPEG, "-hide_banner", "-nostdin", "-v", "error", "-y",
                        "-f", "lavfi", "-i", "%s=size=%s:rate=25" % (src, size),
                        "-frames:v", str(n), "-c:v", "libx264", "-preset", "ultrafast",
                        "-pix_fmt", fmt, path])
        for cat in ("ab", "ac", "am", "ba", "abc"):
            path = os.path.join(CLIPS, cat + ".h264")
            H264[cat] = path
            if fresh or not os.path.exists(path):
                with open(path, "wb") as out:
                    for part in cat:
                        with open(H264[part], "rb") as f:
                            out.write(f.read())
    else:
        tap.diag("no libx264 in ENCODER_FFMPEG: no Matroska clips, no graph-rebuild cases")
    open(stamp, "w").close()


def vulkan_works():
    if not ft.has_filter("fssim_vulkan"):
        return "fssim_vulkan not built"
    p = ft.ffmpeg(*VK_HW, "-f", "lavfi", "-i", "color=s=64x64:d=0.04,format=yuv420p",
                  "-vf", "hwupload", "-f", "null", "-", check=False, timeout=120)
    if p.returncode != 0:
        return "no working Vulkan device (-init_hw_device vulkan=vk:%s)" % VK_DEVICE
    return None


# ---- one case -----------------------------------------------------------

class Case:
    """A random ffmpeg command and what the generator knows of its outcome:
    bad (definite errors: (reason, regex its message must match or None)),
    unsure (choices whose outcome is not known)."""

    def __init__(self, k, vulkan):
        self.k = k
        self.rng = random.Random("%d:%d" % (SEED, k))
        self.vulkan = vulkan
        self.dir = os.path.join(CASES, "c%d" % k)
        self.pre = []          # input/global args
        self.post = []         # output args before "-f null -"
        self.graph = ""
        self.bad = []
        self.unsure = []
        self.tags = []
        self.log = None        # dict: kind, path, fmt
        self.stats = None
        self.filter = "fssim"
        self.opts = []
        self.frames = None     # frames each input has when known and in sync
        self.size_change_at = None   # main frame index from which the size differs
        self.rebuild = False         # the graph may be rebuilt mid-stream
        self.sure_scores = False
        self.fsize = None      # RLIMIT_FSIZE of the run (bytes), or None
        self.xfsz_default = False  # SIGXFSZ at its default disposition, not ignored
        self.kill_after = None # seconds after which the run is killed (-9), or None
        self.stop = None       # (signal, seconds after which it is sent), or None
        self.stdout_file = None  # (path, what the "shell" wrote first, append) or None
        self.title = None      # the title option's bytes, or None
        # about half the cases are meant to succeed: no fault is chosen for them
        self.clean = self.rng.random() < 0.5

    # -- helpers
    def choice(self, items):
        return self.rng.choice(items)

    def weighted(self, pairs):
        total = sum(w for _, w in pairs)
        x = self.rng.uniform(0, total)
        for item, w in pairs:
            x -= w
            if x <= 0:
                return item
        return pairs[-1][0]

    def fail_if(self, reason, must=None):
        self.bad.append((reason, must))

    def maybe(self, reason):
        self.unsure.append(reason)

    @property
    def expect(self):
        if self.bad:
            return "fail"
        return "any" if self.unsure else "ok"

    # -- generation
    def generate(self):
        os.makedirs(self.dir, exist_ok=True)
        self.filter = self.weighted([("fssim", 55), ("fssim3d", 30)] +
                                    ([("fssim_vulkan", 8)] if self.vulkan else []))
        kinds = [("graph", 40), ("lavfi", 15), ("stored", 35)]
        if H264 and self.filter != "fssim_vulkan":
            kinds.append(("rebuild", 8))
        kind = self.weighted(kinds)
        self.tags += [self.filter, kind]
        fmts = VK_FMTS if self.filter == "fssim_vulkan" else SW_FMTS
        getattr(self, "inputs_" + kind)(fmts)
        self.options()
        self.outputs()
        self.extras(kind)
        self.assemble()

    rates = (Fraction(25), Fraction(25))

    def vfr(self):
        """A random timestamp change for one branch, or ''."""
        e = self.weighted([
            ("", 60),
            ("setpts='(N*0.04+0.013*random(0))/TB'", 6),
            ("setpts='PTS+3*random(1)'", 4),
            ("setpts='PTS*2'", 3),
            ("setpts='N*N'", 3),
            ("setpts='PTS-0.05/TB'", 3),
            ("setpts='if(eq(N,2),PTS+0.5/TB,PTS)'", 3),
            ("setpts='PTS-2*random(0)/TB'", 3),
            ("setpts='NAN'", 2),
            ("fps=13", 4),
            ("fps=50", 3),
            ("setpts='N/(7*TB)'", 3),
        ])
        if e and ("NAN" in e or "random(0)/TB" in e or "N*N" in e):
            if self.clean:
                return ""
            self.maybe("timestamps that may go back or vanish: " + e)
        if e:
            self.tags.append("vfr")
        return e

    def size(self):
        return self.rng.randint(16, 96), self.rng.randint(16, 72)

    def set_rates(self, main, ref, vm, vr):
        """The frame rates that reach the filter: an fps filter of a branch's
        timestamp change sets its own (setpts keeps the rate)."""
        eff = lambda r, mod: mod[4:] if mod.startswith("fps=") else r
        self.rates = (Fraction(eff(main, vm or "")), Fraction(eff(ref, vr or "")))

    def inputs_graph(self, fmts):
        w, h = self.size()
        fmt = self.choice(fmts)
        n = self.rng.randint(2, 12)
        rate = self.choice(["25", "30000/1001", "24", "1", "1000"])
        src = self.choice(["testsrc2", "testsrc", "smptehdbars", "gradients", "color=c=0x808080"])
        src += "%ss=%dx%d:r=%s" % (":" if "=" in src else "=", w + (w & 1), h + (h & 1), rate)
        # (sources round sizes to their format's chroma grid: crop an RGB frame)
        chain = "%s,format=gbrp,crop=%d:%d:0:0:exact=1,trim=end_frame=%d,format=%s" % (
            src, w, h, n, fmt)
        change = ""
        where = self.weighted([(None, 80), ("both", 8), ("main", 8), ("ref", 4)]) \
            if not self.clean else None
        vm, vr = self.vfr(), self.vfr()
        if where:
            k = self.rng.randint(1, n - 1)
            w2, h2 = self.size()
            # (format=: scale may pick another output format for the branches)
            change = ("scale=w='if(gte(n,%d),%d,%d)':h='if(gte(n,%d),%d,%d)':eval=frame,"
                      "format=%s" % (k, w2, w, k, h2, h, fmt))
            self.tags.append("scale-eval-frame-%s" % where)
            if (w2, h2) != (w, h):
                self.maybe("a size change inside the graph")
                # (main frame k meets reference frame k when no timestamp changes)
                if where != "ref" or not (vm or vr):
                    self.size_change_at = k
        distort = self.choice(["avgblur=sizeX=1", "noise=alls=12:allf=t", "gblur=sigma=0.8",
                               "unsharp=3:3:1.5", "hflip", "negate", "null", "vflip"])
        if distort == "vflip" and self.filter == "fssim_vulkan":
            # FFmpeg's Vulkan hwupload of a frame with negative line sizes (vflip)
            # crashes inside lavapipe, with or without fssim_vulkan in the graph
            distort = "hflip"
        # the distortion may not take fmt: FFmpeg then converts the main input
        # alone, and fssim rightly refuses inputs of two formats
        distort += ",format=" + fmt
        if where == "both":
            chain += "," + change
        self.graph = "%s,split[a][b];[a]%s%s%s[m];[b]%s%s[r];" % (
            chain, distort, "," + change if where == "main" else "",
            "," + vm if vm else "", change + "," if where == "ref" else "", vr or "null")
        self.fmt, self.w, self.h = fmt, w, h
        self.frames = n if not (vm or vr) else None
        self.sure_scores = not (vm or vr)
        self.set_rates(rate, rate, vm, vr)
        self.tags += ["%dx%d" % (w, h), fmt, "%df" % n]

    def inputs_lavfi(self, fmts):
        w, h = self.size()
        fmt = self.choice(fmts)
        n = self.rng.randint(2, 12)
        r1, r2 = self.choice(["25", "30000/1001", "24", "50"]), self.choice(["25", "30000/1001",
                                                                            "24", "50"])
        w2, h2, fmt2 = w, h, fmt
        odd = self.rng.random() if not self.clean else 1.0
        if odd < 0.08:
            # another size: resampled to the reference's (scale=auto)
            w2, h2 = self.size()
        elif odd < 0.16:
            fmt2 = self.choice(fmts)
            if not same_family(fmt2, fmt):
                self.fail_if("formats of two colour families", r"formats differ")
        for r, ww, hh, ff_, extra in ((r1, w, h, fmt, "avgblur=sizeX=1,"), (r2, w2, h2, fmt2, "")):
            self.pre += ["-f", "lavfi", "-i",
                         "testsrc2=s=%dx%d:r=%s,format=gbrp,crop=%d:%d:0:0:exact=1,%strim="
                         "end_frame=%d,format=%s"
                         % (ww + (ww & 1), hh + (hh & 1), r, ww, hh, extra, n, ff_)]
        vm, vr = self.vfr(), self.vfr()
        self.graph = "[0:v]%s[m];[1:v]%s[r];" % (vm or "null", vr or "null")
        # the reference's planes are the ones scored
        self.fmt, self.w, self.h = fmt2, w2, h2
        self.frames = n if r1 == r2 and not (vm or vr) else None
        self.sure_scores = r1 == r2 and not (vm or vr)
        self.set_rates(r1, r2, vm, vr)
        self.tags += ["%dx%d" % (w, h), fmt, "%df" % n, "r=%s/%s" % (r1, r2)]

    def damaged(self, path, what):
        """A copy of path, truncated or with corrupt bytes."""
        with open(path, "rb") as f:
            data = bytearray(f.read())
        out = os.path.join(self.dir, "%s.%s" % (what, path.rsplit(".", 1)[1]))
        how = self.choice(["truncate", "truncate-header", "bytes", "bytes-header"])
        if how == "truncate":
            data = data[:self.rng.randint(1, len(data) - 1)]
        elif how == "truncate-header":
            data = data[:self.rng.randint(0, min(80, len(data) - 1))]
        else:
            span = (0, min(64, len(data))) if how == "bytes-header" else (0, len(data))
            for _ in range(self.rng.randint(1, 24)):
                data[self.rng.randrange(*span)] = self.rng.randrange(256)
        with open(out, "wb") as f:
            f.write(data)
        self.tags.append("%s-%s" % (what, how))
        return out

    def inputs_stored(self, fmts):
        s = self.choice([c for c in STORED if c.fmt in fmts] or STORED)
        kinds = sorted({k for k, _ in s.files})
        kind = self.choice(kinds)
        other = s
        if not self.clean and self.rng.random() < 0.08:
            other = self.choice(STORED)
            if not same_family(other.fmt, s.fmt):
                self.fail_if("formats of two colour families", r"formats differ")
        kind2 = kind if (kind, "ref") in other.files else "raw"
        paths = [s.files[(kind, "dist")], other.files[(kind2, "ref")]]
        rates = ["25", "25"]
        if self.rng.random() < 0.3:
            rates = [self.choice(["25", "30000/1001", "24", "1"]) for _ in range(2)]
        damage = self.weighted([(None, 55), ("main", 20), ("ref", 15), ("both", 10)]) \
            if not self.clean else None
        for i, role in enumerate(("main", "ref")):
            if damage in (role, "both"):
                if self.rng.random() < 0.5 and (kind, kind2)[i] == "raw":
                    # raw video cut mid-frame
                    fs = ft.frame_size(s.w, s.h, s.fmt) if i == 0 else \
                        ft.frame_size(other.w, other.h, other.fmt)
                    with open(paths[i], "rb") as f:
                        data = f.read()
                    cut = self.rng.randint(0, len(data) // fs - 1) * fs + self.rng.randint(1, fs - 1)
                    out = os.path.join(self.dir, "%s.yuv" % role)
                    with open(out, "wb") as f:
                        f.write(data[:cut])
                    paths[i] = out
                    self.tags.append("%s-cut-mid-frame" % role)
                else:
                    paths[i] = self.damaged(paths[i], role)
                self.maybe("damaged input")
        for i, (c, k2) in enumerate(((s, kind), (other, kind2))):
            if k2 == "raw":
                self.pre += ["-f", "rawvideo", "-pix_fmt", c.fmt, "-video_size",
                             "%dx%d" % (c.w, c.h), "-framerate", rates[i]]
            self.pre += ["-i", paths[i]]
        if damage and self.rng.random() < 0.3:
            self.pre = ["-xerror"] + self.pre
        vm, vr = self.vfr(), self.vfr()
        self.graph = "[0:v]%s[m];[1:v]%s[r];" % (vm or "null", vr or "null")
        self.fmt, self.w, self.h = other.fmt, other.w, other.h
        sync = rates[0] == rates[1] and not (vm or vr) and other is s and not damage
        self.frames = s.n if sync else None
        # stored clips other than raw video carry their own rate, 25
        self.set_rates(rates[0] if kind == "raw" else "25", rates[1] if kind2 == "raw" else "25",
                       vm, vr)
        self.sure_scores = sync
        self.tags += [s.name, kind, "%dx%d" % (s.w, s.h), s.fmt]

    def inputs_rebuild(self, fmts):
        """Main streams that change size or format mid-stream: FFmpeg
        rebuilds the graph, the new instance takes up the logs."""
        main = self.choice(["ab", "ac", "am", "ba", "abc"])
        ref = self.choice(["a10", "a", main, "ab"])
        self.pre += ["-i", H264[main], "-i", H264[ref]]
        self.rebuild = True

        def params(name):
            # the stream's (size, format) runs: m is a with other content
            runs = []
            for part in name.replace("a10", "a").replace("m", "a"):
                if not runs or runs[-1] != part:
                    runs.append(part)
            return runs
        pm, pr = params(main), params(ref)
        if pm == pr and len(pm) == 1:
            pass                    # no rebuild
        elif pm == pr:
            # both inputs change at once, but each input's change reaches the
            # graph on its own frame: it may be rebuilt in between with one changed
            self.maybe("both inputs change, the rebuild order is the scheduler's")
        else:
            # the main input is resampled to the reference's size and format
            # (scale=auto), before and after a rebuild; fftools may configure
            # the graph from the probed first frames and send the real one
            # without a rebuild, and the frame check says "configured for"
            self.maybe("the inputs differ in size or format")
        vm = self.vfr()
        self.graph = "[0:v]%s[m];[1:v]null[r];" % (vm or "null")
        self.set_rates("25", "25", vm, "")
        self.fmt, self.w, self.h = "yuv420p", 64, 48
        self.tags += ["main=" + main, "ref=" + ref]

    def options(self):
        """Random options; a clean case draws again until they are all valid."""
        state = (list(self.bad), list(self.unsure), self.sure_scores)
        for _ in range(50):
            self.draw_options()
            if not self.clean or (self.bad, self.unsure) == state[:2]:
                return
            self.bad, self.unsure, self.sure_scores = list(state[0]), list(state[1]), state[2]
        self.draw_options()

    def draw_options(self):
        f = self.filter
        o = []
        p = planes(self.fmt, self.w, self.h)
        algos = {"float"} if f == "fssim3d" else {"float", "int"}
        shaky = False
        if f != "fssim3d" and self.rng.random() < 0.6:
            v, good = self.weighted([
                (("float", {"float"}), 10), (("int", {"int"}), 10), (("block", {"block"}), 10),
                (("float+int", {"float", "int"}), 8), (("float+int+block", {"float", "int", "block"}), 10),
                (("int+block", {"int", "block"}), 6), (("block+float", {"float", "block"}), 4),
                (("none", None), 2), (("bogus", None), 2), (("0", None), 1), (("int+bogus", None), 1),
                (("-int", "?"), 1), (("7", {"float", "int", "block"}), 1),
                (("psnr", {"psnr"}), 6), (("float+psnr", {"float", "psnr"}), 4),
                (("8", {"psnr"}), 1), (("128", None), 1),
                (("msssim", {"msssim"}), 4), (("float+msssim", {"float", "msssim"}), 2),
                (("16", {"msssim"}), 1), (("vmaf_ssim", {"vmaf_ssim"}), 3),
                (("vmaf_msssim+int", {"vmaf_msssim", "int"}), 2), (("32", {"vmaf_ssim"}), 1)])
            o.append("algo=" + v)
            if good is None:
                self.fail_if("algo=" + v)
            elif good == "?":
                self.maybe("algo=" + v)
            else:
                algos = good
        window = 11
        if self.rng.random() < 0.5:
            v = self.choice(["-1", "0", "2", "3", "4", "5", "7", "9", "13", "15", "17", "abc",
                             "3.5", "11", ""])
            o.append("window=" + v)
            if v in ("-1", "0", "2", "17", "abc", ""):
                self.fail_if("window=" + v)
            elif v == "3.5":
                self.maybe("window=3.5")
                window = None
            elif int(v) % 2 == 0:
                self.fail_if("window=" + v, r"window=%s" % v)
            else:
                window = int(v)
        if self.rng.random() < 0.3:
            v = self.choice(["0", "1e9", "nan", "0.1", "0.3", "1", "1.5", "5", "10", "-1",
                             "inf", "0.05"])
            o.append("sigma=" + v)
            if v in ("0", "1e9", "-1", "inf", "0.05"):
                self.fail_if("sigma=" + v)
            elif v == "nan":
                self.maybe("sigma=nan")
        padding = "valid"
        if self.rng.random() < 0.35:
            v = self.choice(["valid", "same", "mirror", "0", "1", "2", "same+valid"])
            o.append("padding=" + v)
            if v in ("mirror", "2"):
                self.fail_if("padding=" + v)
            else:
                # (an expression of the named values: same+valid is 1+0)
                padding = "same" if v in ("same", "1", "same+valid") else "valid"
        if f == "fssim3d":
            depth = 11
            if self.rng.random() < 0.6:
                v = self.choice(["1", "3", "5", "2", "0", "63", "65", "abc", "7", "11"])
                o.append("depth=" + v)
                if v in ("0", "65", "abc"):
                    self.fail_if("depth=" + v)
                elif int(v) % 2 == 0:
                    self.fail_if("depth=" + v, r"depth=%s" % v)
                else:
                    depth = int(v)
            if self.rng.random() < 0.3:
                v = self.choice(["0", "1e9", "nan", "0.5", "1.5", "20", "0.1"])
                o.append("tsigma=" + v)
                if v in ("0", "1e9"):
                    self.fail_if("tsigma=" + v)
                elif v == "nan":
                    self.maybe("tsigma=nan")
            if self.rng.random() < 0.4:
                v = self.choice(["truncate", "valid", "valid", "bogus"])
                o.append("tpadding=" + v)
                if v == "bogus":
                    self.fail_if("tpadding=bogus")
                elif v == "valid":
                    if self.frames is None:
                        self.maybe("tpadding=valid with an unknown frame count")
                    elif self.frames < depth:
                        self.fail_if("tpadding=valid on %d frames < depth %d" % (
                            self.frames, depth), r"depth")
        # the pairing: inputs of two rates have none one to one, unless
        # framesync pairs them
        pairing = self.weighted([(None, 70), ("framesync", 15), ("pts", 10), ("bogus", 1)])
        if pairing:
            o.append("pairing=" + pairing)
            if pairing == "bogus":
                self.fail_if("pairing=bogus")
        if pairing != "framesync" and self.rates[0] != self.rates[1]:
            self.fail_if("frame rates %s and %s" % self.rates, r"frame rates differ")
        # the framesync options
        for name, vals, bad in (("shortest", ["0", "1", "true", "maybe"], ["maybe"]),
                                ("repeatlast", ["0", "1"], []),
                                ("eof_action", ["repeat", "endall", "pass", "bogus"], ["bogus"]),
                                ("ts_sync_mode", ["default", "nearest", "2"], ["2"])):
            if self.rng.random() < 0.12:
                v = self.choice(vals)
                o.append("%s=%s" % (name, v))
                if v in bad:
                    self.fail_if("%s=%s" % (name, v))
                elif name in ("eof_action", "repeatlast", "shortest"):
                    self.sure_scores = False
        if f != "fssim3d" and self.rng.random() < 0.08:
            o.append("enable='%s'" % self.choice(["between(n,1,3)", "gte(t,0.1)", "0", "lt(n,2)"]))
            self.sure_scores = False
        if self.rng.random() < 0.05:
            v = self.choice(["foo=1", "windw=3", "stats=1", "depth=3" if f != "fssim3d" else "algo=int"])
            o.append(v)
            self.fail_if("unknown option " + v, r"not found|Option .* not found|%s" % v.split("=")[0])
        if self.rng.random() < 0.04:
            v = self.choice(["window=3x", "=3", "algo=int=float", "::", "window='5'"])
            o.append(v)
            if v == "window=3x":
                self.fail_if("malformed " + v)
            elif v == "window='5'" and not any(x.startswith("window=") for x in o[:-1]):
                window = 5
            else:
                self.maybe("malformed " + v)
                # an option given twice: the last one wins, and the options are
                # shuffled; a malformed one may set anything
                self.bad = [b for b in self.bad if not b[0].startswith(("window=", "algo="))]
                shaky = True
        # constraints on the planes, for valid options
        if not shaky and window and "float" in algos and padding == "valid" and any(
                pw < window or ph < window for pw, ph in p):
            self.fail_if("a plane smaller than the window with padding=valid",
                         r"smaller than the %dx%d window" % (window, window))
        if not shaky and "block" in algos and any(pw < 8 or ph < 8 for pw, ph in p):
            self.fail_if("a plane under 8x8 with algo=block", r"8x8")
        # the fifth scale must hold a window (doc/algorithms.md#msssim)
        if not shaky and window and "msssim" in algos and any(min(pw, ph) < (window - 1) * 16 + 1
                                                   for pw, ph in p):
            self.fail_if("a plane too small for algo=msssim", r"algo=msssim needs planes")
        # libvmaf's limits (doc/algorithms.md#vmaf_ssim): its window, its five scales
        if not shaky and "vmaf_ssim" in algos and any(min(pw, ph) < 11 for pw, ph in p):
            self.fail_if("a plane too small for algo=vmaf_ssim", r"algo=vmaf_ssim needs planes")
        if not shaky and "vmaf_msssim" in algos and any(min(pw, ph) < 176 for pw, ph in p):
            self.fail_if("a plane too small for algo=vmaf_msssim",
                         r"algo=vmaf_msssim needs planes")
        self.algos = algos
        self.opts = o

    def path_choice(self, what):
        kinds = [(None, 30 if what == "log" else 55), ("file", 45), ("stdout", 5)]
        if not self.clean:
            kinds += [("devfull", 8), ("missing", 6), ("dir", 3)]
        if what == "log":
            kinds += [("devstdout", 3), ("procfd", 2), ("fifo", 4)]
        elif not self.clean and self.log and self.log["kind"] == "file":
            kinds += [("same", 4)]
        kind = self.weighted(kinds)
        if kind is None:
            return None
        d = {"kind": kind}
        self.tags.append("%s=%s" % (what, kind))
        if kind == "file":
            d["path"] = os.path.join(self.dir, what + (".json" if what == "log" else ".txt"))
        elif kind in ("stdout", "devstdout", "procfd"):
            d["path"] = {"stdout": "-", "devstdout": "/dev/stdout",
                         "procfd": "/proc/self/fd/1"}[kind]
        elif kind == "fifo":
            d["path"] = os.path.join(self.dir, what + ".fifo")
        elif kind == "same":
            # two writers of one file, named another way
            d["path"] = os.path.join(self.dir, ".", os.path.basename(self.log["path"]))
            self.fail_if("log_path and stats_file name one file", r"are the same file")
        elif kind == "devfull":
            d["path"] = "/dev/full"
            self.fail_if("%s on /dev/full" % what, r"/dev/full")
        elif kind == "missing":
            d["path"] = os.path.join(self.dir, "no", "such", "dir", what + ".out")
            self.fail_if("%s in a missing directory" % what, re.escape(d["path"]))
        else:
            d["path"] = self.dir
            self.fail_if("%s is a directory" % what, r"Is a directory")
        return d

    def outputs(self):
        self.log = self.path_choice("log")
        self.stats = self.path_choice("stats")
        streams = ("stdout", "devstdout", "procfd")
        if self.log and self.stats and self.log["kind"] in streams and \
                self.stats["kind"] in streams:
            self.stats = None
        if self.log:
            self.log["fmt"] = "json"
            if self.rng.random() < 0.25:
                v = self.choice(["csv", "json"] + ([] if self.clean else ["xml"]))
                self.opts.append("log_fmt=" + v)
                if v == "xml":
                    self.fail_if("log_fmt=xml")
                self.log["fmt"] = v
            self.opts.append("log_path=" + self.log["path"])
        if self.stats:
            self.opts.append(self.choice(["stats_file", "f"]) + "=" + self.stats["path"])
            if self.filter != "fssim3d" and self.rng.random() < 0.4:
                v = self.choice(["auto"] + sorted(self.algos) if self.clean else
                                ["auto", "float", "int", "block", "psnr", "msssim", "vmaf_ssim",
                                 "vmaf_msssim", "bogus"])
                self.opts.append("stats_algo=" + v)
                if v == "bogus":
                    self.fail_if("stats_algo=bogus")
                elif v != "auto" and v not in self.algos:
                    self.fail_if("stats_algo=%s not computed" % v, r"stats_algo=%s" % v)
        self.rng.shuffle(self.opts)
        # the disk fills: the logs end after their last whole frame
        if not self.clean and self.rng.random() < 0.08:
            self.fsize = self.rng.choice([0, 100, 700, 2000, 5000, 20000])
            self.tags.append("fsize=%d" % self.fsize)
            self.maybe("the disk fills at %d bytes" % self.fsize)
            self.sure_scores = False
        # killed: the logs hold whole frames
        if self.rng.random() < 0.03:
            self.kill_after = self.rng.uniform(0.02, 0.6)
            self.tags.append("kill-9@%.2fs" % self.kill_after)
        # cut short: FFmpeg stops the run, fssim keeps what it scored
        if self.rng.random() < 0.1:
            self.post += self.choice([["-frames:v", str(self.rng.randint(1, 4))],
                                      ["-t", "0.1"], ["-to", "0.2"]])
            self.sure_scores = False
            self.tags.append("cut-short")

    def extras(self, kind):
        """Signals, limits and bytes, drawn after the rest (so that a seed's
        earlier cases keep their other choices)."""
        if self.fsize is not None and self.rng.random() < 0.5:
            # the filters hold the signal off while their files are open
            self.xfsz_default = True
            self.tags.append("sigxfsz-default")
        streams = ("stdout", "devstdout", "procfd")
        if any(d and d["kind"] in streams for d in (self.log, self.stats)) and \
                self.rng.random() < 0.4:
            append = self.rng.random() < 0.5
            self.stdout_file = (os.path.join(self.dir, "stdout.txt"),
                                b"OLD\nPRE\n" if append else b"PRE\n", append)
            self.tags.append("stdout-file" + ("-append" if append else ""))
        if self.rng.random() < 0.08:
            self.title = self.choice([b"my title seg_end=7 algo=psnr", b"caf\xe9",
                                      b"\xe2\x82 cut", b"a=b c=d", b"\xff\xfe x \xc3\xa9"])
            self.opts.append("title=" + os.fsdecode(self.title))
            self.tags.append("title")
        if not self.clean and self.rng.random() < 0.03:
            v = self.choice(["seg_start=9007199254740992", "seg_base=9223372036854775807",
                             "seg_end=18014398509481984"])
            self.opts.append(v)
            self.tags.append(v.split("=")[0] + "-past-2^53")
            self.fail_if("a title number past 2^53 - 1", r"title frame numbers go up to")
        # (inputs read at their rate, -re, so that the signal comes mid-run;
        # a graph of sources has no input to read so)
        if self.kill_after is None and self.rng.random() < 0.1 and kind != "graph":
            sig = self.choice([signal.SIGINT, signal.SIGTERM])
            self.stop = (sig, self.rng.uniform(0.1, 0.5))
            self.tags.append("%s@%.2fs" % (signal.Signals(sig).name, self.stop[1]))
            self.maybe("stopped by a signal")
            self.sure_scores = False
            pre = []
            for a in self.pre:
                if a == "-i":
                    # (from the first frame on, not after a burst of 0.5 s)
                    pre += ["-re", "-readrate_initial_burst", "0"]
                pre.append(a)
            self.pre = pre

    def assemble(self):
        f = self.filter
        g = self.graph
        if f == "fssim_vulkan":
            g += "[m]hwupload[mh];[r]hwupload[rh];[mh][rh]"
            self.pre = VK_HW + self.pre
        else:
            g += "[m][r]"
        g += f + ("=" + ":".join(self.opts) if self.opts else "")
        if f == "fssim_vulkan" and self.rng.random() < 0.5:
            g += ",hwdownload,format=%s" % self.fmt
        self.args = [ft.FFMPEG, "-hide_banner", "-nostdin", "-y", "-loglevel", "level+info"] + \
            self.pre + ["-lavfi", g] + self.post + ["-f", "null", "-"]
        if self.size_change_at is not None:
            self.tags.append("size-change@%d" % self.size_change_at)

    def cmdline(self):
        # (a title's bytes that are not UTF-8 as shell escapes, printable)
        return " ".join(shlex.quote(a) if a.isprintable() else
                        "$'%s'" % os.fsencode(a).decode("latin-1").encode(
                            "unicode_escape").decode("ascii").replace("'", "\\'")
                        for a in self.args)


# ---- the oracle ----------------------------------------------------------

def _no_constant(name):
    raise ValueError("non-finite number %s in the JSON log" % name)


def finite_or_null(v):
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)
                         and math.isfinite(v))


# the pooled statistics of every series (doc/algorithms.md#pooling)
POOLED = {"mean", "min", "max", "harmonic_mean", "p1", "p5", "p50"}


def json_documents(text):
    """The JSON documents written one after another in text (the last part
    as it is, if it does not parse)."""
    dec, docs, i = json.JSONDecoder(parse_constant=_no_constant), [], 0
    while text[i:].strip():
        i += len(text[i:]) - len(text[i:].lstrip())
        try:
            _, end = dec.raw_decode(text, i)
        except ValueError:
            return docs + [text[i:]]
        docs.append(text[i:end])
        i = end
    return docs or [text]


def check_json(text, filt, finished=True):
    """Problems of a JSON log's text (empty list: good); and the log.  A log
    of a run that did not finish may lack its pooled values."""
    try:
        log = json.loads(text, parse_constant=_no_constant)
    except ValueError as e:
        return ["the JSON log does not parse: %s" % e], None
    errs = []
    frames = log.get("frames")
    if not isinstance(frames, list):
        return ["no frames list in the log"], log
    if log.get("frame_count") != len(frames):
        errs.append("frame_count %r != %d frames" % (log.get("frame_count"), len(frames)))
    first = 0
    opts = log.get("options", {})
    if filt == "fssim3d" and opts.get("tpadding") == "valid":
        try:
            first = int(opts.get("depth", 11)) // 2
        except ValueError:
            errs.append("depth option %r" % opts.get("depth"))
    ns = [fr.get("n") for fr in frames]
    if ns != list(range(first, first + len(frames))):
        errs.append("n is %s, not %d..%d" % (ns[:20], first, first + len(frames) - 1))
    pooled = log.get("pooled")
    if pooled is None and finished and not (len(frames) == 0 and "error" in log):
        errs.append("no pooled values")
    if pooled is None and log.get("complete") is True:
        errs.append("\"complete\": true without pooled values")
    keys = set(pooled or {})
    for fr in frames:
        # psnr's MSE comes beside it, unpooled
        algos = set(fr) - {"n", "pts", "pts_time", "mse"}
        if pooled is not None and algos != keys:
            errs.append("frame %r has %s, pooled has %s" % (fr.get("n"), sorted(algos), sorted(keys)))
            break
        if not (fr.get("pts") is None or isinstance(fr.get("pts"), int)) or \
                not finite_or_null(fr.get("pts_time")):
            errs.append("frame %r: pts %r pts_time %r" % (fr.get("n"), fr.get("pts"),
                                                          fr.get("pts_time")))
            break
        bad = [(a, c, v) for a in algos for c, v in fr[a].items() if not finite_or_null(v)]
        if bad:
            errs.append("frame %r: values %s" % (fr.get("n"), bad[:4]))
            break
    for a, comps in (pooled or {}).items():
        for c, st in comps.items():
            xs = sorted(fr[a][c] for fr in frames if fr[a][c] is not None) \
                if isinstance(frames, list) else []
            if set(st) != POOLED | ({"psnr_of_mean_mse"} if a == "psnr" else set()) or \
                    not all(finite_or_null(v) for v in st.values()):
                errs.append("pooled %s.%s: %r" % (a, c, st))
            elif xs and a != "psnr" and [st[p] for p in ("p1", "p5", "p50")] != \
                    [xs[max(1, math.ceil(q * len(xs) / 100.0)) - 1] for q in (1, 5, 50)]:
                errs.append("pooled %s.%s: percentiles %r of %r" % (a, c, st, xs))
    return errs, log


def check_csv(text, finished=True):
    """Problems of a CSV log (whole rows after any run; the pooled rows and
    the frame count of a finished one); and its frame count."""
    lines = text.split("\n")
    if text and lines[-1] != "":
        return ["the CSV log ends mid-row: %r" % lines[-1][-80:]], None
    lines = lines[:-1]
    rows = [l for l in lines if l and not l.startswith("#")]
    if not rows or not rows[0].startswith("n,pts,pts_time"):
        return (["no CSV header"] if finished or rows else []), None
    ncol = len(rows[0].split(","))
    data = [r for r in rows[1:] if re.match(r"^\d+,", r)]
    pooled = [r.split(",")[0] for r in rows[1:] if not re.match(r"^\d+,", r)]
    errs = []
    if any(len(r.split(",")) != ncol for r in rows[1:]):
        errs.append("rows with other than %d columns" % ncol)
    # the closing lines: the frame count, then whether the run finished
    m = re.match(r"^# frames=(\d+)$", lines[-2]) if len(lines) > 1 else None
    closed = m and re.match(r"^# complete=[01]$", lines[-1])
    if (closed or finished) and (not closed or int(m.group(1)) != len(data)):
        errs.append("last lines %r do not count the %d rows and say whether the run "
                    "finished" % (lines[-2:], len(data)))
    # psnr adds the PSNR of the mean MSE (doc/outputs.md#csv-log)
    want = ["mean", "min", "max", "harmonic_mean", "p1", "p5", "p50"] + \
        (["psnr_of_mean_mse"] if ",psnr." in rows[0] else [])
    if finished and pooled != want:
        errs.append("pooled rows %s" % pooled)
    elif lines[-1:] == ["# complete=1"] and pooled[:len(want)] != want:
        errs.append("# complete=1 without its pooled rows: %s" % pooled)
    return errs, len(data)


def check_stats(text):
    lines = text.splitlines()
    errs = []
    if text and not text.endswith("\n"):
        errs.append("the stats file ends mid-line")
    ns = []
    for l in lines:
        # ssim's line format, or psnr's (stats_algo=psnr)
        m = re.match(r"^n:(\d+)(?:( [A-Z]:\S+)+ All:\S+ \(\S+\)|"
                     r" mse_avg:\S+( mse_[a-z]:\S+)+ psnr_avg:\S+( psnr_[a-z]:\S+)+ )$", l)
        if not m:
            errs.append("not a stats line: %r" % l)
            break
        ns.append(int(m.group(1)))
    if ns and ns != list(range(ns[0], ns[0] + len(ns))):
        errs.append("stats lines number %s" % ns[:20])
    return errs, len(lines)


def summaries(stderr):
    """{algo: frames} from the last summary line of each algorithm."""
    out = {}
    for line in stderr.splitlines():
        m = SUMMARY.search(line)
        if m:
            out[m.group(1) or (m.group(2) and "psnr") or "fssim3d"] = int(m.group(3))
    return out


def utf8(data, errs):
    """data as text; a log that is not UTF-8 is a problem (JSON requires it,
    and readers open logs as UTF-8)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        errs.append("the log is not UTF-8: %s" % e)
        return data.decode("utf-8", "replace")


def check_title(case, title, has_options):
    """The title option as the log gives it back: the bytes given, those
    that are not UTF-8 replaced by U+FFFD, as Python decodes them."""
    if case.title is None or not has_options:
        return []
    want = case.title.decode("utf-8", "replace")
    return [] if title == want else ["the log's title is %r, not %r" % (title, want)]


def judge(case, p):
    """List of problems (empty: the case passes) and a short result."""
    errs = []
    if p is None:
        return ["no exit within %d s: a hang" % (VK_TIMEOUT if case.vulkan_case else TIMEOUT)], "hang"
    rc, err = p.returncode, p.stderr
    killed = case.kill_after is not None and rc == -signal.SIGKILL
    # (a stop signal before the tool installed its handlers ends it as a kill)
    killed |= case.stop is not None and rc == -case.stop[0]
    if rc < 0 and not killed:
        errs.append("killed by signal %d" % -rc)
    crash = CRASH.search(err)
    if crash:
        errs.append("crash text in stderr: %r" % crash.group(0))
    error_lines = [l for l in err.splitlines() if ERROR_LINE.search(l)]
    # (a run stopped by a signal exits 255, as FFmpeg's tool does, with its
    # warning and "received signal" at other levels)
    stopped = case.stop is not None and rc == 255 and "received signal" in err
    if rc > 0 and not error_lines and not stopped:
        errs.append("exit %d without an error line" % rc)
    summ = summaries(err)
    scored = max(summ.values()) if summ else 0
    if len(set(summ.values())) > 1:
        errs.append("summary lines disagree: %s" % summ)

    logged = None
    complete = None     # what the log says
    log = case.log
    if case.stdout_file and p.stdout_kept is False:
        errs.append("what the shell wrote to the file that is stdout is gone (%s)" %
                    case.stdout_file[0])
    if log and log["kind"] in ("file", "stdout", "devstdout", "procfd", "fifo"):
        text = None
        if log["kind"] == "file" and os.path.exists(log["path"]):
            with open(log["path"], "rb") as f:
                text = utf8(f.read(), errs)
        elif log["kind"] == "fifo" and rc == 0:
            text = utf8(p.fifo_data, errs)
        elif log["kind"] != "file" and rc == 0:
            # a stream: one document, whatever copies of the graph FFmpeg made
            text = utf8(p.stdout_bytes, errs)
        if text is None:
            if rc == 0:
                errs.append("exit 0 but no log at %s" % log["path"])
        elif not text and rc != 0:
            pass    # the run stopped before the header, or the disk had no room for it
        elif log["fmt"] == "json" or (log["fmt"] == "xml" and text.lstrip().startswith("{")):
            # on a stream each instance of a rebuilt graph writes a log of
            # its own (doc/outputs.md#graphs-rebuilt-mid-stream): the last one
            # is the last summary line's
            docs = json_documents(text) if log["kind"] != "file" and case.rebuild else [text]
            for doc in docs:
                e, lg = check_json(doc, case.filter, finished=rc == 0)
                errs += e
                if lg is not None and isinstance(lg.get("frames"), list):
                    logged = len(lg["frames"])
                    complete = lg.get("complete")
                    errs += check_title(case, lg.get("options", {}).get("title"),
                                        "options" in lg)
        elif log["fmt"] == "csv" and text:
            # (on a stream, as for JSON: a log per instance, each from its
            # "# filter=" line)
            docs = re.split(r"(?m)^(?=# filter=)", text)[1:] or [text] \
                if log["kind"] != "file" and case.rebuild else [text]
            for doc in docs:
                e, logged = check_csv(doc, finished=rc == 0)
                errs += ["CSV log: " + x for x in e]
                complete = doc.endswith("# complete=1\n") or \
                    (False if doc.endswith("# complete=0\n") else None)
                if doc.startswith("# filter=") and "\nn,pts,pts_time" in doc:
                    try:
                        title = farm_logs.read_csv(log["path"], doc).options.get("title")
                    except farm_logs.LogError as x:
                        errs.append("CSV log: fssim-farm cannot read it: %s" % x)
                    else:
                        errs += check_title(case, title, True)
            if rc != 0:
                logged = None
    if killed:
        logged = None       # no summary from a killed run
    # a log that says it is complete holds every frame of the inputs
    if complete and logged is not None and case.frames is not None and case.stop and \
            not case.post and case.filter != "fssim3d" and not case.rebuild and \
            not any(o.startswith(("enable", "eof_action", "shortest", "repeatlast"))
                    for o in case.opts) and logged != case.frames:
        errs.append("the log says it is complete with %d of the %d frames (stopped by %s)" % (
            logged, case.frames, signal.Signals(case.stop[0]).name))
    if logged is not None:
        for algo, k in summ.items():
            if k != logged:
                errs.append("summary says %s frames:%d, the log holds %d" % (algo, k, logged))
        if logged > 0 and not summ:
            errs.append("the log holds %d frames but there is no summary line" % logged)
    st = case.stats
    if st and (rc == 0 or st["kind"] == "file") and st["kind"] in ("file", "stdout"):
        if st["kind"] == "file":
            text = open(st["path"], errors="replace").read() if os.path.exists(st["path"]) else None
        else:
            text = utf8(p.stdout_bytes, errs)
        if text is None:
            if rc == 0:
                errs.append("exit 0 but no stats file")
        else:
            e, n = check_stats(text)
            errs += ["stats file: " + x for x in e]
            # on stdout each instance of a rebuilt graph counts its own
            if n != scored and rc == 0 and not (st["kind"] == "stdout" and case.rebuild):
                errs.append("the stats file has %d lines, the summary says %d frames" % (n, scored))

    # what the generator knows
    exp = case.expect
    if killed:
        pass
    elif exp == "ok":
        if rc != 0:
            errs.append("a valid case failed (exit %d)" % rc)
        elif case.sure_scores and scored == 0:
            errs.append("a valid case scored no frame")
    elif exp == "fail" and rc == 0:
        # a file on /dev/full fails the run once something is written to it: a
        # stats line per scored frame; the log's header when the filter is
        # configured, which a run that scores nothing may never reach
        devfull_only = all(r.endswith("/dev/full") for r, _ in case.bad)
        if not devfull_only or scored > 0 or (case.log and case.log["kind"] == "devfull" and
                                              case.sure_scores and not case.unsure):
            errs.append("exit 0, but it must fail: %s" % "; ".join(r for r, _ in case.bad))
    if exp == "fail" and rc > 0 and len(case.bad) == 1 and not case.unsure:
        reason, must = case.bad[0]
        if must and not re.search(must, "\n".join(error_lines)):
            errs.append("the error lines do not name the fault (%s: /%s/)" % (reason, must))
    if case.fsize is not None and rc == 0 and re.search(r"File too large", err):
        errs.append("the disk filled (File too large), but exit 0")
    if case.size_change_at is not None and rc == 0 and scored > case.size_change_at:
        errs.append("%d frames scored, but from frame %d on the frames are not the size fssim "
                    "was configured with: scored without an error" % (scored, case.size_change_at))
    return errs, "exit %d, %d frames" % (rc, scored)


class FifoReader(threading.Thread):
    """Reads a FIFO log until told to stop (a writer may come and go)."""

    def __init__(self, path):
        super().__init__(daemon=True)
        os.mkfifo(path)
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.data, self.done = b"", threading.Event()
        self.start()

    def run(self):
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                chunk = None
            if chunk:
                self.data += chunk
            elif self.done.is_set():
                break
            else:
                time.sleep(0.005)

    def finish(self):
        self.done.set()
        self.join(10)
        os.close(self.fd)
        return self.data


def run_case(case):
    """Run a case's command (with its file-size limit, killed or stopped
    when it says, its stdout on a pipe or a regular file); the
    CompletedProcess-like result (with fifo_data, stdout_bytes and, for
    stdout on a file, whether what was there first was kept) or None on a
    hang, and what stderr held then."""
    timeout = VK_TIMEOUT if case.vulkan_case else TIMEOUT
    reader = FifoReader(case.log["path"]) if case.log and case.log["kind"] == "fifo" else None

    def limits():
        if case.fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL if case.xfsz_default else
                          signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (case.fsize, case.fsize))
    out_file = None
    if case.stdout_file:
        # what a shell does for `{ echo ...; ffmpeg ...; } > f` (or >> f)
        path, first, append = case.stdout_file
        if append:
            with open(path, "wb") as f:
                f.write(first[:4])
            out_file = open(path, "ab")
            out_file.write(first[4:])
        else:
            out_file = open(path, "wb")
            out_file.write(first)
        out_file.flush()
    proc = subprocess.Popen(case.args, stdout=out_file or subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=limits)
    if out_file:
        out_file.close()
    if case.kill_after is not None:
        # (communicate reads the pipes meanwhile: the run must not block on them)
        threading.Timer(case.kill_after, lambda: proc.poll() is None and proc.kill()).start()
    if case.stop is not None:
        threading.Timer(case.stop[1], lambda: proc.poll() is None and
                        proc.send_signal(case.stop[0])).start()
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        if reader:
            reader.finish()
        return None, err.decode(errors="replace")
    kept = None
    if case.stdout_file:
        with open(case.stdout_file[0], "rb") as f:
            out = f.read()
        first = case.stdout_file[1]
        kept = out.startswith(first)
        out = out[len(first):] if kept else out
    p = subprocess.CompletedProcess(case.args, proc.returncode, out.decode(errors="replace"),
                                    err.decode(errors="replace"))
    p.stdout_bytes = out
    p.stdout_kept = kept
    p.fifo_data = reader.finish() if reader else None
    return p, ""


def main():
    tap = ft.Tap()
    t0 = time.time()
    make_clips(tap)
    why = vulkan_works()
    tap.diag("seed %d (FSSIM_FUZZ_SEED), budget %g s (FSSIM_FUZZ_SECONDS), up to %d cases; "
             "fssim_vulkan: %s; setup %.1f s" % (SEED, BUDGET, NB_CASES, why or "yes",
                                                time.time() - t0))
    todo = ONLY or range(NB_CASES)
    start = time.time()
    ran = 0
    stats = {}
    for k in todo:
        if not ONLY and time.time() - start > BUDGET:
            tap.diag("time budget spent after %d cases" % ran)
            break
        case = Case(k, vulkan=why is None)
        shutil.rmtree(case.dir, ignore_errors=True)
        try:
            case.generate()
        except Exception:       # a bug of this test: say so, go on with the others
            tap.ok(False, "case %d: generated" % k, "seed %d case %d:\n%s" % (
                SEED, k, traceback.format_exc()))
            continue
        case.vulkan_case = case.filter == "fssim_vulkan"
        t = time.time()
        p, hung_err = run_case(case)
        dt = time.time() - t
        errs, result = judge(case, p)
        ran += 1
        stats.setdefault(case.filter, [0, 0.0])
        stats[case.filter][0] += 1
        stats[case.filter][1] += dt
        desc = "case %d: %s [expect %s] %s" % (k, " ".join(case.tags), case.expect, result)
        diag = None
        if errs:
            diag = "\n".join(
                ["seed %d case %d: %s" % (SEED, k, e) for e in errs] +
                ["expected faults: %s" % ("; ".join(r for r, _ in case.bad) or "none"),
                 "unsure: %s" % ("; ".join(case.unsure) or "nothing"),
                 "replay: FSSIM_FUZZ_SEED=%d FSSIM_FUZZ_ONLY=%d (files kept in %s)" % (
                     SEED, k, case.dir),
                 "command: " + case.cmdline(),
                 "stderr (tail):"] +
                [l for l in ((p.stderr if p else hung_err)[-2500:]).splitlines()
                 if not l.startswith("[info]   ")])
        tap.ok(not errs, desc, diag)
        if VERBOSE and not errs:
            tap.diag("command: " + case.cmdline())
        if not errs:
            shutil.rmtree(case.dir, ignore_errors=True)
    tap.diag("%d cases in %.1f s; %s" % (ran, time.time() - start, ", ".join(
        "%s: %d (%.2f s each)" % (f, n, s / n) for f, (n, s) in sorted(stats.items()))))
    tap.done()


if __name__ == "__main__":
    main()
