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
 * fssim3d on Vulkan frames (filters/fssim3d_vulkan.c): what its spatial pass
 * (fssim3d_moments.comp.glsl) and its temporal pass (fssim3d_score.comp.glsl)
 * share -- the tile shape, the ring's record format and the references
 * through which both reach the ring.
 *
 * The ring lives in one buffer per slot, reached by device address: a ring
 * slot of a 2160p frame is larger than many devices let one descriptor
 * cover (lavapipe: 128 MiB), and the temporal pass reads up to 63 slots.
 *
 * A record holds, per scored position, the four values the temporal pass
 * needs: mu_a, mu_b, var_a + var_b and cov, the variances centred (E[a^2] -
 * mu_a^2 formed in double before storage, so that the stored value keeps
 * its relative precision however large mu is).  Each value is a double
 * rounded to 48 bits: its sign, exponent and 36 bits of mantissa (relative
 * error <= 2^-37).  The high 32 bits of the four values form one uvec4
 * array, the next 16 bits one uvec2 array: 24 bytes per position, both
 * arrays aligned for whole-vector loads.
 *
 * Why 48 bits (doc/algorithms.md#fssim3d): records of four floats (16 bytes,
 * the CUDA backend's) put frames 4e-11 to 1.4e-9 away from the software
 * backend on lavapipe, over the 1e-9 asked for; single positions are off
 * by up to 3e-7 (moving edges: the temporal variance of the means
 * amplifies their rounding), and only averaging over many positions brings
 * a frame below that.  With 36 mantissa bits a position is off by at most
 * ~3e-11, so even a frame of a few positions stays within 1e-9 (measured:
 * frames ~1e-13 away); doubles (32 bytes) would give ~1e-15.
 */

#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

/* Tiles and radii: fssim_consts.h, shared with the host (fssim_be_vulkan3d.c). */
#include "../core/fssim_consts.h"

#define TW   FSSIM_VK_TILE_W  /* spatial pass: scored positions per tile, across */
#define TH   FSSIM_VK_TILE_H  /* and down; one invocation each */
#define NT   (TW * TH)        /* invocations per workgroup, both passes */
#define RMAX FSSIM_MAX_RADIUS /* largest spatial radius */

layout (buffer_reference, std430, buffer_reference_align = 16) buffer RecHi {
    uvec4 hi[];
};
layout (buffer_reference, std430, buffer_reference_align = 8) buffer RecLo {
    uvec2 lo[];
};

/* a + b for a 64-bit device address held as (low, high) words */
uvec2 addr_add(uvec2 a, uint b)
{
    uint carry;
    const uint lo = uaddCarry(a.x, b, carry);
    return uvec2(lo, a.y + carry);
}

/* v rounded to its upper 48 bits, to nearest (ties away from zero): a
 * carry out of the low word runs into the exponent, as rounding up to the
 * next binade must. */
void record_encode(dvec4 v, out uvec4 hi, out uvec2 lo)
{
    uint mid[4];
    for (int i = 0; i < 4; i++) {
        const uvec2 w = unpackDouble2x32(v[i]);
        uint carry;
        const uint l = uaddCarry(w.x, 0x8000u, carry);
        hi[i]  = w.y + carry;
        mid[i] = l >> 16;
    }
    lo = uvec2(mid[0] | (mid[1] << 16), mid[2] | (mid[3] << 16));
}

/* the stored values, exactly, as doubles */
dvec4 record_decode(uvec4 hi, uvec2 lo)
{
    return dvec4(packDouble2x32(uvec2(lo.x << 16,          hi.x)),
                 packDouble2x32(uvec2(lo.x & 0xFFFF0000u,  hi.y)),
                 packDouble2x32(uvec2(lo.y << 16,          hi.z)),
                 packDouble2x32(uvec2(lo.y & 0xFFFF0000u,  hi.w)));
}
