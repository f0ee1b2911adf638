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
 * fssim CUDA kernels: the parameter block shared by the host (C) and the
 * kernels (CUDA C++).  Fixed-size types only and doubles first, so that the
 * layout is the same for gcc on the host and for nvcc / clang on the device.
 */
#ifndef FSSIM_CUDA_PARAMS_H
#define FSSIM_CUDA_PARAMS_H

#include <stddef.h>

#include "../core/fssim_consts.h"

/* An output tile is FSSIM_TILE x FSSIM_TILE pixels, FSSIM_THREADS threads. */
#define FSSIM_TILE        FSSIM_CUDA_TILE
#define FSSIM_THREADS     FSSIM_CUDA_THREADS

typedef struct FSSIMCudaParams {
    /* int: FSSIM_INT_C1BASE(L), FSSIM_INT_C2BASE(L), computed on the host
     * in double exactly as the CPU reference does */
    double c1base, c2base;
    /* block, deeper than 8 bits: vf_ssim.c's 64-bit constants */
    long long block_c1, block_c2;
    /* the first sample of the component: the reference's, and each
     * rendition's (or its resampled frame's) */
    unsigned long long ref_ptr;
    unsigned long long main_ptr[FSSIM_MAX_DIST];
    /* double [FSSIM_NB_FUSED_PARTS] per block: rendition i's block b at
     * (i * part_stride + part_offset + b) */
    unsigned long long partials;
    /* float: (0.01 L)^2, (0.03 L)^2 in raw sample units */
    float float_c1, float_c2;
    /* normalised Gaussian weights g[0..2*radius] */
    float g[2 * FSSIM_MAX_RADIUS + 1];
    int ref_pitch;                          /* bytes */
    int main_pitch[FSSIM_MAX_DIST];
    int nb_main;                            /* renditions scored */
    int width, height;                      /* samples */
    int step;                               /* containers between samples */
    int shift;                              /* right shift to the value */
    int algos;                              /* FSSIM_BIT() set */
    int radius;                             /* float window radius */
    int same_padding;                       /* float: zeros outside, score all */
    int block_nx, block_ny;                 /* block: windows per row, rows */
    int part_offset;                        /* first block's index in partials */
    int part_stride;                        /* blocks of one rendition, all planes */
} FSSIMCudaParams;

/* fssim_reduce: block (x, i) adds chunk x of the launch's i-th rendition's
 * partials: at most FSSIM_REDUCE_CHUNK blocks' of one component.  The host
 * adds each component's chunks (fssim_cuda_chunk_sums). */
typedef struct FSSIMCudaReduceParams {
    unsigned long long partials;   /* double [FSSIM_NB_FUSED_PARTS] per block */
    unsigned long long out;        /* double [FSSIM_NB_FUSED_PARTS] per chunk */
    int offset[4], count[4];       /* each component's blocks in a rendition's partials */
    int chunk[5];                  /* each component's first chunk; from the last
                                      component's end on, a rendition's chunks */
    int stride;                    /* blocks of a rendition in partials, all components */
    int dist[FSSIM_MAX_DIST];      /* the i-th rendition's place in out */
} FSSIMCudaReduceParams;

/* Partials a thread of fssim_reduce loads at once, and a block's chunk. */
#define FSSIM_REDUCE_LOADS 8
#define FSSIM_REDUCE_CHUNK (FSSIM_REDUCE_LOADS * FSSIM_THREADS)

/* The resampler (fssim_resample.cuh): one component of a rendition, from
 * its size and format to the reference's.  Its blocks cover the output in
 * tiles of FSSIM_TILE columns by rows rows; each block keeps the horizontal
 * pass of the source rows its tile needs (bands) in shared memory, at most
 * FSSIM_RESAMPLE_SPAN of them. */
typedef struct FSSIMCudaResampleComp {
    unsigned long long src, dst;      /* first sample of the component */
    unsigned long long xstart, xcoef; /* int tables of the horizontal axis */
    unsigned long long ystart, ycoef; /* and of the vertical one */
    unsigned long long bands;         /* int [2] per row of tiles: first source row, count */
    int src_pitch, dst_pitch;         /* bytes */
    int in_w, in_h, out_w, out_h;
    int xtaps, ytaps;
    int src_step, src_shift;          /* the rendition's container layout */
    int step, shift;                  /* the layout dst is written in (the reference's) */
    int rows;                         /* output rows of a tile; 0: FSSIM_RESAMPLE_DIRECT_ROWS,
                                         each output computed from the source alone */
    int tiles_x;                      /* tiles across */
    int first_block;                  /* the component's first block of the launch */
    int max;                          /* L of the reference */
    int round;                        /* the final rounding's shift, FSSIM_RESAMPLE_SHIFT */
    int pad;
} FSSIMCudaResampleComp;

/* One launch of fssim_resample8 or fssim_resample16 (the rendition's
 * container): every component of one rendition. */
typedef struct FSSIMCudaResampleParams {
    FSSIMCudaResampleComp comp[4];
    int nb_comps;
    int pad;
} FSSIMCudaResampleParams;

/* Output rows of a block of the resampler's direct path (rows 0). */
#define FSSIM_RESAMPLE_DIRECT_ROWS (FSSIM_THREADS / FSSIM_TILE)

/* msssim (fssim_msssim.cuh): one plane at one scale j. */
typedef struct FSSIMCudaMsPlane {
    unsigned long long main_ptr, ref_ptr;     /* scale j: the frames (j = 0) or float planes */
    unsigned long long main_next, ref_next;   /* scale j + 1, float; 0 at the last scale */
    int main_pitch, ref_pitch;                /* bytes */
    int next_pitch;                           /* bytes, of both planes of scale j + 1 */
    int width, height;                        /* of scale j */
    int step, shift;                          /* scale 0: the container layout */
    int tiles_x;                              /* tiles across */
    int first_tile;                           /* the plane's first block of the launch */
    int pad;
} FSSIMCudaMsPlane;

/* msssim: one launch of fssim_ms_scale, every plane of a pair at scale j. */
typedef struct FSSIMCudaMsParams {
    FSSIMCudaMsPlane plane[4];
    unsigned long long partials;   /* double [2] per block: the S and CS sums */
    float c1, c2;                  /* (0.01 L)^2, (0.03 L)^2 */
    float g[2 * FSSIM_MAX_RADIUS + 1];
    int nb_planes;
    int level;                     /* j; 0 reads the frames */
    int radius;
    int pad;
} FSSIMCudaMsParams;

/* msssim: fssim_ms_reduce, one block per segment (plane c, scale j) = c * 5 + j. */
typedef struct FSSIMCudaMsReduceParams {
    unsigned long long partials;   /* double [2] per block of fssim_ms_scale */
    unsigned long long out;        /* double [2] per segment: S and CS sums */
    int offset[4 * FSSIM_MS_SCALES], count[4 * FSSIM_MS_SCALES];
} FSSIMCudaMsReduceParams;

/* The host (gcc) and the device compilers (nvcc, clang) must lay the
 * parameter blocks out alike: each checks the sizes and the offset of the
 * last member it expects. */
#ifdef __cplusplus
#define FSSIM_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define FSSIM_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
#define FSSIM_CHECK_LAYOUT(type, size, last, offset)                                 \
    FSSIM_STATIC_ASSERT(sizeof(type) == (size) && offsetof(type, last) == (offset),  \
                        #type " is laid out as the kernels expect")

FSSIM_CHECK_LAYOUT(FSSIMCudaParams, 360, part_stride, 356);
FSSIM_CHECK_LAYOUT(FSSIMCudaReduceParams, 136, dist, 72);
FSSIM_CHECK_LAYOUT(FSSIMCudaResampleComp, 128, pad, 124);
FSSIM_CHECK_LAYOUT(FSSIMCudaResampleParams, 520, pad, 516);
FSSIM_CHECK_LAYOUT(FSSIMCudaMsPlane, 72, pad, 68);
FSSIM_CHECK_LAYOUT(FSSIMCudaMsParams, 384, pad, 376);
FSSIM_CHECK_LAYOUT(FSSIMCudaMsReduceParams, 176, count, 96);

/* nvcc defines __CUDACC__, clang's CUDA mode __CUDA__; FFmpeg's clang path
 * has no CUDA headers, so no __host__ */
#if (defined(__CUDACC__) || defined(__CUDA__)) && !defined(FSSIM_CUDA_EMULATION)
#ifndef __host__
#define __host__ __attribute__((host))
#endif
#define FSSIM_HD static inline __host__ __device__
#else
#define FSSIM_HD static inline
#endif

/* Sample classes, one kernel each: the widest exact types they need. */
enum FSSIMCudaKind {
    FSSIM_KIND_8,    /* 8-bit: int sums in float (exact below 2^24), block in int */
    FSSIM_KIND_12,   /* 9-12-bit: horizontal int sums in uint32, block in int */
    FSSIM_KIND_16,   /* 13-16-bit: horizontal int sums in double, block in int64 */
};

FSSIM_HD int fssim_cuda_kind(int depth)
{
    return depth <= 8 ? FSSIM_KIND_8 : depth <= 12 ? FSSIM_KIND_12 : FSSIM_KIND_16;
}

/* The class of a component of depth bits whose value is its container
 * shifted right by shift: samples at the bottom of 16-bit words (shift 0)
 * are read as stored and may hold any 16-bit value, whatever the depth
 * (doc/formats.md#sample-values), so they take the 16-bit sums; MSB-aligned
 * ones (P010) cannot exceed their depth. */
FSSIM_HD int fssim_cuda_kind_stored(int depth, int shift)
{
    return depth > 8 && !shift ? FSSIM_KIND_16 : fssim_cuda_kind(depth);
}

#define FSSIM_WARPS (FSSIM_THREADS / 32)

/* Shared memory of one thread block, in bytes from the start:
 *  s, d:   the tile and its halo, raw samples as float (exact up to 16 bits),
 *          rows of stride floats whose column 0 is at lead: a row's columns
 *          -lead .. stride - lead - 1 are 16-byte groups that the loader
 *          stores whole (load_quads)
 *  hi:     int algorithm, horizontal sums, 4 or 5 moments (fssim_int_moments)
 *          x (TILE+8) rows x TILE, moment k's plane at fssim_int_plane()
 *  hf:     float algorithm, horizontal sums, 4 moments x region rows x TILE
 *  bs:     block algorithm, 5 sums of 9x9 4x4-blocks
 *  (the reference's own moments and sums stay there for every rendition:
 *  int's muy and y2, float's mb, block's s2 and sb2)
 *  red:    the reduction: FSSIM_NB_FUSED_PARTS values per warp (tile_sums);
 *          over sums that nothing reads any more (see below) */
typedef struct FSSIMSmemLayout {
    int region;                 /* side of the loaded square */
    int stride, lead;           /* s and d: floats per row, first column's place */
    int s, d, hi, hf, bs, red, total;
} FSSIMSmemLayout;

FSSIM_HD int fssim_align8(int x) { return (x + 7) & ~7; }

/* The int algorithm's moments in shared memory: mux, muy, x2, xy, y2; or,
 * for a lone pair of 8-bit samples, mux, muy, x2 + y2, xy, since its term
 * needs only the sum of the squares' sums and, at 8 bits, gets the same bits
 * from it (fssim_plane.cuh, int_term).  A ladder keeps the reference's y2 for
 * its renditions, so keeps the five. */
FSSIM_HD int fssim_int_moments(int kind, int ladder)
{
    return kind == FSSIM_KIND_8 && !ladder ? 4 : 5;
}

/* Bytes from hi to the int algorithm's moment k (k == the number of
 * moments: the planes' end).  QSUM, the four moments of a lone 8-bit pair:
 * mux and muy, whose horizontal sums are below 2^16, as 16-bit integers,
 * which takes 5 KiB off a block and so lets four blocks share an SM
 * (FSSIM_BLOCKS_PAIR8); a ladder keeps its reference's vertical muy, below
 * 2^24, in the plane of muy, so keeps 32-bit planes. */
FSSIM_HD int fssim_int_plane(int kind, int qsum, int k)
{
    const int plane = (FSSIM_TILE + 2 * FSSIM_INT_RADIUS) * FSSIM_TILE;

    if (qsum)
        return k < 2 ? 2 * k * plane : 4 * plane + 4 * (k - 2) * plane;
    return (kind == FSSIM_KIND_16 ? 8 : 4) * k * plane;
}

/* Whether the reduction's area overlaps sums that the vertical passes read,
 * so that it must wait for every thread to be done with them (see
 * fssim_smem_layout).  A function of what the kernel knows at compile time
 * where it can: as a field of the layout, the test was slower
 * (doc/performance.md#cuda-the-tile-and-frame-reductions). */
FSSIM_HD int fssim_red_barrier(int algos, int ladder)
{
    const int passes = FSSIM_BIT(FSSIM_ALGO_INT) | FSSIM_BIT(FSSIM_ALGO_FLOAT);
    return (algos & passes) && (ladder || (algos & ~passes));
}

FSSIM_HD FSSIMSmemLayout fssim_smem_layout(int radius, int algos, int kind, int ladder)
{
    FSSIMSmemLayout l;
    const int r = radius > FSSIM_INT_RADIUS ? radius : FSSIM_INT_RADIUS;
    const int wide = kind == FSSIM_KIND_16 ? 8 : 4;
    const int qsum = fssim_int_moments(kind, ladder) == 4;
    int off = 0;

    l.region = FSSIM_TILE + 2 * r;
    /* tiles start at multiples of 4 columns, their regions r before; a
     * ladder's module loads sample by sample (fssim_plane.cuh says why) */
    l.lead   = ladder ? 0 : -r & 3;
    l.stride = ladder ? l.region : (l.lead + l.region + 3) & ~3;
    l.s   = off; off += 4 * l.region * l.stride;
    l.d   = off; off += 4 * l.region * l.stride;
    l.hi  = off;
    if (algos & FSSIM_BIT(FSSIM_ALGO_INT))
        off += fssim_int_plane(kind, qsum, fssim_int_moments(kind, ladder));
    l.hf  = off;
    if (algos & FSSIM_BIT(FSSIM_ALGO_FLOAT))
        off += 4 * l.region * FSSIM_TILE * 4;
    l.bs  = off;
    if (algos & FSSIM_BIT(FSSIM_ALGO_BLOCK))
        off += 5 * 81 * wide;
    off = fssim_align8(off);
    /*
     * The reduction takes the place of sums nothing reads any more, so
     * that float+int up to 12 bits fits Turing's 64 KiB, with psnr, block
     * or in a ladder too (8448 bytes before tile_sums, 256 since):
     *  - a lone pair scoring only int and float reads its tiles in the
     *    horizontal passes alone: over the tiles (at least 12800 bytes);
     *  - otherwise (psnr and block read the tiles up to the reduction, a
     *    ladder keeps the reference's), over int's x2 and xy planes or
     *    float's q and pr planes (at least 10240 bytes), which every
     *    rendition computes anew and the vertical passes alone read: one
     *    more barrier before the reduction (fssim_red_barrier).
     * Every offset here is a multiple of 8, as the doubles need.
     */
    if (fssim_red_barrier(algos, ladder)) {
        l.red = algos & FSSIM_BIT(FSSIM_ALGO_INT) ? l.hi + fssim_int_plane(kind, qsum, 2) :
                l.hf + 2 * l.region * FSSIM_TILE * 4;
    } else if (algos & (FSSIM_BIT(FSSIM_ALGO_INT) | FSSIM_BIT(FSSIM_ALGO_FLOAT))) {
        l.red = l.s;
    } else {
        l.red = off;
        off  += 8 * FSSIM_NB_FUSED_PARTS * FSSIM_WARPS;
    }
    l.total = off;
    return l;
}

/* Shared memory of fssim_ms_scale (fssim_msssim.cuh), bytes from
 * the start:
 *  s, d:  the tile of scale j and its halo, as float
 *  h:     the horizontal pass, 4 moments x region rows x TILE
 *  red:   the reduction: 2 values per thread, then 2 per warp */
typedef struct FSSIMMsSmemLayout {
    int region;                 /* side of the loaded square */
    int s, d, h, red, total;
} FSSIMMsSmemLayout;

FSSIM_HD FSSIMMsSmemLayout fssim_ms_smem_layout(int radius)
{
    FSSIMMsSmemLayout l;
    int off = 0;

    l.region = FSSIM_TILE + 2 * radius;
    l.s   = off; off = fssim_align8(off + 4 * l.region * l.region);
    l.d   = off; off = fssim_align8(off + 4 * l.region * l.region);
    l.h   = off; off = fssim_align8(off + 4 * 4 * l.region * FSSIM_TILE);
    l.red = off; off += 8 * 2 * (FSSIM_THREADS + FSSIM_WARPS);
    l.total = off;
    return l;
}

/**
 * Fill the parameters of one component, except the sample pointers,
 * pitches and part_offset, which change per frame.  algos: a FSSIM_BIT() set.
 * Host code with no FFmpeg dependency (fssim_cuda_params_host.c).
 */
void ff_fssim_cuda_fill_params(FSSIMCudaParams *p, int depth, int width, int height,
                               int bytes, int step, int shift, int algos,
                               int window, double sigma, int same_padding);

/** Sum over a width x height component of the int algorithm's per-pixel
 *  weights w (doc/algorithms.md#int): the denominator of the int score. */
unsigned long long ff_fssim_cuda_int_weight_sum(int width, int height);

/**
 * Lay fssim_reduce out for components of count[c] partials each: their
 * offsets, counts and chunks in p.  Returns the chunks of a rendition, the
 * launch's width and the slots of out a rendition takes.
 */
static inline int fssim_cuda_reduce_layout(FSSIMCudaReduceParams *p, const int *count,
                                           int nb_comps)
{
    int blocks = 0, chunks = 0;

    for (int c = 0; c < 4; c++) {
        const int n = c < nb_comps ? count[c] : 0;
        p->offset[c] = blocks;
        p->count[c]  = n;
        p->chunk[c]  = chunks;
        blocks += n;
        chunks += (n + FSSIM_REDUCE_CHUNK - 1) / FSSIM_REDUCE_CHUNK;
    }
    p->chunk[4] = chunks;
    p->stride   = blocks;
    return chunks;
}

/**
 * Component c's sums of the k-th rendition of out (fssim_reduce's, laid out
 * by p): its chunks added in order, psnr's sum of squared differences as
 * the 64-bit integer it is, in the bits of its double.
 */
static inline void fssim_cuda_chunk_sums(const double *out, const FSSIMCudaReduceParams *p,
                                         int k, int c, double *sums)
{
    union { double d; unsigned long long u; } sse = { 0.0 }, chunk;

    for (int j = 0; j < FSSIM_NB_FUSED_PARTS; j++)
        sums[j] = 0.0;
    for (int x = p->chunk[c]; x < p->chunk[c + 1]; x++) {
        const double *v = out + ((size_t)k * p->chunk[4] + x) * FSSIM_NB_FUSED_PARTS;
        for (int j = 0; j < FSSIM_NB_FUSED_PARTS; j++)
            if (j != FSSIM_PART_SSE)
                sums[j] += v[j];
        chunk.d = v[FSSIM_PART_SSE];
        sse.u  += chunk.u;
    }
    sums[FSSIM_PART_SSE] = sse.d;
}

/** Thread blocks that fssim_plane_* runs for a width x height component. */
static inline int fssim_cuda_nb_blocks(int width, int height, int *gx, int *gy)
{
    *gx = (width  + FSSIM_TILE - 1) / FSSIM_TILE;
    *gy = (height + FSSIM_TILE - 1) / FSSIM_TILE;
    return *gx * *gy;
}

#endif /* FSSIM_CUDA_PARAMS_H */
