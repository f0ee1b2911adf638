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
 * values.  A seekable JSON log has its trailer rewritten after every frame,
 * so that it stays valid JSON whenever the run stops.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#if HAVE_UNISTD_H
#include <unistd.h>
#endif

#include "libavutil/bprint.h"
#include "libavutil/mem.h"
#include "libavutil/opt.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/filters.h"

#include "fssim_log.h"
#include "fssim_version.h"

/* doc/outputs.md#log-identity: the layout of the logs, which fssim-farm's
 * merge checks; raised whenever a field changes meaning */
#define FSSIM_LOG_SCHEMA 1

/* The name of algorithm a's score in the logs. */
static const char *score_name(const FSSIMOutput *out, int a)
{
    return out->single_score ? "fssim3d" : ff_fssim_algo_name(a);
}

static void json_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
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
    FILE *f;
    int n;
} OptWriter;

static void option_json(void *arg, const char *name, const char *value)
{
    OptWriter *w = arg;
    fprintf(w->f, "%s\n    ", w->n++ ? "," : "");
    json_string(w->f, name);
    fputs(": ", w->f);
    json_string(w->f, value);
}

static void option_csv(void *arg, const char *name, const char *value)
{
    OptWriter *w = arg;
    if (*value)
        fprintf(w->f, " %s=%s", name, value);
}

static void write_options_json(AVFilterContext *ctx, FILE *f)
{
    OptWriter w = { f, 0 };

    fputs("  \"options\": {", f);
    for_each_option(ctx, option_json, &w);
    fputs("\n  },\n", f);
}

static void write_options_csv(AVFilterContext *ctx, FILE *f)
{
    OptWriter w = { f, 0 };

    fprintf(f, "# filter=%s", ctx->filter->name);
    for_each_option(ctx, option_csv, &w);
    fprintf(f, "\n# schema_version=%d\n# version=%s\n", FSSIM_LOG_SCHEMA, FSSIM_VERSION);
}

/* An input of another size or format than the reference, resampled to its
 * planes and depth before it is scored (the engine's rule). */
static int resampled(const FSSIMOutput *out, int k)
{
    return !ff_fssim_format_same_layout(&out->dist_fmt[k], &out->fmt);
}

/* A pair's main input is described where it is resampled; a ladder lists
 * every rendition. */
static int describe_input(const FSSIMOutput *out, int k)
{
    return ff_fssim_is_ladder(out) || resampled(out, k);
}

/* The pad, format and size of input k, and whether it is resampled. */
static void write_input_json(AVFilterContext *ctx, const FSSIMOutput *out, int k, FILE *log)
{
    const FSSIMFormat *d = &out->dist_fmt[k];

    fprintf(log, "\"pad\": \"%s\", \"pix_fmt\": \"%s\", \"width\": %d, \"height\": %d, "
            "\"bit_depth\": %d, \"resampled\": %s}", ctx->input_pads[k].name,
            av_get_pix_fmt_name(d->pix_fmt), d->width, d->height, d->depth,
            resampled(out, k) ? "true" : "false");
}

static void write_json_header(AVFilterContext *ctx, FSSIMOutput *out)
{
    const FSSIMFormat *f = &out->fmt;
    FILE *log = out->log;

    fputs("{\n", log);
    fprintf(log, "  \"filter\": \"%s\",\n", ctx->filter->name);
    fprintf(log, "  \"schema_version\": %d,\n  \"version\": \"%s\",\n", FSSIM_LOG_SCHEMA,
            FSSIM_VERSION);
    write_options_json(ctx, log);
    fprintf(log, "  \"input\": {\"pix_fmt\": \"%s\", \"width\": %d, \"height\": %d, "
            "\"bit_depth\": %d, \"components\": [", av_get_pix_fmt_name(f->pix_fmt),
            f->width, f->height, f->depth);
    for (int c = 0; c < f->nb_comps; c++)
        fprintf(log, "%s\"%c\"", c ? ", " : "", f->comp[c].name);
    fputs("]", log);
    if (!ff_fssim_is_ladder(out) && describe_input(out, 0)) {
        fputs(",\n    \"main\": {", log);
        write_input_json(ctx, out, 0, log);
    }
    fputs("},\n", log);
    if (ff_fssim_is_ladder(out)) {
        fputs("  \"renditions\": [", log);
        for (int k = 0; k < out->nb_dist; k++) {
            fprintf(log, "%s\n    {\"k\": %d, ", k ? "," : "", k + 1);
            write_input_json(ctx, out, k, log);
        }
        fputs("\n  ],\n", log);
    }
    fputs("  \"frames\": [", log);
}

static void write_csv_header(AVFilterContext *ctx, FSSIMOutput *out)
{
    const FSSIMFormat *f = &out->fmt;
    FILE *log = out->log;

    write_options_csv(ctx, log);
    fprintf(log, "# input pix_fmt=%s width=%d height=%d bit_depth=%d\n",
            av_get_pix_fmt_name(f->pix_fmt), f->width, f->height, f->depth);
    for (int k = 0; k < out->nb_dist; k++) {
        const FSSIMFormat *d = &out->dist_fmt[k];
        if (!describe_input(out, k))
            continue;
        if (ff_fssim_is_ladder(out))
            fprintf(log, "# rendition %d ", k + 1);
        else
            fputs("# main ", log);
        fprintf(log, "pad=%s width=%d height=%d resampled=%d pix_fmt=%s bit_depth=%d\n",
                ctx->input_pads[k].name, d->width, d->height, resampled(out, k),
                av_get_pix_fmt_name(d->pix_fmt), d->depth);
    }
    fputs(ff_fssim_is_ladder(out) ? "n,pts,pts_time,rendition" : "n,pts,pts_time", log);
    for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
        const char *name = score_name(out, a);
        if (!(out->algos & FSSIM_BIT(a)))
            continue;
        for (int c = 0; c < f->nb_comps; c++)
            fprintf(log, ",%s.%c", name, f->comp[c].name);
        fprintf(log, ",%s.All", name);
        if (ff_fssim_has_db(a)) {
            fprintf(log, ",%s.dB", name);
            continue;
        }
        for (int c = 0; c < f->nb_comps; c++)
            fprintf(log, ",mse.%c", f->comp[c].name);
        fputs(",mse.All", log);
    }
    fputc('\n', log);
}

/* The pooled values of one rendition, as a JSON object's members. */
static void write_json_pooled(FSSIMOutput *out, int k, const char *indent)
{
    FILE *log = out->log;
    const uint64_t n = out->nb_scored[k];

    for (int a = 0, first = 1; a < FSSIM_NB_ALGOS; a++) {
        if (!(out->algos & FSSIM_BIT(a)))
            continue;
        fprintf(log, "%s\n%s\"%s\": {", first ? "" : ",", indent, score_name(out, a));
        for (int c = 0; c <= out->fmt.nb_comps; c++) {
            const FSSIMPool *p = &out->pool[k][a][c];
            const char comp[2] = { c < out->fmt.nb_comps ? out->fmt.comp[c].name : 0, 0 };
            fprintf(log, "%s\n%s  \"%s\": {", c ? "," : "", indent,
                    c < out->fmt.nb_comps ? comp : "All");
            for (int i = 0; i < FSSIM_NB_POOLED; i++) {
                /* psnr_of_mean_mse is psnr's alone */
                if (i == FSSIM_POOLED_PSNR_OF_MEAN_MSE && ff_fssim_has_db(a))
                    continue;
                fprintf(log, "%s\"%s\": ", i ? ", " : "", ff_fssim_pooled_name(i));
                json_number(log, ff_fssim_pooled(p, n, i, out->fmt.depth));
            }
            fputc('}', log);
        }
        fprintf(log, "\n%s}", indent);
        first = 0;
    }
}

/* The pooled values and the closing brackets.  Rewritten after every frame
 * when the log is seekable, so the file is valid JSON even if the run is cut
 * short, with every frame scored so far; padded with spaces over a longer
 * trailer before it, except the last (final), after which the file is cut. */
static void write_json_trailer(FSSIMOutput *out, int final)
{
    FILE *log = out->log;
    int64_t start = ftell(log);
    int len;

    fprintf(log, "\n  ],\n  \"frame_count\": %"PRIu64",\n  \"complete\": %s,\n  \"pooled\": {",
            out->nb_frames, out->complete ? "true" : "false");
    if (ff_fssim_is_ladder(out)) {
        fputs("\n    \"renditions\": [", log);
        for (int k = 0; k < out->nb_dist; k++) {
            fprintf(log, "%s\n      {\"k\": %d, \"frame_count\": %"PRIu64",", k ? "," : "",
                    k + 1, out->nb_scored[k]);
            write_json_pooled(out, k, "        ");
            fputs("\n      }", log);
        }
        fputs("\n    ]", log);
    } else {
        write_json_pooled(out, 0, "    ");
    }
    fputs("\n  }\n}", log);
    /* a shorter trailer than the last one must not leave its tail behind */
    len = (int)(ftell(log) - start);
    for (int i = len; !final && i < out->log_trailer_len; i++)
        fputc(' ', log);
    fputc('\n', log);
    out->log_trailer_len = FFMAX(len, out->log_trailer_len);
}

/* One object of per-plane values and All (and dB). */
static void json_values(FSSIMOutput *out, const char *name, const double *v, int db)
{
    FILE *log = out->log;
    const int n = out->fmt.nb_comps;

    fprintf(log, ", \"%s\": {", name);
    for (int c = 0; c < n; c++) {
        fprintf(log, "\"%c\": ", out->fmt.comp[c].name);
        json_number(log, v[c]);
        fputs(", ", log);
    }
    fputs("\"All\": ", log);
    json_number(log, v[n]);
    if (db) {
        fputs(", \"dB\": ", log);
        json_number(log, ff_fssim_db(v[n]));
    }
    fputc('}', log);
}

static void json_scores(FSSIMOutput *out, const FSSIMScores *s, int k)
{
    for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
        if (!(out->algos & FSSIM_BIT(a)))
            continue;
        json_values(out, score_name(out, a), s->score[k][a], ff_fssim_has_db(a));
        if (!ff_fssim_has_db(a))
            json_values(out, "mse", s->mse[k], 0);
    }
}

static void log_frame_json(FSSIMOutput *out, const AVFrame *frame, const FSSIMScores *s)
{
    FILE *log = out->log;

    fprintf(log, "%s\n    {\"n\": %"PRIu64", \"pts\": ", out->nb_frames ? "," : "",
            out->first_n + out->nb_frames);
    if (frame->pts != AV_NOPTS_VALUE) {
        fprintf(log, "%"PRId64", \"pts_time\": ", frame->pts);
        json_number(log, frame->pts * av_q2d(out->time_base));
    } else {
        fputs("null, \"pts_time\": null", log);
    }
    if (!ff_fssim_is_ladder(out)) {
        json_scores(out, s, 0);
    } else {
        int first = 1;
        fputs(", \"renditions\": [", log);
        for (int k = 0; k < out->nb_dist; k++) {
            if (!s->scored[k])
                continue;
            fprintf(log, "%s{\"k\": %d", first ? "" : ", ", k + 1);
            json_scores(out, s, k);
            fputc('}', log);
            first = 0;
        }
        fputc(']', log);
    }
    fputc('}', log);
}

static void log_frame_csv(FSSIMOutput *out, const AVFrame *frame, const FSSIMScores *s)
{
    FILE *log = out->log;

    for (int k = 0; k < out->nb_dist; k++) {
        if (!s->scored[k])
            continue;
        fprintf(log, "%"PRIu64",", out->first_n + out->nb_frames);
        if (frame->pts != AV_NOPTS_VALUE)
            fprintf(log, "%"PRId64",%.17g", frame->pts, frame->pts * av_q2d(out->time_base));
        else
            fputs(",", log);
        if (ff_fssim_is_ladder(out))
            fprintf(log, ",%d", k + 1);
        for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
            const double *v = s->score[k][a];
            if (!(out->algos & FSSIM_BIT(a)))
                continue;
            for (int c = 0; c <= out->fmt.nb_comps; c++)
                fprintf(log, ",%.17g", v[c]);
            if (ff_fssim_has_db(a))
                fprintf(log, ",%.17g", ff_fssim_db(v[out->fmt.nb_comps]));
            for (int c = 0; !ff_fssim_has_db(a) && c <= out->fmt.nb_comps; c++)
                fprintf(log, ",%.17g", s->mse[k][c]);
        }
        fputc('\n', log);
    }
}

/* The pooled rows: one per pooled value, psnr_of_mean_mse only with psnr. */
static void write_csv_pooled(FSSIMOutput *out)
{
    const int last = FSSIM_POOLED_PSNR_OF_MEAN_MSE;
    const int psnr = out->algos & FSSIM_BIT(FSSIM_ALGO_PSNR);
    FILE *log = out->log;

    for (int k = 0; k < out->nb_dist; k++) {
        const uint64_t n = out->nb_scored[k];
        for (int r = 0; r < last + !!psnr; r++) {
            fprintf(log, "%s,,", ff_fssim_pooled_name(r));
            if (ff_fssim_is_ladder(out))
                fprintf(log, ",%d", k + 1);
            for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
                double v = 0.0;
                if (!(out->algos & FSSIM_BIT(a)))
                    continue;
                /* psnr_of_mean_mse is psnr's alone: empty elsewhere */
                for (int c = 0; c <= out->fmt.nb_comps; c++) {
                    v = ff_fssim_pooled(&out->pool[k][a][c], n, r, out->fmt.depth);
                    if (r < last || !ff_fssim_has_db(a))
                        fprintf(log, ",%.17g", v);
                    else
                        fputc(',', log);
                }
                /* dB of this row's All; psnr: its MSE columns stay empty */
                if (ff_fssim_has_db(a) && r < last)
                    fprintf(log, ",%.17g", ff_fssim_db(v));
                else
                    for (int c = 0; c < (ff_fssim_has_db(a) ? 1 : out->fmt.nb_comps + 1); c++)
                        fputc(',', log);
            }
            fputc('\n', log);
        }
    }
    fprintf(log, "# frames=%"PRIu64"\n# complete=%d\n", out->nb_frames, out->complete);
}

/* Cut the file at the current position (a resumed CSV log whose old
 * pooled rows were longer than the new ones). */
static void truncate_here(FILE *f)
{
#if HAVE_UNISTD_H
    if (ftruncate(fileno(f), ftell(f)) < 0)
        return;   /* the rows before stay valid; a stale tail is cosmetic */
#endif
}

void ff_fssim_log_header(AVFilterContext *ctx, FSSIMOutput *out)
{
    if (out->log_fmt == FSSIM_LOG_JSON) {
        write_json_header(ctx, out);
        /* a seekable log gets its trailer now and after every frame */
        out->log_trailer_pos = out->log == stdout ? -1 : ftell(out->log);
        if (out->log_trailer_pos >= 0)
            write_json_trailer(out, 0);
    } else {
        write_csv_header(ctx, out);
    }
}

void ff_fssim_log_frame(FSSIMOutput *out, const AVFrame *frame, const FSSIMScores *s)
{
    if (out->log_fmt == FSSIM_LOG_JSON) {
        if (out->log_trailer_pos >= 0)
            fseek(out->log, out->log_trailer_pos, SEEK_SET);
        log_frame_json(out, frame, s);
    } else {
        log_frame_csv(out, frame, s);
    }
}

void ff_fssim_log_pooled(FSSIMOutput *out)
{
    if (out->log_fmt == FSSIM_LOG_JSON && out->log_trailer_pos >= 0) {
        out->log_trailer_pos = ftell(out->log);
        write_json_trailer(out, 0);
    }
}

void ff_fssim_log_close(AVFilterContext *ctx, FSSIMOutput *out)
{
    if (!out->fmt.nb_comps && out->log_fmt == FSSIM_LOG_JSON) {
        /* configuration failed: still leave valid JSON behind in a file.
         * Not on stdout: FFmpeg also frees unconfigured copies of a graph
         * (to learn its pads), whose JSON would come first. */
        if (out->log != stdout)
            fprintf(out->log, "{\n  \"filter\": \"%s\",\n  \"frames\": [],\n"
                    "  \"frame_count\": 0,\n  \"error\": \"the filter was not "
                    "configured\"\n}\n", ctx->filter->name);
    } else if (out->log_fmt == FSSIM_LOG_JSON) {
        if (out->log_trailer_pos >= 0)
            fseek(out->log, out->log_trailer_pos, SEEK_SET);
        write_json_trailer(out, 1);
        /* no padding after the last trailer: the log ends as a merged one */
        if (out->log_trailer_pos >= 0 && !fflush(out->log))
            truncate_here(out->log);
    } else if (out->nb_frames) {
        out->log_trailer_pos = out->log == stdout ? -1 : ftell(out->log);
        write_csv_pooled(out);
        /* a resumed log may have held longer pooled rows */
        if (out->log_trailer_pos >= 0 && !fflush(out->log))
            truncate_here(out->log);
    }
}
