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
 * fssim: multi-scale SSIM (doc/algorithms.md#msssim) of one plane pair on
 * Vulkan, without 64-bit types.
 *
 * MODE 0 (a scale's tiles): one workgroup per TW x TH tile of scale j.  It
 * reads the tile and the window's halo once into shared memory (scale 0:
 * the frames' images; further scales: the float planes of the level
 * buffer), writes its share of scale j + 1 there (2 x 2 average pooling,
 * the cells whose samples start in the tile), and sums the SSIM and
 * contrast-structure maps of its valid positions into one partial record:
 * two float pairs (sum and rounding error), added in a fixed order.
 * MODE 1 (reduce): workgroup j adds the records of scale j of the plane in
 * a fixed order and writes its two sums for the host.
 *
 * Pooled values are exact in float (sums of at most 4^4 samples over a
 * power of two), so the scales equal the reference's doubles; the local
 * moments are fp32 with per-position centring, as the float algorithm's
 * (fssim_core.glsl), of the sum and the difference of the two planes, so
 * that identical planes give exactly 1 (see maps()).
 */
#pragma shader_stage(compute)
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require

#include "../core/fssim_consts.h"

#define TW   FSSIM_VK_TILE_W
#define TH   FSSIM_VK_TILE_H
#define NT   (TW * TH)
#define RMAX FSSIM_MAX_RADIUS
#define NONE 0xFFFFFFFFu      /* no next scale */

layout (local_size_x_id = 253, local_size_y_id = 254, local_size_z_id = 255) in;

layout (constant_id = 0)  const int   MODE = 0;
layout (constant_id = 1)  const int   RF   = 5;      /* window radius */
layout (constant_id = 2)  const float C1F  = 6.5025;
layout (constant_id = 3)  const float C2F  = 58.5225;
layout (constant_id = 4)  const bool  SG   = false;  /* full subgroups of a fixed size */
layout (constant_id = 5)  const float G0  = 0.0;
layout (constant_id = 6)  const float G1  = 0.0;
layout (constant_id = 7)  const float G2  = 0.0;
layout (constant_id = 8)  const float G3  = 0.0;
layout (constant_id = 9)  const float G4  = 0.0;
layout (constant_id = 10) const float G5  = 0.0;
layout (constant_id = 11) const float G6  = 0.0;
layout (constant_id = 12) const float G7  = 0.0;
layout (constant_id = 13) const float G8  = 0.0;
layout (constant_id = 14) const float G9  = 0.0;
layout (constant_id = 15) const float G10 = 0.0;
layout (constant_id = 16) const float G11 = 0.0;
layout (constant_id = 17) const float G12 = 0.0;
layout (constant_id = 18) const float G13 = 0.0;
layout (constant_id = 19) const float G14 = 0.0;
/* scale 0 of main comes from rsb[] (a ladder's resampled rendition,
 * fssim_resample.comp.glsl), not from the main frame's images */
layout (constant_id = 20) const bool  MAIN_BUF = false;

const int SW = TW + 2 * RF;
const int SH = TH + 2 * RF;
const int HPOS = (TH + 2 * RF) * TW;          /* positions of the horizontal pass */
/* the reductions' staging area: a slot (two float pairs) per subgroup (SG:
 * subgroups of at least 4, which the host requires) or per invocation */
const int NSLOT = SG ? NT / 4 : NT;
const int HBUF = HPOS > NSLOT ? HPOS : NSLOT;

layout (push_constant, scalar) uniform PushData {
    ivec2 size;        /* scale j */
    int   plane;       /* scale 0: the image holding the component */
    int   chan;        /* its channel */
    int   shift;       /* right shift giving the sample value */
    int   level;       /* j */
    int   tiles_x;
    uint  part_off;    /* this dispatch's first partial record */
    uint  in_off;      /* scale j of main in lvl[] (j > 0), floats */
    uint  in_ref_off;  /* and of the reference */
    uint  out_off;     /* scale j + 1 of main (NONE at the last scale) */
    uint  out_ref_off; /* and of the reference */
    uint  res_off;     /* the plane's first result word */
    uint  seg_off[FSSIM_MS_SCALES];  /* reduce: each scale's first record */
    uint  seg_n[FSSIM_MS_SCALES];    /* and their number */
    uint  buf_off;     /* MAIN_BUF: this plane's first sample in rsb[] */
    uint  buf_pitch;   /* MAIN_BUF: samples from one row to the next */
};

layout (set = 0, binding = 8, scalar) buffer Lvl  { float lvl[]; };
layout (set = 0, binding = 9, scalar) buffer Part { vec4 part[]; };
layout (set = 0, binding = 10, scalar) buffer Res { uint res[]; };
layout (set = 0, binding = 11, scalar) readonly buffer Rsb { uint rsb[]; };

/* the tile and its halo, as u = a + b and w = a - b of the two planes (see
 * load_tile()) */
shared vec2 suw[SW * SH];
/* the horizontal pass's four moments of a position, read by one 16-byte
 * load in the vertical pass; then the reductions' staging area */
shared vec4 hbuf[HBUF];
shared float gw[2 * RMAX + 1];

void load_taps(int tid)
{
    const float g[15] = float[15](G0, G1, G2, G3, G4, G5, G6, G7,
                                  G8, G9, G10, G11, G12, G13, G14);
    if (tid < 2 * RMAX + 1)
        gw[tid] = g[tid];
}

#define FSSIM_FRAMES_MAIN_BUF
#include "fssim_frames.glsl"

/*
 * The tile and its halo; zero outside the plane (the pooling's padded
 * zeros; valid windows never reach them).  LOADS positions per invocation
 * are fetched before any is stored, so that their latencies overlap.
 *
 * Stored as u = a + b and w = a - b, which both passes use, so that they
 * are formed once per sample rather than once per tap.  The values are
 * those the passes formed before: the same float additions.  At the scales
 * that are pooled (all but the last) u and w are exact, since a and b are
 * multiples of 4^-j below 2^16: at most 23 significant bits; so
 * (u + w) / 2 and (u - w) / 2 give a and b back exactly for pool().
 */
#define LOADS 4

/* The samples at p, from image pl of the frames at scale 0. */
vec2 tile_sample(ivec2 p, bool inside, int pl)
{
    if (!inside && (any(lessThan(p, ivec2(0))) || any(greaterThanEqual(p, size))))
        return vec2(0.0);
    if (level == 0)
        return vec2(float(texel_of(false, p, pl) >> shift), float(texel_of(true, p, pl) >> shift));
    const uint i = uint(p.y) * uint(size.x) + uint(p.x);
    return vec2(lvl[in_off + i], lvl[in_ref_off + i]);
}

void load_region(ivec2 org, int tid, bool inside, int pl)
{
    for (int i0 = tid; i0 < SW * SH; i0 += NT * LOADS) {
        vec2 v[LOADS];
        for (int k = 0; k < LOADS; k++) {
            const int i = i0 + k * NT;
            v[k] = i < SW * SH ? tile_sample(org - RF + ivec2(i % SW, i / SW), inside, pl) :
                                 vec2(0.0);
        }
        for (int k = 0; k < LOADS; k++)
            if (i0 + k * NT < SW * SH)
                suw[i0 + k * NT] = vec2(v[k].x + v[k].y, v[k].x - v[k].y);
    }
}

/* The tile at org and its halo (FSSIM_LOAD_COPIES). */
void load_tile(ivec2 org, int tid)
{
    FSSIM_LOAD_COPIES(load_region, org, tid, tile_inside(org, RF));
}

/* a and b from u and w, exactly (see load_tile()) */
vec2 ab(int i)
{
    precise vec2 s = vec2(suw[i].x + suw[i].y, suw[i].x - suw[i].y) * 0.5;
    return s;
}

/* Cell o of scale j + 1 covers samples 2o - p, 2o - p + 1 (p = 1 on an odd
 * side); the tile at org (even) owns cells org/2 .. org/2 + T/2 - 1, whose
 * samples lie in the tile and one halo sample before it.  Added in the
 * reference's order; exact in float. */
void pool(ivec2 org, int tid)
{
    const ivec2 c = ivec2(tid % (TW / 2), tid / (TW / 2));
    const ivec2 o = org / 2 + c;
    const ivec2 nsize = (size + 1) / 2;
    const ivec2 pad = size & 1;

    if (out_off == NONE || tid >= (TW / 2) * (TH / 2) || any(greaterThanEqual(o, nsize)))
        return;
    const ivec2 s = 2 * c - pad + RF;
    const int i = s.y * SW + s.x;
    precise vec2 v = ((ab(i) + ab(i + 1)) + ab(i + SW)) + ab(i + SW + 1);
    const uint j = uint(o.y) * uint(nsize.x) + uint(o.x);
    lvl[out_off + j] = v.x * 0.25;
    lvl[out_ref_off + j] = v.y * 0.25;
}

/* sum of g (x - c)^2 from a row's sums around its own centre (see
 * fssim_core.glsl): h2 + d h1 + d (h1 + d), d the centre's shift, t1 = h1 + d */
float moment2(float h2, float d, float h1, float t1)
{
    precise float m = fma(d, t1, fma(d, h1, h2));
    return m;
}

/*
 * The SSIM and contrast-structure maps at the invocation's position (0, 0
 * where it is not a valid one), from the moments of u = a + b and
 * w = a - b rather than of a and b:
 *   var_a + var_b = (var_u + var_w) / 2      2 cov = (var_u - var_w) / 2
 *   mu_a^2 + mu_b^2 = (mu_u^2 + mu_w^2) / 2  2 mu_a mu_b = (mu_u^2 - mu_w^2) / 2
 * so that, as the reference,
 *   CS = (2 cov + C2) / (var_a + var_b + C2)
 *   S  = (2 mu_a mu_b + C1) / (mu_a^2 + mu_b^2 + C1) * CS.
 * Identical planes make every w, and all of its moments, exactly 0, so
 * each numerator equals its denominator whatever the compiler fuses or
 * reorders (x - 0 == x + 0): both maps are exactly 1.  Four moments
 * instead of five, too.  The moments are centred on each row's own
 * sample in the horizontal pass and moved to the output's centre sample
 * in the vertical pass (fssim_core.glsl), so that a variance only cancels
 * what the window really varies.
 */
vec2 maps(ivec2 org, ivec2 lp, int tid)
{
    for (int i = tid; i < HPOS; i += NT) {
        const int c = (i / TW) * SW + RF + i % TW;
        const vec2 cs = suw[c];
        const float cu = cs.x, cw = cs.y;
        precise float h1u = 0, h1w = 0, h2u = 0, h2w = 0;
        for (int k = -RF; k <= RF; k++) {
            const vec2 t = suw[c + k];
            const float du = t.x - cu, dw = t.y - cw;
            precise float gu = gw[k + RF] * du, gv = gw[k + RF] * dw;
            h1u += gu;
            h1w += gv;
            h2u = fma(gu, du, h2u);
            h2w = fma(gv, dw, h2w);
        }
        hbuf[i] = vec4(h1u, h1w, h2u, h2w);
    }
    barrier();

    const ivec2 p = org + lp;
    if (any(lessThan(p, ivec2(RF))) || any(greaterThanEqual(p, size - RF)))
        return vec2(0.0);

    const int c = (RF + lp.y) * SW + RF + lp.x;
    const vec2 cs = suw[c];
    const float cu = cs.x, cw = cs.y;
    precise float a1u = 0, a1w = 0, a2u = 0, a2w = 0;
    for (int k = -RF; k <= RF; k++) {
        const int h = (lp.y + RF + k) * TW + lp.x, r = c + k * SW;
        const vec4 hs = hbuf[h];
        const float h1u = hs.x, h1w = hs.y, h2u = hs.z, h2w = hs.w;
        /* shift of this row's centre to the output's */
        const vec2 t = suw[r];
        const float du = t.x - cu, dw = t.y - cw;
        precise float t1u = h1u + du, t1w = h1w + dw;
        const float g = gw[k + RF];
        a1u = fma(g, t1u, a1u);
        a1w = fma(g, t1w, a1w);
        a2u = fma(g, moment2(h2u, du, h1u, t1u), a2u);
        a2w = fma(g, moment2(h2w, dw, h1w, t1w), a2w);
    }
    precise float muu = cu + a1u, muw = cw + a1w;
    precise float vu = a2u - a1u * a1u, vw = a2w - a1w * a1w;
    precise float mu2u = muu * muu, mu2w = muw * muw;
    precise float csn = (vu - vw) * 0.5 + C2F, csd = (vu + vw) * 0.5 + C2F;
    precise float ln = (mu2u - mu2w) * 0.5 + C1F, ld = (mu2u + mu2w) * 0.5 + C1F;
    /* GPU division is not exact: x / x must still be 1 */
    const float cmap = csn == csd ? 1.0 : csn / csd;
    const float lum = ln == ld ? 1.0 : ln / ld;
    precise float smap = lum * cmap;
    return vec2(smap, cmap);
}

/* ---- reductions in a fixed order (as fssim_core.glsl) --------------------
 * v holds two float pairs: (S sum, S error, CS sum, CS error). */

vec4 add4(vec4 a, vec4 b)
{
    return vec4(two_sum(a.xy, b.xy), two_sum(a.zw, b.zw));
}

void stage(uint i, vec4 v)
{
    hbuf[i] = v;
}

vec4 staged(uint i)
{
    return hbuf[i];
}

/* On return, invocation 0 holds the workgroup's sums. */
vec4 reduce_all(vec4 v, uint tid)
{
    barrier(); /* hbuf is free */
    if (SG) {
        for (uint o = gl_SubgroupSize >> 1; o > 0; o >>= 1)
            v = add4(v, subgroupShuffleXor(v, o));
        if (gl_SubgroupInvocationID == 0)
            stage(gl_SubgroupID, v);
        barrier();
        if (tid == 0)
            for (uint i = 1; i < gl_NumSubgroups; i++)
                v = add4(v, staged(i));
    } else {
        stage(tid, v);
        barrier();
        for (uint st = NT / 2; st > 0; st >>= 1) {
            if (tid < st) {
                v = add4(staged(tid), staged(tid + st));
                stage(tid, v);
            }
            barrier();
        }
    }
    return v;
}

void tile_main()
{
    const int tid = int(gl_LocalInvocationIndex);
    const ivec2 lp = ivec2(tid % TW, tid / TW);
    const ivec2 org = ivec2(gl_WorkGroupID.xy) * ivec2(TW, TH);

    load_taps(tid);
    load_tile(org, tid);
    barrier();
    pool(org, tid);
    const vec2 m = maps(org, lp, tid);
    const vec4 v = reduce_all(vec4(m.x, 0.0, m.y, 0.0), uint(tid));
    if (tid == 0)
        part[part_off + gl_WorkGroupID.y * uint(tiles_x) + gl_WorkGroupID.x] = v;
}

/* NACC independent accumulators per invocation keep loads in flight; they
 * are combined in a fixed order. */
#define NACC 4

void reduce_main()
{
    const uint tid = gl_LocalInvocationIndex;
    const uint j = gl_WorkGroupID.x;
    const uint off = seg_off[j], n = seg_n[j];
    vec4 acc[NACC];

    for (int k = 0; k < NACC; k++)
        acc[k] = vec4(0.0);
    for (uint i = tid; i < n; i += NT * NACC)
        for (int k = 0; k < NACC; k++)
            if (i + k * NT < n)
                acc[k] = add4(acc[k], part[off + i + k * NT]);
    vec4 v = acc[0];
    for (int k = 1; k < NACC; k++)
        v = add4(v, acc[k]);
    v = reduce_all(v, tid);
    if (tid == 0) {
        res[res_off + 4 * j + 0] = floatBitsToUint(v.x);
        res[res_off + 4 * j + 1] = floatBitsToUint(v.y);
        res[res_off + 4 * j + 2] = floatBitsToUint(v.z);
        res[res_off + 4 * j + 3] = floatBitsToUint(v.w);
    }
}

void main()
{
    if (MODE == 0)
        tile_main();
    else
        reduce_main();
}
