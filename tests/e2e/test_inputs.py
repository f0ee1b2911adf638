"""The build decodes what farms feed it (configure's farm formats,
Makefile.am's FFMPEG_FARM_FLAGS), with FFmpeg's own decoders: each
container and codec below holds two encodes of the same natural content (a
distorted one and a better one, made by ENCODER_FFMPEG, Debian's ffmpeg),
with the audio such files carry, and the built ffmpeg scores the pair with
fssim on the plain command line (which maps the audio too):

    ffmpeg -i dist.EXT -i ref.EXT -lavfi "[0:v][1:v]fssim" -f null -

Every frame is scored, with the scores of the same pair decoded to raw
video by ENCODER_FFMPEG (decoders of different FFmpeg releases may differ
in the last bit of an IDCT: 1e-4), and the distorted input read from
stdin (`-i -`) and from http://127.0.0.1:PORT/ (a server thread of this
test, with byte ranges) scores exactly as read from the file.  HLS: the MPEG-TS
pair cut into segments, in the clear and AES-128 encrypted, read from its
playlist over http.

A build configured --disable-farm-formats skips the cases that need what it
leaves out, saying so; AV1, which FFmpeg decodes only through a hardware
decoder (NVDEC, Vulkan Video), is probed (demuxer, parser), and its
scoring skipped without one.
"""
import http.server
import os
import re
import subprocess
import threading

import fssimtest as ft

W, H, N, RATE = 256, 144, 10, 25
FARM = os.environ.get("FSSIM_FARM_FORMATS", "yes") != "no"
FARM_SKIP = "the build leaves out the farm formats (configure --disable-farm-formats)"
TOL = 1e-4

t = ft.Tap()
WORK = ft.workdir("inputs")
ENC = ft.ENCODER_FFMPEG

# name, file extension, muxer options, video options (distorted, better),
# audio options or None, whether it needs the farm formats, the video
# encoder; mov/mp4 with the index up front, so that a pipe can carry them
MPEG2 = (["-c:v", "mpeg2video", "-q:v", "12"], ["-c:v", "mpeg2video", "-q:v", "2"])
# (a key frame every 3 frames, where HLS may cut a segment)
H264 = (["-c:v", "libx264", "-preset", "ultrafast", "-crf", "38", "-g", "3"],
        ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "18", "-g", "3"])
HEVC = (["-c:v", "libx265", "-preset", "ultrafast", "-crf", "38", "-x265-params", "log-level=error"],
        ["-c:v", "libx265", "-preset", "ultrafast", "-crf", "18", "-x265-params", "log-level=error"])
VP9 = (["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "60k"],
       ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "600k"])
PRORES = (["-c:v", "prores_ks", "-profile:v", "0", "-qscale:v", "20"],
          ["-c:v", "prores_ks", "-profile:v", "3", "-qscale:v", "2"])
DNXHR = (["-c:v", "dnxhd", "-profile:v", "dnxhr_lb", "-pix_fmt", "yuv422p"],
         ["-c:v", "dnxhd", "-profile:v", "dnxhr_hq", "-pix_fmt", "yuv422p"])
AV1 = (["-c:v", "libaom-av1", "-cpu-used", "8", "-crf", "50"],
       ["-c:v", "libaom-av1", "-cpu-used", "8", "-crf", "20"])
FAST = ["-movflags", "+faststart"]
CASES = [
    ("MPEG-TS, MPEG-2 video, MP2 audio", "ts", ["-f", "mpegts"], MPEG2, ["-c:a", "mp2"], True,
     "mpeg2video"),
    ("MPEG-TS, H.264, AAC", "ts", ["-f", "mpegts"], H264, ["-c:a", "aac"], True, "libx264"),
    ("MPEG-PS, MPEG-2 video, MP2 audio", "mpg", ["-f", "vob"], MPEG2, ["-c:a", "mp2"], True,
     "mpeg2video"),
    ("MXF, MPEG-2 video, PCM", "mxf", [], MPEG2, ["-c:a", "pcm_s16le"], True, "mpeg2video"),
    ("MXF, DNxHR, 24-bit PCM", "mxf", [], DNXHR, ["-c:a", "pcm_s24le"], True, "dnxhd"),
    ("MOV, ProRes, PCM", "mov", FAST, PRORES, ["-c:a", "pcm_s16le"], True, "prores_ks"),
    ("MOV, DNxHR, AAC", "mov", FAST, DNXHR, ["-c:a", "aac"], True, "dnxhd"),
    ("MP4, H.264, AAC", "mp4", FAST, H264, ["-c:a", "aac"], True, "libx264"),
    ("MP4, HEVC, AAC", "mp4", FAST, HEVC, ["-c:a", "aac"], True, "libx265"),
    ("Matroska, VP9, Opus", "mkv", [], VP9, ["-c:a", "libopus"], True, "libvpx-vp9"),
    ("MP4, H.264", "mp4", FAST, H264, None, False, "libx264"),
    ("Matroska, HEVC", "mkv", [], HEVC, None, False, "libx265"),
    ("Matroska, VP9", "mkv", [], VP9, None, False, "libvpx-vp9"),
]


class Server:
    """HTTP of the work folder on 127.0.0.1, with byte ranges (FFmpeg's http
    protocol seeks with them), in a thread."""

    def __init__(self, root):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                path = os.path.join(root, self.path.lstrip("/").split("?")[0])
                if not os.path.isfile(path):
                    self.send_error(404)
                    return
                with open(path, "rb") as f:
                    data = f.read()
                start, end = 0, len(data) - 1
                m = re.match(r"bytes=(\d+)-(\d*)$", self.headers.get("Range") or "")
                if m:
                    start = int(m.group(1))
                    end = min(int(m.group(2)), end) if m.group(2) else end
                    if start > end:
                        self.send_response(416)
                        self.send_header("Content-Range", "bytes */%d" % len(data))
                        self.end_headers()
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, len(data)))
                else:
                    self.send_response(200)
                self.send_header("Accept-Ranges", "bytes")
                self.send_header("Content-Length", str(end - start + 1))
                self.send_header("Content-Type", "application/octet-stream")
                self.end_headers()
                try:
                    self.wfile.write(data[start:end + 1])
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def encode(out, src, video, audio, mux):
    args = [ENC, "-hide_banner", "-nostdin", "-v", "error", "-y", "-i", src.path]
    if audio:
        args += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=%g" % (N / RATE),
                 "-ac", "2"] + audio
    args += video + ["-r", str(RATE), "-frames:v", str(N)] + mux + [out]
    return ft.run(args, check=False)


def score(main_args, ref_args, tag, stdin=None):
    """fssim of the pair on the plain command line; (frames, stderr)."""
    log = os.path.join(WORK, tag + ".json")
    if os.path.exists(log):
        os.unlink(log)
    args = [ft.FFMPEG, "-hide_banner", "-nostdin", "-y"] + main_args + ref_args + [
        "-lavfi", "[0:v][1:v]fssim=log_path=%s:log_fmt=json" % log, "-f", "null", "-"]
    if stdin:
        with open(stdin, "rb") as f:
            p = subprocess.run(args, stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, timeout=600)
    else:
        p = ft.run(args, check=False)
    frames = ft.load_log(log)["frames"] if p.returncode == 0 and os.path.exists(log) else None
    return frames, p.stderr


def ints(frames):
    return [f["int"]["All"] if isinstance(f["int"], dict) else f["int"] for f in frames]


def raw_scores(dist, ref, tag):
    """The pair decoded to raw video by ENCODER_FFMPEG, in the format the
    built ffprobe reports, scored by fssim."""
    q = ft.run([ft.FFPROBE, "-v", "error", "-select_streams", "v:0", "-show_entries",
                "stream=pix_fmt", "-of", "default=nw=1:nk=1", dist], check=False)
    # (MPEG-TS lists the stream once more inside its program)
    fmt = (q.stdout.split() or [""])[0]
    clips = []
    for path in (dist, ref):
        raw = path + ".yuv"
        p = ft.run([ENC, "-hide_banner", "-nostdin", "-v", "error", "-y", "-i", path,
                    "-map", "0:v", "-f", "rawvideo", "-pix_fmt", fmt, raw], check=False)
        if p.returncode or not fmt:
            return None
        clips.append(ft.Clip(raw, W, H, fmt, [], RATE))
    return ft.run_fssim(clips[0], clips[1], directory=WORK, tag=tag + "-raw")["log"]["frames"]


def check_case(server, name, ext, mux, video, audio, farm, encoder):
    tag = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    # MXF is not piped: without its index, which a pipe cannot seek to,
    # FFmpeg's MXF demuxer times long-GOP frames one frame late
    piped = ext != "mxf"
    descs = ["%s: fssim scores every frame, as decoded by %s" % (name, os.path.basename(ENC or "-")),
             "%s: read over http, the same scores" % name]
    # stdin as farms give it: `-i -` (FFmpeg's fd protocol, a farm format)
    # or, in the smaller build, pipe:0
    stdin = "-" if farm else "pipe:0"
    if piped:
        descs.append("%s: read from stdin (-i %s), the same scores" % (name, stdin))
    if farm and not FARM:
        for d in descs:
            t.skip(d, FARM_SKIP)
        return None
    missing = [e for e in (encoder, audio[1] if audio else None) if e and not ft.encoder_has(e)]
    if missing:
        for d in descs:
            t.skip(d, "ENCODER_FFMPEG (%s) has no %s encoder" % (ENC or "none", ", ".join(missing)))
        return None
    src = SRC
    dist, ref = os.path.join(WORK, tag + "-dist." + ext), os.path.join(WORK, tag + "-ref." + ext)
    for out, v in ((dist, video[0]), (ref, video[1])):
        p = encode(out, src, v, audio, mux)
        if p.returncode:
            t.ok(False, descs[0], "encoding %s failed: %s" % (out, p.stderr[-1500:]))
            return None
    got, err = score(["-i", dist], ["-i", ref], tag)
    want = raw_scores(dist, ref, tag)
    audio_mapped = audio is None or re.search(r"Stream #0:\d -> #0:\d \(\w+ \(native\) -> pcm_s16le",
                                              err) is not None
    # every frame the file holds: Debian's MXF muxer, given audio, keeps 7
    # or 8 of the 10
    good = got is not None and want is not None and len(got) == len(want) >= N - 3 and \
        all(abs(a - b) <= TOL for a, b in zip(ints(got), ints(want))) and audio_mapped
    t.ok(good, descs[0] + " (%s frames, int %s)" % (
        len(got) if got else None, "%.4f" % (sum(ints(got)) / len(got)) if got else "-"),
        "raw: %s\n%s" % (ints(want) if want else None, err[-2500:]))
    # http is a farm format: the smaller build has the file and pipe protocols
    if FARM:
        http_got, err = score(["-i", server.url + os.path.basename(dist)], ["-i", ref],
                              tag + "-http")
        t.ok(got is not None and http_got == got, descs[1], err[-2500:])
    else:
        t.skip(descs[1], FARM_SKIP)
    if piped:
        pipe_got, err = score(["-i", stdin], ["-i", ref], tag + "-pipe", stdin=dist)
        t.ok(got is not None and pipe_got == got, descs[2], err[-2500:])
    return got, dist, ref


def check_hls(server, ts_case):
    descs = ["HLS over http (MPEG-TS segments, H.264 and AAC): the same scores",
             "HLS over http, AES-128 encrypted segments: the same scores"]
    if not FARM:
        for d in descs:
            t.skip(d, FARM_SKIP)
        return
    if not ts_case:
        for d in descs:
            t.skip(d, "the MPEG-TS H.264 pair was not made")
        return
    got, dist, ref = ts_case
    hls = os.path.join(WORK, "hls")
    os.makedirs(hls, exist_ok=True)
    key = os.path.join(hls, "k.key")
    with open(key, "wb") as f:
        f.write(bytes(range(16)))
    info = os.path.join(hls, "k.info")
    with open(info, "w") as f:
        f.write("k.key\n%s\n" % key)
    for d, extra, name in ((descs[0], [], "clear"), (descs[1], ["-hls_key_info_file", info], "aes")):
        p = ft.run([ENC, "-hide_banner", "-nostdin", "-v", "error", "-y", "-i", dist, "-c", "copy",
                    "-f", "hls", "-hls_time", "0.1", "-hls_list_size", "0",
                    "-hls_segment_filename", os.path.join(hls, name + "%d.ts")] + extra +
                   [os.path.join(hls, name + ".m3u8")], check=False)
        segs = len([x for x in os.listdir(hls) if x.startswith(name) and x.endswith(".ts")])
        hls_got, err = score(["-i", server.url + "hls/%s.m3u8" % name], ["-i", ref], "hls-" + name)
        t.ok(p.returncode == 0 and segs > 1 and got is not None and hls_got == got,
             d + " (%d segments)" % segs, (p.stderr + err)[-2500:])


def check_av1(server):
    desc = "Matroska, AV1: the build's ffprobe reads the stream (demuxer, parser)"
    if not ft.encoder_has("libaom-av1"):
        t.skip(desc, "ENCODER_FFMPEG has no libaom-av1 encoder")
        t.skip("Matroska, AV1: fssim scores the pair", "no AV1 encoder")
        return
    out = os.path.join(WORK, "av1.mkv")
    p = encode(out, SRC, AV1[0], None, [])
    q = ft.run([ft.FFPROBE, "-v", "error", "-show_entries", "stream=codec_name,width,height",
                "-of", "csv=p=0", out], check=False)
    t.ok(p.returncode == 0 and q.stdout.strip() == "av1,%d,%d" % (W, H), desc,
         p.stderr[-1000:] + q.stdout + q.stderr[-1000:])
    t.skip("Matroska, AV1: fssim scores the pair",
           "FFmpeg decodes AV1 only through a hardware decoder (NVDEC, Vulkan Video), "
           "which this test does not use")


def main():
    global SRC
    if not ENC or not os.path.exists(ENC):
        t.skip("farm inputs", "no ENCODER_FFMPEG (Debian's ffmpeg) to make the clips")
        return
    SRC = ft.natural_clip(W, H, N, "yuv420p", WORK, name="src", container="y4m", rate=RATE)
    server = Server(WORK)
    made = {}
    for case in CASES:
        made[case[0]] = check_case(server, *case)
    check_hls(server, made.get("MPEG-TS, H.264, AAC"))
    check_av1(server)
    server.httpd.shutdown()


SRC = None
main()
t.done()
