#!/usr/bin/env python3
"""The layout of the filters' sources, filters/, as doc/architecture.md
describes it (#the-source-tree, #files).

1. Every include of a file of fssim's names it by its path from the
   including file (FFmpeg compiles them in libavfilter/fssim/ with no
   include path of their own), and the file is there.
2. Includes only go down the layers: the filters and their body
   (filters/*), then the backends (cpu/, cuda/, vulkan/), engine/, output/,
   core/; no backend includes another's folder.
3. No file includes, through others, a file that includes it (a source and
   its header counted as one).
4. doc/architecture.md names every source file, and every filters/ path it
   names exists.
"""
import glob
import os
import re

import fssimtest as ft

t = ft.Tap()
TOP = os.path.normpath(ft.TOP_SRCDIR)
FILTERS = os.path.join(TOP, "filters")
SOURCES = (".c", ".h", ".cuh", ".glsl")
# what a folder stands on: higher layers first
RANK = {"": 5, "cpu": 4, "cuda": 4, "vulkan": 4, "engine": 3, "output": 2, "core": 1}
BACKENDS = ("cpu", "cuda", "vulkan")
# written into libavfilter/fssim/ by scripts/ffmpeg-integrate.sh
GENERATED = {"fssim_version.h"}


def rel(path):
    return os.path.relpath(path, FILTERS)


def folder(path):
    d = os.path.dirname(rel(path))
    return d


def sources():
    out = []
    for d, _, files in os.walk(FILTERS):
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(SOURCES)]
    return sorted(out)


def includes(path):
    """The quoted includes of path that are fssim's (not FFmpeg's
    libavutil/..., libavfilter/..., config.h)."""
    with open(path, errors="replace") as f:
        names = re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M)
    return [n for n in names if not re.match(r"(lib\w+/|config(_components)?\.h$)", n)]


files = sources()
t.ok(len(files) > 50 and all(folder(f) in RANK for f in files),
     "filters/ holds the filters and the folders cpu/, cuda/, vulkan/, engine/, output/, "
     "core/ only (%d files)" % len(files),
     [rel(f) for f in files if folder(f) not in RANK])

# ---- 1. includes by path -----------------------------------------------------
graph, bad = {}, []
for f in files:
    for name in includes(f):
        target = os.path.normpath(os.path.join(os.path.dirname(f), name))
        if os.path.basename(target) in GENERATED and os.path.dirname(target) == FILTERS:
            continue
        if not os.path.isfile(target) or not target.startswith(FILTERS + os.sep):
            bad.append("%s: %s" % (rel(f), name))
            continue
        graph.setdefault(f, set()).add(target)
t.ok(not bad, "every include of fssim's own files is a path from the including file "
     "to a file of filters/", "; ".join(bad))

# ---- 2. down the layers ------------------------------------------------------
up, across = [], []
for f, targets in graph.items():
    for g in targets:
        a, b = folder(f), folder(g)
        if RANK[b] > RANK[a]:
            up.append("%s -> %s" % (rel(f), rel(g)))
        elif a != b and a in BACKENDS and b in BACKENDS:
            across.append("%s -> %s" % (rel(f), rel(g)))
t.ok(not up, "includes only go down: filters, backends, engine/, output/, core/",
     "; ".join(up))
t.ok(not across, "no backend includes another's folder", "; ".join(across))

# ---- 3. no loop ----------------------------------------------------------------


def room(path):
    """A source and its header are one: the path without its extension."""
    return os.path.splitext(rel(path))[0]


rooms = {}
for f, targets in graph.items():
    rooms.setdefault(room(f), set()).update(room(g) for g in targets if room(g) != room(f))
loops, state = [], {}


def visit(r, stack):
    state[r] = 1
    for s in sorted(rooms.get(r, ())):
        if state.get(s) == 1:
            loops.append(" -> ".join(stack[stack.index(s):] + [s]))
        elif not state.get(s):
            visit(s, stack + [s])
    state[r] = 2


for r in sorted(rooms):
    if not state.get(r):
        visit(r, [r])
t.ok(not loops, "no file includes, through others, a file that includes it "
     "(a source and its header as one)", "; ".join(loops))

# ---- 4. doc/architecture.md ------------------------------------------------------
with open(os.path.join(TOP, "doc", "architecture.md")) as f:
    arch = f.read()
named = set(re.findall(r"`([\w.]+(?:\.\[ch\])?)`", arch))
named |= set(re.findall(r"`filters/(?:\w+/)*([\w.]+(?:\.\[ch\])?)`", arch))
missing = []
for f in files:
    base = os.path.basename(f)
    stem, ext = os.path.splitext(base)
    if base not in named and not (ext in (".c", ".h") and stem + ".[ch]" in named):
        missing.append(rel(f))
t.ok(not missing, "doc/architecture.md names every source file of filters/",
     ", ".join(missing))
gone = []
for p in sorted(set(re.findall(r"`(filters/[\w/.\[\]*]+)`", arch))):
    if p.endswith(".a"):
        continue    # built
    pats = [p.replace(".[ch]", ".c"), p.replace(".[ch]", ".h")] if ".[ch]" in p else [p]
    if not any(glob.glob(os.path.join(TOP, x)) for x in pats):
        gone.append(p)
t.ok(not gone, "every filters/ path doc/architecture.md names exists", ", ".join(gone))

t.done()
