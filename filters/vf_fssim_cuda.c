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
 * fssim_cuda: SSIM (integer, Gaussian, block) between two streams of CUDA
 * frames, as NVDEC, hwupload_cuda or scale_cuda left them.  Frame data
 * never leaves the GPU: one fused kernel per plane computes every requested
 * algorithm and only the per-plane sums come back, asynchronously.
 */
#include "libavutil/internal.h"
#include "libavutil/mem.h"
#include "libavutil/opt.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/filters.h"
#include "libavfilter/formats.h"
#include "libavfilter/framesync.h"
#include "libavfilter/video.h"

#include "fssim_common.h"
#include "fssim_cuda.h"
#include "fssim_cuda_common.h"

/* Frames whose scores may still be on their way back from the GPU. */
#define PIPELINE_DEPTH 4

typedef struct FSSIMCudaContext {
    const AVClass *class;
    FFFrameSync fs;
    FSSIMOptions opts;
    FSSIMOutput out;
    FSSIMFormat fmt;

    FSSIMCuda cuda;
    FSSIMCudaQueue queue;
    CUfunction plane_func, reduce_func;
    int smem_bytes;
    CUdeviceptr partials;               /* per-tile sums, O(tiles) */
    FSSIMCudaParams params[4];          /* per component */
    int grid[4][2];
    FSSIMCudaReduceParams reduce;
    unsigned long long int_weight[4];   /* the int score's denominators */
} FSSIMCudaContext;

#define OFFSET(x) offsetof(FSSIMCudaContext, x)

static const AVOption fssim_cuda_options[] = {
    FSSIM_ALGO_OPTIONS(FSSIMCudaContext, opts),
    FSSIM_OUTPUT_OPTIONS(FSSIMCudaContext, opts),
    { NULL }
};

FRAMESYNC_DEFINE_CLASS(fssim_cuda, FSSIMCudaContext, fs);

static int kernel_algos(int algos)
{
    return (algos & FSSIM_FLAG(FSSIM_FLOAT) ? FSSIM_ALGO_FLOAT_BIT : 0) |
           (algos & FSSIM_FLAG(FSSIM_INT)   ? FSSIM_ALGO_INT_BIT   : 0) |
           (algos & FSSIM_FLAG(FSSIM_BLOCK) ? FSSIM_ALGO_BLOCK_BIT : 0);
}

/* Kernel parameters, tiles and buffers: everything that does not change
 * from frame to frame is set up once here. */
static int setup_kernels(AVFilterContext *ctx)
{
#define PTX(name) extern const unsigned char ff_##name##_ptx_data[]; \
                  extern const unsigned int ff_##name##_ptx_len;
    PTX(fssim_8) PTX(fssim_12) PTX(fssim_16) PTX(fssim_8_any) PTX(fssim_12_any) PTX(fssim_16_any)
#undef PTX
    /* per sample class: built for the default window, and for any window */
    const unsigned char *const ptx[2][3] = {
        { ff_fssim_8_ptx_data, ff_fssim_12_ptx_data, ff_fssim_16_ptx_data },
        { ff_fssim_8_any_ptx_data, ff_fssim_12_any_ptx_data, ff_fssim_16_any_ptx_data },
    };
    const unsigned int ptx_len[2][3] = {
        { ff_fssim_8_ptx_len, ff_fssim_12_ptx_len, ff_fssim_16_ptx_len },
        { ff_fssim_8_any_ptx_len, ff_fssim_12_any_ptx_len, ff_fssim_16_any_ptx_len },
    };
    FSSIMCudaContext *s = ctx->priv;
    FSSIMCuda *c = &s->cuda;
    const int algos = kernel_algos(s->opts.algos);
    const int kind = fssim_cuda_kind(s->fmt.depth);
    const int any = s->opts.window != 2 * FSSIM_DEFAULT_RADIUS + 1;
    const FSSIMSmemLayout l = fssim_smem_layout(s->opts.window / 2, algos, kind);
    int nb_tiles = 0, ret;
    CUcontext dummy;

    /* only the module needed: the driver compiles PTX slowly */
    ret = ff_fssim_cuda_init(ctx, c, ptx[any][kind], ptx_len[any][kind]);
    if (ret < 0)
        return ret;

    for (int i = 0; i < s->fmt.nb_comps; i++) {
        const FSSIMPlane *p = &s->fmt.comp[i];
        FSSIMCudaParams *kp = &s->params[i];
        fssim_cuda_fill_params(kp, s->fmt.depth, p->width, p->height, p->bytes, p->step,
                               p->shift, algos, s->opts.window, s->opts.sigma,
                               s->opts.padding == FSSIM_REF_PAD_SAME);
        kp->part_offset = nb_tiles;
        s->reduce.offset[i] = nb_tiles;
        s->reduce.count[i]  = fssim_cuda_nb_blocks(p->width, p->height,
                                                   &s->grid[i][0], &s->grid[i][1]);
        nb_tiles += s->reduce.count[i];
        s->int_weight[i] = fssim_cuda_int_weight_sum(p->width, p->height);
    }
    s->smem_bytes = l.total;

    ret = FSSIM_CHECK_CU(c, ctx, c->cu->cuCtxPushCurrent(c->cu_ctx));
    if (ret < 0)
        return ret;
    ret = FSSIM_CHECK_CU(c, ctx, c->cu->cuModuleGetFunction(&s->plane_func, c->module,
                                                            "fssim_plane"));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, c->cu->cuModuleGetFunction(&s->reduce_func, c->module,
                                                                "fssim_reduce"));
    if (ret >= 0)
        ret = ff_fssim_cuda_set_smem(ctx, c, s->plane_func, s->smem_bytes);
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, ctx, c->cu->cuMemAlloc(&s->partials, (size_t)nb_tiles *
                                                        FSSIM_NB_PARTS * sizeof(double)));
    FSSIM_CHECK_CU(c, ctx, c->cu->cuCtxPopCurrent(&dummy));
    if (ret < 0)
        return ret;

    for (int i = 0; i < s->fmt.nb_comps; i++)
        s->params[i].partials = s->partials;
    s->reduce.partials = s->partials;

    av_log(ctx, AV_LOG_VERBOSE, "%d tiles of %dx%d, %d bytes of shared memory each, "
           "%zu bytes of tile sums\n", nb_tiles, FSSIM_TILE, FSSIM_TILE, s->smem_bytes,
           (size_t)nb_tiles * FSSIM_NB_PARTS * sizeof(double));
    /* only the planes the reduction writes: a copy of unwritten device
     * memory is an uninitialised read to compute-sanitizer's initcheck */
    return ff_fssim_cuda_queue_init(ctx, c, &s->queue, PIPELINE_DEPTH,
                                    s->fmt.nb_comps * FSSIM_NB_PARTS * sizeof(double));
}

/* Queue the kernels of one frame pair and the readback of their sums. */
static int launch(AVFilterContext *ctx, const AVFrame *main, const AVFrame *ref)
{
    FSSIMCudaContext *s = ctx->priv;
    FSSIMCuda *c = &s->cuda;
    CudaFunctions *cu = c->cu;
    CUdeviceptr results;
    CUcontext dummy;
    int slot, ret;

    /* a failed context runs nothing reliably any more */
    if (c->failed)
        return c->failed;
    ret = FSSIM_CHECK_CU(c, ctx, cu->cuCtxPushCurrent(c->cu_ctx));
    if (ret < 0)
        return ret;
    slot = ff_fssim_cuda_queue_begin(ctx, c, &s->queue, &results);
    ret = slot;
    for (int i = 0; i < s->fmt.nb_comps && ret >= 0; i++) {
        const FSSIMPlane *p = &s->fmt.comp[i];
        FSSIMCudaParams *kp = &s->params[i];
        void *args[] = { kp };

        kp->main_ptr   = (CUdeviceptr)main->data[p->plane] + p->offset;
        kp->ref_ptr    = (CUdeviceptr)ref->data[p->plane] + p->offset;
        kp->main_pitch = main->linesize[p->plane];
        kp->ref_pitch  = ref->linesize[p->plane];
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuLaunchKernel(s->plane_func, s->grid[i][0], s->grid[i][1], 1,
                                                        FSSIM_TILE, FSSIM_THREADS / FSSIM_TILE, 1,
                                                        s->smem_bytes, c->stream, args, NULL));
    }
    if (ret >= 0) {
        void *args[] = { &s->reduce };
        s->reduce.out = results;
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuLaunchKernel(s->reduce_func, s->fmt.nb_comps, 1, 1,
                                                        FSSIM_TILE, FSSIM_THREADS / FSSIM_TILE, 1,
                                                        0, c->stream, args, NULL));
    }
    FSSIM_CHECK_CU(c, ctx, cu->cuCtxPopCurrent(&dummy));
    return ret < 0 ? ret : slot;
}

static void scores_from_sums(FSSIMCudaContext *s, const double *sums, FSSIMScores *sc)
{
    const FSSIMRefFloatParams fp = { s->opts.window, s->opts.sigma, s->opts.padding };

    for (int i = 0; i < s->fmt.nb_comps; i++) {
        const FSSIMPlane *p = &s->fmt.comp[i];
        const double *v = sums + i * FSSIM_NB_PARTS;
        int w, h;
        sc->score[FSSIM_INT][i] = v[FSSIM_PART_INT] / (double)s->int_weight[i];
        if (fssim_ref_float_out_size(p->width, p->height, &fp, &w, &h) == 0)
            sc->score[FSSIM_FLOAT][i] = v[FSSIM_PART_FLOAT] / ((double)w * h);
        if (fssim_ref_block_windows(p->width, p->height, &w, &h) == 0)
            sc->score[FSSIM_BLOCK][i] = v[FSSIM_PART_BLOCK] / ((double)w * h);
    }
}

/*
 * Send on the frames whose scores are back, in order.  wait: block until
 * every queued frame is out (EOF).  With output == 0 the frames are only
 * logged and freed (the output is closed, or the filter is being freed).
 */
static int drain(AVFilterContext *ctx, int wait, int output)
{
    FSSIMCudaContext *s = ctx->priv;
    FSSIMCudaPending p;
    const void *sums;
    int ret;

    while ((ret = ff_fssim_cuda_queue_pop(ctx, &s->cuda, &s->queue, wait, &p, &sums)) > 0) {
        if (sums) {
            FSSIMScores sc = { { { 0 } } };
            scores_from_sums(s, sums, &sc);
            ret = ff_fssim_output_frame(ctx, &s->out, p.frame, &sc);
            if (ret < 0) {
                av_frame_free(&p.frame);
                return ret;
            }
        }
        if (output) {
            ret = ff_filter_frame(ctx->outputs[0], p.frame);
            if (ret < 0)
                return ret;
        } else {
            av_frame_free(&p.frame);
        }
    }
    return ret;
}

static int do_fssim(FFFrameSync *fs)
{
    AVFilterContext *ctx = fs->parent;
    FSSIMCudaContext *s = ctx->priv;
    AVFrame *master, *ref, *held = NULL;
    int slot = -1, ret;

    ret = ff_framesync_dualinput_get(fs, &master, &ref);
    if (ret < 0)
        return ret;
    if (!ctx->is_disabled && ref) {
        slot = ff_fssim_check_frames(ctx, &s->out, master, ref);
        if (slot >= 0) {
            /* framesync may let go of the reference before the GPU is done */
            held = av_frame_clone(ref);
            slot = held ? launch(ctx, master, ref) : AVERROR(ENOMEM);
        }
        if (slot < 0) {
            av_frame_free(&held);
            av_frame_free(&master);
            return slot;
        }
    }
    /* disabled frames queue too, so that frames leave in order */
    ret = ff_fssim_cuda_queue_push(ctx, &s->cuda, &s->queue, master, held, slot);
    if (ret < 0) {
        av_frame_free(&held);
        av_frame_free(&master);
        return ret;
    }
    return drain(ctx, 0, 1);
}

static int query_formats(const AVFilterContext *ctx, AVFilterFormatsConfig **cfg_in,
                         AVFilterFormatsConfig **cfg_out)
{
    return ff_fssim_query_formats(ctx, cfg_in, cfg_out, AV_PIX_FMT_CUDA);
}

static av_cold int init(AVFilterContext *ctx)
{
    FSSIMCudaContext *s = ctx->priv;

    s->fs.on_event = do_fssim;
    return ff_fssim_output_open(ctx, &s->out, &s->opts, "lavfi.fssim.", s->opts.algos);
}

static int config_output(AVFilterLink *outlink)
{
    AVFilterContext *ctx = outlink->src;
    FSSIMCudaContext *s = ctx->priv;
    AVFilterLink *mainlink = ctx->inputs[0];
    enum AVPixelFormat sw_format;
    int ret;

    ret = ff_fssim_cuda_check_inputs(ctx, &sw_format);
    if (ret < 0)
        return ret;
    ret = ff_fssim_format_init(ctx, &s->fmt, sw_format, mainlink->w, mainlink->h);
    if (ret < 0)
        return ret;
    ret = ff_fssim_check_options(ctx, &s->opts, &s->fmt);
    if (ret < 0)
        return ret;
    ret = setup_kernels(ctx);
    if (ret < 0)
        return ret;
    ret = ff_fssim_output_config(ctx, &s->out, &s->fmt);
    if (ret < 0)
        return ret;
    return ff_fssim_config_output(outlink, &s->fs, &s->out);
}

static int activate(AVFilterContext *ctx)
{
    FSSIMCudaContext *s = ctx->priv;
    int ret = ff_framesync_activate(&s->fs);

    if (ret < 0)
        return ret;
    /* framesync has just marked the output finished: the frames still
     * waiting for their scores go out before anything downstream sees the
     * EOF, as they reach the output link's queue first */
    if (s->fs.eof)
        return drain(ctx, 1, 1);
    return ret;
}

static av_cold void uninit(AVFilterContext *ctx)
{
    FSSIMCudaContext *s = ctx->priv;
    FSSIMCuda *c = &s->cuda;

    /* frames scored but never sent (the output closed early) still count;
     * after a GPU error none is (the queue refuses) */
    if (s->queue.fifo)
        drain(ctx, 1, 0);
    if (s->queue.nb_timed)
        av_log(ctx, AV_LOG_VERBOSE, "GPU time per frame pair: %.1f us over %"PRIu64" frames\n",
               1000.0 * s->queue.gpu_ms / s->queue.nb_timed, s->queue.nb_timed);
    ff_fssim_output_close(ctx, &s->out, s->fs.eof);
    ff_fssim_cuda_queue_uninit(ctx, c, &s->queue);
    if (s->partials) {
        CUcontext dummy;
        FSSIM_FREE_CU(c, ctx, c->cu->cuCtxPushCurrent(c->cu_ctx));
        FSSIM_FREE_CU(c, ctx, c->cu->cuMemFree(s->partials));
        FSSIM_FREE_CU(c, ctx, c->cu->cuCtxPopCurrent(&dummy));
        s->partials = 0;
    }
    ff_fssim_cuda_uninit(ctx, c);
    ff_framesync_uninit(&s->fs);
}

static const AVFilterPad fssim_cuda_inputs[] = {
    {
        .name = "main",
        .type = AVMEDIA_TYPE_VIDEO,
    },{
        .name = "reference",
        .type = AVMEDIA_TYPE_VIDEO,
    },
};

static const AVFilterPad fssim_cuda_outputs[] = {
    {
        .name         = "default",
        .type         = AVMEDIA_TYPE_VIDEO,
        .config_props = config_output,
    },
};

const FFFilter ff_vf_fssim_cuda = {
    .p.name         = "fssim_cuda",
    .p.description  = NULL_IF_CONFIG_SMALL("Calculate SSIM (integer, Gaussian, block) between two CUDA video streams."),
    .p.priv_class   = &fssim_cuda_class,
    .p.flags        = AVFILTER_FLAG_SUPPORT_TIMELINE_INTERNAL,
    .preinit        = fssim_cuda_framesync_preinit,
    .init           = init,
    .uninit         = uninit,
    .activate       = activate,
    .priv_size      = sizeof(FSSIMCudaContext),
    FILTER_INPUTS(fssim_cuda_inputs),
    FILTER_OUTPUTS(fssim_cuda_outputs),
    FILTER_QUERY_FUNC2(query_formats),
    .flags_internal = FF_FILTER_FLAG_HWFRAME_AWARE,
};
