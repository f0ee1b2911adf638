/*
 * fssim: fused SSIM compute shader, with the int and block algorithms
 * (needs shaderFloat64 and shaderInt64).
 *
 * This file is part of fssim, built into FFmpeg's libavfilter.
 */
#pragma shader_stage(compute)
#extension GL_GOOGLE_include_directive : require

#define FSSIM_FP64 1
#include "fssim_core.glsl"
