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
 * fssim: pairing frames by their timestamps (fssim_pair.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/mathematics.h"
#include "libavutil/timestamp.h"
#include "libavfilter/filters.h"

#include "fssim_pair.h"

/* When neither input states a rate nor the reference's frames a duration. */
static const AVRational default_dur = { 1, 25 };

/* Two rates are one when they differ by less than this (relative): a
 * container's rounded rate (29.97 for 30000/1001) is the same rate, 30
 * against 30000/1001 is not. */
#define SAME_RATE 1e-4

/* After the leading input has ended, the others are read this many
 * seconds further at most, to count the frames a longer one has. */
#define TAIL_SECONDS 10

static int rates_differ(AVRational a, AVRational b)
{
    if (a.num <= 0 || a.den <= 0 || b.num <= 0 || b.den <= 0)
        return 0;       /* a variable or unknown rate (0/1) says nothing */
    return fabs(av_q2d(a) / av_q2d(b) - 1.0) > SAME_RATE;
}

static void rate_name(AVRational q, char buf[32])
{
    if (q.den == 1)
        snprintf(buf, 32, "%d", q.num);
    else
        snprintf(buf, 32, "%d/%d", q.num, q.den);
}

static int check_rates(AVFilterContext *ctx, int ref)
{
    const AVRational ref_rate = ff_filter_link(ctx->inputs[ref])->frame_rate;

    for (int i = 0; i < ctx->nb_inputs; i++) {
        const AVRational rate = ff_filter_link(ctx->inputs[i])->frame_rate;
        const char *pad = ctx->input_pads[i].name;
        char a[32], b[32];

        if (i == ref || !rates_differ(rate, ref_rate))
            continue;
        rate_name(rate, a);
        rate_name(ref_rate, b);
        av_log(ctx, AV_LOG_ERROR, "The frame rates differ: %s is %s fps, the reference %s "
               "fps, so their frames cannot be paired one to one. Bring %s to the "
               "reference's rate first, e.g. fps=%s on it (FFmpeg's fps filter repeats and "
               "drops frames), or use pairing=framesync to score each reference frame "
               "against the %s frame shown at its time.\n", pad, a, b, pad, b, pad);
        return AVERROR(EINVAL);
    }
    return 0;
}

/* The inputs' first-frame times given by seg_starts, into p->start. */
static int parse_starts(FSSIMPair *p, const char *starts)
{
    AVFilterContext *ctx = p->ctx;
    const char *s = starts;

    for (int i = 0; i < p->nb_in; i++) {
        char *end;
        long long num = strtoll(s, &end, 10), den = 1;
        if (end != s && *end == '/') {
            s = end + 1;
            den = strtoll(s, &end, 10);
        }
        if (end == s || den <= 0 || (*end != '|' && *end) || (*end == '|') != (i < p->nb_in - 1)) {
            av_log(ctx, AV_LOG_ERROR, "seg_starts=%s: give the first frame's time of each of "
                   "the %d inputs, in seconds as N or N/D, separated by '|' (e.g. "
                   "0|1920/90000).\n", starts, p->nb_in);
            return AVERROR(EINVAL);
        }
        p->start[i] = av_rescale(num, p->tb.den, den * p->tb.num);
        p->start_known |= 1u << i;
        s = end + (*end == '|');
    }
    return 0;
}

int ff_fssim_pair_configure(FSSIMPair *p, AVFilterContext *ctx, int lead, int ref,
                            int stop_first, int head, int64_t final, int align,
                            const char *starts)
{
    AVRational rate = ff_filter_link(ctx->inputs[ref])->frame_rate;
    int ret;

    if ((ret = check_rates(ctx, ref)) < 0)
        return ret;
    p->ctx        = ctx;
    p->nb_in      = ctx->nb_inputs;
    p->lead       = lead;
    p->ref        = ref;
    p->stop_first = stop_first;
    p->head       = head;
    p->final      = final;
    p->pts        = AV_NOPTS_VALUE;
    /* the finest time base in which every input's timestamps are exact */
    p->tb = ctx->inputs[0]->time_base;
    for (int i = 1; i < p->nb_in; i++)
        p->tb = av_gcd_q(p->tb, ctx->inputs[i]->time_base, AV_TIME_BASE / 2, AV_TIME_BASE_Q);
    if (rate.num <= 0 || rate.den <= 0)
        rate = ff_filter_link(ctx->inputs[lead])->frame_rate;
    p->dur = rate.num > 0 && rate.den > 0 ? av_inv_q(rate) : (AVRational){ 0, 1 };
    p->frame_dur = p->dur.num ? p->dur : default_dur;
    for (int i = 0; i < p->nb_in; i++)
        p->in[i].last = AV_NOPTS_VALUE;
    p->align = align;
    if (align && starts && *starts)
        return parse_starts(p, starts);
    return 0;
}

/* Where time a lies against the interval of a leading frame at time t:
 * -1 before it, 0 inside ([t - d/2, t + d/2)), 1 after it.  Exact. */
static int interval_side(const FSSIMPair *p, int64_t a, int64_t t)
{
    const AVRational d = p->frame_dur;

    if (av_compare_ts(2 * (a - t), p->tb, -d.num, (AVRational){ 1, d.den }) < 0)
        return -1;
    return av_compare_ts(2 * (a - t), p->tb, d.num, (AVRational){ 1, d.den }) >= 0;
}

/* Done with input i's frame f: counted in c (none: before the first
 * interval of a segment, the previous segment's). */
static void count(FSSIMPairCount *c, int i, const AVFrame *f, int unpaired)
{
    if (!c)
        return;
    c->seen[i]++;
    c->damaged[i]  += ff_fssim_frame_damaged(f);
    c->unpaired[i] += unpaired;
}

/* Drop input i's first n queued frames, none of them paired. */
static void drop_front(FSSIMPairInput *in, int i, int n, FSSIMPairCount *c)
{
    for (int j = 0; j < n; j++) {
        count(c, i, in->q[j], 1);
        av_frame_free(&in->q[j]);
    }
    in->nb -= n;
    memmove(in->q, in->q + n, in->nb * sizeof(*in->q));
    memmove(in->t, in->t + n, in->nb * sizeof(*in->t));
}

/* Take the first queued frame out. */
static AVFrame *pop_front(FSSIMPairInput *in)
{
    AVFrame *f = in->q[0];

    in->q[0] = NULL;
    in->nb--;
    memmove(in->q, in->q + 1, in->nb * sizeof(*in->q));
    memmove(in->t, in->t + 1, in->nb * sizeof(*in->t));
    return f;
}

/* Without a stated rate, the reference's frames set the interval: a
 * frame's own duration, else its distance from the one before. */
static void update_duration(FSSIMPair *p, const AVFrame *f, int64_t t)
{
    const AVRational tb = p->ctx->inputs[p->ref]->time_base;
    const int64_t last = p->in[p->ref].last;

    if (p->dur.num)
        return;
    if (f->duration > 0)
        av_reduce(&p->frame_dur.num, &p->frame_dur.den, f->duration * tb.num, tb.den, INT_MAX);
    else if (last != AV_NOPTS_VALUE && t > last)
        av_reduce(&p->frame_dur.num, &p->frame_dur.den, (t - last) * p->tb.num, p->tb.den,
                  INT_MAX);
}

/* Take one frame of input i from its link into its queue.  Returns 1 when
 * a frame was taken, 0 when none is there (then it is requested, or the
 * input has ended), or an error. */
static int take(FSSIMPair *p, int i)
{
    AVFilterContext *ctx = p->ctx;
    AVFilterLink *link = ctx->inputs[i];
    FSSIMPairInput *in = &p->in[i];
    AVFrame *f;
    int64_t t, pts;
    int status, ret;

    if (in->eof)
        return 0;
    if ((ret = ff_inlink_consume_frame(link, &f)) < 0)
        return ret;
    if (!ret) {
        if (ff_inlink_acknowledge_status(link, &status, &pts))
            in->eof = 1;
        else
            ff_inlink_request_frame(link);
        return 0;
    }
    if (f->pts == AV_NOPTS_VALUE) {
        av_log(ctx, AV_LOG_ERROR, "A %s frame has no timestamp, so it cannot be paired by "
               "time. Give the frames timestamps first (e.g. setpts=N/FRAME_RATE/TB on every "
               "input), or use pairing=framesync.\n", ctx->input_pads[i].name);
        av_frame_free(&f);
        return AVERROR(EINVAL);
    }
    t = av_rescale_q(f->pts, link->time_base, p->tb);
    if (p->align) {
        if (!(p->start_known >> i & 1)) {
            p->start[i] = t;
            p->start_known |= 1u << i;
        }
        t -= p->start[i];
    }
    if (in->last != AV_NOPTS_VALUE && t <= in->last) {
        /* it cannot be the pair of a frame still to come */
        if (!p->warned_order++)
            av_log(ctx, AV_LOG_WARNING, "The %s input's timestamps go back (%"PRId64" after "
                   "%"PRId64", in %d/%d): a frame that does not come later than the one "
                   "before it is not scored.\n", ctx->input_pads[i].name, t, in->last,
                   p->tb.num, p->tb.den);
        count(p->started || p->head ? &p->cur : NULL, i, f, 1);
        av_frame_free(&f);
        return 1;
    }
    if (in->nb == FSSIM_PAIR_QUEUE) {
        av_log(ctx, AV_LOG_ERROR, "The %s input has more than %d frames within one frame of "
               "the reference: its rate is far higher. Bring it to the reference's rate "
               "first, e.g. with the fps filter.\n", ctx->input_pads[i].name,
               FSSIM_PAIR_QUEUE - 1);
        av_frame_free(&f);
        return AVERROR(EINVAL);
    }
    if (i == p->ref)
        update_duration(p, f, t);
    in->last = t;
    in->q[in->nb] = f;
    in->t[in->nb++] = t;
    return 1;
}

/* Whether input i's pair for the leading frame at t is known: a frame
 * lies past the interval, or as far after t as the nearest frame inside
 * it (a later frame cannot be nearer; of two as near the earlier wins), so
 * that a frame at exactly t is paired at once.  The run's final event
 * waits for the whole interval, to count every frame of it. */
static int known(const FSSIMPair *p, const FSSIMPairInput *in, int64_t t)
{
    int64_t best = INT64_MAX;

    if (!in->nb)
        return 0;
    if (interval_side(p, in->t[in->nb - 1], t) > 0)
        return 1;
    if (p->nb_events == p->final)
        return 0;
    for (int n = 0; n < in->nb; n++)
        best = FFMIN(best, FFABS(in->t[n] - t));
    return in->t[in->nb - 1] - t >= best;
}

/* Drop input i's frames before the interval of the leading frame at t,
 * unpaired.  Those inside the last event's interval (found after its pair
 * was known) count with it; before a segment's first interval they are
 * the previous segment's. */
static void drop_before(FSSIMPair *p, int i, int64_t t)
{
    FSSIMPairInput *in = &p->in[i];

    while (in->nb && interval_side(p, in->t[0], t) < 0) {
        FSSIMPairCount *c = !p->started ? (p->head ? &p->cur : NULL) :
                            interval_side(p, in->t[0], p->prev_t) ? &p->cur : &p->prev;
        drop_front(in, i, 1, c);
    }
}

/*
 * Make input i's frames around time t known: those before the interval
 * are dropped without a pair, and frames are taken until the pair is
 * known or the input has ended.  Returns 1 when known, 0 when waiting for
 * a frame, or an error.
 */
static int fill(FSSIMPair *p, int i, int64_t t)
{
    FSSIMPairInput *in = &p->in[i];
    int ret;

    for (;;) {
        drop_before(p, i, t);
        if (known(p, in, t))
            return 1;
        if ((ret = take(p, i)) <= 0)
            return ret < 0 ? ret : in->eof;
    }
}

/* The frame of input i paired with the leading frame at t: the nearest
 * inside its interval (of two as near, the earlier); the others inside it
 * known now have no pair.  NULL if none. */
static AVFrame *pick(FSSIMPair *p, int i, int64_t t)
{
    FSSIMPairInput *in = &p->in[i];
    int n = 0, best = -1;
    AVFrame *f;

    while (n < in->nb && !interval_side(p, in->t[n], t)) {
        if (best < 0 || FFABS(in->t[n] - t) < FFABS(in->t[best] - t))
            best = n;
        n++;
    }
    if (best < 0)
        return NULL;
    f = in->q[best];
    in->q[best] = NULL;
    count(&p->cur, i, f, 0);
    for (int j = 0; j < n; j++)
        if (in->q[j])
            count(&p->cur, i, in->q[j], 1);
    for (int j = 0; j < n; j++)
        av_frame_free(&in->q[j]);
    in->nb -= n;
    memmove(in->q, in->q + n, in->nb * sizeof(*in->q));
    memmove(in->t, in->t + n, in->nb * sizeof(*in->t));
    return f;
}

/* The counts since the last event go with this one. */
static void take_counts(FSSIMPair *p, FSSIMEvent *ev)
{
    ev->counted = 1;
    ev->cur  = p->cur;
    ev->prev = p->prev;
    memset(&p->cur, 0, sizeof(p->cur));
    memset(&p->prev, 0, sizeof(p->prev));
}

/* The end: what the inputs still hold lies after the last interval; it is
 * counted unless the run ends with its first input (shortest), where the
 * frames after that end are not the run's. */
static void finish(FSSIMPair *p)
{
    FSSIMEvent tail = { 0 };

    for (int i = 0; i < p->nb_in; i++)
        drop_front(&p->in[i], i, p->in[i].nb, p->stop_first ? NULL : &p->cur);
    take_counts(p, &tail);
    if (p->started && p->on_tail)
        p->on_tail(p->ctx, &tail);
    p->eof = 1;
}

/*
 * The leading input has ended: the other inputs' frames after its last
 * interval have no pair.  They are read to their end, so that a longer
 * input is counted, but no further than TAIL_SECONDS past the leading
 * input's last frame (an endless source).  Returns 0, or an error.
 */
static int drain_tail(FSSIMPair *p)
{
    AVFilterContext *ctx = p->ctx;
    const int64_t end = p->in[p->lead].last;
    int waiting = 0, ret;

    for (int i = 0; i < p->nb_in && !p->stop_first; i++) {
        FSSIMPairInput *in = &p->in[i];
        if (i == p->lead)
            continue;
        while (!in->eof) {
            if (in->nb && end != AV_NOPTS_VALUE &&
                av_compare_ts(in->t[in->nb - 1] - end, p->tb, TAIL_SECONDS,
                              (AVRational){ 1, 1 }) > 0) {
                av_log(ctx, AV_LOG_WARNING, "The %s input goes on for more than %d s after "
                       "the %s input's end; its frames after that are not counted.\n",
                       ctx->input_pads[i].name, TAIL_SECONDS, ctx->input_pads[p->lead].name);
                in->eof = 1;
                break;
            }
            drop_front(in, i, in->nb, &p->cur);
            if ((ret = take(p, i)) < 0)
                return ret;
            if (!ret && !in->eof) {
                waiting = 1;
                break;
            }
        }
    }
    if (!waiting)
        finish(p);
    return 0;
}

/* Put input i's paired frame f into the event. */
static void set_frame(FSSIMPair *p, FSSIMEvent *ev, int i, AVFrame *f, int disabled)
{
    if (!f)
        return;
    ev->partner |= 1u << i;
    if (disabled)
        return;
    if (i == p->ref) {
        ev->ref = f;
    } else {
        ev->dist[i] = f;
        ev->nb_dist++;
    }
}

/* Once every input's first frame is known: an input that starts half a
 * frame or more after or before the reference is paired from its first
 * frame, which is right for the containers' and the tool's shifts, and
 * wrong for an input that lacks its first frames: say so. */
static void check_starts(FSSIMPair *p)
{
    AVFilterContext *ctx = p->ctx;
    const unsigned all = (1u << p->nb_in) - 1;

    if (!p->align || p->checked_starts || (p->start_known & all) != all)
        return;
    p->checked_starts = 1;
    for (int i = 0; i < p->nb_in; i++) {
        const int64_t d = p->start[i] - p->start[p->ref];
        if (i == p->ref || !interval_side(p, FFABS(d), 0))
            continue;
        av_log(ctx, AV_LOG_WARNING, "The %s input's first frame is %s s %s the reference's: "
               "pairing=nearest pairs the inputs from their first frames (starts shifted by a "
               "container or an audio stream), so %s's first frame is scored against the "
               "reference's first. If %s lacks the frames of that time instead, pair the "
               "timestamps as they are with pairing=pts.\n", ctx->input_pads[i].name,
               av_ts2timestr(FFABS(d), &p->tb), d > 0 ? "after" : "before",
               ctx->input_pads[i].name, ctx->input_pads[i].name);
        return;
    }
}

/* One event: the leading input's oldest frame with its pairs.  Returns 1
 * when issued, 0 when waiting (frames requested) or ended, or an error. */
static int step(FSSIMPair *p)
{
    AVFilterContext *ctx = p->ctx;
    FSSIMPairInput *lead = &p->in[p->lead];
    AVFrame *frames[FSSIM_PAIR_MAX_INPUTS] = { NULL };
    FSSIMEvent ev = { 0 };
    int waiting = 0, ret;
    int64_t t;

    while (!lead->nb) {
        if ((ret = take(p, p->lead)) < 0)
            return ret;
        if (!ret)
            return lead->eof ? drain_tail(p) : 0;
    }
    t = lead->t[0];
    for (int i = 0; i < p->nb_in; i++) {
        if (i == p->lead)
            continue;
        if ((ret = fill(p, i, t)) < 0)
            return ret;
        waiting |= !ret;
    }
    if (waiting)
        return 0;
    check_starts(p);
    for (int i = 0; i < p->nb_in; i++) {
        if (i != p->lead && p->stop_first && p->in[i].eof && !p->in[i].nb) {
            finish(p);
            return 0;
        }
    }

    frames[p->lead] = pop_front(lead);
    count(&p->cur, p->lead, frames[p->lead], 0);
    for (int i = 0; i < p->nb_in; i++)
        if (i != p->lead)
            frames[i] = pick(p, i, t);
    ev.out = frames[p->lead];
    if (p->lead != p->ref)
        ev.dist[p->lead] = ev.out;
    else
        ev.ref = ev.out;
    for (int i = 0; i < p->nb_in; i++)
        if (i != p->lead)
            set_frame(p, &ev, i, frames[i], ctx->is_disabled);
    /* a pair's main frame is scored only with its reference frame */
    if (p->lead != p->ref)
        ev.nb_dist = !!ev.ref;
    take_counts(p, &ev);
    p->pts = ev.out->pts;
    p->started = 1;
    p->prev_t = t;
    p->nb_events++;
    ret = p->on_event(ctx, &ev);
    for (int i = 0; i < p->nb_in; i++)
        if (i != p->lead)
            av_frame_free(&frames[i]);
    return ret < 0 ? ret : 1;
}

int ff_fssim_pair_activate(FSSIMPair *p)
{
    AVFilterContext *ctx = p->ctx;
    int ret;

    FF_FILTER_FORWARD_STATUS_BACK_ALL(ctx->outputs[0], ctx);
    if (p->eof)
        return 0;
    ret = step(p);
    if (ret < 0)
        return ret;
    /* one event per call: the next may be ready */
    if (ret > 0 || p->eof)
        ff_filter_set_ready(ctx, 100);
    return 0;
}

void ff_fssim_pair_count(FSSIMPairStats *st, const FSSIMEvent *ev, int nb_in, int lead,
                         int prev)
{
    const FSSIMPairCount *c = prev ? &ev->prev : &ev->cur;
    const int ref = nb_in - 1;

    if (!ev->counted)
        return;
    for (int i = 0; i < nb_in; i++) {
        st->frames[i]  += c->seen[i];
        st->damaged[i] += c->damaged[i];
    }
    if (lead == ref) {
        /* a ladder: each reference frame has or lacks a frame of each rendition */
        for (int k = 0; k < ref; k++) {
            if (ev->out && !prev)
                st->paired[k] += ev->partner >> k & 1;
            if (ev->out && !prev)
                st->lacks[k] += !(ev->partner >> k & 1);
            st->lacks[k]  += c->unpaired[ref];
            st->excess[k] += c->unpaired[k];
        }
    } else {
        /* a pair: each main frame has or lacks a reference frame */
        if (ev->out && !prev) {
            st->paired[0] += ev->partner >> ref & 1;
            st->excess[0] += !(ev->partner >> ref & 1);
        }
        st->excess[0] += c->unpaired[0];
        st->lacks[0]  += c->unpaired[ref];
    }
}

void ff_fssim_pair_uninit(FSSIMPair *p)
{
    for (int i = 0; i < FSSIM_PAIR_MAX_INPUTS; i++)
        drop_front(&p->in[i], i, p->in[i].nb, NULL);
}
