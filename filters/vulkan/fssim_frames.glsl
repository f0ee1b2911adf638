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
 * fssim: the planes of a frame pair as the scoring shaders read them
 * (fssim_core.glsl, fssim_msssim.comp.glsl, fssim3d_moments.comp.glsl),
 * through integer views so that samples are exact.  One binding per plane
 * rather than an array: lavapipe 22.3 mishandles arrays of (push)
 * descriptors.  The host binds every one, unused ones to a valid plane.
 *
 * Declared by the includer first: the tile's size TW x TH, the push
 * constants size (the plane's), plane (the image holding the component)
 * and chan (its channel); with FSSIM_FRAMES_MAIN_BUF, also the
 * specialization constant MAIN_BUF, the buffer rsb[] and the push
 * constants buf_off and buf_pitch, where the main samples of a ladder's
 * resampled rendition are read instead.
 */
layout (set = 0, binding = 0) uniform utexture2D main0;
layout (set = 0, binding = 1) uniform utexture2D main1;
layout (set = 0, binding = 2) uniform utexture2D main2;
layout (set = 0, binding = 3) uniform utexture2D main3;
layout (set = 0, binding = 4) uniform utexture2D ref0;
layout (set = 0, binding = 5) uniform utexture2D ref1;
layout (set = 0, binding = 6) uniform utexture2D ref2;
layout (set = 0, binding = 7) uniform utexture2D ref3;

/* The sample at p of one frame's component, as its container holds it
 * (not yet shifted), from image pl. */
uint texel_of(bool ref, ivec2 p, int pl)
{
    uvec4 v;
#ifdef FSSIM_FRAMES_MAIN_BUF
    if (MAIN_BUF && !ref)
        return rsb[buf_off + uint(p.y) * buf_pitch + uint(p.x)];
#endif
    switch (pl) {
    case 0:  v = ref ? texelFetch(ref0, p, 0) : texelFetch(main0, p, 0); break;
    case 1:  v = ref ? texelFetch(ref1, p, 0) : texelFetch(main1, p, 0); break;
    case 2:  v = ref ? texelFetch(ref2, p, 0) : texelFetch(main2, p, 0); break;
    default: v = ref ? texelFetch(ref3, p, 0) : texelFetch(main3, p, 0); break;
    }
    /* no dynamic vector index: that too can go through local memory */
    return chan == 0 ? v.x : v.y;
}

/* The same from the image of the push constant plane. */
uint texel(bool ref, ivec2 p)
{
    return texel_of(ref, p, plane);
}

/* The tile at org and r samples around it lie inside the plane. */
bool tile_inside(ivec2 org, int r)
{
    return all(greaterThanEqual(org, ivec2(r))) &&
           all(lessThanEqual(org + ivec2(TW + r, TH + r), size));
}

/*
 * A tile loader's call load(org, tid, inside, pl) in one of eight copies:
 * one per image pl, a constant of the copy rather than a choice of binding
 * per sample, each with and without the bounds checks that only the tiles
 * near the plane's edges need (inside: the region lies inside the plane).
 * Both choices made per sample had cost more than the loads themselves
 * (doc/performance.md#vulkan-the-fused-shader).
 */
#define FSSIM_LOAD_COPIES(load, org, tid, inside)                                       \
    switch (plane) {                                                                  \
    case 0:  if (inside) load(org, tid, true, 0); else load(org, tid, false, 0); break; \
    case 1:  if (inside) load(org, tid, true, 1); else load(org, tid, false, 1); break; \
    case 2:  if (inside) load(org, tid, true, 2); else load(org, tid, false, 2); break; \
    default: if (inside) load(org, tid, true, 3); else load(org, tid, false, 3); break; \
    }

/* The scores' fixed-order float sums (fssim_core.glsl, fssim_msssim.comp.glsl)
 * carry their rounding error: (hi, lo) + (hi2, lo2), with the exact rounding
 * error of hi + hi2 kept. */
vec2 two_sum(vec2 a, vec2 b)
{
    precise float s   = a.x + b.x;
    precise float bp  = s - a.x;
    precise float err = (a.x - (s - bp)) + (b.x - bp);
    precise float lo  = (a.y + b.y) + err;
    return vec2(s, lo);
}
