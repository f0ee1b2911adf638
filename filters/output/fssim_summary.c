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
 * fssim: what an output says when its filter closes: the summary lines of
 * every rendition and algorithm, in the format of FFmpeg's ssim filter (or
 * psnr's), and the warnings of a run whose results are partial -- nothing
 * scored, a stop signal, frames without a pair or damaged.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>

#include "libavutil/bprint.h"
#include "libavutil/log.h"
#include "libavfilter/filters.h"

#include "../core/fssim_algos.h"
#include "fssim_summary.h"

/* FFmpeg psnr's summary: the per-frame PSNR pooled (capped), the PSNR of
 * the mean MSE (average), and of the largest and smallest mean MSE. */
static void log_psnr_summary(AVFilterContext *ctx, FSSIMOutput *out, int k, int a,
                             const char *rend)
{
    const FSSIMFormat *f = &out->fmt;
    const FSSIMPool *all = &out->pool[k][a][f->nb_comps];
    const uint64_t n = out->nb_scored[k];
    AVBPrint bp;

    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_AUTOMATIC);
    for (int c = 0; c < f->nb_comps; c++)
        av_bprintf(&bp, " %c:%f", f->comp[c].name,
                   ff_fssim_pooled(&out->pool[k][a][c], n, FSSIM_POOLED_MEAN,
                                   f->depth));
    av_log(ctx, AV_LOG_INFO, "PSNR%s%s All:%f average:%f min:%f max:%f frames:%"PRIu64"\n",
           rend, bp.str, ff_fssim_pooled(all, n, FSSIM_POOLED_MEAN, f->depth),
           ff_fssim_pooled(all, n, FSSIM_POOLED_PSNR_OF_MEAN_MSE, f->depth),
           ff_fssim_pooled(all, n, FSSIM_POOLED_MIN, f->depth),
           ff_fssim_pooled(all, n, FSSIM_POOLED_MAX, f->depth), n);
    av_bprint_finalize(&bp, NULL);
}

static void log_summary(AVFilterContext *ctx, FSSIMOutput *out)
{
    const FSSIMFormat *f = &out->fmt;

    for (int k = 0; k < out->nb_dist; k++) {
        const uint64_t n = out->nb_scored[k];
        for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
            const FSSIMPool *all = &out->pool[k][a][f->nb_comps];
            /* a single score's line names no algorithm */
            const char *name = out->single_score ? "" : ff_fssim_algo_name(a);
            const char *sep = out->single_score ? "" : " ";
            char rend[64] = "";
            double mean;
            AVBPrint bp;
            if (!(out->algos & FSSIM_BIT(a)))
                continue;
            if (ff_fssim_is_ladder(out))
                snprintf(rend, sizeof(rend), " %s", ctx->input_pads[k].name);
            /* no values to print: no dB of nothing that reads as a score */
            if (!n) {
                av_log(ctx, AV_LOG_INFO, "%s%s%s%s frames:0\n", ff_fssim_has_db(a) ? "SSIM" : "PSNR",
                       ff_fssim_has_db(a) ? sep : "", ff_fssim_has_db(a) ? name : "", rend);
                continue;
            }
            if (!ff_fssim_has_db(a)) {
                log_psnr_summary(ctx, out, k, a, rend);
                continue;
            }
            av_bprint_init(&bp, 0, AV_BPRINT_SIZE_AUTOMATIC);
            for (int c = 0; c < f->nb_comps; c++) {
                const double m = ff_fssim_pooled(&out->pool[k][a][c], n, FSSIM_POOLED_MEAN,
                                                 f->depth);
                av_bprintf(&bp, " %c:%f (%f)", f->comp[c].name, m, ff_fssim_db(m));
            }
            mean = ff_fssim_pooled(all, n, FSSIM_POOLED_MEAN, f->depth);
            av_log(ctx, AV_LOG_INFO, "SSIM%s%s%s%s All:%f (%f) min:%f frames:%"PRIu64"\n",
                   sep, name, rend, bp.str, mean, ff_fssim_db(mean),
                   ff_fssim_pooled(all, n, FSSIM_POOLED_MIN, f->depth), n);
            av_bprint_finalize(&bp, NULL);
        }
    }
}

/* Frames without a pair, or damaged, are said at the end: the scores hold
 * only true pairs, and a rendition that is shorter, longer or broken is
 * not a clean result. */
static void warn_pairing(AVFilterContext *ctx, const FSSIMOutput *out)
{
    const FSSIMPairStats *st = &out->pairs;
    const int r = out->nb_dist;
    const char *ref = ctx->input_pads[r].name;

    if (st->mode == FSSIM_PAIRING_FRAMESYNC)
        return;
    for (int k = 0; k < out->nb_dist; k++) {
        const char *pad = ctx->input_pads[k].name;
        if (st->lacks[k])
            av_log(ctx, AV_LOG_WARNING, "%s lacks %"PRIu64" of the %s's frames: no %s frame "
                   "lies within half a frame of their time (it is shorter, starts later, or "
                   "lost frames), so they were not scored for %s.\n", pad, st->lacks[k],
                   ref, pad, pad);
        if (st->excess[k])
            av_log(ctx, AV_LOG_WARNING, "%s has %"PRIu64" frame%s in excess: no %s frame lies "
                   "within half a frame of their time (it is longer, or has frames the %s "
                   "lacks), so they were not scored.\n", pad, st->excess[k],
                   st->excess[k] == 1 ? "" : "s", ref, ref);
    }
    for (int i = 0; i <= r; i++)
        if (st->damaged[i])
            av_log(ctx, AV_LOG_WARNING, "%"PRIu64" %s frame%s came from the decoder with "
                   "errors (damaged or concealed data) and %s scored as decoded: check the "
                   "input.\n", st->damaged[i], ctx->input_pads[i].name,
                   st->damaged[i] == 1 ? "" : "s", st->damaged[i] == 1 ? "was" : "were");
}

/* Nothing scored: say why, so that an empty result is not read as a run
 * that scored its frames. */
static void warn_nothing_scored(AVFilterContext *ctx, const FSSIMOutput *out)
{
    const uint64_t *u = out->nb_unscored;
    const char *ref = ctx->input_pads[ctx->nb_inputs - 1].name;
    uint64_t passed = 0;

    for (int i = 0; i < FSSIM_NB_UNSCORED; i++)
        passed += u[i];
    if (!passed)
        av_log(ctx, AV_LOG_WARNING, "No frame was scored: no frame reached the filter "
               "(an input was empty, or the run stopped first).\n");
    else if (u[FSSIM_UNSCORED_DISABLED] == passed)
        av_log(ctx, AV_LOG_WARNING, "No frame was scored: the enable expression was false "
               "for all %"PRIu64" frames.\n", passed);
    else if (u[FSSIM_UNSCORED_SEGMENT] == passed)
        av_log(ctx, AV_LOG_WARNING, "No frame was scored: all %"PRIu64" frames came before "
               "seg_start.\n", passed);
    else if (u[FSSIM_UNSCORED_WINDOW] == passed)
        av_log(ctx, AV_LOG_WARNING, "No frame was scored: none of the %"PRIu64" frames had "
               "a full temporal window (tpadding=valid).\n", passed);
    else if (u[FSSIM_UNSCORED_NO_DIST])
        av_log(ctx, AV_LOG_WARNING, "No frame was scored: no rendition had a frame at the "
               "time of any of the %"PRIu64" %s frames (empty, or they ended before).\n",
               passed, ref);
    else
        av_log(ctx, AV_LOG_WARNING, "No frame was scored: the %s input had no frame at the "
               "time of any of the %"PRIu64" frames (empty, or it ended before).\n", ref,
               passed);
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGINT:  return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGQUIT: return "SIGQUIT";
    case SIGXCPU: return "SIGXCPU";
    default:      return "a signal";
    }
}

/* A run stopped by a signal: its inputs were ended early, so its results
 * are partial. */
static void say_stopped(AVFilterContext *ctx, const FSSIMOutput *out, int sig)
{
    av_log(ctx, AV_LOG_WARNING, "The run was stopped by %s: the results cover the %"PRIu64
           " frames scored before the stop, and the log says that it is not complete.\n",
           signal_name(sig), out->nb_frames);
}

void ff_fssim_output_summary(AVFilterContext *ctx, FSSIMOutput *out, int stopped)
{
    if (!out->nb_frames)
        warn_nothing_scored(ctx, out);
    else if (stopped && !out->complete)
        say_stopped(ctx, out, stopped);
    log_summary(ctx, out);
    warn_pairing(ctx, out);
}
