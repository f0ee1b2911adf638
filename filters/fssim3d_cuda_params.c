/*
 * fssim3d CUDA: the host side of the spatial pass's parameters, shared by
 * the filter and the kernel emulation test (no FFmpeg dependency).
 *
 * This file is part of fssim, built into FFmpeg's libavfilter.
 */
#include <string.h>

#include "fssim3d_cuda.h"
#include "fssim_ref.h"

void fssim3d_cuda_fill_moment_params(FSSIM3DCudaMomentParams *p, int width, int height,
                                     int bytes, int step, int shift, int window,
                                     double sigma, int same_padding)
{
    const FSSIMRefFloatParams fp = { window, sigma, same_padding ? FSSIM_REF_PAD_SAME
                                                                 : FSSIM_REF_PAD_VALID };

    memset(p, 0, sizeof(*p));
    p->width  = width;
    p->height = height;
    p->bytes  = bytes;
    p->step   = step;
    p->shift  = shift;
    p->radius = window / 2;
    p->offset = same_padding ? 0 : window / 2;
    fssim_ref_float_out_size(width, height, &fp, &p->out_w, &p->out_h);
    /* the CPU reference's weights, in double */
    fssim_ref_gauss_weights(window, sigma, p->g);
}
