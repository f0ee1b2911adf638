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
 * fssim: the outputs every filter shares -- frame metadata, stats_file,
 * the JSON/CSV log (fssim_log.c) with pooled values (fssim_pool.c), the
 * summary lines, and the logs of a graph rebuilt mid-stream.
 */
#ifndef AVFILTER_FSSIM_OUTPUT_H
#define AVFILTER_FSSIM_OUTPUT_H

#include <stdint.h>

#include "libavutil/frame.h"
#include "libavutil/rational.h"
#include "libavfilter/avfilter.h"

#include "fssim_file.h"
#include "../core/fssim_format.h"
#include "../core/fssim_options.h"
#include "../fssim_pair.h"
#include "fssim_pool.h"

/** Per-frame scores: score[rendition][algo][component], All at index
 *  nb_comps; psnr's MSE beside (its score is dB). */
typedef struct FSSIMScores {
    double score[FSSIM_MAX_DIST][FSSIM_NB_ALGOS][5];
    double mse[FSSIM_MAX_DIST][5];
    uint8_t scored[FSSIM_MAX_DIST];  /* the rendition had a frame */
} FSSIMScores;

/* Why a frame went out unscored: said when no frame at all was scored. */
enum FSSIMUnscored {
    FSSIM_UNSCORED_NO_REF,     /* no reference frame at its time */
    FSSIM_UNSCORED_NO_DIST,    /* no rendition had a frame */
    FSSIM_UNSCORED_DISABLED,   /* enable was false */
    FSSIM_UNSCORED_WINDOW,     /* fssim3d, tpadding=valid: no full temporal window */
    FSSIM_UNSCORED_SEGMENT,    /* before seg_start */
    FSSIM_NB_UNSCORED,
};

typedef struct FSSIMOutput {
    const char *key_prefix;   /* "lavfi.fssim." or "lavfi.fssim3d." */
    int         algos;        /* FSSIM_BIT() set: the scores written */
    /* One score, fssim3d's, in the slot of its one algorithm: named
     * "fssim3d" in the logs, without an algorithm in the metadata keys and
     * the summary line. */
    int         single_score;
    int         stats_algo;
    int         nb_dist;      /* 1, or a ladder's renditions */
    FSSIMFormat fmt;          /* the reference's */
    FSSIMFormat dist_fmt[FSSIM_MAX_DIST];  /* the renditions', as they arrive */
    AVRational  time_base;    /* of the frames scored: the output link's */
    FSSIMFile   stats[FSSIM_MAX_DIST];     /* fd -1: no stats_file */
    FSSIMFile   log;                       /* fd -1: no log_path */
    const FSSIMOptions *opts; /* the paths, for messages and the parked list */
    int         log_fmt;
    int         write_error;  /* a write failed: reported once, nothing more written */
    int         warned_range;
    int         resumed;      /* continues the log of an instance torn down mid-stream */
    int         configuring;  /* configuration was tried: not a copy only probed */
    int         complete;     /* closing after the inputs' end (or seg_end), not a stop */
    int         finished;     /* the inputs' end: the log was closed then */
    int         log_closed;   /* the log was closed short (or never started): it takes
                                 nothing more */
    int64_t     log_tail;     /* a regular file's JSON: where its closing tail starts;
                                 CSV: the end of the frame rows */
    uint64_t    nb_frames;
    uint64_t    first_n;      /* number of the first scored frame: fssim3d with
                                 tpadding=valid scores from frame depth/2 on */
    uint64_t    nb_scored[FSSIM_MAX_DIST];  /* frames scored per rendition */
    uint64_t    nb_unscored[FSSIM_NB_UNSCORED];
    /* each input's first timestamp, for the warning that they differ */
    int64_t     first_pts[FSSIM_MAX_DIST + 1];
    uint32_t    first_seen;   /* bit i: input i's is known */
    int         warned_start;
    FSSIMPairStats pairs;     /* what the pairing did with the frames */
    FSSIMPool   pool[FSSIM_MAX_DIST][FSSIM_NB_ALGOS][5];  /* per component, then All */
} FSSIMOutput;

/** A ladder's outputs name each rendition; two inputs keep the layout of
 *  FFmpeg's ssim. */
static inline int ff_fssim_is_ladder(const FSSIMOutput *out)
{
    return out->nb_dist > 1;
}

/** Whether a dB value is derived from algorithm algo's score (its row in
 *  fssim_algos.h): not for psnr, which is dB already and has its MSE beside. */
static inline int ff_fssim_has_db(int algo)
{
    return ff_fssim_algo(algo)->db;
}

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

/** -10 log10(1 - ssim), inf for 1. */
double ff_fssim_db(double ssim);

#endif /* AVFILTER_FSSIM_OUTPUT_H */
