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
 * fssim: algo=vmaf_ssim and vmaf_msssim on CUDA frames (fssim_cuda_vmaf.c,
 * fssim_vmaf.cuh), which the CUDA backend launches after its other
 * kernels of a job, into the job's result slot.
 */
#ifndef AVFILTER_FSSIM_CUDA_VMAF_H
#define AVFILTER_FSSIM_CUDA_VMAF_H

#include "../engine/fssim_backend.h"
#include "fssim_cuda_common.h"

typedef struct FSSIMCudaVmaf FSSIMCudaVmaf;

/* Where an image's components lie on the device: a frame's planes, or a
 * resampled rendition's (the reference's layout either way). */
typedef struct FSSIMCudaVmafImage {
    CUdeviceptr ptr[4];     /* each component's first sample */
    int         pitch[4];   /* bytes */
} FSSIMCudaVmafImage;

/** Whether the engine asks for vmaf_ssim or vmaf_msssim. */
int    ff_fssim_cuda_vmaf_wanted(const FSSIMEngine *e);

/** Load the module, allocate the float planes of the reference and of one
 *  rendition at a time and the blocks' partial sums.  Context pushed.
 *  *vm is freed by ff_fssim_cuda_vmaf_uninit() whatever this returns. */
int    ff_fssim_cuda_vmaf_init(FSSIMEngine *e, FSSIMCuda *c, FSSIMCudaVmaf **vm);

/** Bytes of a result slot it writes (every rendition's sums). */
size_t ff_fssim_cuda_vmaf_slot_bytes(const FSSIMEngine *e, const FSSIMCudaVmaf *vm);

/**
 * On the filter's stream: the reference's planes, then for each rendition
 * k in ks[0 .. n-1] its planes, its scores and their sums into results
 * (the slot's first byte of this module's share).  Context pushed.
 */
int    ff_fssim_cuda_vmaf_launch(FSSIMEngine *e, FSSIMCuda *c, FSSIMCudaVmaf *vm,
                                 const FSSIMCudaVmafImage *ref, const FSSIMCudaVmafImage *dist,
                                 const int *ks, int n, CUdeviceptr results);

/** Rendition k's vmaf parts of each component from a slot's share. */
void   ff_fssim_cuda_vmaf_read(const FSSIMEngine *e, const FSSIMCudaVmaf *vm, const double *r,
                               int k, FSSIMSum (*v)[FSSIM_NB_PARTS]);

/** Free the buffers and the module (context not pushed). */
void   ff_fssim_cuda_vmaf_uninit(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaVmaf **vm);

#endif /* AVFILTER_FSSIM_CUDA_VMAF_H */
