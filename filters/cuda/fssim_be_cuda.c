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
 * 2-D (fssim_cuda): one fused kernel per plane (fssim_plane,
 * fssim_plane.cuh) computes every requested algorithm for every
 * rendition from one read of each sample, the reference's own terms once,
 * into per-tile partial sums, and fssim_reduce adds them per plane and
 * rendition in a fixed order into the job's slot.
 * A rendition (or a pair's main input) of another size or format is first
 * resampled (fssim_resample.cuh, a module of its own loaded only
 * then: one launch per rendition, both passes in shared memory, reading the
 * rendition in its own layout) into a frame of the reference's size, depth
 * and layout in device memory.
 * MS-SSIM (fssim_msssim.cuh): per rendition, one fssim_ms_scale
 * launch per scale over every plane, each pooling the next scale into
 * float planes allocated once (the stream orders the renditions, so one set
 * serves them all), then fssim_ms_reduce into the slot, after the fused
 * kernels' sums.  vmaf_ssim and vmaf_msssim: fssim_cuda_vmaf.c, their sums
 * after msssim's.
 *
 * 3-D (fssim3d): per frame pair, fssim3d_moments computes the spatial
 * moments (of the main input's resampled planes where it is resampled,
 * 16-bit values) into the frame's slot of a ring in device memory (the one
 * full-size intermediate doc/algorithms.md#fssim3d allows: 4 floats per
 * scored position -- mu_a, mu_b, var_a + var_b, cov); per scored frame,
 * fssim3d_score combines the ring slots of its temporal window in double
 * and fssim3d_sum adds the partials per plane into the job's slot.
 *
 * Everything runs on the backend's own non-blocking stream, ordered after
 * the frames' stream (often the legacy default stream, which would
 * otherwise serialise the kernels with the decoder) by an event.
 */
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "libavutil/avassert.h"
#include "libavutil/mem.h"
#include "libavfilter/filters.h"

#include "fssim_cuda_params.h"
#include "fssim3d_cuda_params.h"
#include "fssim_cuda_common.h"
#include "fssim_cuda_vmaf.h"
#include "../engine/fssim_engine.h"

#define OFFSET_ALIGN 256

/* A resampled rendition: the frame it is resampled into (at the
 * reference's size and depth, in its layout; fssim3d: planes of 16-bit
 * values), and its launch: the kernel for the rendition's container. */
typedef struct CUDAResampled {
    CUdeviceptr data[4];
    int         pitch[4];
    CUfunction  func;
    FSSIMCudaResampleParams rp;
    int         nb_blocks;
} CUDAResampled;

/* 3-D: what one scored frame sends to the GPU, per result slot. */
typedef struct CUDAWindows {
    FSSIM3DCudaWindow   *host;       /* pinned, nb_slots */
    CUdeviceptr          dev;        /* nb_slots */
} CUDAWindows;

typedef struct CUDABackend {
    FSSIMCuda      cuda;
    FSSIMCudaSlots slots;
    int            smem_bytes;

    /* 2-D */
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
    CUDAResampled rs[FSSIM_MAX_DIST];
    CUdeviceptr tables;                 /* every axis's coefficients and bands */
    size_t fused_bytes;                 /* a slot's chunk sums of fssim_reduce; msssim's follow */

    /* msssim */
    CUfunction ms_scale_func, ms_reduce_func;
    CUdeviceptr ms_levels;              /* scales 1-4 of both planes of every component */
    CUdeviceptr ms_partials;            /* per rendition: 2 doubles per block of each scale */
    FSSIMCudaMsParams ms[FSSIM_MS_SCALES];
    FSSIMCudaMsReduceParams ms_reduce;
    int ms_blocks[FSSIM_MS_SCALES];     /* blocks of each scale's launch */
    int ms_first[FSSIM_MS_SCALES];      /* their first record in a rendition's partials */
    int ms_records;                     /* a rendition's partial records */
    int ms_smem;
    size_t ms_bytes;                    /* a slot's msssim sums; vmaf's follow */

    FSSIMCudaVmaf *vmaf;                /* vmaf_ssim, vmaf_msssim (fssim_cuda_vmaf.c) */

    /* 3-D */
    CUfunction moments_func, score_func, sum_func;
    FSSIM3DCudaMomentParams mp[4];
    FSSIM3DCudaScoreParams  sp[4];
    FSSIM3DCudaSumParams    sum;
    int    grid3d[4][2];
    int    score_blocks[4];
    size_t comp_offset[4];              /* component records in a ring slot, bytes */
    size_t ring_slot_bytes;
    CUdeviceptr ring;                   /* depth * ring_slot_bytes */
    CUDAWindows win;
    CUevent  mready;                    /* on the frames' stream */
    /* per ring slot: its moments kernels' start and end, and the frames
     * they read, held until the end event has completed */
    CUevent  mstart[FSSIM3D_MAX_RING], mdone[FSSIM3D_MAX_RING];
    AVFrame *mframes[FSSIM3D_MAX_RING][2];
    double   moments_ms;
    uint64_t nb_moments;
} CUDABackend;

static int push(FSSIMEngine *e, FSSIMCuda *c)
{
    return FSSIM_CHECK_CU(c, e->ctx, c->cu->cuCtxPushCurrent(c->cu_ctx));
}

static void pop(FSSIMEngine *e, FSSIMCuda *c)
{
    CUcontext dummy;
    FSSIM_FREE_CU(c, e->ctx, c->cu->cuCtxPopCurrent(&dummy));
}

static int cuda_check_inputs(FSSIMEngine *e, enum AVPixelFormat *sw_format)
{
    return ff_fssim_cuda_check_inputs(e->ctx, sw_format);
}

/* ---- 2-D ------------------------------------------------------------------ */

/* Bytes of the coefficient tables of one axis on the device: start, then
 * coef (upload_table). */
static size_t axis_bytes(const FSSIMRefResampleAxis *a)
{
    return FFALIGN((size_t)a->out * sizeof(int32_t), OFFSET_ALIGN) +
           FFALIGN((size_t)a->out * a->ntaps * sizeof(int32_t), OFFSET_ALIGN);
}

/* Rows of tiles of a resampled component. */
static int tiles_y(const FSSIMCudaResampleComp *p)
{
    const int rows = p->rows ? p->rows : FSSIM_RESAMPLE_DIRECT_ROWS;
    return (p->out_h + rows - 1) / rows;
}

/* Copy n int32s to the device tables at *off, and advance it. */
static int upload_table(FSSIMEngine *e, CUDABackend *b, size_t *off, const int32_t *v,
                        size_t n, unsigned long long *dev)
{
    FSSIMCuda *c = &b->cuda;

    *dev = b->tables + *off;
    *off += FFALIGN(n * sizeof(*v), OFFSET_ALIGN);
    return n ? FSSIM_CHECK_CU(c, e->ctx, c->cu->cuMemcpyHtoD(*dev, v, n * sizeof(*v))) : 0;
}

/* Component c of a resampled frame: the reference's layout, which the
 * fused kernels read; fssim3d's moments take a plane of 16-bit values per
 * component instead, whatever the depth, read with main_bytes 2. */
static FSSIMPlane resampled_plane(const FSSIMEngine *e, int c)
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
static int init_resample_comp(FSSIMEngine *e, CUDABackend *b, int k, int i, size_t *off)
{
    CUDAResampled *r = &b->rs[k];
    const FSSIMPlane p = resampled_plane(e, i), *in = &e->dist[k].comp[i];
    const FSSIMRefResampleAxis *ax = &e->axis[k][i][0], *ay = &e->axis[k][i][1];
    FSSIMCudaResampleComp *rp = &r->rp.comp[i];
    int32_t *bands;
    int ret, rows = ff_fssim_resample_tiles(ay, FSSIM_TILE, FSSIM_RESAMPLE_SPAN, &bands);

    if (rows < 0)
        return rows;
    *rp = (FSSIMCudaResampleComp) {
        .dst = r->data[p.plane] + p.offset, .dst_pitch = r->pitch[p.plane],
        .in_w = ax->in, .in_h = ay->in, .out_w = ax->out, .out_h = ay->out,
        .xtaps = ax->ntaps, .ytaps = ay->ntaps,
        .src_step = in->step, .src_shift = in->shift,
        .step = p.step, .shift = p.shift, .max = (1 << e->fmt.depth) - 1,
        .round = FSSIM_RESAMPLE_SHIFT(e->dist[k].depth, e->fmt.depth),
        .rows = rows, .tiles_x = (ax->out + FSSIM_TILE - 1) / FSSIM_TILE,
        .first_block = r->nb_blocks,
    };
    r->nb_blocks += rp->tiles_x * tiles_y(rp);
    ret = upload_table(e, b, off, ax->start, ax->out, &rp->xstart);
    if (ret >= 0)
        ret = upload_table(e, b, off, ax->coef, (size_t)ax->out * ax->ntaps, &rp->xcoef);
    if (ret >= 0)
        ret = upload_table(e, b, off, ay->start, ay->out, &rp->ystart);
    if (ret >= 0)
        ret = upload_table(e, b, off, ay->coef, (size_t)ay->out * ay->ntaps, &rp->ycoef);
    if (ret >= 0)
        ret = upload_table(e, b, off, bands, rows ? 2 * (size_t)tiles_y(rp) : 0, &rp->bands);
    av_free(bands);
    return ret;
}

/* The frames resampled renditions are scored from, the coefficient tables
 * and bands on the device, and the resampler's launches.  Context pushed. */
static int init_resampling(FSSIMEngine *e, CUDABackend *b)
{
    FSSIMCuda *c = &b->cuda;
    CudaFunctions *cu = c->cu;
    size_t tables = 0, off = 0;
    int ret = 0;

    for (int k = 0; k < e->nb_dist; k++)
        for (int i = 0; e->resample[k] && i < e->fmt.nb_comps; i++) {
            const FSSIMRefResampleAxis *ay = &e->axis[k][i][1];
            /* the bands: at most one per output row */
            tables += axis_bytes(&e->axis[k][i][0]) + axis_bytes(ay) +
                      FFALIGN(2 * sizeof(int32_t) * ay->out, OFFSET_ALIGN);
        }
    if (!tables)
        return 0;
    ret = ff_fssim_cuda_load_resampler(e->ctx, c);
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuMemAlloc(&b->tables, tables));
    for (int k = 0; k < e->nb_dist && ret >= 0; k++) {
        CUDAResampled *r = &b->rs[k];
        int rows[4] = { 0 };
        char name[32];

        if (!e->resample[k])
            continue;
        /* the kernel of the rendition's container and the written one's */
        snprintf(name, sizeof(name), "fssim_resample_%dto%d", 8 * e->dist[k].comp[0].bytes,
                 8 * resampled_plane(e, 0).bytes);
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuModuleGetFunction(&r->func, c->resampler, name));
        /* the frame: each data plane as wide and high as its components */
        for (int i = 0; i < e->fmt.nb_comps; i++) {
            const FSSIMPlane p = resampled_plane(e, i);
            r->pitch[p.plane] = FFMAX(r->pitch[p.plane],
                                      FFALIGN(p.offset + p.width * p.step * p.bytes,
                                              OFFSET_ALIGN));
            rows[p.plane] = FFMAX(rows[p.plane], p.height);
        }
        for (int j = 0; j < 4 && ret >= 0; j++)
            if (rows[j])
                ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuMemAlloc(&r->data[j],
                                                               (size_t)r->pitch[j] * rows[j]));
        r->rp.nb_comps = e->fmt.nb_comps;
        for (int i = 0; i < e->fmt.nb_comps && ret >= 0; i++)
            ret = init_resample_comp(e, b, k, i, &off);
    }
    return ret;
}

/* Resample rendition k's frame into its frame at the reference's size. */
static int launch_resample(FSSIMEngine *e, CUDABackend *b, int k, const AVFrame *dist)
{
    FSSIMCuda *c = &b->cuda;
    CUDAResampled *r = &b->rs[k];
    void *args[] = { &r->rp };

    for (int i = 0; i < e->fmt.nb_comps; i++) {
        const FSSIMPlane *p = &e->dist[k].comp[i];
        r->rp.comp[i].src       = (CUdeviceptr)dist->data[p->plane] + p->offset;
        r->rp.comp[i].src_pitch = dist->linesize[p->plane];
    }
    return FSSIM_CHECK_CU(c, e->ctx, c->cu->cuLaunchKernel(r->func, r->nb_blocks, 1, 1,
                                                           FSSIM_TILE,
                                                           FSSIM_THREADS / FSSIM_TILE, 1, 0,
                                                           c->stream, args, NULL));
}

/*
 * msssim: the launches of every scale, their float planes (scales 1-4 of
 * both inputs, about a third of a plane's samples each) and the blocks'
 * partial records.  Everything but the frames' pointers is set here.
 * Context pushed.
 */
static int init_msssim(FSSIMEngine *e, CUDABackend *b)
{
    FSSIMCuda *c = &b->cuda;
    CudaFunctions *cu = c->cu;
    const double L = (double)((1 << e->fmt.depth) - 1);
    size_t off[4][FSSIM_MS_SCALES], bytes = 0;
    int pitch[4][FSSIM_MS_SCALES];
    double g[FSSIM_MAX_WINDOW] = { 0 };
    int ret;

    ff_fssim_ref_gauss_weights(e->opts->window, e->opts->sigma, g);
    for (int i = 0; i < e->fmt.nb_comps; i++) {
        for (int j = 1; j < FSSIM_MS_SCALES; j++) {
            int sw, sh;
            ff_fssim_ref_msssim_scale_size(e->fmt.comp[i].width, e->fmt.comp[i].height, j,
                                           &sw, &sh);
            pitch[i][j] = FFALIGN(sw * (int)sizeof(float), OFFSET_ALIGN);
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
        b->ms_first[j] = b->ms_records;
        for (int i = 0; i < e->fmt.nb_comps; i++) {
            const FSSIMPlane *p = &e->fmt.comp[i];
            FSSIMCudaMsPlane *pl = &mp->plane[i];
            int gx, gy;
            ff_fssim_ref_msssim_scale_size(p->width, p->height, j, &pl->width, &pl->height);
            pl->step  = j ? 1 : p->step;
            pl->shift = j ? 0 : p->shift;
            pl->first_tile = b->ms_blocks[j];
            b->ms_reduce.offset[i * FSSIM_MS_SCALES + j] = b->ms_first[j] + b->ms_blocks[j];
            b->ms_reduce.count[i * FSSIM_MS_SCALES + j]  =
                fssim_cuda_nb_blocks(pl->width, pl->height, &gx, &gy);
            pl->tiles_x = gx;
            b->ms_blocks[j] += gx * gy;
        }
        b->ms_records += b->ms_blocks[j];
    }
    b->ms_smem = fssim_ms_smem_layout(e->opts->window / 2).total;

    ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuModuleGetFunction(&b->ms_scale_func, c->module,
                                                            "fssim_ms_scale"));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuModuleGetFunction(&b->ms_reduce_func, c->module,
                                                                "fssim_ms_reduce"));
    if (ret >= 0)
        ret = ff_fssim_cuda_set_smem(e->ctx, c, b->ms_scale_func, b->ms_smem,
                                     "algo=msssim");
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuMemAlloc(&b->ms_levels, bytes));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuMemAlloc(&b->ms_partials, (size_t)e->nb_dist *
                                                       b->ms_records * 2 * sizeof(double)));
    if (ret < 0)
        return ret;

    /* scale j reads the planes scale j - 1 pooled into */
    for (int j = 0; j < FSSIM_MS_SCALES; j++) {
        for (int i = 0; i < e->fmt.nb_comps; i++) {
            FSSIMCudaMsPlane *pl = &b->ms[j].plane[i];
            if (j) {
                pl->main_ptr   = b->ms_levels + off[i][j];
                pl->ref_ptr    = pl->main_ptr + (size_t)pitch[i][j] * pl->height;
                pl->main_pitch = pl->ref_pitch = pitch[i][j];
            }
            if (j + 1 < FSSIM_MS_SCALES) {
                const FSSIMCudaMsPlane *next = &b->ms[j + 1].plane[i];
                pl->main_next  = b->ms_levels + off[i][j + 1];
                pl->ref_next   = pl->main_next + (size_t)pitch[i][j + 1] * next->height;
                pl->next_pitch = pitch[i][j + 1];
            }
        }
    }
    av_log(e->ctx, AV_LOG_VERBOSE, "msssim: %d blocks over 5 scales, %d bytes of shared "
           "memory each, %zu bytes of pooled planes\n", b->ms_records, b->ms_smem, bytes);
    return 0;
}

/* msssim of rendition k: the five scales, then the reduction into its part
 * of the slot. */
static int launch_msssim(FSSIMEngine *e, CUDABackend *b, int k, const AVFrame *ref,
                         const AVFrame *dist, CUdeviceptr results)
{
    FSSIMCuda *c = &b->cuda;
    CudaFunctions *cu = c->cu;
    const CUDAResampled *rs = e->resample[k] ? &b->rs[k] : NULL;
    const CUdeviceptr partials = b->ms_partials + (size_t)k * b->ms_records * 2 * sizeof(double);
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
        b->ms[j].partials = partials + (size_t)b->ms_first[j] * 2 * sizeof(double);
        args[0] = &b->ms[j];
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuLaunchKernel(b->ms_scale_func, b->ms_blocks[j],
                                                           1, 1, FSSIM_TILE,
                                                           FSSIM_THREADS / FSSIM_TILE, 1,
                                                           b->ms_smem, c->stream, args, NULL));
    }
    if (ret < 0)
        return ret;
    b->ms_reduce.partials = partials;
    b->ms_reduce.out = results + b->fused_bytes +
                       (size_t)k * e->fmt.nb_comps * 2 * FSSIM_MS_SCALES * sizeof(double);
    args[0] = &b->ms_reduce;
    return FSSIM_CHECK_CU(c, e->ctx, cu->cuLaunchKernel(b->ms_reduce_func,
                                                        e->fmt.nb_comps * FSSIM_MS_SCALES, 1, 1,
                                                        FSSIM_TILE, FSSIM_THREADS / FSSIM_TILE,
                                                        1, 0, c->stream, args, NULL));
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

    ret = push(e, c);
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
        ret = init_resampling(e, b);
    if (ret >= 0 && (e->opts->algos & FSSIM_BIT(FSSIM_ALGO_MSSSIM)))
        ret = init_msssim(e, b);
    if (ret >= 0 && ff_fssim_cuda_vmaf_wanted(e))
        ret = ff_fssim_cuda_vmaf_init(e, c, &b->vmaf);
    pop(e, c);
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
    b->ms_bytes = e->opts->algos & FSSIM_BIT(FSSIM_ALGO_MSSSIM) ?
                  (size_t)e->nb_dist * e->fmt.nb_comps * 2 * FSSIM_MS_SCALES * sizeof(double) : 0;
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
            const CUDAResampled *rs = e->resample[k] ? &b->rs[k] : NULL;
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
            ret = launch_resample(e, b, ks[i], dist[ks[i]]);
    for (int i = 0; i < n && ret >= 0 && msssim; i++)
        ret = launch_msssim(e, b, ks[i], ref, dist[ks[i]], results);
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
            const CUDAResampled *rs = e->resample[k] ? &b->rs[k] : NULL;
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

    ret = push(e, c);
    if (ret < 0)
        return ret;
    ret = ff_fssim_cuda_slot_begin(e->ctx, c, &b->slots, slot, frames, e->nb_dist + 1);
    if (ret >= 0)
        ret = launch_2d(e, b, ref, dist, ks, n, results);
    if (ret >= 0)
        ret = ff_fssim_cuda_slot_end(e->ctx, c, &b->slots, slot);
    pop(e, c);
    return ret;
}

/* msssim's sums of plane c of rendition k in a slot (see launch_msssim). */
static void read_msssim(const FSSIMEngine *e, const CUDABackend *b, const double *r, int k,
                        int c, FSSIMSum *v)
{
    const double *ms = r + b->fused_bytes / sizeof(double) +
                       ((size_t)k * e->fmt.nb_comps + c) * 2 * FSSIM_MS_SCALES;

    for (int j = 0; j < FSSIM_MS_SCALES; j++) {
        v[FSSIM_PART_MS_S(j)].d  = ms[2 * j];
        v[FSSIM_PART_MS_CS(j)].d = ms[2 * j + 1];
    }
}

static int cuda_collect(FSSIMEngine *e, int slot, int wait, FSSIMSums *sums)
{
    CUDABackend *b = e->priv;
    const double *r;
    int ret;

    ret = ff_fssim_cuda_slot_collect(e->ctx, &b->cuda, &b->slots, slot, wait,
                                     (const void **)&r);
    if (ret <= 0)
        return ret;
    for (int k = 0; k < (e->opts->depth ? 1 : e->nb_dist); k++) {
        for (int c = 0; c < e->fmt.nb_comps; c++) {
            FSSIMSum *v = sums->v[k][c];
            if (e->opts->depth) {
                v[FSSIM_PART_FLOAT].d = r[c];
                continue;
            }
            if (b->fused_bytes) {
                double parts[FSSIM_NB_FUSED_PARTS];
                fssim_cuda_chunk_sums(r, &b->reduce, k, c, parts);
                /* the bits as they are: the sse part is an integer */
                memcpy(v, parts, sizeof(parts));
            }
            if (e->opts->algos & FSSIM_BIT(FSSIM_ALGO_MSSSIM))
                read_msssim(e, b, r, k, c, v);
        }
        if (b->vmaf)
            ff_fssim_cuda_vmaf_read(e, b->vmaf, r + (b->fused_bytes + b->ms_bytes) / sizeof(double),
                                    k, sums->v[k]);
    }
    return 1;
}

/* ---- 3-D ------------------------------------------------------------------ */

/* Release the frames of ring slot k once its moments kernels are done
 * (wait: block until they are), and account their GPU time. */
static int release_ring_slot(FSSIMEngine *e, CUDABackend *b, int k, int wait)
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

static int init_3d(FSSIMEngine *e, CUDABackend *b, size_t *bytes)
{
    FSSIM_CUDA_IMAGE_EXTERN(fssim3d);
    FSSIM_CUDA_IMAGE_EXTERN(fssim3d_any);
    const FSSIMCudaImage images[2] = { FSSIM_CUDA_IMAGE(fssim3d), FSSIM_CUDA_IMAGE(fssim3d_any) };
    AVFilterContext *ctx = e->ctx;
    const int r = e->opts->window / 2;
    const int any = e->opts->window != FSSIM_DEFAULT_WINDOW;
    const double L = (double)((1 << e->fmt.depth) - 1);
    FSSIMCuda *c = &b->cuda;
    CudaFunctions *cu;
    size_t free_bytes = 0, total_bytes = 0;
    CUdevice device = 0;
    int nb_blocks = 0, ret;

    av_assert0(FSSIM3D_MAX_DEPTH <= FSSIM3D_CUDA_MAX_TAPS);
    /* the ring's size first, so that it is reported even if a step fails */
    for (int i = 0; i < e->fmt.nb_comps; i++) {
        const FSSIMPlane *p = &e->fmt.comp[i];
        FSSIM3DCudaMomentParams *mp = &b->mp[i];
        int n;

        ff_fssim3d_cuda_fill_moment_params(mp, p->width, p->height, p->bytes, p->step, p->shift,
                                           e->opts->window, e->opts->sigma,
                                           e->opts->padding == FSSIM_REF_PAD_SAME);
        if (e->resample[0]) {
            const FSSIMPlane rp = resampled_plane(e, i);
            mp->main_bytes = rp.bytes;
            mp->main_step  = rp.step;
            mp->main_shift = rp.shift;
        }
        /* ff_fssim_check_options() made sure every plane scores something */
        n = mp->out_w * mp->out_h;
        b->grid3d[i][0] = (mp->out_w + FSSIM_TILE - 1) / FSSIM_TILE;
        b->grid3d[i][1] = (mp->out_h + FSSIM_TILE - 1) / FSSIM_TILE;
        b->comp_offset[i] = b->ring_slot_bytes;
        b->ring_slot_bytes += FFALIGN((size_t)n * FSSIM3D_MOMENTS * sizeof(float), OFFSET_ALIGN);
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

    ret = push(e, c);
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
        ret = init_resampling(e, b);
    for (int k = 0; k < e->ring_size && ret >= 0; k++) {
        ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventCreate(&b->mstart[k], CU_EVENT_DEFAULT));
        if (ret >= 0)
            ret = FSSIM_CHECK_CU(c, ctx, cu->cuEventCreate(&b->mdone[k], CU_EVENT_DEFAULT));
    }
    pop(e, c);
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

static int cuda_moments(FSSIMEngine *e, int k, const AVFrame *ref, const AVFrame *dist)
{
    CUDABackend *b = e->priv;
    FSSIMCuda *c = &b->cuda;
    CudaFunctions *cu = c->cu;
    int ret;

    if (c->failed)
        return c->failed;
    ret = push(e, c);
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
        ret = launch_resample(e, b, 0, dist);
    for (int i = 0; i < e->fmt.nb_comps && ret >= 0; i++) {
        const FSSIMPlane *p = &e->fmt.comp[i];
        const CUDAResampled *rs = e->resample[0] ? &b->rs[0] : NULL;
        const FSSIMPlane rp = resampled_plane(e, i);
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
    pop(e, c);
    return ret;
}

static int cuda_submit3d(FSSIMEngine *e, int slot, const FSSIM3DWindow *win)
{
    CUDABackend *b = e->priv;
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

    ret = push(e, c);
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
    pop(e, c);
    return ret;
}

/* ---- set-up and teardown ------------------------------------------------- */

static int cuda_init(FSSIMEngine *e, size_t *ring_bytes)
{
    CUDABackend *b = e->priv;

    return e->opts->depth ? init_3d(e, b, ring_bytes) : init_2d(e, b);
}

static void cuda_uninit(FSSIMEngine *e)
{
    AVFilterContext *ctx = e->ctx;
    CUDABackend *b = e->priv;
    FSSIMCuda *c = &b->cuda;

    if (e->opts->depth && b->slots.nb_timed && b->nb_moments) {
        const double mus = 1000.0 * b->moments_ms / b->nb_moments;
        const double sus = 1000.0 * b->slots.gpu_ms / b->slots.nb_timed;
        av_log(ctx, AV_LOG_VERBOSE, "GPU time per frame pair: %.1f us over %"PRIu64" frames "
               "(spatial moments %.1f us, temporal window and score %.1f us)\n",
               mus + sus, b->slots.nb_timed, mus, sus);
    } else if (!e->opts->depth && b->slots.nb_timed) {
        av_log(ctx, AV_LOG_VERBOSE, "GPU time per frame pair: %.1f us over %"PRIu64" frames\n",
               1000.0 * b->slots.gpu_ms / b->slots.nb_timed, b->slots.nb_timed);
    }
    /* waits for the stream: nothing reads the frames or writes the buffers
     * after this */
    ff_fssim_cuda_slots_uninit(ctx, c, &b->slots);
    ff_fssim_cuda_vmaf_uninit(ctx, c, &b->vmaf);
    if (c->cu) {
        CudaFunctions *cu = c->cu;
        FSSIM_FREE_CU(c, ctx, cu->cuCtxPushCurrent(c->cu_ctx));
        for (int k = 0; k < FSSIM3D_MAX_RING; k++) {
            ff_fssim_cuda_free_event(ctx, c, b->mstart[k]);
            ff_fssim_cuda_free_event(ctx, c, b->mdone[k]);
        }
        ff_fssim_cuda_free_event(ctx, c, b->mready);
        ff_fssim_cuda_free_mem(ctx, c, b->partials);
        for (int j = 0; j < 3; j++) {
            if (b->side[j])
                FSSIM_FREE_CU(c, ctx, cu->cuStreamDestroy(b->side[j]));
            ff_fssim_cuda_free_event(ctx, c, b->join[j]);
        }
        ff_fssim_cuda_free_event(ctx, c, b->fork);
        for (int k = 0; k < FSSIM_MAX_DIST; k++)
            for (int j = 0; j < 4; j++)
                ff_fssim_cuda_free_mem(ctx, c, b->rs[k].data[j]);
        ff_fssim_cuda_free_mem(ctx, c, b->tables);
        ff_fssim_cuda_free_mem(ctx, c, b->ms_levels);
        ff_fssim_cuda_free_mem(ctx, c, b->ms_partials);
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
}

/* This backend's entries of the interface (fssim_engine.h); each backend has its own. */
const FSSIMBackend ff_fssim_cuda_backend = {
    .name         = "CUDA",
    .priv_size    = sizeof(CUDABackend),
    /* Frames whose scores may still be on their way back from the GPU.
     * Frames reach the filter in bursts (seven decoders, B-frame reordering),
     * and a full queue makes the filter wait on the GPU, which holds back
     * every decoder behind it: with 4, a 2160p ladder at 1.9 ms of GPU time
     * per ladder frame ran at 0.90 of decoding speed, with 16 at 1.00 (H200,
     * doc/performance.md).  A slot costs its partial sums on the device
     * (2.3 MiB for a 2160p ladder) and holds its input frames until scored. */
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
