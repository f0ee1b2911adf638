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
 * fssim3d on Vulkan frames: the Vulkan backend of fssim3d (see fssim3d.h),
 * for AV_PIX_FMT_VULKAN inputs from Vulkan Video decoding, hwupload or
 * scale_vulkan.  Frame data never leaves the GPU; only the few doubles of
 * each frame's scores come back.
 *
 * Per frame pair, one dispatch per component (fssim3d_moments.comp.glsl)
 * computes the spatial moments in double into the frame's ring slot in
 * device memory: per scored position mu_a, mu_b, var_a + var_b and cov,
 * each a double rounded to 48 bits (24 bytes; fssim3d_core.glsl).  Per
 * scored frame, fssim3d_score.comp.glsl combines the slots of its temporal
 * window in double into per-workgroup partial sums, adds them per component
 * in a fixed order, and the host reads the sums back.
 *
 * Every submission goes to one queue, so that a pipeline barrier at the
 * start of each command buffer orders it after the ring writes of the
 * earlier ones (barriers do not reach across queues).  A frame pair's
 * moments are submitted at once and not waited for; a scored frame's job
 * is waited for, since the frame goes out with its scores, and its fence
 * covers everything submitted before it.
 *
 * A failed submission or fence (VK_ERROR_DEVICE_LOST...) ends the run: no
 * score is read from the device after it, so that no frame is published
 * with the sums of an incomplete job.
 */
#include <float.h>
#include <inttypes.h>
#include <string.h>

#include "libavutil/intfloat.h"
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "libavutil/version.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/filters.h"
#include "libavfilter/vulkan_filter.h"

#include "fssim3d.h"
#include "fssim_common.h"
#include "fssim_ref.h"

extern const unsigned char ff_fssim3d_moments_comp_spv_data[];
extern const unsigned int  ff_fssim3d_moments_comp_spv_len;
extern const unsigned char ff_fssim3d_score_comp_spv_data[];
extern const unsigned int  ff_fssim3d_score_comp_spv_len;

/* Keep in sync with fssim3d_core.glsl and fssim3d_score.comp.glsl. */
#define TILE_W      16
#define TILE_H      16
#define WG_SIZE     (TILE_W * TILE_H)
#define MAX_RADIUS  7
#define MAX_TAPS    64
#define SCORE_CHUNK (WG_SIZE * 4)   /* positions per score workgroup */
#define MAX_PLANES  4
#define NB_EXEC     8               /* jobs in flight, moments ones mostly */
#define BUF_ALIGN   256             /* >= minStorageBufferOffsetAlignment anywhere */
#define NB_TS       2               /* timestamps per job: start, end */
/* A ring record (fssim3d_core.glsl): the high 32 bits of the four values,
 * then their next 16 bits, in two arrays. */
#define RECORD_HI   16
#define RECORD_LO   8

/* Descriptor bindings of the moments shader: one per plane of each frame. */
enum { BIND_MAIN = 0, BIND_REF = BIND_MAIN + MAX_PLANES, BIND_IMG_NB = BIND_REF + MAX_PLANES };
/* and of the score shader */
enum { BIND_WINDOW, BIND_PARTIALS, BIND_RESULTS, BIND_SCORE_NB };

/* Push constants, laid out as PushData in the shaders (scalar layout). */
typedef struct FSSIM3DVkMomentsPush {
    uint32_t hi_addr[2], lo_addr[2];
    int32_t  size[2], out_size[2];
    int32_t  offset, plane, chan, shift;
} FSSIM3DVkMomentsPush;

typedef struct FSSIM3DVkScorePush {
    double   c1, c2;
    uint32_t n, hi_off, lo_off, nb_taps, part_off, nb_parts, comp;
} FSSIM3DVkScorePush;

/* What a scored frame exchanges with the host, in host-visible memory, one
 * per execution context: its window in (the Window block of
 * fssim3d_score.comp.glsl), its per-component sums out. */
typedef struct FSSIM3DVkIO {
    double   wt[MAX_TAPS];
    uint64_t slot[MAX_TAPS];     /* device address of the tap's ring slot */
    double   sums[4];
} FSSIM3DVkIO;

typedef struct VkComp {
    FSSIM3DVkMomentsPush mp;     /* all but the addresses, set per slot */
    FSSIM3DVkScorePush   sp;     /* all but nb_taps, set per frame */
    int    groups[2];            /* spatial pass workgroups */
    int    score_groups;
    size_t hi_off, lo_off;       /* the component's records in a slot */
} VkComp;

/* What an execution context's last submission was, until its fence has
 * been seen to signal. */
enum { JOB_NONE, JOB_MOMENTS, JOB_SCORE };

typedef struct VkJob {
    int     kind;
    int64_t n;                   /* frame pair or scored frame, for messages */
} VkJob;

typedef struct VulkanBackend {
    FFVulkanContext vkctx;
    int initialized;
    /* the compute family, restricted to its first queue: see the top */
    AVVulkanDeviceQueueFamily qf;
    FFVkExecPool e;
    FFVulkanShader shd_moments, shd_score, shd_sum;

    VkComp comp[4];
    size_t slot_bytes;
    FFVkBuffer ring[FSSIM3D_MAX_DEPTH];
    FFVkBuffer partials;         /* double per score workgroup */
    FFVkBuffer io;               /* FSSIM3DVkIO per execution context */
    uint8_t *io_map;
    size_t   io_stride;
    uint32_t nb_parts;

    VkJob   job[NB_EXEC];
    int64_t nb_pairs, nb_scored; /* submitted */

    /* GPU time, from timestamp queries */
    VkQueryPool ts_pool;
    PFN_vkCmdWriteTimestamp write_ts;
    uint64_t ts_mask;
    double   ts_period;
    double   moments_us, score_us;
    uint64_t nb_moments_ts, nb_score_ts;

    /* A submission or a fence failed: the device is not trusted for the
     * rest of the run, nothing is read back from it any more. */
    int failed;
} VulkanBackend;

/* FFmpeg 8.1's descriptor helper also prints GLSL declarations (unused
 * with SPIR-V) and returns an error code. */
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

static size_t align_buf(size_t size)
{
    return FFALIGN(FFMAX(size, 1), BUF_ALIGN);
}

static AVHWFramesContext *input_frames(const AVFilterLink *link)
{
    FilterLink *l = ff_filter_link((AVFilterLink *)link);
    return l->hw_frames_ctx ? (AVHWFramesContext *)l->hw_frames_ctx->data : NULL;
}

/* ---- configuration ---------------------------------------------------- */

/* doc/formats.md, doc/errors.md: both inputs Vulkan frames of one device,
 * of one size and supported format.  fssim3d takes software frames too, so
 * a pair of one Vulkan and one software input gets its own message. */
static int vk_check_inputs(AVFilterContext *ctx, enum AVPixelFormat *sw_format)
{
    static const char *const pad[2] = { "main", "reference" };
    const int vk[2] = { ctx->inputs[0]->format == AV_PIX_FMT_VULKAN,
                        ctx->inputs[1]->format == AV_PIX_FMT_VULKAN };
    AVHWFramesContext *fr[2];
    AVVulkanDeviceContext *dev[2];
    int ret;

    if (vk[0] != vk[1]) {
        const int sw = vk[0];
        av_log(ctx, AV_LOG_ERROR, "The %s input carries Vulkan frames but the %s input "
               "software frames (%s): fssim3d scores both on the GPU or both on the CPU. "
               "Put the %s input on the same Vulkan device (-hwaccel vulkan "
               "-hwaccel_output_format vulkan, or hwupload with -init_hw_device vulkan=vk "
               "-filter_hw_device vk), or bring both to system memory (hwdownload,format=...).\n",
               pad[!sw], pad[sw], av_get_pix_fmt_name(ctx->inputs[sw]->format), pad[sw]);
        return AVERROR(EINVAL);
    }
    for (int i = 0; i < 2; i++) {
        fr[i] = input_frames(ctx->inputs[i]);
        if (!fr[i] || fr[i]->format != AV_PIX_FMT_VULKAN) {
            av_log(ctx, AV_LOG_ERROR, "The %s input carries no Vulkan frames context. Decode "
                   "with -hwaccel vulkan -hwaccel_output_format vulkan, or upload with "
                   "hwupload (-init_hw_device vulkan=vk -filter_hw_device vk).\n", pad[i]);
            return AVERROR(EINVAL);
        }
        dev[i] = fr[i]->device_ctx->hwctx;
    }
    if (dev[0]->act_dev != dev[1]->act_dev) {
        av_log(ctx, AV_LOG_ERROR, "The main and reference inputs are on different Vulkan "
               "devices. Decode or upload both with the same device: one -init_hw_device "
               "vulkan=vk, and -hwaccel_device vk / -filter_hw_device vk for both inputs.\n");
        return AVERROR(EINVAL);
    }
    ret = ff_fssim_check_inputs(ctx, ctx->inputs[0]->w, ctx->inputs[0]->h, fr[0]->sw_format,
                                ctx->inputs[1]->w, ctx->inputs[1]->h, fr[1]->sw_format,
                                "scale_vulkan");
    if (ret < 0)
        return ret;
    if (!av_vkfmt_from_pixfmt(fr[0]->sw_format)) {
        av_log(ctx, AV_LOG_ERROR, "Pixel format %s has no Vulkan representation. Convert "
               "it first, e.g. with scale_vulkan=format=nv12.\n",
               av_get_pix_fmt_name(fr[0]->sw_format));
        return AVERROR(ENOSYS);
    }
    *sw_format = fr[0]->sw_format;
    return 0;
}

/* Shared memory of a spatial workgroup at radius r, as
 * fssim3d_moments.comp.glsl sizes it: the samples of the tile and its
 * halo, the five horizontal sums in double, the taps. */
static int moments_shared_bytes(int r)
{
    const int sw = TILE_W + 2 * r, sh = TILE_H + 2 * r;
    return 4 * sw * sh + 8 * 5 * sh * TILE_W + 8 * (2 * MAX_RADIUS + 1);
}

/* doc/errors.md: name the missing feature and the way out. */
static int check_device(AVFilterContext *ctx, VulkanBackend *b)
{
    FSSIM3DContext *s = ctx->priv;
    FFVulkanContext *vkctx = &b->vkctx;
    const char *name = vkctx->props.properties.deviceName;
    const VkPhysicalDeviceFeatures *feats = &vkctx->hwctx->device_features.features;
    const VkPhysicalDeviceVulkan12Features *f12 =
        ff_vk_find_struct(vkctx->hwctx->device_features.pNext,
                          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
    const VkPhysicalDeviceLimits *lim = &vkctx->props.properties.limits;
    const int shared = moments_shared_bytes(s->opts.window / 2);

    if (!feats->shaderFloat64 || !f12 || !f12->bufferDeviceAddress) {
        const int both = !feats->shaderFloat64 && (!f12 || !f12->bufferDeviceAddress);
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device '%s' lacks %s%s%s (or it is not enabled), "
               "which fssim3d on Vulkan frames needs for its double-precision moments and "
               "its ring in device memory. Score these frames on the CPU instead: "
               "hwdownload,format=<the frames' format> on both inputs.\n", name,
               feats->shaderFloat64 ? "" : "shaderFloat64", both ? " and " : "",
               f12 && f12->bufferDeviceAddress ? "" : "bufferDeviceAddress");
        return AVERROR(ENOSYS);
    }
    if (lim->maxComputeWorkGroupInvocations < WG_SIZE) {
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device '%s' runs fewer than %d invocations "
               "per workgroup.\n", name, WG_SIZE);
        return AVERROR(ENOSYS);
    }
    if (lim->maxComputeSharedMemorySize < shared) {
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device '%s' offers %u bytes of shared memory "
               "per workgroup; fssim3d needs %d with window=%d. Use a smaller window.\n",
               name, lim->maxComputeSharedMemorySize, shared, s->opts.window);
        return AVERROR(ENOSYS);
    }
    return 0;
}

/* The layout of the ring and the dispatches: everything but the device
 * objects, so that the ring's size is known before anything can fail. */
static void setup_comps(FSSIM3DContext *s, VulkanBackend *b)
{
    const FSSIMRefFloatParams fp = { s->opts.window, s->opts.sigma, s->opts.padding };
    const int off = s->opts.padding == FSSIM_REF_PAD_VALID ? s->opts.window / 2 : 0;
    const double L = (double)((1 << s->fmt.depth) - 1);
    uint32_t parts = 0;

    b->slot_bytes = 0;
    for (int c = 0; c < s->fmt.nb_comps; c++) {
        const FSSIMPlane *p = &s->fmt.comp[c];
        VkComp *vc = &b->comp[c];
        int ow, oh;

        /* ff_fssim_check_options() made sure every plane scores something */
        fssim_ref_float_out_size(p->width, p->height, &fp, &ow, &oh);
        memset(vc, 0, sizeof(*vc));
        vc->mp = (FSSIM3DVkMomentsPush) {
            .size     = { p->width, p->height },
            .out_size = { ow, oh },
            .offset   = off,
            .plane    = p->plane,
            .chan     = p->offset / p->bytes,
            .shift    = p->shift,
        };
        vc->groups[0]    = (ow + TILE_W - 1) / TILE_W;
        vc->groups[1]    = (oh + TILE_H - 1) / TILE_H;
        vc->score_groups = ((size_t)ow * oh + SCORE_CHUNK - 1) / SCORE_CHUNK;
        vc->hi_off       = b->slot_bytes;
        b->slot_bytes   += align_buf((size_t)ow * oh * RECORD_HI);
        vc->lo_off       = b->slot_bytes;
        b->slot_bytes   += align_buf((size_t)ow * oh * RECORD_LO);
        vc->sp = (FSSIM3DVkScorePush) {
            .c1       = (0.01 * L) * (0.01 * L),
            .c2       = (0.03 * L) * (0.03 * L),
            .n        = (uint32_t)ow * oh,
            .hi_off   = vc->hi_off,
            .lo_off   = vc->lo_off,
            .part_off = parts,
            .nb_parts = vc->score_groups,
            .comp     = c,
        };
        parts += vc->score_groups;
    }
    b->nb_parts  = parts;
    b->io_stride = align_buf(sizeof(FSSIM3DVkIO));
}

static int init_shader(AVFilterContext *ctx, VulkanBackend *b, FFVulkanShader *shd, int mode)
{
    FSSIM3DContext *s = ctx->priv;
    FFVulkanContext *vkctx = &b->vkctx;
    const int moments = mode < 0;
    FFVulkanDescriptorSetBinding desc[BIND_IMG_NB];
    const int nb = moments ? BIND_IMG_NB : BIND_SCORE_NB;
    double g[FSSIM_REF_MAX_WINDOW] = { 0 };
    int err;

    for (int i = 0; i < nb; i++)
        desc[i] = (FFVulkanDescriptorSetBinding) {
            .type   = moments ? VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE :
                                VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .stages = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    SPEC_LIST_CREATE(sl, 17, 17 * sizeof(uint64_t))

    if (moments) {
        fssim_ref_gauss_weights(s->opts.window, s->opts.sigma, g);
        SPEC_LIST_ADD(sl, 0, 32, s->opts.window / 2);
        /* the reference's weights, bit for bit */
        for (int i = 0; i < 15; i++)
            SPEC_LIST_ADD(sl, 1 + i, 64, av_double2int(g[i]));
    } else {
        SPEC_LIST_ADD(sl, 0, 32, mode);
    }

    ff_vk_shader_load(shd, VK_SHADER_STAGE_COMPUTE_BIT, sl,
                      (uint32_t []) { WG_SIZE, 1, 1 }, 0);
    RET(add_descriptor_set(vkctx, shd, desc, nb));
    RET(ff_vk_shader_add_push_const(shd, 0, moments ? sizeof(FSSIM3DVkMomentsPush) :
                                                      sizeof(FSSIM3DVkScorePush),
                                    VK_SHADER_STAGE_COMPUTE_BIT));
    if (moments)
        RET(ff_vk_shader_link(vkctx, shd, (const char *)ff_fssim3d_moments_comp_spv_data,
                              ff_fssim3d_moments_comp_spv_len, "main"));
    else
        RET(ff_vk_shader_link(vkctx, shd, (const char *)ff_fssim3d_score_comp_spv_data,
                              ff_fssim3d_score_comp_spv_len, "main"));
    /* the list lives on this stack frame */
    shd->specialization_info = NULL;
    RET(ff_vk_shader_register_exec(vkctx, &b->e, shd));
    return 0;

fail:
    shd->specialization_info = NULL;
    return err;
}

static void init_timestamps(AVFilterContext *ctx, VulkanBackend *b)
{
    FFVulkanContext *vkctx = &b->vkctx;
    FFVulkanFunctions *vk = &vkctx->vkfn;
    const uint32_t bits = vkctx->qf_props[b->qf.idx].queueFamilyProperties.timestampValidBits;
    VkQueryPoolCreateInfo info = {
        .sType      = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType  = VK_QUERY_TYPE_TIMESTAMP,
        .queryCount = NB_TS * NB_EXEC,
    };

    /* Only for the GPU time statistics: carry on without them. */
    b->write_ts = (PFN_vkCmdWriteTimestamp)vk->GetDeviceProcAddr(vkctx->hwctx->act_dev,
                                                                 "vkCmdWriteTimestamp");
    if (!bits || !b->write_ts ||
        vk->CreateQueryPool(vkctx->hwctx->act_dev, &info, vkctx->hwctx->alloc,
                            &b->ts_pool) != VK_SUCCESS) {
        b->ts_pool = VK_NULL_HANDLE;
        av_log(ctx, AV_LOG_VERBOSE, "No timestamp queries: GPU time not measured.\n");
        return;
    }
    b->ts_mask   = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    b->ts_period = vkctx->props.properties.limits.timestampPeriod;
}

static int vk_init(AVFilterContext *ctx, size_t *bytes)
{
    FSSIM3DContext *s = ctx->priv;
    FilterLink *ml = ff_filter_link(ctx->inputs[0]);
    const VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    AVVulkanDeviceQueueFamily *qf;
    FFVulkanContext *vkctx;
    VulkanBackend *b;
    int err;

    b = s->backend_priv = av_mallocz(sizeof(*b));
    if (!b)
        return AVERROR(ENOMEM);
    vkctx = &b->vkctx;

    /* the ring's size first, so that it is reported even if a step fails */
    setup_comps(s, b);
    *bytes = (size_t)s->depth * b->slot_bytes;

    err = ff_vk_init(vkctx, ctx, NULL, ml->hw_frames_ctx);
    if (err < 0)
        return err;
    b->initialized = 1;
    RET(check_device(ctx, b));

    qf = ff_vk_qf_find(vkctx, VK_QUEUE_COMPUTE_BIT, 0);
    if (!qf) {
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device has no compute queue.\n");
        return AVERROR(ENOTSUP);
    }
    b->qf = *qf;
    b->qf.num = 1;
    RET(ff_vk_exec_pool_init(vkctx, &b->qf, &b->e, NB_EXEC, 0, 0, 0, NULL));

    /* Allocated once: nothing is allocated on the device per frame.  A
     * buffer per slot: no single allocation or buffer grows with depth. */
    for (int k = 0; k < s->depth; k++) {
        err = ff_vk_create_buf(vkctx, &b->ring[k], b->slot_bytes, NULL, NULL,
                               usage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                               VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        /* the ring is the one large allocation: a failure there is "too
         * little device memory" (the caller suggests a smaller depth) */
        if (err < 0)
            return AVERROR(ENOMEM);
    }
    RET(ff_vk_create_buf(vkctx, &b->partials, align_buf(b->nb_parts * sizeof(double)),
                         NULL, NULL, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
    RET(ff_vk_create_buf(vkctx, &b->io, b->io_stride * NB_EXEC, NULL, NULL, usage,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                         VK_MEMORY_PROPERTY_HOST_COHERENT_BIT));
    RET(ff_vk_map_buffer(vkctx, &b->io, &b->io_map, 0));

    RET(init_shader(ctx, b, &b->shd_moments, -1));
    RET(init_shader(ctx, b, &b->shd_score, 0));
    RET(init_shader(ctx, b, &b->shd_sum, 1));
    init_timestamps(ctx, b);

    av_log(ctx, AV_LOG_VERBOSE, "Vulkan device '%s': %zu bytes a ring slot, %u score "
           "workgroups, %d bytes of shared memory in the spatial pass.\n",
           vkctx->props.properties.deviceName, b->slot_bytes, b->nb_parts,
           moments_shared_bytes(s->opts.window / 2));
    return 0;

fail:
    return err;
}

/* ---- per frame -------------------------------------------------------- */

static const char *job_name(int kind)
{
    return kind == JOB_MOMENTS ? "spatial moments of frame pair" : "scores of frame";
}

/* A command buffer that could not be started or submitted: its fence was
 * reset and will never signal, so ff_vk_exec_pool_free() must not wait on
 * it (that wait has no timeout).  ff_vk_exec_submit() has logged the
 * VkResult; say what it was for. */
static int submit_failed(AVFilterContext *ctx, FFVkExecContext *exec, int kind,
                         int64_t n, int err)
{
    FSSIM3DContext *s = ctx->priv;
    VulkanBackend *b = s->backend_priv;

    exec->had_submission = 0;
    b->failed = AVERROR_EXTERNAL;
    av_log(ctx, AV_LOG_ERROR, "Submitting the %s %"PRId64" to the Vulkan device failed: "
           "%s. No score is published after it.\n", job_name(kind), n, av_err2str(err));
    return b->failed;
}

/* A fence that reports an error (VK_ERROR_DEVICE_LOST...): the ring and the
 * sums hold an older frame's values or garbage, never published. */
static int fence_failed(AVFilterContext *ctx, VkResult res, const VkJob *job)
{
    FSSIM3DContext *s = ctx->priv;
    VulkanBackend *b = s->backend_priv;

    b->failed = AVERROR_EXTERNAL;
    av_log(ctx, AV_LOG_ERROR, "Vulkan error while waiting for the %s %"PRId64": %s. "
           "Its scores and those of the frames after it are not published.\n",
           job_name(job->kind), job->n, ff_vk_ret2str(res));
    return b->failed;
}

static void read_gpu_time(VulkanBackend *b, FFVkExecContext *exec, int kind)
{
    FFVulkanContext *vkctx = &b->vkctx;
    uint64_t ts[NB_TS];
    double us;

    if (!b->ts_pool ||
        vkctx->vkfn.GetQueryPoolResults(vkctx->hwctx->act_dev, b->ts_pool, NB_TS * exec->idx,
                                        NB_TS, sizeof(ts), ts, sizeof(ts[0]),
                                        VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
        return;
    us = ((ts[1] - ts[0]) & b->ts_mask) * b->ts_period * 1e-3;
    if (kind == JOB_MOMENTS) {
        b->moments_us += us;
        b->nb_moments_ts++;
    } else {
        b->score_us += us;
        b->nb_score_ts++;
    }
}

/* Wait until the last job of an execution context is done, check its fence
 * and release what it held (the frames, their image views).  ff_vk_exec_start()
 * and ff_vk_exec_wait() would ignore the VkResult. */
static int job_done(AVFilterContext *ctx, VulkanBackend *b, FFVkExecContext *exec)
{
    FFVulkanContext *vkctx = &b->vkctx;
    VkJob *job = &b->job[exec->idx];
    VkResult res;

    if (job->kind == JOB_NONE)
        return 0;
    res = vkctx->vkfn.WaitForFences(vkctx->hwctx->act_dev, 1, &exec->fence, VK_TRUE,
                                    UINT64_MAX);
    if (res != VK_SUCCESS)
        return fence_failed(ctx, res, job);
    ff_vk_exec_discard_deps(vkctx, exec);
    read_gpu_time(b, exec, job->kind);
    job->kind = JOB_NONE;
    return 0;
}

static void write_ts(VulkanBackend *b, FFVkExecContext *exec, int i)
{
    FFVulkanFunctions *vk = &b->vkctx.vkfn;

    if (!b->ts_pool)
        return;
    if (!i)
        vk->CmdResetQueryPool(exec->buf, b->ts_pool, NB_TS * exec->idx, NB_TS);
    b->write_ts(exec->buf, i ? VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT :
                               VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                b->ts_pool, NB_TS * exec->idx + i);
}

static void memory_barrier(FFVulkanFunctions *vk, FFVkExecContext *exec,
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

/* A job that failed before anything was recorded: submit the empty command
 * buffer so that the context's fence signals again. */
static int abandon(AVFilterContext *ctx, FFVkExecContext *exec, int kind, int64_t n, int err)
{
    FSSIM3DContext *s = ctx->priv;
    VulkanBackend *b = s->backend_priv;

    ff_vk_exec_discard_deps(&b->vkctx, exec);
    if (ff_vk_exec_submit(&b->vkctx, exec) < 0)
        submit_failed(ctx, exec, kind, n, err);
    return err;
}

static int vk_moments(AVFilterContext *ctx, int slot, const AVFrame *main,
                      const AVFrame *ref)
{
    FSSIM3DContext *s = ctx->priv;
    VulkanBackend *b = s->backend_priv;
    FFVulkanContext *vkctx = &b->vkctx;
    FFVulkanFunctions *vk = &vkctx->vkfn;
    const int nb_planes = av_pix_fmt_count_planes(s->fmt.pix_fmt);
    /* split inputs share the frame: one dependency, one barrier */
    const int same = main->data[0] == ref->data[0];
    /* FFmpeg's helpers take the frames as writable: they lock them and
     * record their new layout, never change the AVFrame */
    AVFrame *mf = (AVFrame *)main, *rf = (AVFrame *)ref;
    VkImageView mv[AV_NUM_DATA_POINTERS], rv[AV_NUM_DATA_POINTERS];
    VkImageMemoryBarrier2 img_bar[8];
    const int64_t n = b->nb_pairs;
    int nb_img_bar = 0, err;
    FFVkExecContext *exec;

    /* a failed device runs nothing reliably any more */
    if (b->failed)
        return b->failed;
    exec = ff_vk_exec_get(vkctx, &b->e);
    err = job_done(ctx, b, exec);
    if (err < 0)
        return err;
    err = ff_vk_exec_start(vkctx, exec);
    if (err < 0)
        return submit_failed(ctx, exec, JOB_MOMENTS, n, err);

    /* the frames stay referenced until the job is done */
    RET(ff_vk_exec_add_dep_frame(vkctx, exec, mf, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                 VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT));
    RET(ff_vk_create_imageviews(vkctx, exec, mv, mf, FF_VK_REP_UINT));
    if (!same) {
        RET(ff_vk_exec_add_dep_frame(vkctx, exec, rf, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                     VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT));
        RET(ff_vk_create_imageviews(vkctx, exec, rv, rf, FF_VK_REP_UINT));
    } else {
        memcpy(rv, mv, sizeof(rv));
    }

    write_ts(b, exec, 0);
    ff_vk_frame_barrier(vkctx, exec, mf, img_bar, &nb_img_bar,
                        VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_SHADER_READ_BIT,
                        VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                        VK_QUEUE_FAMILY_IGNORED);
    if (!same)
        ff_vk_frame_barrier(vkctx, exec, rf, img_bar, &nb_img_bar,
                            VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                            VK_ACCESS_SHADER_READ_BIT,
                            VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                            VK_QUEUE_FAMILY_IGNORED);
    /* the slot's earlier readers (score jobs) and writers, on this queue */
    memory_barrier(vk, exec, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                   VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                   img_bar, nb_img_bar);

    for (int i = 0; i < MAX_PLANES; i++) {
        const int p = FFMIN(i, nb_planes - 1);
        ff_vk_shader_update_img(vkctx, exec, &b->shd_moments, 0, BIND_MAIN + i, 0, mv[p],
                                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_NULL_HANDLE);
        ff_vk_shader_update_img(vkctx, exec, &b->shd_moments, 0, BIND_REF + i, 0, rv[p],
                                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_NULL_HANDLE);
    }
    ff_vk_exec_bind_shader(vkctx, exec, &b->shd_moments);
    for (int c = 0; c < s->fmt.nb_comps; c++) {
        VkComp *vc = &b->comp[c];
        const uint64_t hi = b->ring[slot].address + vc->hi_off;
        const uint64_t lo = b->ring[slot].address + vc->lo_off;

        vc->mp.hi_addr[0] = (uint32_t)hi;
        vc->mp.hi_addr[1] = (uint32_t)(hi >> 32);
        vc->mp.lo_addr[0] = (uint32_t)lo;
        vc->mp.lo_addr[1] = (uint32_t)(lo >> 32);
        ff_vk_shader_update_push_const(vkctx, exec, &b->shd_moments,
                                       VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(vc->mp), &vc->mp);
        vk->CmdDispatch(exec->buf, vc->groups[0], vc->groups[1], 1);
    }
    write_ts(b, exec, 1);

    err = ff_vk_exec_submit(vkctx, exec);
    if (err < 0)
        return submit_failed(ctx, exec, JOB_MOMENTS, n, err);
    b->job[exec->idx] = (VkJob) { JOB_MOMENTS, n };
    b->nb_pairs++;
    return 0;

fail:
    return abandon(ctx, exec, JOB_MOMENTS, n, err);
}

static int vk_score(AVFilterContext *ctx, const FSSIM3DWindow *win, FSSIMScores *sc)
{
    FSSIM3DContext *s = ctx->priv;
    VulkanBackend *b = s->backend_priv;
    FFVulkanContext *vkctx = &b->vkctx;
    FFVulkanFunctions *vk = &vkctx->vkfn;
    /* frames are scored in order, from frame out.first_n on */
    const int64_t n = b->nb_scored + s->out.first_n;
    FSSIM3DVkIO *io;
    FFVkExecContext *exec;
    uint32_t nb_taps = 0;
    size_t off;
    int err;

    /* After a failure nothing the device holds can be trusted: the ring
     * may lack a frame's moments.  Held frames are not scored at uninit
     * then. */
    if (b->failed)
        return b->failed;
    exec = ff_vk_exec_get(vkctx, &b->e);
    err = job_done(ctx, b, exec);
    if (err < 0)
        return err;
    off = exec->idx * b->io_stride;
    io  = (FSSIM3DVkIO *)(b->io_map + off);

    /* the taps of non-zero weight, in window order, as the reference sums
     * them; this context's previous job, which read io, is done */
    for (int k = 0; k < win->depth; k++) {
        if (win->slot[k] < 0)
            continue;
        io->wt[nb_taps]   = win->wt[k];
        io->slot[nb_taps] = b->ring[win->slot[k]].address;
        nb_taps++;
    }

    err = ff_vk_exec_start(vkctx, exec);
    if (err < 0)
        return submit_failed(ctx, exec, JOB_SCORE, n, err);
    write_ts(b, exec, 0);
    /* the moments jobs submitted before, on this queue */
    memory_barrier(vk, exec, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                   VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                   NULL, 0);
    for (int pass = 0; pass < 2; pass++) {
        FFVulkanShader *shd = pass ? &b->shd_sum : &b->shd_score;

        ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, BIND_WINDOW, 0, &b->io, off,
                                        offsetof(FSSIM3DVkIO, sums), VK_FORMAT_UNDEFINED);
        ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, BIND_PARTIALS, 0, &b->partials,
                                        0, b->partials.size, VK_FORMAT_UNDEFINED);
        ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, BIND_RESULTS, 0, &b->io,
                                        off + offsetof(FSSIM3DVkIO, sums), sizeof(io->sums),
                                        VK_FORMAT_UNDEFINED);
        ff_vk_exec_bind_shader(vkctx, exec, shd);
        for (int c = 0; c < s->fmt.nb_comps; c++) {
            VkComp *vc = &b->comp[c];
            vc->sp.nb_taps = nb_taps;
            ff_vk_shader_update_push_const(vkctx, exec, shd, VK_SHADER_STAGE_COMPUTE_BIT,
                                           0, sizeof(vc->sp), &vc->sp);
            vk->CmdDispatch(exec->buf, pass ? 1 : vc->score_groups, 1, 1);
        }
        /* the partial sums, then the sums for the host */
        if (pass)
            memory_barrier(vk, exec, VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT,
                           NULL, 0);
        else
            memory_barrier(vk, exec, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                           VK_ACCESS_2_SHADER_STORAGE_READ_BIT, NULL, 0);
    }
    write_ts(b, exec, 1);

    err = ff_vk_exec_submit(vkctx, exec);
    if (err < 0)
        return submit_failed(ctx, exec, JOB_SCORE, n, err);
    b->job[exec->idx] = (VkJob) { JOB_SCORE, n };
    b->nb_scored++;

    /* the frame goes out now: its scores are needed */
    err = job_done(ctx, b, exec);
    /* its fence covers every job submitted before it: release their frames */
    for (int i = 0; i < b->e.pool_size && err >= 0; i++)
        err = job_done(ctx, b, &b->e.contexts[i]);
    if (err < 0)
        return err;

    if (!(b->io.flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
        err = ff_vk_flush_buffer(vkctx, &b->io, off, b->io_stride, 0);
        if (err < 0)
            return err;
    }
    for (int c = 0; c < s->fmt.nb_comps; c++)
        sc->score[0][c] = io->sums[c] / (double)b->comp[c].sp.n;
    return 0;
}

/*
 * Wait until our queue is done with every batch submitted so far.  With
 * emulated timeline semaphores (Mesa's common queue code, as in lavapipe) a
 * queue thread runs the batches and, after a batch's fence and semaphores
 * have signalled, still drops its references to the semaphores it waited
 * on.  The frames this backend lets go of at uninit can be the last
 * references to their pools, whose teardown destroys the frames'
 * semaphores at once: a batch that waited on one of them would then be
 * retired by that thread on freed memory.  An empty batch is retired after
 * every earlier one on its queue, so its fence covers them all (and every
 * job of this backend ran on that one queue).
 */
static void retire_queue(VulkanBackend *b)
{
    FFVulkanContext *vkctx = &b->vkctx;
    FFVkExecContext *exec;

    /* after a GPU error a context's fence may never signal */
    if (!b->e.contexts || b->failed)
        return;
    exec = ff_vk_exec_get(vkctx, &b->e);
    if (ff_vk_exec_start(vkctx, exec) < 0 || ff_vk_exec_submit(vkctx, exec) < 0) {
        /* its fence is reset and never signals: see submit_failed() */
        exec->had_submission = 0;
        return;
    }
    vkctx->vkfn.WaitForFences(vkctx->hwctx->act_dev, 1, &exec->fence, VK_TRUE, UINT64_MAX);
}

static void vk_uninit(AVFilterContext *ctx)
{
    FSSIM3DContext *s = ctx->priv;
    VulkanBackend *b = s->backend_priv;
    FFVulkanContext *vkctx;

    if (!b)
        return;
    vkctx = &b->vkctx;
    if (b->initialized) {
        /* jobs whose frames were never scored (the run was cut short):
         * their errors, if any, no longer change what was published */
        for (int i = 0; i < b->e.pool_size && !b->failed; i++)
            job_done(ctx, b, &b->e.contexts[i]);
        retire_queue(b);

        if (b->nb_moments_ts && b->nb_score_ts) {
            const double mus = b->moments_us / b->nb_moments_ts;
            const double sus = b->score_us / b->nb_score_ts;
            av_log(ctx, AV_LOG_VERBOSE, "GPU time per frame pair: %.1f us over %"PRIu64
                   " frames (spatial moments %.1f us, temporal window and score %.1f us; "
                   "%s)\n", mus + sus, b->nb_score_ts, mus, sus,
                   vkctx->props.properties.deviceName);
        }

        ff_vk_exec_pool_free(vkctx, &b->e);
        ff_vk_shader_free(vkctx, &b->shd_moments);
        ff_vk_shader_free(vkctx, &b->shd_score);
        ff_vk_shader_free(vkctx, &b->shd_sum);
        for (int k = 0; k < FSSIM3D_MAX_DEPTH; k++)
            ff_vk_free_buf(vkctx, &b->ring[k]);
        ff_vk_free_buf(vkctx, &b->partials);
        ff_vk_free_buf(vkctx, &b->io);
        if (b->ts_pool)
            vkctx->vkfn.DestroyQueryPool(vkctx->hwctx->act_dev, b->ts_pool,
                                         vkctx->hwctx->alloc);
        ff_vk_uninit(vkctx);
    }
    av_freep(&s->backend_priv);
}

const FSSIM3DBackend ff_fssim3d_vulkan_backend = {
    .name         = "Vulkan",
    .storage      = "device memory, 24 bytes per position (mu_a, mu_b, var_a + var_b, cov "
                    "as doubles rounded to 48 bits)",
    .check_inputs = vk_check_inputs,
    .init         = vk_init,
    .moments      = vk_moments,
    .score        = vk_score,
    .uninit       = vk_uninit,
};
