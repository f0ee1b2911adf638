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
 * The raw planes the reference's command-line front ends read
 * (metrics_cli.c, vmaf_cli.c): 16-bit little-endian samples, no padding.
 */
#ifndef FSSIM_TEST_RAW_PLANE_H
#define FSSIM_TEST_RAW_PLANE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The n samples of path; prog names the program in the error, which ends
 * it with status 2. */
static inline uint16_t *read_plane(const char *prog, const char *path, size_t n)
{
    uint16_t *v = malloc(n * sizeof(*v));
    unsigned char *raw = malloc(n * 2);
    FILE *f = fopen(path, "rb");

    if (!v || !raw || !f || fread(raw, 2, n, f) != n) {
        fprintf(stderr, "%s: cannot read %zu samples from %s\n", prog, n, path);
        exit(2);
    }
    fclose(f);
    for (size_t i = 0; i < n; i++)
        v[i] = (uint16_t)(raw[2 * i] | raw[2 * i + 1] << 8);
    free(raw);
    return v;
}

#endif /* FSSIM_TEST_RAW_PLANE_H */
