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
 * fssim: algo=vmaf_ssim and vmaf_msssim on CUDA frames
 * (doc/algorithms.md#vmaf_ssim-and-vmaf_msssim-in-the-filters), the host side of
 * fssim_vmaf.cuh.  Per job, on the filter's stream: the
 * reference's float planes (vmaf_ssim's decimated plane and vmaf_msssim's
 * five scales of every component), then per rendition its planes, the
 * scoring of every plane pair in one launch, and the reduction of the
 * blocks' sums into the rendition's share of the result slot.  The stream
 * orders the renditions, so one set of a rendition's planes and one set of
 * partial sums serve them all.  Everything but the frames' pointers is set
 * up once.
 */
#include <string.h>

#include "libavutil/mem.h"

#include "fssim_cuda_vmaf.h"
#include "fssim_vmaf_cuda_params.h"

enum { IMG_MAIN, IMG_REF, NB_IMG };

struct FSSIMCudaVmaf {
    CUmodule   module;
    CUfunction load, lpf, score, reduce;
    CUdeviceptr planes;               /* both images' float planes */
    CUdeviceptr partials;             /* FSSIM_VMAF_SUMS doubles per scoring block */
    FSSIMCudaVmafLoadParams load_p[NB_IMG];
    int load_blocks;
    int load_comp[8];                 /* each load job's component */
    FSSIMCudaVmafLpfParams lpf_p[NB_IMG][FSSIM_VMAF_SCALES];  /* [j]: scale j, 1 to 4 */
    int lpf_blocks[FSSIM_VMAF_SCALES];
    FSSIMCudaVmafScoreParams score_p;
    int score_blocks;
    FSSIMCudaVmafReduceParams reduce_p;
    /* each scoring job's component, and its scale (-1: vmaf_ssim) */
    int job_comp[FSSIM_VMAF_MAX_JOBS], job_scale[FSSIM_VMAF_MAX_JOBS];
};

int ff_fssim_cuda_vmaf_wanted(const FSSIMEngine *e)
{
    return !!(e->opts->algos & (FSSIM_BIT(FSSIM_ALGO_VMAF_SSIM) |
                                FSSIM_BIT(FSSIM_ALGO_VMAF_MSSSIM)));
}

static int blocks_of(int w, int h)
{
    return (w * h + FSSIM_THREADS - 1) / FSSIM_THREADS;
}

/* A float plane of w x h in the planes' buffer, at *off. */
static CUdeviceptr take(const FSSIMCudaVmaf *vm, size_t *off, int w, int h)
{
    const CUdeviceptr p = vm->planes + *off;

    *off += FFALIGN((size_t)w * h * sizeof(float), FSSIM_CUDA_ALIGN);
    return p;
}

/*
 * Every launch's parameters but the frames' pointers.  Each image (a
 * rendition, the reference) has, per component, vmaf_ssim's plane
 * decimated by the component's factor and vmaf_msssim's five scales.
 * Returns the bytes of float planes; run once to count them, and again
 * once they are allocated, for their addresses.
 */
static size_t setup(const FSSIMEngine *e, FSSIMCudaVmaf *vm)
{
    const int ssim = !!(e->opts->algos & FSSIM_BIT(FSSIM_ALGO_VMAF_SSIM));
    const int ms = !!(e->opts->algos & FSSIM_BIT(FSSIM_ALGO_VMAF_MSSSIM));
    CUdeviceptr sp[NB_IMG][4] = { { 0 } }, mp[NB_IMG][4][FSSIM_VMAF_SCALES] = { { { 0 } } };
    FSSIMCudaVmafScoreParams *sc = &vm->score_p;
    float c3[3];
    size_t off = 0;

    for (int i = 0; i < NB_IMG; i++) {
        FSSIMCudaVmafLoadParams *lp = &vm->load_p[i];
        lp->nb_jobs = 0;
        vm->load_blocks = 0;
        lp->inv = 1.0f / (float)(1 << (e->fmt.depth - 8));
        for (int c = 0; c < e->fmt.nb_comps; c++) {
            const FSSIMPlane *p = &e->fmt.comp[c];
            const int f = ff_fssim_ref_vmaf_scale(p->width, p->height);
            for (int t = 0; t < 2; t++) {
                FSSIMCudaVmafLoad *l = &lp->job[lp->nb_jobs];
                int dw, dh;
                if (!(t ? ms : ssim))
                    continue;
                ff_fssim_ref_vmaf_decimated_size(p->width, p->height, t ? 1 : f, &dw, &dh);
                *l = (FSSIMCudaVmafLoad) {
                    .step = p->step, .shift = p->shift, .width = p->width,
                    .height = p->height, .f = t ? 1 : f, .k = 1.0f / (float)(f * f),
                    .dst_w = dw, .dst_h = dh, .first_block = vm->load_blocks,
                };
                l->dst = t ? (mp[i][c][0] = take(vm, &off, dw, dh)) :
                             (sp[i][c] = take(vm, &off, dw, dh));
                vm->load_blocks += blocks_of(dw, dh);
                vm->load_comp[lp->nb_jobs++] = c;
            }
        }
        /* the scales after the first: one launch each, every component */
        for (int j = 1; ms && j < FSSIM_VMAF_SCALES; j++) {
            FSSIMCudaVmafLpfParams *q = &vm->lpf_p[i][j];
            q->nb_jobs = 0;
            vm->lpf_blocks[j] = 0;
            for (int v = 0; v < FSSIM_VMAF_LPF_TAPS; v++)
                for (int u = 0; u < FSSIM_VMAF_LPF_TAPS; u++)
                    q->lpf[v * FSSIM_VMAF_LPF_TAPS + u] = ff_fssim_ref_vmaf_lpf(v, u);
            for (int c = 0; c < e->fmt.nb_comps; c++) {
                const FSSIMPlane *p = &e->fmt.comp[c];
                FSSIMCudaVmafLpf *l = &q->job[q->nb_jobs++];
                ff_fssim_ref_vmaf_scale_size(p->width, p->height, j - 1, &l->src_w, &l->src_h);
                ff_fssim_ref_vmaf_scale_size(p->width, p->height, j, &l->dst_w, &l->dst_h);
                l->src = mp[i][c][j - 1];
                l->dst = mp[i][c][j] = take(vm, &off, l->dst_w, l->dst_h);
                l->first_block = vm->lpf_blocks[j];
                vm->lpf_blocks[j] += blocks_of(l->dst_w, l->dst_h);
            }
        }
    }

    /* the scoring: every plane pair of a rendition in one launch */
    sc->nb_jobs = 0;
    vm->score_blocks = 0;
    ff_fssim_ref_vmaf_constants(c3);
    memcpy(sc->c, c3, sizeof(c3));
    memcpy(sc->g, ff_fssim_ref_vmaf_gauss, sizeof(sc->g));
    for (int c = 0; c < e->fmt.nb_comps; c++) {
        for (int j = ssim ? -1 : 0; j < (ms ? FSSIM_VMAF_SCALES : 0); j++) {
            const FSSIMPlane *p = &e->fmt.comp[c];
            FSSIMCudaVmafScore *s = &sc->job[sc->nb_jobs];
            const int n = sc->nb_jobs++;
            int ty;
            if (j < 0)
                ff_fssim_ref_vmaf_decimated_size(p->width, p->height,
                                                 ff_fssim_ref_vmaf_scale(p->width, p->height),
                                                 &s->width, &s->height);
            else
                ff_fssim_ref_vmaf_scale_size(p->width, p->height, j, &s->width, &s->height);
            s->a = j < 0 ? sp[IMG_MAIN][c] : mp[IMG_MAIN][c][j];
            s->b = j < 0 ? sp[IMG_REF][c]  : mp[IMG_REF][c][j];
            s->tiles_x = (s->width - FSSIM_VMAF_WINDOW + FSSIM_VMAF_TILE) / FSSIM_VMAF_TILE;
            ty = (s->height - FSSIM_VMAF_WINDOW + FSSIM_VMAF_TILE) / FSSIM_VMAF_TILE;
            s->first_block = vm->score_blocks;
            vm->reduce_p.first[n] = vm->score_blocks;
            vm->reduce_p.count[n] = s->tiles_x * ty;
            vm->score_blocks += s->tiles_x * ty;
            vm->job_comp[n]  = c;
            vm->job_scale[n] = j;
        }
    }
    vm->reduce_p.nb_jobs = sc->nb_jobs;
    return off;
}

int ff_fssim_cuda_vmaf_init(FSSIMEngine *e, FSSIMCuda *c, FSSIMCudaVmaf **pvm)
{
    FSSIM_CUDA_IMAGE_EXTERN(fssim_vmaf);
    const FSSIMCudaImage img = FSSIM_CUDA_IMAGE(fssim_vmaf);
    const int bits = 8 * e->fmt.comp[0].bytes;
    CudaFunctions *cu = c->cu;
    FSSIMCudaVmaf *vm;
    size_t bytes;
    int ret;

    vm = *pvm = av_mallocz(sizeof(*vm));
    if (!vm)
        return AVERROR(ENOMEM);
    bytes = setup(e, vm);
    ret = ff_fssim_cuda_load_module(e->ctx, c, &img, &vm->module, "CUDA vmaf kernels");
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuModuleGetFunction(&vm->load, vm->module,
                                                                bits == 8 ? "fssim_vmaf_load_8" :
                                                                "fssim_vmaf_load_16"));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuModuleGetFunction(&vm->lpf, vm->module,
                                                                "fssim_vmaf_lpf"));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuModuleGetFunction(&vm->score, vm->module,
                                                                "fssim_vmaf_score"));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuModuleGetFunction(&vm->reduce, vm->module,
                                                                "fssim_vmaf_reduce"));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuMemAlloc(&vm->planes, FFMAX(bytes, 1)));
    if (ret >= 0)
        ret = FSSIM_CHECK_CU(c, e->ctx, cu->cuMemAlloc(&vm->partials,
                                                       (size_t)FFMAX(vm->score_blocks, 1) *
                                                       FSSIM_VMAF_SUMS * sizeof(double)));
    if (ret < 0)
        return ret;
    /* the planes' addresses, now that the buffer exists */
    setup(e, vm);
    vm->score_p.partials  = vm->partials;
    vm->reduce_p.partials = vm->partials;
    av_log(e->ctx, AV_LOG_VERBOSE, "vmaf: %zu bytes of float planes, %d scoring blocks per "
           "rendition.\n", bytes, vm->score_blocks);
    return 0;
}

size_t ff_fssim_cuda_vmaf_slot_bytes(const FSSIMEngine *e, const FSSIMCudaVmaf *vm)
{
    return (size_t)e->nb_dist * vm->score_p.nb_jobs * FSSIM_VMAF_SUMS * sizeof(double);
}

static int launch(FSSIMEngine *e, FSSIMCuda *c, CUfunction f, int blocks, int bx, int by,
                  int smem, void *params)
{
    void *args[] = { params };

    return FSSIM_CHECK_CU(c, e->ctx, c->cu->cuLaunchKernel(f, blocks, 1, 1, bx, by, 1, smem,
                                                           c->stream, args, NULL));
}

/* An image's planes: its floats, then the scales built from them. */
static int launch_planes(FSSIMEngine *e, FSSIMCuda *c, FSSIMCudaVmaf *vm, int i,
                         const FSSIMCudaVmafImage *im)
{
    FSSIMCudaVmafLoadParams *lp = &vm->load_p[i];
    int ret;

    for (int j = 0; j < lp->nb_jobs; j++) {
        lp->job[j].src       = im->ptr[vm->load_comp[j]];
        lp->job[j].src_pitch = im->pitch[vm->load_comp[j]];
    }
    ret = launch(e, c, vm->load, vm->load_blocks, FSSIM_THREADS, 1, 0, lp);
    for (int j = 1; ret >= 0 && j < FSSIM_VMAF_SCALES && vm->lpf_blocks[j]; j++)
        ret = launch(e, c, vm->lpf, vm->lpf_blocks[j], FSSIM_THREADS, 1, 0, &vm->lpf_p[i][j]);
    return ret;
}

int ff_fssim_cuda_vmaf_launch(FSSIMEngine *e, FSSIMCuda *c, FSSIMCudaVmaf *vm,
                              const FSSIMCudaVmafImage *ref, const FSSIMCudaVmafImage *dist,
                              const int *ks, int n, CUdeviceptr results)
{
    const size_t share = (size_t)vm->score_p.nb_jobs * FSSIM_VMAF_SUMS * sizeof(double);
    int ret = launch_planes(e, c, vm, IMG_REF, ref);

    for (int i = 0; i < n && ret >= 0; i++) {
        ret = launch_planes(e, c, vm, IMG_MAIN, &dist[ks[i]]);
        if (ret >= 0)
            ret = launch(e, c, vm->score, vm->score_blocks, FSSIM_TILE,
                         FSSIM_THREADS / FSSIM_TILE, FSSIM_VMAF_SMEM, &vm->score_p);
        vm->reduce_p.out = results + ks[i] * share;
        if (ret >= 0)
            ret = launch(e, c, vm->reduce, vm->reduce_p.nb_jobs, FSSIM_THREADS, 1, 0,
                         &vm->reduce_p);
    }
    return ret;
}

void ff_fssim_cuda_vmaf_read(const FSSIMEngine *e, const FSSIMCudaVmaf *vm, const double *r,
                             int k, FSSIMSum (*v)[FSSIM_NB_PARTS])
{
    const int nb = vm->score_p.nb_jobs;

    for (int j = 0; j < nb; j++) {
        const double *s = r + ((size_t)k * nb + j) * FSSIM_VMAF_SUMS;
        FSSIMSum *p = v[vm->job_comp[j]];
        if (vm->job_scale[j] < 0) {
            p[FSSIM_PART_VMAF_SSIM].d = s[FSSIM_REF_VMAF_LCS];
            continue;
        }
        for (int t = 0; t < 3; t++)
            p[FSSIM_PART_VMAF_MS(vm->job_scale[j], t)].d = s[FSSIM_REF_VMAF_L + t];
    }
}

void ff_fssim_cuda_vmaf_uninit(AVFilterContext *ctx, FSSIMCuda *c, FSSIMCudaVmaf **pvm)
{
    FSSIMCudaVmaf *vm = *pvm;

    if (!vm)
        return;
    if (c->cu) {
        FSSIM_FREE_CU(c, ctx, c->cu->cuCtxPushCurrent(c->cu_ctx));
        ff_fssim_cuda_free_mem(ctx, c, vm->planes);
        ff_fssim_cuda_free_mem(ctx, c, vm->partials);
        if (vm->module)
            FSSIM_FREE_CU(c, ctx, c->cu->cuModuleUnload(vm->module));
        FSSIM_FREE_CU(c, ctx, c->cu->cuCtxPopCurrent(&(CUcontext){ NULL }));
    }
    av_freep(pvm);
}
