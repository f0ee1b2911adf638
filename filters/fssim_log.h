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
 * fssim: the JSON and CSV logs (log_path, log_fmt) of an output.  The
 * writers only write; the output checks the file after them.
 */
#ifndef AVFILTER_FSSIM_LOG_H
#define AVFILTER_FSSIM_LOG_H

#include "libavutil/frame.h"
#include "libavfilter/avfilter.h"

#include "fssim_output.h"

/** The header: the filter, its options and inputs (the renditions of a
 *  ladder), the columns; a seekable JSON log gets its trailer too, so that
 *  it is valid JSON from the start. */
void ff_fssim_log_header(AVFilterContext *ctx, FSSIMOutput *out);

/** A frame's record (JSON: in place of the trailer), numbered
 *  out->first_n + out->nb_frames. */
void ff_fssim_log_frame(FSSIMOutput *out, const AVFrame *frame, const FSSIMScores *s);

/** After the frame was pooled: a seekable JSON log's trailer, with the
 *  pooled values so far, follows it. */
void ff_fssim_log_pooled(FSSIMOutput *out);

/** At close: the pooled values (JSON: the trailer; CSV: the pooled rows
 *  and the frame count), or, for a filter never configured, a JSON log
 *  that says so. */
void ff_fssim_log_close(AVFilterContext *ctx, FSSIMOutput *out);

#endif /* AVFILTER_FSSIM_LOG_H */
