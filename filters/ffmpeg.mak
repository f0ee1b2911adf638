# fssim's filters in libavfilter (installed as libavfilter/fssim/Makefile by
# scripts/ffmpeg-integrate.sh and included from libavfilter/Makefile).

# The sources keep the project's folders: the filters and the body they
# share at the top, core/ (the reference, the constants every language
# shares, the table of algorithms, the options and formats), engine/,
# output/, and a folder per backend with its host and device code.
FSSIM_REF    = $(addprefix fssim/core/,ref_plane.o ref_int.o ref_float.o ref_block.o \
                 ref_3d.o ref_psnr.o ref_msssim.o ref_vmaf.o ref_resample.o)
FSSIM_CORE   = $(addprefix fssim/core/,fssim_algos.o fssim_check.o fssim_options.o \
                 fssim_format.o) \
               $(FSSIM_REF)
FSSIM_ENGINE = $(addprefix fssim/engine/,fssim_engine.o fssim_queue.o fssim_scores.o fssim_ring.o \
                 fssim_memory.o fssim_resample_tiles.o)
FSSIM_OUTPUT = $(addprefix fssim/output/,fssim_output.o fssim_writers.o fssim_stats.o \
                 fssim_summary.o fssim_log.o fssim_file.o fssim_pool.o)
FSSIM_CPU    = $(addprefix fssim/cpu/,fssim_be_cpu.o fssim_cpu_vmaf.o)
FSSIM_COMMON = fssim/fssim_filter.o fssim/fssim_pair.o fssim/fssim_links.o \
               $(FSSIM_ENGINE) $(FSSIM_OUTPUT) $(FSSIM_CPU) $(FSSIM_CORE) framesync.o
# The CUDA modules, each embedded as PTX (FFmpeg's rules) and as machine
# code, SASS (below); the backend loads the one it needs.  fssim_cuda's:
# one for each sample class (8 bits, 9 to 12, 13 to 16), window (the
# default 11, or any: _any) and use (a lone pair, or a ladder: _ladder);
# fssim3d's: one for the default window, one for any; fssim_resample serves
# both filters, loaded only where an input is resampled; fssim_vmaf holds
# vmaf_ssim's and vmaf_msssim's kernels, loaded only where they are asked
# for.  Their .cu files are written from these lists (below).
FSSIM_CLASSES = 8 12 16
FSSIM_PTX     = $(foreach c,$(FSSIM_CLASSES),fssim_$(c) fssim_$(c)_any)
FSSIM_PTX2D   = $(FSSIM_PTX) $(FSSIM_PTX:%=%_ladder)
FSSIM_PTX3D   = fssim3d fssim3d_any
FSSIM_MODULES = $(FSSIM_PTX2D) $(FSSIM_PTX3D) fssim_resample fssim_vmaf
# The CUDA backend serves fssim_cuda and fssim3d: both sets of kernels.
FSSIM_CUDA   = $(addprefix fssim/cuda/,fssim_be_cuda.o fssim_be_cuda3d.o fssim_cuda_common.o \
                 fssim_cuda_resample.o fssim_cuda_msssim.o fssim_cuda_vmaf.o \
                 fssim_cuda_params_host.o) \
               cuda/load_helper.o \
               $(FSSIM_MODULES:%=fssim/cuda/%.ptx.o) $(FSSIM_MODULES:%=fssim/cuda/%.sass.o)

OBJS-$(CONFIG_FSSIM_FILTER)        += fssim/vf_fssim.o $(FSSIM_COMMON)
OBJS-$(CONFIG_FSSIM3D_FILTER)      += fssim/vf_fssim3d.o $(FSSIM_COMMON)
OBJS-$(CONFIG_FSSIM_CUDA_FILTER)   += fssim/vf_fssim_cuda.o $(FSSIM_CUDA) $(FSSIM_COMMON)
# The Vulkan backend serves fssim_vulkan and fssim3d: both sets of shaders.
FSSIM_VULKAN = $(addprefix fssim/vulkan/,fssim_be_vulkan.o fssim_be_vulkan3d.o \
                 fssim_vulkan_common.o fssim_vulkan_resample.o fssim_vulkan_msssim.o \
                 fssim_vulkan_vmaf.o \
                 fssim.comp.spv.o fssim_f32.comp.spv.o fssim_msssim.comp.spv.o \
                 fssim_vmaf.comp.spv.o fssim_resample.comp.spv.o \
                 fssim3d_moments.comp.spv.o fssim3d_score.comp.spv.o) \
               vulkan.o vulkan_filter.o

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

# A module's .cu is one line: FSSIM_MODULE (fssim_plane.cuh) with the
# sample class's types (the samples, the float and the int accumulators)
# and kind (fssim_cuda_params.h), the thread blocks per SM that registers must
# allow (fssim_plane.cuh says why; by class: the default window's lone pair,
# its ladder, any window), the window's radius (0: any) and whether it
# serves a ladder; or FSSIM3D_MODULE (fssim3d.cuh) with the radius.
FSSIM_CLASS_8   = unsigned char, float, int, FSSIM_KIND_8
FSSIM_CLASS_12  = unsigned short, unsigned, int, FSSIM_KIND_12
FSSIM_CLASS_16  = unsigned short, double, long long, FSSIM_KIND_16
FSSIM_BLOCKS_8  = FSSIM_BLOCKS_PAIR8 FSSIM_BLOCKS_DEF FSSIM_BLOCKS_ANY
FSSIM_BLOCKS_12 = FSSIM_BLOCKS_DEF FSSIM_BLOCKS_DEF FSSIM_BLOCKS_ANY
FSSIM_BLOCKS_16 = 2 2 2
FSSIM_BITS_8    = 8-bit
FSSIM_BITS_12   = 9- to 12-bit
FSSIM_BITS_16   = 13- to 16-bit

# the parts of a module's name (fssim 8 any ladder), from its target
fssim_comma  = ,
fssim_parts  = $(subst _, ,$(basename $(notdir $@)))
fssim_class  = $(word 2,$(fssim_parts))
fssim_any    = $(filter any,$(fssim_parts))
fssim_ladder = $(filter ladder,$(fssim_parts))
fssim_window = $(if $(fssim_any),any window,the default window (11))

$(FSSIM_PTX2D:%=$(SUBDIR)fssim/cuda/%.cu): TAG = GEN
$(FSSIM_PTX2D:%=$(SUBDIR)fssim/cuda/%.cu): $(SRC_PATH)/$(SUBDIR)fssim/Makefile
	$(M)printf '%s\n' \
	  '/* fssim CUDA kernels for $(FSSIM_BITS_$(fssim_class)) samples, $(fssim_window)$(if $(fssim_ladder),$(fssim_comma) ladders) */' \
	  '/* written by libavfilter/fssim/Makefile */' \
	  '#include "fssim_plane.cuh"' \
	  'FSSIM_MODULE($(FSSIM_CLASS_$(fssim_class)), $(word $(if $(fssim_any),3,$(if $(fssim_ladder),2,1)),$(FSSIM_BLOCKS_$(fssim_class))), $(if $(fssim_any),0,FSSIM_DEFAULT_RADIUS), $(if $(fssim_ladder),true,false))' > $@

$(FSSIM_PTX3D:%=$(SUBDIR)fssim/cuda/%.cu): TAG = GEN
$(FSSIM_PTX3D:%=$(SUBDIR)fssim/cuda/%.cu): $(SRC_PATH)/$(SUBDIR)fssim/Makefile
	$(M)printf '%s\n' \
	  '/* fssim3d CUDA kernels for $(fssim_window), every bit depth */' \
	  '/* written by libavfilter/fssim/Makefile */' \
	  '#include "fssim3d.cuh"' \
	  'FSSIM3D_MODULE($(if $(fssim_any),0,FSSIM_DEFAULT_RADIUS))' > $@

$(SUBDIR)fssim/cuda/fssim_resample.cu: TAG = GEN
$(SUBDIR)fssim/cuda/fssim_resample.cu: $(SRC_PATH)/$(SUBDIR)fssim/Makefile
	$(M)printf '%s\n' \
	  '/* fssim CUDA resampler: renditions and main inputs to the reference'"'"'s plane sizes and format */' \
	  '/* written by libavfilter/fssim/Makefile */' \
	  '#include "fssim_resample.cuh"' \
	  'FSSIM_RESAMPLE_MODULE()' > $@

$(SUBDIR)fssim/cuda/fssim_vmaf.cu: TAG = GEN
$(SUBDIR)fssim/cuda/fssim_vmaf.cu: $(SRC_PATH)/$(SUBDIR)fssim/Makefile
	$(M)printf '%s\n' \
	  '/* fssim CUDA kernels of vmaf_ssim and vmaf_msssim (libvmaf'"'"'s float_ssim and float_ms_ssim) */' \
	  '/* written by libavfilter/fssim/Makefile */' \
	  '#include "fssim_vmaf.cuh"' \
	  'FSSIM_VMAF_MODULE()' > $@

# The .cu files include their headers from the sources (an FFmpeg build
# outside its source tree writes them in the build tree), and FFmpeg's %.ptx
# rule knows only the .cu file: the modules are rebuilt when a kernel header
# they include changes.
$(FSSIM_MODULES:%=$(SUBDIR)fssim/cuda/%.ptx): NVCCFLAGS += -I$(SRC_PATH)/libavfilter/fssim/cuda
FSSIM_PTX_DEPS    = $(addprefix $(SRC_PATH)/$(SUBDIR)fssim/,core/fssim_consts.h $(addprefix cuda/,$(1)))
FSSIM_PTX_HEADERS = fssim_plane.cuh fssim_msssim.cuh fssim_cuda_params.h fssim_cuda_device.cuh
$(FSSIM_PTX2D:%=$(SUBDIR)fssim/cuda/%.ptx): $(call FSSIM_PTX_DEPS,$(FSSIM_PTX_HEADERS))
$(SUBDIR)fssim/cuda/fssim_resample.ptx: \
  $(call FSSIM_PTX_DEPS,fssim_resample.cuh fssim_cuda_params.h fssim_cuda_device.cuh)
$(SUBDIR)fssim/cuda/fssim_vmaf.ptx: \
  $(call FSSIM_PTX_DEPS,fssim_vmaf.cuh fssim_vmaf_cuda_params.h fssim_cuda_params.h \
                        fssim_cuda_device.cuh)
# FFmpeg's clang flags (sm_30) make clang emit PTX ISA 3.2, which has no
# shfl.sync (cuda/fssim_cuda_device.cuh, warp_xor); ISA 6.0 has, and
# every driver since CUDA 9 reads it.
ifdef CONFIG_CUDA_LLVM
$(FSSIM_PTX2D:%=$(SUBDIR)fssim/cuda/%.ptx): NVCCFLAGS += -Xclang -target-feature -Xclang +ptx60
endif
FSSIM3D_PTX_HEADERS = fssim3d.cuh fssim3d_cuda_params.h fssim_cuda_params.h fssim_cuda_device.cuh
$(FSSIM_PTX3D:%=$(SUBDIR)fssim/cuda/%.ptx): $(call FSSIM_PTX_DEPS,$(FSSIM3D_PTX_HEADERS))

# Machine code for the GPU architectures that configure's --with-cuda-sass
# listed (sass.mak, written by scripts/ffmpeg-integrate.sh): ptxas builds a
# cubin of the module's PTX for each, fatbinary bundles them (compressed),
# and the filter offers the bundle to the driver before the PTX, so that
# those GPUs skip the just-in-time compilation.  With no list, the bundle
# is empty and the PTX is loaded as before.
include $(SRC_PATH)/libavfilter/fssim/sass.mak

$(SUBDIR)fssim/cuda/%.fatbin: TAG = SASS
$(SUBDIR)fssim/cuda/%.fatbin: $(SUBDIR)fssim/cuda/%.ptx $(SRC_PATH)/$(SUBDIR)fssim/sass.mak
	$(M)set -e; images=; for a in $(FSSIM_SASS); do \
	  $(FSSIM_PTXAS) -arch=sm_$$a -o $@.sm_$$a.cubin $<; \
	  images="$$images --image3=kind=elf,sm=$$a,file=$@.sm_$$a.cubin"; \
	done; \
	$(FSSIM_FATBINARY) --create=$@ --compress-all $$images; \
	rm -f $@.sm_*.cubin

ifneq ($(strip $(FSSIM_SASS)),)
$(SUBDIR)fssim/cuda/%.sass.c: $(SUBDIR)fssim/cuda/%.fatbin $(BIN2CEXE)
	$(RUN_BIN2C)
else
$(SUBDIR)fssim/cuda/%.sass.c: TAG = SASS
$(SUBDIR)fssim/cuda/%.sass.c: $(SRC_PATH)/$(SUBDIR)fssim/sass.mak
	$(M)printf 'const unsigned char ff_%s_data[1] = { 0 };\nconst unsigned int ff_%s_len = 0;\n' \
	  $(subst .,_,$(basename $(notdir $@))) $(subst .,_,$(basename $(notdir $@))) > $@
endif
.SECONDARY: $(FSSIM_MODULES:%=$(SUBDIR)fssim/cuda/%.fatbin) \
            $(FSSIM_MODULES:%=$(SUBDIR)fssim/cuda/%.sass.c)

# A sanitizer build (fssim's configure --enable-sanitizers; sanitize.mak,
# written by scripts/ffmpeg-integrate.sh) instruments the filters and the
# ffmpeg tool, whose scheduling fssim patches, and builds the rest of FFmpeg
# as usual: its decoders and scalers are not fssim's to check, and
# instrumenting them all made that build far longer.  ASan's
# interceptors still check what FFmpeg's code copies into fssim's buffers
# (memcpy and its kin), and its allocator guards every allocation.
# The instrumented objects depend on sanitize.mak, so that a tree built
# without the sanitizers (copied by configure --with-ffmpeg-build) compiles
# them again; the programs are linked with the runtimes (the tests run the
# unstripped ffmpeg_g, whose reports name the functions).
include $(SRC_PATH)/libavfilter/fssim/sanitize.mak
ifneq ($(strip $(FSSIM_SANITIZE)),)
$(SUBDIR)fssim/%.o fftools/%.o: CFLAGS += $(FSSIM_SANITIZE)
LDFLAGS += $(FSSIM_SANITIZE_LDFLAGS)
endif
FSSIM_OBJS_ALL  = $(filter fssim/%,$(FSSIM_COMMON) $(FSSIM_CUDA) $(FSSIM_VULKAN)) \
                  fssim/vf_fssim.o fssim/vf_fssim3d.o fssim/vf_fssim_cuda.o fssim/vf_fssim_vulkan.o
FSSIM_TOOL_OBJS = $(patsubst $(SRC_PATH)/%.c,%.o,$(wildcard $(SRC_PATH)/fftools/*.c \
                                                          $(SRC_PATH)/fftools/*/*.c))
$(sort $(FSSIM_OBJS_ALL:%=$(SUBDIR)%) $(FSSIM_TOOL_OBJS:./%=%)): \
    $(SRC_PATH)/libavfilter/fssim/sanitize.mak

# The reference is plain C11; it needs no fused multiply-add (doc/algorithms.md#int).
$(SUBDIR)fssim/core/ref_%.o: CFLAGS += -ffp-contract=off

SKIPHEADERS += $(addprefix fssim/cuda/,fssim_cuda_common.h fssim_cuda_resample.h \
                 fssim_cuda_msssim.h fssim_cuda_vmaf.h) \
               $(addprefix fssim/vulkan/,fssim_vulkan_common.h fssim_vulkan_resample.h \
                 fssim_vulkan_msssim.h fssim_vulkan_vmaf.h)

clean::
	$(RM) $(foreach d,. core engine output cpu cuda vulkan,$(CLEANSUFFIXES:%=libavfilter/fssim/$(d)/%)) \
	      libavfilter/fssim/cuda/*.fatbin libavfilter/fssim/cuda/*.sass.c \
	      $(FSSIM_MODULES:%=libavfilter/fssim/cuda/%.cu)
