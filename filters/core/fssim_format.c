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
 * fssim: the formats the filters score (doc/formats.md) and the layout of
 * their components in a frame.
 */
#include <string.h>

#include "libavutil/common.h"
#include "libavutil/pixdesc.h"

#include "fssim_format.h"

const enum AVPixelFormat ff_fssim_sw_pix_fmts[] = {
    AV_PIX_FMT_GRAY8, AV_PIX_FMT_GRAY9, AV_PIX_FMT_GRAY10,
    AV_PIX_FMT_GRAY12, AV_PIX_FMT_GRAY14, AV_PIX_FMT_GRAY16,
    AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV444P,
    AV_PIX_FMT_YUV440P, AV_PIX_FMT_YUV411P, AV_PIX_FMT_YUV410P,
    AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P,
    AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P,
    AV_PIX_FMT_GBRP,
#define PF(suf) AV_PIX_FMT_YUV420##suf, AV_PIX_FMT_YUV422##suf, \
                AV_PIX_FMT_YUV444##suf, AV_PIX_FMT_GBR##suf
    PF(P9), PF(P10), PF(P12), PF(P14), PF(P16),
#undef PF
    AV_PIX_FMT_YUVA420P, AV_PIX_FMT_YUVA422P, AV_PIX_FMT_YUVA444P,
    AV_PIX_FMT_YUVA420P10, AV_PIX_FMT_YUVA444P10, AV_PIX_FMT_YUVA444P16,
    AV_PIX_FMT_GBRAP, AV_PIX_FMT_GBRAP10, AV_PIX_FMT_GBRAP12, AV_PIX_FMT_GBRAP16,
    AV_PIX_FMT_NV12, AV_PIX_FMT_NV21, AV_PIX_FMT_NV16, AV_PIX_FMT_NV24, AV_PIX_FMT_NV42,
    AV_PIX_FMT_P010, AV_PIX_FMT_P012, AV_PIX_FMT_P016,
    AV_PIX_FMT_P210, AV_PIX_FMT_P212, AV_PIX_FMT_P216,
    AV_PIX_FMT_P410, AV_PIX_FMT_P412, AV_PIX_FMT_P416,
    /* what NVDEC gives for 4:4:4 10/12-bit: MSB-aligned planar samples */
    AV_PIX_FMT_YUV444P10MSB, AV_PIX_FMT_YUV444P12MSB,
    AV_PIX_FMT_GBRP10MSB, AV_PIX_FMT_GBRP12MSB,
    AV_PIX_FMT_NONE
};

static int is_supported(enum AVPixelFormat fmt)
{
    for (int i = 0; ff_fssim_sw_pix_fmts[i] != AV_PIX_FMT_NONE; i++)
        if (ff_fssim_sw_pix_fmts[i] == fmt)
            return 1;
    return 0;
}

/* The filter that converts the inputs' frames where they are: a software
 * format filter, or the GPU's own scaler for hardware frames. */
static const char *convert_hint(const AVFilterContext *ctx)
{
    for (int i = 0; i < ctx->nb_inputs; i++) {
        if (!ctx->inputs[i])
            continue;
        if (ctx->inputs[i]->format == AV_PIX_FMT_CUDA)
            return "scale_cuda=format=nv12";
        if (ctx->inputs[i]->format == AV_PIX_FMT_VULKAN)
            return "scale_vulkan=format=nv12";
    }
    return "format=yuv420p";
}

int ff_fssim_format_init(AVFilterContext *ctx, FSSIMFormat *f,
                         enum AVPixelFormat sw_format, int width, int height)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(sw_format);
    const int rgb = desc && (desc->flags & AV_PIX_FMT_FLAG_RGB);
    double total = 0.0;

    if (!desc || !is_supported(sw_format)) {
        av_log(ctx, AV_LOG_ERROR, "Pixel format %s is not supported: fssim scores planar "
               "8-16-bit YUV, GRAY and GBR, and the semi-planar NV12/NV16/NV24/P0xx/P2xx/P4xx "
               "formats. Convert the inputs first, e.g. with %s.\n",
               desc ? desc->name : "(none)", convert_hint(ctx));
        return AVERROR(ENOSYS);
    }

    memset(f, 0, sizeof(*f));
    f->pix_fmt  = sw_format;
    f->width    = width;
    f->height   = height;
    f->depth    = desc->comp[0].depth;
    f->nb_comps = desc->nb_components;
    for (int i = 0; i < f->nb_comps; i++) {
        const AVComponentDescriptor *cd = &desc->comp[i];
        const int chroma = !rgb && (i == 1 || i == 2);
        FSSIMPlane *p = &f->comp[i];

        p->name   = f->nb_comps == 1 ? 'Y' : (rgb ? "RGBA" : "YUVA")[i];
        p->plane  = cd->plane;
        p->offset = cd->offset;
        p->bytes  = cd->depth + cd->shift > 8 ? 2 : 1;
        p->step   = cd->step / p->bytes;
        p->shift  = cd->shift;
        p->width  = chroma ? AV_CEIL_RSHIFT(width,  desc->log2_chroma_w) : width;
        p->height = chroma ? AV_CEIL_RSHIFT(height, desc->log2_chroma_h) : height;
        total += (double)p->width * p->height;
    }
    for (int i = 0; i < f->nb_comps; i++)
        f->weight[i] = (double)f->comp[i].width * f->comp[i].height / total;
    return 0;
}

int ff_fssim_format_compatible(enum AVPixelFormat a, enum AVPixelFormat b)
{
    const AVPixFmtDescriptor *da = av_pix_fmt_desc_get(a), *db = av_pix_fmt_desc_get(b);

    return da && db && da->nb_components == db->nb_components &&
           (da->flags & AV_PIX_FMT_FLAG_RGB) == (db->flags & AV_PIX_FMT_FLAG_RGB);
}

int ff_fssim_format_same_layout(const FSSIMFormat *d, const FSSIMFormat *f)
{
    if (d->nb_comps != f->nb_comps || d->depth != f->depth)
        return 0;
    for (int c = 0; c < f->nb_comps; c++) {
        const FSSIMPlane *a = &d->comp[c], *b = &f->comp[c];
        if (a->plane != b->plane || a->offset != b->offset || a->width != b->width ||
            a->height != b->height || a->bytes != b->bytes || a->step != b->step ||
            a->shift != b->shift)
            return 0;
    }
    return 1;
}

FSSIMRefPlane ff_fssim_ref_plane(const FSSIMFormat *f, int c,
                                 uint8_t *const data[], const int linesize[])
{
    const FSSIMPlane *p = &f->comp[c];
    return (FSSIMRefPlane) {
        .data     = data[p->plane] + p->offset,
        .linesize = linesize[p->plane],
        .width    = p->width,
        .height   = p->height,
        .bytes    = p->bytes,
        .step     = p->step,
        .shift    = p->shift,
    };
}
