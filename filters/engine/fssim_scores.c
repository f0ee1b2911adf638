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
 * fssim: the one step from a backend's sums to scores, the same for every
 * backend.
 */
#include <string.h>

#include "fssim_scores.h"

/* All of one rendition and algorithm: the planes weighted by their sample
 * counts, divided once at the end, so that planes that all score exactly 1
 * give exactly 1 (and dB inf, as FFmpeg's ssim prints), which the rounded
 * shares of FSSIMFormat.weight (2/3 + 1/6 + 1/6 < 1) would not. */
static double weighted_all(const FSSIMFormat *f, const double *v)
{
    double all = 0.0, total = 0.0;

    for (int c = 0; c < f->nb_comps; c++) {
        const double n = (double)f->comp[c].width * f->comp[c].height;
        all   += n * v[c];
        total += n;
    }
    return all / total;
}

/* A score in dB (psnr): each plane's MSE beside it, and All the PSNR of
 * FFmpeg psnr's weighting of the planes' MSE. */
static void score_db(const FSSIMEngine *e, const FSSIMAlgo *al,
                     const FSSIMSum (*v)[FSSIM_NB_PARTS], double *score, double *mse)
{
    const FSSIMFormat *f = &e->fmt;
    const int n = f->nb_comps;
    int w[4], h[4];

    for (int c = 0; c < n; c++) {
        w[c] = f->comp[c].width;
        h[c] = f->comp[c].height;
        mse[c] = ff_fssim_ref_mse(v[c][al->first_part].u, w[c], h[c]);
    }
    mse[n]   = ff_fssim_ref_mse_all(mse, w, h, n);
    score[n] = ff_fssim_ref_psnr_from_mse(mse[n], f->depth);
}

void ff_fssim_scores(const FSSIMEngine *e, const FSSIMSums *sums, unsigned present,
                     FSSIMScores *sc)
{
    const FSSIMFormat *f = &e->fmt;
    const int n = f->nb_comps;

    memset(sc, 0, sizeof(*sc));
    for (int k = 0; k < e->nb_dist; k++) {
        if (!(present & (1u << k)))
            continue;
        sc->scored[k] = 1;
        for (int a = 0; a < FSSIM_NB_ALGOS; a++) {
            const FSSIMAlgo *al = ff_fssim_algo(a);
            if (!(e->opts->algos & FSSIM_BIT(a)))
                continue;
            for (int c = 0; c < n; c++)
                sc->score[k][a][c] = al->score(al, sums->v[k][c], e->den[c], f->depth);
            if (al->db)
                sc->score[k][a][n] = weighted_all(f, sc->score[k][a]);
            else
                score_db(e, al, sums->v[k], sc->score[k][a], sc->mse[k]);
        }
    }
}
