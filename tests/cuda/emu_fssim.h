/*
 * fssim_cuda's kernel entry points as the CPU emulator runs them: one per
 * sample class (the classes of kernels/fssim_{8,12,16}.cu) and window
 * radius (0: any window), and the reduction.  Shared by the kernel test and
 * the stand-in CUDA driver, so both run exactly the instantiations the
 * filter's PTX modules hold.  Include after emu.h.
 *
 * This file is part of fssim's tests.
 */
#ifndef FSSIM_TESTS_EMU_FSSIM_H
#define FSSIM_TESTS_EMU_FSSIM_H

#include "fssim_plane.cuh"

template <int RF> static void plane_8(FSSIMCudaParams p)
{ fssim_plane<unsigned char, float, int, FSSIM_KIND_8, RF>(p); }
template <int RF> static void plane_12(FSSIMCudaParams p)
{ fssim_plane<unsigned short, unsigned, int, FSSIM_KIND_12, RF>(p); }
template <int RF> static void plane_16(FSSIMCudaParams p)
{ fssim_plane<unsigned short, double, long long, FSSIM_KIND_16, RF>(p); }
static void reduce(FSSIMCudaReduceParams p) { fssim_reduce_impl(p); }

#endif /* FSSIM_TESTS_EMU_FSSIM_H */
