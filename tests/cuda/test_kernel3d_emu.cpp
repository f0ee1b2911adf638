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
 * The CUDA kernels of fssim3d (filters/cuda/fssim3d.cuh) run on the CPU through
 * tests/cuda/emu.h and checked against the CPU reference (filters/core/): the
 * spatial moments of every frame, and every frame's 3-D score computed
 * the way the filter drives them — a ring of depth slots overwritten as
 * frames arrive, frame t scored once frame t + depth/2 is in, the held
 * frames flushed with truncated windows at the end.
 *
 * Cases: 8/10/12/16-bit, planar and semi-planar (interleaved, MSB-aligned
 * P010) components, 4:2:0 chroma of odd sizes, padding valid and same,
 * tpadding truncate and valid, the default-window kernel and the
 * any-window one (windows 3 to 15), sequences shorter than the window,
 * depth 1, scene cuts, flat and extreme (0 / L edge) content.
 *
 * Checks: the scores equal the reference to 1e-6 per component per frame
 * (the filter's contract for CUDA against the software backend; the worst
 * difference is printed), the fp32 moment records equal the reference's
 * double moments to 1e-6 relative, two runs are bitwise identical, and
 * identical inputs score exactly 1.
 *
 * `test_kernel3d_emu measure` runs larger adversarial sequences and prints
 * the error figures only (the measurement behind the fp32 ring).
 */
#include "emu.h"

#include <stdarg.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

/* what CUDA's headers give device code */
struct alignas(16) float4 { float x, y, z, w; };

extern "C" {
#include "fssim_ref.h"
#include "fssim3d_cuda_params.h"
}

#include "fssim3d.cuh"

/* The modules' entry points, under distinct names in this program. */
template <int RF> static void k_moments(FSSIM3DCudaMomentParams p) { fssim3d_moments_impl<RF>(p); }
static void k_score(FSSIM3DCudaScoreParams p) { fssim3d_score_impl(p); }
static void k_sum(FSSIM3DCudaSumParams p) { fssim3d_sum_impl(p); }

static int nb_tests, nb_failed;
static bool quiet;

static void ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ok(bool cond, const char *fmt, ...)
{
    va_list ap;
    if (quiet && cond)
        return;
    va_start(ap, fmt);
    printf("%s %d - ", cond ? "ok" : "not ok", ++nb_tests);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    nb_failed += !cond;
    fflush(stdout);
}

enum Content {
    NOISE,     /* uniform noise, independent per frame */
    NATURAL,   /* smooth moving gradients, texture, a little temporal noise */
    EDGES,     /* 0 / L checkerboard moving by a pixel a frame */
    FLAT,      /* one level per frame, changing slowly */
    CUT,       /* NATURAL, with a cut to its negative halfway */
};

enum Layout { PLANAR, SEMI };   /* SEMI: U and V interleaved, as NV12 / P010 */

struct Case {
    const char *name;
    int w, h;             /* luma */
    int comps;            /* 1 (gray) or 3 (4:2:0) */
    int bits;
    Layout layout;
    int window;
    double sigma;
    int same;
    int depth;
    double tsigma;
    int tpad;             /* enum FSSIMRefTPadding */
    int frames;
    Content content;
    bool identical;
    bool any;             /* the any-window kernel for window 11 too */
};

static uint32_t rng_state;
static unsigned rnd(unsigned max)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (rng_state >> 8) % (max + 1);
}

/* A frame: per component, samples as values (before packing). */
struct Planes {
    int w[3], h[3];
    std::vector<unsigned> v[3];
};

static unsigned clampv(double v, unsigned max)
{
    return v < 0 ? 0 : v > max ? max : (unsigned)lrint(v);
}

static Planes make_frame(const Case &c, int f, int which)
{
    const unsigned L = (1u << c.bits) - 1;
    Planes p;
    for (int i = 0; i < c.comps; i++) {
        p.w[i] = i ? (c.w + 1) / 2 : c.w;
        p.h[i] = i ? (c.h + 1) / 2 : c.h;
        p.v[i].resize((size_t)p.w[i] * p.h[i]);
        for (int y = 0; y < p.h[i]; y++) {
            for (int x = 0; x < p.w[i]; x++) {
                double v = 0;
                switch (c.content) {
                case NOISE:
                    v = rnd(L);
                    break;
                case NATURAL:
                case CUT:
                    v = L * (0.45 + 0.3 * sin((x + 1.5 * f) * 0.21 + i) * cos((y - f) * 0.17) +
                             0.1 * ((x * 7 + y * 13 + f * 3) % 11) / 11.0) + rnd(L / 64) - L / 128.0;
                    if (c.content == CUT && f >= c.frames / 2)
                        v = L - v;
                    break;
                case EDGES:
                    v = (((x + f) / 5 + y / 4) & 1) ? L : 0;
                    break;
                case FLAT:
                    v = L * (0.3 + 0.02 * f + 0.1 * i);
                    break;
                }
                p.v[i][(size_t)y * p.w[i] + x] = clampv(v, L);
            }
        }
    }
    if (which == 1 && !c.identical) {
        /* the distorted rendition: noise, and a level change on EDGES */
        for (int i = 0; i < c.comps; i++)
            for (auto &s : p.v[i]) {
                double v = (double)s + (double)rnd(L / 16) - L / 32.0;
                if (c.content == EDGES)
                    v = s ? L - rnd(L / 8) : rnd(L / 8);
                s = clampv(v, L);
            }
    }
    return p;
}

/* Frame memory as a decoder leaves it: each component a plane of
 * containers with a pitch, or U and V interleaved in one plane. */
struct Mem {
    std::vector<uint8_t> buf[3];
    FSSIMRefPlane plane[3];
};

static void pack(const Case &c, const Planes &p, Mem &m)
{
    const int bytes = c.bits > 8 ? 2 : 1;
    const int shift = c.layout == SEMI && c.bits == 10 ? 6 : 0;   /* P010 */
    for (int i = 0; i < c.comps; i++) {
        const bool semi = c.layout == SEMI && i > 0;
        const int step = semi ? 2 : 1;
        const int b = semi ? 1 : i;                   /* U and V share buffer 1 */
        const int pitch = p.w[i] * step * bytes + 24 + 4 * b;   /* U and V: one pitch */
        if (!semi || i == 1) {
            m.buf[b].assign((size_t)pitch * p.h[i] + 64, 0);
            for (auto &x : m.buf[b])
                x = (uint8_t)rnd(255);                /* junk between rows */
        }
        const size_t off = semi && i == 2 ? bytes : 0;
        for (int y = 0; y < p.h[i]; y++)
            for (int x = 0; x < p.w[i]; x++) {
                const unsigned v = p.v[i][(size_t)y * p.w[i] + x] << shift;
                uint8_t *d = &m.buf[b][off + (size_t)y * pitch + (size_t)x * step * bytes];
                if (bytes == 1)
                    d[0] = (uint8_t)v;
                else {
                    const uint16_t s = (uint16_t)v;
                    memcpy(d, &s, 2);
                }
            }
        m.plane[i] = { m.buf[b].data() + off, pitch, p.w[i], p.h[i], bytes, step, shift };
    }
}

struct Stats {
    double score_err = 0, mu_err = 0, var_err = 0;
};

/* Run one case through the kernels as the filter drives them, and through
 * the CPU reference; check and return the error figures. */
static Stats run_case(const Case &c)
{
    const int r = c.depth / 2;
    const unsigned L = (1u << c.bits) - 1;
    const double c1 = (0.01 * L) * (0.01 * L), c2 = (0.03 * L) * (0.03 * L);
    const FSSIMRefFloatParams fp = { c.window, c.sigma, c.same };
    const int rf = c.window == 2 * FSSIM_DEFAULT_RADIUS + 1 && !c.any ? FSSIM_DEFAULT_RADIUS : 0;
    void (*const moments)(FSSIM3DCudaMomentParams) = rf ? k_moments<FSSIM_DEFAULT_RADIUS>
                                                        : k_moments<0>;
    char name[200];
    Stats st;

    snprintf(name, sizeof(name), "%s: %dx%d %d comp %d-bit %s window=%d%s sigma=%g %s "
             "depth=%d tsigma=%g %s, %d frames", c.name, c.w, c.h, c.comps, c.bits,
             c.layout == SEMI ? "semi-planar" : "planar", c.window,
             rf ? "" : " (any-window kernel)", c.sigma, c.same ? "same" : "valid", c.depth,
             c.tsigma, c.tpad == FSSIM_REF_TPAD_VALID ? "tvalid" : "truncate", c.frames);

    /* the frames, and their reference moments */
    rng_state = 1234567u + c.w * 31 + c.frames;
    std::vector<Mem> ma(c.frames), mb(c.frames);
    std::vector<std::vector<FSSIMRefMoments>> ref(c.frames, std::vector<FSSIMRefMoments>(c.comps));
    int ow[3], oh[3];
    for (int f = 0; f < c.frames; f++) {
        Planes pb = make_frame(c, f, 0);
        Planes pa = c.identical ? pb : make_frame(c, f, 1);
        pack(c, pa, ma[f]);
        pack(c, pb, mb[f]);
        for (int i = 0; i < c.comps; i++) {
            ff_fssim_ref_float_out_size(pa.w[i], pa.h[i], &fp, &ow[i], &oh[i]);
            std::vector<char> scr(ff_fssim_ref_float_moments_scratch_size(ow[i], oh[i], &fp));
            ff_fssim_ref_moments_alloc(&ref[f][i], ow[i], oh[i]);
            ff_fssim_ref_float_moments_rows(&ma[f].plane[i], &mb[f].plane[i], &fp, 0, oh[i],
                                            scr.data(), &ref[f][i]);
        }
    }

    /* the device side: the ring, partials, the window and the sums */
    FSSIM3DCudaMomentParams mp[3];
    FSSIM3DCudaScoreParams sp[3];
    FSSIM3DCudaSumParams sum = {};
    size_t comp_off[3], slot_bytes = 0;
    int nb_blocks = 0;
    for (int i = 0; i < c.comps; i++) {
        const FSSIMRefPlane &pl = ma[0].plane[i];
        ff_fssim3d_cuda_fill_moment_params(&mp[i], pl.width, pl.height, pl.bytes, pl.step,
                                           pl.shift, c.window, c.sigma, c.same);
        comp_off[i] = slot_bytes;
        slot_bytes += ((size_t)ow[i] * oh[i] * 16 + 255) & ~(size_t)255;
        sp[i] = {};
        sp[i].c1 = c1;
        sp[i].c2 = c2;
        sp[i].n = ow[i] * oh[i];
        sp[i].part_offset = nb_blocks;
        sum.offset[i] = nb_blocks;
        sum.count[i] = fssim3d_score_blocks(sp[i].n);
        nb_blocks += sum.count[i];
    }
    /* NaN-filled: a record the kernels never wrote poisons the scores */
    std::vector<float> ring((size_t)c.depth * slot_bytes / 4, NAN);
    std::vector<double> partials(nb_blocks, NAN);
    FSSIM3DCudaWindow window;
    double sums[2][4];
    uintptr_t ring_base = (uintptr_t)ring.data();
    for (int i = 0; i < c.comps; i++) {
        sp[i].window   = (uintptr_t)&window;
        sp[i].moments  = ring_base + comp_off[i];
        sp[i].partials = (uintptr_t)partials.data();
    }
    sum.partials = (uintptr_t)partials.data();

    bool moments_ok = true, determ = true, exact1 = true, all_scored = true;
    int scored = 0;
    int64_t nb_in = 0, nb_out = 0;

    auto score = [&](int64_t t, int64_t nb_frames) {
        double wt[FSSIM3D_CUDA_MAX_TAPS];
        if (!ff_fssim_ref_temporal_weights(c.depth, c.tsigma, c.tpad, t, nb_frames, wt))
            return;
        int n = 0;
        const FSSIMRefMoments *mom[3][FSSIM3D_CUDA_MAX_TAPS];
        for (int k = 0; k < c.depth; k++) {
            for (int i = 0; i < c.comps; i++)
                mom[i][k] = wt[k] != 0.0 ? &ref[t - r + k][i] : NULL;
            if (wt[k] == 0.0)
                continue;
            window.wt[n] = wt[k];
            window.slot_offset[n] = (unsigned long long)((t - r + k) % c.depth) * slot_bytes;
            n++;
        }
        for (int run = 0; run < 2; run++) {
            for (int i = 0; i < c.comps; i++) {
                sp[i].nb_taps = n;
                emu_launch(k_score, sum.count[i], 1, FSSIM_THREADS, 1, sp[i]);
            }
            sum.out = (uintptr_t)sums[run];
            emu_launch(k_sum, c.comps, 1, FSSIM_THREADS, 1, sum);
        }
        determ &= !memcmp(sums[0], sums[1], c.comps * sizeof(double));
        for (int i = 0; i < c.comps; i++) {
            const double got = sums[0][i] / sp[i].n;
            const double want = ff_fssim_ref_3d_score(mom[i], wt, c.depth, c1, c2);
            st.score_err = std::max(st.score_err, fabs(got - want));
            if (!(fabs(got - want) <= 1e-6))
                all_scored = false;
            if (c.identical && got != 1.0)
                exact1 = false;
        }
        scored++;
    };

    for (int f = 0; f < c.frames; f++) {
        const int slot = f % c.depth;
        for (int i = 0; i < c.comps; i++) {
            mp[i].main_ptr = (uintptr_t)ma[f].plane[i].data;
            mp[i].ref_ptr  = (uintptr_t)mb[f].plane[i].data;
            mp[i].main_pitch = mp[i].ref_pitch = (int)ma[f].plane[i].linesize;
            mp[i].out = ring_base + slot * slot_bytes + comp_off[i];
            emu_launch(moments, (ow[i] + FSSIM_TILE - 1) / FSSIM_TILE,
                       (oh[i] + FSSIM_TILE - 1) / FSSIM_TILE, FSSIM_TILE,
                       FSSIM_THREADS / FSSIM_TILE, mp[i]);
            /* the records against the reference's double moments */
            const float *rec = (const float *)(uintptr_t)mp[i].out;
            const FSSIMRefMoments &m = ref[f][i];
            for (int j = 0; j < ow[i] * oh[i]; j++) {
                const double mua = m.m[FSSIM_MU_A][j], mub = m.m[FSSIM_MU_B][j];
                const double vs = (m.m[FSSIM_AA][j] - mua * mua) + (m.m[FSSIM_BB][j] - mub * mub);
                const double cv = m.m[FSSIM_AB][j] - mua * mub;
                const double e_mu = std::max(fabs(rec[4 * j] - mua), fabs(rec[4 * j + 1] - mub)) /
                                    std::max(1.0, std::max(mua, mub));
                /* variances relative to their own size, or to c2 where they are small */
                const double e_v = std::max(fabs(rec[4 * j + 2] - vs) / (fabs(vs) + c2),
                                            fabs(rec[4 * j + 3] - cv) / (fabs(cv) + c2));
                st.mu_err = std::max(st.mu_err, e_mu);
                st.var_err = std::max(st.var_err, e_v);
                if (!(e_mu <= 1e-6 && e_v <= 1e-6))
                    moments_ok = false;
            }
        }
        nb_in++;
        while (nb_out + r < nb_in)       /* frame nb_out's window is complete */
            score(nb_out++, -1);
    }
    while (nb_out < nb_in)               /* the flush at the end */
        score(nb_out++, nb_in);

    const int expect = c.tpad == FSSIM_REF_TPAD_VALID ? std::max(0, c.frames - 2 * r) : c.frames;
    ok(moments_ok, "%s: fp32 moment records within 1e-6 of the reference (mu %.2g, var %.2g)",
       name, st.mu_err, st.var_err);
    ok(scored == expect && all_scored, "%s: %d frames scored, each component within 1e-6 of "
       "the reference (max diff %.3g)", name, scored, st.score_err);
    ok(determ, "%s: two runs bitwise identical", name);
    if (c.identical)
        ok(exact1, "%s: identical inputs score exactly 1", name);

    for (auto &fr : ref)
        for (auto &m : fr)
            ff_fssim_ref_moments_free(&m);
    return st;
}

int main(int argc, char **argv)
{
    const int T = FSSIM_REF_TPAD_TRUNCATE, V = FSSIM_REF_TPAD_VALID;
    const Case cases[] = {
        /* name          w    h  cmp bits layout  win sigma same dep tsig tpad fr content  ident any */
        { "yuv420p",     70,  46, 3,  8, PLANAR, 11, 1.5, 0, 11, 1.5, T, 14, NATURAL, false, false },
        { "yuv420p any", 70,  46, 3,  8, PLANAR, 11, 1.5, 0,  5, 1.0, T,  8, NATURAL, false, true  },
        { "nv12 same",   67,  41, 3,  8, SEMI,   11, 1.5, 1,  7, 1.5, T,  9, NOISE,   false, false },
        { "p010",        66,  44, 3, 10, SEMI,   11, 1.5, 0,  5, 1.5, T,  8, NATURAL, false, false },
        { "yuv420p10 v", 45,  37, 3, 10, PLANAR, 11, 1.5, 0,  5, 1.2, V,  9, CUT,     false, false },
        { "gray12",      50,  40, 1, 12, PLANAR,  7, 1.0, 1,  3, 0.8, T,  6, EDGES,   false, false },
        { "gray16 edges",80,  48, 1, 16, PLANAR, 11, 1.5, 0,  7, 1.5, T,  8, EDGES,   false, false },
        { "gray16 w15",  48,  47, 1, 16, PLANAR, 15, 2.5, 0,  5, 1.5, T,  6, NATURAL, false, false },
        { "gray8 w3",    37,  33, 1,  8, PLANAR,  3, 0.6, 1,  3, 1.5, T,  5, NOISE,   false, false },
        { "gray8 flat",  40,  36, 1,  8, PLANAR, 11, 1.5, 0,  5, 1.5, T,  6, FLAT,    false, false },
        { "short seq",   40,  34, 1,  8, PLANAR, 11, 1.5, 0, 11, 1.5, T,  3, NATURAL, false, false },
        { "depth 1",     33,  35, 1, 10, PLANAR,  9, 1.2, 1,  1, 1.5, T,  3, NATURAL, false, false },
        { "tvalid",      34,  34, 1,  8, PLANAR, 11, 1.5, 0,  3, 1.5, V,  6, NOISE,   false, false },
        { "identical",   70,  44, 3,  8, PLANAR, 11, 1.5, 0,  5, 1.5, T,  6, NATURAL, true,  false },
        { "identical16", 45,  40, 1, 16, PLANAR,  7, 1.1, 1,  3, 1.5, T,  4, EDGES,   true,  false },
        { "p010 ident",  42,  38, 3, 10, SEMI,   11, 1.5, 1,  3, 1.5, T,  4, NOISE,   true,  true  },
    };
    /* larger sequences for the precision figures: extreme content in every
     * depth, at sizes where most windows lie inside (slow in the emulator) */
    const Case measure[] = {
        { "m8 natural",  160, 96, 3,  8, PLANAR, 11, 1.5, 0, 11, 1.5, T, 16, NATURAL, false, false },
        { "m8 cut",      128, 96, 1,  8, PLANAR, 11, 1.5, 0, 11, 1.5, T, 16, CUT,     false, false },
        { "m10 natural", 128, 96, 3, 10, SEMI,   11, 1.5, 0, 11, 1.5, T, 16, NATURAL, false, false },
        { "m16 edges",   128, 96, 1, 16, PLANAR, 11, 1.5, 0, 11, 1.5, T, 16, EDGES,   false, false },
        { "m16 cut",     128, 96, 1, 16, PLANAR, 11, 1.5, 1, 11, 1.5, T, 16, CUT,     false, false },
        { "m16 noise",   128, 96, 1, 16, PLANAR, 11, 1.5, 0, 11, 1.5, T, 16, NOISE,   false, false },
    };
    const bool meas = argc > 1 && !strcmp(argv[1], "measure");
    const Case *list = meas ? measure : cases;
    const size_t nb = meas ? sizeof(measure) / sizeof(measure[0]) : sizeof(cases) / sizeof(cases[0]);
    Stats worst;

    quiet = meas;
    for (size_t i = 0; i < nb; i++) {
        const Stats st = run_case(list[i]);
        if (meas)
            printf("# %-12s score diff %.3g, mu rel %.3g, var/cov rel %.3g\n", list[i].name,
                   st.score_err, st.mu_err, st.var_err);
        worst.score_err = std::max(worst.score_err, st.score_err);
        worst.mu_err = std::max(worst.mu_err, st.mu_err);
        worst.var_err = std::max(worst.var_err, st.var_err);
    }
    printf("# worst per-frame score diff against the reference: %.3g; moment records: mu %.3g, "
           "var/cov %.3g (relative)\n", worst.score_err, worst.mu_err, worst.var_err);
    if (meas)
        return nb_failed != 0;
    printf("1..%d\n", nb_tests);
    return 0;
}
