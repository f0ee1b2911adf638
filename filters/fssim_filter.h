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
 * fssim: the body every filter shares -- fssim, fssim_cuda, fssim_vulkan
 * and fssim3d.  A filter's file holds its options, class, pads and
 * FFFilter, and its init calls ff_fssim_filter_init with its backend; the
 * other callbacks are these, and the per-frame work is the same for all:
 * framesync event -> checks -> backend -> queue -> outputs.  fssim3d adds
 * its temporal layer (FSSIMTemporal): its frames wait in a delay line until
 * their temporal window is complete.
 */
#ifndef AVFILTER_FSSIM_FILTER_H
#define AVFILTER_FSSIM_FILTER_H

#include "libavutil/log.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/framesync.h"

#include "core/fssim_options.h"
#include "engine/fssim_engine.h"
#include "engine/fssim_queue.h"
#include "output/fssim_output.h"
#include "fssim_links.h"
#include "fssim_pair.h"

/* fssim3d's temporal layer, in place of the 2-D event. */
typedef struct FSSIMTemporal {
    /** A frame of main with its reference frame: the pair's moments into
     *  the ring, its frame into the delay line, and the frames whose window
     *  is complete queued with their score jobs. */
    int  (*event)(AVFilterContext *ctx, FSSIMEvent *ev);
    /** The inputs have ended: the sequence ends, its held
     *  frames are queued with truncated windows.  Called at every activate
     *  from then on; sets FSSIMFilter.ended. */
    int  (*end)(AVFilterContext *ctx);
    /** At uninit: the frames still held are scored and logged, not sent
     *  on (a run cut short), and freed. */
    void (*drop_held)(AVFilterContext *ctx);
} FSSIMTemporal;

/* The start of every filter's private context. */
typedef struct FSSIMFilter {
    const AVClass *class;
    FFFrameSync  fs;        /* pairing=framesync; its options are every filter's */
    FSSIMPair    pair;      /* pairing=nearest */
    FSSIMOptions opts;
    FSSIMOutput  out;
    FSSIMEngine  eng;
    FSSIMQueue   queue;
    const char  *fix;       /* the filter that brings inputs to one size/format */
    const enum AVPixelFormat *hw_formats;  /* the backends' frames, NONE terminated */
    const FSSIMTemporal *temporal;         /* fssim3d's; NULL in the 2-D filters */
    int          ended;     /* fssim3d: the sequence is over (EOF, or the reference
                               ended under eof_action=pass) */
    int        (*event)(AVFilterContext *ctx, FSSIMEvent *ev);  /* each frame set */
    int64_t      nb_lead;   /* frames the leading input delivered */
    int          counted;   /* the last leading frame lies in the scored range */
    int          eof_sent;  /* the output's EOF is set */
    int          seg_done;  /* the segment's last frame (and context) is in: the
                               inputs and the output end (doc/options.md#segments) */
} FSSIMFilter;

/**
 * The pairing counts of an event (doc/outputs.md#pairing), if its leading
 * frame, the title's frame t, lies in the segment's scored range.
 */
void ff_fssim_filter_count(AVFilterContext *ctx, const FSSIMEvent *ev, int64_t t);

/**
 * At init: the input pads (from opts.nb_inputs, unless the filter has
 * fixed ones), the outputs, the backend (NULL: picked at configuration,
 * with fix), the hardware formats the filter takes.  A temporal layer
 * makes fssim3d: one score, keys lavfi.fssim3d.*.
 */
int  ff_fssim_filter_init(AVFilterContext *ctx, const FSSIMBackend *be, const char *fix,
                          const enum AVPixelFormat *hw_formats,
                          const FSSIMTemporal *temporal);

int  ff_fssim_filter_query_formats(const AVFilterContext *ctx,
                                   struct AVFilterFormatsConfig **cfg_in,
                                   struct AVFilterFormatsConfig **cfg_out);

/**
 * Configuration once every input is configured: the inputs' checks, the
 * formats, the options against them, the engine, the queue, the outputs.
 * From the output's config_props, or, in fssim3d, from its reference
 * input's, once it has picked its backend.
 */
int  ff_fssim_filter_configure(AVFilterContext *ctx);

/** The output's config_props (configures the 2-D filters first). */
int  ff_fssim_filter_config_output(AVFilterLink *outlink);

/** The output pad of every filter. */
extern const AVFilterPad ff_fssim_filter_outputs[1];

int  ff_fssim_filter_activate(AVFilterContext *ctx);

/** At uninit: frames still waiting are scored and logged, not sent on. */
void ff_fssim_filter_uninit(AVFilterContext *ctx);

#endif /* AVFILTER_FSSIM_FILTER_H */
