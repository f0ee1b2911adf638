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
 * fssim: the filters' links -- pads, formats, input and frame checks,
 * framesync, the output link.
 */
#include <string.h>

#include "libavutil/avstring.h"
#include "libavutil/hwcontext.h"
#include "libavutil/mathematics.h"
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/filters.h"
#include "libavfilter/formats.h"
#include "libavfilter/framesync.h"

#include "output/fssim_output.h"
#include "fssim_links.h"

static AVFilterFormats *link_formats(const enum AVPixelFormat *hw_formats)
{
    AVFilterFormats *f = ff_make_pixel_format_list(ff_fssim_sw_pix_fmts);

    for (int i = 0; f && hw_formats[i] != AV_PIX_FMT_NONE; i++)
        if (ff_add_format(&f, hw_formats[i]) < 0)
            return NULL;   /* ff_add_format freed the list */
    return f;
}

/*
 * Colour space, range and alpha mode lists: one per input, the output
 * sharing the list of the input whose frames it carries (they go out
 * untouched).  With the default single list FFmpeg converts the other
 * inputs to one range behind the filter (an auto-inserted scale: identical
 * content then scores below 1); scored as decoded, a difference only gets
 * a warning.
 */
static int query_frame_metadata(const AVFilterContext *ctx,
                                struct AVFilterFormatsConfig **cfg_in,
                                struct AVFilterFormatsConfig **cfg_out, int out_pad)
{
    static const struct {
        AVFilterFormats *(*all)(void);
        size_t offset;
    } kinds[] = {
        { ff_all_color_spaces, offsetof(AVFilterFormatsConfig, color_spaces) },
        { ff_all_color_ranges, offsetof(AVFilterFormatsConfig, color_ranges) },
        { ff_all_alpha_modes,  offsetof(AVFilterFormatsConfig, alpha_modes)  },
    };
#define LIST(cfg, k) ((AVFilterFormats **)((uint8_t *)(cfg) + kinds[k].offset))
    for (int k = 0; k < FF_ARRAY_ELEMS(kinds); k++) {
        for (int i = 0; i < ctx->nb_inputs; i++) {
            /* a failed ff_formats_ref() frees its unowned list */
            int ret = ff_formats_ref(kinds[k].all(), LIST(cfg_in[i], k));
            if (ret >= 0 && i == out_pad)
                ret = ff_formats_ref(*LIST(cfg_in[i], k), LIST(cfg_out[0], k));
            if (ret < 0)
                return ret;
        }
    }
#undef LIST
    return 0;
}

int ff_fssim_query_formats(const AVFilterContext *ctx,
                           struct AVFilterFormatsConfig **cfg_in,
                           struct AVFilterFormatsConfig **cfg_out,
                           const enum AVPixelFormat *hw_formats, int out_pad)
{
    for (int i = 0; i < ctx->nb_inputs; i++) {
        int ret = ff_formats_ref(link_formats(hw_formats), &cfg_in[i]->formats);
        if (ret >= 0 && i == out_pad)
            ret = ff_formats_ref(cfg_in[i]->formats, &cfg_out[0]->formats);
        if (ret < 0)
            return ret;
    }
    return query_frame_metadata(ctx, cfg_in, cfg_out, out_pad);
}

int ff_fssim_append_inputs(AVFilterContext *ctx, const FSSIMOptions *opts)
{
    const int n = opts->nb_inputs;

    for (int i = 0; i < n; i++) {
        AVFilterPad pad = { .type = AVMEDIA_TYPE_VIDEO };
        int ret;

        if (i == n - 1)
            pad.name = av_strdup("reference");
        else if (n == 2)
            pad.name = av_strdup("main");
        else
            pad.name = av_asprintf("dist%d", i + 1);
        if (!pad.name)
            return AVERROR(ENOMEM);
        if ((ret = ff_append_inpad_free_name(ctx, &pad)) < 0)
            return ret;
    }
    return 0;
}

/* The colour family and components of a format, for messages. */
static const char *family(enum AVPixelFormat fmt)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(fmt);

    if (!d)
        return "unknown";
    if (d->nb_components < 3)
        return "GRAY";
    if (d->flags & AV_PIX_FMT_FLAG_RGB)
        return d->nb_components > 3 ? "GBR with alpha" : "GBR";
    return d->nb_components > 3 ? "YUV with alpha" : "YUV";
}

/* Whether input i's planes have the reference's sizes: its frame size
 * and chroma subsampling. */
static int same_plane_sizes(const AVFilterContext *ctx, const enum AVPixelFormat *fmt, int i)
{
    const int r = ctx->nb_inputs - 1;
    const AVPixFmtDescriptor *a = av_pix_fmt_desc_get(fmt[i]), *b = av_pix_fmt_desc_get(fmt[r]);
    const AVFilterLink *in = ctx->inputs[i], *ref = ctx->inputs[r];

    return in->w == ref->w && in->h == ref->h && (a->nb_components < 3 ||
           (AV_CEIL_RSHIFT(in->w, a->log2_chroma_w) == AV_CEIL_RSHIFT(ref->w, b->log2_chroma_w) &&
            AV_CEIL_RSHIFT(in->h, a->log2_chroma_h) == AV_CEIL_RSHIFT(ref->h, b->log2_chroma_h)));
}

int ff_fssim_check_inputs(AVFilterContext *ctx, const enum AVPixelFormat *fmt, int scale,
                          const char *fix)
{
    const int r = ctx->nb_inputs - 1;
    const AVFilterLink *ref = ctx->inputs[r];
    /* the software scale filter has no format option: format does it */
    const int sw = !strcmp(fix, "scale");

    for (int i = 0; i < r; i++) {
        const AVFilterLink *in = ctx->inputs[i];
        const char *pad = ctx->input_pads[i].name;

        if (!ff_fssim_format_compatible(fmt[i], fmt[r])) {
            av_log(ctx, AV_LOG_ERROR, "Input pixel formats differ: %s is %s (%s), reference is "
                   "%s (%s). An input may differ from the reference in bit depth, chroma "
                   "subsampling and layout, not in colour family or components: convert %s "
                   "first, e.g. %s%sformat=%s.\n", pad, av_get_pix_fmt_name(fmt[i]),
                   family(fmt[i]), av_get_pix_fmt_name(fmt[r]), family(fmt[r]), pad,
                   sw ? "" : fix, sw ? "" : "=", av_get_pix_fmt_name(fmt[r]));
            return AVERROR(EINVAL);
        }
        if (scale || same_plane_sizes(ctx, fmt, i))
            continue;
        if (in->w != ref->w || in->h != ref->h)
            av_log(ctx, AV_LOG_ERROR, "Input sizes differ: %s is %dx%d, reference is %dx%d, "
                   "and scale=none. Use scale=auto to resample %s to the reference's size, "
                   "or %s=%d:%d on %s.\n", pad, in->w, in->h, ref->w, ref->h,
                   r == 1 ? "main" : "the renditions", fix, ref->w, ref->h, pad);
        else
            av_log(ctx, AV_LOG_ERROR, "Input chroma subsampling differs: %s is %s, reference "
                   "is %s, and scale=none. Use scale=auto to resample %s's chroma to the "
                   "reference's, or convert it first, e.g. %s%sformat=%s.\n", pad,
                   av_get_pix_fmt_name(fmt[i]), av_get_pix_fmt_name(fmt[r]), pad,
                   sw ? "" : fix, sw ? "" : "=", av_get_pix_fmt_name(fmt[r]));
        return AVERROR(EINVAL);
    }
    return 0;
}

/*
 * framesync for a ladder: the reference leads (its frames go out) and the
 * renditions follow, with the same options as two inputs, where main
 * leads.  framesync applies repeatlast, eof_action and shortest on the
 * assumption that input 0 leads, so they are applied here, and framesync
 * is configured with the values that leave the inputs as set.
 */
static int configure_ladder_sync(AVFilterContext *ctx, FFFrameSync *fs)
{
    const int r = ctx->nb_inputs - 1;
    const int repeatlast = fs->opt_repeatlast, shortest = fs->opt_shortest;
    const int eof_action = fs->opt_eof_action;
    const int repeat = repeatlast && eof_action != EOF_ACTION_PASS;
    const int stop = shortest || eof_action == EOF_ACTION_ENDALL;
    int ret;

    for (int i = 0; i <= r; i++) {
        FFFrameSyncIn *in = &fs->in[i];
        in->time_base = ctx->inputs[i]->time_base;
        in->sync   = i == r ? 2 : repeat;
        in->before = i == r ? EXT_STOP : EXT_NULL;
        in->after  = stop ? EXT_STOP : i == r || repeat ? EXT_INFINITY : EXT_NULL;
    }
    fs->opt_repeatlast = 1;
    fs->opt_shortest   = 0;
    fs->opt_eof_action = EOF_ACTION_REPEAT;
    ret = ff_framesync_configure(fs);
    fs->opt_repeatlast = repeatlast;
    fs->opt_shortest   = shortest;
    fs->opt_eof_action = eof_action;
    return ret;
}

/* A frame rate as a user writes it: 25, 30000/1001. */
static void rate_name(AVRational q, char buf[32])
{
    if (q.den == 1)
        snprintf(buf, 32, "%d", q.num);
    else
        snprintf(buf, 32, "%d/%d", q.num, q.den);
}

/* FFmpeg's framesync (pairing=framesync), as its ssim filter: two inputs,
 * main leads; a ladder, the reference leads. */
static int configure_framesync(AVFilterContext *ctx, FFFrameSync *fs)
{
    const int r = ctx->nb_inputs - 1;
    const AVFilterLink *reflink = ctx->inputs[r];
    int ret;

    if (ctx->nb_inputs == 2) {
        ret = ff_framesync_init_dualinput(fs, ctx);
        if (ret >= 0)
            ret = ff_framesync_configure(fs);
    } else {
        ret = ff_framesync_init(fs, ctx, ctx->nb_inputs);
        if (ret >= 0)
            ret = configure_ladder_sync(ctx, fs);
    }
    if (ret < 0)
        return ret;

    /* as FFmpeg's ssim: pairing by timestamps is only as good as the bases */
    for (int i = 0; i < r; i++) {
        AVFilterLink *in = ctx->inputs[i];
        const AVRational rate = ff_filter_link(in)->frame_rate;
        const AVRational ref_rate = ff_filter_link(ctx->inputs[r])->frame_rate;
        char a[32], b[32];

        if (av_cmp_q(in->time_base, reflink->time_base))
            av_log(ctx, AV_LOG_WARNING, "The %s and reference inputs have different time "
                   "bases (%d/%d and %d/%d): with pairing=framesync a frame is paired with "
                   "the reference frame shown at its time, so a coarser time base (Matroska's "
                   "milliseconds) pairs some frames with their neighbours. pairing=nearest "
                   "pairs them by the nearest timestamp.\n", ctx->input_pads[i].name,
                   in->time_base.num, in->time_base.den, reflink->time_base.num,
                   reflink->time_base.den);
        /* a variable or unknown rate (0/1) says nothing */
        if (rate.num <= 0 || ref_rate.num <= 0 || !av_cmp_q(rate, ref_rate))
            continue;
        rate_name(rate, a);
        rate_name(ref_rate, b);
        av_log(ctx, AV_LOG_WARNING, "The frame rates differ: %s %s fps, reference %s fps. "
               "Frames are paired by timestamp, so some frames of one input are scored twice "
               "and others not at all. Bring them to one rate first, e.g. fps=%s on %s.\n",
               ctx->input_pads[i].name, a, b, b, ctx->input_pads[i].name);
    }
    return 0;
}

int ff_fssim_config_output(AVFilterLink *outlink, const FSSIMOptions *opts, FFFrameSync *fs,
                           FSSIMPair *pair, FSSIMOutput *out)
{
    AVFilterContext *ctx = outlink->src;
    const int o = ff_fssim_out_pad(ctx), r = ctx->nb_inputs - 1;
    AVFilterLink *olink = ctx->inputs[o];
    FilterLink *il = ff_filter_link(olink);
    FilterLink *ol = ff_filter_link(outlink);
    int ret;

    outlink->w = olink->w;
    outlink->h = olink->h;
    outlink->time_base = olink->time_base;
    outlink->sample_aspect_ratio = olink->sample_aspect_ratio;
    ol->frame_rate = il->frame_rate;
    if (il->hw_frames_ctx && (ret = av_buffer_replace(&ol->hw_frames_ctx, il->hw_frames_ctx)) < 0)
        return ret;

    if (opts->pairing == FSSIM_PAIRING_FRAMESYNC) {
        if ((ret = configure_framesync(ctx, fs)) < 0)
            return ret;
        outlink->time_base = fs->time_base;
    } else {
        /* the leading input's frames go out as they are */
        /* a 2-D segment's run ends with its last frame (fssim3d's goes on
         * with its context); a segment's first frames are not the title's, so
         * under pairing=nearest its run is given the title's */
        const int64_t final = opts->seg_end >= 0 && !opts->depth ?
                              opts->seg_end - 1 - opts->seg_base : -1;
        ret = ff_fssim_pair_configure(pair, ctx, o, r, fs->opt_shortest ||
                                      fs->opt_eof_action == EOF_ACTION_ENDALL,
                                      opts->seg_base == 0, final,
                                      opts->pairing == FSSIM_PAIRING_NEAREST,
                                      opts->seg_starts);
        if (ret < 0)
            return ret;
    }
    out->time_base = outlink->time_base;
    return 0;
}

void ff_fssim_check_start(AVFilterContext *ctx, FSSIMOutput *out)
{
    const int r = ctx->nb_inputs - 1;
    const uint32_t all = (2u << r) - 1;

    if (out->warned_start || out->first_seen == all)
        return;
    /* a frame still queued on its link has not been taken by framesync:
     * the first one seen is the input's first */
    for (int i = 0; i <= r; i++) {
        if ((out->first_seen >> i & 1) || !ff_inlink_queued_frames(ctx->inputs[i]))
            continue;
        out->first_pts[i] = ff_inlink_peek_frame(ctx->inputs[i], 0)->pts;
        out->first_seen |= 1u << i;
    }
    if (!(out->first_seen >> r & 1) || out->first_pts[r] == AV_NOPTS_VALUE)
        return;
    for (int i = 0; i < r; i++) {
        const AVRational tb = ctx->inputs[i]->time_base, ref_tb = ctx->inputs[r]->time_base;
        const int64_t pts = out->first_pts[i], ref_pts = out->first_pts[r];
        if (!(out->first_seen >> i & 1) || pts == AV_NOPTS_VALUE ||
            !av_compare_ts(pts, tb, ref_pts, ref_tb))
            continue;
        av_log(ctx, AV_LOG_WARNING, "The %s input starts at %g s and the reference at %g s: "
               "frames are paired by timestamp, so their first pictures are not compared "
               "with each other (a start offset, or an edit list). If they should be, align "
               "them first, e.g. with setpts=PTS-STARTPTS on both inputs.\n",
               ctx->input_pads[i].name, pts * av_q2d(tb), ref_pts * av_q2d(ref_tb));
        out->warned_start = 1;
        break;
    }
}

int ff_fssim_get_frames(FFFrameSync *fs, AVFrame **out, AVFrame **ref, AVFrame **dist)
{
    AVFilterContext *ctx = fs->parent;
    const int r = ctx->nb_inputs - 1, o = ff_fssim_out_pad(ctx);
    int nb = 0, ret;

    *out = *ref = NULL;
    if (r == 1) {
        ret = ff_framesync_dualinput_get(fs, &dist[0], ref);
        if (ret < 0)
            return ret;
        *out = dist[0];
        return *ref ? 1 : 0;
    }
    /* the reference's frame goes out: a writable copy of framesync's */
    ret = ff_framesync_get_frame(fs, o, out, 1);
    if (ret < 0)
        return ret;
    (*out)->pts = av_rescale_q(fs->pts, fs->time_base, ctx->outputs[0]->time_base);
    *ref = *out;
    for (int i = 0; i < r; i++) {
        ret = ff_framesync_get_frame(fs, i, &dist[i], 0);
        if (ret < 0) {
            av_frame_free(out);
            return ret;
        }
        if (ctx->is_disabled)
            dist[i] = NULL;
        nb += !!dist[i];
    }
    return nb;
}

/* A frame's own size and format must be those the filter was configured
 * with: a size changed inside the graph (scale with eval=frame) reaches the
 * filter without a rebuild, and scoring it with the configured layout
 * would read outside the frame. */
static int check_frame(AVFilterContext *ctx, const FSSIMFormat *f, const AVFrame *frame,
                       const char *pad)
{
    enum AVPixelFormat fmt = frame->format;
    /* the frames' own scaler: GPU frames are not scaled by scale */
    const char *fix = frame->format == AV_PIX_FMT_CUDA   ? "scale_cuda=%d:%d:format=%s" :
                      frame->format == AV_PIX_FMT_VULKAN ? "scale_vulkan=%d:%d:format=%s" :
                                                           "scale=%d:%d,format=%s";
    char hint[128];

    if (frame->hw_frames_ctx)
        fmt = ((AVHWFramesContext *)frame->hw_frames_ctx->data)->sw_format;
    if (frame->width == f->width && frame->height == f->height && fmt == f->pix_fmt)
        return 0;
    snprintf(hint, sizeof(hint), fix, f->width, f->height, av_get_pix_fmt_name(f->pix_fmt));
    av_log(ctx, AV_LOG_ERROR, "A %s frame is %dx%d %s, but the filter was configured for "
           "%dx%d %s: the size or format changed inside the filter graph, which FFmpeg does "
           "not rebuild for it. Keep the size and format constant in front of the filter, "
           "e.g. %s.\n", pad, frame->width, frame->height, av_get_pix_fmt_name(fmt),
           f->width, f->height, av_get_pix_fmt_name(f->pix_fmt), hint);
    return AVERROR(EINVAL);
}

int ff_fssim_check_frames(AVFilterContext *ctx, FSSIMOutput *out,
                          const AVFrame *ref, AVFrame *const *dist, int nb_dist)
{
    int ret;

    for (int k = 0; k < nb_dist; k++)
        if (dist[k] && (ret = check_frame(ctx, &out->dist_fmt[k], dist[k],
                                          ctx->input_pads[k].name)) < 0)
            return ret;
    if ((ret = check_frame(ctx, &out->fmt, ref, "reference")) < 0)
        return ret;
    for (int k = 0; k < nb_dist && !out->warned_range; k++) {
        if (!dist[k] || dist[k]->color_range == ref->color_range)
            continue;
        out->warned_range = 1;
        av_log(ctx, AV_LOG_WARNING, "The %s and reference frames use different colour "
               "ranges (%s and %s): the samples are compared as they are. Convert one with "
               "scale=out_range=... if that is not what you mean.\n", ctx->input_pads[k].name,
               av_color_range_name(dist[k]->color_range), av_color_range_name(ref->color_range));
    }
    return 0;
}
