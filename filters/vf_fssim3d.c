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
 * truncated temporal windows, at EOF.  This file is the temporal layer
 * on the filters' shared body (fssim_filter.c): the delay line, the
 * temporal weights and the flush.
 */
#include <inttypes.h>

#include "config.h"
#include "config_components.h"
#include "libavutil/internal.h"
#include "libavutil/opt.h"
#include "libavutil/pixdesc.h"
#include "libavutil/timestamp.h"
#include "libavfilter/filters.h"
#include "libavfilter/framesync.h"

#include "fssim_filter.h"

/* The CUDA backend scores CUDA frames when FFmpeg compiles CUDA kernels;
 * the Vulkan backend Vulkan frames where fssim_vulkan is built (both need
 * Vulkan and a GLSL compiler, which has no CONFIG_ variable of its own). */
#define FSSIM3D_CUDA   (CONFIG_FFNVCODEC && (CONFIG_CUDA_NVCC || CONFIG_CUDA_LLVM))
#define FSSIM3D_VULKAN (CONFIG_VULKAN && CONFIG_FSSIM_VULKAN_FILTER)

/* A backend fssim3d may pick, by the kind of frames it scores. */
typedef struct FSSIM3DBackend {
    enum AVPixelFormat format;     /* its frames; NONE: software frames */
    const FSSIMBackend *backend;
    const char *fix;               /* the filter that brings an input to the other's size */
    const char *api, *hwaccel, *device;  /* named when one input has other frames */
} FSSIM3DBackend;

static const FSSIM3DBackend backends[] = {
#if FSSIM3D_CUDA
    { AV_PIX_FMT_CUDA,   &ff_fssim_cuda_backend,   "scale_cuda",   "CUDA",   "cuda",   "gpu" },
#endif
#if FSSIM3D_VULKAN
    { AV_PIX_FMT_VULKAN, &ff_fssim_vulkan_backend, "scale_vulkan", "Vulkan", "vulkan", "vk" },
#endif
    { AV_PIX_FMT_NONE,   &ff_fssim_cpu_backend,    "scale" },
};

typedef struct FSSIM3DContext {
    FSSIMFilter f;          /* first: the shared body's */

    /* The delay line.  Frame n (counted from the first frame that has a
     * reference) has its moments in ring slot n % ring_size (the engine's:
     * depth, or one more where the backend scores two frames a pass) and,
     * until its score job is queued, its main frame in held[n % ring_size].  Frames
     * nb_out..nb_in-1 are held; frame t is scored once frame t + depth/2
     * has arrived or the sequence has ended. */
    AVFrame *held[FSSIM3D_MAX_RING];
    int64_t  nb_in;         /* frame pairs whose moments went into the ring */
    int64_t  nb_out;        /* frames of the sequence queued; f.ended: nb_in is
                               the sequence's length */
    int      warned_late_ref;

    /* the formats of backends[], NONE terminated: each input negotiates
     * its own, so that inputs of different formats are reported
     * (doc/formats.md) rather than converted silently */
    enum AVPixelFormat hw_formats[FF_ARRAY_ELEMS(backends)];
} FSSIM3DContext;

#define OFFSET(x) offsetof(FSSIM3DContext, f.opts.x)

static const AVOption fssim3d_options[] = {
    FSSIM_WINDOW_OPTIONS(FSSIM3DContext, f.opts),
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
    FSSIM_SCALE_OPTIONS(FSSIM3DContext, f.opts),
    FSSIM_OUTPUT_OPTIONS(FSSIM3DContext, f.opts),
    FSSIM_PAIRING_OPTIONS(FSSIM3DContext, f.opts),
    { NULL }
};

FRAMESYNC_DEFINE_CLASS(fssim3d, FSSIM3DContext, f.fs);

/**
 * Queue frame t of the sequence, with a score job if it gets a score.
 * nb_frames: the length of the sequence, or -1 while it is not known (then
 * frame t + depth/2 must have arrived).
 */
static int queue_frame(AVFilterContext *ctx, int64_t t, int64_t nb_frames, AVFrame *frame)
{
    FSSIM3DContext *s = ctx->priv;
    const FSSIMOptions *o = &s->f.opts;
    FSSIMEngine *e = &s->f.eng;
    const int r = o->depth / 2;
    FSSIM3DWindow win = { .t = t, .depth = o->depth };
    /* the window's taps at title positions: a segment's cut is no border
     * (doc/options.md#segments) */
    const int64_t tt = o->seg_base + t;
    int slot = -1, ret;

    if (o->seg_end >= 0 && tt >= o->seg_end) {
        av_frame_free(&frame);      /* the next segment's */
        return 0;
    }
    if (tt >= o->seg_start &&
        ff_fssim_ref_temporal_weights(o->depth, o->tsigma, o->tpadding, tt,
                                      nb_frames < 0 ? -1 : o->seg_base + nb_frames, win.wt)) {
        for (int k = 0; k < o->depth; k++)
            win.slot[k] = win.wt[k] != 0.0 ? (int)((t - r + k) % e->ring_size) : -1;
        slot = ff_fssim_queue_slot(&s->f.queue, e);
        ret = e->backend->submit3d(e, slot, &win);
        if (ret < 0) {
            av_frame_free(&frame);
            return ret;
        }
    } else {
        ff_fssim_output_unscored(&s->f.out, tt < o->seg_start ? FSSIM_UNSCORED_SEGMENT :
                                                                FSSIM_UNSCORED_WINDOW);
    }
    return ff_fssim_queue_push(&s->f.queue, frame, slot, 1);
}

/* Queue every held frame whose temporal window is complete (all of them
 * once the sequence has ended), then send on what is scored.  Returns the
 * number of frames sent. */
static int queue_ready(AVFilterContext *ctx, int flush, int send)
{
    FSSIM3DContext *s = ctx->priv;
    const int r = s->f.opts.depth / 2;
    int sent = 0, ret;

    while (s->nb_out < s->nb_in && (s->f.ended || s->nb_out + r < s->nb_in)) {
        const int64_t t = s->nb_out;
        AVFrame *frame = s->held[t % s->f.eng.ring_size];

        s->held[t % s->f.eng.ring_size] = NULL;
        s->nb_out++;
        ret = queue_frame(ctx, t, s->f.ended ? s->nb_in : -1, frame);
        if (ret < 0)
            return ret;
        ret = ff_fssim_queue_drain(&s->f.queue, &s->f.eng, &s->f.out, flush, send);
        if (ret < 0)
            return ret;
        sent += ret;
    }
    ret = ff_fssim_queue_drain(&s->f.queue, &s->f.eng, &s->f.out, flush, send);
    return ret < 0 ? ret : sent + ret;
}

/* The sequence is over (EOF, or the reference ended under eof_action=pass):
 * flush the held frames with truncated windows. */
static int end_sequence(AVFilterContext *ctx)
{
    FSSIM3DContext *s = ctx->priv;
    const FSSIMOptions *o = &s->f.opts;
    int ret;

    if (s->f.ended)
        return 0;
    s->f.ended = 1;
    ret = queue_ready(ctx, 1, 1);
    if (ret < 0)
        return ret;
    /* doc/errors.md: asking for full-window scores of a sequence too short to have
     * one yields no score at all.  Fail (non-zero exit) rather than let a
     * quality sweep read an empty result as a success; the log stays valid
     * JSON.  The error ends the run, so frames queued above may not all
     * reach the output: this run measured nothing. */
    if (o->tpadding == FSSIM_REF_TPAD_VALID && s->nb_in < o->depth) {
        if (!s->nb_in)
            av_log(ctx, AV_LOG_ERROR, "tpadding=valid scores only frames with a full "
                   "temporal window of depth=%d frames, but the sequence has no frame: no "
                   "frame was scored.\n", o->depth);
        else
            av_log(ctx, AV_LOG_ERROR, "tpadding=valid scores only frames with a full "
                   "temporal window of depth=%d frames, but the sequence has %"PRId64" "
                   "frame%s: no frame was scored. Use tpadding=truncate, or a depth of at "
                   "most %"PRId64".\n", o->depth, s->nb_in, s->nb_in == 1 ? "" : "s",
                   (s->nb_in - 1) | 1);
        return AVERROR(EINVAL);
    }
    return 0;
}

static int do_fssim3d(AVFilterContext *ctx, FSSIMEvent *ev)
{
    FSSIM3DContext *s = ctx->priv;
    FSSIMEngine *e = &s->f.eng;
    AVFrame *master = ev->out, *ref = ev->ref;
    const int64_t tt = s->f.opts.seg_base + s->f.nb_lead++;
    int slot, ret;

    if (s->f.seg_done) {
        av_frame_free(&master);
        return 0;
    }
    ff_fssim_filter_count(ctx, ev, tt);

    if (!ref || s->f.ended) {
        /* No reference frame: before the reference starts, after it ended
         * with eof_action=pass, or a main frame without a pair.  The
         * sequence ends (a temporal window cannot span the gap); the held
         * frames go first so that the order is kept. */
        if (!ref)
            ff_fssim_output_unscored(&s->f.out, FSSIM_UNSCORED_NO_REF);
        if (!ref && s->nb_in > 0 && !s->f.ended && !ctx->is_disabled)
            av_log(ctx, AV_LOG_WARNING, "A main frame at %s s has no reference frame: the "
                   "3-D sequence ends there, and the frames after it are passed through "
                   "unscored.\n", av_ts2timestr(master->pts, &ctx->inputs[0]->time_base));
        if (ref && !s->warned_late_ref++)
            av_log(ctx, AV_LOG_WARNING, "The reference came back after the sequence "
                   "ended; the following frames are passed through unscored.\n");
        if (s->nb_in > 0 && (ret = end_sequence(ctx)) < 0) {
            av_frame_free(&master);
            return ret;
        }
        ret = ff_fssim_queue_push(&s->f.queue, master, -1, 0);
        if (ret >= 0)
            ret = ff_fssim_queue_drain(&s->f.queue, e, &s->f.out, 0, 1);
        return FFMIN(ret, 0);
    }

    slot = s->nb_in % e->ring_size;
    ret = ff_fssim_check_frames(ctx, &s->f.out, ref, &master, 1);
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
    /* the segment's last frame and its context are in: what follows is the
     * next segment's, and the held context frames are never scored */
    if (s->f.opts.seg_end >= 0 &&
        s->f.opts.seg_base + s->nb_in >= s->f.opts.seg_end + s->f.opts.depth / 2) {
        s->f.seg_done = s->f.ended = 1;
        ff_filter_set_ready(ctx, 100);
        return 0;
    }
    /* Nothing went out while the delay line fills: the output still wants
     * a frame, so run again to make framesync request the next inputs. */
    if (!ret)
        ff_filter_set_ready(ctx, 100);
    return 0;
}

/* The run stopped early (error, or the output closed before EOF): the
 * frames still held are dropped, but their scores, for the sequence as
 * seen so far, still go to the logs. */
static void drop_held(AVFilterContext *ctx)
{
    FSSIM3DContext *s = ctx->priv;

    if (s->f.eng.priv && s->f.queue.fifo && !s->f.ended) {
        s->f.ended = 1;
        queue_ready(ctx, 1, 0);
    }
    for (int k = 0; k < FSSIM3D_MAX_RING; k++)
        av_frame_free(&s->held[k]);
}

static const FSSIMTemporal temporal = {
    .event     = do_fssim3d,
    .end       = end_sequence,
    .drop_held = drop_held,
};

static av_cold int init(AVFilterContext *ctx)
{
    FSSIM3DContext *s = ctx->priv;
    FSSIMOptions *o = &s->f.opts;

    if (!(o->depth & 1)) {
        av_log(ctx, AV_LOG_ERROR, "depth=%d: the temporal window must be odd (1 to %d), "
               "centred on the scored frame, e.g. depth=%d.\n", o->depth,
               FSSIM3D_MAX_DEPTH, o->depth + 1);
        return AVERROR(EINVAL);
    }
    /* the float algorithm's checks (odd window, planes at least one
     * window under padding=valid) apply as they are; its slot of the
     * scores carries the 3-D SSIM */
    o->algos = FSSIM_BIT(FSSIM_ALGO_FLOAT);
    o->nb_inputs = 2;
    for (int i = 0; i < FF_ARRAY_ELEMS(backends); i++)
        s->hw_formats[i] = backends[i].format;
    /* the backend is picked at configuration, from the frames' kind */
    return ff_fssim_filter_init(ctx, NULL, NULL, s->hw_formats, &temporal);
}

/* The backend for the frames the inputs carry, chosen by their hardware
 * format (the frames' sw_format then describes the planes).  One GPU
 * input is enough to pick that backend: check_one_kind reports the other. */
static const FSSIM3DBackend *pick_backend(const AVFilterContext *ctx)
{
    const FSSIM3DBackend *b = backends;

    while (b->format != AV_PIX_FMT_NONE && ctx->inputs[0]->format != b->format &&
           ctx->inputs[1]->format != b->format)
        b++;
    return b;
}

/* fssim3d takes software frames too: a GPU input beside a software one
 * gets its own message (the backends' checks name their own frames only). */
static int check_one_kind(AVFilterContext *ctx, const FSSIM3DBackend *b)
{
    const int sw = ctx->inputs[0]->format == b->format;

    if (b->format == AV_PIX_FMT_NONE || ctx->inputs[!sw]->format == ctx->inputs[sw]->format)
        return 0;
    av_log(ctx, AV_LOG_ERROR, "The %s input carries %s frames but the %s input software "
           "frames (%s): fssim3d scores both on the GPU or both on the CPU. Put the %s input "
           "on the same %s device (-hwaccel %s -hwaccel_output_format %s, or hwupload with "
           "-init_hw_device %s=%s -filter_hw_device %s), or bring both to system memory "
           "(hwdownload,format=...).\n", ctx->input_pads[!sw].name, b->api,
           ctx->input_pads[sw].name, av_get_pix_fmt_name(ctx->inputs[sw]->format),
           ctx->input_pads[sw].name, b->api, b->hwaccel, b->hwaccel, b->hwaccel, b->device,
           b->device);
    return AVERROR(EINVAL);
}

/* Configured here, once both inputs are (the output's config_props then
 * only sets up the output link: hardware frames go out in main's frames
 * context). */
static int config_input_ref(AVFilterLink *inlink)
{
    AVFilterContext *ctx = inlink->dst;
    FSSIM3DContext *s = ctx->priv;
    const FSSIM3DBackend *b = pick_backend(ctx);
    int ret;

    if ((ret = check_one_kind(ctx, b)) < 0)
        return ret;
    s->f.eng.backend = b->backend;
    s->f.fix = b->fix;
    /* under tpadding=valid the first scored frame is frame depth/2 */
    s->f.out.first_n = FFMAX(s->f.opts.seg_start, s->f.opts.tpadding == FSSIM_REF_TPAD_VALID ?
                             s->f.opts.depth / 2 : 0);
    return ff_fssim_filter_configure(ctx);
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

const FFFilter ff_vf_fssim3d = {
    .p.name        = "fssim3d",
    .p.description = NULL_IF_CONFIG_SMALL("Calculate spatio-temporal (x, y, t) SSIM between two video streams."),
    .p.priv_class  = &fssim3d_class,
    .p.flags       = AVFILTER_FLAG_SLICE_THREADS |
                     AVFILTER_FLAG_METADATA_ONLY,
    /* the output's hardware frames context is set by its config_props */
    .flags_internal = FF_FILTER_FLAG_HWFRAME_AWARE,
    .preinit       = fssim3d_framesync_preinit,
    .init          = init,
    .uninit        = ff_fssim_filter_uninit,
    .activate      = ff_fssim_filter_activate,
    .priv_size     = sizeof(FSSIM3DContext),
    FILTER_INPUTS(fssim3d_inputs),
    FILTER_OUTPUTS(ff_fssim_filter_outputs),
    FILTER_QUERY_FUNC2(ff_fssim_filter_query_formats),
};
