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
 * fssim: fused SSIM of one plane pair on Vulkan (included by fssim.comp.glsl
 * and fssim_f32.comp.glsl, which set FSSIM_FP64).
 *
 * MODE 0 (tiles): one workgroup scores a TW x TH tile of the plane.  Every
 * sample of the tile and its halo is read once from the two frames into
 * shared memory; the requested algorithms (doc/algorithms.md) run from there:
 * separable passes in shared memory, per-pixel terms, and a workgroup
 * reduction in a fixed order into one partial record per workgroup.
 * MODE 1 (reduce): one workgroup adds the partial records of a plane in a
 * fixed order and writes the plane's sums for the host to read back.
 */

#extension GL_EXT_samplerless_texture_functions : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#if FSSIM_FP64
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif

/* Tiles, radii, taps and algorithm bits: fssim_consts.h, shared with the
 * host (fssim_be_vulkan.c) and the other backends. */
#include "../core/fssim_consts.h"

#define TW   FSSIM_VK_TILE_W  /* tile width, a multiple of 4 (block windows) */
#define TH   FSSIM_VK_TILE_H  /* tile height, a multiple of 4 */
#define NT   (TW * TH)
#define KR   FSSIM_INT_RADIUS /* radius of the int taps and right/bottom reach of block */
#define IPLANE ((TH + 2 * KR) * TW)   /* one sum of the int horizontal pass */
#define NBX  (TW / 4 + 1)     /* 4x4 blocks a tile's windows touch */
#define NBY  (TH / 4 + 1)
#define FHC  4              /* output columns of a float horizontal work item */

#define ALGO_FLOAT FSSIM_BIT(FSSIM_ALGO_FLOAT)
#define ALGO_INT   FSSIM_BIT(FSSIM_ALGO_INT)
#define ALGO_BLOCK FSSIM_BIT(FSSIM_ALGO_BLOCK)
#define ALGO_PSNR  FSSIM_BIT(FSSIM_ALGO_PSNR)

layout (local_size_x_id = 253, local_size_y_id = 254, local_size_z_id = 255) in;

layout (constant_id = 0) const int   MODE  = 0;
layout (constant_id = 1) const int   ALGOS = ALGO_FLOAT;
layout (constant_id = 2) const int   RF    = 5;     /* float window radius */
layout (constant_id = 3) const int   HALO  = 5;     /* max(RF, KR) over the algorithms */
layout (constant_id = 4) const bool  DEEP  = false; /* bit depth > 8 */
layout (constant_id = 5) const bool  WIDE  = false; /* bit depth > 12 */
layout (constant_id = 6) const float C1F   = 6.5025;
layout (constant_id = 7) const float C2F   = 58.5225;
layout (constant_id = 27) const bool SG    = false; /* full subgroups of a fixed size */
/* the main samples come from rsb[] (a ladder's resampled rendition,
 * fssim_resample.comp.glsl), not from the main frame's images */
layout (constant_id = 28) const bool MAIN_BUF = false;
layout (constant_id = 8)  const float G0  = 0.0;
layout (constant_id = 9)  const float G1  = 0.0;
layout (constant_id = 10) const float G2  = 0.0;
layout (constant_id = 11) const float G3  = 0.0;
layout (constant_id = 12) const float G4  = 0.0;
layout (constant_id = 13) const float G5  = 0.0;
layout (constant_id = 14) const float G6  = 0.0;
layout (constant_id = 15) const float G7  = 0.0;
layout (constant_id = 16) const float G8  = 0.0;
layout (constant_id = 17) const float G9  = 0.0;
layout (constant_id = 18) const float G10 = 0.0;
layout (constant_id = 19) const float G11 = 0.0;
layout (constant_id = 20) const float G12 = 0.0;
layout (constant_id = 21) const float G13 = 0.0;
layout (constant_id = 22) const float G14 = 0.0;
#if FSSIM_FP64
/* L*L*(0.01*0.01) and L*L*(0.03*0.03) of doc/algorithms.md#int, computed by the host in
 * double exactly as the reference does; vf_ssim.c's integer constants. */
layout (constant_id = 23) const double  C1BASE = 0.0;
layout (constant_id = 24) const double  C2BASE = 0.0;
layout (constant_id = 25) const int64_t BC1    = 0;
layout (constant_id = 26) const int64_t BC2    = 0;
#endif

const bool DO_FLOAT = (ALGOS & ALGO_FLOAT) != 0;
const bool DO_INT   = (ALGOS & ALGO_INT)   != 0;
const bool DO_BLOCK = (ALGOS & ALGO_BLOCK) != 0;
const bool DO_PSNR  = (ALGOS & ALGO_PSNR)  != 0;
/* the double channels: int and block, psnr's sum of squared differences */
const bool WITH_D   = DO_INT || DO_BLOCK;
const int  SW = TW + 2 * HALO;
const int  SH = TH + 2 * HALO;
/* Shared memory sized for the algorithms asked for (keep in sync with
 * shared_bytes() in fssim_be_vulkan.c): less of it, more workgroups per
 * multiprocessor. */
const int  HPLANE = (TH + 2 * RF) * TW;     /* one moment of the float horizontal pass */
const int  HBUF_F = DO_FLOAT ? 4 * HPLANE : 0;
/* int: mux, muy, x2, xy, y2 (their 64-bit halves apart when WIDE); at 8
 * bits x2 + y2 as one (int_pass) */
const int  HBUF_I = DO_INT ? (WIDE ? 8 : DEEP ? 5 : 4) * IPLANE : 0;
/* The reductions' staging area: one slot per subgroup (SG: subgroups of at
 * least 4 invocations, which the host requires) or per invocation; a slot
 * is a float pair (2 words, in [0, 2 NSLOT)), a double pair (4 words, in
 * [2 NSLOT, 6 NSLOT)) and psnr's double pair (in [6 NSLOT, 10 NSLOT)), see
 * stage_f() and stage_d(). */
const int  NSLOT  = SG ? NT / 4 : NT;
const int  HBUF_R = (DO_PSNR ? 10 : 6) * NSLOT;
const int  HBUF_FI = HBUF_F > HBUF_I ? HBUF_F : HBUF_I;
const int  HBUF = HBUF_FI > HBUF_R ? HBUF_FI : HBUF_R;

layout (push_constant, scalar) uniform PushData {
    ivec2 size;      /* plane size in samples */
    ivec4 frect;     /* float: scored positions [x0, x1) x [y0, y1) */
    ivec2 nwin;      /* block: 8x8 windows across and down */
    int   plane;     /* image (plane) of the frames holding the component */
    int   chan;      /* channel of that image's texels */
    int   shift;     /* right shift giving the sample value (P010: 6) */
    int   tiles_x;
    uint  part_off;  /* first partial record of this plane */
    uint  nb_parts;
    uint  win_off;   /* first block window value of this plane (deep) */
    uint  res_off;   /* first result word of this plane */
    uint  buf_off;   /* MAIN_BUF: this plane's first sample in rsb[] */
    uint  buf_pitch; /* MAIN_BUF: samples from one row to the next */
};

layout (set = 0, binding = 8, scalar) buffer PartF { float part_f[]; };
#if FSSIM_FP64
/* per workgroup: int and block; psnr's sum split as 2^24 hi + lo, so that
 * the plane's sums of each stay below 2^53, exact in double */
layout (set = 0, binding = 9, scalar) buffer PartD { dvec4 part_d[]; };
#endif
layout (set = 0, binding = 10, scalar) buffer Win  { float win[]; };
layout (set = 0, binding = 11, scalar) buffer Res  { uint res[]; };
layout (set = 0, binding = 12, scalar) readonly buffer Rsb { uint rsb[]; };

const uint K[9] = uint[9](FSSIM_INT_TAPS);

/* A tile's samples, main in the low and reference in the high 16 bits;
 * zero outside the plane (what both padding rules and int need). */
shared uint smp[SW * SH];
/* Horizontal pass results: float moments, later the int sums. */
shared uint hbuf[HBUF];
#if FSSIM_FP64
shared uint blk[DO_BLOCK ? NBX * NBY * 6 : 1];
#endif

/* The int taps in shared memory for tap_weight()'s loop, which is not
 * unrolled: indexing a constant array with a loop counter can end up in
 * slow local memory. */
shared uint kw[9];

/* Tap i of the float window: a constant once the tap loops are unrolled. */
float gauss(int i)
{
    switch (i) {
    case 0:  return G0;
    case 1:  return G1;
    case 2:  return G2;
    case 3:  return G3;
    case 4:  return G4;
    case 5:  return G5;
    case 6:  return G6;
    case 7:  return G7;
    case 8:  return G8;
    case 9:  return G9;
    case 10: return G10;
    case 11: return G11;
    case 12: return G12;
    case 13: return G13;
    default: return G14;
    }
}

void load_taps(int tid)
{
    if (tid < 9)
        kw[tid] = K[tid];
}

#define FSSIM_FRAMES_MAIN_BUF
#include "fssim_frames.glsl"

/* The tile and its halo, LOADS positions per thread fetched together so
 * that their latencies overlap. */
#define LOADS 4

void load_region(ivec2 org, int tid, bool inside, int pl)
{
    for (int i0 = tid; i0 < SW * SH; i0 += NT * LOADS) {
        uint a[LOADS], b[LOADS];
        for (int k = 0; k < LOADS; k++) {
            const int i = i0 + k * NT;
            const ivec2 p = org - HALO + ivec2(i % SW, i / SW);
            a[k] = b[k] = 0;
            if (i < SW * SH && (inside || (all(greaterThanEqual(p, ivec2(0))) &&
                                           all(lessThan(p, size))))) {
                a[k] = texel_of(false, p, pl);
                b[k] = texel_of(true, p, pl);
            }
        }
        for (int k = 0; k < LOADS; k++) {
            const int i = i0 + k * NT;
            if (i < SW * SH)
                smp[i] = (a[k] >> shift) | ((b[k] >> shift) << 16);
        }
    }
}

/* The tile at org and its halo (FSSIM_LOAD_COPIES: most tiles' halos lie
 * inside the plane, and their copy checks no bounds). */
void load_tile(ivec2 org, int tid)
{
    FSSIM_LOAD_COPIES(load_region, org, tid, tile_inside(org, HALO));
}

float smp_s(int sx, int sy) { return float(smp[sy * SW + sx] & 0xFFFFu); }
float smp_d(int sx, int sy) { return float(smp[sy * SW + sx] >> 16); }

/* ---- float (doc/algorithms.md#float) --------------------------------------
 * fp32 moments of the samples centred on one sample of the tile (cs, cd),
 * its centre where that lies in the plane: with a = s - cs and b = d - cd, ma = sum g a, mb = sum g b,
 * q = sum g (a^2 + b^2) and pr = sum g ab over the taps inside the plane
 * (outside them a = b = 0), whose weights add up to G.  Centring keeps
 * var = E[a^2] - E[a]^2 from cancelling on flat areas (the tile's samples
 * lie near its centre's); the (1 - G) terms of ssim_float() restore the
 * zero-padded moments at the borders.  Each sample's a^2 + b^2 and ab are
 * rounded apart, and the four sums go through the same operations: with
 * s == d, q is exactly twice pr and SSIM exactly 1, as on the CPU. */

/* The sums of the float taps that fall inside [0, n) around position x
 * and of those outside: (1, 0) where the whole window is inside.  The
 * outside sum is added up, not taken as 1 minus the inside one, which
 * near 1 would keep few of its bits. */
vec2 gauss_weights(int x, int n)
{
    precise float in_w = 0.0, out_w = 0.0;

    if (x >= RF && x + RF < n)
        return vec2(1.0, 0.0);
    [[unroll]] for (int k = -RF; k <= RF; k++) {
        if (x + k >= 0 && x + k < n)
            in_w += gauss(k + RF);
        else
            out_w += gauss(k + RF);
    }
    return vec2(in_w, out_w);
}

/* G: the in-plane taps' weight, h = 1 - G: the others'. */
float ssim_float(float ma, float mb, float q, float pr, float G, float h, float cs, float cd)
{
    precise float mus = ma + cs * G, mud = mb + cd * G;
    precise float vsum = q - (ma * ma + mb * mb);
    precise float cov  = pr - ma * mb;

    if (h != 0.0) {
        precise float gh = G * h;
        vsum = vsum + ((2.0 * h) * (cs * ma + cd * mb) + gh * (cs * cs + cd * cd));
        cov  = cov + (h * (cs * mb + cd * ma) + gh * (cs * cd));
    }
    precise float num = (2.0 * mus * mud + C1F) * (2.0 * cov + C2F);
    precise float den = (mus * mus + mud * mud + C1F) * (vsum + C2F);
    /* GPU division is not exact: x / x must still be 1 */
    return num == den ? 1.0 : num / den;
}

/* The sums of FHC output columns from c0 of tile row sy, centred on c.
 * Samples outside the plane must weigh nothing: 0 after centring, not -cs.
 * inside (a constant of each call): the tile's windows lie inside the
 * plane, as for most tiles, whose code then checks nothing; row_in: row sy
 * does. */
void float_hsums(ivec2 org, int sy, int c0, vec2 c, bool inside, bool row_in)
{
    const int row0 = HALO - RF;
    precise float acc[4 * FHC];

    [[unroll]] for (int o = 0; o < 4 * FHC; o++)
        acc[o] = 0.0;
    [[unroll]] for (int j = 0; j < FHC + 2 * RF; j++) {
        const int sx = HALO - RF + c0 + j, gx = org.x - HALO + sx;
        float a = 0.0, b = 0.0;
        if (inside || (row_in && gx >= 0 && gx < size.x)) {
            const uint v = smp[sy * SW + sx];
            a = float(v & 0xFFFFu) - c.x;
            b = float(v >> 16) - c.y;
        }
        precise float sq = a * a + b * b, ab = a * b;
        [[unroll]] for (int o = 0; o < FHC; o++) {
            const int k = j - o;
            if (k >= 0 && k <= 2 * RF) {
                const float g = gauss(k);
                acc[4 * o + 0] = fma(g, a, acc[4 * o + 0]);
                acc[4 * o + 1] = fma(g, b, acc[4 * o + 1]);
                acc[4 * o + 2] = fma(g, sq, acc[4 * o + 2]);
                acc[4 * o + 3] = fma(g, ab, acc[4 * o + 3]);
            }
        }
    }
    [[unroll]] for (int o = 0; o < FHC; o++)
        [[unroll]] for (int m = 0; m < 4; m++)
            hbuf[m * HPLANE + (sy - row0) * TW + c0 + o] = floatBitsToUint(acc[4 * o + m]);
}

float float_pass(ivec2 org, ivec2 lp, int tid)
{
    const int hrows = TH + 2 * RF;
    const int row0 = HALO - RF;
    /* any centre works; a sample of the tile inside the plane keeps the
     * moments small (outside, 0 would leave them uncentred) */
    const ivec2 c = HALO + min(ivec2(TW, TH) / 2, size - 1 - org);
    const float cs = smp_s(c.x, c.y), cd = smp_d(c.x, c.y);
    /* the tile's windows lie inside the plane: no tap to drop */
    const bool inside = tile_inside(org, RF);

    /* FHC output columns per work item: each sample's terms are computed
     * once for all the columns its taps reach (in tap order, as one column
     * at a time would add them) */
    for (int i = tid; i < hrows * (TW / FHC); i += NT) {
        const int sy = row0 + i / (TW / FHC), c0 = i % (TW / FHC) * FHC;
        const int gy = org.y - HALO + sy;
        if (inside)
            float_hsums(org, sy, c0, vec2(cs, cd), true, true);
        else
            float_hsums(org, sy, c0, vec2(cs, cd), false, gy >= 0 && gy < size.y);
    }
    barrier();

    const ivec2 p = org + lp;
    if (p.x < frect.x || p.x >= frect.z || p.y < frect.y || p.y >= frect.w)
        return 0.0;

    precise float ma = 0, mb = 0, q = 0, pr = 0;
    [[unroll]] for (int k = -RF; k <= RF; k++) {
        const int h = (lp.y + RF + k) * TW + lp.x;
        const float g = gauss(k + RF);
        ma = fma(g, uintBitsToFloat(hbuf[0 * HPLANE + h]), ma);
        mb = fma(g, uintBitsToFloat(hbuf[1 * HPLANE + h]), mb);
        q  = fma(g, uintBitsToFloat(hbuf[2 * HPLANE + h]), q);
        pr = fma(g, uintBitsToFloat(hbuf[3 * HPLANE + h]), pr);
    }
    if (inside)
        return ssim_float(ma, mb, q, pr, 1.0, 0.0, cs, cd);
    const vec2 wx = gauss_weights(p.x, size.x), wy = gauss_weights(p.y, size.y);
    /* 1 - wx.x wy.x, as (1 - wx.x) + wx.x (1 - wy.x) */
    precise float G = wx.x * wy.x, h = wx.y + wx.x * wy.y;
    return ssim_float(ma, mb, q, pr, G, h, cs, cd);
}

#if FSSIM_FP64
/* ---- int (doc/algorithms.md#int) --------------------------------------- */

/* The per-pixel term in the association of doc/algorithms.md#int, no
 * contraction.  At 8 bits x2 holds x2 + y2 and y2 is unused: x2 W + y2 W
 * and mx2, my2 are integers below 2^53 whose partial sums are all exact, so
 * (x2 + y2) W - mx2 - my2 is the same double as x2 W - mx2 + y2 W - my2. */
double int_term(uint mux, uint muy, uint64_t x2, uint64_t xy, uint64_t y2, uint w)
{
    precise double W   = double(w);
    precise double c1  = C1BASE * W * W;
    precise double c2  = C2BASE * W * W;
    precise double mx  = double(mux), my = double(muy);
    precise double mx2 = mx * mx;
    precise double mxy = mx * my;
    precise double my2 = my * my;
    precise double num = W * (2.0 * mxy + c1) * (c2 + 2.0 * (double(xy) * W - mxy));
    precise double var = DEEP ? double(x2) * W - mx2 + double(y2) * W - my2 :
                                double(x2) * W - mx2 - my2;
    precise double den = (mx2 + my2 + c1) * (var + c2);
    precise double t = num / den;
    return t;
}

/* Sum of the taps that fall inside [0, n) around position x: all of them
 * but near the plane's edges. */
uint tap_weight(int x, int n)
{
    if (x >= KR && x + KR < n)
        return FSSIM_INT_TAP_SUM;
    uint w = 0;
    for (int j = 0; j < 9; j++)
        if (x + j - KR >= 0 && x + j - KR < n)
            w += kw[j];
    return w;
}

/* The int horizontal sums of IHC neighbouring columns per work item: each
 * sample's products are computed once for the IHC columns its taps reach
 * (one and two columns were slower:
 * doc/performance.md#vulkan-the-fused-shader). */
#define IHC 4

/* The sums of the IHC columns from sx, stored from hbuf index i, each below
 * 2^32.  9 to 12 bits: mux, muy, x2, xy, y2.  8 bits: mux and muy from one
 * sum of the packed samples (s | d << 16: each sum stays below 2^16, so
 * neither carries into the other), and x2 + y2 as one sum (below 2^25),
 * for int_term. */
void int_hsums(int sy, int sx, int i)
{
    uint mx[IHC], my[IHC], x2[IHC], xy[IHC], y2[IHC];

    [[unroll]] for (int o = 0; o < IHC; o++)
        mx[o] = my[o] = x2[o] = xy[o] = y2[o] = 0;
    [[unroll]] for (int j = 0; j < IHC + 8; j++) {
        const uint v = smp[sy * SW + sx + j - KR];
        const uint s = v & 0xFFFFu, d = v >> 16;
        const uint ss = DEEP ? s * s : s * s + d * d, sd = s * d, dd = d * d;
        [[unroll]] for (int o = 0; o < IHC; o++) {
            const int k = j - o;
            if (k >= 0 && k < 9) {
                mx[o] += K[k] * (DEEP ? s : v);
                x2[o] += K[k] * ss;
                xy[o] += K[k] * sd;
                if (DEEP) {
                    my[o] += K[k] * d;
                    y2[o] += K[k] * dd;
                }
            }
        }
    }
    [[unroll]] for (int o = 0; o < IHC; o++) {
        hbuf[0 * IPLANE + i + o] = DEEP ? mx[o] : mx[o] & 0xFFFFu;
        hbuf[1 * IPLANE + i + o] = DEEP ? my[o] : mx[o] >> 16;
        hbuf[2 * IPLANE + i + o] = x2[o];
        hbuf[3 * IPLANE + i + o] = xy[o];
        if (DEEP)
            hbuf[4 * IPLANE + i + o] = y2[o];
    }
}

double int_pass(ivec2 org, ivec2 lp, int tid)
{
    const int hrows = TH + 2 * KR;
    const int row0 = HALO - KR;

    /* horizontal sums; samples outside the plane are 0 and add nothing */
    for (int i = tid; !WIDE && i < hrows * (TW / IHC); i += NT) {
        const int r = i / (TW / IHC), c = i % (TW / IHC) * IHC;
        int_hsums(row0 + r, HALO + c, r * TW + c);
    }
    /* 13 to 16 bits: the squares' sums in 64 bits, kept as two words */
    for (int i = tid; WIDE && i < hrows * TW; i += NT) {
        const int sy = row0 + i / TW, sx = HALO + i % TW;
        uint mx = 0, my = 0;
        uint64_t x2w = 0, xyw = 0, y2w = 0;
        [[unroll]] for (int j = 0; j < 9; j++) {
            const uint v = smp[sy * SW + sx + j - KR];
            const uint s = v & 0xFFFFu, d = v >> 16;
            const uint ks = K[j] * s, kd = K[j] * d;
            mx += ks;
            my += kd;
            x2w += uint64_t(ks) * s;
            xyw += uint64_t(ks) * d;
            y2w += uint64_t(kd) * d;
        }
        uvec2 a = unpackUint2x32(x2w), b = unpackUint2x32(xyw), c = unpackUint2x32(y2w);
        hbuf[0 * IPLANE + i] = mx;
        hbuf[1 * IPLANE + i] = my;
        hbuf[2 * IPLANE + i] = a.x; hbuf[3 * IPLANE + i] = a.y;
        hbuf[4 * IPLANE + i] = b.x; hbuf[5 * IPLANE + i] = b.y;
        hbuf[6 * IPLANE + i] = c.x; hbuf[7 * IPLANE + i] = c.y;
    }
    barrier();

    const ivec2 p = org + lp;
    if (p.x >= size.x || p.y >= size.y)
        return 0.0;

    uint mux = 0, muy = 0;
    uint xy = 0;
    uint64_t x2w = 0, xyw = 0, y2w = 0;
    [[unroll]] for (int j = 0; j < 9; j++) {
        const int h = (lp.y + j) * TW + lp.x;
        mux += K[j] * hbuf[0 * IPLANE + h];
        muy += K[j] * hbuf[1 * IPLANE + h];
        if (WIDE) {
            x2w += K[j] * packUint2x32(uvec2(hbuf[2 * IPLANE + h], hbuf[3 * IPLANE + h]));
            xyw += K[j] * packUint2x32(uvec2(hbuf[4 * IPLANE + h], hbuf[5 * IPLANE + h]));
            y2w += K[j] * packUint2x32(uvec2(hbuf[6 * IPLANE + h], hbuf[7 * IPLANE + h]));
        } else if (DEEP) {
            x2w += uint64_t(K[j]) * hbuf[2 * IPLANE + h];
            xyw += uint64_t(K[j]) * hbuf[3 * IPLANE + h];
            y2w += uint64_t(K[j]) * hbuf[4 * IPLANE + h];
        } else {
            /* 8-bit: x2 + y2 reaches 2^33; xy, 65536 * 255^2, fits in 32 bits */
            x2w += uint64_t(K[j]) * hbuf[2 * IPLANE + h];
            xy  += K[j] * hbuf[3 * IPLANE + h];
        }
    }
    if (!DEEP)
        xyw = xy;
    /* the tile's windows lie inside the plane: every weight the whole sum,
     * and the term's constants, c1 W^2 and c2 W^2, constants of the code */
    if (tile_inside(org, KR))
        return int_term(mux, muy, x2w, xyw, y2w, FSSIM_INT_TAP_SUM * FSSIM_INT_TAP_SUM);
    return int_term(mux, muy, x2w, xyw, y2w, tap_weight(p.x, size.x) * tap_weight(p.y, size.y));
}

/* ---- block (doc/algorithms.md#block, vf_ssim.c) ------------------------ */

/* ssim_end1(): 32-bit integers.  The float products are rounded as C
 * rounds them; the quotient goes through double so that it is the
 * correctly rounded float quotient C computes (GPU fp32 division is not). */
float end1_8bit(int s1, int s2, int ss, int s12)
{
    const int c1 = int(BC1), c2 = int(BC2);
    const int vars  = ss * 64 - s1 * s1 - s2 * s2;
    const int covar = s12 * 64 - s1 * s2;
    precise float n = float(2 * s1 * s2 + c1) * float(2 * covar + c2);
    precise float d = float(s1 * s1 + s2 * s2 + c1) * float(vars + c2);
    return float(double(n) / double(d));
}

/* ssim_end1x(): 64-bit integers and constants from the bit depth. */
float end1_deep(int64_t s1, int64_t s2, int64_t ss, int64_t s12)
{
    const int64_t vars  = ss * 64 - s1 * s1 - s2 * s2;
    const int64_t covar = s12 * 64 - s1 * s2;
    precise float n = float(2 * s1 * s2 + BC1) * float(2 * covar + BC2);
    precise float d = float(s1 * s1 + s2 * s2 + BC1) * float(vars + BC2);
    return float(double(n) / double(d));
}

/* Windows are owned by the tile that holds their top-left sample; their
 * right and bottom 4x4 blocks lie in the halo.  8-bit windows are added
 * here (vf_ssim.c sums them in double, so order does not matter); deep
 * windows go to a buffer because vf_ssim.c sums each row in float, in
 * order, which the reduction replays. */
double block_pass(ivec2 org, int tid)
{
    if (tid < NBX * NBY) {
        const int sx = HALO + 4 * (tid % NBX), sy = HALO + 4 * (tid / NBX);
        uint s1 = 0, s2 = 0;
        uint64_t ss = 0, s12 = 0;
        for (int y = 0; y < 4; y++) {
            for (int x = 0; x < 4; x++) {
                const uint v = smp[(sy + y) * SW + sx + x];
                const uint a = v & 0xFFFFu, b = v >> 16;
                s1  += a;
                s2  += b;
                ss  += uint64_t(a * a) + uint64_t(b * b);
                s12 += uint64_t(a * b);
            }
        }
        blk[tid * 6 + 0] = s1;
        blk[tid * 6 + 1] = s2;
        uvec2 u = unpackUint2x32(ss), v = unpackUint2x32(s12);
        blk[tid * 6 + 2] = u.x; blk[tid * 6 + 3] = u.y;
        blk[tid * 6 + 4] = v.x; blk[tid * 6 + 5] = v.y;
    }
    barrier();

    const int wx = tid % (TW / 4), wy = tid / (TW / 4);
    const ivec2 wp = org / 4 + ivec2(wx, wy);
    if (wy >= TH / 4 || wp.x >= nwin.x || wp.y >= nwin.y)
        return 0.0;

    int64_t s1 = 0, s2 = 0, ss = 0, s12 = 0;
    for (int b = 0; b < 4; b++) {
        const int i = (wy + b / 2) * NBX + wx + b % 2;
        s1  += int64_t(blk[i * 6 + 0]);
        s2  += int64_t(blk[i * 6 + 1]);
        ss  += int64_t(packUint2x32(uvec2(blk[i * 6 + 2], blk[i * 6 + 3])));
        s12 += int64_t(packUint2x32(uvec2(blk[i * 6 + 4], blk[i * 6 + 5])));
    }
    if (DEEP) {
        win[win_off + uint(wp.x) * uint(nwin.y) + uint(wp.y)] = end1_deep(s1, s2, ss, s12);
        return 0.0;
    }
    return double(end1_8bit(int(s1), int(s2), int(ss), int(s12)));
}
#endif /* FSSIM_FP64 */

/* ---- reductions in a fixed order ----------------------------------------
 * With subgroups of a fixed size (SG): a butterfly of shuffles inside each
 * subgroup (every lane ends with the same sum, IEEE addition commutes),
 * then the subgroups' sums in subgroup order.  Without: a shared-memory
 * tree.  Either way the order is fixed, so results repeat bit for bit.
 * hbuf is the staging area: NSLOT float pairs, then NSLOT double pairs. */

void stage_f(uint i, vec2 v)
{
    hbuf[2 * i] = floatBitsToUint(v.x);
    hbuf[2 * i + 1] = floatBitsToUint(v.y);
}

vec2 staged_f(uint i)
{
    return vec2(uintBitsToFloat(hbuf[2 * i]), uintBitsToFloat(hbuf[2 * i + 1]));
}

#if FSSIM_FP64
/* pair 0: int and block, at [2 NSLOT, 6 NSLOT); pair 1: psnr's, after */
void stage_d(uint i, dvec2 v, uint pair)
{
    const uvec2 a = unpackDouble2x32(v.x), b = unpackDouble2x32(v.y);
    const uint o = (2 + 4 * pair) * NSLOT + 4 * i;
    hbuf[o + 0] = a.x;
    hbuf[o + 1] = a.y;
    hbuf[o + 2] = b.x;
    hbuf[o + 3] = b.y;
}

dvec2 staged_d(uint i, uint pair)
{
    const uint o = (2 + 4 * pair) * NSLOT + 4 * i;
    return dvec2(packDouble2x32(uvec2(hbuf[o], hbuf[o + 1])),
                 packDouble2x32(uvec2(hbuf[o + 2], hbuf[o + 3])));
}
#endif

/* On return, thread 0 holds the workgroup's sums: f, and d and e (psnr)
 * where the algorithms asked for have them. */
#if FSSIM_FP64
void reduce_all(inout vec2 f, inout dvec2 d, inout dvec2 e, uint tid)
#else
void reduce_all(inout vec2 f, uint tid)
#endif
{
    barrier(); /* hbuf is free */
    if (SG) {
        for (uint o = gl_SubgroupSize >> 1; o > 0; o >>= 1) {
            f = two_sum(f, subgroupShuffleXor(f, o));
#if FSSIM_FP64
            if (WITH_D)
                d += subgroupShuffleXor(d, o);
            if (DO_PSNR)
                e += subgroupShuffleXor(e, o);
#endif
        }
        if (gl_SubgroupInvocationID == 0) {
            stage_f(gl_SubgroupID, f);
#if FSSIM_FP64
            if (WITH_D)
                stage_d(gl_SubgroupID, d, 0);
            if (DO_PSNR)
                stage_d(gl_SubgroupID, e, 1);
#endif
        }
        barrier();
        if (tid == 0) {
            for (uint i = 1; i < gl_NumSubgroups; i++) {
                f = two_sum(f, staged_f(i));
#if FSSIM_FP64
                if (WITH_D)
                    d += staged_d(i, 0);
                if (DO_PSNR)
                    e += staged_d(i, 1);
#endif
            }
        }
    } else {
        stage_f(tid, f);
#if FSSIM_FP64
        if (WITH_D)
            stage_d(tid, d, 0);
        if (DO_PSNR)
            stage_d(tid, e, 1);
#endif
        barrier();
        for (uint st = NT / 2; st > 0; st >>= 1) {
            if (tid < st) {
                f = two_sum(staged_f(tid), staged_f(tid + st));
                stage_f(tid, f);
#if FSSIM_FP64
                if (WITH_D) {
                    d = staged_d(tid, 0) + staged_d(tid + st, 0);
                    stage_d(tid, d, 0);
                }
                if (DO_PSNR) {
                    e = staged_d(tid, 1) + staged_d(tid + st, 1);
                    stage_d(tid, e, 1);
                }
#endif
            }
            barrier();
        }
    }
}

void tile_main()
{
    const int tid = int(gl_LocalInvocationIndex);
    const ivec2 lp = ivec2(tid % TW, tid / TW);
    const uint part = part_off + gl_WorkGroupID.y * uint(tiles_x) + gl_WorkGroupID.x;
    float fs = 0.0;
#if FSSIM_FP64
    /* psnr: exact squared differences, below 2^32 each, 2^40 a tile */
    double ts = 0.0, bs = 0.0, es = 0.0;
#endif

    load_taps(tid);
    /* FSSIM_VK_TILES tiles, one below the other: one reduction for all */
    for (int t = 0; t < FSSIM_VK_TILES; t++) {
        const ivec2 org = ivec2(gl_WorkGroupID.x, gl_WorkGroupID.y * FSSIM_VK_TILES + t) *
                          ivec2(TW, TH);
        if (org.y >= size.y)
            break;
        if (t > 0)
            barrier(); /* the previous tile's passes are done with the shared arrays */
        load_tile(org, tid);
        barrier();
#if FSSIM_FP64
        if (DO_BLOCK) {
            bs += block_pass(org, tid);
            barrier();
        }
#endif
        if (DO_FLOAT) {
            fs += float_pass(org, lp, tid);
            barrier();
        }
#if FSSIM_FP64
        if (DO_INT)
            ts += int_pass(org, lp, tid);
        if (DO_PSNR) {
            const ivec2 p = org + lp;
            if (p.x < size.x && p.y < size.y) {
                const uint v = smp[(HALO + lp.y) * SW + HALO + lp.x];
                const int diff = int(v & 0xFFFFu) - int(v >> 16);
                es += double(uint(diff * diff));
            }
        }
#endif
    }

    vec2 f = vec2(fs, 0.0);
#if FSSIM_FP64
    dvec2 d = dvec2(ts, bs), e = dvec2(es, 0.0);
    reduce_all(f, d, e, tid);
#else
    reduce_all(f, tid);
#endif
    if (tid == 0) {
        part_f[part] = f.x + f.y;
#if FSSIM_FP64
        /* split at 2^24: the plane's sums of each part stay below 2^53 */
        const double hi = floor(e.x / 16777216.0);
        part_d[part] = dvec4(d, hi, e.x - hi * 16777216.0);
#endif
    }
}

/* NACC independent accumulators per thread keep that many loads in flight;
 * they are combined in a fixed order, like everything else. */
#define NACC 8

void reduce_main()
{
    const uint tid = gl_LocalInvocationIndex;
    vec2 fa[NACC];
#if FSSIM_FP64
    dvec2 da[NACC], ea[NACC];
#endif

    for (int k = 0; k < NACC; k++) {
        fa[k] = vec2(0.0);
#if FSSIM_FP64
        da[k] = ea[k] = dvec2(0.0);
#endif
    }
    for (uint i = tid; i < nb_parts; i += NT * NACC) {
        for (int k = 0; k < NACC; k++) {
            const uint j = i + k * NT;
            if (j < nb_parts) {
                fa[k] = two_sum(fa[k], vec2(part_f[part_off + j], 0.0));
#if FSSIM_FP64
                if (DO_INT || (DO_BLOCK && !DEEP))
                    da[k] += part_d[part_off + j].xy;
                if (DO_PSNR)
                    ea[k] += part_d[part_off + j].zw;
#endif
            }
        }
    }
    vec2 f = fa[0];
#if FSSIM_FP64
    dvec2 d = da[0], e = ea[0];
#endif
    for (int k = 1; k < NACC; k++) {
        f = two_sum(f, fa[k]);
#if FSSIM_FP64
        d += da[k];
        e += ea[k];
#endif
    }
#if FSSIM_FP64
    /* vf_ssim.c's deep path: each row of windows summed in float, in order */
    if (DO_BLOCK && DEEP) {
        for (int y = int(tid); y < nwin.y; y += NT) {
            precise float row = 0.0;
            for (int x = 0; x < nwin.x; x++)
                row += win[win_off + uint(x) * uint(nwin.y) + uint(y)];
            d.y += double(row);
        }
    }
#endif

#if FSSIM_FP64
    reduce_all(f, d, e, tid);
#else
    reduce_all(f, tid);
#endif
    if (tid == 0) {
        res[res_off + 0] = floatBitsToUint(f.x);
        res[res_off + 1] = floatBitsToUint(f.y);
#if FSSIM_FP64
        const uvec2 t = unpackDouble2x32(d.x), b = unpackDouble2x32(d.y);
        const uvec2 h = unpackDouble2x32(e.x), l = unpackDouble2x32(e.y);
        res[res_off + 2] = t.x;
        res[res_off + 3] = t.y;
        res[res_off + 4] = b.x;
        res[res_off + 5] = b.y;
        res[res_off + 6] = h.x;
        res[res_off + 7] = h.y;
        res[res_off + 8] = l.x;
        res[res_off + 9] = l.y;
#endif
    }
}

void main()
{
    if (MODE == 0)
        tile_main();
    else
        reduce_main();
}
