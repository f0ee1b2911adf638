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
 * fssim: the outputs every filter shares, in order: the files opened at
 * init (fssim_writers.c), the log's header at configuration; per frame its
 * stats_file lines (fssim_stats.c) and log record (fssim_log.c), then its
 * values pooled (fssim_pool.c) and published as metadata; at the end the
 * pooled values, the summary lines (fssim_summary.c) and the files closed.
 * Every file goes through fssim_file.c.  Write errors fail the run; a run
 * cut short still leaves valid logs with every frame scored before the
 * stop.
 */
#include <inttypes.h>
#include <stdio.h>

#include "libavutil/avstring.h"
#include "libavutil/frame.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/filters.h"

#include "../core/fssim_algos.h"
#include "fssim_log.h"
#include "fssim_output.h"
#include "fssim_stats.h"
#include "fssim_summary.h"
#include "fssim_writers.h"

static int has_log(const FSSIMOutput *out)
{
    return out->log.fd >= 0;
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

int ff_fssim_output_open(AVFilterContext *ctx, FSSIMOutput *out, const FSSIMOptions *o,
                         const char *key_prefix, int single_score)
{
    int ret;

    out->key_prefix      = key_prefix;
    out->algos           = o->algos;
    out->single_score    = single_score;
    out->nb_dist         = o->nb_inputs - 1;
    out->log_fmt         = o->log_fmt;
    out->stats_algo      = o->stats_algo;
    out->opts            = o;
    /* a run stopped by a signal must not read as one that ended */
    ff_fssim_file_watch();
    for (int i = 0; i < FSSIM_OUTPUT_FILES; i++)
        *ff_fssim_output_file(out, i) = (FSSIMFile)FSSIM_FILE_NONE;
    /* auto: the first algorithm computed; a single score is its one */
    if (out->algos && (out->stats_algo < 0 || single_score))
        for (out->stats_algo = 0; !(out->algos & FSSIM_BIT(out->stats_algo));
             out->stats_algo++)
            ;
    if (!o->log_path && !o->stats_file_str)
        return 0;

    ret = ff_fssim_writers_open(ctx, out);
    if (ret < 0) {
        out->opts = NULL;
        return ret;
    }
    if (ret)
        av_log(ctx, AV_LOG_VERBOSE, "Continuing the logs of the filter graph rebuilt "
               "mid-stream, after %"PRIu64" frames.\n", out->nb_frames);
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
    /* again: the program may have installed its handlers anew since */
    ff_fssim_file_watch();
    /* the outputs were opened before the graph was configured: a muxer of
     * this process on stdout holds it by now */
    for (int i = 0; i < FSSIM_OUTPUT_FILES && !out->resumed; i++) {
        const FSSIMFile *g = ff_fssim_output_file(out, i);
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
        if (out->stats[k].fd >= 0 && s->scored[k] && (ret = ff_fssim_stats_line(out, k, s)) < 0)
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
    if (out->fmt.nb_comps)
        ff_fssim_output_summary(ctx, out, stopped);
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
    for (int i = 0; i < FSSIM_OUTPUT_FILES; i++)
        probed |= !out->fmt.nb_comps && !out->configuring && ff_fssim_output_file(out, i)->fd >= 0 &&
                  !ff_fssim_output_file(out, i)->regular;
    for (int i = 0; i < FSSIM_OUTPUT_FILES; i++) {
        FSSIMFile *f = ff_fssim_output_file(out, i);
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
    ff_fssim_writers_release(ctx, out, park, probed);
    if (!park)
        ff_fssim_output_free_pools(out);
    out->opts = NULL;
    return ret;
}
