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
 * fssim CPU reference: FFmpeg's ssim filter algorithm (doc/algorithms.md#block).
 *
 * Sums over non-overlapping 4x4 blocks, 8x8 windows made of 2x2 blocks at
 * stride 4, integer moments and a float end formula.  The integer widths,
 * constants, float conversions and per-row accumulation (double for 8-bit,
 * float for deeper samples) are those of libavfilter/vf_ssim.c, so that the
 * values equal FFmpeg's.
 */
#include <math.h>
#include <stdlib.h>

#include "fssim_ref.h"

typedef struct BlockSums {
    int64_t s1, s2, ss, s12;
} BlockSums;

int ff_fssim_ref_block_windows(int width, int height, int *nx, int *ny)
{
    *nx = (width  >> 2) - 1;
    *ny = (height >> 2) - 1;
    if (*nx <= 0 || *ny <= 0) {
        *nx = *ny = 0;
        return -1;
    }
    return 0;
}

static void block_row(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int by,
                      int nblocks, BlockSums *sums)
{
    for (int z = 0; z < nblocks; z++) {
        BlockSums s = { 0 };
        for (int y = 4 * by; y < 4 * by + 4; y++) {
            for (int x = 4 * z; x < 4 * z + 4; x++) {
                const int64_t p = fssim_ref_sample(a, x, y);
                const int64_t q = fssim_ref_sample(b, x, y);
                s.s1  += p;
                s.s2  += q;
                s.ss  += p * p + q * q;
                s.s12 += p * q;
            }
        }
        sums[z] = s;
    }
}

/* vf_ssim.c ssim_end1(): 32-bit integers and 8-bit constants. */
static float end1_8bit(int s1, int s2, int ss, int s12)
{
    const int c1 = (int)FSSIM_BLOCK_C1(255);
    const int c2 = (int)FSSIM_BLOCK_C2(255);
    const int vars  = ss * 64 - s1 * s1 - s2 * s2;
    const int covar = s12 * 64 - s1 * s2;

    return (float)(2 * s1 * s2 + c1) * (float)(2 * covar + c2) /
           ((float)(s1 * s1 + s2 * s2 + c1) * (float)(vars + c2));
}

/* vf_ssim.c ssim_end1x(): 64-bit integers, constants from the bit depth. */
static float end1_deep(int64_t s1, int64_t s2, int64_t ss, int64_t s12, int max)
{
    const int64_t c1 = (int64_t)FSSIM_BLOCK_C1(max);
    const int64_t c2 = (int64_t)FSSIM_BLOCK_C2(max);
    const int64_t vars  = ss * 64 - s1 * s1 - s2 * s2;
    const int64_t covar = s12 * 64 - s1 * s2;

    return (float)(2 * s1 * s2 + c1) * (float)(2 * covar + c2) /
           ((float)(s1 * s1 + s2 * s2 + c1) * (float)(vars + c2));
}

size_t ff_fssim_ref_block_scratch_size(int width)
{
    /* the 4x4 block sums of two block rows */
    return 2 * sizeof(BlockSums) * (size_t)((width >> 2) > 0 ? width >> 2 : 1);
}

void ff_fssim_ref_block_rows(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth,
                             int wy0, int wy1, void *scratch, double *sum)
{
    const int max = (1 << depth) - 1;
    int nx, ny;
    BlockSums *top, *bot;

    if (ff_fssim_ref_block_windows(a->width, a->height, &nx, &ny) < 0 || wy0 >= wy1)
        return;
    top = scratch;
    bot = top + nx + 1;

    /* window row wy covers block rows wy and wy + 1 */
    block_row(a, b, wy0, nx + 1, bot);
    for (int wy = wy0; wy < wy1; wy++) {
        BlockSums *t = top;
        top = bot;
        bot = t;
        block_row(a, b, wy + 1, nx + 1, bot);

        if (depth <= 8) {
            double row = 0.0;
            for (int i = 0; i < nx; i++)
                row += end1_8bit((int)(top[i].s1  + top[i + 1].s1  + bot[i].s1  + bot[i + 1].s1),
                                 (int)(top[i].s2  + top[i + 1].s2  + bot[i].s2  + bot[i + 1].s2),
                                 (int)(top[i].ss  + top[i + 1].ss  + bot[i].ss  + bot[i + 1].ss),
                                 (int)(top[i].s12 + top[i + 1].s12 + bot[i].s12 + bot[i + 1].s12));
            *sum += row;
        } else {
            float row = 0.0f;
            for (int i = 0; i < nx; i++)
                row += end1_deep(top[i].s1  + top[i + 1].s1  + bot[i].s1  + bot[i + 1].s1,
                                 top[i].s2  + top[i + 1].s2  + bot[i].s2  + bot[i + 1].s2,
                                 top[i].ss  + top[i + 1].ss  + bot[i].ss  + bot[i + 1].ss,
                                 top[i].s12 + top[i + 1].s12 + bot[i].s12 + bot[i + 1].s12,
                                 max);
            *sum += row;
        }
    }
}

double ff_fssim_ref_block(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth)
{
    double sum = 0.0;
    void *scratch;
    int nx, ny;

    if (ff_fssim_ref_block_windows(a->width, a->height, &nx, &ny) < 0)
        return NAN;
    if (!(scratch = malloc(ff_fssim_ref_block_scratch_size(a->width))))
        return NAN;
    ff_fssim_ref_block_rows(a, b, depth, 0, ny, scratch, &sum);
    free(scratch);
    return sum / ((double)nx * ny);
}
