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
 * fssim: the body of the 2-D filters (fssim, fssim_cuda, fssim_vulkan).
 * Each filter file holds its context, options, pads and FFFilter, and
 * calls these with its backend; the per-frame work is the same for all:
 * framesync event -> checks -> backend submit -> queue -> outputs.
 */
#ifndef AVFILTER_FSSIM_FILTER_H
#define AVFILTER_FSSIM_FILTER_H

#include "libavfilter/avfilter.h"
#include "libavfilter/framesync.h"

#include "fssim_engine.h"
#include "fssim_links.h"
#include "fssim_options.h"
#include "fssim_output.h"

typedef struct FSSIMFilter {
    FFFrameSync  fs;        /* first: the framesync event finds the rest */
    FSSIMOptions opts;
    FSSIMOutput  out;
    FSSIMEngine  eng;
    FSSIMQueue   queue;
    const char  *fix;       /* the filter that brings inputs to one size/format */
} FSSIMFilter;

/** At init: the input pads (opts.nb_inputs), the outputs, the backend. */
int  ff_fssim_filter_init(AVFilterContext *ctx, FSSIMFilter *f, const FSSIMBackend *be,
                          const char *fix);

/** query_formats: hw_format is the backend's kind of frames (or NONE). */
int  ff_fssim_filter_query_formats(const AVFilterContext *ctx,
                                   struct AVFilterFormatsConfig **cfg_in,
                                   struct AVFilterFormatsConfig **cfg_out,
                                   enum AVPixelFormat hw_format);

/** The output's config_props: checks, formats, backend set-up, framesync. */
int  ff_fssim_filter_config_output(AVFilterLink *outlink, FSSIMFilter *f);

int  ff_fssim_filter_activate(AVFilterContext *ctx, FSSIMFilter *f);

/** At uninit: frames still waiting are scored and logged, not sent on. */
void ff_fssim_filter_uninit(AVFilterContext *ctx, FSSIMFilter *f);

#endif /* AVFILTER_FSSIM_FILTER_H */
