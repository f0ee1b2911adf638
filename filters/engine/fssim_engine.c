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
 * fssim: the engine every filter drives -- the set-up of a backend, the
 * one step from a backend's sums to scores, and the one queue of frames
 * waiting for their scores.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/avassert.h"
#include "libavutil/avstring.h"
#include "libavutil/fifo.h"
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "libavutil/thread.h"
#include "libavfilter/filters.h"

#include "fssim_engine.h"

/* What each part of each component is divided by, from each algorithm's
 * row (fssim_algos.h). */
static void setup_divisors(FSSIMEngine *e)
{
    for (int c = 0; c < e->fmt.nb_comps; c++) {
        double *den = e->den[c];

        for (int i = 0; i < FSSIM_NB_PARTS; i++)
            den[i] = NAN;
        for (int a = 0; a < FSSIM_NB_ALGOS; a++)
            ff_fssim_algo(a)->divisors(e->opts, &e->fmt.comp[c], den);
    }
}

/* The coefficients of every resampled rendition, computed once and shared
 * by the backends, so that all of them produce the same samples.  A
 * rendition of another size or format is resampled, each component to the
 * reference's plane of that component and bit depth (an axis of the same
 * size is one tap: a copy); doc/algorithms.md#resampling. */
static int setup_resampling(FSSIMEngine *e)
{
    for (int k = 0; k < e->nb_dist; k++) {
        e->resample[k] = !ff_fssim_format_same_layout(&e->dist[k], &e->fmt);
        for (int c = 0; e->resample[k] && c < e->fmt.nb_comps; c++) {
            const FSSIMPlane *in = &e->dist[k].comp[c], *out = &e->fmt.comp[c];
            if (ff_fssim_ref_resample_axis_init(&e->axis[k][c][0], in->width, out->width,
                                                e->opts->scaler) < 0 ||
                ff_fssim_ref_resample_axis_init(&e->axis[k][c][1], in->height, out->height,
                                                e->opts->scaler) < 0)
                return AVERROR(ENOMEM);
        }
        if (e->resample[k])
            av_log(e->ctx, AV_LOG_VERBOSE, "%s: %dx%d %s resampled to %dx%d %s.\n",
                   e->ctx->input_pads[k].name, e->dist[k].width, e->dist[k].height,
                   av_get_pix_fmt_name(e->dist[k].pix_fmt), e->fmt.width, e->fmt.height,
                   av_get_pix_fmt_name(e->fmt.pix_fmt));
    }
    return 0;
}

/* The band of output rows [y0, y0 + rows) of axis a: the source rows they
 * read, from *lo on, *n of them (start need not grow with y: the trimmed
 * taps of zero weight move it). */
static void axis_band(const FSSIMRefResampleAxis *a, int y0, int rows, int *lo, int *n)
{
    int hi = INT_MIN;

    *lo = INT_MAX;
    for (int y = y0; y < FFMIN(y0 + rows, a->out); y++) {
        *lo = FFMIN(*lo, a->start[y]);
        hi  = FFMAX(hi, a->start[y] + a->ntaps);
    }
    *n = hi - *lo;
}

int ff_fssim_resample_tiles(const FSSIMRefResampleAxis *a, int max_rows, int span,
                            int32_t **bands)
{
    *bands = NULL;
    for (int rows = max_rows; rows > 0; rows /= 2) {
        const unsigned nb = ((unsigned)a->out + rows - 1) / rows;
        int fits = 1;

        for (unsigned t = 0; t < nb && fits; t++) {
            int lo, n;
            axis_band(a, t * rows, rows, &lo, &n);
            fits = n <= span;
        }
        if (!fits)
            continue;
        if (!(*bands = av_malloc_array(nb, 2 * sizeof(**bands))))
            return AVERROR(ENOMEM);
        for (unsigned t = 0; t < nb; t++)
            axis_band(a, t * rows, rows, &(*bands)[2 * t], &(*bands)[2 * t + 1]);
        return rows;
    }
    return 0;
}

/*
 * The fssim3d rings of the process, per memory they are reserved in (the
 * host's, a device's).  A ring is checked before it is allocated, and its
 * pages are touched only as frames come: the host's MemAvailable, and
 * device counts such as Vulkan's budget, show it late or never.  So a
 * memory's room for another ring is what is available now, but at most
 * what was available when the first of the rings there was reserved, less
 * them all.  Checked and reserved under one lock: filter graphs may be
 * configured on several threads.
 */
#define MAX_MEMORIES 16

typedef struct RingMemory {
    char     name[64];
    int64_t  base;       /* available when the first live ring was reserved; -1: unknown */
    uint64_t reserved;   /* the live rings' bytes */
    int      rings;
} RingMemory;

static RingMemory memories[MAX_MEMORIES];
static AVMutex memories_lock = AV_MUTEX_INITIALIZER;

static RingMemory *find_memory(const char *name)
{
    RingMemory *unused = NULL;

    for (int i = 0; i < MAX_MEMORIES; i++) {
        if (memories[i].rings && !strcmp(memories[i].name, name))
            return &memories[i];
        if (!memories[i].rings && !unused)
            unused = &memories[i];
    }
    if (unused) {
        av_strlcpy(unused->name, name, sizeof(unused->name));
        unused->base     = -1;
        unused->reserved = 0;
    }
    return unused;
}

int ff_fssim_ring_fits(FSSIMEngine *e, size_t bytes, int64_t avail, const char *where,
                       const char *memory)
{
    const char *hook = getenv("FSSIM_MEMORY_AVAILABLE");
    int64_t room;
    RingMemory *m;
    int ret = 0;

    if (hook && *hook)
        avail = strtoll(hook, NULL, 0);
    ff_mutex_lock(&memories_lock);
    m = find_memory(memory);
    room = avail;
    if (m && m->rings && m->base >= 0) {
        const int64_t left = FFMAX(m->base - (int64_t)m->reserved, 0);
        room = room < 0 ? left : FFMIN(room, left);
    }
    if (room >= 0 && bytes > (uint64_t)room) {
        char others[160] = "";
        if (m && m->rings)
            snprintf(others, sizeof(others), " once the %.1f MiB reserved for the ring%s of "
                     "%d other fssim3d filter%s of this process %s counted",
                     m->reserved / 1048576.0, m->rings > 1 ? "s" : "", m->rings,
                     m->rings > 1 ? "s" : "", m->rings > 1 ? "are" : "is");
        av_log(e->ctx, AV_LOG_ERROR, "fssim3d: the ring of %d moment sets needs %.1f MiB, "
               "but %.1f MiB of %s is available%s. Use a smaller depth or smaller frames%s.\n",
               e->ring_size, bytes / 1048576.0, room / 1048576.0, where, others,
               others[0] ? ", or score with one filter at a time" : "");
        e->ring_refused = 1;
        ret = AVERROR(ENOMEM);
    } else if (m) {
        if (!m->rings)
            m->base = avail;
        m->reserved += bytes;
        m->rings++;
        e->ring_memory   = m - memories + 1;
        e->ring_reserved = bytes;
    }
    ff_mutex_unlock(&memories_lock);
    return ret;
}

static void release_ring(FSSIMEngine *e)
{
    RingMemory *m;

    if (!e->ring_memory)
        return;
    ff_mutex_lock(&memories_lock);
    m = &memories[e->ring_memory - 1];
    m->reserved -= e->ring_reserved;
    m->rings--;
    ff_mutex_unlock(&memories_lock);
    e->ring_memory = 0;
}

/* A number in a file of the kernel's (-1: none, "max", or no file). */
static int64_t read_number(const char *dir, const char *name)
{
    char path[1200], buf[64];
    int64_t v = -1;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (!(f = fopen(path, "r")))
        return -1;
    if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%"SCNd64, &v) != 1)
        v = -1;
    fclose(f);
    return v;
}

/* The least room left under the limits of a cgroup and its parents (-1:
 * no limit).  A v1 hierarchy without a limit reads about 2^63. */
static int64_t cgroup_room(const char *mount, const char *cgroup, const char *limit,
                           const char *usage)
{
    const size_t root = strlen(mount);
    char dir[1024];
    int64_t room = -1;

    snprintf(dir, sizeof(dir), "%s%s", mount, cgroup);
    for (;;) {
        const int64_t l = read_number(dir, limit), u = read_number(dir, usage);
        char *slash;
        if (l >= 0 && l < INT64_MAX / 2 && u >= 0)
            room = room < 0 ? FFMAX(l - u, 0) : FFMIN(room, FFMAX(l - u, 0));
        if (strlen(dir) <= root || !(slash = strrchr(dir + root, '/')))
            break;
        *slash = 0;
    }
    return room;
}

int64_t ff_fssim_host_memory(void)
{
    int64_t avail = -1, kb;
    char line[1024];
    FILE *f;

    if ((f = fopen("/proc/meminfo", "r"))) {
        while (fgets(line, sizeof(line), f))
            if (sscanf(line, "MemAvailable: %"SCNd64" kB", &kb) == 1)
                avail = kb * 1024;
        fclose(f);
    }
    /* "0::/path" (v2), "N:a,memory,b:/path" (v1) */
    if ((f = fopen("/proc/self/cgroup", "r"))) {
        while (fgets(line, sizeof(line), f)) {
            char *ctrl = strchr(line, ':'), *path = ctrl ? strchr(ctrl + 1, ':') : NULL;
            int64_t room = -1;
            if (!path)
                continue;
            *path++ = 0;
            path[strcspn(path, "\n")] = 0;
            if (!strcmp(ctrl + 1, "") && !strncmp(line, "0", 1))
                room = cgroup_room("/sys/fs/cgroup", path, "memory.max", "memory.current");
            else if (av_match_name("memory", ctrl + 1))
                room = cgroup_room("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes",
                                   "memory.usage_in_bytes");
            if (room >= 0)
                avail = avail < 0 ? room : FFMIN(avail, room);
        }
        fclose(f);
    }
    return avail;
}

/* fssim3d: what the ring of moments costs, or that it did not fit. */
static void report_ring(const FSSIMEngine *e, int ret, size_t bytes)
{
    /* other failures (a GPU backend's device or module) have said why, and
     * so has a ring refused for the memory there is */
    if (ret == AVERROR(ENOMEM) && !e->ring_refused)
        av_log(e->ctx, AV_LOG_ERROR, "Could not allocate the ring of %d moment sets "
               "(%.1f MiB). Use a smaller depth or smaller frames.\n", e->ring_size,
               bytes / 1048576.0);
    else if (ret >= 0)
        av_log(e->ctx, AV_LOG_INFO, "fssim3d: ring of %d moment sets, %.1f MiB (%s, %s), "
               "output delayed by %d frames\n", e->ring_size, bytes / 1048576.0,
               e->backend->name, e->backend->storage3d, e->opts->depth / 2);
}

int ff_fssim_engine_init(FSSIMEngine *e)
{
    const FSSIMBackend *be = e->backend;
    size_t ring_bytes = 0;
    int ret;

    setup_divisors(e);
    e->nb_slots = be->queue_depth + 1;
    e->ring_size = e->opts->depth ? e->opts->depth + be->ring_extra3d : 0;
    ret = setup_resampling(e);
    if (ret >= 0 && be->priv_size && !(e->priv = av_mallocz(be->priv_size)))
        ret = AVERROR(ENOMEM);
    if (ret >= 0)
        ret = be->init(e, &ring_bytes);
    if (e->ring_size)
        report_ring(e, ret, ring_bytes);
    return ret;
}

void ff_fssim_engine_uninit(FSSIMEngine *e)
{
    if (e->backend && e->priv)
        e->backend->uninit(e);
    av_freep(&e->priv);
    release_ring(e);
    for (int k = 0; k < FSSIM_MAX_DIST; k++)
        for (int c = 0; c < 4; c++)
            for (int i = 0; i < 2; i++)
                ff_fssim_ref_resample_axis_free(&e->axis[k][c][i]);
}

/* All of one rendition and algorithm: the planes weighted by their sample
 * counts, divided once at the end, so that planes that all score exactly 1
 * give exactly 1 (and dB inf, as FFmpeg's ssim prints), which the rounded
 * shares of FSSIMFormat.weight (2/3 + 1/6 + 1/6 < 1) would not. */
static double weighted_all(const FSSIMFormat *f, const double *v)
{
    double all = 0.0, total = 0.0;

    for (int c = 0; c < f->nb_comps; c++) {
        const double n = (double)f->comp[c].width * f->comp[c].height;
        all   += n * v[c];
        total += n;
    }
    return all / total;
}

/* A score in dB (psnr): each plane's MSE beside it, and All the PSNR of
 * FFmpeg psnr's weighting of the planes' MSE. */
static void score_db(const FSSIMEngine *e, const FSSIMAlgo *al,
                     const FSSIMSum (*v)[FSSIM_NB_PARTS], double *score, double *mse)
{
    const FSSIMFormat *f = &e->fmt;
    const int n = f->nb_comps;
    int w[4], h[4];

    for (int c = 0; c < n; c++) {
        w[c] = f->comp[c].width;
        h[c] = f->comp[c].height;
        mse[c] = ff_fssim_ref_mse(v[c][al->first_part].u, w[c], h[c]);
    }
    mse[n]   = ff_fssim_ref_mse_all(mse, w, h, n);
    score[n] = ff_fssim_ref_psnr_from_mse(mse[n], f->depth);
}

void ff_fssim_scores(const FSSIMEngine *e, const FSSIMSums *sums, unsigned present,
                     FSSIMScores *sc)
{
    const FSSIMFormat *f = &e->fmt;
    const int n = f->nb_comps;

    memset(sc, 0, sizeof(*sc));
    for (int k = 0; k < e->nb_dist; k++) {
        if (!(present & (1u << k)))
            continue;
        sc->scored[k] = 1;
        for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
            const FSSIMAlgo *al = ff_fssim_algo(a);
            if (!(e->opts->algos & FSSIM_BIT(a)))
                continue;
            for (int c = 0; c < n; c++)
                sc->score[k][a][c] = al->score(al, sums->v[k][c], e->den[c], f->depth);
            if (al->db)
                sc->score[k][a][n] = weighted_all(f, sc->score[k][a]);
            else
                score_db(e, al, sums->v[k], sc->score[k][a], sc->mse[k]);
        }
    }
}

/* ---- the queue ---------------------------------------------------------- */

int ff_fssim_queue_init(FSSIMQueue *q, const FSSIMEngine *e)
{
    q->depth = e->nb_slots - 1;
    q->fifo  = av_fifo_alloc2(e->nb_slots + 1, sizeof(FSSIMPending), AV_FIFO_FLAG_AUTO_GROW);
    return q->fifo ? 0 : AVERROR(ENOMEM);
}

int ff_fssim_queue_slot(FSSIMQueue *q, const FSSIMEngine *e)
{
    const int slot = q->next_slot;

    /* drain() keeps at most depth frames waiting, so this slot's last job
     * was collected: nb_slots jobs were started since */
    q->next_slot = (q->next_slot + 1) % e->nb_slots;
    return slot;
}

int ff_fssim_queue_push(FSSIMQueue *q, AVFrame *frame, int slot, unsigned present)
{
    FSSIMPending p = { frame, slot, present };
    int ret = av_fifo_write(q->fifo, &p, 1);

    if (ret < 0)
        av_frame_free(&frame);
    return ret;
}

/* Send one frame on.  A status on the output link is our own EOF when
 * flushing (framesync set it; frames sent now still go out before it), or
 * the output closed downstream (-frames:v reached), and then the frame is
 * no longer wanted. */
static int send_frame(AVFilterContext *ctx, AVFrame *frame, int flush, int send)
{
    AVFilterLink *outlink = ctx->outputs[0];

    if (!send || (!flush && ff_outlink_get_status(outlink))) {
        av_frame_free(&frame);
        return 0;
    }
    return ff_filter_frame(outlink, frame);
}

int ff_fssim_queue_drain(FSSIMQueue *q, FSSIMEngine *e, FSSIMOutput *out, int flush,
                         int send)
{
    AVFilterContext *ctx = e->ctx;
    FSSIMPending p;
    int sent = 0, ret;

    while (q->fifo && av_fifo_peek(q->fifo, &p, 1, 0) >= 0) {
        if (p.slot >= 0) {
            const int full = av_fifo_can_read(q->fifo) > (size_t)q->depth;
            FSSIMSums sums;
            FSSIMScores sc;

            ret = e->backend->collect(e, p.slot, flush || full, &sums);
            if (!ret)
                break;
            av_fifo_drain2(q->fifo, 1);
            if (ret > 0) {
                ff_fssim_scores(e, &sums, p.present, &sc);
                ret = ff_fssim_output_frame(ctx, out, p.frame, &sc);
            }
            if (ret < 0) {
                av_frame_free(&p.frame);
                return ret;
            }
        } else {
            av_fifo_drain2(q->fifo, 1);
        }
        ret = send_frame(ctx, p.frame, flush, send);
        if (ret < 0)
            return ret;
        sent++;
    }
    return sent;
}

void ff_fssim_queue_uninit(FSSIMQueue *q)
{
    FSSIMPending p;

    while (q->fifo && av_fifo_read(q->fifo, &p, 1) >= 0)
        av_frame_free(&p.frame);
    av_fifo_freep2(&q->fifo);
}
