# FATE tests of the fssim filters (installed into the FFmpeg tree as
# tests/fate/fssim.mak by scripts/ffmpeg-integrate.sh).
#
# refcmp_metadata (tests/fate-run.sh) scores testsrc2 against its avgblur'ed
# copy and compares every metadata value with tests/ref/fate/<test> to a
# relative tolerance.  The int algorithm is exact and block uses fixed float
# arithmetic, so their tolerance is tight; float is double on the CPU.

FSSIM_FATE_DEPS = TESTSRC2_FILTER SPLIT_FILTER AVGBLUR_FILTER METADATA_FILTER \
                  FORMAT_FILTER SCALE_FILTER WRAPPED_AVFRAME_ENCODER NULL_MUXER \
                  PIPE_PROTOCOL

# refcmp_metadata for formats avgblur does not take (nv12, p010): its output
# is converted back, as fssim scores only inputs of the same format (doc/formats.md).
# fate-run.sh evals CMD, so the pipe into refcmp-metadata.awk works as there.
FSSIM_REFCMP_SEMI = ffmpeg -auto_conversion_filters -lavfi \
    "testsrc2=size=300x200:rate=1:duration=5,format=$(1),split[ref][tmp];[tmp]avgblur=4,format=$(1)[enc];[enc][ref]$(2),metadata=print:file=-" \
    -f null /dev/null | awk -v ref=$${ref} -v fuzz=$(3) -f $${base}/refcmp-metadata.awk -

FATE_FSSIM-$(call ALLYES, FSSIM_FILTER $(FSSIM_FATE_DEPS)) += \
    fate-fssim-int-yuv420p      \
    fate-fssim-float-yuv444p10  \
    fate-fssim-block-yuv422p    \
    fate-fssim-all-gray16       \
    fate-fssim-all-nv12         \
    fate-fssim-all-p010         \
    fate-fssim-all-gbrp12       \
    fate-fssim-float-same       \
    fate-fssim-psnr-yuv420p10   \
    fate-fssim-stats            \
    fate-fssim-psnr-stats       \
    fate-fssim-msssim-yuv444p10 \
    fate-fssim-msssim-yuv420p

fate-fssim-int-yuv420p:     CMD = refcmp_metadata fssim=algo=int yuv420p 1e-9
fate-fssim-float-yuv444p10: CMD = refcmp_metadata fssim=algo=float yuv444p10le 1e-9
fate-fssim-block-yuv422p:   CMD = refcmp_metadata fssim=algo=block yuv422p 1e-7
fate-fssim-all-gray16:      CMD = refcmp_metadata fssim=algo=float+int+block gray16le 1e-7
fate-fssim-all-nv12:        CMD = $(call FSSIM_REFCMP_SEMI,nv12,fssim=algo=float+int+block,1e-7)
fate-fssim-all-p010:        CMD = $(call FSSIM_REFCMP_SEMI,p010le,fssim=algo=float+int+block,1e-7)
fate-fssim-all-gbrp12:      CMD = refcmp_metadata fssim=algo=float+int+block gbrp12le 1e-7
fate-fssim-float-same:      CMD = refcmp_metadata fssim=algo=float:padding=same:window=7:sigma=1 yuv420p 1e-9
fate-fssim-psnr-yuv420p10:  CMD = refcmp_metadata fssim=algo=psnr yuv420p10le 1e-12

# MS-SSIM needs planes of at least (window-1)*16+1 samples: 300x200 4:4:4
# with the default window, 4:2:0 (chroma 150x100) with window 7 (97).
fate-fssim-msssim-yuv444p10: CMD = refcmp_metadata fssim=algo=msssim yuv444p10le 1e-9
fate-fssim-msssim-yuv420p:   CMD = refcmp_metadata fssim=algo=msssim:window=7:sigma=1.2 yuv420p 1e-9

# The stats file keeps the ssim filter's line format; int is exact, so the
# printed values are too.
fate-fssim-stats: CMD = ffmpeg -lavfi "testsrc2=size=300x200:rate=1:duration=3,split[ref][tmp];[tmp]avgblur=4[enc];[enc][ref]fssim=algo=int:stats_file=-" -f null /dev/null

# psnr's stats file keeps the psnr filter's line format.
fate-fssim-psnr-stats: CMD = ffmpeg -lavfi "testsrc2=size=300x200:rate=1:duration=3,split[ref][tmp];[tmp]avgblur=4[enc];[enc][ref]fssim=algo=psnr+int:stats_algo=psnr:stats_file=-" -f null /dev/null

FATE_FSSIM3D-$(call ALLYES, FSSIM3D_FILTER $(FSSIM_FATE_DEPS)) += \
    fate-fssim3d-yuv420p \
    fate-fssim3d-valid

fate-fssim3d-yuv420p: CMD = refcmp_metadata fssim3d=depth=5 yuv420p 1e-9
fate-fssim3d-valid:   CMD = refcmp_metadata fssim3d=depth=3:tpadding=valid:padding=same gray10le 1e-9

FATE_FSSIM_ALL = $(FATE_FSSIM-yes) $(FATE_FSSIM3D-yes)
FATE_FFMPEG += $(FATE_FSSIM_ALL)
fate-fssim: $(FATE_FSSIM_ALL)
