"""A progress bar on stderr: title frames scored and frames per second.

Each segment's task reads its ffmpeg's `-progress pipe:1` reports and
publishes the frames it has scored as a Dask worker event (topic
runner.PROGRESS_TOPIC) at most twice a second; the client subscribes to
the topic and redraws one line.  A failed segment's frames are not
counted as scored: the line says how many segments failed, and the last
line says that the run failed or was interrupted, never that it scored
frames it did not.  No dependency beyond distributed.
"""
import sys
import threading
import time


class Progress:
    def __init__(self, stream=None, interval=0.5):
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.interval = interval if self.tty else 10.0
        self.total = 0
        self.frames = {}
        self.size = {}
        self.finished = set()
        self.failed = set()
        self.t0 = time.time()
        self.last_draw = 0.0
        self.lock = threading.Lock()
        self.rate = 0.0
        self._last = (self.t0, 0)
        self.closed = False

    def add(self, job, frames):
        with self.lock:
            self.size[job] = frames
            self.total += frames

    def update(self, job, frames):
        with self.lock:
            if job not in self.finished and job not in self.failed:
                self.frames[job] = min(frames, self.size.get(job, frames))
        self.draw()

    def done(self, job):
        with self.lock:
            self.finished.add(job)
            self.failed.discard(job)
            self.frames[job] = self.size.get(job, 0)
        self.draw()

    def fail(self, job):
        """A segment that will not be scored (its title failed)."""
        with self.lock:
            if job not in self.finished:
                self.failed.add(job)
                self.frames[job] = 0
        self.draw()

    def event(self, ev):
        """Handler of Client.subscribe_topic: ev is (time, message)."""
        msg = ev[1] if isinstance(ev, tuple) else ev
        if isinstance(msg, dict) and "job" in msg:
            self.update(msg["job"], msg["frames"])

    def scored(self):
        return sum(self.frames.values())

    def draw(self, force=False):
        now = time.time()
        with self.lock:
            if not force and now - self.last_draw < self.interval:
                return
            self.last_draw = now
            done = self.scored()
            t, f = self._last
            if now - t >= 1.0:
                inst = (done - f) / (now - t)
                self.rate = inst if not self.rate else 0.7 * self.rate + 0.3 * inst
                self._last = (now, done)
            total = max(self.total, 1)
            width = 30
            fill = int(width * done / total)
            eta = (self.total - done) / self.rate if self.rate > 0 else None
            line = "[%s%s] %d/%d frames %6.1f frames/s  %d/%d segments%s%s" % (
                "#" * fill, "." * (width - fill), done, self.total, self.rate,
                len(self.finished), len(self.size),
                "  %d FAILED" % len(self.failed) if self.failed else "",
                "  ETA %d:%02d" % divmod(int(eta), 60) if eta is not None and
                not self.failed else "")
        if self.tty:
            self.stream.write("\r" + line + "\033[K")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self, interrupted=False):
        if self.closed:
            return
        self.closed = True
        self.draw(force=True)
        elapsed = time.time() - self.t0
        if self.tty:
            self.stream.write("\n")
        rate = self.scored() / elapsed if elapsed > 0 else 0.0
        if interrupted:
            self.stream.write("interrupted after %.1f s: %d of %d frames scored\n" % (
                elapsed, self.scored(), self.total))
        elif self.failed:
            self.stream.write("failed: %d of %d segments not scored; %d of %d frames scored "
                              "in %.1f s\n" % (len(self.failed), len(self.size),
                                                self.scored(), self.total, elapsed))
        else:
            self.stream.write("%d frames in %.1f s: %.1f frames/s\n" % (
                self.scored(), elapsed, rate))
        self.stream.flush()
