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

#include "fssim_cuda.h"

/* The block's dynamic shared memory (the emulation supplies its own). */
#ifndef FSSIM_DYNAMIC_SMEM
#define FSSIM_DYNAMIC_SMEM(name) extern __shared__ char name[]
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

#endif /* FSSIM_CUDA_DEVICE_CUH */
