#!/usr/bin/env python3
"""The documentation against the code it describes.

1. Every option of every filter, as the built ffmpeg lists it
   (`-h filter=NAME`), named values included, appears in doc/options.md.
2. Every relative link and anchor of README.md and doc/*.md resolves, and
   so does every doc/<file>.md#<anchor> cited from the sources and tests.
3. The repository documents itself: no document or source cites a file
   outside it.
"""
import glob
import os
import re

import fssimtest as ft

t = ft.Tap()
TOP = ft.TOP_SRCDIR
FILTERS = ["fssim", "fssim3d", "fssim_cuda", "fssim_vulkan"]


def read(path):
    with open(os.path.join(TOP, path), errors="replace") as f:
        return f.read()


def anchors(path):
    """GitHub-style heading anchors, plus explicit <a id> ones."""
    out = set()
    for line in read(path).splitlines():
        m = re.match(r"#+ (.*)", line)
        if m:
            a = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            out.add(a)
        out.update(re.findall(r'<a id="([^"]+)">', line))
    return out


def filter_options(name):
    """Options and named values of a filter, from the built ffmpeg's help."""
    p = ft.run([ft.FFMPEG, "-hide_banner", "-h", "filter=" + name], check=False)
    opts, consts = set(), set()
    for line in p.stdout.splitlines():
        m = re.match(r"   (\w+)\s+<\w+>", line)
        if m:
            opts.add(m.group(1))
        m = re.match(r"     (\w+)\s", line)
        if m:
            consts.add(m.group(1))
    return opts, consts


# ---- 1. options ------------------------------------------------------------
options_md = read("doc/options.md")
documented = set(re.findall(r"`([\w]+)`", options_md))
for name in FILTERS:
    if not ft.has_filter(name):
        t.skip("%s: every option documented" % name, "filter not built")
        continue
    opts, consts = filter_options(name)
    t.ok(len(opts) >= 8, "%s: ffmpeg lists its options (%d)" % (name, len(opts)))
    missing = sorted((opts | consts) - documented)
    t.ok(not missing, "%s: every option and named value is in doc/options.md" % name,
         "missing: %s" % ", ".join(missing))

# ---- 2. links and anchors ----------------------------------------------------
docs = ["README.md"] + sorted(os.path.relpath(p, TOP) for p in glob.glob(TOP + "/doc/*.md"))
bad = []
for doc in docs:
    for link in re.findall(r"\]\(([^)\s]+)\)", read(doc)):
        if re.match(r"[a-z]+:", link):
            continue
        path, _, anchor = link.partition("#")
        target = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
        if not os.path.exists(os.path.join(TOP, target)):
            bad.append("%s: %s (no such file)" % (doc, link))
        elif anchor and target.endswith(".md") and anchor not in anchors(target):
            bad.append("%s: %s (no such section)" % (doc, link))
t.ok(not bad, "README.md and doc/: every link and anchor resolves", "; ".join(bad))

sources = []
for pattern in ("filters/*", "filters/*/*", "tests/*/*.py",
                "tests/*/*.c", "tests/*/*.cpp", "tests/*/*.sh", "bench/*.py", "bench/*.sh",
                "scripts/*"):
    sources += [os.path.relpath(p, TOP) for p in glob.glob(os.path.join(TOP, pattern))
                if os.path.isfile(p)]
bad = []
for src in sources:
    for doc, anchor in re.findall(r"doc/([\w-]+\.md)#([\w-]+)", read(src)):
        if not os.path.exists(os.path.join(TOP, "doc", doc)) or \
                anchor not in anchors(os.path.join("doc", doc)):
            bad.append("%s: doc/%s#%s" % (src, doc, anchor))
t.ok(not bad, "sources and tests cite existing doc sections (%d files)" % len(sources),
     "; ".join(bad))

# ---- 3. self-contained ---------------------------------------------------------
bad = [p for p in docs + sources
       if re.search(r"\.\./shared|SPEC\.md|FFMPEG-MAP", read(p)) and p != "tests/e2e/test_docs.py"]
t.ok(not bad, "no document or source cites a file outside the repository", ", ".join(bad))

t.done()
