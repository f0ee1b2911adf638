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
 * fssim: the constants that the CPU reference (C), the filters (C), the
 * CUDA kernels (CUDA C++) and the Vulkan shaders (GLSL) must agree on.
 * Preprocessor definitions only, so that all four languages include this
 * one file: a value changed here changes everywhere, and nothing agrees
 * "because the numbers happen to match".
 */
#ifndef FSSIM_CONSTS_H
#define FSSIM_CONSTS_H

/* ---- algorithms --------------------------------------------------------
 * The index of an algorithm is its bit in the `algo` option (1 << index)
 * and in the kernels' and shaders' algorithm masks; its row in the table of
 * algorithms (fssim_algos.h) gives its sum parts. */
#define FSSIM_ALGO_FLOAT   0
#define FSSIM_ALGO_INT     1
#define FSSIM_ALGO_BLOCK   2
#define FSSIM_ALGO_PSNR    3
#define FSSIM_ALGO_MSSSIM  4
#define FSSIM_ALGO_VMAF_SSIM   5
#define FSSIM_ALGO_VMAF_MSSSIM 6
#define FSSIM_NB_ALGOS     7
#define FSSIM_BIT(algo)    (1 << (algo))
/* the algorithms of the GPU backends' fused single-scale pass: float, int,
 * block and psnr, the indices below msssim's */
#define FSSIM_FUSED_ALGOS  (FSSIM_BIT(FSSIM_ALGO_MSSSIM) - 1)

/* ---- ladders: one reference and up to FSSIM_MAX_DIST renditions --------- */
#define FSSIM_MAX_DIST     16

/* ---- per-plane sums a backend returns ------------------------------------
 * float, int, block: the sums of the per-position terms; sse: the exact
 * sum of squared differences (a 64-bit integer); msssim: the sums of the
 * SSIM and contrast-structure maps at each scale. */
#define FSSIM_PART_FLOAT   FSSIM_ALGO_FLOAT
#define FSSIM_PART_INT     FSSIM_ALGO_INT
#define FSSIM_PART_BLOCK   FSSIM_ALGO_BLOCK
#define FSSIM_PART_SSE     FSSIM_ALGO_PSNR
#define FSSIM_MS_SCALES    5
#define FSSIM_PART_MS_S(j)  (4 + 2 * (j))     /* SSIM map sum at scale j */
#define FSSIM_PART_MS_CS(j) (5 + 2 * (j))     /* contrast-structure map sum */
/* vmaf_ssim: the sum of l c s over the scored positions; vmaf_msssim: the
 * sums of l, c and s (t = 0, 1, 2) at each scale j */
#define FSSIM_PART_VMAF_SSIM     (4 + 2 * FSSIM_MS_SCALES)
#define FSSIM_PART_VMAF_MS(j, t) (FSSIM_PART_VMAF_SSIM + 1 + 3 * (j) + (t))
#define FSSIM_NB_PARTS     (FSSIM_PART_VMAF_SSIM + 1 + 3 * FSSIM_VMAF_SCALES)
/* the parts of the fused single-scale pass: float, int, block, sse */
#define FSSIM_NB_FUSED_PARTS 4

/* ---- int: the integer SSIM of Daala / libvmaf ---------------------------- */
#define FSSIM_INT_RADIUS   4
#define FSSIM_INT_TAPS     2, 9, 28, 55, 68, 55, 28, 9, 2
/* FSSIM_INT_TAP_SUMS[i]: the sum of the first i taps */
#define FSSIM_INT_TAP_SUMS 0, 2, 11, 39, 94, 162, 217, 245, 254, 256
#define FSSIM_INT_TAP_SUM  256

/* ---- float: Gaussian window --------------------------------------------- */
#define FSSIM_MIN_WINDOW     3
#define FSSIM_MAX_WINDOW     15
#define FSSIM_MAX_RADIUS     7       /* (FSSIM_MAX_WINDOW - 1) / 2 */
#define FSSIM_DEFAULT_WINDOW 11
#define FSSIM_DEFAULT_RADIUS 5
#define FSSIM_DEFAULT_SIGMA  1.5

/* ---- SSIM constants, from L = 2^depth - 1 (host code, in double) ---------
 * K1 = 0.01, K2 = 0.03 (Wang et al.).  Each algorithm keeps the association
 * its definition (or the implementation it reproduces) uses, since the last
 * bit matters for exact agreement:
 *   int:   c = L*L*(K*K), multiplied by W*W per position (libvmaf);
 *   float: C = (K*L)^2 on raw sample values (scikit-image, pytorch-msssim);
 *   block: vf_ssim.c's integer constants, rounded from these products. */
#define FSSIM_K1 0.01
#define FSSIM_K2 0.03
#define FSSIM_INT_C1BASE(L)   ((L) * (L) * (FSSIM_K1 * FSSIM_K1))
#define FSSIM_INT_C2BASE(L)   ((L) * (L) * (FSSIM_K2 * FSSIM_K2))
#define FSSIM_FLOAT_C1(L)     ((FSSIM_K1 * (L)) * (FSSIM_K1 * (L)))
#define FSSIM_FLOAT_C2(L)     ((FSSIM_K2 * (L)) * (FSSIM_K2 * (L)))
#define FSSIM_BLOCK_C1(max)   (.01 * .01 * (max) * (max) * 64 + .5)
#define FSSIM_BLOCK_C2(max)   (.03 * .03 * (max) * (max) * 64 * 63 + .5)

/* ---- vmaf_ssim, vmaf_msssim: libvmaf's float_ssim and float_ms_ssim ------
 * (doc/algorithms.md#vmaf_ssim): an 11-tap Gaussian window; five scales
 * built by a 9x9 low-pass filter at every second sample; planes of
 * float_ms_ssim at least 11 << 4 samples a side. */
#define FSSIM_VMAF_WINDOW    11
#define FSSIM_VMAF_RADIUS    5
#define FSSIM_VMAF_SCALES    5
#define FSSIM_VMAF_LPF_TAPS  9
#define FSSIM_VMAF_MS_MIN_SIDE (FSSIM_VMAF_WINDOW << (FSSIM_VMAF_SCALES - 1))

/* ---- block: FFmpeg's ssim filter -------------------------------------- */
#define FSSIM_BLOCK_MIN_SIZE 8       /* one 8x8 window */

/* ---- the resampler: its coefficients' fractional bits, rounding, bands -- */
#define FSSIM_RESAMPLE_BITS  14
/* The final rounding shift of a resampled sample, v = sum q_j h_j carrying
 * 2 * FSSIM_RESAMPLE_BITS fractional bits: (v + 2^(shift - 1)) >> shift,
 * which also brings a rendition of in_depth bits to the reference's
 * out_depth (a shift of 28 - (out_depth - in_depth), 20 to 36 bits). */
#define FSSIM_RESAMPLE_SHIFT(in_depth, out_depth) (2 * FSSIM_RESAMPLE_BITS - (out_depth) + (in_depth))
/* Source rows a GPU resampler's block or workgroup holds in shared memory
 * for its tile (its band): enough for 32-row tiles of any upscale and of a
 * 2:1 downscale.  Where a tile's rows need more, tiles take fewer rows,
 * down to one; an axis with more taps than that (downscales beyond 16:1
 * with lanczos, 24:1 with bicubic) takes the direct path, each output
 * reading its source rows itself. */
#define FSSIM_RESAMPLE_SPAN  96

/* ---- tiles of the GPU passes ------------------------------------------- */
#define FSSIM_CUDA_TILE      32      /* output tile side, CUDA */
#define FSSIM_CUDA_THREADS   256     /* threads per CUDA block */
#define FSSIM_VK_TILE_W      16      /* Vulkan workgroup tile, a multiple of 4 */
#define FSSIM_VK_TILE_H      16
#define FSSIM_VK_TILES       4       /* tiles a fused workgroup scores, one below the other */
/* output rows of a resampler tile, at most: four per invocation */
#define FSSIM_VK_RESAMPLE_ROWS (4 * FSSIM_VK_TILE_H)
/* fssim3d's temporal pass on Vulkan: the taps of the window buffer
 * (FSSIM3D_MAX_DEPTH + 1: a pass of two frames) and the positions per
 * invocation (2: with two frames' accumulators, 4 was slower,
 * doc/performance.md#vulkan-fssim3d) */
#define FSSIM3D_VK_MAX_TAPS  64
#define FSSIM3D_VK_SCORE_PER 2

#endif /* FSSIM_CONSTS_H */
