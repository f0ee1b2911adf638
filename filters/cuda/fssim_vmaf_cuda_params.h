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
 * fssim CUDA kernels of vmaf_ssim and vmaf_msssim (fssim_vmaf.cuh):
 * the parameter blocks shared by the host (C) and the kernels (CUDA C++),
 * laid out as fssim_cuda_params.h's are (fixed-size types, 8-byte members first).
 */
#ifndef FSSIM_VMAF_CUDA_PARAMS_H
#define FSSIM_VMAF_CUDA_PARAMS_H

#include "fssim_cuda_params.h"

/* The planes of one image a launch reads or writes: vmaf_ssim's and
 * vmaf_msssim's of each component. */
#define FSSIM_VMAF_MAX_JOBS  (4 * (1 + FSSIM_VMAF_SCALES))
/* What the scoring adds up per job: l c s, l, c, s (filters/core/fssim_ref.h) */
#define FSSIM_VMAF_SUMS      4
/* The scoring's output tile and the block's shared memory: both planes'
 * tile and halo, then the five moments' horizontal sums */
#define FSSIM_VMAF_TILE      32
#define FSSIM_VMAF_REGION    (FSSIM_VMAF_TILE + 2 * FSSIM_VMAF_RADIUS)
#define FSSIM_VMAF_SMEM      (4 * (2 * FSSIM_VMAF_REGION * FSSIM_VMAF_REGION + \
                                   5 * FSSIM_VMAF_REGION * FSSIM_VMAF_TILE))

/* fssim_vmaf_load_<8|16>: one plane to libvmaf's floats, decimated by f
 * (1: the samples themselves), one thread per output sample. */
typedef struct FSSIMCudaVmafLoad {
    unsigned long long src;         /* the component's first sample */
    unsigned long long dst;         /* float plane, dst_w floats a row */
    int src_pitch;                  /* bytes */
    int step, shift;                /* containers between samples, right shift to the value */
    int width, height;              /* the source's */
    int f;                          /* decimation factor */
    float k;                        /* 1 / (f f), as a float */
    int dst_w, dst_h;
    int first_block;
} FSSIMCudaVmafLoad;

typedef struct FSSIMCudaVmafLoadParams {
    FSSIMCudaVmafLoad job[8];       /* per component: vmaf_ssim's plane, vmaf_msssim's scale 0 */
    float inv;                      /* 2^-(depth - 8): libvmaf's 8-bit scale */
    int nb_jobs;
} FSSIMCudaVmafLoadParams;

/* fssim_vmaf_lpf: scale j of vmaf_msssim from scale j - 1, every component. */
typedef struct FSSIMCudaVmafLpf {
    unsigned long long src, dst;    /* float planes, rows of their width */
    int src_w, src_h, dst_w, dst_h;
    int first_block, pad;
} FSSIMCudaVmafLpf;

typedef struct FSSIMCudaVmafLpfParams {
    FSSIMCudaVmafLpf job[4];
    float lpf[FSSIM_VMAF_LPF_TAPS * FSSIM_VMAF_LPF_TAPS];
    int nb_jobs;
} FSSIMCudaVmafLpfParams;

/* fssim_vmaf_score: l, c, s of the valid positions of plane pairs, a
 * FSSIM_VMAF_TILE square per block, FSSIM_VMAF_SUMS partial sums per block. */
typedef struct FSSIMCudaVmafScore {
    unsigned long long a, b;        /* the rendition's and the reference's float planes */
    int width, height;              /* the planes' */
    int tiles_x, first_block;
} FSSIMCudaVmafScore;

typedef struct FSSIMCudaVmafScoreParams {
    FSSIMCudaVmafScore job[FSSIM_VMAF_MAX_JOBS];
    unsigned long long partials;    /* double [FSSIM_VMAF_SUMS] per block */
    float c[3];                     /* C1, C2, C3 */
    float g[FSSIM_VMAF_WINDOW];
    int nb_jobs;
    int pad;
} FSSIMCudaVmafScoreParams;

/* fssim_vmaf_reduce: one block per job, its blocks' partial sums in a
 * fixed order into out[job * FSSIM_VMAF_SUMS ...]. */
typedef struct FSSIMCudaVmafReduceParams {
    unsigned long long partials, out;
    int first[FSSIM_VMAF_MAX_JOBS], count[FSSIM_VMAF_MAX_JOBS];
    int nb_jobs;
    int pad;
} FSSIMCudaVmafReduceParams;

FSSIM_CHECK_LAYOUT(FSSIMCudaVmafLoad, 56, first_block, 52);
FSSIM_CHECK_LAYOUT(FSSIMCudaVmafLoadParams, 456, nb_jobs, 452);
FSSIM_CHECK_LAYOUT(FSSIMCudaVmafLpf, 40, pad, 36);
FSSIM_CHECK_LAYOUT(FSSIMCudaVmafLpfParams, 488, nb_jobs, 484);
FSSIM_CHECK_LAYOUT(FSSIMCudaVmafScore, 32, first_block, 28);
FSSIM_CHECK_LAYOUT(FSSIMCudaVmafScoreParams, 840, pad, 836);
FSSIM_CHECK_LAYOUT(FSSIMCudaVmafReduceParams, 216, pad, 212);

#endif /* FSSIM_VMAF_CUDA_PARAMS_H */
