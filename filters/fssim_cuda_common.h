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
 * fssim: what the CUDA filters (fssim_cuda, fssim3d on CUDA frames) share —
 * input checks on CUDA frames, the CUDA device and module, the driver
 * entry points FFmpeg's loader does not provide, and the pipelined readback
 * of scores.
 */
#ifndef AVFILTER_FSSIM_CUDA_COMMON_H
#define AVFILTER_FSSIM_CUDA_COMMON_H

#include "libavutil/cuda_check.h"
#include "libavutil/fifo.h"
#include "libavutil/hwcontext.h"
#include "libavutil/hwcontext_cuda_internal.h"
#include "libavfilter/avfilter.h"

#include "fssim_common.h"

/* Driver API entry points that compat/cuda/dynlink_loader.h does not load;
 * taken from the already loaded driver library. */
typedef struct FSSIMCudaExtra {
    CUresult (CUDAAPI *cuFuncSetAttribute)(CUfunction f, int attrib, int value);
    CUresult (CUDAAPI *cuMemAllocHost)(void **p, size_t bytes);
    CUresult (CUDAAPI *cuMemFreeHost)(void *p);
    CUresult (CUDAAPI *cuEventElapsedTime)(float *ms, CUevent start, CUevent end);
    void *lib;
} FSSIMCudaExtra;

typedef struct FSSIMCuda {
    AVBufferRef         *device_ref;
    AVCUDADeviceContext *hwctx;
    CudaFunctions       *cu;
    FSSIMCudaExtra       ext;
    CUcontext            cu_ctx;
    /* The frames' stream (the device's; often the legacy default stream,
     * which serialises with everything) and the filter's own non-blocking
     * stream, which waits on the frames' stream only through an event, so
     * that decoding never waits for the filter's kernels. */
    CUstream             frames_stream;
    CUstream             stream;
    CUmodule             module;
    /* A CUDA call failed (AVERROR_EXTERNAL, reported once): the context may
     * be broken and no result of GPU work queued since may be read, so
     * nothing is scored any more and the teardown stays quiet. */
    int                  failed;
} FSSIMCuda;

/** Record a failed check in c (see FSSIMCuda.failed); returns ret. */
int ff_fssim_cuda_checked(AVFilterContext *ctx, FSSIMCuda *c, int ret);

/* A driver call whose failure (logged with the CUDA error's name) fails
 * the filter. */
#define FSSIM_CHECK_CU(c, ctx, x) ff_fssim_cuda_checked(ctx, c, FF_CUDA_CHECK_DL(ctx, (c)->cu, x))
/* A teardown call: its failure is reported (once: the later calls would
 * repeat it), without failing anything. */
#define FSSIM_FREE_CU(c, ctx, x) \
    ((c)->failed ? (void)(x) : (void)((c)->failed = FF_CUDA_CHECK_DL(ctx, (c)->cu, x)))

/**
 * Check the two CUDA inputs of a filter (doc/formats.md, doc/errors.md): both carry CUDA frames
 * of the same device context, size and software format, a supported one.
 * On success *sw_format is the common software format.
 */
int ff_fssim_cuda_check_inputs(AVFilterContext *ctx, enum AVPixelFormat *sw_format);

/** Take the device of input 0, load the PTX module, find the extra driver
 *  entry points and create the filter's stream. */
int ff_fssim_cuda_init(AVFilterContext *ctx, FSSIMCuda *c,
                       const unsigned char *ptx, unsigned int ptx_len);

void ff_fssim_cuda_uninit(AVFilterContext *ctx, FSSIMCuda *c);

/**
 * Whether the work before event ev is done: 0 if it is, 1 if not yet
 * (only without wait), or AVERROR_EXTERNAL, logged with the CUDA error,
 * if it failed.  Call with the CUDA context pushed.
 */
int ff_fssim_cuda_event_done(AVFilterContext *ctx, FSSIMCuda *c, CUevent ev, int wait);

/** Allow a kernel more than 48 KiB of dynamic shared memory. */
int ff_fssim_cuda_set_smem(AVFilterContext *ctx, FSSIMCuda *c, CUfunction f, int bytes);

/*
 * Pipelined readback.  Each scored frame gets a slot: its kernels, on the
 * filter's stream after an event on the frames' stream, write slot_bytes of
 * results to device memory, copied asynchronously to pinned host memory,
 * followed by an event.  Frames wait in a FIFO and leave it, in order, once
 * their event has completed — or when more than `depth` frames are waiting
 * — so the CPU never waits on the frame it just queued.  A reference to
 * every frame the kernels read is held until then: nothing can reuse or
 * overwrite a frame buffer while the GPU still reads it.
 */
typedef struct FSSIMCudaPending {
    AVFrame *frame;  /* sent on once scored */
    AVFrame *held;   /* another frame the kernels read, or NULL */
    int      slot;   /* -1: frame passes through unscored */
} FSSIMCudaPending;

typedef struct FSSIMCudaQueue {
    int          depth;
    int          nb_slots;
    size_t       slot_bytes;
    CUdeviceptr  dev;          /* nb_slots * slot_bytes */
    uint8_t     *host;         /* pinned, nb_slots * slot_bytes */
    CUevent     *ready;        /* per slot, on the frames' stream */
    CUevent     *start, *done; /* per slot, on the filter's stream */
    int          next_slot;
    AVFifo      *fifo;         /* FSSIMCudaPending */
    double       gpu_ms;       /* sum of start..done over read slots */
    uint64_t     nb_timed;
} FSSIMCudaQueue;

int  ff_fssim_cuda_queue_init(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaQueue *q,
                              int depth, size_t slot_bytes);
void ff_fssim_cuda_queue_uninit(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaQueue *q);

/** The next free slot and its device result pointer; makes the filter's
 *  stream wait for the frames' stream.  Call with the CUDA context pushed. */
int ff_fssim_cuda_queue_begin(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaQueue *q,
                              CUdeviceptr *results);

/** Queue the slot's readback and the frame (slot from _begin, or -1);
 *  held (may be NULL) is freed with the frame's entry. */
int ff_fssim_cuda_queue_push(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaQueue *q,
                             AVFrame *frame, AVFrame *held, int slot);

/**
 * Take the oldest frame out if its results are ready (or, with wait, once
 * they are; or when more than depth frames wait).  Returns 1 with *p and
 * *results (NULL for an unscored frame) set, 0 if none can leave now.
 * Once a CUDA call has failed (here or anywhere else in the filter), a
 * scored frame never leaves: AVERROR_EXTERNAL, so that no score is read
 * from GPU work that may not have completed.
 */
int ff_fssim_cuda_queue_pop(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaQueue *q,
                            int wait, FSSIMCudaPending *p, const void **results);

#endif /* AVFILTER_FSSIM_CUDA_COMMON_H */
