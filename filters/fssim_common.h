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
 * fssim: what the four filters share -- options, the plane layout of every
 * supported format, input and option checks, the output link, and the
 * outputs (frame metadata, stats_file, JSON/CSV logs, pooling, the
 * summary line).  The scoring itself sits behind fssim_engine.h.
 */
#ifndef AVFILTER_FSSIM_COMMON_H
#define AVFILTER_FSSIM_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "libavutil/opt.h"
#include "libavutil/pixfmt.h"
#include "libavutil/rational.h"
#include "libavfilter/avfilter.h"

#include "fssim_consts.h"
#include "fssim_ref.h"

/* A ladder: one reference and up to FSSIM_MAX_DIST renditions (fssim_consts.h). */
#define FSSIM_MAX_INPUTS (FSSIM_MAX_DIST + 1)

enum FSSIMLogFormat { FSSIM_LOG_JSON, FSSIM_LOG_CSV };

enum FSSIMScale { FSSIM_SCALE_NONE, FSSIM_SCALE_AUTO };

/* Options of the algorithms, the inputs and the outputs, embedded in each
 * filter's context and filled by the option tables below. */
typedef struct FSSIMOptions {
    int    algos;          /* FSSIM_BIT() set */
    int    window;
    double sigma;
    int    padding;        /* enum FSSIMRefPadding */
    int    nb_inputs;      /* 2: main and reference; more: a ladder */
    int    scale;          /* enum FSSIMScale */
    int    scaler;         /* enum FSSIMRefScaler */
    char  *stats_file_str;
    int    stats_algo;     /* FSSIM_ALGO_*, or -1: the first computed */
    char  *log_path;
    int    log_fmt;        /* enum FSSIMLogFormat */
    /* fssim3d's temporal window; depth 0 in the 2-D filters */
    int    depth;          /* odd */
    double tsigma;
    int    tpadding;       /* enum FSSIMRefTPadding */
} FSSIMOptions;

#define FSSIM_OPT_FLAGS (AV_OPT_FLAG_FILTERING_PARAM | AV_OPT_FLAG_VIDEO_PARAM)

#define FSSIM_WINDOW_OPTIONS(type, field)                                               \
    { "window",  "Gaussian window size (odd)", offsetof(type, field.window),            \
      AV_OPT_TYPE_INT, { .i64 = FSSIM_DEFAULT_WINDOW }, FSSIM_MIN_WINDOW,               \
      FSSIM_MAX_WINDOW, FSSIM_OPT_FLAGS },                                               \
    { "sigma",   "Gaussian sigma", offsetof(type, field.sigma),                         \
      AV_OPT_TYPE_DOUBLE, { .dbl = FSSIM_DEFAULT_SIGMA }, 0.1, 10.0, FSSIM_OPT_FLAGS }, \
    { "padding", "spatial border handling", offsetof(type, field.padding),              \
      AV_OPT_TYPE_INT, { .i64 = FSSIM_REF_PAD_VALID }, 0, 1, FSSIM_OPT_FLAGS,           \
      .unit = "padding" },                                                               \
    { "valid", "score windows wholly inside the plane (scikit-image)", 0,              \
      AV_OPT_TYPE_CONST, { .i64 = FSSIM_REF_PAD_VALID }, 0, 0, FSSIM_OPT_FLAGS,         \
      .unit = "padding" },                                                               \
    { "same",  "zeros outside the plane, score every pixel (fused-ssim)", 0,           \
      AV_OPT_TYPE_CONST, { .i64 = FSSIM_REF_PAD_SAME }, 0, 0, FSSIM_OPT_FLAGS,          \
      .unit = "padding" }

#define FSSIM_ALGO_OPTIONS(type, field)                                                 \
    { "algo", "algorithms to compute", offsetof(type, field.algos), AV_OPT_TYPE_FLAGS,  \
      { .i64 = FSSIM_BIT(FSSIM_ALGO_FLOAT) | FSSIM_BIT(FSSIM_ALGO_INT) }, 1,            \
      FSSIM_ALGOS_MASK, FSSIM_OPT_FLAGS, .unit = "algo" },                               \
    { "float", "Gaussian SSIM (Wang et al.)", 0, AV_OPT_TYPE_CONST,                     \
      { .i64 = FSSIM_BIT(FSSIM_ALGO_FLOAT) }, 0, 0, FSSIM_OPT_FLAGS, .unit = "algo" },  \
    { "int",   "integer SSIM (libvmaf integer_ssim)", 0, AV_OPT_TYPE_CONST,             \
      { .i64 = FSSIM_BIT(FSSIM_ALGO_INT) }, 0, 0, FSSIM_OPT_FLAGS, .unit = "algo" },    \
    { "block", "FFmpeg ssim filter algorithm", 0, AV_OPT_TYPE_CONST,                    \
      { .i64 = FSSIM_BIT(FSSIM_ALGO_BLOCK) }, 0, 0, FSSIM_OPT_FLAGS, .unit = "algo" },  \
    { "psnr",  "PSNR (FFmpeg psnr filter)", 0, AV_OPT_TYPE_CONST,                       \
      { .i64 = FSSIM_BIT(FSSIM_ALGO_PSNR) }, 0, 0, FSSIM_OPT_FLAGS, .unit = "algo" },   \
    { "msssim", "multi-scale SSIM (pytorch-msssim)", 0, AV_OPT_TYPE_CONST,             \
      { .i64 = FSSIM_BIT(FSSIM_ALGO_MSSSIM) }, 0, 0, FSSIM_OPT_FLAGS, .unit = "algo" }, \
    FSSIM_WINDOW_OPTIONS(type, field),                                                   \
    { "stats_algo", "algorithm written to stats_file", offsetof(type, field.stats_algo),\
      AV_OPT_TYPE_INT, { .i64 = -1 }, -1, FSSIM_NB_ALGOS - 1, FSSIM_OPT_FLAGS,          \
      .unit = "stats_algo" },                                                            \
    { "auto",  "the first computed", 0, AV_OPT_TYPE_CONST, { .i64 = -1 }, 0, 0,         \
      FSSIM_OPT_FLAGS, .unit = "stats_algo" },                                           \
    { "float", "Gaussian SSIM", 0, AV_OPT_TYPE_CONST, { .i64 = FSSIM_ALGO_FLOAT }, 0, 0,\
      FSSIM_OPT_FLAGS, .unit = "stats_algo" },                                           \
    { "int",   "integer SSIM", 0, AV_OPT_TYPE_CONST, { .i64 = FSSIM_ALGO_INT }, 0, 0,   \
      FSSIM_OPT_FLAGS, .unit = "stats_algo" },                                           \
    { "block", "FFmpeg ssim", 0, AV_OPT_TYPE_CONST, { .i64 = FSSIM_ALGO_BLOCK }, 0, 0,  \
      FSSIM_OPT_FLAGS, .unit = "stats_algo" },                                           \
    { "psnr",  "PSNR, in FFmpeg psnr's line format", 0, AV_OPT_TYPE_CONST,             \
      { .i64 = FSSIM_ALGO_PSNR }, 0, 0, FSSIM_OPT_FLAGS, .unit = "stats_algo" },         \
    { "msssim", "multi-scale SSIM", 0, AV_OPT_TYPE_CONST, { .i64 = FSSIM_ALGO_MSSSIM },  \
      0, 0, FSSIM_OPT_FLAGS, .unit = "stats_algo" }

/* The algorithms the filters compute (the option's range). */
#define FSSIM_ALGOS_MASK (FSSIM_BIT(FSSIM_ALGO_FLOAT) | FSSIM_BIT(FSSIM_ALGO_INT) | \
                          FSSIM_BIT(FSSIM_ALGO_BLOCK) | FSSIM_BIT(FSSIM_ALGO_PSNR) | \
                          FSSIM_BIT(FSSIM_ALGO_MSSSIM))

/* The ladder's options: how many inputs, and how renditions of another
 * size than the reference are brought to its size. */
#define FSSIM_INPUT_OPTIONS(type, field)                                                \
    { "inputs", "number of inputs: the renditions, then the reference",                 \
      offsetof(type, field.nb_inputs), AV_OPT_TYPE_INT, { .i64 = 2 }, 2,                \
      FSSIM_MAX_INPUTS, FSSIM_OPT_FLAGS },                                               \
    { "scale", "renditions of another size than the reference",                        \
      offsetof(type, field.scale), AV_OPT_TYPE_INT, { .i64 = FSSIM_SCALE_AUTO }, 0, 1,  \
      FSSIM_OPT_FLAGS, .unit = "scale" },                                                \
    { "auto", "resample them to the reference's size", 0, AV_OPT_TYPE_CONST,            \
      { .i64 = FSSIM_SCALE_AUTO }, 0, 0, FSSIM_OPT_FLAGS, .unit = "scale" },            \
    { "none", "fail", 0, AV_OPT_TYPE_CONST, { .i64 = FSSIM_SCALE_NONE }, 0, 0,           \
      FSSIM_OPT_FLAGS, .unit = "scale" },                                                \
    { "scaler", "resampling kernel", offsetof(type, field.scaler), AV_OPT_TYPE_INT,     \
      { .i64 = FSSIM_REF_SCALER_BICUBIC }, 0, 2, FSSIM_OPT_FLAGS, .unit = "scaler" },   \
    { "bicubic", "Keys, a = -0.6 (FFmpeg scale's bicubic)", 0, AV_OPT_TYPE_CONST,       \
      { .i64 = FSSIM_REF_SCALER_BICUBIC }, 0, 0, FSSIM_OPT_FLAGS, .unit = "scaler" },   \
    { "bilinear", "triangle", 0, AV_OPT_TYPE_CONST,                                     \
      { .i64 = FSSIM_REF_SCALER_BILINEAR }, 0, 0, FSSIM_OPT_FLAGS, .unit = "scaler" },  \
    { "lanczos", "Lanczos, 3 lobes", 0, AV_OPT_TYPE_CONST,                              \
      { .i64 = FSSIM_REF_SCALER_LANCZOS }, 0, 0, FSSIM_OPT_FLAGS, .unit = "scaler" }

#define FSSIM_OUTPUT_OPTIONS(type, field)                                               \
    { "stats_file", "write per-frame lines in the ssim filter's format (- for stdout)", \
      offsetof(type, field.stats_file_str), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0,  \
      FSSIM_OPT_FLAGS },                                                                 \
    { "f", "same as stats_file", offsetof(type, field.stats_file_str),                  \
      AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FSSIM_OPT_FLAGS },                     \
    { "log_path", "write every frame's values and the pooled scores to this file",     \
      offsetof(type, field.log_path), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0,        \
      FSSIM_OPT_FLAGS },                                                                 \
    { "log_fmt", "log format", offsetof(type, field.log_fmt), AV_OPT_TYPE_INT,          \
      { .i64 = FSSIM_LOG_JSON }, 0, 1, FSSIM_OPT_FLAGS, .unit = "log_fmt" },            \
    { "json", "JSON", 0, AV_OPT_TYPE_CONST, { .i64 = FSSIM_LOG_JSON }, 0, 0,            \
      FSSIM_OPT_FLAGS, .unit = "log_fmt" },                                              \
    { "csv",  "CSV",  0, AV_OPT_TYPE_CONST, { .i64 = FSSIM_LOG_CSV },  0, 0,            \
      FSSIM_OPT_FLAGS, .unit = "log_fmt" }

/* One scored component (Y, U, V, R, G, B or A) as it lies in an AVFrame. */
typedef struct FSSIMPlane {
    char name;
    int  plane;      /* AVFrame data[] index */
    int  offset;     /* bytes from the row start to the first sample */
    int  width, height;
    int  bytes;      /* container size: 1 or 2 */
    int  step;       /* containers between horizontally adjacent samples */
    int  shift;      /* right shift that yields the sample value */
} FSSIMPlane;

typedef struct FSSIMFormat {
    enum AVPixelFormat pix_fmt;   /* the software format */
    int    width, height;
    int    depth;
    int    nb_comps;
    FSSIMPlane comp[4];
    double weight[4];             /* share of the samples, for All */
} FSSIMFormat;

/* The software formats of doc/formats.md, AV_PIX_FMT_NONE terminated. */
extern const enum AVPixelFormat ff_fssim_sw_pix_fmts[];

/** Name of an algorithm ("float", ...) as in the options, keys and logs. */
const char *ff_fssim_algo_name(int algo);

/**
 * Formats of the filters' links: the software formats, plus the hardware
 * formats the filter's backends take (hw_formats, AV_PIX_FMT_NONE
 * terminated; empty for fssim).  Each input gets its own
 * list, so that an input in another format than the others reaches the
 * filter and fails with a message naming both (doc/formats.md) instead of
 * being converted silently; software frames reach a GPU filter and get a
 * clear error instead of a failed negotiation.  The output shares the list
 * of the input whose frames it carries (out_pad).
 */
int ff_fssim_query_formats(const AVFilterContext *ctx,
                           struct AVFilterFormatsConfig **cfg_in,
                           struct AVFilterFormatsConfig **cfg_out,
                           const enum AVPixelFormat *hw_formats, int out_pad);

/**
 * The inputs of a filter with opts->nb_inputs inputs: "main" and
 * "reference" for two, else "dist1" .. "dist<N-1>" and "reference".
 * Called from init; the filter is flagged AVFILTER_FLAG_DYNAMIC_INPUTS.
 */
int ff_fssim_append_inputs(AVFilterContext *ctx, const FSSIMOptions *opts);

/** The index of the pad whose frames go out: main, or a ladder's reference. */
static inline int ff_fssim_out_pad(const AVFilterContext *ctx)
{
    return ctx->nb_inputs > 2 ? (int)ctx->nb_inputs - 1 : 0;
}

/** Describe the components of sw_format at width x height.  Fails with a
 *  message naming the format if it is not one of ff_fssim_sw_pix_fmts. */
int ff_fssim_format_init(AVFilterContext *ctx, FSSIMFormat *f,
                         enum AVPixelFormat sw_format, int width, int height);

/** A component of a frame as the CPU reference reads it. */
FSSIMRefPlane ff_fssim_ref_plane(const FSSIMFormat *f, int c,
                                 uint8_t *const data[], const int linesize[]);

/**
 * doc/formats.md: every input has the software format of the reference
 * (the last input) and, unless scale (a ladder with scale=auto resamples;
 * two inputs always need one size), its size.
 * fmt[i]: input i's software format (the sw_format of hardware frames);
 * fix names the filter that makes them match, e.g. "scale_cuda".
 */
int ff_fssim_check_inputs(AVFilterContext *ctx, const enum AVPixelFormat *fmt, int scale,
                          const char *fix);

struct FFFrameSync;

struct FSSIMOutput;

/**
 * The output link: framesync on every input (two inputs: main leads, as
 * in FFmpeg's ssim; a ladder: the reference leads), the size, rates and
 * (for hardware frames) frames context of the input whose frames go out,
 * framesync's time base.  The time base is also kept in out, so that
 * frames scored at uninit, when the output link may already be freed, are
 * logged with it.  Warns, as FFmpeg's ssim does, when the inputs' time
 * bases differ.
 */
int ff_fssim_config_output(AVFilterLink *outlink, struct FFFrameSync *fs,
                           struct FSSIMOutput *out);

/**
 * The frames of one framesync event: out (the frame that goes out, owned
 * by the caller), ref and dist[] (NULL where an input has none: the timeline
 * disabled it, or eof_action=pass after its end).  Returns the number of
 * renditions with a frame, or an error.
 */
int ff_fssim_get_frames(struct FFFrameSync *fs, AVFrame **out, AVFrame **ref,
                        AVFrame **dist);

/**
 * Before a frame set is scored: fail, naming the pad, if a frame's size or
 * (software) format is not the configured one (changed inside the graph,
 * where FFmpeg does not rebuild it); warn, once per filter, as FFmpeg's
 * ssim does, when the colour ranges differ (the samples are scored as
 * they are).
 */
int ff_fssim_check_frames(AVFilterContext *ctx, struct FSSIMOutput *out,
                          const AVFrame *ref, AVFrame *const *dist, int nb_dist);

/** Check the options against each other and against the plane sizes. */
int ff_fssim_check_options(AVFilterContext *ctx, const FSSIMOptions *o,
                           const FSSIMFormat *f);

/* ---- outputs ---------------------------------------------------------- */

/* The nearest-rank percentiles kept for the logs (doc/algorithms.md#pooling). */
#define FSSIM_NB_PCT 3

/*
 * One nearest-rank percentile of a growing series: the rank
 * k(n) = ceil(p n / 100) grows by at most one a value, so the k smallest
 * values sit in a max-heap (lo) and the others in a min-heap (hi), and
 * adding a value moves at most one across: O(log n) a frame, exact.  Each
 * heap is sized to what it holds, so a percentile keeps each value once.
 */
typedef struct FSSIMPercentile {
    double  *lo, *hi;
    unsigned nb_lo, nb_hi;
    unsigned lo_size, hi_size;   /* allocated */
} FSSIMPercentile;

typedef struct FSSIMPool {
    double sum, inv_sum, min, max;
    double mse_sum;                       /* psnr: the per-frame MSE */
    FSSIMPercentile pct[FSSIM_NB_PCT];    /* only where a log is written */
} FSSIMPool;

/** Per-frame scores: score[rendition][algo][component], All at index
 *  nb_comps; psnr's MSE beside (its score is dB). */
typedef struct FSSIMScores {
    double score[FSSIM_MAX_DIST][FSSIM_NB_ALGOS][5];
    double mse[FSSIM_MAX_DIST][5];
    uint8_t scored[FSSIM_MAX_DIST];  /* the rendition had a frame */
} FSSIMScores;

typedef struct FSSIMOutput {
    const char *key_prefix;   /* "lavfi.fssim." or "lavfi.fssim3d." */
    int         algos;        /* FSSIM_BIT() set; 0: one unnamed score (fssim3d) */
    int         stats_algo;
    int         nb_dist;      /* 1, or a ladder's renditions */
    FSSIMFormat fmt;          /* the reference's */
    FSSIMFormat dist_fmt[FSSIM_MAX_DIST];  /* the renditions', as they arrive */
    AVRational  time_base;    /* of the frames scored: the output link's */
    FILE       *stats_file[FSSIM_MAX_DIST];
    FILE       *log;
    const FSSIMOptions *opts; /* the paths, for messages and the parked list */
    int         log_fmt;
    int         write_error;  /* a write failed: reported once, nothing more written */
    int         warned_range;
    int         resumed;      /* continues the log of an instance torn down mid-stream */
    int64_t     log_trailer_pos;  /* where the JSON trailer (CSV: the pooled rows)
                                     starts; -1: not seekable */
    int         log_trailer_len;
    uint64_t    nb_frames;
    uint64_t    first_n;      /* number of the first scored frame: fssim3d with
                                 tpadding=valid scores from frame depth/2 on */
    uint64_t    nb_scored[FSSIM_MAX_DIST];  /* frames scored per rendition */
    FSSIMPool   pool[FSSIM_MAX_DIST][FSSIM_NB_ALGOS][5];  /* per component, then All */
} FSSIMOutput;

/** psnr's pooled per-frame values are capped as libvmaf caps them. */
double ff_fssim_psnr_cap(int depth);

/**
 * Open the stats files and the log (at init, so a bad path fails before any
 * frame is decoded).  algos == 0 makes the single-score fssim3d layout.
 * nb_dist > 1 (a ladder) needs a stats_file with %d, replaced by the
 * rendition's number.
 *
 * When FFmpeg rebuilds a graph mid-stream (a size or format change), the
 * new instance continues the logs of the one torn down: ff_fssim_output_close
 * with ended == 0 parks the output's state (counts, pools, log position) in
 * a process-wide list keyed by the paths, and the next instance of the same
 * filter with the same paths and algorithms takes it up and appends.  Two
 * live filters writing one path is an error.
 */
int ff_fssim_output_open(AVFilterContext *ctx, FSSIMOutput *out, const FSSIMOptions *o,
                         const char *key_prefix, int algos, int nb_dist);

/** Record the formats (the reference's, then each rendition's) and write
 *  the log header (at config time).  A resumed log keeps its header: the
 *  new format must have the same components.  Fails, naming the path, if
 *  the header cannot be written. */
int ff_fssim_output_config(AVFilterContext *ctx, FSSIMOutput *out, const FSSIMFormat *f,
                           const FSSIMFormat *dist);

/** Attach a frame's scores as metadata, write them to the stats files and
 *  log, and pool them.  A write error fails (naming the path and the error);
 *  the frame's scores are then not published. */
int ff_fssim_output_frame(AVFilterContext *ctx, FSSIMOutput *out, AVFrame *frame,
                          const FSSIMScores *s);

/**
 * Summary lines, pooled values into the log, close the files.  ended: the
 * inputs reached their end; 0 when the instance is freed mid-stream (a
 * graph rebuilt, a run stopped), and then a new instance of the same
 * filter and paths in this process continues the logs.  Returns a write
 * error, already reported, or 0; at uninit only reporting is possible.
 */
int ff_fssim_output_close(AVFilterContext *ctx, FSSIMOutput *out, int ended);

/** -10 log10(1 - ssim), inf for 1. */
double ff_fssim_db(double ssim);

#endif /* AVFILTER_FSSIM_COMMON_H */
