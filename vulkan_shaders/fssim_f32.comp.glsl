/*
 * fssim: fused SSIM compute shader, float algorithm only: no 64-bit
 * types, for devices without shaderFloat64/shaderInt64.
 *
 * This file is part of fssim, built into FFmpeg's libavfilter.
 */
#pragma shader_stage(compute)
#extension GL_GOOGLE_include_directive : require

#define FSSIM_FP64 0
#include "fssim_core.glsl"
