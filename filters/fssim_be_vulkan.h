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
 * fssim: what the Vulkan backend's two files share -- the 2-D scoring and
 * ladders (fssim_be_vulkan.c) and fssim3d's ring of moments
 * (fssim_be_vulkan3d.c), each with its own device objects.
 */
#ifndef AVFILTER_FSSIM_BE_VULKAN_H
#define AVFILTER_FSSIM_BE_VULKAN_H

#include "libavfilter/vulkan_filter.h"

#include "fssim_engine.h"

/* The scoring shaders' workgroup tile, from fssim_consts.h as in the GLSL. */
#define TILE_W      FSSIM_VK_TILE_W
#define TILE_H      FSSIM_VK_TILE_H
#define WG_SIZE     (TILE_W * TILE_H)

/* Buffer offsets: >= minStorageBufferOffsetAlignment on any device. */
#define FSSIM_VK_BUF_ALIGN 256

size_t ff_fssim_vk_align(size_t size);

/** A descriptor set of sampled images and storage buffers, whatever the
 *  FFmpeg version (8.1's helper also prints GLSL and returns an error). */
int  ff_fssim_vk_add_descriptor_set(FFVulkanContext *vkctx, FFVulkanShader *shd,
                                    const FFVulkanDescriptorSetBinding *desc, int nb);

/** A barrier after compute shader writes, with image barriers if any. */
void ff_fssim_vk_barrier(FFVulkanFunctions *vk, FFVkExecContext *exec,
                         VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access,
                         const VkImageMemoryBarrier2 *img_bar, int nb_img_bar);

/** Link a shader from its SPIR-V and register it with the pool.  The
 *  specialization list lives on the caller's stack: it is dropped either
 *  way, so that nothing reads it later. */
int  ff_fssim_vk_link(FFVulkanContext *vkctx, FFVkExecPool *pool, FFVulkanShader *shd,
                      const unsigned char *spv, unsigned int len);

/* GPU time from timestamp queries, for the statistics at -v verbose only:
 * without them (no pool, no timestamp bits) the filters run the same. */
typedef struct FSSIMVkTimer {
    VkQueryPool pool;                /* VK_NULL_HANDLE: not measured */
    PFN_vkCmdWriteTimestamp write;
    int      per_exec;               /* timestamps per execution context */
    uint64_t mask;                   /* the timestamps' valid bits */
    double   period;                 /* nanoseconds per tick */
} FSSIMVkTimer;

void ff_fssim_vk_timer_init(AVFilterContext *ctx, FFVulkanContext *vkctx, int qf,
                            int nb_exec, int per_exec, FSSIMVkTimer *t);
/** Timestamp i of exec's (0 resets them first) once stage is reached. */
void ff_fssim_vk_timer_write(FFVulkanContext *vkctx, const FSSIMVkTimer *t,
                             FFVkExecContext *exec, int i, VkPipelineStageFlagBits stage);
/** Microseconds from timestamp 0 of exec's to each later one into us[]
 *  (per_exec - 1 values); 0 if there are none. */
int  ff_fssim_vk_timer_read(FFVulkanContext *vkctx, const FSSIMVkTimer *t,
                            FFVkExecContext *exec, double *us);
void ff_fssim_vk_timer_uninit(FFVulkanContext *vkctx, FSSIMVkTimer *t);

/* fssim3d: the ring of moments and the temporal pass (fssim_be_vulkan3d.c),
 * the backend's operations when the engine has a depth. */
typedef struct VK3DBackend VK3DBackend;

int  ff_fssim_vk3d_init(FSSIMEngine *e, VK3DBackend **b, size_t *ring_bytes);
int  ff_fssim_vk3d_moments(FSSIMEngine *e, VK3DBackend *b, int ring_slot,
                           const AVFrame *ref, const AVFrame *dist);
int  ff_fssim_vk3d_submit(FSSIMEngine *e, VK3DBackend *b, int slot, const FSSIM3DWindow *win);
int  ff_fssim_vk3d_collect(FSSIMEngine *e, VK3DBackend *b, int slot, int wait,
                           FSSIMSums *sums);
void ff_fssim_vk3d_uninit(FSSIMEngine *e, VK3DBackend **b);

#endif /* AVFILTER_FSSIM_BE_VULKAN_H */
