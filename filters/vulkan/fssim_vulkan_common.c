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
 * fssim: the Vulkan plumbing that the 2-D scoring (fssim_be_vulkan.c) and
 * fssim3d's ring (fssim_be_vulkan3d.c) share: see fssim_vulkan_common.h.
 */
#include <stdlib.h>

#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "libavutil/thread.h"
#include "libavutil/time.h"
#include "libavutil/version.h"
#include "libavfilter/filters.h"

#include "../output/fssim_file.h"
#include "fssim_vulkan_common.h"

/* the most descriptors of one of our shaders (fssim_core.glsl: 13) */
#define MAX_BINDINGS 16

/*
 * Waits for the device.  A frame's work takes milliseconds, even on a GPU
 * that other processes share; a device that holds a fence for many seconds
 * is hung (or lost without reporting it), and a wait without a timeout
 * would hang the run with it, deaf to SIGINT and SIGTERM.  So every wait
 * gives up after WAIT_TIMEOUT_MS, CPU_WAIT_TIMEOUT_MS on a device that is
 * the CPU itself (Mesa's lavapipe: a large frame with every algorithm takes
 * seconds there, more on a busy machine); the environment variable
 * FSSIM_VULKAN_WAIT_TIMEOUT_MS sets it, for tests.  Once the run is asked
 * to stop, a wait gives up after STOP_WAIT_MS: long enough for the frames
 * in flight of a working device to be scored and logged, short enough for
 * the run to end promptly whatever the device does.
 */
#define WAIT_TIMEOUT_MS     20000
#define CPU_WAIT_TIMEOUT_MS 300000
#define STOP_WAIT_MS        1000
#define WAIT_STEP_NS        (50 * 1000000ULL)

static AVOnce  wait_once = AV_ONCE_INIT;
static int64_t wait_timeout_ms;   /* the test hook's, or 0 */

static void read_wait_timeout(void)
{
    const char *env = getenv("FSSIM_VULKAN_WAIT_TIMEOUT_MS");

    wait_timeout_ms = env && *env ? FFMAX(strtoll(env, NULL, 0), 0) : 0;
}

/* How long a wait on vk's device may last, in microseconds. */
static int64_t wait_timeout_us(const FSSIMVk *vk)
{
    ff_thread_once(&wait_once, read_wait_timeout);
    if (wait_timeout_ms)
        return wait_timeout_ms * 1000;
    return (vk->vkctx.props.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ?
            CPU_WAIT_TIMEOUT_MS : WAIT_TIMEOUT_MS) * 1000LL;
}

/* Whether the waits of a stopping run have waited long enough. */
static int stop_wait_over(int64_t now)
{
    const int64_t t = ff_fssim_stop_time();

    return t && now - t >= STOP_WAIT_MS * 1000LL;
}

/* Wait for all of nb fences: VK_SUCCESS, their error, or VK_TIMEOUT (then
 * vk->hung). */
static VkResult wait_fences(FSSIMVk *vk, const VkFence *fences, uint32_t nb)
{
    FFVulkanContext *vkctx = &vk->vkctx;
    const int64_t start = av_gettime_relative(), timeout = wait_timeout_us(vk);

    for (;;) {
        const VkResult res = vkctx->vkfn.WaitForFences(vkctx->hwctx->act_dev, nb, fences,
                                                       VK_TRUE, WAIT_STEP_NS);
        int64_t now;

        if (res != VK_TIMEOUT)
            return res;
        now = av_gettime_relative();
        if (stop_wait_over(now) || now - start >= timeout) {
            vk->hung = 1;
            return VK_TIMEOUT;
        }
    }
}

size_t ff_fssim_vk_align(size_t size)
{
    return FFALIGN(FFMAX(size, 1), FSSIM_VK_BUF_ALIGN);
}

/* ---- inputs and device ---------------------------------------------------- */

/* Vulkan defines 4:2:0 and 4:2:2 images only with even extents; FFmpeg
 * creates odd-sized ones anyway. What a driver keeps past the last whole
 * chroma sample is its own: NVIDIA's driver reads back other chroma there
 * than hwupload wrote (a 3x2 NV12 frame survives hwupload,hwdownload byte
 * for byte, yet its chroma scores differ), lavapipe the uploaded one. */
static void warn_odd_subsampled(AVFilterContext *ctx, int i, enum AVPixelFormat sw)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(sw);
    const AVFilterLink *link = ctx->inputs[i];

    if ((d->log2_chroma_w && (link->w & 1)) || (d->log2_chroma_h && (link->h & 1)))
        av_log(ctx, AV_LOG_WARNING, "The %s input is %dx%d %s: Vulkan defines chroma-"
               "subsampled images only with an even width (and height, for 4:2:0), and "
               "drivers differ on the last chroma column or row of odd-sized ones; their "
               "chroma scores may not be those of the frames uploaded. Crop or pad to an "
               "even size before hwupload.\n", ctx->input_pads[i].name, link->w, link->h,
               av_get_pix_fmt_name(sw));
}

/* ff_fssim_cuda_check_inputs() has the same shape: each message names its
 * API's own frames, devices and options. */
int ff_fssim_vk_check_inputs(FSSIMEngine *e, enum AVPixelFormat *sw_format)
{
    AVFilterContext *ctx = e->ctx;
    AVVulkanDeviceContext *dev0 = NULL;

    for (int i = 0; i < ctx->nb_inputs; i++) {
        AVFilterLink *link = ctx->inputs[i];
        FilterLink *l = ff_filter_link(link);
        AVHWFramesContext *fc = l->hw_frames_ctx ? (AVHWFramesContext *)l->hw_frames_ctx->data
                                                 : NULL;
        AVVulkanDeviceContext *dev;

        if (link->format != AV_PIX_FMT_VULKAN || !fc || fc->format != AV_PIX_FMT_VULKAN) {
            av_log(ctx, AV_LOG_ERROR, "The %s input carries %s frames, fssim_vulkan scores "
                   "Vulkan frames. Decode with -hwaccel vulkan -hwaccel_output_format vulkan, "
                   "or upload with hwupload (-init_hw_device vulkan=vk -filter_hw_device vk); "
                   "for software frames use the fssim filter.\n", ctx->input_pads[i].name,
                   av_get_pix_fmt_name(link->format));
            return AVERROR(EINVAL);
        }
        dev = fc->device_ctx->hwctx;
        if (dev0 && dev->act_dev != dev0->act_dev) {
            av_log(ctx, AV_LOG_ERROR, "The %s and %s inputs are on different Vulkan "
                   "devices. Decode or upload every input with the same device: one "
                   "-init_hw_device vulkan=vk, and -hwaccel_device vk / -filter_hw_device vk "
                   "for all inputs.\n", ctx->input_pads[0].name, ctx->input_pads[i].name);
            return AVERROR(EINVAL);
        }
        dev0 = dev;
        sw_format[i] = fc->sw_format;
        warn_odd_subsampled(ctx, i, fc->sw_format);
    }
    return 0;
}

int ff_fssim_vk_open(AVFilterContext *ctx, FSSIMVk *vk)
{
    FilterLink *ml = ff_filter_link(ctx->inputs[0]);
    int err = ff_vk_init(&vk->vkctx, ctx, NULL, ml->hw_frames_ctx);

    vk->ctx = ctx;
    /* the waits for the device end promptly once the run is stopped */
    ff_fssim_file_watch();
    if (err < 0)
        return err;
    vk->initialized = 1;
    return 0;
}

/* doc/errors.md: name the missing feature and the way out. */
int ff_fssim_vk_check_workgroup(AVFilterContext *ctx, FSSIMVk *vk, uint32_t shared,
                                const char *what, const char *why)
{
    const VkPhysicalDeviceProperties *props = &vk->vkctx.props.properties;

    if (props->limits.maxComputeWorkGroupInvocations < WG_SIZE) {
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device '%s' runs fewer than %d invocations "
               "per workgroup.\n", props->deviceName, WG_SIZE);
        return AVERROR(ENOSYS);
    }
    if (props->limits.maxComputeSharedMemorySize < shared) {
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device '%s' offers %u bytes of shared memory "
               "per workgroup; %s needs %u %s\n", props->deviceName,
               props->limits.maxComputeSharedMemorySize, what, shared, why);
        return AVERROR(ENOSYS);
    }
    return 0;
}

int ff_fssim_vk_pool_init(AVFilterContext *ctx, FSSIMVk *vk, int nb_exec, int max_queues)
{
    AVVulkanDeviceQueueFamily *qf = ff_vk_qf_find(&vk->vkctx, VK_QUEUE_COMPUTE_BIT, 0);

    if (!qf) {
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device has no compute queue.\n");
        return AVERROR(ENOTSUP);
    }
    vk->qf     = *qf;
    vk->qf.num = FFMIN(vk->qf.num, max_queues);
    return ff_vk_exec_pool_init(&vk->vkctx, &vk->qf, &vk->pool, nb_exec, 0, 0, 0, NULL);
}

/* Wait, as ff_fssim_vk_fence() does, for the last batch of every
 * context: VK_SUCCESS, or what the first wait that failed returned. */
static VkResult wait_submitted(FSSIMVk *vk)
{
    VkFence fences[64];
    VkResult res = VK_SUCCESS;
    int nb = 0;

    for (int i = 0; i < vk->pool.pool_size && res == VK_SUCCESS; i++) {
        if (vk->pool.contexts[i].had_submission)
            fences[nb++] = vk->pool.contexts[i].fence;
        if (nb && (nb == FF_ARRAY_ELEMS(fences) || i == vk->pool.pool_size - 1)) {
            res = wait_fences(vk, fences, nb);
            nb  = 0;
        }
    }
    return res;
}

/*
 * Wait until each of our queues is done with every batch submitted so far.
 * With emulated timeline semaphores (Mesa's common queue code, as in
 * lavapipe) a queue thread runs the batches and, after a batch's fence and
 * semaphores have signalled, still drops its references to the semaphores
 * it waited on.  The frames and frames contexts a filter lets go of in
 * uninit can be the last references to their pools, whose teardown
 * destroys the frames' semaphores at once: a batch that waited on one of
 * them (ours, or hwupload's or hwdownload's on the same queue) would then
 * be retired by that thread on freed memory.  An empty batch is retired
 * after every earlier one on its queue, so its fence covers them all.
 */
static void retire_queues(FSSIMVk *vk)
{
    FFVulkanContext *vkctx = &vk->vkctx;
    VkFence fences[64];
    int nb_fences = 0;

    /* after a GPU error a context's fence may never signal; and
     * ff_vk_exec_start() below would wait for a context's last batch
     * without a timeout */
    if (!vk->pool.contexts || vk->failed || wait_submitted(vk) != VK_SUCCESS)
        return;
    /* the pool's contexts take the family's queues in turn */
    for (int i = 0; i < FFMIN3(vk->pool.pool_size, vk->qf.num, FF_ARRAY_ELEMS(fences)); i++) {
        FFVkExecContext *exec = &vk->pool.contexts[i];
        if (ff_vk_exec_start(vkctx, exec) < 0 || ff_vk_exec_submit(vkctx, exec) < 0) {
            /* its fence is reset and never signals */
            exec->had_submission = 0;
            break;
        }
        fences[nb_fences++] = exec->fence;
    }
    if (nb_fences)
        wait_fences(vk, fences, nb_fences);
}

void ff_fssim_vk_pool_uninit(FSSIMVk *vk)
{
    if (!vk->initialized)
        return;
    retire_queues(vk);
    /* ff_vk_exec_pool_free() waits for every batch without a timeout: a
     * lost device's fences return at once, a hung device's never */
    if (vk->failed && !vk->hung)
        wait_submitted(vk);
    /* what a hung device holds is never freed: it may still use it */
    if (vk->hung)
        return;
    ff_vk_exec_pool_free(&vk->vkctx, &vk->pool);
}

void ff_fssim_vk_close(FSSIMVk *vk)
{
    FFVulkanContext *vkctx = &vk->vkctx;

    /* see ff_fssim_vk_pool_uninit() */
    if (!vk->initialized || vk->hung)
        return;
    if (vk->timer.pool)
        vkctx->vkfn.DestroyQueryPool(vkctx->hwctx->act_dev, vk->timer.pool,
                                     vkctx->hwctx->alloc);
    vk->timer.pool = VK_NULL_HANDLE;
    ff_vk_uninit(vkctx);
    vk->initialized = 0;
}

/* ---- shaders ---------------------------------------------------------------- */

void ff_fssim_vk_shader_load(FFVulkanShader *shd, VkSpecializationInfo *sl,
                             uint32_t wx, uint32_t wy, uint32_t subgroup_size)
{
    ff_vk_shader_load(shd, VK_SHADER_STAGE_COMPUTE_BIT, sl, (uint32_t []) { wx, wy, 1 }, 0);
    /* FFmpeg's loader does not set the required size it is given */
    if (subgroup_size)
        shd->subgroup_info = (VkPipelineShaderStageRequiredSubgroupSizeCreateInfo) {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
            .requiredSubgroupSize = subgroup_size,
        };
}

/* A descriptor set whatever the FFmpeg version (8.1's helper also prints
 * GLSL and returns an error). */
static int add_descriptor_set(FFVulkanContext *vkctx, FFVulkanShader *shd,
                              const FFVulkanDescriptorSetBinding *desc, int nb)
{
#if LIBAVUTIL_VERSION_MAJOR < 61
    return ff_vk_shader_add_descriptor_set(vkctx, shd, desc, nb, 0, 0);
#else
    ff_vk_shader_add_descriptor_set(vkctx, shd, desc, nb, 0);
    return 0;
#endif
}

int ff_fssim_vk_shader_link(FSSIMVk *vk, FFVulkanShader *shd, int nb_img, int nb_buf,
                            size_t push_size, const unsigned char *spv, unsigned int len)
{
    FFVulkanContext *vkctx = &vk->vkctx;
    FFVulkanDescriptorSetBinding desc[MAX_BINDINGS];
    int err;

    av_assert0(nb_img + nb_buf <= MAX_BINDINGS);
    for (int i = 0; i < nb_img + nb_buf; i++)
        desc[i] = (FFVulkanDescriptorSetBinding) {
            .type   = i < nb_img ? VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE :
                                   VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .stages = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    RET(add_descriptor_set(vkctx, shd, desc, nb_img + nb_buf));
    RET(ff_vk_shader_add_push_const(shd, 0, push_size, VK_SHADER_STAGE_COMPUTE_BIT));
    err = ff_vk_shader_link(vkctx, shd, (const char *)spv, len, "main");
    shd->specialization_info = NULL;
    if (err < 0)
        return err;
    if (vk->push_only && !shd->use_push) {
        av_log(vk->ctx, AV_LOG_ERROR, "A shader's descriptors are not pushed although the "
               "device can push them: the renditions cannot share a command buffer.\n");
        return AVERROR_BUG;
    }
    return ff_vk_shader_register_exec(vkctx, &vk->pool, shd);

fail:
    shd->specialization_info = NULL;
    return err;
}

void ff_fssim_vk_spec_float_c(VkSpecializationInfo *sl, int id, int depth)
{
    const double L = (double)((1 << depth) - 1);

    SPEC_LIST_ADD(sl, id,     32, av_float2int((float)FSSIM_FLOAT_C1(L)));
    SPEC_LIST_ADD(sl, id + 1, 32, av_float2int((float)FSSIM_FLOAT_C2(L)));
}

void ff_fssim_vk_spec_gauss(VkSpecializationInfo *sl, int id, const FSSIMOptions *o, int fp64)
{
    double g[FSSIM_MAX_WINDOW] = { 0 };

    ff_fssim_ref_gauss_weights(o->window, o->sigma, g);
    for (int i = 0; i < 15; i++) {
        if (fp64)
            SPEC_LIST_ADD(sl, id + i, 64, av_double2int(g[i]));
        else
            SPEC_LIST_ADD(sl, id + i, 32, av_float2int((float)g[i]));
    }
}

/* ---- jobs ------------------------------------------------------------------- */

void ff_fssim_vk_bind_range(FFVulkanContext *vkctx, FFVkExecContext *exec,
                            FFVulkanShader *shd, int binding, const FSSIMVkRange *r)
{
    ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, binding, 0, r->buf, r->off, r->size,
                                    VK_FORMAT_UNDEFINED);
}

void ff_fssim_vk_bind_planes(FFVulkanContext *vkctx, FFVkExecContext *exec,
                             FFVulkanShader *shd, int binding, const VkImageView *views,
                             int nb_planes)
{
    for (int i = 0; i < FSSIM_VK_MAX_PLANES; i++)
        ff_vk_shader_update_img(vkctx, exec, shd, 0, binding + i, 0,
                                views[FFMIN(i, nb_planes - 1)],
                                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_NULL_HANDLE);
}

void ff_fssim_vk_bind_lane(const FSSIMEngine *e, FSSIMVk *vk, FFVkExecContext *exec,
                           FFVulkanShader *shd, const FSSIMVkLane *l, int rsb_binding)
{
    FFVulkanContext *vkctx = &vk->vkctx;
    const int nb_planes = av_pix_fmt_count_planes(e->fmt.pix_fmt);

    ff_vk_exec_bind_shader(vkctx, exec, shd);
    ff_fssim_vk_bind_planes(vkctx, exec, shd, 0, l->resampled ? l->ref : l->own, nb_planes);
    ff_fssim_vk_bind_planes(vkctx, exec, shd, FSSIM_VK_MAX_PLANES, l->ref, nb_planes);
    ff_fssim_vk_bind_range(vkctx, exec, shd, rsb_binding, &l->rsb);
}

int ff_fssim_vk_add_frame(FFVulkanContext *vkctx, FFVkExecContext *exec, const AVFrame *f,
                          VkImageView *views)
{
    /* FFmpeg's helpers take the frames as writable: they lock them and
     * record their new layout, never change the AVFrame */
    int err = ff_vk_exec_add_dep_frame(vkctx, exec, (AVFrame *)f,
                                       VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                       VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT);
    if (err < 0)
        return err;
    return ff_vk_create_imageviews(vkctx, exec, views, (AVFrame *)f, FF_VK_REP_UINT);
}

void ff_fssim_vk_frame_barrier(FFVulkanContext *vkctx, FFVkExecContext *exec,
                               const AVFrame *f, VkImageMemoryBarrier2 *img_bar,
                               int *nb_img_bar)
{
    ff_vk_frame_barrier(vkctx, exec, (AVFrame *)f, img_bar, nb_img_bar,
                        VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_SHADER_READ_BIT,
                        VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                        VK_QUEUE_FAMILY_IGNORED);
}

void ff_fssim_vk_barrier(FFVulkanFunctions *vk, FFVkExecContext *exec,
                         VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access,
                         const VkImageMemoryBarrier2 *img_bar, int nb_img_bar)
{
    VkMemoryBarrier2 bar = {
        .sType         = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask  = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
        .srcAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        .dstStageMask  = dst_stage,
        .dstAccessMask = dst_access,
    };
    vk->CmdPipelineBarrier2(exec->buf, &(VkDependencyInfo) {
        .sType                   = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
        .memoryBarrierCount      = 1,
        .pMemoryBarriers         = &bar,
        .imageMemoryBarrierCount = nb_img_bar,
        .pImageMemoryBarriers    = img_bar,
    });
}

void ff_fssim_vk_barrier_compute(FFVulkanFunctions *vk, FFVkExecContext *exec)
{
    ff_fssim_vk_barrier(vk, exec, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT, NULL, 0);
}

void ff_fssim_vk_timer_init(AVFilterContext *ctx, FSSIMVk *vk, int per_exec)
{
    FFVulkanContext *vkctx = &vk->vkctx;
    FFVulkanFunctions *fn = &vkctx->vkfn;
    FSSIMVkTimer *t = &vk->timer;
    const uint32_t bits = vkctx->qf_props[vk->qf.idx].queueFamilyProperties.timestampValidBits;
    VkQueryPoolCreateInfo info = {
        .sType      = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType  = VK_QUERY_TYPE_TIMESTAMP,
        .queryCount = per_exec * vk->pool.pool_size,
    };

    t->per_exec = per_exec;
    t->write = (PFN_vkCmdWriteTimestamp)fn->GetDeviceProcAddr(vkctx->hwctx->act_dev,
                                                              "vkCmdWriteTimestamp");
    if (!bits || !t->write ||
        fn->CreateQueryPool(vkctx->hwctx->act_dev, &info, vkctx->hwctx->alloc,
                            &t->pool) != VK_SUCCESS) {
        t->pool = VK_NULL_HANDLE;
        av_log(ctx, AV_LOG_VERBOSE, "No timestamp queries: GPU time not measured.\n");
        return;
    }
    t->mask   = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    t->period = vkctx->props.properties.limits.timestampPeriod;
}

void ff_fssim_vk_timer_write(FSSIMVk *vk, FFVkExecContext *exec, int i,
                             VkPipelineStageFlagBits stage)
{
    const FSSIMVkTimer *t = &vk->timer;

    if (!t->pool)
        return;
    if (!i)
        vk->vkctx.vkfn.CmdResetQueryPool(exec->buf, t->pool, t->per_exec * exec->idx,
                                         t->per_exec);
    t->write(exec->buf, stage, t->pool, t->per_exec * exec->idx + i);
}

/* exec's timestamps into ts[] (t->per_exec of them): 1, or 0 if there are none */
static int timer_query(FSSIMVk *vk, FFVkExecContext *exec, uint64_t ts[8])
{
    FFVulkanContext *vkctx = &vk->vkctx;
    const FSSIMVkTimer *t = &vk->timer;

    return t->pool && t->per_exec <= 8 &&
           vkctx->vkfn.GetQueryPoolResults(vkctx->hwctx->act_dev, t->pool,
                                           t->per_exec * exec->idx, t->per_exec,
                                           sizeof(ts[0]) * t->per_exec, ts, sizeof(ts[0]),
                                           VK_QUERY_RESULT_64_BIT) == VK_SUCCESS;
}

int ff_fssim_vk_timer_read(FSSIMVk *vk, FFVkExecContext *exec, double *us)
{
    const FSSIMVkTimer *t = &vk->timer;
    uint64_t ts[8];

    if (!timer_query(vk, exec, ts))
        return 0;
    for (int i = 1; i < t->per_exec; i++)
        us[i - 1] = ((ts[i] - ts[0]) & t->mask) * t->period * 1e-3;
    return 1;
}

int ff_fssim_vk_timer_span(FSSIMVk *vk, FFVkExecContext *exec, double span[2])
{
    const FSSIMVkTimer *t = &vk->timer;
    uint64_t ts[8];

    if (!timer_query(vk, exec, ts))
        return 0;
    span[0] = (ts[0] & t->mask) * t->period * 1e-3;
    span[1] = (ts[t->per_exec - 1] & t->mask) * t->period * 1e-3;
    return 1;
}

int ff_fssim_vk_abandon(FSSIMVk *vk, FFVkExecContext *exec)
{
    ff_vk_exec_discard_deps(&vk->vkctx, exec);
    return ff_vk_exec_submit(&vk->vkctx, exec);
}

/* Its fence was reset and will never signal, so ff_vk_exec_pool_free()
 * must not wait on it (that wait has no timeout). */
void ff_fssim_vk_submit_failed(FSSIMVk *vk, FFVkExecContext *exec)
{
    exec->had_submission = 0;
    vk->failed = 1;
}

VkResult ff_fssim_vk_fence(FSSIMVk *vk, FFVkExecContext *exec, int wait)
{
    FFVulkanContext *vkctx = &vk->vkctx;

    if (wait)
        return wait_fences(vk, &exec->fence, 1);
    return vkctx->vkfn.GetFenceStatus(vkctx->hwctx->act_dev, exec->fence);
}

int ff_fssim_vk_fence_failed(FSSIMVk *vk, VkResult res, const char *what, int64_t n)
{
    vk->failed = 1;
    if (res != VK_TIMEOUT) {
        av_log(vk->ctx, AV_LOG_ERROR, "Vulkan error while waiting for the %s %"PRId64": %s. "
               "Its scores and those of the frames after it are not published.\n",
               what, n, ff_vk_ret2str(res));
        return AVERROR_EXTERNAL;
    }
    if (ff_fssim_file_stopped()) {
        av_log(vk->ctx, AV_LOG_ERROR, "The run was stopped while the Vulkan device was still "
               "working on the %s %"PRId64", and the device did not finish it within %d ms: "
               "neither it nor the frames after it are scored.\n", what, n, STOP_WAIT_MS);
        return AVERROR_EXIT;
    }
    av_log(vk->ctx, AV_LOG_ERROR, "The Vulkan device '%s' did not finish the %s %"PRId64" "
           "within %.1f s: it is hung, or lost without reporting it. Neither its scores nor "
           "those of the frames after it are published. Check the GPU (nvidia-smi; the "
           "kernel log for GPU errors) and run again.\n",
           vk->vkctx.props.properties.deviceName, what, n, wait_timeout_us(vk) / 1e6);
    return AVERROR(ETIMEDOUT);
}

int ff_fssim_vk_reuse(FSSIMVk *vk, FFVkExecContext *exec, const char *what, int64_t n)
{
    VkResult res;

    if (!exec->had_submission)
        return 0;
    res = ff_fssim_vk_fence(vk, exec, 1);
    return res == VK_SUCCESS ? 0 : ff_fssim_vk_fence_failed(vk, res, what, n);
}

/* ---- readback --------------------------------------------------------------- */

int ff_fssim_vk_invalidate(FFVulkanContext *vkctx, FFVkBuffer *buf, size_t off, size_t size)
{
    if (buf->flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)
        return 0;
    return ff_vk_flush_buffer(vkctx, buf, off, size, 0);
}
