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
 * fssim: the JSON and CSV logs (log_path, log_fmt) of an output.  Each
 * piece -- the header, a frame's record, the closing -- is composed in
 * memory and written with one write, so that a log cut short at any moment
 * holds whole frames (doc/outputs.md#logs-are-always-valid).  The writers
 * return the write's error; the output reports it.
 */
#ifndef AVFILTER_FSSIM_LOG_H
#define AVFILTER_FSSIM_LOG_H

#include "libavutil/frame.h"
#include "libavfilter/avfilter.h"

#include "fssim_output_state.h"

/** The header: the filter, its options and inputs (the renditions of a
 *  ladder), the columns; a regular file's JSON log gets its closing tail
 *  too, so that it is valid JSON from the start. */
int  ff_fssim_log_header(AVFilterContext *ctx, FSSIMOutput *out);

/** A log taken up from an instance torn down mid-stream: the pooled
 *  values it closed with are taken off, so that frames follow. */
int  ff_fssim_log_resume(FSSIMOutput *out);

/** A frame's record, numbered out->first_n + out->nb_frames; a regular
 *  file's JSON log in place of its closing tail, followed by the tail
 *  counting this frame.  A failed write leaves the log as it was. */
int  ff_fssim_log_frame(FSSIMOutput *out, const AVFrame *frame, const FSSIMScores *s);

/**
 * At close: the pooled values (JSON: after the frame count; CSV: the
 * pooled rows and the frame count), or, for a filter never configured, a
 * JSON log that says so.  After a write error, or where the pooled values
 * do not fit, the log is closed after its last whole frame, without them.
 */
int  ff_fssim_log_close(AVFilterContext *ctx, FSSIMOutput *out);

#endif /* AVFILTER_FSSIM_LOG_H */
