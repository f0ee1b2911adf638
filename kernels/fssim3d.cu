/*
 * fssim3d CUDA kernels for the default window (11), every bit depth (see
 * fssim3d.cuh).
 *
 * This file is part of fssim, built into FFmpeg's libavfilter.
 */
#include "fssim3d.cuh"

FSSIM3D_MODULE(FSSIM_DEFAULT_RADIUS)
