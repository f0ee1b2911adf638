/*
 * fssim CUDA kernels for 8-bit samples, any window (see fssim_plane.cuh).
 *
 * This file is part of fssim, built into FFmpeg's libavfilter.
 */
#include "fssim_plane.cuh"

FSSIM_MODULE(unsigned char, float, int, FSSIM_KIND_8, FSSIM_BLOCKS_PER_SM, 0)
