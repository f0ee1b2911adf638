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
 *   backend (cpu/, cuda/,  kernels / shaders / slice jobs, results in slot
 *            vulkan/)
 *     |  collect(slot, wait) -> FSSIMSums
 *     v
 *   queue (fssim_queue.c)  in-order output, EOF flush, drain at uninit
 *     |  ff_fssim_scores() (fssim_scores.c) -> FSSIMScores
 *     v
 *   outputs (output/)      metadata, stats_file, logs, pooling, summary
 *
 * This header is the contract: what a backend is given (FSSIMEngine) and
 * what it implements (FSSIMBackend).  The engine sets a backend up
 * (fssim_engine.h), and lends the backends what they share: fssim3d's
 * rings in the process's memories (fssim_ring.h, fssim_memory.h) and the
 * GPU resamplers' tiling (fssim_resample_tiles.h).
 */
#ifndef AVFILTER_FSSIM_BACKEND_H
#define AVFILTER_FSSIM_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "libavutil/frame.h"
#include "libavfilter/avfilter.h"

#include "../core/fssim_algos.h"
#include "../core/fssim_format.h"
#include "../core/fssim_options.h"

/* ---- sums ---------------------------------------------------------------- */

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

#endif /* AVFILTER_FSSIM_BACKEND_H */
