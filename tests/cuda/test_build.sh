#!/bin/sh
# TAP: the CUDA side of the build, checkable without a GPU.  fssim_cuda is
# registered; the kernels compile to PTX with the compiler FFmpeg was
# configured with (clang or nvcc) and with the other one when present; and
# ptxas, when present, assembles every module for Hopper (sm_90), which is
# what the driver does at run time.  (The kernels run for real only in
# tests/cuda/test_cuda.py on a GPU, and through the emulator in
# tests/cuda/test_kernel_emu.)
n=0
ok()   { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
work=${FSSIM_WORK:-/tmp}/cuda-build
mkdir -p "$work"

if [ "${FSSIM_CUDA:-no}" = no ]; then
    skip "fssim_cuda build checks" "FFmpeg built without CUDA (configure --with-cuda=llvm|nvcc)"
    echo "1..$n"
    exit 0
fi

"$FFMPEG" -hide_banner -h filter=fssim_cuda > "$work/help.txt" 2>&1
grep -q "fssim_cuda AVOptions" "$work/help.txt" && grep -q "log_path" "$work/help.txt"
ok $? "ffmpeg -h filter=fssim_cuda lists the filter and its options"

mods="fssim_8 fssim_12 fssim_16 fssim_8_any fssim_12_any fssim_16_any"
for m in $mods; do
    ptx="$FFMPEG_TREE/libavfilter/fssim/$m.ptx"
    grep -q "\.entry fssim_plane" "$ptx" 2>/dev/null && grep -q "\.entry fssim_reduce" "$ptx" &&
        grep -q "div\.rn\.f64" "$ptx"
    ok $? "$m.ptx ($FSSIM_CUDA) has both kernels and the unfused division of the int term"
done

ptxas=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null)
nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
clang=$(sed -n 's/^NVCC=//p' "$FFMPEG_TREE/ffbuild/config.mak")
[ "$FSSIM_CUDA" = llvm ] || clang=$(command -v clang)

# The other compiler, with the flags FFmpeg's configure would give it.
for m in $mods; do
    if [ "$FSSIM_CUDA" = llvm ] && [ -n "$nvcc" ]; then
        "$nvcc" -gencode arch=compute_75,code=sm_75 -O2 -std=c++11 -m64 -ptx \
            "$top_srcdir/kernels/$m.cu" -o "$work/$m.nvcc.ptx" > "$work/$m.log" 2>&1
        ok $? "$m.cu compiles to PTX with nvcc too"
    elif [ "$FSSIM_CUDA" = nvcc ] && [ -n "$clang" ]; then
        "$clang" --cuda-gpu-arch=sm_30 -O2 -std=c++11 -m64 -S -nocudalib -nocudainc \
            --cuda-device-only -Wno-c++11-narrowing \
            -include "$FFMPEG_TREE/compat/cuda/cuda_runtime.h" \
            "$top_srcdir/kernels/$m.cu" -o "$work/$m.clang.ptx" > "$work/$m.log" 2>&1
        ok $? "$m.cu compiles to PTX with clang too"
    else
        skip "$m.cu with the other CUDA compiler" "neither nvcc nor clang beside $FSSIM_CUDA"
    fi
done

for ptx in "$FFMPEG_TREE"/libavfilter/fssim/fssim_*.ptx "$work"/*.ptx; do
    [ -e "$ptx" ] || continue
    if [ -z "$ptxas" ]; then
        skip "ptxas $(basename "$ptx")" "ptxas (CUDA toolkit) not installed"
        continue
    fi
    "$ptxas" -arch=sm_90 -v "$ptx" -o /dev/null > "$work/ptxas.log" 2>&1
    ok $? "ptxas assembles $(basename "$ptx") for sm_90"
done
echo "1..$n"
