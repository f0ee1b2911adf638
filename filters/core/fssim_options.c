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
 * fssim: the names option's labels, and the checks of the segment options
 * against each other.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "libavutil/avstring.h"
#include "libavutil/common.h"
#include "libavutil/mem.h"

#include "fssim_options.h"

void ff_fssim_free_names(char *names[FSSIM_MAX_INPUTS])
{
    for (int i = 0; i < FSSIM_MAX_INPUTS; i++)
        av_freep(&names[i]);
}

int ff_fssim_parse_names(AVFilterContext *ctx, const FSSIMOptions *o,
                         char *names[FSSIM_MAX_INPUTS])
{
    const char *p = o->names;
    int n = 0;

    memset(names, 0, FSSIM_MAX_INPUTS * sizeof(*names));
    if (!p || !*p)
        return 0;
    for (;;) {
        char *label = av_get_token(&p, "|");
        if (!label) {
            ff_fssim_free_names(names);
            return AVERROR(ENOMEM);
        }
        if (n < o->nb_inputs && *label)
            names[n] = label;
        else
            av_free(label);
        n++;
        if (!*p)
            break;
        p++;
    }
    if (n != o->nb_inputs) {
        av_log(ctx, AV_LOG_ERROR, "names has %d label%s for %d inputs: give one per input "
               "pad, the renditions first and the reference last, separated by '|' (an "
               "empty label leaves that input unnamed).\n", n, n == 1 ? "" : "s",
               o->nb_inputs);
        ff_fssim_free_names(names);
        return AVERROR(EINVAL);
    }
    return 0;
}

int ff_fssim_check_segment(AVFilterContext *ctx, const FSSIMOptions *o, int context)
{
    const struct { const char *name; int64_t v; } seg[4] = {
        { "seg_base", o->seg_base }, { "seg_start", o->seg_start }, { "seg_end", o->seg_end },
        { "seg_total", o->seg_total },
    };

    /* a larger number was rounded when it was read (or wrapped past
     * INT64_MAX): refused rather than logged as another frame's */
    for (int i = 0; i < 4; i++) {
        if (seg[i].v > FSSIM_SEG_MAX || seg[i].v < (i >= 2 ? -1 : 0)) {
            av_log(ctx, AV_LOG_ERROR, "%s=%"PRId64": title frame numbers go up to %"PRId64
                   " (2^53 - 1), the largest that the option parser and the logs' readers "
                   "hold exactly.\n", seg[i].name, seg[i].v, FSSIM_SEG_MAX);
            return AVERROR(ERANGE);
        }
    }
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
    if (o->seg_base > 0 && o->pairing == FSSIM_PAIRING_NEAREST &&
        !(o->seg_starts && *o->seg_starts)) {
        av_log(ctx, AV_LOG_ERROR, "seg_base=%"PRId64" cuts the title, and pairing=nearest "
               "counts times from each input's first frame, which a cut run does not see: "
               "give the inputs' first-frame times with seg_starts (fssim-farm does), or "
               "pair the timestamps as they are with pairing=pts.\n", o->seg_base);
        return AVERROR(EINVAL);
    }
    return 0;
}
