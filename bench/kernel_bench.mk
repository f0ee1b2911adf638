# Kernel-only benchmark of the CUDA kernels through the driver API, as the
# filter runs them (needs the CUDA toolkit's headers and libcuda stub to
# build; runs where an NVIDIA driver is).
#   make -C bench -f kernel_bench.mk [CUDA=/usr/local/cuda]
CUDA ?= /usr/local/cuda
TOP = ..
CORE = $(TOP)/filters/core
CUDA_SRC = $(TOP)/filters/cuda
REF = $(CORE)/ref_plane.c $(CORE)/ref_int.c $(CORE)/ref_float.c \
      $(CORE)/ref_block.c $(CORE)/ref_3d.c $(CUDA_SRC)/fssim_cuda_params_host.c

kernel_bench: kernel_bench.cu $(CUDA_SRC)/fssim_cuda_params.h $(REF)
	rm -rf kb_obj && mkdir kb_obj
	for f in $(REF); do gcc -std=c11 -O2 -ffp-contract=off -I$(CORE) -I$(CUDA_SRC) \
	    -c $$f -o kb_obj/$$(basename $$f .c).o || exit 1; done
	g++ -std=c++14 -O2 -x c++ -I$(CUDA)/include -I$(CUDA_SRC) -I$(CORE) kernel_bench.cu -x none \
	    kb_obj/*.o -L$(CUDA)/lib64/stubs -lcuda -o $@
	rm -rf kb_obj

clean:
	rm -rf kernel_bench kb_obj
.PHONY: clean
