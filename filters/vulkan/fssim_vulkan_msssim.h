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
 * fssim: algo=msssim on Vulkan frames (fssim_vulkan_msssim.c), which
 * fssim_be_vulkan.c records after the fused shaders of each job, into the
 * same result words.
 */
#ifndef AVFILTER_FSSIM_VULKAN_MSSSIM_H
#define AVFILTER_FSSIM_VULKAN_MSSSIM_H

#include "fssim_vulkan_common.h"

typedef struct FSSIMVkMsssim FSSIMVkMsssim;

/** Shared memory of a scale's workgroup; subgroup_size 0: reductions in
 *  shared memory. */
int  ff_fssim_vk_msssim_shared_bytes(const FSSIMEngine *e, uint32_t subgroup_size);

/** The result words it writes per lane, from the first one it is given. */
int  ff_fssim_vk_msssim_words(const FSSIMEngine *e);

/**
 * The scales' dispatches, nb_regions copies of the scales and partial
 * sums, the shaders (and where renditions are resampled the variant that
 * reads scale 0 of main from the resampled planes).  Its results go to
 * each lane's result words from res_word on.  *ms is freed by
 * ff_fssim_vk_msssim_uninit() whatever this returns.
 */
int  ff_fssim_vk_msssim_init(FSSIMEngine *e, FSSIMVk *vk, uint32_t subgroup_size,
                             uint32_t res_word, size_t nb_regions, FSSIMVkMsssim **ms);

/** Record the five scales of the renditions in set (bit k: lane[k]) and
 *  their reductions. */
void ff_fssim_vk_msssim_record(const FSSIMEngine *e, FSSIMVk *vk, FSSIMVkMsssim *ms,
                               FFVkExecContext *exec, const FSSIMVkLane *lane,
                               unsigned set);

/** Each component's S and CS sums of each scale from a lane's result words. */
void ff_fssim_vk_msssim_read(const FSSIMEngine *e, const FSSIMVkMsssim *ms,
                             const uint32_t *res, FSSIMSum (*v)[FSSIM_NB_PARTS]);

/** Free the shaders and buffers (after the device's execution pool). */
void ff_fssim_vk_msssim_uninit(FSSIMVk *vk, FSSIMVkMsssim **ms);

#endif /* AVFILTER_FSSIM_VULKAN_MSSSIM_H */
