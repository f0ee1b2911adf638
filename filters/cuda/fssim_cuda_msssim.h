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
 * fssim: algo=msssim on CUDA frames (fssim_cuda_msssim.c,
 * fssim_msssim.cuh), which the CUDA backend launches for each rendition of
 * a job, into its share of the job's result slot.
 */
#ifndef AVFILTER_FSSIM_CUDA_MSSSIM_H
#define AVFILTER_FSSIM_CUDA_MSSSIM_H

#include "../engine/fssim_backend.h"
#include "fssim_cuda_common.h"
#include "fssim_cuda_resample.h"

typedef struct FSSIMCudaMsssim FSSIMCudaMsssim;

/**
 * The launches of every scale (their kernels are in the filter's module),
 * their float planes and the blocks' partial records.  Context pushed.
 * *ms is freed by ff_fssim_cuda_msssim_uninit() whatever this returns.
 */
int    ff_fssim_cuda_msssim_init(FSSIMEngine *e, FSSIMCuda *c, FSSIMCudaMsssim **ms);

/** Bytes of a result slot it writes (every rendition's sums). */
size_t ff_fssim_cuda_msssim_slot_bytes(const FSSIMEngine *e);

/**
 * Rendition k on the filter's stream: the five scales of its frame (or of
 * rs, its frame resampled to the reference's size, where it is resampled)
 * against ref's, then their reduction into results (the slot's first byte
 * of this module's share).  Context pushed.
 */
int    ff_fssim_cuda_msssim_launch(FSSIMEngine *e, FSSIMCuda *c, FSSIMCudaMsssim *ms, int k,
                                   const AVFrame *ref, const AVFrame *dist,
                                   const FSSIMCudaResampled *rs, CUdeviceptr results);

/** The S and CS sums of each scale of plane c of rendition k, from a
 *  slot's share. */
void   ff_fssim_cuda_msssim_read(const FSSIMEngine *e, const double *r, int k, int c,
                                 FSSIMSum *v);

/** Free the planes and the partial records (context not pushed). */
void   ff_fssim_cuda_msssim_uninit(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaMsssim **ms);

#endif /* AVFILTER_FSSIM_CUDA_MSSSIM_H */
