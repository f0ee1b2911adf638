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
 * fssim: the table of algorithms (fssim_algos.h) -- the rows, and each
 * algorithm's divisors, score and plane check, which the rows name.
 */
#include <math.h>
#include <stdio.h>

#include "libavutil/common.h"
#include "libavutil/log.h"

#include "fssim_algos.h"
#include "fssim_format.h"
#include "fssim_options.h"

/* ---- divisors: what the parts of a plane are divided by ------------------- */

/* float and block: the number of scored positions; int: the sum of the
 * weights; psnr: the samples. */
static void float_divisors(const FSSIMOptions *o, const FSSIMPlane *p, double *den)
{
    const FSSIMRefFloatParams fp = { o->window, o->sigma, o->padding };
    int w, h;

    if (ff_fssim_ref_float_out_size(p->width, p->height, &fp, &w, &h) == 0)
        den[FSSIM_PART_FLOAT] = (double)w * h;
}

/* Sum over the positions of a line of n of the int taps inside it: the
 * int weights are separable, w(x, y) = wx(x) * wy(y). */
static uint64_t int_line_weight(int n)
{
    uint64_t sum = 0;
    for (int x = 0; x < n; x++)
        for (int j = -FSSIM_INT_RADIUS; j <= FSSIM_INT_RADIUS; j++)
            if (x + j >= 0 && x + j < n)
                sum += ff_fssim_ref_int_taps[j + FSSIM_INT_RADIUS];
    return sum;
}

static void int_divisors(const FSSIMOptions *o, const FSSIMPlane *p, double *den)
{
    den[FSSIM_PART_INT] = (double)(int_line_weight(p->width) * int_line_weight(p->height));
}

static void block_divisors(const FSSIMOptions *o, const FSSIMPlane *p, double *den)
{
    int w, h;

    if (ff_fssim_ref_block_windows(p->width, p->height, &w, &h) == 0)
        den[FSSIM_PART_BLOCK] = (double)w * h;
}

static void sse_divisors(const FSSIMOptions *o, const FSSIMPlane *p, double *den)
{
    den[FSSIM_PART_SSE] = (double)p->width * p->height;
}

/* the engine's parts and the reference's combination count the same scales */
_Static_assert(FSSIM_MS_SCALES == FSSIM_REF_MSSSIM_SCALES, "one number of MS-SSIM scales");

/* msssim: the valid positions of each scale (doc/algorithms.md#msssim),
 * as the reference counts them, so that S_j and CS_j are its means. */
static void msssim_divisors(const FSSIMOptions *o, const FSSIMPlane *p, double *den)
{
    const int w = o->window;

    for (int j = 0; j < FSSIM_MS_SCALES; j++) {
        int sw, sh;
        ff_fssim_ref_msssim_scale_size(p->width, p->height, j, &sw, &sh);
        if (sw < w || sh < w)
            continue;
        den[FSSIM_PART_MS_S(j)]  = (double)(sw - w + 1) * (sh - w + 1);
        den[FSSIM_PART_MS_CS(j)] = den[FSSIM_PART_MS_S(j)];
    }
}

/* vmaf_ssim: the valid positions of the decimated plane
 * (doc/algorithms.md#vmaf_ssim). */
static void vmaf_ssim_divisors(const FSSIMOptions *o, const FSSIMPlane *p, double *den)
{
    const int f = ff_fssim_ref_vmaf_scale(p->width, p->height);
    int w, h;

    ff_fssim_ref_vmaf_decimated_size(p->width, p->height, f, &w, &h);
    if (w >= FSSIM_VMAF_WINDOW && h >= FSSIM_VMAF_WINDOW)
        den[FSSIM_PART_VMAF_SSIM] = (double)(w - FSSIM_VMAF_WINDOW + 1) *
                                    (h - FSSIM_VMAF_WINDOW + 1);
}

/* vmaf_msssim: the valid positions of each scale. */
static void vmaf_msssim_divisors(const FSSIMOptions *o, const FSSIMPlane *p, double *den)
{
    for (int j = 0; j < FSSIM_VMAF_SCALES; j++) {
        int w, h;
        ff_fssim_ref_vmaf_scale_size(p->width, p->height, j, &w, &h);
        if (w < FSSIM_VMAF_WINDOW || h < FSSIM_VMAF_WINDOW)
            continue;
        for (int t = 0; t < 3; t++)
            den[FSSIM_PART_VMAF_MS(j, t)] = (double)(w - FSSIM_VMAF_WINDOW + 1) *
                                            (h - FSSIM_VMAF_WINDOW + 1);
    }
}

/* ---- scores: a plane's score from its sums -------------------------------- */

/* float, int, block: the mean of the per-position terms */
static double ratio_score(const FSSIMAlgo *a, const FSSIMSum *v, const double *den, int depth)
{
    return v[a->first_part].d / den[a->first_part];
}

/* psnr: of the MSE, the exact sum of squared differences over the samples */
static double psnr_score(const FSSIMAlgo *a, const FSSIMSum *v, const double *den, int depth)
{
    return ff_fssim_ref_psnr_from_mse((double)v[FSSIM_PART_SSE].u / den[FSSIM_PART_SSE], depth);
}

static double msssim_score(const FSSIMAlgo *a, const FSSIMSum *v, const double *den, int depth)
{
    double s[FSSIM_MS_SCALES], cs[FSSIM_MS_SCALES];

    for (int j = 0; j < FSSIM_MS_SCALES; j++) {
        s[j]  = v[FSSIM_PART_MS_S(j)].d  / den[FSSIM_PART_MS_S(j)];
        cs[j] = v[FSSIM_PART_MS_CS(j)].d / den[FSSIM_PART_MS_CS(j)];
    }
    return ff_fssim_ref_msssim_combine(s, cs);
}

/* libvmaf reports float_ssim as a float */
static double vmaf_ssim_score(const FSSIMAlgo *a, const FSSIMSum *v, const double *den,
                              int depth)
{
    return ff_fssim_ref_vmaf_mean(v[FSSIM_PART_VMAF_SSIM].d, den[FSSIM_PART_VMAF_SSIM]);
}

static double vmaf_msssim_score(const FSSIMAlgo *a, const FSSIMSum *v, const double *den,
                                int depth)
{
    float m[3][FSSIM_VMAF_SCALES];

    for (int j = 0; j < FSSIM_VMAF_SCALES; j++)
        for (int t = 0; t < 3; t++)
            m[t][j] = ff_fssim_ref_vmaf_mean(v[FSSIM_PART_VMAF_MS(j, t)].d,
                                             den[FSSIM_PART_VMAF_MS(j, t)]);
    return ff_fssim_ref_vmaf_msssim_combine(m[0], m[1], m[2]);
}

/* ---- the planes each algorithm can score ---------------------------------- */

static int check_float(AVFilterContext *ctx, const FSSIMOptions *o, const FSSIMFormat *f,
                       const FSSIMPlane *p)
{
    const FSSIMRefFloatParams fp = { o->window, o->sigma, o->padding };
    int ow, oh;

    if (ff_fssim_ref_float_out_size(p->width, p->height, &fp, &ow, &oh) >= 0)
        return 0;
    av_log(ctx, AV_LOG_ERROR, "Plane %c is %dx%d, smaller than the %dx%d window: "
           "padding=valid scores nothing. Use padding=same or a smaller window.\n",
           p->name, p->width, p->height, o->window, o->window);
    return AVERROR(EINVAL);
}

static int check_block(AVFilterContext *ctx, const FSSIMOptions *o, const FSSIMFormat *f,
                       const FSSIMPlane *p)
{
    int nx, ny;

    if (ff_fssim_ref_block_windows(p->width, p->height, &nx, &ny) >= 0)
        return 0;
    av_log(ctx, AV_LOG_ERROR, "Plane %c is %dx%d: algo=block needs planes of at "
           "least 8x8 samples. Use algo=int or algo=float for frames this small.\n",
           p->name, p->width, p->height);
    return AVERROR(EINVAL);
}

/* A chroma plane smaller than the luma: a 4:4:4 format would score it at
 * the luma's size. */
static int subsampled(const FSSIMFormat *f, const FSSIMPlane *p)
{
    return p->width < f->width || p->height < f->height;
}

/* doc/algorithms.md#msssim: the fifth scale must hold one whole window. */
static int check_msssim(AVFilterContext *ctx, const FSSIMOptions *o, const FSSIMFormat *f,
                        const FSSIMPlane *p)
{
    const int min = ff_fssim_ref_msssim_min_side(o->window);
    const int sub = subsampled(f, p);
    char smaller[64] = "";

    if (FFMIN(p->width, p->height) >= min)
        return 0;
    if (o->window > FSSIM_MIN_WINDOW)
        snprintf(smaller, sizeof(smaller), "a smaller window (window=%d needs %d)%s",
                 FSSIM_MIN_WINDOW, ff_fssim_ref_msssim_min_side(FSSIM_MIN_WINDOW),
                 sub ? ", " : " or ");
    av_log(ctx, AV_LOG_ERROR, "Plane %c is %dx%d: algo=msssim needs planes whose smaller side "
           "is at least %d samples with window=%d (five scales, the last one window wide). "
           "Use %s%slarger frames.\n", p->name, p->width, p->height, min, o->window, smaller,
           sub ? "a 4:4:4 format for the subsampled chroma planes, or " : "");
    return AVERROR(EINVAL);
}

/* doc/algorithms.md#vmaf_ssim: the decimated plane holds one 11x11 window. */
static int check_vmaf_ssim(AVFilterContext *ctx, const FSSIMOptions *o, const FSSIMFormat *f,
                           const FSSIMPlane *p)
{
    if (FFMIN(p->width, p->height) >= FSSIM_VMAF_WINDOW)
        return 0;
    av_log(ctx, AV_LOG_ERROR, "Plane %c is %dx%d: algo=vmaf_ssim needs planes of at least "
           "%dx%d samples (libvmaf's 11x11 window). Use %slarger frames.\n", p->name,
           p->width, p->height, FSSIM_VMAF_WINDOW, FSSIM_VMAF_WINDOW,
           subsampled(f, p) ? "a 4:4:4 format for the subsampled chroma planes, or " : "");
    return AVERROR(EINVAL);
}

/* doc/algorithms.md#vmaf_msssim: libvmaf's own limit, five scales whose
 * last (the side halved four times, rounding down) is a window wide. */
static int check_vmaf_msssim(AVFilterContext *ctx, const FSSIMOptions *o,
                             const FSSIMFormat *f, const FSSIMPlane *p)
{
    if (FFMIN(p->width, p->height) >= FSSIM_VMAF_MS_MIN_SIDE)
        return 0;
    av_log(ctx, AV_LOG_ERROR, "Plane %c is %dx%d: algo=vmaf_msssim needs planes of at least "
           "%dx%d samples (libvmaf's float_ms_ssim: five scales, the last one 11 samples "
           "wide). Use %slarger frames.\n", p->name, p->width, p->height,
           FSSIM_VMAF_MS_MIN_SIDE, FSSIM_VMAF_MS_MIN_SIDE,
           subsampled(f, p) ? "a 4:4:4 format for the subsampled chroma planes, or " : "");
    return AVERROR(EINVAL);
}

/* ---- the table ------------------------------------------------------------- */

#define ROW(idx, nm, desc, has_db, pool, part, parts, div, sc, chk)            \
    [idx] = { .index = idx, .name = nm, .description = desc, .db = has_db,     \
              .pooling = pool, .first_part = part, .nb_parts = parts,          \
              .divisors = div, .score = sc, .check = chk },

static const FSSIMAlgo algos[FSSIM_NB_ALGOS] = {
    FSSIM_ALGO_TABLE(ROW)
};

const FSSIMAlgo *ff_fssim_algo(int index)
{
    return &algos[index];
}

const char *ff_fssim_pooling_name(enum FSSIMPooling pooling)
{
    return pooling == FSSIM_POOLING_PSNR ? "psnr" : "mean";
}

const char *ff_fssim_algo_name(int algo)
{
    return ff_fssim_algo(algo)->name;
}

double ff_fssim_db(double ssim)
{
    return ssim < 1.0 ? -10.0 * log10(1.0 - ssim) : INFINITY;
}
