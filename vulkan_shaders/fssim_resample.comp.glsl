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
 * A workgroup covers FSSIM_VK_TILE_W output columns by `rows` output rows
 * of one component.  It computes the horizontal pass of the source rows
 * its tile needs (its band, from the host's table) into shared memory,
 *   h = sum q_i s_i, exact in int32 (the tables bound |h| below 2^31 for
 *   16-bit samples),
 * then every output sample of the tile from them,
 *   v = sum q_j h_j in int64, sample = clamp((v + 2^27) >> 28, 0, L),
 * stored shifted as its container holds it (so that the scoring shader
 * reads it like a texel) in a buffer of the reference plane's size.  With
 * rows 0 (no band fits: a steep downscale) each output sample computes the
 * horizontal pass of its own source rows.
 */
#pragma shader_stage(compute)
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "fssim_consts.h"

#define TW FSSIM_VK_TILE_W
#define TH FSSIM_VK_TILE_H

layout (local_size_x = TW, local_size_y = TH) in;

layout (push_constant, scalar) uniform PushData {
    ivec2 in_size;    /* the rendition's plane */
    ivec2 out_size;   /* the reference's plane */
    int   xtaps, ytaps;
    uint  xstart, xcoef, ystart, ycoef;   /* offsets into tab[] */
    int   plane, chan, shift, maxval;
    uint  bands;      /* offset into tab[]: per row of tiles, first source row and count */
    int   rows;       /* output rows of a tile; 0: each output from the source alone */
    uint  out_off;    /* this plane's samples in rs[] */
};

layout (set = 0, binding = 0) uniform utexture2D src0;
layout (set = 0, binding = 1) uniform utexture2D src1;
layout (set = 0, binding = 2) uniform utexture2D src2;
layout (set = 0, binding = 3) uniform utexture2D src3;
layout (set = 0, binding = 4, scalar) readonly buffer Tab { int tab[]; };
layout (set = 0, binding = 5, scalar) buffer Rs  { uint rs[]; };

shared int band[FSSIM_RESAMPLE_SPAN * TW];

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

/* The horizontal pass of source row j (clamped to the plane) at output
 * column x. */
int hpass(int x, int j)
{
    const int y = clamp(j, 0, in_size.y - 1);
    int h = 0;

    for (int k = 0; k < xtaps; k++) {
        const int i = clamp(tab[xstart + x] + k, 0, in_size.x - 1);
        h += tab[xcoef + x * xtaps + k] * int(sample_at(ivec2(i, y)));
    }
    return h;
}

void store(ivec2 o, int64_t v)
{
    /* an arithmetic shift: floor division by 2^28, v may be negative */
    const int64_t s = (v + (int64_t(1) << (2 * FSSIM_RESAMPLE_BITS - 1))) >> (2 * FSSIM_RESAMPLE_BITS);
    rs[out_off + o.y * out_size.x + o.x] = uint(clamp(s, int64_t(0), int64_t(maxval))) << shift;
}

void main()
{
    const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
    const int x = int(gl_WorkGroupID.x) * TW + lx;

    if (rows == 0) {
        const int y = int(gl_WorkGroupID.y) * TH + ly;
        if (x < out_size.x && y < out_size.y) {
            int64_t v = 0;
            for (int k = 0; k < ytaps; k++)
                v += int64_t(tab[ycoef + y * ytaps + k]) * int64_t(hpass(x, tab[ystart + y] + k));
            store(ivec2(x, y), v);
        }
    } else {
        const int ty = int(gl_WorkGroupID.y);
        const int j0 = tab[bands + 2 * ty], n = tab[bands + 2 * ty + 1];

        if (x < out_size.x)
            for (int r = ly; r < n; r += TH)
                band[r * TW + lx] = hpass(x, j0 + r);
        barrier();
        if (x < out_size.x) {
            for (int y = ty * rows + ly; y < min(ty * rows + rows, out_size.y); y += TH) {
                const int b = tab[ystart + y] - j0;
                int64_t v = 0;
                for (int k = 0; k < ytaps; k++)
                    v += int64_t(tab[ycoef + y * ytaps + k]) * int64_t(band[(b + k) * TW + lx]);
                store(ivec2(x, y), v);
            }
        }
    }
}
