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
 * fssim: pooling -- what the logs and the summary lines say of a whole
 * series of per-frame values: mean, min, max, harmonic mean, nearest-rank
 * percentiles and, for psnr, the PSNR of the mean MSE.  Values are pooled
 * in frame order, exactly as logged (doc/algorithms.md#pooling), so that a
 * log's frames give its pooled values again bit for bit.
 */
#ifndef AVFILTER_FSSIM_POOL_H
#define AVFILTER_FSSIM_POOL_H

#include <stdint.h>

/* The nearest-rank percentiles of the logs (doc/algorithms.md#pooling). */
#define FSSIM_NB_PCT 3

/*
 * Every value of a series, once, for its percentiles: append-only chunks,
 * read back when the log closes.  Past a process-wide limit on the memory
 * they take (256 MiB), full chunks go to a temporary file (unlinked at
 * once) instead.
 */
typedef struct FSSIMSeries {
    double  **chunk;      /* in memory; NULL where spilled */
    int64_t  *spilled;    /* the temporary file's offset of a spilled chunk */
    unsigned  nb_chunks, size;
    unsigned  nb_spilled;
    uint64_t  nb;
} FSSIMSeries;

typedef struct FSSIMPool {
    double sum, inv_sum, min, max;
    double mse_sum;                       /* psnr: the per-frame MSE */
    FSSIMSeries values;                   /* only where a log is written */
    double   pct[FSSIM_NB_PCT];           /* of the first pct_nb values */
    uint64_t pct_nb;
} FSSIMPool;

/* The pooled values of a series, in the logs' order (the JSON members, the
 * CSV rows); fssim_pool.c gives each one's exact expression. */
enum FSSIMPooled {
    FSSIM_POOLED_MEAN,
    FSSIM_POOLED_MIN,
    FSSIM_POOLED_MAX,
    FSSIM_POOLED_HARMONIC_MEAN,
    FSSIM_POOLED_P1,
    FSSIM_POOLED_P5,
    FSSIM_POOLED_P50,
    FSSIM_POOLED_PSNR_OF_MEAN_MSE,   /* psnr's alone */
    FSSIM_NB_POOLED,
};

/**
 * Add value n (counted from 0) of a series.  pct: keep the value for the
 * percentiles too (only where a log is written).
 */
int ff_fssim_pool_add(FSSIMPool *p, uint64_t n, double v, int pct);

/**
 * Add frame n's PSNR (dB) and MSE to a psnr series: the PSNR is pooled
 * capped at 6 * depth + 12 dB, as libvmaf pools it; the MSE is summed for
 * the PSNR of the mean MSE.
 */
int ff_fssim_pool_add_psnr(FSSIMPool *p, uint64_t n, double db, double mse, int depth,
                           int pct);

/** The percentiles of the values kept so far, for ff_fssim_pooled (when
 *  the log closes: they read every value). */
int ff_fssim_pool_percentiles(FSSIMPool *p);

/** Pooled value which of the n values added (NAN where n is 0; the
 *  percentiles as ff_fssim_pool_percentiles left them); depth: the
 *  samples' bit depth (the PSNR of the mean MSE). */
double ff_fssim_pooled(const FSSIMPool *p, uint64_t n, enum FSSIMPooled which, int depth);

/** The bytes the values kept take, and in *spilled those in the
 *  temporary file. */
uint64_t ff_fssim_pool_kept(const FSSIMPool *p, uint64_t *spilled);

/** Its name in the logs: "mean", "min", ..., "psnr_of_mean_mse". */
const char *ff_fssim_pooled_name(enum FSSIMPooled which);

/** Free the values kept. */
void ff_fssim_pool_free(FSSIMPool *p);

#endif /* AVFILTER_FSSIM_POOL_H */
