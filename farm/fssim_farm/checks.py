"""What fssim-farm checks before it scores, so that a title that cannot be
scored fails at once with one sentence that says why and what to do,
instead of failing in every segment:

- the tools: the ffmpeg given exists and has the filter asked for with
  the segment options (`ffmpeg -h filter=NAME`), and an ffprobe beside it
  (or given, or on PATH);
- the options: each one the filter's, none of those the farm sets itself
  (log_path, seg_*, ...);
- the inputs: each exists (a local path), ffprobe reads a video stream
  from it, this ffmpeg has a decoder for its codec, and it has the
  reference's frame rate and frame count (a count that differs is an
  error unless the renditions are to be scored as they are);
- the output: its folder exists and is writable, and it is not a folder.

The backend (a GPU, its decoders, libcuda) is checked by a one-frame run
of the title's own command on a worker (runner.probe_run), beside the
first segments.
"""
import concurrent.futures
import difflib
import os
import re
import shutil
import subprocess
from fractions import Fraction

from .errors import FarmError, ScoreError

# options the farm sets in every segment's run
FARM_OPTIONS = ("log_path", "log_fmt", "stats_file", "f", "seg_base", "seg_start", "seg_end",
                "seg_total", "seg_starts", "title", "names", "inputs")
_OPTION_LINE = re.compile(r"^   ([A-Za-z_][A-Za-z0-9_]*) +<", re.M)
_tools_cache = {}


class Tools:
    """The ffmpeg and ffprobe a title runs, and what that ffmpeg has."""

    def __init__(self, ffmpeg, ffprobe, local=True):
        self.ffmpeg, self.ffprobe, self.local = ffmpeg, ffprobe, local
        self.filter_options = {}
        self.decoders = None


def _which(path):
    """A tool's path as given, if it exists and runs; None otherwise."""
    if os.sep in path:
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    return shutil.which(path)


def find_ffprobe(ffmpeg, ffprobe=None):
    """ffprobe as given; else the one beside ffmpeg (as given, then beside
    the file a link points to); else the one on PATH.  FarmError naming
    what was looked for when there is none."""
    if ffprobe:
        found = _which(ffprobe)
        if not found:
            raise FarmError("ffprobe %s does not exist or is not executable: pass --ffprobe "
                            "with the ffprobe built beside the ffmpeg" % ffprobe)
        return found
    tried = []
    exe = _which(ffmpeg) or ffmpeg
    for d in dict.fromkeys([os.path.dirname(exe), os.path.dirname(os.path.realpath(exe))]):
        if d:
            cand = os.path.join(d, "ffprobe")
            tried.append(cand)
            if _which(cand):
                return cand
    found = shutil.which("ffprobe")
    if found:
        return found
    raise FarmError("no ffprobe: none beside %s (%s) and none on PATH: pass --ffprobe PATH "
                    "(the build makes ffprobe beside ffmpeg)" % (
                        ffmpeg, " or ".join(tried) or "ffprobe"))


def tools(ffmpeg, ffprobe=None, need_local_ffmpeg=True):
    """Tools for a title: the ffmpeg must exist here unless the title runs
    on other hosts (need_local_ffmpeg False: then the workers check it)."""
    found = _which(ffmpeg)
    if not found and need_local_ffmpeg:
        raise FarmError("ffmpeg %s does not exist or is not executable: pass --ffmpeg with "
                        "the ffmpeg this repository builds (build/ffmpeg, or where make "
                        "install put it)" % ffmpeg)
    key = (found or ffmpeg, ffprobe, _mtime(found))
    if key in _tools_cache:
        return _tools_cache[key]
    t = Tools(found or ffmpeg, find_ffprobe(found or ffmpeg, ffprobe), local=bool(found))
    _tools_cache[key] = t
    return t


def _mtime(path):
    try:
        return os.stat(path).st_mtime_ns if path else None
    except OSError:
        return None


def _run(cmd, timeout=60):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=timeout, errors="replace")
    except OSError as e:
        raise FarmError("cannot run %s: %s" % (cmd[0], e.strerror or e))
    except subprocess.TimeoutExpired:
        raise FarmError("%s did not answer within %d s" % (" ".join(cmd[:3]), timeout))


def filter_options(t, name):
    """The option names of filter `name` in this ffmpeg (its own and
    framesync's); FarmError if it has no such filter, or one without the
    segment options."""
    if name in t.filter_options:
        return t.filter_options[name]
    p = _run([t.ffmpeg, "-hide_banner", "-h", "filter=" + name])
    out = p.stdout + p.stderr
    if "Unknown filter" in out or not out.startswith("Filter " + name):
        raise FarmError("%s has no filter %s: it is not the ffmpeg this repository builds "
                        "(pass --ffmpeg with build/ffmpeg, or where make install put it)"
                        % (t.ffmpeg, name))
    opts = _OPTION_LINE.findall(out)
    if "seg_total" not in opts:
        raise FarmError("the %s filter of %s has no seg_total option: it was built from an "
                        "older fssim; rebuild it (make) or pass --ffmpeg with a current build"
                        % (name, t.ffmpeg))
    t.filter_options[name] = opts
    return opts


def decoders(t):
    """{codec: [decoder names]} of this ffmpeg (`ffmpeg -decoders`)."""
    if t.decoders is None:
        p = _run([t.ffmpeg, "-hide_banner", "-decoders"])
        dec = {}
        for line in p.stdout.splitlines():
            m = re.match(r"^ [VASDT.][F.][S.][X.][B.][D.] (\S+)\s+(.*)$", line)
            if not m or m.group(1) == "=":
                continue
            codec = re.search(r"\(codec (\S+)\)\s*$", m.group(2))
            dec.setdefault(codec.group(1) if codec else m.group(1), []).append(m.group(1))
        t.decoders = dec
    return t.decoders


def split_options(options):
    """A filter's option string ('algo=float:window=7') as [(key, value)],
    split as FFmpeg does: ':' between options, '\\' escapes and '...'
    quotes inside a value."""
    out, cur, quoted, i = [], [], False, 0
    s = options or ""
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s):
            cur.append(s[i:i + 2])
            i += 2
            continue
        if ch == "'":
            quoted = not quoted
        if ch == ":" and not quoted:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    if cur or s.endswith(":"):
        out.append("".join(cur))
    pairs = []
    for item in out:
        if not item:
            continue
        k, eq, v = item.partition("=")
        pairs.append((k.strip(), v if eq else None))
    return pairs


def check_options(options, filter_name, known=None):
    """The --options of a title: FarmError for an option the farm sets,
    one the filter does not have (known: its option names), or one
    without a name."""
    for k, v in split_options(options):
        if v is None:
            raise FarmError("--options %r: %r has no name; write name=value (e.g. "
                            "algo=float+psnr)" % (options, k))
        if k in FARM_OPTIONS:
            raise FarmError("--options sets %s, which fssim-farm sets itself in every "
                            "segment's run (the log goes to -o, the title's frames are cut "
                            "by the farm): leave it out" % k)
        if known is not None and k not in known:
            near = difflib.get_close_matches(k, known, 1)
            raise FarmError("--options: %s has no option %r%s" % (
                filter_name, k, " (did you mean %s?)" % near[0] if near else ""))


def check_output(output, create=False):
    """The merged log's path: FarmError if it is a folder, or its folder
    is missing (create: made, as a batch's outputs are) or not
    writable."""
    if not output:
        raise FarmError("no output: give the merged log's path (-o title.json)")
    if os.path.isdir(output):
        raise FarmError("%s is a folder: give the merged log's file name (-o %s)" % (
            output, os.path.join(output, "title.json")))
    if not output.endswith((".json", ".csv")):
        raise FarmError("%s: the merged log is JSON or CSV: end its name with .json or .csv"
                        % output)
    d = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(d) and create:
        try:
            os.makedirs(d, exist_ok=True)
        except OSError as e:
            raise FarmError("cannot make the folder %s of %s: %s" % (d, output,
                                                                   e.strerror or e))
    if not os.path.isdir(d):
        raise FarmError("cannot write %s: the folder %s does not exist (create it first)"
                        % (output, d))
    if not os.access(d, os.W_OK | os.X_OK):
        raise FarmError("cannot write %s: the folder %s is not writable" % (output, d))
    if os.path.exists(output) and not os.access(output, os.W_OK):
        raise FarmError("cannot write %s: the file is read-only" % output)


def is_url(path):
    return "://" in path


def check_exist(paths):
    """Each local input exists and can be read (a URL is the workers' to
    open)."""
    for p in paths:
        if is_url(p):
            continue
        if not os.path.exists(p):
            raise ScoreError("%s does not exist" % p)
        if os.path.isdir(p):
            raise ScoreError("%s is a folder, not a video file" % p)
        if not os.access(p, os.R_OK):
            raise ScoreError("%s cannot be read (permissions)" % p)


def probe_input(path, ffprobe):
    """What the checks need of one input: its first video stream's codec,
    size, frame rates and frame count (the container's where it has one,
    else its packets counted), and the format.  ScoreError when ffprobe
    cannot read it."""
    if not is_url(path) and not os.path.exists(path):
        raise ScoreError("%s does not exist" % path)
    if not is_url(path) and not os.access(path, os.R_OK):
        raise ScoreError("%s cannot be read (permissions)" % path)
    fields = "codec_name,width,height,r_frame_rate,avg_frame_rate,nb_frames"
    p = _run_probe([ffprobe, "-v", "error", "-select_streams", "v:0", "-show_entries",
                    "stream=%s:format=format_name" % fields, "-of", "default=nw=0", path])
    if p.returncode != 0:
        raise ScoreError("%s: ffprobe cannot read it: %s" % (
            path, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "exit %d"
            % p.returncode))
    d = _kv(p.stdout)
    if "codec_name" not in d:
        raise ScoreError("%s has no video stream" % path)
    nb = d.get("nb_frames", "N/A")
    if not nb.isdigit() or int(nb) == 0:
        # Matroska, MPEG-TS...: the container does not say; count packets
        q = _run_probe([ffprobe, "-v", "error", "-select_streams", "v:0", "-count_packets",
                        "-show_entries", "stream=nb_read_packets", "-of", "default=nw=0",
                        path])
        nb = _kv(q.stdout).get("nb_read_packets", "N/A")
    d["frames"] = int(nb) if nb.isdigit() else None
    return d


def _run_probe(cmd):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              errors="replace")
    except OSError as e:
        raise FarmError("cannot run %s: %s" % (cmd[0], e.strerror or e))


def _kv(text):
    out = {}
    for line in text.splitlines():
        k, eq, v = line.partition("=")
        if eq and not k.startswith("["):
            out.setdefault(k.strip(), v.strip())
    return out


def rate(s):
    """An ffprobe rate ('30000/1001') as a Fraction; None for 0/0 or N/A."""
    try:
        r = Fraction(s)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return r if r > 0 else None


def same_rate(a, b):
    """Frame rates that pair frame for frame: equal to 1 in 10,000 (a
    container's timestamps of 1 ms round a 30000/1001 rate a little)."""
    return a is not None and b is not None and abs(a - b) <= b / 10000


def _rate_of(d):
    return rate(d.get("r_frame_rate")) or rate(d.get("avg_frame_rate"))


def check_inputs(reference, dists, ffprobe, ref_probe=None, unequal_lengths=False,
                 t=None, threads=8):
    """Probes every input (in parallel) and checks each against the
    reference: a video stream, a decoder in this ffmpeg (t: Tools, where
    it is local), the reference's frame rate, and its frame count unless
    unequal_lengths.  Returns {path: probe dict}; ScoreError naming the
    input and the fix."""
    paths = [reference] + list(dists)
    with concurrent.futures.ThreadPoolExecutor(min(threads, len(paths))) as ex:
        futs = {p: ex.submit(probe_input, p, ffprobe) for p in dict.fromkeys(paths)}
        probes = {}
        for p in paths:
            probes[p] = futs[p].result()
    if t is not None and t.local:
        dec = decoders(t)
        for p in dict.fromkeys(paths):
            codec = probes[p]["codec_name"]
            if codec not in dec:
                raise ScoreError(
                    "%s is %s, which %s cannot decode: build the ffmpeg with a decoder for "
                    "it (the README's build decodes H.264, HEVC, AV1, VP9, ProRes, DNxHD, "
                    "FFV1, JPEG 2000, MPEG-2) or pass --ffmpeg with one that has it"
                    % (p, codec, t.ffmpeg))
    ref = probes[reference]
    ref_rate = _rate_of(ref)
    ref_frames = ref_probe.nb_frames if ref_probe is not None else ref["frames"]
    for p in dists:
        d = probes[p]
        r = _rate_of(d)
        if not same_rate(r, ref_rate):
            raise ScoreError(
                "%s has %s frames/s but the reference %s has %s: its frames cannot pair "
                "one to one with the reference's; resample it to the reference's rate "
                "first (ffmpeg -i %s -vf fps=%s ...) and score that" % (
                    p, _fmt_rate(r), reference, _fmt_rate(ref_rate), os.path.basename(p),
                    ref.get("r_frame_rate")))
        if not unequal_lengths and d["frames"] is not None and ref_frames is not None and \
                d["frames"] != ref_frames:
            raise ScoreError(
                "%s has %d frames but the reference %s has %d: check that it is a rendition "
                "of the whole title, or pass --unequal-lengths to score the frames that pair "
                "(the log counts those that lack a pair)" % (
                    p, d["frames"], reference, ref_frames))
    return probes


def _fmt_rate(r):
    if r is None:
        return "an unknown number of"
    return ("%.3f" % float(r)).rstrip("0").rstrip(".")
