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
 * fssim: the resampling of renditions of another size or format on CUDA
 * frames (fssim_cuda_resample.c, fssim_resample.cuh), which the CUDA
 * backend launches before the scoring of each job, and fssim3d's before a
 * pair's moments: each into a frame of the reference's size, depth and
 * layout in device memory.
 */
#ifndef AVFILTER_FSSIM_CUDA_RESAMPLE_H
#define AVFILTER_FSSIM_CUDA_RESAMPLE_H

#include "../engine/fssim_backend.h"
#include "fssim_cuda_common.h"
#include "fssim_cuda_params.h"

/* A resampled rendition: the frame it is resampled into (at the
 * reference's size and depth, in its layout; fssim3d: planes of 16-bit
 * values), and its launch: the kernel for the rendition's container. */
typedef struct FSSIMCudaResampled {
    CUdeviceptr data[4];
    int         pitch[4];
    CUfunction  func;
    FSSIMCudaResampleParams rp;
    int         nb_blocks;
} FSSIMCudaResampled;

/* Every resampled rendition's frame and launch, and their tables. */
typedef struct FSSIMCudaResampler {
    FSSIMCudaResampled rs[FSSIM_MAX_DIST];
    CUdeviceptr tables;                 /* every axis's coefficients and bands */
} FSSIMCudaResampler;

/** Component c of a resampled frame: the reference's layout, which the
 *  fused kernels read; fssim3d's moments take a plane of 16-bit values per
 *  component instead, whatever the depth, read with main_bytes 2. */
FSSIMPlane ff_fssim_cuda_resampled_plane(const FSSIMEngine *e, int c);

/** The frames resampled renditions are scored from, the coefficient tables
 *  and bands on the device, and the resampler's launches; nothing where no
 *  rendition is resampled.  Context pushed. */
int  ff_fssim_cuda_resample_init(FSSIMEngine *e, FSSIMCuda *c, FSSIMCudaResampler *r);

/** Resample rendition k's frame into its frame at the reference's size, on
 *  the filter's stream.  Context pushed. */
int  ff_fssim_cuda_resample_launch(FSSIMEngine *e, FSSIMCuda *c, FSSIMCudaResampler *r, int k,
                                   const AVFrame *dist);

/** Free the frames and the tables.  Context pushed. */
void ff_fssim_cuda_resample_uninit(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaResampler *r);

#endif /* AVFILTER_FSSIM_CUDA_RESAMPLE_H */
