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
 * fssim: the stats_file lines, in the format of FFmpeg's ssim filter (or
 * psnr's), so that the parsers of its files keep working.
 */
#include <inttypes.h>

#include "libavutil/avstring.h"
#include "libavutil/bprint.h"
#include "libavutil/mem.h"

#include "../core/fssim_algos.h"
#include "fssim_stats.h"

/*
 * A ladder's stats_file is a template, with printf's meaning: one %d (with
 * an optional zero flag and width, %03d) for the rendition's number, %% for
 * a %.  Two inputs write the path as it is, as FFmpeg's ssim does.  Fills
 * path (NULL: check only) for rendition k.
 */
int ff_fssim_stats_path(AVFilterContext *ctx, const FSSIMOutput *out, int k, char **path)
{
    const char *t = out->opts->stats_file_str;
    int nb_d = 0, ret = 0;
    AVBPrint bp;

    if (!ff_fssim_is_ladder(out)) {
        if (path && !(*path = av_strdup(t)))
            return AVERROR(ENOMEM);
        return 0;
    }
    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
    for (const char *p = t; *p && ret >= 0; p++) {
        const char *q = p + 1;
        int zero = 0, width = 0;
        if (*p != '%') {
            av_bprint_chars(&bp, *p, 1);
            continue;
        }
        if (*q == '%') {
            av_bprint_chars(&bp, '%', 1);
            p = q;
            continue;
        }
        if (*q == '0')
            zero = *q++;
        while (av_isdigit(*q) && width < 100)
            width = 10 * width + *q++ - '0';
        if (*q != 'd') {
            av_log(ctx, AV_LOG_ERROR, "stats_file=%s: '%.*s' is not a conversion a ladder's "
                   "stats_file takes: %%d (once) is the rendition's number, %%%% a %%.\n", t,
                   (int)(q - p + !!*q), p);
            ret = AVERROR(EINVAL);
            break;
        }
        av_bprintf(&bp, zero ? "%0*d" : "%*d", width, k + 1);
        nb_d++;
        p = q;
    }
    if (ret >= 0 && nb_d != 1) {
        av_log(ctx, AV_LOG_ERROR, "stats_file=%s: a ladder writes one stats file per "
               "rendition, so the path needs %%d exactly once, replaced by the rendition's "
               "number (1 to %d), e.g. stats_file=ssim_%%d.txt (%%%% for a %%).\n", t,
               out->nb_dist);
        ret = AVERROR(EINVAL);
    }
    if (ret >= 0 && path && av_bprint_finalize(&bp, path) < 0)
        ret = AVERROR(ENOMEM);
    if (ret < 0 || !path)
        av_bprint_finalize(&bp, NULL);
    return ret;
}

/* The ssim filter's line format, so existing parsers keep working; psnr:
 * the psnr filter's.  One write a line: a file holds whole lines. */
int ff_fssim_stats_line(FSSIMOutput *out, int k, const FSSIMScores *s)
{
    FSSIMFile *f = &out->stats[k];
    const int n = out->fmt.nb_comps;
    const double *sc = s->score[k][out->stats_algo];
    AVBPrint bp;
    int ret;

    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_AUTOMATIC);
    av_bprintf(&bp, "n:%"PRIu64" ", out->first_n + out->nb_scored[k] + 1);
    if (!ff_fssim_has_db(out->stats_algo)) {
        av_bprintf(&bp, "mse_avg:%0.2f ", s->mse[k][n]);
        for (int c = 0; c < n; c++)
            av_bprintf(&bp, "mse_%c:%0.2f ", av_tolower(out->fmt.comp[c].name), s->mse[k][c]);
        av_bprintf(&bp, "psnr_avg:%0.2f ", sc[n]);
        for (int c = 0; c < n; c++)
            av_bprintf(&bp, "psnr_%c:%0.2f ", av_tolower(out->fmt.comp[c].name), sc[c]);
        av_bprint_chars(&bp, '\n', 1);
    } else {
        for (int c = 0; c < n; c++)
            av_bprintf(&bp, "%c:%f ", out->fmt.comp[c].name, sc[c]);
        av_bprintf(&bp, "All:%f (%f)\n", sc[n], ff_fssim_db(sc[n]));
    }
    ret = av_bprint_is_complete(&bp) ? ff_fssim_file_write(f, f->end, bp.str, bp.len)
                                     : AVERROR(ENOMEM);
    av_bprint_finalize(&bp, NULL);
    return ret;
}
