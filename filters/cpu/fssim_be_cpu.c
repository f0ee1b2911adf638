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
 * fssim: the CPU backend, on software frames, with the reference
 * implementation of every algorithm (core/).  Work is cut into fixed units
 * (rendition x algorithm x component x band of rows) whose partial sums are
 * added in unit order, so that a score does not depend on the number of
 * threads; each thread takes every nb_threads-th unit and owns one scratch
 * area, sized at configuration: scoring a frame allocates nothing.
 * Renditions (and a pair's main input, fssim3d's too) of another size or
 * format are first resampled, by bands, into planes of the reference's
 * size and depth (the CPU reference favours clarity over fusing the two).  MS-SSIM first builds each plane's five scales as
 * doubles (the pyramid lists, one run per scale, bands of rows in
 * parallel), then scores every scale in bands like the other algorithms.
 * vmaf_ssim and vmaf_msssim have a module of their own (fssim_cpu_vmaf.c).
 * Synchronous: a job's sums are there when submit returns.
 */
#include "libavutil/mem.h"
#include "libavfilter/filters.h"

#include "fssim_cpu_vmaf.h"
#include "../engine/fssim_backend.h"
#include "../engine/fssim_memory.h"
#include "../engine/fssim_ring.h"

/* Rows per unit.  Fixed, not derived from the thread count (see above). */
#define BAND_ROWS 16

typedef struct CPUUnit {
    int    dist, algo, comp;
    int    y0, y1;           /* rows (int, psnr), scored rows (float), window rows (block) */
    int    scale;            /* msssim: the scale (pyramid: the level built) */
    FSSIMRefIntSums isum;    /* int */
    uint64_t sse;            /* psnr */
    double sum;              /* float, block, 3-D; msssim: the SSIM map */
    double cs;               /* msssim: the contrast-structure map */
} CPUUnit;

typedef struct CPUList {
    CPUUnit *units;
    int      nb_units;
} CPUList;

typedef struct CPUBackend {
    CPUList  resample;          /* the resampled renditions' planes */
    CPUList  score;             /* 2-D scoring; 3-D: the temporal pass */
    CPUList  moments;           /* 3-D: the spatial moments */
    int      nb_threads;
    size_t   scratch_size;      /* per thread */
    uint8_t *scratch;
    FSSIMSums *results;         /* per slot */
    /* a resampled rendition's planes, at the reference's size and depth */
    uint16_t *rs[FSSIM_MAX_DIST][4];
    /* 3-D: ring[slot][comp], the five moment planes of a component */
    FSSIMRefMoments ring[FSSIM3D_MAX_RING][4];
    /* msssim: pyramid[0] loads the planes as doubles, pyramid[j] pools
     * scale j from scale j - 1; ms[i][c][j] is scale j of component c of
     * rendition i, or of the reference for i = nb_dist (shared by all
     * renditions); all in ms_buf */
    CPUList  pyramid[FSSIM_MS_SCALES];
    double  *ms[FSSIM_MAX_DIST + 1][4][FSSIM_MS_SCALES];
    double  *ms_buf;
    double   ms_g[FSSIM_MAX_WINDOW];
    FSSIMCpuVmaf *vmaf;         /* vmaf_ssim, vmaf_msssim */
} CPUBackend;

/* What one run of the units reads. */
typedef struct CPUTask {
    const CPUList *list;
    const AVFrame *ref;
    AVFrame *const *dist;
    int ring_slot;               /* 3-D moments */
    const FSSIM3DWindow *win;    /* 3-D score */
} CPUTask;

static FSSIMRefFloatParams float_params(const FSSIMEngine *e)
{
    return (FSSIMRefFloatParams) { e->opts->window, e->opts->sigma, e->opts->padding };
}

static int cpu_check_inputs(FSSIMEngine *e, enum AVPixelFormat *sw_format)
{
    for (int i = 0; i < e->ctx->nb_inputs; i++)
        sw_format[i] = e->ctx->inputs[i]->format;
    return 0;
}

/* Rows the algorithm iterates over in component c (msssim: at scale j),
 * and the scratch a band of them needs. */
static int algo_rows(const FSSIMEngine *e, int algo, int c, int j, size_t *scratch)
{
    const FSSIMPlane *p = &e->fmt.comp[c];
    const FSSIMRefFloatParams fp = float_params(e);
    int w, h;

    switch (algo) {
    case FSSIM_ALGO_INT:
        *scratch = ff_fssim_ref_int_scratch_size(p->width, BAND_ROWS);
        return p->height;
    case FSSIM_ALGO_FLOAT:
        if (ff_fssim_ref_float_out_size(p->width, p->height, &fp, &w, &h) < 0)
            return 0;
        *scratch = ff_fssim_ref_float_scratch_size(w, BAND_ROWS, &fp);
        return h;
    case FSSIM_ALGO_BLOCK:
        *scratch = ff_fssim_ref_block_scratch_size(p->width);
        return ff_fssim_ref_block_windows(p->width, p->height, &w, &h) < 0 ? 0 : h;
    case FSSIM_ALGO_PSNR:
        return p->height;
    case FSSIM_ALGO_MSSSIM:
        /* the valid rows of scale j; one row of the five vertical sums */
        ff_fssim_ref_msssim_scale_size(p->width, p->height, j, &w, &h);
        *scratch = 5 * (size_t)w * sizeof(double);
        return FFMAX(h - e->opts->window + 1, 0);
    }
    return 0;
}

/* Cut every (rendition, algorithm, component) into bands.  algos: the
 * FSSIM_BIT() set of what the list computes. */
static int make_units(CPUBackend *b, CPUList *l, const FSSIMEngine *e, int nb_dist, int algos)
{
    for (int pass = 0; pass < 2; pass++) {
        int n = 0;
        for (int k = 0; k < nb_dist; k++) {
            for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
                if (!(algos & FSSIM_BIT(a)))
                    continue;
                /* msssim: every scale's bands, finest first */
                const int nb_scales = a == FSSIM_ALGO_MSSSIM ? FSSIM_MS_SCALES : 1;
                for (int c = 0; c < e->fmt.nb_comps; c++) {
                    for (int j = 0; j < nb_scales; j++) {
                        size_t scratch = 0;
                        const int rows = algo_rows(e, a, c, j, &scratch);
                        for (int y = 0; y < rows; y += BAND_ROWS, n++)
                            if (pass)
                                l->units[n] = (CPUUnit) { .dist = k, .algo = a, .comp = c,
                                                          .y0 = y, .scale = j,
                                                          .y1 = FFMIN(y + BAND_ROWS, rows) };
                        b->scratch_size = FFMAX(b->scratch_size, scratch);
                    }
                }
            }
        }
        if (!pass && !(l->units = av_calloc(FFMAX(n, 1), sizeof(*l->units))))
            return AVERROR(ENOMEM);
        l->nb_units = n;
    }
    return 0;
}

/* 3-D: the moment ring, depth sets of five double planes per component. */
static int init_ring(FSSIMEngine *e, CPUBackend *b, size_t *bytes)
{
    const FSSIMRefFloatParams fp = float_params(e);
    int ow[4], oh[4], ret;

    /* the whole ring's size first: it is refused, and reported, before
     * any allocation */
    *bytes = 0;
    for (int c = 0; c < e->fmt.nb_comps; c++) {
        const FSSIMPlane *p = &e->fmt.comp[c];
        /* ff_fssim_check_options() made sure every plane scores something */
        ff_fssim_ref_float_out_size(p->width, p->height, &fp, &ow[c], &oh[c]);
        *bytes += (size_t)e->ring_size * 5 * ow[c] * oh[c] * sizeof(double);
    }
    if ((ret = ff_fssim_ring_fits(e, *bytes, ff_fssim_host_memory(), "host memory",
                                  "host")) < 0)
        return ret;
    for (int c = 0; c < e->fmt.nb_comps; c++) {
        size_t scratch;
        for (int k = 0; k < e->ring_size; k++)
            if (ff_fssim_ref_moments_alloc(&b->ring[k][c], ow[c], oh[c]) < 0)
                return AVERROR(ENOMEM);
        scratch = ff_fssim_ref_float_moments_scratch_size(ow[c], BAND_ROWS, &fp);
        b->scratch_size = FFMAX(b->scratch_size, scratch);
    }
    return 0;
}

/* The planes resampled renditions are scored from, and their bands. */
static int init_resampling(FSSIMEngine *e, CPUBackend *b)
{
    int n = 0;

    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        for (int k = 0; k < e->nb_dist; k++) {
            for (int c = 0; e->resample[k] && c < e->fmt.nb_comps; c++) {
                const FSSIMPlane *p = &e->fmt.comp[c];
                const size_t tmp = ff_fssim_ref_resample_tmp_size(&e->axis[k][c][0],
                                                                  &e->axis[k][c][1]);
                if (!pass) {
                    b->scratch_size = FFMAX(b->scratch_size, tmp * sizeof(int64_t));
                    if (!(b->rs[k][c] = av_malloc_array((size_t)p->width * p->height,
                                                        sizeof(uint16_t))))
                        return AVERROR(ENOMEM);
                }
                for (int y = 0; y < p->height; y += BAND_ROWS, n++)
                    if (pass)
                        b->resample.units[n] = (CPUUnit) { .dist = k, .comp = c, .y0 = y,
                                                           .y1 = FFMIN(y + BAND_ROWS, p->height) };
            }
        }
        if (!pass && !(b->resample.units = av_calloc(FFMAX(n, 1), sizeof(CPUUnit))))
            return AVERROR(ENOMEM);
    }
    b->resample.nb_units = n;
    return 0;
}

/*
 * msssim: the scales of every image's planes (the renditions', then the
 * reference's, which all renditions share) and the lists that build them.
 * The reference's pieces (doc/algorithms.md#msssim) work on rows, so each
 * scale is built by bands in parallel; a scale needs the whole previous
 * one, hence one list (one run) per scale.
 */
static int init_pyramid(FSSIMEngine *e, CPUBackend *b)
{
    size_t total = 0;

    ff_fssim_ref_gauss_weights(e->opts->window, e->opts->sigma, b->ms_g);
    for (int pass = 0; pass < 3; pass++) {
        int n[FSSIM_MS_SCALES] = { 0 };
        size_t off = 0;
        for (int i = 0; i <= e->nb_dist; i++) {
            for (int c = 0; c < e->fmt.nb_comps; c++) {
                const FSSIMPlane *p = &e->fmt.comp[c];
                for (int j = 0; j < FSSIM_MS_SCALES; j++) {
                    CPUList *l = &b->pyramid[j];
                    int sw, sh;
                    ff_fssim_ref_msssim_scale_size(p->width, p->height, j, &sw, &sh);
                    if (pass == 2)
                        b->ms[i][c][j] = b->ms_buf + off;
                    off += (size_t)sw * sh;
                    for (int y = 0; y < sh; y += BAND_ROWS, n[j]++)
                        if (pass == 2)
                            l->units[n[j]] = (CPUUnit) { .dist = i, .comp = c, .scale = j,
                                                         .y0 = y, .y1 = FFMIN(y + BAND_ROWS, sh) };
                }
            }
        }
        if (pass == 0) {
            total = off;
        } else if (pass == 1) {
            if (!(b->ms_buf = av_malloc_array(total, sizeof(double))))
                return AVERROR(ENOMEM);
            for (int j = 0; j < FSSIM_MS_SCALES; j++) {
                b->pyramid[j].nb_units = n[j];
                if (!(b->pyramid[j].units = av_calloc(FFMAX(n[j], 1), sizeof(CPUUnit))))
                    return AVERROR(ENOMEM);
            }
        }
    }
    av_log(e->ctx, AV_LOG_VERBOSE, "msssim: %zu bytes for the scales of %d images.\n",
           total * sizeof(double), e->nb_dist + 1);
    return 0;
}

static int cpu_init(FSSIMEngine *e, size_t *ring_bytes)
{
    CPUBackend *b = e->priv;
    int ret;

    ret = init_resampling(e, b);
    if (ret >= 0 && e->opts->depth) {
        ret = init_ring(e, b, ring_bytes);
        if (ret >= 0)
            ret = make_units(b, &b->moments, e, 1, FSSIM_BIT(FSSIM_ALGO_FLOAT));
        if (ret >= 0)
            ret = make_units(b, &b->score, e, 1, FSSIM_BIT(FSSIM_ALGO_FLOAT));
    } else if (ret >= 0) {
        ret = make_units(b, &b->score, e, e->nb_dist, e->opts->algos);
        if (ret >= 0 && (e->opts->algos & FSSIM_BIT(FSSIM_ALGO_MSSSIM)))
            ret = init_pyramid(e, b);
    }
    if (ret < 0)
        return ret;

    b->nb_threads = FFMAX(1, ff_filter_get_nb_threads(e->ctx));
    if (!e->opts->depth && ff_fssim_cpu_vmaf_wanted(e) &&
        (ret = ff_fssim_cpu_vmaf_init(e, b->nb_threads, &b->vmaf)) < 0)
        return ret;
    b->scratch = av_malloc(FFMAX(b->scratch_size, 1) * b->nb_threads);
    b->results = av_calloc(e->nb_slots, sizeof(*b->results));
    if (!b->scratch || !b->results)
        return AVERROR(ENOMEM);
    return 0;
}

/* msssim: the S and CS sums of a band of valid rows of one scale. */
static void msssim_unit(FSSIMEngine *e, CPUUnit *u, void *scratch)
{
    CPUBackend *b = e->priv;
    const FSSIMPlane *p = &e->fmt.comp[u->comp];
    const double L = (double)((1 << e->fmt.depth) - 1);
    int sw, sh;

    ff_fssim_ref_msssim_scale_size(p->width, p->height, u->scale, &sw, &sh);
    ff_fssim_ref_msssim_rows(b->ms[u->dist][u->comp][u->scale],
                             b->ms[e->nb_dist][u->comp][u->scale], sw, sh, b->ms_g,
                             e->opts->window,
                             FSSIM_FLOAT_C1(L), FSSIM_FLOAT_C2(L), u->y0, u->y1, scratch,
                             &u->sum, &u->cs);
}

/* msssim: rows of one scale of one image's plane (see init_pyramid). */
static void pyramid_unit(FSSIMEngine *e, const CPUTask *t, const CPUUnit *u)
{
    CPUBackend *b = e->priv;
    const FSSIMPlane *p = &e->fmt.comp[u->comp];
    double *const *lv = b->ms[u->dist][u->comp];

    if (u->scale == 0) {
        const int i = u->dist, c = u->comp;
        const AVFrame *f = i < e->nb_dist ? t->dist[i] : t->ref;
        const FSSIMFormat *fmt = i < e->nb_dist ? &e->dist[i] : &e->fmt;
        /* a resampled rendition: its plane at the reference's size, which
         * the other algorithms score too */
        const FSSIMRefPlane pl = i < e->nb_dist && b->rs[i][c] ? (FSSIMRefPlane) {
            .data = (const uint8_t *)b->rs[i][c], .linesize = 2 * p->width, .width = p->width,
            .height = p->height, .bytes = 2, .step = 1, .shift = 0 } :
            ff_fssim_ref_plane(fmt, c, f->data, f->linesize);
        ff_fssim_ref_msssim_load_rows(&pl, u->y0, u->y1, lv[0]);
    } else {
        int sw, sh;
        ff_fssim_ref_msssim_scale_size(p->width, p->height, u->scale - 1, &sw, &sh);
        ff_fssim_ref_msssim_pool_rows(lv[u->scale - 1], sw, sh, u->y0, u->y1, lv[u->scale]);
    }
}

static void run_unit(FSSIMEngine *e, const CPUTask *t, CPUUnit *u, void *scratch)
{
    CPUBackend *b = e->priv;
    const FSSIMRefFloatParams fp = float_params(e);
    const int depth = e->fmt.depth;

    u->isum = (FSSIMRefIntSums) { 0 };
    u->sse  = 0;
    u->sum  = 0.0;
    u->cs   = 0.0;
    if (t->list >= b->pyramid && t->list < b->pyramid + FSSIM_MS_SCALES) {
        pyramid_unit(e, t, u);
        return;
    }
    if (t->win) {
        const double L = (double)((1 << depth) - 1);
        const FSSIMRefMoments *mom[FSSIM3D_MAX_DEPTH];
        for (int k = 0; k < t->win->depth; k++)
            mom[k] = t->win->slot[k] >= 0 ? &b->ring[t->win->slot[k]][u->comp] : NULL;
        u->sum = ff_fssim_ref_3d_rows(mom, t->win->wt, t->win->depth, FSSIM_FLOAT_C1(L),
                                      FSSIM_FLOAT_C2(L), u->y0, u->y1);
        return;
    }
    {
        const AVFrame *d = t->dist[u->dist];
        const uint16_t *rs = b->rs[u->dist][u->comp];
        const FSSIMPlane *rp = &e->fmt.comp[u->comp];
        const FSSIMRefPlane pd = ff_fssim_ref_plane(&e->dist[u->dist], u->comp, d->data,
                                                    d->linesize);
        /* a resampled rendition is read from its plane at the reference's size */
        const FSSIMRefPlane pa = !rs ? pd : (FSSIMRefPlane) {
            .data = (const uint8_t *)rs, .linesize = 2 * rp->width, .width = rp->width,
            .height = rp->height, .bytes = 2, .step = 1, .shift = 0 };
        const FSSIMRefPlane pb = ff_fssim_ref_plane(&e->fmt, u->comp, t->ref->data,
                                                    t->ref->linesize);
        if (t->list == &b->resample) {
            ff_fssim_ref_resample_rows(&pd, &e->axis[u->dist][u->comp][0],
                                       &e->axis[u->dist][u->comp][1], e->dist[u->dist].depth,
                                       depth, u->y0, u->y1,
                                       b->rs[u->dist][u->comp] + (size_t)u->y0 * rp->width,
                                       2 * rp->width, scratch);
            return;
        }
        if (t->list == &b->moments) {
            /* the band's rows of the ring slot, so the reference writes them in place */
            const FSSIMRefMoments *m = &b->ring[t->ring_slot][u->comp];
            FSSIMRefMoments band = { .w = m->w, .h = u->y1 - u->y0 };
            for (int i = 0; i < 5; i++)
                band.m[i] = m->m[i] + (size_t)u->y0 * m->w;
            ff_fssim_ref_float_moments_rows(&pa, &pb, &fp, u->y0, u->y1, scratch, &band);
            return;
        }
        switch (u->algo) {
        case FSSIM_ALGO_INT:
            ff_fssim_ref_int_rows(&pa, &pb, depth, u->y0, u->y1, scratch, &u->isum);
            break;
        case FSSIM_ALGO_FLOAT:
            ff_fssim_ref_float_rows(&pa, &pb, depth, &fp, u->y0, u->y1, scratch, &u->sum);
            break;
        case FSSIM_ALGO_BLOCK:
            ff_fssim_ref_block_rows(&pa, &pb, depth, u->y0, u->y1, scratch, &u->sum);
            break;
        case FSSIM_ALGO_PSNR:
            ff_fssim_ref_sse_rows(&pa, &pb, u->y0, u->y1, &u->sse);
            break;
        case FSSIM_ALGO_MSSSIM:
            msssim_unit(e, u, scratch);
            break;
        }
    }
}

/* One thread's share: every nb_jobs-th unit, in its own scratch area. */
static int run_units(AVFilterContext *ctx, void *arg, int jobnr, int nb_jobs)
{
    FSSIMEngine *e = ((FSSIMEngine **)arg)[0];
    const CPUTask *t = ((const CPUTask **)arg)[1];
    CPUBackend *b = e->priv;
    void *scratch = b->scratch + (size_t)jobnr * b->scratch_size;

    /* a rendition without a frame is skipped; the reference's pyramid
     * (dist == nb_dist) is always built */
    for (int i = jobnr; i < t->list->nb_units; i += nb_jobs)
        if (t->dist == NULL || t->win || t->list->units[i].dist >= e->nb_dist ||
            t->dist[t->list->units[i].dist])
            run_unit(e, t, &t->list->units[i], scratch);
    return 0;
}

/* By uninit the filter has left its graph and slice threading with it,
 * but held frames are still scored then (fssim3d): the same units, on one
 * thread. */
static void run(FSSIMEngine *e, const CPUTask *t)
{
    CPUBackend *b = e->priv;
    const void *arg[2] = { e, t };
    const int nb_jobs = e->ctx->graph ? FFMIN(b->nb_threads, FFMAX(t->list->nb_units, 1)) : 1;

    if (nb_jobs > 1)
        ff_filter_execute(e->ctx, run_units, (void *)arg, NULL, nb_jobs);
    else
        run_units(e->ctx, (void *)arg, 0, 1);
}

/* The units' partials into a slot, added in unit order. */
static void gather(const CPUList *l, AVFrame *const *dist, FSSIMSums *s)
{
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < l->nb_units; i++) {
        const CPUUnit *u = &l->units[i];
        FSSIMSum *v = s->v[u->dist][u->comp];
        if (dist && !dist[u->dist])
            continue;
        if (u->algo == FSSIM_ALGO_INT) {
            v[FSSIM_PART_INT].d += u->isum.t;
        } else if (u->algo == FSSIM_ALGO_PSNR) {
            v[FSSIM_PART_SSE].u += u->sse;
        } else if (u->algo == FSSIM_ALGO_MSSSIM) {
            /* each scale's bands in order, as ff_fssim_ref_msssim_scales adds them */
            v[FSSIM_PART_MS_S(u->scale)].d  += u->sum;
            v[FSSIM_PART_MS_CS(u->scale)].d += u->cs;
        } else {
            v[u->algo].d += u->sum;
        }
    }
}

/* vmaf_ssim, vmaf_msssim (fssim_cpu_vmaf.c): every image's planes as the
 * other algorithms read them, a resampled rendition's at the reference's
 * size. */
static void score_vmaf(FSSIMEngine *e, const AVFrame *ref, AVFrame *const *dist, FSSIMSums *s)
{
    CPUBackend *b = e->priv;
    FSSIMRefPlane planes[FSSIM_MAX_DIST + 1][4];
    unsigned present = 0;

    for (int k = 0; k <= e->nb_dist; k++) {
        const AVFrame *f = k < e->nb_dist ? dist[k] : ref;
        if (!f)
            continue;
        present |= k < e->nb_dist ? 1u << k : 0;
        for (int c = 0; c < e->fmt.nb_comps; c++) {
            const FSSIMPlane *rp = &e->fmt.comp[c];
            const uint16_t *rs = k < e->nb_dist ? b->rs[k][c] : NULL;
            planes[k][c] = rs ? (FSSIMRefPlane) {
                .data = (const uint8_t *)rs, .linesize = 2 * rp->width, .width = rp->width,
                .height = rp->height, .bytes = 2, .step = 1, .shift = 0 } :
                ff_fssim_ref_plane(k < e->nb_dist ? &e->dist[k] : &e->fmt, c, f->data,
                                   f->linesize);
        }
    }
    ff_fssim_cpu_vmaf_score(e, b->vmaf, (const FSSIMRefPlane (*)[4])planes, present, s);
}

static int cpu_submit(FSSIMEngine *e, int slot, const AVFrame *ref, AVFrame *const *dist)
{
    CPUBackend *b = e->priv;
    const CPUTask r = { .list = &b->resample, .ref = ref, .dist = dist };
    const CPUTask t = { .list = &b->score, .ref = ref, .dist = dist };

    if (b->resample.nb_units)
        run(e, &r);
    for (int j = 0; j < FSSIM_MS_SCALES && b->pyramid[j].nb_units; j++) {
        const CPUTask p = { .list = &b->pyramid[j], .ref = ref, .dist = dist };
        run(e, &p);
    }
    run(e, &t);
    gather(&b->score, dist, &b->results[slot]);
    if (b->vmaf)
        score_vmaf(e, ref, dist, &b->results[slot]);
    return 0;
}

static int cpu_collect(FSSIMEngine *e, int slot, int wait, FSSIMSums *sums)
{
    CPUBackend *b = e->priv;
    *sums = b->results[slot];
    return 1;
}

static int cpu_moments(FSSIMEngine *e, int ring_slot, const AVFrame *ref, const AVFrame *dist)
{
    CPUBackend *b = e->priv;
    AVFrame *const d[1] = { (AVFrame *)dist };
    const CPUTask r = { .list = &b->resample, .ref = ref, .dist = d };
    const CPUTask t = { .list = &b->moments, .ref = ref, .dist = d, .ring_slot = ring_slot };

    /* the moments of a resampled main input are those of its planes at
     * the reference's size and depth */
    if (b->resample.nb_units)
        run(e, &r);
    run(e, &t);
    return 0;
}

static int cpu_submit3d(FSSIMEngine *e, int slot, const FSSIM3DWindow *win)
{
    CPUBackend *b = e->priv;
    const CPUTask t = { .list = &b->score, .win = win };

    run(e, &t);
    gather(&b->score, NULL, &b->results[slot]);
    return 0;
}

static void cpu_uninit(FSSIMEngine *e)
{
    CPUBackend *b = e->priv;

    for (int k = 0; k < FSSIM3D_MAX_RING; k++)
        for (int c = 0; c < 4; c++)
            ff_fssim_ref_moments_free(&b->ring[k][c]);
    for (int k = 0; k < FSSIM_MAX_DIST; k++)
        for (int c = 0; c < 4; c++)
            av_freep(&b->rs[k][c]);
    av_freep(&b->resample.units);
    av_freep(&b->score.units);
    av_freep(&b->moments.units);
    for (int j = 0; j < FSSIM_MS_SCALES; j++)
        av_freep(&b->pyramid[j].units);
    av_freep(&b->ms_buf);
    ff_fssim_cpu_vmaf_uninit(&b->vmaf);
    av_freep(&b->scratch);
    av_freep(&b->results);
}

/* This backend's entries of the interface (engine/fssim_backend.h); each backend has its own. */
const FSSIMBackend ff_fssim_cpu_backend = {
    .name         = "software",
    .priv_size    = sizeof(CPUBackend),
    .queue_depth  = 1,
    .check_inputs = cpu_check_inputs,
    .init         = cpu_init,
    .submit       = cpu_submit,
    .collect      = cpu_collect,
    .moments      = cpu_moments,
    .submit3d     = cpu_submit3d,
    .uninit       = cpu_uninit,
    .storage3d    = "5 double planes per component",
};
