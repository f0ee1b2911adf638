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
 * fssim: how a GPU resampler tiles a resampled component's vertical axis,
 * so that each tile's source rows fit the shared memory its block keeps
 * them in.
 */
#include <limits.h>

#include "libavutil/common.h"
#include "libavutil/error.h"
#include "libavutil/mem.h"

#include "fssim_resample_tiles.h"

/* The band of output rows [y0, y0 + rows) of axis a: the source rows they
 * read, from *lo on, *n of them (start need not grow with y: the trimmed
 * taps of zero weight move it). */
static void axis_band(const FSSIMRefResampleAxis *a, int y0, int rows, int *lo, int *n)
{
    int hi = INT_MIN;

    *lo = INT_MAX;
    for (int y = y0; y < FFMIN(y0 + rows, a->out); y++) {
        *lo = FFMIN(*lo, a->start[y]);
        hi  = FFMAX(hi, a->start[y] + a->ntaps);
    }
    *n = hi - *lo;
}

int ff_fssim_resample_tiles(const FSSIMRefResampleAxis *a, int max_rows, int span,
                            int32_t **bands)
{
    *bands = NULL;
    for (int rows = max_rows; rows > 0; rows /= 2) {
        const unsigned nb = ((unsigned)a->out + rows - 1) / rows;
        int fits = 1;

        for (unsigned t = 0; t < nb && fits; t++) {
            int lo, n;
            axis_band(a, t * rows, rows, &lo, &n);
            fits = n <= span;
        }
        if (!fits)
            continue;
        if (!(*bands = av_malloc_array(nb, 2 * sizeof(**bands))))
            return AVERROR(ENOMEM);
        for (unsigned t = 0; t < nb; t++)
            axis_band(a, t * rows, rows, &(*bands)[2 * t], &(*bands)[2 * t + 1]);
        return rows;
    }
    return 0;
}
