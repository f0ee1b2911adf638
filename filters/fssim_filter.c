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
 * fssim: the body of the filters, the same whatever the backend.
 */
#include "libavutil/attributes.h"
#include "libavutil/common.h"
#include "libavfilter/filters.h"

#include "core/fssim_check.h"
#include "fssim_filter.h"

static int in_range(const FSSIMOptions *o, int64_t t)
{
    return t >= o->seg_start && (o->seg_end < 0 || t < o->seg_end);
}

void ff_fssim_filter_count(AVFilterContext *ctx, const FSSIMEvent *ev, int64_t t)
{
    FSSIMFilter *f = ctx->priv;
    const int lead = ff_fssim_out_pad(ctx);

    /* frames of the last event's interval count where it counted */
    if (f->counted)
        ff_fssim_pair_count(&f->out.pairs, ev, ctx->nb_inputs, lead, 1);
    f->counted = in_range(&f->opts, t);
    if (f->counted)
        ff_fssim_pair_count(&f->out.pairs, ev, ctx->nb_inputs, lead, 0);
}

/* The frames after the last leading frame's interval count with it. */
static void pair_tail(AVFilterContext *ctx, const FSSIMEvent *tail)
{
    FSSIMFilter *f = ctx->priv;

    if (f->counted) {
        ff_fssim_pair_count(&f->out.pairs, tail, ctx->nb_inputs, ff_fssim_out_pad(ctx), 1);
        ff_fssim_pair_count(&f->out.pairs, tail, ctx->nb_inputs, ff_fssim_out_pad(ctx), 0);
    }
}

/* The 2-D filters' event: score the reference against the renditions
 * that have a frame, and queue the frame that goes out behind the
 * others. */
static int filter_event(AVFilterContext *ctx, FSSIMEvent *ev)
{
    FSSIMFilter *f = ctx->priv;
    FSSIMEngine *e = &f->eng;
    AVFrame *out = ev->out;
    unsigned present = 0;
    int slot = -1, ret = 0;
    /* one event per frame of the leading input: its title number says
     * whether the segment scores it */
    const int64_t t = f->opts.seg_base + f->nb_lead++;

    if (f->seg_done) {
        av_frame_free(&out);
        return 0;
    }
    ff_fssim_filter_count(ctx, ev, t);
    if (f->opts.seg_end >= 0 && t >= f->opts.seg_end - 1)
        f->seg_done = 1;
    if (t >= f->opts.seg_start && ev->ref && ev->nb_dist) {
        for (int k = 0; k < e->nb_dist; k++)
            present |= !!ev->dist[k] << k;
        ret = ff_fssim_check_frames(ctx, &f->out, ev->ref, ev->dist, e->nb_dist);
        if (ret >= 0) {
            slot = ff_fssim_queue_slot(&f->queue, e);
            ret = e->backend->submit(e, slot, ev->ref, ev->dist);
        }
        if (ret < 0) {
            av_frame_free(&out);
            return ret;
        }
    } else {
        ff_fssim_output_unscored(&f->out, t < f->opts.seg_start ? FSSIM_UNSCORED_SEGMENT :
                                 ctx->is_disabled ? FSSIM_UNSCORED_DISABLED :
                                 ev->ref ? FSSIM_UNSCORED_NO_DIST : FSSIM_UNSCORED_NO_REF);
    }
    /* unscored frames queue too, so that frames leave in order */
    ret = ff_fssim_queue_push(&f->queue, out, slot, present);
    if (ret >= 0)
        ret = ff_fssim_queue_drain(&f->queue, e, &f->out, 0, 1);
    return FFMIN(ret, 0);
}

/* pairing=framesync: framesync's event, as the filter's. */
static int framesync_event(FFFrameSync *fs)
{
    AVFilterContext *ctx = fs->parent;
    FSSIMFilter *f = ctx->priv;
    FSSIMEvent ev = { 0 };
    int ret = ff_fssim_get_frames(fs, &ev.out, &ev.ref, ev.dist);

    if (ret < 0)
        return ret;
    ev.nb_dist = ret;
    return f->event(ctx, &ev);
}

av_cold int ff_fssim_filter_init(AVFilterContext *ctx, const FSSIMBackend *be,
                                 const char *fix, const enum AVPixelFormat *hw_formats,
                                 const FSSIMTemporal *temporal)
{
    FSSIMFilter *f = ctx->priv;
    int ret;

    f->fix         = fix;
    f->hw_formats  = hw_formats;
    f->temporal    = temporal;
    f->eng.ctx     = ctx;
    f->eng.backend = be;
    f->eng.opts    = &f->opts;
    f->eng.nb_dist = f->opts.nb_inputs - 1;
    f->event       = temporal ? temporal->event : filter_event;
    f->fs.on_event = framesync_event;
    f->pair.on_event = f->event;
    f->pair.on_tail  = pair_tail;
    f->out.pairs.mode = f->opts.pairing;
    ret = ff_fssim_check_segment(ctx, &f->opts, temporal ? f->opts.depth / 2 : 0);
    if (ret < 0)
        return ret;
    /* a segment's scored frames are numbered from seg_start on (fssim3d
     * sets its own at configuration) */
    f->out.first_n = f->opts.seg_start;
    /* the 2-D filters' pads follow the inputs option; fssim3d's are fixed */
    if (!ctx->nb_inputs && (ret = ff_fssim_append_inputs(ctx, &f->opts)) < 0)
        return ret;
    return ff_fssim_output_open(ctx, &f->out, &f->opts,
                                temporal ? "lavfi.fssim3d." : "lavfi.fssim.", !!temporal);
}

int ff_fssim_filter_query_formats(const AVFilterContext *ctx,
                                  struct AVFilterFormatsConfig **cfg_in,
                                  struct AVFilterFormatsConfig **cfg_out)
{
    const FSSIMFilter *f = ctx->priv;
    return ff_fssim_query_formats(ctx, cfg_in, cfg_out, f->hw_formats, ff_fssim_out_pad(ctx));
}

int ff_fssim_filter_configure(AVFilterContext *ctx)
{
    FSSIMFilter *f = ctx->priv;
    FSSIMEngine *e = &f->eng;
    const AVFilterLink *ref = ctx->inputs[e->nb_dist];
    /* inputs of other plane sizes than the reference are resampled */
    const int scale = f->opts.scale == FSSIM_SCALE_AUTO;
    enum AVPixelFormat sw_format[FSSIM_MAX_INPUTS];
    int ret;

    /* not a copy of the graph only probed: its logs say how it ends */
    f->out.configuring = 1;
    ret = e->backend->check_inputs(e, sw_format);
    if (ret >= 0)
        ret = ff_fssim_check_inputs(ctx, sw_format, scale, f->fix);
    if (ret < 0)
        return ret;
    ret = ff_fssim_format_init(ctx, &e->fmt, sw_format[e->nb_dist], ref->w, ref->h);
    for (int k = 0; k < e->nb_dist && ret >= 0; k++)
        ret = ff_fssim_format_init(ctx, &e->dist[k], sw_format[k], ctx->inputs[k]->w,
                                   ctx->inputs[k]->h);
    if (ret >= 0)
        ret = ff_fssim_check_options(ctx, &f->opts, &e->fmt);
    if (ret >= 0)
        ret = ff_fssim_engine_init(e);
    if (ret >= 0)
        ret = ff_fssim_queue_init(&f->queue, e);
    if (ret >= 0)
        ret = ff_fssim_output_config(ctx, &f->out, &e->fmt, e->dist);
    return ret;
}

int ff_fssim_filter_config_output(AVFilterLink *outlink)
{
    AVFilterContext *ctx = outlink->src;
    FSSIMFilter *f = ctx->priv;
    int ret;

    /* fssim3d is configured at its reference input */
    if (!f->temporal && (ret = ff_fssim_filter_configure(ctx)) < 0)
        return ret;
    return ff_fssim_config_output(outlink, &f->opts, &f->fs, &f->pair, &f->out);
}

const AVFilterPad ff_fssim_filter_outputs[1] = {
    {
        .name          = "default",
        .type          = AVMEDIA_TYPE_VIDEO,
        .config_props  = ff_fssim_filter_config_output,
    },
};

/* The segment's last frame (fssim3d: and its context) is in, or the run
 * was stopped: the frames still waiting go out, then the output and every
 * input end, so that the run ends without -frames. */
static int end_segment(AVFilterContext *ctx, FSSIMFilter *f)
{
    int ret;

    /* ended already, or closed downstream: the inputs end too */
    if (ff_outlink_get_status(ctx->outputs[0])) {
        for (int i = 0; i < ctx->nb_inputs; i++)
            ff_inlink_set_status(ctx->inputs[i], AVERROR_EOF);
        return 0;
    }
    ret = ff_fssim_queue_drain(&f->queue, &f->eng, &f->out, 1, 1);
    if (ret >= 0)
        ret = ff_fssim_output_end(ctx, &f->out);
    if (ret < 0)
        return ret;
    for (int i = 0; i < ctx->nb_inputs; i++)
        ff_inlink_set_status(ctx->inputs[i], AVERROR_EOF);
    ff_outlink_set_status(ctx->outputs[0], AVERROR_EOF, f->opts.pairing ==
                          FSSIM_PAIRING_FRAMESYNC ? f->fs.pts : AV_NOPTS_VALUE);
    return 0;
}

/* Whether the pairing has ended the output (the inputs' end, or the first
 * input's under shortest). */
static int pairing_ended(const FSSIMFilter *f)
{
    return f->opts.pairing == FSSIM_PAIRING_FRAMESYNC ? f->fs.eof : f->pair.eof;
}

int ff_fssim_filter_activate(AVFilterContext *ctx)
{
    FSSIMFilter *f = ctx->priv;
    int ret;

    /* A stop signal: the ffmpeg tool is about to end the inputs one by one,
     * and framesync would pair the last frames of the others with the
     * repeated last frame of the first to end.  The tool ends them only
     * after it has taken the signal, so the filter sees the signal first:
     * it pairs nothing more, and the run ends here, as at seg_end, fssim3d's
     * held frames scored with the sequence as it is (a second call finds
     * none).  doc/outputs.md#runs-stopped-by-a-signal */
    if (ff_fssim_file_stopped() && f->temporal)
        f->temporal->drop_held(ctx);
    if (f->seg_done || ff_fssim_file_stopped())
        return end_segment(ctx, f);
    /* pairing=nearest counts times from the first frames, and says so itself */
    if (f->opts.pairing != FSSIM_PAIRING_NEAREST)
        ff_fssim_check_start(ctx, &f->out);
    if (f->opts.pairing == FSSIM_PAIRING_FRAMESYNC)
        ret = ff_framesync_activate(&f->fs);
    else
        ret = ff_fssim_pair_activate(&f->pair);
    if (ret < 0)
        return ret;
    if (f->seg_done) {
        ff_filter_set_ready(ctx, 100);
        return 0;
    }
    if (!pairing_ended(f))
        return 0;
    /* fssim3d's sequence ends, and the frames still waiting for their
     * scores go out before anything downstream sees the EOF (framesync
     * has set it already: they reach the output link's queue first) */
    if (f->temporal && (ret = f->temporal->end(ctx)) < 0)
        return ret;
    ret = ff_fssim_queue_drain(&f->queue, &f->eng, &f->out, 1, 1);
    if (ret >= 0 && !f->eof_sent && f->opts.pairing != FSSIM_PAIRING_FRAMESYNC)
        ff_outlink_set_status(ctx->outputs[0], AVERROR_EOF, AV_NOPTS_VALUE);
    f->eof_sent = 1;
    /* the logs are finished here, where a failed write still fails the run */
    if (ret >= 0)
        ret = ff_fssim_output_end(ctx, &f->out);
    return FFMIN(ret, 0);
}

av_cold void ff_fssim_filter_uninit(AVFilterContext *ctx)
{
    FSSIMFilter *f = ctx->priv;
    /* the inputs' end reached: the logs are complete, not parked */
    const int ended = f->temporal ? f->ended : pairing_ended(f) || f->seg_done;

    /* frames scored but never sent (the run was cut short) still count;
     * after a GPU error none is (the backend refuses) */
    if (f->temporal)
        f->temporal->drop_held(ctx);
    ff_fssim_queue_drain(&f->queue, &f->eng, &f->out, 1, 0);
    ff_fssim_output_close(ctx, &f->out, ended);
    ff_fssim_queue_uninit(&f->queue);
    ff_fssim_engine_uninit(&f->eng);
    ff_framesync_uninit(&f->fs);
    ff_fssim_pair_uninit(&f->pair);
}
