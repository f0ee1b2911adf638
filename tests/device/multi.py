"""Several fssim filters on one GPU at once give exactly the scores each
gives alone.

(a) Eight fssim_cuda in one filter graph: the NVDEC-decoded reference split
    eight ways (split=8 on CUDA frames) against eight main streams, each from
    its own NVDEC decoder (the 8-bit encodes of the clip folder in turn, each
    reuse started a few frames later with trim, so that no two streams are
    alike; trim and setpts keep the frames on the GPU), each filter with its
    own log.  Then each pair is scored alone, in a run of its own.  Every
    frame's scores must be identical, bit for bit (the kernels are
    deterministic), and every log must hold every frame.
(b) tests/device/two_graphs: two filter graphs on one CUDA context (and one
    Vulkan device) in one process, interleaved frame by frame and in two
    threads, against each graph alone (see two_graphs.c).

usage: tests/device/multi.sh FFMPEG CLIPS OUT
  CLIPS  a folder of bench/make_bench_clips.py clips: the reference is
         MULTI_REF or the first *_8_qp22.mkv (HEVC first), the main streams the
         other 8-bit encodes of the same size
  OUT    logs and OUT/multi.json
Environment:
  MODE=gpu|vulkan|cpu  gpu: NVDEC + fssim_cuda (and two_graphs on CUDA and
         Vulkan); vulkan: Vulkan Video + fssim_vulkan in (a); cpu: software
         frames and fssim (two_graphs on software frames), for machines
         without a GPU
  MULTI_FRAMES  frames per run in (a) (default 240)
  MULTI_ALGO    algo (default float+int+block)
  TWO_GRAPHS    the two_graphs binary (default: next to FFMPEG); built by
                tests/device/build_two_graphs.sh
  MULTI_PARTS   which parts to run: "a b" (default)
Exit status 0 when every comparison is identical, 1 otherwise, 2 on a usage
error.
"""
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devlib  # noqa: E402

N_STREAMS = 8
MODES = {
    # mode: (frame source of (a), filter of (a), two_graphs runs of (b))
    "gpu": ("nvdec", "fssim_cuda", [
        ["-d", "cuda", "-f", "fssim_cuda", "-o", "algo={algo}", "-s", "1920x1080", "-k", "40"],
        ["-d", "cuda", "-f", "fssim_cuda", "-o", "algo={algo}", "-s", "1920x1080", "-k", "40",
         "-t"],
        ["-d", "cuda", "-f", "fssim_cuda", "-o", "algo={algo}:padding=same:window=7:sigma=1",
         "-s", "333x202", "-p", "p010le", "-k", "30", "-t"],
        ["-d", "cuda", "-f", "fssim_cuda", "-o", "algo={algo}", "-s", "331x201",
         "-p", "yuv444p", "-k", "30"],
        ["-d", "cuda", "-f", "fssim3d", "-o", "depth=5", "-s", "640x360", "-p", "nv12",
         "-k", "30"],
        ["-d", "cuda", "-f", "fssim3d", "-o", "depth=5", "-s", "640x360", "-p", "nv12",
         "-k", "30", "-t"],
        ["-d", "vulkan", "-f", "fssim_vulkan", "-o", "algo={algo}", "-s", "1920x1080",
         "-k", "30"],
        ["-d", "vulkan", "-f", "fssim_vulkan", "-o", "algo={algo}", "-s", "1920x1080",
         "-k", "30", "-t"],
    ]),
    "vulkan": ("vkdec", "fssim_vulkan", [
        ["-d", "vulkan", "-f", "fssim_vulkan", "-o", "algo={algo}", "-s", "1920x1080",
         "-k", "30"],
        ["-d", "vulkan", "-f", "fssim_vulkan", "-o", "algo={algo}", "-s", "1920x1080",
         "-k", "30", "-t"],
    ]),
    "cpu": ("sw", "fssim", [
        ["-d", "none", "-f", "fssim", "-o", "algo={algo}", "-s", "320x180", "-k", "12"],
        ["-d", "none", "-f", "fssim", "-o", "algo={algo}:padding=same", "-s", "97x65",
         "-p", "p010le", "-k", "8", "-t"],
        ["-d", "none", "-f", "fssim3d", "-o", "depth=5", "-s", "160x90", "-k", "12", "-t"],
    ]),
}


def clips_of(folder):
    ref = os.environ.get("MULTI_REF")
    if not ref:
        refs = sorted(glob.glob(os.path.join(folder, "*_8_qp22.mkv")),
                      key=lambda p: ("hevc" not in os.path.basename(p), p))
        if not refs:
            devlib.die("no *_8_qp22.mkv reference clip in %s (bench/make_bench_clips.py)" % folder)
        ref = refs[0]
    size = os.path.basename(ref).split("_")[0]
    mains = sorted(p for p in glob.glob(os.path.join(folder, size + "_*_8_qp*.mkv")) if p != ref)
    if not mains:
        devlib.die("no other 8-bit %s clip than %s in %s for the main streams" % (size, ref, folder))
    return ref, mains


def part_a(ffmpeg, ref, mains, mode, frames, algo, out):
    source, filt, _ = MODES[mode]
    src = devlib.SOURCES[source]
    # stream i: main clip i % len(mains), started (i // len(mains)) * 5 frames in
    streams = [(mains[i % len(mains)], (i // len(mains)) * 5) for i in range(N_STREAMS)]
    # Each input cut to exactly `frames` frames in the graph (trim), so every
    # filter scores the same frames and then sees EOF; frame-number
    # timestamps on both sides (trimmed millisecond timestamps would not line
    # up with the reference's).  -frames:v instead would stop the output while
    # frames already scored are still on their way, leaving logs of unequal
    # length.
    pts = "setpts=N/FRAME_RATE/TB"

    def chain(i, start, label):
        return "[%d:v]trim=start_frame=%d:end_frame=%d,%s[%s]" % (i, start, start + frames, pts,
                                                                  label)

    def log(tag, i):
        return os.path.join(out, "multi_%s%d.json" % (tag, i))

    def cmd_for(inputs, lavfi, nout):
        c = [ffmpeg, "-hide_banner", "-nostdin", "-y"] + src["global"]
        for clip in inputs:
            c += src["input"] + ["-stream_loop", "-1", "-i", clip]
        c += ["-lavfi", lavfi]
        for i in range(nout):
            c += ["-map", "[o%d]" % i]
        return c + ["-f", "null", "-"]

    for f in glob.glob(os.path.join(out, "multi_*.json")):
        os.unlink(f)
    # all eight in one graph: input 0 the reference, inputs 1..8 the mains
    parts = [chain(0, 0, "ref") + ";[ref]split=%d%s" %
             (N_STREAMS, "".join("[r%d]" % i for i in range(N_STREAMS)))]
    for i, (_, start) in enumerate(streams):
        parts.append(chain(i + 1, start, "m%d" % i))
        parts.append("[m%d][r%d]%s=algo=%s:log_path=%s[o%d]" % (i, i, filt, algo, log("all", i), i))
    cmd = cmd_for([ref] + [m for m, _ in streams], ";".join(parts), N_STREAMS)
    st = devlib.run(cmd, os.path.join(out, "multi_all.log"), timeout=300)
    results, ok = [], st == 0
    if st != 0:
        print("(a) the eight-filter run failed: exit status %s\n%s" %
              (st, devlib.tail(os.path.join(out, "multi_all.log"))))
    for i, (clip, start) in enumerate(streams):
        lavfi = "%s;%s;[m0][r0]%s=algo=%s:log_path=%s[o0]" % (
            chain(0, start, "m0"), chain(1, 0, "r0"), filt, algo, log("alone", i))
        c = cmd_for([clip, ref], lavfi, 1)
        s1 = devlib.run(c, os.path.join(out, "multi_alone%d.log" % i), timeout=300)
        a, b = devlib.load_log(log("all", i)), devlib.load_log(log("alone", i))
        probs = ["eight-filter run: " + p for p in devlib.check_log(a, frames)] + \
                ["alone: " + p for p in devlib.check_log(b, frames)]
        if s1 != 0:
            probs.append("alone run: exit status %s: %s" %
                         (s1, devlib.tail(os.path.join(out, "multi_alone%d.log" % i), 5)))
        if a and b and not probs:
            for fa, fb in zip(a["frames"], b["frames"]):
                if fa != fb:
                    probs.append("frame %s differs:\n      together %s\n      alone    %s" %
                                 (fa.get("n"), json.dumps(fa), json.dumps(fb)))
                    break
            if a.get("pooled") != b.get("pooled"):
                probs.append("pooled values differ")
        ok = ok and not probs
        r = {"stream": i, "main": os.path.basename(clip), "trim_frames": start,
             "frames": len(a["frames"]) if a else 0, "pooled_all": devlib.pooled_all(a),
             "identical": not probs, "problems": probs}
        results.append(r)
        print("(a) stream %d: %-22s from frame %2d: %4d frames, float.All mean %s: %s%s" %
              (i, r["main"], start, r["frames"],
               "%.6f" % r["pooled_all"]["float"] if "float" in r["pooled_all"] else "-",
               "identical" if not probs else "DIFFERENT",
               "".join("\n    - " + p for p in probs)), flush=True)
    # eight identical streams would make the comparison blind to a mix-up
    distinct = len({json.dumps(r["pooled_all"], sort_keys=True) for r in results})
    if distinct < N_STREAMS:
        print("(a) only %d of %d streams have distinct scores: a mix-up between filters "
              "could go unseen" % (distinct, N_STREAMS))
        ok = False
    return ok, {"eight_filter_exit_status": st, "streams": results, "distinct": distinct}


def part_b(ffmpeg, mode, algo, out):
    binary = os.environ.get("TWO_GRAPHS") or os.path.join(os.path.dirname(ffmpeg), "two_graphs")
    if not os.access(binary, os.X_OK):
        print("(b) FAIL: no two_graphs binary at %s: build it with "
              "tests/device/build_two_graphs.sh BUILD_DIR OUTPUT and set TWO_GRAPHS" % binary)
        return False, {"error": "no binary at " + binary}
    ok, runs = True, []
    with open(os.path.join(out, "two_graphs.txt"), "w") as txt:
        for args in MODES[mode][2]:
            args = [a.format(algo=algo) for a in args]
            p = subprocess.run([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, timeout=300)
            txt.write("$ two_graphs %s\n%s%s\n" % (" ".join(args), p.stdout, p.stderr))
            last = (p.stdout.strip().splitlines() or ["(no output)"])[-1]
            good = p.returncode == 0 and last.startswith("PASS")
            ok = ok and good
            runs.append({"args": args, "exit_status": p.returncode, "result": last})
            print("(b) %-4s %s: %s" % ("ok" if good else "FAIL", " ".join(args), last), flush=True)
            if not good:
                sys.stdout.write("".join((p.stdout + p.stderr).splitlines(True)[-12:]))
    return ok, {"binary": binary, "runs": runs}


def main():
    if len(sys.argv) != 4:
        devlib.die("usage: multi.sh FFMPEG CLIPS OUT")
    ffmpeg, folder, out = sys.argv[1:]
    devlib.check_ffmpeg(ffmpeg)
    mode = os.environ.get("MODE", "gpu")
    if mode not in MODES:
        devlib.die("MODE must be one of %s" % " ".join(MODES))
    frames = int(os.environ.get("MULTI_FRAMES", "240"))
    algo = os.environ.get("MULTI_ALGO", "float+int+block")
    parts = os.environ.get("MULTI_PARTS", "a b").split()
    os.makedirs(out, exist_ok=True)
    summary, ok = {"mode": mode, "frames": frames, "algo": algo}, True
    if "a" in parts:
        ref, mains = clips_of(folder)
        print("(a) %d x %s in one graph, reference %s split %d ways, %d frames; then each "
              "pair alone" % (N_STREAMS, MODES[mode][1], os.path.basename(ref), N_STREAMS,
                              frames), flush=True)
        good, summary["a"] = part_a(ffmpeg, ref, mains, mode, frames, algo, out)
        ok = ok and good
        print("(a) %s" % ("PASS: every stream's scores identical together and alone" if good
                          else "FAIL"), flush=True)
    if "b" in parts:
        good, summary["b"] = part_b(ffmpeg, mode, algo, out)
        ok = ok and good
        print("(b) %s" % ("PASS" if good else "FAIL"), flush=True)
    with open(os.path.join(out, "multi.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print("multi: %s" % ("PASS" if ok else "FAIL"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
