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
 * fssim CPU reference: libvmaf's float_ssim and float_ms_ssim
 * (doc/algorithms.md#vmaf_ssim), in libvmaf's arithmetic.  libvmaf stores
 * every intermediate plane in float and sums each filter's taps in double,
 * so each value here is computed in the same type and order: a float
 * product converted to double and added, a float division done in float.
 * With FLT_EVAL_METHOD 0 and no contraction (this file is built with
 * -ffp-contract=off) every operation rounds as in libvmaf's x86-64 build,
 * and the values agree bit for bit.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "fssim_ref.h"

/* The 11-tap Gaussian of sigma 1.5, normalised, to six decimals. */
const float ff_fssim_ref_vmaf_gauss[FSSIM_VMAF_WINDOW] = {
    0.001028f, 0.007599f, 0.036001f, 0.109361f, 0.213006f, 0.266012f,
    0.213006f, 0.109361f, 0.036001f, 0.007599f, 0.001028f,
};

/* The upper-left quadrant of float_ms_ssim's 9x9 low-pass table (the 9/7
 * biorthogonal wavelet's low-pass filter both ways, to six decimals); the
 * table is symmetric about its middle row and column. */
static const float lpf_quadrant[5][5] = {
    {  0.000714f, -0.000450f, -0.002090f,  0.007132f,  0.016114f },
    { -0.000450f,  0.000283f,  0.001316f, -0.004490f, -0.010146f },
    { -0.002090f,  0.001316f,  0.006115f, -0.020867f, -0.047149f },
    {  0.007132f, -0.004490f, -0.020867f,  0.071207f,  0.160885f },
    {  0.016114f, -0.010146f, -0.047149f,  0.160885f,  0.363505f },
};

/* The exponents of the scales, finest first: luminance only at the
 * coarsest, contrast and structure at every scale. */
static const float ms_alpha[FSSIM_VMAF_SCALES] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.1333f };
static const float ms_beta[FSSIM_VMAF_SCALES]  = { 0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f };

float ff_fssim_ref_vmaf_lpf(int v, int u)
{
    return lpf_quadrant[v < 4 ? v : 8 - v][u < 4 ? u : 8 - u];
}

void ff_fssim_ref_vmaf_constants(float c[3])
{
    const float k1 = 0.01f, k2 = 0.03f;

    /* K L rounded to float before it is squared, L = 255 whatever the depth:
     * samples are brought to 8-bit scale first */
    c[0] = (k1 * 255) * (k1 * 255);
    c[1] = (k2 * 255) * (k2 * 255);
    c[2] = c[1] / 2.0f;
}

int ff_fssim_ref_vmaf_scale(int width, int height)
{
    const float a = (float)(width < height ? width : height) / 256.0f;
    const int i = (int)a;
    const int f = a - i >= 0.5f ? i + 1 : i;

    return f > 1 ? f : 1;
}

void ff_fssim_ref_vmaf_decimated_size(int width, int height, int f, int *dw, int *dh)
{
    *dw = f > 1 ? width / f + (width & 1) : width;
    *dh = f > 1 ? height / f + (height & 1) : height;
}

void ff_fssim_ref_vmaf_scale_size(int width, int height, int j, int *sw, int *sh)
{
    for (int k = 0; k < j; k++) {
        width  = (width  + 1) / 2;
        height = (height + 1) / 2;
    }
    *sw = width;
    *sh = height;
}

/* A position outside [0, n) mirrored once about the border, the border
 * sample repeated: -1 -> 0, n -> n - 1. */
static int mirror(int i, int n)
{
    if (i < 0)
        return -1 - i;
    if (i >= n)
        return 2 * n - 1 - i;
    return i;
}

static float load_sample(const FSSIMRefPlane *p, int x, int y, float div)
{
    return (float)fssim_ref_sample(p, x, y) / div;
}

void ff_fssim_ref_vmaf_load_rows(const FSSIMRefPlane *p, int depth, int f, int y0, int y1,
                                 float *dst)
{
    /* exact: a power of two */
    const float div = (float)(1 << (depth - 8));
    const float k = 1.0f / (float)(f * f);
    const int lo = f / 2;
    int dw, dh;

    ff_fssim_ref_vmaf_decimated_size(p->width, p->height, f, &dw, &dh);
    for (int y = y0; y < y1; y++) {
        float *out = dst + (size_t)(y - y0) * dw;
        for (int x = 0; x < dw; x++) {
            double sum = 0.0;
            if (f == 1) {
                out[x] = load_sample(p, x, y, div);
                continue;
            }
            for (int v = 0; v < f; v++) {
                const int sy = mirror(y * f + v - lo, p->height);
                for (int u = 0; u < f; u++) {
                    const float t = load_sample(p, mirror(x * f + u - lo, p->width), sy, div) * k;
                    sum += t;
                }
            }
            out[x] = (float)sum;
        }
    }
}

void ff_fssim_ref_vmaf_lpf_rows(const float *src, int width, int height, int y0, int y1,
                                float *dst)
{
    const int dw = (width + 1) / 2;

    for (int y = y0; y < y1; y++) {
        float *out = dst + (size_t)(y - y0) * dw;
        for (int x = 0; x < dw; x++) {
            double sum = 0.0;
            for (int v = 0; v < FSSIM_VMAF_LPF_TAPS; v++) {
                const float *row = src + (size_t)mirror(2 * y + v - 4, height) * width;
                for (int u = 0; u < FSSIM_VMAF_LPF_TAPS; u++) {
                    const float t = row[mirror(2 * x + u - 4, width)] * ff_fssim_ref_vmaf_lpf(v, u);
                    sum += t;
                }
            }
            out[x] = (float)sum;
        }
    }
}

/* The five moments' planes of the horizontal pass: mu_a, mu_b, a a, b b, a b. */
enum { H_A, H_B, H_AA, H_BB, H_AB, NB_H };

size_t ff_fssim_ref_vmaf_ssim_scratch_size(int width, int rows)
{
    const int ow = width - FSSIM_VMAF_WINDOW + 1;

    return ow > 0 ? NB_H * (size_t)(rows + FSSIM_VMAF_WINDOW - 1) * ow * sizeof(float) : 0;
}

/* The horizontal pass of one input row: each moment's taps, a product
 * (itself a float for a a, b b, a b) times the tap, in float, added in
 * double, the sum rounded to float. */
static void horizontal_row(const float *a, const float *b, int ow, float *h[NB_H])
{
    const float *g = ff_fssim_ref_vmaf_gauss;

    for (int x = 0; x < ow; x++) {
        double s[NB_H] = { 0.0 };
        for (int u = 0; u < FSSIM_VMAF_WINDOW; u++) {
            const float va = a[x + u], vb = b[x + u];
            const float aa = va * va, bb = vb * vb, ab = va * vb;
            const float ta = va * g[u], tb = vb * g[u];
            const float taa = aa * g[u], tbb = bb * g[u], tab = ab * g[u];
            s[H_A]  += ta;
            s[H_B]  += tb;
            s[H_AA] += taa;
            s[H_BB] += tbb;
            s[H_AB] += tab;
        }
        for (int i = 0; i < NB_H; i++)
            h[i][x] = (float)s[i];
    }
}

/* l, c and s of one position from its five filtered moments, in the types
 * of libvmaf's expressions (float where its operands are floats, double
 * where a double constant or variable enters). */
static void position_terms(const float m[NB_H], const float c[3], double out[3])
{
    const float mu_a = m[H_A], mu_b = m[H_B];
    const float pa = mu_a * mu_a, pb = mu_b * mu_b, pab = mu_a * mu_b;
    float var_a = m[H_AA] - pa, var_b = m[H_BB] - pb;
    const float cov = m[H_AB] - pab;
    float sab, den_l, den_c, cov_c;

    var_a = 0.0f > var_a ? 0.0f : var_a;
    var_b = 0.0f > var_b ? 0.0f : var_b;
    sab   = (float)sqrt((double)(var_a * var_b));
    den_l = pa + pb + c[0];
    den_c = var_a + var_b + c[1];
    /* flat identical windows: a covariance that rounded below 0 counts as 0 */
    cov_c = cov < 0.0f && sab <= 0.0f ? 0.0f : cov;
    out[0] = (2.0 * mu_a * mu_b + c[0]) / den_l;
    out[1] = (2.0 * sab + c[1]) / den_c;
    out[2] = (cov_c + c[2]) / (sab + c[2]);
}

void ff_fssim_ref_vmaf_ssim_rows(const float *a, const float *b, int width, int height,
                                 int oy0, int oy1, float *scratch,
                                 double sums[FSSIM_REF_VMAF_NB_SUMS])
{
    const int ow = width - FSSIM_VMAF_WINDOW + 1;
    const int rows = oy1 - oy0 + FSSIM_VMAF_WINDOW - 1;
    const float *g = ff_fssim_ref_vmaf_gauss;
    float *h[NB_H], c[3];

    (void)height;
    if (ow <= 0 || oy1 <= oy0)
        return;
    ff_fssim_ref_vmaf_constants(c);
    for (int i = 0; i < NB_H; i++)
        h[i] = scratch + (size_t)i * rows * ow;
    for (int r = 0; r < rows; r++) {
        float *hr[NB_H];
        for (int i = 0; i < NB_H; i++)
            hr[i] = h[i] + (size_t)r * ow;
        horizontal_row(a + (size_t)(oy0 + r) * width, b + (size_t)(oy0 + r) * width, ow, hr);
    }
    for (int y = 0; y < oy1 - oy0; y++) {
        for (int x = 0; x < ow; x++) {
            float m[NB_H];
            double t[3];
            for (int i = 0; i < NB_H; i++) {
                double s = 0.0;
                for (int v = 0; v < FSSIM_VMAF_WINDOW; v++) {
                    const float p = h[i][(size_t)(y + v) * ow + x] * g[v];
                    s += p;
                }
                m[i] = (float)s;
            }
            position_terms(m, c, t);
            sums[FSSIM_REF_VMAF_LCS] += t[0] * t[1] * t[2];
            sums[FSSIM_REF_VMAF_L]   += t[0];
            sums[FSSIM_REF_VMAF_C]   += t[1];
            sums[FSSIM_REF_VMAF_S]   += t[2];
        }
    }
}

float ff_fssim_ref_vmaf_mean(double sum, double n)
{
    return (float)(sum / n);
}

double ff_fssim_ref_vmaf_msssim_combine(const float l[FSSIM_VMAF_SCALES],
                                        const float c[FSSIM_VMAF_SCALES],
                                        const float s[FSSIM_VMAF_SCALES])
{
    double v = 1.0;

    /* the structure exponent is the contrast one at every scale */
    for (int j = 0; j < FSSIM_VMAF_SCALES; j++)
        v *= pow(l[j], ms_alpha[j]) * pow(c[j], ms_beta[j]) * pow(s[j], ms_beta[j]);
    return v;
}

/* The l, c, s sums of a pair of float planes, all rows in one band. */
static int plane_sums(const float *a, const float *b, int w, int h,
                      double sums[FSSIM_REF_VMAF_NB_SUMS], double *n)
{
    const int oh = h - FSSIM_VMAF_WINDOW + 1, ow = w - FSSIM_VMAF_WINDOW + 1;
    float *scratch;

    for (int i = 0; i < FSSIM_REF_VMAF_NB_SUMS; i++)
        sums[i] = 0.0;
    if (ow <= 0 || oh <= 0)
        return -EINVAL;
    if (!(scratch = malloc(ff_fssim_ref_vmaf_ssim_scratch_size(w, oh))))
        return -ENOMEM;
    ff_fssim_ref_vmaf_ssim_rows(a, b, w, h, 0, oh, scratch, sums);
    free(scratch);
    *n = (double)ow * oh;
    return 0;
}

double ff_fssim_ref_vmaf_ssim(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth)
{
    const int f = ff_fssim_ref_vmaf_scale(b->width, b->height);
    double sums[FSSIM_REF_VMAF_NB_SUMS], n = 0.0, v = NAN;
    float *fa, *fb;
    int dw, dh;

    ff_fssim_ref_vmaf_decimated_size(b->width, b->height, f, &dw, &dh);
    fa = malloc((size_t)dw * dh * sizeof(*fa));
    fb = malloc((size_t)dw * dh * sizeof(*fb));
    if (fa && fb && a->width == b->width && a->height == b->height) {
        ff_fssim_ref_vmaf_load_rows(a, depth, f, 0, dh, fa);
        ff_fssim_ref_vmaf_load_rows(b, depth, f, 0, dh, fb);
        if (plane_sums(fa, fb, dw, dh, sums, &n) == 0)
            v = ff_fssim_ref_vmaf_mean(sums[FSSIM_REF_VMAF_LCS], n);
    }
    free(fa);
    free(fb);
    return v;
}

int ff_fssim_ref_vmaf_msssim_scales(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth,
                                    float l[FSSIM_VMAF_SCALES], float c[FSSIM_VMAF_SCALES],
                                    float s[FSSIM_VMAF_SCALES])
{
    float *pa[2] = { NULL, NULL }, *pb[2] = { NULL, NULL };
    const int w = b->width, h = b->height;
    int ret = 0;

    if (a->width != w || a->height != h || w < FSSIM_VMAF_MS_MIN_SIDE ||
        h < FSSIM_VMAF_MS_MIN_SIDE)
        return -EINVAL;
    /* two planes per input: the scale scored, the next one */
    for (int i = 0; i < 2; i++) {
        pa[i] = malloc((size_t)w * h * sizeof(float));
        pb[i] = malloc((size_t)w * h * sizeof(float));
        if (!pa[i] || !pb[i])
            ret = -ENOMEM;
    }
    if (!ret) {
        ff_fssim_ref_vmaf_load_rows(a, depth, 1, 0, h, pa[0]);
        ff_fssim_ref_vmaf_load_rows(b, depth, 1, 0, h, pb[0]);
    }
    for (int j = 0; j < FSSIM_VMAF_SCALES && !ret; j++) {
        const int cur = j & 1;
        double sums[FSSIM_REF_VMAF_NB_SUMS], n = 0.0;
        int sw, sh;

        ff_fssim_ref_vmaf_scale_size(w, h, j, &sw, &sh);
        if (j + 1 < FSSIM_VMAF_SCALES) {
            const int nh = (sh + 1) / 2;
            ff_fssim_ref_vmaf_lpf_rows(pa[cur], sw, sh, 0, nh, pa[!cur]);
            ff_fssim_ref_vmaf_lpf_rows(pb[cur], sw, sh, 0, nh, pb[!cur]);
        }
        ret = plane_sums(pa[cur], pb[cur], sw, sh, sums, &n);
        l[j] = ff_fssim_ref_vmaf_mean(sums[FSSIM_REF_VMAF_L], n);
        c[j] = ff_fssim_ref_vmaf_mean(sums[FSSIM_REF_VMAF_C], n);
        s[j] = ff_fssim_ref_vmaf_mean(sums[FSSIM_REF_VMAF_S], n);
    }
    for (int i = 0; i < 2; i++) {
        free(pa[i]);
        free(pb[i]);
    }
    return ret;
}

double ff_fssim_ref_vmaf_msssim(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth)
{
    float l[FSSIM_VMAF_SCALES], c[FSSIM_VMAF_SCALES], s[FSSIM_VMAF_SCALES];

    if (ff_fssim_ref_vmaf_msssim_scales(a, b, depth, l, c, s) < 0)
        return NAN;
    return ff_fssim_ref_vmaf_msssim_combine(l, c, s);
}
