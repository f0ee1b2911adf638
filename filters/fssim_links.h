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
 * fssim: the filters' links -- the input pads of a pair or a ladder, the
 * formats they negotiate, the checks of the inputs and of each frame set,
 * framesync on every input, and the output link.
 */
#ifndef AVFILTER_FSSIM_LINKS_H
#define AVFILTER_FSSIM_LINKS_H

#include "libavutil/frame.h"
#include "libavutil/pixfmt.h"
#include "libavfilter/avfilter.h"

#include "core/fssim_options.h"
#include "fssim_pair.h"

struct FFFrameSync;
struct FSSIMOutput;

/**
 * Formats of the filters' links: the software formats, plus the hardware
 * formats the filter's backends take (hw_formats, AV_PIX_FMT_NONE
 * terminated; empty for fssim).  Each input gets its own
 * list, so that an input in another format than the others reaches the
 * filter and fails with a message naming both (doc/formats.md) instead of
 * being converted silently; software frames reach a GPU filter and get a
 * clear error instead of a failed negotiation.  The output shares the list
 * of the input whose frames it carries (out_pad).
 */
int ff_fssim_query_formats(const AVFilterContext *ctx,
                           struct AVFilterFormatsConfig **cfg_in,
                           struct AVFilterFormatsConfig **cfg_out,
                           const enum AVPixelFormat *hw_formats, int out_pad);

/**
 * The inputs of a filter with opts->nb_inputs inputs: "main" and
 * "reference" for two, else "dist1" .. "dist<N-1>" and "reference".
 * Called from init; the filter is flagged AVFILTER_FLAG_DYNAMIC_INPUTS.
 */
int ff_fssim_append_inputs(AVFilterContext *ctx, const FSSIMOptions *opts);

/** The index of the pad whose frames go out: main, or a ladder's reference. */
static inline int ff_fssim_out_pad(const AVFilterContext *ctx)
{
    return ctx->nb_inputs > 2 ? (int)ctx->nb_inputs - 1 : 0;
}

/**
 * doc/formats.md: every input is of the reference's (the last input's)
 * colour family and components, and, unless scale (scale=auto: the
 * resampler brings it to the reference's planes), has the reference's
 * plane sizes (frame size and chroma subsampling).  Bit depth and layout
 * may differ either way.  fmt[i]: input i's software format (the
 * sw_format of hardware frames); fix names the filter that makes them
 * match, e.g. "scale_cuda".
 */
int ff_fssim_check_inputs(AVFilterContext *ctx, const enum AVPixelFormat *fmt, int scale,
                          const char *fix);

/**
 * The output link: the size, rate and (for hardware frames) frames
 * context of the input whose frames go out, and the pairing of the
 * inputs' frames: pairing=nearest (fssim_pair.c; the output keeps the
 * leading input's time base), or FFmpeg's framesync (two inputs: main
 * leads, as in FFmpeg's ssim; a ladder: the reference leads; framesync's
 * time base).  The time base is also kept in out, so that frames scored at
 * uninit, when the output link may already be freed, are logged with it.
 */
int ff_fssim_config_output(AVFilterLink *outlink, const FSSIMOptions *opts,
                           struct FFFrameSync *fs, FSSIMPair *pair,
                           struct FSSIMOutput *out);

/**
 * The frames of one framesync event: out (the frame that goes out, owned
 * by the caller), ref and dist[] (NULL where an input has none: the timeline
 * disabled it, or eof_action=pass after its end).  Returns the number of
 * renditions with a frame, or an error.
 */
int ff_fssim_get_frames(struct FFFrameSync *fs, AVFrame **out, AVFrame **ref,
                        AVFrame **dist);

/**
 * Before a frame set is scored: fail, naming the pad, if a frame's size or
 * (software) format is not the configured one (changed inside the graph,
 * where FFmpeg does not rebuild it); warn, once per filter, as FFmpeg's
 * ssim does, when the colour ranges differ (the samples are scored as
 * they are).
 */
int ff_fssim_check_frames(AVFilterContext *ctx, struct FSSIMOutput *out,
                          const AVFrame *ref, AVFrame *const *dist, int nb_dist);

/**
 * Before framesync takes the inputs' frames: note each input's first
 * timestamp, and warn, once, when an input starts at another time than the
 * reference (a start offset, an edit list): frames are paired by
 * timestamp, so their first pictures are not compared.
 */
void ff_fssim_check_start(AVFilterContext *ctx, struct FSSIMOutput *out);

#endif /* AVFILTER_FSSIM_LINKS_H */
