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
 * fssim CPU reference: multi-scale SSIM (doc/algorithms.md#msssim), the
 * definition of pytorch-msssim's ms_ssim evaluated in double with a double
 * Gaussian window.  The order of the operations follows pytorch-msssim
 * (vertical pass before horizontal, the luminance ratio divided before it
 * multiplies the contrast-structure term), so that the two agree to the
 * last few bits rather than merely to a tolerance.
 *
 * Nothing here allocates: the caller sizes the scratch with
 * ff_fssim_ref_msssim_work_size() once and passes it in with every frame.
 */
#include <errno.h>
#include <math.h>

#include "fssim_ref.h"

const double ff_fssim_ref_msssim_weights[FSSIM_REF_MSSSIM_SCALES] = {
    0.0448, 0.2856, 0.3001, 0.2363, 0.1333
};

int ff_fssim_ref_msssim_min_side(int window)
{
    /* scale j is ceil(side / 2^j) wide; the last needs window samples */
    return (window - 1) * (1 << (FSSIM_REF_MSSSIM_SCALES - 1)) + 1;
}

void ff_fssim_ref_msssim_scale_size(int width, int height, int j, int *sw, int *sh)
{
    for (int k = 0; k < j; k++) {
        width  = (width  + 1) / 2;
        height = (height + 1) / 2;
    }
    *sw = width;
    *sh = height;
}

size_t ff_fssim_ref_msssim_work_size(int width, int height)
{
    size_t n = 0;

    for (int j = 0; j < FSSIM_REF_MSSSIM_SCALES; j++) {
        int sw, sh;
        ff_fssim_ref_msssim_scale_size(width, height, j, &sw, &sh);
        n += 2 * (size_t)sw * sh;
    }
    return n + 5 * (size_t)width;
}

void ff_fssim_ref_msssim_load_rows(const FSSIMRefPlane *p, int y0, int y1, double *dst)
{
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < p->width; x++)
            dst[(size_t)y * p->width + x] = fssim_ref_sample(p, x, y);
}

void ff_fssim_ref_msssim_pool_rows(const double *src, int width, int height,
                                   int oy0, int oy1, double *dst)
{
    /* pytorch's avg_pool2d(kernel 2, stride 2, padding size % 2): the
     * window of output o starts at input 2o - pad; with pad 1 the first
     * window holds one zero and the trailing pad is never reached */
    const int px = width & 1, py = height & 1;
    const int ow = (width + 1) / 2;

    for (int oy = oy0; oy < oy1; oy++) {
        for (int ox = 0; ox < ow; ox++) {
            double sum = 0.0;
            for (int y = 2 * oy - py; y < 2 * oy - py + 2; y++) {
                if (y < 0)
                    continue;
                for (int x = 2 * ox - px; x < 2 * ox - px + 2; x++)
                    if (x >= 0)
                        sum += src[(size_t)y * width + x];
            }
            /* the padded zeros count: always four samples */
            dst[(size_t)oy * ow + ox] = sum / 4.0;
        }
    }
}

void ff_fssim_ref_msssim_rows(const double *a, const double *b, int width, int height,
                              const double *g, int window, double c1, double c2,
                              int oy0, int oy1, double *row, double *s_sum, double *cs_sum)
{
    const int ow = width - window + 1;
    double *va = row, *vb = row + width, *vaa = row + 2 * (size_t)width;
    double *vbb = row + 3 * (size_t)width, *vab = row + 4 * (size_t)width;

    for (int oy = oy0; oy < oy1; oy++) {
        double srow = 0.0, csrow = 0.0;

        /* vertical pass over the window's rows, every column */
        for (int x = 0; x < width; x++) {
            double sa = 0.0, sb = 0.0, saa = 0.0, sbb = 0.0, sab = 0.0;
            for (int j = 0; j < window; j++) {
                const double p = a[(size_t)(oy + j) * width + x];
                const double q = b[(size_t)(oy + j) * width + x];
                sa  += g[j] * p;
                sb  += g[j] * q;
                saa += g[j] * (p * p);
                sbb += g[j] * (q * q);
                sab += g[j] * (p * q);
            }
            va[x]  = sa;
            vb[x]  = sb;
            vaa[x] = saa;
            vbb[x] = sbb;
            vab[x] = sab;
        }

        /* horizontal pass and the two maps at each valid position */
        for (int ox = 0; ox < ow; ox++) {
            double mu_a = 0.0, mu_b = 0.0, e_aa = 0.0, e_bb = 0.0, e_ab = 0.0;
            for (int i = 0; i < window; i++) {
                mu_a += g[i] * va[ox + i];
                mu_b += g[i] * vb[ox + i];
                e_aa += g[i] * vaa[ox + i];
                e_bb += g[i] * vbb[ox + i];
                e_ab += g[i] * vab[ox + i];
            }
            const double mu_aa = mu_a * mu_a;
            const double mu_bb = mu_b * mu_b;
            const double mu_ab = mu_a * mu_b;
            const double cs = (2.0 * (e_ab - mu_ab) + c2) /
                              ((e_aa - mu_aa) + (e_bb - mu_bb) + c2);
            srow  += (2.0 * mu_ab + c1) / (mu_aa + mu_bb + c1) * cs;
            csrow += cs;
        }
        *s_sum  += srow;
        *cs_sum += csrow;
    }
}

int ff_fssim_ref_msssim_scales(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth,
                               int window, double sigma, double *work,
                               double s[FSSIM_REF_MSSSIM_SCALES],
                               double cs[FSSIM_REF_MSSSIM_SCALES])
{
    const double L  = (double)((1u << depth) - 1);
    const double c1 = FSSIM_FLOAT_C1(L);
    const double c2 = FSSIM_FLOAT_C2(L);
    const int side = a->width < a->height ? a->width : a->height;
    double g[FSSIM_MAX_WINDOW];
    double *pa = work, *row;
    int sw = a->width, sh = a->height;

    if (window < FSSIM_MIN_WINDOW || window > FSSIM_MAX_WINDOW || !(window & 1) ||
        a->width != b->width || a->height != b->height ||
        side < ff_fssim_ref_msssim_min_side(window))
        return -EINVAL;
    ff_fssim_ref_gauss_weights(window, sigma, g);

    row = work + ff_fssim_ref_msssim_work_size(a->width, a->height) - 5 * (size_t)a->width;
    ff_fssim_ref_msssim_load_rows(a, 0, sh, pa);
    ff_fssim_ref_msssim_load_rows(b, 0, sh, pa + (size_t)sw * sh);

    for (int j = 0; j < FSSIM_REF_MSSSIM_SCALES; j++) {
        const double *pb = pa + (size_t)sw * sh;
        const int ow = sw - window + 1, oh = sh - window + 1;
        double ssum = 0.0, cssum = 0.0;

        /* fixed bands, their sums added in band order: a caller that
         * slice-threads with the same bands gets the same bits */
        for (int y = 0; y < oh; y += FSSIM_REF_MSSSIM_BAND_ROWS) {
            const int y1 = y + FSSIM_REF_MSSSIM_BAND_ROWS < oh ?
                           y + FSSIM_REF_MSSSIM_BAND_ROWS : oh;
            double bs = 0.0, bcs = 0.0;
            ff_fssim_ref_msssim_rows(pa, pb, sw, sh, g, window, c1, c2, y, y1, row, &bs,
                                     &bcs);
            ssum  += bs;
            cssum += bcs;
        }
        s[j]  = ssum  / ((double)ow * oh);
        cs[j] = cssum / ((double)ow * oh);

        if (j + 1 < FSSIM_REF_MSSSIM_SCALES) {
            const int nw = (sw + 1) / 2, nh = (sh + 1) / 2;
            double *na = pa + 2 * (size_t)sw * sh;
            ff_fssim_ref_msssim_pool_rows(pa, sw, sh, 0, nh, na);
            ff_fssim_ref_msssim_pool_rows(pb, sw, sh, 0, nh, na + (size_t)nw * nh);
            pa = na;
            sw = nw;
            sh = nh;
        }
    }
    return 0;
}

/* max(x, 0) that keeps a NaN, as torch.relu does */
static double relu(double x)
{
    return x < 0.0 ? 0.0 : x;
}

double ff_fssim_ref_msssim_combine(const double s[FSSIM_REF_MSSSIM_SCALES],
                                   const double cs[FSSIM_REF_MSSSIM_SCALES])
{
    const int last = FSSIM_REF_MSSSIM_SCALES - 1;
    /* a negative mean is clamped to 0 before the power (pytorch-msssim's
     * relu), so the result is real and lies in [0, 1] */
    double v = pow(relu(cs[0]), ff_fssim_ref_msssim_weights[0]);

    for (int j = 1; j < last; j++)
        v *= pow(relu(cs[j]), ff_fssim_ref_msssim_weights[j]);
    return v * pow(relu(s[last]), ff_fssim_ref_msssim_weights[last]);
}
