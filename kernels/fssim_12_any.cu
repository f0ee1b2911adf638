/*
 * fssim CUDA kernels for 9- to 12-bit samples, any window (see fssim_plane.cuh).
 *
 * This file is part of fssim, built into FFmpeg's libavfilter.
 */
#include "fssim_plane.cuh"

FSSIM_MODULE(unsigned short, unsigned, int, FSSIM_KIND_12, FSSIM_BLOCKS_PER_SM, 0)
