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
 * fssim3d on CUDA frames: the CUDA backend of fssim3d (see fssim3d.h), for
 * AV_PIX_FMT_CUDA inputs from NVDEC, hwupload or scale_cuda.  Frame data
 * never leaves the GPU; only the few doubles of each frame's scores come
 * back.
 *
 * Per frame pair, one kernel per component (fssim3d_moments) computes the
 * spatial moments into the frame's ring slot in device memory: per scored
 * position, mu_a, mu_b, var_a + var_b and cov as fp32 (16 bytes), the ring
 * holding depth slots.  Per scored frame, fssim3d_score combines the slots
 * of its temporal window in double and reduces the 3-D SSIM to per-block
 * partial sums, fssim3d_sum adds them per component in a fixed order, and
 * the sums are copied to pinned host memory.
 *
 * Everything runs on the filter's own non-blocking stream, ordered after the
 * frames' stream (often the legacy default stream, which would otherwise
 * serialise the kernels with the decoder) by an event.  A reference to the
 * frames a slot's kernels read is held until they have run.
 *
 * Scores are read back when the framework asks for them, which is when the
 * frame goes out: frame t is scored once frame t + depth/2 has arrived, so
 * the wait covers that frame's moments and the temporal pass (well under a
 * millisecond at 2160p on an H200), while decoding goes on in its own
 * threads.
 */
#include <inttypes.h>
#include <stddef.h>

#include "libavutil/avassert.h"
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/filters.h"

#include "fssim3d.h"
#include "fssim3d_cuda.h"
#include "fssim_common.h"
#include "fssim_cuda_common.h"

/* What one scored frame exchanges with the host, in pinned memory and in
 * device memory alike: its window in, its per-component sums out. */
typedef struct CUDAScoreIO {
    FSSIM3DCudaWindow window;
    double sums[4];
} CUDAScoreIO;

typedef struct CUDABackend {
    FSSIMCuda cuda;
    CUfunction moments_func, score_func, sum_func;
    int smem_bytes;

    FSSIM3DCudaMomentParams mp[4];    /* per component */
    FSSIM3DCudaScoreParams  sp[4];
    FSSIM3DCudaSumParams    sum;
    int    grid[4][2];                /* spatial pass, per component */
    int    score_blocks[4];
    size_t comp_offset[4];            /* component records in a slot, bytes */
    size_t slot_bytes;

    CUdeviceptr  ring;                /* depth * slot_bytes */
    CUdeviceptr  partials;            /* double per score block */
    CUdeviceptr  io_dev;              /* CUDAScoreIO */
    CUDAScoreIO *io;                  /* pinned */

    CUevent ready;                    /* on the frames' stream */
    /* per ring slot: its moments kernels' start and end, and the frames
     * they read, held until the end event has completed */
    CUevent  mstart[FSSIM3D_MAX_DEPTH], mdone[FSSIM3D_MAX_DEPTH];
    AVFrame *main[FSSIM3D_MAX_DEPTH], *ref[FSSIM3D_MAX_DEPTH];
    CUevent  sstart, sdone;

    /* GPU time, from the events above */
    double   moments_ms, score_ms;
    uint64_t nb_moments, nb_scores;
} CUDABackend;

#define OFFSET_ALIGN 256

static int push(AVFilterContext *ctx, FSSIMCuda *c)
{
    return FSSIM_CHECK_CU(c, ctx, c->cu->cuCtxPushCurrent(c->cu_ctx));
}

static void pop(AVFilterContext *ctx, FSSIMCuda *c)
{
    CUcontext dummy;
    FSSIM_FREE_CU(c, ctx, c->cu->cuCtxPopCurrent(&dummy));
}

/* doc/formats.md, doc/errors.md: both inputs on the GPU, in one CUDA context, of one size and
 * supported format.  fssim3d takes software frames too, so a pair of one
 * CUDA and one software input gets its own message. */
static int cuda_check_inputs(AVFilterContext *ctx, enum AVPixelFormat *sw_format)
{
    static const char *const pad[2] = { "main", "reference" };
    const int cuda[2] = { ctx->inputs[0]->format == AV_PIX_FMT_CUDA,
                          ctx->inputs[1]->format == AV_PIX_FMT_CUDA };

    if (cuda[0] != cuda[1]) {
        const int sw = cuda[0];
        av_log(ctx, AV_LOG_ERROR, "The %s input carries CUDA frames but the %s input "
               "software frames (%s): fssim3d scores both on the GPU or both on the CPU. "
               "Put the %s input on the same CUDA device (-hwaccel cuda "
               "-hwaccel_output_format cuda, or hwupload with -init_hw_device cuda=gpu "
               "-filter_hw_device gpu), or bring both to system memory (hwdownload,format=...).\n",
               pad[!sw], pad[sw], av_get_pix_fmt_name(ctx->inputs[sw]->format), pad[sw]);
        return AVERROR(EINVAL);
    }
    return ff_fssim_cuda_check_inputs(ctx, sw_format);
}

/* Release the frames of ring slot k once its moments kernels are done
 * (wait: block until they are), and account their GPU time. */
static int release_slot(AVFilterContext *ctx, CUDABackend *b, int k, int wait)
{
    FSSIMCuda *c = &b->cuda;
    float ms;
    int ret;

    if (!b->main[k])
        return 0;
    ret = ff_fssim_cuda_event_done(ctx, c, b->mdone[k], wait);
    if (ret != 0)
        return ret < 0 ? ret : 0;
    if (c->ext.cuEventElapsedTime(&ms, b->mstart[k], b->mdone[k]) == CUDA_SUCCESS) {
        b->moments_ms += ms;
        b->nb_moments++;
    }
    av_frame_free(&b->main[k]);
    av_frame_free(&b->ref[k]);
    return 0;
}

static int cuda_init(AVFilterContext *ctx, size_t *bytes)
{
    extern const unsigned char ff_fssim3d_ptx_data[], ff_fssim3d_any_ptx_data[];
    extern const unsigned int  ff_fssim3d_ptx_len, ff_fssim3d_any_ptx_len;
    FSSIM3DContext *s = ctx->priv;
    const int r = s->opts.window / 2;
    const int any = r != FSSIM_DEFAULT_RADIUS;
    const double L = (double)((1 << s->fmt.depth) - 1);
    CUDABackend *b;
    FSSIMCuda *c;
    CudaFunctions *cu;
    int nb_blocks = 0, ret;

    av_assert0(FSSIM3D_MAX_DEPTH <= FSSIM3D_CUDA_MAX_TAPS);
    b = s->backend_priv = av_mallocz(sizeof(*b));
    if (!b)
        return AVERROR(ENOMEM);
    c = &b->cuda;

    /* the ring's size first, so that it is reported even if a step fails */
    *bytes = 0;
    for (int i = 0; i < s->fmt.nb_comps; i++) {
        const FSSIMPlane *p = &s->fmt.comp[i];
        FSSIM3DCudaMomentParams *mp = &b->mp[i];
        int n;

        fssim3d_cuda_fill_moment_params(mp, p->width, p->height, p->bytes, p->step, p->shift,
                                        s->opts.window, s->opts.sigma,
                                        s->opts.padding == FSSIM_REF_PAD_SAME);
        /* ff_fssim_check_options() made sure every plane scores something */
        n = mp->out_w * mp->out_h;
        b->grid[i][0] = (mp->out_w + FSSIM_TILE - 1) / FSSIM_TILE;
        b->grid[i][1] = (mp->out_h + FSSIM_TILE - 1) / FSSIM_TILE;
        b->comp_offset[i] = b->slot_bytes;
        b->slot_bytes += FFALIGN((size_t)n * FSSIM3D_MOMENTS * sizeof(float), OFFSET_ALIGN);
        b->score_blocks[i] = fssim3d_score_blocks(n);

        b->sp[i] = (FSSIM3DCudaScoreParams) {
            .c1 = (0.01 * L) * (0.01 * L),
            .c2 = (0.03 * L) * (0.03 * L),
            .n  = n,
            .part_offset = nb_blocks,
        };
        b->sum.offset[i] = nb_blocks;
        b->sum.count[i]  = b->score_blocks[i];
        nb_blocks += b->score_blocks[i];
    }
    *bytes = (size_t)s->depth * b->slot_bytes;
    b->smem_bytes = fssim3d_smem_bytes(r);

    /* only the module needed: the driver compiles PTX slowly */
    ret = ff_fssim_cuda_init(ctx, c, any ? ff_fssim3d_any_ptx_data : ff_fssim3d_ptx_data,
                             any ? ff_fssim3d_any_ptx_len : ff_fssim3d_ptx_len);
    if (ret < 0)
        return ret;
    cu = c->cu;

    ret = push(ctx, c);
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
        ret = ff_fssim_cuda_set_smem(ctx, c, b->moments_func, b->smem_bytes);
    /* the ring is the one large allocation: a failure there is "too
     * little device memory" (the caller suggests a smaller depth) */
    if (ret >= 0 && FSSIM_CHECK_CU(c, ctx, cu->cuMemAlloc(&b->ring, *bytes)) < 0)
        ret = AVERROR(ENOMEM);
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuMemAlloc(&b->partials,
                                                    (size_t)nb_blocks * sizeof(double)));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuMemAlloc(&b->io_dev, sizeof(CUDAScoreIO)));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, c->ext.cuMemAllocHost((void **)&b->io, sizeof(CUDAScoreIO)));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventCreate(&b->ready, CU_EVENT_DISABLE_TIMING));
    for (int k = 0; k < s->depth && ret >= 0; k++) {
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventCreate(&b->mstart[k], CU_EVENT_DEFAULT));
        if (ret >= 0)
            ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventCreate(&b->mdone[k], CU_EVENT_DEFAULT));
    }
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventCreate(&b->sstart, CU_EVENT_DEFAULT));
    /* the host waits on this one for every scored frame: let it sleep */
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventCreate(&b->sdone, CU_EVENT_BLOCKING_SYNC));
    pop(ctx, c);
    if (ret < 0)
        return ret;

    for (int i = 0; i < s->fmt.nb_comps; i++) {
        b->sp[i].window   = b->io_dev + offsetof(CUDAScoreIO, window);
        b->sp[i].moments  = b->ring + b->comp_offset[i];
        b->sp[i].partials = b->partials;
    }
    b->sum.partials = b->partials;
    b->sum.out      = b->io_dev + offsetof(CUDAScoreIO, sums);

    av_log(ctx, AV_LOG_VERBOSE, "CUDA: %s module, %d bytes of shared memory per %dx%d tile, "
           "%d score blocks, %zu bytes a ring slot\n", any ? "any-window" : "default-window",
           b->smem_bytes, FSSIM_TILE, FSSIM_TILE, nb_blocks, b->slot_bytes);
    return 0;
}

static int cuda_moments(AVFilterContext *ctx, int slot, const AVFrame *main,
                        const AVFrame *ref)
{
    FSSIM3DContext *s = ctx->priv;
    CUDABackend *b = s->backend_priv;
    FSSIMCuda *c = &b->cuda;
    CudaFunctions *cu = c->cu;
    int ret;

    /* a failed context runs nothing reliably any more */
    if (c->failed)
        return c->failed;
    ret = push(ctx, c);
    if (ret < 0)
        return ret;
    /* the slot's previous kernels ran long ago (its frame was scored since);
     * other slots' frames go back to their pools as soon as possible */
    for (int k = 0; k < s->depth && ret >= 0; k++)
        ret = release_slot(ctx, b, k, k == slot);
    if (ret < 0)
        goto end;

    b->main[slot] = av_frame_clone(main);
    b->ref[slot]  = av_frame_clone(ref);
    if (!b->main[slot] || !b->ref[slot]) {
        av_frame_free(&b->main[slot]);
        av_frame_free(&b->ref[slot]);
        ret = AVERROR(ENOMEM);
        goto end;
    }

    /* after the frames' producer (decoder, upload), without waiting for
     * anything else on its stream */
    ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventRecord(b->ready, c->frames_stream));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuStreamWaitEvent(c->stream, b->ready, 0));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventRecord(b->mstart[slot], c->stream));
    for (int i = 0; i < s->fmt.nb_comps && ret >= 0; i++) {
        const FSSIMPlane *p = &s->fmt.comp[i];
        FSSIM3DCudaMomentParams *mp = &b->mp[i];
        void *args[] = { mp };

        mp->main_ptr   = (CUdeviceptr)main->data[p->plane] + p->offset;
        mp->ref_ptr    = (CUdeviceptr)ref->data[p->plane] + p->offset;
        mp->main_pitch = main->linesize[p->plane];
        mp->ref_pitch  = ref->linesize[p->plane];
        mp->out        = b->ring + slot * b->slot_bytes + b->comp_offset[i];
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuLaunchKernel(b->moments_func,
                                                        b->grid[i][0], b->grid[i][1], 1,
                                                        FSSIM_TILE, FSSIM_THREADS / FSSIM_TILE, 1,
                                                        b->smem_bytes, c->stream, args, NULL));
    }
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventRecord(b->mdone[slot], c->stream));
    if (ret < 0) {
        /* nothing may read the frames any more once we let go of them */
        FSSIM_FREE_CU(c, ctx, cu->cuStreamSynchronize(c->stream));
        av_frame_free(&b->main[slot]);
        av_frame_free(&b->ref[slot]);
    }
end:
    pop(ctx, c);
    return ret;
}

static int cuda_score(AVFilterContext *ctx, const FSSIM3DWindow *win, FSSIMScores *sc)
{
    FSSIM3DContext *s = ctx->priv;
    CUDABackend *b = s->backend_priv;
    FSSIMCuda *c = &b->cuda;
    CudaFunctions *cu = c->cu;
    int nb_taps = 0, ret;
    float ms;

    /* After a failure nothing the GPU holds can be trusted: the ring may
     * lack a frame's moments, io a frame's sums.  Held frames are not
     * scored at uninit then. */
    if (c->failed)
        return c->failed;

    /* The taps of non-zero weight, in window order, as the reference sums
     * them.  The previous frame's copy of io has completed: we waited for
     * its sums, which come after it on the stream. */
    for (int k = 0; k < win->depth; k++) {
        if (win->slot[k] < 0)
            continue;
        b->io->window.wt[nb_taps]          = win->wt[k];
        b->io->window.slot_offset[nb_taps] = (unsigned long long)win->slot[k] * b->slot_bytes;
        nb_taps++;
    }

    ret = push(ctx, c);
    if (ret < 0)
        return ret;
    ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventRecord(b->sstart, c->stream));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuMemcpyHtoDAsync(b->io_dev + offsetof(CUDAScoreIO, window),
                                                           &b->io->window, sizeof(b->io->window),
                                                           c->stream));
    for (int i = 0; i < s->fmt.nb_comps && ret >= 0; i++) {
        void *args[] = { &b->sp[i] };
        b->sp[i].nb_taps = nb_taps;
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuLaunchKernel(b->score_func, b->score_blocks[i], 1, 1,
                                                        FSSIM_THREADS, 1, 1, 0, c->stream,
                                                        args, NULL));
    }
    if (ret >= 0) {
        void *args[] = { &b->sum };
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuLaunchKernel(b->sum_func, s->fmt.nb_comps, 1, 1,
                                                        FSSIM_THREADS, 1, 1, 0, c->stream,
                                                        args, NULL));
    }
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuMemcpyDtoHAsync(b->io->sums,
                                                           b->io_dev + offsetof(CUDAScoreIO, sums),
                                                           s->fmt.nb_comps * sizeof(b->io->sums[0]),
                                                           c->stream));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventRecord(b->sdone, c->stream));
    /* the frame goes out now: its scores are needed */
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventSynchronize(b->sdone));
    if (ret >= 0) {
        if (c->ext.cuEventElapsedTime(&ms, b->sstart, b->sdone) == CUDA_SUCCESS) {
            b->score_ms += ms;
            b->nb_scores++;
        }
        /* every moments kernel queued so far has run */
        for (int k = 0; k < s->depth && ret >= 0; k++)
            ret = release_slot(ctx, b, k, 0);
    }
    pop(ctx, c);
    if (ret < 0)
        return ret;

    for (int i = 0; i < s->fmt.nb_comps; i++)
        sc->score[0][i] = b->io->sums[i] / (double)b->sp[i].n;
    return 0;
}

static void cuda_uninit(AVFilterContext *ctx)
{
    FSSIM3DContext *s = ctx->priv;
    CUDABackend *b = s->backend_priv;
    FSSIMCuda *c;

    if (!b)
        return;
    c = &b->cuda;
    if (b->nb_moments && b->nb_scores) {
        const double mus = 1000.0 * b->moments_ms / b->nb_moments;
        const double sus = 1000.0 * b->score_ms / b->nb_scores;
        av_log(ctx, AV_LOG_VERBOSE, "GPU time per frame pair: %.1f us over %"PRIu64" frames "
               "(spatial moments %.1f us, temporal window and score %.1f us)\n",
               mus + sus, b->nb_scores, mus, sus);
    }
    if (c->cu) {
        CudaFunctions *cu = c->cu;
        FSSIM_FREE_CU(c, ctx, cu->cuCtxPushCurrent(c->cu_ctx));
        /* nothing may still read the frames or write the buffers */
        if (c->stream)
            FSSIM_FREE_CU(c, ctx, cu->cuStreamSynchronize(c->stream));
        for (int k = 0; k < FSSIM3D_MAX_DEPTH; k++) {
            if (b->mstart[k])
                FSSIM_FREE_CU(c, ctx, cu->cuEventDestroy(b->mstart[k]));
            if (b->mdone[k])
                FSSIM_FREE_CU(c, ctx, cu->cuEventDestroy(b->mdone[k]));
        }
        if (b->ready)
            FSSIM_FREE_CU(c, ctx, cu->cuEventDestroy(b->ready));
        if (b->sstart)
            FSSIM_FREE_CU(c, ctx, cu->cuEventDestroy(b->sstart));
        if (b->sdone)
            FSSIM_FREE_CU(c, ctx, cu->cuEventDestroy(b->sdone));
        if (b->ring)
            FSSIM_FREE_CU(c, ctx, cu->cuMemFree(b->ring));
        if (b->partials)
            FSSIM_FREE_CU(c, ctx, cu->cuMemFree(b->partials));
        if (b->io_dev)
            FSSIM_FREE_CU(c, ctx, cu->cuMemFree(b->io_dev));
        if (b->io)
            FSSIM_FREE_CU(c, ctx, c->ext.cuMemFreeHost(b->io));
        pop(ctx, c);
    }
    for (int k = 0; k < FSSIM3D_MAX_DEPTH; k++) {
        av_frame_free(&b->main[k]);
        av_frame_free(&b->ref[k]);
    }
    ff_fssim_cuda_uninit(ctx, c);
    av_freep(&s->backend_priv);
}

const FSSIM3DBackend ff_fssim3d_cuda_backend = {
    .name         = "CUDA",
    .storage      = "device memory, 4 floats per position (mu_a, mu_b, var_a + var_b, cov)",
    .check_inputs = cuda_check_inputs,
    .init         = cuda_init,
    .moments      = cuda_moments,
    .score        = cuda_score,
    .uninit       = cuda_uninit,
};
