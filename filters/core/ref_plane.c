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
 * fssim CPU reference: pieces shared by the algorithms.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "fssim_ref.h"

const int ff_fssim_ref_int_taps[2 * FSSIM_INT_RADIUS + 1] = { FSSIM_INT_TAPS };

void ff_fssim_ref_gauss_weights(int size, double sigma, double *g)
{
    const int r = size / 2;
    double sum = 0.0;

    for (int i = 0; i < size; i++) {
        const double d = i - r;
        g[i] = exp(-(d * d) / (2.0 * sigma * sigma));
        sum += g[i];
    }
    for (int i = 0; i < size; i++)
        g[i] /= sum;
}

int ff_fssim_ref_float_out_size(int width, int height, const FSSIMRefFloatParams *p,
                                int *out_w, int *out_h)
{
    const int border = p->padding == FSSIM_REF_PAD_VALID ? p->window - 1 : 0;

    *out_w = width  - border;
    *out_h = height - border;
    if (*out_w <= 0 || *out_h <= 0) {
        *out_w = *out_h = 0;
        return -1;
    }
    return 0;
}

int ff_fssim_ref_moments_alloc(FSSIMRefMoments *m, int w, int h)
{
    m->w = w;
    m->h = h;
    for (int i = 0; i < 5; i++) {
        m->m[i] = calloc((size_t)w * h, sizeof(double));
        if (!m->m[i]) {
            ff_fssim_ref_moments_free(m);
            return -ENOMEM;
        }
    }
    return 0;
}

void ff_fssim_ref_moments_free(FSSIMRefMoments *m)
{
    for (int i = 0; i < 5; i++) {
        free(m->m[i]);
        m->m[i] = NULL;
    }
}

double ff_fssim_ref_ssim_from_moments(double mu_a, double mu_b, double aa, double bb,
                                      double ab, double c1, double c2)
{
    const double var_a = aa - mu_a * mu_a;
    const double var_b = bb - mu_b * mu_b;
    const double cov   = ab - mu_a * mu_b;

    return ((2.0 * mu_a * mu_b + c1) * (2.0 * cov + c2)) /
           ((mu_a * mu_a + mu_b * mu_b + c1) * (var_a + var_b + c2));
}

int ff_fssim_ref_temporal_weights(int depth, double tsigma, int tpadding,
                                  int64_t t, int64_t nb_frames, double *wt)
{
    const int r = depth / 2;
    double g[2 * 64 + 1];
    double sum = 0.0;
    int full = 1;

    if (depth > (int)(sizeof(g) / sizeof(g[0])))
        return 0;
    ff_fssim_ref_gauss_weights(depth, tsigma, g);
    for (int k = 0; k < depth; k++) {
        const int64_t f = t - r + k;
        const int present = f >= 0 && (nb_frames < 0 || f < nb_frames);
        wt[k] = present ? g[k] : 0.0;
        sum  += wt[k];
        full &= present;
    }
    if (tpadding == FSSIM_REF_TPAD_VALID)
        return full;
    /* truncate: the taps that remain, renormalised to sum 1 */
    if (!full)
        for (int k = 0; k < depth; k++)
            wt[k] /= sum;
    return 1;
}
