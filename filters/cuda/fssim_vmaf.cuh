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
 * fssim CUDA kernels: vmaf_ssim and vmaf_msssim, libvmaf's float_ssim and
 * float_ms_ssim (doc/algorithms.md#vmaf_ssim), in libvmaf's arithmetic.
 * Every float operation of libvmaf is the same float operation here, every
 * double one the same double one, in the same order, each rounded to
 * nearest and never contracted into a fused multiply-add (the rn_*
 * operations): a filter tap's float product is added to a double sum that
 * is rounded to float at the end, a square root is taken in double and
 * rounded to float, the structure term is divided in float.  Each plane of
 * floats and each position's l, c and s are therefore libvmaf's to the
 * bit, on every GPU; only the order in which the positions' values are
 * added differs (tiles, then blocks), which moves a plane's mean by about
 * 1e-16 (doc/algorithms.md#vmaf_ssim-and-vmaf_msssim-in-the-filters).
 *
 *   fssim_vmaf_load_<8|16>  samples to floats (value / 2^(depth - 8)),
 *                           vmaf_ssim's box decimation, vmaf_msssim's scale 0
 *   fssim_vmaf_lpf          vmaf_msssim's next scale: the 9x9 low-pass
 *                           filter at every second sample
 *   fssim_vmaf_score        l, c, s of a FSSIM_VMAF_TILE square of positions
 *                           per block: both planes' tile and halo and the
 *                           horizontal pass of the five moments in shared
 *                           memory, then the vertical pass and the terms
 *   fssim_vmaf_reduce       each plane's block sums in a fixed order
 *
 * A module of its own (fssim_vmaf.cu): the driver compiles a whole module
 * before the first frame, and most runs use neither algorithm.
 */
#ifndef FSSIM_VMAF_CUH
#define FSSIM_VMAF_CUH

#include "fssim_cuda_device.cuh"
#include "fssim_vmaf_cuda_params.h"

/* A position outside [0, n) mirrored once about the border (libvmaf's
 * symmetric boundary): -1 -> 0, n -> n - 1. */
static __device__ __forceinline__ int vmaf_mirror(int i, int n)
{
    return i < 0 ? -1 - i : i >= n ? 2 * n - 1 - i : i;
}

#ifdef FSSIM_CUDA_EMULATION
#include <math.h>
static __device__ __forceinline__ double rn_sqrt_f64(double a) { return sqrt(a); }
#else
static __device__ __forceinline__ double rn_sqrt_f64(double a)
{
    double r;
    asm("sqrt.rn.f64 %0, %1;" : "=d"(r) : "d"(a));
    return r;
}
#endif

/* sum + (double)(a * b), the product rounded to float first */
static __device__ __forceinline__ double vmaf_tap(double sum, float a, float b)
{
    return rn_add_f64(sum, (double)rn_mul_f32(a, b));
}

/* The job of block b: jobs follow one another by first_block. */
#define FSSIM_VMAF_JOB(pp, b, j)                                                 \
    for (int i_ = 1; i_ < (pp).nb_jobs; i_++)                                    \
        if ((int)(b) >= (pp).job[i_].first_block)                                \
            (j) = i_

template <typename T>
static __device__ __forceinline__ float vmaf_sample(const FSSIMCudaVmafLoad &p, int x, int y,
                                                    float inv)
{
    const T *row = (const T *)(p.src + (long long)y * p.src_pitch);
    /* exact: a sample times a power of two */
    return rn_mul_f32((float)((unsigned)row[x * p.step] >> p.shift), inv);
}

template <typename T>
static __device__ void fssim_vmaf_load_impl(const FSSIMCudaVmafLoadParams &pp)
{
    int j = 0;
    FSSIM_VMAF_JOB(pp, blockIdx.x, j);
    {
        const FSSIMCudaVmafLoad &p = pp.job[j];
        const int o = ((int)blockIdx.x - p.first_block) * FSSIM_THREADS + threadIdx.x;
        const int x = o % p.dst_w, y = o / p.dst_w, lo = p.f / 2;
        double sum = 0.0;
        float v;

        if (o >= p.dst_w * p.dst_h)
            return;
        if (p.f == 1) {
            v = vmaf_sample<T>(p, x, y, pp.inv);
        } else {
            for (int dv = 0; dv < p.f; dv++) {
                const int sy = vmaf_mirror(y * p.f + dv - lo, p.height);
                for (int du = 0; du < p.f; du++)
                    sum = vmaf_tap(sum, vmaf_sample<T>(p, vmaf_mirror(x * p.f + du - lo, p.width),
                                                       sy, pp.inv), p.k);
            }
            v = (float)sum;
        }
        ((float *)p.dst)[(long long)y * p.dst_w + x] = v;
    }
}

static __device__ void fssim_vmaf_lpf_impl(const FSSIMCudaVmafLpfParams &pp)
{
    int j = 0;
    FSSIM_VMAF_JOB(pp, blockIdx.x, j);
    {
        const FSSIMCudaVmafLpf &p = pp.job[j];
        const int o = ((int)blockIdx.x - p.first_block) * FSSIM_THREADS + threadIdx.x;
        const int x = o % p.dst_w, y = o / p.dst_w;
        const float *src = (const float *)p.src;
        double sum = 0.0;

        if (o >= p.dst_w * p.dst_h)
            return;
        for (int v = 0; v < FSSIM_VMAF_LPF_TAPS; v++) {
            const float *row = src + (long long)vmaf_mirror(2 * y + v - 4, p.src_h) * p.src_w;
            for (int u = 0; u < FSSIM_VMAF_LPF_TAPS; u++)
                sum = vmaf_tap(sum, row[vmaf_mirror(2 * x + u - 4, p.src_w)],
                               pp.lpf[v * FSSIM_VMAF_LPF_TAPS + u]);
        }
        ((float *)p.dst)[(long long)y * p.dst_w + x] = (float)sum;
    }
}

/* l, c and s of one position from its five filtered moments (mu_a, mu_b,
 * a a, b b, a b), in the types of libvmaf's expressions. */
static __device__ __forceinline__ void vmaf_terms(const float *m, const float *c, double *t)
{
    const float pa = rn_mul_f32(m[0], m[0]), pb = rn_mul_f32(m[1], m[1]);
    const float pab = rn_mul_f32(m[0], m[1]);
    float var_a = rn_sub_f32(m[2], pa), var_b = rn_sub_f32(m[3], pb);
    const float cov = rn_sub_f32(m[4], pab);
    float sab, cov_c;

    var_a = 0.0f > var_a ? 0.0f : var_a;
    var_b = 0.0f > var_b ? 0.0f : var_b;
    sab = (float)rn_sqrt_f64((double)rn_mul_f32(var_a, var_b));
    cov_c = cov < 0.0f && sab <= 0.0f ? 0.0f : cov;
    t[0] = rn_div_f64(rn_add_f64(rn_mul_f64(rn_mul_f64(2.0, m[0]), m[1]), c[0]),
                      rn_add_f32(rn_add_f32(pa, pb), c[0]));
    t[1] = rn_div_f64(rn_add_f64(rn_mul_f64(2.0, sab), c[1]),
                      rn_add_f32(rn_add_f32(var_a, var_b), c[1]));
    t[2] = rn_div_f32(rn_add_f32(cov_c, c[2]), rn_add_f32(sab, c[2]));
}

/* FSSIM_VMAF_SUMS values of each of the block's FSSIM_THREADS threads,
 * added in a fixed order (a tree over the thread index); thread 0 gets
 * the block's sums.  red: FSSIM_VMAF_SUMS * FSSIM_THREADS doubles. */
static __device__ __forceinline__ void vmaf_block_sums(double *red, double *s, int tid)
{
    for (int t = 0; t < FSSIM_VMAF_SUMS; t++)
        red[t * FSSIM_THREADS + tid] = s[t];
    __syncthreads();
    for (int n = FSSIM_THREADS / 2; n > 0; n /= 2) {
        if (tid < n)
            for (int t = 0; t < FSSIM_VMAF_SUMS; t++)
                red[t * FSSIM_THREADS + tid] = rn_add_f64(red[t * FSSIM_THREADS + tid],
                                                          red[t * FSSIM_THREADS + tid + n]);
        __syncthreads();
    }
    for (int t = 0; t < FSSIM_VMAF_SUMS; t++)
        s[t] = red[t * FSSIM_THREADS];
}

static __device__ void fssim_vmaf_score_impl(const FSSIMCudaVmafScoreParams &pp)
{
    FSSIM_DYNAMIC_SMEM(smem);
    const int R = FSSIM_VMAF_REGION, T = FSSIM_VMAF_TILE;
    float *sa = (float *)smem, *sb = sa + R * R, *hm = sb + R * R;
    double *red = (double *)smem;        /* over sa and sb once they are read */
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    double s[FSSIM_VMAF_SUMS] = { 0.0, 0.0, 0.0, 0.0 };
    int j = 0;

    FSSIM_VMAF_JOB(pp, blockIdx.x, j);
    {
        const FSSIMCudaVmafScore &p = pp.job[j];
        const int t = blockIdx.x - p.first_block;
        const int x0 = t % p.tiles_x * T, y0 = t / p.tiles_x * T;
        const int ow = p.width - FSSIM_VMAF_WINDOW + 1, oh = p.height - FSSIM_VMAF_WINDOW + 1;
        const float *a = (const float *)p.a, *b = (const float *)p.b;

        /* the tile and its halo; what lies beyond the plane feeds only
         * positions beyond the valid ones */
        for (int i = tid; i < R * R; i += FSSIM_THREADS) {
            const int y = y0 + i / R, x = x0 + i % R;
            const int in = y < p.height && x < p.width;
            sa[i] = in ? a[(long long)y * p.width + x] : 0.0f;
            sb[i] = in ? b[(long long)y * p.width + x] : 0.0f;
        }
        __syncthreads();
        for (int i = tid; i < R * T; i += FSSIM_THREADS) {
            const float *ra = sa + (i / T) * R + i % T, *rb = sb + (i / T) * R + i % T;
            double h[5] = { 0.0, 0.0, 0.0, 0.0, 0.0 };
            for (int u = 0; u < FSSIM_VMAF_WINDOW; u++) {
                const float va = ra[u], vb = rb[u], g = pp.g[u];
                h[0] = vmaf_tap(h[0], va, g);
                h[1] = vmaf_tap(h[1], vb, g);
                h[2] = vmaf_tap(h[2], rn_mul_f32(va, va), g);
                h[3] = vmaf_tap(h[3], rn_mul_f32(vb, vb), g);
                h[4] = vmaf_tap(h[4], rn_mul_f32(va, vb), g);
            }
            for (int k = 0; k < 5; k++)
                hm[k * R * T + i] = (float)h[k];
        }
        __syncthreads();
        for (int i = tid; i < T * T; i += FSSIM_THREADS) {
            const int r = i / T, c = i % T;
            float m[5];
            double v[3];
            if (y0 + r >= oh || x0 + c >= ow)
                continue;
            for (int k = 0; k < 5; k++) {
                double sum = 0.0;
                for (int dv = 0; dv < FSSIM_VMAF_WINDOW; dv++)
                    sum = vmaf_tap(sum, hm[k * R * T + (r + dv) * T + c], pp.g[dv]);
                m[k] = (float)sum;
            }
            vmaf_terms(m, pp.c, v);
            s[0] = rn_add_f64(s[0], rn_mul_f64(rn_mul_f64(v[0], v[1]), v[2]));
            s[1] = rn_add_f64(s[1], v[0]);
            s[2] = rn_add_f64(s[2], v[1]);
            s[3] = rn_add_f64(s[3], v[2]);
        }
        vmaf_block_sums(red, s, tid);
        if (!tid)
            for (int k = 0; k < FSSIM_VMAF_SUMS; k++)
                ((double *)pp.partials)[(long long)blockIdx.x * FSSIM_VMAF_SUMS + k] = s[k];
    }
}

static __device__ void fssim_vmaf_reduce_impl(const FSSIMCudaVmafReduceParams &p)
{
    __shared__ double red[FSSIM_VMAF_SUMS * FSSIM_THREADS];
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, j = blockIdx.x;
    const double *part = (const double *)p.partials + (long long)p.first[j] * FSSIM_VMAF_SUMS;
    double s[FSSIM_VMAF_SUMS] = { 0.0, 0.0, 0.0, 0.0 };

    for (int b = tid; b < p.count[j]; b += FSSIM_THREADS)
        for (int k = 0; k < FSSIM_VMAF_SUMS; k++)
            s[k] = rn_add_f64(s[k], part[(long long)b * FSSIM_VMAF_SUMS + k]);
    vmaf_block_sums(red, s, tid);
    if (!tid)
        for (int k = 0; k < FSSIM_VMAF_SUMS; k++)
            ((double *)p.out)[j * FSSIM_VMAF_SUMS + k] = s[k];
}

/* The entry points of the module (fssim_vmaf.cu). */
#define FSSIM_VMAF_MODULE()                                                      \
extern "C" {                                                                     \
__global__ void __launch_bounds__(FSSIM_THREADS)                                 \
fssim_vmaf_load_8(FSSIMCudaVmafLoadParams p) { fssim_vmaf_load_impl<unsigned char>(p); } \
__global__ void __launch_bounds__(FSSIM_THREADS)                                 \
fssim_vmaf_load_16(FSSIMCudaVmafLoadParams p) { fssim_vmaf_load_impl<unsigned short>(p); } \
__global__ void __launch_bounds__(FSSIM_THREADS)                                 \
fssim_vmaf_lpf(FSSIMCudaVmafLpfParams p) { fssim_vmaf_lpf_impl(p); }             \
__global__ void __launch_bounds__(FSSIM_THREADS)                                 \
fssim_vmaf_score(FSSIMCudaVmafScoreParams p) { fssim_vmaf_score_impl(p); }       \
__global__ void __launch_bounds__(FSSIM_THREADS)                                 \
fssim_vmaf_reduce(FSSIMCudaVmafReduceParams p) { fssim_vmaf_reduce_impl(p); }    \
}

#endif /* FSSIM_VMAF_CUH */
