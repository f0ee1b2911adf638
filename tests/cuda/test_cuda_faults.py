"""GPU errors in fssim_cuda and fssim3d, without a GPU: the built ffmpeg on
the stand-in driver of tests/cuda/fake_libcuda.cpp, which fails the N-th
kernel launch, event or stream wait, or result copy on request
(FSSIM_FAKE_CUDA_FAULT), as a sticky error of a broken context (every
later call fails too, and the pinned memory the results were to arrive in
holds garbage) or as a single failed call.

Faults in the first frame, mid-run (also while frames wait in fssim_cuda's
pipeline, with the driver's lazy mode) and at the flush (the last frames,
scored at EOF), for each kind.  Every run must:
  - fail by itself with ffmpeg's exit status for AVERROR_EXTERNAL (no
    signal, no crash, no hang), after the injected fault;
  - name the CUDA error (CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_ILLEGAL_ADDRESS)
    in the filter's message;
  - leave a valid JSON log that agrees with the summary lines and the
    stats file;
  - publish no score from the failed GPU work: every frame in the log
    scores as the CPU filter scores it (fssim: int <= 1e-12, float <= 1e-5,
    block <= 1e-6; fssim3d: 1e-6), and the frame the fault hit is not
    among them.

Where the N-th call falls is counted from a clean run of the same command
(FSSIM_FAKE_CUDA_COUNTS), so the cases follow the filters' call pattern.

Without CUDA in the build every check reports SKIP.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fakecuda as fc          # noqa: E402
import fssimtest as ft         # noqa: E402

NB = 8
t = ft.Tap()
SKIP = fc.setup()
WORK = ft.workdir("cuda-faults")
SRC = "testsrc2=s=64x48:r=25:d=%g,format=yuv420p" % (NB / 25.0)
INPUTS = ["-f", "lavfi", "-i", SRC, "-f", "lavfi", "-i", SRC + ",noise=alls=12"]
FILTERS = {
    # name: (the filter and options, CPU filter and options, tolerances, summary lines)
    "fssim_cuda": ("fssim_cuda=algo=float+int+block", "fssim=algo=float+int+block",
                   {"int": 1e-12, "float": 1e-5, "block": 1e-6}, 3),
    "fssim3d": ("fssim3d=depth=3", "fssim3d=depth=3", {"fssim3d": 1e-6}, 1),
}
# the tests of each filter: a clean run, then its fault cases
NB_CASES = {"fssim_cuda": 10, "fssim3d": 12}
ERRORS = {"launch_failed": "CUDA_ERROR_LAUNCH_FAILED",
          "illegal_address": "CUDA_ERROR_ILLEGAL_ADDRESS"}


def run(name, tag, gpu=True, **env):
    filt = FILTERS[name][0 if gpu else 1]
    log, stats = (os.path.join(WORK, "%s_%s%s" % (name, tag, e)) for e in (".json", ".txt"))
    fc.remove(log, stats)
    graph = "%s%s:log_path=%s:stats_file=%s" % (
        "[0:v]hwupload[a];[1:v]hwupload[b];[a][b]" if gpu else "[0:v][1:v]", filt, log, stats)
    try:
        p = ft.ffmpeg(*fc.HW, *INPUTS, "-lavfi", graph, "-f", "null", "-", check=False,
                      timeout=120, env=fc.env(**env))
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, err = None, "hang: killed after 120 s\n%s" % (e.stderr or "")
    lg, why = fc.read_log(log)
    return rc, err, lg, why, stats


def counts(name, lazy):
    path = os.path.join(WORK, "%s_counts%d.txt" % (name, lazy))
    fc.remove(path)
    rc, err, lg, _, _ = run(name, "clean%d" % lazy, FSSIM_FAKE_CUDA_COUNTS=path,
                            FSSIM_FAKE_CUDA_LAZY=lazy)
    if rc != 0 or not lg or len(lg["frames"]) != NB:
        return None, err
    return fc.fake_counts(path), err


def cases(name, c, lazy_c):
    """(description, fault, lazy, the frame the fault hits or None)"""
    mid_l, mid_s, mid_m = c["launch"] // 2, c["sync"] // 2, c["memcpy"] // 2 + 1
    yield "a launch fails in the first frame", "launch:1", 0
    yield "a launch fails mid-run", "launch:%d" % mid_l, 0
    yield "one launch fails mid-run (not sticky)", "launch:%d:once" % mid_l, 0
    yield "a wait fails mid-run", "sync:%d" % mid_s, 0
    yield "a wait fails mid-run with an illegal address", \
        "sync:%d:illegal_address" % mid_s, 0
    yield "one wait fails mid-run (not sticky)", "sync:%d:once" % mid_s, 0
    # fssim_cuda's kernels write their results to mapped host memory: its
    # runs copy nothing; fssim3d copies each frame's window to the device
    if c["memcpy"]:
        yield "the first copy fails", "memcpy:1", 0
        yield "one copy fails mid-run (not sticky)", "memcpy:%d:once" % mid_m, 0
    if name == "fssim_cuda":
        yield "a wait fails while frames wait in the pipeline", \
            "sync:%d" % (lazy_c["sync"] // 2), 1
        # the last wait of the EOF drain (the last call is the teardown's)
        yield "a wait fails at the flush", "sync:%d" % (lazy_c["sync"] - 1), 1
        yield "one wait fails at the flush (not sticky)", \
            "sync:%d:once" % (lazy_c["sync"] - 1), 1
    else:
        # the last frame is scored at EOF: its kernels, then its slots' queries
        yield "the last launch fails (the flush)", "launch:%d" % c["launch"], 0
        yield "a wait fails at the flush", "sync:%d" % (c["sync"] - 1), 0
        yield "one wait fails at the flush (not sticky)", "sync:%d:once" % (c["sync"] - 1), 0


def test(name):
    _, _, tols, nb_summary = FILTERS[name]
    if SKIP:
        for i in range(NB_CASES[name]):
            t.skip("%s: fault case %d" % (name, i + 1), SKIP)
        return
    _, _, cpu, why, _ = run(name, "cpu", gpu=False)
    c, err = counts(name, 0)
    lc, err_l = counts(name, 1)
    t.ok(cpu is not None and len(cpu["frames"]) == NB and c is not None and lc is not None,
         "%s: clean runs on the CPU and the emulated driver score all %d frames" % (name, NB),
         "%s\n%s\n%s" % (why, err[-1500:], err_l[-1500:]))
    if cpu is None or c is None or lc is None:
        t.bail("%s: no clean run to compare with" % name)
    t.diag("%s: a clean run makes %r (lazy: %r)" % (name, c, lc))
    for desc, fault, lazy in cases(name, c, lc):
        tag = re.sub(r"\W+", "_", fault)
        err_name = ERRORS["illegal_address" if "illegal" in fault else "launch_failed"]
        rc, err, lg, why, stats = run(name, tag, FSSIM_FAKE_CUDA_FAULT=fault,
                                      FSSIM_FAKE_CUDA_LAZY=lazy)
        desc = "%s, %s (%s%s)" % (name, desc, fault, ", lazy" if lazy else "")
        injected = "[fake cuda] fault: " in err
        named = re.search(r"\[Parsed_%s_\d+ @ [^]]+\] .*failed -> %s" % (name, err_name), err)
        ok, diag = fc.consistent(lg, err, stats, nb_summary)
        worst, where = fc.max_diff(cpu, lg, tols) if lg else (float("inf"), why)
        t.ok(injected and rc == fc.EXIT_EXTERNAL and not fc.CRASH.search(err) and named and
             ok and worst <= 1.0 and len(lg["frames"]) < NB,
             "%s: fails (exit %d), names %s, the log agrees with the summary and stats and "
             "holds only frames scored as on the CPU" % (desc, fc.EXIT_EXTERNAL, err_name),
             "injected %s, exit %r, named %s, %s, worst |diff|/tol %.3g at %r\n%s" % (
                 injected, rc, bool(named), diag, worst, where,
                 "\n".join(l for l in err.splitlines()
                           if not l.startswith(("  ", "Input", "Output", "Stream")))[-2500:]))


test("fssim_cuda")
test("fssim3d")
t.done()
