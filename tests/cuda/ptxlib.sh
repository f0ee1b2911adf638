# Sourced by the CUDA build tests (test_build.sh, test_build3d.sh): TAP
# output and the checks they share, none of which needs a GPU.

n=0
ok()   { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

ptxas=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null)
nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
clang=$(sed -n 's/^NVCC=//p' "$FFMPEG_TREE/ffbuild/config.mak" 2>/dev/null)
[ "$FSSIM_CUDA" = llvm ] || clang=$(command -v clang)

# other_compiler MODULE WORK: compile MODULE.cu (written into the FFmpeg
# tree by filters/ffmpeg.mak) with the CUDA compiler FFmpeg was not
# configured with, and the flags its configure would give that compiler;
# the PTX goes to WORK.
other_compiler() {
    cu=$FFMPEG_TREE/libavfilter/fssim/cuda/$1.cu
    if [ "$FSSIM_CUDA" = llvm ] && [ -n "$nvcc" ]; then
        "$nvcc" -gencode arch=compute_75,code=sm_75 -O2 -std=c++11 -m64 -ptx -I"$top_srcdir/filters/cuda" \
            "$cu" -o "$2/$1.nvcc.ptx" > "$2/$1.log" 2>&1
        ok $? "$1.cu compiles to PTX with nvcc too"
    elif [ "$FSSIM_CUDA" = nvcc ] && [ -n "$clang" ]; then
        # the 2-D modules' warp shuffles need PTX ISA 6.0, which
        # filters/ffmpeg.mak asks clang for
        isa=
        case $1 in fssim3d*) ;; *) isa="-Xclang -target-feature -Xclang +ptx60" ;; esac
        "$clang" --cuda-gpu-arch=sm_30 $isa -O2 -std=c++11 -m64 -S -nocudalib -nocudainc \
            --cuda-device-only -Wno-c++11-narrowing -I"$top_srcdir/filters/cuda" \
            -include "$FFMPEG_TREE/compat/cuda/cuda_runtime.h" \
            "$cu" -o "$2/$1.clang.ptx" > "$2/$1.log" 2>&1
        ok $? "$1.cu compiles to PTX with clang too"
    else
        skip "$1.cu with the other CUDA compiler" "neither nvcc nor clang beside $FSSIM_CUDA"
    fi
}

# assemble PTX LOG: ptxas for Hopper (sm_90), as the driver does at run
# time; returns ptxas's status, its report in LOG.  1 without ptxas.
assemble() {
    [ -n "$ptxas" ] || return 1
    "$ptxas" -arch=sm_90 -v "$1" -o /dev/null > "$2" 2>&1
}
