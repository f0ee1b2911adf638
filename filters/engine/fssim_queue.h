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
 * fssim: the one queue of frames waiting for their scores (fssim_queue.c):
 * frames leave in order once their sums are back and their scores went to
 * the outputs; at EOF the queue empties; at close, frames still queued are
 * scored and logged, not sent on.
 */
#ifndef AVFILTER_FSSIM_QUEUE_H
#define AVFILTER_FSSIM_QUEUE_H

#include "libavutil/fifo.h"
#include "libavutil/frame.h"

#include "../output/fssim_output.h"
#include "fssim_backend.h"

typedef struct FSSIMPending {
    AVFrame *frame;   /* sent on once scored */
    int      slot;    /* -1: passes through unscored */
    unsigned present; /* bit k: rendition k had a frame to score */
} FSSIMPending;

typedef struct FSSIMQueue {
    AVFifo  *fifo;    /* FSSIMPending */
    int      depth;
    int      next_slot;
} FSSIMQueue;

int  ff_fssim_queue_init(FSSIMQueue *q, const FSSIMEngine *e);

/** The result slot of the next job: free, as at most depth frames wait. */
int  ff_fssim_queue_slot(FSSIMQueue *q, const FSSIMEngine *e);

/** Queue a frame behind the others (slot -1: unscored; present: the
 *  renditions scored in slot); it is freed on error. */
int  ff_fssim_queue_push(FSSIMQueue *q, AVFrame *frame, int slot, unsigned present);

/**
 * Send on, in order, the frames whose sums are back (after their scores
 * went to the outputs); with flush, all of them.  More than depth waiting:
 * wait for the oldest.  send == 0: score and log them but free the frames
 * (uninit: the output link may be gone).  A frame whose job failed is
 * dropped and the error returned.  Returns the number of frames that left.
 */
int  ff_fssim_queue_drain(FSSIMQueue *q, FSSIMEngine *e, FSSIMOutput *out, int flush,
                          int send);

/** Free the frames still queued (unscored) and the queue. */
void ff_fssim_queue_uninit(FSSIMQueue *q);

#endif /* AVFILTER_FSSIM_QUEUE_H */
