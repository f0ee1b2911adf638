#!/bin/sh
# TAP: the CUDA side of the build, checkable without a GPU.  fssim_cuda is
# registered; the kernels compile to PTX with the compiler FFmpeg was
# configured with (clang or nvcc) and with the other one when present; and
# ptxas, when present, assembles every module for Hopper (sm_90), which is
# what the driver does at run time; every module (fssim3d's too) carries
# machine code for exactly the architectures configure listed
# (--with-cuda-sass), or none.  (The kernels run for real only in
# tests/cuda/test_cuda.py on a GPU, and through the emulator in
# tests/cuda/test_kernel_emu.)
. "$top_srcdir/tests/cuda/ptxlib.sh"
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

mods="fssim_8 fssim_12 fssim_16 fssim_8_any fssim_12_any fssim_16_any
      fssim_8_ladder fssim_12_ladder fssim_16_ladder fssim_8_any_ladder fssim_12_any_ladder
      fssim_16_any_ladder"
for m in $mods; do
    ptx="$FFMPEG_TREE/libavfilter/fssim/cuda/$m.ptx"
    grep -q "\.entry fssim_plane" "$ptx" 2>/dev/null && grep -q "\.entry fssim_reduce" "$ptx" &&
        grep -q "div\.rn\.f64" "$ptx"
    ok $? "$m.ptx ($FSSIM_CUDA) has both kernels and the unfused division of the int term"
    grep -q "\.entry fssim_ms_scale" "$ptx" 2>/dev/null && grep -q "\.entry fssim_ms_reduce" "$ptx"
    ok $? "$m.ptx ($FSSIM_CUDA) has msssim's two kernels"
done

# the resampler's module: its four kernels (8-/16-bit containers in and out)
ptx="$FFMPEG_TREE/libavfilter/fssim/cuda/fssim_resample.ptx"
found=0
for k in 8to8 8to16 16to8 16to16; do
    grep -q "\.entry fssim_resample_$k" "$ptx" 2>/dev/null && found=$((found + 1))
done
[ "$found" = 4 ] && ! grep -q "\.local" "$ptx" && ! grep -q "\.entry fssim_plane" "$ptx"
ok $? "fssim_resample.ptx ($FSSIM_CUDA) has the four resamplers, no local memory, nothing else"
carry=
for m in $mods fssim3d fssim3d_any; do
    grep -q "\.entry fssim_resample" "$FFMPEG_TREE/libavfilter/fssim/cuda/$m.ptx" && carry="$carry $m"
done
[ -z "$carry" ]
ok $? "no scoring module carries the resampler (it is loaded only where an input is resampled)$carry"

# vmaf_ssim's and vmaf_msssim's module: its five kernels, never contracted
# (sqrt.rn, div.rn: libvmaf's arithmetic), and no other module carries them
ptx="$FFMPEG_TREE/libavfilter/fssim/cuda/fssim_vmaf.ptx"
found=0
for k in load_8 load_16 lpf score reduce; do
    grep -q "\.entry fssim_vmaf_$k" "$ptx" 2>/dev/null && found=$((found + 1))
done
[ "$found" = 5 ] && grep -q "sqrt\.rn\.f64" "$ptx" && ! grep -q "\bfma\.rn" "$ptx" &&
    ! grep -q "\.entry fssim_plane" "$ptx"
ok $? "fssim_vmaf.ptx ($FSSIM_CUDA) has the five vmaf kernels, no fused multiply-add, nothing else"
carry=
for m in $mods fssim3d fssim3d_any fssim_resample; do
    grep -q "\.entry fssim_vmaf" "$FFMPEG_TREE/libavfilter/fssim/cuda/$m.ptx" && carry="$carry $m"
done
[ -z "$carry" ]
ok $? "no other module carries the vmaf kernels (loaded only where they are asked for)$carry"

for m in $mods fssim_resample fssim_vmaf; do
    other_compiler "$m" "$work"
done

for ptx in "$FFMPEG_TREE"/libavfilter/fssim/cuda/fssim_*.ptx "$work"/*.ptx; do
    [ -e "$ptx" ] || continue
    if [ -z "$ptxas" ]; then
        skip "ptxas $(basename "$ptx")" "ptxas (CUDA toolkit) not installed"
        continue
    fi
    assemble "$ptx" "$work/ptxas.log"
    ok $? "ptxas assembles $(basename "$ptx") for sm_90"
done
# The machine code beside each module's PTX: a fat binary of the
# architectures configure found (FSSIM_SASS), embedded whole; none: an
# empty image, and the filter loads the PTX.
dir=$FFMPEG_TREE/libavfilter/fssim/cuda
for m in $mods fssim3d fssim3d_any fssim_resample fssim_vmaf; do
    len=$(sed -n "s/^const unsigned int ff_${m}_sass_len = \([0-9]*\);/\1/p" "$dir/$m.sass.c" 2>/dev/null)
    if [ -n "$FSSIM_SASS" ]; then
        got=$("$PYTHON" "$top_srcdir/tests/lib/fatbin.py" "$dir/$m.fatbin" 2>&1 | cut -d' ' -f2-)
        [ "$got" = "$FSSIM_SASS" ] && [ "$len" = "$(wc -c < "$dir/$m.fatbin")" ]
        ok $? "$m: machine code for sm $FSSIM_SASS embedded (fat binary: sm $got, $len bytes)"
    else
        [ "$len" = 0 ]
        ok $? "$m: no machine code embedded (configure --with-cuda-sass found no ptxas)"
    fi
done
echo "1..$n"
