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
 * fssim_vulkan: SSIM (integer, Gaussian, block) on Vulkan frames read in place
 * (Vulkan Video decode, hwupload, scale_vulkan), by the Vulkan backend
 * (fssim_be_vulkan.c).  Only per-plane sums come back to the host.
 */
#include "libavutil/internal.h"
#include "libavutil/opt.h"
#include "libavfilter/filters.h"
#include "libavfilter/framesync.h"

#include "fssim_filter.h"

/* Each filter has its own options, class and FFFilter; the rest is fssim_filter.c's. */
static const AVOption fssim_vulkan_options[] = {
    FSSIM_ALGO_OPTIONS(FSSIMFilter, opts),
    FSSIM_INPUT_OPTIONS(FSSIMFilter, opts),
    FSSIM_OUTPUT_OPTIONS(FSSIMFilter, opts),
    FSSIM_PAIRING_OPTIONS(FSSIMFilter, opts),
    { NULL }
};

FRAMESYNC_DEFINE_CLASS(fssim_vulkan, FSSIMFilter, fs);

static av_cold int init(AVFilterContext *ctx)
{
    static const enum AVPixelFormat hw_formats[] = { AV_PIX_FMT_VULKAN, AV_PIX_FMT_NONE };
    return ff_fssim_filter_init(ctx, &ff_fssim_vulkan_backend, "scale_vulkan", hw_formats, NULL);
}

/* The inputs are made at init (option inputs): main and reference, or a
 * ladder's renditions and reference. */
const FFFilter ff_vf_fssim_vulkan = {
    .p.name         = "fssim_vulkan",
    .p.description  = NULL_IF_CONFIG_SMALL("Calculate SSIM (integer, Gaussian, block), PSNR and MS-SSIM between a reference and one or more streams of Vulkan frames."),
    .p.priv_class   = &fssim_vulkan_class,
    .p.flags        = AVFILTER_FLAG_DYNAMIC_INPUTS | AVFILTER_FLAG_SUPPORT_TIMELINE_INTERNAL |
                      AVFILTER_FLAG_METADATA_ONLY,
    .preinit        = fssim_vulkan_framesync_preinit,
    .init           = init,
    .uninit         = ff_fssim_filter_uninit,
    .activate       = ff_fssim_filter_activate,
    .priv_size      = sizeof(FSSIMFilter),
    .p.inputs       = NULL,
    FILTER_OUTPUTS(ff_fssim_filter_outputs),
    FILTER_QUERY_FUNC2(ff_fssim_filter_query_formats),
    .flags_internal = FF_FILTER_FLAG_HWFRAME_AWARE,
};
