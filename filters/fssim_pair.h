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
 * fssim: pairing frames by their timestamps (doc/options.md#pairing).
 *
 * The leading input's frames (the reference in a ladder, main in a pair
 * and in fssim3d) go out one by one.  Each owns the time interval of half
 * the reference's frame duration on either side of its timestamp; the
 * frame of another input nearest to it inside that interval is its pair.
 * The other frames of an input inside the interval, and the frames between
 * intervals, have no pair: they are counted, never scored against another
 * frame, and no frame is repeated for an input that has none.  Timestamps
 * are compared exactly in a common time base, so the containers' own
 * (Matroska's milliseconds, MP4's and MPEG-TS's 90 kHz, 1001 rates) pair
 * the frames a viewer sees together.
 */
#ifndef AVFILTER_FSSIM_PAIR_H
#define AVFILTER_FSSIM_PAIR_H

#include <stdint.h>

#include "libavutil/frame.h"
#include "libavutil/rational.h"
#include "libavfilter/avfilter.h"

#include "core/fssim_consts.h"
#include "output/fssim_output_state.h"

#define FSSIM_PAIR_MAX_INPUTS (FSSIM_MAX_DIST + 1)

/* Frames of one input held at once: those inside one interval and the
 * first beyond it, at most FSSIM_PAIR_QUEUE. */
#define FSSIM_PAIR_QUEUE 16

/* Frames of one input taken as soon as they arrive, before the pairing
 * needs them: the ffmpeg tool lets a decoder run only so far ahead of
 * what the filter has taken, so that frames left on the link would hold
 * the decoders back; decoded GPU frames hold decoder surfaces, so no more
 * are taken early than keep them going. */
#define FSSIM_PAIR_AHEAD 4

/**
 * One frame of the leading input with the frames paired with it, handed to
 * the filter.  out is the frame that goes out, owned by the handler; ref
 * and dist[] point to out or to frames the caller frees after the handler
 * returns (a handler that keeps one takes its own reference).  NULL where
 * an input has no frame at this time, or the timeline disabled the filter.
 */
/* Frames an input was done with, for the counts of doc/outputs.md#pairing. */
typedef struct FSSIMPairCount {
    unsigned seen[FSSIM_PAIR_MAX_INPUTS];      /* input i's frames */
    unsigned unpaired[FSSIM_PAIR_MAX_INPUTS];  /* of them dropped without a pair */
    unsigned damaged[FSSIM_PAIR_MAX_INPUTS];   /* of them flagged by the decoder */
} FSSIMPairCount;

typedef struct FSSIMEvent {
    AVFrame *out;
    AVFrame *ref;
    AVFrame *dist[FSSIM_MAX_DIST];
    int      nb_dist;           /* renditions with a frame */
    /* nearest pairing: what it did since the last event.  cur counts with
     * this event's frame; prev with the last event's (frames of its
     * interval after its pair was known, found only now) */
    int      counted;
    unsigned partner;           /* bit i: input i has a frame paired with out */
    FSSIMPairCount cur, prev;
} FSSIMEvent;

typedef struct FSSIMPairInput {
    AVFrame *q[FSSIM_PAIR_QUEUE];   /* oldest first */
    int64_t  t[FSSIM_PAIR_QUEUE];   /* their times in the common time base */
    uint8_t  disabled[FSSIM_PAIR_QUEUE];  /* input 0: the timeline off at the frame */
    int      nb;
    int      eof;
    int64_t  last;                  /* the time of the last frame taken */
} FSSIMPairInput;

typedef struct FSSIMPair {
    AVFilterContext *ctx;
    int        nb_in;
    int        lead;            /* the input whose frames go out */
    int        ref;             /* the reference: its frame duration sets the intervals */
    AVRational tb;              /* the common time base of the comparisons */
    AVRational dur;             /* the reference's frame duration, seconds; 0: from
                                   its frames (a variable rate) */
    AVRational frame_dur;       /* the duration in use */
    int        stop_first;      /* shortest=1 / eof_action=endall: end with the first input */
    int        head;            /* frames before the first interval are counted (a whole
                                   run, or a title's first segment); else the previous
                                   segment's */
    int        started;         /* an event was issued */
    int64_t    prev_t;          /* the last event's time */
    int64_t    nb_events;
    int64_t    final;           /* the event after which the run ends (a segment's
                                   last frame), -1: none; its pairs wait for the
                                   whole interval, so that it counts every frame
                                   of it */
    FSSIMPairCount cur, prev;   /* since the last event */
    int        eof;             /* the output has ended */
    int64_t    pts;             /* the last event's, in the leading input's time base */
    int        warned_order;
    int        disabled;        /* the timeline at the last event */
    int        align;           /* times from each input's first frame */
    int64_t    start[FSSIM_PAIR_MAX_INPUTS];   /* each input's first frame's time */
    unsigned   start_known;     /* bit i: start[i] is known (seen, or given) */
    int        checked_starts;
    FSSIMPairInput in[FSSIM_PAIR_MAX_INPUTS];
    int      (*on_event)(AVFilterContext *ctx, FSSIMEvent *ev);
    /** At the end: frames of other inputs after the last interval, counted on
     *  the last event (NULL: not counted). */
    void     (*on_tail)(AVFilterContext *ctx, const FSSIMEvent *tail);
} FSSIMPair;

/**
 * Configure the pairing once every input is configured: lead and ref are
 * input indices; stop_first ends the output when the first input ends;
 * head counts the frames before the first interval; final is the index of
 * the last event of a run that ends by itself (a segment), or -1; align
 * counts times from each input's first frame, whose times starts gives
 * (seconds, "N/D" or "N" per input, separated by '|': a segment's run,
 * whose first frames are not the title's), or NULL: the first frames seen.  Fails, naming the
 * pads, when the inputs' frame rates differ (no one-to-one pairing
 * exists) or no common time base exists.
 */
int  ff_fssim_pair_configure(FSSIMPair *p, AVFilterContext *ctx, int lead, int ref,
                             int stop_first, int head, int64_t final, int align,
                             const char *starts);

/**
 * The filter's activate under pairing=nearest: takes the frames the
 * pairing needs, issues at most one event, requests what is missing, and
 * ends the output (p->eof) once the leading input has ended and its last
 * frame is paired.
 */
int  ff_fssim_pair_activate(FSSIMPair *p);

/** Add an event's counts to st (nb_in inputs, the reference last; lead:
 *  the leading input): the pairs of its frame and its cur counts, or,
 *  with prev, its prev counts (to be added where the last event's frame
 *  was counted).  ev->out NULL: the frames after the last interval. */
void ff_fssim_pair_count(FSSIMPairStats *st, const FSSIMEvent *ev, int nb_in, int lead,
                         int prev);

/** Frees the frames still held. */
void ff_fssim_pair_uninit(FSSIMPair *p);

/** Whether a frame was flagged by its decoder. */
static inline int ff_fssim_frame_damaged(const AVFrame *f)
{
    return f->decode_error_flags || (f->flags & AV_FRAME_FLAG_CORRUPT);
}

#endif /* AVFILTER_FSSIM_PAIR_H */
