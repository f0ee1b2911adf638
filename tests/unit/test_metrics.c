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
 * Unit tests of the CPU reference's PSNR and MS-SSIM (filters/core/ref_psnr.c,
 * filters/core/ref_msssim.c), in TAP.
 *
 * Expected values are worked out by hand (the arithmetic is next to each
 * literal), come from closed forms for planes whose statistics are known,
 * or from a deliberately naive MS-SSIM written here: direct 2-D windows
 * (weights g[i]*g[j], no separable passes), a Gaussian computed again here,
 * pooling written as "the four samples of the 2x2 cell, zero outside", on
 * a plain array of sample values instead of through FSSIMRefPlane.  The
 * agreement with pytorch-msssim itself is checked by
 * tests/peers/test_msssim.py.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fssim_ref.h"
#include "tap.h"

#define IMG_RNG_SEED 0x2545F4914F6CDD1Dull
#include "img.h"

#define NS FSSIM_REF_MSSSIM_SCALES

/* ---- test planes -------------------------------------------------------- */

/* Smooth picture-like content plus noise. */
static Img img_content(int w, int h, int depth, int seed, int noise)
{
    return img_waves(w, h, depth, seed, noise, 0.13, 0.09, 0.031);
}

/* A distorted copy: horizontal 3-tap blur plus noise, clipped. */
static Img img_distort(const Img *a, int noise)
{
    Img b = img_new(a->w, a->h, a->depth);
    const long L = (1L << a->depth) - 1;
    for (int y = 0; y < a->h; y++)
        for (int x = 0; x < a->w; x++) {
            const int x0 = x > 0 ? x - 1 : x, x1 = x + 1 < a->w ? x + 1 : x;
            long v = ((long)px(a, x0, y) + 2L * px(a, x, y) + px(a, x1, y) + 2) / 4 +
                     ((long)rnd(2 * noise + 1) - noise) * ((L + 1) / 256);
            b.v[(size_t)y * a->w + x] = v < 0 ? 0u : v > L ? (unsigned)L : (unsigned)v;
        }
    return b;
}

static Img img_flat(int w, int h, int depth, unsigned value)
{
    Img im = img_new(w, h, depth);
    for (size_t i = 0; i < (size_t)w * h; i++)
        im.v[i] = value;
    return im;
}

/* ---- the reference, called on images ------------------------------------ */

static uint64_t ref_sse(const Img *a, const Img *b)
{
    void *sa, *sb;
    const FSSIMRefPlane pa = planar(a, &sa), pb = planar(b, &sb);
    uint64_t sse = 0;
    ff_fssim_ref_sse_rows(&pa, &pb, 0, a->h, &sse);
    free(sa);
    free(sb);
    return sse;
}

/* ff_fssim_ref_msssim_scales with a scratch of exactly the size asked for,
 * followed by guard values that must survive the call. */
static int ref_scales(const FSSIMRefPlane *pa, const FSSIMRefPlane *pb, int depth,
                      int window, double sigma, double s[NS], double cs[NS], int *guard_ok)
{
    const size_t n = ff_fssim_ref_msssim_work_size(pa->width, pa->height);
    double *work = malloc(sizeof(*work) * (n + 8));
    int ret;

    if (!work)
        tap_bail("out of memory");
    for (int i = 0; i < 8; i++)
        work[n + i] = -12345.5;
    ret = ff_fssim_ref_msssim_scales(pa, pb, depth, window, sigma, work, s, cs);
    if (guard_ok) {
        *guard_ok = 1;
        for (int i = 0; i < 8; i++)
            *guard_ok &= work[n + i] == -12345.5;
    }
    free(work);
    return ret;
}

static int img_scales(const Img *a, const Img *b, int window, double sigma,
                      double s[NS], double cs[NS])
{
    void *sa, *sb;
    const FSSIMRefPlane pa = planar(a, &sa), pb = planar(b, &sb);
    const int ret = ref_scales(&pa, &pb, a->depth, window, sigma, s, cs, NULL);
    free(sa);
    free(sb);
    return ret;
}

/* ---- naive MS-SSIM (independent of the reference's code) ---------------- */

typedef struct DImg {
    int w, h;
    double *v;
} DImg;

static DImg dimg_new(int w, int h)
{
    DImg d = { w, h, calloc((size_t)w * h, sizeof(double)) };
    if (!d.v)
        tap_bail("out of memory");
    return d;
}

/* sample (x, y), zero outside the plane */
static double dpx(const DImg *d, int x, int y)
{
    if (x < 0 || y < 0 || x >= d->w || y >= d->h)
        return 0.0;
    return d->v[(size_t)y * d->w + x];
}

/* The next scale: output (x, y) averages the 2x2 cell that starts one
 * sample before 2x (2y) in an odd dimension, at 2x (2y) in an even one. */
static DImg naive_pool(const DImg *d)
{
    const int ox = d->w % 2, oy = d->h % 2;
    DImg r = dimg_new((d->w + 1) / 2, (d->h + 1) / 2);
    for (int y = 0; y < r.h; y++)
        for (int x = 0; x < r.w; x++) {
            const int x0 = 2 * x - ox, y0 = 2 * y - oy;
            r.v[(size_t)y * r.w + x] = (dpx(d, x0, y0) + dpx(d, x0 + 1, y0) +
                                        dpx(d, x0, y0 + 1) + dpx(d, x0 + 1, y0 + 1)) / 4;
        }
    return r;
}

/* Mean SSIM and CS maps over the valid positions, direct 2-D windows. */
static void naive_ssim(const DImg *a, const DImg *b, int window, double sigma, double L,
                       double *s, double *cs)
{
    const double c1 = (0.01 * L) * (0.01 * L), c2 = (0.03 * L) * (0.03 * L);
    double g[FSSIM_MAX_WINDOW], gs = 0.0, ssum = 0.0, cssum = 0.0;
    const int ow = a->w - window + 1, oh = a->h - window + 1;

    for (int i = 0; i < window; i++) {
        g[i] = exp(-pow(i - window / 2, 2) / (2 * sigma * sigma));
        gs  += g[i];
    }
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++) {
            double ma = 0, mb = 0, aa = 0, bb = 0, ab = 0;
            for (int j = 0; j < window; j++)
                for (int i = 0; i < window; i++) {
                    const double k = (g[i] / gs) * (g[j] / gs);
                    const double p = dpx(a, x + i, y + j), q = dpx(b, x + i, y + j);
                    ma += k * p;
                    mb += k * q;
                    aa += k * p * p;
                    bb += k * q * q;
                    ab += k * p * q;
                }
            const double c = (2 * (ab - ma * mb) + c2) /
                             (aa - ma * ma + bb - mb * mb + c2);
            ssum  += c * (2 * ma * mb + c1) / (ma * ma + mb * mb + c1);
            cssum += c;
        }
    *s  = ssum / ((double)ow * oh);
    *cs = cssum / ((double)ow * oh);
}

static double naive_msssim(const Img *a, const Img *b, int window, double sigma,
                           double s[NS], double cs[NS])
{
    static const double wt[NS] = { 0.0448, 0.2856, 0.3001, 0.2363, 0.1333 };
    const double L = (double)((1u << a->depth) - 1);
    DImg da = dimg_new(a->w, a->h), db = dimg_new(a->w, a->h);
    double v = 1.0;

    for (size_t i = 0; i < (size_t)a->w * a->h; i++) {
        da.v[i] = a->v[i];
        db.v[i] = b->v[i];
    }
    for (int j = 0; j < NS; j++) {
        naive_ssim(&da, &db, window, sigma, L, &s[j], &cs[j]);
        if (j < NS - 1) {
            DImg na = naive_pool(&da), nb = naive_pool(&db);
            free(da.v);
            free(db.v);
            da = na;
            db = nb;
            v *= pow(cs[j] > 0 ? cs[j] : 0, wt[j]);
        } else {
            v *= pow(s[j] > 0 ? s[j] : 0, wt[j]);
        }
    }
    free(da.v);
    free(db.v);
    return v;
}

/* ---- PSNR ----------------------------------------------------------------- */

static void test_psnr(void)
{
    /* a: 4x3, 8-bit; b = a + d with d = 0 1 -1 2 / -2 3 -3 4 / -4 5 -5 6:
     * SSE = 0+1+1+4 + 4+9+9+16 + 16+25+25+36 = 146 */
    static const unsigned av[12] = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120 };
    static const int dv[12] = { 0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6 };
    unsigned bv[12];
    for (int i = 0; i < 12; i++)
        bv[i] = (unsigned)((int)av[i] + dv[i]);
    Img a = img_from(4, 3, 8, av), b = img_from(4, 3, 8, bv);
    uint64_t sse = ref_sse(&a, &b);
    tap_ok(sse == 146, "sse: 4x3 hand case is 146 (got %llu)", (unsigned long long)sse);
    tap_ok(ref_sse(&b, &a) == 146, "sse: symmetric");

    /* bands: rows [0,1) then [1,3) add to the same */
    {
        void *sa, *sb;
        const FSSIMRefPlane pa = planar(&a, &sa), pb = planar(&b, &sb);
        uint64_t s2 = 0;
        ff_fssim_ref_sse_rows(&pa, &pb, 0, 1, &s2);
        tap_ok(s2 == 1 + 1 + 4, "sse: first row alone is 6");
        ff_fssim_ref_sse_rows(&pa, &pb, 1, 3, &s2);
        tap_ok(s2 == 146, "sse: two bands add to 146");
        free(sa);
        free(sb);
    }

    /* every layout reads the same samples */
    {
        const int lay[3][3] = { { 2, 1, 0 }, { 2, 2, 6 }, { 1, 2, 0 } };
        for (int l = 0; l < 3; l++) {
            void *sa, *sb;
            a.depth = b.depth = lay[l][2] ? 10 : 8;
            const FSSIMRefPlane pa = mkplane(&a, lay[l][0], lay[l][1], lay[l][2], 6, 0, &sa);
            const FSSIMRefPlane pb = mkplane(&b, lay[l][0], lay[l][1], lay[l][2], 6, 0, &sb);
            uint64_t s2 = 0;
            ff_fssim_ref_sse_rows(&pa, &pb, 0, 3, &s2);
            tap_ok(s2 == 146, "sse: layout bytes=%d step=%d shift=%d gives 146",
                   lay[l][0], lay[l][1], lay[l][2]);
            free(sa);
            free(sb);
        }
        a.depth = b.depth = 8;
    }

    /* MSE 146/12; PSNR 10 log10(255^2 / (146/12)) = 37.279087511310976
     * (evaluated in Python) and at 10 bits 10 log10(1023^2 / (146/12)) =
     * 49.34579657687508 */
    const double mse = ff_fssim_ref_mse(sse, 4, 3);
    tap_same(mse, 146.0 / 12.0, "mse: 146/12");
    tap_close(ff_fssim_ref_psnr_from_mse(mse, 8), 37.279087511310976, 1e-12, "psnr: 8-bit hand case");
    tap_close(ff_fssim_ref_psnr_from_mse(mse, 10), 49.34579657687508, 1e-12, "psnr: 10-bit hand case");
    /* MSE 1 at 8 bits: 10 log10(65025) = 48.1308036086791 */
    tap_close(ff_fssim_ref_psnr_from_mse(1.0, 8), 48.1308036086791, 1e-12, "psnr: mse 1, 8-bit");
    /* MSE = L^2 at 16 bits: 10 log10(1) = 0 exactly */
    tap_same(ff_fssim_ref_psnr_from_mse(65535.0 * 65535.0, 16), 0.0, "psnr: mse L^2 gives 0 dB");

    /* identical planes: SSE 0, MSE 0, PSNR +inf */
    {
        const uint64_t z = ref_sse(&a, &a);
        const double p = ff_fssim_ref_psnr_from_mse(ff_fssim_ref_mse(z, 4, 3), 8);
        tap_ok(z == 0 && isinf(p) && p > 0, "psnr: identical planes give SSE 0 and +inf (%g)", p);
    }
    free(a.v);
    free(b.v);

    /* 16-bit extremes: 2048x2048 of 0 against 65535.  SSE = 2^22 * 65535^2
     * = 4194304 * 4294836225 = 18013848757862400 > 2^53; with one sample
     * equal, 4194303 * 4294836225 = 18013844463026175, odd, so not even a
     * double: only exact integer sums give it. */
    {
        Img z = img_flat(2048, 2048, 16, 0), m = img_flat(2048, 2048, 16, 65535);
        uint64_t s1 = ref_sse(&z, &m);
        tap_ok(s1 == 18013848757862400ull, "sse: 2048x2048 16-bit 0 vs 65535 exact (%llu)",
               (unsigned long long)s1);
        m.v[1234567] = 0;
        s1 = ref_sse(&m, &z);
        tap_ok(s1 == 18013844463026175ull, "sse: one sample equal, odd SSE above 2^53 exact (%llu)",
               (unsigned long long)s1);
        tap_close(ff_fssim_ref_psnr_from_mse(ff_fssim_ref_mse(18013848757862400ull, 2048, 2048), 16),
                        0.0, 1e-15, "psnr: 16-bit extremes give 0 dB");
        free(z.v);
        free(m.v);
    }

    /* All: Y 4x4 with MSE 1, U and V 2x2 with MSE 4: (16*1 + 4*4 + 4*4) / 24 = 2 */
    {
        const double m3[3] = { 1.0, 4.0, 4.0 };
        const int w3[3] = { 4, 2, 2 }, h3[3] = { 4, 2, 2 };
        tap_close(ff_fssim_ref_mse_all(m3, w3, h3, 3), 2.0, 1e-15, "mse_all: 4:2:0 hand case is 2");
        const double z3[3] = { 0.0, 0.0, 0.0 };
        tap_ok(isinf(ff_fssim_ref_psnr_from_mse(ff_fssim_ref_mse_all(z3, w3, h3, 3), 8)),
                     "mse_all: all planes identical gives +inf");
        /* one plane: the plane itself */
        tap_same(ff_fssim_ref_mse_all(m3 + 1, w3, h3, 1), 4.0, "mse_all: a single plane is its MSE");
    }
}

/* ---- MS-SSIM: pieces ------------------------------------------------------ */

static void test_msssim_pieces(void)
{
    static const double wt[NS] = { 0.0448, 0.2856, 0.3001, 0.2363, 0.1333 };
    for (int j = 0; j < NS; j++)
        tap_same(ff_fssim_ref_msssim_weights[j], wt[j], "msssim: weight %d", j);

    /* (window - 1) * 16 + 1 */
    static const int mins[4][2] = { { 11, 161 }, { 3, 33 }, { 7, 97 }, { 15, 225 } };
    for (int i = 0; i < 4; i++)
        tap_ok(ff_fssim_ref_msssim_min_side(mins[i][0]) == mins[i][1],
                  "msssim: min side of window %d is %d", mins[i][0], mins[i][1]);

    /* 161 -> 81 -> 41 -> 21 -> 11; 1920x1080 -> 960x540 -> 480x270 -> 240x135 -> 120x68 */
    {
        int sw, sh;
        ff_fssim_ref_msssim_scale_size(161, 1080, 4, &sw, &sh);
        tap_ok(sw == 11 && sh == 68, "msssim: scale 5 of 161x1080 is 11x68 (%dx%d)", sw, sh);
        ff_fssim_ref_msssim_scale_size(333, 201, 2, &sw, &sh);
        tap_ok(sw == 84 && sh == 51, "msssim: scale 3 of 333x201 is 84x51 (%dx%d)", sw, sh);
        /* 2*(161^2 + 81^2 + 41^2 + 21^2 + 11^2) + 5*161 = 70255 */
        tap_ok(ff_fssim_ref_msssim_work_size(161, 161) == 70255,
                  "msssim: work size of 161x161 is 70255 doubles");
    }

    /* pooling by hand.  3x3 (both odd, one zero row and column first):
     *   1 2 3
     *   4 5 6  ->  1/4        (2+3)/4          =  0.25 1.25
     *   7 8 9      (4+7)/4    (5+6+8+9)/4         2.75 7
     */
    {
        static const double s33[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
        static const double e33[4] = { 0.25, 1.25, 2.75, 7.0 };
        double d[4];
        ff_fssim_ref_msssim_pool_rows(s33, 3, 3, 0, 2, d);
        tap_ok(!memcmp(d, e33, sizeof(d)), "pool: 3x3 -> 0.25 1.25 / 2.75 7 (%g %g %g %g)",
               d[0], d[1], d[2], d[3]);
        /* 4 wide, 3 high (rows odd only):
         *   1  2  3  4
         *   5  6  7  8   ->  (1+2)/4          (3+4)/4           = 0.75 1.75
         *   9 10 11 12       (5+6+9+10)/4     (7+8+11+12)/4       7.5  9.5  */
        static const double s43[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
        static const double e43[4] = { 0.75, 1.75, 7.5, 9.5 };
        ff_fssim_ref_msssim_pool_rows(s43, 4, 3, 0, 2, d);
        tap_ok(!memcmp(d, e43, sizeof(d)), "pool: 4x3 -> 0.75 1.75 / 7.5 9.5 (%g %g %g %g)",
               d[0], d[1], d[2], d[3]);
        /* 3 wide, 4 high (columns odd only):
         *   1  2  3
         *   4  5  6   ->  (1+4)/4    (2+3+5+6)/4      = 1.25 4
         *   7  8  9       (7+10)/4   (8+9+11+12)/4      4.25 10
         *  10 11 12 */
        static const double e34[4] = { 1.25, 4.0, 4.25, 10.0 };
        ff_fssim_ref_msssim_pool_rows(s43, 3, 4, 0, 2, d);
        tap_ok(!memcmp(d, e34, sizeof(d)), "pool: 3x4 -> 1.25 4 / 4.25 10 (%g %g %g %g)",
               d[0], d[1], d[2], d[3]);
        /* 2x2 (the first four values, 1 2 / 3 4): the plain mean 2.5;
         * 1x1: one sample and three zeros, 7 / 4 = 1.75 */
        ff_fssim_ref_msssim_pool_rows(s33, 2, 2, 0, 1, d);
        tap_same(d[0], 2.5, "pool: 2x2 of 1 2 / 3 4 is 2.5");
        static const double one = 7.0;
        ff_fssim_ref_msssim_pool_rows(&one, 1, 1, 0, 1, d);
        tap_same(d[0], 1.75, "pool: 1x1 of 7 is 7/4");
        /* 5x5 of v = 10y + x: output (1, 1) is the cell of rows 1-2,
         * columns 1-2: (11 + 12 + 21 + 22) / 4 = 16.5; output (2, 0) is
         * rows 3-4 of column 0 and a zero column: (30 + 40) / 4 = 17.5 */
        double s55[25], d9[9];
        for (int i = 0; i < 25; i++)
            s55[i] = 10 * (i / 5) + i % 5;
        ff_fssim_ref_msssim_pool_rows(s55, 5, 5, 0, 3, d9);
        tap_ok(d9[4] == 16.5 && d9[6] == 17.5, "pool: 5x5 -> 3x3 cells (%g %g)", d9[4], d9[6]);
        /* bands of output rows give the same values */
        double b9[9];
        ff_fssim_ref_msssim_pool_rows(s55, 5, 5, 0, 1, b9);
        ff_fssim_ref_msssim_pool_rows(s55, 5, 5, 1, 3, b9);
        tap_ok(!memcmp(b9, d9, sizeof(b9)), "pool: bands of rows give the same plane");
    }

    /* combine: exp(sum w_j log v_j); a negative mean counts as 0 */
    {
        const double s[NS]  = { 0.9, 0.8, 0.7, 0.6, 0.25 };
        const double cs[NS] = { 0.5, 0.5, 0.5, 0.5, -3.0 };
        const double want = exp((0.0448 + 0.2856 + 0.3001 + 0.2363) * log(0.5) +
                                0.1333 * log(0.25));
        tap_close(ff_fssim_ref_msssim_combine(s, cs), want, 1e-15,
                     "combine: cs 0.5 at scales 1-4 and s 0.25 at scale 5");
        const double csn[NS] = { 0.5, -0.1, 0.5, 0.5, 0.5 };
        tap_same(ff_fssim_ref_msssim_combine(s, csn), 0.0, "combine: a negative CS gives 0");
        const double sn[NS] = { 0.9, 0.8, 0.7, 0.6, -0.01 };
        tap_same(ff_fssim_ref_msssim_combine(sn, cs), 0.0, "combine: a negative S_5 gives 0");
        const double ones[NS] = { 1, 1, 1, 1, 1 };
        tap_same(ff_fssim_ref_msssim_combine(ones, ones), 1.0, "combine: all ones give 1");
    }
}

/* ---- MS-SSIM: sizes ------------------------------------------------------- */

static void test_msssim_sizes(void)
{
    /* window, the smallest side scored; one below it is refused, in either
     * dimension */
    static const int cases[4][2] = { { 11, 161 }, { 3, 33 }, { 7, 97 }, { 15, 225 } };
    double s[NS], cs[NS];

    for (int i = 0; i < 4; i++) {
        const int win = cases[i][0], m = cases[i][1];
        Img a = img_content(m, m + 7, 8, i, 3);
        Img b = img_distort(&a, 2);
        int r = img_scales(&a, &b, win, 1.5, s, cs);
        tap_ok(r == 0 && s[NS - 1] > -1 && s[NS - 1] <= 1,
               "sizes: window %d scores %dx%d (S_5 = %g)", win, m, m + 7, s[NS - 1]);
        free(a.v);
        free(b.v);

        a = img_content(m - 1, m + 7, 8, i, 3);
        b = img_distort(&a, 2);
        r = img_scales(&a, &b, win, 1.5, s, cs);
        tap_ok(r == -EINVAL, "sizes: window %d refuses %dx%d", win, m - 1, m + 7);
        free(a.v);
        free(b.v);

        a = img_content(m + 9, m - 1, 8, i, 3);
        b = img_distort(&a, 2);
        r = img_scales(&a, &b, win, 1.5, s, cs);
        tap_ok(r == -EINVAL, "sizes: window %d refuses %dx%d", win, m + 9, m - 1);
        free(a.v);
        free(b.v);
    }

    /* windows outside odd 3..15, and planes of different sizes */
    {
        Img a = img_content(240, 240, 8, 9, 3), b = img_distort(&a, 2);
        static const int bad[4] = { 1, 10, 17, 0 };
        for (int i = 0; i < 4; i++)
            tap_ok(img_scales(&a, &b, bad[i], 1.5, s, cs) == -EINVAL,
                   "sizes: window %d is refused", bad[i]);
        Img c = img_content(240, 241, 8, 9, 3);
        tap_ok(img_scales(&a, &c, 11, 1.5, s, cs) == -EINVAL,
               "sizes: planes of different sizes are refused");
        free(a.v);
        free(b.v);
        free(c.v);
    }
}

/* ---- MS-SSIM: values ------------------------------------------------------ */

static void test_msssim_values(void)
{
    double s[NS], cs[NS], s2[NS], cs2[NS], ns[NS], ncs[NS];

    /* identical planes: every S and CS is exactly 1 (each ratio has equal
     * numerator and denominator), so MS-SSIM is exactly 1 */
    {
        static const int sz[3][3] = { { 176, 176, 8 }, { 333, 201, 10 }, { 161, 170, 16 } };
        for (int i = 0; i < 3; i++) {
            Img a = img_content(sz[i][0], sz[i][1], sz[i][2], 20 + i, 4);
            int ok = img_scales(&a, &a, 11, 1.5, s, cs) == 0;
            for (int j = 0; j < NS; j++)
                ok &= s[j] == 1.0 && cs[j] == 1.0;
            tap_ok(ok, "identical %dx%d %d-bit: S and CS exactly 1 at every scale",
                   sz[i][0], sz[i][1], sz[i][2]);
            tap_same(ff_fssim_ref_msssim_combine(s, cs), 1.0, "identical %dx%d: MS-SSIM exactly 1",
                        sz[i][0], sz[i][1]);
            free(a.v);
        }
    }

    /* symmetric, bit for bit */
    {
        Img a = img_content(197, 171, 10, 3, 5), b = img_distort(&a, 6);
        img_scales(&a, &b, 11, 1.5, s, cs);
        img_scales(&b, &a, 11, 1.5, s2, cs2);
        tap_ok(!memcmp(s, s2, sizeof(s)) && !memcmp(cs, cs2, sizeof(cs)),
               "symmetry: swapping the planes gives the same bits");
        free(a.v);
        free(b.v);
    }

    /* flat planes whose sides stay even at every scale (176x192 = 11x12
     * sixteen times): every scale is flat, so mu = the value, the variances
     * vanish and CS = C2/C2 = 1 up to rounding, S = (2pq + C1)/(p^2 + q^2
     * + C1).  8-bit p = 100, q = 120: S = 0.9836109249983688 (Python);
     * MS-SSIM = S^0.1333 */
    {
        Img a = img_flat(176, 192, 8, 100), b = img_flat(176, 192, 8, 120);
        const double c1 = (0.01 * 255) * (0.01 * 255);
        const double want = (2.0 * 100 * 120 + c1) / (100.0 * 100 + 120.0 * 120 + c1);
        img_scales(&a, &b, 11, 1.5, s, cs);
        double worst = 0.0;
        for (int j = 0; j < NS; j++)
            worst = fmax(worst, fmax(fabs(s[j] - want), fabs(cs[j] - 1.0)));
        tap_ok(worst < 1e-9, "flat 100 vs 120: S = closed form, CS = 1 at every scale (worst %.2g)",
               worst);
        tap_close(want, 0.9836109249983688, 1e-15, "flat: the closed form's value");
        tap_close(ff_fssim_ref_msssim_combine(s, cs), pow(want, 0.1333), 1e-9,
                     "flat: MS-SSIM = S^0.1333");
        free(a.v);
        free(b.v);
        /* the same value everywhere, odd size: the zero padding makes the
         * coarser scales uneven, but identical planes still give 1 */
        a = img_flat(165, 171, 10, 700);
        img_scales(&a, &a, 11, 1.5, s, cs);
        tap_same(ff_fssim_ref_msssim_combine(s, cs), 1.0, "flat identical odd size: exactly 1");
        free(a.v);
    }

    /* negated content: CS < 0 at the finest scale, clamped, MS-SSIM 0 */
    {
        Img a = img_content(200, 180, 8, 5, 40), b = img_new(200, 180, 8);
        for (size_t i = 0; i < (size_t)200 * 180; i++)
            b.v[i] = 255 - a.v[i];
        img_scales(&a, &b, 11, 1.5, s, cs);
        tap_ok(cs[0] < 0, "negated: CS_1 < 0 (%g)", cs[0]);
        tap_same(ff_fssim_ref_msssim_combine(s, cs), 0.0, "negated: MS-SSIM 0");
        free(a.v);
        free(b.v);
    }

    /* against the naive implementation: windows and sigmas, odd and even
     * sizes, 8 to 16 bits */
    {
        static const struct { int w, h, depth, window; double sigma; } nc[] = {
            { 37, 45, 8, 3, 0.5 },  { 34, 33, 10, 3, 1.5 }, { 70, 67, 12, 5, 1.0 },
            { 99, 98, 16, 7, 1.2 }, { 170, 163, 8, 11, 1.5 },
        };
        for (size_t i = 0; i < sizeof(nc) / sizeof(nc[0]); i++) {
            Img a = img_content(nc[i].w, nc[i].h, nc[i].depth, 30 + (int)i, 6);
            Img b = img_distort(&a, 8);
            const double want = naive_msssim(&a, &b, nc[i].window, nc[i].sigma, ns, ncs);
            const int r = img_scales(&a, &b, nc[i].window, nc[i].sigma, s, cs);
            double worst = 0.0;
            for (int j = 0; j < NS; j++)
                worst = fmax(worst, fmax(fabs(s[j] - ns[j]), fabs(cs[j] - ncs[j])));
            tap_ok(r == 0 && worst < 1e-12,
                   "naive %dx%d %d-bit window %d sigma %g: S, CS per scale (worst %.2g)",
                   nc[i].w, nc[i].h, nc[i].depth, nc[i].window, nc[i].sigma, worst);
            tap_close(ff_fssim_ref_msssim_combine(s, cs), want, 1e-12,
                         "naive %dx%d: MS-SSIM %.6f", nc[i].w, nc[i].h, want);
            free(a.v);
            free(b.v);
        }
    }
}

/* ---- MS-SSIM: layouts, bands, scratch ------------------------------------ */

static void test_msssim_memory(void)
{
    double s[NS], cs[NS], s2[NS], cs2[NS];
    Img a = img_content(181, 166, 8, 41, 5), b = img_distort(&a, 4);
    void *sa, *sb;
    int guard;

    /* the scratch asked for is enough: the guard after it survives */
    {
        const FSSIMRefPlane pa = planar(&a, &sa), pb = planar(&b, &sb);
        ref_scales(&pa, &pb, 8, 11, 1.5, s, cs, &guard);
        tap_ok(guard, "scratch: nothing written past ff_fssim_ref_msssim_work_size()");
        free(sa);
        free(sb);
    }

    /* 16-bit containers, semi-planar (step 2) and MSB-aligned (shift 6)
     * give the same bits as 8-bit planar */
    {
        static const int lay[3][3] = { { 2, 1, 0 }, { 1, 2, 0 }, { 2, 2, 6 } };
        for (int l = 0; l < 3; l++) {
            const FSSIMRefPlane pa = mkplane(&a, lay[l][0], lay[l][1], lay[l][2], 6, 0, &sa);
            const FSSIMRefPlane pb = mkplane(&b, lay[l][0], lay[l][1], lay[l][2], 6, 0, &sb);
            ref_scales(&pa, &pb, 8, 11, 1.5, s2, cs2, &guard);
            tap_ok(!memcmp(s, s2, sizeof(s)) && !memcmp(cs, cs2, sizeof(cs)) && guard,
                   "layout bytes=%d step=%d shift=%d: same bits", lay[l][0], lay[l][1], lay[l][2]);
            free(sa);
            free(sb);
        }
    }

    /* the pieces a slice-threaded caller runs: load and pool in bands, and
     * ff_fssim_ref_msssim_rows in bands of FSSIM_REF_MSSSIM_BAND_ROWS added in
     * band order, reproduce ff_fssim_ref_msssim_scales bit for bit */
    {
        const FSSIMRefPlane pa = planar(&a, &sa), pb = planar(&b, &sb);
        const double L = 255.0, c1 = (0.01 * L) * (0.01 * L), c2 = (0.03 * L) * (0.03 * L);
        double g[11], *row = malloc(sizeof(double) * 5 * a.w);
        double *la = malloc(sizeof(double) * a.w * a.h), *lb = malloc(sizeof(double) * a.w * a.h);
        int w = a.w, h = a.h, ok = 1;

        if (!row || !la || !lb)
            tap_bail("out of memory");
        ff_fssim_ref_gauss_weights(11, 1.5, g);
        for (int y = 0; y < h; y += 7) {
            ff_fssim_ref_msssim_load_rows(&pa, y, y + 7 < h ? y + 7 : h, la);
            ff_fssim_ref_msssim_load_rows(&pb, y, y + 7 < h ? y + 7 : h, lb);
        }
        for (int j = 0; j < NS; j++) {
            const int oh = h - 10, ow = w - 10;
            double ss = 0.0, css = 0.0;
            for (int y = 0; y < oh; y += FSSIM_REF_MSSSIM_BAND_ROWS) {
                double bs = 0.0, bcs = 0.0;
                ff_fssim_ref_msssim_rows(la, lb, w, h, g, 11, c1, c2, y,
                                         y + FSSIM_REF_MSSSIM_BAND_ROWS < oh ?
                                         y + FSSIM_REF_MSSSIM_BAND_ROWS : oh, row, &bs, &bcs);
                ss  += bs;
                css += bcs;
            }
            ok &= ss / ((double)ow * oh) == s[j] && css / ((double)ow * oh) == cs[j];
            if (j < NS - 1) {
                const int nw = (w + 1) / 2, nh = (h + 1) / 2;
                double *na = malloc(sizeof(double) * nw * nh);
                double *nb = malloc(sizeof(double) * nw * nh);
                if (!na || !nb)
                    tap_bail("out of memory");
                for (int y = 0; y < nh; y += 5) {
                    ff_fssim_ref_msssim_pool_rows(la, w, h, y, y + 5 < nh ? y + 5 : nh, na);
                    ff_fssim_ref_msssim_pool_rows(lb, w, h, y, y + 5 < nh ? y + 5 : nh, nb);
                }
                free(la);
                free(lb);
                la = na;
                lb = nb;
                w = nw;
                h = nh;
            }
        }
        tap_ok(ok, "bands: the pieces in fixed bands reproduce ff_fssim_ref_msssim_scales exactly");
        free(row);
        free(la);
        free(lb);
        free(sa);
        free(sb);
    }
    free(a.v);
    free(b.v);
}

int main(void)
{
    test_psnr();
    test_msssim_pieces();
    test_msssim_sizes();
    test_msssim_values();
    test_msssim_memory();
    return tap_done();
}
