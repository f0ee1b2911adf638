#!/usr/bin/env python3
"""The names option (doc/outputs.md#names): the inputs' labels in the logs.

1. A ladder's JSON log: each rendition's `name`, the reference's
   `input.name`; labels with spaces, '=', an escaped '|', a quote and a
   backslash come back as given; the option is in `options` as given.
2. The CSV log: `# name <pad> <label>` lines in pad order, control
   characters escaped as in the other comment lines.
3. A pair: a named main input is described (`main`) even where it is not
   resampled; an empty label leaves its input unnamed; fssim3d too.
4. One label per input or an error at configuration naming both counts.
5. fssim-farm reads the names back (JSON and CSV) and a merge of the log
   writes it back byte for byte.
"""
import json
import os
import subprocess
import sys

import fssimtest as ft

sys.path.insert(0, os.path.join(ft.TOP_SRCDIR, "farm"))

t = ft.Tap()
WORK = ft.workdir("names")
ref = ft.natural_clip(64, 48, 3, "yuv420p", WORK, "ref", container="y4m")
d1 = ft.natural_clip(64, 48, 3, "yuv420p", WORK, "d1", container="y4m",
                     distort=dict(noise=3.0))
d2 = ft.natural_clip(32, 24, 3, "yuv420p", WORK, "d2", container="y4m",
                     distort=dict(blur=1.0))

# the labels as the filter must give them back, and as fssim-farm writes
# them in a graph: a backslash escapes '|', '\\', "'" and spaces for the
# label split, and the option and graph parsers each take one level more
from fssim_farm import segments  # noqa: E402
LABELS = ["1080p x265 crf=23.mp4", "a|b 'q'.mkv", "source.y4m"]
OPTION = segments.names_value(["/clips/" + x for x in LABELS])
GRAPH_NAMES = segments.escape_value(OPTION)


def run(inputs, graph_opts, log, filt="fssim", check=True):
    if os.path.exists(log):
        os.unlink(log)
    pads = "".join("[%d:v]" % i for i in range(len(inputs)))
    args = []
    for c in inputs:
        args += c.input_args()
    return ft.ffmpeg(*(args + ["-lavfi", "%s%s=%s:log_path=%s" % (pads, filt, graph_opts, log),
                               "-f", "null", "-"]), check=check)


# 1. ladder, JSON
log = os.path.join(WORK, "ladder.json")
run([d1, d2, ref], "inputs=3:algo=int:names=" + GRAPH_NAMES, log)
j = json.load(open(log))
t.ok([r.get("name") for r in j["renditions"]] == LABELS[:2],
     "JSON: each rendition's name as given", [r.get("name") for r in j["renditions"]])
t.ok(j["input"].get("name") == LABELS[2], "JSON: the reference's input.name",
     j["input"])
t.ok(list(j["renditions"][0])[:3] == ["k", "pad", "name"],
     "JSON: name after k and pad", list(j["renditions"][0]))
t.ok(j["options"].get("names") == OPTION,
     "JSON: the option in options, as the filter received it", j["options"].get("names"))
# by hand, as doc/outputs.md writes it
run([d1, ref], "algo=int:names=a\\\\\\\\|b|ref", log)
t.ok(json.load(open(log))["input"]["main"].get("name") == "a|b",
     "a graph's names=a\\\\\\\\|b|ref labels the first input a|b")

# 2. ladder, CSV, a label with a tab and a backslash
csv_log = os.path.join(WORK, "ladder.csv")
run([d1, d2, ref], "inputs=3:algo=int:log_fmt=csv:names=" +
    segments.escape_value("tab\tx|back\\\\slash|ref"), csv_log)
lines = open(csv_log).read().split("\n")
names = [ln for ln in lines if ln.startswith("# name ")]
t.ok(names == ["# name dist1 tab\\tx", "# name dist2 back\\\\slash", "# name reference ref"],
     "CSV: # name lines in pad order, escaped", names)
col = next(i for i, ln in enumerate(lines) if ln.startswith("n,"))
t.ok(all(lines.index(ln) < col for ln in names), "CSV: the name lines come before the columns")

# 3. pairs: a named main is described; an empty label is no name; fssim3d
log = os.path.join(WORK, "pair.json")
run([d1, ref], "algo=int:names=dist.mp4|ref.mp4", log)
j = json.load(open(log))
t.ok(j["input"].get("main", {}).get("name") == "dist.mp4" and
     j["input"]["main"]["resampled"] is False and j["input"].get("name") == "ref.mp4",
     "pair: the named main input described, not resampled; the reference named", j["input"])
run([d1, ref], "algo=int:names=|ref.mp4", log)
j = json.load(open(log))
t.ok("main" not in j["input"] and j["input"].get("name") == "ref.mp4",
     "pair: an empty label leaves main unnamed (and undescribed)", j["input"])
run([d1, ref], "names=d.mkv|r.mkv:depth=3", log, filt="fssim3d")
j = json.load(open(log))
t.ok(j["input"].get("main", {}).get("name") == "d.mkv" and j["input"].get("name") == "r.mkv",
     "fssim3d: both inputs named", j["input"])

# 4. a count other than one label per input
p = run([d1, d2, ref], "inputs=3:algo=int:names=a|b", log, check=False)
t.ok(p.returncode != 0 and "names has 2 labels for 3 inputs" in p.stderr,
     "two labels for three inputs: an error naming both counts", p.stderr[-600:])
p = run([d1, ref], "algo=int:names=a|b|c", log, check=False)
t.ok(p.returncode != 0 and "names has 3 labels for 2 inputs" in p.stderr,
     "three labels for a pair: an error", p.stderr[-600:])

# 5. fssim-farm reads them, and writes them back
from fssim_farm import logs  # noqa: E402
for path in (os.path.join(WORK, "ladder.json"), csv_log):
    if path.endswith(".json"):
        run([d1, d2, ref], "inputs=3:algo=int:names=" + GRAPH_NAMES, path)
    lg = logs.read_log(path)
    t.ok([r.get("name") for r in lg.renditions] == (LABELS[:2] if path.endswith(".json") else
                                                     ["tab\tx", "back\\slash"]) and
         lg.input.get("name") == (LABELS[2] if path.endswith(".json") else "ref"),
         "%s: fssim-farm reads the names" % os.path.basename(path),
         ([r.get("name") for r in lg.renditions], lg.input.get("name")))
    out = path + ".merged" + os.path.splitext(path)[1]
    env = dict(os.environ, PYTHONPATH=os.path.join(ft.TOP_SRCDIR, "farm") + os.pathsep +
               os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "fssim_farm", "merge", path, "-o", out,
                        "--no-segments-field", "--log-path", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, env=env)
    t.ok(p.returncode == 0 and open(out).read() == open(path).read(),
         "%s: written back by a merge byte for byte" % os.path.basename(path), p.stderr[-600:])

t.done()
