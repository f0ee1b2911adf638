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
 * fssim: the engine's set-up of a backend for a filter -- the divisors of
 * each algorithm's sums, the resampler's coefficients of every resampled
 * rendition, the backend's state and init -- and its teardown.
 */
#include <math.h>

#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/filters.h"

#include "fssim_engine.h"
#include "fssim_ring.h"

/* What each part of each component is divided by, from each algorithm's
 * row (fssim_algos.h). */
static void setup_divisors(FSSIMEngine *e)
{
    for (int c = 0; c < e->fmt.nb_comps; c++) {
        double *den = e->den[c];

        for (int i = 0; i < FSSIM_NB_PARTS; i++)
            den[i] = NAN;
        for (int a = 0; a < FSSIM_NB_ALGOS; a++)
            ff_fssim_algo(a)->divisors(e->opts, &e->fmt.comp[c], den);
    }
}

/* The coefficients of every resampled rendition, computed once and shared
 * by the backends, so that all of them produce the same samples.  A
 * rendition of another size or format is resampled, each component to the
 * reference's plane of that component and bit depth (an axis of the same
 * size is one tap: a copy); doc/algorithms.md#resampling. */
static int setup_resampling(FSSIMEngine *e)
{
    for (int k = 0; k < e->nb_dist; k++) {
        e->resample[k] = !ff_fssim_format_same_layout(&e->dist[k], &e->fmt);
        for (int c = 0; e->resample[k] && c < e->fmt.nb_comps; c++) {
            const FSSIMPlane *in = &e->dist[k].comp[c], *out = &e->fmt.comp[c];
            if (ff_fssim_ref_resample_axis_init(&e->axis[k][c][0], in->width, out->width,
                                                e->opts->scaler) < 0 ||
                ff_fssim_ref_resample_axis_init(&e->axis[k][c][1], in->height, out->height,
                                                e->opts->scaler) < 0)
                return AVERROR(ENOMEM);
        }
        if (e->resample[k])
            av_log(e->ctx, AV_LOG_VERBOSE, "%s: %dx%d %s resampled to %dx%d %s.\n",
                   e->ctx->input_pads[k].name, e->dist[k].width, e->dist[k].height,
                   av_get_pix_fmt_name(e->dist[k].pix_fmt), e->fmt.width, e->fmt.height,
                   av_get_pix_fmt_name(e->fmt.pix_fmt));
    }
    return 0;
}

int ff_fssim_engine_init(FSSIMEngine *e)
{
    const FSSIMBackend *be = e->backend;
    size_t ring_bytes = 0;
    int ret;

    setup_divisors(e);
    e->nb_slots = be->queue_depth + 1;
    e->ring_size = e->opts->depth ? e->opts->depth + be->ring_extra3d : 0;
    ret = setup_resampling(e);
    if (ret >= 0 && be->priv_size && !(e->priv = av_mallocz(be->priv_size)))
        ret = AVERROR(ENOMEM);
    if (ret >= 0)
        ret = be->init(e, &ring_bytes);
    if (e->ring_size)
        ff_fssim_ring_report(e, ret, ring_bytes);
    return ret;
}

void ff_fssim_engine_uninit(FSSIMEngine *e)
{
    if (e->backend && e->priv)
        e->backend->uninit(e);
    av_freep(&e->priv);
    ff_fssim_ring_release(e);
    for (int k = 0; k < FSSIM_MAX_DIST; k++)
        for (int c = 0; c < 4; c++)
            for (int i = 0; i < 2; i++)
                ff_fssim_ref_resample_axis_free(&e->axis[k][c][i]);
}
