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
 * fssim: the resampler on Vulkan (doc/algorithms.md#resampling), exactly as
 * the CPU reference and the CUDA kernels compute it: the coefficient tables
 * come from the host (ff_fssim_ref_resample_axis_init).
 *
 * A workgroup covers FSSIM_VK_TILE_W output columns by `rows` output rows
 * of one component.  It computes the horizontal pass of the source rows
 * its tile needs (its band, from the host's table) into shared memory,
 * reading the rendition's images through views of its own format (its
 * plane, channel and shift; samples as stored),
 *   h = sum q_i s_i, exact in int32 (the tables bound |h| below 2^31 for
 *   16-bit samples),
 * then every output sample of the tile from them,
 *   v = sum q_j h_j in int64, sample = clamp((v + 2^(n-1)) >> n, 0, L),
 * n = 28 less the difference of the reference's and the rendition's bit
 * depths (FSSIM_RESAMPLE_SHIFT), stored shifted as the reference's
 * container holds it (so that the scoring shader reads it like a texel) in
 * a buffer of the reference plane's size.  With rows 0 (no band fits: a
 * steep downscale) each output sample computes the horizontal pass of its
 * own source rows.
 */
#pragma shader_stage(compute)
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require

#include "../core/fssim_consts.h"

#define TW FSSIM_VK_TILE_W
#define TH FSSIM_VK_TILE_H

layout (local_size_x = TW, local_size_y = TH) in;

layout (push_constant, scalar) uniform PushData {
    ivec2 in_size;    /* the rendition's plane */
    ivec2 out_size;   /* the reference's plane */
    int   xtaps, ytaps;
    uint  xstart, xcoef, ystart, ycoef;   /* offsets into tab[] */
    int   plane, chan, shift;   /* the rendition's image, channel, right shift */
    int   maxval;     /* the reference's L */
    uint  bands;      /* offset into tab[]: per row of tiles, first source row and count */
    int   rows;       /* output rows of a tile; 0: each output from the source alone */
    uint  out_off;    /* this plane's samples in rs[] */
    int   out_shift;  /* left shift of the reference's container (P010: 6) */
    int   round;      /* the final rounding's shift (FSSIM_RESAMPLE_SHIFT) */
};

layout (set = 0, binding = 0) uniform utexture2D src0;
layout (set = 0, binding = 1) uniform utexture2D src1;
layout (set = 0, binding = 2) uniform utexture2D src2;
layout (set = 0, binding = 3) uniform utexture2D src3;
layout (set = 0, binding = 4, scalar) readonly buffer Tab { int tab[]; };
layout (set = 0, binding = 5, scalar) buffer Rs  { uint rs[]; };

shared int band[FSSIM_RESAMPLE_SPAN * TW];
/* With 4 vertical taps, the tile's rows' coefficients and first band rows,
 * read once by the workgroup rather than by every invocation of a row. */
shared int rowq[4 * FSSIM_VK_RESAMPLE_ROWS];
shared int rowb[FSSIM_VK_RESAMPLE_ROWS];

/* The sample at p of image pl. */
uint sample_at(ivec2 p, int pl)
{
    uvec4 v;
    switch (pl) {
    case 0:  v = texelFetch(src0, p, 0); break;
    case 1:  v = texelFetch(src1, p, 0); break;
    case 2:  v = texelFetch(src2, p, 0); break;
    default: v = texelFetch(src3, p, 0); break;
    }
    return (chan == 0 ? v.x : v.y) >> shift;
}

/* The horizontal pass of source row j (clamped to the plane) at output
 * column x, from image pl. */
int hpass(int x, int j, int pl)
{
    const int y = clamp(j, 0, in_size.y - 1);
    int h = 0;

    for (int k = 0; k < xtaps; k++) {
        const int i = clamp(tab[xstart + x] + k, 0, in_size.x - 1);
        h += tab[xcoef + x * xtaps + k] * int(sample_at(ivec2(i, y), pl));
    }
    return h;
}

/* Rows r = ly, ly + TH, ... of the band (source rows from j0) at output
 * column x, from image pl.  Bicubic upscaling (4 taps), the common case,
 * takes its column's clamped tap positions and coefficients once for all
 * its rows and an unrolled tap loop. */
void band_hpass(int x, int lx, int ly, int j0, int n, int pl)
{
    if (xtaps != 4) {
        for (int r = ly; r < n; r += TH)
            band[r * TW + lx] = hpass(x, j0 + r, pl);
        return;
    }
    int i[4], q[4];
    [[unroll]] for (int k = 0; k < 4; k++) {
        i[k] = clamp(tab[xstart + x] + k, 0, in_size.x - 1);
        q[k] = tab[xcoef + x * 4 + k];
    }
    for (int r = ly; r < n; r += TH) {
        const int y = clamp(j0 + r, 0, in_size.y - 1);
        int h = 0;
        [[unroll]] for (int k = 0; k < 4; k++)
            h += q[k] * int(sample_at(ivec2(i[k], y), pl));
        band[r * TW + lx] = h;
    }
}

/* The coefficients and first band row of the tile's output rows from y0
 * (4 vertical taps only), one per invocation: fssim_be_vulkan.c asserts
 * that the workgroup has enough.  (A loop over the workgroup was slower:
 * doc/performance.md#resampling.) */
void load_rows(int y0, int j0, int tid)
{
    const int n = min(rows, out_size.y - y0);

    if (tid < 4 * n)
        rowq[tid] = tab[ycoef + y0 * 4 + tid];
    if (tid < n)
        rowb[tid] = tab[ystart + y0 + tid] - j0;
}

/* q h exactly, a 32 x 32 -> 64-bit product rather than a 64-bit one. */
int64_t mul_wide(int q, int h)
{
    int hi, lo;
    imulExtended(q, h, hi, lo);
    return int64_t(packInt2x32(ivec2(lo, hi)));
}

/* v = sum q_j h_j over the band rows of output row y, row r of the tile
 * whose band starts at source row j0. */
int64_t vpass(int y, int r, int j0, int lx)
{
    int64_t v = 0;

    if (ytaps == 4) {
        const int b = rowb[r];
        [[unroll]] for (int k = 0; k < 4; k++)
            v += mul_wide(rowq[4 * r + k], band[(b + k) * TW + lx]);
        return v;
    }
    const int b = tab[ystart + y] - j0;
    for (int k = 0; k < ytaps; k++)
        v += mul_wide(tab[ycoef + y * ytaps + k], band[(b + k) * TW + lx]);
    return v;
}

void store(ivec2 o, int64_t v)
{
    /* an arithmetic shift: floor division by 2^round, v may be negative */
    const int64_t s = (v + (int64_t(1) << (round - 1))) >> round;
    rs[out_off + o.y * out_size.x + o.x] = uint(clamp(s, int64_t(0), int64_t(maxval))) << out_shift;
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
                v += mul_wide(tab[ycoef + y * ytaps + k], hpass(x, tab[ystart + y] + k, plane));
            store(ivec2(x, y), v);
        }
    } else {
        const int ty = int(gl_WorkGroupID.y);
        const int j0 = tab[bands + 2 * ty], n = tab[bands + 2 * ty + 1];

        if (ytaps == 4)
            load_rows(ty * rows, j0, ly * TW + lx);
        /* one copy of the pass per image: the image a constant of the
         * copy, not a branch per sample (as fssim_core.glsl's load_tile) */
        if (x < out_size.x) {
            switch (plane) {
            case 0:  band_hpass(x, lx, ly, j0, n, 0); break;
            case 1:  band_hpass(x, lx, ly, j0, n, 1); break;
            case 2:  band_hpass(x, lx, ly, j0, n, 2); break;
            default: band_hpass(x, lx, ly, j0, n, 3); break;
            }
        }
        barrier();
        if (x < out_size.x)
            for (int y = ty * rows + ly; y < min(ty * rows + rows, out_size.y); y += TH)
                store(ivec2(x, y), vpass(y, y - ty * rows, j0, lx));
    }
}
