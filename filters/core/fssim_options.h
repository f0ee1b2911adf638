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
 * fssim: the options every filter shares -- the algorithms and their
 * window, the ladder's inputs, the outputs, the pairing -- as
 * FSSIMOptions, and the option tables' entries that fill it (the `algo`
 * option's, whose values are the rows of the table of algorithms, are
 * fssim_algos.h's); the names option, and the segment options' checks.
 */
#ifndef AVFILTER_FSSIM_OPTIONS_H
#define AVFILTER_FSSIM_OPTIONS_H

#include <stddef.h>

#include "libavutil/opt.h"
#include "libavfilter/avfilter.h"

#include "fssim_consts.h"
#include "fssim_ref.h"

/* A ladder: one reference and up to FSSIM_MAX_DIST renditions (fssim_consts.h). */
#define FSSIM_MAX_INPUTS (FSSIM_MAX_DIST + 1)

enum FSSIMLogFormat { FSSIM_LOG_JSON, FSSIM_LOG_CSV };

enum FSSIMScale { FSSIM_SCALE_NONE, FSSIM_SCALE_AUTO };

/* How the inputs' frames are paired (fssim_pair.h, doc/options.md#pairing). */
enum FSSIMPairing {
    FSSIM_PAIRING_NEAREST,      /* nearest time from each input's first frame,
                                   within half a frame */
    FSSIM_PAIRING_FRAMESYNC,    /* FFmpeg's framesync, as its ssim filter */
    FSSIM_PAIRING_PTS,          /* nearest timestamp as it is, within half a frame */
};

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
    /* doc/options.md#segments: a part of a title, numbered as in the title */
    int64_t seg_base;      /* the title's number of the leading input's first frame */
    int64_t seg_start;     /* the first title frame scored */
    int64_t seg_end;       /* scoring stops there (exclusive); -1: the end */
    int64_t seg_total;     /* the title's frame count; -1: not a segment */
    char  *title;          /* a label for the logs */
    int    pairing;        /* enum FSSIMPairing */
    char  *seg_starts;     /* a segment's inputs' first-frame times (pairing=nearest) */
    char  *names;          /* the inputs' labels for the logs, pad order, '|'-separated */
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

/* How inputs of other plane sizes than the reference (a frame size, a
 * chroma subsampling) are brought to its planes; every filter. */
#define FSSIM_SCALE_OPTIONS(type, field)                                                \
    { "scale", "inputs of other plane sizes than the reference",                       \
      offsetof(type, field.scale), AV_OPT_TYPE_INT, { .i64 = FSSIM_SCALE_AUTO }, 0, 1,  \
      FSSIM_OPT_FLAGS, .unit = "scale" },                                                \
    { "auto", "resample them to the reference's planes", 0, AV_OPT_TYPE_CONST,          \
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

/* The 2-D filters' inputs: how many (a ladder's renditions, then the
 * reference), and how they are brought to the reference's planes. */
#define FSSIM_INPUT_OPTIONS(type, field)                                                \
    { "inputs", "number of inputs: the renditions, then the reference",                 \
      offsetof(type, field.nb_inputs), AV_OPT_TYPE_INT, { .i64 = 2 }, 2,                \
      FSSIM_MAX_INPUTS, FSSIM_OPT_FLAGS },                                               \
    FSSIM_SCALE_OPTIONS(type, field)

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
      FSSIM_OPT_FLAGS, .unit = "log_fmt" },                                              \
    { "seg_base", "title number of the leading input's first frame",                   \
      offsetof(type, field.seg_base), AV_OPT_TYPE_INT64, { .i64 = 0 }, 0, INT64_MAX,    \
      FSSIM_OPT_FLAGS },                                                                 \
    { "seg_start", "first title frame to score", offsetof(type, field.seg_start),      \
      AV_OPT_TYPE_INT64, { .i64 = 0 }, 0, INT64_MAX, FSSIM_OPT_FLAGS },                 \
    { "seg_end", "title frame at which scoring stops (exclusive), -1 for none",        \
      offsetof(type, field.seg_end), AV_OPT_TYPE_INT64, { .i64 = -1 }, -1, INT64_MAX,   \
      FSSIM_OPT_FLAGS },                                                                 \
    { "seg_total", "the title's frame count, written to the log, -1 for none",         \
      offsetof(type, field.seg_total), AV_OPT_TYPE_INT64, { .i64 = -1 }, -1, INT64_MAX, \
      FSSIM_OPT_FLAGS },                                                                 \
    { "title", "a label written to the logs", offsetof(type, field.title),             \
      AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0, FSSIM_OPT_FLAGS },                     \
    { "names", "labels of the inputs for the logs, in pad order, separated by |",       \
      offsetof(type, field.names), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0,           \
      FSSIM_OPT_FLAGS }

/* How frames of the inputs are paired (doc/options.md#pairing); every
 * filter.  framesync's own options (eof_action, shortest, repeatlast,
 * ts_sync_mode) come with each filter's class. */
#define FSSIM_PAIRING_OPTIONS(type, field)                                              \
    { "pairing", "how the inputs' frames are paired", offsetof(type, field.pairing),   \
      AV_OPT_TYPE_INT, { .i64 = FSSIM_PAIRING_NEAREST }, 0, 2, FSSIM_OPT_FLAGS,         \
      .unit = "pairing" },                                                               \
    { "nearest", "the frame nearest in time from the first frames, within half a frame",\
      0, AV_OPT_TYPE_CONST, { .i64 = FSSIM_PAIRING_NEAREST }, 0, 0, FSSIM_OPT_FLAGS,    \
      .unit = "pairing" },                                                               \
    { "pts", "the frame of the nearest timestamp, within half a frame", 0,             \
      AV_OPT_TYPE_CONST, { .i64 = FSSIM_PAIRING_PTS }, 0, 0, FSSIM_OPT_FLAGS,           \
      .unit = "pairing" },                                                               \
    { "framesync", "FFmpeg's framesync, as its ssim filter", 0, AV_OPT_TYPE_CONST,      \
      { .i64 = FSSIM_PAIRING_FRAMESYNC }, 0, 0, FSSIM_OPT_FLAGS, .unit = "pairing" },   \
    { "seg_starts", "a segment's inputs' first-frame times in the title (s, N/D, |)",  \
      offsetof(type, field.seg_starts), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0,      \
      FSSIM_OPT_FLAGS }

/* The largest title frame number: 2^53 - 1, the largest integer that the
 * option parser (which reads numbers as doubles) and every JSON reader hold
 * exactly, so that a segment's numbers in the logs are the ones given. */
#define FSSIM_SEG_MAX ((INT64_C(1) << 53) - 1)

/**
 * The labels of the names option (doc/outputs.md#names), one per input
 * pad in pad order: names[i] is input i's, NULL where the option is unset
 * or the label empty; free them with ff_fssim_free_names().  The labels
 * are separated by '|', which a backslash escapes (av_get_token()).  Fails,
 * naming both counts, where the option has not one label per input.
 */
int ff_fssim_parse_names(AVFilterContext *ctx, const FSSIMOptions *o,
                         char *names[FSSIM_MAX_INPUTS]);
void ff_fssim_free_names(char *names[FSSIM_MAX_INPUTS]);

/**
 * The segment options at init (doc/options.md#segments): seg_start not
 * before seg_base, seg_end after seg_start and not after seg_total, and
 * after a cut (seg_base > 0) `context` frames decoded before seg_start
 * (fssim3d: depth/2), and no number past FSSIM_SEG_MAX.  Errors name the
 * options.
 */
int ff_fssim_check_segment(AVFilterContext *ctx, const FSSIMOptions *o, int context);

#endif /* AVFILTER_FSSIM_OPTIONS_H */
