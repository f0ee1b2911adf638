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
 * fssim: the Vulkan plumbing of the Vulkan backend -- the device and its
 * compute queue, input checks, shaders and their descriptors, barriers,
 * fences and failed submissions, GPU timers, readback -- shared by the 2-D
 * scoring (fssim_be_vulkan.c with fssim_vulkan_resample.c and
 * fssim_vulkan_msssim.c) and fssim3d's ring (fssim_be_vulkan3d.c), each of
 * which has its own device objects.
 */
#ifndef AVFILTER_FSSIM_VULKAN_COMMON_H
#define AVFILTER_FSSIM_VULKAN_COMMON_H

#include "libavutil/intfloat.h"
#include "libavfilter/vulkan_filter.h"

#include "../engine/fssim_backend.h"

/* The scoring shaders' workgroup tile, from fssim_consts.h as in the GLSL. */
#define TILE_W      FSSIM_VK_TILE_W
#define TILE_H      FSSIM_VK_TILE_H
#define WG_SIZE     (TILE_W * TILE_H)

/* A frame's bindings in every shader that reads frames: one per plane,
 * whatever the format (unused ones repeat the last plane). */
#define FSSIM_VK_MAX_PLANES 4

/* Buffer offsets: >= minStorageBufferOffsetAlignment on any device. */
#define FSSIM_VK_BUF_ALIGN 256

size_t ff_fssim_vk_align(size_t size);

/* ---- the device --------------------------------------------------------- */

/* GPU time from timestamp queries, for the statistics at -v verbose only:
 * without them (no pool, no timestamp bits) the filters run the same. */
typedef struct FSSIMVkTimer {
    VkQueryPool pool;                /* VK_NULL_HANDLE: not measured */
    PFN_vkCmdWriteTimestamp write;
    int      per_exec;               /* timestamps per execution context */
    uint64_t mask;                   /* the timestamps' valid bits */
    double   period;                 /* nanoseconds per tick */
} FSSIMVkTimer;

/* What each of the backend's parts holds of the device. */
typedef struct FSSIMVk {
    AVFilterContext *ctx;
    FFVulkanContext vkctx;
    int initialized;                 /* ff_vk_init() done: ff_vk_uninit() owed */
    AVVulkanDeviceQueueFamily qf;    /* the compute family, perhaps fewer queues */
    FFVkExecPool pool;
    FSSIMVkTimer timer;
    /* The renditions of a job share a command buffer, so every shader must
     * push its descriptors: with a set per execution context, the
     * renditions' dispatches would all read the last rendition's frames. */
    int push_only;
    /* A submission or a fence failed: the device is not trusted for the
     * rest of the run, and nothing is read back from it any more. */
    int failed;
    /* A wait for the device timed out: it may still be running (or never
     * finish) what it holds, so nothing of it is freed any more. */
    int hung;
} FSSIMVk;

/** Check every input (doc/errors.md): Vulkan frames, all on one device;
 *  sw_format[i]: input i's software format. */
int  ff_fssim_vk_check_inputs(FSSIMEngine *e, enum AVPixelFormat *sw_format);

/** The device of input 0's frames. */
int  ff_fssim_vk_open(AVFilterContext *ctx, FSSIMVk *vk);
/** The device runs a workgroup of WG_SIZE invocations with shared bytes
 *  of shared memory; else an error naming the device, what and why. */
int  ff_fssim_vk_check_workgroup(AVFilterContext *ctx, FSSIMVk *vk, uint32_t shared,
                                 const char *what, const char *why);
/** nb_exec execution contexts on the compute family's first max_queues
 *  queues. */
int  ff_fssim_vk_pool_init(AVFilterContext *ctx, FSSIMVk *vk, int nb_exec, int max_queues);
/** Wait for the queues (see retire_queues()), free the contexts: after it
 *  the shaders and buffers can go. */
void ff_fssim_vk_pool_uninit(FSSIMVk *vk);
/** The timer and the device (after the shaders and buffers). */
void ff_fssim_vk_close(FSSIMVk *vk);

/* ---- shaders ------------------------------------------------------------- */

/** Begin a compute shader of workgroup wx x wy, of subgroups of
 *  subgroup_size where that is not 0.  sl lives on the caller's stack,
 *  until ff_fssim_vk_shader_link(). */
void ff_fssim_vk_shader_load(FFVulkanShader *shd, VkSpecializationInfo *sl,
                             uint32_t wx, uint32_t wy, uint32_t subgroup_size);

/** Its descriptors (nb_img sampled images, then nb_buf storage buffers)
 *  and push constants; link it from its SPIR-V, register it with the
 *  pool.  The specialization list is dropped either way, so that nothing
 *  reads the caller's stack later. */
int  ff_fssim_vk_shader_link(FSSIMVk *vk, FFVulkanShader *shd, int nb_img, int nb_buf,
                             size_t push_size, const unsigned char *spv, unsigned int len);

/** Specialization constants: c1 and c2 of the float SSIM as floats
 *  (doc/algorithms.md#float, as ref_float.c computes them) at id and
 *  id + 1. */
void ff_fssim_vk_spec_float_c(VkSpecializationInfo *sl, int id, int depth);
/** The window's 15 Gaussian weights from id on, as the reference computes
 *  them: as floats, or with fp64 as doubles, bit for bit. */
void ff_fssim_vk_spec_gauss(VkSpecializationInfo *sl, int id, const FSSIMOptions *o, int fp64);

/* ---- jobs ----------------------------------------------------------------- */

/* A range of a buffer, as a descriptor binds it. */
typedef struct FSSIMVkRange {
    FFVkBuffer *buf;
    size_t off, size;
} FSSIMVkRange;

void ff_fssim_vk_bind_range(FFVulkanContext *vkctx, FFVkExecContext *exec,
                            FFVulkanShader *shd, int binding, const FSSIMVkRange *r);

/** A frame's planes at bindings binding .. binding + FSSIM_VK_MAX_PLANES - 1. */
void ff_fssim_vk_bind_planes(FFVulkanContext *vkctx, FFVkExecContext *exec,
                             FFVulkanShader *shd, int binding, const VkImageView *views,
                             int nb_planes);

/** Make exec depend on frame f (kept until its deps are discarded) and
 *  create its image views. */
int  ff_fssim_vk_add_frame(FFVulkanContext *vkctx, FFVkExecContext *exec, const AVFrame *f,
                           VkImageView *views);
/** Append f's barrier to img_bar: its planes readable by compute shaders. */
void ff_fssim_vk_frame_barrier(FFVulkanContext *vkctx, FFVkExecContext *exec,
                               const AVFrame *f, VkImageMemoryBarrier2 *img_bar,
                               int *nb_img_bar);

/** A barrier after compute shader writes, with image barriers if any. */
void ff_fssim_vk_barrier(FFVulkanFunctions *vk, FFVkExecContext *exec,
                         VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access,
                         const VkImageMemoryBarrier2 *img_bar, int nb_img_bar);
/** The next dispatches read what the earlier ones wrote. */
void ff_fssim_vk_barrier_compute(FFVulkanFunctions *vk, FFVkExecContext *exec);

/** per_exec timestamps per execution context, if the queue has them. */
void ff_fssim_vk_timer_init(AVFilterContext *ctx, FSSIMVk *vk, int per_exec);
/** Timestamp i of exec's (0 resets them first) once stage is reached. */
void ff_fssim_vk_timer_write(FSSIMVk *vk, FFVkExecContext *exec, int i,
                             VkPipelineStageFlagBits stage);
/** Microseconds from timestamp 0 of exec's to each later one into us[]
 *  (per_exec - 1 values); 0 if there are none. */
int  ff_fssim_vk_timer_read(FSSIMVk *vk, FFVkExecContext *exec, double *us);
/** exec's first and last timestamps on the device's clock, in microseconds,
 *  into span[0] and span[1]; 0 if there are none. */
int  ff_fssim_vk_timer_span(FSSIMVk *vk, FFVkExecContext *exec, double span[2]);

/** Submit a started command buffer that has nothing recorded, so that its
 *  fence signals again and later waits on it return.  On failure, see
 *  ff_fssim_vk_submit_failed(). */
int  ff_fssim_vk_abandon(FSSIMVk *vk, FFVkExecContext *exec);
/** A command buffer that could not be started or submitted: the device
 *  fails (vk->failed) and exec's fence, reset, is never waited for. */
void ff_fssim_vk_submit_failed(FSSIMVk *vk, FFVkExecContext *exec);

/**
 * The fence of exec's last submission: VK_SUCCESS once it signalled,
 * VK_NOT_READY (only without wait), the error it reports, which
 * ff_vk_exec_wait() would ignore, or VK_TIMEOUT.  A wait never blocks for
 * good: it gives up after FSSIM_VK_WAIT_TIMEOUT_MS, or STOP_WAIT_MS after
 * the run was asked to stop (SIGINT, SIGTERM), and the device is then
 * taken as hung (vk->hung).
 */
VkResult ff_fssim_vk_fence(FSSIMVk *vk, FFVkExecContext *exec, int wait);

/**
 * After ff_fssim_vk_fence() returned res, neither VK_SUCCESS nor
 * VK_NOT_READY, for the job "what n" (e.g. "scores of frame", 12): the
 * device fails for the rest of the run, and the error says what happened
 * and what to do.  Returns the AVERROR.
 */
int  ff_fssim_vk_fence_failed(FSSIMVk *vk, VkResult res, const char *what, int64_t n);

/** Wait (as ff_fssim_vk_fence()) for exec's last submission, if it had
 *  one, before ff_vk_exec_start() reuses exec, whose own wait has no
 *  timeout.  0, or the error of ff_fssim_vk_fence_failed(). */
int  ff_fssim_vk_reuse(FSSIMVk *vk, FFVkExecContext *exec, const char *what, int64_t n);

/* ---- the 2-D job --------------------------------------------------------- */

/* Rendition k's share of a 2-D job (fssim_be_vulkan.c, with
 * fssim_vulkan_resample.c and fssim_vulkan_msssim.c): the frames its
 * shaders read and its region of the per-job buffers. */
typedef struct FSSIMVkLane {
    const VkImageView *own;   /* the rendition's planes */
    const VkImageView *ref;   /* the reference's */
    int    resampled;         /* scored from its resampled planes */
    size_t region;            /* of the buffers that have one per rendition and job */
    FSSIMVkRange rsb;         /* its resampled planes; without resampling, any
                               * valid range, which no shader reads */
    FSSIMVkRange res;         /* its result words */
} FSSIMVkLane;

/**
 * Bind shd, a shader that scores a pair (fssim_core.glsl,
 * fssim_msssim.comp.glsl), for a lane: the frames' planes as main and
 * reference, and at rsb_binding the resampled planes, which only the
 * MAIN_BUF variants read.  A resampled rendition's shaders read it from
 * there: the reference's images stand in for its own.
 */
void ff_fssim_vk_bind_lane(const FSSIMEngine *e, FSSIMVk *vk, FFVkExecContext *exec,
                           FFVulkanShader *shd, const FSSIMVkLane *l, int rsb_binding);

/* ---- readback ------------------------------------------------------------- */

/** Make the device's writes to a range of a host-visible buffer visible
 *  to the host, where its memory is not coherent. */
int  ff_fssim_vk_invalidate(FFVulkanContext *vkctx, FFVkBuffer *buf, size_t off, size_t size);

/* A sum that a shader returns as a float pair (the sum and its rounding
 * error), added in double. */
static inline double ff_fssim_vk_float_pair(const uint32_t *w)
{
    return (double)av_int2float(w[0]) + (double)av_int2float(w[1]);
}

/* ---- fssim3d -------------------------------------------------------------- */

/* fssim3d's ring of moments and temporal pass (fssim_be_vulkan3d.c): the
 * backend's operations when the engine has a depth. */
typedef struct VK3DBackend VK3DBackend;

int  ff_fssim_vk3d_init(FSSIMEngine *e, VK3DBackend **b, size_t *ring_bytes);
int  ff_fssim_vk3d_moments(FSSIMEngine *e, VK3DBackend *b, int ring_slot,
                           const AVFrame *ref, const AVFrame *dist);
int  ff_fssim_vk3d_submit(FSSIMEngine *e, VK3DBackend *b, int slot, const FSSIM3DWindow *win);
int  ff_fssim_vk3d_collect(FSSIMEngine *e, VK3DBackend *b, int slot, int wait,
                           FSSIMSums *sums);
void ff_fssim_vk3d_uninit(FSSIMEngine *e, VK3DBackend **b);

#endif /* AVFILTER_FSSIM_VULKAN_COMMON_H */
