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
 * fssim: the CUDA plumbing of the CUDA backend -- the device and module,
 * the driver entry points FFmpeg's loader does not provide, error
 * tracking, and the per-slot readback of results -- shared by the 2-D
 * scoring (fssim_be_cuda.c with fssim_cuda_resample.c, fssim_cuda_msssim.c
 * and fssim_cuda_vmaf.c) and fssim3d's ring (fssim_be_cuda3d.c), each of
 * which has its own device objects.  (The kernels' parameter blocks, which
 * the host and the device share, are fssim_cuda_params.h's.)
 */
#ifndef AVFILTER_FSSIM_CUDA_COMMON_H
#define AVFILTER_FSSIM_CUDA_COMMON_H

#include "libavutil/cuda_check.h"
#include "libavutil/fifo.h"
#include "libavutil/hwcontext.h"
#include "libavutil/hwcontext_cuda_internal.h"
#include "libavfilter/avfilter.h"

#include "../engine/fssim_backend.h"

/* Offsets into device buffers and the pitch of their planes: a multiple of
 * every alignment the kernels' loads need. */
#define FSSIM_CUDA_ALIGN 256

/* Driver API entry points that compat/cuda/dynlink_loader.h does not load;
 * taken from the already loaded driver library. */
typedef struct FSSIMCudaExtra {
    CUresult (CUDAAPI *cuFuncSetAttribute)(CUfunction f, int attrib, int value);
    CUresult (CUDAAPI *cuMemAllocHost)(void **p, size_t bytes);
    CUresult (CUDAAPI *cuMemHostAlloc)(void **p, size_t bytes, unsigned flags);
    CUresult (CUDAAPI *cuMemHostGetDevicePointer)(CUdeviceptr *d, void *p, unsigned flags);
    CUresult (CUDAAPI *cuMemFreeHost)(void *p);
    CUresult (CUDAAPI *cuEventElapsedTime)(float *ms, CUevent start, CUevent end);
    CUresult (CUDAAPI *cuMemGetInfo)(size_t *free, size_t *total);
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
    CUmodule             resampler;  /* fssim_resample, where an input is resampled */
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

/** Make c's context current on this thread, until ff_fssim_cuda_pop(). */
static inline int ff_fssim_cuda_push(AVFilterContext *ctx, FSSIMCuda *c)
{
    return FSSIM_CHECK_CU(c, ctx, c->cu->cuCtxPushCurrent(c->cu_ctx));
}

static inline void ff_fssim_cuda_pop(AVFilterContext *ctx, FSSIMCuda *c)
{
    CUcontext dummy;
    FSSIM_FREE_CU(c, ctx, c->cu->cuCtxPopCurrent(&dummy));
}

/* Teardown of an event or device buffer that init may not have made (0). */
static inline void ff_fssim_cuda_free_event(AVFilterContext *ctx, FSSIMCuda *c, CUevent ev)
{
    if (ev)
        FSSIM_FREE_CU(c, ctx, c->cu->cuEventDestroy(ev));
}

static inline void ff_fssim_cuda_free_mem(AVFilterContext *ctx, FSSIMCuda *c, CUdeviceptr p)
{
    if (p)
        FSSIM_FREE_CU(c, ctx, c->cu->cuMemFree(p));
}

/**
 * Check every input of a filter (doc/errors.md): CUDA frames, all of one
 * device context.  sw_format[i]: input i's software format.
 */
int ff_fssim_cuda_check_inputs(AVFilterContext *ctx, enum AVPixelFormat *sw_format);

/**
 * A kernel module as the build embeds it: machine code (SASS) for the GPU
 * architectures configure's --with-cuda-sass listed (sass_len 0 for none),
 * and the PTX, which the driver compiles for any other GPU.
 */
typedef struct FSSIMCudaImage {
    const unsigned char *sass, *ptx;
    unsigned int sass_len, ptx_len;
} FSSIMCudaImage;

/* Declare and name module NAME's images (ff_NAME_sass_data, ...). */
#define FSSIM_CUDA_IMAGE_EXTERN(name)                                            \
    extern const unsigned char ff_##name##_sass_data[], ff_##name##_ptx_data[]; \
    extern const unsigned int  ff_##name##_sass_len, ff_##name##_ptx_len
#define FSSIM_CUDA_IMAGE(name)                                                   \
    { ff_##name##_sass_data, ff_##name##_ptx_data, ff_##name##_sass_len,        \
      ff_##name##_ptx_len }

/** Take the device of input 0, load the kernel module (its machine code
 *  where it has the GPU's, else its PTX), find the extra driver entry
 *  points and create the filter's stream. */
int ff_fssim_cuda_init(AVFilterContext *ctx, FSSIMCuda *c, const FSSIMCudaImage *img);

/** Load img into *m, its machine code where it has the GPU's architecture,
 *  else its PTX; what names the kernels in the verbose log.  Call with the
 *  context pushed. */
int ff_fssim_cuda_load_module(AVFilterContext *ctx, FSSIMCuda *c, const FSSIMCudaImage *img,
                              CUmodule *m, const char *what);

/** Load the resampler's module (fssim_resample.cu) into
 *  c->resampler, as ff_fssim_cuda_init() loads the filter's.  Call with the
 *  context pushed. */
int ff_fssim_cuda_load_resampler(AVFilterContext *ctx, FSSIMCuda *c);

void ff_fssim_cuda_uninit(AVFilterContext *ctx, FSSIMCuda *c);

/**
 * Whether the work before event ev is done: 0 if it is, 1 if not yet
 * (only without wait), or AVERROR_EXTERNAL, logged with the CUDA error,
 * if it failed.  Call with the CUDA context pushed.
 */
int ff_fssim_cuda_event_done(AVFilterContext *ctx, FSSIMCuda *c, CUevent ev, int wait);

/** Allow a kernel more than 48 KiB of dynamic shared memory; AVERROR(ENOSYS),
 *  naming what (the filter or algorithm), if the device offers less than bytes. */
int ff_fssim_cuda_set_smem(AVFilterContext *ctx, FSSIMCuda *c, CUfunction f, int bytes,
                           const char *what);

/*
 * Result slots.  Each job gets a slot: its kernels, on the filter's stream
 * after an event on the frames' stream, write slot_bytes of results
 * straight to pinned host memory mapped into the device's address space,
 * followed by an event, with no copy from device memory after the kernels
 * (doc/performance.md#cuda-the-tile-and-frame-reductions).  A reference to
 * every frame the kernels read is held until then: nothing can reuse or
 * overwrite a frame buffer while the GPU still reads it.
 */
typedef struct FSSIMCudaSlots {
    int          nb_slots;
    size_t       slot_bytes;
    CUdeviceptr  dev;          /* host's address on the device */
    uint8_t     *host;         /* pinned and mapped, nb_slots * slot_bytes */
    CUevent     *ready;        /* per slot, on the frames' stream */
    CUevent     *start, *done; /* per slot, on the filter's stream */
    AVFrame    **held;         /* per slot, FSSIM_MAX_INPUTS frames */
    double       gpu_ms;       /* sum of start..done over read slots */
    uint64_t     nb_timed;
} FSSIMCudaSlots;

int  ff_fssim_cuda_slots_init(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaSlots *q,
                              int nb_slots, size_t slot_bytes);
void ff_fssim_cuda_slots_uninit(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaSlots *q);

/** Start slot's job: hold the frames (NULLs skipped), make the filter's
 *  stream wait for the frames' stream.  Call with the context pushed. */
int  ff_fssim_cuda_slot_begin(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaSlots *q,
                              int slot, const AVFrame *const *frames, int nb_frames);

/** Queue the event that marks the slot's results written, after its
 *  kernels.  Call with the context pushed. */
int  ff_fssim_cuda_slot_end(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaSlots *q, int slot);

/**
 * The slot's results: 1 with *results pointing at them (pinned memory),
 * 0 if not there yet (only without wait), or AVERROR_EXTERNAL once any
 * CUDA call of the filter has failed: no result is read from GPU work that
 * may not have completed.  Releases the slot's frames.
 */
int  ff_fssim_cuda_slot_collect(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaSlots *q,
                                int slot, int wait, const void **results);

/* ---- fssim3d -------------------------------------------------------------- */

/* fssim3d's ring of moments and temporal pass (fssim_be_cuda3d.c): the
 * backend's operations when the engine has a depth. */
typedef struct CUDA3DBackend CUDA3DBackend;

int  ff_fssim_cuda3d_init(FSSIMEngine *e, CUDA3DBackend **b, size_t *ring_bytes);
int  ff_fssim_cuda3d_moments(FSSIMEngine *e, CUDA3DBackend *b, int ring_slot,
                             const AVFrame *ref, const AVFrame *dist);
int  ff_fssim_cuda3d_submit(FSSIMEngine *e, CUDA3DBackend *b, int slot,
                            const FSSIM3DWindow *win);
int  ff_fssim_cuda3d_collect(FSSIMEngine *e, CUDA3DBackend *b, int slot, int wait,
                             FSSIMSums *sums);
/** Free everything (b NULL: nothing); waits for the GPU work still queued. */
void ff_fssim_cuda3d_uninit(FSSIMEngine *e, CUDA3DBackend **b);

#endif /* AVFILTER_FSSIM_CUDA_COMMON_H */
