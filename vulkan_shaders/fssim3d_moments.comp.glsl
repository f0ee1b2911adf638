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
 * reaches there), then the separable Gaussian passes run in double with
 * the CPU reference's order and association (ref/ref_float.c): taps in
 * order from the left and the top, each product rounded before its sum
 * (precise: no fused multiply-add), so that the five moments are those of
 * the software backend bit for bit.  The centred variance sum and the
 * covariance are formed in double and only then rounded for storage; with
 * identical planes they come out as var_a + var_b == 2 cov exactly.
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
};


const int SW = TW + 2 * RF;     /* the tile and its halo */
const int SH = TH + 2 * RF;
const int HP = SH * TW;         /* one moment of the horizontal pass */

/* samples, main in the low and reference in the high 16 bits */
shared uint   smp[SW * SH];
/* horizontal sums: a, b, a^2, b^2, ab */
shared double hs[5 * HP];
/* taps in shared memory: a constant array indexed by a loop counter can
 * end up in slow local memory where a driver does not unroll */
shared double gw[2 * RMAX + 1];

#include "fssim_frames.glsl"

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
    for (int i = tid; i < SW * SH; i += NT) {
        const ivec2 p = org + ivec2(i % SW, i / SW);
        uint v = 0;
        if (all(greaterThanEqual(p, ivec2(0))) && all(lessThan(p, size)))
            v = (texel(false, p) >> shift) | ((texel(true, p) >> shift) << 16);
        smp[i] = v;
    }
    barrier();

    /* horizontal pass over every row of the halo, the tile's columns */
    for (int i = tid; i < HP; i += NT) {
        const int row = i / TW, col = i % TW;
        precise double sa = 0.0, sb = 0.0, saa = 0.0, sbb = 0.0, sab = 0.0;
        for (int j = 0; j <= 2 * RF; j++) {
            const uint v = smp[row * SW + col + j];
            const double a = double(v & 0xFFFFu), b = double(v >> 16);
            const double g = gw[j];
            precise double ta = g * a, tb = g * b;
            precise double taa = g * (a * a), tbb = g * (b * b), tab = g * (a * b);
            sa  += ta;
            sb  += tb;
            saa += taa;
            sbb += tbb;
            sab += tab;
        }
        hs[0 * HP + i] = sa;
        hs[1 * HP + i] = sb;
        hs[2 * HP + i] = saa;
        hs[3 * HP + i] = sbb;
        hs[4 * HP + i] = sab;
    }
    barrier();

    /* vertical pass: one scored position per invocation */
    const int lx = tid % TW, ly = tid / TW;
    const ivec2 o = tile + ivec2(lx, ly);
    if (o.x >= out_size.x || o.y >= out_size.y)
        return;

    precise double m[5] = double[5](0.0, 0.0, 0.0, 0.0, 0.0);
    for (int j = 0; j <= 2 * RF; j++) {
        const double g = gw[j];
        const int h = (ly + j) * TW + lx;
        for (int k = 0; k < 5; k++) {
            precise double t = g * hs[k * HP + h];
            m[k] += t;
        }
    }
    precise double vsum = (m[2] - m[0] * m[0]) + (m[3] - m[1] * m[1]);
    precise double cov  = m[4] - m[0] * m[1];
    const dvec4 v = dvec4(m[0], m[1], vsum, cov);
    const uint i = uint(o.y) * uint(out_size.x) + uint(o.x);

    uvec4 hi;
    uvec2 lo;
    record_encode(v, hi, lo);
    RecHi(hi_addr).hi[i] = hi;
    RecLo(lo_addr).lo[i] = lo;
}
