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
 * fssim: fssim3d's rings of moments in the process's memories
 * (fssim_ring.c): whether a filter's ring fits the memory it is to be
 * allocated in, counting the other filters' rings there, and what it cost.
 */
#ifndef AVFILTER_FSSIM_RING_H
#define AVFILTER_FSSIM_RING_H

#include <stddef.h>
#include <stdint.h>

#include "fssim_backend.h"

/**
 * fssim3d, at configuration: whether the ring, bytes, fits in the memory
 * memory ("host", or a name of the device) described as where ("host
 * memory", "device memory"), of which avail bytes are available now (< 0:
 * unknown).  The rings other fssim3d filters of the process hold there are
 * counted: the room is at most what was available when the first of them
 * was reserved, less all of them, since their pages may not show in avail
 * yet.  If the ring fits it is reserved there until ff_fssim_engine_uninit()
 * releases it; if not, says so with both sizes and returns AVERROR(ENOMEM):
 * the ring is refused before an allocation that would succeed only to be
 * killed later.
 * FSSIM_MEMORY_AVAILABLE (bytes), a hook for tests, takes avail's place.
 */
int  ff_fssim_ring_fits(FSSIMEngine *e, size_t bytes, int64_t avail, const char *where,
                        const char *memory);

/** Give the ring's reservation back (none: nothing). */
void ff_fssim_ring_release(FSSIMEngine *e);

/** Report the ring: its size and where it is, or, where the backend's init
 *  failed for want of memory, that it could not be allocated. */
void ff_fssim_ring_report(const FSSIMEngine *e, int ret, size_t bytes);

#endif /* AVFILTER_FSSIM_RING_H */
