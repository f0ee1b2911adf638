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
 * fssim: the outputs every filter shares -- frame metadata, stats_file,
 * the JSON/CSV log with pooled values, the summary line, and the logs of a
 * graph rebuilt mid-stream.  Write errors fail the run; a run cut short
 * still leaves valid logs with every frame scored before the stop.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "config.h"
#if HAVE_UNISTD_H
#include <unistd.h>
#endif

#include "libavutil/avstring.h"
#include "libavutil/bprint.h"
#include "libavutil/file_open.h"
#include "libavutil/frame.h"
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "libavutil/thread.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/filters.h"

#include "fssim_common.h"

/* A ladder's outputs name each rendition; two inputs keep the layout of
 * FFmpeg's ssim. */
static int is_ladder(const FSSIMOutput *out)
{
    return out->nb_dist > 1;
}

static int nb_slots(const FSSIMOutput *out)
{
    return out->algos ? FSSIM_NB_ALGOS : 1;
}

static int slot_used(const FSSIMOutput *out, int a)
{
    return out->algos ? !!(out->algos & FSSIM_BIT(a)) : a == 0;
}

static const char *slot_name(const FSSIMOutput *out, int a)
{
    return out->algos ? ff_fssim_algo_name(a) : "fssim3d";
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

static double pool_mean(const FSSIMPool *p, uint64_t n)
{
    return n ? p->sum / n : NAN;
}

/* libvmaf's harmonic mean, defined for SSIM's range [-1, 1]. */
static double pool_harmonic(const FSSIMPool *p, uint64_t n)
{
    return n ? n / p->inv_sum - 1.0 : NAN;
}

static const double pct_rank[FSSIM_NB_PCT] = { 1, 5, 50 };
static const char *const pct_name[FSSIM_NB_PCT] = { "p1", "p5", "p50" };

double ff_fssim_psnr_cap(int depth)
{
    return 6.0 * depth + 12.0;
}

/* heap helpers: lo is a max-heap, hi a min-heap (sign flipped) */
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

/* Room for one more value in heap h of *size values. */
static int heap_reserve(double **h, unsigned *size, unsigned nb)
{
    unsigned size2;
    double *p;

    if (nb < *size)
        return 0;
    size2 = FFMAX(64, 2 * *size);
    p = av_realloc_array(*h, size2, sizeof(*p));
    if (!p)
        return AVERROR(ENOMEM);
    *h = p;
    *size = size2;
    return 0;
}

/* Add the n-th value (n from 1) of a series; the nearest rank of p is
 * ceil(p n / 100), the largest value of lo. */
static int pct_add(FSSIMPercentile *t, double p, uint64_t n, double v)
{
    const uint64_t k = (uint64_t)ceil(p * n / 100.0 - 1e-9);
    int ret;

    /* the value goes into one heap and at most one value moves across:
     * neither heap holds more than one more than now */
    if ((ret = heap_reserve(&t->lo, &t->lo_size, t->nb_lo)) < 0 ||
        (ret = heap_reserve(&t->hi, &t->hi_size, t->nb_hi)) < 0)
        return ret;
    if (t->nb_lo && v < t->lo[0])
        heap_push(t->lo, &t->nb_lo, v);
    else
        heap_push(t->hi, &t->nb_hi, -v);
    while (t->nb_lo > k)
        heap_push(t->hi, &t->nb_hi, -heap_pop(t->lo, &t->nb_lo));
    while (t->nb_lo < k)
        heap_push(t->lo, &t->nb_lo, -heap_pop(t->hi, &t->nb_hi));
    return 0;
}

static double pct_value(const FSSIMPercentile *t)
{
    return t->nb_lo ? t->lo[0] : NAN;
}

static void pct_free(FSSIMPercentile *t)
{
    av_freep(&t->lo);
    av_freep(&t->hi);
    t->nb_lo = t->nb_hi = t->lo_size = t->hi_size = 0;
}

static int pool_add(FSSIMPool *p, uint64_t n, double v, int pct)
{
    int ret = 0;

    if (!n)
        p->min = p->max = v;
    p->sum     += v;
    p->inv_sum += 1.0 / (1.0 + v);
    p->min      = FFMIN(p->min, v);
    p->max      = FFMAX(p->max, v);
    for (int i = 0; pct && i < FSSIM_NB_PCT && ret >= 0; i++)
        ret = pct_add(&p->pct[i], pct_rank[i], n + 1, v);
    return ret;
}

/* psnr: the per-frame values pooled (capped, as libvmaf pools them), and
 * the PSNR of the mean MSE (FFmpeg psnr's "average"). */
static double pooled_value(const FSSIMOutput *out, int a, double v)
{
    return a == FSSIM_ALGO_PSNR && out->algos ? FFMIN(v, ff_fssim_psnr_cap(out->fmt.depth)) : v;
}

static double psnr_of_mean_mse(const FSSIMOutput *out, const FSSIMPool *p, uint64_t n)
{
    return n ? ff_fssim_ref_psnr_from_mse(p->mse_sum / n, out->fmt.depth) : NAN;
}

/* psnr is dB already: it has no dB key or column */
static int has_db(const FSSIMOutput *out, int a)
{
    return !out->algos || a != FSSIM_ALGO_PSNR;
}

static int open_file(AVFilterContext *ctx, const char *path, const char *what,
                     const char *mode, FILE **f)
{
    if (!strcmp(path, "-")) {
        *f = stdout;
        return 0;
    }
    *f = avpriv_fopen_utf8(path, mode);
    if (!*f) {
        int err = AVERROR(errno);
        av_log(ctx, AV_LOG_ERROR, "Could not open %s %s for writing: %s. Check that the "
               "directory exists and is writable.\n", what, path, av_err2str(err));
        return err;
    }
    return 0;
}

/* The stats file of rendition k: a ladder's path has %d, replaced by k. */
static char *stats_path(const FSSIMOutput *out, int k)
{
    const char *p = out->opts->stats_file_str, *d = strstr(p, "%d");

    if (!is_ladder(out) || !d)
        return av_strdup(p);
    return av_asprintf("%.*s%d%s", (int)(d - p), p, k + 1, d + 2);
}

static const char *file_path(const FSSIMOutput *out, FILE *f, char *buf, size_t size)
{
    if (f == out->log)
        return out->opts->log_path;
    for (int k = 0; k < out->nb_dist; k++) {
        char *p;
        if (f != out->stats_file[k] || !(p = stats_path(out, k)))
            continue;
        av_strlcpy(buf, p, size);
        av_free(p);
        return buf;
    }
    return out->opts->stats_file_str;
}

/* Push what is buffered to the file and report, once, a write that failed
 * (disk full, I/O error): the run must fail rather than leave a log that
 * silently lacks frames. */
static int check_file(AVFilterContext *ctx, FSSIMOutput *out, FILE *f)
{
    char buf[1024];
    int err;

    if (!f || out->write_error)
        return out->write_error;
    errno = 0;
    if (!fflush(f) && !ferror(f))
        return 0;
    err = AVERROR(errno ? errno : EIO);
    av_log(ctx, AV_LOG_ERROR, "Could not write the %s %s: %s.\n",
           f == out->log ? "log file" : "stats file",
           file_path(out, f, buf, sizeof(buf)), av_err2str(err));
    out->write_error = err;
    return err;
}

static int check_stats_files(AVFilterContext *ctx, FSSIMOutput *out)
{
    int ret = 0;
    for (int k = 0; k < out->nb_dist && !ret; k++)
        ret = check_file(ctx, out, out->stats_file[k]);
    return ret;
}

static void free_pools(FSSIMOutput *out)
{
    for (int k = 0; k < FSSIM_MAX_DIST; k++)
        for (int a = 0; a < FSSIM_NB_ALGOS; a++)
            for (int c = 0; c < 5; c++)
                for (int i = 0; i < FSSIM_NB_PCT; i++)
                    pct_free(&out->pool[k][a][c].pct[i]);
}

/*
 * Outputs parked by an instance freed mid-stream, for the instance of the
 * rebuilt graph: FFmpeg frees the old graph before it builds the new one,
 * so the two never write at once.  An entry lives while an instance writes
 * its paths (live) or while it waits to be taken up.
 */
typedef struct ParkedOutput {
    struct ParkedOutput *next;
    char *key;                /* log path, stats path */
    const char *filter;       /* the filter whose state is parked */
    int   live;
    FSSIMOutput state;        /* files closed */
} ParkedOutput;

static AVMutex parked_lock = AV_MUTEX_INITIALIZER;
static ParkedOutput *parked;

static char *output_key(const FSSIMOptions *o)
{
    /* stdout cannot be reopened: only files take part */
    const char *log = o->log_path && strcmp(o->log_path, "-") ? o->log_path : "";
    const char *st  = o->stats_file_str && strcmp(o->stats_file_str, "-") ? o->stats_file_str : "";

    if (!*log && !*st)
        return NULL;
    return av_asprintf("%s\n%s", log, st);
}

static ParkedOutput **find_parked(const char *key)
{
    ParkedOutput **p = &parked;

    while (*p && strcmp((*p)->key, key))
        p = &(*p)->next;
    return p;
}

/* Takes up a parked state for key, or registers key as written by this
 * instance.  Returns 1 if a state was taken up into out. */
static int take_parked(AVFilterContext *ctx, FSSIMOutput *out, const char *key)
{
    ParkedOutput **pp, *p;
    int ret = 0;

    ff_mutex_lock(&parked_lock);
    pp = find_parked(key);
    p = *pp;
    if (p && p->live) {
        av_log(ctx, AV_LOG_ERROR, "Another filter of this process writes the same "
               "log_path/stats_file: give each filter its own files.\n");
        ret = AVERROR(EBUSY);
    } else if (p && p->filter == ctx->filter->name && p->state.algos == out->algos &&
               p->state.log_fmt == out->log_fmt && p->state.nb_dist == out->nb_dist) {
        const FSSIMOutput cur = *out;
        *out = p->state;
        out->key_prefix = cur.key_prefix;
        out->stats_algo = cur.stats_algo;
        out->opts       = cur.opts;
        out->resumed    = 1;
        p->live = 1;
        ret = 1;
    } else if (p) {
        p->live = 1;           /* another filter or other algorithms: a new log */
        free_pools(&p->state);
    } else if ((p = av_mallocz(sizeof(*p))) && (p->key = av_strdup(key))) {
        p->live = 1;
        *pp = p;
    } else {
        av_free(p);
        ret = AVERROR(ENOMEM);
    }
    ff_mutex_unlock(&parked_lock);
    return ret;
}

/* At close: park the state (mid-stream) or forget the paths (ended). */
static void release_parked(const AVFilterContext *ctx, const FSSIMOutput *out, int park)
{
    char *key = output_key(out->opts);
    ParkedOutput **pp, *p;

    if (!key)
        return;
    ff_mutex_lock(&parked_lock);
    pp = find_parked(key);
    if ((p = *pp) && park) {
        p->filter = ctx->filter->name;
        p->state = *out;
        p->state.log = NULL;
        memset(p->state.stats_file, 0, sizeof(p->state.stats_file));
        p->state.opts = NULL;      /* freed with this instance */
        p->live = 0;
    } else if (p) {
        *pp = p->next;
        av_free(p->key);
        av_free(p);
    }
    ff_mutex_unlock(&parked_lock);
    av_free(key);
}

static int open_stats_files(AVFilterContext *ctx, FSSIMOutput *out, const char *mode)
{
    const char *path = out->opts->stats_file_str;

    if (is_ladder(out) && !strstr(path, "%d")) {
        av_log(ctx, AV_LOG_ERROR, "stats_file=%s: a ladder writes one stats file per "
               "rendition, so the path needs %%d, replaced by the rendition's number "
               "(1 to %d), e.g. stats_file=ssim_%%d.txt.\n", path, out->nb_dist);
        return AVERROR(EINVAL);
    }
    for (int k = 0; k < out->nb_dist; k++) {
        char *p = stats_path(out, k);
        int ret;
        if (!p)
            return AVERROR(ENOMEM);
        ret = open_file(ctx, p, "stats file", mode, &out->stats_file[k]);
        av_free(p);
        if (ret < 0)
            return ret;
    }
    return 0;
}

int ff_fssim_output_open(AVFilterContext *ctx, FSSIMOutput *out, const FSSIMOptions *o,
                         const char *key_prefix, int algos, int nb_dist)
{
    char *key = output_key(o);
    int resumed = 0, ret;

    out->key_prefix      = key_prefix;
    out->algos           = algos;
    out->nb_dist         = nb_dist;
    out->log_fmt         = o->log_fmt;
    out->log_trailer_pos = -1;
    out->stats_algo      = o->stats_algo;
    out->opts            = o;
    if (algos && out->stats_algo < 0)
        for (out->stats_algo = 0; !(algos & FSSIM_BIT(out->stats_algo)); out->stats_algo++)
            ;
    if (!algos)
        out->stats_algo = 0;

    if (key) {
        resumed = take_parked(ctx, out, key);
        av_free(key);
        if (resumed < 0) {
            out->opts = NULL;    /* the paths are another filter's */
            return resumed;
        }
    }
    if (resumed)
        av_log(ctx, AV_LOG_VERBOSE, "Continuing the logs of the filter graph rebuilt "
               "mid-stream, after %"PRIu64" frames.\n", out->nb_frames);

    if (o->stats_file_str && (ret = open_stats_files(ctx, out, resumed ? "a" : "w")) < 0)
        return ret;
    if (o->log_path && (ret = open_file(ctx, o->log_path, "log file",
                                        resumed ? "r+" : "w", &out->log)) < 0)
        return ret;
    if (resumed && out->log && out->log != stdout &&
        fseek(out->log, out->log_trailer_pos, SEEK_SET) < 0) {
        ret = AVERROR(errno);
        av_log(ctx, AV_LOG_ERROR, "Could not continue the log file %s: %s.\n",
               o->log_path, av_err2str(ret));
        return ret;
    }
    return 0;
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
            /* constants are values, not options; "f" is stats_file */
            if (opt->type == AV_OPT_TYPE_CONST || !strcmp(opt->name, "f"))
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
    fputc('\n', f);
}

static int resampled(const FSSIMOutput *out, int k)
{
    return out->dist_fmt[k].width != out->fmt.width || out->dist_fmt[k].height != out->fmt.height;
}

static void write_json_trailer(FSSIMOutput *out);

/* A resumed log keeps its header and pooled columns: the rebuilt graph's
 * input must have the same components. */
static int check_resumed_format(AVFilterContext *ctx, const FSSIMOutput *out,
                                const FSSIMFormat *f)
{
    int same = out->fmt.nb_comps == f->nb_comps;

    for (int c = 0; same && c < f->nb_comps; c++)
        same = out->fmt.comp[c].name == f->comp[c].name;
    if (!same) {
        av_log(ctx, AV_LOG_ERROR, "The filter graph was rebuilt mid-stream with %s input, "
               "whose components differ from the %s of the frames already logged: give "
               "the new format its own log_path/stats_file.\n",
               av_get_pix_fmt_name(f->pix_fmt), av_get_pix_fmt_name(out->fmt.pix_fmt));
        return AVERROR(EINVAL);
    }
    return 0;
}

static void write_json_header(AVFilterContext *ctx, FSSIMOutput *out)
{
    const FSSIMFormat *f = &out->fmt;
    FILE *log = out->log;

    fputs("{\n", log);
    fprintf(log, "  \"filter\": \"%s\",\n", ctx->filter->name);
    write_options_json(ctx, log);
    fprintf(log, "  \"input\": {\"pix_fmt\": \"%s\", \"width\": %d, \"height\": %d, "
            "\"bit_depth\": %d, \"components\": [", av_get_pix_fmt_name(f->pix_fmt),
            f->width, f->height, f->depth);
    for (int c = 0; c < f->nb_comps; c++)
        fprintf(log, "%s\"%c\"", c ? ", " : "", f->comp[c].name);
    fputs("]},\n", log);
    if (is_ladder(out)) {
        fputs("  \"renditions\": [", log);
        for (int k = 0; k < out->nb_dist; k++)
            fprintf(log, "%s\n    {\"k\": %d, \"pad\": \"%s\", \"width\": %d, \"height\": %d, "
                    "\"resampled\": %s}", k ? "," : "", k + 1, ctx->input_pads[k].name,
                    out->dist_fmt[k].width, out->dist_fmt[k].height,
                    resampled(out, k) ? "true" : "false");
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
    for (int k = 0; is_ladder(out) && k < out->nb_dist; k++)
        fprintf(log, "# rendition %d pad=%s width=%d height=%d resampled=%d\n", k + 1,
                ctx->input_pads[k].name, out->dist_fmt[k].width, out->dist_fmt[k].height,
                resampled(out, k));
    fputs(is_ladder(out) ? "n,pts,pts_time,rendition" : "n,pts,pts_time", log);
    for (int a = 0; a < nb_slots(out); a++) {
        const char *name = slot_name(out, a);
        if (!slot_used(out, a))
            continue;
        for (int c = 0; c < f->nb_comps; c++)
            fprintf(log, ",%s.%c", name, f->comp[c].name);
        fprintf(log, ",%s.All", name);
        if (has_db(out, a)) {
            fprintf(log, ",%s.dB", name);
            continue;
        }
        for (int c = 0; c < f->nb_comps; c++)
            fprintf(log, ",mse.%c", f->comp[c].name);
        fputs(",mse.All", log);
    }
    fputc('\n', log);
}

int ff_fssim_output_config(AVFilterContext *ctx, FSSIMOutput *out, const FSSIMFormat *f,
                           const FSSIMFormat *dist)
{
    int ret;

    if (out->resumed) {
        ret = check_resumed_format(ctx, out, f);
        if (ret < 0)
            return ret;
    }
    /* the sizes may have changed; the weights of All follow the frames */
    out->fmt = *f;
    for (int k = 0; k < out->nb_dist; k++)
        out->dist_fmt[k] = dist ? dist[k] : *f;
    if (out->resumed || !out->log)
        return 0;

    if (out->log_fmt == FSSIM_LOG_JSON) {
        write_json_header(ctx, out);
        /* a seekable log gets its trailer now and after every frame */
        out->log_trailer_pos = out->log == stdout ? -1 : ftell(out->log);
        if (out->log_trailer_pos >= 0)
            write_json_trailer(out);
    } else {
        write_csv_header(ctx, out);
    }
    return check_file(ctx, out, out->log);
}

/* The pooled values of one rendition, as a JSON object's members. */
static void write_json_pooled(FSSIMOutput *out, int k, const char *indent)
{
    FILE *log = out->log;
    const uint64_t n = out->nb_scored[k];

    for (int a = 0, first = 1; a < nb_slots(out); a++) {
        if (!slot_used(out, a))
            continue;
        fprintf(log, "%s\n%s\"%s\": {", first ? "" : ",", indent, slot_name(out, a));
        for (int c = 0; c <= out->fmt.nb_comps; c++) {
            const FSSIMPool *p = &out->pool[k][a][c];
            const char comp[2] = { c < out->fmt.nb_comps ? out->fmt.comp[c].name : 0, 0 };
            fprintf(log, "%s\n%s  \"%s\": {\"mean\": ", c ? "," : "", indent,
                    c < out->fmt.nb_comps ? comp : "All");
            json_number(log, pool_mean(p, n));
            fputs(", \"min\": ", log);
            json_number(log, n ? p->min : NAN);
            fputs(", \"max\": ", log);
            json_number(log, n ? p->max : NAN);
            fputs(", \"harmonic_mean\": ", log);
            json_number(log, pool_harmonic(p, n));
            for (int i = 0; i < FSSIM_NB_PCT; i++) {
                fprintf(log, ", \"%s\": ", pct_name[i]);
                json_number(log, n ? pct_value(&p->pct[i]) : NAN);
            }
            if (!has_db(out, a)) {
                fputs(", \"psnr_of_mean_mse\": ", log);
                json_number(log, psnr_of_mean_mse(out, p, n));
            }
            fputc('}', log);
        }
        fprintf(log, "\n%s}", indent);
        first = 0;
    }
}

/* The pooled values and the closing brackets.  Rewritten after every frame
 * when the log is seekable, so the file is valid JSON even if the run is cut
 * short, with every frame scored so far. */
static void write_json_trailer(FSSIMOutput *out)
{
    FILE *log = out->log;
    int64_t start = ftell(log);
    int len;

    fprintf(log, "\n  ],\n  \"frame_count\": %"PRIu64",\n  \"pooled\": {", out->nb_frames);
    if (is_ladder(out)) {
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
    for (int i = len; i < out->log_trailer_len; i++)
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
    for (int a = 0; a < nb_slots(out); a++) {
        if (!slot_used(out, a))
            continue;
        json_values(out, slot_name(out, a), s->score[k][a], has_db(out, a));
        if (!has_db(out, a))
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
    if (!is_ladder(out)) {
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
        if (is_ladder(out))
            fprintf(log, ",%d", k + 1);
        for (int a = 0; a < nb_slots(out); a++) {
            const double *v = s->score[k][a];
            if (!slot_used(out, a))
                continue;
            for (int c = 0; c <= out->fmt.nb_comps; c++)
                fprintf(log, ",%.17g", v[c]);
            if (has_db(out, a))
                fprintf(log, ",%.17g", ff_fssim_db(v[out->fmt.nb_comps]));
            for (int c = 0; !has_db(out, a) && c <= out->fmt.nb_comps; c++)
                fprintf(log, ",%.17g", s->mse[k][c]);
        }
        fputc('\n', log);
    }
}

static void set_meta(AVDictionary **metadata, const char *prefix, int k, const char *algo,
                     const char *comp, double v)
{
    char key[128], value[64], rend[16] = "";

    if (k >= 0)
        snprintf(rend, sizeof(rend), "%d.", k + 1);
    snprintf(key, sizeof(key), "%s%s%s%s%s", prefix, rend, algo ? algo : "", algo ? "." : "",
             comp);
    snprintf(value, sizeof(value), "%.17g", v);
    av_dict_set(metadata, key, value, 0);
}

/* The ssim filter's line format, so existing parsers keep working; psnr:
 * the psnr filter's. */
static void write_stats_line(FSSIMOutput *out, int k, const FSSIMScores *s)
{
    FILE *f = out->stats_file[k];
    const int n = out->fmt.nb_comps;
    const double *sc = s->score[k][out->stats_algo];

    fprintf(f, "n:%"PRIu64" ", out->first_n + out->nb_scored[k] + 1);
    if (out->algos && out->stats_algo == FSSIM_ALGO_PSNR) {
        fprintf(f, "mse_avg:%0.2f ", s->mse[k][n]);
        for (int c = 0; c < n; c++)
            fprintf(f, "mse_%c:%0.2f ", av_tolower(out->fmt.comp[c].name), s->mse[k][c]);
        fprintf(f, "psnr_avg:%0.2f ", sc[n]);
        for (int c = 0; c < n; c++)
            fprintf(f, "psnr_%c:%0.2f ", av_tolower(out->fmt.comp[c].name), sc[c]);
        fputc('\n', f);
        return;
    }
    for (int c = 0; c < n; c++)
        fprintf(f, "%c:%f ", out->fmt.comp[c].name, sc[c]);
    fprintf(f, "All:%f (%f)\n", sc[n], ff_fssim_db(sc[n]));
}

int ff_fssim_output_frame(AVFilterContext *ctx, FSSIMOutput *out, AVFrame *frame,
                          const FSSIMScores *s)
{
    const FSSIMFormat *f = &out->fmt;
    int ret;

    if (out->write_error)
        return out->write_error;

    for (int k = 0; k < out->nb_dist; k++)
        if (out->stats_file[k] && s->scored[k])
            write_stats_line(out, k, s);
    if ((ret = check_stats_files(ctx, out)) < 0)
        return ret;

    if (out->log && out->log_fmt == FSSIM_LOG_JSON) {
        if (out->log_trailer_pos >= 0)
            fseek(out->log, out->log_trailer_pos, SEEK_SET);
        log_frame_json(out, frame, s);
    } else if (out->log) {
        log_frame_csv(out, frame, s);
    }

    /* pooled and published once written: the logs never lack a frame
     * that was sent on with scores */
    for (int k = 0; k < out->nb_dist; k++) {
        const int rend = is_ladder(out) ? k : -1;
        if (!s->scored[k])
            continue;
        for (int a = 0; a < nb_slots(out); a++) {
            const char *name = out->algos ? ff_fssim_algo_name(a) : NULL;
            const double *v = s->score[k][a];
            if (!slot_used(out, a))
                continue;
            for (int c = 0; c <= f->nb_comps; c++) {
                const char comp[2] = { c < f->nb_comps ? f->comp[c].name : 0, 0 };
                const char *cn = c < f->nb_comps ? comp : "All";
                FSSIMPool *p = &out->pool[k][a][c];
                set_meta(&frame->metadata, out->key_prefix, rend, name, cn, v[c]);
                if (!has_db(out, a)) {
                    set_meta(&frame->metadata, out->key_prefix, rend, "mse", cn, s->mse[k][c]);
                    p->mse_sum += s->mse[k][c];
                }
                ret = pool_add(p, out->nb_scored[k], pooled_value(out, a, v[c]), !!out->log);
                if (ret < 0)
                    return ret;
            }
            if (has_db(out, a))
                set_meta(&frame->metadata, out->key_prefix, rend, name, "dB",
                         ff_fssim_db(v[f->nb_comps]));
        }
        out->nb_scored[k]++;
    }
    out->nb_frames++;

    if (out->log && out->log_fmt == FSSIM_LOG_JSON && out->log_trailer_pos >= 0) {
        out->log_trailer_pos = ftell(out->log);
        write_json_trailer(out);
    }
    return check_file(ctx, out, out->log);
}

/* FFmpeg psnr's summary: the per-frame PSNR pooled (capped), the PSNR of
 * the mean MSE (average), and of the largest and smallest mean MSE. */
static void log_psnr_summary(AVFilterContext *ctx, FSSIMOutput *out, int k, const char *rend)
{
    const FSSIMFormat *f = &out->fmt;
    const FSSIMPool *all = &out->pool[k][FSSIM_ALGO_PSNR][f->nb_comps];
    const uint64_t n = out->nb_scored[k];
    AVBPrint bp;

    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_AUTOMATIC);
    for (int c = 0; c < f->nb_comps; c++)
        av_bprintf(&bp, " %c:%f", f->comp[c].name,
                   pool_mean(&out->pool[k][FSSIM_ALGO_PSNR][c], n));
    av_log(ctx, AV_LOG_INFO, "PSNR%s%s All:%f average:%f min:%f max:%f frames:%"PRIu64"\n",
           rend, bp.str, pool_mean(all, n), psnr_of_mean_mse(out, all, n), all->min, all->max,
           n);
    av_bprint_finalize(&bp, NULL);
}

static void log_summary(AVFilterContext *ctx, FSSIMOutput *out)
{
    const FSSIMFormat *f = &out->fmt;

    for (int k = 0; k < out->nb_dist; k++) {
        const uint64_t n = out->nb_scored[k];
        for (int a = 0; a < nb_slots(out); a++) {
            const FSSIMPool *all = &out->pool[k][a][f->nb_comps];
            char rend[64] = "";
            AVBPrint bp;
            if (!slot_used(out, a) || !n)
                continue;
            if (is_ladder(out))
                snprintf(rend, sizeof(rend), " %s", ctx->input_pads[k].name);
            if (!has_db(out, a)) {
                log_psnr_summary(ctx, out, k, rend);
                continue;
            }
            av_bprint_init(&bp, 0, AV_BPRINT_SIZE_AUTOMATIC);
            for (int c = 0; c < f->nb_comps; c++) {
                const double m = pool_mean(&out->pool[k][a][c], n);
                av_bprintf(&bp, " %c:%f (%f)", f->comp[c].name, m, ff_fssim_db(m));
            }
            av_log(ctx, AV_LOG_INFO, "SSIM%s%s%s%s All:%f (%f) min:%f frames:%"PRIu64"\n",
                   out->algos ? " " : "", out->algos ? ff_fssim_algo_name(a) : "", rend,
                   bp.str, pool_mean(all, n), ff_fssim_db(pool_mean(all, n)), all->min, n);
            av_bprint_finalize(&bp, NULL);
        }
    }
}

/* Row r of the pooled values of one pool (the CSV's pooled rows). */
static double pooled_row(const FSSIMOutput *out, const FSSIMPool *p, uint64_t n, int r)
{
    switch (r) {
    case 0:  return pool_mean(p, n);
    case 1:  return n ? p->min : NAN;
    case 2:  return n ? p->max : NAN;
    case 3:  return pool_harmonic(p, n);
    case 7:  return psnr_of_mean_mse(out, p, n);
    default: return n ? pct_value(&p->pct[r - 4]) : NAN;
    }
}

static void write_csv_pooled(FSSIMOutput *out)
{
    static const char *const rows[] = { "mean", "min", "max", "harmonic_mean", "p1", "p5",
                                        "p50", "psnr_of_mean_mse" };
    const int psnr = out->algos & FSSIM_BIT(FSSIM_ALGO_PSNR);
    FILE *log = out->log;

    for (int k = 0; k < out->nb_dist; k++) {
        const uint64_t n = out->nb_scored[k];
        for (int r = 0; r < 7 + !!psnr; r++) {
            fprintf(log, "%s,,", rows[r]);
            if (is_ladder(out))
                fprintf(log, ",%d", k + 1);
            for (int a = 0; a < nb_slots(out); a++) {
                double v = 0.0;
                if (!slot_used(out, a))
                    continue;
                /* psnr_of_mean_mse is psnr's alone: empty elsewhere */
                for (int c = 0; c <= out->fmt.nb_comps; c++) {
                    v = pooled_row(out, &out->pool[k][a][c], n, r);
                    if (r < 7 || !has_db(out, a))
                        fprintf(log, ",%.17g", v);
                    else
                        fputc(',', log);
                }
                /* dB of this row's All; psnr: its MSE columns stay empty */
                if (has_db(out, a) && r < 7)
                    fprintf(log, ",%.17g", ff_fssim_db(v));
                else
                    for (int c = 0; c < (has_db(out, a) ? 1 : out->fmt.nb_comps + 1); c++)
                        fputc(',', log);
            }
            fputc('\n', log);
        }
    }
    fprintf(log, "# frames=%"PRIu64"\n", out->nb_frames);
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

static int close_file(AVFilterContext *ctx, FSSIMOutput *out, FILE **f, int ret)
{
    char buf[1024];
    const char *path = file_path(out, *f, buf, sizeof(buf));

    if (*f && *f != stdout && fclose(*f) && !ret) {
        ret = AVERROR(errno ? errno : EIO);
        av_log(ctx, AV_LOG_ERROR, "Could not write %s: %s.\n", path, av_err2str(ret));
        out->write_error = ret;
    }
    *f = NULL;
    return ret;
}

static void write_trailer(AVFilterContext *ctx, FSSIMOutput *out)
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
        write_json_trailer(out);
    } else if (out->nb_frames) {
        out->log_trailer_pos = out->log == stdout ? -1 : ftell(out->log);
        write_csv_pooled(out);
        /* a resumed log may have held longer pooled rows */
        if (out->log_trailer_pos >= 0 && !fflush(out->log))
            truncate_here(out->log);
    }
}

int ff_fssim_output_close(AVFilterContext *ctx, FSSIMOutput *out, int ended)
{
    int park, ret;

    if (!out->opts)
        return 0;    /* never opened, or its paths are another filter's */
    if (out->nb_frames > 0)
        log_summary(ctx, out);

    if (out->log && !out->write_error)
        write_trailer(ctx, out);
    /* only a configured output with a log that can be taken up again is
     * parked: a new instance then appends to it */
    park = !ended && out->fmt.nb_comps && (!out->log || out->log_trailer_pos >= 0);
    ret = check_file(ctx, out, out->log);
    if (!ret)
        ret = check_stats_files(ctx, out);
    ret = close_file(ctx, out, &out->log, ret);
    for (int k = 0; k < out->nb_dist; k++)
        ret = close_file(ctx, out, &out->stats_file[k], ret);
    release_parked(ctx, out, park && !ret);
    if (!park || ret)
        free_pools(out);
    out->opts = NULL;
    return ret;
}

double ff_fssim_db(double ssim)
{
    return ssim < 1.0 ? -10.0 * log10(1.0 - ssim) : INFINITY;
}
