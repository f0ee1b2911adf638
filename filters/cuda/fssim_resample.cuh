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
 * fssim CUDA kernels: the resampler (doc/algorithms.md#resampling), exactly
 * as the CPU reference computes it, so that every backend scores the same
 * samples.  Separable, horizontal pass first, both passes in one kernel: a
 * block of fssim_resample_<S>to<T> covers a tile of FSSIM_TILE output
 * columns by p.rows output rows of one component.  It computes the horizontal pass of
 * the source rows its tile needs (the tile's band) into shared memory,
 * reading the rendition's samples in its own layout (container S, src_step,
 * src_shift),
 *
 *   h = sum q_i s_i, exact in int32 (the coefficient tables bound |h|
 *       below 2^31 for 16-bit samples: filters/core/fssim_ref.h),
 *
 * then every output sample of the tile from them,
 *
 *   v = sum q_j h_j in int64, sample = clamp((v + 2^(n-1)) >> n, 0, L),
 *
 * n = 28 less the depths' difference (FSSIM_RESAMPLE_SHIFT: the rendition's
 * bit depth brought to the reference's), written in the reference's
 * container layout (T, step, shift).  The horizontal pass never goes
 * through device memory: as two kernels with an int32 frame between them,
 * writing and reading it back cost most of the time.
 *
 * The coefficient tables are computed once on the host by the reference
 * (ff_fssim_ref_resample_axis_init), the bands from them, and copied to the
 * device.  The kernels make a module of their own (fssim_resample.cu): the
 * driver compiles a whole module before the first frame, and most runs
 * resample nothing.
 */
#ifndef FSSIM_RESAMPLE_CUH
#define FSSIM_RESAMPLE_CUH

#include "fssim_cuda_device.cuh"

/* Source index i of an axis of n samples, clamped to it (edge replication). */
static __device__ __forceinline__ int clamp_index(int i, int n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* Source sample i of a row (container S, as stored: not masked), clamped
 * to the row. */
template <typename S>
static __device__ __forceinline__ int tap_h(const FSSIMCudaResampleComp &p, const S *row, int i)
{
    return (int)((unsigned)row[clamp_index(i, p.in_w) * p.src_step] >> p.src_shift);
}

/* Source row j, clamped to the plane likewise. */
template <typename S>
static __device__ __forceinline__ const S *src_row(const FSSIMCudaResampleComp &p, int j)
{
    return (const S *)(p.src + (long long)clamp_index(j, p.in_h) * p.src_pitch);
}

/* The horizontal pass of a source row at output column x, p.xtaps taps (the
 * downscales' and the direct path's; band_h unrolls the others). */
template <typename S>
static __device__ __forceinline__ int resample_h(const FSSIMCudaResampleComp &p, const S *row,
                                                 int x)
{
    const int *coef = (const int *)p.xcoef + x * p.xtaps;
    const int first = ((const int *)p.xstart)[x];
    int h = 0;

#pragma unroll
    for (int k = 0; k < p.xtaps; k++)
        h += coef[k] * tap_h<S>(p, row, first + k);
    return h;
}

/* Output sample (x, y) from v = sum q_j h_j, in the reference's container T
 * and layout. */
template <typename T>
static __device__ __forceinline__ void resample_store(const FSSIMCudaResampleComp &p, int x, int y,
                                                      long long v)
{
    /* an arithmetic shift: floor division by 2^round, v may be negative */
    long long s = (v + (1LL << (p.round - 1))) >> p.round;

    s = s < 0 ? 0 : s > p.max ? p.max : s;
    ((T *)(p.dst + (long long)y * p.dst_pitch))[x * p.step] = (T)(s << p.shift);
}

/*
 * The horizontal pass of the band, source rows j0 .. j0 + nrows - 1 (clamped
 * to the plane), at the tile's columns from x0, into tmp.  A thread keeps
 * one column for the whole band, so with NT known it takes the column's
 * coefficients and clamped tap offsets once, and a band row costs it NT
 * loads and multiply-adds: read per row from the tables, they made most of
 * the kernel's instructions.
 */
template <typename S, int NT>
static __device__ __forceinline__ void band_h(const FSSIMCudaResampleComp &p, int *tmp, int j0,
                                              int nrows, int x0, int tid)
{
    enum { N = NT ? NT : 1 };
    const int c = tid % FSSIM_TILE, x = x0 + c;
    int q[N], off[N];

    if (x >= p.out_w)
        return;
    if (NT) {
#pragma unroll
        for (int k = 0; k < N; k++) {
            const int i = clamp_index(((const int *)p.xstart)[x] + k, p.in_w);
            q[k]   = ((const int *)p.xcoef)[x * N + k];
            off[k] = i * p.src_step * (int)sizeof(S);
        }
        for (int r = tid / FSSIM_TILE; r < nrows; r += FSSIM_THREADS / FSSIM_TILE) {
            const unsigned long long row = (unsigned long long)src_row<S>(p, j0 + r);
            int h = 0;
#pragma unroll
            for (int k = 0; k < N; k++)
                h += q[k] * (int)(load_global<S>(row + off[k]) >> p.src_shift);
            tmp[r * FSSIM_TILE + c] = h;
        }
    } else {
        for (int r = tid / FSSIM_TILE; r < nrows; r += FSSIM_THREADS / FSSIM_TILE)
            tmp[r * FSSIM_TILE + c] = resample_h<S>(p, src_row<S>(p, j0 + r), x);
    }
}

/* Values of the vertical pass's rows kept in shared memory, where its taps
 * are unrolled (up to FSSIM_RESAMPLE_MAX_UNROLLED, FSSIM_RESAMPLE_DISPATCH):
 * per output row, its first source row in the band, then its taps. */
#define FSSIM_RESAMPLE_MAX_UNROLLED 6
#define FSSIM_RESAMPLE_YROW (FSSIM_RESAMPLE_MAX_UNROLLED + 1)

/*
 * The tile's rows' first band rows and coefficients (NT of each, known at
 * compile time) into yrow, for every thread of a row in tile_v, where each
 * of the tile's 32 columns read them from the tables
 * (doc/performance.md#resampling).  A tile has at most
 * FSSIM_TILE rows (ff_fssim_resample_tiles).
 */
template <typename T, int NT>
static __device__ __forceinline__ void tile_rows(const FSSIMCudaResampleComp &p, int *yrow,
                                                 int j0, int y0, int tid)
{
    for (int i = tid; NT && i < p.rows * (NT + 1); i += FSSIM_THREADS) {
        const int r = i / (NT + 1), k = i - r * (NT + 1), y = y0 + r;
        if (y < p.out_h)
            yrow[r * FSSIM_RESAMPLE_YROW + k] = k ? ((const int *)p.ycoef)[y * NT + k - 1]
                                                  : ((const int *)p.ystart)[y] - j0;
    }
}

/* The vertical pass of the tile at (x0, y0) from the band in tmp (its first
 * row is source row j0); NT: p.ytaps when known at compile time, the rows'
 * values then in yrow (0: not, read from the tables). */
template <typename T, int NT>
static __device__ __forceinline__ void tile_v(const FSSIMCudaResampleComp &p, const int *tmp,
                                              const int *yrow, int j0, int x0, int y0, int tid)
{
    const int c = tid % FSSIM_TILE, x = x0 + c;
    const int n = NT ? NT : p.ytaps;

    if (x >= p.out_w)
        return;
    for (int y = y0 + tid / FSSIM_TILE; y < y0 + p.rows && y < p.out_h;
         y += FSSIM_THREADS / FSSIM_TILE) {
        const int *row = yrow + (y - y0) * FSSIM_RESAMPLE_YROW;
        const int *coef = NT ? row + 1 : (const int *)p.ycoef + y * n;
        const int first = NT ? row[0] : ((const int *)p.ystart)[y] - j0;
        const int *h = tmp + first * FSSIM_TILE + c;
        long long v = 0;

#pragma unroll
        for (int k = 0; k < n; k++)
            v += (long long)coef[k] * h[k * FSSIM_TILE];
        resample_store<T>(p, x, y, v);
    }
}

/* The direct path, for axes with more taps than a band holds rows: each
 * output computes the horizontal pass of its own source rows. */
template <typename S, typename T>
static __device__ __forceinline__ void resample_direct(const FSSIMCudaResampleComp &p, int x, int y)
{
    const int *coef = (const int *)p.ycoef + y * p.ytaps;
    const int first = ((const int *)p.ystart)[y];
    long long v = 0;

    for (int k = 0; k < p.ytaps; k++)
        v += (long long)coef[k] * resample_h<S>(p, src_row<S>(p, first + k), x);
    resample_store<T>(p, x, y, v);
}

/* Unrolled: an axis of the reference's size (1 tap), and bilinear, bicubic
 * and lanczos upscaling (2, 4, 6, FSSIM_RESAMPLE_MAX_UNROLLED); downscaling
 * in a loop. */
#define FSSIM_RESAMPLE_DISPATCH(pass, T, taps, ...)    \
    switch (taps) {                                    \
    case 1:  pass<T, 1>(__VA_ARGS__); break;           \
    case 2:  pass<T, 2>(__VA_ARGS__); break;           \
    case 4:  pass<T, 4>(__VA_ARGS__); break;           \
    case 6:  pass<T, 6>(__VA_ARGS__); break;           \
    default: pass<T, 0>(__VA_ARGS__); break;           \
    }

/* S: the rendition's sample container, T: the reference's. */
template <typename S, typename T>
static __device__ __forceinline__ void fssim_resample_impl(const FSSIMCudaResampleParams &pp)
{
    __shared__ int tmp[FSSIM_RESAMPLE_SPAN * FSSIM_TILE];
    __shared__ int yrow[FSSIM_TILE * FSSIM_RESAMPLE_YROW];
    const int tid = threadIdx.y * FSSIM_TILE + threadIdx.x;
    FSSIMCudaResampleComp p = pp.comp[0];

    /* the block's component, taken with constant indices, so that the
     * parameters are not copied to local memory */
#pragma unroll
    for (int i = 1; i < 4; i++)
        if (i < pp.nb_comps && (int)blockIdx.x >= pp.comp[i].first_block)
            p = pp.comp[i];
    {
        const int t = blockIdx.x - p.first_block;
        const int x0 = t % p.tiles_x * FSSIM_TILE, ty = t / p.tiles_x;
        const int *band = (const int *)p.bands + 2 * ty;

        if (!p.rows) {
            const int x = x0 + tid % FSSIM_TILE;
            const int y = ty * FSSIM_RESAMPLE_DIRECT_ROWS + tid / FSSIM_TILE;
            if (x < p.out_w && y < p.out_h)
                resample_direct<S, T>(p, x, y);
            return;
        }
        FSSIM_RESAMPLE_DISPATCH(band_h, S, p.xtaps, p, tmp, band[0], band[1], x0, tid)
        FSSIM_RESAMPLE_DISPATCH(tile_rows, T, p.ytaps, p, yrow, band[0], ty * p.rows, tid)
        __syncthreads();
        FSSIM_RESAMPLE_DISPATCH(tile_v, T, p.ytaps, p, tmp, yrow, band[0], x0, ty * p.rows, tid)
    }
}

/* The entry points of the resampler's module (fssim_resample.cu):
 * from 8-bit or 16-bit containers (S) into 8-bit or 16-bit ones (T), named
 * fssim_resample_<S>to<T>. */
#define FSSIM_RESAMPLE_KERNEL(S, T, name)                                        \
__global__ void __launch_bounds__(FSSIM_THREADS)                                 \
name(FSSIMCudaResampleParams p)                                                  \
{                                                                                \
    fssim_resample_impl<S, T>(p);                                                \
}
#define FSSIM_RESAMPLE_MODULE()                                                  \
extern "C" {                                                                     \
FSSIM_RESAMPLE_KERNEL(unsigned char,  unsigned char,  fssim_resample_8to8)       \
FSSIM_RESAMPLE_KERNEL(unsigned char,  unsigned short, fssim_resample_8to16)      \
FSSIM_RESAMPLE_KERNEL(unsigned short, unsigned char,  fssim_resample_16to8)      \
FSSIM_RESAMPLE_KERNEL(unsigned short, unsigned short, fssim_resample_16to16)     \
}

#endif /* FSSIM_RESAMPLE_CUH */
