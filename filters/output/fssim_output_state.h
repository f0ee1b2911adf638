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
 * fssim: the state of a filter's outputs, which every file of output/
 * reads and writes: a frame's scores, the counts, the files, the pooled
 * values, and the record of what the pairing did.
 */
#ifndef AVFILTER_FSSIM_OUTPUT_STATE_H
#define AVFILTER_FSSIM_OUTPUT_STATE_H

#include <stdint.h>

#include "libavutil/rational.h"

#include "../core/fssim_consts.h"
#include "../core/fssim_format.h"
#include "../core/fssim_options.h"
#include "fssim_file.h"
#include "fssim_pool.h"

/** doc/outputs.md#pairing: what the pairing did with each input's frames
 *  in the scored range; input i is pad i (the reference last). */
typedef struct FSSIMPairStats {
    int      mode;                      /* enum FSSIMPairing */
    uint64_t frames[FSSIM_MAX_INPUTS];  /* frames of the input */
    uint64_t damaged[FSSIM_MAX_INPUTS]; /* of them flagged by the decoder */
    uint64_t paired[FSSIM_MAX_DIST];    /* rendition k's frames paired with a reference frame */
    uint64_t lacks[FSSIM_MAX_DIST];     /* reference frames without a frame of rendition k */
    uint64_t excess[FSSIM_MAX_DIST];    /* rendition k's frames without a reference frame */
} FSSIMPairStats;

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

/* The files of an output: the log (0), then the stats files. */
#define FSSIM_OUTPUT_FILES (FSSIM_MAX_DIST + 1)

static inline FSSIMFile *ff_fssim_output_file(FSSIMOutput *out, int i)
{
    return i ? &out->stats[i - 1] : &out->log;
}

/** A ladder's outputs name each rendition; two inputs keep the layout of
 *  FFmpeg's ssim. */
static inline int ff_fssim_is_ladder(const FSSIMOutput *out)
{
    return out->nb_dist > 1;
}

#endif /* AVFILTER_FSSIM_OUTPUT_STATE_H */
