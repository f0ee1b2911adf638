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
#include <inttypes.h>
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
static int check_msssim_plane(AVFilterContext *ctx, const FSSIMOptions *o, const FSSIMFormat *f,
                              const FSSIMPlane *p)
{
    const int min = ff_fssim_ref_msssim_min_side(o->window);
    /* a 4:4:4 format helps only a chroma plane smaller than the luma */
    const int subsampled = p->width < f->width || p->height < f->height;
    char smaller[64] = "";

    if (FFMIN(p->width, p->height) >= min)
        return 0;
    if (o->window > FSSIM_MIN_WINDOW)
        snprintf(smaller, sizeof(smaller), "a smaller window (window=%d needs %d)%s",
                 FSSIM_MIN_WINDOW, ff_fssim_ref_msssim_min_side(FSSIM_MIN_WINDOW),
                 subsampled ? ", " : " or ");
    av_log(ctx, AV_LOG_ERROR, "Plane %c is %dx%d: algo=msssim needs planes whose smaller side "
           "is at least %d samples with window=%d (five scales, the last one window wide). "
           "Use %s%slarger frames.\n", p->name, p->width, p->height, min, o->window, smaller,
           subsampled ? "a 4:4:4 format for the subsampled chroma planes, or " : "");
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
        if ((o->algos & FSSIM_BIT(FSSIM_ALGO_MSSSIM)) && (ret = check_msssim_plane(ctx, o, f, p)) < 0)
            return ret;
    }
    return 0;
}

int ff_fssim_check_segment(AVFilterContext *ctx, const FSSIMOptions *o, int context)
{
    if (o->seg_start < o->seg_base) {
        av_log(ctx, AV_LOG_ERROR, "seg_start=%"PRId64" lies before seg_base=%"PRId64": the "
               "first frame the filter receives is title frame seg_base, and it scores from "
               "seg_start on.\n", o->seg_start, o->seg_base);
        return AVERROR(EINVAL);
    }
    if (o->seg_end >= 0 && o->seg_end <= o->seg_start) {
        av_log(ctx, AV_LOG_ERROR, "seg_end=%"PRId64" is not after seg_start=%"PRId64": a "
               "segment scores title frames seg_start to seg_end - 1 (seg_end=-1: to the "
               "end).\n", o->seg_end, o->seg_start);
        return AVERROR(EINVAL);
    }
    /* a merge checks the title's frame count in every segment's log: a
     * segment that claims frames past it would hide a missing tail */
    if (o->seg_total >= 0 && (o->seg_start >= o->seg_total || o->seg_end < 0 ||
                              o->seg_end > o->seg_total)) {
        av_log(ctx, AV_LOG_ERROR, "seg_start=%"PRId64" seg_end=%"PRId64" with seg_total=%"PRId64
               ": a segment of a title of seg_total frames scores frames before seg_total "
               "and sets seg_end (at most seg_total).\n", o->seg_start, o->seg_end, o->seg_total);
        return AVERROR(EINVAL);
    }
    if (o->seg_base > 0 && o->seg_start - o->seg_base < context) {
        av_log(ctx, AV_LOG_ERROR, "seg_start=%"PRId64" with seg_base=%"PRId64": the temporal "
               "window needs %d frames before the first scored one; decode from frame %"PRId64
               " or earlier (seg_base), or from the start.\n", o->seg_start, o->seg_base,
               context, o->seg_start - context);
        return AVERROR(EINVAL);
    }
    return 0;
}
