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
 * fssim3d: spatio-temporal SSIM between two video streams (doc/algorithms.md#fssim3d): the
 * Gaussian SSIM of doc/algorithms.md#float with a separable (x, y, t) window.
 *
 * Each frame pair's spatial moments are computed once into a ring of depth
 * moment sets; frame t is scored from the ring once frame t + depth/2 has
 * arrived, so the output is delayed by depth/2 frames and the held frames
 * are flushed, with truncated temporal windows, at EOF.  The ring, the
 * delay line and the flush are backend independent (see fssim3d.h); this
 * file also holds the software backend, in double with the CPU reference.
 */
#include <inttypes.h>

#include "config.h"
#include "libavutil/buffer.h"
#include "libavutil/mem.h"
#include "libavutil/opt.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/filters.h"
#include "libavfilter/formats.h"
#include "libavfilter/framesync.h"
#include "libavfilter/video.h"

#include "fssim3d.h"
#include "fssim_common.h"
#include "fssim_ref.h"

#define OFFSET(x) offsetof(FSSIM3DContext, x)

static const AVOption fssim3d_options[] = {
    FSSIM_WINDOW_OPTIONS(FSSIM3DContext, opts),
    { "depth",    "temporal window size in frames (odd)", OFFSET(depth),
      AV_OPT_TYPE_INT, { .i64 = 11 }, 1, FSSIM3D_MAX_DEPTH, FSSIM_OPT_FLAGS },
    { "tsigma",   "temporal Gaussian sigma in frames", OFFSET(tsigma),
      AV_OPT_TYPE_DOUBLE, { .dbl = 1.5 }, 0.1, 100.0, FSSIM_OPT_FLAGS },
    { "tpadding", "temporal border handling", OFFSET(tpadding),
      AV_OPT_TYPE_INT, { .i64 = FSSIM_REF_TPAD_TRUNCATE }, 0, 1, FSSIM_OPT_FLAGS,
      .unit = "tpadding" },
    { "truncate", "drop the taps outside the sequence and renormalise: every frame is scored",
      0, AV_OPT_TYPE_CONST, { .i64 = FSSIM_REF_TPAD_TRUNCATE }, 0, 0, FSSIM_OPT_FLAGS,
      .unit = "tpadding" },
    { "valid",    "score only frames with a full temporal window (scikit-image)",
      0, AV_OPT_TYPE_CONST, { .i64 = FSSIM_REF_TPAD_VALID }, 0, 0, FSSIM_OPT_FLAGS,
      .unit = "tpadding" },
    FSSIM_OUTPUT_OPTIONS(FSSIM3DContext, opts),
    { NULL }
};

FRAMESYNC_DEFINE_CLASS(fssim3d, FSSIM3DContext, fs);

/* ---- software backend ------------------------------------------------- */

/* Scored rows per slice job.  Fixed, not derived from the thread count, so
 * that the per-job partial sums, added in job order, give the same value
 * whatever the number of threads. */
#define BAND_ROWS 16

typedef struct CPUJob {
    int    comp;
    int    y0, y1;   /* scored rows */
    double sum;      /* score: sum of the 3-D SSIM over the band */
    int    err;
} CPUJob;

typedef struct CPUBackend {
    /* ring[slot][comp]: the five moment planes of a component, in double */
    FSSIMRefMoments ring[FSSIM3D_MAX_DEPTH][4];
    CPUJob *jobs;
    int     nb_jobs;
} CPUBackend;

typedef struct CPUThreadData {
    const AVFrame *main, *ref;   /* moments */
    int slot;
    const FSSIM3DWindow *win;    /* score */
} CPUThreadData;

/* By uninit the filter has left its graph and slice threading with it,
 * but held frames are still scored then: run the same jobs in order. */
static void run_jobs(AVFilterContext *ctx, avfilter_action_func *fn, void *arg, int nb_jobs)
{
    if (ctx->graph) {
        ff_filter_execute(ctx, fn, arg, NULL, nb_jobs);
        return;
    }
    for (int j = 0; j < nb_jobs; j++)
        fn(ctx, arg, j, nb_jobs);
}

static FSSIMRefFloatParams float_params(const FSSIM3DContext *s)
{
    return (FSSIMRefFloatParams) { s->opts.window, s->opts.sigma, s->opts.padding };
}

static int cpu_check_inputs(AVFilterContext *ctx, enum AVPixelFormat *sw_format)
{
    const AVFilterLink *m = ctx->inputs[0], *r = ctx->inputs[1];

    *sw_format = r->format;
    return ff_fssim_check_inputs(ctx, m->w, m->h, m->format, r->w, r->h, r->format, "scale");
}

static int cpu_init(AVFilterContext *ctx, size_t *bytes)
{
    FSSIM3DContext *s = ctx->priv;
    const FSSIMRefFloatParams fp = float_params(s);
    CPUBackend *b;
    int n = 0, ret;

    b = s->backend_priv = av_mallocz(sizeof(*b));
    if (!b)
        return AVERROR(ENOMEM);

    *bytes = 0;
    for (int c = 0; c < s->fmt.nb_comps; c++) {
        const FSSIMPlane *p = &s->fmt.comp[c];
        int ow, oh;
        /* ff_fssim_check_options() made sure every plane scores something */
        fssim_ref_float_out_size(p->width, p->height, &fp, &ow, &oh);
        for (int k = 0; k < s->depth; k++) {
            ret = fssim_ref_moments_alloc(&b->ring[k][c], ow, oh);
            if (ret < 0)
                return AVERROR(ENOMEM);
        }
        *bytes += (size_t)s->depth * 5 * ow * oh * sizeof(double);
        n += (oh + BAND_ROWS - 1) / BAND_ROWS;
    }

    b->jobs = av_calloc(n, sizeof(*b->jobs));
    if (!b->jobs)
        return AVERROR(ENOMEM);
    for (int c = 0; c < s->fmt.nb_comps; c++) {
        const int rows = b->ring[0][c].h;
        for (int y = 0; y < rows; y += BAND_ROWS)
            b->jobs[b->nb_jobs++] = (CPUJob) { .comp = c, .y0 = y,
                                               .y1 = FFMIN(y + BAND_ROWS, rows) };
    }
    return 0;
}

static int cpu_moments_band(AVFilterContext *ctx, void *arg, int jobnr, int nb_jobs)
{
    FSSIM3DContext *s = ctx->priv;
    CPUBackend *b = s->backend_priv;
    const CPUThreadData *td = arg;
    CPUJob *job = &b->jobs[jobnr];
    const FSSIMRefMoments *m = &b->ring[td->slot][job->comp];
    const FSSIMRefPlane pa = ff_fssim_ref_plane(&s->fmt, job->comp, td->main->data,
                                                td->main->linesize);
    const FSSIMRefPlane pb = ff_fssim_ref_plane(&s->fmt, job->comp, td->ref->data,
                                                td->ref->linesize);
    const FSSIMRefFloatParams fp = float_params(s);
    /* the band's rows of the slot, so the reference writes them in place */
    FSSIMRefMoments band = { .w = m->w, .h = job->y1 - job->y0 };

    for (int i = 0; i < 5; i++)
        band.m[i] = m->m[i] + (size_t)job->y0 * m->w;
    job->err = fssim_ref_float_moments_rows(&pa, &pb, &fp, job->y0, job->y1, &band);
    return 0;
}

static int cpu_moments(AVFilterContext *ctx, int slot, const AVFrame *main,
                       const AVFrame *ref)
{
    FSSIM3DContext *s = ctx->priv;
    CPUBackend *b = s->backend_priv;
    CPUThreadData td = { .main = main, .ref = ref, .slot = slot };

    run_jobs(ctx, cpu_moments_band, &td, b->nb_jobs);
    for (int j = 0; j < b->nb_jobs; j++)
        if (b->jobs[j].err < 0)
            return b->jobs[j].err;
    return 0;
}

static int cpu_score_band(AVFilterContext *ctx, void *arg, int jobnr, int nb_jobs)
{
    FSSIM3DContext *s = ctx->priv;
    CPUBackend *b = s->backend_priv;
    const CPUThreadData *td = arg;
    const FSSIM3DWindow *win = td->win;
    CPUJob *job = &b->jobs[jobnr];
    const double L  = (double)((1 << s->fmt.depth) - 1);
    const double c1 = (0.01 * L) * (0.01 * L);
    const double c2 = (0.03 * L) * (0.03 * L);
    const FSSIMRefMoments *mom[FSSIM3D_MAX_DEPTH];

    for (int k = 0; k < win->depth; k++)
        mom[k] = win->slot[k] >= 0 ? &b->ring[win->slot[k]][job->comp] : NULL;
    job->sum = fssim_ref_3d_rows(mom, win->wt, win->depth, c1, c2, job->y0, job->y1);
    return 0;
}

static int cpu_score(AVFilterContext *ctx, const FSSIM3DWindow *win, FSSIMScores *sc)
{
    FSSIM3DContext *s = ctx->priv;
    CPUBackend *b = s->backend_priv;
    CPUThreadData td = { .win = win };
    double sum[4] = { 0 };

    run_jobs(ctx, cpu_score_band, &td, b->nb_jobs);
    /* in job order, so the value does not depend on the thread count */
    for (int j = 0; j < b->nb_jobs; j++)
        sum[b->jobs[j].comp] += b->jobs[j].sum;
    for (int c = 0; c < s->fmt.nb_comps; c++) {
        const FSSIMRefMoments *m = &b->ring[0][c];
        sc->score[0][c] = sum[c] / ((double)m->w * m->h);
    }
    return 0;
}

static void cpu_uninit(AVFilterContext *ctx)
{
    FSSIM3DContext *s = ctx->priv;
    CPUBackend *b = s->backend_priv;

    if (!b)
        return;
    for (int k = 0; k < FSSIM3D_MAX_DEPTH; k++)
        for (int c = 0; c < 4; c++)
            fssim_ref_moments_free(&b->ring[k][c]);
    av_freep(&b->jobs);
    av_freep(&s->backend_priv);
}

static const FSSIM3DBackend cpu_backend = {
    .name         = "software",
    .storage      = "5 double planes per component",
    .check_inputs = cpu_check_inputs,
    .init         = cpu_init,
    .moments      = cpu_moments,
    .score        = cpu_score,
    .uninit       = cpu_uninit,
};

/* ---- ring, delay line, flush (backend independent) --------------------- */

/**
 * Score frame t of the sequence, if it gets a score, onto its frame.
 * nb_frames: the length of the sequence, or -1 while it is not known (then
 * frame t + depth/2 must have arrived).  Returns 1 if scored, 0 if not
 * (tpadding=valid near the ends), or a negative error.
 */
static int score_frame(AVFilterContext *ctx, int64_t t, int64_t nb_frames, AVFrame *frame)
{
    FSSIM3DContext *s = ctx->priv;
    const int r = s->depth / 2;
    FSSIM3DWindow win = { .depth = s->depth };
    FSSIMScores sc = { { { 0 } } };
    int ret;

    if (!fssim_ref_temporal_weights(s->depth, s->tsigma, s->tpadding, t, nb_frames, win.wt))
        return 0;
    for (int k = 0; k < s->depth; k++)
        win.slot[k] = win.wt[k] != 0.0 ? (int)((t - r + k) % s->depth) : -1;

    ret = s->backend->score(ctx, &win, &sc);
    if (ret < 0)
        return ret;
    ret = ff_fssim_output_frame(ctx, &s->out, frame, &sc);
    return ret < 0 ? ret : 1;
}

/* Send on every held frame whose temporal window is complete: all of them
 * once the sequence has ended.  Returns the number of frames sent. */
static int send_ready(AVFilterContext *ctx)
{
    FSSIM3DContext *s = ctx->priv;
    const int r = s->depth / 2;
    int sent = 0, ret;

    while (s->nb_out < s->nb_in && (s->ended || s->nb_out + r < s->nb_in)) {
        const int64_t t = s->nb_out;
        AVFrame *frame = s->held[t % s->depth];

        s->held[t % s->depth] = NULL;
        s->nb_out++;
        ret = score_frame(ctx, t, s->ended ? s->nb_in : -1, frame);
        if (ret < 0) {
            av_frame_free(&frame);
            return ret;
        }
        ret = ff_filter_frame(ctx->outputs[0], frame);
        if (ret < 0)
            return ret;
        sent++;
    }
    return sent;
}

/* The sequence is over (EOF, or the reference ended under eof_action=pass):
 * flush the held frames with truncated windows. */
static int end_sequence(AVFilterContext *ctx)
{
    FSSIM3DContext *s = ctx->priv;
    int ret;

    if (s->ended)
        return 0;
    s->ended = 1;
    ret = send_ready(ctx);
    if (ret < 0)
        return ret;
    /* doc/errors.md: asking for full-window scores of a sequence too short to have
     * one yields no score at all.  Fail (non-zero exit) rather than let a
     * quality sweep read an empty result as a success; the log stays valid
     * JSON.  The error ends the run, so frames queued above may not all
     * reach the output: this run measured nothing. */
    if (s->tpadding == FSSIM_REF_TPAD_VALID && s->nb_in > 0 && s->nb_in < s->depth) {
        av_log(ctx, AV_LOG_ERROR, "tpadding=valid scores only frames with a full temporal "
               "window of depth=%d frames, but the sequence has %"PRId64" frame%s: no frame "
               "was scored. Use tpadding=truncate, or a depth of at most %"PRId64".\n",
               s->depth, s->nb_in, s->nb_in == 1 ? "" : "s",
               (s->nb_in - 1) | 1);
        return AVERROR(EINVAL);
    }
    return 0;
}

static int do_fssim3d(FFFrameSync *fs)
{
    AVFilterContext *ctx = fs->parent;
    FSSIM3DContext *s = ctx->priv;
    AVFrame *master, *ref;
    int slot, ret;

    ret = ff_framesync_dualinput_get(fs, &master, &ref);
    if (ret < 0)
        return ret;

    if (!ref || s->ended) {
        /* No reference frame: before the reference starts, or after it
         * ended with eof_action=pass.  The latter ends the sequence; the
         * held frames go first so that the order is kept. */
        if (ref && !s->warned_late_ref++)
            av_log(ctx, AV_LOG_WARNING, "The reference came back after the sequence "
                   "ended; the following frames are passed through unscored.\n");
        if (s->nb_in > 0 && (ret = end_sequence(ctx)) < 0) {
            av_frame_free(&master);
            return ret;
        }
        return ff_filter_frame(ctx->outputs[0], master);
    }

    slot = s->nb_in % s->depth;
    ret = ff_fssim_check_frames(ctx, &s->out, master, ref);
    if (ret >= 0)
        ret = s->backend->moments(ctx, slot, master, ref);
    if (ret < 0) {
        av_frame_free(&master);
        return ret;
    }
    s->held[slot] = master;
    s->nb_in++;

    ret = send_ready(ctx);
    if (ret < 0)
        return ret;
    /* Nothing went out while the delay line fills: the output still wants
     * a frame, so run again to make framesync request the next inputs. */
    if (!ret)
        ff_filter_set_ready(ctx, 100);
    return 0;
}

static av_cold int init(AVFilterContext *ctx)
{
    FSSIM3DContext *s = ctx->priv;

    if (!(s->depth & 1)) {
        av_log(ctx, AV_LOG_ERROR, "depth=%d: the temporal window must be odd (1 to %d), "
               "centred on the scored frame, e.g. depth=%d.\n", s->depth,
               FSSIM3D_MAX_DEPTH, s->depth + 1);
        return AVERROR(EINVAL);
    }
    /* the float algorithm's checks (odd window, planes at least one
     * window under padding=valid) apply as they are */
    s->opts.algos = FSSIM_FLAG(FSSIM_FLOAT);
    s->fs.on_event = do_fssim3d;
    return ff_fssim_output_open(ctx, &s->out, &s->opts, "lavfi.fssim3d.", 0);
}

/* Each input negotiates its own format, so that inputs of different
 * formats are reported (doc/formats.md) rather than converted silently.  The GPU
 * backends add their hardware format here. */
static int query_formats(const AVFilterContext *ctx, AVFilterFormatsConfig **cfg_in,
                         AVFilterFormatsConfig **cfg_out)
{
#if FSSIM3D_CUDA
    int ret = ff_fssim_query_formats(ctx, cfg_in, cfg_out, AV_PIX_FMT_CUDA);
#else
    int ret = ff_fssim_query_formats(ctx, cfg_in, cfg_out, AV_PIX_FMT_NONE);
#endif
#if FSSIM3D_VULKAN
    /* main's list is the output's too */
    for (int i = 0; i < 2 && ret >= 0; i++)
        ret = ff_add_format(&cfg_in[i]->formats, AV_PIX_FMT_VULKAN);
#endif
    return ret;
}

/* The backend for the frames the inputs carry, chosen by their hardware
 * format (the frames' sw_format then describes the planes).  One CUDA or
 * Vulkan input is enough to pick that backend: its check reports the other. */
static const FSSIM3DBackend *pick_backend(const AVFilterContext *ctx)
{
#if FSSIM3D_CUDA
    if (ctx->inputs[0]->format == AV_PIX_FMT_CUDA || ctx->inputs[1]->format == AV_PIX_FMT_CUDA)
        return &ff_fssim3d_cuda_backend;
#endif
#if FSSIM3D_VULKAN
    if (ctx->inputs[0]->format == AV_PIX_FMT_VULKAN || ctx->inputs[1]->format == AV_PIX_FMT_VULKAN)
        return &ff_fssim3d_vulkan_backend;
#endif
    return &cpu_backend;
}

static int config_input_ref(AVFilterLink *inlink)
{
    AVFilterContext *ctx = inlink->dst;
    FSSIM3DContext *s = ctx->priv;
    enum AVPixelFormat sw_format;
    size_t bytes = 0;
    int ret;

    s->backend = pick_backend(ctx);
    ret = s->backend->check_inputs(ctx, &sw_format);
    if (ret < 0)
        return ret;
    ret = ff_fssim_format_init(ctx, &s->fmt, sw_format, inlink->w, inlink->h);
    if (ret < 0)
        return ret;
    ret = ff_fssim_check_options(ctx, &s->opts, &s->fmt);
    if (ret < 0)
        return ret;

    ret = s->backend->init(ctx, &bytes);
    if (ret < 0) {
        /* other failures (a GPU backend's device or module) have said why */
        if (ret == AVERROR(ENOMEM))
            av_log(ctx, AV_LOG_ERROR, "Could not allocate the ring of %d moment sets (%.1f MiB). "
                   "Use a smaller depth or smaller frames.\n", s->depth, bytes / 1048576.0);
        return ret;
    }
    av_log(ctx, AV_LOG_INFO, "fssim3d: ring of %d moment sets, %.1f MiB (%s, %s), "
           "output delayed by %d frames\n", s->depth, bytes / 1048576.0, s->backend->name,
           s->backend->storage, s->depth / 2);

    /* under tpadding=valid the first scored frame is frame depth/2 */
    s->out.first_n = s->tpadding == FSSIM_REF_TPAD_VALID ? s->depth / 2 : 0;
    return ff_fssim_output_config(ctx, &s->out, &s->fmt);
}

static int config_output(AVFilterLink *outlink)
{
    FSSIM3DContext *s = outlink->src->priv;
    /* hardware frames go out in main's frames context, which a GPU backend
     * may have set already */
    return ff_fssim_config_output(outlink, &s->fs, &s->out);
}

static int activate(AVFilterContext *ctx)
{
    FSSIM3DContext *s = ctx->priv;
    int ret;

    ret = ff_framesync_activate(&s->fs);
    if (ret < 0)
        return ret;
    /* framesync has just set EOF on the output; frames queued on the link
     * now are still delivered before the downstream filter sees the EOF */
    if (s->fs.eof && !s->ended)
        return end_sequence(ctx);
    return 0;
}

/* The run stopped early (error, or the output closed before EOF): the
 * frames still held are dropped, but their scores, for the sequence as
 * seen so far, still go to the logs. */
static void drain_held(AVFilterContext *ctx)
{
    FSSIM3DContext *s = ctx->priv;

    for (; s->nb_out < s->nb_in; s->nb_out++) {
        AVFrame **frame = &s->held[s->nb_out % s->depth];
        if (*frame && s->backend_priv)
            score_frame(ctx, s->nb_out, s->nb_in, *frame);
        av_frame_free(frame);
    }
}

static av_cold void uninit(AVFilterContext *ctx)
{
    FSSIM3DContext *s = ctx->priv;

    if (s->backend)
        drain_held(ctx);
    ff_fssim_output_close(ctx, &s->out, s->ended);
    ff_framesync_uninit(&s->fs);
    if (s->backend)
        s->backend->uninit(ctx);
    for (int k = 0; k < FSSIM3D_MAX_DEPTH; k++)
        av_frame_free(&s->held[k]);
}

static const AVFilterPad fssim3d_inputs[] = {
    {
        .name         = "main",
        .type         = AVMEDIA_TYPE_VIDEO,
    },{
        .name         = "reference",
        .type         = AVMEDIA_TYPE_VIDEO,
        .config_props = config_input_ref,
    },
};

static const AVFilterPad fssim3d_outputs[] = {
    {
        .name          = "default",
        .type          = AVMEDIA_TYPE_VIDEO,
        .config_props  = config_output,
    },
};

const FFFilter ff_vf_fssim3d = {
    .p.name        = "fssim3d",
    .p.description = NULL_IF_CONFIG_SMALL("Calculate spatio-temporal (x, y, t) SSIM between two video streams."),
    .p.priv_class  = &fssim3d_class,
    .p.flags       = AVFILTER_FLAG_SLICE_THREADS |
                     AVFILTER_FLAG_METADATA_ONLY,
    /* the output's hardware frames context is set by config_output */
    .flags_internal = FF_FILTER_FLAG_HWFRAME_AWARE,
    .preinit       = fssim3d_framesync_preinit,
    .init          = init,
    .uninit        = uninit,
    .activate      = activate,
    .priv_size     = sizeof(FSSIM3DContext),
    FILTER_INPUTS(fssim3d_inputs),
    FILTER_OUTPUTS(fssim3d_outputs),
    FILTER_QUERY_FUNC2(query_formats),
};
