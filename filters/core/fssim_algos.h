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
 * fssim: the table of algorithms.  One row per algorithm holds every fact
 * the filters know of it outside the backends: its name (option values,
 * metadata keys, log columns, summary lines), its description (the
 * options' help, the logs' header), whether a dB value is derived from its
 * score, how its values are pooled, which sum parts it needs, how the
 * engine turns them into a score, and what planes it can score.  The
 * options, the engine, the outputs, the logs and the pooling read the
 * table; the logs write the facts of the algorithms they hold into their
 * header, where fssim-farm reads them.  A new algorithm is a row here
 * plus its module in each backend (doc/architecture.md#adding-a-metric).
 */
#ifndef AVFILTER_FSSIM_ALGOS_H
#define AVFILTER_FSSIM_ALGOS_H

#include <stdint.h>

#include "fssim_consts.h"
#include "fssim_options.h"

struct AVFilterContext;
struct FSSIMOptions;
struct FSSIMFormat;
struct FSSIMPlane;

/* One sum part (fssim_consts.h): a double, or (FSSIM_PART_SSE) an exact
 * 64-bit integer. */
typedef union FSSIMSum {
    double   d;
    uint64_t u;
} FSSIMSum;

/* How a series of per-frame values is pooled (doc/algorithms.md#pooling). */
enum FSSIMPooling {
    FSSIM_POOLING_MEAN,  /* mean, min, max, harmonic mean, percentiles */
    FSSIM_POOLING_PSNR,  /* those of each frame's PSNR capped at 6 depth + 12 dB,
                          * and the PSNR of the mean MSE */
};

/*
 * The rows, in index order:
 *   X(index, name, description, db, pooling, first part, parts,
 *     divisors, score, check)
 * db: 1 for a similarity (at most 1) whose dB, -10 log10(1 - v), is
 * written beside it; 0 for a score in dB already (psnr), whose MSE is
 * written beside it instead.  The functions are fssim_algos.c's (see
 * FSSIMAlgo); the option tables read only the first three columns.
 */
#define FSSIM_ALGO_TABLE(X)                                                             \
    X(FSSIM_ALGO_FLOAT,  "float",  "Gaussian SSIM (Wang et al.)", 1,                    \
      FSSIM_POOLING_MEAN, FSSIM_PART_FLOAT, 1, float_divisors, ratio_score, check_float) \
    X(FSSIM_ALGO_INT,    "int",    "integer SSIM (libvmaf integer_ssim)", 1,            \
      FSSIM_POOLING_MEAN, FSSIM_PART_INT, 1, int_divisors, ratio_score, NULL)           \
    X(FSSIM_ALGO_BLOCK,  "block",  "FFmpeg ssim filter algorithm", 1,                   \
      FSSIM_POOLING_MEAN, FSSIM_PART_BLOCK, 1, block_divisors, ratio_score, check_block) \
    X(FSSIM_ALGO_PSNR,   "psnr",   "PSNR (FFmpeg psnr filter)", 0,                      \
      FSSIM_POOLING_PSNR, FSSIM_PART_SSE, 1, sse_divisors, psnr_score, NULL)            \
    X(FSSIM_ALGO_MSSSIM, "msssim", "multi-scale SSIM (pytorch-msssim)", 1,              \
      FSSIM_POOLING_MEAN, FSSIM_PART_MS_S(0), 2 * FSSIM_MS_SCALES, msssim_divisors,     \
      msssim_score, check_msssim)                                                        \
    X(FSSIM_ALGO_VMAF_SSIM, "vmaf_ssim", "libvmaf float_ssim", 1,                       \
      FSSIM_POOLING_MEAN, FSSIM_PART_VMAF_SSIM, 1, vmaf_ssim_divisors, vmaf_ssim_score,  \
      check_vmaf_ssim)                                                                   \
    X(FSSIM_ALGO_VMAF_MSSSIM, "vmaf_msssim", "libvmaf float_ms_ssim", 1,                \
      FSSIM_POOLING_MEAN, FSSIM_PART_VMAF_MS(0, 0), 3 * FSSIM_VMAF_SCALES,              \
      vmaf_msssim_divisors, vmaf_msssim_score, check_vmaf_msssim)

/* The algorithms the filters compute (the `algo` option's range). */
#define FSSIM_ALGO_BIT_(index, ...) | FSSIM_BIT(index)
#define FSSIM_ALGOS_MASK (0 FSSIM_ALGO_TABLE(FSSIM_ALGO_BIT_))

typedef struct FSSIMAlgo {
    int         index;        /* FSSIM_ALGO_*: its bit in the `algo` option */
    const char *name;
    const char *description;
    int         db;
    enum FSSIMPooling pooling;
    int         first_part;   /* its sums: parts first_part .. + nb_parts - 1 */
    int         nb_parts;
    /** What each of its parts of a plane is divided by: den[part] (NAN
     *  where the plane scores nothing). */
    void   (*divisors)(const struct FSSIMOptions *o, const struct FSSIMPlane *p, double *den);
    /** Its score of one plane from the plane's sums and divisors (this
     *  row's parts of them); depth: the samples' bit depth. */
    double (*score)(const struct FSSIMAlgo *a, const union FSSIMSum *v, const double *den,
                    int depth);
    /** 0, or an error, logged naming the plane and what to do, where it
     *  cannot score plane p of f with these options; NULL: any plane. */
    int    (*check)(struct AVFilterContext *ctx, const struct FSSIMOptions *o,
                    const struct FSSIMFormat *f, const struct FSSIMPlane *p);
} FSSIMAlgo;

/** The row of algorithm index (0 .. FSSIM_NB_ALGOS - 1). */
const FSSIMAlgo *ff_fssim_algo(int index);

/** Name of an algorithm ("float", ...) as in the options, keys and logs. */
const char *ff_fssim_algo_name(int algo);

/** Whether a dB value is derived from algorithm algo's score (its row):
 *  not for psnr, which is dB already and has its MSE beside. */
static inline int ff_fssim_has_db(int algo)
{
    return ff_fssim_algo(algo)->db;
}

/** -10 log10(1 - ssim), inf for 1. */
double ff_fssim_db(double ssim);

/** A pooling's name in the logs' header: "mean", "psnr". */
const char *ff_fssim_pooling_name(enum FSSIMPooling pooling);

/* An algorithm's constant in the `algo` and in the `stats_algo` option. */
#define FSSIM_ALGO_CONST_(index, name, description, ...)                                \
    { name, description, 0, AV_OPT_TYPE_CONST, { .i64 = FSSIM_BIT(index) }, 0, 0,      \
      FSSIM_OPT_FLAGS, .unit = "algo" },
#define FSSIM_STATS_ALGO_CONST_(index, name, description, ...)                          \
    { name, description, 0, AV_OPT_TYPE_CONST, { .i64 = index }, 0, 0, FSSIM_OPT_FLAGS, \
      .unit = "stats_algo" },

/* The algorithms and their window; the values are the rows of the table of
 * algorithms (fssim_algos.h), both options' constants listed after `algo`
 * (a constant belongs to its unit wherever it lies). */
#define FSSIM_ALGO_OPTIONS(type, field)                                                 \
    { "algo", "algorithms to compute", offsetof(type, field.algos), AV_OPT_TYPE_FLAGS,  \
      { .i64 = FSSIM_BIT(FSSIM_ALGO_FLOAT) | FSSIM_BIT(FSSIM_ALGO_INT) }, 1,            \
      FSSIM_ALGOS_MASK, FSSIM_OPT_FLAGS, .unit = "algo" },                               \
    FSSIM_ALGO_TABLE(FSSIM_ALGO_CONST_)                                                  \
    FSSIM_ALGO_TABLE(FSSIM_STATS_ALGO_CONST_)                                            \
    FSSIM_WINDOW_OPTIONS(type, field),                                                   \
    { "stats_algo", "algorithm written to stats_file", offsetof(type, field.stats_algo),\
      AV_OPT_TYPE_INT, { .i64 = -1 }, -1, FSSIM_NB_ALGOS - 1, FSSIM_OPT_FLAGS,          \
      .unit = "stats_algo" },                                                            \
    { "auto",  "the first computed", 0, AV_OPT_TYPE_CONST, { .i64 = -1 }, 0, 0,         \
      FSSIM_OPT_FLAGS, .unit = "stats_algo" }

#endif /* AVFILTER_FSSIM_ALGOS_H */
