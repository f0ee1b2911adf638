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
 * fssim: the checks of a filter's options at configuration
 * (fssim_check.c): against each other, and, through the table of
 * algorithms, against the planes they score.
 */
#ifndef AVFILTER_FSSIM_CHECK_H
#define AVFILTER_FSSIM_CHECK_H

#include "libavfilter/avfilter.h"

#include "fssim_format.h"
#include "fssim_options.h"

/** Check the options against each other and against the plane sizes. */
int ff_fssim_check_options(AVFilterContext *ctx, const FSSIMOptions *o,
                           const FSSIMFormat *f);

#endif /* AVFILTER_FSSIM_CHECK_H */
