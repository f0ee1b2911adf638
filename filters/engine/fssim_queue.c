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
 * fssim: the one queue of frames waiting for their scores.
 */
#include "libavfilter/filters.h"

#include "fssim_queue.h"
#include "fssim_scores.h"

int ff_fssim_queue_init(FSSIMQueue *q, const FSSIMEngine *e)
{
    q->depth = e->nb_slots - 1;
    q->fifo  = av_fifo_alloc2(e->nb_slots + 1, sizeof(FSSIMPending), AV_FIFO_FLAG_AUTO_GROW);
    return q->fifo ? 0 : AVERROR(ENOMEM);
}

int ff_fssim_queue_slot(FSSIMQueue *q, const FSSIMEngine *e)
{
    const int slot = q->next_slot;

    /* drain() keeps at most depth frames waiting, so this slot's last job
     * was collected: nb_slots jobs were started since */
    q->next_slot = (q->next_slot + 1) % e->nb_slots;
    return slot;
}

int ff_fssim_queue_push(FSSIMQueue *q, AVFrame *frame, int slot, unsigned present)
{
    FSSIMPending p = { frame, slot, present };
    int ret = av_fifo_write(q->fifo, &p, 1);

    if (ret < 0)
        av_frame_free(&frame);
    return ret;
}

/* Send one frame on.  A status on the output link is our own EOF when
 * flushing (framesync set it; frames sent now still go out before it), or
 * the output closed downstream (-frames:v reached), and then the frame is
 * no longer wanted. */
static int send_frame(AVFilterContext *ctx, AVFrame *frame, int flush, int send)
{
    AVFilterLink *outlink = ctx->outputs[0];

    if (!send || (!flush && ff_outlink_get_status(outlink))) {
        av_frame_free(&frame);
        return 0;
    }
    return ff_filter_frame(outlink, frame);
}

int ff_fssim_queue_drain(FSSIMQueue *q, FSSIMEngine *e, FSSIMOutput *out, int flush,
                         int send)
{
    AVFilterContext *ctx = e->ctx;
    FSSIMPending p;
    int sent = 0, ret;

    while (q->fifo && av_fifo_peek(q->fifo, &p, 1, 0) >= 0) {
        if (p.slot >= 0) {
            const int full = av_fifo_can_read(q->fifo) > (size_t)q->depth;
            FSSIMSums sums;
            FSSIMScores sc;

            ret = e->backend->collect(e, p.slot, flush || full, &sums);
            if (!ret)
                break;
            av_fifo_drain2(q->fifo, 1);
            if (ret > 0) {
                ff_fssim_scores(e, &sums, p.present, &sc);
                ret = ff_fssim_output_frame(ctx, out, p.frame, &sc);
            }
            if (ret < 0) {
                av_frame_free(&p.frame);
                return ret;
            }
        } else {
            av_fifo_drain2(q->fifo, 1);
        }
        ret = send_frame(ctx, p.frame, flush, send);
        if (ret < 0)
            return ret;
        sent++;
    }
    return sent;
}

void ff_fssim_queue_uninit(FSSIMQueue *q)
{
    FSSIMPending p;

    while (q->fifo && av_fifo_read(q->fifo, &p, 1) >= 0)
        av_frame_free(&p.frame);
    av_fifo_freep2(&q->fifo);
}
