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
 * fssim_vulkan: SSIM (integer, Gaussian, block) between two streams of
 * Vulkan frames, read in place on the GPU (Vulkan Video decode, hwupload,
 * scale_vulkan).  One fused compute dispatch per plane computes every
 * requested algorithm from one read of each sample; only the per-plane
 * sums come back to the host, a few frames later, so the pipeline never
 * waits on the GPU.
 */
#include <float.h>
#include <inttypes.h>
#include <string.h>

#include "libavutil/intfloat.h"
#include "libavutil/mem.h"
#include "libavutil/opt.h"
#include "libavutil/pixdesc.h"
#include "libavutil/version.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/filters.h"
#include "libavfilter/formats.h"
#include "libavfilter/framesync.h"
#include "libavfilter/video.h"
#include "libavfilter/vulkan_filter.h"

#include "fssim_common.h"
#include "fssim_ref.h"

extern const unsigned char ff_fssim_comp_spv_data[];
extern const unsigned int  ff_fssim_comp_spv_len;
extern const unsigned char ff_fssim_f32_comp_spv_data[];
extern const unsigned int  ff_fssim_f32_comp_spv_len;

/* Tile and workgroup shape: keep in sync with fssim_core.glsl. */
#define TILE_W      16
#define TILE_H      16
#define WG_SIZE     (TILE_W * TILE_H)
#define MAX_RADIUS  7
#define MAX_PLANES  4
#define INT_RADIUS  FSSIM_REF_INT_RADIUS
/* Execution contexts: frames in flight plus the one being recorded.  A
 * scored frame is held until its sums are read back. */
#define NB_EXEC     8
#define MAX_HELD    (NB_EXEC - 2)
#define RES_WORDS   8           /* result words per plane, see reduce_main() */
#define BUF_ALIGN   256         /* >= minStorageBufferOffsetAlignment anywhere */
#define NB_TS       3           /* timestamps: start, tiles done, end */

/* Descriptor bindings, as in fssim_core.glsl. */
enum { BIND_MAIN = 0, BIND_REF = BIND_MAIN + MAX_PLANES, BIND_PART_F = BIND_REF + MAX_PLANES,
       BIND_PART_D, BIND_WIN, BIND_RES, BIND_NB };

enum { SPEC_MODE, SPEC_ALGOS, SPEC_RF, SPEC_HALO, SPEC_DEEP, SPEC_WIDE,
       SPEC_C1F, SPEC_C2F, SPEC_G0, SPEC_C1BASE = SPEC_G0 + 15, SPEC_C2BASE,
       SPEC_BC1, SPEC_BC2, SPEC_SG };

/* Push constants, laid out as PushData in fssim_core.glsl. */
typedef struct FSSIMVkPush {
    int32_t  size[2];
    int32_t  frect[4];
    int32_t  nwin[2];
    int32_t  plane, chan, shift, tiles_x;
    uint32_t part_off, nb_parts, win_off, res_off;
} FSSIMVkPush;

typedef struct FSSIMVkPlane {
    FSSIMVkPush pc;
    int      tiles_y;
    double   nb_float;   /* positions scored by float */
    uint64_t int_w;      /* sum of the int weights of every pixel */
    double   nb_block;   /* 8x8 windows */
} FSSIMVkPlane;

typedef struct FSSIMVkPending {
    AVFrame *frame;
    FFVkExecContext *exec;  /* NULL: passed through without scores */
    uint64_t n;             /* index among the frames scored, for messages */
} FSSIMVkPending;

typedef struct FSSIMVulkanContext {
    const AVClass *class;
    FFFrameSync fs;
    FSSIMOptions opts;
    FSSIMOutput out;
    FSSIMFormat fmt;

    FFVulkanContext vkctx;
    int initialized;
    int fp64;                     /* the shader with int and block */
    uint32_t subgroup_size;       /* 0: shared-memory reductions */
    AVVulkanDeviceQueueFamily *qf;
    FFVkExecPool e;
    FFVulkanShader shd_tile, shd_reduce;
    FSSIMVkPlane planes[4];

    /* Per execution context: partial sums of the workgroups, and the
     * block window values of deep frames; results in host memory. */
    FFVkBuffer scratch, results;
    uint8_t *results_map;
    size_t part_f_off, part_d_off, win_off, scratch_stride;
    size_t part_f_size, part_d_size, win_size, res_stride;

    /* GPU time per frame, from timestamp queries */
    VkQueryPool ts_pool;
    PFN_vkCmdWriteTimestamp write_ts;
    uint64_t ts_mask;
    double ts_period;
    double gpu_sum, gpu_min, gpu_max, gpu_tiles;
    uint64_t gpu_frames;

    FSSIMVkPending pending[NB_EXEC];
    int pend_head, nb_pending;
    uint64_t nb_scored;
    /* A submission or a fence failed: the device is not trusted for the
     * rest of the run, and no score is read from it any more. */
    int gpu_failed;
} FSSIMVulkanContext;

static const AVOption fssim_vulkan_options[] = {
    FSSIM_ALGO_OPTIONS(FSSIMVulkanContext, opts),
    FSSIM_OUTPUT_OPTIONS(FSSIMVulkanContext, opts),
    { NULL }
};

FRAMESYNC_DEFINE_CLASS(fssim_vulkan, FSSIMVulkanContext, fs);

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

/* ---- configuration ---------------------------------------------------- */

static int query_formats(const AVFilterContext *ctx,
                         AVFilterFormatsConfig **cfg_in,
                         AVFilterFormatsConfig **cfg_out)
{
    /* Software formats are accepted here only to fail in config_input_ref
     * with a message that says how to get Vulkan frames. */
    for (int i = 0; i < 2; i++) {
        AVFilterFormats *f = ff_make_format_list((const int *)ff_fssim_sw_pix_fmts);
        int ret = f ? ff_add_format(&f, AV_PIX_FMT_VULKAN) : AVERROR(ENOMEM);
        if (ret < 0)
            return ret;
        if ((ret = ff_formats_ref(f, &cfg_in[i]->formats)) < 0)
            return ret;
        /* the output is the main input's frames */
        if (!i && (ret = ff_formats_ref(f, &cfg_out[0]->formats)) < 0)
            return ret;
    }
    return 0;
}

static AVHWFramesContext *input_frames(AVFilterLink *link)
{
    FilterLink *l = ff_filter_link(link);
    return l->hw_frames_ctx ? (AVHWFramesContext *)l->hw_frames_ctx->data : NULL;
}

static int check_vulkan_input(AVFilterContext *ctx, AVFilterLink *link, const char *name)
{
    AVHWFramesContext *fc = input_frames(link);

    if (link->format != AV_PIX_FMT_VULKAN || !fc || fc->format != AV_PIX_FMT_VULKAN) {
        av_log(ctx, AV_LOG_ERROR, "The %s input carries %s frames, fssim_vulkan scores Vulkan "
               "frames. Decode with -hwaccel vulkan -hwaccel_output_format vulkan, or upload "
               "with hwupload (-init_hw_device vulkan=vk -filter_hw_device vk); for software "
               "frames use the fssim filter.\n", name,
               av_get_pix_fmt_name(link->format));
        return AVERROR(EINVAL);
    }
    return 0;
}

static int config_input_ref(AVFilterLink *inlink)
{
    AVFilterContext *ctx = inlink->dst;
    FSSIMVulkanContext *s = ctx->priv;
    AVFilterLink *mainlink = ctx->inputs[0];
    AVHWFramesContext *mf, *rf;
    AVVulkanDeviceContext *md, *rd;
    int ret;

    if ((ret = check_vulkan_input(ctx, mainlink, "main")) < 0 ||
        (ret = check_vulkan_input(ctx, inlink, "reference")) < 0)
        return ret;
    mf = input_frames(mainlink);
    rf = input_frames(inlink);

    md = mf->device_ctx->hwctx;
    rd = rf->device_ctx->hwctx;
    if (md->act_dev != rd->act_dev) {
        av_log(ctx, AV_LOG_ERROR, "The main and reference inputs are on different Vulkan "
               "devices. Decode or upload both with the same device: one -init_hw_device "
               "vulkan=vk, and -hwaccel_device vk / -filter_hw_device vk for both inputs.\n");
        return AVERROR(EINVAL);
    }

    ret = ff_fssim_check_inputs(ctx, mainlink->w, mainlink->h, mf->sw_format,
                                inlink->w, inlink->h, rf->sw_format, "scale_vulkan");
    if (ret < 0)
        return ret;
    ret = ff_fssim_format_init(ctx, &s->fmt, mf->sw_format, mainlink->w, mainlink->h);
    if (ret < 0)
        return ret;
    if (!av_vkfmt_from_pixfmt(mf->sw_format)) {
        av_log(ctx, AV_LOG_ERROR, "Pixel format %s has no Vulkan representation. Convert "
               "it first, e.g. with scale_vulkan=format=nv12.\n",
               av_get_pix_fmt_name(mf->sw_format));
        return AVERROR(ENOSYS);
    }
    ret = ff_fssim_check_options(ctx, &s->opts, &s->fmt);
    if (ret < 0)
        return ret;
    return ff_fssim_output_config(ctx, &s->out, &s->fmt);
}

/* Sum over the positions of a line of n of the int taps inside it. */
static uint64_t int_line_weight(int n)
{
    uint64_t sum = 0;
    for (int x = 0; x < n; x++)
        for (int j = -INT_RADIUS; j <= INT_RADIUS; j++)
            if (x + j >= 0 && x + j < n)
                sum += fssim_ref_int_taps[j + INT_RADIUS];
    return sum;
}

static void setup_planes(FSSIMVulkanContext *s)
{
    const FSSIMRefFloatParams fp = { s->opts.window, s->opts.sigma, s->opts.padding };
    const int r = s->opts.window / 2;
    const int deep_block = (s->opts.algos & FSSIM_FLAG(FSSIM_BLOCK)) && s->fmt.depth > 8;
    uint32_t parts = 0, wins = 0;

    for (int c = 0; c < s->fmt.nb_comps; c++) {
        const FSSIMPlane *cp = &s->fmt.comp[c];
        FSSIMVkPlane *p = &s->planes[c];
        FSSIMVkPush *pc = &p->pc;
        int ow = 0, oh = 0, nx = 0, ny = 0;

        memset(p, 0, sizeof(*p));
        pc->size[0] = cp->width;
        pc->size[1] = cp->height;
        if ((s->opts.algos & FSSIM_FLAG(FSSIM_FLOAT)) &&
            fssim_ref_float_out_size(cp->width, cp->height, &fp, &ow, &oh) == 0) {
            const int off = s->opts.padding == FSSIM_REF_PAD_VALID ? r : 0;
            pc->frect[0] = off;
            pc->frect[1] = off;
            pc->frect[2] = off + ow;
            pc->frect[3] = off + oh;
        }
        if (s->opts.algos & FSSIM_FLAG(FSSIM_BLOCK))
            fssim_ref_block_windows(cp->width, cp->height, &nx, &ny);
        pc->nwin[0]  = nx;
        pc->nwin[1]  = ny;
        pc->plane    = cp->plane;
        pc->chan     = cp->offset / cp->bytes;
        pc->shift    = cp->shift;
        pc->tiles_x  = (cp->width + TILE_W - 1) / TILE_W;
        p->tiles_y   = (cp->height + TILE_H - 1) / TILE_H;
        pc->part_off = parts;
        pc->nb_parts = pc->tiles_x * p->tiles_y;
        pc->win_off  = wins;
        pc->res_off  = c * RES_WORDS;
        parts += pc->nb_parts;
        if (deep_block)
            wins += nx * ny;

        p->nb_float = (double)ow * oh;
        p->nb_block = (double)nx * ny;
        p->int_w    = int_line_weight(cp->width) * int_line_weight(cp->height);
    }

    s->part_f_size = align_buf(sizeof(float) * parts);
    s->part_d_size = align_buf(s->fp64 ? 2 * sizeof(double) * parts : 0);
    s->win_size    = align_buf(sizeof(float) * wins);
    s->part_f_off  = 0;
    s->part_d_off  = s->part_f_size;
    s->win_off     = s->part_d_off + s->part_d_size;
    s->scratch_stride = s->win_off + s->win_size;
    s->res_stride  = align_buf(sizeof(uint32_t) * RES_WORDS * s->fmt.nb_comps);
}

/* Shared memory of a tile workgroup, as fssim_core.glsl sizes it: the
 * samples of the tile and its halo, the horizontal sums (also the
 * reduction's staging area), the 4x4 blocks and the taps.  The staging
 * area (HBUF_R) holds one slot per subgroup (subgroups of >= 4, see
 * check_device()) or per invocation, each a float pair and a double pair:
 * 6 words. */
static int shared_bytes(const FSSIMVulkanContext *s, int halo)
{
    const int algos = s->opts.algos, rf = s->opts.window / 2;
    const int hf = algos & FSSIM_FLAG(FSSIM_FLOAT) ? 5 * (TILE_H + 2 * rf) * TILE_W : 0;
    const int hi = algos & FSSIM_FLAG(FSSIM_INT) ?
                   (s->fmt.depth > 12 ? 8 : 5) * (TILE_H + 2 * INT_RADIUS) * TILE_W : 0;
    const int hr = 6 * (s->subgroup_size ? WG_SIZE / 4 : WG_SIZE);  /* 6 * NSLOT */
    const int blk = algos & FSSIM_FLAG(FSSIM_BLOCK) ? (TILE_W / 4 + 1) * (TILE_H / 4 + 1) * 6 : 1;

    return 4 * ((TILE_W + 2 * halo) * (TILE_H + 2 * halo) + FFMAX3(hf, hi, hr) + blk +
                2 * MAX_RADIUS + 1 + 9);
}

static int tile_halo(const FSSIMVulkanContext *s)
{
    int halo = 0;
    if (s->opts.algos & FSSIM_FLAG(FSSIM_FLOAT))
        halo = s->opts.window / 2;
    if (s->opts.algos & (FSSIM_FLAG(FSSIM_INT) | FSSIM_FLAG(FSSIM_BLOCK)))
        halo = FFMAX(halo, INT_RADIUS);
    return halo;
}

/* doc/errors.md: name the missing feature and the way out. */
static int check_device(AVFilterContext *ctx)
{
    FSSIMVulkanContext *s = ctx->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    const char *name = vkctx->props.properties.deviceName;
    const VkPhysicalDeviceFeatures *feats = &vkctx->hwctx->device_features.features;
    const VkPhysicalDeviceVulkan11Properties *p11 = &vkctx->props_11;
    const VkPhysicalDeviceSubgroupSizeControlProperties *sgp = &vkctx->subgroup_props;
    const VkPhysicalDeviceVulkan13Features *f13 =
        ff_vk_find_struct(vkctx->hwctx->device_features.pNext,
                          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
    const uint32_t shared = vkctx->props.properties.limits.maxComputeSharedMemorySize;
    uint32_t sg;

    s->fp64 = !!(s->opts.algos & (FSSIM_FLAG(FSSIM_INT) | FSSIM_FLAG(FSSIM_BLOCK)));
    if (s->fp64 && (!feats->shaderFloat64 || !feats->shaderInt64)) {
        const int both = !feats->shaderFloat64 && !feats->shaderInt64;
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device '%s' lacks %s%s%s (or it is not enabled), "
               "which algo=int and algo=block need for their exact 64-bit arithmetic. Use "
               "algo=float on this device.\n", name,
               feats->shaderFloat64 ? "" : "shaderFloat64", both ? " and " : "",
               feats->shaderInt64 ? "" : "shaderInt64");
        return AVERROR(ENOSYS);
    }
    if (!(vkctx->props.properties.limits.maxComputeWorkGroupInvocations >= WG_SIZE)) {
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device '%s' runs fewer than %d invocations "
               "per workgroup.\n", name, WG_SIZE);
        return AVERROR(ENOSYS);
    }

    /* Reductions by subgroup shuffles need subgroups of one fixed size, all
     * full, for a fixed summation order; otherwise shared memory is used. */
    sg = av_clip(p11->subgroupSize, sgp->minSubgroupSize, sgp->maxSubgroupSize);
    s->subgroup_size = 0;
    if (f13 && f13->subgroupSizeControl && f13->computeFullSubgroups &&
        (sgp->requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
        (p11->subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
        (p11->subgroupSupportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) &&
        sg >= 4 && sg <= WG_SIZE && !(sg & (sg - 1)))
        s->subgroup_size = sg;
    if (shared < shared_bytes(s, tile_halo(s))) {
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device '%s' offers %u bytes of shared memory "
               "per workgroup; fssim_vulkan needs %d with these options.\n", name, shared,
               shared_bytes(s, tile_halo(s)));
        return AVERROR(ENOSYS);
    }
    {
        const AVVulkanFramesContext *vkfc = vkctx->hwfc;
        const int nb_planes = av_pix_fmt_count_planes(s->fmt.pix_fmt);
        const int multiplane = nb_planes > 1 && vkfc->format[1] == VK_FORMAT_UNDEFINED;
        av_log(ctx, AV_LOG_VERBOSE, "Device '%s': %s shader, %d bytes of shared memory, "
               "reductions %s%u; %s frames as %s.\n", name,
               s->fp64 ? "int/block (fp64)" : "float-only", shared_bytes(s, tile_halo(s)),
               s->subgroup_size ? "by subgroups of " : "in shared memory", s->subgroup_size,
               av_get_pix_fmt_name(s->fmt.pix_fmt),
               multiplane ? "one multi-plane image" : "one image per plane");
    }
    return 0;
}

static int init_shader(AVFilterContext *ctx, FFVulkanShader *shd, int mode)
{
    FSSIMVulkanContext *s = ctx->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    const int algos = s->opts.algos;
    const int depth = s->fmt.depth;
    const int rf = s->opts.window / 2;
    const double L = (double)((1 << depth) - 1);
    const int max = (1 << depth) - 1;
    const int halo = tile_halo(s);
    int err;
    double g[FSSIM_REF_MAX_WINDOW] = { 0 };

    FFVulkanDescriptorSetBinding desc[BIND_NB];

    /* one binding per plane of each frame, then the buffers */
    for (int i = 0; i < BIND_NB; i++)
        desc[i] = (FFVulkanDescriptorSetBinding) {
            .type   = i < BIND_PART_F ? VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE :
                                        VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .stages = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    SPEC_LIST_CREATE(sl, SPEC_SG + 1, (SPEC_SG + 1) * sizeof(uint64_t))

    fssim_ref_gauss_weights(s->opts.window, s->opts.sigma, g);

    SPEC_LIST_ADD(sl, SPEC_MODE,  32, mode);
    SPEC_LIST_ADD(sl, SPEC_ALGOS, 32, algos);
    SPEC_LIST_ADD(sl, SPEC_RF,    32, rf);
    SPEC_LIST_ADD(sl, SPEC_HALO,  32, halo);
    SPEC_LIST_ADD(sl, SPEC_DEEP,  32, depth > 8);
    SPEC_LIST_ADD(sl, SPEC_WIDE,  32, depth > 12);
    /* doc/algorithms.md#float constants, as ref_float.c computes them */
    SPEC_LIST_ADD(sl, SPEC_C1F,   32, av_float2int((float)((0.01 * L) * (0.01 * L))));
    SPEC_LIST_ADD(sl, SPEC_C2F,   32, av_float2int((float)((0.03 * L) * (0.03 * L))));
    for (int i = 0; i < 15; i++)
        SPEC_LIST_ADD(sl, SPEC_G0 + i, 32, av_float2int((float)g[i]));
    if (s->fp64) {
        /* doc/algorithms.md#int and vf_ssim.c constants, bit for bit as the reference */
        SPEC_LIST_ADD(sl, SPEC_C1BASE, 64, av_double2int(L * L * (0.01 * 0.01)));
        SPEC_LIST_ADD(sl, SPEC_C2BASE, 64, av_double2int(L * L * (0.03 * 0.03)));
        SPEC_LIST_ADD(sl, SPEC_BC1,    64, (int64_t)(.01 * .01 * max * max * 64 + .5));
        SPEC_LIST_ADD(sl, SPEC_BC2,    64, (int64_t)(.03 * .03 * max * max * 64 * 63 + .5));
    }
    SPEC_LIST_ADD(sl, SPEC_SG, 32, !!s->subgroup_size);

    ff_vk_shader_load(shd, VK_SHADER_STAGE_COMPUTE_BIT, sl,
                      (uint32_t []) { WG_SIZE, 1, 1 }, 0);
    if (s->subgroup_size)
        shd->subgroup_info = (VkPipelineShaderStageRequiredSubgroupSizeCreateInfo) {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
            .requiredSubgroupSize = s->subgroup_size,
        };
    RET(add_descriptor_set(vkctx, shd, desc, BIND_NB));
    RET(ff_vk_shader_add_push_const(shd, 0, sizeof(FSSIMVkPush), VK_SHADER_STAGE_COMPUTE_BIT));
    if (s->fp64)
        RET(ff_vk_shader_link(vkctx, shd, (const char *)ff_fssim_comp_spv_data,
                              ff_fssim_comp_spv_len, "main"));
    else
        RET(ff_vk_shader_link(vkctx, shd, (const char *)ff_fssim_f32_comp_spv_data,
                              ff_fssim_f32_comp_spv_len, "main"));
    /* the list lives on this stack frame */
    shd->specialization_info = NULL;
    RET(ff_vk_shader_register_exec(vkctx, &s->e, shd));
    return 0;

fail:
    shd->specialization_info = NULL;
    return err;
}

static int init_timestamps(AVFilterContext *ctx)
{
    FSSIMVulkanContext *s = ctx->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    FFVulkanFunctions *vk = &vkctx->vkfn;
    const uint32_t bits = vkctx->qf_props[s->qf->idx].queueFamilyProperties.timestampValidBits;
    VkQueryPoolCreateInfo info = {
        .sType      = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType  = VK_QUERY_TYPE_TIMESTAMP,
        .queryCount = NB_TS * NB_EXEC,
    };

    /* Only for the GPU time statistics: carry on without them. */
    s->write_ts = (PFN_vkCmdWriteTimestamp)vk->GetDeviceProcAddr(vkctx->hwctx->act_dev,
                                                                 "vkCmdWriteTimestamp");
    if (!bits || !s->write_ts ||
        vk->CreateQueryPool(vkctx->hwctx->act_dev, &info, vkctx->hwctx->alloc,
                            &s->ts_pool) != VK_SUCCESS) {
        s->ts_pool = VK_NULL_HANDLE;
        av_log(ctx, AV_LOG_VERBOSE, "No timestamp queries: GPU time not measured.\n");
        return 0;
    }
    s->ts_mask   = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    s->ts_period = vkctx->props.properties.limits.timestampPeriod;
    s->gpu_min   = DBL_MAX;
    return 0;
}

static int init_vulkan(AVFilterContext *ctx)
{
    FSSIMVulkanContext *s = ctx->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    FilterLink *ml = ff_filter_link(ctx->inputs[0]);
    int err;

    err = ff_vk_init(vkctx, ctx, NULL, ml->hw_frames_ctx);
    if (err < 0)
        return err;
    s->initialized = 1;

    RET(check_device(ctx));
    s->qf = ff_vk_qf_find(vkctx, VK_QUEUE_COMPUTE_BIT, 0);
    if (!s->qf) {
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device has no compute queue.\n");
        return AVERROR(ENOTSUP);
    }
    RET(ff_vk_exec_pool_init(vkctx, s->qf, &s->e, NB_EXEC, 0, 0, 0, NULL));

    setup_planes(s);
    /* Allocated once: nothing is allocated on the device per frame. */
    RET(ff_vk_create_buf(vkctx, &s->scratch, s->scratch_stride * NB_EXEC, NULL, NULL,
                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
    RET(ff_vk_create_buf(vkctx, &s->results, s->res_stride * NB_EXEC, NULL, NULL,
                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                         VK_MEMORY_PROPERTY_HOST_COHERENT_BIT));
    RET(ff_vk_map_buffer(vkctx, &s->results, &s->results_map, 0));

    RET(init_shader(ctx, &s->shd_tile, 0));
    RET(init_shader(ctx, &s->shd_reduce, 1));
    return init_timestamps(ctx);

fail:
    return err;
}

static int config_output(AVFilterLink *outlink)
{
    AVFilterContext *ctx = outlink->src;
    FSSIMVulkanContext *s = ctx->priv;
    int ret;

    ret = init_vulkan(ctx);
    if (ret < 0)
        return ret;
    /* the main input's frames go out untouched */
    return ff_fssim_config_output(outlink, &s->fs, &s->out);
}

/* ---- per frame -------------------------------------------------------- */

static void update_descriptors(FSSIMVulkanContext *s, FFVkExecContext *exec,
                               FFVulkanShader *shd, const VkImageView *main_views,
                               const VkImageView *ref_views)
{
    FFVulkanContext *vkctx = &s->vkctx;
    const size_t base = exec->idx * s->scratch_stride;
    const int nb_planes = av_pix_fmt_count_planes(s->fmt.pix_fmt);

    for (int i = 0; i < MAX_PLANES; i++) {
        const int p = FFMIN(i, nb_planes - 1);
        ff_vk_shader_update_img(vkctx, exec, shd, 0, BIND_MAIN + i, 0, main_views[p],
                                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_NULL_HANDLE);
        ff_vk_shader_update_img(vkctx, exec, shd, 0, BIND_REF + i, 0, ref_views[p],
                                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_NULL_HANDLE);
    }
    ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, BIND_PART_F, 0, &s->scratch,
                                    base + s->part_f_off, s->part_f_size, VK_FORMAT_UNDEFINED);
    ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, BIND_PART_D, 0, &s->scratch,
                                    base + s->part_d_off, s->part_d_size, VK_FORMAT_UNDEFINED);
    ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, BIND_WIN, 0, &s->scratch,
                                    base + s->win_off, s->win_size, VK_FORMAT_UNDEFINED);
    ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, BIND_RES, 0, &s->results,
                                    exec->idx * s->res_stride, s->res_stride,
                                    VK_FORMAT_UNDEFINED);
}

static void memory_barrier(FFVulkanFunctions *vk, FFVkExecContext *exec,
                           VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access)
{
    VkMemoryBarrier2 bar = {
        .sType         = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask  = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
        .srcAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        .dstStageMask  = dst_stage,
        .dstAccessMask = dst_access,
    };
    vk->CmdPipelineBarrier2(exec->buf, &(VkDependencyInfo) {
        .sType              = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
        .memoryBarrierCount = 1,
        .pMemoryBarriers    = &bar,
    });
}

/* A command buffer that could not be started or submitted: its fence was
 * reset and will never signal, so ff_vk_exec_pool_free() must not wait on
 * it (that wait has no timeout).  ff_vk_exec_submit() has logged the
 * VkResult; say what it was for. */
static int submit_failed(AVFilterContext *ctx, FFVkExecContext *exec, int err)
{
    FSSIMVulkanContext *s = ctx->priv;

    exec->had_submission = 0;
    s->gpu_failed = 1;
    av_log(ctx, AV_LOG_ERROR, "Submitting the scoring of frame %"PRIu64" to the Vulkan "
           "device failed: %s.\n", s->nb_scored, av_err2str(err));
    return err;
}

/* Record and submit the scoring of one frame pair; the sums are read back
 * later from the returned execution context. */
static int submit_pair(AVFilterContext *ctx, AVFrame *main, AVFrame *ref,
                       FFVkExecContext **out_exec)
{
    FSSIMVulkanContext *s = ctx->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    FFVulkanFunctions *vk = &vkctx->vkfn;
    VkImageView main_views[AV_NUM_DATA_POINTERS], ref_views[AV_NUM_DATA_POINTERS];
    VkImageMemoryBarrier2 img_bar[8];
    int nb_img_bar = 0, err;
    /* split'ed inputs share the frame: one dependency, one barrier */
    const int same = main->data[0] == ref->data[0];
    FFVkExecContext *exec = ff_vk_exec_get(vkctx, &s->e);

    err = ff_vk_exec_start(vkctx, exec);
    if (err < 0)
        return submit_failed(ctx, exec, err);

    RET(ff_vk_exec_add_dep_frame(vkctx, exec, main, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                 VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT));
    RET(ff_vk_create_imageviews(vkctx, exec, main_views, main, FF_VK_REP_UINT));
    if (!same) {
        RET(ff_vk_exec_add_dep_frame(vkctx, exec, ref, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                     VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT));
        RET(ff_vk_create_imageviews(vkctx, exec, ref_views, ref, FF_VK_REP_UINT));
    } else {
        memcpy(ref_views, main_views, sizeof(ref_views));
    }

    if (s->ts_pool) {
        vk->CmdResetQueryPool(exec->buf, s->ts_pool, NB_TS * exec->idx, NB_TS);
        s->write_ts(exec->buf, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, s->ts_pool, NB_TS * exec->idx);
    }

    ff_vk_frame_barrier(vkctx, exec, main, img_bar, &nb_img_bar,
                        VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_SHADER_READ_BIT,
                        VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                        VK_QUEUE_FAMILY_IGNORED);
    if (!same)
        ff_vk_frame_barrier(vkctx, exec, ref, img_bar, &nb_img_bar,
                            VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                            VK_ACCESS_SHADER_READ_BIT,
                            VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                            VK_QUEUE_FAMILY_IGNORED);
    vk->CmdPipelineBarrier2(exec->buf, &(VkDependencyInfo) {
        .sType                   = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
        .pImageMemoryBarriers    = img_bar,
        .imageMemoryBarrierCount = nb_img_bar,
    });

    /* one fused dispatch per plane */
    update_descriptors(s, exec, &s->shd_tile, main_views, ref_views);
    ff_vk_exec_bind_shader(vkctx, exec, &s->shd_tile);
    for (int c = 0; c < s->fmt.nb_comps; c++) {
        FSSIMVkPlane *p = &s->planes[c];
        ff_vk_shader_update_push_const(vkctx, exec, &s->shd_tile, VK_SHADER_STAGE_COMPUTE_BIT,
                                       0, sizeof(p->pc), &p->pc);
        vk->CmdDispatch(exec->buf, p->pc.tiles_x, p->tiles_y, 1);
    }

    /* fixed-order reduction of each plane's partial sums */
    memory_barrier(vk, exec, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                   VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    if (s->ts_pool)
        s->write_ts(exec->buf, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, s->ts_pool,
                    NB_TS * exec->idx + 1);
    update_descriptors(s, exec, &s->shd_reduce, main_views, ref_views);
    ff_vk_exec_bind_shader(vkctx, exec, &s->shd_reduce);
    for (int c = 0; c < s->fmt.nb_comps; c++) {
        FSSIMVkPlane *p = &s->planes[c];
        ff_vk_shader_update_push_const(vkctx, exec, &s->shd_reduce, VK_SHADER_STAGE_COMPUTE_BIT,
                                       0, sizeof(p->pc), &p->pc);
        vk->CmdDispatch(exec->buf, 1, 1, 1);
    }
    memory_barrier(vk, exec, VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);

    if (s->ts_pool)
        s->write_ts(exec->buf, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s->ts_pool,
                    NB_TS * exec->idx + 2);

    err = ff_vk_exec_submit(vkctx, exec);
    if (err < 0)
        return submit_failed(ctx, exec, err);
    *out_exec = exec;
    return 0;

fail:
    /* Nothing is recorded yet: submit the empty command buffer so that the
     * context's fence signals again and later waits on it return. */
    ff_vk_exec_discard_deps(vkctx, exec);
    if (ff_vk_exec_submit(vkctx, exec) < 0)
        submit_failed(ctx, exec, err);
    return err;
}

static void read_gpu_time(FSSIMVulkanContext *s, FFVkExecContext *exec)
{
    FFVulkanContext *vkctx = &s->vkctx;
    uint64_t ts[NB_TS];
    double us;

    if (!s->ts_pool ||
        vkctx->vkfn.GetQueryPoolResults(vkctx->hwctx->act_dev, s->ts_pool, NB_TS * exec->idx,
                                        NB_TS, sizeof(ts), ts, sizeof(ts[0]),
                                        VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
        return;
    us = ((ts[2] - ts[0]) & s->ts_mask) * s->ts_period * 1e-3;
    s->gpu_tiles += ((ts[1] - ts[0]) & s->ts_mask) * s->ts_period * 1e-3;
    s->gpu_sum += us;
    s->gpu_min = FFMIN(s->gpu_min, us);
    s->gpu_max = FFMAX(s->gpu_max, us);
    s->gpu_frames++;
}

/* A fence that reports an error (VK_ERROR_DEVICE_LOST...): the sums in the
 * result buffer are those of an older frame or garbage, never published. */
static int fence_failed(AVFilterContext *ctx, VkResult res, uint64_t n)
{
    FSSIMVulkanContext *s = ctx->priv;

    s->gpu_failed = 1;
    av_log(ctx, AV_LOG_ERROR, "Vulkan error while waiting for the scores of frame %"PRIu64
           ": %s. Its scores and those of the frames after it are not published.\n",
           n, ff_vk_ret2str(res));
    return AVERROR_EXTERNAL;
}

/* Wait for a submission and turn its sums into per-plane scores. */
static int read_scores(AVFilterContext *ctx, const FSSIMVkPending *pend, FSSIMScores *sc)
{
    FSSIMVulkanContext *s = ctx->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    FFVkExecContext *exec = pend->exec;
    const size_t off = exec->idx * s->res_stride;
    const uint32_t *r = (const uint32_t *)(s->results_map + off);
    VkResult res;
    int err;

    /* ff_vk_exec_wait() would ignore the result */
    res = vkctx->vkfn.WaitForFences(vkctx->hwctx->act_dev, 1, &exec->fence, VK_TRUE,
                                    UINT64_MAX);
    if (res != VK_SUCCESS)
        return fence_failed(ctx, res, pend->n);
    /* releases the frames and image views now rather than at reuse */
    ff_vk_exec_discard_deps(vkctx, exec);
    if (!(s->results.flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
        err = ff_vk_flush_buffer(vkctx, &s->results, off, s->res_stride, 0);
        if (err < 0)
            return err;
    }
    read_gpu_time(s, exec);

    memset(sc, 0, sizeof(*sc));
    for (int c = 0; c < s->fmt.nb_comps; c++) {
        const FSSIMVkPlane *p = &s->planes[c];
        const uint32_t *w = r + c * RES_WORDS;
        const double fsum = (double)av_int2float(w[0]) + (double)av_int2float(w[1]);
        const double tsum = av_int2double(w[2] | (uint64_t)w[3] << 32);
        const double bsum = av_int2double(w[4] | (uint64_t)w[5] << 32);

        av_log(ctx, AV_LOG_DEBUG, "plane %d: float %.17g int %.17g block %.17g (part_off %u n %u res_off %u)\n",
               c, fsum, tsum, bsum, p->pc.part_off, p->pc.nb_parts, p->pc.res_off);
        sc->score[FSSIM_FLOAT][c] = fsum / p->nb_float;
        if (s->fp64) {
            sc->score[FSSIM_INT][c]   = tsum / (double)p->int_w;
            sc->score[FSSIM_BLOCK][c] = bsum / p->nb_block;
        }
    }
    return 0;
}

/* Attach the scores of the oldest held frame and send it on.  Returns 1 if
 * a frame left the queue, 0 if its scores are not ready and !wait. */
static int release_head(AVFilterContext *ctx, int wait, int send)
{
    FSSIMVulkanContext *s = ctx->priv;
    FFVulkanFunctions *vk = &s->vkctx.vkfn;
    /* at uninit the output link may be gone already */
    AVFilterLink *outlink = send ? ctx->outputs[0] : NULL;
    FSSIMVkPending *p = &s->pending[s->pend_head];
    AVFrame *frame = p->frame;
    int ret = 0;

    if (p->exec && s->gpu_failed) {
        /* after a GPU error: not waited for (the fence may never signal)
         * and not scored; the error that ends the run is already out */
        ret = AVERROR_EXTERNAL;
    } else if (p->exec) {
        FSSIMScores sc;
        if (!wait) {
            VkResult res = vk->GetFenceStatus(s->vkctx.hwctx->act_dev, p->exec->fence);
            if (res == VK_NOT_READY)
                return 0;
            if (res != VK_SUCCESS)
                ret = fence_failed(ctx, res, p->n);
        }
        if (ret >= 0)
            ret = read_scores(ctx, p, &sc);
        if (ret >= 0)
            ret = ff_fssim_output_frame(ctx, &s->out, frame, &sc);
    }
    p->frame = NULL;
    p->exec  = NULL;
    s->pend_head = (s->pend_head + 1) % NB_EXEC;
    s->nb_pending--;

    /* The link's status is our own EOF (framesync's) or the output being
     * closed downstream: only in the latter are frames no longer wanted. */
    if (ret < 0 || !outlink || (!s->fs.eof && ff_outlink_get_status(outlink))) {
        av_frame_free(&frame);
        return ret < 0 ? ret : 1;
    }
    ret = ff_filter_frame(outlink, frame);
    return ret < 0 ? ret : 1;
}

/* Send the frames whose scores are back; all of them when flushing. */
static int release_ready(AVFilterContext *ctx, int flush)
{
    FSSIMVulkanContext *s = ctx->priv;

    while (s->nb_pending) {
        int ret = release_head(ctx, flush, 1);
        if (ret <= 0)
            return ret;
    }
    return 0;
}

static int hold_frame(AVFilterContext *ctx, AVFrame *frame, FFVkExecContext *exec)
{
    FSSIMVulkanContext *s = ctx->priv;
    FSSIMVkPending *p = &s->pending[(s->pend_head + s->nb_pending) % NB_EXEC];

    p->frame = frame;
    p->exec  = exec;
    p->n     = exec ? s->nb_scored++ : 0;
    s->nb_pending++;
    return release_ready(ctx, 0);
}

static int do_fssim(FFFrameSync *fs)
{
    AVFilterContext *ctx = fs->parent;
    FSSIMVulkanContext *s = ctx->priv;
    FFVkExecContext *exec = NULL;
    AVFrame *master, *ref;
    int ret;

    ret = ff_framesync_dualinput_get(fs, &master, &ref);
    if (ret < 0)
        return ret;

    /* Frames in flight use the execution contexts in turn: free the one
     * the next submission takes. */
    while (s->nb_pending > MAX_HELD) {
        ret = release_head(ctx, 1, 1);
        if (ret < 0) {
            av_frame_free(&master);
            return ret;
        }
    }

    if (s->gpu_failed) {
        av_frame_free(&master);
        return AVERROR_EXTERNAL;
    }
    if (!ctx->is_disabled && ref) {
        ret = ff_fssim_check_frames(ctx, &s->out, master, ref);
        if (ret >= 0)
            ret = submit_pair(ctx, master, ref, &exec);
        if (ret < 0) {
            av_frame_free(&master);
            return ret;
        }
    }
    /* unscored frames are held too, to keep the output in order */
    return hold_frame(ctx, master, exec);
}

static int activate(AVFilterContext *ctx)
{
    FSSIMVulkanContext *s = ctx->priv;
    int ret;

    ret = ff_framesync_activate(&s->fs);
    if (ret < 0)
        return ret;
    /* Framesync has set the output's EOF if the inputs ended; the held
     * frames still go out before it, being queued first. */
    return release_ready(ctx, s->fs.eof);
}

static av_cold int init(AVFilterContext *ctx)
{
    FSSIMVulkanContext *s = ctx->priv;

    s->fs.on_event = do_fssim;
    return ff_fssim_output_open(ctx, &s->out, &s->opts, "lavfi.fssim.", s->opts.algos);
}

/*
 * Wait until each of our queues is done with every batch submitted so far.
 * With emulated timeline semaphores (Mesa's common queue code, as in
 * lavapipe) a queue thread runs the batches and, after a batch's fence and
 * semaphores have signalled, still drops its references to the semaphores
 * it waited on.  The frames and frames contexts this filter lets go of in
 * uninit can be the last references to their pools, whose teardown
 * destroys the frames' semaphores at once: a batch that waited on one of
 * them (ours, or hwupload's or hwdownload's on the same queue) would then
 * be retired by that thread on freed memory.  An empty batch is retired
 * after every earlier one on its queue, so its fence covers them all.
 */
static void retire_queues(FSSIMVulkanContext *s)
{
    FFVulkanContext *vkctx = &s->vkctx;
    VkFence fences[NB_EXEC];
    int nb_fences = 0;

    /* after a GPU error a context's fence may never signal */
    if (!s->qf || !s->e.contexts || s->gpu_failed)
        return;
    /* the pool's contexts take the family's queues in turn */
    for (int i = 0; i < FFMIN(s->e.pool_size, s->qf->num); i++) {
        FFVkExecContext *exec = &s->e.contexts[i];
        if (ff_vk_exec_start(vkctx, exec) < 0 || ff_vk_exec_submit(vkctx, exec) < 0) {
            /* its fence is reset and never signals: see submit_failed() */
            exec->had_submission = 0;
            break;
        }
        fences[nb_fences++] = exec->fence;
    }
    if (nb_fences)
        vkctx->vkfn.WaitForFences(vkctx->hwctx->act_dev, nb_fences, fences, VK_TRUE,
                                  UINT64_MAX);
}

static av_cold void uninit(AVFilterContext *ctx)
{
    FSSIMVulkanContext *s = ctx->priv;
    FFVulkanContext *vkctx = &s->vkctx;

    /* frames scored but never sent (the run was cut short) are logged;
     * after a GPU error they are dropped, the error logged once */
    while (s->nb_pending)
        release_head(ctx, 1, 0);
    retire_queues(s);

    if (s->gpu_frames)
        av_log(ctx, AV_LOG_VERBOSE, "GPU time per frame: mean %.1f us, min %.1f us, "
               "max %.1f us (tile pass %.1f us) over %"PRIu64" frames (%s, %s).\n",
               s->gpu_sum / s->gpu_frames, s->gpu_min, s->gpu_max,
               s->gpu_tiles / s->gpu_frames, s->gpu_frames,
               vkctx->props.properties.deviceName, av_get_pix_fmt_name(s->fmt.pix_fmt));
    ff_fssim_output_close(ctx, &s->out, s->fs.eof);

    if (s->initialized) {
        ff_vk_exec_pool_free(vkctx, &s->e);
        ff_vk_shader_free(vkctx, &s->shd_tile);
        ff_vk_shader_free(vkctx, &s->shd_reduce);
        ff_vk_free_buf(vkctx, &s->scratch);
        ff_vk_free_buf(vkctx, &s->results);
        if (s->ts_pool)
            vkctx->vkfn.DestroyQueryPool(vkctx->hwctx->act_dev, s->ts_pool,
                                         vkctx->hwctx->alloc);
        ff_vk_uninit(vkctx);
        s->initialized = 0;
    }
    ff_framesync_uninit(&s->fs);
}

static const AVFilterPad fssim_vulkan_inputs[] = {
    {
        .name         = "main",
        .type         = AVMEDIA_TYPE_VIDEO,
    },{
        .name         = "reference",
        .type         = AVMEDIA_TYPE_VIDEO,
        .config_props = config_input_ref,
    },
};

static const AVFilterPad fssim_vulkan_outputs[] = {
    {
        .name          = "default",
        .type          = AVMEDIA_TYPE_VIDEO,
        .config_props  = config_output,
    },
};

const FFFilter ff_vf_fssim_vulkan = {
    .p.name         = "fssim_vulkan",
    .p.description  = NULL_IF_CONFIG_SMALL("Calculate SSIM (integer, Gaussian, block) between "
                                           "two streams of Vulkan frames."),
    .p.priv_class   = &fssim_vulkan_class,
    .p.flags        = AVFILTER_FLAG_SUPPORT_TIMELINE_INTERNAL |
                      AVFILTER_FLAG_METADATA_ONLY,
    .preinit        = fssim_vulkan_framesync_preinit,
    .init           = init,
    .uninit         = uninit,
    .activate       = activate,
    .priv_size      = sizeof(FSSIMVulkanContext),
    FILTER_INPUTS(fssim_vulkan_inputs),
    FILTER_OUTPUTS(fssim_vulkan_outputs),
    FILTER_QUERY_FUNC2(query_formats),
    .flags_internal = FF_FILTER_FLAG_HWFRAME_AWARE,
};
