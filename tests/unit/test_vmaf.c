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
 * Unit tests of the CPU reference's vmaf_ssim and vmaf_msssim
 * (filters/core/ref_vmaf.c, doc/algorithms.md#vmaf_ssim), in TAP: the decimation
 * factor and sizes, the decimation's mirrored borders on a hand-worked
 * plane, the sample scaling of deep planes, symmetry, identical planes,
 * bands against a whole plane, the size limits.  The agreement with
 * libvmaf's definition is checked by tests/peers/test_vmaf.py.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fssim_ref.h"
#include "tap.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng_state >> 33) % n);
}

/* Smooth content plus noise, samples of depth bits, times mul. */
static uint16_t *content(int w, int h, int depth, int seed, int noise, unsigned mul)
{
    uint16_t *v = malloc((size_t)w * h * sizeof(*v));
    const double L = (double)((1u << depth) - 1);

    if (!v)
        tap_bail("out of memory");
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double s = 0.5 + 0.3 * sin(0.11 * x + 0.5 * seed) * cos(0.07 * y - 0.2 * seed);
            long q = lrint(s * L) + (noise ? (long)rnd(2 * noise + 1) - noise : 0);
            q = q < 0 ? 0 : q > (long)L ? (long)L : q;
            v[(size_t)y * w + x] = (uint16_t)(q * mul);
        }
    return v;
}

static FSSIMRefPlane plane16(const uint16_t *v, int w, int h)
{
    return (FSSIMRefPlane) { (const uint8_t *)v, 2 * (ptrdiff_t)w, w, h, 2, 1, 0 };
}

static void test_scale(void)
{
    static const int sides[][2] = { { 383, 1 }, { 384, 2 }, { 639, 2 }, { 640, 3 },
                                     { 720, 3 }, { 1080, 4 }, { 2160, 8 }, { 4320, 17 },
                                     { 100, 1 } };
    int dw, dh;

    for (size_t i = 0; i < sizeof(sides) / sizeof(sides[0]); i++)
        tap_ok(ff_fssim_ref_vmaf_scale(4 * sides[i][0], sides[i][0]) == sides[i][1],
               "scale of a plane whose smaller side is %d: %d (round(%d / 256), at least 1)",
               sides[i][0], sides[i][1], sides[i][0]);
    tap_ok(ff_fssim_ref_vmaf_scale(1920, 1080) == ff_fssim_ref_vmaf_scale(1080, 1920),
           "the scale follows the smaller side, whichever it is");
    ff_fssim_ref_vmaf_decimated_size(641, 387, 2, &dw, &dh);
    tap_ok(dw == 321 && dh == 194, "641x387 by 2: 321x194 (w / f + (w & 1)), got %dx%d",
           dw, dh);
    ff_fssim_ref_vmaf_decimated_size(1920, 1080, 4, &dw, &dh);
    tap_ok(dw == 480 && dh == 270, "1920x1080 by 4: 480x270, got %dx%d", dw, dh);
    ff_fssim_ref_vmaf_decimated_size(1281, 721, 3, &dw, &dh);
    tap_ok(dw == 428 && dh == 241, "1281x721 by 3: 428x241, got %dx%d", dw, dh);
    ff_fssim_ref_vmaf_scale_size(641, 387, 4, &dw, &dh);
    tap_ok(dw == 41 && dh == 25, "scale 4 of 641x387: 41x25 (halved, rounding up), got %dx%d",
           dw, dh);
}

/* A 4x5 plane by 2: output (x, y) averages samples (2x - 1 .. 2x, 2y - 1 ..
 * 2y), -1 mirrored to 0, and the odd height's extra row reads rows 3 and 4;
 * each product is a quarter of a sample (exact), each sum exact. */
static void test_decimation_borders(void)
{
    static const uint16_t v[5][4] = {
        { 10, 20, 30, 40 }, { 50, 60, 70, 80 }, { 90, 100, 110, 120 },
        { 130, 140, 150, 160 }, { 170, 180, 190, 200 },
    };
    const FSSIMRefPlane p = plane16(&v[0][0], 4, 5);
    /* 4 / 2 + 0 = 2 wide, 5 / 2 + 1 = 3 high */
    const float want[3][2] = {
        { 10, (20 + 30 + 20 + 30) / 4.0f },
        { (50 + 50 + 90 + 90) / 4.0f, (60 + 70 + 100 + 110) / 4.0f },
        { (130 + 130 + 170 + 170) / 4.0f, (140 + 150 + 180 + 190) / 4.0f },
    };
    float got[3][2];
    int bad = 0;

    ff_fssim_ref_vmaf_load_rows(&p, 8, 2, 0, 3, &got[0][0]);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 2; x++)
            bad += got[y][x] != want[y][x];
    tap_ok(!bad, "decimation by 2 of a 4x5 plane: mirrored borders, the odd height's extra "
           "row (%d wrong)", bad);

    /* 10 bits: a sample is divided by 4 first */
    {
        uint16_t v10[5][4];
        float got10[3][2];
        const FSSIMRefPlane p10 = plane16(&v10[0][0], 4, 5);
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 4; x++)
                v10[y][x] = (uint16_t)(4 * v[y][x]);
        ff_fssim_ref_vmaf_load_rows(&p10, 10, 2, 0, 3, &got10[0][0]);
        tap_ok(!memcmp(got, got10, sizeof(got)), "a 10-bit plane of four times the samples "
               "decimates to the same floats");
    }
}

static void test_values(void)
{
    const int w = 401, h = 389;
    const uint64_t seed = 0x0123456789ABCDEFull;
    uint16_t *a, *a10, *b, *b10;
    double v, m;

    /* the same noise twice: a10 holds four times a's samples */
    rng_state = seed;
    a = content(w, h, 8, 1, 6, 1);
    rng_state = seed;
    a10 = content(w, h, 8, 1, 6, 4);
    b   = content(w, h, 8, 2, 0, 1);
    b10 = content(w, h, 8, 2, 0, 4);
    {
        const FSSIMRefPlane pa = plane16(a, w, h), pb = plane16(b, w, h);
        const FSSIMRefPlane pa10 = plane16(a10, w, h), pb10 = plane16(b10, w, h);
        v = ff_fssim_ref_vmaf_ssim(&pa, &pb, 8);
        m = ff_fssim_ref_vmaf_msssim(&pa, &pb, 8);
        tap_ok(v > 0.5 && v < 1.0, "vmaf_ssim of a noisy, shifted copy lies in (0.5, 1): %.9f",
               v);
        tap_ok(m > 0.5 && m < 1.0, "vmaf_msssim likewise: %.9f", m);
        tap_same(ff_fssim_ref_vmaf_ssim(&pa10, &pb10, 10), v,
                 "vmaf_ssim of 10-bit planes of four times the samples: the same value");
        tap_same(ff_fssim_ref_vmaf_msssim(&pa10, &pb10, 10), m, "vmaf_msssim likewise");
        tap_same(ff_fssim_ref_vmaf_ssim(&pb, &pa, 8), v, "vmaf_ssim is symmetric, bit for bit");
        tap_same(ff_fssim_ref_vmaf_msssim(&pb, &pa, 8), m,
                 "vmaf_msssim is symmetric, bit for bit");
        tap_same((double)(float)v, v, "vmaf_ssim is a float, as libvmaf reports it");
        /* identical planes: 1 up to float rounding (l's numerator is a
         * double, its denominator a float, as in libvmaf) */
        tap_close(ff_fssim_ref_vmaf_ssim(&pb, &pb, 8), 1.0, 1e-6,
                  "identical planes: vmaf_ssim 1 within 1e-6");
        tap_close(ff_fssim_ref_vmaf_msssim(&pb, &pb, 8), 1.0, 1e-6,
                  "identical planes: vmaf_msssim 1 within 1e-6");
    }
    free(a);
    free(b);
    free(a10);
    free(b10);
}

/* Bands of 16 rows, their sums added in order, against one band. */
static void test_bands(void)
{
    const int w = 97, h = 75, ow = w - 10, oh = h - 10;
    uint16_t *a = content(w, h, 8, 3, 9, 1), *b = content(w, h, 8, 4, 0, 1);
    const FSSIMRefPlane pa = plane16(a, w, h), pb = plane16(b, w, h);
    float *fa = malloc(sizeof(float) * w * h), *fb = malloc(sizeof(float) * w * h);
    float *scratch = malloc(ff_fssim_ref_vmaf_ssim_scratch_size(w, oh));
    double whole[FSSIM_REF_VMAF_NB_SUMS] = { 0 }, banded[FSSIM_REF_VMAF_NB_SUMS] = { 0 };
    double worst = 0.0;

    if (!fa || !fb || !scratch)
        tap_bail("out of memory");
    ff_fssim_ref_vmaf_load_rows(&pa, 8, 1, 0, h, fa);
    ff_fssim_ref_vmaf_load_rows(&pb, 8, 1, 0, h, fb);
    ff_fssim_ref_vmaf_ssim_rows(fa, fb, w, h, 0, oh, scratch, whole);
    for (int y = 0; y < oh; y += 16) {
        double band[FSSIM_REF_VMAF_NB_SUMS] = { 0 };
        ff_fssim_ref_vmaf_ssim_rows(fa, fb, w, h, y, y + 16 < oh ? y + 16 : oh, scratch, band);
        for (int i = 0; i < FSSIM_REF_VMAF_NB_SUMS; i++)
            banded[i] += band[i];
    }
    for (int i = 0; i < FSSIM_REF_VMAF_NB_SUMS; i++)
        worst = fmax(worst, fabs(banded[i] - whole[i]) / whole[i]);
    tap_ok(worst < 1e-14, "bands of 16 rows add up to the whole plane's sums (relative "
           "%.2g); %dx%d positions", worst, ow, oh);
    tap_same(ff_fssim_ref_vmaf_mean(whole[FSSIM_REF_VMAF_LCS], (double)ow * oh),
             ff_fssim_ref_vmaf_ssim(&pa, &pb, 8), "one band is the whole-plane score");
    free(a);
    free(b);
    free(fa);
    free(fb);
    free(scratch);
}

static void test_limits(void)
{
    uint16_t *a = content(200, 200, 8, 5, 4, 1), *b = content(200, 200, 8, 6, 4, 1);
    float l[5], c[5], s[5];
    FSSIMRefPlane pa = plane16(a, 176, 176), pb = plane16(b, 176, 176);

    pa.linesize = pb.linesize = 400;
    tap_ok(ff_fssim_ref_vmaf_msssim_scales(&pa, &pb, 8, l, c, s) == 0,
           "vmaf_msssim scores a 176x176 plane");
    pa.width = pb.width = 175;
    tap_ok(ff_fssim_ref_vmaf_msssim_scales(&pa, &pb, 8, l, c, s) == -EINVAL,
           "vmaf_msssim refuses a 175-wide plane (its fifth scale, halved down, is under 11)");
    pa.width = pb.width = 176;
    pa.height = pb.height = 175;
    tap_ok(ff_fssim_ref_vmaf_msssim_scales(&pa, &pb, 8, l, c, s) == -EINVAL,
           "and a 175-high one");
    pa.width = pb.width = pa.height = pb.height = 11;
    tap_ok(!isnan(ff_fssim_ref_vmaf_ssim(&pa, &pb, 8)), "vmaf_ssim scores an 11x11 plane "
           "(one position)");
    pa.width = pb.width = 10;
    tap_ok(isnan(ff_fssim_ref_vmaf_ssim(&pa, &pb, 8)), "and nothing of a 10-wide one (NaN)");
    free(a);
    free(b);
}

int main(void)
{
    test_scale();
    test_decimation_borders();
    test_values();
    test_bands();
    test_limits();
    return tap_done();
}
