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
 * fssim CPU reference: PSNR (doc/algorithms.md#psnr), the values of FFmpeg's
 * psnr filter.  The SSE is an exact integer; only MSE and PSNR are doubles.
 */
#include <math.h>

#include "fssim_ref.h"

int ff_fssim_ref_sse_rows(const FSSIMRefPlane *a, const FSSIMRefPlane *b,
                          int y0, int y1, uint64_t *sse)
{
    for (int y = y0; y < y1; y++) {
        /* a row of 16-bit differences squared stays far below 2^64 */
        uint64_t row = 0;
        for (int x = 0; x < a->width; x++) {
            const int64_t d = (int64_t)fssim_ref_sample(a, x, y) -
                              (int64_t)fssim_ref_sample(b, x, y);
            row += (uint64_t)(d * d);
        }
        *sse += row;
    }
    return 0;
}

double ff_fssim_ref_mse(uint64_t sse, int width, int height)
{
    return (double)sse / ((double)width * height);
}

double ff_fssim_ref_psnr_from_mse(double mse, int depth)
{
    const double L = (double)((1u << depth) - 1);

    /* L^2 / 0 is +inf and log10(+inf) is +inf: identical planes need no
     * special case, as in FFmpeg */
    return 10.0 * log10(L * L / mse);
}

double ff_fssim_ref_mse_all(const double *mse, const int *width, const int *height,
                            int nb_planes)
{
    double n = 0.0, all = 0.0;

    /* FFmpeg sums the counts as an unsigned int; every count fits a double
     * exactly, so the sum is the same */
    for (int c = 0; c < nb_planes; c++)
        n += (double)width[c] * height[c];
    for (int c = 0; c < nb_planes; c++)
        all += mse[c] * ((double)width[c] * height[c] / n);
    return all;
}
