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
 * fssim: the resampling of renditions (and of a pair's main input, or
 * fssim3d's) of another size or format on CUDA frames, with the engine's
 * coefficients (e->axis): one launch per rendition of the resampler's own
 * module (fssim_resample.cuh, loaded only here), which reads the rendition
 * in its own container and layout and writes the reference's, its blocks
 * keeping the horizontal pass of their band of rows in shared memory.
 */
#include <stdio.h>

#include "libavutil/mem.h"

#include "../engine/fssim_resample_tiles.h"
#include "fssim_cuda_resample.h"

/* Bytes of the coefficient tables of one axis on the device: start, then
 * coef (upload_table). */
static size_t axis_bytes(const FSSIMRefResampleAxis *a)
{
    return FFALIGN((size_t)a->out * sizeof(int32_t), FSSIM_CUDA_ALIGN) +
           FFALIGN((size_t)a->out * a->ntaps * sizeof(int32_t), FSSIM_CUDA_ALIGN);
}

/* Rows of tiles of a resampled component. */
static int tiles_y(const FSSIMCudaResampleComp *p)
{
    const int rows = p->rows ? p->rows : FSSIM_RESAMPLE_DIRECT_ROWS;
    return (p->out_h + rows - 1) / rows;
}

/* Copy n int32s to the device tables at *off, and advance it. */
static int upload_table(FSSIMEngine *e, FSSIMCuda *c, FSSIMCudaResampler *r, size_t *off,
                        const int32_t *v, size_t n, unsigned long long *dev)
{
    *dev = r->tables + *off;
    *off += FFALIGN(n * sizeof(*v), FSSIM_CUDA_ALIGN);
    return n ? FSSIM_CHECK_CU(c, e->ctx, c->cu->cuMemcpyHtoD(*dev, v, n * sizeof(*v))) : 0;
}

FSSIMPlane ff_fssim_cuda_resampled_plane(const FSSIMEngine *e, int c)
{
    FSSIMPlane p = e->fmt.comp[c];

    if (e->opts->depth) {
        p.plane  = c;
        p.offset = p.shift = 0;
        p.bytes  = 2;
        p.step   = 1;
    }
    return p;
}

/* Component i of rendition k's launch: its geometry, its tables on the
 * device (the coefficients and the bands), its part of the grid. */
static int init_comp(FSSIMEngine *e, FSSIMCuda *c, FSSIMCudaResampler *r, int k, int i,
                     size_t *off)
{
    FSSIMCudaResampled *rs = &r->rs[k];
    const FSSIMPlane p = ff_fssim_cuda_resampled_plane(e, i), *in = &e->dist[k].comp[i];
    const FSSIMRefResampleAxis *ax = &e->axis[k][i][0], *ay = &e->axis[k][i][1];
    FSSIMCudaResampleComp *rp = &rs->rp.comp[i];
    int32_t *bands;
    int ret, rows = ff_fssim_resample_tiles(ay, FSSIM_TILE, FSSIM_RESAMPLE_SPAN, &bands);

    if (rows < 0)
        return rows;
    *rp = (FSSIMCudaResampleComp) {
        .dst = rs->data[p.plane] + p.offset, .dst_pitch = rs->pitch[p.plane],
        .in_w = ax->in, .in_h = ay->in, .out_w = ax->out, .out_h = ay->out,
        .xtaps = ax->ntaps, .ytaps = ay->ntaps,
        .src_step = in->step, .src_shift = in->shift,
        .step = p.step, .shift = p.shift, .max = (1 << e->fmt.depth) - 1,
        .round = FSSIM_RESAMPLE_SHIFT(e->dist[k].depth, e->fmt.depth),
        .rows = rows, .tiles_x = (ax->out + FSSIM_TILE - 1) / FSSIM_TILE,
        .first_block = rs->nb_blocks,
    };
    rs->nb_blocks += rp->tiles_x * tiles_y(rp);
    ret = upload_table(e, c, r, off, ax->start, ax->out, &rp->xstart);
    if (ret >= 0)
        ret = upload_table(e, c, r, off, ax->coef, (size_t)ax->out * ax->ntaps, &rp->xcoef);
    if (ret >= 0)
        ret = upload_table(e, c, r, off, ay->start, ay->out, &rp->ystart);
    if (ret >= 0)
        ret = upload_table(e, c, r, off, ay->coef, (size_t)ay->out * ay->ntaps, &rp->ycoef);
    if (ret >= 0)
        ret = upload_table(e, c, r, off, bands, rows ? 2 * (size_t)tiles_y(rp) : 0, &rp->bands);
    av_free(bands);
    return ret;
}

int ff_fssim_cuda_resample_init(FSSIMEngine *e, FSSIMCuda *c, FSSIMCudaResampler *r)
{
    CudaFunctions *cu = c->cu;
    size_t tables = 0, off = 0;
    int ret = 0;

    for (int k = 0; k < e->nb_dist; k++)
        for (int i = 0; e->resample[k] && i < e->fmt.nb_comps; i++) {
            const FSSIMRefResampleAxis *ay = &e->axis[k][i][1];
            /* the bands: at most one per output row */
            tables += axis_bytes(&e->axis[k][i][0]) + axis_bytes(ay) +
                      FFALIGN(2 * sizeof(int32_t) * ay->out, FSSIM_CUDA_ALIGN);
        }
    if (!tables)
        return 0;
    ret = ff_fssim_cuda_load_resampler(e->ctx, c);
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuMemAlloc(&r->tables, tables));
    for (int k = 0; k < e->nb_dist && ret >= 0; k++) {
        FSSIMCudaResampled *rs = &r->rs[k];
        int rows[4] = { 0 };
        char name[32];

        if (!e->resample[k])
            continue;
        /* the kernel of the rendition's container and the written one's */
        snprintf(name, sizeof(name), "fssim_resample_%dto%d", 8 * e->dist[k].comp[0].bytes,
                 8 * ff_fssim_cuda_resampled_plane(e, 0).bytes);
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuModuleGetFunction(&rs->func, c->resampler, name));
        /* the frame: each data plane as wide and high as its components */
        for (int i = 0; i < e->fmt.nb_comps; i++) {
            const FSSIMPlane p = ff_fssim_cuda_resampled_plane(e, i);
            rs->pitch[p.plane] = FFMAX(rs->pitch[p.plane],
                                       FFALIGN(p.offset + p.width * p.step * p.bytes,
                                               FSSIM_CUDA_ALIGN));
            rows[p.plane] = FFMAX(rows[p.plane], p.height);
        }
        for (int j = 0; j < 4 && ret >= 0; j++)
            if (rows[j])
                ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuMemAlloc(&rs->data[j],
                                                               (size_t)rs->pitch[j] * rows[j]));
        rs->rp.nb_comps = e->fmt.nb_comps;
        for (int i = 0; i < e->fmt.nb_comps && ret >= 0; i++)
            ret = init_comp(e, c, r, k, i, &off);
    }
    return ret;
}

int ff_fssim_cuda_resample_launch(FSSIMEngine *e, FSSIMCuda *c, FSSIMCudaResampler *r, int k,
                                  const AVFrame *dist)
{
    FSSIMCudaResampled *rs = &r->rs[k];
    void *args[] = { &rs->rp };

    for (int i = 0; i < e->fmt.nb_comps; i++) {
        const FSSIMPlane *p = &e->dist[k].comp[i];
        rs->rp.comp[i].src       = (CUdeviceptr)dist->data[p->plane] + p->offset;
        rs->rp.comp[i].src_pitch = dist->linesize[p->plane];
    }
    return FSSIM_CHECK_CU(c, e->ctx, c->cu->cuLaunchKernel(rs->func, rs->nb_blocks, 1, 1,
                                                           FSSIM_TILE,
                                                           FSSIM_THREADS / FSSIM_TILE, 1, 0,
                                                           c->stream, args, NULL));
}

void ff_fssim_cuda_resample_uninit(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaResampler *r)
{
    for (int k = 0; k < FSSIM_MAX_DIST; k++)
        for (int j = 0; j < 4; j++)
            ff_fssim_cuda_free_mem(ctx, c, r->rs[k].data[j]);
    ff_fssim_cuda_free_mem(ctx, c, r->tables);
}
