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
 * fssim: fssim3d's rings of moments in the process's memories, checked
 * before they are allocated and reserved until their filter closes, and
 * what each cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/avstring.h"
#include "libavutil/common.h"
#include "libavutil/log.h"
#include "libavutil/thread.h"

#include "fssim_ring.h"

/*
 * The fssim3d rings of the process, per memory they are reserved in (the
 * host's, a device's).  A ring is checked before it is allocated, and its
 * pages are touched only as frames come: the host's MemAvailable, and
 * device counts such as Vulkan's budget, show it late or never.  So a
 * memory's room for another ring is what is available now, but at most
 * what was available when the first of the rings there was reserved, less
 * them all.  Checked and reserved under one lock: filter graphs may be
 * configured on several threads.
 */
#define MAX_MEMORIES 16

typedef struct RingMemory {
    char     name[64];
    int64_t  base;       /* available when the first live ring was reserved; -1: unknown */
    uint64_t reserved;   /* the live rings' bytes */
    int      rings;
} RingMemory;

static RingMemory memories[MAX_MEMORIES];
static AVMutex memories_lock = AV_MUTEX_INITIALIZER;

static RingMemory *find_memory(const char *name)
{
    RingMemory *unused = NULL;

    for (int i = 0; i < MAX_MEMORIES; i++) {
        if (memories[i].rings && !strcmp(memories[i].name, name))
            return &memories[i];
        if (!memories[i].rings && !unused)
            unused = &memories[i];
    }
    if (unused) {
        av_strlcpy(unused->name, name, sizeof(unused->name));
        unused->base     = -1;
        unused->reserved = 0;
    }
    return unused;
}

int ff_fssim_ring_fits(FSSIMEngine *e, size_t bytes, int64_t avail, const char *where,
                       const char *memory)
{
    const char *hook = getenv("FSSIM_MEMORY_AVAILABLE");
    int64_t room;
    RingMemory *m;
    int ret = 0;

    if (hook && *hook)
        avail = strtoll(hook, NULL, 0);
    ff_mutex_lock(&memories_lock);
    m = find_memory(memory);
    room = avail;
    if (m && m->rings && m->base >= 0) {
        const int64_t left = FFMAX(m->base - (int64_t)m->reserved, 0);
        room = room < 0 ? left : FFMIN(room, left);
    }
    if (room >= 0 && bytes > (uint64_t)room) {
        char others[160] = "";
        if (m && m->rings)
            snprintf(others, sizeof(others), " once the %.1f MiB reserved for the ring%s of "
                     "%d other fssim3d filter%s of this process %s counted",
                     m->reserved / 1048576.0, m->rings > 1 ? "s" : "", m->rings,
                     m->rings > 1 ? "s" : "", m->rings > 1 ? "are" : "is");
        av_log(e->ctx, AV_LOG_ERROR, "fssim3d: the ring of %d moment sets needs %.1f MiB, "
               "but %.1f MiB of %s is available%s. Use a smaller depth or smaller frames%s.\n",
               e->ring_size, bytes / 1048576.0, room / 1048576.0, where, others,
               others[0] ? ", or score with one filter at a time" : "");
        e->ring_refused = 1;
        ret = AVERROR(ENOMEM);
    } else if (m) {
        if (!m->rings)
            m->base = avail;
        m->reserved += bytes;
        m->rings++;
        e->ring_memory   = m - memories + 1;
        e->ring_reserved = bytes;
    }
    ff_mutex_unlock(&memories_lock);
    return ret;
}

void ff_fssim_ring_release(FSSIMEngine *e)
{
    RingMemory *m;

    if (!e->ring_memory)
        return;
    ff_mutex_lock(&memories_lock);
    m = &memories[e->ring_memory - 1];
    m->reserved -= e->ring_reserved;
    m->rings--;
    ff_mutex_unlock(&memories_lock);
    e->ring_memory = 0;
}

/* fssim3d: what the ring of moments costs, or that it did not fit. */
void ff_fssim_ring_report(const FSSIMEngine *e, int ret, size_t bytes)
{
    /* other failures (a GPU backend's device or module) have said why, and
     * so has a ring refused for the memory there is */
    if (ret == AVERROR(ENOMEM) && !e->ring_refused)
        av_log(e->ctx, AV_LOG_ERROR, "Could not allocate the ring of %d moment sets "
               "(%.1f MiB). Use a smaller depth or smaller frames.\n", e->ring_size,
               bytes / 1048576.0);
    else if (ret >= 0)
        av_log(e->ctx, AV_LOG_INFO, "fssim3d: ring of %d moment sets, %.1f MiB (%s, %s), "
               "output delayed by %d frames\n", e->ring_size, bytes / 1048576.0,
               e->backend->name, e->backend->storage3d, e->opts->depth / 2);
}
