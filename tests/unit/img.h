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
 * The test planes of the reference's unit tests (test_ref.c,
 * test_metrics.c): sample values of one plane, a seeded generator,
 * picture-like content, and a plane laid out as the reference reads it.
 * A test defines IMG_RNG_SEED before it includes this header, so that each
 * test's planes are its own and stay the same from run to run.
 */
#ifndef FSSIM_TEST_IMG_H
#define FSSIM_TEST_IMG_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fssim_ref.h"
#include "tap.h"

#ifndef IMG_RNG_SEED
#error "define IMG_RNG_SEED, the test's seed of rnd(), before including img.h"
#endif

/* Sample values of one plane, row-major, no padding. */
typedef struct Img {
    int w, h, depth;
    unsigned *v;
} Img;

static inline Img img_new(int w, int h, int depth)
{
    Img im = { w, h, depth, calloc((size_t)w * h, sizeof(unsigned)) };
    if (!im.v)
        tap_bail("out of memory");
    return im;
}

static inline unsigned px(const Img *im, int x, int y)
{
    return im->v[(size_t)y * im->w + x];
}

static uint64_t rng_state = IMG_RNG_SEED;

/* 0 .. n - 1, from a 64-bit linear congruential generator. */
static inline unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng_state >> 33) % n);
}

/* Smooth picture-like content, gradients and waves of frequencies fx
 * (across), fy (down) and fd (diagonal), plus noise of +-noise 8-bit
 * steps. */
static inline Img img_waves(int w, int h, int depth, int seed, int noise, double fx, double fy,
                            double fd)
{
    Img im = img_new(w, h, depth);
    const double L = (double)((1u << depth) - 1);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double v = 0.5 + 0.3 * sin(fx * x + 0.7 * seed) * cos(fy * y - 0.3 * seed) +
                       0.15 * sin(fd * (x + 2 * y) + seed);
            v = v * L + ((double)rnd(2 * noise + 1) - noise) * (L / 255.0);
            im.v[(size_t)y * w + x] = v < 0 ? 0 : v > L ? (unsigned)L : (unsigned)lrint(v);
        }
    return im;
}

static inline Img img_from(int w, int h, int depth, const unsigned *vals)
{
    Img im = img_new(w, h, depth);
    memcpy(im.v, vals, sizeof(unsigned) * (size_t)w * h);
    return im;
}

/*
 * Lay an image out in memory as a FSSIMRefPlane: containers of `bytes`
 * bytes, `step` containers from one sample to the next (the containers in
 * between hold junk, as the other chroma component of a semi-planar
 * format), values shifted left by `shift` (MSB-aligned like P010), `pad`
 * junk bytes at the end of each row and `lead` junk containers before the
 * first sample.  The buffer is kept in *store for freeing.
 */
static inline FSSIMRefPlane mkplane(const Img *im, int bytes, int step, int shift, int pad,
                                    int lead, void **store)
{
    const ptrdiff_t linesize = (ptrdiff_t)(im->w * step + lead) * bytes + pad;
    uint8_t *buf = malloc((size_t)linesize * im->h + 16);
    if (!buf)
        tap_bail("out of memory");
    for (size_t i = 0; i < (size_t)linesize * im->h + 16; i++)
        buf[i] = (uint8_t)(0xA5 ^ (i * 37));
    for (int y = 0; y < im->h; y++) {
        uint8_t *row = buf + y * linesize + (size_t)lead * bytes;
        for (int x = 0; x < im->w; x++) {
            const unsigned v = px(im, x, y) << shift;
            if (bytes == 1)
                row[(size_t)x * step] = (uint8_t)v;
            else
                ((uint16_t *)row)[(size_t)x * step] = (uint16_t)v;
        }
    }
    *store = buf;
    return (FSSIMRefPlane) {
        .data = buf + (size_t)lead * bytes, .linesize = linesize, .width = im->w,
        .height = im->h, .bytes = bytes, .step = step, .shift = shift,
    };
}

/* Planar layout: 1 byte up to 8 bits, else 2; 6 junk bytes after each row. */
static inline FSSIMRefPlane planar(const Img *im, void **store)
{
    return mkplane(im, im->depth > 8 ? 2 : 1, 1, 0, 6, 0, store);
}

#endif /* FSSIM_TEST_IMG_H */
