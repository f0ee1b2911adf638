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
 * fssim: the stats_file of an output (fssim_stats.c): the path of each
 * rendition's (a ladder's stats_file is a template), and a frame's line
 * in the format of FFmpeg's ssim filter, or, for psnr, of its psnr filter.
 */
#ifndef AVFILTER_FSSIM_STATS_H
#define AVFILTER_FSSIM_STATS_H

#include "libavfilter/avfilter.h"

#include "fssim_output_state.h"

/**
 * The path of rendition k's stats file into *path (av_malloc'ed; NULL:
 * check the template only).  A ladder's stats_file has printf's meaning,
 * %d (once, with an optional zero flag and width) for the rendition's
 * number and %% for a %; a pair's is the path as it is.  Errors are logged.
 */
int ff_fssim_stats_path(AVFilterContext *ctx, const FSSIMOutput *out, int k, char **path);

/** Write rendition k's line of a frame's scores to its stats file, in one
 *  write; the write's error. */
int ff_fssim_stats_line(FSSIMOutput *out, int k, const FSSIMScores *s);

#endif /* AVFILTER_FSSIM_STATS_H */
