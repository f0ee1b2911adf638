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
 * fssim: the resampling of renditions of another size or format on Vulkan
 * frames (fssim_vulkan_resample.c), which fssim_be_vulkan.c records before
 * the scoring of each job, and fssim_be_vulkan3d.c before a pair's
 * moments.
 */
#ifndef AVFILTER_FSSIM_VULKAN_RESAMPLE_H
#define AVFILTER_FSSIM_VULKAN_RESAMPLE_H

#include "fssim_vulkan_common.h"

typedef struct FSSIMVkResampler FSSIMVkResampler;

/**
 * The coefficient tables (the engine's, e->axis) and bands of every
 * resampled rendition, room for nb_regions copies of the resampled planes,
 * the resampler's shader.  *rs is freed by ff_fssim_vk_resample_uninit()
 * whatever this returns.
 */
int  ff_fssim_vk_resample_init(FSSIMEngine *e, FSSIMVk *vk, size_t nb_regions,
                               FSSIMVkResampler **rs);

/** Where a lane's resampled planes are: region region of the output. */
FSSIMVkRange ff_fssim_vk_resample_out(FSSIMVkResampler *rs, size_t region);

/** Where the scoring shaders read component c of the resampled planes:
 *  *off samples into the lane's range, rows of *pitch samples. */
void ff_fssim_vk_resample_plane(const FSSIMEngine *e, int c, uint32_t *off, uint32_t *pitch);

/** Record the resampling of the renditions in set (bit k: lane[k]) that
 *  need it, each into its lane's rsb, and a barrier before their scoring. */
void ff_fssim_vk_resample_record(const FSSIMEngine *e, FSSIMVk *vk, FSSIMVkResampler *rs,
                                 FFVkExecContext *exec, const FSSIMVkLane *lane,
                                 unsigned set);

/** Free the shader and buffers (after the device's execution pool). */
void ff_fssim_vk_resample_uninit(FSSIMVk *vk, FSSIMVkResampler **rs);

#endif /* AVFILTER_FSSIM_VULKAN_RESAMPLE_H */
