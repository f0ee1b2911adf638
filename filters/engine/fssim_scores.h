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
 * fssim: the one step from a backend's sums to scores (fssim_scores.c),
 * with each algorithm's divisors and score from its row of the table of
 * algorithms, the planes' All, dB and PSNR's MSE weighting: the same for
 * every backend.
 */
#ifndef AVFILTER_FSSIM_SCORES_H
#define AVFILTER_FSSIM_SCORES_H

#include "../output/fssim_output.h"
#include "fssim_backend.h"

/** The one sums-to-scores step, for the renditions in present (bit k). */
void ff_fssim_scores(const FSSIMEngine *e, const FSSIMSums *sums, unsigned present,
                     FSSIMScores *sc);

#endif /* AVFILTER_FSSIM_SCORES_H */
