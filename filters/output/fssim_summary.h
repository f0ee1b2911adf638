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
 * fssim: what an output says when its filter closes (fssim_summary.c).
 */
#ifndef AVFILTER_FSSIM_SUMMARY_H
#define AVFILTER_FSSIM_SUMMARY_H

#include "libavfilter/avfilter.h"

#include "fssim_output_state.h"

/**
 * The summary lines of a configured output, and its warnings: why nothing
 * was scored, or, where a stop signal (stopped, from ff_fssim_file_stopped())
 * cut the run short, that its results cover the frames before it; the
 * frames that the pairing found without a pair or damaged.
 */
void ff_fssim_output_summary(AVFilterContext *ctx, FSSIMOutput *out, int stopped);

#endif /* AVFILTER_FSSIM_SUMMARY_H */
