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
 * The CUDA kernels of fssim_cuda (filters/cuda/fssim_plane.cuh) run on the CPU through
 * tests/cuda/emu.h and checked against the CPU reference: tiling and
 * halos, plane borders, odd sizes, semi-planar and MSB-aligned samples,
 * samples above the format's depth (read as stored, by the 16-bit class the
 * filter picks for them), every algorithm, valid and same padding, window
 * sizes, determinism; msssim's kernels (filters/cuda/fssim_msssim.cuh) on
 * several planes per launch, odd sizes just above the smallest plane,
 * identical planes; the resampler (filters/cuda/fssim_resample.cuh) from every
 * container and layout into another, across bit depths, sample for sample
 * against the reference's; vmaf_ssim's and vmaf_msssim's kernels
 * (filters/cuda/fssim_vmaf.cuh), their float planes bit for bit.
 * The real kernels run on the GPU in tests/cuda/test_cuda.py.
 */
#include "emu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "fssim_ref.h"
#include "fssim_cuda_params.h"
}
#include "tap.h"

#include "emu_fssim.h"

/* ABOVE: noise over every value of the container (16-bit words: up to
 * 65535 whatever the depth), as a raw file may hold */
enum Content { NOISE, SMOOTH, FLAT, EDGES, SAME, ABOVE };

struct Case {
    int w, h, depth, bytes, step, shift;
    int algos, window;
    double sigma;
    int same;
    Content content;
    int any;   /* force the any-window kernels */
    int aligned;   /* rows 64-byte aligned (else an odd pitch): the loader's quads */
    int offset;    /* bytes before each row's first sample (NV12's V: 1) */
};

/* Bytes between rows: odd unless the case asks for aligned rows, which
 * interior tiles of planar formats read four samples at a time. */
static int case_pitch(const Case &c)
{
    const int row = c.w * c.step * c.bytes;
    return c.aligned ? (row + 63) & ~63 : row + 13 + (c.bytes == 2 ? 1 : 0);
}

static uint32_t rng = 12345;
static unsigned rnd(unsigned max)
{
    rng = rng * 1664525u + 1013904223u;
    return (rng >> 8) % (max + 1);
}

/* A plane of containers: values `depth` bits, stored << shift, every
 * step-th container, rows `pitch` bytes apart (with junk in between). */
static std::vector<uint8_t> make_plane(const Case &c, int pitch, bool second,
                                       const std::vector<uint8_t> *first)
{
    const unsigned max = (1u << c.depth) - 1;
    std::vector<uint8_t> buf((size_t)pitch * c.h + 64);
    for (auto &b : buf)
        b = (uint8_t)rnd(255);   /* junk between samples and rows */
    for (int y = 0; y < c.h; y++) {
        for (int x = 0; x < c.w; x++) {
            unsigned v;
            switch (c.content) {
            case NOISE:  v = rnd(max); break;
            case SMOOTH: v = (unsigned)((x * 7 + y * 3) * max / (7 * c.w + 3 * c.h + 1)); break;
            case FLAT:   v = max * 3 / 4; break;
            case EDGES:  v = ((x / 9 + y / 7) & 1) ? max : max / 16; break;
            case ABOVE:  v = rnd(c.bytes == 2 && !c.shift ? 65535 : max); break;
            default:     v = 0; break;
            }
            if (second && c.content != SAME && c.content != ABOVE)
                v = (unsigned)fmin(max, fmax(0, (int)v + (int)rnd(max / 8) - (int)(max / 16)));
            if (c.content == SAME && first) {
                /* copy the first plane's values */
                v = 0;
            }
            size_t off = c.offset + (size_t)y * pitch + (size_t)x * c.step * c.bytes;
            if (c.bytes == 1)
                buf[off] = (uint8_t)(v << c.shift);
            else {
                uint16_t s = (uint16_t)(v << c.shift);
                memcpy(&buf[off], &s, 2);
            }
        }
    }
    if (c.content == SAME && first)
        return *first;
    return buf;
}

/* fssim_reduce over one component's n tile partials, its chunks then added
 * as the filter adds them (fssim_cuda_chunk_sums) into sums. */
static void reduce_component(const double *partials, int n, double *sums)
{
    FSSIMCudaReduceParams rp = {};
    const int chunks = fssim_cuda_reduce_layout(&rp, &n, 1);
    std::vector<double> out((size_t)chunks * FSSIM_NB_FUSED_PARTS, NAN);

    rp.partials = (unsigned long long)(uintptr_t)partials;
    rp.out      = (unsigned long long)(uintptr_t)out.data();
    emu_launch(reduce, chunks, 1, FSSIM_TILE, FSSIM_THREADS / FSSIM_TILE, rp);
    fssim_cuda_chunk_sums(out.data(), &rp, 0, 0, sums);
}

/* One case through the kernel of one sample class. */
static void run_case_kind(const Case &c, int kind)
{
    const int pitch = case_pitch(c);
    Case c2 = c;
    std::vector<uint8_t> a, b;
    if (c.content == SAME) {
        c2.content = NOISE;
        a = make_plane(c2, pitch, false, NULL);
        b = a;
    } else {
        a = make_plane(c, pitch, false, NULL);
        b = make_plane(c, pitch, true, NULL);
    }

    FSSIMRefPlane ra = { a.data() + c.offset, pitch, c.w, c.h, c.bytes, c.step, c.shift };
    FSSIMRefPlane rb = { b.data() + c.offset, pitch, c.w, c.h, c.bytes, c.step, c.shift };

    FSSIMCudaParams p;
    ff_fssim_cuda_fill_params(&p, c.depth, c.w, c.h, c.bytes, c.step, c.shift, c.algos,
                              c.window, c.sigma, c.same);
    int gx, gy;
    const int nblocks = fssim_cuda_nb_blocks(c.w, c.h, &gx, &gy);
    std::vector<double> partials((size_t)nblocks * FSSIM_NB_FUSED_PARTS, NAN);
    double out[3][FSSIM_NB_FUSED_PARTS];
    /* both planes stored bottom-up: the last row first, a negative pitch */
    std::vector<uint8_t> af(a.size()), bf(b.size());
    for (int y = 0; y < c.h; y++) {
        memcpy(&af[(size_t)(c.h - 1 - y) * pitch], &a[(size_t)y * pitch], pitch);
        memcpy(&bf[(size_t)(c.h - 1 - y) * pitch], &b[(size_t)y * pitch], pitch);
    }

    p.main_ptr[0] = (unsigned long long)(uintptr_t)(a.data() + c.offset);
    p.ref_ptr     = (unsigned long long)(uintptr_t)(b.data() + c.offset);
    p.main_pitch[0] = p.ref_pitch = pitch;
    p.nb_main     = 1;
    p.partials    = (unsigned long long)(uintptr_t)partials.data();
    p.part_offset = 0;

    for (int run = 0; run < 3; run++) {
        void (*const kernels[2][3])(FSSIMCudaParams) = {
            { plane_8<0>, plane_12<0>, plane_16<0> },
            { plane_8<FSSIM_DEFAULT_RADIUS>, plane_12<FSSIM_DEFAULT_RADIUS>,
              plane_16<FSSIM_DEFAULT_RADIUS> },
        };
        /* the default-window kernels where they apply, as the filter does;
         * run < 0 cases use the any-window ones with window 11 too */
        const int def = c.window == 2 * FSSIM_DEFAULT_RADIUS + 1 && !c.any;
        if (run == 2) {
            p.main_ptr[0] = (unsigned long long)(uintptr_t)&af[(size_t)(c.h - 1) * pitch + c.offset];
            p.ref_ptr     = (unsigned long long)(uintptr_t)&bf[(size_t)(c.h - 1) * pitch + c.offset];
            p.main_pitch[0] = p.ref_pitch = -pitch;
        }
        emu_launch(kernels[def][kind], gx, gy, FSSIM_TILE, FSSIM_THREADS / FSSIM_TILE, p);
        reduce_component(partials.data(), nblocks, out[run]);
    }

    char name[200];
    snprintf(name, sizeof(name), "%dx%d %d-bit bytes=%d step=%d shift=%d window=%d%s sigma=%g %s content=%d%s offset=%d%s",
             c.w, c.h, c.depth, c.bytes, c.step, c.shift, c.window, c.any ? " (any-window kernel)" : "",
             c.sigma, c.same ? "same" : "valid", (int)c.content, c.aligned ? " aligned" : "", c.offset,
             kind != fssim_cuda_kind_stored(c.depth, c.shift) ? " (the 9-12-bit class, as P012's)" : "");

    tap_ok(!memcmp(out[0], out[1], sizeof(out[0])), "%s: two runs bitwise identical", name);
    tap_ok(!memcmp(out[0], out[2], sizeof(out[0])),
           "%s: the planes stored bottom-up (negative pitch) score the same, bitwise", name);

    if (c.algos & FSSIM_BIT(FSSIM_ALGO_INT)) {
        const double ref = ff_fssim_ref_int(&ra, &rb, c.depth);
        const double got = out[0][FSSIM_PART_INT] / (double)ff_fssim_cuda_int_weight_sum(c.w, c.h);
        tap_ok(fabs(got - ref) <= 1e-12, "%s: int %.17g vs reference %.17g (diff %.3g)", name, got, ref, fabs(got - ref));
        if (c.content == SAME && c.depth <= 10)
            tap_ok(got == 1.0, "%s: int of identical planes is exactly 1", name);
    }
    if (c.algos & FSSIM_BIT(FSSIM_ALGO_FLOAT)) {
        const FSSIMRefFloatParams fp = { c.window, c.sigma, c.same };
        int ow, oh;
        const double ref = ff_fssim_ref_float(&ra, &rb, c.depth, &fp);
        ff_fssim_ref_float_out_size(c.w, c.h, &fp, &ow, &oh);
        const double got = out[0][FSSIM_PART_FLOAT] / ((double)ow * oh);
        tap_ok(fabs(got - ref) <= 1e-5, "%s: float %.17g vs reference %.17g (diff %.3g)", name, got, ref, fabs(got - ref));
        if (c.content == SAME)
            tap_ok(got == 1.0, "%s: float of identical planes is exactly 1", name);
    }
    if (c.algos & FSSIM_BIT(FSSIM_ALGO_PSNR)) {
        uint64_t ref = 0, got;
        ff_fssim_ref_sse_rows(&ra, &rb, 0, c.h, &ref);
        memcpy(&got, &out[0][FSSIM_PART_SSE], sizeof(got));
        tap_ok(got == ref, "%s: psnr's sum of squared differences %llu equals the reference's %llu",
               name, (unsigned long long)got, (unsigned long long)ref);
    }
    if (c.algos & FSSIM_BIT(FSSIM_ALGO_BLOCK)) {
        int nx, ny;
        const double ref = ff_fssim_ref_block(&ra, &rb, c.depth);
        ff_fssim_ref_block_windows(c.w, c.h, &nx, &ny);
        const double got = out[0][FSSIM_PART_BLOCK] / ((double)nx * ny);
        tap_ok(fabs(got - ref) <= 1e-6, "%s: block %.17g vs reference %.17g (diff %.3g)", name, got, ref, fabs(got - ref));
        if (c.content == SAME)
            tap_ok(got == 1.0, "%s: block of identical planes is exactly 1", name);
    }
}

/* A case through the kernel the filter picks for it (samples at the bottom
 * of 16-bit words: the 16-bit class, fssim_cuda_kind_stored); samples in
 * range at 9-12 bits also through the 9-12-bit class, which MSB-aligned
 * formats (P012) take. */
static void run_case(const Case &c)
{
    const int kind = fssim_cuda_kind_stored(c.depth, c.shift);

    run_case_kind(c, kind);
    if (kind != fssim_cuda_kind(c.depth) && c.content != ABOVE)
        run_case_kind(c, fssim_cuda_kind(c.depth));
}

/* The reduction adds psnr's tile sums as 64-bit integers: a 16-bit 2160p
 * plane's sum goes beyond 2^53, where doubles would round. */
static void test_sse_reduction(void)
{
    const int n = 9000;
    const double tile = 4398046511103.0;     /* 2^42 - 1, a tile's largest */
    std::vector<double> partials((size_t)n * FSSIM_NB_FUSED_PARTS, 0.0);
    double out[FSSIM_NB_FUSED_PARTS];
    uint64_t got;

    for (int i = 0; i < n; i++)
        partials[(size_t)i * FSSIM_NB_FUSED_PARTS + FSSIM_PART_SSE] = tile - (i & 7);
    reduce_component(partials.data(), n, out);
    memcpy(&got, &out[FSSIM_PART_SSE], sizeof(got));
    uint64_t want = 0;
    for (int i = 0; i < n; i++)
        want += (uint64_t)tile - (i & 7);
    tap_ok(got == want && want > (1ULL << 53),
           "psnr: tile sums added as integers beyond 2^53 (%llu), over %d chunks", (unsigned long long)got,
           (n + FSSIM_REDUCE_CHUNK - 1) / FSSIM_REDUCE_CHUNK);
}

/* A ladder's launch (one reference, three renditions, the reference's own
 * terms computed once) gives each rendition the partial sums of its launch
 * alone, bit for bit. */
static void test_ladder_launch(void)
{
    const int ALL = FSSIM_BIT(FSSIM_ALGO_INT) | FSSIM_BIT(FSSIM_ALGO_FLOAT) |
                    FSSIM_BIT(FSSIM_ALGO_BLOCK) | FSSIM_BIT(FSSIM_ALGO_PSNR);
    const Case cases[] = {
        {  70,  45,  8, 1, 1, 0, ALL, 11, 1.5, 0, NOISE  },
        {  67,  41, 10, 2, 2, 6, ALL,  7, 1.0, 1, SMOOTH },
        {  48,  40, 16, 2, 1, 0, ALL, 11, 1.5, 0, EDGES  },
        {  70,  45,  8, 1, 1, 0, FSSIM_BIT(FSSIM_ALGO_INT) | FSSIM_BIT(FSSIM_ALGO_FLOAT),
                                      11, 1.5, 0, SMOOTH },
        { 101,  75,  8, 1, 1, 0, ALL, 11, 1.5, 0, EDGES, 0, 1 },
        { 101,  75, 10, 2, 1, 6, ALL,  9, 1.5, 0, NOISE, 0, 1 },
    };
    for (const Case &c : cases) {
        const int pitch = case_pitch(c);
        std::vector<uint8_t> ref = make_plane(c, pitch, false, NULL), d[3];
        int gx, gy;
        const int n = fssim_cuda_nb_blocks(c.w, c.h, &gx, &gy);
        std::vector<double> lad((size_t)3 * n * FSSIM_NB_FUSED_PARTS), one((size_t)n * FSSIM_NB_FUSED_PARTS);
        FSSIMCudaParams p;
        const int def = c.window == 2 * FSSIM_DEFAULT_RADIUS + 1;
        /* the ladder through a ladder module's kernel, each rendition alone
         * through a lone pair's */
        void (*const ladders[2][3])(FSSIMCudaParams) = {
            { plane_8<0, true>, plane_12<0, true>, plane_16<0, true> },
            { plane_8<FSSIM_DEFAULT_RADIUS, true>, plane_12<FSSIM_DEFAULT_RADIUS, true>,
              plane_16<FSSIM_DEFAULT_RADIUS, true> },
        };
        void (*const kernels[2][3])(FSSIMCudaParams) = {
            { plane_8<0>, plane_12<0>, plane_16<0> },
            { plane_8<FSSIM_DEFAULT_RADIUS>, plane_12<FSSIM_DEFAULT_RADIUS>,
              plane_16<FSSIM_DEFAULT_RADIUS> },
        };
        int same = 1;

        for (int k = 0; k < 3; k++) {
            Case ck = c;
            ck.content = (Content)((c.content + k) % 4);
            d[k] = make_plane(ck, pitch, true, NULL);
        }
        ff_fssim_cuda_fill_params(&p, c.depth, c.w, c.h, c.bytes, c.step, c.shift, c.algos,
                                  c.window, c.sigma, c.same);
        p.ref_ptr = (unsigned long long)(uintptr_t)ref.data();
        p.ref_pitch = pitch;
        p.nb_main = 3;
        p.part_stride = n;
        for (int k = 0; k < 3; k++) {
            p.main_ptr[k] = (unsigned long long)(uintptr_t)d[k].data();
            p.main_pitch[k] = pitch;
        }
        p.partials = (unsigned long long)(uintptr_t)lad.data();
        emu_launch(ladders[def][fssim_cuda_kind_stored(c.depth, c.shift)], gx, gy, FSSIM_TILE,
                   FSSIM_THREADS / FSSIM_TILE, p);
        for (int k = 0; k < 3; k++) {
            FSSIMCudaParams q = p;
            q.nb_main = 1;
            q.part_stride = 0;
            q.main_ptr[0] = p.main_ptr[k];
            q.partials = (unsigned long long)(uintptr_t)one.data();
            emu_launch(kernels[def][fssim_cuda_kind_stored(c.depth, c.shift)], gx, gy, FSSIM_TILE,
                       FSSIM_THREADS / FSSIM_TILE, q);
            same &= !memcmp(one.data(), lad.data() + (size_t)k * n * FSSIM_NB_FUSED_PARTS,
                            one.size() * sizeof(double));
        }
        tap_ok(same, "%dx%d %d-bit%s: a ladder launch of 3 renditions (ladder module) gives each "
               "the partials of its launch alone (lone pair's module), bitwise", c.w, c.h, c.depth,
               c.algos & FSSIM_BIT(FSSIM_ALGO_PSNR) ? "" : " without psnr");
    }
}

/*
 * The resampler (filters/cuda/fssim_resample.cuh): one component from a
 * rendition's container and layout (bytes, step, shift, depth) into the
 * reference's, every output sample against ff_fssim_ref_resample_rows
 * brought to the reference's depth.  The tiles as the filters lay them out
 * (ff_fssim_resample_tiles: the most rows of 32, 16, ... whose band fits
 * FSSIM_RESAMPLE_SPAN source rows, else the direct path), written again
 * here since the engine's is FFmpeg code.
 */
struct Layout {
    int bytes, step, shift, depth, offset;
};

struct RsCase {
    int iw, ih, ow, oh, scaler;
    Layout in, out;
    int above;        /* the input's samples anywhere in its 16-bit words */
    const char *what;
};

static int band_rows(const FSSIMRefResampleAxis *a, int rows, std::vector<int> &bands)
{
    for (; rows > 0; rows /= 2) {
        const int nb = (a->out + rows - 1) / rows;
        bool fits = true;
        bands.assign(2 * (size_t)nb, 0);
        for (int t = 0; t < nb && fits; t++) {
            int lo = 1 << 30, hi = -(1 << 30);
            for (int y = t * rows; y < (t + 1) * rows && y < a->out; y++) {
                lo = a->start[y] < lo ? a->start[y] : lo;
                hi = a->start[y] + a->ntaps > hi ? a->start[y] + a->ntaps : hi;
            }
            bands[2 * t] = lo;
            bands[2 * t + 1] = hi - lo;
            fits = hi - lo <= FSSIM_RESAMPLE_SPAN;
        }
        if (fits)
            return rows;
    }
    return 0;
}

static void run_resample_case(const RsCase &rc)
{
    const Layout &li = rc.in, &lo = rc.out;
    const int ipitch = rc.iw * li.step * li.bytes + 5 * li.bytes + li.offset;
    const int opitch = rc.ow * lo.step * lo.bytes + 3 * lo.bytes + lo.offset;
    const unsigned imax = rc.above ? 65535u : (1u << li.depth) - 1;
    std::vector<uint8_t> src((size_t)ipitch * rc.ih + 16), dst((size_t)opitch * rc.oh + 16);
    std::vector<uint16_t> want((size_t)rc.ow * rc.oh);
    FSSIMRefResampleAxis ax, ay;
    std::vector<int> bands;
    FSSIMCudaResampleParams p = {};
    FSSIMCudaResampleComp &cp = p.comp[0];
    bool same = true;
    int bad_x = -1, bad_y = -1;
    unsigned got_v = 0;

    for (auto &b : src)
        b = (uint8_t)rnd(255);
    for (int y = 0; y < rc.ih; y++)
        for (int x = 0; x < rc.iw; x++) {
            /* smooth content with noise, and hard edges, over the range */
            unsigned v = ((x / 5 + y / 3) & 1) ? rnd(imax) : (unsigned)((x + 2 * y) * imax /
                                                             (rc.iw + 2 * rc.ih));
            uint8_t *at = &src[(size_t)y * ipitch + li.offset + (size_t)x * li.step * li.bytes];
            if (li.bytes == 1) {
                *at = (uint8_t)(v << li.shift);
            } else {
                const uint16_t w = (uint16_t)(v << li.shift);
                memcpy(at, &w, 2);
            }
        }
    if (ff_fssim_ref_resample_axis_init(&ax, rc.iw, rc.ow, rc.scaler) < 0 ||
        ff_fssim_ref_resample_axis_init(&ay, rc.ih, rc.oh, rc.scaler) < 0)
        tap_bail("axis init failed");
    {
        const FSSIMRefPlane rp = { src.data() + li.offset, ipitch, rc.iw, rc.ih, li.bytes,
                                   li.step, li.shift };
        std::vector<int64_t> tmp(ff_fssim_ref_resample_tmp_size(&ax, &ay));
        ff_fssim_ref_resample_rows(&rp, &ax, &ay, li.depth, lo.depth, 0, rc.oh, want.data(),
                                   (ptrdiff_t)rc.ow * 2, tmp.data());
    }

    for (int pass = 0; pass < 2; pass++) {
        /* the filters' tiling, then the direct path */
        const int rows = pass ? 0 : band_rows(&ay, FSSIM_TILE, bands);
        const int ty = (rc.oh + (rows ? rows : FSSIM_RESAMPLE_DIRECT_ROWS) - 1) /
                       (rows ? rows : FSSIM_RESAMPLE_DIRECT_ROWS);
        for (auto &b : dst)
            b = 0xA5;
        cp = FSSIMCudaResampleComp();
        cp.src = (unsigned long long)(uintptr_t)(src.data() + li.offset);
        cp.dst = (unsigned long long)(uintptr_t)(dst.data() + lo.offset);
        cp.xstart = (unsigned long long)(uintptr_t)ax.start;
        cp.xcoef  = (unsigned long long)(uintptr_t)ax.coef;
        cp.ystart = (unsigned long long)(uintptr_t)ay.start;
        cp.ycoef  = (unsigned long long)(uintptr_t)ay.coef;
        cp.bands  = (unsigned long long)(uintptr_t)bands.data();
        cp.src_pitch = ipitch;
        cp.dst_pitch = opitch;
        cp.in_w = rc.iw; cp.in_h = rc.ih; cp.out_w = rc.ow; cp.out_h = rc.oh;
        cp.xtaps = ax.ntaps; cp.ytaps = ay.ntaps;
        cp.src_step = li.step; cp.src_shift = li.shift;
        cp.step = lo.step; cp.shift = lo.shift;
        cp.rows = rows;
        cp.tiles_x = (rc.ow + FSSIM_TILE - 1) / FSSIM_TILE;
        cp.max = (1 << lo.depth) - 1;
        cp.round = FSSIM_RESAMPLE_SHIFT(li.depth, lo.depth);
        p.nb_comps = 1;
        {
            const int blocks = cp.tiles_x * ty;
            void (*k)(FSSIMCudaResampleParams) =
                li.bytes == 1 ? (lo.bytes == 1 ? resample<unsigned char, unsigned char>
                                               : resample<unsigned char, unsigned short>)
                              : (lo.bytes == 1 ? resample<unsigned short, unsigned char>
                                               : resample<unsigned short, unsigned short>);
            emu_launch(k, blocks, 1, FSSIM_TILE, FSSIM_THREADS / FSSIM_TILE, p);
        }
        for (int y = 0; y < rc.oh && same; y++)
            for (int x = 0; x < rc.ow && same; x++) {
                const uint8_t *at = &dst[(size_t)y * opitch + lo.offset +
                                         (size_t)x * lo.step * lo.bytes];
                unsigned v = at[0];
                if (lo.bytes == 2) {
                    uint16_t w;
                    memcpy(&w, at, 2);
                    v = w;
                }
                if (v != (unsigned)want[(size_t)y * rc.ow + x] << lo.shift) {
                    same = false;
                    bad_x = x;
                    bad_y = y;
                    got_v = v;
                }
            }
        tap_ok(same, "resample %s: %dx%d %d-bit (bytes %d step %d shift %d%s) -> %dx%d %d-bit "
               "(bytes %d step %d shift %d), %s, %s: every sample equals the reference's%s",
               rc.what, rc.iw, rc.ih, li.depth, li.bytes, li.step, li.shift,
               rc.above ? ", samples above the depth" : "", rc.ow, rc.oh, lo.depth, lo.bytes,
               lo.step, lo.shift, rc.scaler == 0 ? "bicubic" : rc.scaler == 1 ? "bilinear" :
               "lanczos", rows ? "in tiles" : "direct path", same ? "" : " (see below)");
        if (!same)
            tap_diag("first difference at (%d, %d): %u, the reference's %u", bad_x, bad_y,
                     got_v, (unsigned)want[(size_t)bad_y * rc.ow + bad_x] << lo.shift);
    }
    ff_fssim_ref_resample_axis_free(&ax);
    ff_fssim_ref_resample_axis_free(&ay);
}

static void test_resample(void)
{
    /* bytes step shift depth offset */
    const Layout u8 = { 1, 1, 0, 8, 0 }, nv12u = { 1, 2, 0, 8, 0 }, nv12v = { 1, 2, 0, 8, 1 };
    const Layout p10 = { 2, 1, 0, 10, 0 }, p12 = { 2, 1, 0, 12, 0 }, p16 = { 2, 1, 0, 16, 0 };
    const Layout p010v = { 2, 2, 6, 10, 2 }, p012u = { 2, 2, 4, 12, 0 };
    const Layout m10 = { 2, 1, 6, 10, 0 };   /* yuv444p10msb */
    const RsCase cases[] = {
        {  37,  23,  64,  40, 0, u8,    p10,   0, "yuv420p -> yuv420p10, up" },
        {  64,  40,  37,  23, 2, p10,   u8,    0, "10-bit -> 8-bit, down" },
        {  33,  21,  33,  21, 1, nv12u, p012u, 0, "nv12 U -> p012 U, same size" },
        {  33,  21,  33,  21, 0, nv12v, u8,    0, "nv12 V -> planar, same size and depth" },
        {  45,  30,  45,  30, 2, p16,   u8,    0, "16-bit -> 8-bit, same size" },
        {  19,  12,  38,  23, 0, p010v, u8,    0, "p010 V (4:2:0) -> 4:4:4 8-bit chroma" },
        {  40,  25,  77,  49, 0, p10,   p12,   1, "10-bit above its depth -> 12-bit" },
        {  40,  25,  40,  25, 1, p10,   u8,    1, "10-bit above its depth -> 8-bit" },
        {  50,  30,  50,  30, 0, u8,    m10,   0, "8-bit -> yuv444p10msb" },
        {  29,  17,  29,  17, 0, m10,   p16,   0, "yuv444p10msb -> 16-bit" },
        { 300,  10,   8,  10, 2, p12,   p10,   0, "a steep downscale (the direct path)" },
        { 400, 200,  40,  20, 0, u8,    p16,   0, "10:1 down, 8 -> 16 bits" },
    };
    for (const RsCase &c : cases)
        run_resample_case(c);
}

/*
 * msssim (filters/cuda/fssim_msssim.cuh): the planes of one frame pair (a list of
 * sizes, as a 4:2:0 or 4:4:4 frame has) in one launch per scale, as the
 * filter runs them, then the reduction; each plane's per-scale means
 * against ff_fssim_ref_msssim_scales, and its MS-SSIM to the 1e-5 contract.
 */
struct MsCase {
    int nb;
    int w[3], h[3];
    int depth, bytes, window;
    double sigma;
    Content content;
    int any;
};

static void run_ms_case(const MsCase &mc)
{
    const double L = (double)((1 << mc.depth) - 1);
    std::vector<std::vector<uint8_t>> a(mc.nb), b(mc.nb);
    std::vector<std::vector<float>> lv(mc.nb);
    std::vector<double> partials;
    FSSIMCudaMsParams mp[FSSIM_MS_SCALES];
    FSSIMCudaMsReduceParams rp = {};
    double g[FSSIM_MAX_WINDOW] = { 0 }, out[2][4 * FSSIM_MS_SCALES * 2];
    int blocks[FSSIM_MS_SCALES] = { 0 }, first[FSSIM_MS_SCALES], records = 0;
    int pitch[3];
    char name[160];

    snprintf(name, sizeof(name), "msssim %dx%d%s %d-bit window=%d sigma=%g content=%d%s",
             mc.w[0], mc.h[0], mc.nb > 1 ? " (+chroma)" : "", mc.depth, mc.window, mc.sigma,
             (int)mc.content, mc.any ? " (any-window kernel)" : "");
    ff_fssim_ref_gauss_weights(mc.window, mc.sigma, g);
    for (int i = 0; i < mc.nb; i++) {
        Case c = { mc.w[i], mc.h[i], mc.depth, mc.bytes, 1, 0, 0, mc.window, mc.sigma, 0,
                   mc.content == SAME ? NOISE : mc.content };
        /* rows apart by more than their samples, by an odd number of
         * samples, at an even address for 16-bit ones as in any frame */
        pitch[i] = c.w * c.bytes + 7 * c.bytes;
        a[i] = make_plane(c, pitch[i], false, NULL);
        b[i] = mc.content == SAME ? a[i] : make_plane(c, pitch[i], true, NULL);
        /* scales 1-4 of both planes, float, rows packed */
        size_t n = 0;
        for (int j = 1; j < FSSIM_MS_SCALES; j++) {
            int sw, sh;
            ff_fssim_ref_msssim_scale_size(c.w, c.h, j, &sw, &sh);
            n += 2 * (size_t)sw * sh;
        }
        lv[i].assign(n, NAN);
    }
    for (int j = 0; j < FSSIM_MS_SCALES; j++) {
        memset(&mp[j], 0, sizeof(mp[j]));
        mp[j].c1 = (float)FSSIM_FLOAT_C1(L);
        mp[j].c2 = (float)FSSIM_FLOAT_C2(L);
        for (int k = 0; k < mc.window; k++)
            mp[j].g[k] = (float)g[k];
        mp[j].nb_planes = mc.nb;
        mp[j].level = j;
        mp[j].radius = mc.window / 2;
        first[j] = records;
        for (int i = 0; i < mc.nb; i++) {
            FSSIMCudaMsPlane &pl = mp[j].plane[i];
            int gx, gy;
            ff_fssim_ref_msssim_scale_size(mc.w[i], mc.h[i], j, &pl.width, &pl.height);
            pl.step = 1;
            pl.first_tile = blocks[j];
            rp.offset[i * FSSIM_MS_SCALES + j] = records + blocks[j];
            rp.count[i * FSSIM_MS_SCALES + j]  = fssim_cuda_nb_blocks(pl.width, pl.height,
                                                                      &gx, &gy);
            pl.tiles_x = gx;
            blocks[j] += gx * gy;
        }
        records += blocks[j];
    }
    for (int i = 0; i < mc.nb; i++) {
        float *base = lv[i].data();
        for (int j = 0; j < FSSIM_MS_SCALES; j++) {
            FSSIMCudaMsPlane &pl = mp[j].plane[i];
            if (!j) {
                pl.main_ptr = (unsigned long long)(uintptr_t)a[i].data();
                pl.ref_ptr  = (unsigned long long)(uintptr_t)b[i].data();
                pl.main_pitch = pl.ref_pitch = pitch[i];
            }
            if (j + 1 < FSSIM_MS_SCALES) {
                FSSIMCudaMsPlane &nx = mp[j + 1].plane[i];
                nx.main_ptr = (unsigned long long)(uintptr_t)base;
                nx.ref_ptr  = (unsigned long long)(uintptr_t)(base + (size_t)nx.width * nx.height);
                nx.main_pitch = nx.ref_pitch = nx.width * (int)sizeof(float);
                pl.main_next = nx.main_ptr;
                pl.ref_next  = nx.ref_ptr;
                pl.next_pitch = nx.main_pitch;
                base += 2 * (size_t)nx.width * nx.height;
            }
        }
    }
    partials.assign(2 * (size_t)records, NAN);
    {
        const int def = mc.window == 2 * FSSIM_DEFAULT_RADIUS + 1 && !mc.any;
        const int kind = fssim_cuda_kind(mc.depth);
        void (*const k8[2])(FSSIMCudaMsParams) = { ms_scale<unsigned char, 0>,
                                                   ms_scale<unsigned char, FSSIM_DEFAULT_RADIUS> };
        void (*const k16[2])(FSSIMCudaMsParams) = { ms_scale<unsigned short, 0>,
                                                    ms_scale<unsigned short, FSSIM_DEFAULT_RADIUS> };
        for (int run = 0; run < 2; run++) {
            for (int j = 0; j < FSSIM_MS_SCALES; j++) {
                mp[j].partials = (unsigned long long)(uintptr_t)(partials.data() + 2 * first[j]);
                emu_launch(kind == FSSIM_KIND_8 ? k8[def] : k16[def], blocks[j], 1, FSSIM_TILE,
                           FSSIM_THREADS / FSSIM_TILE, mp[j]);
            }
            rp.partials = (unsigned long long)(uintptr_t)partials.data();
            rp.out = (unsigned long long)(uintptr_t)out[run];
            emu_launch(ms_reduce, mc.nb * FSSIM_MS_SCALES, 1, FSSIM_TILE,
                       FSSIM_THREADS / FSSIM_TILE, rp);
        }
    }
    tap_ok(!memcmp(out[0], out[1], 2 * FSSIM_MS_SCALES * mc.nb * sizeof(double)),
           "%s: two runs bitwise identical", name);

    for (int i = 0; i < mc.nb; i++) {
        FSSIMRefPlane ra = { a[i].data(), pitch[i], mc.w[i], mc.h[i], mc.bytes, 1, 0 };
        FSSIMRefPlane rb = { b[i].data(), pitch[i], mc.w[i], mc.h[i], mc.bytes, 1, 0 };
        std::vector<double> work(ff_fssim_ref_msssim_work_size(mc.w[i], mc.h[i]));
        double s[FSSIM_MS_SCALES], cs[FSSIM_MS_SCALES], gs[FSSIM_MS_SCALES], gcs[FSSIM_MS_SCALES];
        double worst = 0.0;
        int wj = 0;
        ff_fssim_ref_msssim_scales(&ra, &rb, mc.depth, mc.window, mc.sigma, work.data(), s, cs);
        for (int j = 0; j < FSSIM_MS_SCALES; j++) {
            int sw, sh;
            ff_fssim_ref_msssim_scale_size(mc.w[i], mc.h[i], j, &sw, &sh);
            const double n = (double)(sw - mc.window + 1) * (sh - mc.window + 1);
            gs[j]  = out[0][2 * (i * FSSIM_MS_SCALES + j)] / n;
            gcs[j] = out[0][2 * (i * FSSIM_MS_SCALES + j) + 1] / n;
            if (fmax(fabs(gs[j] - s[j]), fabs(gcs[j] - cs[j])) > worst) {
                worst = fmax(fabs(gs[j] - s[j]), fabs(gcs[j] - cs[j]));
                wj = j;
            }
        }
        const double want = ff_fssim_ref_msssim_combine(s, cs);
        const double got  = ff_fssim_ref_msssim_combine(gs, gcs);
        tap_ok(fabs(got - want) <= 1e-5, "%s, plane %d (%dx%d): MS-SSIM %.17g vs reference %.17g "
               "(diff %.3g; worst scale mean diff %.3g at scale %d)", name, i, mc.w[i], mc.h[i],
               got, want, fabs(got - want), worst, wj + 1);
        if (mc.content == SAME)
            tap_ok(got == 1.0, "%s, plane %d: identical planes give exactly 1", name, i);
    }
}

/*
 * vmaf_ssim and vmaf_msssim (filters/cuda/fssim_vmaf.cuh): one plane pair as the
 * filter runs it (both images' floats, their scales, the scoring of every
 * plane pair in one launch, the reduction).  Every float plane equals the
 * reference's bit for bit (ff_fssim_ref_vmaf_load_rows, _lpf_rows); each
 * plane's sums equal the reference's up to the order of the additions, and
 * the scores libvmaf's to 1e-9.
 */
struct VmafCase {
    int w, h, depth, bytes, step, shift;
    Content content;
};

/* the float planes of one image: vmaf_ssim's, then vmaf_msssim's scales */
struct VmafPlanes {
    std::vector<float> v[1 + FSSIM_VMAF_SCALES];
};

static unsigned long long dev(const void *p)
{
    return (unsigned long long)(uintptr_t)p;
}

static void run_vmaf_case(const VmafCase &vc)
{
    Case c = { vc.w, vc.h, vc.depth, vc.bytes, vc.step, vc.shift, 0, 11, 1.5, 0,
               vc.content == SAME ? NOISE : vc.content };
    const int pitch = case_pitch(c);
    const std::vector<uint8_t> a = make_plane(c, pitch, false, NULL);
    const std::vector<uint8_t> b = vc.content == SAME ? a : make_plane(c, pitch, true, NULL);
    const int f = ff_fssim_ref_vmaf_scale(vc.w, vc.h), ms = (vc.w < vc.h ? vc.w : vc.h) >= 176;
    const FSSIMRefPlane rp[2] = {
        { a.data(), pitch, vc.w, vc.h, vc.bytes, vc.step, vc.shift },
        { b.data(), pitch, vc.w, vc.h, vc.bytes, vc.step, vc.shift },
    };
    VmafPlanes img[2];
    FSSIMCudaVmafScoreParams sp = {};
    FSSIMCudaVmafReduceParams rdp = {};
    std::vector<double> partials;
    double out[FSSIM_VMAF_MAX_JOBS * FSSIM_VMAF_SUMS];
    int sizes[1 + FSSIM_VMAF_SCALES][2], blocks = 0, bad = 0;
    float c3[3];
    char name[128];

    snprintf(name, sizeof(name), "vmaf %dx%d %d-bit step %d shift %d content=%d (decimation %d)",
             vc.w, vc.h, vc.depth, vc.step, vc.shift, (int)vc.content, f);
    ff_fssim_ref_vmaf_decimated_size(vc.w, vc.h, f, &sizes[0][0], &sizes[0][1]);
    for (int j = 0; j < FSSIM_VMAF_SCALES; j++)
        ff_fssim_ref_vmaf_scale_size(vc.w, vc.h, j, &sizes[1 + j][0], &sizes[1 + j][1]);
    for (int i = 0; i < 2; i++) {
        FSSIMCudaVmafLoadParams lp = {};
        lp.inv = 1.0f / (float)(1 << (vc.depth - 8));
        for (int t = 0; t < 1 + ms; t++) {
            FSSIMCudaVmafLoad &l = lp.job[lp.nb_jobs++];
            img[i].v[t].assign((size_t)sizes[t][0] * sizes[t][1], NAN);
            l.src = dev(i ? b.data() : a.data());
            l.dst = dev(img[i].v[t].data());
            l.src_pitch = pitch;
            l.step = vc.step;
            l.shift = vc.shift;
            l.width = vc.w;
            l.height = vc.h;
            l.f = t ? 1 : f;
            l.k = 1.0f / (float)(f * f);
            l.dst_w = sizes[t][0];
            l.dst_h = sizes[t][1];
            l.first_block = t ? (sizes[0][0] * sizes[0][1] + FSSIM_THREADS - 1) / FSSIM_THREADS : 0;
        }
        emu_launch(vc.bytes == 1 ? vmaf_load<unsigned char> : vmaf_load<unsigned short>,
                   lp.job[lp.nb_jobs - 1].first_block +
                   (lp.job[lp.nb_jobs - 1].dst_w * lp.job[lp.nb_jobs - 1].dst_h +
                    FSSIM_THREADS - 1) / FSSIM_THREADS, 1, FSSIM_THREADS, 1, lp);
        for (int j = 1; ms && j < FSSIM_VMAF_SCALES; j++) {
            FSSIMCudaVmafLpfParams q = {};
            FSSIMCudaVmafLpf &l = q.job[q.nb_jobs++];
            for (int v = 0; v < 9; v++)
                for (int u = 0; u < 9; u++)
                    q.lpf[v * 9 + u] = ff_fssim_ref_vmaf_lpf(v, u);
            img[i].v[1 + j].assign((size_t)sizes[1 + j][0] * sizes[1 + j][1], NAN);
            l.src = dev(img[i].v[j].data());
            l.dst = dev(img[i].v[1 + j].data());
            l.src_w = sizes[j][0];
            l.src_h = sizes[j][1];
            l.dst_w = sizes[1 + j][0];
            l.dst_h = sizes[1 + j][1];
            emu_launch(vmaf_lpf, (l.dst_w * l.dst_h + FSSIM_THREADS - 1) / FSSIM_THREADS, 1,
                       FSSIM_THREADS, 1, q);
        }
        /* the reference's planes */
        for (int t = 0; t < 1 + (ms ? FSSIM_VMAF_SCALES : 0); t++) {
            std::vector<float> want((size_t)sizes[t][0] * sizes[t][1]);
            if (t == 0 || t == 1)
                ff_fssim_ref_vmaf_load_rows(&rp[i], vc.depth, t ? 1 : f, 0, sizes[t][1],
                                            want.data());
            else
                ff_fssim_ref_vmaf_lpf_rows(img[i].v[t - 1].data(), sizes[t - 1][0],
                                           sizes[t - 1][1], 0, sizes[t][1], want.data());
            bad += memcmp(want.data(), img[i].v[t].data(), want.size() * sizeof(float)) != 0;
        }
    }
    tap_ok(!bad, "%s: every float plane (decimated, five scales) equals the reference's bit "
           "for bit", name);

    ff_fssim_ref_vmaf_constants(c3);
    memcpy(sp.c, c3, sizeof(c3));
    memcpy(sp.g, ff_fssim_ref_vmaf_gauss, sizeof(sp.g));
    for (int t = 0; t < 1 + (ms ? FSSIM_VMAF_SCALES : 0); t++) {
        FSSIMCudaVmafScore &j = sp.job[sp.nb_jobs];
        const int ow = sizes[t][0] - 10, oh = sizes[t][1] - 10;
        j.a = dev(img[0].v[t].data());
        j.b = dev(img[1].v[t].data());
        j.width = sizes[t][0];
        j.height = sizes[t][1];
        j.tiles_x = (ow + FSSIM_VMAF_TILE - 1) / FSSIM_VMAF_TILE;
        j.first_block = blocks;
        rdp.first[sp.nb_jobs] = blocks;
        rdp.count[sp.nb_jobs] = j.tiles_x * ((oh + FSSIM_VMAF_TILE - 1) / FSSIM_VMAF_TILE);
        blocks += rdp.count[sp.nb_jobs++];
    }
    rdp.nb_jobs = sp.nb_jobs;
    partials.assign((size_t)blocks * FSSIM_VMAF_SUMS, NAN);
    sp.partials = rdp.partials = dev(partials.data());
    rdp.out = dev(out);
    emu_launch(vmaf_score, blocks, 1, FSSIM_TILE, FSSIM_THREADS / FSSIM_TILE, sp);
    emu_launch(vmaf_reduce, sp.nb_jobs, 1, FSSIM_THREADS, 1, rdp);

    {
        const double n = (double)(sizes[0][0] - 10) * (sizes[0][1] - 10);
        const double got = ff_fssim_ref_vmaf_mean(out[FSSIM_REF_VMAF_LCS], n);
        const double want = ff_fssim_ref_vmaf_ssim(&rp[0], &rp[1], vc.depth);
        tap_ok(fabs(got - want) <= 1e-9, "%s: vmaf_ssim %.9f vs the reference %.9f (diff %.3g)",
               name, got, want, fabs(got - want));
    }
    if (ms) {
        float l[5], cc[5], s[5], gl[5], gc[5], gs[5];
        double worst = 0.0;
        ff_fssim_ref_vmaf_msssim_scales(&rp[0], &rp[1], vc.depth, l, cc, s);
        for (int j = 0; j < FSSIM_VMAF_SCALES; j++) {
            const double n = (double)(sizes[1 + j][0] - 10) * (sizes[1 + j][1] - 10);
            const double *o = out + (1 + j) * FSSIM_VMAF_SUMS;
            gl[j] = ff_fssim_ref_vmaf_mean(o[FSSIM_REF_VMAF_L], n);
            gc[j] = ff_fssim_ref_vmaf_mean(o[FSSIM_REF_VMAF_C], n);
            gs[j] = ff_fssim_ref_vmaf_mean(o[FSSIM_REF_VMAF_S], n);
            worst = fmax(worst, fmax(fabs(gl[j] - l[j]), fmax(fabs(gc[j] - cc[j]),
                                                             fabs(gs[j] - s[j]))));
        }
        const double got = ff_fssim_ref_vmaf_msssim_combine(gl, gc, gs);
        const double want = ff_fssim_ref_vmaf_msssim_combine(l, cc, s);
        tap_ok(fabs(got - want) <= 1e-9, "%s: vmaf_msssim %.9f vs the reference %.9f (diff "
               "%.3g, worst mean %.3g)", name, got, want, fabs(got - want), worst);
    }
}

int main(void)
{
    const int ALL = FSSIM_BIT(FSSIM_ALGO_INT) | FSSIM_BIT(FSSIM_ALGO_FLOAT) |
                    FSSIM_BIT(FSSIM_ALGO_BLOCK) | FSSIM_BIT(FSSIM_ALGO_PSNR);
    const Case cases[] = {
        /*  w    h  dep by st sh  algos window sigma same content */
        {  70,  45,  8, 1, 1, 0, ALL, 11, 1.5, 0, NOISE  },
        {  70,  45,  8, 1, 1, 0, ALL, 11, 1.5, 0, NOISE, 1 },
        {  70,  45,  8, 1, 1, 0, ALL, 11, 1.5, 0, SMOOTH },
        { 100,  90,  8, 1, 1, 0, ALL, 11, 1.5, 1, EDGES  },   /* interior tiles */
        { 100,  90, 10, 2, 1, 0, ALL, 11, 1.5, 0, SMOOTH, 1 },
        {  67,  33,  8, 1, 1, 0, ALL, 11, 1.5, 1, EDGES  },
        {  64,  64,  8, 1, 1, 0, ALL, 11, 1.5, 0, FLAT   },
        {  64,  40,  8, 1, 1, 0, ALL, 11, 1.5, 0, SAME   },
        {  67,  41, 10, 2, 2, 6, ALL,  7, 1.0, 1, SAME   },
        {  35,  19,  8, 1, 1, 0, ALL, 11, 1.5, 0, NOISE  },
        {  35,  19, 10, 2, 1, 0, ALL, 11, 1.5, 1, NOISE  },
        {   7,   5,  8, 1, 1, 0, FSSIM_BIT(FSSIM_ALGO_INT) | FSSIM_BIT(FSSIM_ALGO_FLOAT), 11, 1.5, 1, NOISE },
        {   1,   1,  8, 1, 1, 0, FSSIM_BIT(FSSIM_ALGO_INT), 11, 1.5, 0, NOISE },
        {  99,  70, 10, 2, 1, 0, ALL, 11, 1.5, 0, EDGES  },
        {  99,  70, 10, 2, 2, 6, ALL, 11, 1.5, 0, SMOOTH },   /* P010 chroma */
        {  51,  37,  8, 1, 2, 0, ALL, 11, 1.5, 1, NOISE  },   /* NV12 chroma */
        {  80,  48, 12, 2, 1, 0, ALL, 15, 2.0, 0, NOISE  },
        {  80,  48, 12, 2, 1, 0, ALL, 11, 1.5, 0, EDGES  },   /* sums near 2^32 */
        {  72,  40, 14, 2, 1, 0, ALL, 11, 1.5, 1, NOISE  },
        {  77,  41,  9, 2, 1, 0, ALL,  9, 1.3, 0, SMOOTH },
        {  80,  48, 16, 2, 1, 0, ALL,  3, 0.8, 1, EDGES  },
        {  80,  48, 16, 2, 1, 0, ALL,  7, 1.0, 0, FLAT   },
        {  66,  66,  8, 1, 1, 0, ALL,  5, 1.2, 0, EDGES  },
        { 130,  97,  8, 1, 1, 0, FSSIM_BIT(FSSIM_ALGO_FLOAT), 13, 3.0, 1, SMOOTH },
        { 130,  97, 10, 2, 1, 0, FSSIM_BIT(FSSIM_ALGO_BLOCK), 11, 1.5, 0, NOISE },
        /* aligned rows: interior tiles read by quads, at every lead */
        { 100,  90,  8, 1, 1, 0, ALL, 11, 1.5, 1, EDGES,  0, 1 },
        { 100,  90,  8, 1, 1, 0, ALL, 11, 1.5, 0, SAME,   0, 1 },
        {  99,  70, 10, 2, 1, 6, ALL, 11, 1.5, 0, SMOOTH, 0, 1 },
        { 110,  80, 16, 2, 1, 0, ALL, 11, 1.5, 0, NOISE,  0, 1 },
        { 120,  90,  8, 1, 1, 0, ALL, 15, 2.0, 0, NOISE,  0, 1 },
        { 120,  90, 12, 2, 1, 0, ALL,  9, 1.3, 1, EDGES,  0, 1 },
        { 120,  90,  8, 1, 1, 0, ALL, 13, 1.5, 0, SMOOTH, 0, 1 },
        { 100,  90,  8, 1, 1, 0, ALL, 11, 1.5, 0, NOISE,  1, 1 },
        { 100,  90,  8, 1, 2, 0, ALL, 11, 1.5, 0, NOISE,  0, 1 },      /* NV12's U */
        { 100,  90,  8, 1, 2, 0, ALL, 11, 1.5, 1, EDGES,  0, 1, 1 },   /* NV12's V */
        {  99,  70, 10, 2, 2, 6, ALL, 11, 1.5, 0, SMOOTH, 0, 1 },      /* P010's U */
        {  99,  70, 10, 2, 2, 6, ALL,  7, 1.0, 0, NOISE,  0, 1, 2 },   /* P010's V */
        { 100,  90,  8, 1, 2, 0, ALL, 11, 1.5, 0, NOISE,  0, 1, 2 },   /* not by quads */
        /* samples above the depth, as stored in 16-bit words (a raw
         * yuv420p10 file), the 16-bit class's sums */
        {  70,  45, 10, 2, 1, 0, ALL, 11, 1.5, 0, ABOVE  },
        {  67,  41, 12, 2, 1, 0, ALL,  7, 1.0, 1, ABOVE  },
        {  35,  19,  9, 2, 1, 0, ALL, 11, 1.5, 0, ABOVE  },
        { 100,  90, 10, 2, 1, 0, ALL, 11, 1.5, 0, ABOVE,  0, 1 },
        {  99,  70, 10, 2, 2, 6, ALL, 11, 1.5, 0, ABOVE,  0, 1 },      /* P010: in range */
    };
    test_sse_reduction();
    test_ladder_launch();
    test_resample();
    for (const Case &c : cases)
        run_case(c);

    const MsCase ms_cases[] = {
        /* nb  widths         heights        dep by win sigma content */
        { 3, { 322, 161, 161 }, { 324, 162, 162 },  8, 1, 11, 1.5, NOISE  },
        { 3, { 322, 161, 161 }, { 324, 162, 162 },  8, 1, 11, 1.5, EDGES, 1 },
        { 1, { 161 }, { 165 }, 10, 2, 11, 1.5, SMOOTH },
        { 2, { 200, 100 }, { 170, 97 }, 16, 2,  7, 1.0, EDGES  },
        { 1, { 240 }, { 226 }, 12, 2, 15, 2.5, NOISE  },
        { 1, { 161 }, { 161 },  8, 1, 11, 1.5, FLAT   },
        { 2, { 170, 170 }, { 161, 161 },  8, 1, 11, 1.5, SAME   },
        { 1, { 97 }, { 99 }, 10, 2,  7, 1.5, SAME   },
    };
    for (const MsCase &c : ms_cases)
        run_ms_case(c);

    const VmafCase vmaf_cases[] = {
        /*  w    h  dep by st sh content */
        { 67,  45,  8, 1, 1, 0, NOISE  },    /* no scales: vmaf_ssim alone */
        { 176, 181, 8, 1, 1, 0, SMOOTH },    /* the smallest five-scale plane */
        { 179, 177, 10, 2, 2, 6, NOISE },    /* P010's U: interleaved, MSB-aligned */
        { 385, 387, 8, 1, 2, 0, EDGES  },    /* decimation by 2, odd sizes, NV12's U */
        { 197, 190, 16, 2, 1, 0, SAME  },
    };
    for (const VmafCase &c : vmaf_cases)
        run_vmaf_case(c);
    return tap_done();
}
