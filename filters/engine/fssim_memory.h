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
 * fssim: the memory the host can still give this process (fssim_memory.c),
 * which bounds a CPU backend's fssim3d ring.
 */
#ifndef AVFILTER_FSSIM_MEMORY_H
#define AVFILTER_FSSIM_MEMORY_H

#include <stdint.h>

/** The memory the host can still give this process: its MemAvailable, or
 *  the room left under its cgroup's limits (v2 memory.max - memory.current,
 *  v1 memory.limit_in_bytes - memory.usage_in_bytes) where that is less;
 *  -1 where neither is known. */
int64_t ff_fssim_host_memory(void);

#endif /* AVFILTER_FSSIM_MEMORY_H */
