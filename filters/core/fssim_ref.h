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
 * fssim CPU reference: the ground truth every GPU backend is checked against.
 *
 * Plain C11, no FFmpeg dependency.  Written for exactness and clarity first:
 * each algorithm follows doc/algorithms.md literally.  Functions work on row
 * bands so that a caller can slice-thread them; summing band results in band
 * order gives the same value whatever the number of threads.  The row-band
 * functions allocate nothing: the caller sizes their scratch once (the
 * *_scratch_size() functions) and passes it in, so that scoring a frame
 * never allocates.  The whole-plane functions are conveniences that do.
 */
#ifndef FSSIM_REF_H
#define FSSIM_REF_H

#include <stddef.h>
#include <stdint.h>

#include "fssim_consts.h"

/* Taps of the integer algorithm (doc/algorithms.md#int), sum 256. */
extern const int ff_fssim_ref_int_taps[2 * FSSIM_INT_RADIUS + 1];

/**
 * One plane of samples as it lies in memory.  Covers planar planes
 * (step 1), the interleaved chroma of semi-planar formats (step 2, data
 * pointing at the U or V sample of the first pair) and MSB-aligned
 * containers such as P010 (shift 6).
 */
typedef struct FSSIMRefPlane {
    const uint8_t *data;   /* first sample */
    ptrdiff_t linesize;    /* bytes from one row to the next */
    int width, height;     /* in samples */
    int bytes;             /* container size: 1 or 2 bytes */
    int step;              /* containers from one sample to the next in a row */
    int shift;             /* right shift that yields the sample value */
} FSSIMRefPlane;

static inline unsigned fssim_ref_sample(const FSSIMRefPlane *p, int x, int y)
{
    const uint8_t *row = p->data + (ptrdiff_t)y * p->linesize;
    if (p->bytes == 1)
        return row[(ptrdiff_t)x * p->step] >> p->shift;
    return ((const uint16_t *)row)[(ptrdiff_t)x * p->step] >> p->shift;
}

/* ---- int: integer SSIM (doc/algorithms.md#int) ------------------------- */

typedef struct FSSIMRefIntSums {
    double   t;  /* sum of the per-pixel terms */
    uint64_t w;  /* sum of the per-pixel weights */
} FSSIMRefIntSums;

/**
 * The per-pixel term of doc/algorithms.md#int from the integer sums, in the exact
 * association that doc/algorithms.md#int prescribes.  c1base = L*L*(0.01*0.01) and
 * c2base = L*L*(0.03*0.03), computed by the caller in double.
 */
double ff_fssim_ref_int_term(int64_t mux, int64_t muy, int64_t x2, int64_t xy,
                             int64_t y2, int64_t w, double c1base, double c2base);

/** Bytes of scratch ff_fssim_ref_int_rows() needs for bands of up to rows
 *  rows of a plane width samples wide. */
size_t ff_fssim_ref_int_scratch_size(int width, int rows);

/** Add the terms and weights of rows [y0, y1) of the plane pair to *sums. */
void ff_fssim_ref_int_rows(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth,
                           int y0, int y1, void *scratch, FSSIMRefIntSums *sums);

/** Whole-plane score: sum of terms / sum of weights; -1 if out of memory. */
double ff_fssim_ref_int(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth);

/* ---- float: Gaussian SSIM (doc/algorithms.md#float) -------------------- */

enum FSSIMRefPadding {
    FSSIM_REF_PAD_VALID = 0, /* only windows wholly inside the plane */
    FSSIM_REF_PAD_SAME  = 1, /* zeros outside, every pixel scored */
};

typedef struct FSSIMRefFloatParams {
    int    window;  /* odd, FSSIM_MIN_WINDOW..FSSIM_MAX_WINDOW */
    double sigma;
    int    padding; /* enum FSSIMRefPadding */
} FSSIMRefFloatParams;

/** Normalised Gaussian weights g[0..size-1] (sum 1), in double. */
void ff_fssim_ref_gauss_weights(int size, double sigma, double *g);

/** Size of the scored region of a width x height plane.  Returns 0, or
 *  -1 when no position is scored (plane smaller than a valid window). */
int ff_fssim_ref_float_out_size(int width, int height, const FSSIMRefFloatParams *p,
                                int *out_w, int *out_h);

/**
 * The five locally weighted moments of a plane pair, one value per scored
 * position: mean of a, mean of b, mean of a*a, of b*b and of a*b, in raw
 * sample units.  Row oy of the moments is scored position row oy (plane row
 * oy + window/2 under valid padding, oy under same).
 */
typedef struct FSSIMRefMoments {
    int w, h;
    double *m[5];
} FSSIMRefMoments;

enum { FSSIM_MU_A, FSSIM_MU_B, FSSIM_AA, FSSIM_BB, FSSIM_AB };

int  ff_fssim_ref_moments_alloc(FSSIMRefMoments *m, int w, int h);
void ff_fssim_ref_moments_free(FSSIMRefMoments *m);

/** Bytes of scratch ff_fssim_ref_float_moments_rows() needs for bands of up
 *  to rows scored rows of a plane whose scored width is out_w. */
size_t ff_fssim_ref_float_moments_scratch_size(int out_w, int rows,
                                               const FSSIMRefFloatParams *p);

/** Compute scored rows [oy0, oy1) into rows 0 .. oy1-oy0-1 of *m (whose
 *  w is the scored width and whose rows hold at least oy1-oy0 rows). */
void ff_fssim_ref_float_moments_rows(const FSSIMRefPlane *a, const FSSIMRefPlane *b,
                                     const FSSIMRefFloatParams *p, int oy0, int oy1,
                                     void *scratch, FSSIMRefMoments *m);

/** SSIM of one position from its five moments; c1 = (0.01 L)^2, c2 = (0.03 L)^2. */
double ff_fssim_ref_ssim_from_moments(double mu_a, double mu_b, double aa, double bb,
                                      double ab, double c1, double c2);

/** Bytes of scratch ff_fssim_ref_float_rows() needs for bands of up to rows
 *  scored rows of a plane whose scored width is out_w. */
size_t ff_fssim_ref_float_scratch_size(int out_w, int rows, const FSSIMRefFloatParams *p);

/** Add the SSIM of the scored positions of output rows [oy0, oy1) to *sum. */
void ff_fssim_ref_float_rows(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth,
                             const FSSIMRefFloatParams *p, int oy0, int oy1, void *scratch,
                             double *sum);

/** Whole-plane score (mean over scored positions); NaN if none is scored. */
double ff_fssim_ref_float(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth,
                          const FSSIMRefFloatParams *p);

/* ---- block: FFmpeg ssim filter algorithm (doc/algorithms.md#block) ----- */

/** Number of 8x8 windows (at stride 4) of a width x height plane. */
int ff_fssim_ref_block_windows(int width, int height, int *nx, int *ny);

/** Bytes of scratch ff_fssim_ref_block_rows() needs for a plane width wide. */
size_t ff_fssim_ref_block_scratch_size(int width);

/** Add the per-row SSIM sums of window rows [wy0, wy1) to *sum, summing
 *  each row as FFmpeg does (double for 8-bit, float for deeper samples). */
void ff_fssim_ref_block_rows(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth,
                             int wy0, int wy1, void *scratch, double *sum);

/** Whole-plane score; NaN if the plane has no 8x8 window. */
double ff_fssim_ref_block(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth);

/* ---- 3-D: spatio-temporal Gaussian SSIM (doc/algorithms.md#fssim3d) ---- */

enum FSSIMRefTPadding {
    FSSIM_REF_TPAD_TRUNCATE = 0, /* drop taps outside the sequence, renormalise */
    FSSIM_REF_TPAD_VALID    = 1, /* score only frames with a full window */
};

/**
 * Temporal weights for frame t of a sequence of nb_frames frames
 * (nb_frames < 0: the end is not known yet, so every frame up to
 * t + depth/2 exists).  wt[k] weighs frame t - depth/2 + k; the weights of
 * frames outside the sequence are 0.  Returns 1 when frame t gets a score
 * (always under truncate; only with a full window under valid), else 0.
 */
int ff_fssim_ref_temporal_weights(int depth, double tsigma, int tpadding,
                                  int64_t t, int64_t nb_frames, double *wt);

/**
 * Mean over positions of the 3-D SSIM of one frame, from the spatial moments
 * of the depth frames around it (mom[k] may be NULL where wt[k] == 0).
 */
double ff_fssim_ref_3d_score(const FSSIMRefMoments *const *mom, const double *wt,
                             int depth, double c1, double c2);

/** Rows [oy0, oy1) of ff_fssim_ref_3d_score, as a sum (not a mean). */
double ff_fssim_ref_3d_rows(const FSSIMRefMoments *const *mom, const double *wt,
                            int depth, double c1, double c2, int oy0, int oy1);

/* ---- psnr: FFmpeg psnr (doc/algorithms.md#psnr) ----------------------- */

/** Add the exact sum of squared differences of rows [y0, y1) to *sse.
 *  Returns 0. */
int ff_fssim_ref_sse_rows(const FSSIMRefPlane *a, const FSSIMRefPlane *b,
                          int y0, int y1, uint64_t *sse);

/** MSE of a width x height plane from its SSE: sse / (width * height). */
double ff_fssim_ref_mse(uint64_t sse, int width, int height);

/** 10 log10(L^2 / mse), L = 2^depth - 1; +inf for mse 0. */
double ff_fssim_ref_psnr_from_mse(double mse, int depth);

/**
 * All-planes MSE: the planes' MSE weighted by their sample counts, in
 * FFmpeg psnr's association (each weight w_c h_c / sum first, then the
 * products added in plane order).
 */
double ff_fssim_ref_mse_all(const double *mse, const int *width, const int *height,
                            int nb_planes);

/* ---- msssim: multi-scale SSIM (doc/algorithms.md#msssim) --------------- */

#define FSSIM_REF_MSSSIM_SCALES    5
/* Rows of a band: ff_fssim_ref_msssim_scales adds each scale's sums band by
 * band, in band order; a slice-threaded caller with these bands matches it
 * bit for bit. */
#define FSSIM_REF_MSSSIM_BAND_ROWS 16

/* Exponents of the scales, finest first (Wang, Simoncelli, Bovik 2003). */
extern const double ff_fssim_ref_msssim_weights[FSSIM_REF_MSSSIM_SCALES];

/** Smallest plane side that MS-SSIM scores with this window: (window-1)*16+1,
 *  the side whose fifth scale still holds one whole window. */
int ff_fssim_ref_msssim_min_side(int window);

/** Size of scale j (0 = the plane itself) of a width x height plane: each
 *  scale halves the previous one, rounding up. */
void ff_fssim_ref_msssim_scale_size(int width, int height, int j, int *sw, int *sh);

/** Doubles of caller scratch that ff_fssim_ref_msssim_scales needs for a plane
 *  pair of this size: both planes at every scale plus one row of 5 sums. */
size_t ff_fssim_ref_msssim_work_size(int width, int height);

/** Rows [y0, y1) of a plane as doubles, row-major with stride width. */
void ff_fssim_ref_msssim_load_rows(const FSSIMRefPlane *p, int y0, int y1, double *dst);

/**
 * Rows [oy0, oy1) of the next scale of a width x height double plane:
 * 2x2 average pooling, an odd dimension padded with one zero before its
 * first sample (the zeros count in the average); dst is
 * ceil(width/2) x ceil(height/2), row-major.
 */
void ff_fssim_ref_msssim_pool_rows(const double *src, int width, int height,
                                   int oy0, int oy1, double *dst);

/**
 * Add the SSIM and contrast-structure map values of output rows [oy0, oy1)
 * of two width x height double planes to *s_sum and *cs_sum (valid
 * positions: (width - window + 1) x (height - window + 1)).  Each row is
 * summed on its own, then the row sums are added in order.  g: the window's
 * weights; c1, c2: (0.01 L)^2, (0.03 L)^2; row: scratch of 5 * width doubles.
 */
void ff_fssim_ref_msssim_rows(const double *a, const double *b, int width, int height,
                              const double *g, int window, double c1, double c2,
                              int oy0, int oy1, double *row, double *s_sum, double *cs_sum);

/**
 * The per-scale plane means s[j] (SSIM) and cs[j] (contrast-structure) of a
 * plane pair, j = 0 finest.  work: ff_fssim_ref_msssim_work_size() doubles from
 * the caller (nothing is allocated).  Returns 0, or -EINVAL
 * when the window is not odd in 3..15, the planes differ in size, or the
 * smaller side is under ff_fssim_ref_msssim_min_side(window).
 */
int ff_fssim_ref_msssim_scales(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth,
                               int window, double sigma, double *work,
                               double s[FSSIM_REF_MSSSIM_SCALES],
                               double cs[FSSIM_REF_MSSSIM_SCALES]);

/** prod_{j<4} max(cs[j], 0)^w_j * max(s[4], 0)^w_4. */
double ff_fssim_ref_msssim_combine(const double s[FSSIM_REF_MSSSIM_SCALES],
                                   const double cs[FSSIM_REF_MSSSIM_SCALES]);

/* ---- vmaf_ssim, vmaf_msssim: libvmaf's float_ssim and float_ms_ssim ----- */
/* (doc/algorithms.md#vmaf_ssim).  libvmaf's arithmetic, operation for
 * operation: float planes, double sums rounded to float.  The row-band
 * functions add to the caller's sums position by position, rows in order,
 * so that one band over a whole plane adds exactly as libvmaf does. */

/* What ff_fssim_ref_vmaf_ssim_rows adds up per scored position. */
enum { FSSIM_REF_VMAF_LCS, FSSIM_REF_VMAF_L, FSSIM_REF_VMAF_C, FSSIM_REF_VMAF_S,
       FSSIM_REF_VMAF_NB_SUMS };

/* The 11-tap Gaussian window, as floats. */
extern const float ff_fssim_ref_vmaf_gauss[FSSIM_VMAF_WINDOW];

/** Tap (v, u) of the 9x9 low-pass filter of float_ms_ssim's scales. */
float ff_fssim_ref_vmaf_lpf(int v, int u);

/** C1, C2 and C3 = C2 / 2, as floats. */
void ff_fssim_ref_vmaf_constants(float c[3]);

/** float_ssim's decimation factor of a width x height plane:
 *  max(1, round(min(width, height) / 256)), halves rounded up. */
int ff_fssim_ref_vmaf_scale(int width, int height);

/** Size of a width x height plane decimated by f (f = 1: itself):
 *  width / f + (width & 1), and the same for height. */
void ff_fssim_ref_vmaf_decimated_size(int width, int height, int f, int *dw, int *dh);

/** Size of scale j (0 = the plane itself) of float_ms_ssim: each scale is
 *  the previous one halved, rounding up. */
void ff_fssim_ref_vmaf_scale_size(int width, int height, int j, int *sw, int *sh);

/**
 * Rows [y0, y1) of plane p as libvmaf's floats (a sample divided by
 * 2^(depth - 8)), decimated by f: each output sample is the box average of
 * the f x f samples around (x f, y f), mirrored at the borders.  dst holds
 * the rows of the decimated plane, row-major.
 */
void ff_fssim_ref_vmaf_load_rows(const FSSIMRefPlane *p, int depth, int f, int y0, int y1,
                                 float *dst);

/** Rows [y0, y1) of the next float_ms_ssim scale of a width x height float
 *  plane (the 9x9 low-pass filter at every second sample), into dst,
 *  ceil(width / 2) wide. */
void ff_fssim_ref_vmaf_lpf_rows(const float *src, int width, int height, int y0, int y1,
                                float *dst);

/** Floats of scratch ff_fssim_ref_vmaf_ssim_rows() needs for bands of up to
 *  rows scored rows of a plane width samples wide. */
size_t ff_fssim_ref_vmaf_ssim_scratch_size(int width, int rows);

/**
 * Add l c s, l, c and s (FSSIM_REF_VMAF_*) of the scored positions of rows
 * [oy0, oy1) to sums: the (width - 10) x (height - 10) positions whose
 * 11x11 window lies inside the width x height float planes a and b.
 */
void ff_fssim_ref_vmaf_ssim_rows(const float *a, const float *b, int width, int height,
                                 int oy0, int oy1, float *scratch,
                                 double sums[FSSIM_REF_VMAF_NB_SUMS]);

/** A plane's mean as libvmaf reports it: (float)(sum / n). */
float ff_fssim_ref_vmaf_mean(double sum, double n);

/** float_ms_ssim from the means of l, c, s at each scale, finest first:
 *  the product of l^alpha_j c^beta_j s^gamma_j in double. */
double ff_fssim_ref_vmaf_msssim_combine(const float l[FSSIM_VMAF_SCALES],
                                        const float c[FSSIM_VMAF_SCALES],
                                        const float s[FSSIM_VMAF_SCALES]);

/** Whole-plane float_ssim; NaN when the decimated plane is smaller than
 *  the window, or out of memory. */
double ff_fssim_ref_vmaf_ssim(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth);

/**
 * The means of l, c and s at each scale of float_ms_ssim.  Returns 0,
 * -EINVAL where a side is under FSSIM_VMAF_MS_MIN_SIDE or the planes
 * differ in size, -ENOMEM.
 */
int ff_fssim_ref_vmaf_msssim_scales(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth,
                                    float l[FSSIM_VMAF_SCALES], float c[FSSIM_VMAF_SCALES],
                                    float s[FSSIM_VMAF_SCALES]);

/** Whole-plane float_ms_ssim; NaN where ff_fssim_ref_vmaf_msssim_scales fails. */
double ff_fssim_ref_vmaf_msssim(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth);

/* ---- resample: renditions to the reference's size and depth ------------ */
/* (doc/algorithms.md#resampling) */

enum FSSIMRefScaler {
    FSSIM_REF_SCALER_BICUBIC,  /* Keys, a = -0.6 (swscale's default bicubic), radius 2 */
    FSSIM_REF_SCALER_BILINEAR, /* triangle, radius 1 */
    FSSIM_REF_SCALER_LANCZOS,  /* sinc(x) sinc(x/3), radius 3 */
};


/**
 * The coefficients of one axis, computed once per (in, out, scaler) on the
 * host and shared by every backend, so that all of them produce the same
 * samples.  Taps whose weight rounds to 0 at both ends are trimmed, so an
 * axis whose size does not change has ntaps 1 (weight 16384 at i = x).
 *
 * Range of the sums, for 16-bit samples (s <= 65535).  Per output, let N
 * be the sum of the magnitudes of its negative coefficients and P = 16384 + N
 * the sum of its positive ones (the remainder of the rounding goes to the
 * largest, positive, weight).
 *
 *   Bound on N: a coefficient is round(16384 w); a negative one is nonzero
 *   only when 16384 |w| >= 1/2, so |q| <= 2 * 16384 |w|, and N <= 32768 S,
 *   S being the output's normalised negative weight.  A dense sweep of the
 *   phase of u and of the widening factor f (1 to 70; for larger f, S tends
 *   to the kernel's own negative area, 0.100 and 0.179) gives S <= 0.163
 *   (bicubic), 0.277 (lanczos), 0 (bilinear): N <= 5342 / 9077 / 0.
 *
 *   h = sum q_i s_i lies in [-65535 N, 65535 P], so |h| <= 65535 P:
 *   1 423 813 410 (bicubic), 1 668 586 635 (lanczos), 1 073 725 440
 *   (bilinear), all below 2^31 - 1: h fits an int32 (GPU kernels rely on
 *   it).
 *
 *   v = sum q_j h_j: |v| <= 65535 (P_x P_y + N_x N_y) <= 4.8e13 (lanczos;
 *   bicubic 3.3e13, bilinear 65535 * 2^28 = 1.8e13): beyond an int32,
 *   far inside an int64.
 *
 * tests/unit/test_resample.c recomputes N and P from the tables of every
 * pair of sizes 1..140 and of common ladder sizes up to 4096 and checks
 * them against these bounds; there the largest N is 2657 (bicubic) and
 * 4528 (lanczos), |h| reaches 1 247 851 935 / 1 370 467 920 / 1 073 725 440
 * (bicubic / lanczos / bilinear) and |v| 2.4e13 / 3.0e13 / 1.8e13.
 */
typedef struct FSSIMRefResampleAxis {
    int in, out;
    int ntaps;        /* taps per output, the same for every output; unused taps weigh 0 */
    int32_t *start;   /* [out]: source index of tap 0 (may lie outside [0,in): clamped when read) */
    int32_t *coef;    /* [out * ntaps]: weights in units of 2^-14, each output's summing to 16384 */
} FSSIMRefResampleAxis;

/** Coefficients of the axis from in to out samples.  Returns 0, or
 *  -ENOMEM, or -EINVAL (a size outside 1..2^24, an unknown scaler). */
int  ff_fssim_ref_resample_axis_init(FSSIMRefResampleAxis *a, int in, int out, int scaler);
void ff_fssim_ref_resample_axis_free(FSSIMRefResampleAxis *a);

/** Scratch that ff_fssim_ref_resample_rows() needs, in int64 elements. */
size_t ff_fssim_ref_resample_tmp_size(const FSSIMRefResampleAxis *ax,
                                      const FSSIMRefResampleAxis *ay);

/**
 * Output rows [y0, y1) of src resampled to ax->out x ay->out, exactly, and
 * brought from in_depth bits (src's format) to depth bits (the
 * reference's) by the final rounding, clamped to [0, 2^depth - 1]:
 * row y goes to dst + (y - y0) * dst_linesize (bytes), sample values.  src
 * is ax->in x ay->in, its samples read as stored (a value above in_depth
 * bits is not masked); tmp holds ff_fssim_ref_resample_tmp_size() int64s
 * (nothing is allocated here).  With identity axes (one tap of 16384) a
 * sample s becomes s * 2^(depth - in_depth), or, to fewer bits, s / 2^n
 * rounded half up.
 */
void ff_fssim_ref_resample_rows(const FSSIMRefPlane *src, const FSSIMRefResampleAxis *ax,
                                const FSSIMRefResampleAxis *ay, int in_depth, int depth,
                                int y0, int y1, uint16_t *dst, ptrdiff_t dst_linesize,
                                int64_t *tmp);

#endif /* FSSIM_REF_H */
