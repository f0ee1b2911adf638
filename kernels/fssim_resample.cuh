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

/* Source sample i of a row, clamped to the row (edge replication). */
template <typename T>
static __device__ __forceinline__ int tap_h(const FSSIMCudaResampleParams &p, const T *row, int i)
{
    i = i < 0 ? 0 : i >= p.in_w ? p.in_w - 1 : i;
    return (int)((unsigned)row[i * p.step] >> p.shift);
}

/* The horizontal pass's value j rows down a column, clamped likewise. */
static __device__ __forceinline__ int tap_v(const FSSIMCudaResampleParams &p, const int *tmp, int j)
{
    j = j < 0 ? 0 : j >= p.in_h ? p.in_h - 1 : j;
    return tmp[(size_t)j * p.out_w];
}

/*
 * NT: the taps of the axis when known at compile time (0: p.xtaps or
 * p.ytaps, in a loop).  Known, the loop unrolls and a thread issues all its
 * loads at once: the passes wait on memory, not on arithmetic.
 */
template <typename T, int NT>
static __device__ __forceinline__ void resample_h(const FSSIMCudaResampleParams &p, int x, int y)
{
    const T *row = (const T *)(p.src + (unsigned long long)y * p.src_pitch);
    const int n = NT ? NT : p.xtaps;
    const int *coef = (const int *)p.xcoef + x * n;
    const int first = ((const int *)p.xstart)[x];
    int h = 0;

    if (NT) {
#pragma unroll
        for (int k = 0; k < NT; k++)
            h += coef[k] * tap_h<T>(p, row, first + k);
    } else {
        for (int k = 0; k < n; k++)
            h += coef[k] * tap_h<T>(p, row, first + k);
    }
    ((int *)p.tmp)[(size_t)y * p.out_w + x] = h;
}

template <typename T, int NT>
static __device__ __forceinline__ void resample_v(const FSSIMCudaResampleParams &p, int x, int y)
{
    const int n = NT ? NT : p.ytaps;
    const int *coef = (const int *)p.ycoef + y * n;
    const int first = ((const int *)p.ystart)[y];
    const int *tmp = (const int *)p.tmp + x;
    long long v = 0, s;

    if (NT) {
#pragma unroll
        for (int k = 0; k < NT; k++)
            v += (long long)coef[k] * tap_v(p, tmp, first + k);
    } else {
        for (int k = 0; k < n; k++)
            v += (long long)coef[k] * tap_v(p, tmp, first + k);
    }
    /* an arithmetic shift: floor division by 2^28, v may be negative */
    s = (v + (1LL << (2 * FSSIM_RESAMPLE_BITS - 1))) >> (2 * FSSIM_RESAMPLE_BITS);
    s = s < 0 ? 0 : s > p.max ? p.max : s;
    ((T *)(p.dst + (unsigned long long)y * p.dst_pitch))[x * p.step] = (T)(s << p.shift);
}

/* Unrolled: an axis of the reference's size (1 tap), and bilinear, bicubic
 * and lanczos upscaling (2, 4, 6); downscaling in a loop. */
#define FSSIM_RESAMPLE_DISPATCH(pass, T, taps, x, y)   \
    switch (taps) {                                    \
    case 1:  pass<T, 1>(p, x, y); break;               \
    case 2:  pass<T, 2>(p, x, y); break;               \
    case 4:  pass<T, 4>(p, x, y); break;               \
    case 6:  pass<T, 6>(p, x, y); break;               \
    default: pass<T, 0>(p, x, y); break;               \
    }

template <typename T>
static __device__ __forceinline__ void fssim_resample_h_impl(const FSSIMCudaResampleParams &p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;

    if (x >= p.out_w || y >= p.in_h)
        return;
    FSSIM_RESAMPLE_DISPATCH(resample_h, T, p.xtaps, x, y)
}

template <typename T>
static __device__ __forceinline__ void fssim_resample_v_impl(const FSSIMCudaResampleParams &p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;

    if (x >= p.out_w || y >= p.out_h)
        return;
    FSSIM_RESAMPLE_DISPATCH(resample_v, T, p.ytaps, x, y)
}

#endif /* FSSIM_RESAMPLE_CUH */
