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
 * Unit tests of the fssim CPU reference (filters/core/libfssimref.a), in TAP.
 *
 * Expected values come from three independent places, never from the
 * reference itself:
 *  - literals worked out by hand / with exact rational arithmetic from the
 *    formulas of doc/algorithms.md (the derivation is next to each literal);
 *  - closed forms of the SSIM formula for planes whose moments are known;
 *  - deliberately naive implementations written here: direct 2-D windows
 *    (no separable passes, no bands, no 4x4 block sums), read from a plain
 *    array of sample values instead of through FSSIMRefPlane.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fssim_ref.h"
#include "tap.h"

#define IMG_RNG_SEED 0x9E3779B97F4A7C15ull
#include "img.h"

/* ---- test planes -------------------------------------------------------- */

/* Smooth picture-like content (gradients and waves) plus noise. */
static Img img_content(int w, int h, int depth, int seed, int noise)
{
    return img_waves(w, h, depth, seed, noise, 0.11, 0.07, 0.023);
}

/* a distorted copy: box blur of radius 1 plus noise, clipped */
static Img img_distort(const Img *a, int noise)
{
    Img b = img_new(a->w, a->h, a->depth);
    const int L = (1 << a->depth) - 1;
    for (int y = 0; y < a->h; y++)
        for (int x = 0; x < a->w; x++) {
            long s = 0, n = 0;
            for (int j = -1; j <= 1; j++)
                for (int i = -1; i <= 1; i++)
                    if (x + i >= 0 && x + i < a->w && y + j >= 0 && y + j < a->h) {
                        s += px(a, x + i, y + j);
                        n++;
                    }
            long v = (s + n / 2) / n + ((long)rnd(2 * noise + 1) - noise) * ((L + 1) / 256);
            b.v[(size_t)y * a->w + x] = v < 0 ? 0u : v > L ? (unsigned)L : (unsigned)v;
        }
    return b;
}

static Img img_random(int w, int h, int depth)
{
    Img im = img_new(w, h, depth);
    for (size_t i = 0; i < (size_t)w * h; i++)
        im.v[i] = rnd(1u << depth);
    return im;
}

/* ---- naive implementations (independent of the reference's code) ------- */

static const int K[9] = { 2, 9, 28, 55, 68, 55, 28, 9, 2 };

/* doc/algorithms.md#int with a direct 2-D window of weights K[i]*K[j]: the integer sums
 * equal the separable ones exactly, and the per-pixel double formula is
 * written out again here in the association of doc/algorithms.md#int; pixels are summed in
 * row-major order, as the reference does, so the result is bitwise equal. */
static double naive_int(const Img *a, const Img *b)
{
    const double L = (double)((1 << a->depth) - 1);
    double t = 0.0;
    uint64_t wsum = 0;

    for (int y = 0; y < a->h; y++)
        for (int x = 0; x < a->w; x++) {
            int64_t mux = 0, muy = 0, x2 = 0, xy = 0, y2 = 0, w = 0;
            for (int j = -4; j <= 4; j++)
                for (int i = -4; i <= 4; i++) {
                    if (x + i < 0 || x + i >= a->w || y + j < 0 || y + j >= a->h)
                        continue;
                    const int64_t k = (int64_t)K[i + 4] * K[j + 4];
                    const int64_t s = px(a, x + i, y + j), d = px(b, x + i, y + j);
                    mux += k * s;
                    muy += k * d;
                    x2  += k * s * s;
                    xy  += k * s * d;
                    y2  += k * d * d;
                    w   += k;
                }
            const double W   = (double)w;
            const double c1  = L * L * (0.01 * 0.01) * W * W;
            const double c2  = L * L * (0.03 * 0.03) * W * W;
            const double mx2 = (double)mux * mux, mxy = (double)mux * muy;
            const double my2 = (double)muy * muy;
            t += W * (2 * mxy + c1) * (c2 + 2 * (xy * W - mxy)) /
                 ((mx2 + my2 + c1) * (x2 * W - mx2 + y2 * W - my2 + c2));
            wsum += (uint64_t)w;
        }
    return t / (double)wsum;
}

/* doc/algorithms.md#float with a direct 2-D window of weights g[i]*g[j] (long double), zeros
 * outside the plane (only reached under padding=same). */
static double naive_float(const Img *a, const Img *b, int window, double sigma, int same)
{
    const int r = window / 2;
    const long double L = (long double)((1 << a->depth) - 1);
    const long double C1 = (0.01L * L) * (0.01L * L), C2 = (0.03L * L) * (0.03L * L);
    long double g[FSSIM_MAX_WINDOW], gs = 0, sum = 0;
    const int x0 = same ? 0 : r, x1 = same ? a->w : a->w - r;
    const int y0 = same ? 0 : r, y1 = same ? a->h : a->h - r;
    long n = 0;

    for (int i = 0; i < window; i++)
        gs += g[i] = expl(-(long double)((i - r) * (i - r)) / (2.0L * sigma * sigma));
    for (int i = 0; i < window; i++)
        g[i] /= gs;
    if (x1 <= x0 || y1 <= y0)
        return NAN;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            long double ma = 0, mb = 0, aa = 0, bb = 0, ab = 0;
            for (int j = -r; j <= r; j++)
                for (int i = -r; i <= r; i++) {
                    if (x + i < 0 || x + i >= a->w || y + j < 0 || y + j >= a->h)
                        continue; /* zero padding */
                    const long double wt = g[i + r] * g[j + r];
                    const long double s = px(a, x + i, y + j), d = px(b, x + i, y + j);
                    ma += wt * s;
                    mb += wt * d;
                    aa += wt * s * s;
                    bb += wt * d * d;
                    ab += wt * s * d;
                }
            const long double va = aa - ma * ma, vb = bb - mb * mb, cv = ab - ma * mb;
            sum += (2 * ma * mb + C1) * (2 * cv + C2) /
                   ((ma * ma + mb * mb + C1) * (va + vb + C2));
            n++;
        }
    return (double)(sum / n);
}

/* vf_ssim.c's ssim_end1 / ssim_end1x, rewritten from the FFmpeg source. */
static float ff_end1(int s1, int s2, int ss, int s12)
{
    const int c1 = (int)(.01 * .01 * 255 * 255 * 64 + .5);       /* 416 */
    const int c2 = (int)(.03 * .03 * 255 * 255 * 64 * 63 + .5);  /* 235963 */
    const int vars = ss * 64 - s1 * s1 - s2 * s2, covar = s12 * 64 - s1 * s2;
    return (float)(2 * s1 * s2 + c1) * (float)(2 * covar + c2) /
           ((float)(s1 * s1 + s2 * s2 + c1) * (float)(vars + c2));
}

static float ff_end1x(int64_t s1, int64_t s2, int64_t ss, int64_t s12, int max)
{
    const int64_t c1 = (int64_t)(.01 * .01 * max * max * 64 + .5);
    const int64_t c2 = (int64_t)(.03 * .03 * max * max * 64 * 63 + .5);
    const int64_t vars = ss * 64 - s1 * s1 - s2 * s2, covar = s12 * 64 - s1 * s2;
    return (float)(2 * s1 * s2 + c1) * (float)(2 * covar + c2) /
           ((float)(s1 * s1 + s2 * s2 + c1) * (float)(vars + c2));
}

/* FFmpeg's ssim on one plane, each 8x8 window summed directly (no 4x4
 * block sums), rows accumulated as vf_ssim.c does: double for 8-bit, float
 * per row for deeper samples. */
static double naive_block(const Img *a, const Img *b)
{
    const int nx = (a->w >> 2) - 1, ny = (a->h >> 2) - 1;
    const int max = (1 << a->depth) - 1;
    double total = 0.0;

    if (nx <= 0 || ny <= 0)
        return NAN;
    for (int wy = 0; wy < ny; wy++) {
        double row8 = 0.0;
        float rowx = 0.0f;
        for (int wx = 0; wx < nx; wx++) {
            int64_t s1 = 0, s2 = 0, ss = 0, s12 = 0;
            for (int y = 4 * wy; y < 4 * wy + 8; y++)
                for (int x = 4 * wx; x < 4 * wx + 8; x++) {
                    const int64_t p = px(a, x, y), q = px(b, x, y);
                    s1 += p;
                    s2 += q;
                    ss += p * p + q * q;
                    s12 += p * q;
                }
            if (a->depth <= 8)
                row8 += ff_end1((int)s1, (int)s2, (int)ss, (int)s12);
            else
                rowx += ff_end1x(s1, s2, ss, s12, max);
        }
        total += a->depth <= 8 ? row8 : rowx;
    }
    return total / ((double)nx * ny);
}

/* ---- wrappers over the reference ---------------------------------------- */

static double ref_int(const Img *a, const Img *b)
{
    void *sa, *sb;
    FSSIMRefPlane pa = planar(a, &sa), pb = planar(b, &sb);
    double v = ff_fssim_ref_int(&pa, &pb, a->depth);
    free(sa);
    free(sb);
    return v;
}

static double ref_float(const Img *a, const Img *b, int window, double sigma, int padding)
{
    void *sa, *sb;
    FSSIMRefPlane pa = planar(a, &sa), pb = planar(b, &sb);
    FSSIMRefFloatParams p = { window, sigma, padding };
    double v = ff_fssim_ref_float(&pa, &pb, a->depth, &p);
    free(sa);
    free(sb);
    return v;
}

static double ref_block(const Img *a, const Img *b)
{
    void *sa, *sb;
    FSSIMRefPlane pa = planar(a, &sa), pb = planar(b, &sb);
    double v = ff_fssim_ref_block(&pa, &pb, a->depth);
    free(sa);
    free(sb);
    return v;
}

static const FSSIMRefFloatParams DEF = { 11, 1.5, FSSIM_REF_PAD_VALID };

/* ---- int --------------------------------------------------------------- */

static void test_int_hand(void)
{
    int sum = 0, sym = 1;
    for (int i = 0; i < 9; i++) {
        sum += ff_fssim_ref_int_taps[i];
        sym &= ff_fssim_ref_int_taps[i] == ff_fssim_ref_int_taps[8 - i] &&
               ff_fssim_ref_int_taps[i] == K[i];
    }
    tap_ok(sum == 256 && sym, "int: taps are [2 9 28 55 68 55 28 9 2], sum 256");

    /*
     * Expected values: every pixel's window restricted to the plane gives
     * weights k_i*k_j with W = their sum; the int algorithm is then
     * sum_p W_p SSIM_p / sum_p W_p with SSIM_p the local SSIM of the
     * normalised moments (C1 = (0.01 L)^2, C2 = (0.03 L)^2).  Evaluated
     * with exact rationals (Python fractions.Fraction), rounded to double.
     *
     * 1x1, s=100, d=50, 8-bit: only the centre tap, W = 68*68, var = cov
     * = 0, so SSIM = (2*100*50 + 6.5025) / (100^2 + 50^2 + 6.5025)
     * = 10006.5025 / 12506.5025.
     */
    {
        Img a = img_from(1, 1, 8, (unsigned[]){ 100 }), b = img_from(1, 1, 8, (unsigned[]){ 50 });
        tap_close(ref_int(&a, &b), 10006.5025 / 12506.5025, 1e-15, "int: 1x1 plane by hand");
        tap_close(ref_int(&a, &b), 0.80010398590653142, 1e-15, "int: 1x1 plane, literal");
        free(a.v); free(b.v);
    }
    /* 2x2: pixel (0,0) weighs (0,0) 68*68, (1,0) and (0,1) 68*55, (1,1)
     * 55*55; W = 123^2 for all four pixels. */
    {
        Img a = img_from(2, 2, 8, (unsigned[]){ 10, 200, 60, 120 });
        Img b = img_from(2, 2, 8, (unsigned[]){ 12, 180, 70, 100 });
        tap_close(ref_int(&a, &b), 0.97688008910183066, 1e-14, "int: 2x2 plane by hand");
        tap_same(ref_int(&a, &b), naive_int(&a, &b), "int: 2x2 plane equals the naive 2-D sums");
        free(a.v); free(b.v);
    }
    /* 3x1: W = 68*(68+55+28), 68*(55+68+55), 68*(28+55+68). */
    {
        Img a = img_from(3, 1, 8, (unsigned[]){ 0, 128, 255 });
        Img b = img_from(3, 1, 8, (unsigned[]){ 5, 120, 250 });
        tap_close(ref_int(&a, &b), 0.99812121147385602, 1e-14, "int: 3x1 plane by hand");
        tap_same(ref_int(&a, &b), naive_int(&a, &b), "int: 3x1 plane equals the naive 2-D sums");
        free(a.v); free(b.v);
    }
    /* 3x2 at 10 bits: a frame smaller than the 9x9 window in both directions. */
    {
        Img a = img_from(3, 2, 10, (unsigned[]){ 0, 512, 1023, 100, 200, 300 });
        Img b = img_from(3, 2, 10, (unsigned[]){ 10, 500, 1000, 90, 230, 280 });
        tap_close(ref_int(&a, &b), 0.99819232155051063, 1e-14,
                  "int: 3x2 10-bit plane (smaller than the window) by hand");
        tap_same(ref_int(&a, &b), naive_int(&a, &b), "int: 3x2 plane equals the naive 2-D sums");
        free(a.v); free(b.v);
    }
    /* the per-pixel term: constant windows give W * the closed form */
    {
        const double L = 255, c1b = L * L * (0.01 * 0.01), c2b = L * L * (0.03 * 0.03);
        const int64_t W = 65536, s = 100, d = 50;
        const double t = ff_fssim_ref_int_term(W * s, W * d, W * s * s, W * s * d, W * d * d, W,
                                               c1b, c2b);
        tap_close(t / W, 10006.5025 / 12506.5025, 1e-15,
                  "int: ff_fssim_ref_int_term of a constant window");
    }
}

static void test_int_props(void)
{
    static const int depths[] = { 8, 10, 12, 16 };

    for (int di = 0; di < 4; di++) {
        const int depth = depths[di];
        Img a = img_content(23, 19, depth, di, 6), b = img_distort(&a, 4);
        Img r1 = img_random(23, 19, depth), r2 = img_random(23, 19, depth);
        const double v = ref_int(&a, &b);

        tap_same(v, naive_int(&a, &b), "int %d-bit: 23x19 natural-like content equals naive", depth);
        tap_ok(v > 0.3 && v < 0.9999, "int %d-bit: distorted content scores below 1 (%.6f)", depth, v);
        tap_same(ref_int(&r1, &r2), naive_int(&r1, &r2), "int %d-bit: 23x19 random noise equals naive", depth);
        tap_same(ref_int(&a, &a), 1.0, "int %d-bit: identical planes give exactly 1", depth);
        tap_same(ref_int(&r1, &r1), 1.0, "int %d-bit: identical random planes give exactly 1", depth);
        /* Up to 10 bits every double of the formula of doc/algorithms.md#int is an exact integer
         * (< 2^53), so swapping a and b cannot change a bit.  From 12 bits on,
         * x2*W - mx2 + y2*W - my2 rounds differently from y2*W - my2 + x2*W
         * - mx2 (measured: ~1e-16 on a third of random planes): doc/algorithms.md#int's
         * association is not symmetric there, so only the value is. */
        if (depth <= 10)
            tap_same(ref_int(&b, &a), v, "int %d-bit: swapping a and b gives the same bits", depth);
        else
            tap_close(ref_int(&b, &a), v, 1e-15, "int %d-bit: swapping a and b gives the same score", depth);
        free(a.v); free(b.v); free(r1.v); free(r2.v);
    }

    /* flat planes: var = cov = 0 everywhere */
    {
        Img a = img_new(9, 7, 8), b = img_new(9, 7, 8);
        for (int i = 0; i < 63; i++) { a.v[i] = 30; b.v[i] = 200; }
        tap_close(ref_int(&a, &b), (2.0 * 30 * 200 + 6.5025) / (30.0 * 30 + 200.0 * 200 + 6.5025),
                  1e-14, "int: flat planes give (2 s d + C1) / (s^2 + d^2 + C1)");
        free(a.v); free(b.v);
    }

    /* border handling on odd sizes and frames smaller than the window */
    {
        static const int sizes[][2] = { { 3, 2 }, { 1, 9 }, { 8, 5 }, { 17, 9 }, { 9, 9 }, { 10, 1 } };
        for (int i = 0; i < 6; i++) {
            Img a = img_content(sizes[i][0], sizes[i][1], 8, i + 7, 10), b = img_distort(&a, 6);
            tap_same(ref_int(&a, &b), naive_int(&a, &b), "int: %dx%d plane equals naive (border taps skipped)",
                     sizes[i][0], sizes[i][1]);
            free(a.v); free(b.v);
        }
    }
    {
        Img a = img_content(1917, 1079, 8, 3, 8), b = img_distort(&a, 5);
        const double v = ref_int(&a, &b);
        tap_same(v, naive_int(&a, &b), "int: 1917x1079 plane equals naive");
        tap_same(ref_int(&a, &a), 1.0, "int: 1917x1079 identical planes give exactly 1");
        free(a.v); free(b.v);
    }
}

/* ---- memory layouts: semi-planar / MSB-aligned / padded ---------------- */

static void test_layouts(void)
{
    const FSSIMRefFloatParams fp = { 7, 1.2, FSSIM_REF_PAD_VALID };
    Img a = img_content(21, 13, 10, 5, 6), b = img_distort(&a, 5);
    void *s[4];
    /* planar 16-bit containers */
    FSSIMRefPlane pa = planar(&a, &s[0]), pb = planar(&b, &s[1]);
    /* P010-like: interleaved with a junk neighbour (step 2), value << 6,
     * one leading container (the V sample of a UV pair) */
    FSSIMRefPlane qa = mkplane(&a, 2, 2, 6, 10, 1, &s[2]), qb = mkplane(&b, 2, 2, 6, 2, 0, &s[3]);

    tap_same(ff_fssim_ref_int(&qa, &qb, 10), ff_fssim_ref_int(&pa, &pb, 10),
                   "int: P010 layout (step 2, shift 6) equals planar access");
    tap_same(ff_fssim_ref_float(&qa, &qb, 10, &fp), ff_fssim_ref_float(&pa, &pb, 10, &fp),
                   "float: P010 layout equals planar access");
    tap_same(ff_fssim_ref_block(&qa, &qb, 10), ff_fssim_ref_block(&pa, &pb, 10),
                   "block: P010 layout equals planar access");
    tap_same(ff_fssim_ref_int(&qa, &qb, 10), naive_int(&a, &b), "int: P010 layout equals naive");
    for (int i = 0; i < 4; i++)
        free(s[i]);
    free(a.v); free(b.v);

    /* NV12-like: 8-bit interleaved */
    a = img_content(19, 11, 8, 9, 6);
    b = img_distort(&a, 5);
    pa = planar(&a, &s[0]);
    pb = planar(&b, &s[1]);
    qa = mkplane(&a, 1, 2, 0, 5, 1, &s[2]);
    qb = mkplane(&b, 1, 2, 0, 0, 0, &s[3]);
    tap_same(ff_fssim_ref_int(&qa, &qb, 8), ff_fssim_ref_int(&pa, &pb, 8),
                   "int: NV12 layout (step 2, 8-bit) equals planar access");
    tap_same(ff_fssim_ref_float(&qa, &qb, 8, &fp), ff_fssim_ref_float(&pa, &pb, 8, &fp),
                   "float: NV12 layout equals planar access");
    tap_same(ff_fssim_ref_block(&qa, &qb, 8), ff_fssim_ref_block(&pa, &pb, 8),
                   "block: NV12 layout equals planar access");
    for (int i = 0; i < 4; i++)
        free(s[i]);
    free(a.v); free(b.v);

    /* P012 (shift 4) and 8-bit data in 16-bit containers with shift 8 */
    a = img_content(16, 12, 12, 2, 6);
    b = img_distort(&a, 5);
    pa = planar(&a, &s[0]);
    pb = planar(&b, &s[1]);
    qa = mkplane(&a, 2, 2, 4, 0, 0, &s[2]);
    qb = mkplane(&b, 2, 2, 4, 0, 1, &s[3]);
    tap_same(ff_fssim_ref_int(&qa, &qb, 12), ff_fssim_ref_int(&pa, &pb, 12),
                   "int: P012 layout (shift 4) equals planar access");
    tap_same(ff_fssim_ref_block(&qa, &qb, 12), naive_block(&a, &b), "block: P012 layout equals naive");
    for (int i = 0; i < 4; i++)
        free(s[i]);
    free(a.v); free(b.v);
}

/* ---- bands: what slice threading relies on ----------------------------- */

static void test_bands(void)
{
    const FSSIMRefFloatParams fp = { 11, 1.5, FSSIM_REF_PAD_VALID };
    const FSSIMRefFloatParams fs = { 5, 1.0, FSSIM_REF_PAD_SAME };
    static const int cuts[] = { 0, 1, 5, 16, 17, 30, 37 };   /* 37 rows */
    Img a = img_content(29, 37, 8, 11, 8), b = img_distort(&a, 6);
    void *s[2];
    FSSIMRefPlane pa = planar(&a, &s[0]), pb = planar(&b, &s[1]);
    FSSIMRefIntSums whole = { 0 }, seq = { 0 }, sep = { 0 };
    int ow, oh, nx, ny;
    /* scratch for the largest band of any algorithm, allocated once as a
     * filter does at configuration */
    void *scr = malloc(ff_fssim_ref_int_scratch_size(29, 37) +
                          ff_fssim_ref_float_scratch_size(29, 37, &fs) +
                          ff_fssim_ref_block_scratch_size(29));

    ff_fssim_ref_int_rows(&pa, &pb, 8, 0, 37, scr, &whole);
    for (int i = 0; i < 6; i++) {
        FSSIMRefIntSums band = { 0 };
        ff_fssim_ref_int_rows(&pa, &pb, 8, cuts[i], cuts[i + 1], scr, &seq);
        ff_fssim_ref_int_rows(&pa, &pb, 8, cuts[i], cuts[i + 1], scr, &band);
        sep.t += band.t;
        sep.w += band.w;
    }
    tap_ok(whole.w == sep.w && whole.w == seq.w, "int: band weights add up to the whole plane's exactly");
    tap_same(seq.t, whole.t, "int: bands into one accumulator give the whole plane's bits");
    tap_close(sep.t / (double)sep.w, whole.t / (double)whole.w, 1e-15,
              "int: band partial sums added give the whole-plane score");
    tap_same(whole.t / (double)whole.w, naive_int(&a, &b), "int: whole-plane rows equal naive");
    {
        FSSIMRefIntSums e = { 0 };
        ff_fssim_ref_int_rows(&pa, &pb, 8, 7, 7, scr, &e);
        tap_ok(e.t == 0.0 && e.w == 0, "int: an empty band adds nothing");
    }

    /* float, valid and same padding */
    for (int pi = 0; pi < 2; pi++) {
        const FSSIMRefFloatParams *p = pi ? &fs : &fp;
        double w1 = 0, w2 = 0, sp = 0;
        ff_fssim_ref_float_out_size(29, 37, p, &ow, &oh);
        ff_fssim_ref_float_rows(&pa, &pb, 8, p, 0, oh, scr, &w1);
        for (int y = 0; y < oh; y += 4) {
            double band = 0;
            ff_fssim_ref_float_rows(&pa, &pb, 8, p, y, y + 4 < oh ? y + 4 : oh, scr, &w2);
            ff_fssim_ref_float_rows(&pa, &pb, 8, p, y, y + 4 < oh ? y + 4 : oh, scr, &band);
            sp += band;
        }
        tap_same(w2, w1, "float (%s): bands into one accumulator give the whole plane's bits",
                 pi ? "same" : "valid");
        tap_close(sp, w1, 1e-12 * oh * ow, "float (%s): band partial sums add up to the whole plane",
                  pi ? "same" : "valid");
        tap_close(w1 / ((double)ow * oh), naive_float(&a, &b, p->window, p->sigma, pi), 1e-12,
                  "float (%s): whole-plane rows equal naive", pi ? "same" : "valid");
    }

    /* block */
    {
        double w1 = 0, w2 = 0;
        ff_fssim_ref_block_windows(29, 37, &nx, &ny);
        ff_fssim_ref_block_rows(&pa, &pb, 8, 0, ny, scr, &w1);
        for (int y = 0; y < ny; y += 3)
            ff_fssim_ref_block_rows(&pa, &pb, 8, y, y + 3 < ny ? y + 3 : ny, scr, &w2);
        tap_same(w2, w1, "block: window-row bands into one accumulator give the whole plane's bits");
        tap_same(w1 / ((double)nx * ny), naive_block(&a, &b), "block: whole-plane rows equal naive");
    }
    free(scr);
    free(s[0]); free(s[1]);
    free(a.v); free(b.v);
}

/* ---- float ------------------------------------------------------------- */

static void test_float(void)
{
    double g[FSSIM_MAX_WINDOW];
    int ow, oh;

    /* window 3, sigma 1.5: g = [e, 1, e] / (1 + 2e), e = exp(-1/4.5) */
    {
        const double e = exp(-1.0 / 4.5);
        ff_fssim_ref_gauss_weights(3, 1.5, g);
        tap_close(g[1], 1.0 / (1.0 + 2.0 * e), 1e-16, "float: 3-tap Gaussian centre weight");
        tap_close(g[0], e / (1.0 + 2.0 * e), 1e-16, "float: 3-tap Gaussian side weight");
        tap_close(g[1], 0.38439734175306001, 1e-15, "float: 3-tap Gaussian centre weight, literal");
    }
    for (int w = 3; w <= 15; w += 2) {
        double s = 0;
        int sym = 1, mono = 1;
        ff_fssim_ref_gauss_weights(w, 1.5, g);
        for (int i = 0; i < w; i++) {
            s += g[i];
            sym &= g[i] == g[w - 1 - i];
            mono &= i == 0 || (i <= w / 2 ? g[i] > g[i - 1] : g[i] < g[i - 1]);
        }
        tap_ok(fabs(s - 1.0) < 1e-15 && sym && mono,
               "float: %d-tap Gaussian weights sum to 1, symmetric, peaked", w);
    }

    tap_ok(ff_fssim_ref_float_out_size(20, 13, &DEF, &ow, &oh) == 0 && ow == 10 && oh == 3,
              "float: valid padding, window 11 scores (W-10)x(H-10) positions");
    {
        const FSSIMRefFloatParams s5 = { 11, 1.5, FSSIM_REF_PAD_SAME };
        tap_ok(ff_fssim_ref_float_out_size(5, 5, &s5, &ow, &oh) == 0 && ow == 5 && oh == 5,
                  "float: same padding scores every pixel");
    }
    tap_ok(ff_fssim_ref_float_out_size(10, 30, &DEF, &ow, &oh) < 0 && ow == 0 && oh == 0,
              "float: valid padding on a plane narrower than the window scores nothing");
    {
        Img a = img_content(10, 30, 8, 1, 3);
        tap_ok(isnan(ref_float(&a, &a, 11, 1.5, FSSIM_REF_PAD_VALID)),
               "float: ff_fssim_ref_float is NaN when nothing is scored");
        free(a.v);
    }

    /* 3x3 plane, window 3: one position, centre weight w2 = g1^2.
     * a = 100 with centre 200, b = a + 10: var_b = var_a = cov, so
     * SSIM = (2 mu_a mu_b + C1) / (mu_a^2 + mu_b^2 + C1), mu_a = 100 + 100 w2. */
    {
        Img a = img_new(3, 3, 8), b = img_new(3, 3, 8);
        const double g1 = 1.0 / (1.0 + 2.0 * exp(-1.0 / 4.5)), w2 = g1 * g1;
        const double mua = 100 + 100 * w2, mub = mua + 10, C1 = 6.5025;
        for (int i = 0; i < 9; i++) { a.v[i] = i == 4 ? 200 : 100; b.v[i] = a.v[i] + 10; }
        tap_close(ref_float(&a, &b, 3, 1.5, FSSIM_REF_PAD_VALID),
                  (2 * mua * mub + C1) / (mua * mua + mub * mub + C1), 1e-14,
                  "float: shifted plane, closed form (cov = var)");
        tap_close(ref_float(&a, &b, 3, 1.5, FSSIM_REF_PAD_VALID), 0.99652163579806297, 1e-14,
                  "float: shifted plane, literal");
        free(a.v); free(b.v);
    }
    /* centre impulses 200 and 50 on zero planes: mu = w2 v, E[ab] = w2 u v */
    {
        Img a = img_new(3, 3, 8), b = img_new(3, 3, 8);
        a.v[4] = 200;
        b.v[4] = 50;
        tap_close(ref_float(&a, &b, 3, 1.5, FSSIM_REF_PAD_VALID), 0.22590285614303571, 1e-14,
                  "float: centre impulses, closed-form moments (literal)");
        free(a.v); free(b.v);
    }
    /* padding=same on 5x5: every pixel, zeros outside */
    {
        Img a = img_content(5, 5, 8, 4, 20), b = img_distort(&a, 10);
        tap_close(ref_float(&a, &b, 11, 1.5, FSSIM_REF_PAD_SAME), naive_float(&a, &b, 11, 1.5, 1),
                  1e-12, "float: padding=same on 5x5 (window 11 > plane) equals naive zero padding");
        tap_close(ref_float(&a, &b, 3, 0.8, FSSIM_REF_PAD_SAME), naive_float(&a, &b, 3, 0.8, 1),
                  1e-12, "float: padding=same on 5x5, window 3 equals naive");
        tap_close(ref_float(&a, &b, 5, 1.5, FSSIM_REF_PAD_VALID), naive_float(&a, &b, 5, 1.5, 0),
                  1e-12, "float: padding=valid on 5x5, window 5 (one position) equals naive");
        tap_same(ref_float(&a, &a, 11, 1.5, FSSIM_REF_PAD_SAME), 1.0,
                 "float: padding=same, identical planes give exactly 1");
        free(a.v); free(b.v);
    }

    static const int depths[] = { 8, 10, 12, 16 };
    for (int di = 0; di < 4; di++) {
        const int depth = depths[di];
        Img a = img_content(24, 17, depth, 20 + di, 6), b = img_distort(&a, 4);
        Img r1 = img_random(17, 15, depth), r2 = img_random(17, 15, depth);
        const double v = ref_float(&a, &b, 11, 1.5, FSSIM_REF_PAD_VALID);
        tap_close(v, naive_float(&a, &b, 11, 1.5, 0), 1e-12, "float %d-bit: 24x17 valid equals naive", depth);
        tap_close(ref_float(&a, &b, 7, 1.0, FSSIM_REF_PAD_SAME), naive_float(&a, &b, 7, 1.0, 1), 1e-12,
                  "float %d-bit: 24x17 same, window 7 sigma 1 equals naive", depth);
        tap_close(ref_float(&r1, &r2, 15, 3.0, FSSIM_REF_PAD_VALID), naive_float(&r1, &r2, 15, 3.0, 0),
                  1e-12, "float %d-bit: random noise, window 15 equals naive", depth);
        tap_ok(v > 0.3 && v < 0.9999, "float %d-bit: distorted content scores below 1 (%.6f)", depth, v);
        tap_same(ref_float(&a, &a, 11, 1.5, FSSIM_REF_PAD_VALID), 1.0,
                 "float %d-bit: identical planes give exactly 1", depth);
        tap_same(ref_float(&b, &a, 11, 1.5, FSSIM_REF_PAD_VALID), v,
                 "float %d-bit: swapping a and b gives the same bits", depth);
        free(a.v); free(b.v); free(r1.v); free(r2.v);
    }
    /* flat planes */
    {
        Img a = img_new(13, 12, 8), b = img_new(13, 12, 8);
        for (int i = 0; i < 13 * 12; i++) { a.v[i] = 30; b.v[i] = 200; }
        tap_close(ref_float(&a, &b, 11, 1.5, FSSIM_REF_PAD_VALID),
                  (2.0 * 30 * 200 + 6.5025) / (30.0 * 30 + 200.0 * 200 + 6.5025), 1e-12,
                  "float: flat planes give (2 s d + C1) / (s^2 + d^2 + C1)");
        free(a.v); free(b.v);
    }
    /* odd sizes */
    {
        Img a = img_content(17, 9, 8, 31, 10), b = img_distort(&a, 6);
        tap_close(ref_float(&a, &b, 7, 1.5, FSSIM_REF_PAD_VALID), naive_float(&a, &b, 7, 1.5, 0), 1e-12,
                  "float: 17x9 valid (window 7) equals naive");
        tap_close(ref_float(&a, &b, 11, 1.5, FSSIM_REF_PAD_SAME), naive_float(&a, &b, 11, 1.5, 1), 1e-12,
                  "float: 17x9 same (window 11) equals naive");
        free(a.v); free(b.v);
    }
    {
        Img a = img_content(1917, 1079, 8, 32, 8), b = img_distort(&a, 5);
        tap_close(ref_float(&a, &b, 7, 1.5, FSSIM_REF_PAD_SAME), naive_float(&a, &b, 7, 1.5, 1), 1e-12,
                  "float: 1917x1079 same (window 7) equals naive");
        tap_same(ref_float(&a, &a, 11, 1.5, FSSIM_REF_PAD_VALID), 1.0,
                 "float: 1917x1079 identical planes give exactly 1");
        free(a.v); free(b.v);
    }
}

/* ---- block ------------------------------------------------------------- */

static void test_block(void)
{
    int nx, ny;

    tap_ok(ff_fssim_ref_block_windows(8, 8, &nx, &ny) == 0 && nx == 1 && ny == 1,
              "block: an 8x8 plane has one window");
    tap_ok(ff_fssim_ref_block_windows(17, 9, &nx, &ny) == 0 && nx == 3 && ny == 1,
              "block: 17x9 has 3x1 windows (4x4 blocks, stride 4, partial blocks dropped)");
    tap_ok(ff_fssim_ref_block_windows(7, 100, &nx, &ny) < 0 && ff_fssim_ref_block_windows(6, 6, &nx, &ny) < 0,
                 "block: planes narrower or lower than 8 have no window");

    /*
     * 8x8, a = 100, b = 50 (8-bit): s1 = 6400, s2 = 3200, vars = covar = 0.
     * c1 = (int)(.0001*255^2*64 + .5) = 416, c2 = (int)(.0009*255^2*64*63 + .5)
     * = 235963; SSIM = (float)(2*6400*3200 + 416) * (float)c2 /
     * ((float)(6400^2 + 3200^2 + 416) * (float)c2) = 40960416 / 51200416 in
     * float arithmetic = 0.80000162124633789 (numpy float32).
     */
    {
        Img a = img_new(8, 8, 8), b = img_new(8, 8, 8);
        for (int i = 0; i < 64; i++) { a.v[i] = 100; b.v[i] = 50; }
        tap_close(ref_block(&a, &b), 0.80000162124633789, 0, "block: 8x8 flat planes by hand");
        tap_close(ref_block(&a, &b), 40960416.0 / 51200416.0, 1e-7, "block: 8x8 flat planes, exact ratio");
        free(a.v); free(b.v);
    }
    /* a = 16x + 8y, b = a + (x*y) % 7 - 3: the one window's sums and
     * ssim_end1 in numpy float32 give 0.99858075380325317. */
    {
        Img a = img_new(8, 8, 8), b = img_new(8, 8, 8), a10 = img_new(8, 8, 10), b10 = img_new(8, 8, 10);
        for (int y = 0; y < 8; y++)
            for (int x = 0; x < 8; x++) {
                int v = 16 * x + 8 * y, w = v + (x * y) % 7 - 3;
                a.v[y * 8 + x] = v;
                b.v[y * 8 + x] = w < 0 ? 0 : w;
                a10.v[y * 8 + x] = 4 * v + (x + y) % 5;
                b10.v[y * 8 + x] = 4 * b.v[y * 8 + x];
            }
        tap_close(ref_block(&a, &b), 0.99858075380325317, 0, "block: 8x8 gradient by hand");
        /* the 10-bit path: int64 moments, constants from max = 1023 */
        tap_close(ref_block(&a10, &b10), 0.99844563007354736, 0, "block: 8x8 10-bit gradient by hand");
        free(a.v); free(b.v); free(a10.v); free(b10.v);
    }

    static const int depths[] = { 8, 9, 10, 12, 16 };
    for (int di = 0; di < 5; di++) {
        const int depth = depths[di];
        Img a = img_content(37, 26, depth, 40 + di, 6), b = img_distort(&a, 4);
        Img r1 = img_random(33, 17, depth), r2 = img_random(33, 17, depth);
        const double v = ref_block(&a, &b);
        tap_same(v, naive_block(&a, &b), "block %d-bit: 37x26 content equals naive", depth);
        tap_same(ref_block(&r1, &r2), naive_block(&r1, &r2), "block %d-bit: random noise equals naive", depth);
        tap_ok(v > 0.3 && v < 0.9999, "block %d-bit: distorted content scores below 1 (%.6f)", depth, v);
        tap_same(ref_block(&a, &a), 1.0, "block %d-bit: identical planes give exactly 1", depth);
        tap_same(ref_block(&r1, &r1), 1.0, "block %d-bit: identical random planes give exactly 1", depth);
        tap_same(ref_block(&b, &a), v, "block %d-bit: swapping a and b gives the same bits", depth);
        free(a.v); free(b.v); free(r1.v); free(r2.v);
    }
    {
        Img a = img_content(17, 9, 8, 50, 10), b = img_distort(&a, 6);
        tap_same(ref_block(&a, &b), naive_block(&a, &b), "block: 17x9 equals naive");
        free(a.v); free(b.v);
        a = img_content(7, 7, 8, 51, 10);
        tap_ok(isnan(ref_block(&a, &a)), "block: a 7x7 plane gives NaN (no window)");
        free(a.v);
    }
    {
        Img a = img_content(1917, 1079, 8, 52, 8), b = img_distort(&a, 5);
        Img c = img_content(1917, 1079, 10, 53, 8), d = img_distort(&c, 5);
        tap_same(ref_block(&a, &b), naive_block(&a, &b), "block: 1917x1079 8-bit equals naive");
        tap_same(ref_block(&c, &d), naive_block(&c, &d), "block: 1917x1079 10-bit equals naive");
        free(a.v); free(b.v); free(c.v); free(d.v);
    }
}

/* ---- temporal weights (fssim3d's border) ------------------------------- */

static void test_temporal(void)
{
    double wt[16], g[16];
    const int depth = 5;
    int r;

    for (int k = 0; k < depth; k++)
        g[k] = exp(-(double)((k - 2) * (k - 2)) / (2 * 1.5 * 1.5));

    /* middle of a long sequence: the plain normalised Gaussian */
    r = ff_fssim_ref_temporal_weights(depth, 1.5, FSSIM_REF_TPAD_TRUNCATE, 5, 20, wt);
    {
        double s = g[0] + g[1] + g[2] + g[3] + g[4], err = 0;
        for (int k = 0; k < depth; k++)
            err = fmax(err, fabs(wt[k] - g[k] / s));
        tap_ok(r == 1 && err < 1e-16, "temporal: full window is the normalised Gaussian");
    }
    r = ff_fssim_ref_temporal_weights(depth, 1.5, FSSIM_REF_TPAD_VALID, 5, 20, wt);
    tap_ok(r == 1, "temporal: valid scores a frame with a full window");

    /* first frame, truncate: frames -2, -1 dropped, the rest renormalised */
    r = ff_fssim_ref_temporal_weights(depth, 1.5, FSSIM_REF_TPAD_TRUNCATE, 0, 20, wt);
    {
        const double s = g[2] + g[3] + g[4];
        tap_ok(r == 1 && wt[0] == 0 && wt[1] == 0 && fabs(wt[2] - g[2] / s) < 1e-16 &&
               fabs(wt[3] - g[3] / s) < 1e-16 && fabs(wt[4] - g[4] / s) < 1e-16,
               "temporal: truncate at the start drops frames before 0 and renormalises");
        tap_close(wt[2] + wt[3] + wt[4], 1.0, 1e-15, "temporal: truncated weights sum to 1");
    }
    r = ff_fssim_ref_temporal_weights(depth, 1.5, FSSIM_REF_TPAD_VALID, 0, 20, wt);
    tap_ok(r == 0, "temporal: valid gives no score to frame 0");
    r = ff_fssim_ref_temporal_weights(depth, 1.5, FSSIM_REF_TPAD_VALID, 1, 20, wt);
    tap_ok(r == 0, "temporal: valid gives no score to frame 1 (depth 5)");
    r = ff_fssim_ref_temporal_weights(depth, 1.5, FSSIM_REF_TPAD_VALID, 2, 20, wt);
    tap_ok(r == 1, "temporal: valid scores frame 2 (depth 5)");

    /* last frame of 10: frames 10, 11 do not exist */
    r = ff_fssim_ref_temporal_weights(depth, 1.5, FSSIM_REF_TPAD_TRUNCATE, 9, 10, wt);
    {
        const double s = g[0] + g[1] + g[2];
        tap_ok(r == 1 && wt[3] == 0 && wt[4] == 0 && fabs(wt[0] - g[0] / s) < 1e-16 &&
               fabs(wt[2] - g[2] / s) < 1e-16,
               "temporal: truncate at the end drops frames past the last");
    }
    r = ff_fssim_ref_temporal_weights(depth, 1.5, FSSIM_REF_TPAD_VALID, 8, 10, wt);
    tap_ok(r == 0, "temporal: valid gives no score to the second-to-last frame");
    r = ff_fssim_ref_temporal_weights(depth, 1.5, FSSIM_REF_TPAD_VALID, 7, 10, wt);
    tap_ok(r == 1, "temporal: valid scores the last frame with a full window");
    /* end unknown yet: every later frame counts as present */
    r = ff_fssim_ref_temporal_weights(depth, 1.5, FSSIM_REF_TPAD_VALID, 9, -1, wt);
    tap_ok(r == 1 && wt[4] > 0, "temporal: an unknown end counts later frames as present");
    /* sequence shorter than the window: both ends truncated */
    r = ff_fssim_ref_temporal_weights(depth, 1.5, FSSIM_REF_TPAD_TRUNCATE, 0, 1, wt);
    tap_ok(r == 1 && wt[2] == 1.0 && wt[0] == 0 && wt[1] == 0 && wt[3] == 0 && wt[4] == 0,
           "temporal: a one-frame sequence puts all the weight on it");

    /* the 3-D score with all temporal weight on one frame is the 2-D score */
    {
        Img a = img_content(20, 18, 8, 60, 6), b = img_distort(&a, 4);
        void *s[2];
        FSSIMRefPlane pa = planar(&a, &s[0]), pb = planar(&b, &s[1]);
        FSSIMRefMoments m;
        int ow, oh;
        ff_fssim_ref_float_out_size(20, 18, &DEF, &ow, &oh);
        void *scr = malloc(ff_fssim_ref_float_moments_scratch_size(ow, oh, &DEF));
        ff_fssim_ref_moments_alloc(&m, ow, oh);
        ff_fssim_ref_float_moments_rows(&pa, &pb, &DEF, 0, oh, scr, &m);
        free(scr);
        const FSSIMRefMoments *mom[3] = { NULL, &m, NULL };
        const double w3[3] = { 0, 1, 0 };
        tap_close(ff_fssim_ref_3d_score(mom, w3, 3, (0.01 * 255) * (0.01 * 255), (0.03 * 255) * (0.03 * 255)),
                     ff_fssim_ref_float(&pa, &pb, 8, &DEF), 1e-15,
                     "3d: one frame of temporal weight gives the 2-D float score");
        ff_fssim_ref_moments_free(&m);
        free(s[0]); free(s[1]);
        free(a.v); free(b.v);
    }
}

int main(void)
{
    test_int_hand();
    test_int_props();
    test_layouts();
    test_bands();
    test_float();
    test_block();
    test_temporal();
    return tap_done();
}
