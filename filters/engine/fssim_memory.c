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
 * fssim: the memory the host can still give this process, from the
 * kernel's own accounts: /proc/meminfo, and the limits of the process's
 * cgroup (v1 and v2).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "libavutil/avstring.h"
#include "libavutil/common.h"

#include "fssim_memory.h"

/* A number in a file of the kernel's (-1: none, "max", or no file). */
static int64_t read_number(const char *dir, const char *name)
{
    char path[1200], buf[64];
    int64_t v = -1;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (!(f = fopen(path, "r")))
        return -1;
    if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%"SCNd64, &v) != 1)
        v = -1;
    fclose(f);
    return v;
}

/* The least room left under the limits of a cgroup and its parents (-1:
 * no limit).  A v1 hierarchy without a limit reads about 2^63. */
static int64_t cgroup_room(const char *mount, const char *cgroup, const char *limit,
                           const char *usage)
{
    const size_t root = strlen(mount);
    char dir[1024];
    int64_t room = -1;

    snprintf(dir, sizeof(dir), "%s%s", mount, cgroup);
    for (;;) {
        const int64_t l = read_number(dir, limit), u = read_number(dir, usage);
        char *slash;
        if (l >= 0 && l < INT64_MAX / 2 && u >= 0)
            room = room < 0 ? FFMAX(l - u, 0) : FFMIN(room, FFMAX(l - u, 0));
        if (strlen(dir) <= root || !(slash = strrchr(dir + root, '/')))
            break;
        *slash = 0;
    }
    return room;
}

int64_t ff_fssim_host_memory(void)
{
    int64_t avail = -1, kb;
    char line[1024];
    FILE *f;

    if ((f = fopen("/proc/meminfo", "r"))) {
        while (fgets(line, sizeof(line), f))
            if (sscanf(line, "MemAvailable: %"SCNd64" kB", &kb) == 1)
                avail = kb * 1024;
        fclose(f);
    }
    /* "0::/path" (v2), "N:a,memory,b:/path" (v1) */
    if ((f = fopen("/proc/self/cgroup", "r"))) {
        while (fgets(line, sizeof(line), f)) {
            char *ctrl = strchr(line, ':'), *path = ctrl ? strchr(ctrl + 1, ':') : NULL;
            int64_t room = -1;
            if (!path)
                continue;
            *path++ = 0;
            path[strcspn(path, "\n")] = 0;
            if (!strcmp(ctrl + 1, "") && !strncmp(line, "0", 1))
                room = cgroup_room("/sys/fs/cgroup", path, "memory.max", "memory.current");
            else if (av_match_name("memory", ctrl + 1))
                room = cgroup_room("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes",
                                   "memory.usage_in_bytes");
            if (room >= 0)
                avail = avail < 0 ? room : FFMIN(avail, room);
        }
        fclose(f);
    }
    return avail;
}
