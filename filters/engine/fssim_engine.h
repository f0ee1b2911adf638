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
 * fssim: the engine's set-up of a backend for a filter (fssim_engine.c):
 * the divisors of the sums, the resampler's axes, the backend's state and
 * init, fssim3d's ring report; and its teardown.
 */
#ifndef AVFILTER_FSSIM_ENGINE_H
#define AVFILTER_FSSIM_ENGINE_H

#include "fssim_backend.h"

/**
 * Set up e for the given backend and the configured formats (e->fmt,
 * e->dist[], e->nb_dist filled by the caller), compute the divisors and
 * the resampler's axes, allocate the backend's state and run its init.
 * fssim3d's ring is reported (its size, or that it did not fit).
 */
int  ff_fssim_engine_init(FSSIMEngine *e);
void ff_fssim_engine_uninit(FSSIMEngine *e);

#endif /* AVFILTER_FSSIM_ENGINE_H */
