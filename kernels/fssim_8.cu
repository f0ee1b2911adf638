/*
 * fssim CUDA kernels for 8-bit samples, the default window (11) (see fssim_plane.cuh).
 *
 * This file is part of fssim, built into FFmpeg's libavfilter.
 */
#include "fssim_plane.cuh"

FSSIM_MODULE(unsigned char, float, int, FSSIM_KIND_8, FSSIM_BLOCKS_PER_SM, FSSIM_DEFAULT_RADIUS)
