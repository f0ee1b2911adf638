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
 * fssim: fssim3d's operations of the CUDA backend (fssim_be_cuda.c hands
 * them the engine when it scores fssim3d's frames), on AV_PIX_FMT_CUDA
 * frames.  Frame data never leaves the GPU; only the few doubles of each
 * frame's scores come back, through result slots.
 *
 * Per frame pair, fssim3d_moments (fssim3d.cuh) computes the spatial
 * moments (of the main input's resampled planes where it is resampled,
 * fssim_cuda_resample.c, 16-bit values) into the frame's slot of a ring in
 * device memory (the one full-size intermediate doc/algorithms.md#fssim3d
 * allows: 4 floats per scored position -- mu_a, mu_b, var_a + var_b, cov);
 * per scored frame, fssim3d_score combines the ring slots of its temporal
 * window in double and fssim3d_sum adds the partials per plane into the
 * job's slot.  Everything runs on the backend's own stream, ordered after
 * the frames' stream by an event.
 */
#include <inttypes.h>
#include <stdio.h>

#include "libavutil/avassert.h"
#include "libavutil/mem.h"

#include "../engine/fssim_backend.h"
#include "../engine/fssim_ring.h"
#include "fssim3d_cuda_params.h"
#include "fssim_cuda_common.h"
#include "fssim_cuda_resample.h"

/* What one scored frame sends to the GPU, per result slot. */
typedef struct CUDAWindows {
    FSSIM3DCudaWindow   *host;       /* pinned, nb_slots */
    CUdeviceptr          dev;        /* nb_slots */
} CUDAWindows;

struct CUDA3DBackend {
    FSSIMCuda      cuda;
    FSSIMCudaSlots slots;
    int            smem_bytes;
    CUfunction moments_func, score_func, sum_func;
    FSSIM3DCudaMomentParams mp[4];
    FSSIM3DCudaScoreParams  sp[4];
    FSSIM3DCudaSumParams    sum;
    int    grid3d[4][2];
    int    score_blocks[4];
    size_t comp_offset[4];              /* component records in a ring slot, bytes */
    size_t ring_slot_bytes;
    CUdeviceptr ring;                   /* depth * ring_slot_bytes */
    CUdeviceptr partials;               /* the score blocks' sums */
    FSSIMCudaResampler resampler;       /* the main input, where it is resampled */
    CUDAWindows win;
    CUevent  mready;                    /* on the frames' stream */
    /* per ring slot: its moments kernels' start and end, and the frames
     * they read, held until the end event has completed */
    CUevent  mstart[FSSIM3D_MAX_RING], mdone[FSSIM3D_MAX_RING];
    AVFrame *mframes[FSSIM3D_MAX_RING][2];
    double   moments_ms;
    uint64_t nb_moments;
};

/* Release the frames of ring slot k once its moments kernels are done
 * (wait: block until they are), and account their GPU time. */
static int release_ring_slot(FSSIMEngine *e, CUDA3DBackend *b, int k, int wait)
{
    FSSIMCuda *c = &b->cuda;
    float ms;
    int ret;

    if (!b->mframes[k][0])
        return 0;
    ret = ff_fssim_cuda_event_done(e->ctx, c, b->mdone[k], wait);
    if (ret != 0)
        return ret < 0 ? ret : 0;
    if (c->ext.cuEventElapsedTime(&ms, b->mstart[k], b->mdone[k]) == CUDA_SUCCESS) {
        b->moments_ms += ms;
        b->nb_moments++;
    }
    av_frame_free(&b->mframes[k][0]);
    av_frame_free(&b->mframes[k][1]);
    return 0;
}

int ff_fssim_cuda3d_init(FSSIMEngine *e, CUDA3DBackend **pb, size_t *bytes)
{
    FSSIM_CUDA_IMAGE_EXTERN(fssim3d);
    FSSIM_CUDA_IMAGE_EXTERN(fssim3d_any);
    const FSSIMCudaImage images[2] = { FSSIM_CUDA_IMAGE(fssim3d), FSSIM_CUDA_IMAGE(fssim3d_any) };
    AVFilterContext *ctx = e->ctx;
    const int r = e->opts->window / 2;
    const int any = e->opts->window != FSSIM_DEFAULT_WINDOW;
    const double L = (double)((1 << e->fmt.depth) - 1);
    CUDA3DBackend *b;
    FSSIMCuda *c;
    CudaFunctions *cu;
    size_t free_bytes = 0, total_bytes = 0;
    CUdevice device = 0;
    int nb_blocks = 0, ret;

    av_assert0(FSSIM3D_MAX_DEPTH <= FSSIM3D_CUDA_MAX_TAPS);
    b = *pb = av_mallocz(sizeof(*b));
    if (!b)
        return AVERROR(ENOMEM);
    c = &b->cuda;
    /* the ring's size first, so that it is reported even if a step fails */
    for (int i = 0; i < e->fmt.nb_comps; i++) {
        const FSSIMPlane *p = &e->fmt.comp[i];
        FSSIM3DCudaMomentParams *mp = &b->mp[i];
        int n;

        ff_fssim3d_cuda_fill_moment_params(mp, p->width, p->height, p->bytes, p->step, p->shift,
                                           e->opts->window, e->opts->sigma,
                                           e->opts->padding == FSSIM_REF_PAD_SAME);
        if (e->resample[0]) {
            const FSSIMPlane rp = ff_fssim_cuda_resampled_plane(e, i);
            mp->main_bytes = rp.bytes;
            mp->main_step  = rp.step;
            mp->main_shift = rp.shift;
        }
        /* ff_fssim_check_options() made sure every plane scores something */
        n = mp->out_w * mp->out_h;
        b->grid3d[i][0] = (mp->out_w + FSSIM_TILE - 1) / FSSIM_TILE;
        b->grid3d[i][1] = (mp->out_h + FSSIM_TILE - 1) / FSSIM_TILE;
        b->comp_offset[i] = b->ring_slot_bytes;
        b->ring_slot_bytes += FFALIGN((size_t)n * FSSIM3D_MOMENTS * sizeof(float),
                                      FSSIM_CUDA_ALIGN);
        b->score_blocks[i] = fssim3d_score_blocks(n);

        b->sp[i] = (FSSIM3DCudaScoreParams) {
            .c1 = FSSIM_FLOAT_C1(L),
            .c2 = FSSIM_FLOAT_C2(L),
            .n  = n,
            .part_offset = nb_blocks,
        };
        b->sum.offset[i] = nb_blocks;
        b->sum.count[i]  = b->score_blocks[i];
        nb_blocks += b->score_blocks[i];
    }
    *bytes = (size_t)e->ring_size * b->ring_slot_bytes;
    b->smem_bytes = fssim3d_smem_bytes(r);

    ret = ff_fssim_cuda_init(ctx, c, &images[any]);
    if (ret < 0)
        return ret;
    cu = c->cu;

    ret = ff_fssim_cuda_push(ctx, c);
    if (ret < 0)
        return ret;
    ret = FSSIM_CHECK_CU(c, ctx, cu->cuModuleGetFunction(&b->moments_func, c->module,
                                                         "fssim3d_moments"));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuModuleGetFunction(&b->score_func, c->module,
                                                             "fssim3d_score"));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuModuleGetFunction(&b->sum_func, c->module,
                                                             "fssim3d_sum"));
    if (ret >= 0)
        ret = ff_fssim_cuda_set_smem(ctx, c, b->moments_func, b->smem_bytes, "fssim3d");
    /* the ring is the one large allocation: refused where the device has
     * not that much free, and a failure there is "too little device
     * memory" (the caller suggests a smaller depth) */
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, c->ext.cuMemGetInfo(&free_bytes, &total_bytes));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuCtxGetDevice(&device));
    if (ret >= 0) {
        /* the rings of the process's other filters on this GPU count */
        char memory[32];
        snprintf(memory, sizeof(memory), "CUDA device %d", device);
        ret = ff_fssim_ring_fits(e, *bytes, free_bytes, "device memory", memory);
    }
    if (ret >= 0 && FSSIM_CHECK_CU(c, ctx, cu->cuMemAlloc(&b->ring, *bytes)) < 0)
        ret = AVERROR(ENOMEM);
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuMemAlloc(&b->partials,
                                                    (size_t)nb_blocks * sizeof(double)));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuMemAlloc(&b->win.dev, e->nb_slots *
                                                    sizeof(FSSIM3DCudaWindow)));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, c->ext.cuMemAllocHost((void **)&b->win.host, e->nb_slots *
                                                           sizeof(FSSIM3DCudaWindow)));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventCreate(&b->mready, CU_EVENT_DISABLE_TIMING));
    if (ret >= 0)
        ret = ff_fssim_cuda_resample_init(e, c, &b->resampler);
    for (int k = 0; k < e->ring_size && ret >= 0; k++) {
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventCreate(&b->mstart[k], CU_EVENT_DEFAULT));
        if (ret >= 0)
            ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventCreate(&b->mdone[k], CU_EVENT_DEFAULT));
    }
    ff_fssim_cuda_pop(ctx, c);
    if (ret < 0)
        return ret;

    for (int i = 0; i < e->fmt.nb_comps; i++) {
        b->sp[i].moments  = b->ring + b->comp_offset[i];
        b->sp[i].partials = b->partials;
    }
    b->sum.partials = b->partials;

    av_log(ctx, AV_LOG_VERBOSE, "CUDA: %s module, %d bytes of shared memory per %dx%d tile, "
           "%d score blocks, %zu bytes a ring slot\n", any ? "any-window" : "default-window",
           b->smem_bytes, FSSIM_TILE, FSSIM_TILE, nb_blocks, b->ring_slot_bytes);
    return ff_fssim_cuda_slots_init(ctx, c, &b->slots, e->nb_slots,
                                    e->fmt.nb_comps * sizeof(double));
}

int ff_fssim_cuda3d_moments(FSSIMEngine *e, CUDA3DBackend *b, int k, const AVFrame *ref,
                            const AVFrame *dist)
{
    FSSIMCuda *c = &b->cuda;
    CudaFunctions *cu = c->cu;
    int ret;

    if (c->failed)
        return c->failed;
    ret = ff_fssim_cuda_push(e->ctx, c);
    if (ret < 0)
        return ret;
    /* the slot's previous kernels ran long ago (its frame was scored since);
     * other slots' frames go back to their pools as soon as possible */
    for (int j = 0; j < e->ring_size && ret >= 0; j++)
        ret = release_ring_slot(e, b, j, j == k);
    if (ret < 0)
        goto end;

    b->mframes[k][0] = av_frame_clone(dist);
    b->mframes[k][1] = av_frame_clone(ref);
    if (!b->mframes[k][0] || !b->mframes[k][1]) {
        av_frame_free(&b->mframes[k][0]);
        av_frame_free(&b->mframes[k][1]);
        ret = AVERROR(ENOMEM);
        goto end;
    }

    /* after the frames' producer (decoder, upload), without waiting for
     * anything else on its stream */
    ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuEventRecord(b->mready, c->frames_stream));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuStreamWaitEvent(c->stream, b->mready, 0));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuEventRecord(b->mstart[k], c->stream));
    /* one resampled frame serves every pair: the stream orders a pair's
     * resampling after the previous pair's moments */
    if (ret >= 0 && e->resample[0])
        ret = ff_fssim_cuda_resample_launch(e, c, &b->resampler, 0, dist);
    for (int i = 0; i < e->fmt.nb_comps && ret >= 0; i++) {
        const FSSIMPlane *p = &e->fmt.comp[i];
        const FSSIMCudaResampled *rs = e->resample[0] ? &b->resampler.rs[0] : NULL;
        const FSSIMPlane rp = ff_fssim_cuda_resampled_plane(e, i);
        FSSIM3DCudaMomentParams *mp = &b->mp[i];
        void *args[] = { mp };

        mp->main_ptr   = rs ? rs->data[rp.plane] + rp.offset :
                         (CUdeviceptr)dist->data[p->plane] + p->offset;
        mp->ref_ptr    = (CUdeviceptr)ref->data[p->plane] + p->offset;
        mp->main_pitch = rs ? rs->pitch[rp.plane] : dist->linesize[p->plane];
        mp->ref_pitch  = ref->linesize[p->plane];
        mp->out        = b->ring + k * b->ring_slot_bytes + b->comp_offset[i];
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuLaunchKernel(b->moments_func,
                                                           b->grid3d[i][0], b->grid3d[i][1], 1,
                                                           FSSIM_TILE, FSSIM_THREADS / FSSIM_TILE,
                                                           1, b->smem_bytes, c->stream, args,
                                                           NULL));
    }
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuEventRecord(b->mdone[k], c->stream));
    if (ret < 0) {
        /* nothing may read the frames any more once we let go of them */
        FSSIM_FREE_CU(c, e->ctx, cu->cuStreamSynchronize(c->stream));
        av_frame_free(&b->mframes[k][0]);
        av_frame_free(&b->mframes[k][1]);
    }
end:
    ff_fssim_cuda_pop(e->ctx, c);
    return ret;
}

int ff_fssim_cuda3d_submit(FSSIMEngine *e, CUDA3DBackend *b, int slot, const FSSIM3DWindow *win)
{
    FSSIMCuda *c = &b->cuda;
    CudaFunctions *cu = c->cu;
    FSSIM3DCudaWindow *w = &b->win.host[slot];
    const CUdeviceptr wdev = b->win.dev + slot * sizeof(*w);
    const CUdeviceptr results = b->slots.dev + slot * b->slots.slot_bytes;
    int nb_taps = 0, ret;

    /* after a failure the ring may lack a frame's moments */
    if (c->failed)
        return c->failed;
    /* the taps of non-zero weight, in window order, as the reference sums
     * them; the slot's last copy from w completed before its sums did */
    for (int k = 0; k < win->depth; k++) {
        if (win->slot[k] < 0)
            continue;
        w->wt[nb_taps]          = win->wt[k];
        w->slot_offset[nb_taps] = (unsigned long long)win->slot[k] * b->ring_slot_bytes;
        nb_taps++;
    }

    ret = ff_fssim_cuda_push(e->ctx, c);
    if (ret < 0)
        return ret;
    ret = ff_fssim_cuda_slot_begin(e->ctx, c, &b->slots, slot, NULL, 0);
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuMemcpyHtoDAsync(wdev, w, sizeof(*w), c->stream));
    for (int i = 0; i < e->fmt.nb_comps && ret >= 0; i++) {
        void *args[] = { &b->sp[i] };
        b->sp[i].window  = wdev;
        b->sp[i].nb_taps = nb_taps;
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuLaunchKernel(b->score_func, b->score_blocks[i],
                                                           1, 1, FSSIM_THREADS, 1, 1, 0,
                                                           c->stream, args, NULL));
    }
    if (ret >= 0) {
        void *args[] = { &b->sum };
        b->sum.out = results;
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuLaunchKernel(b->sum_func, e->fmt.nb_comps, 1, 1,
                                                           FSSIM_THREADS, 1, 1, 0, c->stream,
                                                           args, NULL));
    }
    if (ret >= 0)
        ret = ff_fssim_cuda_slot_end(e->ctx, c, &b->slots, slot);
    ff_fssim_cuda_pop(e->ctx, c);
    return ret;
}

int ff_fssim_cuda3d_collect(FSSIMEngine *e, CUDA3DBackend *b, int slot, int wait,
                            FSSIMSums *sums)
{
    const double *r;
    int ret;

    ret = ff_fssim_cuda_slot_collect(e->ctx, &b->cuda, &b->slots, slot, wait,
                                     (const void **)&r);
    if (ret <= 0)
        return ret;
    for (int c = 0; c < e->fmt.nb_comps; c++)
        sums->v[0][c][FSSIM_PART_FLOAT].d = r[c];
    return 1;
}

void ff_fssim_cuda3d_uninit(FSSIMEngine *e, CUDA3DBackend **pb)
{
    AVFilterContext *ctx = e->ctx;
    CUDA3DBackend *b = *pb;
    FSSIMCuda *c;

    if (!b)
        return;
    c = &b->cuda;
    if (b->slots.nb_timed && b->nb_moments) {
        const double mus = 1000.0 * b->moments_ms / b->nb_moments;
        const double sus = 1000.0 * b->slots.gpu_ms / b->slots.nb_timed;
        av_log(ctx, AV_LOG_VERBOSE, "GPU time per frame pair: %.1f us over %"PRIu64" frames "
               "(spatial moments %.1f us, temporal window and score %.1f us)\n",
               mus + sus, b->slots.nb_timed, mus, sus);
    }
    /* waits for the stream: nothing reads the frames or writes the buffers
     * after this */
    ff_fssim_cuda_slots_uninit(ctx, c, &b->slots);
    if (c->cu) {
        CudaFunctions *cu = c->cu;
        FSSIM_FREE_CU(c, ctx, cu->cuCtxPushCurrent(c->cu_ctx));
        for (int k = 0; k < FSSIM3D_MAX_RING; k++) {
            ff_fssim_cuda_free_event(ctx, c, b->mstart[k]);
            ff_fssim_cuda_free_event(ctx, c, b->mdone[k]);
        }
        ff_fssim_cuda_free_event(ctx, c, b->mready);
        ff_fssim_cuda_free_mem(ctx, c, b->partials);
        ff_fssim_cuda_resample_uninit(ctx, c, &b->resampler);
        ff_fssim_cuda_free_mem(ctx, c, b->ring);
        ff_fssim_cuda_free_mem(ctx, c, b->win.dev);
        if (b->win.host)
            FSSIM_FREE_CU(c, ctx, c->ext.cuMemFreeHost(b->win.host));
        FSSIM_FREE_CU(c, ctx, cu->cuCtxPopCurrent(&(CUcontext){ NULL }));
    }
    for (int k = 0; k < FSSIM3D_MAX_RING; k++) {
        av_frame_free(&b->mframes[k][0]);
        av_frame_free(&b->mframes[k][1]);
    }
    ff_fssim_cuda_uninit(ctx, c);
    av_freep(pb);
}
