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
 * fssim: the outputs every filter shares -- the files (opened at init,
 * checked after every write, closed at uninit), frame metadata,
 * stats_file, the summary lines, and the logs of a graph rebuilt
 * mid-stream; the JSON/CSV log is written by fssim_log.c and pooled by
 * fssim_pool.c.  Write errors fail the run; a run cut short still leaves
 * valid logs with every frame scored before the stop.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "libavutil/avstring.h"
#include "libavutil/bprint.h"
#include "libavutil/file_open.h"
#include "libavutil/frame.h"
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "libavutil/thread.h"
#include "libavfilter/filters.h"

#include "fssim_log.h"
#include "fssim_output.h"

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

    if (!ff_fssim_is_ladder(out) || !d)
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
                ff_fssim_pool_free(&out->pool[k][a][c]);
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
               p->state.single_score == out->single_score &&
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

    if (ff_fssim_is_ladder(out) && !strstr(path, "%d")) {
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
                         const char *key_prefix, int single_score)
{
    char *key = output_key(o);
    int resumed = 0, ret;

    out->key_prefix      = key_prefix;
    out->algos           = o->algos;
    out->single_score    = single_score;
    out->nb_dist         = o->nb_inputs - 1;
    out->log_fmt         = o->log_fmt;
    out->log_trailer_pos = -1;
    out->stats_algo      = o->stats_algo;
    out->opts            = o;
    /* auto: the first algorithm computed; a single score is its one */
    if (out->algos && (out->stats_algo < 0 || single_score))
        for (out->stats_algo = 0; !(out->algos & FSSIM_BIT(out->stats_algo));
             out->stats_algo++)
            ;

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

    ff_fssim_log_header(ctx, out);
    return check_file(ctx, out, out->log);
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
    if (out->stats_algo == FSSIM_ALGO_PSNR) {
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

    if (out->log)
        ff_fssim_log_frame(out, frame, s);

    /* pooled and published once written: the logs never lack a frame
     * that was sent on with scores */
    for (int k = 0; k < out->nb_dist; k++) {
        const int rend = ff_fssim_is_ladder(out) ? k : -1;
        if (!s->scored[k])
            continue;
        for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
            /* a single score's keys name no algorithm */
            const char *name = out->single_score ? NULL : ff_fssim_algo_name(a);
            const double *v = s->score[k][a];
            if (!(out->algos & FSSIM_BIT(a)))
                continue;
            for (int c = 0; c <= f->nb_comps; c++) {
                const char comp[2] = { c < f->nb_comps ? f->comp[c].name : 0, 0 };
                const char *cn = c < f->nb_comps ? comp : "All";
                FSSIMPool *p = &out->pool[k][a][c];
                set_meta(&frame->metadata, out->key_prefix, rend, name, cn, v[c]);
                if (!ff_fssim_has_db(a)) {
                    set_meta(&frame->metadata, out->key_prefix, rend, "mse", cn, s->mse[k][c]);
                    ret = ff_fssim_pool_add_psnr(p, out->nb_scored[k], v[c], s->mse[k][c],
                                                 f->depth, !!out->log);
                } else {
                    ret = ff_fssim_pool_add(p, out->nb_scored[k], v[c], !!out->log);
                }
                if (ret < 0)
                    return ret;
            }
            if (ff_fssim_has_db(a))
                set_meta(&frame->metadata, out->key_prefix, rend, name, "dB",
                         ff_fssim_db(v[f->nb_comps]));
        }
        out->nb_scored[k]++;
    }
    out->nb_frames++;

    if (out->log)
        ff_fssim_log_pooled(out);
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
                   ff_fssim_pooled(&out->pool[k][FSSIM_ALGO_PSNR][c], n, FSSIM_POOLED_MEAN,
                                   f->depth));
    av_log(ctx, AV_LOG_INFO, "PSNR%s%s All:%f average:%f min:%f max:%f frames:%"PRIu64"\n",
           rend, bp.str, ff_fssim_pooled(all, n, FSSIM_POOLED_MEAN, f->depth),
           ff_fssim_pooled(all, n, FSSIM_POOLED_PSNR_OF_MEAN_MSE, f->depth),
           ff_fssim_pooled(all, n, FSSIM_POOLED_MIN, f->depth),
           ff_fssim_pooled(all, n, FSSIM_POOLED_MAX, f->depth), n);
    av_bprint_finalize(&bp, NULL);
}

static void log_summary(AVFilterContext *ctx, FSSIMOutput *out)
{
    const FSSIMFormat *f = &out->fmt;

    for (int k = 0; k < out->nb_dist; k++) {
        const uint64_t n = out->nb_scored[k];
        for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
            const FSSIMPool *all = &out->pool[k][a][f->nb_comps];
            char rend[64] = "";
            double mean;
            AVBPrint bp;
            if (!(out->algos & FSSIM_BIT(a)) || !n)
                continue;
            if (ff_fssim_is_ladder(out))
                snprintf(rend, sizeof(rend), " %s", ctx->input_pads[k].name);
            if (!ff_fssim_has_db(a)) {
                log_psnr_summary(ctx, out, k, rend);
                continue;
            }
            av_bprint_init(&bp, 0, AV_BPRINT_SIZE_AUTOMATIC);
            for (int c = 0; c < f->nb_comps; c++) {
                const double m = ff_fssim_pooled(&out->pool[k][a][c], n, FSSIM_POOLED_MEAN,
                                                 f->depth);
                av_bprintf(&bp, " %c:%f (%f)", f->comp[c].name, m, ff_fssim_db(m));
            }
            /* a single score's line names no algorithm */
            mean = ff_fssim_pooled(all, n, FSSIM_POOLED_MEAN, f->depth);
            av_log(ctx, AV_LOG_INFO, "SSIM%s%s%s%s All:%f (%f) min:%f frames:%"PRIu64"\n",
                   out->single_score ? "" : " ", out->single_score ? "" : ff_fssim_algo_name(a),
                   rend, bp.str, mean, ff_fssim_db(mean),
                   ff_fssim_pooled(all, n, FSSIM_POOLED_MIN, f->depth), n);
            av_bprint_finalize(&bp, NULL);
        }
    }
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

int ff_fssim_output_close(AVFilterContext *ctx, FSSIMOutput *out, int ended)
{
    int park, ret;

    if (!out->opts)
        return 0;    /* never opened, or its paths are another filter's */
    if (out->nb_frames > 0)
        log_summary(ctx, out);

    if (out->log && !out->write_error)
        ff_fssim_log_close(ctx, out);
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
