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
 * fssim: the Vulkan backend, on Vulkan frames read in place on the GPU
 * (Vulkan Video decode, hwupload, scale_vulkan).  One command buffer per
 * frame scores every rendition: a fused compute dispatch per plane and
 * rendition computes every requested algorithm from one read of each
 * sample, a reduce dispatch per plane and rendition adds the workgroups'
 * partials in a fixed order; only the per-plane sums come back to the host,
 * a few frames later, so the pipeline never waits on the GPU.  Renditions
 * of another size are resampled first (fssim_vulkan_resample.c), MS-SSIM
 * has shaders of its own (fssim_vulkan_msssim.c), so have vmaf_ssim and
 * vmaf_msssim (fssim_vulkan_vmaf.c), and fssim3d's frames go to
 * fssim_be_vulkan3d.c.
 *
 * The renditions' dispatches of one phase (resampling, tiles, reduction)
 * run side by side, each with its own region of the buffers (a lane) and
 * its own frames bound by push descriptors.  Where FFmpeg cannot push
 * descriptors, each rendition gets its own command buffer instead.
 */
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "libavutil/thread.h"
#include "libavfilter/filters.h"

#include "fssim_vulkan_common.h"
#include "fssim_vulkan_msssim.h"
#include "fssim_vulkan_resample.h"
#include "fssim_vulkan_vmaf.h"

extern const unsigned char ff_fssim_comp_spv_data[];
extern const unsigned int  ff_fssim_comp_spv_len;
extern const unsigned char ff_fssim_f32_comp_spv_data[];
extern const unsigned int  ff_fssim_f32_comp_spv_len;

/* Frames whose sums may still be on their way back.  A Vulkan Video
 * decoder waits on the device for every user of a picture it reuses (its
 * timeline semaphore), so with too few frames in flight the decoders wait
 * behind the scoring (doc/performance.md#vulkan-video-frames-in-flight). */
#define QUEUE_DEPTH 12
#define MAX_QUEUE_DEPTH 32

/*
 * Test hooks, read once from the environment, for measuring what holds
 * Vulkan frames back (doc/performance.md#vulkan-video-frames-in-flight):
 *   FSSIM_VULKAN_FRAMES_IN_FLIGHT=N   frames whose scores may be on their
 *                                     way back (1..32; default QUEUE_DEPTH)
 *   FSSIM_VULKAN_JOB_PER_RENDITION=1  a command buffer, and a submission, per
 *                                     rendition, as without push descriptors
 */
static AVOnce  hooks_once = AV_ONCE_INIT;
static int     hook_depth;
static int     hook_job_per_rendition;

static void read_hooks(void)
{
    const char *depth = getenv("FSSIM_VULKAN_FRAMES_IN_FLIGHT");
    const char *jobs  = getenv("FSSIM_VULKAN_JOB_PER_RENDITION");

    if (depth && *depth)
        hook_depth = av_clip(strtol(depth, NULL, 0), 1, MAX_QUEUE_DEPTH);
    hook_job_per_rendition = jobs && *jobs && strcmp(jobs, "0");
}
#define RES_WORDS   10          /* result words per plane, see reduce_main() */
#define NB_TS       3           /* timestamps: start, tiles done, end */

/* Descriptor bindings, as in fssim_core.glsl: the most of the 2-D shaders. */
enum { BIND_MAIN = 0, BIND_REF = BIND_MAIN + FSSIM_VK_MAX_PLANES,
       BIND_PART_F = BIND_REF + FSSIM_VK_MAX_PLANES, BIND_PART_D, BIND_WIN, BIND_RES,
       BIND_RSB, BIND_NB };

enum { SPEC_MODE, SPEC_ALGOS, SPEC_RF, SPEC_HALO, SPEC_DEEP, SPEC_WIDE,
       SPEC_C1F, SPEC_C2F, SPEC_G0, SPEC_C1BASE = SPEC_G0 + 15, SPEC_C2BASE,
       SPEC_BC1, SPEC_BC2, SPEC_SG, SPEC_MAIN_BUF };

/* Push constants, laid out as PushData in fssim_core.glsl. */
typedef struct FSSIMVkPush {
    int32_t  size[2];
    int32_t  frect[4];
    int32_t  nwin[2];
    int32_t  plane, chan, shift, tiles_x;
    uint32_t part_off, nb_parts, win_off, res_off;
    uint32_t buf_off, buf_pitch;
} FSSIMVkPush;

/* PushData in fssim_core.glsl, scalar layout: 18 four-byte members */
_Static_assert(sizeof(FSSIMVkPush) == 18 * 4, "FSSIMVkPush matches the shader's PushData");

typedef struct FSSIMVkPlane {
    FSSIMVkPush pc;
    int      tiles_y;
} FSSIMVkPlane;

typedef struct VKBackend {
    VK3DBackend *b3d;             /* fssim3d: everything is there */
    FSSIMVk vk;
    int fp64;                     /* the shader with int and block */
    uint32_t subgroup_size;       /* 0: shared-memory reductions */
    FFVulkanShader shd_tile, shd_reduce;
    FSSIMVkPlane planes[4];

    /* Renditions of another size or format: resampled (rs) into their
     * lane's region of its output, which shd_tile_rs reads instead of the
     * rendition's images. */
    int resampling;
    FSSIMVkResampler *rs;
    FFVulkanShader shd_tile_rs;
    FSSIMVkMsssim *ms;            /* algo=msssim */
    FSSIMVkVmaf *vmaf;            /* algo=vmaf_ssim, vmaf_msssim */

    /* Per execution context: partial sums of the workgroups, and the
     * block window values of deep frames; results in host memory. */
    FFVkBuffer scratch, results;
    uint8_t *results_map;
    size_t part_f_off, part_d_off, win_off, scratch_stride;
    size_t part_f_size, part_d_size, win_size, res_stride;

    /* Renditions per command buffer: nb_dist, or 1 without push
     * descriptors.  Each has its lane: its region of the per-job buffers,
     * region exec->idx * lanes + lane. */
    int lanes;
    /* each slot's execution context of each rendition (NULL: none) */
    FFVkExecContext **exec;
    uint64_t nb_submitted;        /* frames, for messages */
    uint64_t *slot_n;             /* per slot, the frame it scores */

    /* GPU time per frame, from timestamp queries */
    double gpu_sum, gpu_min, gpu_max, gpu_tiles;
    double gpu_min_tiles;         /* the tile pass of the quickest frame */
    uint64_t gpu_frames;
    /* The time the device spent on the frames, each moment counted once:
     * command buffers of consecutive frames run at once on the compute
     * queues, so each one's own elapsed time also counts the others'
     * work, and their mean overstates what a frame costs. */
    double gpu_busy, busy_end;
} VKBackend;

/* Whether FFmpeg will push the descriptors of shaders with up to nb
 * bindings into the command buffer (vulkan.c's use_push, for one set that
 * is not singular, as all of ours), rather than keep a set per execution
 * context: then one command buffer can bind each rendition's frames and
 * lane in turn. */
static int pushes_descriptors(const FFVulkanContext *vkctx, int nb)
{
    return (vkctx->extensions & FF_VK_EXT_PUSH_DESCRIPTOR) &&
           nb <= vkctx->push_desc_props.maxPushDescriptors;
}

/* The regions of the per-job buffers: a lane per rendition of each context. */
static size_t nb_regions(const VKBackend *s)
{
    return (size_t)s->vk.pool.pool_size * s->lanes;
}

/* The region of rendition k scored in exec. */
static size_t region(const VKBackend *s, const FFVkExecContext *exec, int k)
{
    return (size_t)exec->idx * s->lanes + (s->lanes > 1 ? k : 0);
}

static int msssim(const FSSIMEngine *e)
{
    return e->opts->algos & FSSIM_BIT(FSSIM_ALGO_MSSSIM);
}

/* The first result word of vmaf_ssim's and vmaf_msssim's sums. */
static uint32_t vmaf_res_word(const FSSIMEngine *e)
{
    return RES_WORDS * e->fmt.nb_comps + (msssim(e) ? ff_fssim_vk_msssim_words(e) : 0);
}

static void setup_planes(FSSIMEngine *e)
{
    VKBackend *s = e->priv;
    const FSSIMRefFloatParams fp = { e->opts->window, e->opts->sigma, e->opts->padding };
    const int r = e->opts->window / 2;
    const int deep_block = (e->opts->algos & FSSIM_BIT(FSSIM_ALGO_BLOCK)) &&
                           e->fmt.depth > 8;
    uint32_t parts = 0, wins = 0;

    for (int c = 0; c < e->fmt.nb_comps; c++) {
        const FSSIMPlane *cp = &e->fmt.comp[c];
        FSSIMVkPlane *p = &s->planes[c];
        FSSIMVkPush *pc = &p->pc;
        int ow = 0, oh = 0, nx = 0, ny = 0;

        memset(p, 0, sizeof(*p));
        pc->size[0] = cp->width;
        pc->size[1] = cp->height;
        if ((e->opts->algos & FSSIM_BIT(FSSIM_ALGO_FLOAT)) &&
            ff_fssim_ref_float_out_size(cp->width, cp->height, &fp, &ow, &oh) == 0) {
            const int off = e->opts->padding == FSSIM_REF_PAD_VALID ? r : 0;
            pc->frect[0] = off;
            pc->frect[1] = off;
            pc->frect[2] = off + ow;
            pc->frect[3] = off + oh;
        }
        if (e->opts->algos & FSSIM_BIT(FSSIM_ALGO_BLOCK))
            ff_fssim_ref_block_windows(cp->width, cp->height, &nx, &ny);
        pc->nwin[0]  = nx;
        pc->nwin[1]  = ny;
        pc->plane    = cp->plane;
        pc->chan     = cp->offset / cp->bytes;
        pc->shift    = cp->shift;
        pc->tiles_x  = (cp->width + TILE_W - 1) / TILE_W;
        p->tiles_y   = (cp->height + TILE_H * FSSIM_VK_TILES - 1) / (TILE_H * FSSIM_VK_TILES);
        pc->part_off = parts;
        pc->nb_parts = pc->tiles_x * p->tiles_y;
        pc->win_off  = wins;
        pc->res_off  = c * RES_WORDS;
        if (s->resampling)
            ff_fssim_vk_resample_plane(e, c, &pc->buf_off, &pc->buf_pitch);
        parts += pc->nb_parts;
        if (deep_block)
            wins += nx * ny;
    }

    s->part_f_size = ff_fssim_vk_align(sizeof(float) * parts);
    s->part_d_size = ff_fssim_vk_align(s->fp64 ? 4 * sizeof(double) * parts : 0);
    s->win_size    = ff_fssim_vk_align(sizeof(float) * wins);
    s->part_f_off  = 0;
    s->part_d_off  = s->part_f_size;
    s->win_off     = s->part_d_off + s->part_d_size;
    s->scratch_stride = s->win_off + s->win_size;
    /* msssim's result words follow those of the fused shaders, vmaf's them */
    s->res_stride  = ff_fssim_vk_align(sizeof(uint32_t) * (vmaf_res_word(e) +
                                       (ff_fssim_vk_vmaf_wanted(e) ?
                                        ff_fssim_vk_vmaf_words(e) : 0)));
}

/* The algorithms the fused shaders compute; they run where one is asked for. */
static int fused_algos(const FSSIMEngine *e)
{
    return e->opts->algos & FSSIM_FUSED_ALGOS;
}

/* Shared memory of a tile workgroup, as fssim_core.glsl sizes it: the
 * samples of the tile and its halo, the horizontal sums (also the
 * reduction's staging area), the 4x4 blocks and the int taps.  The staging
 * area (HBUF_R) holds one slot per subgroup (subgroups of >= 4, see
 * check_device()) or per invocation, each a float pair and a double pair
 * (6 words), and with psnr a second double pair (10 words). */
static int shared_bytes(const FSSIMEngine *e, int halo)
{
    const VKBackend *s = e->priv;
    const int algos = e->opts->algos, rf = e->opts->window / 2;
    const int hf = algos & FSSIM_BIT(FSSIM_ALGO_FLOAT) ? 4 * (TILE_H + 2 * rf) * TILE_W : 0;
    const int bits = ff_fssim_stored_bits(&e->fmt);
    const int hi = algos & FSSIM_BIT(FSSIM_ALGO_INT) ?
                   (bits > 12 ? 8 : bits > 8 ? 5 : 4) *
                   (TILE_H + 2 * FSSIM_INT_RADIUS) * TILE_W : 0;
    const int hr = (algos & FSSIM_BIT(FSSIM_ALGO_PSNR) ? 10 : 6) *
                   (s->subgroup_size ? WG_SIZE / 4 : WG_SIZE);        /* HBUF_R */
    const int blk = algos & FSSIM_BIT(FSSIM_ALGO_BLOCK) ? (TILE_W / 4 + 1) * (TILE_H / 4 + 1) * 6 : 1;

    return 4 * ((TILE_W + 2 * halo) * (TILE_H + 2 * halo) + FFMAX3(hf, hi, hr) + blk + 9);
}

static int tile_halo(const FSSIMEngine *e)
{
    int halo = 0;
    if (e->opts->algos & FSSIM_BIT(FSSIM_ALGO_FLOAT))
        halo = e->opts->window / 2;
    if (e->opts->algos & (FSSIM_BIT(FSSIM_ALGO_INT) | FSSIM_BIT(FSSIM_ALGO_BLOCK)))
        halo = FFMAX(halo, FSSIM_INT_RADIUS);
    return halo;
}

/* Reductions by subgroup shuffles need subgroups of one fixed size, all
 * full, for a fixed summation order; otherwise (0) shared memory is used. */
static uint32_t fixed_subgroup_size(const FFVulkanContext *vkctx)
{
    const VkPhysicalDeviceVulkan11Properties *p11 = &vkctx->props_11;
    const VkPhysicalDeviceSubgroupSizeControlProperties *sgp = &vkctx->subgroup_props;
    const VkPhysicalDeviceVulkan13Features *f13 =
        ff_vk_find_struct(vkctx->hwctx->device_features.pNext,
                          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
    const uint32_t sg = av_clip(p11->subgroupSize, sgp->minSubgroupSize, sgp->maxSubgroupSize);

    if (f13 && f13->subgroupSizeControl && f13->computeFullSubgroups &&
        (sgp->requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
        (p11->subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
        (p11->subgroupSupportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) &&
        sg >= 4 && sg <= WG_SIZE && !(sg & (sg - 1)))
        return sg;
    return 0;
}

/* doc/errors.md: name the missing feature and the way out. */
static int check_device(FSSIMEngine *e)
{
    VKBackend *s = e->priv;
    AVFilterContext *ctx = e->ctx;
    FFVulkanContext *vkctx = &s->vk.vkctx;
    const char *name = vkctx->props.properties.deviceName;
    const VkPhysicalDeviceFeatures *feats = &vkctx->hwctx->device_features.features;
    const AVVulkanFramesContext *vkfc = vkctx->hwfc;
    const int nb_planes = av_pix_fmt_count_planes(e->fmt.pix_fmt);
    int err;

    s->fp64 = !!(e->opts->algos & (FSSIM_BIT(FSSIM_ALGO_INT) | FSSIM_BIT(FSSIM_ALGO_BLOCK) |
                             FSSIM_BIT(FSSIM_ALGO_PSNR)));
    if (s->fp64 && (!feats->shaderFloat64 || !feats->shaderInt64)) {
        const int both = !feats->shaderFloat64 && !feats->shaderInt64;
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device '%s' lacks %s%s%s (or it is not enabled), "
               "which algo=int, block and psnr need for their exact 64-bit arithmetic. "
               "Use algo=float on this device.\n", name,
               feats->shaderFloat64 ? "" : "shaderFloat64", both ? " and " : "",
               feats->shaderInt64 ? "" : "shaderInt64");
        return AVERROR(ENOSYS);
    }
    if (s->resampling && !feats->shaderInt64) {
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device '%s' lacks shaderInt64 (or it is not "
               "enabled), which resampling inputs of another size or format than the "
               "reference needs for its exact arithmetic. Bring them to the reference's size "
               "and format first (scale_vulkan=W:H:format=...).\n", name);
        return AVERROR(ENOSYS);
    }
    s->subgroup_size = fixed_subgroup_size(vkctx);
    if (msssim(e) &&
        (err = ff_fssim_vk_check_workgroup(ctx, &s->vk,
                                           ff_fssim_vk_msssim_shared_bytes(e, s->subgroup_size),
                                           "algo=msssim", "with these options.")) < 0)
        return err;
    if (ff_fssim_vk_vmaf_wanted(e) && (err = ff_fssim_vk_vmaf_check(e, &s->vk)) < 0)
        return err;
    err = ff_fssim_vk_check_workgroup(ctx, &s->vk, shared_bytes(e, tile_halo(e)),
                                      "fssim_vulkan", "with these options.");
    if (err < 0)
        return err;
    av_log(ctx, AV_LOG_VERBOSE, "Device '%s': %s shader, %d bytes of shared memory, "
           "reductions %s%u; %s frames as %s.\n", name,
           s->fp64 ? "int/block (fp64)" : "float-only", shared_bytes(e, tile_halo(e)),
           s->subgroup_size ? "by subgroups of " : "in shared memory", s->subgroup_size,
           av_get_pix_fmt_name(e->fmt.pix_fmt),
           nb_planes > 1 && vkfc->format[1] == VK_FORMAT_UNDEFINED ?
           "one multi-plane image" : "one image per plane");
    return 0;
}

/* The fused shaders: mode 0 the tiles, 1 the reduction; main_buf: main
 * read from the resampled planes. */
static int init_shader(FSSIMEngine *e, FFVulkanShader *shd, int mode, int main_buf)
{
    VKBackend *s = e->priv;
    const int depth = e->fmt.depth;
    const double L = (double)((1 << depth) - 1);
    const int max = (1 << depth) - 1;

    SPEC_LIST_CREATE(sl, SPEC_MAIN_BUF + 1, (SPEC_MAIN_BUF + 1) * sizeof(uint64_t))

    SPEC_LIST_ADD(sl, SPEC_MODE,  32, mode);
    SPEC_LIST_ADD(sl, SPEC_ALGOS, 32, fused_algos(e));
    SPEC_LIST_ADD(sl, SPEC_RF,    32, e->opts->window / 2);
    SPEC_LIST_ADD(sl, SPEC_HALO,  32, tile_halo(e));
    /* the sums' widths: samples at the bottom of 16-bit words are read as
     * stored and may exceed the depth (ff_fssim_stored_bits) */
    SPEC_LIST_ADD(sl, SPEC_DEEP,  32, ff_fssim_stored_bits(&e->fmt) > 8);
    SPEC_LIST_ADD(sl, SPEC_WIDE,  32, ff_fssim_stored_bits(&e->fmt) > 12);
    ff_fssim_vk_spec_float_c(sl, SPEC_C1F, depth);
    ff_fssim_vk_spec_gauss(sl, SPEC_G0, e->opts, 0);
    if (s->fp64) {
        /* doc/algorithms.md#int and vf_ssim.c constants, bit for bit as the reference */
        SPEC_LIST_ADD(sl, SPEC_C1BASE, 64, av_double2int(FSSIM_INT_C1BASE(L)));
        SPEC_LIST_ADD(sl, SPEC_C2BASE, 64, av_double2int(FSSIM_INT_C2BASE(L)));
        SPEC_LIST_ADD(sl, SPEC_BC1,    64, (int64_t)FSSIM_BLOCK_C1(max));
        SPEC_LIST_ADD(sl, SPEC_BC2,    64, (int64_t)FSSIM_BLOCK_C2(max));
    }
    SPEC_LIST_ADD(sl, SPEC_SG, 32, !!s->subgroup_size);
    SPEC_LIST_ADD(sl, SPEC_MAIN_BUF, 32, main_buf);

    ff_fssim_vk_shader_load(shd, sl, WG_SIZE, 1, s->subgroup_size);
    return ff_fssim_vk_shader_link(&s->vk, shd, BIND_PART_F, BIND_NB - BIND_PART_F,
                                   sizeof(FSSIMVkPush),
                                   s->fp64 ? ff_fssim_comp_spv_data : ff_fssim_f32_comp_spv_data,
                                   s->fp64 ? ff_fssim_comp_spv_len : ff_fssim_f32_comp_spv_len);
}

static int vk_init(FSSIMEngine *e, size_t *ring_bytes)
{
    VKBackend *s = e->priv;
    AVFilterContext *ctx = e->ctx;
    FFVulkanContext *vkctx = &s->vk.vkctx;
    int err;

    for (int k = 0; k <= e->nb_dist; k++) {
        const FSSIMFormat *f = k < e->nb_dist ? &e->dist[k] : &e->fmt;
        if (av_vkfmt_from_pixfmt(f->pix_fmt))
            continue;
        av_log(ctx, AV_LOG_ERROR, "Pixel format %s of the %s input has no Vulkan "
               "representation. Convert it first, e.g. with scale_vulkan=format=nv12.\n",
               av_get_pix_fmt_name(f->pix_fmt), ctx->input_pads[k].name);
        return AVERROR(ENOSYS);
    }
    for (int k = 0; k < e->nb_dist; k++)
        s->resampling |= e->resample[k];
    ff_thread_once(&hooks_once, read_hooks);
    if (hook_depth) {
        e->nb_slots = hook_depth + 1;
        av_log(ctx, AV_LOG_VERBOSE, "FSSIM_VULKAN_FRAMES_IN_FLIGHT: %d frames in flight.\n",
               hook_depth);
    }
    if (e->opts->depth)
        return ff_fssim_vk3d_init(e, &s->b3d, ring_bytes);
    s->exec   = av_calloc(e->nb_slots * e->nb_dist, sizeof(*s->exec));
    s->slot_n = av_calloc(e->nb_slots, sizeof(*s->slot_n));
    if (!s->exec || !s->slot_n)
        return AVERROR(ENOMEM);

    RET(ff_fssim_vk_open(ctx, &s->vk));
    RET(check_device(e));
    /* per slot one command buffer, or one per rendition */
    s->lanes = pushes_descriptors(vkctx, BIND_NB) && !hook_job_per_rendition ? e->nb_dist : 1;
    s->vk.push_only = s->lanes > 1;
    RET(ff_fssim_vk_pool_init(ctx, &s->vk, e->nb_slots * e->nb_dist / s->lanes, INT_MAX));
    if (e->nb_dist > 1)
        av_log(ctx, AV_LOG_VERBOSE, "%d renditions per command buffer%s.\n", s->lanes,
               hook_job_per_rendition ? " (FSSIM_VULKAN_JOB_PER_RENDITION)" : "");

    setup_planes(e);
    /* Allocated once: nothing is allocated on the device per frame. */
    RET(ff_vk_create_buf(vkctx, &s->scratch, s->scratch_stride * nb_regions(s), NULL, NULL,
                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
    RET(ff_vk_create_buf(vkctx, &s->results, s->res_stride * nb_regions(s), NULL, NULL,
                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                         VK_MEMORY_PROPERTY_HOST_COHERENT_BIT));
    RET(ff_vk_map_buffer(vkctx, &s->results, &s->results_map, 0));

    if (fused_algos(e)) {
        RET(init_shader(e, &s->shd_tile, 0, 0));
        RET(init_shader(e, &s->shd_reduce, 1, 0));
    }
    if (msssim(e))
        RET(ff_fssim_vk_msssim_init(e, &s->vk, s->subgroup_size, RES_WORDS * e->fmt.nb_comps,
                                    nb_regions(s), &s->ms));
    if (ff_fssim_vk_vmaf_wanted(e))
        RET(ff_fssim_vk_vmaf_init(e, &s->vk, vmaf_res_word(e), nb_regions(s), s->lanes,
                                  &s->vmaf));
    if (s->resampling) {
        RET(ff_fssim_vk_resample_init(e, &s->vk, nb_regions(s), &s->rs));
        if (fused_algos(e))
            RET(init_shader(e, &s->shd_tile_rs, 0, 1));
    }
    ff_fssim_vk_timer_init(ctx, &s->vk, NB_TS);
    s->gpu_min = DBL_MAX;
    return 0;

fail:
    return err;
}

/* ---- per frame -------------------------------------------------------- */

/* A job's frames: each distinct frame once (split'ed inputs share one),
 * with its image views; of[k] is rendition k's, of[FSSIM_MAX_DIST] the
 * reference's. */
typedef struct VKJobFrames {
    const AVFrame *frame[FSSIM_MAX_DIST + 1];
    VkImageView    views[FSSIM_MAX_DIST + 1][AV_NUM_DATA_POINTERS];
    int nb;
    int of[FSSIM_MAX_DIST + 1];
} VKJobFrames;

#define JOB_REF FSSIM_MAX_DIST

/* Make exec depend on input i's frame f and create its views, once per frame. */
static int add_job_frame(FSSIMEngine *e, FFVkExecContext *exec, VKJobFrames *jf, int i,
                         const AVFrame *f)
{
    VKBackend *s = e->priv;
    int err;

    for (int j = 0; j < jf->nb; j++)
        if (jf->frame[j]->data[0] == f->data[0]) {
            jf->of[i] = j;
            return 0;
        }
    err = ff_fssim_vk_add_frame(&s->vk.vkctx, exec, f, jf->views[jf->nb]);
    if (err < 0)
        return err;
    jf->frame[jf->nb] = f;
    jf->of[i] = jf->nb++;
    return 0;
}

/* The image views of input i (a rendition k, or JOB_REF). */
static const VkImageView *job_views(const VKJobFrames *jf, int i)
{
    return jf->views[jf->of[i]];
}

/* The lanes of the renditions in set: their frames and regions.  Without
 * resampling, the results stand in for the resampled planes. */
static void job_lanes(FSSIMEngine *e, FFVkExecContext *exec, const VKJobFrames *jf,
                      unsigned set, FSSIMVkLane *lane)
{
    VKBackend *s = e->priv;

    for (int k = 0; k < e->nb_dist; k++) {
        const size_t r = region(s, exec, k);
        const FSSIMVkRange res = { &s->results, r * s->res_stride, s->res_stride };

        if (!(set & (1u << k)))
            continue;
        lane[k] = (FSSIMVkLane) {
            .own       = job_views(jf, k),
            .ref       = job_views(jf, JOB_REF),
            .resampled = e->resample[k],
            .region    = r,
            .rsb       = s->rs ? ff_fssim_vk_resample_out(s->rs, r) : res,
            .res       = res,
        };
    }
}

/* The fused shaders for a lane: its frames, its region of the partial
 * sums, block windows and results. */
static void bind_fused(FSSIMEngine *e, FFVkExecContext *exec, FFVulkanShader *shd,
                       const FSSIMVkLane *l)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vk.vkctx;
    const size_t base = l->region * s->scratch_stride;
    const FSSIMVkRange part_f = { &s->scratch, base + s->part_f_off, s->part_f_size };
    const FSSIMVkRange part_d = { &s->scratch, base + s->part_d_off, s->part_d_size };
    const FSSIMVkRange win    = { &s->scratch, base + s->win_off, s->win_size };

    ff_fssim_vk_bind_lane(e, &s->vk, exec, shd, l, BIND_RSB);
    ff_fssim_vk_bind_range(vkctx, exec, shd, BIND_PART_F, &part_f);
    ff_fssim_vk_bind_range(vkctx, exec, shd, BIND_PART_D, &part_d);
    ff_fssim_vk_bind_range(vkctx, exec, shd, BIND_WIN, &win);
    ff_fssim_vk_bind_range(vkctx, exec, shd, BIND_RES, &l->res);
}

/* Make every frame of the job readable by the shaders. */
static void record_frame_barriers(FSSIMEngine *e, FFVkExecContext *exec, const VKJobFrames *jf)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vk.vkctx;
    VkImageMemoryBarrier2 img_bar[(FSSIM_MAX_DIST + 1) * AV_NUM_DATA_POINTERS];
    int nb_img_bar = 0;

    for (int j = 0; j < jf->nb; j++)
        ff_fssim_vk_frame_barrier(vkctx, exec, jf->frame[j], img_bar, &nb_img_bar);
    vkctx->vkfn.CmdPipelineBarrier2(exec->buf, &(VkDependencyInfo) {
        .sType                   = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
        .pImageMemoryBarriers    = img_bar,
        .imageMemoryBarrierCount = nb_img_bar,
    });
}

/* The fused dispatches of every plane of the renditions in set, then, after
 * they are all done, each plane's fixed-order reduction. */
static void record_fused(FSSIMEngine *e, FFVkExecContext *exec, const FSSIMVkLane *lane,
                         unsigned set)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vk.vkctx;
    FFVulkanFunctions *vk = &vkctx->vkfn;

    for (int k = 0; k < e->nb_dist; k++) {
        FFVulkanShader *tile = lane[k].resampled ? &s->shd_tile_rs : &s->shd_tile;
        if (!(set & (1u << k)))
            continue;
        bind_fused(e, exec, tile, &lane[k]);
        for (int c = 0; c < e->fmt.nb_comps; c++) {
            FSSIMVkPlane *p = &s->planes[c];
            ff_vk_shader_update_push_const(vkctx, exec, tile, VK_SHADER_STAGE_COMPUTE_BIT,
                                           0, sizeof(p->pc), &p->pc);
            vk->CmdDispatch(exec->buf, p->pc.tiles_x, p->tiles_y, 1);
        }
    }
    ff_fssim_vk_barrier_compute(vk, exec);
    ff_fssim_vk_timer_write(&s->vk, exec, 1, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    for (int k = 0; k < e->nb_dist; k++) {
        if (!(set & (1u << k)))
            continue;
        bind_fused(e, exec, &s->shd_reduce, &lane[k]);
        for (int c = 0; c < e->fmt.nb_comps; c++) {
            FSSIMVkPlane *p = &s->planes[c];
            ff_vk_shader_update_push_const(vkctx, exec, &s->shd_reduce,
                                           VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(p->pc), &p->pc);
            vk->CmdDispatch(exec->buf, 1, 1, 1);
        }
    }
}

/* A command buffer that could not be started or submitted
 * (ff_fssim_vk_submit_failed()).  ff_vk_exec_submit() has logged the
 * VkResult; say what it was for. */
static int submit_failed(FSSIMEngine *e, FFVkExecContext *exec, int err)
{
    VKBackend *s = e->priv;

    ff_fssim_vk_submit_failed(&s->vk, exec);
    av_log(e->ctx, AV_LOG_ERROR, "Submitting the scoring of frame %"PRIu64" to the Vulkan "
           "device failed: %s.\n", s->nb_submitted, av_err2str(err));
    return err;
}

/* Record and submit, in one command buffer, the scoring of the renditions
 * in set (bit k: dist[k]) against ref; the sums are read back later from
 * the returned execution context. */
static int submit_job(FSSIMEngine *e, const AVFrame *ref, AVFrame *const *dist, unsigned set,
                      FFVkExecContext **out_exec)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vk.vkctx;
    FFVkExecContext *exec = ff_vk_exec_get(vkctx, &s->vk.pool);
    FSSIMVkLane lane[FSSIM_MAX_DIST];
    VKJobFrames jf = { .nb = 0 };
    int err;

    /* its last frame was collected, unless that frame had no job: then it
     * is waited for here, with a timeout */
    err = ff_fssim_vk_reuse(&s->vk, exec, "scores of frame", s->nb_submitted);
    if (err < 0)
        return err;
    err = ff_vk_exec_start(vkctx, exec);
    if (err < 0)
        return submit_failed(e, exec, err);

    RET(add_job_frame(e, exec, &jf, JOB_REF, ref));
    for (int k = 0; k < e->nb_dist; k++)
        if (set & (1u << k))
            RET(add_job_frame(e, exec, &jf, k, dist[k]));
    job_lanes(e, exec, &jf, set, lane);

    ff_fssim_vk_timer_write(&s->vk, exec, 0, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
    record_frame_barriers(e, exec, &jf);
    if (s->rs)
        ff_fssim_vk_resample_record(e, &s->vk, s->rs, exec, lane, set);
    if (fused_algos(e))
        record_fused(e, exec, lane, set);
    else
        ff_fssim_vk_timer_write(&s->vk, exec, 1, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    if (s->ms)
        ff_fssim_vk_msssim_record(e, &s->vk, s->ms, exec, lane, set);
    if (s->vmaf)
        ff_fssim_vk_vmaf_record(e, &s->vk, s->vmaf, exec, lane, set);
    ff_fssim_vk_barrier(&vkctx->vkfn, exec, VK_PIPELINE_STAGE_2_HOST_BIT,
                        VK_ACCESS_2_HOST_READ_BIT, NULL, 0);
    ff_fssim_vk_timer_write(&s->vk, exec, 2, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);

    err = ff_vk_exec_submit(vkctx, exec);
    if (err < 0)
        return submit_failed(e, exec, err);
    *out_exec = exec;
    return 0;

fail:
    /* nothing is recorded yet */
    if (ff_fssim_vk_abandon(&s->vk, exec) < 0)
        submit_failed(e, exec, err);
    return err;
}

/* GPU time of one command buffer, from its timestamps (us); 0 without.
 * Command buffers are collected in the order they were submitted, so their
 * spans come roughly in the order they start: what lies beyond the latest
 * end seen so far is time the device was not yet busy with fssim. */
static double read_gpu_time(VKBackend *s, FFVkExecContext *exec, double *tiles)
{
    double us[NB_TS - 1], span[2];

    if (!ff_fssim_vk_timer_read(&s->vk, exec, us))
        return 0.0;
    if (ff_fssim_vk_timer_span(&s->vk, exec, span)) {
        s->gpu_busy += FFMAX(0.0, span[1] - FFMAX(span[0], s->busy_end));
        s->busy_end  = FFMAX(s->busy_end, span[1]);
    }
    *tiles += us[0];
    return us[1];
}

/* Whether a submission is done: 1 when it is, 0 if not yet (only without
 * wait), or an error: a fence that reports one (VK_ERROR_DEVICE_LOST...)
 * or does not signal in time leaves in the result buffer the sums of an
 * older frame or garbage, never published. */
static int exec_done(FSSIMEngine *e, FFVkExecContext *exec, int wait, uint64_t n)
{
    VKBackend *s = e->priv;
    const VkResult res = ff_fssim_vk_fence(&s->vk, exec, wait);

    if (res == VK_NOT_READY && !wait)
        return 0;
    if (res == VK_SUCCESS)
        return 1;
    return ff_fssim_vk_fence_failed(&s->vk, res, "scores of frame", n);
}

/* The per-plane sums of rendition k from a completed submission. */
static int read_sums(FSSIMEngine *e, FFVkExecContext *exec, int k,
                     FSSIMSum (*v)[FSSIM_NB_PARTS])
{
    VKBackend *s = e->priv;
    const size_t off = region(s, exec, k) * s->res_stride;
    const uint32_t *r = (const uint32_t *)(s->results_map + off);
    int err = ff_fssim_vk_invalidate(&s->vk.vkctx, &s->results, off, s->res_stride);

    if (err < 0)
        return err;
    for (int c = 0; c < e->fmt.nb_comps; c++) {
        const uint32_t *w = r + c * RES_WORDS;
        v[c][FSSIM_PART_FLOAT].d = ff_fssim_vk_float_pair(w);
        v[c][FSSIM_PART_INT].d   = av_int2double(w[2] | (uint64_t)w[3] << 32);
        v[c][FSSIM_PART_BLOCK].d = av_int2double(w[4] | (uint64_t)w[5] << 32);
        /* psnr's sum, split at 2^24 into two exact doubles */
        v[c][FSSIM_PART_SSE].u   = (uint64_t)av_int2double(w[6] | (uint64_t)w[7] << 32) *
                                   (1 << 24) +
                                   (uint64_t)av_int2double(w[8] | (uint64_t)w[9] << 32);
    }
    if (s->ms)
        ff_fssim_vk_msssim_read(e, s->ms, r, v);
    if (s->vmaf)
        ff_fssim_vk_vmaf_read(e, s->vmaf, r, v);
    return 0;
}

/* fssim3d: the 3-D backend's operations (fssim_be_vulkan3d.c). */
static int vk_moments(FSSIMEngine *e, int ring_slot, const AVFrame *ref, const AVFrame *dist)
{
    VKBackend *s = e->priv;
    return ff_fssim_vk3d_moments(e, s->b3d, ring_slot, ref, dist);
}

static int vk_submit3d(FSSIMEngine *e, int slot, const FSSIM3DWindow *win)
{
    VKBackend *s = e->priv;
    return ff_fssim_vk3d_submit(e, s->b3d, slot, win);
}

static int vk_submit(FSSIMEngine *e, int slot, const AVFrame *ref, AVFrame *const *dist)
{
    VKBackend *s = e->priv;
    FFVkExecContext **exec = &s->exec[slot * e->nb_dist];
    FFVkExecContext *job = NULL;
    unsigned set = 0;
    int ret = 0;

    if (s->vk.failed)
        return AVERROR_EXTERNAL;
    s->slot_n[slot] = s->nb_submitted++;
    for (int k = 0; k < e->nb_dist; k++) {
        exec[k] = NULL;
        set |= (unsigned)!!dist[k] << k;
    }
    if (s->lanes > 1) {
        if (set && (ret = submit_job(e, ref, dist, set, &job)) >= 0)
            for (int k = 0; k < e->nb_dist; k++)
                exec[k] = set & (1u << k) ? job : NULL;
        return ret;
    }
    for (int k = 0; k < e->nb_dist; k++)
        if (dist[k] && (ret = submit_job(e, ref, dist, 1u << k, &exec[k])) < 0)
            break;
    return ret;
}

/* Fold one frame's GPU time into the statistics. */
static void add_gpu_time(VKBackend *s, double us, double tiles)
{
    if (!s->vk.timer.pool)
        return;
    s->gpu_sum   += us;
    s->gpu_tiles += tiles;
    if (us < s->gpu_min) {
        s->gpu_min       = us;
        s->gpu_min_tiles = tiles;
    }
    s->gpu_max    = FFMAX(s->gpu_max, us);
    s->gpu_frames++;
}

static int vk_collect(FSSIMEngine *e, int slot, int wait, FSSIMSums *sums)
{
    VKBackend *s = e->priv;
    FFVkExecContext **exec = &s->exec[slot * e->nb_dist];
    FFVkExecContext *last = NULL;
    double us = 0.0, tiles = 0.0;
    int ret = 0;

    if (s->b3d)
        return ff_fssim_vk3d_collect(e, s->b3d, slot, wait, sums);
    /* after a GPU error: not waited for (a fence may never signal) and
     * not read; the error that ends the run is already out */
    if (s->vk.failed)
        return AVERROR_EXTERNAL;
    for (int k = 0; k < e->nb_dist; k++)
        if (exec[k] && (ret = exec_done(e, exec[k], wait, s->slot_n[slot])) <= 0)
            return ret;
    for (int k = 0; k < e->nb_dist && ret >= 0; k++)
        if (exec[k])
            ret = read_sums(e, exec[k], k, sums->v[k]);
    /* each command buffer once: its time, and its frames and views go now
     * rather than at reuse */
    for (int k = 0; k < e->nb_dist; k++) {
        if (exec[k] && exec[k] != last) {
            us += read_gpu_time(s, exec[k], &tiles);
            ff_vk_exec_discard_deps(&s->vk.vkctx, exec[k]);
            last = exec[k];
        }
        exec[k] = NULL;
    }
    if (ret < 0)
        return ret;
    add_gpu_time(s, us, tiles);
    return 1;
}

static void vk_uninit(FSSIMEngine *e)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vk.vkctx;

    ff_fssim_vk3d_uninit(e, &s->b3d);
    ff_fssim_vk_pool_uninit(&s->vk);
    if (s->gpu_frames)
        av_log(e->ctx, AV_LOG_VERBOSE, "GPU time per frame: mean %.1f us, min %.1f us, "
               "max %.1f us (tile pass %.1f us, of the quickest frame %.1f us) over "
               "%"PRIu64" frames (%s, %s).\n",
               s->gpu_sum / s->gpu_frames, s->gpu_min, s->gpu_max,
               s->gpu_tiles / s->gpu_frames, s->gpu_min_tiles, s->gpu_frames,
               vkctx->props.properties.deviceName, av_get_pix_fmt_name(e->fmt.pix_fmt));
    if (s->gpu_frames)
        av_log(e->ctx, AV_LOG_VERBOSE, "GPU busy time per frame: %.1f us (the device's time "
               "on all frames over their number; frames overlap).\n",
               s->gpu_busy / s->gpu_frames);
    /* a hung device may still use what it holds: it is left as it is */
    if (s->vk.hung)
        goto close;
    ff_fssim_vk_resample_uninit(&s->vk, &s->rs);
    ff_fssim_vk_msssim_uninit(&s->vk, &s->ms);
    ff_fssim_vk_vmaf_uninit(&s->vk, &s->vmaf);
    if (s->vk.initialized) {
        ff_vk_shader_free(vkctx, &s->shd_tile);
        ff_vk_shader_free(vkctx, &s->shd_reduce);
        ff_vk_shader_free(vkctx, &s->shd_tile_rs);
        ff_vk_free_buf(vkctx, &s->scratch);
        ff_vk_free_buf(vkctx, &s->results);
    }
close:
    ff_fssim_vk_close(&s->vk);
    av_freep(&s->exec);
    av_freep(&s->slot_n);
}

const FSSIMBackend ff_fssim_vulkan_backend = {
    .name         = "Vulkan",
    .priv_size    = sizeof(VKBackend),
    .queue_depth  = QUEUE_DEPTH,
    .ring_extra3d = 1,
    .check_inputs = ff_fssim_vk_check_inputs,
    .init         = vk_init,
    .submit       = vk_submit,
    .collect      = vk_collect,
    .moments      = vk_moments,
    .submit3d     = vk_submit3d,
    .uninit       = vk_uninit,
    .storage3d    = "device memory, 24 bytes per position (mu_a, mu_b, var_a + var_b, cov "
                    "as doubles rounded to 48 bits)",
};
