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
 * fssim: the CUDA backend, on AV_PIX_FMT_CUDA frames as NVDEC,
 * hwupload_cuda or scale_cuda left them.  Frame data never leaves the GPU:
 * only per-plane sums come back, asynchronously, through result slots.
 *
 * 2-D (fssim_cuda), here: one fused kernel per plane (fssim_plane,
 * fssim_plane.cuh) computes every requested algorithm for every rendition
 * from one read of each sample, the reference's own terms once, into
 * per-tile partial sums, and fssim_reduce adds them per plane and
 * rendition in a fixed order into the job's slot.  Before them, a
 * rendition (or a pair's main input) of another size or format is
 * resampled into a frame of the reference's size, depth and layout
 * (fssim_cuda_resample.c); msssim's scales (fssim_cuda_msssim.c), then
 * vmaf_ssim's and vmaf_msssim's planes (fssim_cuda_vmaf.c) write their
 * sums after the fused kernels' in the slot.
 *
 * 3-D (fssim3d): fssim_be_cuda3d.c, whose operations this backend hands
 * the engine when it has a depth.
 *
 * Everything runs on the backend's own non-blocking stream, ordered after
 * the frames' stream (often the legacy default stream, which would
 * otherwise serialise the kernels with the decoder) by an event.
 */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "libavutil/mem.h"
#include "libavfilter/filters.h"

#include "../engine/fssim_backend.h"
#include "fssim_cuda_common.h"
#include "fssim_cuda_msssim.h"
#include "fssim_cuda_params.h"
#include "fssim_cuda_resample.h"
#include "fssim_cuda_vmaf.h"

typedef struct CUDABackend {
    FSSIMCuda      cuda;
    FSSIMCudaSlots slots;
    int            smem_bytes;

    CUfunction plane_func, reduce_func;
    CUdeviceptr partials;               /* per rendition, per tile sums: O(tiles) */
    int nb_tiles;                       /* of one rendition, all planes */
    FSSIMCudaParams params[4];          /* per component */
    int grid[4][2];
    /* The components after the first run on streams of their own, forked
     * from and joined back to the filter's stream, so that their blocks
     * fill the SMs that the first component's last blocks leave idle. */
    CUstream side[3];
    CUevent  fork, join[3];
    FSSIMCudaReduceParams reduce;       /* chunk[4]: a rendition's chunk sums */
    FSSIMCudaResampler resampler;       /* the renditions of another size or format */
    size_t fused_bytes;                 /* a slot's chunk sums of fssim_reduce; msssim's follow */

    FSSIMCudaMsssim *ms;                /* msssim (fssim_cuda_msssim.c) */
    size_t ms_bytes;                    /* a slot's msssim sums; vmaf's follow */
    FSSIMCudaVmaf *vmaf;                /* vmaf_ssim, vmaf_msssim (fssim_cuda_vmaf.c) */

    CUDA3DBackend *b3d;                 /* fssim3d (fssim_be_cuda3d.c) */
} CUDABackend;

static int cuda_check_inputs(FSSIMEngine *e, enum AVPixelFormat *sw_format)
{
    return ff_fssim_cuda_check_inputs(e->ctx, sw_format);
}

/* A resampled rendition's frame at the reference's size, which the kernels
 * score it from; NULL: its own frame. */
static const FSSIMCudaResampled *resampled(const FSSIMEngine *e, const CUDABackend *b, int k)
{
    return e->resample[k] ? &b->resampler.rs[k] : NULL;
}

/* The algorithms fssim_plane computes; it runs where one is asked for. */
static int fused_algos(const FSSIMEngine *e)
{
    return e->opts->algos & FSSIM_FUSED_ALGOS;
}

/* The side streams of the components after the first, and their events.
 * Context pushed. */
static int init_side_streams(FSSIMEngine *e, CUDABackend *b)
{
    FSSIMCuda *c = &b->cuda;
    CudaFunctions *cu = c->cu;
    int ret = 0;

    if (e->fmt.nb_comps > 1)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuEventCreate(&b->fork, CU_EVENT_DISABLE_TIMING));
    for (int j = 0; j < e->fmt.nb_comps - 1 && ret >= 0; j++) {
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuStreamCreate(&b->side[j], CU_STREAM_NON_BLOCKING));
        if (ret >= 0)
            ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuEventCreate(&b->join[j],
                                                              CU_EVENT_DISABLE_TIMING));
    }
    return ret;
}

/* fssim_plane for component j, on the filter's stream (j = 0) or on its
 * side stream, forked after everything queued before (the resampling
 * included) and joined back before the reductions. */
static int launch_plane(FSSIMEngine *e, CUDABackend *b, int j)
{
    FSSIMCuda *c = &b->cuda;
    CudaFunctions *cu = c->cu;
    CUstream s = j ? b->side[j - 1] : c->stream;
    void *args[] = { &b->params[j] };
    int ret = 0;

    if (j)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuStreamWaitEvent(s, b->fork, 0));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuLaunchKernel(b->plane_func, b->grid[j][0],
                                                           b->grid[j][1], 1, FSSIM_TILE,
                                                           FSSIM_THREADS / FSSIM_TILE, 1,
                                                           b->smem_bytes, s, args, NULL));
    if (ret >= 0 && j)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuEventRecord(b->join[j - 1], s));
    if (ret >= 0 && j)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuStreamWaitEvent(c->stream, b->join[j - 1], 0));
    return ret;
}

/* Kernel parameters, tiles and buffers: everything that does not change
 * from frame to frame is set up once here. */
static int init_2d(FSSIMEngine *e, CUDABackend *b)
{
#define IMAGES(s) FSSIM_CUDA_IMAGE_EXTERN(fssim_8##s); FSSIM_CUDA_IMAGE_EXTERN(fssim_12##s);  \
                  FSSIM_CUDA_IMAGE_EXTERN(fssim_16##s); FSSIM_CUDA_IMAGE_EXTERN(fssim_8_any##s); \
                  FSSIM_CUDA_IMAGE_EXTERN(fssim_12_any##s);                                    \
                  FSSIM_CUDA_IMAGE_EXTERN(fssim_16_any##s)
    IMAGES(); IMAGES(_ladder);
#undef IMAGES
    /* per sample class: built for the default window and for any window,
     * for a lone pair and for ladders (fssim_plane.cuh says why) */
#define IMAGES(s) { { FSSIM_CUDA_IMAGE(fssim_8##s), FSSIM_CUDA_IMAGE(fssim_12##s),          \
                      FSSIM_CUDA_IMAGE(fssim_16##s) },                                     \
                    { FSSIM_CUDA_IMAGE(fssim_8_any##s), FSSIM_CUDA_IMAGE(fssim_12_any##s),  \
                      FSSIM_CUDA_IMAGE(fssim_16_any##s) } }
    const FSSIMCudaImage images[2][2][3] = { IMAGES(), IMAGES(_ladder) };
#undef IMAGES
    AVFilterContext *ctx = e->ctx;
    FSSIMCuda *c = &b->cuda;
    /* samples at the bottom of 16-bit words may exceed the depth: the
     * 16-bit module's sums take them as stored */
    const int kind = fssim_cuda_kind(ff_fssim_stored_bits(&e->fmt));
    const int any = e->opts->window != FSSIM_DEFAULT_WINDOW;
    const int ladder = e->nb_dist > 1;
    const FSSIMSmemLayout l = fssim_smem_layout(e->opts->window / 2, fused_algos(e), kind,
                                                ladder);
    const size_t part_bytes = FSSIM_NB_FUSED_PARTS * sizeof(double);
    int count[4], ret;

    /* only the module needed: the driver compiles PTX slowly */
    ret = ff_fssim_cuda_init(ctx, c, &images[ladder][any][kind]);
    if (ret < 0)
        return ret;

    for (int i = 0; i < e->fmt.nb_comps; i++) {
        const FSSIMPlane *p = &e->fmt.comp[i];
        FSSIMCudaParams *kp = &b->params[i];
        ff_fssim_cuda_fill_params(kp, e->fmt.depth, p->width, p->height, p->bytes, p->step,
                                  p->shift, fused_algos(e), e->opts->window, e->opts->sigma,
                                  e->opts->padding == FSSIM_REF_PAD_SAME);
        kp->part_offset = b->nb_tiles;
        count[i] = fssim_cuda_nb_blocks(p->width, p->height, &b->grid[i][0], &b->grid[i][1]);
        b->nb_tiles += count[i];
    }
    for (int i = 0; i < e->fmt.nb_comps; i++)
        b->params[i].part_stride = b->nb_tiles;
    fssim_cuda_reduce_layout(&b->reduce, count, e->fmt.nb_comps);
    b->smem_bytes = l.total;

    ret = ff_fssim_cuda_push(ctx, c);
    if (ret < 0)
        return ret;
    ret = FSSIM_CHECK_CU(c, ctx, c->cu->cuModuleGetFunction(&b->plane_func, c->module,
                                                            "fssim_plane"));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, c->cu->cuModuleGetFunction(&b->reduce_func, c->module,
                                                                "fssim_reduce"));
    if (ret >= 0)
        ret = ff_fssim_cuda_set_smem(ctx, c, b->plane_func, b->smem_bytes, ctx->filter->name);
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, c->cu->cuMemAlloc(&b->partials, (size_t)e->nb_dist *
                                                        b->nb_tiles * part_bytes));
    if (ret >= 0)
        ret = init_side_streams(e, b);
    if (ret >= 0)
        ret = ff_fssim_cuda_resample_init(e, c, &b->resampler);
    if (ret >= 0 && (e->opts->algos & FSSIM_BIT(FSSIM_ALGO_MSSSIM)))
        ret = ff_fssim_cuda_msssim_init(e, c, &b->ms);
    if (ret >= 0 && ff_fssim_cuda_vmaf_wanted(e))
        ret = ff_fssim_cuda_vmaf_init(e, c, &b->vmaf);
    ff_fssim_cuda_pop(ctx, c);
    if (ret < 0)
        return ret;
    for (int i = 0; i < e->fmt.nb_comps; i++)
        b->params[i].partials = b->partials;
    b->reduce.partials = b->partials;

    av_log(ctx, AV_LOG_VERBOSE, "%d tiles of %dx%d, %d bytes of shared memory each, "
           "%zu bytes of tile sums\n", b->nb_tiles, FSSIM_TILE, FSSIM_TILE, b->smem_bytes,
           (size_t)e->nb_dist * b->nb_tiles * part_bytes);
    /* a slot holds only what the reductions write */
    b->fused_bytes = fused_algos(e) ? (size_t)e->nb_dist * b->reduce.chunk[4] * part_bytes : 0;
    b->ms_bytes = b->ms ? ff_fssim_cuda_msssim_slot_bytes(e) : 0;
    return ff_fssim_cuda_slots_init(ctx, c, &b->slots, e->nb_slots, b->fused_bytes +
                                    b->ms_bytes +
                                    (b->vmaf ? ff_fssim_cuda_vmaf_slot_bytes(e, b->vmaf) : 0));
}

/* vmaf_ssim, vmaf_msssim (fssim_cuda_vmaf.c): every image's components as
 * the other kernels read them, a resampled rendition's from its frame at
 * the reference's size; their sums after msssim's in the slot. */
static int launch_vmaf(FSSIMEngine *e, CUDABackend *b, const AVFrame *ref, AVFrame *const *dist,
                       const int *ks, int n, CUdeviceptr results)
{
    FSSIMCudaVmafImage im[FSSIM_MAX_DIST], rim;

    for (int c = 0; c < e->fmt.nb_comps; c++) {
        const FSSIMPlane *p = &e->fmt.comp[c];
        rim.ptr[c]   = (CUdeviceptr)ref->data[p->plane] + p->offset;
        rim.pitch[c] = ref->linesize[p->plane];
        for (int i = 0; i < n; i++) {
            const int k = ks[i];
            const FSSIMCudaResampled *rs = resampled(e, b, k);
            im[k].ptr[c]   = (rs ? rs->data[p->plane] : (CUdeviceptr)dist[k]->data[p->plane]) +
                             p->offset;
            im[k].pitch[c] = rs ? rs->pitch[p->plane] : dist[k]->linesize[p->plane];
        }
    }
    return ff_fssim_cuda_vmaf_launch(e, &b->cuda, b->vmaf, &rim, im, ks, n,
                                     results + b->fused_bytes + b->ms_bytes);
}

/* The kernels of the renditions present (their indices in ks[]) into
 * their parts of the slot. */
static int launch_2d(FSSIMEngine *e, CUDABackend *b, const AVFrame *ref, AVFrame *const *dist,
                     const int *ks, int n, CUdeviceptr results)
{
    const int msssim = e->opts->algos & FSSIM_BIT(FSSIM_ALGO_MSSSIM);
    FSSIMCuda *c = &b->cuda;
    CudaFunctions *cu = c->cu;
    void *args[1];
    int ret = 0;

    for (int i = 0; i < n && ret >= 0; i++)
        if (e->resample[ks[i]])
            ret = ff_fssim_cuda_resample_launch(e, c, &b->resampler, ks[i], dist[ks[i]]);
    for (int i = 0; i < n && ret >= 0 && msssim; i++)
        ret = ff_fssim_cuda_msssim_launch(e, c, b->ms, ks[i], ref, dist[ks[i]],
                                          resampled(e, b, ks[i]), results + b->fused_bytes);
    if (ret >= 0 && b->vmaf)
        ret = launch_vmaf(e, b, ref, dist, ks, n, results);
    if (ret < 0 || !fused_algos(e))
        return ret;
    if (e->fmt.nb_comps > 1)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuEventRecord(b->fork, c->stream));
    for (int j = 0; j < e->fmt.nb_comps && ret >= 0; j++) {
        const FSSIMPlane *p = &e->fmt.comp[j];
        FSSIMCudaParams *kp = &b->params[j];

        kp->ref_ptr   = (CUdeviceptr)ref->data[p->plane] + p->offset;
        kp->ref_pitch = ref->linesize[p->plane];
        kp->nb_main   = n;
        for (int i = 0; i < n; i++) {
            const int k = ks[i];
            /* a resampled rendition is scored from its frame at the reference's size */
            const FSSIMCudaResampled *rs = resampled(e, b, k);
            kp->main_ptr[i]   = (rs ? rs->data[p->plane] : (CUdeviceptr)dist[k]->data[p->plane]) +
                                p->offset;
            kp->main_pitch[i] = rs ? rs->pitch[p->plane] : dist[k]->linesize[p->plane];
        }
        ret = launch_plane(e, b, j);
    }
    if (ret < 0)
        return ret;
    /* every rendition's sums in one launch: one per rendition cost a
     * ladder a launch's latency each */
    b->reduce.out = results;
    for (int i = 0; i < n; i++)
        b->reduce.dist[i] = ks[i];
    args[0] = &b->reduce;
    return FSSIM_CHECK_CU(c, e->ctx, cu->cuLaunchKernel(b->reduce_func, b->reduce.chunk[4], n, 1,
                                                        FSSIM_TILE, FSSIM_THREADS / FSSIM_TILE,
                                                        1, 0, c->stream, args, NULL));
}

static int cuda_submit(FSSIMEngine *e, int slot, const AVFrame *ref, AVFrame *const *dist)
{
    CUDABackend *b = e->priv;
    FSSIMCuda *c = &b->cuda;
    const AVFrame *frames[FSSIM_MAX_INPUTS];
    const CUdeviceptr results = b->slots.dev + slot * b->slots.slot_bytes;
    int ks[FSSIM_MAX_DIST], n = 0, ret;

    /* a failed context runs nothing reliably any more */
    if (c->failed)
        return c->failed;
    for (int k = 0; k < e->nb_dist; k++) {
        frames[k] = dist[k];
        if (dist[k])
            ks[n++] = k;
    }
    frames[e->nb_dist] = ref;

    ret = ff_fssim_cuda_push(e->ctx, c);
    if (ret < 0)
        return ret;
    ret = ff_fssim_cuda_slot_begin(e->ctx, c, &b->slots, slot, frames, e->nb_dist + 1);
    if (ret >= 0)
        ret = launch_2d(e, b, ref, dist, ks, n, results);
    if (ret >= 0)
        ret = ff_fssim_cuda_slot_end(e->ctx, c, &b->slots, slot);
    ff_fssim_cuda_pop(e->ctx, c);
    return ret;
}

static int cuda_collect(FSSIMEngine *e, int slot, int wait, FSSIMSums *sums)
{
    CUDABackend *b = e->priv;
    const double *r;
    int ret;

    if (b->b3d)
        return ff_fssim_cuda3d_collect(e, b->b3d, slot, wait, sums);
    ret = ff_fssim_cuda_slot_collect(e->ctx, &b->cuda, &b->slots, slot, wait,
                                     (const void **)&r);
    if (ret <= 0)
        return ret;
    for (int k = 0; k < e->nb_dist; k++) {
        for (int c = 0; c < e->fmt.nb_comps; c++) {
            FSSIMSum *v = sums->v[k][c];
            if (b->fused_bytes) {
                double parts[FSSIM_NB_FUSED_PARTS];
                fssim_cuda_chunk_sums(r, &b->reduce, k, c, parts);
                /* the bits as they are: the sse part is an integer */
                memcpy(v, parts, sizeof(parts));
            }
            if (b->ms)
                ff_fssim_cuda_msssim_read(e, r + b->fused_bytes / sizeof(double), k, c, v);
        }
        if (b->vmaf)
            ff_fssim_cuda_vmaf_read(e, b->vmaf, r + (b->fused_bytes + b->ms_bytes) / sizeof(double),
                                    k, sums->v[k]);
    }
    return 1;
}

static int cuda_moments(FSSIMEngine *e, int ring_slot, const AVFrame *ref, const AVFrame *dist)
{
    CUDABackend *b = e->priv;
    return ff_fssim_cuda3d_moments(e, b->b3d, ring_slot, ref, dist);
}

static int cuda_submit3d(FSSIMEngine *e, int slot, const FSSIM3DWindow *win)
{
    CUDABackend *b = e->priv;
    return ff_fssim_cuda3d_submit(e, b->b3d, slot, win);
}

/* ---- set-up and teardown ------------------------------------------------- */

static int cuda_init(FSSIMEngine *e, size_t *ring_bytes)
{
    CUDABackend *b = e->priv;

    return e->opts->depth ? ff_fssim_cuda3d_init(e, &b->b3d, ring_bytes) : init_2d(e, b);
}

static void cuda_uninit(FSSIMEngine *e)
{
    AVFilterContext *ctx = e->ctx;
    CUDABackend *b = e->priv;
    FSSIMCuda *c = &b->cuda;

    ff_fssim_cuda3d_uninit(e, &b->b3d);
    if (b->slots.nb_timed)
        av_log(ctx, AV_LOG_VERBOSE, "GPU time per frame pair: %.1f us over %"PRIu64" frames\n",
               1000.0 * b->slots.gpu_ms / b->slots.nb_timed, b->slots.nb_timed);
    /* waits for the stream: nothing reads the frames or writes the buffers
     * after this */
    ff_fssim_cuda_slots_uninit(ctx, c, &b->slots);
    ff_fssim_cuda_vmaf_uninit(ctx, c, &b->vmaf);
    ff_fssim_cuda_msssim_uninit(ctx, c, &b->ms);
    if (c->cu) {
        CudaFunctions *cu = c->cu;
        FSSIM_FREE_CU(c, ctx, cu->cuCtxPushCurrent(c->cu_ctx));
        ff_fssim_cuda_free_mem(ctx, c, b->partials);
        for (int j = 0; j < 3; j++) {
            if (b->side[j])
                FSSIM_FREE_CU(c, ctx, cu->cuStreamDestroy(b->side[j]));
            ff_fssim_cuda_free_event(ctx, c, b->join[j]);
        }
        ff_fssim_cuda_free_event(ctx, c, b->fork);
        ff_fssim_cuda_resample_uninit(ctx, c, &b->resampler);
        FSSIM_FREE_CU(c, ctx, cu->cuCtxPopCurrent(&(CUcontext){ NULL }));
    }
    ff_fssim_cuda_uninit(ctx, c);
}

/* This backend's entries of the interface (engine/fssim_backend.h); each backend has its own. */
const FSSIMBackend ff_fssim_cuda_backend = {
    .name         = "CUDA",
    .priv_size    = sizeof(CUDABackend),
    /* Frames whose scores may still be on their way back from the GPU.
     * Frames reach the filter in bursts (seven decoders, B-frame reordering),
     * and a full queue makes the filter wait on the GPU, which holds back
     * every decoder behind it; with fewer frames in flight a ladder fell
     * behind its decoders (doc/performance.md#the-queue-of-frames-in-flight).
     * A slot costs its partial sums on the device and holds its input frames
     * until scored. */
    .queue_depth  = 16,
    .check_inputs = cuda_check_inputs,
    .init         = cuda_init,
    .submit       = cuda_submit,
    .collect      = cuda_collect,
    .moments      = cuda_moments,
    .submit3d     = cuda_submit3d,
    .uninit       = cuda_uninit,
    .storage3d    = "device memory, 4 floats per position (mu_a, mu_b, var_a + var_b, cov)",
};
