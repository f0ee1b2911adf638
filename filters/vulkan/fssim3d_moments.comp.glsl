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
 * fssim3d on Vulkan frames, spatial pass: the moments of one component of
 * one frame pair into its ring slot (see fssim3d_core.glsl for the record).
 *
 * One workgroup computes a TW x TH tile of scored positions.  The samples
 * of the tile and its halo are read once into shared memory (zero outside
 * the plane: padding=same's zeros; under padding=valid no scored window
 * reaches there), then the separable Gaussian passes run in double with the
 * CUDA backend's arithmetic (filters/cuda/fssim3d.cuh): four moments per
 * position (a, b, a^2 + b^2 and ab, the last two exact in double since
 * samples are below 2^16), each tap one fused multiply-add, taps in order
 * from the left and the top.  A horizontal work item slides over HC
 * outputs of a row, so a sample is converted and squared once for all the
 * outputs whose window holds it; a vertical one walks VR outputs down a
 * column, so that each row of horizontal sums is read once for them
 * (against one output per tap and invocation with five moments and no
 * fused multiply-add: doc/performance.md#vulkan-fssim3d).  The centred
 * variance sum and the
 * covariance are formed in double and only then rounded for storage; with
 * identical planes every step on b's side equals a's and every step on
 * the sum of squares doubles the product's exactly, so var_a + var_b ==
 * 2 cov exactly.
 */
#pragma shader_stage(compute)
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

#include "fssim3d_core.glsl"

layout (local_size_x_id = 253, local_size_y_id = 254, local_size_z_id = 255) in;

layout (constant_id = 0)  const int    RF  = 5;   /* window radius */
/* the normalised Gaussian weights, in double as the reference computes them */
layout (constant_id = 1)  const double G0  = 0.0;
layout (constant_id = 2)  const double G1  = 0.0;
layout (constant_id = 3)  const double G2  = 0.0;
layout (constant_id = 4)  const double G3  = 0.0;
layout (constant_id = 5)  const double G4  = 0.0;
layout (constant_id = 6)  const double G5  = 0.0;
layout (constant_id = 7)  const double G6  = 0.0;
layout (constant_id = 8)  const double G7  = 0.0;
layout (constant_id = 9)  const double G8  = 0.0;
layout (constant_id = 10) const double G9  = 0.0;
layout (constant_id = 11) const double G10 = 0.0;
layout (constant_id = 12) const double G11 = 0.0;
layout (constant_id = 13) const double G12 = 0.0;
layout (constant_id = 14) const double G13 = 0.0;
layout (constant_id = 15) const double G14 = 0.0;
/* the main samples come from rsb[] (a main input of another size or
 * format, resampled to the reference's planes, fssim_resample.comp.glsl) */
layout (constant_id = 16) const bool   MAIN_BUF = false;

/* Keep in sync with FSSIM3DVkMomentsPush in fssim3d_vulkan.c. */
layout (push_constant, scalar) uniform PushData {
    uvec2 hi_addr;     /* this component's records in the slot */
    uvec2 lo_addr;
    ivec2 size;        /* plane, in samples */
    ivec2 out_size;    /* scored positions */
    int   offset;      /* plane x and y of scored position 0 */
    int   plane;       /* image (plane) of the frames holding the component */
    int   chan;        /* channel of that image's texels */
    int   shift;       /* right shift giving the sample value (P010: 6) */
    uint  buf_off;     /* MAIN_BUF: this plane's first sample in rsb[] */
    uint  buf_pitch;   /* MAIN_BUF: samples from one row to the next */
};

layout (set = 0, binding = 8, scalar) readonly buffer Rsb { uint rsb[]; };


const int HC = 4;               /* horizontal outputs per work item */
const int VR = 2;               /* vertical outputs per invocation (4 was slower) */
const int HG = TW / HC;         /* horizontal work items per row */
const int SW = TW + 2 * RF;     /* the tile and its halo */
const int SH = TH + 2 * RF;
const int HP = SH * TW;         /* positions of the horizontal pass */

/* samples, main in the low and reference in the high 16 bits */
shared uint  smp[SW * SH];
/* horizontal sums of a, b, a^2 + b^2 and ab */
shared dvec4 hs[HP];
/* taps in shared memory: a constant array indexed by a loop counter can
 * end up in slow local memory where a driver does not unroll */
shared double gw[2 * RMAX + 1];

#define FSSIM_FRAMES_MAIN_BUF
#include "fssim_frames.glsl"

/* The samples of the tile and its halo from org, main in the low and
 * reference in the high 16 bits; 0 outside the plane. */
void load_region(ivec2 org, int tid, bool inside, int pl)
{
    for (int i = tid; i < SW * SH; i += NT) {
        const ivec2 p = org + ivec2(i % SW, i / SW);
        uint v = 0;
        if (inside || (all(greaterThanEqual(p, ivec2(0))) && all(lessThan(p, size))))
            v = (texel_of(false, p, pl) >> shift) | ((texel_of(true, p, pl) >> shift) << 16);
        smp[i] = v;
    }
}

/* The tile and its halo from org, the halo's top left (FSSIM_LOAD_COPIES). */
void load_tile(ivec2 org, int tid)
{
    FSSIM_LOAD_COPIES(load_region, org, tid, tile_inside(org + RF, RF));
}

void main()
{
    const int tid = int(gl_LocalInvocationIndex);
    const ivec2 tile = ivec2(gl_WorkGroupID.xy) * ivec2(TW, TH);
    /* plane position of the halo's top left sample */
    const ivec2 org = tile + offset - RF;

    if (tid < 2 * RF + 1) {
        const double g[15] = double[15](G0, G1, G2, G3, G4, G5, G6, G7,
                                        G8, G9, G10, G11, G12, G13, G14);
        gw[tid] = g[tid];
    }
    load_tile(org, tid);
    barrier();

    /* horizontal pass over every row of the halo, HC outputs of the tile's
     * columns per work item: sample i is tap i - o of output o */
    for (int it = tid; it < SH * HG; it += NT) {
        const int row = it / HG, c0 = it % HG * HC;
        precise dvec4 acc[HC];
        for (int o = 0; o < HC; o++)
            acc[o] = dvec4(0.0);
        for (int i = 0; i < HC + 2 * RF; i++) {
            const uint v = smp[row * SW + c0 + i];
            const double a = double(v & 0xFFFFu), b = double(v >> 16);
            const dvec4 s = dvec4(a, b, a * a + b * b, a * b);
            for (int o = 0; o < HC; o++) {
                const int j = i - o;
                if (j >= 0 && j <= 2 * RF)
                    acc[o] = fma(dvec4(gw[j]), s, acc[o]);
            }
        }
        for (int o = 0; o < HC; o++)
            hs[row * TW + c0 + o] = acc[o];
    }
    barrier();

    /* vertical pass: VR scored positions down a column per invocation (half
     * of them idle), so that a row of horizontal sums is read once for VR
     * outputs: shared memory bandwidth bounds this pass */
    if (tid >= NT / VR)
        return;
    const int lx = tid % TW, ly = tid / TW * VR;
    precise dvec4 m[VR];
    for (int o = 0; o < VR; o++)
        m[o] = dvec4(0.0);
    for (int i = 0; i < VR + 2 * RF; i++) {
        const dvec4 h = hs[(ly + i) * TW + lx];
        for (int o = 0; o < VR; o++) {
            const int j = i - o;
            if (j >= 0 && j <= 2 * RF)
                m[o] = fma(dvec4(gw[j]), h, m[o]);
        }
    }
    for (int o = 0; o < VR; o++) {
        const ivec2 q = tile + ivec2(lx, ly + o);
        if (q.x >= out_size.x || q.y >= out_size.y)
            break;
        precise double vsum = m[o].z - (m[o].x * m[o].x + m[o].y * m[o].y);
        precise double cov  = m[o].w - m[o].x * m[o].y;
        const uint i = uint(q.y) * uint(out_size.x) + uint(q.x);
        uvec4 hi;
        uvec2 lo;
        record_encode(dvec4(m[o].x, m[o].y, vsum, cov), hi, lo);
        RecHi(hi_addr).hi[i] = hi;
        RecLo(lo_addr).lo[i] = lo;
    }
}
