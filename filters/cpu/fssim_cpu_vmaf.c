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
 * fssim: algo=vmaf_ssim and vmaf_msssim on software frames
 * (doc/algorithms.md#vmaf_ssim), with the reference's functions
 * (filters/core/ref_vmaf.c).  Each image's planes are first brought to libvmaf's
 * floats: vmaf_ssim's decimated plane, vmaf_msssim's five scales (one run
 * per scale, each built from the previous one); then every rendition is
 * scored against the reference's planes, which all renditions share.
 * Every step is cut into bands of rows run on the filter's threads; the
 * bands' sums are added in band order, so that a score does not depend on
 * the number of threads.  The float planes are allocated once: scoring a
 * frame allocates nothing.
 */
#include <string.h>

#include "libavutil/mem.h"
#include "libavfilter/filters.h"

#include "fssim_cpu_vmaf.h"

#define BAND_ROWS 16

enum UnitKind { LOAD_SSIM, LOAD_MS, LPF, SCORE_SSIM, SCORE_MS };

/* The lists, each run once per frame after the one before: the loads,
 * the scales 1 to 4, the scoring. */
#define LIST_SCORE FSSIM_VMAF_SCALES
#define NB_LISTS   (FSSIM_VMAF_SCALES + 1)

typedef struct VmafUnit {
    enum UnitKind kind;
    int img, comp, scale;    /* img: a rendition, or the reference (nb_dist) */
    int y0, y1;              /* rows written (loads, scales), scored rows (scores) */
    double sums[FSSIM_REF_VMAF_NB_SUMS];
} VmafUnit;

typedef struct VmafList {
    VmafUnit *units;
    int nb_units;
} VmafList;

struct FSSIMCpuVmaf {
    VmafList list[NB_LISTS];
    int      nb_threads;
    size_t   scratch_size;      /* floats per thread */
    float   *scratch;
    int      ssim_f[4];         /* vmaf_ssim's decimation factor per component */
    /* per image and component: vmaf_ssim's decimated plane and vmaf_msssim's
     * scales, all in buf */
    float   *ssim[FSSIM_MAX_DIST + 1][4];
    float   *ms[FSSIM_MAX_DIST + 1][4][FSSIM_VMAF_SCALES];
    float   *buf;
};

/* What one run of a list reads. */
typedef struct VmafTask {
    FSSIMEngine *e;
    FSSIMCpuVmaf *vm;
    const VmafList *list;
    const FSSIMRefPlane (*planes)[4];
    unsigned present;
} VmafTask;

int ff_fssim_cpu_vmaf_wanted(const FSSIMEngine *e)
{
    return !!(e->opts->algos & (FSSIM_BIT(FSSIM_ALGO_VMAF_SSIM) |
                                FSSIM_BIT(FSSIM_ALGO_VMAF_MSSSIM)));
}

static int want(const FSSIMEngine *e, int algo)
{
    return !!(e->opts->algos & FSSIM_BIT(algo));
}

/* The size of the plane a unit reads or writes. */
static void unit_size(const FSSIMEngine *e, const FSSIMCpuVmaf *vm, enum UnitKind kind, int c,
                      int j, int *w, int *h)
{
    const FSSIMPlane *p = &e->fmt.comp[c];

    if (kind == LOAD_SSIM || kind == SCORE_SSIM)
        ff_fssim_ref_vmaf_decimated_size(p->width, p->height, vm->ssim_f[c], w, h);
    else
        ff_fssim_ref_vmaf_scale_size(p->width, p->height, j, w, h);
}

/* Bands of rows [0, rows) of one (kind, image, component, scale) into l
 * (pass 1), or counted only (pass 0). */
static void add_bands(VmafList *l, int pass, enum UnitKind kind, int img, int c, int j,
                      int rows)
{
    for (int y = 0; y < rows; y += BAND_ROWS, l->nb_units++)
        if (pass)
            l->units[l->nb_units] = (VmafUnit) { .kind = kind, .img = img, .comp = c,
                                                 .scale = j, .y0 = y,
                                                 .y1 = FFMIN(y + BAND_ROWS, rows) };
}

/* Every list's units, in the order the sums are added. */
static void make_units(const FSSIMEngine *e, FSSIMCpuVmaf *vm, int pass)
{
    for (int i = 0; i < NB_LISTS; i++)
        vm->list[i].nb_units = 0;
    for (int i = 0; i <= e->nb_dist; i++) {
        for (int c = 0; c < e->fmt.nb_comps; c++) {
            int w, h;
            if (want(e, FSSIM_ALGO_VMAF_SSIM)) {
                unit_size(e, vm, LOAD_SSIM, c, 0, &w, &h);
                add_bands(&vm->list[0], pass, LOAD_SSIM, i, c, 0, h);
            }
            for (int j = 0; want(e, FSSIM_ALGO_VMAF_MSSSIM) && j < FSSIM_VMAF_SCALES; j++) {
                unit_size(e, vm, LOAD_MS, c, j, &w, &h);
                add_bands(&vm->list[j], pass, j ? LPF : LOAD_MS, i, c, j, h);
            }
        }
    }
    for (int k = 0; k < e->nb_dist; k++) {
        for (int c = 0; c < e->fmt.nb_comps; c++) {
            int w, h;
            if (want(e, FSSIM_ALGO_VMAF_SSIM)) {
                unit_size(e, vm, SCORE_SSIM, c, 0, &w, &h);
                add_bands(&vm->list[LIST_SCORE], pass, SCORE_SSIM, k, c, 0,
                          h - FSSIM_VMAF_WINDOW + 1);
            }
            for (int j = 0; want(e, FSSIM_ALGO_VMAF_MSSSIM) && j < FSSIM_VMAF_SCALES; j++) {
                unit_size(e, vm, SCORE_MS, c, j, &w, &h);
                add_bands(&vm->list[LIST_SCORE], pass, SCORE_MS, k, c, j,
                          h - FSSIM_VMAF_WINDOW + 1);
            }
        }
    }
}

/* The float planes of every image, in one buffer; the widest plane sizes
 * the scoring's scratch. */
static int alloc_planes(FSSIMEngine *e, FSSIMCpuVmaf *vm)
{
    size_t total = 0;
    int widest = 0;

    for (int pass = 0; pass < 2; pass++) {
        size_t off = 0;
        for (int i = 0; i <= e->nb_dist; i++) {
            for (int c = 0; c < e->fmt.nb_comps; c++) {
                int w, h;
                if (want(e, FSSIM_ALGO_VMAF_SSIM)) {
                    unit_size(e, vm, LOAD_SSIM, c, 0, &w, &h);
                    if (pass)
                        vm->ssim[i][c] = vm->buf + off;
                    off += (size_t)w * h;
                    widest = FFMAX(widest, w);
                }
                for (int j = 0; want(e, FSSIM_ALGO_VMAF_MSSSIM) && j < FSSIM_VMAF_SCALES; j++) {
                    unit_size(e, vm, LOAD_MS, c, j, &w, &h);
                    if (pass)
                        vm->ms[i][c][j] = vm->buf + off;
                    off += (size_t)w * h;
                    widest = FFMAX(widest, w);
                }
            }
        }
        total = off;
        if (!pass && !(vm->buf = av_malloc_array(FFMAX(total, 1), sizeof(float))))
            return AVERROR(ENOMEM);
    }
    vm->scratch_size = ff_fssim_ref_vmaf_ssim_scratch_size(widest, BAND_ROWS) / sizeof(float);
    av_log(e->ctx, AV_LOG_VERBOSE, "vmaf: %zu bytes of float planes for %d images.\n",
           total * sizeof(float), e->nb_dist + 1);
    return 0;
}

int ff_fssim_cpu_vmaf_init(FSSIMEngine *e, int nb_threads, FSSIMCpuVmaf **pvm)
{
    FSSIMCpuVmaf *vm;
    int ret;

    vm = *pvm = av_mallocz(sizeof(*vm));
    if (!vm)
        return AVERROR(ENOMEM);
    vm->nb_threads = nb_threads;
    for (int c = 0; c < e->fmt.nb_comps; c++)
        vm->ssim_f[c] = ff_fssim_ref_vmaf_scale(e->fmt.comp[c].width, e->fmt.comp[c].height);
    if ((ret = alloc_planes(e, vm)) < 0)
        return ret;
    make_units(e, vm, 0);
    for (int i = 0; i < NB_LISTS; i++)
        if (!(vm->list[i].units = av_calloc(FFMAX(vm->list[i].nb_units, 1), sizeof(VmafUnit))))
            return AVERROR(ENOMEM);
    make_units(e, vm, 1);
    if (!(vm->scratch = av_malloc_array(FFMAX(vm->scratch_size, 1) * nb_threads,
                                        sizeof(float))))
        return AVERROR(ENOMEM);
    return 0;
}

static void run_unit(const VmafTask *t, VmafUnit *u, float *scratch)
{
    const FSSIMEngine *e = t->e;
    FSSIMCpuVmaf *vm = t->vm;
    const int i = u->img, c = u->comp, j = u->scale, ref = e->nb_dist;
    int w, h;

    unit_size(e, vm, u->kind, c, j, &w, &h);
    switch (u->kind) {
    case LOAD_SSIM:
        ff_fssim_ref_vmaf_load_rows(&t->planes[i][c], e->fmt.depth, vm->ssim_f[c], u->y0, u->y1,
                                    vm->ssim[i][c] + (size_t)u->y0 * w);
        break;
    case LOAD_MS:
        ff_fssim_ref_vmaf_load_rows(&t->planes[i][c], e->fmt.depth, 1, u->y0, u->y1,
                                    vm->ms[i][c][0] + (size_t)u->y0 * w);
        break;
    case LPF: {
        int pw, ph;
        unit_size(e, vm, LPF, c, j - 1, &pw, &ph);
        ff_fssim_ref_vmaf_lpf_rows(vm->ms[i][c][j - 1], pw, ph, u->y0, u->y1,
                                   vm->ms[i][c][j] + (size_t)u->y0 * w);
        break;
    }
    case SCORE_SSIM:
    case SCORE_MS:
        memset(u->sums, 0, sizeof(u->sums));
        ff_fssim_ref_vmaf_ssim_rows(u->kind == SCORE_SSIM ? vm->ssim[i][c] : vm->ms[i][c][j],
                                    u->kind == SCORE_SSIM ? vm->ssim[ref][c] : vm->ms[ref][c][j],
                                    w, h, u->y0, u->y1, scratch, u->sums);
        break;
    }
}

/* One thread's share: every nb_jobs-th unit, in its own scratch area; the
 * units of a rendition without a frame are skipped, the reference's run. */
static int run_units(AVFilterContext *ctx, void *arg, int jobnr, int nb_jobs)
{
    const VmafTask *t = arg;
    float *scratch = t->vm->scratch + (size_t)jobnr * t->vm->scratch_size;

    for (int i = jobnr; i < t->list->nb_units; i += nb_jobs) {
        VmafUnit *u = &t->list->units[i];
        if (u->img == t->e->nb_dist || (t->present & (1u << u->img)))
            run_unit(t, u, scratch);
    }
    return 0;
}

static void run(VmafTask *t)
{
    const int nb_jobs = t->e->ctx->graph ?
                        FFMIN(t->vm->nb_threads, FFMAX(t->list->nb_units, 1)) : 1;

    if (nb_jobs > 1)
        ff_filter_execute(t->e->ctx, run_units, t, NULL, nb_jobs);
    else
        run_units(t->e->ctx, t, 0, 1);
}

void ff_fssim_cpu_vmaf_score(FSSIMEngine *e, FSSIMCpuVmaf *vm,
                             const FSSIMRefPlane (*planes)[4], unsigned present,
                             FSSIMSums *sums)
{
    VmafTask t = { .e = e, .vm = vm, .planes = planes, .present = present };
    const VmafList *score = &vm->list[LIST_SCORE];

    for (int i = 0; i < NB_LISTS; i++) {
        t.list = &vm->list[i];
        run(&t);
    }
    /* the bands of each part in order */
    for (int i = 0; i < score->nb_units; i++) {
        const VmafUnit *u = &score->units[i];
        FSSIMSum *v = sums->v[u->img][u->comp];
        if (!(present & (1u << u->img)))
            continue;
        if (u->kind == SCORE_SSIM) {
            v[FSSIM_PART_VMAF_SSIM].d += u->sums[FSSIM_REF_VMAF_LCS];
            continue;
        }
        for (int k = 0; k < 3; k++)
            v[FSSIM_PART_VMAF_MS(u->scale, k)].d += u->sums[FSSIM_REF_VMAF_L + k];
    }
}

void ff_fssim_cpu_vmaf_uninit(FSSIMCpuVmaf **pvm)
{
    FSSIMCpuVmaf *vm = *pvm;

    if (!vm)
        return;
    for (int i = 0; i < NB_LISTS; i++)
        av_freep(&vm->list[i].units);
    av_freep(&vm->buf);
    av_freep(&vm->scratch);
    av_freep(pvm);
}
