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
 * fssim CUDA kernels: multi-scale SSIM (doc/algorithms.md#msssim) on the
 * GPU, from the frames in device memory.
 *
 *   fssim_ms_scale   one launch per scale j over every plane of a frame
 *                    pair (a 1-D grid of FSSIM_TILE x FSSIM_TILE tiles,
 *                    plane after plane).  A block loads its tile of scale
 *                    j and the window's halo once into shared memory
 *                    (scale 0: the frames' samples; further scales: the
 *                    float planes the previous launch wrote), pools its
 *                    share of scale j + 1 from there (the 2x2 cells whose
 *                    samples start in the tile), and computes the SSIM and
 *                    contrast-structure maps of its valid positions; the
 *                    block's two sums go to its partial record, added in a
 *                    fixed order.
 *   fssim_ms_reduce  one block per (plane, scale): the partial records in a
 *                    fixed order, into the job's result slot.
 *
 * Precision.  Pooled values are sums of at most 4^4 samples divided by a
 * power of two: below 2^24 in units of their last bit, so float holds
 * them exactly and the pyramid equals the reference's doubles.  The local
 * moments are float, of the sum and the difference of the two planes
 * (ms_vpass says why), centred on a sample of the tile as the float
 * algorithm's (fssim_plane.cuh); the map values are float, their
 * sums double.  Identical planes give exactly 1 everywhere.
 */
#ifndef FSSIM_MSSSIM_CUH
#define FSSIM_MSSSIM_CUH

#include "fssim_cuda_device.cuh"

/* Outputs per horizontal-pass item (a thread slides along a row) and rows
 * per vertical-pass item (a thread walks down a column). */
#define MS_HCOLS   4
#define MS_HGROUPS (FSSIM_TILE / MS_HCOLS)
#define MS_VROWS   FSSIM_VROWS

/* One sample of scale j: the frame's container at scale 0, float after. */
template <typename T>
static __device__ __forceinline__ float ms_sample(const FSSIMCudaMsPlane &pl, int level,
                                                  unsigned long long base, int pitch,
                                                  int x, int y)
{
    if (!level) {
        const T *row = (const T *)(base + (unsigned long long)y * pitch);
        return (float)((unsigned)row[x * pl.step] >> pl.shift);
    }
    return ((const float *)(base + (unsigned long long)y * pitch))[x];
}

/* The tile and its halo, zero outside the plane (the padded zeros of the
 * pooling). */
template <typename T, int RF>
static __device__ __forceinline__ void ms_load(const FSSIMCudaMsPlane &pl, int level,
                                               const FSSIMMsSmemLayout &l, char *smem,
                                               int x0, int y0)
{
    enum { RMAX = FSSIM_TILE + 2 * (RF ? RF : FSSIM_MAX_RADIUS) };
    const int R = (l.region - FSSIM_TILE) / 2;
    const bool interior = tile_interior(x0, y0, R, pl.width, pl.height);
    const auto fetch = [&](int which, int x, int y) {
        return which ? ms_sample<T>(pl, level, pl.ref_ptr, pl.ref_pitch, x, y)
                     : ms_sample<T>(pl, level, pl.main_ptr, pl.main_pitch, x, y);
    };

    load_region<RMAX, true>((float *)(smem + l.s), (float *)(smem + l.d),
                            RF ? (int)RMAX : l.region, RF ? (int)RMAX : l.region, x0, y0,
                            pl.width, pl.height, interior, fetch);
}

/*
 * Scale j + 1 from the tile: cell o covers samples 2o - p and 2o - p + 1
 * of scale j (p = 1 on an odd side, whose first cell holds one padded
 * zero), so the tile at x0 (even) owns cells x0/2 .. x0/2 + TILE/2 - 1,
 * whose samples lie in [x0 - 1, x0 + TILE - 1]: in the tile and its halo.
 * The four samples are added in the reference's order and divided by 4,
 * exactly (see the top of the file).
 */
static __device__ __forceinline__ void ms_pool(const FSSIMCudaMsPlane &pl,
                                               const FSSIMMsSmemLayout &l, char *smem,
                                               int x0, int y0, int tid)
{
    const float *S = (const float *)(smem + l.s), *D = (const float *)(smem + l.d);
    const int R = (l.region - FSSIM_TILE) / 2;
    const int cx = tid % (FSSIM_TILE / 2), cy = tid / (FSSIM_TILE / 2);
    const int ox = x0 / 2 + cx, oy = y0 / 2 + cy;
    const int px = pl.width & 1, py = pl.height & 1;

    if (!pl.main_next || cy >= FSSIM_TILE / 2 ||
        ox >= (pl.width + 1) / 2 || oy >= (pl.height + 1) / 2)
        return;
    {
        const int i = (2 * cy - py + R) * l.region + 2 * cx - px + R;
        const float a = ((S[i] + S[i + 1]) + S[i + l.region]) + S[i + l.region + 1];
        const float b = ((D[i] + D[i + 1]) + D[i + l.region]) + D[i + l.region + 1];
        const unsigned long long row = (unsigned long long)oy * pl.next_pitch;
        ((float *)(pl.main_next + row))[ox] = a * 0.25f;
        ((float *)(pl.ref_next + row))[ox]  = b * 0.25f;
    }
}

/* Horizontal pass over region row ry, outputs c0 .. c0 + MS_HCOLS - 1, on
 * the sum u = a + b and the difference w = a - b of the two planes,
 * centred on (cu, cw): sum g u, sum g w, sum g u^2, sum g w^2. */
template <int RF>
static __device__ __forceinline__ void ms_hpass(const FSSIMCudaMsParams &p,
                                                const FSSIMMsSmemLayout &l, char *smem,
                                                int ry, int c0, float cu, float cw)
{
    enum { NT = 2 * (RF ? RF : FSSIM_MAX_RADIUS) + 1, NS = MS_HCOLS + NT - 1 };
    const float *S = (const float *)(smem + l.s) + ry * l.region + c0;
    const float *D = (const float *)(smem + l.d) + ry * l.region + c0;
    const int r = RF ? RF : p.radius;
    const int plane = l.region * FSSIM_TILE;
    float *H = (float *)(smem + l.h) + ry * FSSIM_TILE + c0;
    float u[NS], w[NS], uu[NS], ww[NS];

#pragma unroll
    for (int i = 0; i < NS; i++) {
        u[i] = w[i] = 0.0f;
        if (i < MS_HCOLS + 2 * r) {
            u[i] = rn_sub_f32(rn_add_f32(S[i], D[i]), cu);
            w[i] = rn_sub_f32(rn_sub_f32(S[i], D[i]), cw);
        }
        uu[i] = rn_mul_f32(u[i], u[i]);
        ww[i] = rn_mul_f32(w[i], w[i]);
    }
#pragma unroll
    for (int o = 0; o < MS_HCOLS; o++) {
        float mu = 0.0f, mw = 0.0f, qu = 0.0f, qw = 0.0f;
#pragma unroll
        for (int j = 0; j < NT; j++) {
            if (j <= 2 * r) {
                const float g = p.g[j];
                mu += g * u[o + j];
                mw += g * w[o + j];
                qu += g * uu[o + j];
                qw += g * ww[o + j];
            }
        }
        H[0 * plane + o] = mu;
        H[1 * plane + o] = mw;
        H[2 * plane + o] = qu;
        H[3 * plane + o] = qw;
    }
}

/*
 * Vertical pass and the two maps of the thread's MS_VROWS positions of
 * column c; their sums, in double, into *s and *csum.  From the moments of
 * u = a + b and w = a - b (mu = m + centre, var = q - m^2):
 *   var_a + var_b = (var_u + var_w) / 2      2 cov = (var_u - var_w) / 2
 *   mu_a^2 + mu_b^2 = (mu_u^2 + mu_w^2) / 2  2 mu_a mu_b = (mu_u^2 - mu_w^2) / 2
 * and then as the reference:
 *   CS = (2 cov + C2) / (var_a + var_b + C2)
 *   S  = (2 mu_a mu_b + C1) / (mu_a^2 + mu_b^2 + C1) * CS
 * Identical planes make w and all of its moments exactly 0, so each
 * numerator equals its denominator however the compiler fuses the moment
 * sums (x - 0 == x + 0), and the maps are exactly 1.
 */
template <int RF>
static __device__ __forceinline__ void ms_vpass(const FSSIMCudaMsParams &p,
                                                const FSSIMCudaMsPlane &pl,
                                                const FSSIMMsSmemLayout &l, char *smem,
                                                int c, int r0, int gx, int gy0,
                                                float cu, float cw, double *s, double *csum)
{
    const int r = RF ? RF : p.radius;
    const int plane = l.region * FSSIM_TILE;
    const float *H = (const float *)(smem + l.h) + r0 * FSSIM_TILE + c;
    const bool x_valid = gx >= r && gx < pl.width - r;
    float v[MS_VROWS][4];

    vgauss4<RF>(H, plane, p.g, r, v);
#pragma unroll
    for (int o = 0; o < MS_VROWS; o++) {
        const int gy = gy0 + o;
        if (x_valid && gy >= r && gy < pl.height - r) {
            const float mu = v[o][0], mw = v[o][1];
            const float vu = rn_sub_f32(v[o][2], rn_mul_f32(mu, mu));
            const float vw = rn_sub_f32(v[o][3], rn_mul_f32(mw, mw));
            const float muu = rn_add_f32(mu, cu), muw = rn_add_f32(mw, cw);
            const float mu2u = rn_mul_f32(muu, muu), mu2w = rn_mul_f32(muw, muw);
            const float csn  = rn_add_f32(rn_mul_f32(rn_sub_f32(vu, vw), 0.5f), p.c2);
            const float csd  = rn_add_f32(rn_mul_f32(rn_add_f32(vu, vw), 0.5f), p.c2);
            const float ln   = rn_add_f32(rn_mul_f32(rn_sub_f32(mu2u, mu2w), 0.5f), p.c1);
            const float ld   = rn_add_f32(rn_mul_f32(rn_add_f32(mu2u, mu2w), 0.5f), p.c1);
            const float cmap = rn_div_f32(csn, csd);
            const float lum  = rn_div_f32(ln, ld);
            *s    += (double)rn_mul_f32(lum, cmap);
            *csum += (double)cmap;
        }
    }
}

/* RF: the window's radius when the module is built for one (0: p.radius). */
template <typename T, int RF>
static __device__ __forceinline__ void fssim_ms_scale_impl(const FSSIMCudaMsParams &p)
{
    FSSIM_DYNAMIC_SMEM(smem);
    const int r = RF ? RF : p.radius;
    const FSSIMMsSmemLayout l = fssim_ms_smem_layout(r);
    const int tid = threadIdx.y * FSSIM_TILE + threadIdx.x;
    const int vc = tid % FSSIM_TILE, vr0 = tid / FSSIM_TILE * MS_VROWS;
    FSSIMCudaMsPlane pl = p.plane[0];
    double s = 0.0, csum = 0.0;
    float cs, cd;

    /* the block's plane: constant indices only, so that the parameters
     * are not copied to local memory */
#pragma unroll
    for (int i = 1; i < 4; i++)
        if (i < p.nb_planes && (int)blockIdx.x >= p.plane[i].first_tile)
            pl = p.plane[i];
    {
        const int t = blockIdx.x - pl.first_tile;
        const int x0 = t % pl.tiles_x * FSSIM_TILE, y0 = t / pl.tiles_x * FSSIM_TILE;
        const int R = (l.region - FSSIM_TILE) / 2;

        ms_load<T, RF>(pl, p.level, l, smem, x0, y0);
        __syncthreads();
        ms_pool(pl, l, smem, x0, y0, tid);
        /* any centre works, but one near the samples keeps the float moments
         * from cancelling: the tile's centre sample, or the plane's nearest
         * one where the centre lies outside (small scales) */
        {
            const int h = FSSIM_TILE / 2;
            const int cx = (x0 + h < pl.width  ? h : pl.width - 1 - x0) + R;
            const int cy = (y0 + h < pl.height ? h : pl.height - 1 - y0) + R;
            cs = ((const float *)(smem + l.s))[cy * l.region + cx];
            cd = ((const float *)(smem + l.d))[cy * l.region + cx];
        }
        for (int i = tid; i < l.region * MS_HGROUPS; i += FSSIM_THREADS)
            ms_hpass<RF>(p, l, smem, i / MS_HGROUPS, i % MS_HGROUPS * MS_HCOLS,
                         rn_add_f32(cs, cd), rn_sub_f32(cs, cd));
        __syncthreads();
        ms_vpass<RF>(p, pl, l, smem, vc, vr0, x0 + vc, y0 + vr0, rn_add_f32(cs, cd),
                     rn_sub_f32(cs, cd), &s, &csum);
    }
    {
        const double v[2] = { s, csum };
        block_sums<2>((double *)(smem + l.red), v, (double *)p.partials + 2 * blockIdx.x);
    }
}

/* One block per (plane, scale): its partial records in a fixed order. */
static __device__ __forceinline__ void fssim_ms_reduce_impl(const FSSIMCudaMsReduceParams &p)
{
    __shared__ double red[2 * (FSSIM_THREADS + FSSIM_WARPS)];
    const int tid = threadIdx.y * FSSIM_TILE + threadIdx.x;
    const int seg = blockIdx.x;
    const double *in = (const double *)p.partials + 2 * p.offset[seg];
    double s = 0.0, cs = 0.0;

    for (int i = tid; i < p.count[seg]; i += FSSIM_THREADS) {
        s  += in[2 * i];
        cs += in[2 * i + 1];
    }
    {
        const double v[2] = { s, cs };
        block_sums<2>(red, v, (double *)p.out + 2 * seg);
    }
}

#endif /* FSSIM_MSSSIM_CUH */
