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
 * fssim3d CUDA kernels: spatio-temporal SSIM (doc/algorithms.md#fssim3d) on CUDA frames.
 *
 * The 3-D Gaussian window is separable, so the 3-D moments of frame t are
 * the temporally weighted sums of the 2-D moments of the frames around it.
 * Two passes:
 *
 *   fssim3d_moments  per frame pair and component: the tile and its halo in
 *                    shared memory, separable horizontal and vertical
 *                    Gaussian passes in double, and one record per scored
 *                    position into a ring slot (fssim3d_cuda_params.h): the means
 *                    and the centred variance sum and covariance, in fp32.
 *   fssim3d_score    per scored frame and component: the records of the
 *                    taps of its temporal window combined in double, the
 *                    3-D SSIM of every position, one partial sum per block;
 *   fssim3d_sum      then adds each component's partials.
 *
 * Both sums run in a fixed order (each thread's positions in order, the
 * block's threads in order, the blocks in order), so every result is
 * bitwise identical from run to run.  Every floating-point operation on the
 * way is an explicit fused multiply-add or an unfused .rn operation: the
 * same PTX from nvcc and clang, results the emulator reproduces bit for bit
 * on the host, and identical frames score exactly 1.
 *
 * Precision: the spatial sums in double are within a few ulp of the CPU
 * reference's; E[a^2] - mu^2 is formed in double before the one rounding
 * to fp32, whose relative error (6e-8) then only scales each position's
 * variance, covariance and means.  The temporal combination recovers the
 * 3-D second moments as sum_k w_k (var_k + mu_k^2) in double, in which the
 * rounded means cancel exactly: the 3-D variance is that of the stored
 * values, not a difference of rounded squares.
 *
 * Compiled to PTX by FFmpeg's build with nvcc or clang (through FFmpeg's
 * compat/cuda/cuda_runtime.h), and on the host by the emulation test.
 */
#ifndef FSSIM3D_CUH
#define FSSIM3D_CUH

#include "fssim_cuda_device.cuh"
#include "fssim3d_cuda_params.h"

#ifdef FSSIM_CUDA_EMULATION
#include <math.h>
static __device__ __forceinline__ double fma_f64(double a, double b, double c) { return fma(a, b, c); }
#else
static __device__ __forceinline__ double fma_f64(double a, double b, double c)
{
    double r;
    asm("fma.rn.f64 %0, %1, %2, %3;" : "=d"(r) : "d"(a), "d"(b), "d"(c));
    return r;
}
#endif

#define FSSIM3D_REGION(r) (FSSIM_TILE + 2 * (r))
#define FSSIM3D_HGROUPS   (FSSIM_TILE / FSSIM3D_HCOLS)

/* One sample as float (exact: at most 16 bits), from 8- or 16-bit
 * containers of the given layout: one module serves every bit depth, the
 * branch is uniform. */
static __device__ __forceinline__ float fssim3d_sample(unsigned long long base, int pitch,
                                                      int bytes, int step, int shift,
                                                      int x, int y)
{
    const unsigned long long row = base + (unsigned long long)y * pitch;
    const unsigned v = bytes == 1 ? ((const unsigned char  *)row)[x * step]
                                  : ((const unsigned short *)row)[x * step];
    return (float)(v >> shift);
}

/*
 * Spatial moments of one component: block (bx, by) computes scored
 * positions [32 bx, 32 bx + 32) x [32 by, 32 by + 32).  RF is the radius
 * the kernel is built for, 0 for any radius up to FSSIM_MAX_RADIUS (the
 * loops then run to the largest radius, predicated).
 */
template <int RF>
static __device__ __forceinline__ void fssim3d_moments_impl(const FSSIM3DCudaMomentParams &p)
{
    enum {
        RM    = RF ? RF : FSSIM_MAX_RADIUS,
        NLOAD = (FSSIM3D_REGION(RM) * FSSIM3D_REGION(RM) + FSSIM_THREADS - 1) / FSSIM_THREADS,
    };
    FSSIM_DYNAMIC_SMEM(smem);
    const int r = RF ? RF : p.radius;
    const int region = FSSIM3D_REGION(r);
    const int hplane = region * FSSIM_TILE;
    float *S = (float *)smem, *D = S + region * region;
    double *H = (double *)(smem + fssim3d_smem_hsums(r));
    const int tid = threadIdx.y * FSSIM_TILE + threadIdx.x;
    const int ox0 = blockIdx.x * FSSIM_TILE, oy0 = blockIdx.y * FSSIM_TILE;
    /* plane coordinates of the loaded region's corner */
    const int x0 = ox0 + p.offset - r, y0 = oy0 + p.offset - r;
    float s[NLOAD], d[NLOAD];

    /* The tile and its halo, outside the plane as 0 (padding=same's zeros;
     * under padding=valid no scored window reaches there).  Consecutive
     * threads read consecutive samples of a row, and every load is issued
     * before the first store. */
#pragma unroll
    for (int j = 0; j < NLOAD; j++) {
        const int i  = tid + j * FSSIM_THREADS;
        const int ry = i / region, rx = i - ry * region;
        const int gx = x0 + rx, gy = y0 + ry;
        const bool in = i < region * region &&
                        gx >= 0 && gx < p.width && gy >= 0 && gy < p.height;
        s[j] = in ? fssim3d_sample(p.main_ptr, p.main_pitch, p.main_bytes, p.main_step,
                                   p.main_shift, gx, gy) : 0.0f;
        d[j] = in ? fssim3d_sample(p.ref_ptr, p.ref_pitch, p.bytes, p.step, p.shift,
                                   gx, gy) : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < NLOAD; j++) {
        const int i = tid + j * FSSIM_THREADS;
        if (i < region * region) {
            S[i] = s[j];
            D[i] = d[j];
        }
    }
    __syncthreads();

    /* Horizontal pass over every region row, FSSIM3D_HCOLS outputs per work
     * item.  Each sample is visited once and added to the outputs whose
     * window holds it (tap j = i - o), so every output still sums its taps
     * in order.  a, b < 2^16: a^2 + b^2 and ab are exact in double. */
    for (int it = tid; it < region * FSSIM3D_HGROUPS; it += FSSIM_THREADS) {
        const int ry = it / FSSIM3D_HGROUPS, c0 = it % FSSIM3D_HGROUPS * FSSIM3D_HCOLS;
        const float *Sr = S + ry * region + c0, *Dr = D + ry * region + c0;
        double *Hr = H + ry * FSSIM_TILE + c0;
        double acc[FSSIM3D_HCOLS][4];

#pragma unroll
        for (int o = 0; o < FSSIM3D_HCOLS; o++)
            acc[o][0] = acc[o][1] = acc[o][2] = acc[o][3] = 0.0;
#pragma unroll
        for (int i = 0; i < FSSIM3D_HCOLS + 2 * RM; i++) {
            if (i < FSSIM3D_HCOLS + 2 * r) {
                const double a = Sr[i], b = Dr[i];
                const double q = rn_add_f64(rn_mul_f64(a, a), rn_mul_f64(b, b));
                const double m = rn_mul_f64(a, b);
#pragma unroll
                for (int o = 0; o < FSSIM3D_HCOLS; o++) {
                    const int j = i - o;
                    if (j >= 0 && j <= 2 * RM && j <= 2 * r) {
                        const double g = p.g[j >= 0 && j <= 2 * RM ? j : 0];
                        acc[o][0] = fma_f64(g, a, acc[o][0]);
                        acc[o][1] = fma_f64(g, b, acc[o][1]);
                        acc[o][2] = fma_f64(g, q, acc[o][2]);
                        acc[o][3] = fma_f64(g, m, acc[o][3]);
                    }
                }
            }
        }
#pragma unroll
        for (int o = 0; o < FSSIM3D_HCOLS; o++)
#pragma unroll
            for (int k = 0; k < 4; k++)
                Hr[k * hplane + o] = acc[o][k];
    }
    __syncthreads();

    /* Vertical pass: a thread walks FSSIM3D_VROWS rows down one column,
     * visiting each row of horizontal sums once. */
    {
        const int c = tid % FSSIM_TILE, r0 = tid / FSSIM_TILE * FSSIM3D_VROWS;
        const int ox = ox0 + c;
        const double *Hc = H + r0 * FSSIM_TILE + c;
        double acc[FSSIM3D_VROWS][4];
        float *out = (float *)p.out;

#pragma unroll
        for (int o = 0; o < FSSIM3D_VROWS; o++)
            acc[o][0] = acc[o][1] = acc[o][2] = acc[o][3] = 0.0;
#pragma unroll
        for (int i = 0; i < FSSIM3D_VROWS + 2 * RM; i++) {
            if (i < FSSIM3D_VROWS + 2 * r) {
                double h[4];
#pragma unroll
                for (int k = 0; k < 4; k++)
                    h[k] = Hc[k * hplane + i * FSSIM_TILE];
#pragma unroll
                for (int o = 0; o < FSSIM3D_VROWS; o++) {
                    const int j = i - o;
                    if (j >= 0 && j <= 2 * RM && j <= 2 * r) {
                        const double g = p.g[j >= 0 && j <= 2 * RM ? j : 0];
#pragma unroll
                        for (int k = 0; k < 4; k++)
                            acc[o][k] = fma_f64(g, h[k], acc[o][k]);
                    }
                }
            }
        }

        /* centred second moments in double, then the one rounding to fp32;
         * with identical planes mu_a == mu_b and E[a^2 + b^2] == 2 E[ab]
         * exactly, so var_a + var_b == 2 cov exactly */
#pragma unroll
        for (int o = 0; o < FSSIM3D_VROWS; o++) {
            const int oy = oy0 + r0 + o;
            if (ox < p.out_w && oy < p.out_h) {
                const double mu_a = acc[o][0], mu_b = acc[o][1];
                const double vsum = rn_sub_f64(acc[o][2], rn_add_f64(rn_mul_f64(mu_a, mu_a),
                                                                     rn_mul_f64(mu_b, mu_b)));
                const double cov  = rn_sub_f64(acc[o][3], rn_mul_f64(mu_a, mu_b));
                float4 v;
                v.x = (float)mu_a;
                v.y = (float)mu_b;
                v.z = (float)vsum;
                v.w = (float)cov;
                ((float4 *)out)[(long long)oy * p.out_w + ox] = v;
            }
        }
    }
}

/*
 * Sum one value per thread over a block of FSSIM_THREADS threads in a fixed
 * order: each warp's 32 values in lane order, then the warps in order.  The
 * result is valid in thread 0.
 */
static __device__ __forceinline__ double fssim3d_block_sum(double *red, double v)
{
    const int tid = threadIdx.x;
    double sum = 0.0;

    red[tid] = v;
    __syncthreads();
    if (tid < FSSIM_WARPS) {
        double w = 0.0;
        for (int i = 0; i < 32; i++)
            w = rn_add_f64(w, red[tid * 32 + i]);
        red[FSSIM_THREADS + tid] = w;
    }
    __syncthreads();
    if (tid == 0)
        for (int i = 0; i < FSSIM_WARPS; i++)
            sum = rn_add_f64(sum, red[FSSIM_THREADS + i]);
    return sum;
}

/*
 * The 3-D SSIM of one position from its 3-D first and second moments, in
 * the CPU reference's association (ff_fssim_ref_ssim_from_moments), with
 * E[a^2 + b^2] for the sum of the variances' raw moments.
 */
static __device__ __forceinline__ double fssim3d_ssim(double mu_a, double mu_b, double e2,
                                                      double eab, double c1, double c2)
{
    const double maa  = rn_mul_f64(mu_a, mu_a);
    const double mbb  = rn_mul_f64(mu_b, mu_b);
    const double mab  = rn_mul_f64(mu_a, mu_b);
    const double msum = rn_add_f64(maa, mbb);
    const double vsum = rn_sub_f64(e2, msum);
    const double cov  = rn_sub_f64(eab, mab);
    const double num  = rn_mul_f64(rn_add_f64(rn_mul_f64(2.0, mab), c1),
                                   rn_add_f64(rn_mul_f64(2.0, cov), c2));
    const double den  = rn_mul_f64(rn_add_f64(msum, c1), rn_add_f64(vsum, c2));
    return rn_div_f64(num, den);
}

/*
 * Temporal pass of one component: block b scores positions
 * [b, b + 1) * FSSIM3D_SCORE_CHUNK, thread t the positions t + j *
 * FSSIM_THREADS of the chunk (coalesced), and adds their SSIM in j order.
 */
static __device__ __forceinline__ void fssim3d_score_impl(const FSSIM3DCudaScoreParams &p)
{
    __shared__ double wt[FSSIM3D_CUDA_MAX_TAPS];
    __shared__ unsigned long long mom[FSSIM3D_CUDA_MAX_TAPS];
    __shared__ double red[FSSIM_THREADS + FSSIM_WARPS];
    const FSSIM3DCudaWindow *win = (const FSSIM3DCudaWindow *)p.window;
    const int tid = threadIdx.x;
    const int i0 = blockIdx.x * FSSIM3D_SCORE_CHUNK + tid;
    double acc[FSSIM3D_SCORE_PER_THREAD][4];
    double sum = 0.0;

    if (tid < p.nb_taps) {
        wt[tid]  = win->wt[tid];
        mom[tid] = p.moments + win->slot_offset[tid];
    }
    __syncthreads();

#pragma unroll
    for (int j = 0; j < FSSIM3D_SCORE_PER_THREAD; j++)
        acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.0;

    /* sum_k w_k mu_k and sum_k w_k (var_k + mu_k^2), the raw second moments
     * rebuilt in double; every record of a tap is loaded before any is used */
    for (int k = 0; k < p.nb_taps; k++) {
        const float4 *m = (const float4 *)mom[k];
        const double w = wt[k];
        float4 v[FSSIM3D_SCORE_PER_THREAD];
#pragma unroll
        for (int j = 0; j < FSSIM3D_SCORE_PER_THREAD; j++) {
            const int i = i0 + j * FSSIM_THREADS;
            if (i < p.n) {
                v[j] = m[i];
            } else {
                v[j].x = v[j].y = v[j].z = v[j].w = 0.0f;
            }
        }
#pragma unroll
        for (int j = 0; j < FSSIM3D_SCORE_PER_THREAD; j++) {
            /* products of floats are exact in double */
            const double a = v[j].x, b = v[j].y;
            const double e2  = rn_add_f64((double)v[j].z,
                                          rn_add_f64(rn_mul_f64(a, a), rn_mul_f64(b, b)));
            const double eab = rn_add_f64((double)v[j].w, rn_mul_f64(a, b));
            acc[j][0] = fma_f64(w, a,   acc[j][0]);
            acc[j][1] = fma_f64(w, b,   acc[j][1]);
            acc[j][2] = fma_f64(w, e2,  acc[j][2]);
            acc[j][3] = fma_f64(w, eab, acc[j][3]);
        }
    }

#pragma unroll
    for (int j = 0; j < FSSIM3D_SCORE_PER_THREAD; j++)
        if (i0 + j * FSSIM_THREADS < p.n)
            sum = rn_add_f64(sum, fssim3d_ssim(acc[j][0], acc[j][1], acc[j][2], acc[j][3],
                                               p.c1, p.c2));

    sum = fssim3d_block_sum(red, sum);
    if (tid == 0)
        ((double *)p.partials)[p.part_offset + blockIdx.x] = sum;
}

/* One block per component: its score blocks' partials, in a fixed order. */
static __device__ __forceinline__ void fssim3d_sum_impl(const FSSIM3DCudaSumParams &p)
{
    __shared__ double red[FSSIM_THREADS + FSSIM_WARPS];
    const int c = blockIdx.x;
    /* selects, not a run-time index into the parameters */
    const int offset = c == 0 ? p.offset[0] : c == 1 ? p.offset[1] : c == 2 ? p.offset[2] : p.offset[3];
    const int count  = c == 0 ? p.count[0]  : c == 1 ? p.count[1]  : c == 2 ? p.count[2]  : p.count[3];
    const double *in = (const double *)p.partials + offset;
    double v = 0.0;

    for (int i = threadIdx.x; i < count; i += FSSIM_THREADS)
        v = rn_add_f64(v, in[i]);
    v = fssim3d_block_sum(red, v);
    if (threadIdx.x == 0)
        ((double *)p.out)[c] = v;
}

/* The entry points of one module: the spatial pass for one radius (0: any),
 * the temporal pass and the sums.  Shared memory allows three spatial
 * blocks per SM; registers should not allow fewer. */
#define FSSIM3D_MODULE(RF)                                                    \
extern "C" {                                                                     \
__global__ void __launch_bounds__(FSSIM_THREADS, 3)                              \
fssim3d_moments(FSSIM3DCudaMomentParams p)                                       \
{                                                                                \
    fssim3d_moments_impl<RF>(p);                                              \
}                                                                                \
__global__ void __launch_bounds__(FSSIM_THREADS)                                 \
fssim3d_score(FSSIM3DCudaScoreParams p)                                          \
{                                                                                \
    fssim3d_score_impl(p);                                                       \
}                                                                                \
__global__ void __launch_bounds__(FSSIM_THREADS)                                 \
fssim3d_sum(FSSIM3DCudaSumParams p)                                              \
{                                                                                \
    fssim3d_sum_impl(p);                                                         \
}                                                                                \
}

#endif /* FSSIM3D_CUH */
