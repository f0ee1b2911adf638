#!/usr/bin/env python3
"""The hang of looped Vulkan Video ladders, on a GPU machine: reproduce it,
show where every thread waits, and try the variants that tell its possible
causes apart, each run bounded, all within a time budget.

The run that hung: seven Vulkan Video inputs (bench/make_bench_clips.py
--ladder: the 2160p HEVC reference and six renditions), each with
-stream_loop 1, into fssim_vulkan=inputs=7, never ended, and SIGTERM did
not end it; without -stream_loop it ended; decoding the seven streams alone
was once seen stalling too.

Each case runs ffmpeg (-v verbose) for at most --limit seconds.  A run that
has not ended by then is stalled: its threads' stacks are written (gdb,
else eu-stack, else the preloaded tests/device/stacks.c: --stacks-lib), a
GPU snapshot is taken (nvidia-smi), then SIGTERM is sent and the time it
takes the run to end is noted (the tool patch 0004 ends a run whose decoder
is stuck within about 1.5 s), and SIGKILL after 5 s.  Cases in order of
what they tell; those that do not fit the remaining budget are skipped.

  decode7_loop (x3)      the 7 looped streams decoded alone: a hang here is
                         FFmpeg's Vulkan Video decoding or the driver (H1)
  ladder7_loop (x2)      the issue's command (the second with -debug_ts:
                         which decoder stops last)
  ladder7_noloop         control: the same without -stream_loop
  ladder7_loop_ra1 / ra16   -filter_readahead 1 / 16: the tool's read-ahead
                         bound (H3: decoders held back, frames parked)
  ladder7_loop_jpr       a command buffer per rendition: each decoder's
                         frames signalled as soon as its own rendition is
                         scored (H2: decoders waiting on the GPU, through the
                         frames' timeline semaphores, for the whole ladder's
                         scoring, and that scoring for their frames)
  ladder7_loop_inflight1 the filter holds one frame per input (H4: frames
                         held by the filter and framesync exhaust what the
                         decoders need)
  ladder7_loop_extrahw   -extra_hw_frames 32 (H4, the frame pools)
  ladder7_loop_threads1  decoders without frame threads (H5: the flush at
                         the loop point, avcodec_flush_buffers with frame
                         threads, waiting for the decoder's own frames)
  ladder3_loop, pair_loop  fewer inputs: how many it takes
  ladder7_loop_cuda      the same ladder on NVDEC and fssim_cuda
  decoder_stuck          the fault layer makes every video decode fence
                         after the 30th stall, as a hung driver would: the
                         run must end within 2 s of SIGTERM (tool patch 0004)

usage: vulkan_hang.py FFMPEG CLIPS_DIR OUT_DIR [--budget S] [--limit S]
                      [--fault-layer DIR] [--stacks-lib SO] [--only a,b]
Writes OUT_DIR/hang.json, OUT_DIR/hang.txt (the table), and per run
NAME.N.log (ffmpeg's log), NAME.N.stacks, NAME.N.gpu.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

LADDER = ["2160_hevc_8_qp34.mkv", "ladder_1440.mkv", "ladder_1080.mkv", "ladder_720.mkv",
          "ladder_540.mkv", "ladder_360.mkv", "2160_hevc_8_qp22.mkv"]
PAIR = ["2160_hevc_8_qp34.mkv", "2160_hevc_8_qp22.mkv"]
VK_INIT = ["-init_hw_device", "vulkan=vk:0", "-filter_hw_device", "vk"]
VK_IN = ["-hwaccel", "vulkan", "-hwaccel_device", "vk", "-hwaccel_output_format", "vulkan"]
CU_INIT = ["-init_hw_device", "cuda=cu:0", "-filter_hw_device", "cu"]
CU_IN = ["-hwaccel", "cuda", "-hwaccel_device", "cu", "-hwaccel_output_format", "cuda"]
FRAME = re.compile(r"frame=\s*(\d+)")
DECODED = re.compile(r"^\[vist#(\d+):0/[^]]*\].*decoder -> pts:", re.M)


def case(name, files, loop=1, score=True, glob=(), per_input=(), env=None, cuda=False,
         debug_ts=False, fault=None):
    """A case: its command line (without the ffmpeg path) and environment."""
    args = ["-hide_banner", "-nostdin", "-y", "-v", "verbose"] + list(glob)
    args += CU_INIT if cuda else VK_INIT
    if debug_ts:
        args.append("-debug_ts")
    for f in files:
        args += (CU_IN if cuda else VK_IN) + list(per_input)
        if loop:
            args += ["-stream_loop", str(loop)]
        args += ["-i", f]
    n = len(files)
    if score:
        filt = ("fssim_cuda" if cuda else "fssim_vulkan") + (":inputs=%d" % n if n > 2 else "")
        filt = filt.replace(":", "=", 1)
        args += ["-lavfi", "".join("[%d:v]" % i for i in range(n)) + filt]
    else:
        args += sum((["-map", "%d:v" % i] for i in range(n)), [])
    args += ["-f", "null", "-"]
    return {"name": name, "args": args, "env": dict(env or {}), "fault": fault}


def cases(clips, fault_layer):
    L = [os.path.join(clips, f) for f in LADDER]
    P = [os.path.join(clips, f) for f in PAIR]
    out = [
        (3, case("decode7_loop", L, score=False)),
        (1, case("ladder7_loop", L)),
        (1, case("ladder7_loop_debugts", L, debug_ts=True)),
        (1, case("ladder7_noloop", L, loop=0)),
        (1, case("ladder7_loop_ra16", L, glob=["-filter_readahead", "16"])),
        (1, case("ladder7_loop_ra1", L, glob=["-filter_readahead", "1"])),
        (1, case("ladder7_loop_jpr", L, env={"FSSIM_VULKAN_JOB_PER_RENDITION": "1"})),
        (1, case("ladder7_loop_inflight1", L, env={"FSSIM_VULKAN_FRAMES_IN_FLIGHT": "1"})),
        (1, case("ladder7_loop_extrahw", L, per_input=["-extra_hw_frames", "32"])),
        (1, case("ladder7_loop_threads1", L, per_input=["-threads", "1"])),
        (1, case("ladder3_loop", [L[0], L[3], L[6]])),
        (1, case("pair_loop", P)),
        (1, case("ladder7_loop_cuda", L, cuda=True)),
    ]
    if fault_layer:
        out.append((1, case("decoder_stuck", L, loop=3, fault=fault_layer,
                            env={"FSSIM_FAULT": "stall_after=30,stall=decode"})))
    return out


# ---- stacks -----------------------------------------------------------------

def stacks(pid, ffmpeg, path, preload_file):
    """Every thread's stack of pid into path; how they were taken."""
    if shutil.which("gdb"):
        r = subprocess.run(["gdb", "-p", str(pid), "-batch", "-nx", "-ex", "set pagination off",
                            "-ex", "thread apply all bt 40"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=60)
        with open(path, "w") as f:
            f.write(r.stdout)
        return "gdb"
    if shutil.which("eu-stack"):
        r = subprocess.run(["eu-stack", "-p", str(pid)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=60)
        with open(path, "w") as f:
            f.write(r.stdout)
        return "eu-stack"
    if preload_file:
        os.kill(pid, signal.SIGUSR2)
        time.sleep(1.0)
        with open(path, "w") as f:
            f.write(symbolize(preload_file))
        return "stacks.c"
    with open(path, "w") as f:
        for tid in sorted(os.listdir("/proc/%d/task" % pid), key=int):
            t = "/proc/%d/task/%s/" % (pid, tid)
            f.write("thread %s %s wchan=%s syscall=%s\n" % (
                tid, read(t + "comm").strip(), read(t + "wchan").strip(),
                read(t + "syscall").split(" ")[0].strip()))
            f.write(read(t + "stack"))
    return "/proc (no debugger)"


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return "?"


def symbolize(path):
    """A stacks.c dump with each address resolved by addr2line where there is one."""
    text = read(path)
    maps = []
    m = re.search(r"^maps\n(.*?)^end maps\n", text, re.M | re.S)
    if m:
        for line in m.group(1).splitlines():
            p = line.split()
            if len(p) >= 6 and "x" in p[1]:
                lo, hi = (int(x, 16) for x in p[0].split("-"))
                maps.append((lo, hi, int(p[2], 16), p[5]))
    if not shutil.which("addr2line") or not maps:
        return text
    out = []
    for line in text.splitlines():
        a = re.match(r"\s+0x([0-9a-f]+)$", line)
        if not a:
            out.append(line)
            continue
        addr = int(a.group(1), 16)
        sym = ""
        for lo, hi, off, obj in maps:
            if lo <= addr < hi:
                r = subprocess.run(["addr2line", "-f", "-C", "-e", obj, hex(addr - lo + off)],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                sym = " ".join(r.stdout.split()[:1]) + " (%s)" % os.path.basename(obj)
                break
        out.append(line + "  " + sym)
    return "\n".join(out) + "\n"


# ---- one run ------------------------------------------------------------------

def gpu_snapshot(path):
    if shutil.which("nvidia-smi"):
        r = subprocess.run(["nvidia-smi"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=30)
        with open(path, "w") as f:
            f.write(r.stdout)


def last_frames(log):
    found = FRAME.findall(read(log))
    return int(found[-1]) if found else 0


def per_input(log):
    """Frames out of each decoder (-debug_ts runs): {input: count}."""
    counts = {}
    for i in DECODED.findall(read(log)):
        counts[int(i)] = counts.get(int(i), 0) + 1
    return counts


def run_case(ffmpeg, c, rep, out, limit, stacks_lib):
    tag = "%s.%d" % (c["name"], rep)
    log = os.path.join(out, tag + ".log")
    env = dict(os.environ, **c["env"])
    if c["fault"]:
        env["VK_ADD_LAYER_PATH"] = c["fault"]
        env["VK_INSTANCE_LAYERS"] = ":".join(
            [x for x in env.get("VK_INSTANCE_LAYERS", "").split(":") if x] +
            ["VK_LAYER_FSSIM_fault"])
    preload_file = None
    if stacks_lib and not (shutil.which("gdb") or shutil.which("eu-stack")):
        preload_file = os.path.join(out, tag + ".rawstacks")
        env["LD_PRELOAD"] = stacks_lib
        env["FSSIM_STACKS_FILE"] = preload_file
    r = {"case": c["name"], "rep": rep, "cmd": " ".join(c["args"]), "env": c["env"]}
    t0 = time.monotonic()
    with open(log, "w") as f:
        p = subprocess.Popen([ffmpeg] + c["args"], stdout=subprocess.DEVNULL, stderr=f, env=env)
        try:
            p.wait(limit)
            r.update(status="ended", rc=p.returncode, seconds=round(time.monotonic() - t0, 2))
        except subprocess.TimeoutExpired:
            r.update(status="stalled", seconds=limit, frames_at_stall=last_frames(log))
            gpu_snapshot(os.path.join(out, tag + ".gpu"))
            try:
                r["stacks"] = stacks(p.pid, ffmpeg, os.path.join(out, tag + ".stacks"),
                                     preload_file)
            except (OSError, subprocess.SubprocessError) as e:
                r["stacks"] = "failed: %s" % e
            r["frames_after_stacks"] = last_frames(log)
            t1 = time.monotonic()
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(5)
                r.update(sigterm="ended in %.2f s" % (time.monotonic() - t1), rc=p.returncode)
            except subprocess.TimeoutExpired:
                r["sigterm"] = "did not end within 5 s"
                p.kill()
                p.wait()
    r["frames"] = last_frames(log)
    # the threads the tool gave up on after SIGTERM: which one was stuck
    r["abandoned"] = re.findall(r"^(\[[^\n]*?\]) Thread did not end within", read(log), re.M)
    r["timeouts"] = len(re.findall(r"did not finish the .* within|still working on", read(log)))
    if c["args"].count("-debug_ts"):
        r["decoded_per_input"] = per_input(log)
    errs = [l for l in read(log).splitlines() if re.search(r"rror|fail|VK_", l)][-5:]
    r["errors"] = errs
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ffmpeg")
    ap.add_argument("clips")
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=240.0, help="seconds for all cases")
    ap.add_argument("--limit", type=float, default=20.0, help="seconds a run may take")
    ap.add_argument("--fault-layer", default=None)
    ap.add_argument("--stacks-lib", default=None)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    missing = [f for f in LADDER if not os.path.exists(os.path.join(a.clips, f))]
    if missing:
        sys.exit("vulkan_hang.py: clips missing in %s: %s (bench/make_bench_clips.py "
                 "--ladder makes them)" % (a.clips, " ".join(missing)))
    end = time.monotonic() + a.budget
    results = []
    only = [x for x in a.only.split(",") if x]
    for reps, c in cases(a.clips, a.fault_layer):
        if only and c["name"] not in only:
            continue
        for rep in range(reps):
            # a stalled run costs its limit, its stacks and the signals
            if time.monotonic() + a.limit + 20 > end:
                results.append({"case": c["name"], "rep": rep, "status": "skipped (budget)"})
                continue
            r = run_case(a.ffmpeg, c, rep, a.out, a.limit, a.stacks_lib)
            results.append(r)
            print("%-24s %d %-8s %6.1f s frames %-5s%s%s%s" % (
                r["case"], rep, r["status"], r["seconds"], r["frames"],
                " SIGTERM: " + r["sigterm"] if "sigterm" in r else "",
                " abandoned: " + " ".join(r["abandoned"]) if r["abandoned"] else "",
                " per input %s" % r["decoded_per_input"] if "decoded_per_input" in r else ""),
                flush=True)
            with open(os.path.join(a.out, "hang.json"), "w") as f:
                json.dump(results, f, indent=1)
    with open(os.path.join(a.out, "hang.txt"), "w") as f:
        for r in results:
            f.write("%-24s %s %s\n" % (r["case"], r.get("rep"), {k: v for k, v in r.items()
                                                                 if k not in ("case", "rep",
                                                                              "cmd")}))


if __name__ == "__main__":
    main()
