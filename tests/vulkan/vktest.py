"""What the Vulkan tests share: the device option, stored clips, the fault
layer's environment, building the API test program vk_graph_errors.c, and
the scoring of the same stored frames by fssim (software frames) and
fssim_vulkan (frames made by hwupload).

    import vktest
    cmp = vktest.Comparison(tap, "vulkan-msssim", TOL, watch=lambda a: a == "msssim")
    why = vktest.vulkan_device()      # None, or why every check is skipped
    cmp.compare("yuv420p-322x324", "yuv420p", 322, 324, "algo=msssim")
"""
import os
import re

import fssimtest as ft

DEVICE = os.environ.get("FSSIM_VULKAN_DEVICE", "0")
HW = ["-init_hw_device", "vulkan=vk:%s" % DEVICE, "-filter_hw_device", "vk"]
# the Vulkan layer that fakes GPU faults (tests/vulkan/fault_layer.c), as
# make check builds it
FAULT_LAYER = "VK_LAYER_FSSIM_fault"
LAYER_DIR = os.path.join(os.environ.get("top_builddir", "."), "tests", "vulkan", "fault")


def vulkan_device():
    """None where fssim_vulkan is built and a Vulkan device takes hwupload's
    frames, else why not."""
    if not ft.has_filter("fssim_vulkan"):
        return "fssim_vulkan not built (FFmpeg without --enable-vulkan)"
    p = ft.ffmpeg(*HW, "-f", "lavfi", "-i", "color=s=64x64:d=0.04,format=yuv420p",
                  "-vf", "hwupload", "-f", "null", "-", check=False)
    return None if p.returncode == 0 else "no Vulkan device (-init_hw_device vulkan=vk:%s)" % DEVICE


def make_clip(work, name, fmt, w, h, n, chain):
    """ffmpeg input arguments of n frames of the lavfi graph chain, stored
    once in work as raw fmt."""
    path = os.path.join(work, name + ".yuv")
    if not os.path.exists(path):
        ft.ffmpeg("-f", "lavfi", "-i", chain, "-frames:v", str(n), "-f", "rawvideo",
                  "-pix_fmt", fmt, path + ".part")
        os.rename(path + ".part", path)
    return ["-f", "rawvideo", "-pix_fmt", fmt, "-video_size", "%dx%d" % (w, h),
            "-framerate", "25", "-i", path]


def fault_env(fault):
    """The environment of a run under the fault layer, FSSIM_FAULT=fault
    (none: the layer is there and does nothing)."""
    # below the validation layer, as a driver would be: validation checks
    # ffmpeg's calls and sees the loss come from underneath
    env = dict(os.environ)
    layers = [x for x in env.get("VK_INSTANCE_LAYERS", "").split(":") if x]
    env["VK_INSTANCE_LAYERS"] = ":".join(layers + [FAULT_LAYER])
    env["VK_ADD_LAYER_PATH"] = LAYER_DIR + (os.pathsep + env["VK_ADD_LAYER_PATH"]
                                            if env.get("VK_ADD_LAYER_PATH") else "")
    if fault:
        env["FSSIM_FAULT"] = fault
    else:
        env.pop("FSSIM_FAULT", None)
    if fault and "stall_after" in fault and env.get("ASAN_OPTIONS"):
        # a hung device may still write what the filter gave it, so the
        # filter leaves it allocated on purpose (and the tool leaves what its
        # abandoned threads hold): not leaks for LeakSanitizer to report.
        # Every other sanitizer check stays on.
        env["ASAN_OPTIONS"] += ":detect_leaks=0"
    return env


def build_graph_helper(work):
    """Build vk_graph_errors.c against the FFmpeg tree into work; (path,
    None) or (None, why not)."""
    tree = os.environ.get("FFMPEG_TREE", "")
    mak = os.path.join(tree, "ffbuild", "config.mak")
    if not tree or not os.path.exists(mak):
        return None, "needs the FFmpeg build tree (FFMPEG_TREE) to build vk_graph_errors.c"
    conf = {}
    # a sanitizer build's link flags are fssim's own (sanitize.mak), not
    # FFmpeg's: its objects in libavfilter.a need the sanitizers' runtimes
    for path in (mak, os.path.join(tree, "libavfilter", "fssim", "sanitize.mak")):
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    k, _, v = line.partition("=")
                    conf[k.strip()] = v.strip()
    incs = [x for x in conf.get("CFLAGS", "").split() if x.startswith("-I")]
    libs = ["libavfilter", "libswscale", "libavformat", "libavcodec", "libswresample",
            "libavutil"]
    extra = set()
    for lib in libs:
        extra.update(conf.get("EXTRALIBS-" + lib[3:], "").split())
    out = os.path.join(work, "vk_graph_errors")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vk_graph_errors.c")
    cmd = [conf.get("CC", "cc"), "-std=c17", "-O1", "-I" + tree] + incs + \
        ["-o", out, src] + [os.path.join(tree, l, l + ".a") for l in libs] + \
        sorted(extra) + ["-ldl"] + conf.get("LDFLAGS", "").split() + \
        conf.get("FSSIM_SANITIZE_LDFLAGS", "").split()
    p = ft.run(cmd, check=False)
    if p.returncode != 0:
        return None, "building vk_graph_errors.c failed:\n" + p.stderr[-2000:]
    return out, None


class Comparison:
    """fssim against fssim_vulkan on the same stored frames, every plane and
    All of every frame within tol[algo]; the largest difference of the
    algorithms watch() picks is kept in worst, (difference, case)."""

    CRASH = re.compile(r"Assertion|Segmentation|core dumped|AddressSanitizer|double free|"
                       r"stack smashing|Aborted", re.I)

    def __init__(self, tap, work, tol, watch):
        self.tap = tap
        self.work = ft.workdir(work)
        self.tol = tol
        self.watch = watch
        self.worst = [0.0, ""]

    def clips(self, fmt, w, h, n=2, kind="natural"):
        """(main, reference): a distorted natural clip and its reference;
        kind "flat": frames of a few levels each; "inverted": main is the
        reference's negative (negative covariances)."""
        tag = "%s_%dx%d_%d_%s" % (fmt, w, h, n, kind)
        if kind == "flat":
            f = ft.pix_fmt(fmt)
            top = f.maxval
            a = ft.flat_frames(w, h, n, f, [top * 3 // 4, top // 2, top // 4, top])
            b = ft.flat_frames(w, h, n, f, [top * 2 // 3, top // 2 + 3, top // 5, top])
            return (ft.natural_clip(w, h, 0, f, self.work, tag + "_m", frames=a),
                    ft.natural_clip(w, h, 0, f, self.work, tag + "_r", frames=b))
        ref = ft.natural_clip(w, h, n, fmt, self.work, tag + "_r", image="coffee", seed=5)
        if kind == "inverted":
            top = ref.fmt.maxval
            neg = [[(top - p.astype("int64")).astype(p.dtype) for p in fr] for fr in ref.frames]
            return ft.natural_clip(w, h, 0, ref.fmt, self.work, tag + "_m", frames=neg), ref
        main = ft.natural_clip(w, h, n, fmt, self.work, tag + "_m", image="coffee", seed=5,
                               distort=dict(blur=1.0, noise=3.0, block=8))
        return main, ref

    def score(self, inputs, graph, tag, hw=True):
        """The log of one run of graph (@LOG@: its path) and the process;
        None for the log where the run failed or wrote none."""
        log = os.path.join(self.work, tag + ".json")
        if os.path.exists(log):
            os.unlink(log)
        p = ft.ffmpeg(*((HW if hw else []) + list(inputs) +
                        ["-lavfi", graph.replace("@LOG@", log), "-f", "null", "-"]),
                      check=False)
        if p.returncode != 0 or not os.path.exists(log):
            return None, p
        return ft.load_log(log), p

    def expect_error(self, desc, inputs, graph, patterns):
        """One check: the run of graph fails, with no crash, and its messages
        hold every pattern."""
        _, p = self.score(inputs, graph, "err")
        bad = [x for x in patterns if not re.search(x, p.stderr)]
        self.tap.ok(p.returncode > 0 and not self.CRASH.search(p.stderr) and not bad,
                    "error: %s (%s)" % (desc, ", ".join(patterns)),
                    "missing %s in:\n%s" % (bad, p.stderr[-2000:]))

    @staticmethod
    def max_diff(cpu, gpu, algos):
        """Per algorithm: (the largest difference, (frame, component, cpu, gpu))."""
        out = {}
        for a, b in zip(ft.log_values(cpu).items(), ft.log_values(gpu).items()):
            (ka, va), (kb, vb) = a, b
            for algo in algos:
                for c, v in va[algo].items():
                    if c == "dB":
                        continue
                    w = vb.get(algo, {}).get(c) if ka == kb else None
                    d = abs(v - w) if v is not None and w is not None else float("inf")
                    if d > out.get(algo, (-1.0,))[0]:
                        out[algo] = (d, (ka, c, v, w))
        return out

    def compare(self, case, fmt, w, h, options, kind="natural", n=2):
        """One case: both runs, then each algorithm of options within its
        tolerance.  fssim_vulkan's log, or None where a run failed."""
        tap = self.tap
        algos = options.split(":")[0][len("algo="):].split("+")
        main, ref = self.clips(fmt, w, h, n, kind)
        inputs = main.input_args() + ref.input_args()
        cpu, pc = self.score(inputs, "[0:v][1:v]fssim=%s:log_path=@LOG@" % options,
                             case + "_cpu", False)
        gpu, pg = self.score(inputs, "[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim_vulkan=%s:"
                             "log_path=@LOG@" % options, case + "_vk")
        if not tap.ok(cpu is not None and gpu is not None and not self.CRASH.search(pg.stderr)
                      and gpu["frame_count"] == cpu["frame_count"] == n,
                      "%s: fssim and fssim_vulkan run (%s %dx%d, %s)" % (case, fmt, w, h, options),
                      (pc.stderr + pg.stderr)[-3000:]):
            return None
        d = self.max_diff(cpu, gpu, algos)
        for algo in algos:
            v, where = d.get(algo, (float("inf"), None))
            if self.watch(algo) and v > self.worst[0]:
                self.worst[:] = [v, case]
            tap.ok(v <= self.tol[algo], "%s: %s within %g of fssim (max diff %.3g)" % (
                case, algo, self.tol[algo], v), "worst at (frame, comp, cpu, gpu) %r" % (where,))
        return gpu

    def determinism(self, fmt, w, h, options):
        """Two runs of the same frames give the same values, bit for bit."""
        tap = self.tap
        inputs = sum((c.input_args() for c in self.clips(fmt, w, h)), [])
        g = "[0:v]hwupload[m];[1:v]hwupload[r];[m][r]fssim_vulkan=%s:log_path=@LOG@" % options
        a, pa = self.score(inputs, g, "det_a")
        b, pb = self.score(inputs, g, "det_b")
        if tap.ok(a is not None and b is not None, "determinism: two runs",
                  (pa.stderr + pb.stderr)[-2000:]):
            tap.ok(a["frames"] == b["frames"], "determinism: two runs give bitwise identical "
                   "values (17 significant digits)")

    def ladder(self, ref_size, cases, algos_of):
        """Ladders against fssim's: a reference of ref_size and, per case
        (name, rendition sizes, options), renditions of those sizes,
        resampled on the device where they differ from the reference's;
        algos_of(options) the algorithms compared, each within its
        tolerance, and psnr, where asked for, equal bit for bit."""
        tap = self.tap
        f = ft.pix_fmt("yuv420p")
        ref = ft.natural_clip(ref_size[0], ref_size[1], 2, f, self.work, "lad_r",
                              image="coffee", seed=5)
        for name, sizes, opts in cases:
            rends = [ft.natural_clip(w, h, 2, f, self.work, "lad_%dx%d_%d" % (w, h, k),
                                     image="coffee", seed=5,
                                     distort=dict(blur=0.6 + 0.4 * k, noise=2.0 + k, seed=k))
                     for k, (w, h) in enumerate(sizes)]
            n = len(rends) + 1
            inputs = sum((c.input_args() for c in rends + [ref]), [])
            pads = "".join("[%d:v]" % i for i in range(n))
            cpu, pc = self.score(inputs, "%sfssim=inputs=%d:%s:log_path=@LOG@" % (pads, n, opts),
                                 "ladder_cpu", False)
            up = ";".join("[%d:v]hwupload[u%d]" % (i, i) for i in range(n))
            gpu, pg = self.score(inputs, "%s;%sfssim_vulkan=inputs=%d:%s:log_path=@LOG@" % (
                                     up, "".join("[u%d]" % i for i in range(n)), n, opts),
                                 "ladder_vk")
            if not tap.ok(cpu is not None and gpu is not None and
                          len(ft.log_values(gpu)) == len(ft.log_values(cpu)) == 2 * len(sizes),
                          "ladder %s: runs, every rendition scored" % name,
                          (pc.stderr + pg.stderr)[-2500:]):
                continue
            algos = algos_of(opts)
            diffs = self.max_diff(cpu, gpu, algos)
            bad = {a: d for a, d in diffs.items() if not d[0] <= self.tol[a]}
            tap.ok(len(diffs) == len(algos) and not bad,
                   "ladder %s: %s within the contracts of fssim's ladder (%s)" % (
                       name, "+".join(algos),
                       ", ".join("%s %.3g" % (a, d[0]) for a, d in diffs.items())), bad)
            if "psnr" in opts:
                same = all(fg["psnr"] == fc["psnr"] for fg, fc in
                           zip(ft.log_values(gpu).values(), ft.log_values(cpu).values()))
                tap.ok(same, "ladder %s: psnr equal to fssim's, bit for bit" % name)
