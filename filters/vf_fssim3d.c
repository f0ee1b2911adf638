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
 * fssim3d: spatio-temporal SSIM between two video streams
 * (doc/algorithms.md#fssim3d): the Gaussian SSIM of doc/algorithms.md#float
 * with a separable (x, y, t) window.
 *
 * The 3-D window is separable, so the 3-D local moments of frame t are the
 * temporally weighted sum of the 2-D (spatial) moments of the depth frames
 * around it.  Each frame pair's spatial moments go once into a ring of
 * depth moment sets held by the backend (CPU, CUDA); frame t is scored
 * from the ring once frame t + depth/2 has arrived, its score job queued
 * like any other, so the output is delayed by depth/2 frames (plus the
 * queue's depth on the GPU) and the held frames are flushed, with
 * truncated temporal windows, at EOF.  This file is the temporal layer:
 * the delay line, the temporal weights and the flush.
 */
#include <inttypes.h>

#include "config.h"
#include "config_components.h"
#include "libavutil/internal.h"
#include "libavutil/mem.h"
#include "libavutil/opt.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/filters.h"
#include "libavfilter/formats.h"
#include "libavfilter/framesync.h"
#include "libavfilter/video.h"

#include "fssim_engine.h"
#include "fssim_links.h"
#include "fssim_options.h"
#include "fssim_output.h"

/* The CUDA backend scores CUDA frames when FFmpeg compiles CUDA kernels;
 * the Vulkan backend Vulkan frames where fssim_vulkan is built (both need
 * Vulkan and a GLSL compiler, which has no CONFIG_ variable of its own). */
#define FSSIM3D_CUDA   (CONFIG_FFNVCODEC && (CONFIG_CUDA_NVCC || CONFIG_CUDA_LLVM))
#define FSSIM3D_VULKAN (CONFIG_VULKAN && CONFIG_FSSIM_VULKAN_FILTER)

typedef struct FSSIM3DContext {
    const AVClass *class;
    FFFrameSync fs;

    /* options */
    FSSIMOptions opts;      /* window, sigma, padding, the temporal window, the outputs */

    FSSIMOutput out;
    FSSIMEngine eng;
    FSSIMQueue  queue;

    /* The delay line.  Frame n (counted from the first frame that has a
     * reference) has its moments in ring slot n % ring_size (the engine's:
     * depth, or one more where the backend scores two frames a pass) and,
     * until its score job is queued, its main frame in held[n % ring_size].  Frames
     * nb_out..nb_in-1 are held; frame t is scored once frame t + depth/2
     * has arrived or the sequence has ended. */
    AVFrame *held[FSSIM3D_MAX_RING];
    int64_t  nb_in;         /* frame pairs whose moments went into the ring */
    int64_t  nb_out;        /* frames of the sequence queued */
    int      ended;         /* the sequence is over; nb_in is its length */
    int      warned_late_ref;
} FSSIM3DContext;

#define OFFSET(x) offsetof(FSSIM3DContext, x)

static const AVOption fssim3d_options[] = {
    FSSIM_WINDOW_OPTIONS(FSSIM3DContext, opts),
    { "depth",    "temporal window size in frames (odd)", OFFSET(opts.depth),
      AV_OPT_TYPE_INT, { .i64 = 11 }, 1, FSSIM3D_MAX_DEPTH, FSSIM_OPT_FLAGS },
    { "tsigma",   "temporal Gaussian sigma in frames", OFFSET(opts.tsigma),
      AV_OPT_TYPE_DOUBLE, { .dbl = 1.5 }, 0.1, 100.0, FSSIM_OPT_FLAGS },
    { "tpadding", "temporal border handling", OFFSET(opts.tpadding),
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

/**
 * Queue frame t of the sequence, with a score job if it gets a score.
 * nb_frames: the length of the sequence, or -1 while it is not known (then
 * frame t + depth/2 must have arrived).
 */
static int queue_frame(AVFilterContext *ctx, int64_t t, int64_t nb_frames, AVFrame *frame)
{
    FSSIM3DContext *s = ctx->priv;
    FSSIMEngine *e = &s->eng;
    const int r = s->opts.depth / 2;
    FSSIM3DWindow win = { .t = t, .depth = s->opts.depth };
    int slot = -1, ret;

    if (ff_fssim_ref_temporal_weights(s->opts.depth, s->opts.tsigma, s->opts.tpadding, t,
                                      nb_frames, win.wt)) {
        for (int k = 0; k < s->opts.depth; k++)
            win.slot[k] = win.wt[k] != 0.0 ? (int)((t - r + k) % e->ring_size) : -1;
        slot = ff_fssim_queue_slot(&s->queue, e);
        ret = e->backend->submit3d(e, slot, &win);
        if (ret < 0) {
            av_frame_free(&frame);
            return ret;
        }
    }
    return ff_fssim_queue_push(&s->queue, frame, slot, 1);
}

/* Queue every held frame whose temporal window is complete (all of them
 * once the sequence has ended), then send on what is scored.  Returns the
 * number of frames sent. */
static int queue_ready(AVFilterContext *ctx, int flush, int send)
{
    FSSIM3DContext *s = ctx->priv;
    const int r = s->opts.depth / 2;
    int sent = 0, ret;

    while (s->nb_out < s->nb_in && (s->ended || s->nb_out + r < s->nb_in)) {
        const int64_t t = s->nb_out;
        AVFrame *frame = s->held[t % s->eng.ring_size];

        s->held[t % s->eng.ring_size] = NULL;
        s->nb_out++;
        ret = queue_frame(ctx, t, s->ended ? s->nb_in : -1, frame);
        if (ret < 0)
            return ret;
        ret = ff_fssim_queue_drain(&s->queue, &s->eng, &s->out, flush, send);
        if (ret < 0)
            return ret;
        sent += ret;
    }
    ret = ff_fssim_queue_drain(&s->queue, &s->eng, &s->out, flush, send);
    return ret < 0 ? ret : sent + ret;
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
    ret = queue_ready(ctx, 1, 1);
    if (ret < 0)
        return ret;
    /* doc/errors.md: asking for full-window scores of a sequence too short to have
     * one yields no score at all.  Fail (non-zero exit) rather than let a
     * quality sweep read an empty result as a success; the log stays valid
     * JSON.  The error ends the run, so frames queued above may not all
     * reach the output: this run measured nothing. */
    if (s->opts.tpadding == FSSIM_REF_TPAD_VALID && s->nb_in > 0 &&
        s->nb_in < s->opts.depth) {
        av_log(ctx, AV_LOG_ERROR, "tpadding=valid scores only frames with a full temporal "
               "window of depth=%d frames, but the sequence has %"PRId64" frame%s: no frame "
               "was scored. Use tpadding=truncate, or a depth of at most %"PRId64".\n",
               s->opts.depth, s->nb_in, s->nb_in == 1 ? "" : "s",
               (s->nb_in - 1) | 1);
        return AVERROR(EINVAL);
    }
    return 0;
}

static int do_fssim3d(FFFrameSync *fs)
{
    AVFilterContext *ctx = fs->parent;
    FSSIM3DContext *s = ctx->priv;
    FSSIMEngine *e = &s->eng;
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
        ret = ff_fssim_queue_push(&s->queue, master, -1, 0);
        if (ret >= 0)
            ret = ff_fssim_queue_drain(&s->queue, e, &s->out, 0, 1);
        return FFMIN(ret, 0);
    }

    slot = s->nb_in % e->ring_size;
    ret = ff_fssim_check_frames(ctx, &s->out, ref, &master, 1);
    if (ret >= 0)
        ret = e->backend->moments(e, slot, ref, master);
    if (ret < 0) {
        av_frame_free(&master);
        return ret;
    }
    s->held[slot] = master;
    s->nb_in++;

    ret = queue_ready(ctx, 0, 1);
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

    if (!(s->opts.depth & 1)) {
        av_log(ctx, AV_LOG_ERROR, "depth=%d: the temporal window must be odd (1 to %d), "
               "centred on the scored frame, e.g. depth=%d.\n", s->opts.depth,
               FSSIM3D_MAX_DEPTH, s->opts.depth + 1);
        return AVERROR(EINVAL);
    }
    /* the float algorithm's checks (odd window, planes at least one
     * window under padding=valid) apply as they are */
    s->opts.algos = FSSIM_BIT(FSSIM_ALGO_FLOAT);
    s->opts.nb_inputs = 2;
    s->fs.on_event = do_fssim3d;
    s->eng.ctx = ctx;
    s->eng.opts = &s->opts;
    s->eng.nb_dist = 1;
    /* one score, fssim3d's, in the float algorithm's slot */
    return ff_fssim_output_open(ctx, &s->out, &s->opts, "lavfi.fssim3d.", 1);
}

/* Each input negotiates its own format, so that inputs of different
 * formats are reported (doc/formats.md) rather than converted silently.  The GPU
 * backends add their hardware format here. */
static int query_formats(const AVFilterContext *ctx, AVFilterFormatsConfig **cfg_in,
                         AVFilterFormatsConfig **cfg_out)
{
    static const enum AVPixelFormat hw[] = {
#if FSSIM3D_CUDA
        AV_PIX_FMT_CUDA,
#endif
#if FSSIM3D_VULKAN
        AV_PIX_FMT_VULKAN,
#endif
        AV_PIX_FMT_NONE
    };
    return ff_fssim_query_formats(ctx, cfg_in, cfg_out, hw, 0);
}

/* The backend for the frames the inputs carry, chosen by their hardware
 * format (the frames' sw_format then describes the planes).  One CUDA or
 * Vulkan input is enough to pick that backend: its check reports the
 * other.  fix: the filter that brings an input to the other's size. */
static const FSSIMBackend *pick_backend(const AVFilterContext *ctx, const char **fix)
{
#if FSSIM3D_CUDA
    if (ctx->inputs[0]->format == AV_PIX_FMT_CUDA || ctx->inputs[1]->format == AV_PIX_FMT_CUDA) {
        *fix = "scale_cuda";
        return &ff_fssim_cuda_backend;
    }
#endif
#if FSSIM3D_VULKAN
    if (ctx->inputs[0]->format == AV_PIX_FMT_VULKAN ||
        ctx->inputs[1]->format == AV_PIX_FMT_VULKAN) {
        *fix = "scale_vulkan";
        return &ff_fssim_vulkan_backend;
    }
#endif
    *fix = "scale";
    return &ff_fssim_cpu_backend;
}

static int config_input_ref(AVFilterLink *inlink)
{
    AVFilterContext *ctx = inlink->dst;
    FSSIM3DContext *s = ctx->priv;
    FSSIMEngine *e = &s->eng;
    enum AVPixelFormat sw_format[2];
    const char *fix;
    size_t bytes = 0;
    int ret;

    e->backend = pick_backend(ctx, &fix);
    ret = e->backend->check_inputs(e, sw_format);
    if (ret >= 0)
        ret = ff_fssim_check_inputs(ctx, sw_format, 0, fix);
    if (ret >= 0)
        ret = ff_fssim_format_init(ctx, &e->fmt, sw_format[1], inlink->w, inlink->h);
    if (ret >= 0)
        ret = ff_fssim_check_options(ctx, &s->opts, &e->fmt);
    if (ret < 0)
        return ret;
    e->dist[0] = e->fmt;

    ret = ff_fssim_engine_init(e, &bytes);
    if (ret < 0) {
        /* other failures (a GPU backend's device or module) have said why */
        if (ret == AVERROR(ENOMEM))
            av_log(ctx, AV_LOG_ERROR, "Could not allocate the ring of %d moment sets (%.1f MiB). "
                   "Use a smaller depth or smaller frames.\n", e->ring_size, bytes / 1048576.0);
        return ret;
    }
    av_log(ctx, AV_LOG_INFO, "fssim3d: ring of %d moment sets, %.1f MiB (%s, %s), "
           "output delayed by %d frames\n", e->ring_size, bytes / 1048576.0, e->backend->name,
           e->backend->storage3d, s->opts.depth / 2);
    ret = ff_fssim_queue_init(&s->queue, e);
    if (ret < 0)
        return ret;

    /* under tpadding=valid the first scored frame is frame depth/2 */
    s->out.first_n = s->opts.tpadding == FSSIM_REF_TPAD_VALID ? s->opts.depth / 2 : 0;
    return ff_fssim_output_config(ctx, &s->out, &e->fmt, NULL);
}

static int config_output(AVFilterLink *outlink)
{
    FSSIM3DContext *s = outlink->src->priv;
    /* hardware frames go out in main's frames context */
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
    if (s->fs.eof)
        ret = ff_fssim_queue_drain(&s->queue, &s->eng, &s->out, 1, 1);
    return FFMIN(ret, 0);
}

/* The run stopped early (error, or the output closed before EOF): the
 * frames still held are dropped, but their scores, for the sequence as
 * seen so far, still go to the logs. */
static void drain_held(AVFilterContext *ctx)
{
    FSSIM3DContext *s = ctx->priv;

    if (s->eng.priv && s->queue.fifo && !s->ended) {
        s->ended = 1;
        queue_ready(ctx, 1, 0);
    }
    for (int k = 0; k < FSSIM3D_MAX_RING; k++)
        av_frame_free(&s->held[k]);
}

static av_cold void uninit(AVFilterContext *ctx)
{
    FSSIM3DContext *s = ctx->priv;
    const int ended = s->ended;

    drain_held(ctx);
    ff_fssim_queue_drain(&s->queue, &s->eng, &s->out, 1, 0);
    ff_fssim_output_close(ctx, &s->out, ended);
    ff_fssim_queue_uninit(&s->queue);
    ff_fssim_engine_uninit(&s->eng);
    ff_framesync_uninit(&s->fs);
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
