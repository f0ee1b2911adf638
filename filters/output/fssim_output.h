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
 * fssim: the outputs every filter shares, in the order a frame takes
 * through them (fssim_output.c): its stats_file lines (fssim_stats.c) and
 * its record in the JSON/CSV log (fssim_log.c), then its values pooled
 * (fssim_pool.c) and published as metadata; at the end the summary lines
 * (fssim_summary.c); the files of every output of the process, and of a
 * graph rebuilt mid-stream (fssim_writers.c).
 */
#ifndef AVFILTER_FSSIM_OUTPUT_H
#define AVFILTER_FSSIM_OUTPUT_H

#include "libavutil/frame.h"
#include "libavfilter/avfilter.h"

#include "../core/fssim_format.h"
#include "../core/fssim_options.h"
#include "fssim_output_state.h"

/**
 * Open the stats files and the log (at init, so a bad path fails before any
 * frame is decoded), for the scores of o->algos, or, with single_score,
 * fssim3d's one score.  A ladder (o->nb_inputs > 2) needs a stats_file
 * with %d, replaced by the rendition's number.
 *
 * When FFmpeg rebuilds a graph mid-stream (a size or format change), the
 * new instance continues the logs of the one torn down: ff_fssim_output_close
 * with ended == 0 parks the output's state (counts, pools, log position) in
 * a process-wide list keyed by the paths, and the next instance of the same
 * filter with the same paths and algorithms takes it up and appends.  Two
 * live filters writing one path is an error.
 */
int ff_fssim_output_open(AVFilterContext *ctx, FSSIMOutput *out, const FSSIMOptions *o,
                         const char *key_prefix, int single_score);

/** Record the formats (the reference's, then each rendition's) and write
 *  the log header (at config time).  A resumed log keeps its header: the
 *  new format must have the same components.  Fails, naming the path, if
 *  the header cannot be written. */
int ff_fssim_output_config(AVFilterContext *ctx, FSSIMOutput *out, const FSSIMFormat *f,
                           const FSSIMFormat *dist);

/** Attach a frame's scores as metadata, write them to the stats files and
 *  log, and pool them.  A write error fails (naming the path and the error);
 *  the frame's scores are then not published. */
int ff_fssim_output_frame(AVFilterContext *ctx, FSSIMOutput *out, AVFrame *frame,
                          const FSSIMScores *s);

/**
 * The inputs' end (or seg_end): the pooled values into the log now, while a
 * write error can still fail the run.  A run stopped by a signal
 * (ff_fssim_file_stopped()) is not complete: its inputs were ended early.
 * Returns a write error, already reported, or 0.
 */
int ff_fssim_output_end(AVFilterContext *ctx, FSSIMOutput *out);

/**
 * Summary lines, pooled values into the log (unless ff_fssim_output_end
 * wrote them), close the files.  ended: the
 * inputs reached their end; 0 when the instance is freed mid-stream (a
 * graph rebuilt, a run stopped), and then a new instance of the same
 * filter and paths in this process continues the logs.  Returns a write
 * error, already reported, or 0; at uninit only reporting is possible.
 */
int ff_fssim_output_close(AVFilterContext *ctx, FSSIMOutput *out, int ended);

/** A frame passed on unscored, and why. */
void ff_fssim_output_unscored(FSSIMOutput *out, enum FSSIMUnscored why);

#endif /* AVFILTER_FSSIM_OUTPUT_H */
