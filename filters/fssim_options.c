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
 * fssim: what the options mean -- the algorithms' names, and the checks of
 * the options against each other and against the planes they score.
 */
#include <stdio.h>

#include "libavutil/common.h"

#include "fssim_format.h"
#include "fssim_options.h"

static const char *const algo_names[FSSIM_NB_ALGOS] = {
    [FSSIM_ALGO_FLOAT]  = "float",
    [FSSIM_ALGO_INT]    = "int",
    [FSSIM_ALGO_BLOCK]  = "block",
    [FSSIM_ALGO_PSNR]   = "psnr",
    [FSSIM_ALGO_MSSSIM] = "msssim",
};

const char *ff_fssim_algo_name(int algo)
{
    return algo_names[algo];
}

/* doc/algorithms.md#msssim: the fifth scale must hold one whole window. */
static int check_msssim_plane(AVFilterContext *ctx, const FSSIMOptions *o, const FSSIMPlane *p)
{
    const int min = ff_fssim_ref_msssim_min_side(o->window);
    char smaller[64] = "";

    if (FFMIN(p->width, p->height) >= min)
        return 0;
    if (o->window > FSSIM_MIN_WINDOW)
        snprintf(smaller, sizeof(smaller), "a smaller window (window=%d needs %d), ",
                 FSSIM_MIN_WINDOW, ff_fssim_ref_msssim_min_side(FSSIM_MIN_WINDOW));
    av_log(ctx, AV_LOG_ERROR, "Plane %c is %dx%d: algo=msssim needs planes whose smaller side "
           "is at least %d samples with window=%d (five scales, the last one window wide). "
           "Use %sa 4:4:4 format for small chroma planes, or larger frames.\n", p->name,
           p->width, p->height, min, o->window, smaller);
    return AVERROR(EINVAL);
}

int ff_fssim_check_options(AVFilterContext *ctx, const FSSIMOptions *o, const FSSIMFormat *f)
{
    int ret;

    /* the flags parser takes algo=none / algo=0 whatever the option's minimum */
    if (!(o->algos & FSSIM_ALGOS_MASK)) {
        av_log(ctx, AV_LOG_ERROR, "algo selects no algorithm: choose one or more of float, "
               "int, block, psnr and msssim, e.g. algo=float+int.\n");
        return AVERROR(EINVAL);
    }
    if (!(o->window & 1)) {
        av_log(ctx, AV_LOG_ERROR, "window=%d: the window size must be odd (%d to %d).\n",
               o->window, FSSIM_MIN_WINDOW, FSSIM_MAX_WINDOW);
        return AVERROR(EINVAL);
    }
    if (o->stats_file_str && o->stats_algo >= 0 && !(o->algos & FSSIM_BIT(o->stats_algo))) {
        av_log(ctx, AV_LOG_ERROR, "stats_algo=%s is not among the computed algorithms; "
               "add it to algo.\n", algo_names[o->stats_algo]);
        return AVERROR(EINVAL);
    }
    for (int i = 0; f && i < f->nb_comps; i++) {
        const FSSIMPlane *p = &f->comp[i];
        const FSSIMRefFloatParams fp = { o->window, o->sigma, o->padding };
        int ow, oh, nx, ny;

        if ((o->algos & FSSIM_BIT(FSSIM_ALGO_FLOAT)) &&
            ff_fssim_ref_float_out_size(p->width, p->height, &fp, &ow, &oh) < 0) {
            av_log(ctx, AV_LOG_ERROR, "Plane %c is %dx%d, smaller than the %dx%d window: "
                   "padding=valid scores nothing. Use padding=same or a smaller window.\n",
                   p->name, p->width, p->height, o->window, o->window);
            return AVERROR(EINVAL);
        }
        if ((o->algos & FSSIM_BIT(FSSIM_ALGO_BLOCK)) &&
            ff_fssim_ref_block_windows(p->width, p->height, &nx, &ny) < 0) {
            av_log(ctx, AV_LOG_ERROR, "Plane %c is %dx%d: algo=block needs planes of at "
                   "least 8x8 samples. Use algo=int or algo=float for frames this small.\n",
                   p->name, p->width, p->height);
            return AVERROR(EINVAL);
        }
        if ((o->algos & FSSIM_BIT(FSSIM_ALGO_MSSSIM)) && (ret = check_msssim_plane(ctx, o, p)) < 0)
            return ret;
    }
    return 0;
}
