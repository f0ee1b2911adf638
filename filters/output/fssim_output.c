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
 * stats_file, the summary lines, and the files of a graph rebuilt
 * mid-stream; the JSON/CSV log is written by fssim_log.c, pooled by
 * fssim_pool.c, and every file goes through fssim_file.c.  Write errors
 * fail the run; a run cut short still leaves valid logs with every frame
 * scored before the stop.
 */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <string.h>

#include "libavutil/avstring.h"
#include "libavutil/bprint.h"
#include "libavutil/frame.h"
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "libavutil/thread.h"
#include "libavfilter/filters.h"

#include "fssim_log.h"
#include "fssim_output.h"

static int has_log(const FSSIMOutput *out)
{
    return out->log.fd >= 0;
}

/* ---- the stats files' paths --------------------------------------------- */

/*
 * A ladder's stats_file is a template, with printf's meaning: one %d (with
 * an optional zero flag and width, %03d) for the rendition's number, %% for
 * a %.  Two inputs write the path as it is, as FFmpeg's ssim does.  Fills
 * path (NULL: check only) for rendition k.
 */
static int stats_path(AVFilterContext *ctx, const FSSIMOutput *out, int k, char **path)
{
    const char *t = out->opts->stats_file_str;
    int nb_d = 0, ret = 0;
    AVBPrint bp;

    if (!ff_fssim_is_ladder(out)) {
        if (path && !(*path = av_strdup(t)))
            return AVERROR(ENOMEM);
        return 0;
    }
    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
    for (const char *p = t; *p && ret >= 0; p++) {
        const char *q = p + 1;
        int zero = 0, width = 0;
        if (*p != '%') {
            av_bprint_chars(&bp, *p, 1);
            continue;
        }
        if (*q == '%') {
            av_bprint_chars(&bp, '%', 1);
            p = q;
            continue;
        }
        if (*q == '0')
            zero = *q++;
        while (av_isdigit(*q) && width < 100)
            width = 10 * width + *q++ - '0';
        if (*q != 'd') {
            av_log(ctx, AV_LOG_ERROR, "stats_file=%s: '%.*s' is not a conversion a ladder's "
                   "stats_file takes: %%d (once) is the rendition's number, %%%% a %%.\n", t,
                   (int)(q - p + !!*q), p);
            ret = AVERROR(EINVAL);
            break;
        }
        av_bprintf(&bp, zero ? "%0*d" : "%*d", width, k + 1);
        nb_d++;
        p = q;
    }
    if (ret >= 0 && nb_d != 1) {
        av_log(ctx, AV_LOG_ERROR, "stats_file=%s: a ladder writes one stats file per "
               "rendition, so the path needs %%d exactly once, replaced by the rendition's "
               "number (1 to %d), e.g. stats_file=ssim_%%d.txt (%%%% for a %%).\n", t,
               out->nb_dist);
        ret = AVERROR(EINVAL);
    }
    if (ret >= 0 && path && av_bprint_finalize(&bp, path) < 0)
        ret = AVERROR(ENOMEM);
    if (ret < 0 || !path)
        av_bprint_finalize(&bp, NULL);
    return ret;
}

/* ---- errors ------------------------------------------------------------- */

static const char *file_kind(const FSSIMOutput *out, const FSSIMFile *f)
{
    return f == &out->log ? "log file" : "stats file";
}

/* Report, once, a write that failed (disk full, I/O error, a reader gone):
 * the run must fail rather than leave a log that silently lacks frames. */
static int write_failed(AVFilterContext *ctx, FSSIMOutput *out, const FSSIMFile *f, int err)
{
    if (out->write_error)
        return out->write_error;
    if (err == AVERROR(EINTR))
        av_log(ctx, AV_LOG_ERROR, "Could not write the %s %s: the run was stopped while "
               "waiting for its reader to read.\n", file_kind(out, f), f->path);
    else
        av_log(ctx, AV_LOG_ERROR, "Could not write the %s %s: %s.\n", file_kind(out, f),
               f->path, av_err2str(err));
    out->write_error = err;
    return err;
}

/* ---- every output's files, process-wide -------------------------------- */

/*
 * The outputs of the process that hold files: those of live filters, and
 * those parked by an instance freed mid-stream, for the instance of the
 * rebuilt graph (FFmpeg frees the old graph before it builds the new one,
 * so the two never write at once), files still open.  A copy of the graph
 * that FFmpeg only probed parks its pipes and devices too, untouched, for
 * the copy that runs: a FIFO's reader must see one writer, once.
 */
typedef struct Writer {
    struct Writer *next;
    FSSIMOutput   *live;      /* the live output; NULL: parked */
    const char    *filter;    /* parked: the filter that wrote it */
    int            probed;    /* parked by a copy never configured: files only */
    FSSIMOutput    state;     /* parked */
} Writer;

static AVMutex writers_lock = AV_MUTEX_INITIALIZER;
static Writer *writers;

/* The files of an output: the log, then the stats files. */
static FSSIMFile *out_file(FSSIMOutput *out, int i)
{
    return i ? &out->stats[i - 1] : &out->log;
}

static const FSSIMFile *out_cfile(const FSSIMOutput *out, int i)
{
    return i ? &out->stats[i - 1] : &out->log;
}
#define NB_FILES (FSSIM_MAX_DIST + 1)

static void close_files(FSSIMOutput *out)
{
    for (int i = 0; i < NB_FILES; i++)
        ff_fssim_file_close(out_file(out, i));
}

static void free_pools(FSSIMOutput *out)
{
    for (int k = 0; k < FSSIM_MAX_DIST; k++)
        for (int a = 0; a < FSSIM_NB_ALGOS; a++)
            for (int c = 0; c < 5; c++)
                ff_fssim_pool_free(&out->pool[k][a][c]);
}

static void drop_writer(Writer **pp)
{
    Writer *w = *pp;

    *pp = w->next;
    if (!w->live) {
        close_files(&w->state);
        free_pools(&w->state);
    }
    av_free(w);
}

/* Whether file f is one of another live output's, or, with parked, one of
 * a parked output's (its writer then). */
static Writer *find_writer(const FSSIMFile *f, int parked)
{
    for (Writer *w = writers; w; w = w->next) {
        FSSIMOutput *o = w->live ? w->live : &w->state;
        if (!!w->live == parked)
            continue;
        for (int i = 0; i < NB_FILES; i++)
            if (ff_fssim_file_same(f, out_file(o, i)))
                return w;
    }
    return NULL;
}

/* Two of the output's own files, or one of another live filter's: two
 * writers would mix their lines. */
static int check_writers(AVFilterContext *ctx, FSSIMOutput *out, int i)
{
    const FSSIMFile *f = out_file(out, i);

    for (int j = 0; j < i; j++) {
        const FSSIMFile *g = out_file(out, j);
        if (!ff_fssim_file_same(f, g))
            continue;
        if (!j)
            av_log(ctx, AV_LOG_ERROR, "log_path=%s and stats_file %s are the same file: give "
                   "each its own path.\n", g->path, f->path);
        else
            av_log(ctx, AV_LOG_ERROR, "The stats files %s and %s (renditions %d and %d) are "
                   "the same file: give each rendition its own.\n", g->path, f->path, j, i);
        return AVERROR(EINVAL);
    }
    if (find_writer(f, 0)) {
        av_log(ctx, AV_LOG_ERROR, "Another filter of this process writes the same file %s: "
               "give each filter its own log_path and stats_file.\n", f->path);
        return AVERROR(EBUSY);
    }
    return 0;
}

static int open_files(AVFilterContext *ctx, FSSIMOutput *out)
{
    const FSSIMOptions *o = out->opts;
    int ret = 0;

    if (o->log_path) {
        ret = ff_fssim_file_open(ctx, &out->log, o->log_path, "log file");
        if (ret >= 0)
            ret = check_writers(ctx, out, 0);
    }
    if (o->stats_file_str && ret >= 0)
        ret = stats_path(ctx, out, 0, NULL);
    for (int k = 0; o->stats_file_str && k < out->nb_dist && ret >= 0; k++) {
        char *path;
        if ((ret = stats_path(ctx, out, k, &path)) < 0)
            break;
        ret = ff_fssim_file_open(ctx, &out->stats[k], path, "stats file");
        av_free(path);
        if (ret >= 0)
            ret = check_writers(ctx, out, k + 1);
    }
    return ret;
}

/* A parked output whose files are this one's, of the same filter, scores
 * and log format: this one goes on with it. */
static int continues(const AVFilterContext *ctx, const FSSIMOutput *out, const Writer *w)
{
    const FSSIMOutput *p = &w->state;

    if (w->probed || w->filter != ctx->filter->name || p->algos != out->algos ||
        p->single_score != out->single_score || p->log_fmt != out->log_fmt ||
        p->nb_dist != out->nb_dist)
        return 0;
    for (int i = 0; i < NB_FILES; i++) {
        const FSSIMFile *a = out_cfile(out, i), *b = out_cfile(p, i);
        if ((a->fd >= 0) != (b->fd >= 0) || (a->fd >= 0 && a->dev != b->dev) ||
            (a->fd >= 0 && a->ino != b->ino))
            return 0;
    }
    return 1;
}

/*
 * With the files open: take up a parked output that they continue (its
 * state, its files), or the pipes a probed copy parked; drop any other
 * parked output they share a file with (it was complete when parked), and
 * claim the files this output opened itself.  Returns 1 when a state was
 * taken up.
 */
static int take_parked(AVFilterContext *ctx, FSSIMOutput *out)
{
    int resumed = 0, ret = 0;

    for (int i = 0; i < NB_FILES; i++) {
        FSSIMFile *f = out_file(out, i);
        Writer *w, **pp;
        if (f->fd < 0 || !(w = find_writer(f, 1)))
            continue;
        for (pp = &writers; *pp != w; pp = &(*pp)->next)
            ;
        if (!resumed && continues(ctx, out, w)) {
            const FSSIMOutput cur = *out;
            close_files(out);
            *out = w->state;
            out->key_prefix = cur.key_prefix;
            out->stats_algo = cur.stats_algo;
            out->opts       = cur.opts;
            out->resumed    = resumed = 1;
            /* the state's files are this output's now */
            memset(&w->state, 0, sizeof(w->state));
            for (int j = 0; j < NB_FILES; j++)
                out_file(&w->state, j)->fd = -1;
        } else if (w->probed) {
            /* the same file in the same place: its descriptor */
            for (int j = 0; j < NB_FILES; j++) {
                FSSIMFile *g = out_file(&w->state, j);
                if (ff_fssim_file_same(out_file(out, j), g)) {
                    ff_fssim_file_close(out_file(out, j));
                    *out_file(out, j) = *g;
                    *g = (FSSIMFile)FSSIM_FILE_NONE;
                }
            }
        }
        drop_writer(pp);
        i = -1;     /* the list changed: look again from the start */
        if (resumed)
            break;
    }
    /* (a probed copy's pipes need no claim) */
    for (int i = 0; i < NB_FILES && !resumed && ret >= 0; i++) {
        FSSIMFile *f = out_file(out, i);
        if (f->fd >= 0)
            ret = ff_fssim_file_claim(ctx, f, i ? "stats file" : "log file", 0);
    }
    return ret < 0 ? ret : resumed;
}

int ff_fssim_output_open(AVFilterContext *ctx, FSSIMOutput *out, const FSSIMOptions *o,
                         const char *key_prefix, int single_score)
{
    Writer *w = NULL;
    int resumed = 0, ret;

    out->key_prefix      = key_prefix;
    out->algos           = o->algos;
    out->single_score    = single_score;
    out->nb_dist         = o->nb_inputs - 1;
    out->log_fmt         = o->log_fmt;
    out->stats_algo      = o->stats_algo;
    out->opts            = o;
    /* a run stopped by a signal must not read as one that ended */
    ff_fssim_file_watch();
    for (int i = 0; i < NB_FILES; i++)
        *out_file(out, i) = (FSSIMFile)FSSIM_FILE_NONE;
    /* auto: the first algorithm computed; a single score is its one */
    if (out->algos && (out->stats_algo < 0 || single_score))
        for (out->stats_algo = 0; !(out->algos & FSSIM_BIT(out->stats_algo));
             out->stats_algo++)
            ;
    if (!o->log_path && !o->stats_file_str)
        return 0;

    ff_mutex_lock(&writers_lock);
    ret = open_files(ctx, out);
    if (ret >= 0)
        ret = resumed = take_parked(ctx, out);
    if (ret >= 0 && !(w = av_mallocz(sizeof(*w))))
        ret = AVERROR(ENOMEM);
    if (ret >= 0) {
        w->live = out;
        w->next = writers;
        writers = w;
    }
    ff_mutex_unlock(&writers_lock);
    if (ret < 0) {
        /* files that are another filter's or another process's, untouched */
        close_files(out);
        free_pools(out);
        out->opts = NULL;
        return ret;
    }
    if (resumed)
        av_log(ctx, AV_LOG_VERBOSE, "Continuing the logs of the filter graph rebuilt "
               "mid-stream, after %"PRIu64" frames.\n", out->nb_frames);
    return 0;
}

/* At close: park the output (mid-stream: its state and files; a probed
 * copy: the files it kept open) or forget it. */
static void release_files(AVFilterContext *ctx, FSSIMOutput *out, int park, int probed)
{
    Writer **pp, *w;

    ff_mutex_lock(&writers_lock);
    for (pp = &writers; *pp && (*pp)->live != out; pp = &(*pp)->next)
        ;
    if ((w = *pp) && (park || probed)) {
        w->live   = NULL;
        w->filter = ctx->filter->name;
        w->probed = probed;
        w->state  = *out;
        w->state.opts = NULL;      /* freed with this instance */
        if (probed)
            memset(w->state.pool, 0, sizeof(w->state.pool));
    } else if (w) {
        drop_writer(pp);
    }
    ff_mutex_unlock(&writers_lock);
    for (int i = 0; i < NB_FILES; i++)
        *out_file(out, i) = (FSSIMFile)FSSIM_FILE_NONE;
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
    /* again: the program may have installed its handlers anew since */
    ff_fssim_file_watch();
    /* the outputs were opened before the graph was configured: a muxer of
     * this process on stdout holds it by now */
    for (int i = 0; i < NB_FILES && !out->resumed; i++) {
        const FSSIMFile *g = out_file(out, i);
        if (g->fd >= 0 && ff_fssim_file_stdout_shared(g)) {
            av_log(ctx, AV_LOG_ERROR, "The %s %s is stdout, which another output of this "
                   "process writes too (an output file '-' or 'pipe:', -progress pipe:1): "
                   "their bytes would mix. Give the %s a file of its own, or send that "
                   "output elsewhere.\n", file_kind(out, g), g->path, file_kind(out, g));
            /* nothing, not even a closing, goes to a stream it would garble */
            out->log_closed = 1;
            return AVERROR(EBUSY);
        }
    }
    /* the sizes may have changed; the weights of All follow the frames */
    out->fmt = *f;
    for (int k = 0; k < out->nb_dist; k++)
        out->dist_fmt[k] = dist ? dist[k] : *f;
    if (!has_log(out) || out->write_error)
        return out->write_error;

    ret = out->resumed ? ff_fssim_log_resume(out) : ff_fssim_log_header(ctx, out);
    return ret < 0 ? write_failed(ctx, out, &out->log, ret) : 0;
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
 * the psnr filter's.  One write a line: a file holds whole lines. */
static int write_stats_line(FSSIMOutput *out, int k, const FSSIMScores *s)
{
    FSSIMFile *f = &out->stats[k];
    const int n = out->fmt.nb_comps;
    const double *sc = s->score[k][out->stats_algo];
    AVBPrint bp;
    int ret;

    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_AUTOMATIC);
    av_bprintf(&bp, "n:%"PRIu64" ", out->first_n + out->nb_scored[k] + 1);
    if (!ff_fssim_has_db(out->stats_algo)) {
        av_bprintf(&bp, "mse_avg:%0.2f ", s->mse[k][n]);
        for (int c = 0; c < n; c++)
            av_bprintf(&bp, "mse_%c:%0.2f ", av_tolower(out->fmt.comp[c].name), s->mse[k][c]);
        av_bprintf(&bp, "psnr_avg:%0.2f ", sc[n]);
        for (int c = 0; c < n; c++)
            av_bprintf(&bp, "psnr_%c:%0.2f ", av_tolower(out->fmt.comp[c].name), sc[c]);
        av_bprint_chars(&bp, '\n', 1);
    } else {
        for (int c = 0; c < n; c++)
            av_bprintf(&bp, "%c:%f ", out->fmt.comp[c].name, sc[c]);
        av_bprintf(&bp, "All:%f (%f)\n", sc[n], ff_fssim_db(sc[n]));
    }
    ret = av_bprint_is_complete(&bp) ? ff_fssim_file_write(f, f->end, bp.str, bp.len)
                                     : AVERROR(ENOMEM);
    av_bprint_finalize(&bp, NULL);
    return ret;
}

int ff_fssim_output_frame(AVFilterContext *ctx, FSSIMOutput *out, AVFrame *frame,
                          const FSSIMScores *s)
{
    const FSSIMFormat *f = &out->fmt;
    int ret;

    if (out->write_error)
        return out->write_error;
    /* a number a JSON reader (a double) holds exactly, as seg_start is */
    if (out->first_n + out->nb_frames > FSSIM_SEG_MAX) {
        av_log(ctx, AV_LOG_ERROR, "Frame number %"PRIu64" is past %"PRId64", the largest "
               "that the logs state exactly: give seg_base and seg_start smaller title "
               "numbers.\n", out->first_n + out->nb_frames, FSSIM_SEG_MAX);
        return out->write_error = AVERROR(ERANGE);
    }

    for (int k = 0; k < out->nb_dist; k++)
        if (out->stats[k].fd >= 0 && s->scored[k] && (ret = write_stats_line(out, k, s)) < 0)
            return write_failed(ctx, out, &out->stats[k], ret);
    if (has_log(out) && (ret = ff_fssim_log_frame(out, frame, s)) < 0)
        return write_failed(ctx, out, &out->log, ret);

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
                if (!ff_fssim_has_db(a))
                    set_meta(&frame->metadata, out->key_prefix, rend, "mse", cn, s->mse[k][c]);
                if (ff_fssim_algo(a)->pooling == FSSIM_POOLING_PSNR)
                    ret = ff_fssim_pool_add_psnr(p, out->nb_scored[k], v[c], s->mse[k][c],
                                                 f->depth, has_log(out));
                else
                    ret = ff_fssim_pool_add(p, out->nb_scored[k], v[c], has_log(out));
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
    return 0;
}

void ff_fssim_output_unscored(FSSIMOutput *out, enum FSSIMUnscored why)
{
    out->nb_unscored[why]++;
}

/* FFmpeg psnr's summary: the per-frame PSNR pooled (capped), the PSNR of
 * the mean MSE (average), and of the largest and smallest mean MSE. */
static void log_psnr_summary(AVFilterContext *ctx, FSSIMOutput *out, int k, int a,
                             const char *rend)
{
    const FSSIMFormat *f = &out->fmt;
    const FSSIMPool *all = &out->pool[k][a][f->nb_comps];
    const uint64_t n = out->nb_scored[k];
    AVBPrint bp;

    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_AUTOMATIC);
    for (int c = 0; c < f->nb_comps; c++)
        av_bprintf(&bp, " %c:%f", f->comp[c].name,
                   ff_fssim_pooled(&out->pool[k][a][c], n, FSSIM_POOLED_MEAN,
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
            /* a single score's line names no algorithm */
            const char *name = out->single_score ? "" : ff_fssim_algo_name(a);
            const char *sep = out->single_score ? "" : " ";
            char rend[64] = "";
            double mean;
            AVBPrint bp;
            if (!(out->algos & FSSIM_BIT(a)))
                continue;
            if (ff_fssim_is_ladder(out))
                snprintf(rend, sizeof(rend), " %s", ctx->input_pads[k].name);
            /* no values to print: no dB of nothing that reads as a score */
            if (!n) {
                av_log(ctx, AV_LOG_INFO, "%s%s%s%s frames:0\n", ff_fssim_has_db(a) ? "SSIM" : "PSNR",
                       ff_fssim_has_db(a) ? sep : "", ff_fssim_has_db(a) ? name : "", rend);
                continue;
            }
            if (!ff_fssim_has_db(a)) {
                log_psnr_summary(ctx, out, k, a, rend);
                continue;
            }
            av_bprint_init(&bp, 0, AV_BPRINT_SIZE_AUTOMATIC);
            for (int c = 0; c < f->nb_comps; c++) {
                const double m = ff_fssim_pooled(&out->pool[k][a][c], n, FSSIM_POOLED_MEAN,
                                                 f->depth);
                av_bprintf(&bp, " %c:%f (%f)", f->comp[c].name, m, ff_fssim_db(m));
            }
            mean = ff_fssim_pooled(all, n, FSSIM_POOLED_MEAN, f->depth);
            av_log(ctx, AV_LOG_INFO, "SSIM%s%s%s%s All:%f (%f) min:%f frames:%"PRIu64"\n",
                   sep, name, rend, bp.str, mean, ff_fssim_db(mean),
                   ff_fssim_pooled(all, n, FSSIM_POOLED_MIN, f->depth), n);
            av_bprint_finalize(&bp, NULL);
        }
    }
}

/* Frames without a pair, or damaged, are said at the end: the scores hold
 * only true pairs, and a rendition that is shorter, longer or broken is
 * not a clean result. */
static void warn_pairing(AVFilterContext *ctx, const FSSIMOutput *out)
{
    const FSSIMPairStats *st = &out->pairs;
    const int r = out->nb_dist;
    const char *ref = ctx->input_pads[r].name;

    if (st->mode == FSSIM_PAIRING_FRAMESYNC)
        return;
    for (int k = 0; k < out->nb_dist; k++) {
        const char *pad = ctx->input_pads[k].name;
        if (st->lacks[k])
            av_log(ctx, AV_LOG_WARNING, "%s lacks %"PRIu64" of the %s's frames: no %s frame "
                   "lies within half a frame of their time (it is shorter, starts later, or "
                   "lost frames), so they were not scored for %s.\n", pad, st->lacks[k],
                   ref, pad, pad);
        if (st->excess[k])
            av_log(ctx, AV_LOG_WARNING, "%s has %"PRIu64" frame%s in excess: no %s frame lies "
                   "within half a frame of their time (it is longer, or has frames the %s "
                   "lacks), so they were not scored.\n", pad, st->excess[k],
                   st->excess[k] == 1 ? "" : "s", ref, ref);
    }
    for (int i = 0; i <= r; i++)
        if (st->damaged[i])
            av_log(ctx, AV_LOG_WARNING, "%"PRIu64" %s frame%s came from the decoder with "
                   "errors (damaged or concealed data) and %s scored as decoded: check the "
                   "input.\n", st->damaged[i], ctx->input_pads[i].name,
                   st->damaged[i] == 1 ? "" : "s", st->damaged[i] == 1 ? "was" : "were");
}

/* Nothing scored: say why, so that an empty result is not read as a run
 * that scored its frames. */
static void warn_nothing_scored(AVFilterContext *ctx, const FSSIMOutput *out)
{
    const uint64_t *u = out->nb_unscored;
    const char *ref = ctx->input_pads[ctx->nb_inputs - 1].name;
    uint64_t passed = 0;

    for (int i = 0; i < FSSIM_NB_UNSCORED; i++)
        passed += u[i];
    if (!passed)
        av_log(ctx, AV_LOG_WARNING, "No frame was scored: no frame reached the filter "
               "(an input was empty, or the run stopped first).\n");
    else if (u[FSSIM_UNSCORED_DISABLED] == passed)
        av_log(ctx, AV_LOG_WARNING, "No frame was scored: the enable expression was false "
               "for all %"PRIu64" frames.\n", passed);
    else if (u[FSSIM_UNSCORED_SEGMENT] == passed)
        av_log(ctx, AV_LOG_WARNING, "No frame was scored: all %"PRIu64" frames came before "
               "seg_start.\n", passed);
    else if (u[FSSIM_UNSCORED_WINDOW] == passed)
        av_log(ctx, AV_LOG_WARNING, "No frame was scored: none of the %"PRIu64" frames had "
               "a full temporal window (tpadding=valid).\n", passed);
    else if (u[FSSIM_UNSCORED_NO_DIST])
        av_log(ctx, AV_LOG_WARNING, "No frame was scored: no rendition had a frame at the "
               "time of any of the %"PRIu64" %s frames (empty, or they ended before).\n",
               passed, ref);
    else
        av_log(ctx, AV_LOG_WARNING, "No frame was scored: the %s input had no frame at the "
               "time of any of the %"PRIu64" frames (empty, or it ended before).\n", ref,
               passed);
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGINT:  return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGQUIT: return "SIGQUIT";
    case SIGXCPU: return "SIGXCPU";
    default:      return "a signal";
    }
}

/* A run stopped by a signal: its inputs were ended early, so its results
 * are partial. */
static void say_stopped(AVFilterContext *ctx, const FSSIMOutput *out, int sig)
{
    av_log(ctx, AV_LOG_WARNING, "The run was stopped by %s: the results cover the %"PRIu64
           " frames scored before the stop, and the log says that it is not complete.\n",
           signal_name(sig), out->nb_frames);
}

int ff_fssim_output_end(AVFilterContext *ctx, FSSIMOutput *out)
{
    int ret;

    /* (a filter never configured says so when it closes) */
    if (!out->opts || !out->fmt.nb_comps || out->finished)
        return out->opts ? out->write_error : 0;
    out->finished = 1;
    /* a stop signal ends the inputs as their end would: the run is not
     * complete (a signal noted after the end costs a whole log its flag,
     * never the reverse) */
    out->complete = !ff_fssim_file_stopped();
    if (!has_log(out))
        return out->write_error;
    ret = ff_fssim_log_close(ctx, out);
    return ret < 0 ? write_failed(ctx, out, &out->log, ret) : out->write_error;
}

int ff_fssim_output_close(AVFilterContext *ctx, FSSIMOutput *out, int ended)
{
    const int stopped = ff_fssim_file_stopped();
    int park, probed, ret = out->write_error;

    if (!out->opts)
        return 0;    /* never opened, or its files are another filter's */
    if (!out->finished)
        out->complete = ended && !stopped;
    if (out->fmt.nb_comps) {
        if (!out->nb_frames)
            warn_nothing_scored(ctx, out);
        else if (stopped && !out->complete)
            say_stopped(ctx, out, stopped);
        log_summary(ctx, out);
        warn_pairing(ctx, out);
    }
    if (has_log(out) && !out->finished) {
        int err = ff_fssim_log_close(ctx, out);
        if (err < 0)
            ret = write_failed(ctx, out, &out->log, err);
    }
    /* only a configured output whose log can be taken up again is parked:
     * a new instance then goes on with it.  A copy only probed keeps its
     * pipes and devices open for the copy that runs. */
    park   = !ended && out->fmt.nb_comps && !ret && (!has_log(out) || out->log.regular);
    probed = 0;
    for (int i = 0; i < NB_FILES; i++)
        probed |= !out->fmt.nb_comps && !out->configuring && out_file(out, i)->fd >= 0 &&
                  !out_file(out, i)->regular;
    for (int i = 0; i < NB_FILES; i++) {
        FSSIMFile *f = out_file(out, i);
        char path[1024];
        int err;
        if (f->fd < 0 || park || (probed && !f->regular))
            continue;
        av_strlcpy(path, f->path, sizeof(path));
        err = ff_fssim_file_close(f);
        if (err < 0 && !ret) {
            av_log(ctx, AV_LOG_ERROR, "Could not write %s: %s.\n", path, av_err2str(err));
            ret = out->write_error = err;
        }
    }
    release_files(ctx, out, park, probed);
    if (!park)
        free_pools(out);
    out->opts = NULL;
    return ret;
}

double ff_fssim_db(double ssim)
{
    return ssim < 1.0 ? -10.0 * log10(1.0 - ssim) : INFINITY;
}
