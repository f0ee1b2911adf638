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
 * fssim CUDA kernels: integer, Gaussian and block SSIM of one plane pair in
 * one fused pass.  Instantiated per sample class, for the default window
 * (fssim_8.cu, ...) and for any window (fssim_8_any.cu, ...), each for a
 * lone pair and for ladders (fssim_8_ladder.cu, ...): small PTX modules of
 * which the filter loads only the one it needs, since the driver's
 * just-in-time compilation of the PTX is most of a cold start.
 *
 * Each thread block scores a FSSIM_TILE x FSSIM_TILE tile of the reference
 * against every rendition of a ladder (one, in a lone pair's module): it
 * loads the
 * reference's tile and its halo once into shared memory and computes the
 * reference's own terms there once (its samples, their squares, their
 * horizontal window sums); then, rendition by rendition, it loads the
 * rendition's tile, computes the rendition's and the cross terms, runs the
 * vertical passes of every requested algorithm, computes the per-pixel
 * terms and reduces them, in a fixed order, to one partial sum per
 * algorithm and rendition.  fssim_reduce then adds the partials of each
 * plane, again in a fixed order, so every result is bitwise identical from
 * run to run.
 *
 * Compiled to PTX by FFmpeg's build with nvcc or clang (through FFmpeg's
 * compat/cuda/cuda_runtime.h), and on the host by the emulation test.
 */

#ifndef FSSIM_PLANE_CUH
#define FSSIM_PLANE_CUH

#include "fssim_cuda_device.cuh"
#include "fssim_msssim.cuh"

static __device__ const int int_taps[9]     = { FSSIM_INT_TAPS };
static __device__ const int int_tap_sums[10] = { FSSIM_INT_TAP_SUMS };

/* Sum of the int taps that fall inside [0, size) around position x; 0 for
 * an x whose window misses the plane, as a thread of an edge tile computes
 * for its column beyond the plane before it leaves the column unscored. */
static __device__ __forceinline__ int int_weight(int x, int size)
{
    const int lo = FSSIM_INT_RADIUS - x > 0 ? FSSIM_INT_RADIUS - x : 0;
    const int hi = size - x + FSSIM_INT_RADIUS < 9 ? size - x + FSSIM_INT_RADIUS : 9;
    return hi > lo ? int_tap_sums[hi] - int_tap_sums[lo] : 0;
}

/* Same for the Gaussian taps; exactly 1 when the whole window is inside.
 * (A loop, not a prefix-sum lookup: a run-time index into the kernel
 * parameters would copy them all to local memory.) */
template <int RF>
static __device__ __forceinline__ float gauss_weight(const FSSIMCudaParams &p, int x, int size)
{
    const int r = RF ? RF : p.radius;
    float w = 0.0f;

    if (x >= r && x < size - r)
        return 1.0f;
#pragma unroll
    for (int j = 0; j < 2 * (RF ? RF : FSSIM_MAX_RADIUS) + 1; j++)
        if (j <= 2 * r && x + j - r >= 0 && x + j - r < size)
            w += p.g[j];
    return w;
}

/*
 * The per-pixel term of doc/algorithms.md#int, in its exact association, with operations
 * that are never contracted into fused multiply-adds.
 *
 * QSUM: y2 is 0 and x2 holds x2 + y2.  For 8-bit samples (the only ones that
 * get it) x2 W + y2 W < 2^50 and mx2, my2 < 2^48: the denominator's terms
 * before c2 are integers whose every partial sum is exact in double, so
 * (x2 + y2) W - mx2 - my2 is the same number as x2 W - mx2 + y2 W - my2,
 * and adding c2 rounds it the same way: the same bits, with one moment fewer.
 */
template <bool QSUM>
static __device__ __forceinline__ double int_term(double mux, double muy, double x2, double xy,
                                                  double y2, double W, double c1base,
                                                  double c2base)
{
    const double c1  = rn_mul_f64(rn_mul_f64(c1base, W), W);
    const double c2  = rn_mul_f64(rn_mul_f64(c2base, W), W);
    const double mx2 = rn_mul_f64(mux, mux);
    const double mxy = rn_mul_f64(mux, muy);
    const double my2 = rn_mul_f64(muy, muy);
    const double num = rn_mul_f64(rn_mul_f64(W, rn_add_f64(rn_mul_f64(2.0, mxy), c1)),
                            rn_add_f64(c2, rn_mul_f64(2.0, rn_sub_f64(rn_mul_f64(xy, W), mxy))));
    const double den = rn_mul_f64(rn_add_f64(rn_add_f64(mx2, my2), c1),
                            rn_add_f64(QSUM ? rn_sub_f64(rn_sub_f64(rn_mul_f64(x2, W), mx2), my2) :
                                       rn_sub_f64(rn_add_f64(rn_sub_f64(rn_mul_f64(x2, W), mx2), rn_mul_f64(y2, W)), my2), c2));
    return rn_div_f64(num, den);
}

/*
 * Gaussian SSIM from moments of samples centred on (cs, cd):
 * ma = sum g (s - cs), mb = sum g (d - cd), q = sum g ((s-cs)^2 + (d-cd)^2),
 * pr = sum g (s-cs)(d-cd), the sums over in-plane taps whose weights add up
 * to G.  Centring keeps var = E[x^2] - mu^2 from cancelling in float on flat
 * areas; the (1 - G) terms restore the zero-padded moments at the borders.
 * Unfused operations where the two inputs meet: with s == d every factor of
 * the numerator equals its twin in the denominator bit for bit (q == 2 pr
 * and vsum == 2 cov, as doubling is exact), so identical frames score 1.
 */
static __device__ float float_ssim(float ma, float mb, float q, float pr, float G,
                                   float cs, float cd, float c1, float c2)
{
    const float mu_s = ma + cs * G;
    const float mu_d = mb + cd * G;
    float vsum = rn_sub_f32(q, rn_add_f32(rn_mul_f32(ma, ma), rn_mul_f32(mb, mb)));
    float cov  = rn_sub_f32(pr, rn_mul_f32(ma, mb));

    if (G != 1.0f) {
        const float h = 1.0f - G, gh = G * h;
        vsum = rn_add_f32(vsum, rn_add_f32(
                   rn_mul_f32(2.0f * h, rn_add_f32(rn_mul_f32(cs, ma), rn_mul_f32(cd, mb))),
                   rn_mul_f32(gh, rn_add_f32(rn_mul_f32(cs, cs), rn_mul_f32(cd, cd)))));
        cov  = rn_add_f32(cov, rn_add_f32(
                   rn_mul_f32(h, rn_add_f32(rn_mul_f32(cs, mb), rn_mul_f32(cd, ma))),
                   rn_mul_f32(gh, rn_mul_f32(cs, cd))));
    }
    return rn_div_f32(rn_mul_f32(rn_add_f32(rn_mul_f32(2.0f * mu_s, mu_d), c1),
                                 rn_add_f32(2.0f * cov, c2)),
                      rn_mul_f32(rn_add_f32(rn_add_f32(rn_mul_f32(mu_s, mu_s),
                                                       rn_mul_f32(mu_d, mu_d)), c1),
                                 rn_add_f32(vsum, c2)));
}

/* vf_ssim.c ssim_end1(): 32-bit integers, 8-bit constants (c1, c2 from the
 * host, FSSIM_BLOCK_C1/C2(255)), float end. */
static __device__ float block_end_8bit(int s1, int s2, int ss, int s12, int c1, int c2)
{
    const int vars  = ss * 64 - s1 * s1 - s2 * s2;
    const int covar = s12 * 64 - s1 * s2;
    return rn_div_f32(rn_mul_f32((float)(2 * s1 * s2 + c1), (float)(2 * covar + c2)),
                rn_mul_f32((float)(s1 * s1 + s2 * s2 + c1), (float)(vars + c2)));
}

/* vf_ssim.c ssim_end1x(): 64-bit integers, constants from the bit depth. */
static __device__ float block_end_deep(long long s1, long long s2, long long ss, long long s12,
                                       long long c1, long long c2)
{
    const long long vars  = ss * 64 - s1 * s1 - s2 * s2;
    const long long covar = s12 * 64 - s1 * s2;
    return rn_div_f32(rn_mul_f32((float)(2 * s1 * s2 + c1), (float)(2 * covar + c2)),
                rn_mul_f32((float)(s1 * s1 + s2 * s2 + c1), (float)(vars + c2)));
}

/*
 * Load the tile and its halo of one plane, or of two (PAIR: the first
 * rendition and the reference, at once).  Offsets are computed in 32 bits
 * (a plane is far below 2 GiB) and signed (a frame may be stored bottom-up,
 * with a negative pitch).  (PAIR is known at compile time: a run-time test,
 * on a NULL dst2, was much slower.)  QUADS: an interior tile whose rows
 * allow it (planar, or the chroma of a semi-planar format, in rows aligned
 * to four samples) is read by aligned quads, fewer loads and stores than
 * sample by sample (doc/performance.md#cuda-the-tile-loader).
 */
template <typename T, bool PAIR, int RF, bool QUADS>
static __device__ __forceinline__ void load_tile(const FSSIMCudaParams &p, const FSSIMSmemLayout &l,
                                                 float *dst, unsigned long long base, int pitch,
                                                 float *dst2, unsigned long long base2,
                                                 int pitch2, int x0, int y0, bool interior)
{
    enum { RMAX = FSSIM_TILE + 2 * (RF ? (RF > FSSIM_INT_RADIUS ? RF : FSSIM_INT_RADIUS)
                                       : FSSIM_MAX_RADIUS) };
    const int region = RF ? (int)RMAX : l.region;
    const int rx = x0 - (region - FSSIM_TILE) / 2, ry = y0 - (region - FSSIM_TILE) / 2;
    const auto fetch = [&](int which, int x, int y) {
        const long long o = y * (which ? pitch2 : pitch) + x * p.step * (int)sizeof(T);
        return (float)(load_global<T>((which ? base2 : base) + o) >> p.shift);
    };

    /* most tiles, but a ladder's (see fssim_plane) */
    if (QUADS && interior && rx - l.lead + l.stride <= p.width && (p.step == 1 || p.step == 2)) {
        const int qb = 4 * p.step * (int)sizeof(T);
        const int phase = (int)(base & (qb - 1));
        const int o = (rx - l.lead) * p.step * (int)sizeof(T) - phase;
        const unsigned long long a = base + (long long)(ry * pitch + o);
        const unsigned long long a2 = base2 + (long long)(ry * pitch2 + o);

        if (!((a | (unsigned)pitch | (PAIR ? a2 | (unsigned)pitch2 : 0)) & (qb - 1)) &&
            phase <= (p.step - 1) * (int)sizeof(T)) {
            if (p.step == 1)
                load_quads<T, 1, RMAX, PAIR>(dst, dst2, region, l.lead, l.stride / 4, a, pitch,
                                             a2, pitch2, 0, p.shift);
            else
                load_quads<T, 2, RMAX, PAIR>(dst, dst2, region, l.lead, l.stride / 4, a, pitch,
                                             a2, pitch2, phase, p.shift);
            return;
        }
    }
    load_region<RMAX, PAIR>(dst, dst2, region, l.stride, x0, y0, p.width, p.height, interior,
                            fetch);
}

/*
 * The int algorithm's types beyond the horizontal pass (TI): H, the
 * horizontal sums as kept in shared memory, and V, the vertical sums, both
 * exact integers.  8-bit: 32-bit integers (below 255^2 * 256^2 < 2^32),
 * half the registers of doubles; 9 to 12-bit: 32-bit horizontal and 64-bit
 * vertical sums (below 2^40); deeper: doubles (below 2^53).  Registers, not
 * arithmetic, bound the kernel: they decide how many blocks share an SM.
 */
template <int KIND> struct IntSums { typedef double H; typedef double V; };
template <> struct IntSums<FSSIM_KIND_8>  { typedef unsigned H; typedef unsigned V; };
template <> struct IntSums<FSSIM_KIND_12> { typedef unsigned H; typedef unsigned long long V; };

/* Columns per horizontal-pass work item: a thread slides along a row and
 * reuses the samples it loaded for HCOLS neighbouring outputs. */
#define HCOLS 4
#define HGROUPS (FSSIM_TILE / HCOLS)

/* HCOLS horizontal sums, stored at once: one 16-byte store a moment (two
 * for doubles, one 8-byte store for 16-bit sums) where four scalar ones
 * were, and as a warp's quarter stores 32 consecutive words, without the
 * bank conflicts of four rows' scalars. */
template <typename T> struct HQuadOf { typedef Aligned16<T, HCOLS> type; };
template <> struct HQuadOf<unsigned short> {
    struct alignas(8) type { unsigned short v[HCOLS]; };
};
template <typename T> using HQuad = typename HQuadOf<T>::type;

/* Moment k's plane of the int horizontal sums (fssim_int_plane), as T:
 * unsigned short for QSUM's mux and muy, IntSums<KIND>::H otherwise. */
template <typename T, int KIND, bool QSUM>
static __device__ __forceinline__ T *int_plane(const FSSIMSmemLayout &l, char *smem, int k)
{
    return (T *)(smem + l.hi) + fssim_int_plane(KIND, QSUM, k) / (int)sizeof(T);
}

template <typename TI, typename TH, int N>
static __device__ __forceinline__ void hsums_int(TH *dst, const TI (&x)[N])
{
    HQuad<TH> q;

#pragma unroll
    for (int o = 0; o < HCOLS; o++) {
        TI acc = 0;
#pragma unroll
        for (int j = 0; j < 9; j++)
            acc += (TI)int_taps[j] * x[o + j];
        q.v[o] = (TH)acc;
    }
    *(HQuad<TH> *)dst = q;
}

template <int RF, int N>
static __device__ __forceinline__ void hsums_float(const float *g, int r, float *dst,
                                                   const float (&x)[N])
{
    HQuad<float> q;

#pragma unroll
    for (int o = 0; o < HCOLS; o++)
        q.v[o] = gauss_taps<RF>(g, r, x, o);
    *(HQuad<float> *)dst = q;
}

/*
 * Horizontal pass of the int algorithm over region row ry for output
 * columns c0..c0+HCOLS-1, exact in TI: float for 8-bit samples (every
 * product and sum is an integer below 2^24), uint32 up to 12 bits (below
 * 2^32), double beyond (below 2^53).
 *
 * PARTS, here and in the other passes: the rendition's and cross terms
 * always (PART_DIST), the reference's own with the first rendition only
 * (PART_REF), kept in shared memory for the others.
 *
 * QSUM (a lone pair of 8-bit samples, fssim_int_moments): one moment of
 * s^2 + d^2 in place of x2 and y2, summed in 32-bit integers, since its sums
 * (below 2^25) are beyond float's exact integers.
 */
enum { PART_REF = 1, PART_DIST = 2 };

template <typename TI, int KIND, int PARTS, bool QSUM>
static __device__ __forceinline__ void hpass_int(const FSSIMSmemLayout &l, char *smem, int ry,
                                                 int c0)
{
    const float *S = (const float *)(smem + l.s) + l.lead + ry * l.stride;
    const float *D = (const float *)(smem + l.d) + l.lead + ry * l.stride;
    const int R = (l.region - FSSIM_TILE) / 2;
    const int base = c0 + R - FSSIM_INT_RADIUS;
    const int at = (ry - (R - FSSIM_INT_RADIUS)) * FSSIM_TILE + c0;
    typedef typename IntSums<KIND>::H TH;
    const auto H = [&](int k) { return int_plane<TH, KIND, QSUM>(l, smem, k) + at; };
    TI s[HCOLS + 8], d[HCOLS + 8];

    TI ss[HCOLS + 8], sd[HCOLS + 8], dd[HCOLS + 8];
    TH q[HCOLS + 8];

    /* each sample's products once, shared by the HCOLS outputs; the
     * reference's sums (muy, y2) once for all renditions */
#pragma unroll
    for (int i = 0; i < HCOLS + 8; i++) {
        s[i]  = (TI)S[base + i];
        d[i]  = (TI)D[base + i];
        ss[i] = s[i] * s[i];
        sd[i] = s[i] * d[i];
        dd[i] = d[i] * d[i];
        q[i]  = (TH)(ss[i] + dd[i]);
    }
    if (QSUM) {
        hsums_int<TI>(int_plane<unsigned short, KIND, QSUM>(l, smem, 0) + at, s);
        hsums_int<TI>(int_plane<unsigned short, KIND, QSUM>(l, smem, 1) + at, d);
        hsums_int<TH>(H(2), q);
        hsums_int<TI>(H(3), sd);
        return;
    }
    hsums_int<TI>(H(0), s);
    hsums_int<TI>(H(2), ss);
    hsums_int<TI>(H(3), sd);
    if (PARTS & PART_REF) {
        hsums_int<TI>(H(1), d);
        hsums_int<TI>(H(4), dd);
    }
}

/* Horizontal pass of the float algorithm on centred, in-plane samples.
 * RF: the radius when known at compile time (0: p.radius).  The moments:
 * ma, mb, q = sum g (a^2 + b^2), pr.  The reference's mb is computed with the
 * first rendition and kept for the others (PARTS); q is summed per pair,
 * not as the reference's sum plus the rendition's: one accumulator fewer,
 * and a lone pair scores in the same operations as a ladder's rendition. */
template <int RF, int PARTS>
static __device__ __forceinline__ void hpass_float(const FSSIMCudaParams &p, const FSSIMSmemLayout &l,
                                                   char *smem, int ry, int c0, int x0, int y0,
                                                   bool interior, float cs, float cd)
{
    enum { NT = 2 * (RF ? RF : FSSIM_MAX_RADIUS) + 1, NS = HCOLS + NT - 1 };
    const float *S = (const float *)(smem + l.s) + l.lead + ry * l.stride;
    const float *D = (const float *)(smem + l.d) + l.lead + ry * l.stride;
    const int R = (l.region - FSSIM_TILE) / 2;
    const int r = RF ? RF : p.radius;
    const int base = c0 + R - r;
    const int plane = l.region * FSSIM_TILE;
    const int gy = y0 - R + ry;
    float *H = (float *)(smem + l.hf) + ry * FSSIM_TILE + c0;
    float a[NS], b[NS];

    if (interior) {
#pragma unroll
        for (int i = 0; i < NS; i++) {
            a[i] = b[i] = 0.0f;
            if (i < HCOLS + 2 * r) {
                a[i] = S[base + i] - cs;
                b[i] = D[base + i] - cd;
            }
        }
    } else {
        /* out-of-plane taps must weigh nothing: 0 after centring, not -cs */
        const bool row_in = gy >= 0 && gy < p.height;
#pragma unroll
        for (int i = 0; i < NS; i++) {
            const int gx = x0 - R + base + i;
            a[i] = b[i] = 0.0f;
            if (i < HCOLS + 2 * r && row_in && gx >= 0 && gx < p.width) {
                a[i] = S[base + i] - cs;
                b[i] = D[base + i] - cd;
            }
        }
    }
    /* each sample's products once, unfused, so that with a == b the
     * sum of squares is twice the product exactly and q == 2 pr */
    float sq[NS], ab[NS];
#pragma unroll
    for (int i = 0; i < NS; i++) {
        sq[i] = rn_add_f32(rn_mul_f32(a[i], a[i]), rn_mul_f32(b[i], b[i]));
        ab[i] = rn_mul_f32(a[i], b[i]);
    }
    hsums_float<RF>(p.g, r, H + 0 * plane, a);
    if (PARTS & PART_REF)
        hsums_float<RF>(p.g, r, H + 1 * plane, b);
    hsums_float<RF>(p.g, r, H + 2 * plane, sq);
    hsums_float<RF>(p.g, r, H + 3 * plane, ab);
}

#define VROWS FSSIM_VROWS

/*
 * The reference's own vertical sums, computed with a ladder's first
 * rendition and kept for the others in place of the horizontal sums they
 * come from (moment k's at row r of plane k, int and float alike): the
 * int algorithm's muy (moment 1, below 2^28 at 12 bits) and, where it fits
 * the plane's type, y2 (moment 4: at 9 to 12 bits a 64-bit sum in a plane
 * of 32-bit ones, so recomputed), and the float algorithm's mb (moment 1).
 * The same operations as recomputing them, so the same bits.
 */
template <int KIND> struct KeptSums {
    typedef typename IntSums<KIND>::H TH;
    enum { Y2 = sizeof(typename IntSums<KIND>::V) <= sizeof(TH) };
    TH    muy[VROWS], y2[VROWS];
    float mb[VROWS];
};

/* Vertical pass and per-pixel term of the int algorithm; returns the sum of
 * the terms of the thread's VROWS pixels.  The reference's kept sums are
 * read for the renditions after a ladder's first (PARTS without PART_REF),
 * and given in kept with the first.  QSUM as in hpass_int: x2 + y2 summed
 * in 64 bits (below 2^33). */
template <int KIND, int PARTS, bool QSUM>
static __device__ __forceinline__ double vpass_int(const FSSIMCudaParams &p, const FSSIMSmemLayout &l,
                                                   char *smem, int c, int r0, int gx, int gy0,
                                                   bool interior, KeptSums<KIND> &kept)
{
    typedef typename IntSums<KIND>::H TH;
    typedef typename IntSums<KIND>::V TV;
    const int at = r0 * FSSIM_TILE + c;
    const int wx = interior ? 256 : int_weight(gx, p.width);
    TV v[VROWS][5];
    unsigned long long vq[VROWS];
    double sum = 0.0;

    /* integers, exact in TV in any order, fused or not */
#pragma unroll
    for (int k = 0; k < (QSUM ? 4 : 5); k++) {
        const TH *H = int_plane<const TH, KIND, QSUM>(l, smem, k) + at;
        /* QSUM's mux and muy */
        const unsigned short *H16 = int_plane<const unsigned short, KIND, QSUM>(l, smem, k) + at;
        TH m[VROWS + 8];
        if (!(PARTS & PART_REF) && (k == 1 || (k == 4 && KeptSums<KIND>::Y2))) {
#pragma unroll
            for (int o = 0; o < VROWS; o++)
                v[o][k] = (TV)H[o * FSSIM_TILE];
            continue;
        }
#pragma unroll
        for (int i = 0; i < VROWS + 8; i++)
            m[i] = QSUM && k < 2 ? (TH)H16[i * FSSIM_TILE] : H[i * FSSIM_TILE];
#pragma unroll
        for (int o = 0; o < VROWS; o++) {
            TV acc = 0;
            unsigned long long wide = 0;
#pragma unroll
            for (int j = 0; j < 9; j++) {
                if (QSUM && k == 2)
                    wide += (unsigned long long)(unsigned)int_taps[j] * (unsigned)m[o + j];
                else
                    acc += (TV)int_taps[j] * (TV)m[o + j];
            }
            v[o][k] = acc;
            if (QSUM && k == 2)
                vq[o] = wide;
        }
    }
#pragma unroll
    for (int o = 0; o < VROWS; o++) {
        kept.muy[o] = (TH)v[o][1];
        kept.y2[o]  = QSUM ? 0 : (TH)v[o][4];
    }
#pragma unroll
    for (int o = 0; o < VROWS; o++) {
        const int gy = gy0 + o;
        if (interior || (gx < p.width && gy < p.height)) {
            const double W = (double)(wx * (interior ? 256 : int_weight(gy, p.height)));
            sum += int_term<QSUM>((double)v[o][0], (double)v[o][1],
                                  QSUM ? (double)vq[o] : (double)v[o][2], (double)v[o][3],
                                  QSUM ? 0.0 : (double)v[o][4], W, p.c1base, p.c2base);
        }
    }
    return sum;
}

/* Vertical pass and per-pixel SSIM of the float algorithm; the
 * reference's mb kept as in vpass_int. */
template <int RF, int PARTS, int KIND>
static __device__ __forceinline__ double vpass_float(const FSSIMCudaParams &p, const FSSIMSmemLayout &l,
                                                     char *smem, int c, int r0, int gx, int gy0,
                                                     bool interior, float cs, float cd,
                                                     KeptSums<KIND> &kept)
{
    const int R = (l.region - FSSIM_TILE) / 2;
    const int r = RF ? RF : p.radius;
    const int plane = l.region * FSSIM_TILE;
    const float *H = (const float *)(smem + l.hf) + (r0 + R - r) * FSSIM_TILE + c;
    /* whole windows inside the plane: weights sum to 1, every pixel scored */
    const float gx_w = interior ? 1.0f : gauss_weight<RF>(p, gx, p.width);
    const bool x_scored = interior ||
                          (p.same_padding ? gx < p.width : gx >= r && gx < p.width - r);
    float v[VROWS][4];
    double sum = 0.0;

    if (PARTS & PART_REF) {
        vgauss4<RF>(H, plane, p.g, r, v);
#pragma unroll
        for (int o = 0; o < VROWS; o++)
            kept.mb[o] = v[o][1];
    } else {
        const float *K = (const float *)(smem + l.hf) + plane + r0 * FSSIM_TILE + c;
        vgauss4<RF, 1 << 1>(H, plane, p.g, r, v);
#pragma unroll
        for (int o = 0; o < VROWS; o++)
            v[o][1] = K[o * FSSIM_TILE];
    }
#pragma unroll
    for (int o = 0; o < VROWS; o++) {
        const int gy = gy0 + o;
        const bool scored = interior || (x_scored &&
            (p.same_padding ? gy < p.height : gy >= r && gy < p.height - r));
        if (scored) {
            const float G = interior ? 1.0f : gx_w * gauss_weight<RF>(p, gy, p.height);
            sum += (double)float_ssim(v[o][0], v[o][1], v[o][2], v[o][3], G, cs, cd,
                                      p.float_c1, p.float_c2);
        }
    }
    return sum;
}

/* psnr: the squared differences of the thread's VROWS pixels of column c,
 * exact: integers below 2^34, their sums over a block below 2^44, exact in
 * double whatever the order. */
static __device__ __forceinline__ double sse_pass(const FSSIMCudaParams &p,
                                                  const FSSIMSmemLayout &l, char *smem,
                                                  int c, int r0, int gx, int gy0, bool interior)
{
    const float *S = (const float *)(smem + l.s) + l.lead;
    const float *D = (const float *)(smem + l.d) + l.lead;
    const int R = (l.region - FSSIM_TILE) / 2;
    double sum = 0.0;

#pragma unroll
    for (int o = 0; o < VROWS; o++) {
        const int i = (R + r0 + o) * l.stride + R + c;
        const double e = (double)S[i] - (double)D[i];
        if (interior || (gx < p.width && gy0 + o < p.height))
            sum += e * e;
    }
    return sum;
}

/* The block algorithm: 4x4 block sums of the tile's 9x9 blocks, then the
 * 8x8 windows whose top-left block is in the tile.  The sums: s1, s2,
 * ss = sa2 + sb2, s12, and the reference's own sb2 = sum b^2, kept for the
 * renditions after the first (PARTS: what this pass computes). */
template <typename TB, int PARTS>
static __device__ __forceinline__ double block_pass(const FSSIMCudaParams &p, const FSSIMSmemLayout &l,
                                    char *smem, int x0, int y0, bool deep)
{
    const float *S = (const float *)(smem + l.s) + l.lead;
    const float *D = (const float *)(smem + l.d) + l.lead;
    TB *B = (TB *)(smem + l.bs);
    const int tid = threadIdx.y * FSSIM_TILE + threadIdx.x;
    const int R = (l.region - FSSIM_TILE) / 2;
    double sum = 0.0;

    if (tid < 81) {
        const int bx = tid % 9, by = tid / 9;
        TB s1 = 0, s2 = 0, sa2 = 0, sb2 = 0, s12 = 0;
        for (int y = 0; y < 4; y++) {
            for (int x = 0; x < 4; x++) {
                const int i = (R + 4 * by + y) * l.stride + R + 4 * bx + x;
                const TB a = (TB)S[i], b = (TB)D[i];
                s1  += a;
                s2  += b;
                sa2 += a * a;
                sb2 += b * b;
                s12 += a * b;
            }
        }
        if (PARTS & PART_REF) {
            B[1 * 81 + tid] = s2;
            B[4 * 81 + tid] = sb2;
        } else {
            sb2 = B[4 * 81 + tid];
        }
        B[0 * 81 + tid] = s1;
        B[2 * 81 + tid] = sa2 + sb2;
        B[3 * 81 + tid] = s12;
    }
    __syncthreads();

    if (tid < 64) {
        const int wx = tid % 8, wy = tid / 8;
        if (x0 / 4 + wx < p.block_nx && y0 / 4 + wy < p.block_ny) {
            const int i = wy * 9 + wx;
            TB v[4];
            for (int k = 0; k < 4; k++)
                v[k] = B[k * 81 + i] + B[k * 81 + i + 1] + B[k * 81 + i + 9] + B[k * 81 + i + 10];
            sum = deep ? (double)block_end_deep((long long)v[0], (long long)v[1], (long long)v[2],
                                                (long long)v[3], p.block_c1, p.block_c2)
                       : (double)block_end_8bit((int)v[0], (int)v[1], (int)v[2], (int)v[3],
                                                (int)p.block_c1, (int)p.block_c2);
        }
    }
    return sum;
}

/* The horizontal passes of the int and float algorithms over the tile,
 * one list of row pieces keeping all threads busy. */
template <typename TI, int KIND, int RF, int PARTS, bool QSUM>
static __device__ __forceinline__ void hpasses(const FSSIMCudaParams &p, const FSSIMSmemLayout &l,
                                               char *smem, int x0, int y0, bool interior,
                                               float cs, float cd)
{
    const int rf = RF ? RF : p.radius;
    const int R  = (l.region - FSSIM_TILE) / 2;
    const int tid = threadIdx.y * FSSIM_TILE + threadIdx.x;
    const int n_int = p.algos & FSSIM_BIT(FSSIM_ALGO_INT) ?
                      (FSSIM_TILE + 2 * FSSIM_INT_RADIUS) * HGROUPS : 0;
    const int n_flt = p.algos & FSSIM_BIT(FSSIM_ALGO_FLOAT) ? (FSSIM_TILE + 2 * rf) * HGROUPS : 0;

    for (int i = tid; i < n_int + n_flt; i += FSSIM_THREADS) {
        if (i < n_int) {
            hpass_int<TI, KIND, PARTS, QSUM>(l, smem, R - FSSIM_INT_RADIUS + i / HGROUPS,
                                             i % HGROUPS * HCOLS);
        } else {
            const int j = i - n_int;
            hpass_float<RF, PARTS>(p, l, smem, R - rf + j / HGROUPS, j % HGROUPS * HCOLS,
                                   x0, y0, interior, cs, cd);
        }
    }
}

/* Store the reference's kept sums (KeptSums) over the horizontal sums they
 * replace, once every thread is done with those. */
template <int KIND>
static __device__ __forceinline__ void keep_sums(const FSSIMCudaParams &p, const FSSIMSmemLayout &l,
                                                 char *smem, int c, int r0,
                                                 const KeptSums<KIND> &kept)
{
    typedef typename IntSums<KIND>::H TH;
    TH *I1 = int_plane<TH, KIND, false>(l, smem, 1) + r0 * FSSIM_TILE + c;
    TH *I4 = int_plane<TH, KIND, false>(l, smem, 4) + r0 * FSSIM_TILE + c;
    float *F = (float *)(smem + l.hf) + l.region * FSSIM_TILE + r0 * FSSIM_TILE + c;

#pragma unroll
    for (int o = 0; o < VROWS; o++) {
        if (p.algos & FSSIM_BIT(FSSIM_ALGO_INT)) {
            I1[o * FSSIM_TILE] = kept.muy[o];
            if (KeptSums<KIND>::Y2)
                I4[o * FSSIM_TILE] = kept.y2[o];
        }
        if (p.algos & FSSIM_BIT(FSSIM_ALGO_FLOAT))
            F[o * FSSIM_TILE] = kept.mb[o];
    }
}

/*
 * Score rendition m, whose tile is in S, against the reference's in D: the
 * horizontal passes (PARTS: with the reference's own sums, for the first
 * rendition), the vertical passes and per-pixel terms, and the reduction to
 * the block's partial sums.  KEEP: keep the reference's vertical sums for
 * the renditions to come (a ladder's first).  LADDER: the kernel's
 * (fssim_plane).
 */
template <typename TI, typename TB, int KIND, int RF, int PARTS, bool KEEP, bool LADDER>
static __device__ __forceinline__ void score_tile(const FSSIMCudaParams &p, const FSSIMSmemLayout &l,
                                                  char *smem, int m, int x0, int y0,
                                                  bool interior, float cs, float cd)
{
    const int tid = threadIdx.y * FSSIM_TILE + threadIdx.x;
    const int vc  = tid % FSSIM_TILE, vr0 = tid / FSSIM_TILE * VROWS;
    const int block = blockIdx.y * gridDim.x + blockIdx.x;
    double part[FSSIM_NB_FUSED_PARTS] = { 0.0, 0.0, 0.0, 0.0 };
    KeptSums<KIND> kept;
    double *out = (double *)p.partials +
                  ((size_t)m * p.part_stride + p.part_offset + block) * FSSIM_NB_FUSED_PARTS;
    /* x2 + y2 as one moment (hpass_int): fssim_int_moments(KIND, LADDER) == 4 */
    enum { QSUM = KIND == FSSIM_KIND_8 && !LADDER };

    hpasses<TI, KIND, RF, PARTS, QSUM>(p, l, smem, x0, y0, interior, cs, cd);
    __syncthreads();

    if (p.algos & FSSIM_BIT(FSSIM_ALGO_INT))
        part[FSSIM_PART_INT] = vpass_int<KIND, PARTS, QSUM>(p, l, smem, vc, vr0, x0 + vc,
                                                            y0 + vr0, interior, kept);
    if (p.algos & FSSIM_BIT(FSSIM_ALGO_FLOAT))
        part[FSSIM_PART_FLOAT] = vpass_float<RF, PARTS>(p, l, smem, vc, vr0, x0 + vc, y0 + vr0,
                                                        interior, cs, cd, kept);
    if (p.algos & FSSIM_BIT(FSSIM_ALGO_BLOCK))
        part[FSSIM_PART_BLOCK] = block_pass<TB, PARTS>(p, l, smem, x0, y0, KIND != FSSIM_KIND_8);
    if (p.algos & FSSIM_BIT(FSSIM_ALGO_PSNR))
        part[FSSIM_PART_SSE] = sse_pass(p, l, smem, vc, vr0, x0 + vc, y0 + vr0, interior);

    if (fssim_red_barrier(p.algos, LADDER))
        __syncthreads();   /* every thread is done with the sums red overlaps */
    tile_sums((double *)(smem + l.red), part, out);
    /* tile_sums' barrier: every thread has read the horizontal sums */
    if (KEEP)
        keep_sums<KIND>(p, l, smem, vc, vr0, kept);
}

/*
 * RF: the float window's radius when the module is built for one (0: any,
 * from p.radius).  Known at compile time, it removes the per-tap checks and
 * turns shared-memory strides into constants.
 *
 * LADDER: the kernel scores p.nb_main renditions (a ladder's module), or
 * only the first (a lone pair's).  Two modules, not one loop for both: the
 * loop over the renditions after the first, merely present, kept its
 * addresses live through the first one's passes and slowed a lone pair;
 * and two modules, not two entry points in one, since the driver compiles
 * every kernel of a module, and the ladder's is the largest.  A ladder's
 * module loads its tiles sample by sample (load_slots), not by quads
 * (load_quads): with quads its registers spilled more in the rendition
 * loop, and a ladder frame took longer
 * (doc/performance.md#cuda-the-tile-loader).
 */
template <typename T, typename TI, typename TB, int KIND, int RF, bool LADDER>
static __device__ __forceinline__ void fssim_plane(const FSSIMCudaParams &p)
{
    FSSIM_DYNAMIC_SMEM(smem);
    const int rf = RF ? RF : p.radius;
    const FSSIMSmemLayout l = fssim_smem_layout(rf, p.algos, KIND, LADDER);
    const int R  = (l.region - FSSIM_TILE) / 2;
    const int x0 = blockIdx.x * FSSIM_TILE, y0 = blockIdx.y * FSSIM_TILE;
    /* no border cases (most tiles) */
    const bool interior = tile_interior(x0, y0, R, p.width, p.height);
    float *S = (float *)(smem + l.s) + l.lead, *D = (float *)(smem + l.d) + l.lead;
    /* the float centring constants: any value works, the tile's centre
     * sample makes flat tiles exact */
    const int centre = (R + FSSIM_TILE / 2) * l.stride + R + FSSIM_TILE / 2;
    float cd;

    /* the reference and the first rendition at once */
    load_tile<T, true, RF, !LADDER>(p, l, S, p.main_ptr[0], p.main_pitch[0], D, p.ref_ptr,
                                    p.ref_pitch, x0, y0, interior);
    __syncthreads();
    cd = D[centre];
    score_tile<TI, TB, KIND, RF, PART_REF | PART_DIST, LADDER, LADDER>(p, l, smem, 0, x0, y0,
                                                                       interior, S[centre], cd);

    for (int m = 1; LADDER && m < p.nb_main; m++) {
        /* the previous rendition's passes are done with S */
        __syncthreads();
        load_tile<T, false, RF, false>(p, l, S, p.main_ptr[m], p.main_pitch[m], NULL, 0, 0,
                                       x0, y0, interior);
        __syncthreads();
        score_tile<TI, TB, KIND, RF, PART_DIST, false, LADDER>(p, l, smem, m, x0, y0, interior,
                                                               S[centre], cd);
    }
}

/*
 * Block (x, i): chunk x of the i-th rendition's partials, at most
 * FSSIM_REDUCE_CHUNK blocks' of one component, added in a fixed order; the
 * host adds a component's chunks.  Each thread loads its
 * FSSIM_REDUCE_LOADS partials before it adds them: each load is a round
 * trip to L2, and one block per component, waiting on 32 of them in turn,
 * was slower (doc/performance.md#cuda-the-tile-and-frame-reductions).
 * psnr's sums of squared differences are integers: a tile's below 2^42, a
 * thread's (eight tiles) and a warp's below 2^53, so exact as doubles; a
 * chunk's may be beyond, so the warps' are added, and written, as a 64-bit
 * integer.
 */
static __device__ __forceinline__ void fssim_reduce_impl(const FSSIMCudaReduceParams &p)
{
    __shared__ double red[FSSIM_NB_FUSED_PARTS * FSSIM_WARPS];
    const int tid = threadIdx.y * FSSIM_TILE + threadIdx.x;
    int c = 0;

    while ((int)blockIdx.x >= p.chunk[c + 1])
        c++;
    const int first = (blockIdx.x - p.chunk[c]) * FSSIM_REDUCE_CHUNK;
    const int n = p.count[c] - first;
    const double *in = (const double *)p.partials +
                       ((size_t)blockIdx.y * p.stride + p.offset[c] + first) * FSSIM_NB_FUSED_PARTS;
    double *out = (double *)p.out +
                  ((size_t)p.dist[blockIdx.y] * p.chunk[4] + blockIdx.x) * FSSIM_NB_FUSED_PARTS;
    double x[FSSIM_REDUCE_LOADS][FSSIM_NB_FUSED_PARTS];
    double v[FSSIM_NB_FUSED_PARTS] = { 0.0, 0.0, 0.0, 0.0 };

#pragma unroll
    for (int u = 0; u < FSSIM_REDUCE_LOADS; u++) {
        const int i = tid + u * FSSIM_THREADS;
#pragma unroll
        for (int k = 0; k < FSSIM_NB_FUSED_PARTS; k++)
            x[u][k] = i < n ? in[i * FSSIM_NB_FUSED_PARTS + k] : 0.0;
    }
#pragma unroll
    for (int u = 0; u < FSSIM_REDUCE_LOADS; u++)
#pragma unroll
        for (int k = 0; k < FSSIM_NB_FUSED_PARTS; k++)
            v[k] += x[u][k];
    keep_warp_sums(red, warp_sums4(v));
    __syncthreads();
    if (tid < FSSIM_NB_FUSED_PARTS) {
        union { double d; unsigned long long u; } sum = { 0.0 };
        for (int i = 0; i < FSSIM_WARPS; i++) {
            if (tid == FSSIM_PART_SSE)
                sum.u += (unsigned long long)red[tid * FSSIM_WARPS + i];
            else
                sum.d += red[tid * FSSIM_WARPS + i];
        }
        out[tid] = sum.d;
    }
}

/*
 * Thread blocks per SM that registers must allow.  The kernel is bound by
 * latency, not by any pipe, so a third block helps where shared memory
 * allows one (8 to 12-bit samples), even at the price of a little spilling:
 * at 80 registers the default window's modules spill 12 (8-bit pair) to
 * 284 bytes (10-bit ladder), and the 8 and 10-bit pairs and the 8-bit
 * ladder ran faster than with 2 blocks and no spill
 * (doc/performance.md#cuda-registers-shared-memory-and-blocks-per-sm).
 * The run-time window's modules keep 2 with clang, whose PTX would spill
 * hundreds of bytes at 80 registers; nvcc's fits them in 80 (its ladders
 * with about 100 bytes of spill).
 */
#define FSSIM_BLOCKS_DEF 3   /* the default window's modules */
/*
 * FSSIM_BLOCKS_PAIR8: the lone 8-bit pair's module of the default window,
 * whose shared memory (52992 bytes, fssim_int_plane) lets four blocks share
 * an SM.  nvcc's fits four in 64 registers without spilling, and its pair
 * ran faster than with three; clang's spills there and ran slower, so keeps
 * three (doc/performance.md#cuda-registers-shared-memory-and-blocks-per-sm).
 */
#ifdef __NVCC__
#define FSSIM_BLOCKS_PAIR8 4
#define FSSIM_BLOCKS_ANY 3   /* the run-time window's */
#else
#define FSSIM_BLOCKS_PAIR8 FSSIM_BLOCKS_DEF
#define FSSIM_BLOCKS_ANY 2
#endif

/* The entry points of one module: fssim_plane for the sample class, the
 * float radius RF (0: any) and LADDER, fssim_reduce, and msssim's scale
 * pass and reduction (the resampler has a module of its own,
 * fssim_resample.cu). */
#define FSSIM_MODULE(T, TI, TB, KIND, MIN_BLOCKS, RF, LADDER)                   \
extern "C" {                                                                     \
__global__ void __launch_bounds__(FSSIM_THREADS, MIN_BLOCKS)                     \
fssim_plane(FSSIMCudaParams p)                                                   \
{                                                                                \
    fssim_plane<T, TI, TB, KIND, RF, LADDER>(p);                                 \
}                                                                                \
__global__ void __launch_bounds__(FSSIM_THREADS)                                 \
fssim_reduce(FSSIMCudaReduceParams p)                                            \
{                                                                                \
    fssim_reduce_impl(p);                                                        \
}                                                                                \
__global__ void __launch_bounds__(FSSIM_THREADS)                                 \
fssim_ms_scale(FSSIMCudaMsParams p)                                              \
{                                                                                \
    fssim_ms_scale_impl<T, RF>(p);                                               \
}                                                                                \
__global__ void __launch_bounds__(FSSIM_THREADS)                                 \
fssim_ms_reduce(FSSIMCudaMsReduceParams p)                                       \
{                                                                                \
    fssim_ms_reduce_impl(p);                                                     \
}                                                                                \
}

#endif /* FSSIM_PLANE_CUH */
