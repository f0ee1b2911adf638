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
 * fssim: every output's files, process-wide: one writer per file, and the
 * files of a graph rebuilt mid-stream, which the next instance of the same
 * filter takes up.
 */
#include <string.h>

#include "libavutil/mem.h"
#include "libavutil/thread.h"

#include "fssim_stats.h"
#include "fssim_writers.h"

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

static const FSSIMFile *out_cfile(const FSSIMOutput *out, int i)
{
    return i ? &out->stats[i - 1] : &out->log;
}

void ff_fssim_output_close_files(FSSIMOutput *out)
{
    for (int i = 0; i < FSSIM_OUTPUT_FILES; i++)
        ff_fssim_file_close(ff_fssim_output_file(out, i));
}

void ff_fssim_output_free_pools(FSSIMOutput *out)
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
        ff_fssim_output_close_files(&w->state);
        ff_fssim_output_free_pools(&w->state);
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
        for (int i = 0; i < FSSIM_OUTPUT_FILES; i++)
            if (ff_fssim_file_same(f, ff_fssim_output_file(o, i)))
                return w;
    }
    return NULL;
}

/* Two of the output's own files, or one of another live filter's: two
 * writers would mix their lines. */
static int check_writers(AVFilterContext *ctx, FSSIMOutput *out, int i)
{
    const FSSIMFile *f = ff_fssim_output_file(out, i);

    for (int j = 0; j < i; j++) {
        const FSSIMFile *g = ff_fssim_output_file(out, j);
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
        ret = ff_fssim_stats_path(ctx, out, 0, NULL);
    for (int k = 0; o->stats_file_str && k < out->nb_dist && ret >= 0; k++) {
        char *path;
        if ((ret = ff_fssim_stats_path(ctx, out, k, &path)) < 0)
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
    for (int i = 0; i < FSSIM_OUTPUT_FILES; i++) {
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

    for (int i = 0; i < FSSIM_OUTPUT_FILES; i++) {
        FSSIMFile *f = ff_fssim_output_file(out, i);
        Writer *w, **pp;
        if (f->fd < 0 || !(w = find_writer(f, 1)))
            continue;
        for (pp = &writers; *pp != w; pp = &(*pp)->next)
            ;
        if (!resumed && continues(ctx, out, w)) {
            const FSSIMOutput cur = *out;
            ff_fssim_output_close_files(out);
            *out = w->state;
            out->key_prefix = cur.key_prefix;
            out->stats_algo = cur.stats_algo;
            out->opts       = cur.opts;
            out->resumed    = resumed = 1;
            /* the state's files are this output's now */
            memset(&w->state, 0, sizeof(w->state));
            for (int j = 0; j < FSSIM_OUTPUT_FILES; j++)
                ff_fssim_output_file(&w->state, j)->fd = -1;
        } else if (w->probed) {
            /* the same file in the same place: its descriptor */
            for (int j = 0; j < FSSIM_OUTPUT_FILES; j++) {
                FSSIMFile *g = ff_fssim_output_file(&w->state, j);
                if (ff_fssim_file_same(ff_fssim_output_file(out, j), g)) {
                    ff_fssim_file_close(ff_fssim_output_file(out, j));
                    *ff_fssim_output_file(out, j) = *g;
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
    for (int i = 0; i < FSSIM_OUTPUT_FILES && !resumed && ret >= 0; i++) {
        FSSIMFile *f = ff_fssim_output_file(out, i);
        if (f->fd >= 0)
            ret = ff_fssim_file_claim(ctx, f, i ? "stats file" : "log file", 0);
    }
    return ret < 0 ? ret : resumed;
}

int ff_fssim_writers_open(AVFilterContext *ctx, FSSIMOutput *out)
{
    Writer *w = NULL;
    int resumed = 0, ret;

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
        ff_fssim_output_close_files(out);
        ff_fssim_output_free_pools(out);
        return ret;
    }
    return resumed;
}

void ff_fssim_writers_release(AVFilterContext *ctx, FSSIMOutput *out, int park, int probed)
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
    for (int i = 0; i < FSSIM_OUTPUT_FILES; i++)
        *ff_fssim_output_file(out, i) = (FSSIMFile)FSSIM_FILE_NONE;
}
