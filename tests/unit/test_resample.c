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
 * Unit tests of the resampler (filters/core/ref_resample.c,
 * doc/algorithms.md#resampling), in TAP: sizes, and bit depths brought to
 * the reference's.
 *
 * Expected values are worked out by hand next to each literal, or are
 * properties the definition guarantees (identity, constant planes,
 * coefficient sums); the filtering is also checked against a direct 2-D
 * evaluation written here, which reads the coefficient tables but none of
 * the reference's loops.  The tables themselves are checked sample for
 * sample against an independent numpy implementation by
 * tests/peers/test_resample.py.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fssim_ref.h"
#include "tap.h"

static const char *const scaler_names[] = { "bicubic", "bilinear", "lanczos" };

/* ---- planes ------------------------------------------------------------- */

typedef struct Img {
    int w, h;
    uint16_t *v;
} Img;

static Img img_new(int w, int h)
{
    Img im = { w, h, calloc((size_t)w * h, sizeof(uint16_t)) };
    if (!im.v)
        tap_bail("out of memory");
    return im;
}

static FSSIMRefPlane img_plane(const Img *im)
{
    FSSIMRefPlane p = { (const uint8_t *)im->v, (ptrdiff_t)im->w * 2, im->w, im->h, 2, 1, 0 };
    return p;
}

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng_state >> 33) % n);
}

static void axes_init(FSSIMRefResampleAxis *ax, FSSIMRefResampleAxis *ay,
                      int iw, int ih, int ow, int oh, int scaler)
{
    if (ff_fssim_ref_resample_axis_init(ax, iw, ow, scaler) < 0 ||
           ff_fssim_ref_resample_axis_init(ay, ih, oh, scaler) < 0)
           tap_bail("axis init failed");
}

/* The whole output plane through the API under test, from in_depth bits
 * to depth bits. */
static Img resample_depths(const Img *in, int ow, int oh, int scaler, int in_depth, int depth)
{
    FSSIMRefResampleAxis ax, ay;
    const FSSIMRefPlane src = img_plane(in);
    Img out = img_new(ow, oh);
    int64_t *tmp;

    axes_init(&ax, &ay, in->w, in->h, ow, oh, scaler);
    tmp = malloc(sizeof(*tmp) * ff_fssim_ref_resample_tmp_size(&ax, &ay));
    if (!tmp)
        tap_bail("out of memory");
    ff_fssim_ref_resample_rows(&src, &ax, &ay, in_depth, depth, 0, oh, out.v,
                               (ptrdiff_t)ow * 2, tmp);
    free(tmp);
    ff_fssim_ref_resample_axis_free(&ax);
    ff_fssim_ref_resample_axis_free(&ay);
    return out;
}

/* The same at one bit depth. */
static Img resample(const Img *in, int ow, int oh, int scaler, int depth)
{
    return resample_depths(in, ow, oh, scaler, depth, depth);
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Direct 2-D evaluation from the tables: v = sum_j sum_i cy_j cx_i s, then
 * the rounding of the definition written as a floor division by
 * 2^(28 - (depth - in_depth)).  *clamped counts the outputs that fell
 * outside [0, L] before clamping. */
static Img naive(const Img *in, const FSSIMRefResampleAxis *ax, const FSSIMRefResampleAxis *ay,
                 int in_depth, int depth, int *clamped)
{
    const int64_t L = (INT64_C(1) << depth) - 1;
    const int64_t one = INT64_C(1) << (28 - (depth - in_depth));
    Img out = img_new(ax->out, ay->out);
    *clamped = 0;
    for (int y = 0; y < ay->out; y++)
        for (int x = 0; x < ax->out; x++) {
            int64_t v = 0, r;
            for (int j = 0; j < ay->ntaps; j++)
                for (int i = 0; i < ax->ntaps; i++) {
                    const int sx = clampi(ax->start[x] + i, 0, in->w - 1);
                    const int sy = clampi(ay->start[y] + j, 0, in->h - 1);
                    v += (int64_t)ay->coef[y * ay->ntaps + j] * ax->coef[x * ax->ntaps + i] *
                         in->v[sy * in->w + sx];
                }
            v += one / 2;
            r = v >= 0 ? v / one : -((-v + one - 1) / one);
            *clamped += r < 0 || r > L;
            out.v[y * out.w + x] = (uint16_t)(r < 0 ? 0 : r > L ? L : r);
        }
    return out;
}

static int img_equal(const Img *a, const Img *b, int *first_x, int *first_y)
{
    for (int y = 0; y < a->h; y++)
        for (int x = 0; x < a->w; x++)
            if (a->v[y * a->w + x] != b->v[y * b->w + x]) {
                *first_x = x;
                *first_y = y;
                return 0;
            }
    return 1;
}

/* ---- hand-checked cases ------------------------------------------------- */

static int axis_is(const FSSIMRefResampleAxis *a, int ntaps, const int *start, const int *coef)
{
    if (a->ntaps != ntaps)
        return 0;
    for (int x = 0; x < a->out; x++) {
        if (a->start[x] != start[x])
            return 0;
        for (int k = 0; k < ntaps; k++)
            if (a->coef[x * ntaps + k] != coef[x * ntaps + k])
                return 0;
    }
    return 1;
}

static void test_hand(void)
{
    FSSIMRefResampleAxis a;

    /* Bilinear 2 -> 4 (f = 1, radius 1): u = (x + 0.5) * 2 / 4 - 0.5 =
     * -0.25, 0.25, 0.75, 1.25.  x = 0: taps -1 (|d| 0.75, weight 0.25) and
     * 0 (|d| 0.25, weight 0.75), so 4096 and 12288 (sum already 16384);
     * x = 1: 0 (0.75) and 1 (0.25); x = 2: 0 (0.25) and 1 (0.75);
     * x = 3: 1 (0.75) and 2 (0.25). */
    {
        const int start[] = { -1, 0, 0, 1 };
        const int coef[]  = { 4096, 12288, 12288, 4096, 4096, 12288, 12288, 4096 };
        ff_fssim_ref_resample_axis_init(&a, 2, 4, FSSIM_REF_SCALER_BILINEAR);
        tap_ok(axis_is(&a, 2, start, coef), "bilinear 2->4: taps and weights worked out by hand");
        ff_fssim_ref_resample_axis_free(&a);
    }

    /* Bilinear 2 -> 1: f = 2, u = 1 * 2 / 1 - 0.5 = 0.5, taps |i - 0.5| < 2:
     * i = -1..2 at |d| 1.5, 0.5, 0.5, 1.5, weights 1 - |d|/2 = 0.25, 0.75,
     * 0.75, 0.25, normalised by their sum 2: 2048, 6144, 6144, 2048. */
    {
        const int start[] = { -1 };
        const int coef[]  = { 2048, 6144, 6144, 2048 };
        ff_fssim_ref_resample_axis_init(&a, 2, 1, FSSIM_REF_SCALER_BILINEAR);
        tap_ok(axis_is(&a, 4, start, coef), "bilinear 2->1: the kernel widens to 4 taps, by hand");
        ff_fssim_ref_resample_axis_free(&a);
    }

    /* Tie rule.  Bilinear 6 -> 1: f = 6, u = 0.5 * 6 - 0.5 = 2.5, taps
     * |i - 2.5| < 6: i = -3..8 at |d| = 5.5, 4.5, ... 0.5, 0.5, ... 5.5,
     * weights (6 - |d|) / 6 summing to 6, normalised (k + 0.5) / 36 for
     * k = 0..5 mirrored.  * 16384: 227.56, 682.67, 1137.78, 1592.89, 2048,
     * 2503.11 -> 228, 683, 1138, 1593, 2048, 2503; twice that sums to 16386.
     * The -2 goes to the first of the two equal largest weights (i = 2). */
    {
        const int start[] = { -3 };
        const int coef[]  = { 228, 683, 1138, 1593, 2048, 2501,
                              2503, 2048, 1593, 1138, 683, 228 };
        ff_fssim_ref_resample_axis_init(&a, 6, 1, FSSIM_REF_SCALER_BILINEAR);
        tap_ok(axis_is(&a, 12, start, coef),
               "bilinear 6->1: the remainder -2 goes to the first of two equal largest weights");
        ff_fssim_ref_resample_axis_free(&a);
    }

    /* Halves round away from zero.  Bilinear 128 -> 1: f = 128, u = 63.5,
     * taps i = -64..191 at |d| = m + 0.5 (m = 0..127, twice), weights
     * 1 - |d|/128 summing to 128 (all exact in double), normalised
     * (255 - 2m) / 32768, so 16384 w = 127.5 - m, a half for every tap:
     * q = 128 - m (127.5 -> 128, ..., 0.5 -> 1; half-to-even would give
     * 128, 126, 126, 124, ...).  Their sum is 2 * (128 + ... + 1) = 16512,
     * and the -128 goes to the first of the two largest, i = 63, leaving 0. */
    {
        int start[1] = { -64 }, coef[256], good;
        for (int i = -64; i <= 191; i++) {
            const int m = i <= 63 ? 63 - i : i - 64;
            coef[i + 64] = 128 - m;
        }
        coef[63 + 64] -= 128;
        ff_fssim_ref_resample_axis_init(&a, 128, 1, FSSIM_REF_SCALER_BILINEAR);
        good = axis_is(&a, 256, start, coef);
        tap_ok(good, "bilinear 128->1: every 16384 w is an exact half and rounds away from "
               "zero; the remainder -128 empties the first largest tap");
        ff_fssim_ref_resample_axis_free(&a);
    }

    /* Bicubic 2 -> 4 (a = -0.6): x = 0, u = -0.25, taps i = -2..1 at
     * d = -1.75, -0.75, 0.25, 1.25:
     *   K(0.25) = 1.4 * 0.015625 - 2.4 * 0.0625 + 1 = 0.871875
     *   K(0.75) = 1.4 * 0.421875 - 2.4 * 0.5625 + 1 = 0.240625
     *   K(1.25) = -0.6 * (1.953125 - 5 * 1.5625 + 8 * 1.25 - 4) = -0.084375
     *   K(1.75) = -0.6 * (5.359375 - 5 * 3.0625 + 8 * 1.75 - 4) = -0.028125
     * (sum 1): * 16384 = -460.8, 3942.4, 14284.8, -1382.4 -> -461, 3942,
     * 14285, -1382 (sum 16384).  x = 1, u = 0.25: i = -1..2 at d = -1.25,
     * -0.25, 0.75, 1.75.  x = 2, u = 0.75: i = -1..2 at d = -1.75, -0.75,
     * 0.25, 1.25 (x = 0's weights); x = 3, u = 1.25: i = 0..3 (x = 1's). */
    {
        const int start[] = { -2, -1, -1, 0 };
        const int coef[]  = { -461, 3942, 14285, -1382,   -1382, 14285, 3942, -461,
                              -461, 3942, 14285, -1382,   -1382, 14285, 3942, -461 };
        ff_fssim_ref_resample_axis_init(&a, 2, 4, FSSIM_REF_SCALER_BICUBIC);
        tap_ok(axis_is(&a, 4, start, coef), "bicubic 2->4: Keys a=-0.6 weights worked out by hand");
        ff_fssim_ref_resample_axis_free(&a);
    }

    /* Samples.  [100, 200] bilinear 2x1 -> 4x1 (8-bit): 100,
     * 0.75*100 + 0.25*200 = 125, 0.25*100 + 0.75*200 = 175, 200. */
    {
        Img in = img_new(2, 1), out;
        in.v[0] = 100;
        in.v[1] = 200;
        out = resample(&in, 4, 1, FSSIM_REF_SCALER_BILINEAR, 8);
        tap_ok(out.v[0] == 100 && out.v[1] == 125 && out.v[2] == 175 && out.v[3] == 200,
               "bilinear [100 200] -> [100 125 175 200] (got %u %u %u %u)",
               out.v[0], out.v[1], out.v[2], out.v[3]);
        free(out.v);
        /* rounding: [0 1] -> 0, 0.25, 0.75, 1 -> 0 0 1 1 */
        in.v[0] = 0;
        in.v[1] = 1;
        out = resample(&in, 4, 1, FSSIM_REF_SCALER_BILINEAR, 8);
        tap_ok(out.v[0] == 0 && out.v[1] == 0 && out.v[2] == 1 && out.v[3] == 1,
               "bilinear [0 1] -> [0 0 1 1]: 0.25 rounds down, 0.75 up");
        free(out.v);
        /* a half rounds up: [0 1] -> 1 sample is 0.5 -> 1, and [1 0] too */
        out = resample(&in, 1, 1, FSSIM_REF_SCALER_BILINEAR, 8);
        tap_ok(out.v[0] == 1, "bilinear [0 1] -> [1]: a half rounds up (v + 2^27) >> 28");
        free(out.v);
        free(in.v);
    }

    /* Two dimensions: [[0 64] [128 255]] bilinear 2x2 -> 4x4.  The rows
     * give [0 16 48 64] and [128 159.75 223.25 255]; output rows are row
     * 0, 0.75 r0 + 0.25 r1, 0.25 r0 + 0.75 r1, row 1:
     *   0     16      48      64
     *   32    51.9375 91.8125 111.75   -> 32 52 92 112
     *   96   123.8125 179.4375 207.25  -> 96 124 179 207
     *   128  159.75  223.25  255       -> 128 160 223 255 */
    {
        static const uint16_t want[16] = { 0, 16, 48, 64, 32, 52, 92, 112,
                                           96, 124, 179, 207, 128, 160, 223, 255 };
        Img in = img_new(2, 2), out;
        int same;
        in.v[0] = 0;
        in.v[1] = 64;
        in.v[2] = 128;
        in.v[3] = 255;
        out = resample(&in, 4, 4, FSSIM_REF_SCALER_BILINEAR, 8);
        same = !memcmp(out.v, want, sizeof(want));
        tap_ok(same, "bilinear 2x2 -> 4x4 worked out by hand");
        if (!same)
            for (int y = 0; y < 4; y++)
                tap_diag("%u %u %u %u", out.v[4 * y], out.v[4 * y + 1], out.v[4 * y + 2],
                         out.v[4 * y + 3]);
        free(in.v);
        free(out.v);
    }

    /* Borders and the clamp: bicubic [1000 0] 2 -> 4, with the taps above
     * (reads clamped to samples 0 and 1):
     *   x = 0: (-461 + 3942 + 14285) * 1000 = 17766000 -> 1084.34 -> 1084,
     *          clamped to 1023 at 10 bits;
     *   x = 1: (-1382 + 14285) * 1000 = 12903000 -> 787.54 -> 788;
     *   x = 2: (-461 + 3942) * 1000 = 3481000 -> 212.46 -> 212;
     *   x = 3: -1382 * 1000 < 0 -> clamped to 0. */
    {
        Img in = img_new(2, 1), out;
        in.v[0] = 1000;
        out = resample(&in, 4, 1, FSSIM_REF_SCALER_BICUBIC, 16);
        tap_ok(out.v[0] == 1084 && out.v[1] == 788 && out.v[2] == 212 && out.v[3] == 0,
               "bicubic [1000 0] -> [1084 788 212 0] at 16 bits: clamped reads, negative "
               "sum clamped to 0 (got %u %u %u %u)", out.v[0], out.v[1], out.v[2], out.v[3]);
        free(out.v);
        out = resample(&in, 4, 1, FSSIM_REF_SCALER_BICUBIC, 10);
        tap_ok(out.v[0] == 1023 && out.v[1] == 788 && out.v[2] == 212 && out.v[3] == 0,
               "bicubic [1000 0] -> [1023 788 212 0] at 10 bits: overshoot clamped to L");
        free(out.v);
        free(in.v);
    }
}

/* ---- properties over many sizes ----------------------------------------- */

static const int sizes[] = { 1, 2, 3, 4, 5, 7, 9, 16, 17, 21, 33, 64, 90, 100, 135, 180,
                             240, 270, 360, 540, 641, 720, 1080, 1920 };
#define NB_SIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

static void test_identity(void)
{
    for (int s = 0; s < 3; s++) {
        int good = 1;
        for (int k = 0; k < NB_SIZES; k++) {
            FSSIMRefResampleAxis a;
            ff_fssim_ref_resample_axis_init(&a, sizes[k], sizes[k], s);
            good &= a.ntaps == 1;
            for (int x = 0; x < a.out && good; x++)
                good = a.start[x] == x && a.coef[x] == 16384;
            ff_fssim_ref_resample_axis_free(&a);
        }
        tap_ok(good, "%s: in == out gives one tap of 16384 at i = x (from the general "
               "formula), every size", scaler_names[s]);
    }
    for (int s = 0; s < 3; s++)
        for (int depth = 8; depth <= 16; depth += depth == 8 ? 2 : 6) {
            const int w = 37, h = 23;
            Img in = img_new(w, h), out;
            int x, y, same;
            for (int i = 0; i < w * h; i++)
                in.v[i] = (uint16_t)rnd(1u << depth);
            out = resample(&in, w, h, s, depth);
            same = img_equal(&out, &in, &x, &y);
            tap_ok(same, "%s %d-bit: 37x23 -> 37x23 gives the input back exactly",
                   scaler_names[s], depth);
            free(in.v);
            free(out.v);
        }
}

static void test_tables(void)
{
    for (int s = 0; s < 3; s++) {
        int sums = 1, trimmed = 1, pairs = 0;
        for (int a = 0; a < NB_SIZES; a++)
            for (int b = 0; b < NB_SIZES; b++) {
                FSSIMRefResampleAxis ax;
                int any_first = 0, any_last = 0;
                ff_fssim_ref_resample_axis_init(&ax, sizes[a], sizes[b], s);
                for (int x = 0; x < ax.out; x++) {
                    const int32_t *c = ax.coef + (size_t)x * ax.ntaps;
                    int64_t sum = 0;
                    for (int k = 0; k < ax.ntaps; k++)
                        sum += c[k];
                    sums &= sum == 16384;
                    any_first |= c[0] != 0;
                    any_last  |= c[ax.ntaps - 1] != 0;
                }
                /* no tap column is zero for every output: ntaps is the widest span */
                trimmed &= any_first && any_last;
                ff_fssim_ref_resample_axis_free(&ax);
                pairs++;
            }
        tap_ok(sums, "%s: every output's coefficients sum to 16384 (%d size pairs)",
               scaler_names[s], pairs);
        tap_ok(trimmed, "%s: ntaps is the widest span of nonzero taps (no all-zero end column)",
               scaler_names[s]);
    }
}

static void test_constant(void)
{
    static const int dims[][4] = {
        { 1, 1, 1, 1 }, { 1, 1, 7, 5 }, { 7, 5, 1, 1 }, { 1, 9, 1, 20 }, { 1, 20, 3, 9 },
        { 2, 2, 5, 3 }, { 17, 9, 33, 21 }, { 33, 21, 17, 9 }, { 64, 36, 192, 108 },
        { 192, 108, 64, 36 }, { 96, 54, 144, 81 }, { 144, 81, 96, 54 }, { 9, 5, 16, 9 },
        { 100, 3, 7, 40 }, { 5, 60, 60, 5 }, { 320, 2, 1, 2 },
    };
    for (int s = 0; s < 3; s++)
        for (int depth = 8; depth <= 16; depth += depth == 8 ? 2 : 6) {
            const unsigned L = (1u << depth) - 1;
            const unsigned values[] = { 0, 1, L / 3, L - 1, L };
            int good = 1;
            for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++)
                for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
                    Img in = img_new(dims[d][0], dims[d][1]), out;
                    for (int i = 0; i < in.w * in.h; i++)
                        in.v[i] = (uint16_t)values[k];
                    out = resample(&in, dims[d][2], dims[d][3], s, depth);
                    for (int i = 0; i < out.w * out.h; i++)
                        if (out.v[i] != values[k]) {
                            if (good)
                                tap_diag("%dx%d -> %dx%d value %u: got %u", dims[d][0],
                                         dims[d][1], dims[d][2], dims[d][3], values[k], out.v[i]);
                            good = 0;
                            break;
                        }
                    free(in.v);
                    free(out.v);
                }
            tap_ok(good, "%s %d-bit: constant planes (0, 1, L/3, L-1, L) stay constant, "
                   "up, down, odd and 1-pixel sizes", scaler_names[s], depth);
        }
}

/* Random and checkerboard planes against the direct 2-D evaluation, whole
 * plane and in bands; the checkerboard of 0 / L drives the negative lobes
 * past [0, L] so that both ends of the clamp are used. */
static void test_naive(void)
{
    static const int dims[][4] = {
        { 17, 9, 33, 21 }, { 33, 21, 17, 9 }, { 16, 9, 48, 27 }, { 48, 27, 32, 18 },
        { 1, 7, 5, 3 }, { 9, 1, 4, 6 }, { 24, 24, 24, 40 }, { 31, 13, 31, 13 },
    };
    for (int s = 0; s < 3; s++)
        for (int depth = 8; depth <= 16; depth += depth == 8 ? 2 : 6) {
            const unsigned L = (1u << depth) - 1;
            int good = 1, bands = 1, lo_clamped = 0, hi_clamped = 0, clamped_ok = 1;
            int overshoots = 0;
            for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++)
                for (int pattern = 0; pattern < 2; pattern++) {
                    FSSIMRefResampleAxis ax, ay;
                    Img in = img_new(dims[d][0], dims[d][1]), out, ref, band;
                    const FSSIMRefPlane src = img_plane(&in);
                    int64_t *tmp;
                    int clamped, x, y;
                    for (int yy = 0; yy < in.h; yy++)
                        for (int xx = 0; xx < in.w; xx++)
                            in.v[yy * in.w + xx] = (uint16_t)(pattern ? ((xx + yy) & 1) * L
                                                                      : rnd(L + 1));
                    out = resample(&in, dims[d][2], dims[d][3], s, depth);
                    axes_init(&ax, &ay, in.w, in.h, out.w, out.h, s);
                    ref = naive(&in, &ax, &ay, depth, depth, &clamped);
                    good &= img_equal(&out, &ref, &x, &y);
                    /* bands of 3 rows, each into its own buffer row 0 */
                    band = img_new(out.w, 3);
                    tmp = malloc(sizeof(*tmp) * ff_fssim_ref_resample_tmp_size(&ax, &ay));
                    for (int y0 = 0; y0 < out.h; y0 += 3) {
                        const int y1 = y0 + 3 < out.h ? y0 + 3 : out.h;
                        ff_fssim_ref_resample_rows(&src, &ax, &ay, depth, depth, y0, y1,
                                                   band.v, (ptrdiff_t)band.w * 2, tmp);
                        bands &= !memcmp(band.v, out.v + (size_t)y0 * out.w,
                                         sizeof(uint16_t) * out.w * (y1 - y0));
                    }
                    if (pattern) {
                        for (int i = 0; i < out.w * out.h; i++) {
                            lo_clamped += out.v[i] == 0;
                            hi_clamped += out.v[i] == L;
                            clamped_ok &= out.v[i] <= L;
                        }
                        overshoots += clamped;
                    }
                    free(tmp);
                    free(in.v);
                    free(out.v);
                    free(ref.v);
                    free(band.v);
                    ff_fssim_ref_resample_axis_free(&ax);
                    ff_fssim_ref_resample_axis_free(&ay);
                }
            tap_ok(good, "%s %d-bit: random and checkerboard planes equal a direct 2-D "
                   "evaluation of the tables", scaler_names[s], depth);
            tap_ok(bands, "%s %d-bit: rows computed in bands of 3 equal the whole plane",
                   scaler_names[s], depth);
            /* bilinear weights are never negative: nothing to clamp */
            tap_ok(clamped_ok && lo_clamped && hi_clamped &&
                   (s == FSSIM_REF_SCALER_BILINEAR ? !overshoots : overshoots > 0),
                   "%s %d-bit: 0/L checkerboard stays within [0, L], %d overshoots clamped "
                   "(%d outputs at 0, %d at L)", scaler_names[s], depth, overshoots,
                   lo_clamped, hi_clamped);
        }
}

/* ---- bit depths: the rendition's brought to the reference's -------------- */

/* Identity axes: s * 2^d up, s / 2^-d rounded half up down, clamped to L;
 * worked out by hand. */
static void test_depth_hand(void)
{
    static const struct {
        int in_depth, depth;
        uint16_t in[6], want[6];
    } cases[] = {
        /* up: exactly s * 4, s * 256, s * 64 (no rounding, no clamp) */
        { 8, 10, { 0, 1, 16, 128, 235, 255 }, { 0, 4, 64, 512, 940, 1020 } },
        { 8, 16, { 0, 1, 16, 128, 235, 255 }, { 0, 256, 4096, 32768, 60160, 65280 } },
        { 10, 16, { 0, 1, 64, 512, 940, 1023 }, { 0, 64, 4096, 32768, 60160, 65472 } },
        /* down by 2 bits: (s + 2) >> 2; 1 -> 0, 2 -> 1 (a half up), 5 -> 1,
         * 6 -> 2, 1021 -> 255, 1023 -> 256 clamped to 255 */
        { 10, 8, { 1, 2, 5, 6, 1021, 1023 }, { 0, 1, 1, 2, 255, 255 } },
        /* down by 8 bits: (s + 128) >> 8; 127 -> 0, 128 -> 1, 65407 -> 255,
         * 65408 -> 256 clamped */
        { 16, 8, { 127, 128, 383, 384, 65407, 65408 }, { 0, 1, 1, 2, 255, 255 } },
        /* 12 -> 10: (s + 2) >> 2; 4094 -> 1024 clamped */
        { 12, 10, { 3, 4089, 4090, 4093, 4094, 4095 }, { 1, 1022, 1023, 1023, 1023, 1023 } },
        /* samples above the rendition's depth are read as stored: 10-bit
         * 2000 and 65535 up to 12 bits are 8000 and 262140, clamped to 4095;
         * down to 8 bits 2000 -> 500 clamped to 255 */
        { 10, 12, { 1023, 1024, 2000, 65535, 0, 3 }, { 4092, 4095, 4095, 4095, 0, 12 } },
        { 10, 8, { 1024, 2000, 65535, 300, 301, 302 }, { 255, 255, 255, 75, 75, 76 } },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        Img in = img_new(6, 1), out;
        int good = 1;
        memcpy(in.v, cases[i].in, sizeof(cases[i].in));
        for (int s = 0; s < 3; s++) {
            out = resample_depths(&in, 6, 1, s, cases[i].in_depth, cases[i].depth);
            good &= !memcmp(out.v, cases[i].want, sizeof(cases[i].want));
            if (memcmp(out.v, cases[i].want, sizeof(cases[i].want)))
                tap_diag("%s: got %u %u %u %u %u %u", scaler_names[s], out.v[0], out.v[1],
                         out.v[2], out.v[3], out.v[4], out.v[5]);
            free(out.v);
        }
        tap_ok(good, "%d -> %d bits, same size (identity axes, every scaler): "
               "%u %u %u %u %u %u -> %u %u %u %u %u %u", cases[i].in_depth, cases[i].depth,
               cases[i].in[0], cases[i].in[1], cases[i].in[2], cases[i].in[3], cases[i].in[4],
               cases[i].in[5], cases[i].want[0], cases[i].want[1], cases[i].want[2],
               cases[i].want[3], cases[i].want[4], cases[i].want[5]);
        free(in.v);
    }

    /* One rounding: bilinear [0 1] -> 4 samples at 8 -> 10 bits are 0, 1,
     * 3, 4 (0, 0.25, 0.75, 1 times 4, exact), where converting after the
     * 8-bit resampling would give 0 0 4 4. */
    {
        Img in = img_new(2, 1), out;
        in.v[1] = 1;
        out = resample_depths(&in, 4, 1, FSSIM_REF_SCALER_BILINEAR, 8, 10);
        tap_ok(out.v[0] == 0 && out.v[1] == 1 && out.v[2] == 3 && out.v[3] == 4,
               "bilinear [0 1] -> 4 samples, 8 -> 10 bits: [0 1 3 4], one rounding at the "
               "reference's depth (got %u %u %u %u)", out.v[0], out.v[1], out.v[2], out.v[3]);
        free(out.v);
        free(in.v);
    }
}

/* Every pair of depths, every scaler, up and down, odd sizes: the direct
 * evaluation with the shifted rounding; constant planes keep their value
 * scaled (up: exactly c * 2^d). */
static void test_depth_naive(void)
{
    static const int depths[] = { 8, 9, 10, 12, 14, 16 };
    static const int dims[][4] = {
        { 17, 9, 33, 21 }, { 33, 21, 17, 9 }, { 16, 9, 16, 9 }, { 9, 5, 17, 9 },
        { 1, 7, 5, 3 },
    };
    const int nd = (int)(sizeof(depths) / sizeof(depths[0]));
    for (int s = 0; s < 3; s++) {
        int good = 1, constant = 1, pairs = 0;
        for (int a = 0; a < nd; a++)
            for (int b = 0; b < nd; b++) {
                const int din = depths[a], dout = depths[b];
                if (din == dout)
                    continue;
                pairs++;
                for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++)
                    for (int pattern = 0; pattern < 3; pattern++) {
                        FSSIMRefResampleAxis ax, ay;
                        const unsigned L = (1u << din) - 1;
                        /* random in range, 0/L checkerboard, random as stored
                         * (anything a 16-bit word holds) */
                        Img in = img_new(dims[d][0], dims[d][1]), out, ref;
                        int clamped, x, y;
                        for (int i = 0; i < in.w * in.h; i++)
                            in.v[i] = (uint16_t)(pattern == 0 ? rnd(L + 1) :
                                                 pattern == 1 ? ((i + i / in.w) & 1) * L :
                                                 rnd(din > 8 ? 65536 : 256));
                        out = resample_depths(&in, dims[d][2], dims[d][3], s, din, dout);
                        axes_init(&ax, &ay, in.w, in.h, out.w, out.h, s);
                        ref = naive(&in, &ax, &ay, din, dout, &clamped);
                        good &= img_equal(&out, &ref, &x, &y);
                        free(in.v);
                        free(out.v);
                        free(ref.v);
                        ff_fssim_ref_resample_axis_free(&ax);
                        ff_fssim_ref_resample_axis_free(&ay);
                    }
                for (unsigned c = 0; c < (1u << din); c += (1u << din) / 7 + 1) {
                    const unsigned want = dout > din ? c << (dout - din) :
                                          (c + (1u << (din - dout - 1))) >> (din - dout);
                    const unsigned Lo = (1u << dout) - 1;
                    Img in = img_new(9, 5), out;
                    for (int i = 0; i < in.w * in.h; i++)
                        in.v[i] = (uint16_t)c;
                    out = resample_depths(&in, 17, 9, s, din, dout);
                    for (int i = 0; i < out.w * out.h; i++)
                        constant &= out.v[i] == (want > Lo ? Lo : want);
                    free(in.v);
                    free(out.v);
                }
            }
        tap_ok(good, "%s: %d pairs of depths (8-16 bits, up and down), random, 0/L and "
               "as-stored planes equal the direct evaluation with the shifted rounding",
               scaler_names[s], pairs);
        tap_ok(constant, "%s: constant planes resampled across depths are c * 2^d "
               "(down: rounded half up, clamped to L)", scaler_names[s]);
    }
}

/* ---- range of the sums (the bounds stated in fssim_ref.h) --------------- */

static void test_bounds(void)
{
    /* proven bounds on N, the largest negative sum of one output */
    static const int64_t n_bound[3] = { 5342, 0, 9077 };
    static const int more[] = { 120, 128, 144, 216, 384, 426, 480, 640, 854, 960, 1280,
                                1440, 2160, 2560, 3840, 4096 };
    for (int s = 0; s < 3; s++) {
        int64_t P = 0, N = 0, hmax, vmax;
        int pairs = 0;
        for (int a = 1; a <= 140 + (int)(sizeof(more) / sizeof(more[0])); a++)
            for (int b = 1; b <= 140 + (int)(sizeof(more) / sizeof(more[0])); b++) {
                const int in  = a <= 140 ? a : more[a - 141];
                const int out = b <= 140 ? b : more[b - 141];
                FSSIMRefResampleAxis ax;
                if (ff_fssim_ref_resample_axis_init(&ax, in, out, s) < 0)
                    tap_bail("axis init failed");
                for (int x = 0; x < ax.out; x++) {
                    int64_t pos = 0, neg = 0;
                    for (int k = 0; k < ax.ntaps; k++) {
                        const int32_t c = ax.coef[(size_t)x * ax.ntaps + k];
                        if (c > 0)
                            pos += c;
                        else
                            neg -= c;
                    }
                    P = pos > P ? pos : P;
                    N = neg > N ? neg : N;
                }
                ff_fssim_ref_resample_axis_free(&ax);
                pairs++;
            }
        hmax = 65535 * P;
        vmax = 65535 * (P * P + N * N);
        tap_diag("%s over %d size pairs: largest positive sum P = %lld, negative N = %lld; "
                 "|h| <= %lld, |v| <= %lld", scaler_names[s], pairs, (long long)P,
                 (long long)N, (long long)hmax, (long long)vmax);
        tap_ok(P == 16384 + N, "%s: P = 16384 + N (the remainder lands on a positive tap)",
               scaler_names[s]);
        tap_ok(N <= n_bound[s], "%s: N = %lld within the proven bound %lld",
               scaler_names[s], (long long)N, (long long)n_bound[s]);
        tap_ok(65535 * (16384 + n_bound[s]) <= INT32_MAX && hmax <= INT32_MAX,
               "%s: |h| <= 65535 P fits an int32 (measured %lld, proven %lld)",
               scaler_names[s], (long long)hmax, (long long)(65535 * (16384 + n_bound[s])));
        tap_ok(vmax < INT64_MAX / 1024,
               "%s: |v| <= 65535 (P^2 + N^2) = %lld, far inside an int64",
               scaler_names[s], (long long)vmax);
    }
}

static void test_errors(void)
{
    FSSIMRefResampleAxis a;
    tap_ok(ff_fssim_ref_resample_axis_init(&a, 0, 4, FSSIM_REF_SCALER_BICUBIC) == -EINVAL &&
              ff_fssim_ref_resample_axis_init(&a, 4, 0, FSSIM_REF_SCALER_BICUBIC) == -EINVAL &&
              ff_fssim_ref_resample_axis_init(&a, 4, 4, 7) == -EINVAL && !a.coef && !a.start,
              "empty sizes and unknown scalers are -EINVAL, leaving the axis empty");
    ff_fssim_ref_resample_axis_free(&a);
}

int main(void)
{
    test_hand();
    test_identity();
    test_tables();
    test_constant();
    test_naive();
    test_depth_hand();
    test_depth_naive();
    test_bounds();
    test_errors();
    return tap_done();
}
