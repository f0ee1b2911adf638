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
 * fssim: pooling.  Every value is added in frame order, exactly as the
 * logs print it (%.17g round-trips), and each pooled value below is one
 * fixed expression of those values, so that a tool pooling a log's frames
 * the same way gets the same doubles.  FFMIN(a, b) is (a > b ? b : a) and
 * FFMAX(a, b) is (a > b ? a : b); n is the number of values added.
 */
#include <math.h>

#include "libavutil/common.h"
#include "libavutil/error.h"
#include "libavutil/mem.h"

#include "fssim_pool.h"
#include "fssim_ref.h"

static const double pct_rank[FSSIM_NB_PCT] = { 1, 5, 50 };

static const char *const pooled_names[FSSIM_NB_POOLED] = {
    [FSSIM_POOLED_MEAN]             = "mean",
    [FSSIM_POOLED_MIN]              = "min",
    [FSSIM_POOLED_MAX]              = "max",
    [FSSIM_POOLED_HARMONIC_MEAN]    = "harmonic_mean",
    [FSSIM_POOLED_P1]               = "p1",
    [FSSIM_POOLED_P5]               = "p5",
    [FSSIM_POOLED_P50]              = "p50",
    [FSSIM_POOLED_PSNR_OF_MEAN_MSE] = "psnr_of_mean_mse",
};

/* heap helpers: lo is a max-heap, hi a min-heap (sign flipped) */
static void heap_push(double *h, unsigned *n, double v)
{
    unsigned i = (*n)++;
    for (; i && h[(i - 1) / 2] < v; i = (i - 1) / 2)
        h[i] = h[(i - 1) / 2];
    h[i] = v;
}

static double heap_pop(double *h, unsigned *n)
{
    const double top = h[0], v = h[--*n];
    unsigned i = 0;

    for (;;) {
        unsigned c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1] > h[c])
            c++;
        if (h[c] <= v)
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n)
        h[i] = v;
    return top;
}

/* Room for one more value in heap h of *size values. */
static int heap_reserve(double **h, unsigned *size, unsigned nb)
{
    unsigned size2;
    double *p;

    if (nb < *size)
        return 0;
    size2 = FFMAX(64, 2 * *size);
    p = av_realloc_array(*h, size2, sizeof(*p));
    if (!p)
        return AVERROR(ENOMEM);
    *h = p;
    *size = size2;
    return 0;
}

/* Add the n-th value (n from 1) of a series; the nearest rank of p is
 * k = (uint64_t)ceil(p * n / 100.0 - 1e-9), and lo holds the k smallest
 * values, so the percentile is the largest value of lo. */
static int pct_add(FSSIMPercentile *t, double p, uint64_t n, double v)
{
    const uint64_t k = (uint64_t)ceil(p * n / 100.0 - 1e-9);
    int ret;

    /* the value goes into one heap and at most one value moves across:
     * neither heap holds more than one more than now */
    if ((ret = heap_reserve(&t->lo, &t->lo_size, t->nb_lo)) < 0 ||
        (ret = heap_reserve(&t->hi, &t->hi_size, t->nb_hi)) < 0)
        return ret;
    if (t->nb_lo && v < t->lo[0])
        heap_push(t->lo, &t->nb_lo, v);
    else
        heap_push(t->hi, &t->nb_hi, -v);
    while (t->nb_lo > k)
        heap_push(t->hi, &t->nb_hi, -heap_pop(t->lo, &t->nb_lo));
    while (t->nb_lo < k)
        heap_push(t->lo, &t->nb_lo, -heap_pop(t->hi, &t->nb_hi));
    return 0;
}

static double pct_value(const FSSIMPercentile *t)
{
    return t->nb_lo ? t->lo[0] : NAN;
}

/* The sums run in frame order from 0.0:
 *   sum     += v
 *   inv_sum += 1.0 / (1.0 + v)
 *   min      = the first v, then FFMIN(min, v)
 *   max      = the first v, then FFMAX(max, v)
 * and each percentile takes v as the (n + 1)-th value of its series. */
int ff_fssim_pool_add(FSSIMPool *p, uint64_t n, double v, int pct)
{
    int ret = 0;

    if (!n)
        p->min = p->max = v;
    p->sum     += v;
    p->inv_sum += 1.0 / (1.0 + v);
    p->min      = FFMIN(p->min, v);
    p->max      = FFMAX(p->max, v);
    for (int i = 0; pct && i < FSSIM_NB_PCT && ret >= 0; i++)
        ret = pct_add(&p->pct[i], pct_rank[i], n + 1, v);
    return ret;
}

/* psnr is pooled capped, as libvmaf pools it: v = FFMIN(db, 6.0 * depth + 12.0),
 * with mse_sum += mse (in frame order, from 0.0) first. */
int ff_fssim_pool_add_psnr(FSSIMPool *p, uint64_t n, double db, double mse, int depth,
                           int pct)
{
    p->mse_sum += mse;
    return ff_fssim_pool_add(p, n, FFMIN(db, 6.0 * depth + 12.0), pct);
}

double ff_fssim_pooled(const FSSIMPool *p, uint64_t n, enum FSSIMPooled which, int depth)
{
    if (!n)
        return NAN;
    switch (which) {
    /* mean = sum / n */
    case FSSIM_POOLED_MEAN:
        return p->sum / n;
    /* min and max as accumulated */
    case FSSIM_POOLED_MIN:
        return p->min;
    case FSSIM_POOLED_MAX:
        return p->max;
    /* libvmaf's harmonic mean, defined for SSIM's range [-1, 1]:
     * n / inv_sum - 1.0 */
    case FSSIM_POOLED_HARMONIC_MEAN:
        return n / p->inv_sum - 1.0;
    /* FFmpeg psnr's "average": ff_fssim_ref_psnr_from_mse(mse_sum / n, depth) */
    case FSSIM_POOLED_PSNR_OF_MEAN_MSE:
        return ff_fssim_ref_psnr_from_mse(p->mse_sum / n, depth);
    /* p1, p5, p50: the value of nearest rank k = ceil(p * n / 100.0 - 1e-9)
     * among the n sorted, NAN where that rank is 0 */
    default:
        return pct_value(&p->pct[which - FSSIM_POOLED_P1]);
    }
}

const char *ff_fssim_pooled_name(enum FSSIMPooled which)
{
    return pooled_names[which];
}

void ff_fssim_pool_free(FSSIMPool *p)
{
    for (int i = 0; i < FSSIM_NB_PCT; i++) {
        FSSIMPercentile *t = &p->pct[i];
        av_freep(&t->lo);
        av_freep(&t->hi);
        t->nb_lo = t->nb_hi = t->lo_size = t->hi_size = 0;
    }
}
