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
 * fssim: pooling.  Every value is added in frame order, exactly as the
 * logs print it (%.17g round-trips), and each pooled value below is one
 * fixed expression of those values, so that a tool pooling a log's frames
 * the same way gets the same doubles.  FFMIN(a, b) is (a > b ? b : a) and
 * FFMAX(a, b) is (a > b ? a : b); n is the number of values added.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libavutil/avstring.h"
#include "libavutil/common.h"
#include "libavutil/error.h"
#include "libavutil/mem.h"
#include "libavutil/thread.h"

#include "fssim_pool.h"
#include "../core/fssim_ref.h"

static const double pct_rank[FSSIM_NB_PCT] = { 1, 5, 50 };

static const char *const pooled_names[FSSIM_NB_POOLED] = {
    [FSSIM_POOLED_MEAN]             = "mean",
    [FSSIM_POOLED_MIN]              = "min",
    [FSSIM_POOLED_MAX]              = "max",
    [FSSIM_POOLED_HARMONIC_MEAN]    = "harmonic_mean",
    [FSSIM_POOLED_P1]               = "p1",
    [FSSIM_POOLED_P5]               = "p5",
    [FSSIM_POOLED_P50]              = "p50",
    [FSSIM_POOLED_PSNR_OF_MEAN_MSE] = "psnr_of_mean_mse",
};

/* ---- the values kept: chunks in memory, or spilled to a file ---------- */

#define CHUNK_VALUES 1024
#define CHUNK_BYTES  (CHUNK_VALUES * sizeof(double))
/* The memory all series of the process may keep before they spill; the
 * environment variable FSSIM_POOL_MEMORY (bytes) sets it for tests. */
#define POOL_MEMORY  (256 << 20)

static AVMutex spill_lock = AV_MUTEX_INITIALIZER;
static int64_t memory_limit = -1;
static int64_t memory_used;     /* chunks in memory, bytes */
static int     spill_fd = -1;   /* the temporary file, unlinked */
static int64_t spill_end;       /* where the next chunk goes */
static int64_t spill_used;      /* bytes of the chunks still spilled there */

static int64_t pool_memory(void)
{
    const char *env = getenv("FSSIM_POOL_MEMORY");
    return env && *env ? strtoll(env, NULL, 0) : POOL_MEMORY;
}

static int open_spill_file(void)
{
    const char *dir = getenv("TMPDIR");
    char *path = av_asprintf("%s/fssim-pool-XXXXXX", dir && *dir ? dir : "/tmp");

    if (!path)
        return -1;
    spill_fd = mkstemp(path);
    if (spill_fd >= 0)
        unlink(path);
    av_free(path);
    return spill_fd;
}

/* Chunk c of s is full: past the limit it goes to the file, and its
 * buffer is returned for the next chunk (no churn of the allocator, which
 * would grow the heap).  A chunk the file cannot take stays in memory. */
static double *spill_chunk(FSSIMSeries *s, unsigned c)
{
    double *buf = NULL;

    ff_mutex_lock(&spill_lock);
    if (memory_used > memory_limit && (spill_fd >= 0 || open_spill_file() >= 0) &&
        pwrite(spill_fd, s->chunk[c], CHUNK_BYTES, spill_end) == CHUNK_BYTES) {
        s->spilled[c] = spill_end;
        s->nb_spilled++;
        spill_end  += CHUNK_BYTES;
        spill_used += CHUNK_BYTES;
        memory_used -= CHUNK_BYTES;
        buf = s->chunk[c];
        s->chunk[c] = NULL;
    }
    ff_mutex_unlock(&spill_lock);
    return buf;
}

static int series_add(FSSIMSeries *s, double v)
{
    const unsigned c = s->nb / CHUNK_VALUES, i = s->nb % CHUNK_VALUES;

    if (!i) {
        double *buf = c ? spill_chunk(s, c - 1) : NULL;
        if (c == s->size) {
            const unsigned size = FFMAX(16, 2 * s->size);
            double **chunk = av_realloc_array(s->chunk, size, sizeof(*chunk));
            int64_t *spilled;
            if (chunk)
                s->chunk = chunk;
            spilled = chunk ? av_realloc_array(s->spilled, size, sizeof(*spilled)) : NULL;
            if (!spilled) {
                av_free(buf);
                return AVERROR(ENOMEM);
            }
            s->spilled = spilled;
            s->size = size;
        }
        if (!buf && !(buf = av_malloc(CHUNK_BYTES)))
            return AVERROR(ENOMEM);
        s->chunk[c] = buf;
        s->spilled[c] = -1;
        s->nb_chunks = c + 1;
        ff_mutex_lock(&spill_lock);
        if (memory_limit < 0)
            memory_limit = pool_memory();
        memory_used += CHUNK_BYTES;
        ff_mutex_unlock(&spill_lock);
    }
    s->chunk[c][i] = v;
    s->nb++;
    return 0;
}

/* Every value of s, in order, into v. */
static int series_read(const FSSIMSeries *s, double *v)
{
    for (unsigned c = 0; c < s->nb_chunks; c++) {
        const size_t nb = FFMIN(CHUNK_VALUES, s->nb - (uint64_t)c * CHUNK_VALUES);
        double *dst = v + (size_t)c * CHUNK_VALUES;
        if (s->chunk[c]) {
            memcpy(dst, s->chunk[c], nb * sizeof(*v));
        } else if (pread(spill_fd, dst, CHUNK_BYTES, s->spilled[c]) != CHUNK_BYTES) {
            return AVERROR(errno ? errno : EIO);
        }
    }
    return 0;
}

static void series_free(FSSIMSeries *s)
{
    ff_mutex_lock(&spill_lock);
    for (unsigned c = 0; c < s->nb_chunks; c++) {
        if (s->chunk[c])
            memory_used -= CHUNK_BYTES;
        else
            spill_used -= CHUNK_BYTES;
        av_freep(&s->chunk[c]);
    }
    /* nothing left in the file: give its space back */
    if (spill_fd >= 0 && !spill_used) {
        close(spill_fd);
        spill_fd  = -1;
        spill_end = 0;
    }
    ff_mutex_unlock(&spill_lock);
    av_freep(&s->chunk);
    av_freep(&s->spilled);
    s->nb_chunks = s->size = s->nb_spilled = 0;
    s->nb = 0;
}

/* ---- nearest-rank percentiles ----------------------------------------- */

/* The rank of percentile p among n values (from 1; 0 only for n = 0). */
static uint64_t pct_k(double p, uint64_t n)
{
    return (uint64_t)ceil(p * n / 100.0 - 1e-9);
}

/* Reorder v[lo, hi) so that v[k] is the value of rank k + 1, with no
 * greater value before it and no smaller one after it (three-way
 * partitions: a series of equal scores takes one pass). */
static void select_rank(double *v, size_t lo, size_t hi, size_t k)
{
    while (hi - lo > 1) {
        const double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
        const double pivot = a < b ? (b < c ? b : FFMAX(a, c)) : (a < c ? a : FFMAX(b, c));
        size_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            if (v[i] < pivot) {
                FFSWAP(double, v[i], v[lt]);
                lt++;
                i++;
            } else if (v[i] > pivot) {
                gt--;
                FFSWAP(double, v[i], v[gt]);
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return;
    }
}

/*
 * The percentiles as the logs always defined them: the largest of the k
 * smallest values, kept as values arrived in a max-heap (lo) of the k
 * smallest and a min-heap (hi, sign flipped) of the others.  Ordered by
 * '<', so that a NaN or the two zeros give what they always gave; where
 * the values hold neither, selection by rank gives the same double.
 */
static void heap_push(double *h, unsigned *n, double v)
{
    unsigned i = (*n)++;
    for (; i && h[(i - 1) / 2] < v; i = (i - 1) / 2)
        h[i] = h[(i - 1) / 2];
    h[i] = v;
}

static double heap_pop(double *h, unsigned *n)
{
    const double top = h[0], v = h[--*n];
    unsigned i = 0;

    for (;;) {
        unsigned c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1] > h[c])
            c++;
        if (h[c] <= v)
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n)
        h[i] = v;
    return top;
}

static int pct_replay(const double *v, uint64_t n, double p, double *out)
{
    double *lo = av_malloc_array(n, sizeof(*lo)), *hi = av_malloc_array(n, sizeof(*hi));
    unsigned nb_lo = 0, nb_hi = 0;

    if (!lo || !hi) {
        av_free(lo);
        av_free(hi);
        return AVERROR(ENOMEM);
    }
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t k = pct_k(p, i + 1);
        if (nb_lo && v[i] < lo[0])
            heap_push(lo, &nb_lo, v[i]);
        else
            heap_push(hi, &nb_hi, -v[i]);
        while (nb_lo > k)
            heap_push(hi, &nb_hi, -heap_pop(lo, &nb_lo));
        while (nb_lo < k)
            heap_push(lo, &nb_lo, -heap_pop(hi, &nb_hi));
    }
    *out = nb_lo ? lo[0] : NAN;
    av_free(lo);
    av_free(hi);
    return 0;
}

int ff_fssim_pool_percentiles(FSSIMPool *p)
{
    const uint64_t n = p->values.nb;
    size_t end = n;
    int plain = 1, ret;
    double *v;

    if (p->pct_nb == n)
        return 0;
    if (!(v = av_malloc_array(n, sizeof(*v))))
        return AVERROR(ENOMEM);
    ret = series_read(&p->values, v);
    for (uint64_t i = 0; i < n && plain; i++)
        plain = !isnan(v[i]) && !(v[i] == 0.0 && signbit(v[i]));
    /* from the largest rank down: each selection leaves the smaller
     * ranks in front of it */
    for (int i = FSSIM_NB_PCT - 1; i >= 0 && ret >= 0; i--) {
        const uint64_t k = pct_k(pct_rank[i], n);
        if (!plain) {
            ret = pct_replay(v, n, pct_rank[i], &p->pct[i]);
            continue;
        }
        select_rank(v, 0, end, k - 1);
        p->pct[i] = v[k - 1];
        end = k;
    }
    av_free(v);
    if (ret >= 0)
        p->pct_nb = n;
    return ret;
}

/* ---- pooling ------------------------------------------------------------ */

/* The sums run in frame order from 0.0:
 *   sum     += v
 *   inv_sum += 1.0 / (1.0 + v)
 *   min      = the first v, then FFMIN(min, v)
 *   max      = the first v, then FFMAX(max, v)
 * and each percentile takes v as the (n + 1)-th value of its series. */
int ff_fssim_pool_add(FSSIMPool *p, uint64_t n, double v, int pct)
{
    if (!n)
        p->min = p->max = v;
    p->sum     += v;
    p->inv_sum += 1.0 / (1.0 + v);
    p->min      = FFMIN(p->min, v);
    p->max      = FFMAX(p->max, v);
    return pct ? series_add(&p->values, v) : 0;
}

/* psnr is pooled capped, as libvmaf pools it: v = FFMIN(db, 6.0 * depth + 12.0),
 * with mse_sum += mse (in frame order, from 0.0) first. */
int ff_fssim_pool_add_psnr(FSSIMPool *p, uint64_t n, double db, double mse, int depth,
                           int pct)
{
    p->mse_sum += mse;
    return ff_fssim_pool_add(p, n, FFMIN(db, 6.0 * depth + 12.0), pct);
}

double ff_fssim_pooled(const FSSIMPool *p, uint64_t n, enum FSSIMPooled which, int depth)
{
    if (!n)
        return NAN;
    switch (which) {
    /* mean = sum / n */
    case FSSIM_POOLED_MEAN:
        return p->sum / n;
    /* min and max as accumulated */
    case FSSIM_POOLED_MIN:
        return p->min;
    case FSSIM_POOLED_MAX:
        return p->max;
    /* libvmaf's harmonic mean, defined for SSIM's range [-1, 1]:
     * n / inv_sum - 1.0 */
    case FSSIM_POOLED_HARMONIC_MEAN:
        return n / p->inv_sum - 1.0;
    /* FFmpeg psnr's "average": ff_fssim_ref_psnr_from_mse(mse_sum / n, depth) */
    case FSSIM_POOLED_PSNR_OF_MEAN_MSE:
        return ff_fssim_ref_psnr_from_mse(p->mse_sum / n, depth);
    /* p1, p5, p50: the value of nearest rank k = ceil(p * n / 100.0 - 1e-9)
     * among the n sorted */
    default:
        return p->pct_nb == n ? p->pct[which - FSSIM_POOLED_P1] : NAN;
    }
}

uint64_t ff_fssim_pool_kept(const FSSIMPool *p, uint64_t *spilled)
{
    *spilled = (uint64_t)p->values.nb_spilled * CHUNK_BYTES;
    return (uint64_t)p->values.nb_chunks * CHUNK_BYTES;
}

const char *ff_fssim_pooled_name(enum FSSIMPooled which)
{
    return pooled_names[which];
}

void ff_fssim_pool_free(FSSIMPool *p)
{
    series_free(&p->values);
    p->pct_nb = 0;
}
