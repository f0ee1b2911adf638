# Kernel-only benchmark of the CUDA kernels (needs nvcc; runs on the GPU).
#   make -C bench -f kernel_bench.mk [CUDA_ARCH=sm_90]
NVCC ?= nvcc
CUDA_ARCH ?= sm_90
TOP = ..
REF = $(TOP)/ref/ref_plane.c $(TOP)/ref/ref_int.c $(TOP)/ref/ref_float.c \
      $(TOP)/ref/ref_block.c $(TOP)/ref/ref_3d.c $(TOP)/filters/fssim_cuda_params.c

kernel_bench: kernel_bench.cu $(TOP)/kernels/fssim.cu $(TOP)/kernels/fssim_cuda.h \
              $(TOP)/kernels/fssim_cuda_device.cuh $(REF)
	rm -rf kb_obj && mkdir kb_obj
	for f in $(REF); do gcc -std=c11 -O2 -ffp-contract=off -I$(TOP)/ref -I$(TOP)/kernels \
	    -c $$f -o kb_obj/$$(basename $$f .c).o || exit 1; done
	$(NVCC) -O2 -arch=$(CUDA_ARCH) -I$(TOP)/kernels -I$(TOP)/ref kernel_bench.cu kb_obj/*.o -o $@
	rm -rf kb_obj

clean:
	rm -rf kernel_bench kb_obj
.PHONY: clean
