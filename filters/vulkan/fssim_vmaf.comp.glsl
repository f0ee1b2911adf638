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
 * fssim: vmaf_ssim and vmaf_msssim, libvmaf's float_ssim and float_ms_ssim
 * (doc/algorithms.md#vmaf_ssim), on Vulkan, in libvmaf's arithmetic: every
 * float operation of libvmaf is a float operation here and every double one
 * a double one (shaderFloat64), in the same order, `precise` so that none
 * is contracted.  A float division or square root, which Vulkan does not
 * round correctly, is taken in double and then checked against the
 * midpoints of its neighbours, exactly, so that it is the correctly rounded
 * float libvmaf gets.
 *
 * MODE 0 (load): one plane of one frame to libvmaf's floats (a sample
 * times 2^-(depth - 8)), decimated by f: each output the box average of
 * f x f samples, mirrored at the borders.  MODE 1 (lpf): the next scale of
 * vmaf_msssim, the 9x9 low-pass filter at every second sample.  Both: an
 * output per invocation, the workgroups striding over the plane.
 * MODE 2 (score): one workgroup per TW x TH tile of positions of a plane
 * pair, both planes' tile and halo and the horizontal pass of the five
 * moments in shared memory, then each position's l, c and s; the
 * workgroup's four sums (l c s, l, c, s) as one partial record, added in a
 * fixed order.  MODE 3 (reduce): workgroup j adds the records of the
 * component's job j in a fixed order into the result words.
 */
#pragma shader_stage(compute)
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require
#extension GL_EXT_scalar_block_layout : require

#include "../core/fssim_consts.h"

#define TW   FSSIM_VK_TILE_W
#define TH   FSSIM_VK_TILE_H
#define NT   (TW * TH)
#define RV   FSSIM_VMAF_RADIUS
#define WV   FSSIM_VMAF_WINDOW
#define NJOB (1 + FSSIM_VMAF_SCALES)     /* a component's jobs at most */

layout (local_size_x_id = 253, local_size_y_id = 254, local_size_z_id = 255) in;

layout (constant_id = 0)  const int   MODE = 0;
/* main's samples come from rsb[] (a ladder's resampled rendition) */
layout (constant_id = 1)  const bool  MAIN_BUF = false;
/* C1, C2, C3 and the 11 Gaussian taps, as floats from the host (ref_vmaf.c) */
layout (constant_id = 2)  const float C1 = 0.0;
layout (constant_id = 3)  const float C2 = 0.0;
layout (constant_id = 4)  const float C3 = 0.0;
layout (constant_id = 5)  const float G0 = 0.0;
layout (constant_id = 6)  const float G1 = 0.0;
layout (constant_id = 7)  const float G2 = 0.0;
layout (constant_id = 8)  const float G3 = 0.0;
layout (constant_id = 9)  const float G4 = 0.0;
layout (constant_id = 10) const float G5 = 0.0;

layout (push_constant, scalar) uniform PushData {
    ivec2 size;       /* load: the frame's plane; lpf: the scale read; score: the planes' */
    ivec2 out_size;   /* load, lpf: the plane written */
    int   plane;      /* load: the image holding the component */
    int   chan;       /* its channel */
    int   shift;      /* right shift giving the sample value */
    int   from_ref;   /* load: the reference's frame (else the rendition's); lpf: its planes */
    int   f;          /* load: decimation factor */
    float k;          /* load: 1 / (f f) */
    float inv;        /* load: 2^-(depth - 8) */
    int   tiles_x;    /* score */
    uint  in_off;     /* lpf: the scale read; score: main's plane */
    uint  in_ref_off; /* score: the reference's plane */
    uint  out_off;    /* load, lpf: the plane written */
    uint  part_off;   /* score: this dispatch's first record */
    uint  res_off;    /* reduce: the component's first result word */
    uint  seg_off[NJOB];   /* reduce: each job's first record */
    uint  seg_n[NJOB];     /* and their number */
    uint  buf_off;    /* MAIN_BUF: this plane's first sample in rsb[] */
    uint  buf_pitch;  /* MAIN_BUF: samples from one row to the next */
};

layout (set = 0, binding = 8, scalar) buffer Main { float pm[]; };   /* the rendition's planes */
layout (set = 0, binding = 9, scalar) buffer Ref  { float pr[]; };   /* the reference's */
layout (set = 0, binding = 10, scalar) buffer Part { double part[]; };
layout (set = 0, binding = 11, scalar) buffer Res { uint res[]; };
layout (set = 0, binding = 12, scalar) readonly buffer Rsb { uint rsb[]; };

#define FSSIM_FRAMES_MAIN_BUF
#include "fssim_frames.glsl"

/* the lpf table, set by the host (constant_id 16 .. 96) */
layout (constant_id = 16) const float L0 = 0.0;
layout (constant_id = 17) const float L1 = 0.0;
layout (constant_id = 18) const float L2 = 0.0;
layout (constant_id = 19) const float L3 = 0.0;
layout (constant_id = 20) const float L4 = 0.0;
layout (constant_id = 21) const float L5 = 0.0;
layout (constant_id = 22) const float L6 = 0.0;
layout (constant_id = 23) const float L7 = 0.0;
layout (constant_id = 24) const float L8 = 0.0;
layout (constant_id = 25) const float L9 = 0.0;
layout (constant_id = 26) const float L10 = 0.0;
layout (constant_id = 27) const float L11 = 0.0;
layout (constant_id = 28) const float L12 = 0.0;
layout (constant_id = 29) const float L13 = 0.0;
layout (constant_id = 30) const float L14 = 0.0;

/* the upper-left quadrant's 15 distinct values, row by row of the lower
 * triangle: (0,0), (1,0), (1,1), (2,0) ... (4,4); the table is symmetric */
float lpf_tap(int v, int u)
{
    const float q[15] = float[15](L0, L1, L2, L3, L4, L5, L6, L7, L8, L9, L10, L11, L12,
                                  L13, L14);
    int a = v < 4 ? v : 8 - v, b = u < 4 ? u : 8 - u;
    if (a < b) {
        const int t = a;
        a = b;
        b = t;
    }
    return q[a * (a + 1) / 2 + b];
}

float gauss_tap(int u)
{
    const float g[WV] = float[WV](G0, G1, G2, G3, G4, G5, G4, G3, G2, G1, G0);
    return g[u];
}

int mirror(int i, int n)
{
    return i < 0 ? -1 - i : i >= n ? 2 * n - 1 - i : i;
}

/* sum + double(a * b), the product rounded to float first */
double tap(double sum, float a, float b)
{
    precise float t = a * b;
    precise double s = sum + double(t);
    return s;
}

/* The next float above positive x. */
float next_up(float x)
{
    return uintBitsToFloat(floatBitsToUint(x) + 1u);
}

/* a / b rounded to the nearest float, a >= 0, b > 0: the double quotient,
 * moved to the neighbour on the quotient's side of a midpoint.  m b and a
 * compare exactly in double (m: 25 significant bits, b: 24). */
float div_rn_pos(float a, float b)
{
    precise double qd = double(a) / double(b);
    float q = float(qd);
    if (q > 0.0) {
        const float qu = next_up(q), qdn = uintBitsToFloat(floatBitsToUint(q) - 1u);
        precise double hi = (double(q) + double(qu)) * 0.5 * double(b);
        precise double lo = (double(qdn) + double(q)) * 0.5 * double(b);
        if (double(a) > hi)
            q = qu;
        else if (double(a) < lo)
            q = qdn;
    }
    return q;
}

/* a / b, b > 0: rounding to nearest is symmetric about 0 */
float div_rn(float a, float b)
{
    return a < 0.0 ? -div_rn_pos(-a, b) : div_rn_pos(a, b);
}

/* sqrt(x) rounded to the nearest float, x >= 0, likewise (m m: 50 bits). */
float sqrt_rn(float x)
{
    float s = float(sqrt(double(x)));
    if (s > 0.0) {
        const float su = next_up(s), sd = uintBitsToFloat(floatBitsToUint(s) - 1u);
        precise double mh = (double(s) + double(su)) * 0.5;
        precise double ml = (double(sd) + double(s)) * 0.5;
        if (double(x) > mh * mh)
            s = su;
        else if (double(x) < ml * ml)
            s = sd;
    }
    return s;
}

/* ---- MODE 0, 1: the planes ------------------------------------------------ */

float sample_of(ivec2 p)
{
    precise float v = float(texel(from_ref != 0, p) >> uint(shift)) * inv;
    return v;
}

void store(uint i, float v)
{
    if (from_ref != 0)
        pr[i] = v;
    else
        pm[i] = v;
}

float load_plane(uint i)
{
    return from_ref != 0 ? pr[i] : pm[i];
}

void load_main()
{
    const uint n = uint(out_size.x) * uint(out_size.y);
    const int lo = f / 2;

    for (uint o = gl_GlobalInvocationID.x; o < n; o += gl_NumWorkGroups.x * NT) {
        const ivec2 q = ivec2(int(o % uint(out_size.x)), int(o / uint(out_size.x)));
        float v;
        if (f == 1) {
            v = sample_of(q);
        } else {
            double s = 0.0;
            for (int dv = 0; dv < f; dv++) {
                const int y = mirror(q.y * f + dv - lo, size.y);
                for (int du = 0; du < f; du++)
                    s = tap(s, sample_of(ivec2(mirror(q.x * f + du - lo, size.x), y)), k);
            }
            v = float(s);
        }
        store(out_off + o, v);
    }
}

void lpf_main()
{
    const uint n = uint(out_size.x) * uint(out_size.y);

    for (uint o = gl_GlobalInvocationID.x; o < n; o += gl_NumWorkGroups.x * NT) {
        const ivec2 q = ivec2(int(o % uint(out_size.x)), int(o / uint(out_size.x)));
        double s = 0.0;
        for (int v = 0; v < FSSIM_VMAF_LPF_TAPS; v++) {
            const uint row = in_off + uint(mirror(2 * q.y + v - 4, size.y)) * uint(size.x);
            for (int u = 0; u < FSSIM_VMAF_LPF_TAPS; u++)
                s = tap(s, load_plane(row + uint(mirror(2 * q.x + u - 4, size.x))), lpf_tap(v, u));
        }
        store(out_off + o, float(s));
    }
}

/* ---- MODE 2: the scores --------------------------------------------------- */

#define RW (TW + 2 * RV)
#define RH (TH + 2 * RV)

shared float sa[RW * RH], sb[RW * RH];
shared float hm[5 * RH * TW];
shared double red[4 * NT];

/* l, c and s of one position from its five moments, in libvmaf's types */
void terms(float mu_a, float mu_b, float m_aa, float m_bb, float m_ab, out double t[3])
{
    precise float pa = mu_a * mu_a, pb = mu_b * mu_b, pab = mu_a * mu_b;
    precise float var_a = m_aa - pa, var_b = m_bb - pb, cov = m_ab - pab;
    var_a = 0.0 > var_a ? 0.0 : var_a;
    var_b = 0.0 > var_b ? 0.0 : var_b;
    precise float prod = var_a * var_b;
    const float sab = sqrt_rn(prod);
    const float cov_c = cov < 0.0 && sab <= 0.0 ? 0.0 : cov;
    precise float den_l = (pa + pb) + C1, den_c = (var_a + var_b) + C2;
    precise float num_s = cov_c + C3, den_s = sab + C3;
    precise double num_l = 2.0 * double(mu_a) * double(mu_b) + double(C1);
    precise double num_c = 2.0 * double(sab) + double(C2);
    precise double l = num_l / double(den_l), c = num_c / double(den_c);
    t[0] = l;
    t[1] = c;
    t[2] = double(div_rn(num_s, den_s));
}

/* The four sums of the workgroup in a fixed order (a tree over the
 * invocation index); invocation 0 gets them. */
void reduce4(inout double s[4], uint tid)
{
    for (int k = 0; k < 4; k++)
        red[k * NT + tid] = s[k];
    barrier();
    for (uint st = NT / 2; st > 0; st >>= 1) {
        if (tid < st)
            for (int k = 0; k < 4; k++) {
                precise double v = red[k * NT + tid] + red[k * NT + tid + st];
                red[k * NT + tid] = v;
            }
        barrier();
    }
    for (int k = 0; k < 4; k++)
        s[k] = red[k * NT];
}

void score_main()
{
    const uint tid = gl_LocalInvocationIndex;
    const ivec2 org = ivec2(gl_WorkGroupID.xy) * ivec2(TW, TH);
    const ivec2 valid = size - (WV - 1);
    double s[4] = double[4](0.0, 0.0, 0.0, 0.0);

    for (uint i = tid; i < RW * RH; i += NT) {
        const ivec2 p = org + ivec2(int(i % RW), int(i / RW));
        const bool in_plane = all(lessThan(p, size));
        const uint at = uint(p.y) * uint(size.x) + uint(p.x);
        sa[i] = in_plane ? pm[in_off + at] : 0.0;
        sb[i] = in_plane ? pr[in_ref_off + at] : 0.0;
    }
    barrier();
    for (uint i = tid; i < RH * TW; i += NT) {
        const uint r = i / TW, c = i % TW;
        double h[5] = double[5](0.0, 0.0, 0.0, 0.0, 0.0);
        for (int u = 0; u < WV; u++) {
            const float va = sa[r * RW + c + u], vb = sb[r * RW + c + u], g = gauss_tap(u);
            precise float aa = va * va, bb = vb * vb, ab = va * vb;
            h[0] = tap(h[0], va, g);
            h[1] = tap(h[1], vb, g);
            h[2] = tap(h[2], aa, g);
            h[3] = tap(h[3], bb, g);
            h[4] = tap(h[4], ab, g);
        }
        for (int m = 0; m < 5; m++)
            hm[m * RH * TW + i] = float(h[m]);
    }
    barrier();
    {
        const ivec2 lp = ivec2(int(tid % TW), int(tid / TW));
        if (all(lessThan(org + lp, valid))) {
            float m[5];
            double t[3];
            for (int k = 0; k < 5; k++) {
                double v = 0.0;
                for (int dv = 0; dv < WV; dv++)
                    v = tap(v, hm[k * RH * TW + (lp.y + dv) * TW + lp.x], gauss_tap(dv));
                m[k] = float(v);
            }
            terms(m[0], m[1], m[2], m[3], m[4], t);
            precise double lcs = (t[0] * t[1]) * t[2];
            s[0] = lcs;
            s[1] = t[0];
            s[2] = t[1];
            s[3] = t[2];
        }
    }
    reduce4(s, tid);
    if (tid == 0) {
        const uint rec = part_off + gl_WorkGroupID.y * uint(tiles_x) + gl_WorkGroupID.x;
        for (int k = 0; k < 4; k++)
            part[4 * rec + k] = s[k];
    }
}

/* ---- MODE 3: the plane's sums --------------------------------------------- */

void reduce_main()
{
    const uint tid = gl_LocalInvocationIndex, j = gl_WorkGroupID.x;
    double s[4] = double[4](0.0, 0.0, 0.0, 0.0);

    for (uint i = tid; i < seg_n[j]; i += NT)
        for (int k = 0; k < 4; k++) {
            precise double v = s[k] + part[4 * (seg_off[j] + i) + k];
            s[k] = v;
        }
    reduce4(s, tid);
    if (tid == 0)
        for (int k = 0; k < 4; k++) {
            const uvec2 w = unpackDouble2x32(s[k]);
            res[res_off + 8 * j + 2 * k]     = w.x;
            res[res_off + 8 * j + 2 * k + 1] = w.y;
        }
}

void main()
{
    if (MODE == 0)
        load_main();
    else if (MODE == 1)
        lpf_main();
    else if (MODE == 2)
        score_main();
    else
        reduce_main();
}
