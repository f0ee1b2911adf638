# fssim's filters in libavfilter (installed as libavfilter/fssim/Makefile by
# scripts/ffmpeg-integrate.sh and included from libavfilter/Makefile).

FSSIM_REF    = fssim/ref_plane.o fssim/ref_int.o fssim/ref_float.o \
               fssim/ref_block.o fssim/ref_3d.o \
               fssim/ref_psnr.o fssim/ref_msssim.o fssim/ref_resample.o
FSSIM_COMMON = fssim/fssim_filter.o fssim/fssim_options.o fssim/fssim_format.o \
               fssim/fssim_links.o fssim/fssim_output.o fssim/fssim_log.o \
               fssim/fssim_file.o fssim/fssim_pool.o fssim/fssim_engine.o \
               fssim/fssim_be_cpu.o framesync.o $(FSSIM_REF)
# The CUDA modules: each embedded as PTX (FFmpeg's rules) and as machine
# code, SASS (below).
FSSIM_PTX     = fssim_8 fssim_12 fssim_16 fssim_8_any fssim_12_any fssim_16_any
FSSIM_MODULES = $(FSSIM_PTX) $(FSSIM_PTX:%=%_ladder) fssim3d fssim3d_any
# The CUDA backend serves fssim_cuda and fssim3d: both sets of kernels.
FSSIM_CUDA   = fssim/fssim_be_cuda.o fssim/fssim_cuda_common.o fssim/fssim_cuda_params.o \
               fssim/fssim3d_cuda_params.o cuda/load_helper.o \
               $(FSSIM_MODULES:%=fssim/%.ptx.o) $(FSSIM_MODULES:%=fssim/%.sass.o)

OBJS-$(CONFIG_FSSIM_FILTER)        += fssim/vf_fssim.o $(FSSIM_COMMON)
OBJS-$(CONFIG_FSSIM3D_FILTER)      += fssim/vf_fssim3d.o $(FSSIM_COMMON)
OBJS-$(CONFIG_FSSIM_CUDA_FILTER)   += fssim/vf_fssim_cuda.o $(FSSIM_CUDA) $(FSSIM_COMMON)
# The Vulkan backend serves fssim_vulkan and fssim3d: both sets of shaders.
FSSIM_VULKAN = fssim/fssim_be_vulkan.o fssim/fssim_be_vulkan3d.o fssim/fssim_vulkan_common.o \
               fssim/fssim_vulkan_resample.o fssim/fssim_vulkan_msssim.o \
               fssim/fssim.comp.spv.o fssim/fssim_f32.comp.spv.o fssim/fssim_msssim.comp.spv.o \
               fssim/fssim_resample.comp.spv.o fssim/fssim3d_moments.comp.spv.o \
               fssim/fssim3d_score.comp.spv.o vulkan.o vulkan_filter.o

OBJS-$(CONFIG_FSSIM_VULKAN_FILTER) += fssim/vf_fssim_vulkan.o $(FSSIM_VULKAN) $(FSSIM_COMMON)

# fssim3d scores CUDA frames too when FFmpeg compiles CUDA kernels, and
# Vulkan frames where fssim_vulkan is built: both need Vulkan and a GLSL
# compiler (configure's spirv_compiler, which has no CONFIG_ variable).
ifdef CONFIG_FSSIM3D_FILTER
ifdef CONFIG_FFNVCODEC
ifneq ($(CONFIG_CUDA_NVCC)$(CONFIG_CUDA_LLVM),)
OBJS-yes += $(FSSIM_CUDA)
endif
endif
ifdef CONFIG_FSSIM_VULKAN_FILTER
OBJS-yes += $(FSSIM_VULKAN)
endif
endif

# FFmpeg's %.ptx rule knows only the .cu file: the modules are rebuilt
# when a kernel header they include changes.
FSSIM_PTX_HEADERS = fssim_plane.cuh fssim_resample.cuh fssim_msssim.cuh fssim_cuda.h \
                    fssim_cuda_device.cuh fssim_consts.h
$(addprefix $(SUBDIR)fssim/,$(FSSIM_PTX:%=%.ptx) $(FSSIM_PTX:%=%_ladder.ptx)): \
  $(addprefix $(SRC_PATH)/$(SUBDIR)fssim/,$(FSSIM_PTX_HEADERS))
# FFmpeg's clang flags (sm_30) make clang emit PTX ISA 3.2, which has no
# shfl.sync (kernels/fssim_cuda_device.cuh, warp_xor); ISA 6.0 has, and
# every driver since CUDA 9 reads it.
ifdef CONFIG_CUDA_LLVM
$(addprefix $(SUBDIR)fssim/,$(FSSIM_PTX:%=%.ptx) $(FSSIM_PTX:%=%_ladder.ptx)): \
  NVCCFLAGS += -Xclang -target-feature -Xclang +ptx60
endif
FSSIM3D_PTX_HEADERS = fssim3d.cuh fssim3d_cuda.h fssim_cuda.h fssim_cuda_device.cuh fssim_consts.h
$(SUBDIR)fssim/fssim3d.ptx $(SUBDIR)fssim/fssim3d_any.ptx: \
  $(addprefix $(SRC_PATH)/$(SUBDIR)fssim/,$(FSSIM3D_PTX_HEADERS))

# Machine code for the GPU architectures that configure's --with-cuda-sass
# listed (sass.mak, written by scripts/ffmpeg-integrate.sh): ptxas builds a
# cubin of the module's PTX for each, fatbinary bundles them (compressed),
# and the filter offers the bundle to the driver before the PTX, so that
# those GPUs skip the just-in-time compilation.  With no list, the bundle
# is empty and the PTX is loaded as before.
include $(SRC_PATH)/libavfilter/fssim/sass.mak

$(SUBDIR)fssim/%.fatbin: TAG = SASS
$(SUBDIR)fssim/%.fatbin: $(SUBDIR)fssim/%.ptx $(SRC_PATH)/$(SUBDIR)fssim/sass.mak
	$(M)set -e; images=; for a in $(FSSIM_SASS); do \
	  $(FSSIM_PTXAS) -arch=sm_$$a -o $@.sm_$$a.cubin $<; \
	  images="$$images --image3=kind=elf,sm=$$a,file=$@.sm_$$a.cubin"; \
	done; \
	$(FSSIM_FATBINARY) --create=$@ --compress-all $$images; \
	rm -f $@.sm_*.cubin

ifneq ($(strip $(FSSIM_SASS)),)
$(SUBDIR)fssim/%.sass.c: $(SUBDIR)fssim/%.fatbin $(BIN2CEXE)
	$(RUN_BIN2C)
else
$(SUBDIR)fssim/%.sass.c: TAG = SASS
$(SUBDIR)fssim/%.sass.c: $(SRC_PATH)/$(SUBDIR)fssim/sass.mak
	$(M)printf 'const unsigned char ff_%s_data[1] = { 0 };\nconst unsigned int ff_%s_len = 0;\n' \
	  $(subst .,_,$(basename $(notdir $@))) $(subst .,_,$(basename $(notdir $@))) > $@
endif
.SECONDARY: $(FSSIM_MODULES:%=$(SUBDIR)fssim/%.fatbin) $(FSSIM_MODULES:%=$(SUBDIR)fssim/%.sass.c)

# The reference is plain C11; it needs no fused multiply-add (doc/algorithms.md#int).
$(SUBDIR)fssim/ref_%.o: CFLAGS += -ffp-contract=off

SKIPHEADERS += fssim/fssim_cuda_common.h fssim/fssim_vulkan_common.h \
               fssim/fssim_vulkan_resample.h fssim/fssim_vulkan_msssim.h

clean::
	$(RM) $(CLEANSUFFIXES:%=libavfilter/fssim/%) libavfilter/fssim/*.fatbin \
	      libavfilter/fssim/*.sass.c
