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
 * fssim: algo=msssim on CUDA frames (doc/algorithms.md#msssim-in-the-filters),
 * the host side of fssim_msssim.cuh.  Per rendition, on the filter's
 * stream: one fssim_ms_scale launch per scale over every plane, each
 * pooling the next scale into float planes allocated once (the stream
 * orders the renditions, so one set serves them all), then fssim_ms_reduce
 * into the rendition's share of the slot.
 */
#include <string.h>

#include "libavutil/mem.h"

#include "fssim_cuda_msssim.h"

struct FSSIMCudaMsssim {
    CUfunction scale_func, reduce_func;
    CUdeviceptr levels;                 /* scales 1-4 of both planes of every component */
    CUdeviceptr partials;               /* per rendition: 2 doubles per block of each scale */
    FSSIMCudaMsParams ms[FSSIM_MS_SCALES];
    FSSIMCudaMsReduceParams reduce;
    int blocks[FSSIM_MS_SCALES];        /* blocks of each scale's launch */
    int first[FSSIM_MS_SCALES];         /* their first record in a rendition's partials */
    int records;                        /* a rendition's partial records */
    int smem;
};

/*
 * The launches of every scale, their float planes (scales 1-4 of both
 * inputs, about a third of a plane's samples each) and the blocks' partial
 * records.  Everything but the frames' pointers is set here.
 */
int ff_fssim_cuda_msssim_init(FSSIMEngine *e, FSSIMCuda *c, FSSIMCudaMsssim **pms)
{
    CudaFunctions *cu = c->cu;
    const double L = (double)((1 << e->fmt.depth) - 1);
    size_t off[4][FSSIM_MS_SCALES], bytes = 0;
    int pitch[4][FSSIM_MS_SCALES];
    double g[FSSIM_MAX_WINDOW] = { 0 };
    FSSIMCudaMsssim *b;
    int ret;

    b = *pms = av_mallocz(sizeof(*b));
    if (!b)
        return AVERROR(ENOMEM);
    ff_fssim_ref_gauss_weights(e->opts->window, e->opts->sigma, g);
    for (int i = 0; i < e->fmt.nb_comps; i++) {
        for (int j = 1; j < FSSIM_MS_SCALES; j++) {
            int sw, sh;
            ff_fssim_ref_msssim_scale_size(e->fmt.comp[i].width, e->fmt.comp[i].height, j,
                                           &sw, &sh);
            pitch[i][j] = FFALIGN(sw * (int)sizeof(float), FSSIM_CUDA_ALIGN);
            off[i][j]   = bytes;
            bytes += 2 * (size_t)pitch[i][j] * sh;   /* main, then ref */
        }
    }
    for (int j = 0; j < FSSIM_MS_SCALES; j++) {
        FSSIMCudaMsParams *mp = &b->ms[j];
        memset(mp, 0, sizeof(*mp));
        mp->c1 = (float)FSSIM_FLOAT_C1(L);
        mp->c2 = (float)FSSIM_FLOAT_C2(L);
        for (int k = 0; k < e->opts->window; k++)
            mp->g[k] = (float)g[k];
        mp->nb_planes = e->fmt.nb_comps;
        mp->level  = j;
        mp->radius = e->opts->window / 2;
        b->first[j] = b->records;
        for (int i = 0; i < e->fmt.nb_comps; i++) {
            const FSSIMPlane *p = &e->fmt.comp[i];
            FSSIMCudaMsPlane *pl = &mp->plane[i];
            int gx, gy;
            ff_fssim_ref_msssim_scale_size(p->width, p->height, j, &pl->width, &pl->height);
            pl->step  = j ? 1 : p->step;
            pl->shift = j ? 0 : p->shift;
            pl->first_tile = b->blocks[j];
            b->reduce.offset[i * FSSIM_MS_SCALES + j] = b->first[j] + b->blocks[j];
            b->reduce.count[i * FSSIM_MS_SCALES + j]  =
                fssim_cuda_nb_blocks(pl->width, pl->height, &gx, &gy);
            pl->tiles_x = gx;
            b->blocks[j] += gx * gy;
        }
        b->records += b->blocks[j];
    }
    b->smem = fssim_ms_smem_layout(e->opts->window / 2).total;

    ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuModuleGetFunction(&b->scale_func, c->module,
                                                            "fssim_ms_scale"));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuModuleGetFunction(&b->reduce_func, c->module,
                                                                "fssim_ms_reduce"));
    if (ret >= 0)
        ret = ff_fssim_cuda_set_smem(e->ctx, c, b->scale_func, b->smem, "algo=msssim");
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuMemAlloc(&b->levels, bytes));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuMemAlloc(&b->partials, (size_t)e->nb_dist *
                                                       b->records * 2 * sizeof(double)));
    if (ret < 0)
        return ret;

    /* scale j reads the planes scale j - 1 pooled into */
    for (int j = 0; j < FSSIM_MS_SCALES; j++) {
        for (int i = 0; i < e->fmt.nb_comps; i++) {
            FSSIMCudaMsPlane *pl = &b->ms[j].plane[i];
            if (j) {
                pl->main_ptr   = b->levels + off[i][j];
                pl->ref_ptr    = pl->main_ptr + (size_t)pitch[i][j] * pl->height;
                pl->main_pitch = pl->ref_pitch = pitch[i][j];
            }
            if (j + 1 < FSSIM_MS_SCALES) {
                const FSSIMCudaMsPlane *next = &b->ms[j + 1].plane[i];
                pl->main_next  = b->levels + off[i][j + 1];
                pl->ref_next   = pl->main_next + (size_t)pitch[i][j + 1] * next->height;
                pl->next_pitch = pitch[i][j + 1];
            }
        }
    }
    av_log(e->ctx, AV_LOG_VERBOSE, "msssim: %d blocks over 5 scales, %d bytes of shared "
           "memory each, %zu bytes of pooled planes\n", b->records, b->smem, bytes);
    return 0;
}

size_t ff_fssim_cuda_msssim_slot_bytes(const FSSIMEngine *e)
{
    return (size_t)e->nb_dist * e->fmt.nb_comps * 2 * FSSIM_MS_SCALES * sizeof(double);
}

int ff_fssim_cuda_msssim_launch(FSSIMEngine *e, FSSIMCuda *c, FSSIMCudaMsssim *b, int k,
                                const AVFrame *ref, const AVFrame *dist,
                                const FSSIMCudaResampled *rs, CUdeviceptr results)
{
    CudaFunctions *cu = c->cu;
    const CUdeviceptr partials = b->partials + (size_t)k * b->records * 2 * sizeof(double);
    void *args[1];
    int ret = 0;

    for (int i = 0; i < e->fmt.nb_comps; i++) {
        const FSSIMPlane *p = &e->fmt.comp[i];
        FSSIMCudaMsPlane *pl = &b->ms[0].plane[i];
        /* a resampled rendition: its frame at the reference's size, as the
         * fused kernels read it */
        pl->main_ptr   = (rs ? rs->data[p->plane] : (CUdeviceptr)dist->data[p->plane]) +
                         p->offset;
        pl->main_pitch = rs ? rs->pitch[p->plane] : dist->linesize[p->plane];
        pl->ref_ptr    = (CUdeviceptr)ref->data[p->plane] + p->offset;
        pl->ref_pitch  = ref->linesize[p->plane];
    }
    for (int j = 0; j < FSSIM_MS_SCALES && ret >= 0; j++) {
        b->ms[j].partials = partials + (size_t)b->first[j] * 2 * sizeof(double);
        args[0] = &b->ms[j];
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuLaunchKernel(b->scale_func, b->blocks[j],
                                                           1, 1, FSSIM_TILE,
                                                           FSSIM_THREADS / FSSIM_TILE, 1,
                                                           b->smem, c->stream, args, NULL));
    }
    if (ret < 0)
        return ret;
    b->reduce.partials = partials;
    b->reduce.out = results + (size_t)k * e->fmt.nb_comps * 2 * FSSIM_MS_SCALES * sizeof(double);
    args[0] = &b->reduce;
    return FSSIM_CHECK_CU(c, e->ctx, cu->cuLaunchKernel(b->reduce_func,
                                                        e->fmt.nb_comps * FSSIM_MS_SCALES, 1, 1,
                                                        FSSIM_TILE, FSSIM_THREADS / FSSIM_TILE,
                                                        1, 0, c->stream, args, NULL));
}

void ff_fssim_cuda_msssim_read(const FSSIMEngine *e, const double *r, int k, int c,
                               FSSIMSum *v)
{
    const double *ms = r + ((size_t)k * e->fmt.nb_comps + c) * 2 * FSSIM_MS_SCALES;

    for (int j = 0; j < FSSIM_MS_SCALES; j++) {
        v[FSSIM_PART_MS_S(j)].d  = ms[2 * j];
        v[FSSIM_PART_MS_CS(j)].d = ms[2 * j + 1];
    }
}

void ff_fssim_cuda_msssim_uninit(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaMsssim **pms)
{
    FSSIMCudaMsssim *b = *pms;

    if (!b)
        return;
    if (c->cu) {
        FSSIM_FREE_CU(c, ctx, c->cu->cuCtxPushCurrent(c->cu_ctx));
        ff_fssim_cuda_free_mem(ctx, c, b->levels);
        ff_fssim_cuda_free_mem(ctx, c, b->partials);
        FSSIM_FREE_CU(c, ctx, c->cu->cuCtxPopCurrent(&(CUcontext){ NULL }));
    }
    av_freep(pms);
}
