# fssim's filters in libavfilter (installed as libavfilter/fssim/Makefile by
# scripts/ffmpeg-integrate.sh and included from libavfilter/Makefile).

FSSIM_REF    = fssim/ref_plane.o fssim/ref_int.o fssim/ref_float.o \
               fssim/ref_block.o fssim/ref_3d.o
FSSIM_COMMON = fssim/fssim_common.o framesync.o $(FSSIM_REF)

OBJS-$(CONFIG_FSSIM_FILTER)        += fssim/vf_fssim.o $(FSSIM_COMMON)
OBJS-$(CONFIG_FSSIM3D_FILTER)      += fssim/vf_fssim3d.o $(FSSIM_COMMON)
OBJS-$(CONFIG_FSSIM_CUDA_FILTER)   += fssim/vf_fssim_cuda.o fssim/fssim_cuda_params.o \
                                      fssim/fssim_8.ptx.o fssim/fssim_12.ptx.o fssim/fssim_16.ptx.o \
                                      fssim/fssim_8_any.ptx.o fssim/fssim_12_any.ptx.o \
                                      fssim/fssim_16_any.ptx.o \
                                      fssim/fssim_cuda_common.o cuda/load_helper.o \
                                      $(FSSIM_COMMON)
OBJS-$(CONFIG_FSSIM_VULKAN_FILTER) += fssim/vf_fssim_vulkan.o fssim/fssim.comp.spv.o \
                                      fssim/fssim_f32.comp.spv.o \
                                      vulkan.o vulkan_filter.o $(FSSIM_COMMON)

# fssim3d scores CUDA frames too when FFmpeg compiles CUDA kernels.
ifdef CONFIG_FSSIM3D_FILTER
ifdef CONFIG_FFNVCODEC
ifneq ($(CONFIG_CUDA_NVCC)$(CONFIG_CUDA_LLVM),)
OBJS-yes += fssim/fssim3d_cuda.o fssim/fssim3d_cuda_params.o \
            fssim/fssim3d.ptx.o fssim/fssim3d_any.ptx.o \
            fssim/fssim_cuda_common.o cuda/load_helper.o
endif
endif
endif

# fssim3d scores Vulkan frames too where fssim_vulkan is built: both need
# Vulkan and a GLSL compiler (configure's spirv_compiler, which has no
# CONFIG_ variable of its own).
ifdef CONFIG_FSSIM3D_FILTER
ifdef CONFIG_FSSIM_VULKAN_FILTER
OBJS-yes += fssim/fssim3d_vulkan.o fssim/fssim3d_moments.comp.spv.o \
            fssim/fssim3d_score.comp.spv.o vulkan.o vulkan_filter.o
endif
endif

# The reference is plain C11; it needs no fused multiply-add (doc/algorithms.md#int).
$(SUBDIR)fssim/ref_%.o: CFLAGS += -ffp-contract=off

SKIPHEADERS += fssim/fssim_cuda_common.h

clean::
	$(RM) $(CLEANSUFFIXES:%=libavfilter/fssim/%)
