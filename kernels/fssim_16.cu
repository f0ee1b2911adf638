/*
 * fssim CUDA kernels for 13- to 16-bit samples, the default window (11) (see fssim_plane.cuh).
 *
 * This file is part of fssim, built into FFmpeg's libavfilter.
 */
#include "fssim_plane.cuh"

FSSIM_MODULE(unsigned short, double, long long, FSSIM_KIND_16, 2, FSSIM_DEFAULT_RADIUS)
