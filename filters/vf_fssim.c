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
 * fssim: SSIM (integer, Gaussian, block) on software frames, with the CPU
 * reference of every algorithm, slice-threaded.  The GPU filters are checked
 * against this one.
 */
#include "libavutil/internal.h"
#include "libavutil/opt.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/filters.h"
#include "libavfilter/formats.h"
#include "libavfilter/framesync.h"
#include "libavfilter/video.h"

#include "fssim_filter.h"

typedef struct FSSIMContext {
    const AVClass *class;
    FSSIMFilter f;
} FSSIMContext;

#define OFFSET(x) offsetof(FSSIMContext, x)

static const AVOption fssim_options[] = {
    FSSIM_ALGO_OPTIONS(FSSIMContext, f.opts),
    FSSIM_INPUT_OPTIONS(FSSIMContext, f.opts),
    FSSIM_OUTPUT_OPTIONS(FSSIMContext, f.opts),
    { NULL }
};

FRAMESYNC_DEFINE_CLASS(fssim, FSSIMContext, f.fs);

static int query_formats(const AVFilterContext *ctx, AVFilterFormatsConfig **cfg_in,
                         AVFilterFormatsConfig **cfg_out)
{
    return ff_fssim_filter_query_formats(ctx, cfg_in, cfg_out, AV_PIX_FMT_NONE);
}

static av_cold int init(AVFilterContext *ctx)
{
    FSSIMContext *s = ctx->priv;
    return ff_fssim_filter_init(ctx, &s->f, &ff_fssim_cpu_backend, "scale");
}

static int config_output(AVFilterLink *outlink)
{
    FSSIMContext *s = outlink->src->priv;
    return ff_fssim_filter_config_output(outlink, &s->f);
}

static int activate(AVFilterContext *ctx)
{
    FSSIMContext *s = ctx->priv;
    return ff_fssim_filter_activate(ctx, &s->f);
}

static av_cold void uninit(AVFilterContext *ctx)
{
    FSSIMContext *s = ctx->priv;
    ff_fssim_filter_uninit(ctx, &s->f);
}

static const AVFilterPad fssim_outputs[] = {
    {
        .name          = "default",
        .type          = AVMEDIA_TYPE_VIDEO,
        .config_props  = config_output,
    },
};

/* The inputs are made at init (option inputs): main and reference, or a
 * ladder's renditions and reference. */
const FFFilter ff_vf_fssim = {
    .p.name         = "fssim",
    .p.description  = NULL_IF_CONFIG_SMALL("Calculate SSIM (integer, Gaussian, block), PSNR and MS-SSIM between a reference and one or more video streams."),
    .p.priv_class   = &fssim_class,
    .p.flags        = AVFILTER_FLAG_DYNAMIC_INPUTS | AVFILTER_FLAG_SUPPORT_TIMELINE_INTERNAL |
                      AVFILTER_FLAG_SLICE_THREADS | AVFILTER_FLAG_METADATA_ONLY,
    .preinit        = fssim_framesync_preinit,
    .init           = init,
    .uninit         = uninit,
    .activate       = activate,
    .priv_size      = sizeof(FSSIMContext),
    .p.inputs       = NULL,
    FILTER_OUTPUTS(fssim_outputs),
    FILTER_QUERY_FUNC2(query_formats),
};
