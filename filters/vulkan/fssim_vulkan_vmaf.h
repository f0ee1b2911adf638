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
 * fssim: algo=vmaf_ssim and vmaf_msssim on Vulkan frames
 * (fssim_vulkan_vmaf.c, fssim_vmaf.comp.glsl), which
 * fssim_be_vulkan.c records after its other shaders of each job, into the
 * same result words.
 */
#ifndef AVFILTER_FSSIM_VULKAN_VMAF_H
#define AVFILTER_FSSIM_VULKAN_VMAF_H

#include "fssim_vulkan_common.h"

typedef struct FSSIMVkVmaf FSSIMVkVmaf;

/** Whether the engine asks for vmaf_ssim or vmaf_msssim. */
int  ff_fssim_vk_vmaf_wanted(const FSSIMEngine *e);

/** The device can run them (shaderFloat64, the workgroup's shared
 *  memory); else an error naming the device and what is missing. */
int  ff_fssim_vk_vmaf_check(FSSIMEngine *e, FSSIMVk *vk);

/** The result words it writes per lane, from the first one it is given. */
int  ff_fssim_vk_vmaf_words(const FSSIMEngine *e);

/**
 * The dispatches, the float planes (one set per lane for the rendition, one
 * per execution context for the reference: nb_regions / lanes of them),
 * the partial sums, the shaders (and where renditions are resampled the
 * variant that reads them from the resampled planes).  Results go to each
 * lane's result words from res_word on.  *vm is freed by
 * ff_fssim_vk_vmaf_uninit() whatever this returns.
 */
int  ff_fssim_vk_vmaf_init(FSSIMEngine *e, FSSIMVk *vk, uint32_t res_word, size_t nb_regions,
                           int lanes, FSSIMVkVmaf **vm);

/** Record the reference's planes once, then the planes, scores and sums of
 *  the renditions in set (bit k: lane[k]). */
void ff_fssim_vk_vmaf_record(const FSSIMEngine *e, FSSIMVk *vk, FSSIMVkVmaf *vm,
                             FFVkExecContext *exec, const FSSIMVkLane *lane, unsigned set);

/** Each component's vmaf parts from a lane's result words. */
void ff_fssim_vk_vmaf_read(const FSSIMEngine *e, const FSSIMVkVmaf *vm, const uint32_t *res,
                           FSSIMSum (*v)[FSSIM_NB_PARTS]);

/** Free the shaders and buffers (after the device's execution pool). */
void ff_fssim_vk_vmaf_uninit(FSSIMVk *vk, FSSIMVkVmaf **vm);

#endif /* AVFILTER_FSSIM_VULKAN_VMAF_H */
