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
 * fssim: the checks of a filter's options at configuration: an algorithm
 * asked for, an odd window, stats_algo among the algorithms, one label per
 * input, and every algorithm's own check of every plane (its row of the
 * table of algorithms).
 */
#include "libavutil/bprint.h"

#include "fssim_algos.h"
#include "fssim_check.h"

int ff_fssim_check_options(AVFilterContext *ctx, const FSSIMOptions *o, const FSSIMFormat *f)
{
    char *names[FSSIM_MAX_INPUTS];
    int ret;

    /* the flags parser takes algo=none / algo=0 whatever the option's minimum */
    if (!(o->algos & FSSIM_ALGOS_MASK)) {
        AVBPrint list;
        av_bprint_init(&list, 0, AV_BPRINT_SIZE_AUTOMATIC);
        for (int a = 0; a < FSSIM_NB_ALGOS; a++)
            av_bprintf(&list, "%s%s", a ? a + 1 < FSSIM_NB_ALGOS ? ", " : " and " : "",
                       ff_fssim_algo_name(a));
        av_log(ctx, AV_LOG_ERROR, "algo selects no algorithm: choose one or more of %s, "
               "e.g. algo=float+int.\n", list.str);
        av_bprint_finalize(&list, NULL);
        return AVERROR(EINVAL);
    }
    if (!(o->window & 1)) {
        av_log(ctx, AV_LOG_ERROR, "window=%d: the window size must be odd (%d to %d).\n",
               o->window, FSSIM_MIN_WINDOW, FSSIM_MAX_WINDOW);
        return AVERROR(EINVAL);
    }
    if (o->stats_file_str && o->stats_algo >= 0 && !(o->algos & FSSIM_BIT(o->stats_algo))) {
        av_log(ctx, AV_LOG_ERROR, "stats_algo=%s is not among the computed algorithms; "
               "add it to algo.\n", ff_fssim_algo_name(o->stats_algo));
        return AVERROR(EINVAL);
    }
    if ((ret = ff_fssim_parse_names(ctx, o, names)) < 0)
        return ret;
    ff_fssim_free_names(names);
    for (int i = 0; f && i < f->nb_comps; i++) {
        for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
            const FSSIMAlgo *al = ff_fssim_algo(a);
            if ((o->algos & FSSIM_BIT(a)) && al->check &&
                (ret = al->check(ctx, o, f, &f->comp[i])) < 0)
                return ret;
        }
    }
    return 0;
}
