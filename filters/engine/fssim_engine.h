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
 * fssim: the one interface under every filter.  A backend (CPU, CUDA,
 * Vulkan) scores one reference frame against N >= 1 distorted frames and
 * returns per-plane sums, asynchronously; one queue sends the frames on in
 * order once their sums are back; one step turns sums into scores.
 *
 *   filter (vf_*.c)        options, pads, framesync event
 *     |  submit(slot, ref, dist[])      fssim3d: moments(ring slot, ...) per
 *     v                                          pair, submit3d(slot, window)
 *   backend (fssim_be_*.c) kernels / shaders / slice jobs, results in slot
 *     |  collect(slot, wait) -> FSSIMSums
 *     v
 *   queue (fssim_engine.c) in-order output, EOF flush, drain at uninit
 *     |  ff_fssim_scores() -> FSSIMScores
 *     v
 *   outputs (fssim_output.c) metadata, stats_file, logs (fssim_log.c),
 *                          pooling (fssim_pool.c), summary
 */
#ifndef AVFILTER_FSSIM_ENGINE_H
#define AVFILTER_FSSIM_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "libavutil/fifo.h"
#include "libavutil/frame.h"
#include "libavfilter/avfilter.h"

#include "../core/fssim_format.h"
#include "../core/fssim_options.h"
#include "../output/fssim_output.h"

/* ---- sums ---------------------------------------------------------------- */

/* One sum part: a double, or (FSSIM_PART_SSE) an exact 64-bit integer. */
typedef union FSSIMSum {
    double   d;
    uint64_t u;
} FSSIMSum;

/* What one job returns: per rendition, per component, the parts of
 * fssim_consts.h.  Only the parts of the requested algorithms are read. */
typedef struct FSSIMSums {
    FSSIMSum v[FSSIM_MAX_DIST][4][FSSIM_NB_PARTS];
} FSSIMSums;

/* ---- fssim3d's temporal window ------------------------------------------ */

#define FSSIM3D_MAX_DEPTH 63
/* ring slots beyond depth that a backend may ask for (ring_extra3d) */
#define FSSIM3D_MAX_EXTRA 1
#define FSSIM3D_MAX_RING  (FSSIM3D_MAX_DEPTH + FSSIM3D_MAX_EXTRA)

/**
 * The temporal window of the frame being scored.  Tap k is frame
 * t - depth/2 + k; it lies in ring slot (t - depth/2 + k) % ring_size.
 */
typedef struct FSSIM3DWindow {
    int64_t t;                      /* the scored frame, from the sequence's first */
    int    depth;
    int    slot[FSSIM3D_MAX_DEPTH]; /* ring slot of tap k; -1 where wt[k] == 0 */
    double wt[FSSIM3D_MAX_DEPTH];   /* temporal weights, summing to 1 */
} FSSIM3DWindow;

/* ---- the engine: what a backend is given ---------------------------------- */

struct FSSIMBackend;

typedef struct FSSIMEngine {
    AVFilterContext *ctx;
    const struct FSSIMBackend *backend;
    void *priv;                    /* the backend's state, backend->priv_size bytes */
    const FSSIMOptions *opts;      /* the filter's: algorithms, window, scaler, depth */

    FSSIMFormat fmt;               /* the reference: the planes scored */
    int nb_dist;                   /* distorted inputs (renditions), 1..FSSIM_MAX_DIST */
    FSSIMFormat dist[FSSIM_MAX_DIST];  /* each as it arrives */
    /* its size or format differs: resampled to fmt's planes and depth,
     * laid out as fmt's, before it is scored */
    int resample[FSSIM_MAX_DIST];
    /* the resampler's axes of each component of a resampled rendition, from
     * its plane's size to the reference's plane of that component:
     * [0] horizontal, [1] vertical (doc/algorithms.md#resampling) */
    FSSIMRefResampleAxis axis[FSSIM_MAX_DIST][4][2];

    int ring_size;                 /* fssim3d: ring slots, depth + backend->ring_extra3d */
    int ring_refused;              /* fssim3d: the ring is larger than the memory there is */
    int ring_memory;               /* fssim3d: the process's record of the memory its ring
                                      is reserved in, plus one; 0: none */
    size_t ring_reserved;          /* the bytes reserved there */
    int nb_slots;                  /* result slots, 0 .. nb_slots - 1 */

    /* sums -> scores: the divisor of each part of each component */
    double den[4][FSSIM_NB_PARTS];
} FSSIMEngine;

/**
 * A backend.  Every call gets the engine; errors are AVERROR codes, logged
 * by the backend with the API error that caused them.  Once a GPU call has
 * failed, a backend never returns sums again (collect fails): no score is
 * published from an incomplete job.
 */
typedef struct FSSIMBackend {
    const char *name;
    size_t      priv_size;
    /* frames that may wait for their results; a slot per frame plus one */
    int         queue_depth;
    /* fssim3d: ring slots beyond depth (at most FSSIM3D_MAX_EXTRA).  With
     * one more, frame t + 1's window is still whole in the ring when frame
     * t + depth/2 + 1's moments arrive, so a backend may hold frame t's
     * score job back and score both frames in one pass over the ring. */
    int         ring_extra3d;

    /**
     * Check the kind of frames of every input and their device (doc/errors.md),
     * naming the pad at fault, and give each input's software format
     * (sw_format[i]: the planes' layout).  At configuration, before init;
     * sizes and formats are checked against each other after it.
     */
    int  (*check_inputs)(FSSIMEngine *e, enum AVPixelFormat *sw_format);

    /** Allocate everything the scoring needs (nothing is allocated per
     *  frame).  e is complete; e->depth > 0: the 3-D operations below. */
    int  (*init)(FSSIMEngine *e, size_t *ring_bytes);

    /**
     * Start scoring ref against dist[0 .. nb_dist-1] into result slot slot.
     * The backend keeps what it needs of the frames until collect: the
     * caller may free them on return.
     */
    int  (*submit)(FSSIMEngine *e, int slot, const AVFrame *ref, AVFrame *const *dist);

    /**
     * The sums of slot: 1 with *sums set once they are there, 0 if not yet
     * (only without wait), or an error.  Releases what submit kept.
     */
    int  (*collect)(FSSIMEngine *e, int slot, int wait, FSSIMSums *sums);

    /** fssim3d: the spatial moments of one pair into ring slot ring_slot. */
    int  (*moments)(FSSIMEngine *e, int ring_slot, const AVFrame *ref, const AVFrame *dist);

    /** fssim3d: start scoring one frame from its window into result slot
     *  slot (the 3-D SSIM sums in part FSSIM_PART_FLOAT of rendition 0).
     *  The backend may hold the job back until the next frame's, or until
     *  collect waits for it or moments overwrites a slot it reads. */
    int  (*submit3d)(FSSIMEngine *e, int slot, const FSSIM3DWindow *win);

    /** Free everything; called even if init failed or never ran.  Waits
     *  for the GPU work still queued, without reading it. */
    void (*uninit)(FSSIMEngine *e);

    const char *storage3d;         /* how the 3-D ring holds the moments, for the log */
} FSSIMBackend;

/**
 * The bits a sample of f may hold as stored, which the GPU kernels' sums
 * must take: 16 where samples sit at the bottom of 16-bit words
 * (yuv420p10, gray12...), since a raw file may hold values above the
 * format's depth and every backend reads them as stored, as FFmpeg's ssim
 * and psnr do (doc/formats.md#sample-values); else the depth (8-bit words,
 * and MSB-aligned words such as P010's, whose value is the word shifted
 * down).
 */
static inline int ff_fssim_stored_bits(const FSSIMFormat *f)
{
    return f->comp[0].bytes == 2 && !f->comp[0].shift ? 16 : f->depth;
}

extern const FSSIMBackend ff_fssim_cpu_backend;
extern const FSSIMBackend ff_fssim_cuda_backend;
extern const FSSIMBackend ff_fssim_vulkan_backend;

/**
 * Set up e for the given backend and the configured formats (e->fmt,
 * e->dist[], e->nb_dist filled by the caller), compute the divisors and
 * the resampler's axes, allocate the backend's state and run its init.
 * fssim3d's ring is reported (its size, or that it did not fit).
 */
int  ff_fssim_engine_init(FSSIMEngine *e);
void ff_fssim_engine_uninit(FSSIMEngine *e);

/**
 * How a GPU resampler tiles the vertical axis a of a resampled component:
 * the most output rows per tile, of max_rows, max_rows / 2 ... 1, whose
 * source rows (the tile's band) all fit span rows of shared memory, and in
 * *bands (av_malloc'ed, 2 int32 per row of tiles) each band's first source
 * row (unclamped) and count.  0, with *bands NULL, where no band fits: each
 * output then reads its source rows itself.  AVERROR(ENOMEM) on failure.
 */
int  ff_fssim_resample_tiles(const FSSIMRefResampleAxis *a, int max_rows, int span,
                             int32_t **bands);

/**
 * fssim3d, at configuration: whether the ring, bytes, fits in the memory
 * memory ("host", or a name of the device) described as where ("host
 * memory", "device memory"), of which avail bytes are available now (< 0:
 * unknown).  The rings other fssim3d filters of the process hold there are
 * counted: the room is at most what was available when the first of them
 * was reserved, less all of them, since their pages may not show in avail
 * yet.  If the ring fits it is reserved there until ff_fssim_engine_uninit;
 * if not, says so with both sizes and returns AVERROR(ENOMEM): the ring is
 * refused before an allocation that would succeed only to be killed later.
 * FSSIM_MEMORY_AVAILABLE (bytes), a hook for tests, takes avail's place.
 */
int  ff_fssim_ring_fits(FSSIMEngine *e, size_t bytes, int64_t avail, const char *where,
                        const char *memory);

/** The memory the host can still give this process: its MemAvailable, or
 *  the room left under its cgroup's limits (v2 memory.max - memory.current,
 *  v1 memory.limit_in_bytes - memory.usage_in_bytes) where that is less;
 *  -1 where neither is known. */
int64_t ff_fssim_host_memory(void);

/** The one sums-to-scores step, for the renditions in present (bit k). */
void ff_fssim_scores(const FSSIMEngine *e, const FSSIMSums *sums, unsigned present,
                     FSSIMScores *sc);

/* ---- the pending-frame queue ------------------------------------------- */

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

#endif /* AVFILTER_FSSIM_ENGINE_H */
