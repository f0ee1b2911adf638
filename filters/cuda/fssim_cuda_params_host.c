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
 * fssim CUDA: the host side of the kernels' parameter blocks, fssim_cuda's
 * (fssim_cuda_params.h) and fssim3d's (fssim3d_cuda_params.h), shared by
 * the filters and the kernel emulation tests (no FFmpeg dependency).
 */
#include <string.h>

#include "../core/fssim_ref.h"
#include "fssim3d_cuda_params.h"
#include "fssim_cuda_params.h"

void ff_fssim_cuda_fill_params(FSSIMCudaParams *p, int depth, int width, int height,
                               int bytes, int step, int shift, int algos,
                               int window, double sigma, int same_padding)
{
    const int max = (1 << depth) - 1;
    const double L = (double)max;
    double g[FSSIM_MAX_WINDOW];

    /* fssim3d's moments block has its own copy of these fields (fssim3d_cuda_params.h) */
    memset(p, 0, sizeof(*p));
    p->width  = width;
    p->height = height;
    p->step   = step;
    p->shift  = shift;
    p->algos  = algos;
    p->radius = window / 2;
    p->same_padding = same_padding;

    /* the CPU reference's constants, computed the same way */
    p->c1base = FSSIM_INT_C1BASE(L);
    p->c2base = FSSIM_INT_C2BASE(L);
    p->float_c1 = (float)FSSIM_FLOAT_C1(L);
    p->float_c2 = (float)FSSIM_FLOAT_C2(L);
    p->block_c1 = (long long)FSSIM_BLOCK_C1(max);
    p->block_c2 = (long long)FSSIM_BLOCK_C2(max);
    ff_fssim_ref_block_windows(width, height, &p->block_nx, &p->block_ny);

    ff_fssim_ref_gauss_weights(window, sigma, g);
    for (int i = 0; i < window; i++)
        p->g[i] = (float)g[i];
}

/* The weights are separable: w(x, y) = wx(x) * wy(y), each the sum of the
 * taps that fall inside the plane. */
static unsigned long long weight_sum_1d(int size)
{
    unsigned long long sum = 0;
    for (int x = 0; x < size; x++)
        for (int j = -FSSIM_INT_RADIUS; j <= FSSIM_INT_RADIUS; j++)
            if (x + j >= 0 && x + j < size)
                sum += ff_fssim_ref_int_taps[j + FSSIM_INT_RADIUS];
    return sum;
}

unsigned long long ff_fssim_cuda_int_weight_sum(int width, int height)
{
    return weight_sum_1d(width) * weight_sum_1d(height);
}

/* ---- fssim3d ------------------------------------------------------------ */

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
