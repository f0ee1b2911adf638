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
 * fssim3d on Vulkan frames, temporal pass: the scores of one frame, or of
 * two consecutive frames, from the ring slots of their temporal windows
 * (see fssim3d_core.glsl for the ring).  The pass is bound by reading the
 * ring: two frames' windows share all but one tap, so scoring them
 * together reads each record once for both, 12 taps for two frames at
 * depth 11 instead of 22.
 *
 * MODE 0 (score): each workgroup scores CHUNK consecutive positions of one
 * component, each invocation PER of them NT apart (consecutive invocations
 * read consecutive records).  Per position and frame, the taps of its
 * window are combined in window order in double: sum_k w_k mu_k, and the raw second
 * moments rebuilt as sum_k w_k (var_k + mu_k^2) from the stored values (the
 * storage rounding thus only perturbs each tap's means and centred
 * variances by 2^-37 relative, never a difference of large squares); the
 * SSIM follows in the CPU reference's association.  An invocation adds its
 * positions' SSIM in order, the workgroup the invocations' sums in a fixed
 * tree, into one partial sum per workgroup and frame.  A frame's sums are
 * the same whether it is scored alone or with the next one: its taps are
 * taken in the same order, the other frame's skipped.
 * MODE 1 (sum): workgroup f adds a component's partial sums of frame f in
 * a fixed order into the result the host reads back.
 *
 * Every sum has a fixed order, so results are bitwise identical run to
 * run; no operation is contracted into a fused multiply-add (precise).
 */
#pragma shader_stage(compute)
#extension GL_GOOGLE_include_directive : require

#include "fssim3d_core.glsl"

#define MAXT  FSSIM3D_VK_MAX_TAPS   /* taps: FSSIM3D_MAX_DEPTH (63), rounded up */
#define PER   FSSIM3D_VK_SCORE_PER  /* positions per invocation */
#define CHUNK (NT * PER)

layout (local_size_x_id = 253, local_size_y_id = 254, local_size_z_id = 255) in;

layout (constant_id = 0) const int MODE = 0;

/* Keep in sync with FSSIM3DVkScorePush in fssim_be_vulkan3d.c. */
layout (push_constant, scalar) uniform PushData {
    double c1, c2;      /* (0.01 L)^2, (0.03 L)^2 */
    uint n;             /* scored positions of the component */
    uint hi_off;        /* the component's records in a slot, bytes */
    uint lo_off;
    uint nb_taps;       /* taps of either frame's window */
    uint part_off;      /* the component's first partial sum of frame 0 */
    uint nb_parts;
    uint comp;
    uint nb_frames;     /* 1 or 2 */
    uint part_stride;   /* frame 1's partial sums: part_stride further */
    uint res_at[2];     /* index in res[] of each frame's sum of the component */
};

/* The taps of the frames' windows, in window order: each frame's weight (0
 * where the tap is not in its window) and the ring slot's address.
 * Written by the host per pass. */
layout (set = 0, binding = 0, scalar) readonly buffer Window {
    double wt[2][MAXT];
    uvec2  slot[MAXT];
};
layout (set = 0, binding = 1, scalar) buffer Partials { double part[]; };
layout (set = 0, binding = 2, scalar) buffer Results  { double res[]; };

shared double swt[2][MAXT];
shared uvec2  shi[MAXT], slo[MAXT];
shared double red[NT];

/* The workgroup's sum of one value per invocation, in a fixed order;
 * valid in invocation 0. */
double reduce(double v, uint tid)
{
    red[tid] = v;
    barrier();
    for (uint st = NT / 2; st > 0; st >>= 1) {
        if (tid < st) {
            precise double s = red[tid] + red[tid + st];
            red[tid] = s;
        }
        barrier();
    }
    return red[0];
}

/* SSIM from the 3-D moments, in the association of
 * ff_fssim_ref_ssim_from_moments() with e2 = E[a^2 + b^2] */
double ssim(dvec4 m)
{
    precise double maa  = m.x * m.x;
    precise double mbb  = m.y * m.y;
    precise double mab  = m.x * m.y;
    precise double msum = maa + mbb;
    precise double vsum = m.z - msum;
    precise double cov  = m.w - mab;
    precise double num  = (2.0 * mab + c1) * (2.0 * cov + c2);
    precise double den  = (msum + c1) * (vsum + c2);
    /* identical inputs give num == den exactly; a GPU's double division
     * need not be correctly rounded, x / x must still be 1 */
    return num == den ? 1.0 : num / den;
}

dvec4 load(uint k, uint i)
{
    return record_decode(RecHi(shi[k]).hi[i], RecLo(slo[k]).lo[i]);
}

void score_main(uint tid)
{
    const uint i0 = gl_WorkGroupID.x * CHUNK + tid;
    precise dvec4 acc[2][PER];

    if (tid < nb_taps) {
        swt[0][tid] = wt[0][tid];
        swt[1][tid] = wt[1][tid];
        shi[tid] = addr_add(slot[tid], hi_off);
        slo[tid] = addr_add(slot[tid], lo_off);
    }
    barrier();

    for (int j = 0; j < PER; j++)
        acc[0][j] = acc[1][j] = dvec4(0.0);
    for (uint k = 0; k < nb_taps; k++) {
        const double w0 = swt[0][k], w1 = swt[1][k];
        for (int j = 0; j < PER; j++) {
            const uint i = i0 + j * NT;
            if (i < n) {
                const dvec4 v = load(k, i);
                precise double e2  = v.z + (v.x * v.x + v.y * v.y);
                precise double eab = v.w + v.x * v.y;
                const dvec4 m = dvec4(v.x, v.y, e2, eab);
                /* uniform branches: a tap outside a window adds nothing,
                 * not even a zero */
                if (w0 != 0.0) {
                    precise dvec4 t = w0 * m;
                    acc[0][j] += t;
                }
                if (w1 != 0.0) {
                    precise dvec4 t = w1 * m;
                    acc[1][j] += t;
                }
            }
        }
    }
    /* each frame's accumulators by a constant index: a dynamic one can put
     * the array in slow local memory */
    precise double sum0 = 0.0, sum1 = 0.0;
    for (int j = 0; j < PER; j++) {
        if (i0 + j * NT < n) {
            sum0 += ssim(acc[0][j]);
            if (nb_frames > 1)
                sum1 += ssim(acc[1][j]);
        }
    }
    sum0 = reduce(sum0, tid);
    if (tid == 0)
        part[part_off + gl_WorkGroupID.x] = sum0;
    if (nb_frames > 1) {
        /* every invocation has read red[] before it is written again */
        barrier();
        sum1 = reduce(sum1, tid);
        if (tid == 0)
            part[part_off + part_stride + gl_WorkGroupID.x] = sum1;
    }
}

void sum_main(uint tid)
{
    const uint f = gl_WorkGroupID.x;
    precise double v = 0.0;
    for (uint i = tid; i < nb_parts; i += NT)
        v += part[part_off + f * part_stride + i];
    v = reduce(v, tid);
    if (tid == 0)
        res[res_at[f]] = v;
}

void main()
{
    if (MODE == 0)
        score_main(gl_LocalInvocationIndex);
    else
        sum_main(gl_LocalInvocationIndex);
}
