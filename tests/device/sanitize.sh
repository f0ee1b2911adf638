#!/bin/sh
# compute-sanitizer over fssim_cuda and fssim3d on CUDA frames: memcheck
# (out-of-bounds and misaligned accesses, API errors, device memory leaks at
# exit), initcheck (reads of uninitialised device memory), synccheck (barrier
# misuse) and racecheck (shared-memory hazards).  A few frames per run (the
# tools are slow): hwupload of small testsrc2 clips in 8, 10 and 16 bits,
# odd sizes in 4:4:4, tiny planes, algo=float+int+block and the default
# float+int alone (whose reduction reuses the tiles), windows 7 and 11,
# padding=valid and same; fssim3d at depth 3 and 5; a ladder of three
# renditions (one upscaled, one downscaled: the resampler, the reference's
# kept sums, the side streams and the one reduction); and NVDEC-decoded
# clips, 8 and 10-bit, when CLIPS is given.
#
# usage: tests/device/sanitize.sh FFMPEG OUT [CLIPS]
#   FFMPEG  ffmpeg built with the fssim filters and CUDA
#   OUT     OUT/<tool>.txt (every run's full output) and OUT/summary.txt
#   CLIPS   NVDEC clips: tests/cuda/make_clips.py's (hevc_8bit_lo.mkv /
#           hevc_8bit_hi.mkv, hevc_10bit_*) or bench/make_bench_clips.py's
#           (1080_hevc_8_qp34.mkv / _qp22.mkv, 1080_hevc_10_*); without it
#           the NVDEC runs are left out (said so in the summary)
# Environment:
#   SANITIZER   compute-sanitizer (default: on PATH, else /usr/local/cuda/bin)
#   TOOLS       default "memcheck initcheck synccheck racecheck" (in that
#               order: the most telling first, the slowest last)
#   SAN_BUDGET  seconds for all runs (default 420), shared out equally
#               between the tools (time one leaves unused goes to the next):
#               runs not started within a tool's share are reported as not
#               run, and the exit status is 3
#   SAN_RUN_TIMEOUT  seconds for one run (default 120): the worst case of the
#               whole script is SAN_BUDGET + SAN_RUN_TIMEOUT
#   MODE=cpu    a dry run without a GPU: no sanitizer, fssim instead of
#               fssim_cuda and software frames instead of CUDA frames (the
#               same sizes, formats and options), to check this script
#
# Each run must end with exit status 0, the tool's summary must report 0
# errors (racecheck: 0 errors and 0 warnings), and the filter's log must
# hold every frame.  Prints "memcheck: N runs, 0 errors" per tool.
# Exit status 0 when all is clean, 1 on any error, 2 on a usage error,
# 3 when runs were left out for time.
set -u
ff=${1:?usage: sanitize.sh FFMPEG OUT [CLIPS]}
out=${2:?usage: sanitize.sh FFMPEG OUT [CLIPS]}
clips=${3:-}
mode=${MODE:-gpu}
tools=${TOOLS:-memcheck initcheck synccheck racecheck}
budget=${SAN_BUDGET:-420}
run_timeout=${SAN_RUN_TIMEOUT:-120}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$out/work
mkdir -p "$work"
[ -x "$ff" ] || { echo "sanitize.sh: $ff is not executable" >&2; exit 2; }

help=
if [ "$mode" = cpu ]; then
    san=
    echo "sanitize.sh: MODE=cpu: a dry run of the same graphs on software frames with fssim, no sanitizer"
else
    san=${SANITIZER:-$(command -v compute-sanitizer || true)}
    [ -n "$san" ] || for s in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda*/bin/compute-sanitizer \
                              /opt/nvidia/*/compute-sanitizer/compute-sanitizer; do
        [ -x "$s" ] && { san=$s; break; }
    done
    if [ -z "$san" ] || [ ! -x "$san" ]; then
        echo "sanitize.sh: no compute-sanitizer (set SANITIZER)" >&2
        exit 2
    fi
    "$san" --version | tail -n 2
    help=$("$san" --help 2>&1)
fi
# an option of this compute-sanitizer version, or nothing
san_opt() { case $help in *"$1"*) echo "$1 $2" ;; esac; }

# --- the runs -----------------------------------------------------------
# Each run: NAME FRAMES FILTER OPTIONS then either "up PIX_FMT WxH" (testsrc2,
# noise on the main input, hwupload), "ladder PIX_FMT WxH" (the same, with
# renditions at half and at 3/2 the reference's size before the noisy one;
# even sizes, as hwupload leaves the last chroma row of an odd-height 4:2:0
# frame unwritten) or "nvdec MAIN REF".
if [ "$mode" = cpu ]; then
    hw='' cuda_f=fssim up=null dec=''
else
    hw="-init_hw_device cuda=cu -filter_hw_device cu"
    cuda_f=fssim_cuda up=hwupload dec="-hwaccel cuda -hwaccel_device cu -hwaccel_output_format cuda"
fi
A=algo=float+int+block

# the NVDEC pairs: (main, reference) of each depth
nv8='' nv10=''
if [ -n "$clips" ]; then
    for p in "hevc_8bit_lo hevc_8bit_hi" "1080_hevc_8_qp34 1080_hevc_8_qp22"; do
        # shellcheck disable=SC2086
        set -- $p
        [ -z "$nv8" ] && [ -f "$clips/$1.mkv" ] && [ -f "$clips/$2.mkv" ] && nv8="$clips/$1.mkv $clips/$2.mkv"
    done
    for p in "hevc_10bit_lo hevc_10bit_hi" "1080_hevc_10_qp34 1080_hevc_10_qp22"; do
        # shellcheck disable=SC2086
        set -- $p
        [ -z "$nv10" ] && [ -f "$clips/$1.mkv" ] && [ -f "$clips/$2.mkv" ] && nv10="$clips/$1.mkv $clips/$2.mkv"
    done
    [ -n "$nv8$nv10" ] || { echo "sanitize.sh: no NVDEC clip pair in $clips" >&2; exit 2; }
fi

# runs TOOL: the run list for a tool, one per line; racecheck, by far the
# slowest, gets one run per kernel family and sample class
runs() {
    cat <<EOF
u8_444_odd_w11          $cuda_f $A                                   up yuv444p 333x201
nv12_same_w7            $cuda_f $A:padding=same:window=7:sigma=1     up nv12 320x180
p010_same_w11           $cuda_f $A:padding=same                      up p010le 130x96
yuv444p16_odd_w7        $cuda_f $A:window=7:sigma=1                  up yuv444p16le 99x71
ladder_nv12_up_down     $cuda_f inputs=4:$A+psnr                     ladder nv12 160x96
u8_420_default          $cuda_f algo=float+int                       up yuv420p 333x202
p010_default            $cuda_f algo=float+int                       up p010le 130x96
EOF
    [ "$1" = racecheck ] && { echo "3d_p010_d3_w7           fssim3d depth=3:window=7:sigma=1 up p010le 99x70"
                             [ -n "$nv8" ] && echo "nvdec8_all              $cuda_f $A nvdec $nv8"
                             return; }
    cat <<EOF
tiny_444_7x5_int        $cuda_f algo=int                             up yuv444p 7x5
tiny_nv12_9x8_same      $cuda_f algo=float+int:padding=same          up nv12 9x8
3d_yuv420p_d5_same      fssim3d depth=5:padding=same                 up yuv420p 96x64
3d_p010_d3_w7           fssim3d depth=3:window=7:sigma=1             up p010le 99x70
3d_444_odd_d5           fssim3d depth=5:tpadding=truncate            up yuv444p 75x43
EOF
    [ -n "$nv8" ] && echo "nvdec8_all              $cuda_f $A nvdec $nv8" &&
                     echo "nvdec8_3d_d5            fssim3d depth=5 nvdec $nv8"
    [ -n "$nv10" ] && echo "nvdec10_same_w7         $cuda_f $A:padding=same:window=7:sigma=1 nvdec $nv10"
    return 0
}

# frames per run, per tool
frames_for() {
    case $1 in
    memcheck)  echo 4 ;;
    initcheck) echo 3 ;;
    synccheck) echo 3 ;;
    racecheck) echo 2 ;;
    *)         echo 3 ;;
    esac
}

# tool flags
flags_for() {
    [ -z "$san" ] && return
    f="--tool $1 --error-exitcode 86 $(san_opt --target-processes all)"
    case $1 in
    memcheck)  f="$f $(san_opt --leak-check full)" ;;
    # (--track-unused-memory is a switch in compute-sanitizer 2025.3, off by
    # default: "--track-unused-memory no" made "no" the target program)
    esac
    echo "$f"
}

# errors reported in a tool's output: "errors warnings", or "" if no summary
count() {
    r=$(sed -n 's/.*RACECHECK SUMMARY: .*(\([0-9]*\) errors\{0,1\}, \([0-9]*\) warnings\{0,1\}).*/\1 \2/p' "$1" | tail -n 1)
    [ -n "$r" ] && { echo "$r"; return; }
    e=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$1" | tail -n 1)
    [ -n "$e" ] && echo "$e 0"
}

start=$(date +%s)
status=0
: > "$out/summary.txt"
for tool in $tools; do
    case $tool in memcheck|initcheck|synccheck|racecheck) ;;
    *) echo "sanitize.sh: unknown tool $tool" >&2; exit 2 ;; esac
    txt=$out/$tool.txt
    : > "$txt"
    n=0 nerr=0 nwarn=0 bad='' notrun=0
    frames=$(frames_for "$tool")
    flags=$(flags_for "$tool")
    runs "$tool" > "$work/runs.txt"
    # each tool an equal share of what is left, so that a slow tool cannot
    # crowd the others out; time a tool leaves unused goes to the next
    tools_left=$(echo "$tools" | tr ' ' '\n' | sed -n "/^$tool\$/,\$p" | grep -c .)
    t_tool=$(date +%s)
    share=$(( (budget - (t_tool - start)) / tools_left ))
    while read -r name filter opts kind a b; do
        [ -n "$name" ] || continue
        if [ $(( $(date +%s) - t_tool )) -ge "$share" ]; then
            notrun=$((notrun + 1))
            echo "### $name: not run, the tool's ${share} s share of the budget is spent" >> "$txt"
            continue
        fi
        log=$work/$tool.$name.json
        rm -f "$log"
        if [ "$kind" = up ]; then
            # main: testsrc2 with grain; reference: the same without
            # (testsrc2 rounds odd sizes to even ones: crop to the odd size)
            w=${b%x*} h=${b#*x}
            src="testsrc2=s=$((w + w % 2))x$((h + h % 2)):r=$frames:d=1,crop=$w:$h:0:0:exact=1"
            # shellcheck disable=SC2086
            set -- $hw -f lavfi -i "$src,noise=alls=24:allf=t+u" -f lavfi -i "$src"
            graph="[0:v]format=$a,${up}[m];[1:v]format=$a,${up}[r];[m][r]$filter=$opts:log_path=$log"
        elif [ "$kind" = ladder ]; then
            w=${b%x*} h=${b#*x}
            src="testsrc2=s=${w}x${h}:r=$frames:d=1"
            # shellcheck disable=SC2086
            set -- $hw -f lavfi -i "$src,scale=$((w / 2)):$((h / 2)),noise=alls=24:allf=t+u" \
                -f lavfi -i "$src,scale=$((w * 3 / 2)):$((h * 3 / 2)),noise=alls=16:allf=t+u" \
                -f lavfi -i "$src,noise=alls=24:allf=t+u" -f lavfi -i "$src"
            graph="[0:v]format=$a,${up}[d1];[1:v]format=$a,${up}[d2];[2:v]format=$a,${up}[d3];"
            graph="${graph}[3:v]format=$a,${up}[r];[d1][d2][d3][r]$filter=$opts:log_path=$log"
        else
            # shellcheck disable=SC2086
            set -- $hw $dec -i "$a" $dec -i "$b"
            graph="[0:v]trim=end_frame=${frames}[m];[1:v]trim=end_frame=${frames}[r];[m][r]$filter=$opts:log_path=$log"
        fi
        echo "### $tool $name: $filter $opts ($kind $a $b), $frames frames" >> "$txt"
        t0=$(date +%s)
        # shellcheck disable=SC2086
        timeout "$run_timeout" $san $flags "$ff" -hide_banner -nostdin -y -v info "$@" -lavfi "$graph" \
            -f null - < /dev/null > "$work/run.txt" 2>&1
        rc=$?
        cat "$work/run.txt" >> "$txt"
        n=$((n + 1))
        c=$(count "$work/run.txt")
        why=
        if [ -n "$san" ] && [ -z "$c" ]; then
            why="no sanitizer summary in the output"
        elif [ -n "$c" ]; then
            # shellcheck disable=SC2086
            set -- $c
            nerr=$((nerr + $1)) nwarn=$((nwarn + $2))
            [ "$1" != 0 ] && why="$1 errors"
            [ "$2" != 0 ] && why="${why:+$why, }$2 warnings"
        fi
        case $rc in
        0) ;;
        86) [ -n "$why" ] || why="sanitizer error exit without a count" ;;
        124) why="${why:+$why, }timed out" ;;
        *) why="${why:+$why, }ffmpeg exit status $rc" ;;
        esac
        grep -q "\"frame_count\": $frames," "$log" 2>/dev/null ||
            why="${why:+$why, }log holds $(sed -n 's/.*"frame_count": \([0-9]*\).*/\1/p' "$log" 2>/dev/null || echo no) frames, not $frames"
        echo "### $tool $name: exit $rc, $(( $(date +%s) - t0 )) s${why:+: $why}" >> "$txt"
        if [ -n "$why" ]; then
            bad="$bad
  $name: $why"
            echo "$tool $name: FAIL: $why"
            grep -E "^=========|Error|error" "$work/run.txt" | head -n 15
        fi
    done < "$work/runs.txt"
    line="$tool: $n runs, $nerr errors"
    [ "$tool" = racecheck ] && line="$line, $nwarn warnings"
    [ $notrun -gt 0 ] && line="$line, $notrun not run (time budget)"
    [ -n "$bad" ] && line="$line; FAIL:$bad"
    [ -z "$san" ] && line="$line (dry run, no sanitizer)"
    echo "$line" | tee -a "$out/summary.txt"
    [ -n "$bad" ] && status=1
    [ $notrun -gt 0 ] && [ $status = 0 ] && status=3
done
[ -z "$nv8$nv10" ] && echo "(no CLIPS: the NVDEC runs were left out)" | tee -a "$out/summary.txt"
echo "total $(( $(date +%s) - start )) s" | tee -a "$out/summary.txt"
exit $status
