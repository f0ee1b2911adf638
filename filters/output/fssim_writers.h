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
 * fssim: the process's register of the outputs' files (fssim_writers.c):
 * one writer per file in the process, and the files of a graph rebuilt
 * mid-stream, which the next instance of the same filter takes up.
 */
#ifndef AVFILTER_FSSIM_WRITERS_H
#define AVFILTER_FSSIM_WRITERS_H

#include "libavfilter/avfilter.h"

#include "fssim_output_state.h"

/**
 * Open the output's log and stats files (out->opts names them) and claim
 * them: a file that is already another of its own or of a live filter's
 * of this process is refused; a parked output whose files these are, of
 * the same filter, algorithms and log format, is taken up (its state and
 * files become out's).  Returns 1 when a parked output was taken up, 0,
 * or an error (logged), with the files closed.
 */
int  ff_fssim_writers_open(AVFilterContext *ctx, FSSIMOutput *out);

/** At close: park the output (mid-stream, park: its state and files; a
 *  probed copy, probed: the files it kept open) or forget it; out holds no
 *  file after it. */
void ff_fssim_writers_release(AVFilterContext *ctx, FSSIMOutput *out, int park, int probed);

/** Close every file of out. */
void ff_fssim_output_close_files(FSSIMOutput *out);

/** Free the pooled values of out. */
void ff_fssim_output_free_pools(FSSIMOutput *out);

#endif /* AVFILTER_FSSIM_WRITERS_H */
