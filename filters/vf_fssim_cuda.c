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
 * fssim_cuda: SSIM (integer, Gaussian, block) on CUDA frames as NVDEC,
 * hwupload_cuda or scale_cuda left them (the CUDA backend, fssim_be_cuda.c).
 * Frame data never leaves the GPU; only per-plane sums come back.
 */
#include "libavutil/internal.h"
#include "libavutil/opt.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/filters.h"
#include "libavfilter/formats.h"
#include "libavfilter/framesync.h"
#include "libavfilter/video.h"

#include "fssim_filter.h"

typedef struct FSSIMCudaContext {
    const AVClass *class;
    FSSIMFilter f;
} FSSIMCudaContext;

#define OFFSET(x) offsetof(FSSIMCudaContext, x)

static const AVOption fssim_cuda_options[] = {
    FSSIM_ALGO_OPTIONS(FSSIMCudaContext, f.opts),
    FSSIM_INPUT_OPTIONS(FSSIMCudaContext, f.opts),
    FSSIM_OUTPUT_OPTIONS(FSSIMCudaContext, f.opts),
    { NULL }
};

FRAMESYNC_DEFINE_CLASS(fssim_cuda, FSSIMCudaContext, f.fs);

static int query_formats(const AVFilterContext *ctx, AVFilterFormatsConfig **cfg_in,
                         AVFilterFormatsConfig **cfg_out)
{
    return ff_fssim_filter_query_formats(ctx, cfg_in, cfg_out, AV_PIX_FMT_CUDA);
}

static av_cold int init(AVFilterContext *ctx)
{
    FSSIMCudaContext *s = ctx->priv;
    return ff_fssim_filter_init(ctx, &s->f, &ff_fssim_cuda_backend, "scale_cuda");
}

static int config_output(AVFilterLink *outlink)
{
    FSSIMCudaContext *s = outlink->src->priv;
    return ff_fssim_filter_config_output(outlink, &s->f);
}

static int activate(AVFilterContext *ctx)
{
    FSSIMCudaContext *s = ctx->priv;
    return ff_fssim_filter_activate(ctx, &s->f);
}

static av_cold void uninit(AVFilterContext *ctx)
{
    FSSIMCudaContext *s = ctx->priv;
    ff_fssim_filter_uninit(ctx, &s->f);
}

static const AVFilterPad fssim_cuda_outputs[] = {
    {
        .name          = "default",
        .type          = AVMEDIA_TYPE_VIDEO,
        .config_props  = config_output,
    },
};

/* The inputs are made at init (option inputs): main and reference, or a
 * ladder's renditions and reference. */
const FFFilter ff_vf_fssim_cuda = {
    .p.name         = "fssim_cuda",
    .p.description  = NULL_IF_CONFIG_SMALL("Calculate SSIM (integer, Gaussian, block), PSNR and MS-SSIM between a reference and one or more CUDA video streams."),
    .p.priv_class   = &fssim_cuda_class,
    .p.flags        = AVFILTER_FLAG_DYNAMIC_INPUTS | AVFILTER_FLAG_SUPPORT_TIMELINE_INTERNAL,
    .preinit        = fssim_cuda_framesync_preinit,
    .init           = init,
    .uninit         = uninit,
    .activate       = activate,
    .priv_size      = sizeof(FSSIMCudaContext),
    .p.inputs       = NULL,
    FILTER_OUTPUTS(fssim_cuda_outputs),
    FILTER_QUERY_FUNC2(query_formats),
    .flags_internal = FF_FILTER_FLAG_HWFRAME_AWARE,
};
