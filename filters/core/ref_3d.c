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
 * fssim CPU reference: spatio-temporal SSIM (doc/algorithms.md#fssim3d).  The Gaussian
 * window is separable in (x, y, t), so the 3-D moments of frame t are the
 * temporally weighted sum of the 2-D moments of the frames around it.
 */
#include "fssim_ref.h"

double ff_fssim_ref_3d_rows(const FSSIMRefMoments *const *mom, const double *wt,
                            int depth, double c1, double c2, int oy0, int oy1)
{
    const FSSIMRefMoments *any = NULL;
    double sum = 0.0;

    for (int k = 0; k < depth && !any; k++)
        if (wt[k] != 0.0)
            any = mom[k];
    if (!any)
        return 0.0;

    for (size_t i = (size_t)oy0 * any->w; i < (size_t)oy1 * any->w; i++) {
        double s[5] = { 0 };
        for (int k = 0; k < depth; k++) {
            if (wt[k] == 0.0)
                continue;
            for (int c = 0; c < 5; c++)
                s[c] += wt[k] * mom[k]->m[c][i];
        }
        sum += ff_fssim_ref_ssim_from_moments(s[FSSIM_MU_A], s[FSSIM_MU_B], s[FSSIM_AA],
                                              s[FSSIM_BB], s[FSSIM_AB], c1, c2);
    }
    return sum;
}

double ff_fssim_ref_3d_score(const FSSIMRefMoments *const *mom, const double *wt,
                             int depth, double c1, double c2)
{
    for (int k = 0; k < depth; k++)
        if (wt[k] != 0.0)
            return ff_fssim_ref_3d_rows(mom, wt, depth, c1, c2, 0, mom[k]->h) /
                   ((double)mom[k]->w * mom[k]->h);
    return 0.0;
}
