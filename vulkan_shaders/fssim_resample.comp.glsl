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
 * fssim: the ladder's resampler on Vulkan (doc/algorithms.md#resampling),
 * exactly as the CPU reference and the CUDA kernels compute it: the
 * coefficient tables come from the host (fssim_ref_resample_axis_init).
 *
 * MODE 0, one invocation per (output column, source row):
 *   h = sum q_i s_i over the column's taps, exact in int32 (the tables bound
 *   |h| below 2^31 for 16-bit samples), into tmp.
 * MODE 1, one invocation per output sample:
 *   v = sum q_j h_j in int64, sample = clamp((v + 2^27) >> 28, 0, L),
 *   stored shifted as its container holds it (so that the scoring shader
 *   reads it like a texel) in a buffer of the reference plane's size.
 */
#pragma shader_stage(compute)
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "fssim_consts.h"

layout (local_size_x = FSSIM_VK_TILE_W, local_size_y = FSSIM_VK_TILE_H) in;

layout (constant_id = 0) const int MODE = 0;

layout (push_constant, scalar) uniform PushData {
    ivec2 in_size;    /* the rendition's plane */
    ivec2 out_size;   /* the reference's plane */
    int   xtaps, ytaps;
    uint  xstart, xcoef, ystart, ycoef;   /* offsets into tab[] */
    int   plane, chan, shift, maxval;
    uint  tmp_off;    /* this plane's horizontal pass in tmp[] */
    uint  out_off;    /* this plane's samples in rs[] */
};

layout (set = 0, binding = 0) uniform utexture2D src0;
layout (set = 0, binding = 1) uniform utexture2D src1;
layout (set = 0, binding = 2) uniform utexture2D src2;
layout (set = 0, binding = 3) uniform utexture2D src3;
layout (set = 0, binding = 4, scalar) readonly buffer Tab { int tab[]; };
layout (set = 0, binding = 5, scalar) buffer Tmp { int tmp[]; };
layout (set = 0, binding = 6, scalar) buffer Rs  { uint rs[]; };

uint sample_at(ivec2 p)
{
    uvec4 v;
    switch (plane) {
    case 0:  v = texelFetch(src0, p, 0); break;
    case 1:  v = texelFetch(src1, p, 0); break;
    case 2:  v = texelFetch(src2, p, 0); break;
    default: v = texelFetch(src3, p, 0); break;
    }
    return (chan == 0 ? v.x : v.y) >> shift;
}

void main()
{
    const ivec2 o = ivec2(gl_GlobalInvocationID.xy);

    if (MODE == 0) {
        if (o.x >= out_size.x || o.y >= in_size.y)
            return;
        int h = 0;
        for (int k = 0; k < xtaps; k++) {
            const int i = clamp(tab[xstart + o.x] + k, 0, in_size.x - 1);
            h += tab[xcoef + o.x * xtaps + k] * int(sample_at(ivec2(i, o.y)));
        }
        tmp[tmp_off + o.y * out_size.x + o.x] = h;
    } else {
        if (o.x >= out_size.x || o.y >= out_size.y)
            return;
        int64_t v = 0;
        for (int k = 0; k < ytaps; k++) {
            const int j = clamp(tab[ystart + o.y] + k, 0, in_size.y - 1);
            v += int64_t(tab[ycoef + o.y * ytaps + k]) * int64_t(tmp[tmp_off + j * out_size.x + o.x]);
        }
        /* an arithmetic shift: floor division by 2^28, v may be negative */
        const int64_t s = (v + (int64_t(1) << (2 * FSSIM_RESAMPLE_BITS - 1))) >> (2 * FSSIM_RESAMPLE_BITS);
        rs[out_off + o.y * out_size.x + o.x] = uint(clamp(s, int64_t(0), int64_t(maxval))) << shift;
    }
}
