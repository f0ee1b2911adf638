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
 * fssim3d CUDA kernels: the parameter blocks shared by the host (C) and the
 * kernels (CUDA C++), and the sizes both sides derive from them.  Fixed-size
 * types only, doubles and 64-bit values first, so that gcc on the host and
 * nvcc / clang on the device lay them out alike.
 *
 * The ring of moments (the one full-size intermediate that doc/algorithms.md#fssim3d allows) holds, per frame
 * slot and component, one FSSIM3D_MOMENTS-float record per scored position:
 *   mu_a, mu_b            local means (raw sample units)
 *   var_a + var_b         sum of the local variances
 *   cov                   local covariance
 * the SSIM formula needs the variances only as their sum.  The variances are
 * stored centred (not as E[a^2]): fp32 then keeps them to ~6e-8 relative,
 * while a raw E[a^2] in fp32 would lose everything below 2^-24 mu^2.
 */
#ifndef FSSIM3D_CUDA_PARAMS_H
#define FSSIM3D_CUDA_PARAMS_H

#include "fssim_cuda_params.h"

#define FSSIM3D_CUDA_MAX_TAPS   63   /* FSSIM3D_MAX_DEPTH */
#define FSSIM3D_MOMENTS         4    /* floats per scored position */

/* The spatial pass: FSSIM_TILE x FSSIM_TILE scored positions per block of
 * FSSIM_TILE x (FSSIM_THREADS / FSSIM_TILE) threads. */
#define FSSIM3D_HCOLS  4             /* outputs per horizontal work item */
#define FSSIM3D_VROWS  (FSSIM_TILE * FSSIM_TILE / FSSIM_THREADS)

/* The temporal pass: FSSIM_THREADS threads, each FSSIM3D_SCORE_PER_THREAD
 * positions FSSIM_THREADS apart, so a block scores FSSIM3D_SCORE_CHUNK
 * consecutive positions. */
#define FSSIM3D_SCORE_PER_THREAD 4
#define FSSIM3D_SCORE_CHUNK (FSSIM_THREADS * FSSIM3D_SCORE_PER_THREAD)

/* Spatial moments of one component of one frame pair, into a ring slot. */
typedef struct FSSIM3DCudaMomentParams {
    double g[2 * FSSIM_MAX_RADIUS + 1];   /* normalised Gaussian weights */
    unsigned long long main_ptr, ref_ptr;  /* first sample of the component */
    unsigned long long out;                /* float[FSSIM3D_MOMENTS] per position */
    int main_pitch, ref_pitch;             /* bytes */
    int width, height;                     /* plane, in samples */
    int out_w, out_h;                      /* scored positions */
    int bytes;                             /* container size: 1 or 2 */
    int step;                              /* containers between samples */
    int shift;                             /* right shift to the value */
    int radius;
    int offset;                            /* plane x/y of scored position 0: radius
                                              under padding=valid, 0 under same */
    int main_bytes, main_step, main_shift; /* main's layout: the reference's, or a
                                              resampled main's plane (2, 1, 0) */
} FSSIM3DCudaMomentParams;

/* The temporal window of the frame being scored: the taps of non-zero
 * weight, in window order, with their ring slots as byte offsets.  Copied
 * to device memory per scored frame (kernel parameters indexed at run time
 * would be copied to local memory by clang). */
typedef struct FSSIM3DCudaWindow {
    double wt[FSSIM3D_CUDA_MAX_TAPS];
    unsigned long long slot_offset[FSSIM3D_CUDA_MAX_TAPS];
} FSSIM3DCudaWindow;

/* The scores of one component of one frame from the ring slots of its
 * temporal window. */
typedef struct FSSIM3DCudaScoreParams {
    double c1, c2;                  /* (0.01 L)^2, (0.03 L)^2 */
    unsigned long long window;      /* FSSIM3DCudaWindow */
    unsigned long long moments;     /* the component's records in slot 0 */
    unsigned long long partials;    /* double per block */
    int n;                          /* scored positions */
    int nb_taps;
    int part_offset;                /* first block's partial */
    int pad;
} FSSIM3DCudaScoreParams;

/* The final sums: one block per component adds its blocks' partials. */
typedef struct FSSIM3DCudaSumParams {
    unsigned long long partials;   /* double per score block */
    unsigned long long out;        /* double per component */
    int offset[4], count[4];
} FSSIM3DCudaSumParams;

FSSIM_CHECK_LAYOUT(FSSIM3DCudaMomentParams, 200, main_shift, 196);
FSSIM_CHECK_LAYOUT(FSSIM3DCudaWindow, 1008, slot_offset, 504);
FSSIM_CHECK_LAYOUT(FSSIM3DCudaScoreParams, 56, pad, 52);
FSSIM_CHECK_LAYOUT(FSSIM3DCudaSumParams, 48, count, 32);

/* Dynamic shared memory of the spatial pass at radius r: the tile and halo
 * of both planes as float (exact up to 16 bits), then the horizontal sums as
 * double, 4 per position (E[a], E[b], E[a^2 + b^2], E[ab]).  57 KiB at the
 * default radius 5, 63 KiB at the largest, 7: three blocks per SM. */
FSSIM_HD int fssim3d_region(int r)
{
    return FSSIM_TILE + 2 * r;
}

FSSIM_HD int fssim3d_smem_hsums(int r)
{
    return fssim_align8(2 * 4 * fssim3d_region(r) * fssim3d_region(r));
}

FSSIM_HD int fssim3d_smem_bytes(int r)
{
    return fssim3d_smem_hsums(r) + 4 * fssim3d_region(r) * FSSIM_TILE * 8;
}

/** Blocks of the temporal pass for n positions. */
FSSIM_HD int fssim3d_score_blocks(int n)
{
    return (n + FSSIM3D_SCORE_CHUNK - 1) / FSSIM3D_SCORE_CHUNK;
}

/**
 * Fill the constant part of the spatial parameters of one component (all
 * but the sample pointers and pitches, which change per frame, and out);
 * main is laid out as the reference (the caller sets main_* for a
 * resampled main).
 * Host code with no FFmpeg dependency (fssim_cuda_params_host.c).
 */
void ff_fssim3d_cuda_fill_moment_params(FSSIM3DCudaMomentParams *p, int width, int height,
                                        int bytes, int step, int shift, int window,
                                        double sigma, int same_padding);

#endif /* FSSIM3D_CUDA_PARAMS_H */
