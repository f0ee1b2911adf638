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
 * fssim CUDA kernels: device-side helpers shared by fssim.cu and fssim3d.cu.
 *
 * FFmpeg compiles kernels with nvcc or with clang and its minimal
 * compat/cuda/cuda_runtime.h, which lacks shared memory and barriers; the
 * emulation test compiles them as host C++ (FSSIM_CUDA_EMULATION).
 */
#ifndef FSSIM_CUDA_DEVICE_CUH
#define FSSIM_CUDA_DEVICE_CUH

#if defined(COMPAT_CUDA_CUDA_RUNTIME_H) && !defined(FSSIM_CUDA_EMULATION)
#define __shared__            __attribute__((shared))
#define __forceinline__       __attribute__((always_inline)) inline
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __syncthreads()       __nvvm_bar_sync(0)
#define gridDim               (getGridDim())
static inline __device__ uint3 getGridDim()
{
    uint3 r = { __nvvm_read_ptx_sreg_nctaid_x(), __nvvm_read_ptx_sreg_nctaid_y(),
                __nvvm_read_ptx_sreg_nctaid_z() };
    return r;
}
#endif

#include "fssim_cuda_params.h"

/* The block's dynamic shared memory (the emulation supplies its own). */
#ifndef FSSIM_DYNAMIC_SMEM
#define FSSIM_DYNAMIC_SMEM(name) extern __shared__ __align__(16) char name[]
#endif

/*
 * IEEE double and float operations that are never contracted into fused
 * multiply-adds: PTX gives .rn operations that ptxas must not fuse, and
 * both nvcc and clang fuse plain a*b+c.  doc/algorithms.md#int fixes the double
 * arithmetic of the int algorithm; the block algorithm repeats vf_ssim.c's
 * float end formula; the float algorithm's end formula is built from them
 * so that identical inputs score exactly 1.
 */
#ifdef FSSIM_CUDA_EMULATION
static __device__ __forceinline__ double rn_mul_f64(double a, double b) { return a * b; }
static __device__ __forceinline__ double rn_add_f64(double a, double b) { return a + b; }
static __device__ __forceinline__ double rn_sub_f64(double a, double b) { return a - b; }
static __device__ __forceinline__ double rn_div_f64(double a, double b) { return a / b; }
static __device__ __forceinline__ float  rn_mul_f32(float a, float b)   { return a * b; }
static __device__ __forceinline__ float  rn_add_f32(float a, float b)   { return a + b; }
static __device__ __forceinline__ float  rn_sub_f32(float a, float b)   { return a - b; }
static __device__ __forceinline__ float  rn_div_f32(float a, float b)   { return a / b; }
#else
#define FSSIM_PTX_OP(name, type, op, cons)                                       \
static __device__ __forceinline__ type name(type a, type b)                      \
{                                                                                \
    type r;                                                                      \
    asm(op " %0, %1, %2;" : "=" cons(r) : cons(a), cons(b));                     \
    return r;                                                                    \
}
FSSIM_PTX_OP(rn_mul_f64, double, "mul.rn.f64", "d")
FSSIM_PTX_OP(rn_add_f64, double, "add.rn.f64", "d")
FSSIM_PTX_OP(rn_sub_f64, double, "sub.rn.f64", "d")
FSSIM_PTX_OP(rn_div_f64, double, "div.rn.f64", "d")
FSSIM_PTX_OP(rn_mul_f32, float,  "mul.rn.f32", "f")
FSSIM_PTX_OP(rn_add_f32, float,  "add.rn.f32", "f")
FSSIM_PTX_OP(rn_sub_f32, float,  "sub.rn.f32", "f")
FSSIM_PTX_OP(rn_div_f32, float,  "div.rn.f32", "f")
#undef FSSIM_PTX_OP
#endif

/*
 * v of lane (lane ^ m) of the calling warp, whose 32 threads all call it
 * with the same m.  shfl.sync needs PTX ISA 6.0: nvcc emits that or later,
 * clang only when told (filters/ffmpeg.mak), since FFmpeg's sm_30 makes it
 * emit 3.2; the shfl of older PTX is undefined on Volta and later GPUs
 * unless the warp happens to be converged.
 */
#ifdef FSSIM_CUDA_EMULATION
static __device__ __forceinline__ double warp_xor(double v, int m)
{
    return fssim_emu_shfl_xor(v, m);
}
#else
static __device__ __forceinline__ double warp_xor(double v, int m)
{
    double r;
    asm volatile("{ .reg .b32 lo, hi;\n\t"
                 "mov.b64 {lo, hi}, %1;\n\t"
                 "shfl.sync.bfly.b32 lo, lo, %2, 0x1f, 0xffffffff;\n\t"
                 "shfl.sync.bfly.b32 hi, hi, %2, 0x1f, 0xffffffff;\n\t"
                 "mov.b64 %0, {lo, hi}; }" : "=d"(r) : "d"(v), "r"(m));
    return r;
}
#endif

/* A sample of a frame, read as global memory (ld.global), which the frames
 * are, rather than through a generic pointer. */
#ifdef FSSIM_CUDA_EMULATION
template <typename T>
static __device__ __forceinline__ unsigned load_global(unsigned long long a)
{
    return *(const T *)a;
}
#else
template <typename T>
static __device__ __forceinline__ unsigned load_global(unsigned long long a);
template <>
__device__ __forceinline__ unsigned load_global<unsigned char>(unsigned long long a)
{
    unsigned short v;
    asm("ld.global.u8 %0, [%1];" : "=h"(v) : "l"(a));
    return v;
}
template <>
__device__ __forceinline__ unsigned load_global<unsigned short>(unsigned long long a)
{
    unsigned short v;
    asm("ld.global.u16 %0, [%1];" : "=h"(v) : "l"(a));
    return v;
}
#endif

/* N values stored (or loaded) at once, in 16-byte units. */
template <typename T, int N>
struct alignas(16) Aligned16 {
    T v[N];
};

/* Four samples of a row, STEP containers apart (1: a planar format, 2: a
 * semi-planar one's chroma), read at once from an address aligned to their
 * size: 4, 8 or 16 bytes. */
template <typename T, int STEP> struct SampleQuad { unsigned w[STEP * sizeof(T)]; };

#ifdef FSSIM_CUDA_EMULATION
template <typename T, int STEP>
static __device__ __forceinline__ SampleQuad<T, STEP> load_quad(unsigned long long a)
{
    return *(const SampleQuad<T, STEP> *)a;
}
#else
template <typename T, int STEP, int WORDS = STEP * sizeof(T)> struct QuadLoad;
template <typename T, int STEP> struct QuadLoad<T, STEP, 1> {
    static __device__ __forceinline__ void load(unsigned *w, unsigned long long a)
    {
        asm("ld.global.u32 %0, [%1];" : "=r"(w[0]) : "l"(a));
    }
};
template <typename T, int STEP> struct QuadLoad<T, STEP, 2> {
    static __device__ __forceinline__ void load(unsigned *w, unsigned long long a)
    {
        asm("ld.global.v2.u32 {%0, %1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "l"(a));
    }
};
template <typename T, int STEP> struct QuadLoad<T, STEP, 4> {
    static __device__ __forceinline__ void load(unsigned *w, unsigned long long a)
    {
        asm("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "l"(a));
    }
};
template <typename T, int STEP>
static __device__ __forceinline__ SampleQuad<T, STEP> load_quad(unsigned long long a)
{
    SampleQuad<T, STEP> q;
    QuadLoad<T, STEP>::load(q.w, a);
    return q;
}
#endif

/* Sample b (0-3) of a quad whose first sample is phase bytes into it (a
 * semi-planar format's second component: 0 or sizeof(T)). */
template <typename T, int STEP>
static __device__ __forceinline__ unsigned quad_sample(const SampleQuad<T, STEP> &q, int b,
                                                       int phase)
{
    enum { BYTES = STEP * sizeof(T) };
    return (q.w[b * BYTES / 4] >> 8 * (b * BYTES % 4 + phase)) & ((1u << 8 * sizeof(T)) - 1);
}

/* Whether the tile at (x0, y0) and its halo of R samples lie inside the
 * width x height plane: then its loads and passes need no bounds. */
static __device__ __forceinline__ bool tile_interior(int x0, int y0, int R, int width, int height)
{
    return x0 >= R && y0 >= R && x0 + FSSIM_TILE + R <= width && y0 + FSSIM_TILE + R <= height;
}

/*
 * Load a tile's region (the tile and its halo, region x region samples
 * around (x0, y0)) of one plane into dst, or of two into dst and dst2
 * (PAIR); fetch(which, x, y) gives sample (x, y) of plane which (0 or 1),
 * and samples outside the width x height plane read as 0.  The threads take
 * the region's samples in raster order, so a warp reads along rows and
 * every slot holds a sample; RMAX, the largest region, is a compile-time
 * bound, and the region itself is one when the radius is.  Every load of a
 * thread is issued before its first store, so their latencies overlap.
 * (Rows of 32-sample slots left a third of them idle:
 * doc/performance.md#cuda-the-tile-loader.)
 * INTERIOR: the region lies in the plane, no bounds (most tiles).
 */
template <int RMAX, bool PAIR, bool INTERIOR, typename Fetch>
static __device__ __forceinline__ void load_slots(float *dst, float *dst2, int region, int stride,
                                                  int x0, int y0, int width, int height,
                                                  const Fetch &fetch)
{
    enum { SLOTS = (RMAX * RMAX + FSSIM_THREADS - 1) / FSSIM_THREADS };
    const int R = (region - FSSIM_TILE) / 2;
    const int tid = threadIdx.y * FSSIM_TILE + threadIdx.x;
    float s[SLOTS], d[SLOTS];

#pragma unroll
    for (int k = 0; k < SLOTS; k++) {
        const int i = tid + k * FSSIM_THREADS;
        const int ry = i / region, rx = i - ry * region;
        const int gx = x0 - R + rx, gy = y0 - R + ry;
        const bool in = i < region * region &&
                        (INTERIOR || (gx >= 0 && gx < width && gy >= 0 && gy < height));

        s[k] = in ? fetch(0, gx, gy) : 0.0f;
        d[k] = in && PAIR ? fetch(1, gx, gy) : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < SLOTS; k++) {
        const int i = tid + k * FSSIM_THREADS;
        const int ry = i / region, j = i + ry * (stride - region);
        if (i < region * region) {
            dst[j] = s[k];
            if (PAIR)
                dst2[j] = d[k];
        }
    }
}

/* Two copies, not one with a run-time test per sample: merged, the bounds
 * of every slot were computed for interior tiles too
 * (doc/performance.md#cuda-the-tile-loader). */
template <int RMAX, bool PAIR, typename Fetch>
static __device__ __forceinline__ void load_region(float *dst, float *dst2, int region, int stride,
                                                   int x0, int y0, int width, int height,
                                                   bool interior, const Fetch &fetch)
{
    if (interior)
        load_slots<RMAX, PAIR, true>(dst, dst2, region, stride, x0, y0, width, height, fetch);
    else
        load_slots<RMAX, PAIR, false>(dst, dst2, region, stride, x0, y0, width, height, fetch);
}

/*
 * An interior region by quads: four samples of a row in one aligned load
 * and one 16-byte store, where load_slots reads and stores them one by one.
 * a, a2: the address of the quad holding the region's first row's column
 * -lead (a multiple of 4 in the plane), whose sample is phase bytes into it;
 * q quads cover a row, stride = 4 q floats of dst and dst2 (column -lead of
 * each row 16-byte aligned).  The quads' samples outside the region land
 * in the rows' margins.  (The loader's share of a tile's instructions and
 * stalls: doc/performance.md#cuda-the-tile-loader.)
 */
template <typename T, int STEP, int RMAX, bool PAIR>
static __device__ __forceinline__ void load_quads(float *dst, float *dst2, int region, int lead,
                                                  int q, unsigned long long a, int pitch,
                                                  unsigned long long a2, int pitch2, int phase,
                                                  int shift)
{
    enum { QMAX = (RMAX + 3 + 3) / 4,
           SLOTS = (RMAX * QMAX + FSSIM_THREADS - 1) / FSSIM_THREADS };
    const int tid = threadIdx.y * FSSIM_TILE + threadIdx.x;
    SampleQuad<T, STEP> s[SLOTS], d[SLOTS];

#pragma unroll
    for (int k = 0; k < SLOTS; k++) {
        const int i = tid + k * FSSIM_THREADS;
        const int ry = i / q, qx = i - ry * q;
        if (i < region * q) {
            const int o = qx * 4 * STEP * (int)sizeof(T);
            s[k] = load_quad<T, STEP>(a + (long long)(ry * pitch + o));
            if (PAIR)
                d[k] = load_quad<T, STEP>(a2 + (long long)(ry * pitch2 + o));
        }
    }
#pragma unroll
    for (int k = 0; k < SLOTS; k++) {
        const int i = tid + k * FSSIM_THREADS;
        if (i < region * q) {
            Aligned16<float, 4> fs, fd;
#pragma unroll
            for (int b = 0; b < 4; b++) {
                fs.v[b] = (float)(quad_sample<T, STEP>(s[k], b, phase) >> shift);
                fd.v[b] = PAIR ? (float)(quad_sample<T, STEP>(d[k], b, phase) >> shift) : 0.0f;
            }
            /* row ry's quad qx: 4 i floats from column -lead */
            *(Aligned16<float, 4> *)(dst - lead + 4 * i) = fs;
            if (PAIR)
                *(Aligned16<float, 4> *)(dst2 - lead + 4 * i) = fd;
        }
    }
}

/* Rows per vertical-pass work item: a thread walks down one column. */
#define FSSIM_VROWS (FSSIM_TILE * FSSIM_TILE / FSSIM_THREADS)

/* Output o of a Gaussian pass over x, the taps in order, each a fused
 * multiply-add: x[o] .. x[o + 2 r] weighted by g[0] .. g[2 r].  RF: r when
 * known at compile time (0: the run-time r, up to FSSIM_MAX_RADIUS). */
template <int RF, int N>
static __device__ __forceinline__ float gauss_taps(const float *g, int r, const float (&x)[N],
                                                  int o)
{
    enum { NT = 2 * (RF ? RF : FSSIM_MAX_RADIUS) + 1 };
    float acc = 0.0f;

#pragma unroll
    for (int j = 0; j < NT; j++)
        if (j <= 2 * r)
            acc += g[j] * x[o + j];
    return acc;
}

/*
 * The vertical Gaussian pass of four planes of horizontal sums, for the
 * thread's FSSIM_VROWS rows of one column: H is the column's first row of
 * the window of the thread's first output, plane the planes' stride, g the
 * 2 r + 1 weights.  RF: r when known at compile time (0: the run-time r).
 * SKIP: a set of planes (bit k: plane k) left out, whose sums the caller
 * has already.  The float algorithm's moments and msssim's both go through it.
 */
template <int RF, int SKIP = 0>
static __device__ __forceinline__ void vgauss4(const float *H, int plane, const float *g, int r,
                                               float v[FSSIM_VROWS][4])
{
    enum { NT = 2 * (RF ? RF : FSSIM_MAX_RADIUS) + 1, NS = FSSIM_VROWS + NT - 1 };

#pragma unroll
    for (int k = 0; k < 4; k++) {
        float m[NS];
        if (SKIP & (1 << k))
            continue;
#pragma unroll
        for (int i = 0; i < NS; i++)
            m[i] = i < FSSIM_VROWS + 2 * r ? H[k * plane + i * FSSIM_TILE] : 0.0f;
#pragma unroll
        for (int o = 0; o < FSSIM_VROWS; o++)
            v[o][k] = gauss_taps<RF>(g, r, m, o);
    }
}

/*
 * Sum each of N values over the thread block in a fixed order (each warp's
 * 32 values in lane order, then the warps in order), so the result does not
 * depend on scheduling.  red: N * (FSSIM_THREADS + FSSIM_WARPS) doubles of
 * shared memory.  The first N threads write the N sums to out.
 */
template <int N>
static __device__ __forceinline__ void block_sums(double *red, const double *v, double *out)
{
    const int tid = threadIdx.y * FSSIM_TILE + threadIdx.x;
    double *warp = red + N * FSSIM_THREADS;

#pragma unroll
    for (int k = 0; k < N; k++)
        red[k * FSSIM_THREADS + tid] = v[k];
    __syncthreads();
    if (tid < N * FSSIM_WARPS) {
        const double *in = red + tid / FSSIM_WARPS * FSSIM_THREADS + tid % FSSIM_WARPS * 32;
        double sum = 0.0;
        for (int i = 0; i < 32; i++)
            sum += in[i];
        warp[tid] = sum;
    }
    __syncthreads();
    if (tid < N) {
        double sum = 0.0;
        for (int i = 0; i < FSSIM_WARPS; i++)
            sum += warp[tid * FSSIM_WARPS + i];
        out[tid] = sum;
    }
}

/*
 * The sums over the calling warp of each of its lanes' four values v[k], in
 * a fixed order: a butterfly of shuffles whose first two steps halve the
 * values a lane carries (lanes 0-15 keep values 0 and 1, lanes 16-31 values
 * 2 and 3; then the lanes with bit 3 clear keep the first of their two), so
 * that after five steps lanes 8k to 8k + 7 hold value k's sum, returned.
 * Every thread of the warp calls it; blockDim.x is 32, so threadIdx.x is
 * the lane.
 */
static __device__ __forceinline__ double warp_sums4(const double (&v)[4])
{
    const bool h16 = threadIdx.x & 16, h8 = threadIdx.x & 8;
    double a = h16 ? v[2] : v[0], b = h16 ? v[3] : v[1], s;

    a = a + warp_xor(h16 ? v[0] : v[2], 16);
    b = b + warp_xor(h16 ? v[1] : v[3], 16);
    s = h8 ? b : a;
    s = s + warp_xor(h8 ? a : b, 8);
    s = s + warp_xor(s, 4);
    s = s + warp_xor(s, 2);
    return s + warp_xor(s, 1);
}

/* Keep warp_sums4's sums in red (4 * FSSIM_WARPS doubles of shared
 * memory): value k's of warp w at red[k * FSSIM_WARPS + w]. */
static __device__ __forceinline__ void keep_warp_sums(double *red, double s)
{
    if (!(threadIdx.x & 7))
        red[threadIdx.x / 8 * FSSIM_WARPS + threadIdx.y] = s;
}

/*
 * Sum each of four values v[k] over the thread block into out[k], in a
 * fixed order (the same bits every run): over each warp (warp_sums4), then
 * over the warps in order, after one barrier, where two barriers and
 * 32-long chains of additions, paid per tile, were slower
 * (doc/performance.md#cuda-the-tile-and-frame-reductions).  Every thread
 * calls it; the first four write out.
 */
static __device__ __forceinline__ void tile_sums(double *red, const double (&v)[4], double *out)
{
    const int tid = threadIdx.y * FSSIM_TILE + threadIdx.x;

    keep_warp_sums(red, warp_sums4(v));
    __syncthreads();
    if (tid < 4) {
        double sum = 0.0;
        for (int i = 0; i < FSSIM_WARPS; i++)
            sum += red[tid * FSSIM_WARPS + i];
        out[tid] = sum;
    }
}

#endif /* FSSIM_CUDA_DEVICE_CUH */
