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
 * fssim: how the GPU resamplers (CUDA's, Vulkan's) cut a resampled
 * component into tiles whose source rows fit their shared memory
 * (fssim_resample_tiles.c).
 */
#ifndef AVFILTER_FSSIM_RESAMPLE_TILES_H
#define AVFILTER_FSSIM_RESAMPLE_TILES_H

#include <stdint.h>

#include "../core/fssim_ref.h"

/**
 * How a GPU resampler tiles the vertical axis a of a resampled component:
 * the most output rows per tile, of max_rows, max_rows / 2 ... 1, whose
 * source rows (the tile's band) all fit span rows of shared memory, and in
 * *bands (av_malloc'ed, 2 int32 per row of tiles) each band's first source
 * row (unclamped) and count.  0, with *bands NULL, where no band fits: each
 * output then reads its source rows itself.  AVERROR(ENOMEM) on failure.
 */
int  ff_fssim_resample_tiles(const FSSIMRefResampleAxis *a, int max_rows, int span,
                             int32_t **bands);

#endif /* AVFILTER_FSSIM_RESAMPLE_TILES_H */
