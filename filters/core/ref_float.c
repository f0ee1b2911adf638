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
 * fssim CPU reference: Gaussian SSIM (doc/algorithms.md#float, Wang et al. 2004), in
 * double on raw sample values.  padding=valid scores the positions whose
 * whole window lies in the plane (scikit-image, pytorch-msssim);
 * padding=same treats the outside as zeros and scores every pixel
 * (fused-ssim).
 */
#include <math.h>
#include <stdlib.h>

#include "fssim_ref.h"

size_t ff_fssim_ref_float_moments_scratch_size(int out_w, int rows,
                                               const FSSIMRefFloatParams *p)
{
    /* the horizontal pass of every plane row a band's windows touch */
    return sizeof(double) * 5 * (size_t)out_w * (rows + p->window - 1);
}

size_t ff_fssim_ref_float_scratch_size(int out_w, int rows, const FSSIMRefFloatParams *p)
{
    /* the band's moments, then the horizontal pass */
    return sizeof(double) * 5 * (size_t)out_w * rows +
           ff_fssim_ref_float_moments_scratch_size(out_w, rows, p);
}

void ff_fssim_ref_float_moments_rows(const FSSIMRefPlane *a, const FSSIMRefPlane *b,
                                     const FSSIMRefFloatParams *p, int oy0, int oy1,
                                     void *scratch, FSSIMRefMoments *m)
{
    const int r = p->window / 2;
    const int off = p->padding == FSSIM_REF_PAD_VALID ? r : 0;
    const int w = a->width, h = a->height, ow = m->w;
    double g[FSSIM_MAX_WINDOW];
    double *hs = scratch;
    int hy0, hy1;

    if (oy0 >= oy1)
        return;
    ff_fssim_ref_gauss_weights(p->window, p->sigma, g);

    /* horizontal pass over every plane row the band's windows touch */
    hy0 = oy0 + off - r < 0 ? 0 : oy0 + off - r;
    hy1 = oy1 + off + r > h ? h : oy1 + off + r;
    for (int y = hy0; y < hy1; y++) {
        for (int ox = 0; ox < ow; ox++) {
            const int x = ox + off;
            double s[5] = { 0 };
            for (int j = -r; j <= r; j++) {
                if (x + j < 0 || x + j >= w)
                    continue;
                const double va = fssim_ref_sample(a, x + j, y);
                const double vb = fssim_ref_sample(b, x + j, y);
                s[FSSIM_MU_A] += g[j + r] * va;
                s[FSSIM_MU_B] += g[j + r] * vb;
                s[FSSIM_AA]   += g[j + r] * (va * va);
                s[FSSIM_BB]   += g[j + r] * (vb * vb);
                s[FSSIM_AB]   += g[j + r] * (va * vb);
            }
            for (int i = 0; i < 5; i++)
                hs[((size_t)(y - hy0) * ow + ox) * 5 + i] = s[i];
        }
    }

    /* vertical pass */
    for (int oy = oy0; oy < oy1; oy++) {
        const int y = oy + off;
        for (int ox = 0; ox < ow; ox++) {
            double s[5] = { 0 };
            for (int j = -r; j <= r; j++) {
                if (y + j < 0 || y + j >= h)
                    continue;
                const double *hp = &hs[((size_t)(y + j - hy0) * ow + ox) * 5];
                for (int i = 0; i < 5; i++)
                    s[i] += g[j + r] * hp[i];
            }
            for (int i = 0; i < 5; i++)
                m->m[i][(size_t)(oy - oy0) * ow + ox] = s[i];
        }
    }
}

void ff_fssim_ref_float_rows(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth,
                             const FSSIMRefFloatParams *p, int oy0, int oy1, void *scratch,
                             double *sum)
{
    const double L  = (double)((1 << depth) - 1);
    const double c1 = FSSIM_FLOAT_C1(L);
    const double c2 = FSSIM_FLOAT_C2(L);
    FSSIMRefMoments m;
    int ow, oh;

    if (ff_fssim_ref_float_out_size(a->width, a->height, p, &ow, &oh) < 0 || oy0 >= oy1)
        return;
    m.w = ow;
    m.h = oy1 - oy0;
    for (int i = 0; i < 5; i++)
        m.m[i] = (double *)scratch + (size_t)i * ow * m.h;
    ff_fssim_ref_float_moments_rows(a, b, p, oy0, oy1, m.m[4] + (size_t)ow * m.h, &m);
    for (size_t i = 0; i < (size_t)ow * m.h; i++)
        *sum += ff_fssim_ref_ssim_from_moments(m.m[FSSIM_MU_A][i], m.m[FSSIM_MU_B][i],
                                               m.m[FSSIM_AA][i], m.m[FSSIM_BB][i],
                                               m.m[FSSIM_AB][i], c1, c2);
}

double ff_fssim_ref_float(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth,
                          const FSSIMRefFloatParams *p)
{
    double sum = 0.0;
    void *scratch;
    int ow, oh;

    if (ff_fssim_ref_float_out_size(a->width, a->height, p, &ow, &oh) < 0)
        return NAN;
    if (!(scratch = malloc(ff_fssim_ref_float_scratch_size(ow, oh, p))))
        return NAN;
    ff_fssim_ref_float_rows(a, b, depth, p, 0, oh, scratch, &sum);
    free(scratch);
    return sum / ((double)ow * oh);
}
