/*
 * fssim3d CUDA kernels for any window (3 to 15), every bit depth (see
 * fssim3d.cuh).  The default window has its own, smaller and faster module.
 *
 * This file is part of fssim, built into FFmpeg's libavfilter.
 */
#include "fssim3d.cuh"

FSSIM3D_MODULE(0)
