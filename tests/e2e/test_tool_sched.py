"""How the built ffmpeg tool feeds the inputs of a filtergraph
(patches/ffmpeg, doc/tool-patch.md).

With the tool patches, an input of fssim that the graph is not waiting for
keeps being decoded while it has room: up to as many frames ahead of the
graph's requests as a frame thread queue holds (2), no more, or as many as
-filter_readahead says.  FFmpeg's own tool (configure
--disable-tool-patches) decodes only the input the graph waits for.

The two inputs are y4m streams that this test writes into named pipes, so
that the test decides when each frame exists; the evidence is the order of
events, never their timing.  Once ffmpeg has started its threads ("Press
[q] to stop"), the reference's 30 frames are written while the main input
has delivered none, so the graph waits for the main input; -debug_ts logs
every frame a decoder produces.  The patched tool decodes exactly two
reference frames meanwhile, five with -filter_readahead 5 (the check waits
as long as it takes); FFmpeg's
own decodes none (the check waits a second: it cannot fail on a slow
machine, and a tool that decoded ahead would show it).  Then the main
input's frames are written and every frame must be scored, with the scores
of the same clips read from files.
"""
import os
import re
import subprocess
import threading
import time

import fssimtest as ft

W, H, N = 64, 48, 30
FMT = "yuv420p"
READAHEAD = 2                 # a frame thread queue (DEFAULT_FRAME_THREAD_QUEUE_SIZE)
PATCHED = bool(os.environ.get("FSSIM_TOOL_PATCHES", "").strip())
# a reference frame out of its decoder: -debug_ts's "decoder -> pts:..."
# line of input #1's video stream
DECODED_REF = re.compile(r"^\[vist#1:0/[^]]*\].*decoder -> pts:", re.M)

t = ft.Tap()
work = ft.workdir("tool-sched")


class Run:
    """ffmpeg reading two named pipes, its log collected as it comes."""

    def __init__(self, main_pipe, ref_pipe, log_path, extra=()):
        args = [ft.FFMPEG, "-hide_banner", "-y", "-debug_ts"] + list(extra)
        for p in (main_pipe, ref_pipe):
            args += ["-nofind_stream_info", "-f", "yuv4mpegpipe", "-i", p]
        args += ["-lavfi", "[0:v][1:v]fssim=log_path=%s:log_fmt=json" % log_path,
                 "-f", "null", "-"]
        # a stdin ffmpeg can read keys from: it then says when its threads run
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        self.text = ""
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stderr:
            with self.lock:
                self.text += line

    def log(self):
        with self.lock:
            return self.text

    def wait_for(self, cond, timeout):
        """Wait until cond(log) holds or ffmpeg exits; whether it holds."""
        end = time.time() + timeout
        while time.time() < end:
            if cond(self.log()):
                return True
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        return cond(self.log())

    def decoded_ref(self):
        return len(DECODED_REF.findall(self.log()))


def y4m_parts(clip):
    """A y4m file's header and frames, as written by fssimtest."""
    with open(clip.path, "rb") as f:
        data = f.read()
    header, _, body = data.partition(b"\n")
    frames = [b"FRAME" + x for x in body.split(b"FRAME")[1:]]
    return header + b"\n", frames


def main(readahead=None):
    """One run; readahead: -filter_readahead's value, None: not given."""
    main_clip = ft.natural_clip(W, H, N, FMT, work, name="main", container="y4m",
                                distort=dict(blur=1.0, noise=3.0))
    ref_clip = ft.natural_clip(W, H, N, FMT, work, name="ref", container="y4m")
    want = ft.run_fssim(main_clip, ref_clip, directory=work, tag="files")["log"]

    main_pipe, ref_pipe = os.path.join(work, "main.fifo"), os.path.join(work, "ref.fifo")
    log_path = os.path.join(work, "pipes.json")
    for p in (main_pipe, ref_pipe, log_path):
        if os.path.exists(p):
            os.unlink(p)
    os.mkfifo(main_pipe)
    os.mkfifo(ref_pipe)
    main_head, main_frames = y4m_parts(main_clip)
    ref_head, ref_frames = y4m_parts(ref_clip)

    extra = ["-filter_readahead", str(readahead)] if readahead else []
    ahead = readahead or READAHEAD
    what = "-filter_readahead %d" % readahead if readahead else "by default"
    run = Run(main_pipe, ref_pipe, log_path, extra)
    # ffmpeg opens the inputs one after the other, reading their headers
    with open(main_pipe, "wb", buffering=0) as main_w:
        main_w.write(main_head)
        with open(ref_pipe, "wb", buffering=0) as ref_w:
            ref_w.write(ref_head)
            started = run.wait_for(lambda s: "Press [q] to stop" in s, 120)
            t.ok(started, "ffmpeg starts its threads on two named pipes", run.log()[-3000:])
            ref_w_thread = writer_from(ref_w, ref_frames)
            if PATCHED:
                got = run.wait_for(lambda s: len(DECODED_REF.findall(s)) >= ahead, 120)
                time.sleep(1.0)
                n = run.decoded_ref()
                t.ok(got and n == ahead,
                     "patched tool, %s: while the graph waits for the main input, the "
                     "reference is decoded %d frames ahead, no more (decoded %d of %d)"
                     % (what, ahead, n, N), run.log()[-3000:])
            else:
                run.wait_for(lambda s: DECODED_REF.search(s) is not None, 1.0)
                n = run.decoded_ref()
                t.ok(n == 0, "FFmpeg's own tool (--disable-tool-patches): the reference waits "
                     "while the graph waits for the main input (decoded %d of %d)" % (n, N),
                     run.log()[-3000:])
            main_w_thread = writer_from(main_w, main_frames)
            main_w_thread.join(120)
            ref_w_thread.join(120)
    try:
        run.proc.stdin.close()
        rc = run.proc.wait(120)
    except subprocess.TimeoutExpired:
        run.proc.kill()
        rc = run.proc.wait()
    run.reader.join(10)
    got = ft.load_log(log_path) if rc == 0 and os.path.exists(log_path) else None
    t.ok(got is not None and got["frames"] == want["frames"],
         "%s: every frame of the pipes is scored, as from files (%d frames)" % (what, N),
         "exit %s\n%s" % (rc, run.log()[-3000:]))
    for p in (main_pipe, ref_pipe):
        os.unlink(p)


def writer_from(f, chunks):
    """Write chunks to the open file f in a thread."""
    def go():
        try:
            for c in chunks:
                f.write(c)
        except (BrokenPipeError, ValueError):
            pass
    th = threading.Thread(target=go, daemon=True)
    th.start()
    return th


main()
if PATCHED:
    main(readahead=5)
t.done()
