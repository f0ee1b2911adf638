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
 * fssim: SSIM between two video streams on software frames, with the CPU
 * reference of every algorithm (integer, Gaussian and FFmpeg-ssim block
 * SSIM).  The GPU filters are checked against this one.
 */
#include "libavutil/internal.h"
#include "libavutil/mem.h"
#include "libavutil/opt.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/filters.h"
#include "libavfilter/formats.h"
#include "libavfilter/framesync.h"
#include "libavfilter/video.h"

#include "fssim_common.h"
#include "fssim_ref.h"

/* Rows per slice job.  Fixed, not derived from the thread count, so that
 * the per-job partial sums, added in job order, give the same value
 * whatever the number of threads. */
#define BAND_ROWS 16

typedef struct FSSIMJob {
    int algo, comp;
    int y0, y1;           /* rows (int), scored rows (float), window rows (block) */
    FSSIMRefIntSums isum; /* int */
    double sum;           /* float, block */
    int err;
} FSSIMJob;

typedef struct FSSIMContext {
    const AVClass *class;
    FFFrameSync fs;
    FSSIMOptions opts;
    FSSIMOutput out;
    FSSIMFormat fmt;
    FSSIMJob *jobs;
    int nb_jobs;
} FSSIMContext;

typedef struct ThreadData {
    const AVFrame *main, *ref;
} ThreadData;

#define OFFSET(x) offsetof(FSSIMContext, x)

static const AVOption fssim_options[] = {
    FSSIM_ALGO_OPTIONS(FSSIMContext, opts),
    FSSIM_OUTPUT_OPTIONS(FSSIMContext, opts),
    { NULL }
};

FRAMESYNC_DEFINE_CLASS(fssim, FSSIMContext, fs);

/* Number of rows the algorithm iterates over in component c. */
static int algo_rows(const FSSIMContext *s, int algo, int c)
{
    const FSSIMPlane *p = &s->fmt.comp[c];
    const FSSIMRefFloatParams fp = { s->opts.window, s->opts.sigma, s->opts.padding };
    int w, h;

    switch (algo) {
    case FSSIM_INT:
        return p->height;
    case FSSIM_FLOAT:
        return fssim_ref_float_out_size(p->width, p->height, &fp, &w, &h) < 0 ? 0 : h;
    default:
        return fssim_ref_block_windows(p->width, p->height, &w, &h) < 0 ? 0 : h;
    }
}

static int setup_jobs(AVFilterContext *ctx)
{
    FSSIMContext *s = ctx->priv;
    int n = 0;

    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
            if (!(s->opts.algos & FSSIM_FLAG(a)))
                continue;
            for (int c = 0; c < s->fmt.nb_comps; c++) {
                const int rows = algo_rows(s, a, c);
                for (int y = 0; y < rows; y += BAND_ROWS, n++) {
                    if (pass)
                        s->jobs[n] = (FSSIMJob) { .algo = a, .comp = c, .y0 = y,
                                                  .y1 = FFMIN(y + BAND_ROWS, rows) };
                }
            }
        }
        if (!pass && !(s->jobs = av_calloc(n, sizeof(*s->jobs))))
            return AVERROR(ENOMEM);
    }
    s->nb_jobs = n;
    return 0;
}

static int score_band(AVFilterContext *ctx, void *arg, int jobnr, int nb_jobs)
{
    FSSIMContext *s = ctx->priv;
    const ThreadData *td = arg;
    FSSIMJob *job = &s->jobs[jobnr];
    const FSSIMRefPlane a = ff_fssim_ref_plane(&s->fmt, job->comp, td->main->data, td->main->linesize);
    const FSSIMRefPlane b = ff_fssim_ref_plane(&s->fmt, job->comp, td->ref->data, td->ref->linesize);
    const FSSIMRefFloatParams fp = { s->opts.window, s->opts.sigma, s->opts.padding };
    const int depth = s->fmt.depth;

    job->isum = (FSSIMRefIntSums) { 0 };
    job->sum  = 0.0;
    switch (job->algo) {
    case FSSIM_INT:
        job->err = fssim_ref_int_rows(&a, &b, depth, job->y0, job->y1, &job->isum);
        break;
    case FSSIM_FLOAT:
        job->err = fssim_ref_float_rows(&a, &b, depth, &fp, job->y0, job->y1, &job->sum);
        break;
    default:
        job->err = fssim_ref_block_rows(&a, &b, depth, job->y0, job->y1, &job->sum);
        break;
    }
    return 0;
}

/* Per-component scores from the job partials, added in job order. */
static int gather_scores(FSSIMContext *s, FSSIMScores *sc)
{
    FSSIMRefIntSums isum[4] = { { 0 } };
    double sum[FSSIM_NB_ALGOS][4] = { { 0 } };
    const FSSIMRefFloatParams fp = { s->opts.window, s->opts.sigma, s->opts.padding };

    for (int j = 0; j < s->nb_jobs; j++) {
        const FSSIMJob *job = &s->jobs[j];
        if (job->err < 0)
            return job->err;
        isum[job->comp].t += job->isum.t;
        isum[job->comp].w += job->isum.w;
        sum[job->algo][job->comp] += job->sum;
    }
    for (int c = 0; c < s->fmt.nb_comps; c++) {
        const FSSIMPlane *p = &s->fmt.comp[c];
        int w, h;
        sc->score[FSSIM_INT][c] = isum[c].t / (double)isum[c].w;
        if (fssim_ref_float_out_size(p->width, p->height, &fp, &w, &h) == 0)
            sc->score[FSSIM_FLOAT][c] = sum[FSSIM_FLOAT][c] / ((double)w * h);
        if (fssim_ref_block_windows(p->width, p->height, &w, &h) == 0)
            sc->score[FSSIM_BLOCK][c] = sum[FSSIM_BLOCK][c] / ((double)w * h);
    }
    return 0;
}

static int do_fssim(FFFrameSync *fs)
{
    AVFilterContext *ctx = fs->parent;
    FSSIMContext *s = ctx->priv;
    AVFrame *master, *ref;
    FSSIMScores sc = { { { 0 } } };
    ThreadData td;
    int ret;

    ret = ff_framesync_dualinput_get(fs, &master, &ref);
    if (ret < 0)
        return ret;
    if (ctx->is_disabled || !ref)
        return ff_filter_frame(ctx->outputs[0], master);

    ret = ff_fssim_check_frames(ctx, &s->out, master, ref);
    if (ret >= 0) {
        td.main = master;
        td.ref  = ref;
        ff_filter_execute(ctx, score_band, &td, NULL, s->nb_jobs);
        ret = gather_scores(s, &sc);
    }
    if (ret >= 0)
        ret = ff_fssim_output_frame(ctx, &s->out, master, &sc);
    if (ret < 0) {
        av_frame_free(&master);
        return ret;
    }
    return ff_filter_frame(ctx->outputs[0], master);
}

static int query_formats(const AVFilterContext *ctx, AVFilterFormatsConfig **cfg_in,
                         AVFilterFormatsConfig **cfg_out)
{
    return ff_fssim_query_formats(ctx, cfg_in, cfg_out, AV_PIX_FMT_NONE);
}

static av_cold int init(AVFilterContext *ctx)
{
    FSSIMContext *s = ctx->priv;

    s->fs.on_event = do_fssim;
    return ff_fssim_output_open(ctx, &s->out, &s->opts, "lavfi.fssim.", s->opts.algos);
}

static int config_input_ref(AVFilterLink *inlink)
{
    AVFilterContext *ctx = inlink->dst;
    FSSIMContext *s = ctx->priv;
    const AVFilterLink *m = ctx->inputs[0];
    int ret;

    ret = ff_fssim_check_inputs(ctx, m->w, m->h, m->format, inlink->w, inlink->h,
                                inlink->format, "scale");
    if (ret < 0)
        return ret;
    ret = ff_fssim_format_init(ctx, &s->fmt, inlink->format, inlink->w, inlink->h);
    if (ret < 0)
        return ret;
    ret = ff_fssim_check_options(ctx, &s->opts, &s->fmt);
    if (ret < 0)
        return ret;
    ret = setup_jobs(ctx);
    if (ret < 0)
        return ret;
    return ff_fssim_output_config(ctx, &s->out, &s->fmt);
}

static int config_output(AVFilterLink *outlink)
{
    FSSIMContext *s = outlink->src->priv;
    return ff_fssim_config_output(outlink, &s->fs, &s->out);
}

static int activate(AVFilterContext *ctx)
{
    FSSIMContext *s = ctx->priv;
    return ff_framesync_activate(&s->fs);
}

static av_cold void uninit(AVFilterContext *ctx)
{
    FSSIMContext *s = ctx->priv;

    ff_fssim_output_close(ctx, &s->out, s->fs.eof);
    ff_framesync_uninit(&s->fs);
    av_freep(&s->jobs);
}

static const AVFilterPad fssim_inputs[] = {
    {
        .name         = "main",
        .type         = AVMEDIA_TYPE_VIDEO,
    },{
        .name         = "reference",
        .type         = AVMEDIA_TYPE_VIDEO,
        .config_props = config_input_ref,
    },
};

static const AVFilterPad fssim_outputs[] = {
    {
        .name          = "default",
        .type          = AVMEDIA_TYPE_VIDEO,
        .config_props  = config_output,
    },
};

const FFFilter ff_vf_fssim = {
    .p.name        = "fssim",
    .p.description = NULL_IF_CONFIG_SMALL("Calculate SSIM (integer, Gaussian, block) between two video streams."),
    .p.priv_class  = &fssim_class,
    .p.flags       = AVFILTER_FLAG_SUPPORT_TIMELINE_INTERNAL |
                     AVFILTER_FLAG_SLICE_THREADS             |
                     AVFILTER_FLAG_METADATA_ONLY,
    .preinit       = fssim_framesync_preinit,
    .init          = init,
    .uninit        = uninit,
    .activate      = activate,
    .priv_size     = sizeof(FSSIMContext),
    FILTER_INPUTS(fssim_inputs),
    FILTER_OUTPUTS(fssim_outputs),
    FILTER_QUERY_FUNC2(query_formats),
};
