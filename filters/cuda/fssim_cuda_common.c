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
 * fssim: the CUDA plumbing of the CUDA backend.
 */
#if defined(_WIN32)
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/filters.h"

#include "fssim_cuda_common.h"
/* after fssim_cuda_common.h: it needs the CUDA types */
#include "libavfilter/cuda/load_helper.h"

/* driver API values that compat/cuda/dynlink_loader.h does not name */
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES_ 8
#define CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN_ 97
#define FSSIM_CU_MEMHOSTALLOC_DEVICEMAP 0x02

int ff_fssim_cuda_checked(AVFilterContext *ctx, FSSIMCuda *c, int ret)
{
    if (ret < 0 && !c->failed) {
        c->failed = ret;
        av_log(ctx, AV_LOG_ERROR, "%s stops at this CUDA error: no score is read back "
               "from the GPU after it, frames not scored yet stay unscored.\n",
               ctx->filter->name);
    }
    return ret;
}

int ff_fssim_cuda_event_done(AVFilterContext *ctx, FSSIMCuda *c, CUevent ev, int wait)
{
    CUresult r;

    if (wait)
        return FSSIM_CHECK_CU(c, ctx, c->cu->cuEventSynchronize(ev));
    r = c->cu->cuEventQuery(ev);
    if (r == CUDA_ERROR_NOT_READY)
        return 1;
    /* an error of the work before the event, as cuEventSynchronize's */
    return ff_fssim_cuda_checked(ctx, c, ff_cuda_check(ctx, c->cu->cuGetErrorName,
                                                       c->cu->cuGetErrorString, r,
                                                       "cuEventQuery(done)"));
}

static AVHWFramesContext *input_frames(AVFilterContext *ctx, int i)
{
    FilterLink *l = ff_filter_link(ctx->inputs[i]);
    return l->hw_frames_ctx ? (AVHWFramesContext *)l->hw_frames_ctx->data : NULL;
}

int ff_fssim_cuda_check_inputs(AVFilterContext *ctx, enum AVPixelFormat *sw_format)
{
    AVCUDADeviceContext *dev0 = NULL;

    for (int i = 0; i < ctx->nb_inputs; i++) {
        AVHWFramesContext *fr = input_frames(ctx, i);
        AVCUDADeviceContext *dev;

        if (!fr || fr->format != AV_PIX_FMT_CUDA) {
            av_log(ctx, AV_LOG_ERROR, "The %s input carries no CUDA frames. Decode with "
                   "-hwaccel cuda -hwaccel_output_format cuda, or add hwupload_cuda before "
                   "%s; for software frames use the fssim filter.\n",
                   ctx->input_pads[i].name, ctx->filter->name);
            return AVERROR(EINVAL);
        }
        dev = fr->device_ctx->hwctx;
        if (dev0 && dev->cuda_ctx != dev0->cuda_ctx) {
            av_log(ctx, AV_LOG_ERROR, "The %s and %s inputs are on different CUDA "
                   "devices or contexts. Put every input on one device: -hwaccel cuda on all "
                   "inputs shares one by default; to pick GPU 1, create it once with "
                   "-init_hw_device cuda=g:1 and give -hwaccel cuda -hwaccel_device g on each "
                   "input; for uploads use hwupload with -init_hw_device cuda=g:1 "
                   "-filter_hw_device g (each hwupload_cuda creates a context of its own).\n",
                   ctx->input_pads[0].name, ctx->input_pads[i].name);
            return AVERROR(EINVAL);
        }
        dev0 = dev;
        sw_format[i] = fr->sw_format;
    }
    return 0;
}

static void *load_symbol(void *lib, const char *name)
{
#if defined(_WIN32)
    return (void *)GetProcAddress((HMODULE)lib, name);
#else
    return dlsym(lib, name);
#endif
}

static int load_extra(AVFilterContext *ctx, FSSIMCudaExtra *e)
{
#if defined(_WIN32)
    e->lib = (void *)LoadLibraryA("nvcuda.dll");
#else
    e->lib = dlopen("libcuda.so.1", RTLD_NOW);
#endif
    if (e->lib) {
        e->cuFuncSetAttribute = load_symbol(e->lib, "cuFuncSetAttribute");
        e->cuMemAllocHost     = load_symbol(e->lib, "cuMemAllocHost_v2");
        e->cuMemHostAlloc     = load_symbol(e->lib, "cuMemHostAlloc");
        e->cuMemHostGetDevicePointer = load_symbol(e->lib, "cuMemHostGetDevicePointer_v2");
        e->cuMemFreeHost      = load_symbol(e->lib, "cuMemFreeHost");
        e->cuEventElapsedTime = load_symbol(e->lib, "cuEventElapsedTime");
        e->cuMemGetInfo       = load_symbol(e->lib, "cuMemGetInfo_v2");
    }
    if (!e->cuFuncSetAttribute || !e->cuMemAllocHost || !e->cuMemHostAlloc ||
        !e->cuMemHostGetDevicePointer || !e->cuMemFreeHost || !e->cuEventElapsedTime ||
        !e->cuMemGetInfo) {
        av_log(ctx, AV_LOG_ERROR, "The CUDA driver library lacks cuFuncSetAttribute, "
               "cuMemAllocHost, cuMemHostAlloc, cuMemHostGetDevicePointer, cuMemFreeHost, "
               "cuEventElapsedTime or cuMemGetInfo: update the NVIDIA driver.\n");
        return AVERROR(ENOSYS);
    }
    return 0;
}

/* The module's machine code when it holds the GPU's architecture: no
 * just-in-time compilation.  Else, or if the driver refuses it (a cubin
 * from a toolkit newer than the driver), the PTX, which the driver compiles
 * (and caches, unless CUDA_CACHE_DISABLE is set).  Called with the context
 * pushed. */
int ff_fssim_cuda_load_module(AVFilterContext *ctx, FSSIMCuda *c, const FSSIMCudaImage *img,
                              CUmodule *m, const char *what)
{
    CudaFunctions *cu = c->cu;
    int major = 0, minor = 0;

    cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                             c->hwctx->internal->cuda_device);
    cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                             c->hwctx->internal->cuda_device);
    if (img->sass_len) {
        const char *name = NULL;
        CUresult err = cu->cuModuleLoadData(m, img->sass);

        if (err == CUDA_SUCCESS) {
            av_log(ctx, AV_LOG_VERBOSE, "%s: machine code for sm_%d%d\n", what,
                   major, minor);
            return 0;
        }
        *m = NULL;
        cu->cuGetErrorName(err, &name);
        av_log(ctx, AV_LOG_VERBOSE, "%s: no machine code for sm_%d%d (%s); the "
               "driver compiles the PTX\n", what, major, minor, name ? name : "?");
    } else {
        av_log(ctx, AV_LOG_VERBOSE, "%s: built without machine code; the driver "
               "compiles the PTX for sm_%d%d\n", what, major, minor);
    }
    return ff_cuda_load_module(ctx, c->hwctx, m, img->ptx, img->ptx_len);
}

int ff_fssim_cuda_load_resampler(AVFilterContext *ctx, FSSIMCuda *c)
{
    FSSIM_CUDA_IMAGE_EXTERN(fssim_resample);
    const FSSIMCudaImage img = FSSIM_CUDA_IMAGE(fssim_resample);

    return ff_fssim_cuda_load_module(ctx, c, &img, &c->resampler, "CUDA resampler");
}

int ff_fssim_cuda_init(AVFilterContext *ctx, FSSIMCuda *c, const FSSIMCudaImage *img)
{
    AVHWFramesContext *fr = input_frames(ctx, 0);
    CUcontext dummy;
    int ret;

    c->device_ref = av_buffer_ref(fr->device_ref);
    if (!c->device_ref)
        return AVERROR(ENOMEM);
    c->hwctx  = ((AVHWDeviceContext *)c->device_ref->data)->hwctx;
    c->cu     = c->hwctx->internal->cuda_dl;
    c->cu_ctx = c->hwctx->cuda_ctx;
    c->frames_stream = c->hwctx->stream;

    ret = load_extra(ctx, &c->ext);
    if (ret < 0)
        return ret;

    ret = FSSIM_CHECK_CU(c, ctx, c->cu->cuCtxPushCurrent(c->cu_ctx));
    if (ret < 0)
        return ret;
    ret = ff_fssim_cuda_load_module(ctx, c, img, &c->module, "CUDA kernels");
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, c->cu->cuStreamCreate(&c->stream, CU_STREAM_NON_BLOCKING));
    FSSIM_CHECK_CU(c, ctx, c->cu->cuCtxPopCurrent(&dummy));
    return ret;
}

void ff_fssim_cuda_uninit(AVFilterContext *ctx, FSSIMCuda *c)
{
    if (c->module || c->resampler || c->stream) {
        CUcontext dummy;
        FSSIM_FREE_CU(c, ctx, c->cu->cuCtxPushCurrent(c->cu_ctx));
        if (c->stream)
            FSSIM_FREE_CU(c, ctx, c->cu->cuStreamDestroy(c->stream));
        if (c->module)
            FSSIM_FREE_CU(c, ctx, c->cu->cuModuleUnload(c->module));
        if (c->resampler)
            FSSIM_FREE_CU(c, ctx, c->cu->cuModuleUnload(c->resampler));
        FSSIM_FREE_CU(c, ctx, c->cu->cuCtxPopCurrent(&dummy));
        c->module = NULL;
        c->resampler = NULL;
        c->stream = NULL;
    }
    if (c->ext.lib) {
#if defined(_WIN32)
        FreeLibrary((HMODULE)c->ext.lib);
#else
        dlclose(c->ext.lib);
#endif
        c->ext.lib = NULL;
    }
    av_buffer_unref(&c->device_ref);
}

int ff_fssim_cuda_set_smem(AVFilterContext *ctx, FSSIMCuda *c, CUfunction f, int bytes,
                           const char *what)
{
    int max = 0;

    /* a GPU with less than the options need (Turing allows 64 KiB, float+int
     * takes 68) would fail the call below with a bare CUDA_ERROR_INVALID_VALUE */
    if (c->cu->cuDeviceGetAttribute(&max, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN_,
                                    c->hwctx->internal->cuda_device) == CUDA_SUCCESS &&
        max > 0 && bytes > max) {
        av_log(ctx, AV_LOG_ERROR, "The CUDA device offers %d bytes of shared memory per "
               "block; %s needs %d with these options.\n", max, what, bytes);
        return AVERROR(ENOSYS);
    }
    return FSSIM_CHECK_CU(c, ctx, c->ext.cuFuncSetAttribute(f,
                          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES_, bytes));
}

int ff_fssim_cuda_slots_init(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaSlots *q,
                             int nb_slots, size_t slot_bytes)
{
    CudaFunctions *cu = c->cu;
    CUcontext dummy;
    int ret;

    q->nb_slots   = nb_slots;
    q->slot_bytes = slot_bytes;
    q->ready = av_calloc(nb_slots, sizeof(*q->ready));
    q->start = av_calloc(nb_slots, sizeof(*q->start));
    q->done  = av_calloc(nb_slots, sizeof(*q->done));
    q->held  = av_calloc(nb_slots * FSSIM_MAX_INPUTS, sizeof(*q->held));
    if (!q->ready || !q->start || !q->done || !q->held)
        return AVERROR(ENOMEM);

    ret = FSSIM_CHECK_CU(c, ctx, cu->cuCtxPushCurrent(c->cu_ctx));
    if (ret < 0)
        return ret;
    ret = FSSIM_CHECK_CU(c, ctx, c->ext.cuMemHostAlloc((void **)&q->host, nb_slots * slot_bytes,
                                                       FSSIM_CU_MEMHOSTALLOC_DEVICEMAP));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, c->ext.cuMemHostGetDevicePointer(&q->dev, q->host, 0));
    for (int i = 0; i < nb_slots && ret >= 0; i++) {
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventCreate(&q->ready[i], CU_EVENT_DISABLE_TIMING));
        if (ret >= 0)
            ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventCreate(&q->start[i], CU_EVENT_DEFAULT));
        if (ret >= 0)
            ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventCreate(&q->done[i], CU_EVENT_DEFAULT));
    }
    FSSIM_CHECK_CU(c, ctx, cu->cuCtxPopCurrent(&dummy));
    return ret;
}

static void release_frames(FSSIMCudaSlots *q, int slot)
{
    for (int i = 0; i < FSSIM_MAX_INPUTS; i++)
        av_frame_free(&q->held[slot * FSSIM_MAX_INPUTS + i]);
}

void ff_fssim_cuda_slots_uninit(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaSlots *q)
{
    CUcontext dummy;

    if (c->cu && (q->dev || q->host || q->start)) {
        CudaFunctions *cu = c->cu;
        FSSIM_FREE_CU(c, ctx, cu->cuCtxPushCurrent(c->cu_ctx));
        /* nothing may still read the frames or write the buffers */
        if (c->stream)
            FSSIM_FREE_CU(c, ctx, cu->cuStreamSynchronize(c->stream));
        for (int i = 0; i < q->nb_slots; i++) {
            if (q->ready && q->ready[i])
                FSSIM_FREE_CU(c, ctx, cu->cuEventDestroy(q->ready[i]));
            if (q->start && q->start[i])
                FSSIM_FREE_CU(c, ctx, cu->cuEventDestroy(q->start[i]));
            if (q->done && q->done[i])
                FSSIM_FREE_CU(c, ctx, cu->cuEventDestroy(q->done[i]));
        }
        if (q->host)
            FSSIM_FREE_CU(c, ctx, c->ext.cuMemFreeHost(q->host));
        FSSIM_FREE_CU(c, ctx, cu->cuCtxPopCurrent(&dummy));
    }
    for (int i = 0; q->held && i < q->nb_slots; i++)
        release_frames(q, i);
    av_freep(&q->held);
    av_freep(&q->ready);
    av_freep(&q->start);
    av_freep(&q->done);
    q->dev  = 0;
    q->host = NULL;
}

int ff_fssim_cuda_slot_begin(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaSlots *q,
                             int slot, const AVFrame *const *frames, int nb_frames)
{
    AVFrame **held = &q->held[slot * FSSIM_MAX_INPUTS];
    int ret;

    /* the engine's queue collected this slot's previous job */
    release_frames(q, slot);
    for (int i = 0; i < nb_frames; i++)
        if (frames[i] && !(held[i] = av_frame_clone(frames[i])))
            return AVERROR(ENOMEM);
    ret = FSSIM_CHECK_CU(c, ctx, c->cu->cuEventRecord(q->ready[slot], c->frames_stream));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, c->cu->cuStreamWaitEvent(c->stream, q->ready[slot], 0));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, c->cu->cuEventRecord(q->start[slot], c->stream));
    return ret;
}

int ff_fssim_cuda_slot_end(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaSlots *q, int slot)
{
    return FSSIM_CHECK_CU(c, ctx, c->cu->cuEventRecord(q->done[slot], c->stream));
}

int ff_fssim_cuda_slot_collect(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaSlots *q,
                               int slot, int wait, const void **results)
{
    CUcontext dummy;
    float ms;
    int ret;

    /* after a failure the slot's results may never have arrived, or be
     * a previous frame's: a retry that succeeds proves nothing */
    if (c->failed)
        return c->failed;
    ret = FSSIM_CHECK_CU(c, ctx, c->cu->cuCtxPushCurrent(c->cu_ctx));
    if (ret < 0)
        return ret;
    ret = ff_fssim_cuda_event_done(ctx, c, q->done[slot], wait);
    if (ret == 0 && c->ext.cuEventElapsedTime(&ms, q->start[slot], q->done[slot]) == CUDA_SUCCESS) {
        q->gpu_ms += ms;
        q->nb_timed++;
    }
    FSSIM_CHECK_CU(c, ctx, c->cu->cuCtxPopCurrent(&dummy));
    if (ret != 0)
        return ret < 0 ? ret : 0;
    release_frames(q, slot);
    *results = q->host + slot * q->slot_bytes;
    return 1;
}
