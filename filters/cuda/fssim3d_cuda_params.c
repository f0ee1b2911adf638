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
 * fssim3d CUDA: the host side of the spatial pass's parameters, shared by
 * the filter and the kernel emulation test (no FFmpeg dependency).
 */
#include <string.h>

#include "fssim3d_cuda_params.h"
#include "../core/fssim_ref.h"

void ff_fssim3d_cuda_fill_moment_params(FSSIM3DCudaMomentParams *p, int width, int height,
                                        int bytes, int step, int shift, int window,
                                        double sigma, int same_padding)
{
    const FSSIMRefFloatParams fp = { window, sigma, same_padding ? FSSIM_REF_PAD_SAME
                                                                 : FSSIM_REF_PAD_VALID };

    /* as ff_fssim_cuda_fill_params's, into the 3-D kernels' own parameter block */
    memset(p, 0, sizeof(*p));
    p->width  = width;
    p->height = height;
    p->bytes  = p->main_bytes = bytes;
    p->step   = p->main_step  = step;
    p->shift  = p->main_shift = shift;
    p->radius = window / 2;
    p->offset = same_padding ? 0 : window / 2;
    ff_fssim_ref_float_out_size(width, height, &fp, &p->out_w, &p->out_h);
    /* the CPU reference's weights, in double */
    ff_fssim_ref_gauss_weights(window, sigma, p->g);
}
