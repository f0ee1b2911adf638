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
 * fssim: the JSON and CSV logs (doc/outputs.md): a header with the
 * filter's options and inputs, a record per scored frame, and the pooled
 * values when the filter closes.  Each piece is composed in memory and
 * written with one write.  A regular file's JSON log ends after every
 * frame with a short closing tail (the frame count), which the next frame
 * overwrites, so that a log cut short at any moment is valid JSON holding
 * every frame whose write completed.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "libavutil/avstring.h"
#include "libavutil/bprint.h"
#include "libavutil/mem.h"
#include "libavutil/opt.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/filters.h"

#include "../core/fssim_algos.h"
#include "../fssim_version.h"
#include "fssim_log.h"

/* doc/outputs.md#log-identity: the layout of the logs, which fssim-farm's
 * merge checks; raised whenever a field changes meaning */
#define FSSIM_LOG_SCHEMA 1

/* The name of algorithm a's score in the logs. */
static const char *score_name(const FSSIMOutput *out, int a)
{
    return out->single_score ? "fssim3d" : ff_fssim_algo_name(a);
}

static void json_number(AVBPrint *bp, double v)
{
    if (isfinite(v))
        av_bprintf(bp, "%.17g", v);
    else
        av_bprintf(bp, "null");
}

/* U+FFFD, the replacement character, in UTF-8 */
#define REPLACEMENT "\xef\xbf\xbd"

/*
 * The length of the UTF-8 sequence at s (1 to 4 bytes), or, negated, that
 * of the bytes that are not one and stand for one U+FFFD: a stray byte, or
 * the start of a sequence cut short (the "maximal subpart" of Unicode's
 * recommendation, as Python and browsers decode).  Overlong forms,
 * surrogates and code points past U+10FFFF are not UTF-8: their second byte
 * is outside the range of their first.
 */
static int utf8_length(const unsigned char *s)
{
    const unsigned c = s[0];
    unsigned lo = 0x80, hi = 0xbf;
    int n;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        return -1;
    }
    /* (the string's terminating NUL is outside every range) */
    for (int i = 1; i < n; i++) {
        if (s[i] < lo || s[i] > hi)
            return -i;
        lo = 0x80;
        hi = 0xbf;
    }
    return n;
}

/*
 * Text in a log, where every reader takes UTF-8 (JSON requires it): bytes
 * that are not UTF-8 (a path or title in another encoding) are written as
 * U+FFFD, so that the log reads, and the other characters as they are;
 * each ASCII character goes through escape().
 */
static void utf8_text(AVBPrint *bp, const char *s, void (*escape)(AVBPrint *bp, unsigned c))
{
    const unsigned char *p = (const unsigned char *)s;

    while (*p) {
        const int n = utf8_length(p);
        if (n == 1)
            escape(bp, *p);
        else if (n > 1)
            av_bprint_append_data(bp, (const char *)p, n);
        else
            av_bprintf(bp, REPLACEMENT);
        p += FFABS(n);
    }
}

static void json_char(AVBPrint *bp, unsigned c)
{
    if (c == '"' || c == '\\')
        av_bprintf(bp, "\\%c", c);
    else if (c < 0x20)
        av_bprintf(bp, "\\u%04x", c);
    else
        av_bprint_chars(bp, c, 1);
}

static void json_string(AVBPrint *bp, const char *s)
{
    av_bprint_chars(bp, '"', 1);
    utf8_text(bp, s, json_char);
    av_bprint_chars(bp, '"', 1);
}

/* A character of a CSV comment line: a control character would start a
 * line that CSV readers take for data, so it is written as a C escape, a
 * space too, since spaces separate the name=value pairs of a line, and so
 * is a backslash, to keep them apart. */
static void csv_comment_char(AVBPrint *bp, unsigned c)
{
    if (c == '\\')
        av_bprintf(bp, "\\\\");
    else if (c == '\n')
        av_bprintf(bp, "\\n");
    else if (c == '\r')
        av_bprintf(bp, "\\r");
    else if (c == '\t')
        av_bprintf(bp, "\\t");
    else if (c <= 0x20 || c == 0x7f)
        av_bprintf(bp, "\\x%02x", c);
    else
        av_bprint_chars(bp, c, 1);
}

static void csv_comment_text(AVBPrint *bp, const char *s)
{
    utf8_text(bp, s, csv_comment_char);
}

/* An option's value as a user writes it: named constants by name. */
static char *option_value(void *obj, const AVOption *opt)
{
    const AVOption *c = NULL;
    uint8_t *val = NULL;
    int64_t v;
    AVBPrint bp;

    if (!opt->unit || (opt->type != AV_OPT_TYPE_INT && opt->type != AV_OPT_TYPE_FLAGS) ||
        av_opt_get_int(obj, opt->name, 0, &v) < 0) {
        if (av_opt_get(obj, opt->name, 0, &val) < 0)
            return NULL;
        return (char *)val;
    }
    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_AUTOMATIC);
    while ((c = av_opt_next(obj, c))) {
        if (c->type != AV_OPT_TYPE_CONST || !c->unit || strcmp(c->unit, opt->unit))
            continue;
        if (opt->type == AV_OPT_TYPE_FLAGS ? (c->default_val.i64 & v) == c->default_val.i64 &&
                                             c->default_val.i64 : c->default_val.i64 == v)
            av_bprintf(&bp, "%s%s", bp.len ? "+" : "", c->name);
        if (opt->type != AV_OPT_TYPE_FLAGS && bp.len)
            break;
    }
    if (!bp.len)
        av_bprintf(&bp, "%"PRId64, v);
    av_bprint_finalize(&bp, (char **)&val);
    return (char *)val;
}

/* Calls fn for every option of the filter and of its framesync child. */
static void for_each_option(AVFilterContext *ctx,
                            void (*fn)(void *arg, const char *name, const char *value),
                            void *arg)
{
    void *objs[2] = { ctx->priv, av_opt_child_next(ctx->priv, NULL) };

    for (int i = 0; i < 2 && objs[i]; i++) {
        const AVOption *opt = NULL;
        while ((opt = av_opt_next(objs[i], opt))) {
            char *val;
            /* constants are values, not options; "f" is stats_file; the
             * segment options of a whole run are left out, so that a log
             * merged from segments has a whole run's options */
            if (opt->type == AV_OPT_TYPE_CONST || !strcmp(opt->name, "f") ||
                (!strncmp(opt->name, "seg_", 4) && av_opt_is_set_to_default(objs[i], opt) > 0))
                continue;
            if (!(val = option_value(objs[i], opt)))
                continue;
            fn(arg, opt->name, val);
            av_free(val);
        }
    }
}

typedef struct OptWriter {
    AVBPrint *bp;
    int n;
} OptWriter;

static void option_json(void *arg, const char *name, const char *value)
{
    OptWriter *w = arg;
    av_bprintf(w->bp, "%s\n    ", w->n++ ? "," : "");
    json_string(w->bp, name);
    av_bprintf(w->bp, ": ");
    json_string(w->bp, value);
}

static void option_csv(void *arg, const char *name, const char *value)
{
    OptWriter *w = arg;
    if (!*value)
        return;
    av_bprintf(w->bp, " %s=", name);
    csv_comment_text(w->bp, value);
}

static void write_options_json(AVFilterContext *ctx, AVBPrint *bp)
{
    OptWriter w = { bp, 0 };

    av_bprintf(bp, "  \"options\": {");
    for_each_option(ctx, option_json, &w);
    av_bprintf(bp, "\n  },\n");
}

static void write_options_csv(AVFilterContext *ctx, AVBPrint *bp)
{
    OptWriter w = { bp, 0 };

    av_bprintf(bp, "# filter=");
    csv_comment_text(bp, ctx->filter->name);
    for_each_option(ctx, option_csv, &w);
    av_bprintf(bp, "\n# schema_version=%d\n# version=", FSSIM_LOG_SCHEMA);
    csv_comment_text(bp, FSSIM_VERSION);
    av_bprint_chars(bp, '\n', 1);
}

/* An input of another size or format than the reference, resampled to its
 * planes and depth before it is scored (the engine's rule). */
static int resampled(const FSSIMOutput *out, int k)
{
    return !ff_fssim_format_same_layout(&out->dist_fmt[k], &out->fmt);
}

/* A pair's main input is described where it is resampled or named; a
 * ladder lists every rendition. */
static int describe_input(const FSSIMOutput *out, char *const *names, int k)
{
    return ff_fssim_is_ladder(out) || resampled(out, k) || names[k];
}

/* The pad, its label (names), format and size of input k, and whether it
 * is resampled. */
static void write_input_json(AVFilterContext *ctx, const FSSIMOutput *out, char *const *names,
                             int k, AVBPrint *bp)
{
    const FSSIMFormat *d = &out->dist_fmt[k];

    av_bprintf(bp, "\"pad\": \"%s\", ", ctx->input_pads[k].name);
    if (names[k]) {
        av_bprintf(bp, "\"name\": ");
        json_string(bp, names[k]);
        av_bprintf(bp, ", ");
    }
    av_bprintf(bp, "\"pix_fmt\": \"%s\", \"width\": %d, \"height\": %d, \"bit_depth\": %d, "
               "\"resampled\": %s}", av_get_pix_fmt_name(d->pix_fmt), d->width, d->height,
               d->depth, resampled(out, k) ? "true" : "false");
}

/* What the log says of each algorithm it holds (the table's facts), for
 * tools that read it: its description, whether a dB value is derived from
 * it, its pooling.  fssim3d's one score is float's kind. */
static const char *algo_description(const FSSIMOutput *out, int a)
{
    return out->single_score ? "spatio-temporal Gaussian SSIM" : ff_fssim_algo(a)->description;
}

static void write_algorithms_json(const FSSIMOutput *out, AVBPrint *bp)
{
    av_bprintf(bp, "  \"algorithms\": {");
    for (int a = 0, first = 1; a < FSSIM_NB_ALGOS; a++) {
        const FSSIMAlgo *al = ff_fssim_algo(a);
        if (!(out->algos & FSSIM_BIT(a)))
            continue;
        av_bprintf(bp, "%s\n    \"%s\": {\"description\": ", first ? "" : ",",
                   score_name(out, a));
        json_string(bp, algo_description(out, a));
        av_bprintf(bp, ", \"db\": %s, \"pooling\": \"%s\"}", al->db ? "true" : "false",
                   ff_fssim_pooling_name(al->pooling));
        first = 0;
    }
    av_bprintf(bp, "\n  },\n");
}

static void write_algorithms_csv(const FSSIMOutput *out, AVBPrint *bp)
{
    for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
        const FSSIMAlgo *al = ff_fssim_algo(a);
        if (!(out->algos & FSSIM_BIT(a)))
            continue;
        av_bprintf(bp, "# algorithm %s db=%d pooling=%s description=", score_name(out, a),
                   al->db, ff_fssim_pooling_name(al->pooling));
        csv_comment_text(bp, algo_description(out, a));
        av_bprint_chars(bp, '\n', 1);
    }
}

static void write_json_header(AVFilterContext *ctx, FSSIMOutput *out, char *const *names,
                              AVBPrint *bp)
{
    const FSSIMFormat *f = &out->fmt;

    av_bprintf(bp, "{\n");
    av_bprintf(bp, "  \"filter\": \"%s\",\n", ctx->filter->name);
    av_bprintf(bp, "  \"schema_version\": %d,\n  \"version\": \"%s\",\n", FSSIM_LOG_SCHEMA,
               FSSIM_VERSION);
    write_options_json(ctx, bp);
    av_bprintf(bp, "  \"input\": {\"pix_fmt\": \"%s\", \"width\": %d, \"height\": %d, "
               "\"bit_depth\": %d, \"components\": [", av_get_pix_fmt_name(f->pix_fmt),
               f->width, f->height, f->depth);
    for (int c = 0; c < f->nb_comps; c++)
        av_bprintf(bp, "%s\"%c\"", c ? ", " : "", f->comp[c].name);
    av_bprintf(bp, "]");
    if (names[out->nb_dist]) {
        av_bprintf(bp, ", \"name\": ");
        json_string(bp, names[out->nb_dist]);
    }
    if (!ff_fssim_is_ladder(out) && describe_input(out, names, 0)) {
        av_bprintf(bp, ",\n    \"main\": {");
        write_input_json(ctx, out, names, 0, bp);
    }
    av_bprintf(bp, "},\n");
    if (ff_fssim_is_ladder(out)) {
        av_bprintf(bp, "  \"renditions\": [");
        for (int k = 0; k < out->nb_dist; k++) {
            av_bprintf(bp, "%s\n    {\"k\": %d, ", k ? "," : "", k + 1);
            write_input_json(ctx, out, names, k, bp);
        }
        av_bprintf(bp, "\n  ],\n");
    }
    write_algorithms_json(out, bp);
    av_bprintf(bp, "  \"frames\": [");
}

static void write_csv_header(AVFilterContext *ctx, FSSIMOutput *out, char *const *names,
                             AVBPrint *bp)
{
    const FSSIMFormat *f = &out->fmt;

    write_options_csv(ctx, bp);
    av_bprintf(bp, "# input pix_fmt=%s width=%d height=%d bit_depth=%d\n",
               av_get_pix_fmt_name(f->pix_fmt), f->width, f->height, f->depth);
    for (int k = 0; k < out->nb_dist; k++) {
        const FSSIMFormat *d = &out->dist_fmt[k];
        if (!describe_input(out, names, k))
            continue;
        if (ff_fssim_is_ladder(out))
            av_bprintf(bp, "# rendition %d ", k + 1);
        else
            av_bprintf(bp, "# main ");
        av_bprintf(bp, "pad=");
        csv_comment_text(bp, ctx->input_pads[k].name);
        av_bprintf(bp, " width=%d height=%d resampled=%d pix_fmt=%s bit_depth=%d\n",
                   d->width, d->height, resampled(out, k),
                   av_get_pix_fmt_name(d->pix_fmt), d->depth);
    }
    /* a label may hold spaces and '=': the rest of its own line */
    for (int k = 0; k <= out->nb_dist; k++) {
        if (!names[k])
            continue;
        av_bprintf(bp, "# name %s ", ctx->input_pads[k].name);
        csv_comment_text(bp, names[k]);
        av_bprint_chars(bp, '\n', 1);
    }
    write_algorithms_csv(out, bp);
    av_bprintf(bp, ff_fssim_is_ladder(out) ? "n,pts,pts_time,rendition" : "n,pts,pts_time");
    for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
        const char *name = score_name(out, a);
        if (!(out->algos & FSSIM_BIT(a)))
            continue;
        for (int c = 0; c < f->nb_comps; c++)
            av_bprintf(bp, ",%s.%c", name, f->comp[c].name);
        av_bprintf(bp, ",%s.All", name);
        if (ff_fssim_has_db(a)) {
            av_bprintf(bp, ",%s.dB", name);
            continue;
        }
        for (int c = 0; c < f->nb_comps; c++)
            av_bprintf(bp, ",mse.%c", f->comp[c].name);
        av_bprintf(bp, ",mse.All");
    }
    av_bprint_chars(bp, '\n', 1);
}

/* The pooled values of one rendition, as a JSON object's members. */
static void write_json_pooled(FSSIMOutput *out, int k, const char *indent, AVBPrint *bp)
{
    const uint64_t n = out->nb_scored[k];

    for (int a = 0, first = 1; a < FSSIM_NB_ALGOS; a++) {
        if (!(out->algos & FSSIM_BIT(a)))
            continue;
        av_bprintf(bp, "%s\n%s\"%s\": {", first ? "" : ",", indent, score_name(out, a));
        for (int c = 0; c <= out->fmt.nb_comps; c++) {
            const FSSIMPool *p = &out->pool[k][a][c];
            const char comp[2] = { c < out->fmt.nb_comps ? out->fmt.comp[c].name : 0, 0 };
            av_bprintf(bp, "%s\n%s  \"%s\": {", c ? "," : "", indent,
                       c < out->fmt.nb_comps ? comp : "All");
            for (int i = 0; i < FSSIM_NB_POOLED; i++) {
                /* psnr_of_mean_mse is psnr's alone */
                if (i == FSSIM_POOLED_PSNR_OF_MEAN_MSE &&
                    ff_fssim_algo(a)->pooling != FSSIM_POOLING_PSNR)
                    continue;
                av_bprintf(bp, "%s\"%s\": ", i ? ", " : "", ff_fssim_pooled_name(i));
                json_number(bp, ff_fssim_pooled(p, n, i, out->fmt.depth));
            }
            av_bprint_chars(bp, '}', 1);
        }
        av_bprintf(bp, "\n%s}", indent);
        first = 0;
    }
}

/* The end of a JSON log while frames come: the frame count, no pooled
 * values (a log closed this way was cut short). */
static void write_json_tail(const FSSIMOutput *out, uint64_t nb_frames, AVBPrint *bp)
{
    av_bprintf(bp, "\n  ],\n  \"frame_count\": %"PRIu64",\n  \"complete\": false\n}\n",
               nb_frames);
}

/* The name of a pairing mode, as the option's value. */
static const char *pairing_name(int mode)
{
    return mode == FSSIM_PAIRING_FRAMESYNC ? "framesync" :
           mode == FSSIM_PAIRING_PTS       ? "pts"       : "nearest";
}

/* doc/outputs.md#pairing: what the pairing did with each input's frames. */
static void write_json_pairing(AVFilterContext *ctx, const FSSIMOutput *out, AVBPrint *bp)
{
    const FSSIMPairStats *st = &out->pairs;

    av_bprintf(bp, "  \"pairing\": {\"mode\": \"%s\"", pairing_name(st->mode));
    /* framesync repeats and skips frames: no counts */
    if (st->mode != FSSIM_PAIRING_FRAMESYNC) {
        av_bprintf(bp, ", \"inputs\": [");
        for (int i = 0; i <= out->nb_dist; i++) {
            av_bprintf(bp, "%s\n    {\"pad\": ", i ? "," : "");
            json_string(bp, ctx->input_pads[i].name);
            av_bprintf(bp, ", \"frames\": %"PRIu64, st->frames[i]);
            if (i < out->nb_dist)
                av_bprintf(bp, ", \"paired\": %"PRIu64", \"lacks\": %"PRIu64", "
                           "\"excess\": %"PRIu64, st->paired[i], st->lacks[i], st->excess[i]);
            av_bprintf(bp, ", \"damaged\": %"PRIu64"}", st->damaged[i]);
        }
        av_bprintf(bp, "\n  ]");
    }
    av_bprintf(bp, "},\n");
}

static void write_csv_pairing(AVFilterContext *ctx, const FSSIMOutput *out, AVBPrint *bp)
{
    const FSSIMPairStats *st = &out->pairs;

    av_bprintf(bp, "# pairing mode=%s\n", pairing_name(st->mode));
    for (int i = 0; st->mode != FSSIM_PAIRING_FRAMESYNC && i <= out->nb_dist; i++) {
        av_bprintf(bp, "# pairing pad=");
        csv_comment_text(bp, ctx->input_pads[i].name);
        av_bprintf(bp, " frames=%"PRIu64, st->frames[i]);
        if (i < out->nb_dist)
            av_bprintf(bp, " paired=%"PRIu64" lacks=%"PRIu64" excess=%"PRIu64,
                       st->paired[i], st->lacks[i], st->excess[i]);
        av_bprintf(bp, " damaged=%"PRIu64"\n", st->damaged[i]);
    }
}

/* The end of a JSON log when the filter closes: the frame count, what the
 * pairing did, and the pooled values. */
static void write_json_trailer(AVFilterContext *ctx, FSSIMOutput *out, AVBPrint *bp)
{
    av_bprintf(bp, "\n  ],\n  \"frame_count\": %"PRIu64",\n  \"complete\": %s,\n",
               out->nb_frames, out->complete ? "true" : "false");
    write_json_pairing(ctx, out, bp);
    av_bprintf(bp, "  \"pooled\": {");
    if (ff_fssim_is_ladder(out)) {
        av_bprintf(bp, "\n    \"renditions\": [");
        for (int k = 0; k < out->nb_dist; k++) {
            av_bprintf(bp, "%s\n      {\"k\": %d, \"frame_count\": %"PRIu64",", k ? "," : "",
                       k + 1, out->nb_scored[k]);
            write_json_pooled(out, k, "        ", bp);
            av_bprintf(bp, "\n      }");
        }
        av_bprintf(bp, "\n    ]");
    } else {
        write_json_pooled(out, 0, "    ", bp);
    }
    av_bprintf(bp, "\n  }\n}\n");
}

/* One object of per-plane values and All (and dB). */
static void json_values(FSSIMOutput *out, const char *name, const double *v, int db,
                        AVBPrint *bp)
{
    const int n = out->fmt.nb_comps;

    av_bprintf(bp, ", \"%s\": {", name);
    for (int c = 0; c < n; c++) {
        av_bprintf(bp, "\"%c\": ", out->fmt.comp[c].name);
        json_number(bp, v[c]);
        av_bprintf(bp, ", ");
    }
    av_bprintf(bp, "\"All\": ");
    json_number(bp, v[n]);
    if (db) {
        av_bprintf(bp, ", \"dB\": ");
        json_number(bp, ff_fssim_db(v[n]));
    }
    av_bprint_chars(bp, '}', 1);
}

static void json_scores(FSSIMOutput *out, const FSSIMScores *s, int k, AVBPrint *bp)
{
    for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
        if (!(out->algos & FSSIM_BIT(a)))
            continue;
        json_values(out, score_name(out, a), s->score[k][a], ff_fssim_has_db(a), bp);
        if (!ff_fssim_has_db(a))
            json_values(out, "mse", s->mse[k], 0, bp);
    }
}

static void log_frame_json(FSSIMOutput *out, const AVFrame *frame, const FSSIMScores *s,
                           AVBPrint *bp)
{
    av_bprintf(bp, "%s\n    {\"n\": %"PRIu64", \"pts\": ", out->nb_frames ? "," : "",
               out->first_n + out->nb_frames);
    if (frame->pts != AV_NOPTS_VALUE) {
        av_bprintf(bp, "%"PRId64", \"pts_time\": ", frame->pts);
        json_number(bp, frame->pts * av_q2d(out->time_base));
    } else {
        av_bprintf(bp, "null, \"pts_time\": null");
    }
    if (!ff_fssim_is_ladder(out)) {
        json_scores(out, s, 0, bp);
    } else {
        int first = 1;
        av_bprintf(bp, ", \"renditions\": [");
        for (int k = 0; k < out->nb_dist; k++) {
            if (!s->scored[k])
                continue;
            av_bprintf(bp, "%s{\"k\": %d", first ? "" : ", ", k + 1);
            json_scores(out, s, k, bp);
            av_bprint_chars(bp, '}', 1);
            first = 0;
        }
        av_bprint_chars(bp, ']', 1);
    }
    av_bprint_chars(bp, '}', 1);
}

static void log_frame_csv(FSSIMOutput *out, const AVFrame *frame, const FSSIMScores *s,
                          AVBPrint *bp)
{
    for (int k = 0; k < out->nb_dist; k++) {
        if (!s->scored[k])
            continue;
        av_bprintf(bp, "%"PRIu64",", out->first_n + out->nb_frames);
        if (frame->pts != AV_NOPTS_VALUE)
            av_bprintf(bp, "%"PRId64",%.17g", frame->pts, frame->pts * av_q2d(out->time_base));
        else
            av_bprint_chars(bp, ',', 1);
        if (ff_fssim_is_ladder(out))
            av_bprintf(bp, ",%d", k + 1);
        for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
            const double *v = s->score[k][a];
            if (!(out->algos & FSSIM_BIT(a)))
                continue;
            for (int c = 0; c <= out->fmt.nb_comps; c++)
                av_bprintf(bp, ",%.17g", v[c]);
            if (ff_fssim_has_db(a))
                av_bprintf(bp, ",%.17g", ff_fssim_db(v[out->fmt.nb_comps]));
            for (int c = 0; !ff_fssim_has_db(a) && c <= out->fmt.nb_comps; c++)
                av_bprintf(bp, ",%.17g", s->mse[k][c]);
        }
        av_bprint_chars(bp, '\n', 1);
    }
}

/* A CSV log's last lines: how many frames it holds, and whether the run
 * finished. */
static void write_csv_tail(const FSSIMOutput *out, AVBPrint *bp)
{
    av_bprintf(bp, "# frames=%"PRIu64"\n# complete=%d\n", out->nb_frames, out->complete);
}

/* The pooled rows: one per pooled value, psnr_of_mean_mse only with psnr.
 * A rendition without frames has empty fields (no value, not a score). */
static void write_csv_pooled(AVFilterContext *ctx, FSSIMOutput *out, AVBPrint *bp)
{
    const int last = FSSIM_POOLED_PSNR_OF_MEAN_MSE;
    int psnr = 0;

    for (int a = 0; a < FSSIM_NB_ALGOS; a++)
        psnr |= (out->algos & FSSIM_BIT(a)) && ff_fssim_algo(a)->pooling == FSSIM_POOLING_PSNR;

    for (int k = 0; k < out->nb_dist; k++) {
        const uint64_t n = out->nb_scored[k];
        for (int r = 0; r < last + !!psnr; r++) {
            av_bprintf(bp, "%s,,", ff_fssim_pooled_name(r));
            if (ff_fssim_is_ladder(out))
                av_bprintf(bp, ",%d", k + 1);
            for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
                double v = 0.0;
                if (!(out->algos & FSSIM_BIT(a)))
                    continue;
                /* psnr_of_mean_mse is psnr's alone: empty elsewhere */
                for (int c = 0; c <= out->fmt.nb_comps; c++) {
                    v = ff_fssim_pooled(&out->pool[k][a][c], n, r, out->fmt.depth);
                    if (n && (r < last || !ff_fssim_has_db(a)))
                        av_bprintf(bp, ",%.17g", v);
                    else
                        av_bprint_chars(bp, ',', 1);
                }
                /* dB of this row's All; psnr: its MSE columns stay empty */
                if (ff_fssim_has_db(a) && r < last && n)
                    av_bprintf(bp, ",%.17g", ff_fssim_db(v));
                else
                    av_bprint_chars(bp, ',', ff_fssim_has_db(a) ? 1 : out->fmt.nb_comps + 1);
            }
            av_bprint_chars(bp, '\n', 1);
        }
    }
    write_csv_pairing(ctx, out, bp);
    write_csv_tail(out, bp);
}

static int json_log(const FSSIMOutput *out)
{
    return out->log_fmt == FSSIM_LOG_JSON;
}

/* Write bp at pos (a regular file) or after what was written (a stream). */
static int put(FSSIMOutput *out, int64_t pos, AVBPrint *bp)
{
    int ret = av_bprint_is_complete(bp) ? ff_fssim_file_write(&out->log, pos, bp->str, bp->len)
                                        : AVERROR(ENOMEM);
    av_bprint_finalize(bp, NULL);
    return ret;
}

/*
 * The log cannot be finished: a write failed (its own, failed; or another
 * file's), or the pooled values do not fit.  A regular file is closed
 * after its last whole frame (JSON: the frame count; CSV: the frame count
 * line), in the space the failed write left; a stream whose own write did
 * not fail gets the same closing after what it carries.  Either way the
 * log is not complete: it lacks its pooled values.
 */
static void close_short(FSSIMOutput *out, int failed)
{
    AVBPrint bp;

    out->complete   = 0;
    out->log_closed = 1;
    if (out->log.regular ? ff_fssim_file_cut(&out->log, out->log_tail) < 0 : failed)
        return;
    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
    if (json_log(out))
        write_json_tail(out, out->nb_frames, &bp);
    else
        write_csv_tail(out, &bp);
    put(out, out->log_tail, &bp);
}

int ff_fssim_log_header(AVFilterContext *ctx, FSSIMOutput *out)
{
    char *names[FSSIM_MAX_INPUTS];
    AVBPrint bp;
    int ret;

    if ((ret = ff_fssim_parse_names(ctx, out->opts, names)) < 0)
        return ret;
    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
    if (json_log(out))
        write_json_header(ctx, out, names, &bp);
    else
        write_csv_header(ctx, out, names, &bp);
    ff_fssim_free_names(names);
    out->log_tail = bp.len;
    /* a regular file is valid JSON from the start */
    if (json_log(out) && out->log.regular)
        write_json_tail(out, 0, &bp);
    ret = put(out, 0, &bp);
    if (ret < 0) {
        /* nothing of it stays, and nothing follows */
        ff_fssim_file_cut(&out->log, 0);
        out->log_closed = 1;
    }
    return ret;
}

int ff_fssim_log_resume(FSSIMOutput *out)
{
    AVBPrint bp;
    int ret;

    if (!out->log.regular)
        return 0;
    if (!json_log(out))
        return ff_fssim_file_cut(&out->log, out->log_tail);
    /* the short tail padded over the pooled values, so that the log is
     * valid JSON before and after the cut */
    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
    write_json_tail(out, out->nb_frames, &bp);
    while (bp.len < out->log.end - out->log_tail && av_bprint_is_complete(&bp))
        av_bprint_chars(&bp, ' ', FFMIN(out->log.end - out->log_tail - bp.len, 1024));
    ret = put(out, out->log_tail, &bp);
    if (ret >= 0) {
        av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
        write_json_tail(out, out->nb_frames, &bp);
        ret = ff_fssim_file_cut(&out->log, out->log_tail + bp.len);
        av_bprint_finalize(&bp, NULL);
    }
    return ret;
}

int ff_fssim_log_frame(FSSIMOutput *out, const AVFrame *frame, const FSSIMScores *s)
{
    size_t len;
    AVBPrint bp;
    int ret;

    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
    if (json_log(out))
        log_frame_json(out, frame, s, &bp);
    else
        log_frame_csv(out, frame, s, &bp);
    len = bp.len;
    if (json_log(out) && out->log.regular)
        write_json_tail(out, out->nb_frames + 1, &bp);
    ret = put(out, out->log_tail, &bp);
    if (ret < 0) {
        close_short(out, 1);
        return ret;
    }
    out->log_tail += len;
    return 0;
}

static int pool_percentiles(AVFilterContext *ctx, FSSIMOutput *out)
{
    uint64_t kept = 0, spilled = 0;
    int ret = 0;

    for (int k = 0; k < out->nb_dist; k++) {
        for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
            for (int c = 0; (out->algos & FSSIM_BIT(a)) && c <= out->fmt.nb_comps; c++) {
                uint64_t s;
                kept += ff_fssim_pool_kept(&out->pool[k][a][c], &s);
                spilled += s;
                if (ret >= 0)
                    ret = ff_fssim_pool_percentiles(&out->pool[k][a][c]);
            }
        }
    }
    av_log(ctx, AV_LOG_VERBOSE, "The values for the percentiles: %.1f MiB, %.1f MiB of them "
           "in a temporary file.\n", kept / 1048576.0, spilled / 1048576.0);
    return ret;
}

/* The log of a filter that failed before it was configured: still one
 * valid document, which says so. */
static int log_unconfigured(AVFilterContext *ctx, FSSIMOutput *out)
{
    AVBPrint bp;

    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
    if (json_log(out))
        av_bprintf(&bp, "{\n  \"filter\": \"%s\",\n  \"frames\": [],\n  \"frame_count\": 0,\n"
                   "  \"error\": \"the filter was not configured\"\n}\n", ctx->filter->name);
    else {
        av_bprintf(&bp, "# filter=%s\n# error=", ctx->filter->name);
        csv_comment_text(&bp, "the filter was not configured");
        av_bprintf(&bp, "\n# frames=0\n# complete=0\n");
    }
    return put(out, 0, &bp);
}

int ff_fssim_log_close(AVFilterContext *ctx, FSSIMOutput *out)
{
    AVBPrint bp;
    int ret;

    if (!out->fmt.nb_comps) {
        /* Not from a copy of the graph that FFmpeg only probed (to learn
         * its pads) and freed: its document would come first on a stream,
         * and a regular file is emptied again by the next copy anyway. */
        if (out->log_closed || !(out->log.regular || out->configuring))
            return 0;
        return log_unconfigured(ctx, out);
    }
    /* a failed write of the log already closed it after its last whole
     * frame; another file's leaves it to be closed so */
    if (out->write_error) {
        if (!out->log_closed)
            close_short(out, 0);
        return 0;
    }
    ret = pool_percentiles(ctx, out);
    if (ret < 0) {
        close_short(out, 0);
        return ret;
    }
    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
    if (json_log(out))
        write_json_trailer(ctx, out, &bp);
    else
        write_csv_pooled(ctx, out, &bp);
    ret = put(out, out->log_tail, &bp);
    /* a resumed log may have held longer pooled rows */
    if (ret >= 0)
        ret = ff_fssim_file_cut(&out->log, out->log.end);
    if (ret < 0)
        close_short(out, 1);
    return ret;
}
