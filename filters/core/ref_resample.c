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
 * fssim CPU reference: the resampler (doc/algorithms.md#resampling).  A
 * rendition (or a pair's main input) whose size or format differs from the
 * reference's is brought to the reference's plane sizes and bit depth by
 * this exact, separable integer filter before it is scored.  The coefficient tables are built
 * here once per (size pair, scaler) and shared by every backend; the
 * filtering itself is exact integer arithmetic, so any backend that applies
 * the same tables gives the same samples.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fssim_ref.h"

#define ONE    (1 << FSSIM_RESAMPLE_BITS)
#define MAX_SIZE (1 << 24)

/* The definition evaluates every kernel in double in exactly these
 * expressions (the file is built with -ffp-contract=off), so that an
 * independent implementation reproduces the weights bit for bit. */
static double kernel_bicubic(double x)
{
    const double a = -0.6;
    const double t = fabs(x);
    if (t <= 1)
        return ((a + 2) * t - (a + 3)) * t * t + 1;
    if (t < 2)
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
    return 0;
}

static double kernel_bilinear(double x)
{
    const double t = fabs(x);
    return t < 1 ? 1 - t : 0;
}

static double sinc(double x)
{
    /* the double nearest pi (M_PI is not part of C11) */
    const double px = 3.14159265358979323846 * x;
    return x == 0 ? 1 : sin(px) / px;
}

static double kernel_lanczos(double x)
{
    return fabs(x) < 3 ? sinc(x) * sinc(x / 3) : 0;
}

static int scaler_radius(int scaler)
{
    switch (scaler) {
    case FSSIM_REF_SCALER_BICUBIC:  return 2;
    case FSSIM_REF_SCALER_BILINEAR: return 1;
    case FSSIM_REF_SCALER_LANCZOS:  return 3;
    }
    return 0;
}

static double kernel(int scaler, double x)
{
    switch (scaler) {
    case FSSIM_REF_SCALER_BICUBIC:  return kernel_bicubic(x);
    case FSSIM_REF_SCALER_BILINEAR: return kernel_bilinear(x);
    default:                        return kernel_lanczos(x);
    }
}

/**
 * The quantised taps of output x: q[k] weighs source index lo + k, for
 * k < *n.  q and w hold max_taps() entries.
 */
static void output_taps(int in, int out, int scaler, int x, double *w,
                        int32_t *q, int *lo, int *n)
{
    const double u      = ((x + 0.5) * in) / out - 0.5;
    const double f      = fmax(1.0, (double)in / out);
    const double reach  = scaler_radius(scaler) * f;
    const int    first  = (int)floor(u - reach);
    const int    last   = (int)ceil(u + reach);
    double sum = 0, best = -INFINITY;
    int32_t qsum = 0;
    int nb = 0, ibest = 0;

    /* The taps are the integers strictly within reach of u; scanning one
     * past each end of [u - reach, u + reach] and testing each candidate
     * keeps the selection exactly the definition's double comparison. */
    for (int i = first; i <= last; i++) {
        const double d = (double)i - u;
        if (!(fabs(d) < reach))
            continue;
        if (!nb)
            *lo = i;
        w[nb] = kernel(scaler, d / f);
        sum += w[nb];
        nb++;
    }
    for (int k = 0; k < nb; k++) {
        w[k] /= sum;
        q[k]  = (int32_t)round(w[k] * ONE); /* halves away from zero */
        qsum += q[k];
        /* strict >: the first of equal largest weights takes the remainder */
        if (w[k] > best) {
            best  = w[k];
            ibest = k;
        }
    }
    q[ibest] += ONE - qsum;
    *n = nb;
}

/* More than the candidates output_taps() scans (last - first + 1 <= 2 reach + 3);
 * 0 when that many would not fit an int. */
static int max_taps(int in, int out, int scaler)
{
    const double f = fmax(1.0, (double)in / out);
    const double n = ceil(2 * scaler_radius(scaler) * f) + 4;
    return n < INT32_MAX ? (int)n : 0;
}

int ff_fssim_ref_resample_axis_init(FSSIMRefResampleAxis *a, int in, int out, int scaler)
{
    int32_t *q = NULL;
    int *lo = NULL, *nz0 = NULL;
    double *w = NULL;
    int mt, ntaps = 1, ret = -ENOMEM;

    memset(a, 0, sizeof(*a));
    /* beyond any video plane; keeps every tap index within an int */
    if (in < 1 || out < 1 || in > MAX_SIZE || out > MAX_SIZE || !scaler_radius(scaler))
        return -EINVAL;
    mt = max_taps(in, out, scaler);
    if (!mt || (size_t)out > SIZE_MAX / sizeof(*q) / (size_t)mt)
        return -ENOMEM;

    w   = malloc(sizeof(*w) * mt);
    q   = malloc(sizeof(*q) * (size_t)out * mt);
    lo  = malloc(sizeof(*lo) * out);
    nz0 = malloc(sizeof(*nz0) * out);
    if (!w || !q || !lo || !nz0)
        goto end;

    /* First pass: every output's taps, and the span of its nonzero ones.
     * Trimming the zero taps at both ends changes no sum; it is what makes
     * an unchanged size a single tap. */
    for (int x = 0; x < out; x++) {
        int32_t *qx = q + (size_t)x * mt;
        int n, b = 0, e;
        output_taps(in, out, scaler, x, w, qx, &lo[x], &n);
        while (qx[b] == 0)
            b++;
        e = n - 1;
        while (qx[e] == 0)
            e--;
        nz0[x] = b;
        if (e - b + 1 > ntaps)
            ntaps = e - b + 1;
        for (int k = n; k < mt; k++)
            qx[k] = 0;
    }

    a->start = malloc(sizeof(*a->start) * out);
    a->coef  = malloc(sizeof(*a->coef) * (size_t)out * ntaps);
    if (!a->start || !a->coef) {
        ff_fssim_ref_resample_axis_free(a);
        goto end;
    }
    a->in    = in;
    a->out   = out;
    a->ntaps = ntaps;
    for (int x = 0; x < out; x++) {
        const int32_t *qx = q + (size_t)x * mt + nz0[x];
        const int avail   = mt - nz0[x];
        a->start[x] = lo[x] + nz0[x];
        for (int k = 0; k < ntaps; k++)
            a->coef[(size_t)x * ntaps + k] = k < avail ? qx[k] : 0;
    }
    ret = 0;
end:
    free(w);
    free(q);
    free(lo);
    free(nz0);
    return ret;
}

void ff_fssim_ref_resample_axis_free(FSSIMRefResampleAxis *a)
{
    free(a->start);
    free(a->coef);
    memset(a, 0, sizeof(*a));
}

size_t ff_fssim_ref_resample_tmp_size(const FSSIMRefResampleAxis *ax,
                                      const FSSIMRefResampleAxis *ay)
{
    /* the horizontal results of the ay->ntaps source rows of one output row */
    return (size_t)ax->out * ay->ntaps;
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Horizontal pass of source row sy: h[x] = sum q_i s_i, exact. */
static void resample_row_h(const FSSIMRefPlane *src, const FSSIMRefResampleAxis *ax,
                           int sy, int64_t *h)
{
    for (int x = 0; x < ax->out; x++) {
        const int32_t *c = ax->coef + (size_t)x * ax->ntaps;
        int64_t acc = 0;
        for (int k = 0; k < ax->ntaps; k++) {
            const int sx = clampi(ax->start[x] + k, 0, ax->in - 1);
            acc += (int64_t)c[k] * fssim_ref_sample(src, sx, sy);
        }
        h[x] = acc;
    }
}

void ff_fssim_ref_resample_rows(const FSSIMRefPlane *src, const FSSIMRefResampleAxis *ax,
                                const FSSIMRefResampleAxis *ay, int in_depth, int depth,
                                int y0, int y1, uint16_t *dst, ptrdiff_t dst_linesize,
                                int64_t *tmp)
{
    const int64_t maxval = (INT64_C(1) << depth) - 1;
    /* the bit depths' difference folded into the final rounding: a shift
     * by less than 28 scales up, by more scales down, rounding once */
    const int shift = FSSIM_RESAMPLE_SHIFT(in_depth, depth);

    for (int y = y0; y < y1; y++) {
        const int32_t *c = ay->coef + (size_t)y * ay->ntaps;
        uint16_t *out = (uint16_t *)((uint8_t *)dst + (ptrdiff_t)(y - y0) * dst_linesize);

        /* Rows are filtered again for every output row that reads them:
         * simple, and each output row depends on nothing but its own taps.
         * Taps of weight 0 (padding to ntaps) are not even read. */
        for (int k = 0; k < ay->ntaps; k++)
            if (c[k])
                resample_row_h(src, ax, clampi(ay->start[y] + k, 0, ay->in - 1),
                               tmp + (size_t)k * ax->out);

        for (int x = 0; x < ax->out; x++) {
            int64_t v = INT64_C(1) << (shift - 1);
            for (int k = 0; k < ay->ntaps; k++)
                if (c[k])
                    v += (int64_t)c[k] * tmp[(size_t)k * ax->out + x];
            /* floor((v + 2^(shift-1)) / 2^shift) clamped to [0, L]; testing
             * the sign first avoids right-shifting a negative value */
            out[x] = v < 0 ? 0 : (uint16_t)(v >> shift > maxval ? maxval : v >> shift);
        }
    }
}
