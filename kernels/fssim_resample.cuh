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
 * fssim CUDA kernels: the ladder's resampler (doc/algorithms.md#resampling),
 * exactly as the CPU reference computes it, so that every backend scores
 * the same samples.  Separable, horizontal pass first:
 *
 *   fssim_resample_h  one thread per (output column, source row):
 *                     h = sum q_i s_i over the column's taps, exact in int32
 *                     (the coefficient tables bound |h| below 2^31 for
 *                     16-bit samples: ref/fssim_ref.h);
 *   fssim_resample_v  one thread per output sample: v = sum q_j h_j in
 *                     int64, sample = clamp((v + 2^27) >> 28, 0, L), written
 *                     in the source's container layout (step, shift).
 *
 * The coefficient tables are computed once on the host by the reference
 * (fssim_ref_resample_axis_init) and copied to the device.
 */
#ifndef FSSIM_RESAMPLE_CUH
#define FSSIM_RESAMPLE_CUH

#include "fssim_cuda_device.cuh"

template <typename T>
static __device__ __forceinline__ void fssim_resample_h_impl(const FSSIMCudaResampleParams &p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const T *row = (const T *)(p.src + (unsigned long long)y * p.src_pitch);
    const int *start = (const int *)p.xstart, *coef = (const int *)p.xcoef;
    int h = 0;

    if (x >= p.out_w || y >= p.in_h)
        return;
    for (int k = 0; k < p.xtaps; k++) {
        int i = start[x] + k;
        i = i < 0 ? 0 : i >= p.in_w ? p.in_w - 1 : i;
        h += coef[x * p.xtaps + k] * (int)((unsigned)row[i * p.step] >> p.shift);
    }
    ((int *)p.tmp)[(size_t)y * p.out_w + x] = h;
}

template <typename T>
static __device__ __forceinline__ void fssim_resample_v_impl(const FSSIMCudaResampleParams &p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int *start = (const int *)p.ystart, *coef = (const int *)p.ycoef;
    const int *tmp = (const int *)p.tmp;
    long long v = 0, s;

    if (x >= p.out_w || y >= p.out_h)
        return;
    for (int k = 0; k < p.ytaps; k++) {
        int j = start[y] + k;
        j = j < 0 ? 0 : j >= p.in_h ? p.in_h - 1 : j;
        v += (long long)coef[y * p.ytaps + k] * tmp[(size_t)j * p.out_w + x];
    }
    /* an arithmetic shift: floor division by 2^28, v may be negative */
    s = (v + (1LL << (2 * FSSIM_RESAMPLE_BITS - 1))) >> (2 * FSSIM_RESAMPLE_BITS);
    s = s < 0 ? 0 : s > p.max ? p.max : s;
    ((T *)(p.dst + (unsigned long long)y * p.dst_pitch))[x * p.step] = (T)(s << p.shift);
}

#endif /* FSSIM_RESAMPLE_CUH */
