#!/usr/bin/env python3
"""Where an ffmpeg run's CPU time goes, thread by thread: runs the command,
samples /proc/PID/task/*/stat every 20 ms, and prints each thread's name
(ffmpeg names its threads: dec0:0:hevc, fc0, mux0:null...), its CPU seconds
and its share of the run's wall time.  A thread near 100% is the one that
bounds the run; Linux only.  Not run by make check.
usage: thread_cpu.py [--json FILE] -- FFMPEG ARGS...
"""
import json
import os
import subprocess
import sys
import tempfile
import time

TICK = os.sysconf("SC_CLK_TCK")


def sample(pid, seen):
    """Add each live thread's (name, utime + stime in s) to seen, by tid."""
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                st = f.read()
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                name = f.read().strip()
        except OSError:
            continue
        fields = st[st.rindex(")") + 2:].split()
        seen[tid] = (name, (int(fields[11]) + int(fields[12])) / TICK)


def main():
    args = sys.argv[1:]
    out = None
    if args[:1] == ["--json"]:
        out, args = args[1], args[2:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        sys.exit(__doc__)
    seen = {}
    # stderr to a file: a verbose run would fill a pipe nobody reads until the end
    with tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err)
        while p.poll() is None:
            sample(p.pid, seen)
            time.sleep(0.02)
        wall = time.perf_counter() - t0
        if p.returncode:
            err.seek(0)
            sys.stderr.write(err.read()[-2000:])
            sys.exit("failed: rc %d" % p.returncode)
    # threads of one name (a pool's workers inherit their creator's) apart
    rows = sorted((("%s/%s" % (name, tid), s) for tid, (name, s) in seen.items()),
                  key=lambda kv: -kv[1])
    if out:
        with open(out, "w") as f:
            json.dump({"cmd": args, "wall_s": wall, "threads": dict(rows)}, f, indent=1)
    print("wall %.3f s" % wall)
    for name, s in rows:
        if s >= 0.01:
            print("  %-26s %7.3f s  %5.1f%%" % (name, s, 100 * s / wall))


if __name__ == "__main__":
    main()
