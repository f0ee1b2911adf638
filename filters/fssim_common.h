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
 * fssim: what the four filters share — options, input checks, the plane
 * layout of every supported format, and the outputs (frame metadata,
 * stats_file, JSON/CSV logs, pooling, the summary line).
 */
#ifndef AVFILTER_FSSIM_COMMON_H
#define AVFILTER_FSSIM_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "libavutil/opt.h"
#include "libavutil/pixfmt.h"
#include "libavutil/rational.h"
#include "libavfilter/avfilter.h"

#include "fssim_ref.h"

enum FSSIMAlgo {
    FSSIM_FLOAT,
    FSSIM_INT,
    FSSIM_BLOCK,
    FSSIM_NB_ALGOS
};
#define FSSIM_FLAG(algo) (1 << (algo))

enum FSSIMLogFormat { FSSIM_LOG_JSON, FSSIM_LOG_CSV };

/* Options of the algorithms and of the outputs, embedded in each filter's
 * context and filled by the option tables below. */
typedef struct FSSIMOptions {
    int    algos;          /* FSSIM_FLAG() set */
    int    window;
    double sigma;
    int    padding;        /* enum FSSIMRefPadding */
    char  *stats_file_str;
    int    stats_algo;     /* enum FSSIMAlgo, or -1: the first computed */
    char  *log_path;
    int    log_fmt;        /* enum FSSIMLogFormat */
} FSSIMOptions;

#define FSSIM_OPT_FLAGS (AV_OPT_FLAG_FILTERING_PARAM | AV_OPT_FLAG_VIDEO_PARAM)

#define FSSIM_WINDOW_OPTIONS(type, field)                                               \
    { "window",  "Gaussian window size (odd)", offsetof(type, field.window),            \
      AV_OPT_TYPE_INT, { .i64 = 11 }, FSSIM_REF_MIN_WINDOW, FSSIM_REF_MAX_WINDOW,       \
      FSSIM_OPT_FLAGS },                                                                 \
    { "sigma",   "Gaussian sigma", offsetof(type, field.sigma),                         \
      AV_OPT_TYPE_DOUBLE, { .dbl = 1.5 }, 0.1, 10.0, FSSIM_OPT_FLAGS },                 \
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
      { .i64 = FSSIM_FLAG(FSSIM_FLOAT) | FSSIM_FLAG(FSSIM_INT) }, 1,                    \
      (1 << FSSIM_NB_ALGOS) - 1, FSSIM_OPT_FLAGS, .unit = "algo" },                    \
    { "float", "Gaussian SSIM (Wang et al.)", 0, AV_OPT_TYPE_CONST,                     \
      { .i64 = FSSIM_FLAG(FSSIM_FLOAT) }, 0, 0, FSSIM_OPT_FLAGS, .unit = "algo" },      \
    { "int",   "integer SSIM (libvmaf integer_ssim)", 0, AV_OPT_TYPE_CONST,             \
      { .i64 = FSSIM_FLAG(FSSIM_INT) }, 0, 0, FSSIM_OPT_FLAGS, .unit = "algo" },        \
    { "block", "FFmpeg ssim filter algorithm", 0, AV_OPT_TYPE_CONST,                    \
      { .i64 = FSSIM_FLAG(FSSIM_BLOCK) }, 0, 0, FSSIM_OPT_FLAGS, .unit = "algo" },      \
    FSSIM_WINDOW_OPTIONS(type, field),                                                   \
    { "stats_algo", "algorithm written to stats_file", offsetof(type, field.stats_algo),\
      AV_OPT_TYPE_INT, { .i64 = -1 }, -1, FSSIM_NB_ALGOS - 1, FSSIM_OPT_FLAGS,          \
      .unit = "stats_algo" },                                                            \
    { "auto",  "the first computed", 0, AV_OPT_TYPE_CONST, { .i64 = -1 }, 0, 0,         \
      FSSIM_OPT_FLAGS, .unit = "stats_algo" },                                           \
    { "float", "Gaussian SSIM", 0, AV_OPT_TYPE_CONST, { .i64 = FSSIM_FLOAT }, 0, 0,     \
      FSSIM_OPT_FLAGS, .unit = "stats_algo" },                                           \
    { "int",   "integer SSIM", 0, AV_OPT_TYPE_CONST, { .i64 = FSSIM_INT }, 0, 0,        \
      FSSIM_OPT_FLAGS, .unit = "stats_algo" },                                           \
    { "block", "FFmpeg ssim", 0, AV_OPT_TYPE_CONST, { .i64 = FSSIM_BLOCK }, 0, 0,       \
      FSSIM_OPT_FLAGS, .unit = "stats_algo" }

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

/**
 * Formats of the filters' links: the software formats, plus hw_format for
 * the GPU filters (AV_PIX_FMT_NONE for fssim).  The reference input gets
 * its own list, so that a reference in another format than the main input
 * reaches the filter and fails with a message naming both (doc/formats.md) instead
 * of being converted silently; software frames reach a GPU filter and get a
 * clear error instead of a failed negotiation.  The output is main's format.
 */
int ff_fssim_query_formats(const AVFilterContext *ctx,
                           struct AVFilterFormatsConfig **cfg_in,
                           struct AVFilterFormatsConfig **cfg_out,
                           enum AVPixelFormat hw_format);

/** Describe the components of sw_format at width x height.  Fails with a
 *  message naming the format if it is not one of ff_fssim_sw_pix_fmts. */
int ff_fssim_format_init(AVFilterContext *ctx, FSSIMFormat *f,
                         enum AVPixelFormat sw_format, int width, int height);

/** A component of a frame as the CPU reference reads it. */
FSSIMRefPlane ff_fssim_ref_plane(const FSSIMFormat *f, int c,
                                 uint8_t *const data[], const int linesize[]);

/**
 * doc/formats.md: both inputs have the same size and format.  main_fmt/ref_fmt are
 * the software formats (the sw_format of hardware frames).  fix names the
 * filter that makes them match, e.g. "scale_cuda".
 */
int ff_fssim_check_inputs(AVFilterContext *ctx, int mw, int mh, enum AVPixelFormat main_fmt,
                          int rw, int rh, enum AVPixelFormat ref_fmt, const char *fix);

struct FFFrameSync;

struct FSSIMOutput;

/**
 * The output link of a two-input fssim filter: framesync on both inputs,
 * the main input's size, rates and (for hardware frames) frames context,
 * framesync's time base.  The filter's frames go out untouched.  The time
 * base is also kept in out, so that frames scored at uninit, when the
 * output link may already be freed, are logged with it.  Warns, as FFmpeg's
 * ssim does, when the inputs' time bases or colour ranges differ.
 */
int ff_fssim_config_output(AVFilterLink *outlink, struct FFFrameSync *fs,
                           struct FSSIMOutput *out);

/**
 * Before a frame pair is scored: fail, naming both, if a frame's size or
 * (software) format is not the configured one (changed inside the graph,
 * where FFmpeg does not rebuild it); warn, once per filter, as FFmpeg's
 * ssim does, when the colour ranges differ (the samples are scored as
 * they are).
 */
int ff_fssim_check_frames(AVFilterContext *ctx, struct FSSIMOutput *out,
                          const AVFrame *main, const AVFrame *ref);

/** Check the options against each other and against the plane sizes. */
int ff_fssim_check_options(AVFilterContext *ctx, const FSSIMOptions *o,
                           const FSSIMFormat *f);

/* ---- outputs ---------------------------------------------------------- */

typedef struct FSSIMPool {
    double sum, inv_sum, min, max;
} FSSIMPool;

typedef struct FSSIMOutput {
    const char *key_prefix;   /* "lavfi.fssim." or "lavfi.fssim3d." */
    int         algos;        /* FSSIM_FLAG() set; 0: one unnamed score (fssim3d) */
    int         stats_algo;
    FSSIMFormat fmt;
    AVRational  time_base;    /* of the frames scored: the output link's */
    FILE       *stats_file;
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
    FSSIMPool   pool[FSSIM_NB_ALGOS][5];   /* per component, then All */
} FSSIMOutput;

/** Per-frame scores: score[algo][component]. */
typedef struct FSSIMScores {
    double score[FSSIM_NB_ALGOS][4];
} FSSIMScores;

/**
 * Open the stats file and the log (at init, so a bad path fails before any
 * frame is decoded).  algos == 0 makes the single-score fssim3d layout.
 *
 * When FFmpeg rebuilds a graph mid-stream (a size or format change), the
 * new instance continues the logs of the one torn down: ff_fssim_output_close
 * with ended == 0 parks the output's state (counts, pools, log position) in
 * a process-wide list keyed by the paths, and the next instance of the same
 * filter with the same paths and algorithms takes it up and appends.  Two
 * live filters writing one path is an error.
 */
int ff_fssim_output_open(AVFilterContext *ctx, FSSIMOutput *out, const FSSIMOptions *o,
                         const char *key_prefix, int algos);

/** Record the input format and write the log header (at config time).
 *  A resumed log keeps its header: the new format must have the same
 *  components.  Fails, naming the path, if the header cannot be written. */
int ff_fssim_output_config(AVFilterContext *ctx, FSSIMOutput *out, const FSSIMFormat *f);

/** Attach a frame's scores as metadata, write them to the stats file and
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
