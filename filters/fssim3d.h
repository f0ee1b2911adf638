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
 * fssim3d: spatio-temporal SSIM (doc/algorithms.md#fssim3d), the part every backend shares.
 *
 * The 3-D Gaussian window is separable in (x, y, t), so the 3-D local
 * moments of frame t are the temporally weighted sum of the 2-D (spatial)
 * moments of the depth frames around it.  The filter therefore splits into
 *
 *   - a backend, which owns a ring of `depth` moment sets and provides two
 *     operations: the spatial moments of one frame pair into a ring slot,
 *     and the score of one frame from the slots of its temporal window;
 *   - the backend-independent part in vf_fssim3d.c: framesync, the delay
 *     line of main frames waiting for their score, temporal weights, the
 *     flush at EOF, the outputs (metadata, stats file, logs).
 *
 * The software backend (double, the CPU reference) lives in vf_fssim3d.c;
 * a GPU backend implements FSSIM3DBackend on its own frames and moment
 * storage and is picked at configuration from the input format.
 */
#ifndef AVFILTER_FSSIM3D_H
#define AVFILTER_FSSIM3D_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "config_components.h"
#include "libavutil/frame.h"
#include "libavutil/pixfmt.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/framesync.h"

#include "fssim_common.h"

#define FSSIM3D_MAX_DEPTH 63

/**
 * The temporal window of the frame being scored.  Tap k is frame
 * t - depth/2 + k; it lies in ring slot (t - depth/2 + k) % depth.
 */
typedef struct FSSIM3DWindow {
    int    depth;
    int    slot[FSSIM3D_MAX_DEPTH]; /* ring slot of tap k; -1 where wt[k] == 0 */
    double wt[FSSIM3D_MAX_DEPTH];   /* temporal weights, summing to 1 */
} FSSIM3DWindow;

/**
 * What a backend provides.  All callbacks get the filter context; the
 * backend finds the options and the format in FSSIM3DContext and keeps its
 * own state behind FSSIM3DContext.backend_priv.
 */
typedef struct FSSIM3DBackend {
    const char *name;
    const char *storage;    /* how the ring holds the moments, for the log */

    /**
     * Check the two inputs (doc/formats.md, doc/errors.md) and give the software format whose
     * planes the frames hold.  Called once, at config, before init.
     */
    int (*check_inputs)(AVFilterContext *ctx, enum AVPixelFormat *sw_format);

    /**
     * Allocate the ring: depth moment sets, each holding the five spatial
     * moments (doc/algorithms.md#float: mean of a, of b, of a*a, b*b, a*b) of every
     * component at every scored position of s->fmt.  Set *bytes to the
     * memory it takes (logged and documented).  Called once, at config.
     */
    int (*init)(AVFilterContext *ctx, size_t *bytes);

    /**
     * Compute the spatial moments of one frame pair into ring slot `slot`.
     * ref is only valid during the call: an asynchronous backend must
     * finish reading it or take its own reference before returning.
     */
    int (*moments)(AVFilterContext *ctx, int slot, const AVFrame *main,
                   const AVFrame *ref);

    /**
     * The scores of one frame: for each component c, the mean over its
     * scored positions of the SSIM of the moments sum_k wt[k] * slot[k],
     * into sc->score[0][c].  The result must not depend on the number of
     * threads (fixed partition, fixed summation order).
     */
    int (*score)(AVFilterContext *ctx, const FSSIM3DWindow *win, FSSIMScores *sc);

    /** Free everything init allocated; called even if init failed or never ran. */
    void (*uninit)(AVFilterContext *ctx);
} FSSIM3DBackend;

typedef struct FSSIM3DContext {
    const AVClass *class;
    FFFrameSync fs;

    /* options */
    FSSIMOptions opts;      /* window, sigma, padding and the outputs */
    int    depth;           /* temporal window, odd */
    double tsigma;
    int    tpadding;        /* enum FSSIMRefTPadding */

    FSSIMOutput out;
    FSSIMFormat fmt;

    const FSSIM3DBackend *backend;
    void *backend_priv;

    /* The delay line.  Frame n (counted from the first frame that has a
     * reference) has its moments in ring slot n % depth and, until it is
     * sent on, its main frame in held[n % depth].  Frames nb_out..nb_in-1
     * are held; frame t is sent once frame t + depth/2 has arrived or the
     * sequence has ended. */
    AVFrame *held[FSSIM3D_MAX_DEPTH];
    int64_t  nb_in;         /* frame pairs whose moments went into the ring */
    int64_t  nb_out;        /* frames of the sequence sent on */
    int      ended;         /* the sequence is over; nb_in is its length */
    int      warned_late_ref;
} FSSIM3DContext;

/* The CUDA backend (fssim3d_cuda.c), built when FFmpeg compiles CUDA
 * kernels: it scores AV_PIX_FMT_CUDA inputs. */
#define FSSIM3D_CUDA (CONFIG_FFNVCODEC && (CONFIG_CUDA_NVCC || CONFIG_CUDA_LLVM))
#if FSSIM3D_CUDA
extern const FSSIM3DBackend ff_fssim3d_cuda_backend;
#endif

/* The Vulkan backend (fssim3d_vulkan.c), built with fssim_vulkan (both need
 * Vulkan and a GLSL compiler): it scores AV_PIX_FMT_VULKAN inputs. */
#define FSSIM3D_VULKAN (CONFIG_VULKAN && CONFIG_FSSIM_VULKAN_FILTER)
#if FSSIM3D_VULKAN
extern const FSSIM3DBackend ff_fssim3d_vulkan_backend;
#endif

#endif /* AVFILTER_FSSIM3D_H */
