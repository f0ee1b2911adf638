/*
 * Copyright (c) 2026 the fssim developers
 *
 * This file is part of fssim, built into FFmpeg.
 *
 * fssim is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * fssim is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Lesser General Public License for more details.
 *
 * You should have received a copy of the GNU Lesser General Public
 * License along with fssim; if not, write to the Free Software
 * Foundation, Inc., 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA
 */

/*
 * fssim_cuda's kernel entry points as the CPU emulator runs them: one per
 * sample class (the classes of filters/cuda/fssim_{8,12,16}.cu) and window
 * radius (0: any window), the reduction, the resampler per pair of
 * containers,
 * msssim's scale pass (per container and radius) and reduction, and the
 * vmaf_ssim / vmaf_msssim kernels.  Shared by the kernel test and
 * the stand-in CUDA driver, so both run exactly the instantiations the
 * filter's PTX modules hold.  Include after emu.h.
 *
 * This file is part of fssim's tests.
 */
#ifndef FSSIM_TESTS_EMU_FSSIM_H
#define FSSIM_TESTS_EMU_FSSIM_H

#include "fssim_plane.cuh"
#include "fssim_resample.cuh"
#include "fssim_vmaf.cuh"

/* L: a ladder module's fssim_plane (every rendition) rather than a lone pair's (the first) */
template <int RF, bool L = false> static void plane_8(FSSIMCudaParams p)
{ fssim_plane<unsigned char, float, int, FSSIM_KIND_8, RF, L>(p); }
template <int RF, bool L = false> static void plane_12(FSSIMCudaParams p)
{ fssim_plane<unsigned short, unsigned, int, FSSIM_KIND_12, RF, L>(p); }
template <int RF, bool L = false> static void plane_16(FSSIMCudaParams p)
{ fssim_plane<unsigned short, double, long long, FSSIM_KIND_16, RF, L>(p); }
static void reduce(FSSIMCudaReduceParams p) { fssim_reduce_impl(p); }
/* S: the rendition's container, T: the one written (the reference's) */
template <typename S, typename T> static void resample(FSSIMCudaResampleParams p)
{ fssim_resample_impl<S, T>(p); }
template <typename T, int RF> static void ms_scale(FSSIMCudaMsParams p)
{ fssim_ms_scale_impl<T, RF>(p); }
static void ms_reduce(FSSIMCudaMsReduceParams p) { fssim_ms_reduce_impl(p); }
/* T: the frames' container */
template <typename T> static void vmaf_load(FSSIMCudaVmafLoadParams p)
{ fssim_vmaf_load_impl<T>(p); }
static void vmaf_lpf(FSSIMCudaVmafLpfParams p) { fssim_vmaf_lpf_impl(p); }
static void vmaf_score(FSSIMCudaVmafScoreParams p) { fssim_vmaf_score_impl(p); }
static void vmaf_reduce(FSSIMCudaVmafReduceParams p) { fssim_vmaf_reduce_impl(p); }

#endif /* FSSIM_TESTS_EMU_FSSIM_H */
