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
 * fssim: the pixel formats the filters score and where each component of
 * a frame lies (plane, offset, step, shift), for the backends and the
 * outputs.
 */
#ifndef AVFILTER_FSSIM_FORMAT_H
#define AVFILTER_FSSIM_FORMAT_H

#include <stdint.h>

#include "libavutil/pixfmt.h"
#include "libavfilter/avfilter.h"

#include "fssim_ref.h"

/* One scored component (Y, U, V, R, G, B or A) as it lies in an AVFrame. */
typedef struct FSSIMPlane {
    char name;
    int  plane;      /* AVFrame data[] index */
    int  offset;     /* bytes from the row start to the first sample */
    int  width, height;
    int  bytes;      /* container size: 1 or 2 */
    int  step;       /* containers between horizontally adjacent samples */
    int  shift;      /* right shift that yields the sample value */
} FSSIMPlane;

typedef struct FSSIMFormat {
    enum AVPixelFormat pix_fmt;   /* the software format */
    int    width, height;
    int    depth;
    int    nb_comps;
    FSSIMPlane comp[4];
    double weight[4];             /* share of the samples, for All */
} FSSIMFormat;

/* The software formats of doc/formats.md, AV_PIX_FMT_NONE terminated. */
extern const enum AVPixelFormat ff_fssim_sw_pix_fmts[];

/** Describe the components of sw_format at width x height.  Fails with a
 *  message naming the format if it is not one of ff_fssim_sw_pix_fmts. */
int ff_fssim_format_init(AVFilterContext *ctx, FSSIMFormat *f,
                         enum AVPixelFormat sw_format, int width, int height);

/**
 * Whether an input of format a can be scored against a reference of format
 * b: the same colour family and components (YUV, GBR or GRAY; alpha on
 * both or neither).  Bit depth, chroma subsampling and layout may differ:
 * the resampler brings them to the reference's (doc/formats.md).
 */
int ff_fssim_format_compatible(enum AVPixelFormat a, enum AVPixelFormat b);

/** Whether d lies in its frames as f does, component for component (plane,
 *  offset, container, step, shift), at the same sizes and depth: such an
 *  input is scored in place, any other is resampled
 *  (doc/algorithms.md#resampling). */
int ff_fssim_format_same_layout(const FSSIMFormat *d, const FSSIMFormat *f);

/** A component of a frame as the CPU reference reads it. */
FSSIMRefPlane ff_fssim_ref_plane(const FSSIMFormat *f, int c,
                                 uint8_t *const data[], const int linesize[]);

#endif /* AVFILTER_FSSIM_FORMAT_H */
