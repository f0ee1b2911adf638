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
 * a few frames later, so the pipeline never waits on the GPU.  MS-SSIM
 * (fssim_msssim.comp.glsl) adds a dispatch per plane and scale (each
 * pooling the next scale into the level buffer) and a reduce dispatch per
 * plane.
 *
 * The renditions' dispatches of one phase (resampling, tiles, reduction)
 * run side by side, each with its own region of the buffers (a lane) and
 * its own frames bound by push descriptors.  Where FFmpeg cannot push
 * descriptors, each rendition gets its own command buffer instead.
 */
#include <float.h>
#include <inttypes.h>
#include <string.h>

#include "libavutil/intfloat.h"
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "libavutil/version.h"
#include "libavfilter/vulkan_filter.h"
#include "libavfilter/filters.h"

#include "fssim_be_vulkan.h"

extern const unsigned char ff_fssim_comp_spv_data[];
extern const unsigned int  ff_fssim_comp_spv_len;
extern const unsigned char ff_fssim_f32_comp_spv_data[];
extern const unsigned int  ff_fssim_f32_comp_spv_len;
extern const unsigned char ff_fssim_resample_comp_spv_data[];
extern const unsigned int  ff_fssim_resample_comp_spv_len;
extern const unsigned char ff_fssim_msssim_comp_spv_data[];
extern const unsigned int  ff_fssim_msssim_comp_spv_len;

#define MAX_PLANES  4
/* Frames whose sums may still be on their way back. */
#define QUEUE_DEPTH 6
#define RES_WORDS   10          /* result words per plane, see reduce_main() */
#define NB_TS       3           /* timestamps: start, tiles done, end */

/* Descriptor bindings, as in fssim_core.glsl. */
enum { BIND_MAIN = 0, BIND_REF = BIND_MAIN + MAX_PLANES, BIND_PART_F = BIND_REF + MAX_PLANES,
       BIND_PART_D, BIND_WIN, BIND_RES, BIND_RSB, BIND_NB };

/* Descriptor bindings of the resampler, as in fssim_resample.comp.glsl. */
enum { RS_BIND_SRC = 0, RS_BIND_TAB = RS_BIND_SRC + MAX_PLANES, RS_BIND_OUT, RS_BIND_NB };

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

/* PushData in fssim_resample.comp.glsl: the resampling of one plane of a
 * rendition (offsets in elements of the tables and output buffers). */
typedef struct FSSIMVkRsPush {
    int32_t  in_size[2], out_size[2];
    int32_t  xtaps, ytaps;
    uint32_t xstart, xcoef, ystart, ycoef;
    int32_t  plane, chan, shift, maxval;
    uint32_t bands;     /* per row of tiles, first source row and count */
    int32_t  rows;      /* output rows of a tile; 0: the direct path */
    uint32_t out_off;
} FSSIMVkRsPush;

_Static_assert(sizeof(FSSIMVkRsPush) == 17 * 4, "FSSIMVkRsPush matches the shader's PushData");

typedef struct FSSIMVkPlane {
    FSSIMVkPush pc;
    int      tiles_y;
} FSSIMVkPlane;

/* msssim: bindings, specialization constants and push constants of
 * fssim_msssim.comp.glsl; result words per plane (S and CS float pairs of
 * each scale). */
enum { MS_BIND_LVL = BIND_REF + MAX_PLANES, MS_BIND_PART, MS_BIND_RES, MS_BIND_RSB,
       MS_BIND_NB };
enum { MS_SPEC_MODE, MS_SPEC_RF, MS_SPEC_C1F, MS_SPEC_C2F, MS_SPEC_SG, MS_SPEC_G0,
       MS_SPEC_MAIN_BUF = MS_SPEC_G0 + 15, MS_SPEC_NB };
#define MS_RES_WORDS (4 * FSSIM_MS_SCALES)
#define MS_NONE      0xFFFFFFFFu

typedef struct FSSIMVkMsPush {
    int32_t  size[2];
    int32_t  plane, chan, shift, level, tiles_x;
    uint32_t part_off, in_off, in_ref_off, out_off, out_ref_off, res_off;
    uint32_t seg_off[FSSIM_MS_SCALES], seg_n[FSSIM_MS_SCALES];
    uint32_t buf_off, buf_pitch;  /* MAIN_BUF, scale 0: a resampled rendition's plane */
} FSSIMVkMsPush;

/* PushData in fssim_msssim.comp.glsl, scalar layout */
_Static_assert(sizeof(FSSIMVkMsPush) == (15 + 2 * FSSIM_MS_SCALES) * 4,
               "FSSIMVkMsPush matches the shader's PushData");

typedef struct FSSIMVkMsDispatch {
    FSSIMVkMsPush pc;
    int tiles_y;
} FSSIMVkMsDispatch;

typedef struct VKBackend {
    VK3DBackend *b3d;             /* fssim3d: everything is there */
    FFVulkanContext vkctx;
    int initialized;
    int fp64;                     /* the shader with int and block */
    uint32_t subgroup_size;       /* 0: shared-memory reductions */
    AVVulkanDeviceQueueFamily *qf;
    FFVkExecPool e;
    FFVulkanShader shd_tile, shd_reduce;
    FSSIMVkPlane planes[4];

    /* A ladder's renditions of another size: resampled (shd_rs) into
     * rsbuf, per execution context, which shd_tile_rs reads instead of the
     * rendition's images; tables holds the coefficients and the bands. */
    int resampling;
    FFVulkanShader shd_rs, shd_tile_rs;
    FFVkBuffer tables, rsbuf;
    size_t rs_size, rs_stride;
    FSSIMVkRsPush rsp[FSSIM_MAX_DIST][4];

    /* Per execution context: partial sums of the workgroups, and the
     * block window values of deep frames; results in host memory. */
    FFVkBuffer scratch, results;
    uint8_t *results_map;
    size_t part_f_off, part_d_off, win_off, scratch_stride;
    size_t part_f_size, part_d_size, win_size, res_stride;

    /* Renditions per command buffer: nb_dist, or 1 without push
     * descriptors.  Each has its lane: its region of scratch, results,
     * rsbuf and ms_buf, region exec->idx * lanes + lane. */
    int lanes;
    /* each slot's execution context of each rendition (NULL: none) */
    FFVkExecContext **exec;
    uint64_t nb_submitted;        /* frames, for messages */
    uint64_t *slot_n;             /* per slot, the frame it scores */

    /* GPU time per frame, from timestamp queries */
    FSSIMVkTimer timer;
    double gpu_sum, gpu_min, gpu_max, gpu_tiles;
    double gpu_min_tiles;         /* the tile pass of the quickest frame */
    uint64_t gpu_frames;

    /* A submission or a fence failed: the device is not trusted for the
     * rest of the run, and no score is read from it any more. */
    int gpu_failed;

    /* msssim: per execution context, scales 1-4 of both inputs' planes
     * (floats), then the workgroups' partial records (vec4) */
    FFVulkanShader shd_ms_tile, shd_ms_reduce;
    FFVulkanShader shd_ms_tile_rs;             /* scale 0 of a resampled rendition */
    FFVkBuffer ms_buf;
    size_t ms_stride, ms_lvl_size;
    FSSIMVkMsDispatch ms[4][FSSIM_MS_SCALES];  /* per plane and scale */
    FSSIMVkMsPush ms_reduce[4];                /* per plane */
    uint32_t ms_res_word;                      /* msssim's first result word */
} VKBackend;

int ff_fssim_vk_add_descriptor_set(FFVulkanContext *vkctx, FFVulkanShader *shd,
                                   const FFVulkanDescriptorSetBinding *desc, int nb)
{
#if LIBAVUTIL_VERSION_MAJOR < 61
    return ff_vk_shader_add_descriptor_set(vkctx, shd, desc, nb, 0, 0);
#else
    ff_vk_shader_add_descriptor_set(vkctx, shd, desc, nb, 0);
    return 0;
#endif
}

size_t ff_fssim_vk_align(size_t size)
{
    return FFALIGN(FFMAX(size, 1), FSSIM_VK_BUF_ALIGN);
}

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
    return (size_t)s->e.pool_size * s->lanes;
}

/* The region of rendition k scored in exec. */
static size_t region(const VKBackend *s, const FFVkExecContext *exec, int k)
{
    return (size_t)exec->idx * s->lanes + (s->lanes > 1 ? k : 0);
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
    s->res_stride  = ff_fssim_vk_align(sizeof(uint32_t) * RES_WORDS * e->fmt.nb_comps);
}

/* Whether the fused shaders run: an algorithm other than msssim is asked for. */
static int fused_algos(const FSSIMEngine *e)
{
    return e->opts->algos & ~FSSIM_BIT(FSSIM_ALGO_MSSSIM);
}

/*
 * msssim: the dispatches of every plane and scale, the layout of the
 * level buffer (scale j of main, then of the reference, per plane, rows
 * packed) and of the partial records, and the result words after those of
 * the fused shaders.
 */
static void setup_msssim(FSSIMEngine *e)
{
    VKBackend *s = e->priv;
    uint32_t lvl = 0, parts = 0;
    uint32_t off[4][FSSIM_MS_SCALES] = { { 0 } };

    s->ms_res_word = RES_WORDS * e->fmt.nb_comps;
    s->res_stride  = ff_fssim_vk_align(sizeof(uint32_t) * (s->ms_res_word +
                                                   MS_RES_WORDS * e->fmt.nb_comps));
    for (int c = 0; c < e->fmt.nb_comps; c++) {
        for (int j = 1; j < FSSIM_MS_SCALES; j++) {
            int sw, sh;
            ff_fssim_ref_msssim_scale_size(e->fmt.comp[c].width, e->fmt.comp[c].height, j,
                                           &sw, &sh);
            off[c][j] = lvl;
            lvl += 2 * sw * sh;
        }
    }
    for (int c = 0; c < e->fmt.nb_comps; c++) {
        const FSSIMPlane *cp = &e->fmt.comp[c];
        FSSIMVkMsPush *rp = &s->ms_reduce[c];

        memset(rp, 0, sizeof(*rp));
        rp->res_off = s->ms_res_word + c * MS_RES_WORDS;
        for (int j = 0; j < FSSIM_MS_SCALES; j++) {
            FSSIMVkMsDispatch *d = &s->ms[c][j];
            FSSIMVkMsPush *pc = &d->pc;
            int sw, sh;

            ff_fssim_ref_msssim_scale_size(cp->width, cp->height, j, &sw, &sh);
            memset(d, 0, sizeof(*d));
            pc->size[0]  = sw;
            pc->size[1]  = sh;
            pc->plane    = cp->plane;
            pc->chan     = cp->offset / cp->bytes;
            pc->shift    = cp->shift;
            pc->level    = j;
            pc->tiles_x  = (sw + TILE_W - 1) / TILE_W;
            d->tiles_y   = (sh + TILE_H - 1) / TILE_H;
            pc->part_off = parts;
            pc->in_off   = off[c][j];
            pc->in_ref_off = off[c][j] + sw * sh;
            pc->out_off  = pc->out_ref_off = MS_NONE;
            if (j + 1 < FSSIM_MS_SCALES) {
                const int nw = (sw + 1) / 2, nh = (sh + 1) / 2;
                pc->out_off     = off[c][j + 1];
                pc->out_ref_off = off[c][j + 1] + nw * nh;
            }
            pc->res_off = rp->res_off;
            rp->seg_off[j] = parts;
            rp->seg_n[j]   = pc->tiles_x * d->tiles_y;
            parts += rp->seg_n[j];
        }
    }
    s->ms_lvl_size = ff_fssim_vk_align(sizeof(float) * lvl);
    s->ms_stride   = s->ms_lvl_size + ff_fssim_vk_align(4 * sizeof(float) * parts);
}

/* Shared memory of fssim_msssim.comp.glsl's tile workgroup: the tile and
 * its halo of both inputs, the horizontal pass (4 moments) or the staging
 * area of the reduction (a float quadruple per slot), the taps. */
static int ms_shared_bytes(const FSSIMEngine *e)
{
    const VKBackend *s = e->priv;
    const int rf = e->opts->window / 2;
    const int hb = 4 * (TILE_H + 2 * rf) * TILE_W;
    const int st = 4 * (s->subgroup_size ? WG_SIZE / 4 : WG_SIZE);

    return 4 * (2 * (TILE_W + 2 * rf) * (TILE_H + 2 * rf) + FFMAX(hb, st) +
                2 * FSSIM_MAX_RADIUS + 1);
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
    const int hi = algos & FSSIM_BIT(FSSIM_ALGO_INT) ?
                   (e->fmt.depth > 12 ? 8 : e->fmt.depth > 8 ? 5 : 4) *
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

/* doc/errors.md: name the missing feature and the way out. */
static int check_device(FSSIMEngine *e)
{
    VKBackend *s = e->priv;
    AVFilterContext *ctx = e->ctx;
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
               "enabled), which resampling a ladder's renditions needs for its exact "
               "arithmetic. Scale the renditions to the reference's size first "
               "(scale_vulkan), or use scale=none.\n", name);
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
    if ((e->opts->algos & FSSIM_BIT(FSSIM_ALGO_MSSSIM)) && shared < ms_shared_bytes(e)) {
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device '%s' offers %u bytes of shared memory "
               "per workgroup; algo=msssim needs %d with these options.\n", name, shared,
               ms_shared_bytes(e));
        return AVERROR(ENOSYS);
    }
    if (shared < shared_bytes(e, tile_halo(e))) {
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device '%s' offers %u bytes of shared memory "
               "per workgroup; fssim_vulkan needs %d with these options.\n", name, shared,
               shared_bytes(e, tile_halo(e)));
        return AVERROR(ENOSYS);
    }
    {
        const AVVulkanFramesContext *vkfc = vkctx->hwfc;
        const int nb_planes = av_pix_fmt_count_planes(e->fmt.pix_fmt);
        const int multiplane = nb_planes > 1 && vkfc->format[1] == VK_FORMAT_UNDEFINED;
        av_log(ctx, AV_LOG_VERBOSE, "Device '%s': %s shader, %d bytes of shared memory, "
               "reductions %s%u; %s frames as %s.\n", name,
               s->fp64 ? "int/block (fp64)" : "float-only", shared_bytes(e, tile_halo(e)),
               s->subgroup_size ? "by subgroups of " : "in shared memory", s->subgroup_size,
               av_get_pix_fmt_name(e->fmt.pix_fmt),
               multiplane ? "one multi-plane image" : "one image per plane");
    }
    return 0;
}

static int init_shader(FSSIMEngine *e, FFVulkanShader *shd, int mode, int main_buf)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    const int algos = e->opts->algos;
    const int depth = e->fmt.depth;
    const int rf = e->opts->window / 2;
    const double L = (double)((1 << depth) - 1);
    const int max = (1 << depth) - 1;
    const int halo = tile_halo(e);
    int err;
    double g[FSSIM_MAX_WINDOW] = { 0 };

    FFVulkanDescriptorSetBinding desc[BIND_NB];

    /* one binding per plane of each frame, then the buffers */
    for (int i = 0; i < BIND_NB; i++)
        desc[i] = (FFVulkanDescriptorSetBinding) {
            .type   = i < BIND_PART_F ? VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE :
                                        VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .stages = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    SPEC_LIST_CREATE(sl, SPEC_MAIN_BUF + 1, (SPEC_MAIN_BUF + 1) * sizeof(uint64_t))

    ff_fssim_ref_gauss_weights(e->opts->window, e->opts->sigma, g);

    SPEC_LIST_ADD(sl, SPEC_MODE,  32, mode);
    SPEC_LIST_ADD(sl, SPEC_ALGOS, 32, algos);
    SPEC_LIST_ADD(sl, SPEC_RF,    32, rf);
    SPEC_LIST_ADD(sl, SPEC_HALO,  32, halo);
    SPEC_LIST_ADD(sl, SPEC_DEEP,  32, depth > 8);
    SPEC_LIST_ADD(sl, SPEC_WIDE,  32, depth > 12);
    /* doc/algorithms.md#float constants, as ref_float.c computes them */
    SPEC_LIST_ADD(sl, SPEC_C1F,   32, av_float2int((float)FSSIM_FLOAT_C1(L)));
    SPEC_LIST_ADD(sl, SPEC_C2F,   32, av_float2int((float)FSSIM_FLOAT_C2(L)));
    for (int i = 0; i < 15; i++)
        SPEC_LIST_ADD(sl, SPEC_G0 + i, 32, av_float2int((float)g[i]));
    if (s->fp64) {
        /* doc/algorithms.md#int and vf_ssim.c constants, bit for bit as the reference */
        SPEC_LIST_ADD(sl, SPEC_C1BASE, 64, av_double2int(FSSIM_INT_C1BASE(L)));
        SPEC_LIST_ADD(sl, SPEC_C2BASE, 64, av_double2int(FSSIM_INT_C2BASE(L)));
        SPEC_LIST_ADD(sl, SPEC_BC1,    64, (int64_t)FSSIM_BLOCK_C1(max));
        SPEC_LIST_ADD(sl, SPEC_BC2,    64, (int64_t)FSSIM_BLOCK_C2(max));
    }
    SPEC_LIST_ADD(sl, SPEC_SG, 32, !!s->subgroup_size);
    SPEC_LIST_ADD(sl, SPEC_MAIN_BUF, 32, main_buf);

    ff_vk_shader_load(shd, VK_SHADER_STAGE_COMPUTE_BIT, sl,
                      (uint32_t []) { WG_SIZE, 1, 1 }, 0);
    if (s->subgroup_size)
        shd->subgroup_info = (VkPipelineShaderStageRequiredSubgroupSizeCreateInfo) {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
            .requiredSubgroupSize = s->subgroup_size,
        };
    RET(ff_fssim_vk_add_descriptor_set(vkctx, shd, desc, BIND_NB));
    RET(ff_vk_shader_add_push_const(shd, 0, sizeof(FSSIMVkPush), VK_SHADER_STAGE_COMPUTE_BIT));
    return s->fp64 ? ff_fssim_vk_link(vkctx, &s->e, shd, ff_fssim_comp_spv_data,
                                      ff_fssim_comp_spv_len) :
                     ff_fssim_vk_link(vkctx, &s->e, shd, ff_fssim_f32_comp_spv_data,
                                      ff_fssim_f32_comp_spv_len);

fail:
    shd->specialization_info = NULL;
    return err;
}

/* msssim's shaders: mode 0 a scale's tiles, 1 the reduction; main_buf:
 * scale 0 of main read from the resampled planes, as shd_tile_rs. */
static int init_ms_shader(FSSIMEngine *e, FFVulkanShader *shd, int mode, int main_buf)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    const double L = (double)((1 << e->fmt.depth) - 1);
    double g[FSSIM_MAX_WINDOW] = { 0 };
    FFVulkanDescriptorSetBinding desc[MS_BIND_NB];
    int err;

    for (int i = 0; i < MS_BIND_NB; i++)
        desc[i] = (FFVulkanDescriptorSetBinding) {
            .type   = i < MS_BIND_LVL ? VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE :
                                        VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .stages = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    SPEC_LIST_CREATE(sl, MS_SPEC_NB, MS_SPEC_NB * sizeof(uint32_t))

    ff_fssim_ref_gauss_weights(e->opts->window, e->opts->sigma, g);
    SPEC_LIST_ADD(sl, MS_SPEC_MODE, 32, mode);
    SPEC_LIST_ADD(sl, MS_SPEC_RF,   32, e->opts->window / 2);
    /* the reference's constants (doc/algorithms.md#msssim), rounded to float */
    SPEC_LIST_ADD(sl, MS_SPEC_C1F,  32, av_float2int((float)FSSIM_FLOAT_C1(L)));
    SPEC_LIST_ADD(sl, MS_SPEC_C2F,  32, av_float2int((float)FSSIM_FLOAT_C2(L)));
    SPEC_LIST_ADD(sl, MS_SPEC_SG,   32, !!s->subgroup_size);
    SPEC_LIST_ADD(sl, MS_SPEC_MAIN_BUF, 32, main_buf);
    for (int i = 0; i < 15; i++)
        SPEC_LIST_ADD(sl, MS_SPEC_G0 + i, 32, av_float2int((float)g[i]));

    ff_vk_shader_load(shd, VK_SHADER_STAGE_COMPUTE_BIT, sl,
                      (uint32_t []) { WG_SIZE, 1, 1 }, 0);
    if (s->subgroup_size)
        shd->subgroup_info = (VkPipelineShaderStageRequiredSubgroupSizeCreateInfo) {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
            .requiredSubgroupSize = s->subgroup_size,
        };
    RET(ff_fssim_vk_add_descriptor_set(vkctx, shd, desc, MS_BIND_NB));
    RET(ff_vk_shader_add_push_const(shd, 0, sizeof(FSSIMVkMsPush), VK_SHADER_STAGE_COMPUTE_BIT));
    return ff_fssim_vk_link(vkctx, &s->e, shd, ff_fssim_msssim_comp_spv_data,
                            ff_fssim_msssim_comp_spv_len);

fail:
    shd->specialization_info = NULL;
    return err;
}

int ff_fssim_vk_link(FFVulkanContext *vkctx, FFVkExecPool *pool, FFVulkanShader *shd,
                     const unsigned char *spv, unsigned int len)
{
    int err = ff_vk_shader_link(vkctx, shd, (const char *)spv, len, "main");

    shd->specialization_info = NULL;
    return err < 0 ? err : ff_vk_shader_register_exec(vkctx, pool, shd);
}

void ff_fssim_vk_timer_init(AVFilterContext *ctx, FFVulkanContext *vkctx, int qf,
                            int nb_exec, int per_exec, FSSIMVkTimer *t)
{
    FFVulkanFunctions *vk = &vkctx->vkfn;
    const uint32_t bits = vkctx->qf_props[qf].queueFamilyProperties.timestampValidBits;
    VkQueryPoolCreateInfo info = {
        .sType      = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType  = VK_QUERY_TYPE_TIMESTAMP,
        .queryCount = per_exec * nb_exec,
    };

    t->per_exec = per_exec;
    t->write = (PFN_vkCmdWriteTimestamp)vk->GetDeviceProcAddr(vkctx->hwctx->act_dev,
                                                              "vkCmdWriteTimestamp");
    if (!bits || !t->write ||
        vk->CreateQueryPool(vkctx->hwctx->act_dev, &info, vkctx->hwctx->alloc,
                            &t->pool) != VK_SUCCESS) {
        t->pool = VK_NULL_HANDLE;
        av_log(ctx, AV_LOG_VERBOSE, "No timestamp queries: GPU time not measured.\n");
        return;
    }
    t->mask   = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    t->period = vkctx->props.properties.limits.timestampPeriod;
}

void ff_fssim_vk_timer_write(FFVulkanContext *vkctx, const FSSIMVkTimer *t,
                             FFVkExecContext *exec, int i, VkPipelineStageFlagBits stage)
{
    if (!t->pool)
        return;
    if (!i)
        vkctx->vkfn.CmdResetQueryPool(exec->buf, t->pool, t->per_exec * exec->idx,
                                      t->per_exec);
    t->write(exec->buf, stage, t->pool, t->per_exec * exec->idx + i);
}

int ff_fssim_vk_timer_read(FFVulkanContext *vkctx, const FSSIMVkTimer *t,
                           FFVkExecContext *exec, double *us)
{
    uint64_t ts[8];

    if (!t->pool || t->per_exec > FF_ARRAY_ELEMS(ts) ||
        vkctx->vkfn.GetQueryPoolResults(vkctx->hwctx->act_dev, t->pool,
                                        t->per_exec * exec->idx, t->per_exec,
                                        sizeof(ts[0]) * t->per_exec, ts, sizeof(ts[0]),
                                        VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
        return 0;
    for (int i = 1; i < t->per_exec; i++)
        us[i - 1] = ((ts[i] - ts[0]) & t->mask) * t->period * 1e-3;
    return 1;
}

void ff_fssim_vk_timer_uninit(FFVulkanContext *vkctx, FSSIMVkTimer *t)
{
    if (t->pool)
        vkctx->vkfn.DestroyQueryPool(vkctx->hwctx->act_dev, t->pool, vkctx->hwctx->alloc);
    t->pool = VK_NULL_HANDLE;
}

/* The resampler: its descriptors (the rendition's planes, the tables, the
 * output samples). */
static int init_rs_shader(FSSIMEngine *e, FFVulkanShader *shd)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    FFVulkanDescriptorSetBinding desc[RS_BIND_NB];
    int err;

    for (int i = 0; i < RS_BIND_NB; i++)
        desc[i] = (FFVulkanDescriptorSetBinding) {
            .type   = i < RS_BIND_TAB ? VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE :
                                        VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .stages = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    /* no constants of its own: room for the workgroup size FFmpeg adds */
    SPEC_LIST_CREATE(sl, 0, 0)
    ff_vk_shader_load(shd, VK_SHADER_STAGE_COMPUTE_BIT, sl,
                      (uint32_t []) { TILE_W, TILE_H, 1 }, 0);
    RET(ff_fssim_vk_add_descriptor_set(vkctx, shd, desc, RS_BIND_NB));
    RET(ff_vk_shader_add_push_const(shd, 0, sizeof(FSSIMVkRsPush), VK_SHADER_STAGE_COMPUTE_BIT));
    return ff_fssim_vk_link(vkctx, &s->e, shd, ff_fssim_resample_comp_spv_data,
                            ff_fssim_resample_comp_spv_len);

fail:
    shd->specialization_info = NULL;
    return err;
}

/* load_rows() in fssim_resample.comp.glsl: one invocation per coefficient */
_Static_assert(4 * FSSIM_VK_RESAMPLE_ROWS <= WG_SIZE,
               "a resampler workgroup reads its rows' vertical coefficients in one pass");

/* Rows of workgroups of a resampled component's dispatch. */
static int rs_groups_y(const FSSIMVkRsPush *rp)
{
    const int rows = rp->rows ? rp->rows : TILE_H;
    return (rp->out_size[1] + rows - 1) / rows;
}

/* Append n int32s to the tables at *nb; their offset. */
static uint32_t put_table(int32_t *tab, size_t *nb, const int32_t *v, size_t n)
{
    const uint32_t at = *nb;

    if (n)
        memcpy(tab + *nb, v, n * sizeof(*v));
    *nb += n;
    return at;
}

/* A ladder with renditions of another size: the coefficient tables (the
 * reference's, computed once by the engine) and the bands of the tiles in
 * a buffer, per execution context room for the resampled planes, the
 * resampler's shader and the scoring shader that reads the resampled
 * planes. */
static int init_resampling(FSSIMEngine *e)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    int32_t *bands[FSSIM_MAX_DIST][4] = { { NULL } };
    int rows[FSSIM_MAX_DIST][4] = { { 0 } };
    size_t nb_tab = 0;
    int32_t *tab;
    int err;

    for (int c = 0; c < e->fmt.nb_comps; c++)
        s->rs_size += sizeof(uint32_t) * e->fmt.comp[c].width * e->fmt.comp[c].height;
    s->rs_stride = ff_fssim_vk_align(s->rs_size);
    for (int k = 0; k < e->nb_dist; k++) {
        for (int c = 0; e->resample[k] && c < e->fmt.nb_comps; c++) {
            const FSSIMRefResampleAxis *ay = &e->axis[k][c][1];
            RET(rows[k][c] = ff_fssim_resample_tiles(ay, FSSIM_VK_RESAMPLE_ROWS,
                                                     FSSIM_RESAMPLE_SPAN, &bands[k][c]));
            for (int a = 0; a < 2; a++)
                nb_tab += (size_t)e->axis[k][c][a].out * (1 + e->axis[k][c][a].ntaps);
            if (rows[k][c])
                nb_tab += 2 * (size_t)((ay->out + rows[k][c] - 1) / rows[k][c]);
        }
    }

    RET(ff_vk_create_buf(vkctx, &s->tables, nb_tab * sizeof(int32_t), NULL, NULL,
                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                         VK_MEMORY_PROPERTY_HOST_COHERENT_BIT));
    RET(ff_vk_map_buffer(vkctx, &s->tables, (uint8_t **)&tab, 0));
    nb_tab = 0;
    for (int k = 0; k < e->nb_dist; k++) {
        uint32_t off = 0;
        for (int c = 0; e->resample[k] && c < e->fmt.nb_comps; c++) {
            const FSSIMPlane *in = &e->dist[k].comp[c], *o = &e->fmt.comp[c];
            const FSSIMRefResampleAxis *ax = &e->axis[k][c][0], *ay = &e->axis[k][c][1];
            FSSIMVkRsPush *rp = &s->rsp[k][c];

            *rp = (FSSIMVkRsPush) {
                .in_size  = { in->width, in->height }, .out_size = { o->width, o->height },
                .xtaps = ax->ntaps, .ytaps = ay->ntaps,
                .xstart = put_table(tab, &nb_tab, ax->start, ax->out),
                .xcoef  = put_table(tab, &nb_tab, ax->coef, (size_t)ax->out * ax->ntaps),
                .ystart = put_table(tab, &nb_tab, ay->start, ay->out),
                .ycoef  = put_table(tab, &nb_tab, ay->coef, (size_t)ay->out * ay->ntaps),
                .plane = in->plane, .chan = in->offset / in->bytes, .shift = in->shift,
                .maxval = (1 << e->fmt.depth) - 1, .rows = rows[k][c], .out_off = off,
            };
            rp->bands = put_table(tab, &nb_tab, bands[k][c],
                                  rp->rows ? 2 * (size_t)rs_groups_y(rp) : 0);
            off += o->width * o->height;
        }
    }
    ff_vk_unmap_buffer(vkctx, &s->tables, 1);
    /* the scoring shader reads plane c of the resampled samples from here */
    for (int c = 0, off = 0; c < e->fmt.nb_comps; c++) {
        s->planes[c].pc.buf_off   = s->ms[c][0].pc.buf_off   = off;
        s->planes[c].pc.buf_pitch = s->ms[c][0].pc.buf_pitch = e->fmt.comp[c].width;
        off += e->fmt.comp[c].width * e->fmt.comp[c].height;
    }

    RET(ff_vk_create_buf(vkctx, &s->rsbuf, s->rs_stride * nb_regions(s), NULL, NULL,
                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
    RET(init_rs_shader(e, &s->shd_rs));
    if (fused_algos(e))
        RET(init_shader(e, &s->shd_tile_rs, 0, 1));
    if (e->opts->algos & FSSIM_BIT(FSSIM_ALGO_MSSSIM))
        RET(init_ms_shader(e, &s->shd_ms_tile_rs, 0, 1));
    err = 0;

fail: /* and done: the bands are in the tables */
    for (int k = 0; k < FSSIM_MAX_DIST; k++)
        for (int c = 0; c < 4; c++)
            av_free(bands[k][c]);
    return err;
}

/* One command buffer for all renditions relies on pushed descriptors:
 * with a set per execution context, the renditions' dispatches would all
 * read the last rendition's frames. */
static int check_pushed(FSSIMEngine *e)
{
    VKBackend *s = e->priv;
    const FFVulkanShader *shd[] = { &s->shd_tile, &s->shd_reduce, &s->shd_rs, &s->shd_tile_rs,
                                    &s->shd_ms_tile, &s->shd_ms_reduce, &s->shd_ms_tile_rs };

    for (int i = 0; s->lanes > 1 && i < FF_ARRAY_ELEMS(shd); i++)
        if (shd[i]->pipeline_layout && !shd[i]->use_push) {
            av_log(e->ctx, AV_LOG_ERROR, "A shader's descriptors are not pushed although the "
                   "device can push them: the renditions cannot share a command buffer.\n");
            return AVERROR_BUG;
        }
    return 0;
}

static int vk_init(FSSIMEngine *e, size_t *ring_bytes)
{
    VKBackend *s = e->priv;
    AVFilterContext *ctx = e->ctx;
    FFVulkanContext *vkctx = &s->vkctx;
    FilterLink *ml = ff_filter_link(ctx->inputs[0]);
    int nb_exec, err;

    for (int k = 0; k < e->nb_dist; k++)
        s->resampling |= e->resample[k];
    if (!av_vkfmt_from_pixfmt(e->fmt.pix_fmt)) {
        av_log(ctx, AV_LOG_ERROR, "Pixel format %s has no Vulkan representation. Convert "
               "it first, e.g. with scale_vulkan=format=nv12.\n",
               av_get_pix_fmt_name(e->fmt.pix_fmt));
        return AVERROR(ENOSYS);
    }
    if (e->opts->depth)
        return ff_fssim_vk3d_init(e, &s->b3d, ring_bytes);
    s->exec   = av_calloc(e->nb_slots * e->nb_dist, sizeof(*s->exec));
    s->slot_n = av_calloc(e->nb_slots, sizeof(*s->slot_n));
    if (!s->exec || !s->slot_n)
        return AVERROR(ENOMEM);

    err = ff_vk_init(vkctx, ctx, NULL, ml->hw_frames_ctx);
    if (err < 0)
        return err;
    s->initialized = 1;

    RET(check_device(e));
    s->qf = ff_vk_qf_find(vkctx, VK_QUEUE_COMPUTE_BIT, 0);
    if (!s->qf) {
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device has no compute queue.\n");
        return AVERROR(ENOTSUP);
    }
    /* per slot one command buffer, or one per rendition */
    s->lanes = pushes_descriptors(vkctx, FFMAX3((int)BIND_NB, (int)MS_BIND_NB,
                                                (int)RS_BIND_NB)) ? e->nb_dist : 1;
    nb_exec  = e->nb_slots * e->nb_dist / s->lanes;
    RET(ff_vk_exec_pool_init(vkctx, s->qf, &s->e, nb_exec, 0, 0, 0, NULL));
    if (e->nb_dist > 1)
        av_log(ctx, AV_LOG_VERBOSE, "%d renditions per command buffer.\n", s->lanes);

    setup_planes(e);
    setup_msssim(e);
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
    if (e->opts->algos & FSSIM_BIT(FSSIM_ALGO_MSSSIM)) {
        RET(ff_vk_create_buf(vkctx, &s->ms_buf, s->ms_stride * nb_regions(s), NULL, NULL,
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                             VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
        RET(init_ms_shader(e, &s->shd_ms_tile, 0, 0));
        RET(init_ms_shader(e, &s->shd_ms_reduce, 1, 0));
        av_log(ctx, AV_LOG_VERBOSE, "msssim: %zu bytes of scales and partial sums per "
               "rendition and context, %zu in all.\n", s->ms_stride, s->ms_stride * nb_regions(s));
    }
    if (s->resampling)
        RET(init_resampling(e));
    RET(check_pushed(e));
    ff_fssim_vk_timer_init(ctx, vkctx, s->qf->idx, s->e.pool_size, NB_TS, &s->timer);
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
    FFVulkanContext *vkctx = &s->vkctx;
    int err;

    for (int j = 0; j < jf->nb; j++)
        if (jf->frame[j]->data[0] == f->data[0]) {
            jf->of[i] = j;
            return 0;
        }
    /* FFmpeg's helpers take the frames as writable; nothing here writes */
    err = ff_vk_exec_add_dep_frame(vkctx, exec, (AVFrame *)f,
                                   VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                   VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT);
    if (err < 0)
        return err;
    err = ff_vk_create_imageviews(vkctx, exec, jf->views[jf->nb], (AVFrame *)f, FF_VK_REP_UINT);
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

/* Bind a scoring or msssim shader for rendition k with what they share:
 * the frames' planes (unused bindings repeat the last plane), and at
 * binding rsb the region of the resampled planes, which only the MAIN_BUF
 * variants read (the others get a valid buffer all the same).  A resampled
 * rendition is read from its resampled planes; the reference's images
 * stand in for its own, which those variants do not read. */
static void bind_frames(FSSIMEngine *e, FFVkExecContext *exec, FFVulkanShader *shd,
                        const VKJobFrames *jf, int k, int rsb)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    const int nb_planes = av_pix_fmt_count_planes(e->fmt.pix_fmt);
    const VkImageView *ref_views = job_views(jf, JOB_REF);
    const VkImageView *main_views = e->resample[k] ? ref_views : job_views(jf, k);
    const size_t r = region(s, exec, k);

    ff_vk_exec_bind_shader(vkctx, exec, shd);
    for (int i = 0; i < MAX_PLANES; i++) {
        const int p = FFMIN(i, nb_planes - 1);
        ff_vk_shader_update_img(vkctx, exec, shd, 0, BIND_MAIN + i, 0, main_views[p],
                                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_NULL_HANDLE);
        ff_vk_shader_update_img(vkctx, exec, shd, 0, BIND_REF + i, 0, ref_views[p],
                                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_NULL_HANDLE);
    }
    if (s->resampling)
        ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, rsb, 0, &s->rsbuf,
                                        r * s->rs_stride, s->rs_size, VK_FORMAT_UNDEFINED);
    else
        ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, rsb, 0, &s->results,
                                        r * s->res_stride, s->res_stride,
                                        VK_FORMAT_UNDEFINED);
}

/* The fused shaders for rendition k: its frames, its region of the
 * partial sums, block windows and results. */
static void bind_fused(FSSIMEngine *e, FFVkExecContext *exec, FFVulkanShader *shd,
                       const VKJobFrames *jf, int k)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    const size_t r = region(s, exec, k), base = r * s->scratch_stride;

    bind_frames(e, exec, shd, jf, k, BIND_RSB);
    ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, BIND_PART_F, 0, &s->scratch,
                                    base + s->part_f_off, s->part_f_size, VK_FORMAT_UNDEFINED);
    ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, BIND_PART_D, 0, &s->scratch,
                                    base + s->part_d_off, s->part_d_size, VK_FORMAT_UNDEFINED);
    ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, BIND_WIN, 0, &s->scratch,
                                    base + s->win_off, s->win_size, VK_FORMAT_UNDEFINED);
    ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, BIND_RES, 0, &s->results,
                                    r * s->res_stride, s->res_stride, VK_FORMAT_UNDEFINED);
}

/* msssim's shaders for rendition k: its frames, its region of the level
 * buffer and partial records, its results. */
static void bind_msssim(FSSIMEngine *e, FFVkExecContext *exec, FFVulkanShader *shd,
                        const VKJobFrames *jf, int k)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    const size_t r = region(s, exec, k), base = r * s->ms_stride;

    bind_frames(e, exec, shd, jf, k, MS_BIND_RSB);
    ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, MS_BIND_LVL, 0, &s->ms_buf,
                                    base, s->ms_lvl_size, VK_FORMAT_UNDEFINED);
    ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, MS_BIND_PART, 0, &s->ms_buf,
                                    base + s->ms_lvl_size, s->ms_stride - s->ms_lvl_size,
                                    VK_FORMAT_UNDEFINED);
    ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, MS_BIND_RES, 0, &s->results,
                                    r * s->res_stride, s->res_stride, VK_FORMAT_UNDEFINED);
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

static void barrier_compute(FFVulkanFunctions *vk, FFVkExecContext *exec)
{
    ff_fssim_vk_barrier(vk, exec, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT, NULL, 0);
}

/* Make every frame of the job readable by the shaders. */
static void record_frame_barriers(FSSIMEngine *e, FFVkExecContext *exec, const VKJobFrames *jf)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    VkImageMemoryBarrier2 img_bar[(FSSIM_MAX_DIST + 1) * AV_NUM_DATA_POINTERS];
    int nb_img_bar = 0;

    for (int j = 0; j < jf->nb; j++)
        ff_vk_frame_barrier(vkctx, exec, (AVFrame *)jf->frame[j], img_bar, &nb_img_bar,
                            VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                            VK_ACCESS_SHADER_READ_BIT,
                            VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                            VK_QUEUE_FAMILY_IGNORED);
    vkctx->vkfn.CmdPipelineBarrier2(exec->buf, &(VkDependencyInfo) {
        .sType                   = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
        .pImageMemoryBarriers    = img_bar,
        .imageMemoryBarrierCount = nb_img_bar,
    });
}

/* Record the resampling of the renditions in set that need it, each into
 * its region of the resampled planes: one dispatch per plane. */
static void record_resample(FSSIMEngine *e, FFVkExecContext *exec, const VKJobFrames *jf,
                            unsigned set)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    FFVulkanFunctions *vk = &vkctx->vkfn;
    FFVulkanShader *shd = &s->shd_rs;
    const int nb_planes = av_pix_fmt_count_planes(e->fmt.pix_fmt);
    int any = 0;

    for (int k = 0; k < e->nb_dist; k++) {
        if (!(set & (1u << k)) || !e->resample[k])
            continue;
        ff_vk_exec_bind_shader(vkctx, exec, shd);
        for (int i = 0; i < MAX_PLANES; i++)
            ff_vk_shader_update_img(vkctx, exec, shd, 0, RS_BIND_SRC + i, 0,
                                    job_views(jf, k)[FFMIN(i, nb_planes - 1)],
                                    VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_NULL_HANDLE);
        ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, RS_BIND_TAB, 0, &s->tables, 0,
                                        s->tables.size, VK_FORMAT_UNDEFINED);
        ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, RS_BIND_OUT, 0, &s->rsbuf,
                                        region(s, exec, k) * s->rs_stride, s->rs_size,
                                        VK_FORMAT_UNDEFINED);
        for (int c = 0; c < e->fmt.nb_comps; c++) {
            const FSSIMVkRsPush *rp = &s->rsp[k][c];
            ff_vk_shader_update_push_const(vkctx, exec, shd, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                           sizeof(*rp), (void *)rp);
            vk->CmdDispatch(exec->buf, (rp->out_size[0] + TILE_W - 1) / TILE_W,
                            rs_groups_y(rp), 1);
        }
        any = 1;
    }
    if (any)
        barrier_compute(vk, exec);
}

/* The fused dispatches of every plane of the renditions in set, then, after
 * they are all done, each plane's fixed-order reduction. */
static void record_fused(FSSIMEngine *e, FFVkExecContext *exec, const VKJobFrames *jf,
                         unsigned set)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    FFVulkanFunctions *vk = &vkctx->vkfn;

    for (int k = 0; k < e->nb_dist; k++) {
        FFVulkanShader *tile = e->resample[k] ? &s->shd_tile_rs : &s->shd_tile;
        if (!(set & (1u << k)))
            continue;
        bind_fused(e, exec, tile, jf, k);
        for (int c = 0; c < e->fmt.nb_comps; c++) {
            FSSIMVkPlane *p = &s->planes[c];
            ff_vk_shader_update_push_const(vkctx, exec, tile, VK_SHADER_STAGE_COMPUTE_BIT,
                                           0, sizeof(p->pc), &p->pc);
            vk->CmdDispatch(exec->buf, p->pc.tiles_x, p->tiles_y, 1);
        }
    }
    barrier_compute(vk, exec);
    ff_fssim_vk_timer_write(vkctx, &s->timer, exec, 1, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    for (int k = 0; k < e->nb_dist; k++) {
        if (!(set & (1u << k)))
            continue;
        bind_fused(e, exec, &s->shd_reduce, jf, k);
        for (int c = 0; c < e->fmt.nb_comps; c++) {
            FSSIMVkPlane *p = &s->planes[c];
            ff_vk_shader_update_push_const(vkctx, exec, &s->shd_reduce,
                                           VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(p->pc), &p->pc);
            vk->CmdDispatch(exec->buf, 1, 1, 1);
        }
    }
}

/* msssim: the five scales of every plane of the renditions in set (each
 * scale's dispatches after the previous scale's pooling), then each
 * plane's reduction. */
static void record_msssim(FSSIMEngine *e, FFVkExecContext *exec, const VKJobFrames *jf,
                          unsigned set)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    FFVulkanFunctions *vk = &vkctx->vkfn;

    for (int j = 0; j < FSSIM_MS_SCALES; j++) {
        for (int k = 0; k < e->nb_dist; k++) {
            FFVulkanShader *tile = e->resample[k] ? &s->shd_ms_tile_rs : &s->shd_ms_tile;
            if (!(set & (1u << k)))
                continue;
            bind_msssim(e, exec, tile, jf, k);
            for (int c = 0; c < e->fmt.nb_comps; c++) {
                FSSIMVkMsDispatch *d = &s->ms[c][j];
                ff_vk_shader_update_push_const(vkctx, exec, tile, VK_SHADER_STAGE_COMPUTE_BIT,
                                               0, sizeof(d->pc), &d->pc);
                vk->CmdDispatch(exec->buf, d->pc.tiles_x, d->tiles_y, 1);
            }
        }
        barrier_compute(vk, exec);
    }
    for (int k = 0; k < e->nb_dist; k++) {
        if (!(set & (1u << k)))
            continue;
        bind_msssim(e, exec, &s->shd_ms_reduce, jf, k);
        for (int c = 0; c < e->fmt.nb_comps; c++) {
            ff_vk_shader_update_push_const(vkctx, exec, &s->shd_ms_reduce,
                                           VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(s->ms_reduce[c]),
                                           &s->ms_reduce[c]);
            vk->CmdDispatch(exec->buf, FSSIM_MS_SCALES, 1, 1);
        }
    }
}

/* A command buffer that could not be started or submitted: its fence was
 * reset and will never signal, so ff_vk_exec_pool_free() must not wait on
 * it (that wait has no timeout).  ff_vk_exec_submit() has logged the
 * VkResult; say what it was for. */
static int submit_failed(FSSIMEngine *e, FFVkExecContext *exec, int err)
{
    VKBackend *s = e->priv;
    AVFilterContext *ctx = e->ctx;

    exec->had_submission = 0;
    s->gpu_failed = 1;
    av_log(ctx, AV_LOG_ERROR, "Submitting the scoring of frame %"PRIu64" to the Vulkan "
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
    FFVulkanContext *vkctx = &s->vkctx;
    FFVulkanFunctions *vk = &vkctx->vkfn;
    FFVkExecContext *exec = ff_vk_exec_get(vkctx, &s->e);
    VKJobFrames jf = { .nb = 0 };
    int err;

    err = ff_vk_exec_start(vkctx, exec);
    if (err < 0)
        return submit_failed(e, exec, err);

    RET(add_job_frame(e, exec, &jf, JOB_REF, ref));
    for (int k = 0; k < e->nb_dist; k++)
        if (set & (1u << k))
            RET(add_job_frame(e, exec, &jf, k, dist[k]));

    ff_fssim_vk_timer_write(vkctx, &s->timer, exec, 0, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
    record_frame_barriers(e, exec, &jf);
    if (s->resampling)
        record_resample(e, exec, &jf, set);
    if (fused_algos(e))
        record_fused(e, exec, &jf, set);
    else
        ff_fssim_vk_timer_write(vkctx, &s->timer, exec, 1, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    if (e->opts->algos & FSSIM_BIT(FSSIM_ALGO_MSSSIM))
        record_msssim(e, exec, &jf, set);
    ff_fssim_vk_barrier(vk, exec, VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT, NULL, 0);
    ff_fssim_vk_timer_write(vkctx, &s->timer, exec, 2, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);

    err = ff_vk_exec_submit(vkctx, exec);
    if (err < 0)
        return submit_failed(e, exec, err);
    *out_exec = exec;
    return 0;

fail:
    /* Nothing is recorded yet: submit the empty command buffer so that the
     * context's fence signals again and later waits on it return. */
    ff_vk_exec_discard_deps(vkctx, exec);
    if (ff_vk_exec_submit(vkctx, exec) < 0)
        submit_failed(e, exec, err);
    return err;
}

/* GPU time of one command buffer, from its timestamps (us); 0 without. */
static double read_gpu_time(VKBackend *s, FFVkExecContext *exec, double *tiles)
{
    double us[NB_TS - 1];

    if (!ff_fssim_vk_timer_read(&s->vkctx, &s->timer, exec, us))
        return 0.0;
    *tiles += us[0];
    return us[1];
}

/* A fence that reports an error (VK_ERROR_DEVICE_LOST...): the sums in the
 * result buffer are those of an older frame or garbage, never published. */
static int fence_failed(FSSIMEngine *e, VkResult res, uint64_t n)
{
    VKBackend *s = e->priv;
    AVFilterContext *ctx = e->ctx;

    s->gpu_failed = 1;
    av_log(ctx, AV_LOG_ERROR, "Vulkan error while waiting for the scores of frame %"PRIu64
           ": %s. Its scores and those of the frames after it are not published.\n",
           n, ff_vk_ret2str(res));
    return AVERROR_EXTERNAL;
}

/* Whether a submission is done: 1 when it is, 0 if not yet (only without
 * wait), or an error (the fence reports one). */
static int exec_done(FSSIMEngine *e, FFVkExecContext *exec, int wait, uint64_t n)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    VkResult res;

    /* ff_vk_exec_wait() would ignore the result */
    if (wait)
        res = vkctx->vkfn.WaitForFences(vkctx->hwctx->act_dev, 1, &exec->fence, VK_TRUE,
                                        UINT64_MAX);
    else
        res = vkctx->vkfn.GetFenceStatus(vkctx->hwctx->act_dev, exec->fence);
    if (res == VK_NOT_READY && !wait)
        return 0;
    return res == VK_SUCCESS ? 1 : fence_failed(e, res, n);
}

/* The per-plane sums of rendition k from a completed submission. */
static int read_sums(FSSIMEngine *e, FFVkExecContext *exec, int k,
                     FSSIMSum (*v)[FSSIM_NB_PARTS])
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vkctx;
    const size_t off = region(s, exec, k) * s->res_stride;
    const uint32_t *r = (const uint32_t *)(s->results_map + off);
    const int msssim = e->opts->algos & FSSIM_BIT(FSSIM_ALGO_MSSSIM);
    int err;

    if (!(s->results.flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
        err = ff_vk_flush_buffer(vkctx, &s->results, off, s->res_stride, 0);
        if (err < 0)
            return err;
    }
    for (int c = 0; c < e->fmt.nb_comps; c++) {
        const uint32_t *w = r + c * RES_WORDS;
        /* the float sum comes back as a float pair (sum and error) */
        v[c][FSSIM_PART_FLOAT].d = (double)av_int2float(w[0]) + (double)av_int2float(w[1]);
        v[c][FSSIM_PART_INT].d   = av_int2double(w[2] | (uint64_t)w[3] << 32);
        v[c][FSSIM_PART_BLOCK].d = av_int2double(w[4] | (uint64_t)w[5] << 32);
        /* psnr's sum, split at 2^24 into two exact doubles */
        v[c][FSSIM_PART_SSE].u   = (uint64_t)av_int2double(w[6] | (uint64_t)w[7] << 32) *
                                   (1 << 24) +
                                   (uint64_t)av_int2double(w[8] | (uint64_t)w[9] << 32);
    }
    /* msssim: each scale's two sums as float pairs (sum and error) */
    for (int c = 0; msssim && c < e->fmt.nb_comps; c++) {
        const uint32_t *w = r + s->ms_res_word + c * MS_RES_WORDS;
        for (int j = 0; j < FSSIM_MS_SCALES; j++) {
            v[c][FSSIM_PART_MS_S(j)].d  = (double)av_int2float(w[4 * j]) +
                                          (double)av_int2float(w[4 * j + 1]);
            v[c][FSSIM_PART_MS_CS(j)].d = (double)av_int2float(w[4 * j + 2]) +
                                          (double)av_int2float(w[4 * j + 3]);
        }
    }
    return 0;
}

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

static int vk_check_inputs(FSSIMEngine *e, enum AVPixelFormat *sw_format)
{
    AVFilterContext *ctx = e->ctx;
    AVVulkanDeviceContext *dev0 = NULL;
    int vk = 0;

    /* fssim3d takes software frames too: a mixed pair gets its own message */
    for (int i = 0; i < ctx->nb_inputs; i++)
        vk += ctx->inputs[i]->format == AV_PIX_FMT_VULKAN;
    if (e->opts->depth && vk == 1) {
        const int sw = ctx->inputs[0]->format == AV_PIX_FMT_VULKAN;
        av_log(ctx, AV_LOG_ERROR, "The %s input carries Vulkan frames but the %s input "
               "software frames (%s): fssim3d scores both on the GPU or both on the CPU. "
               "Put the %s input on the same Vulkan device (-hwaccel vulkan "
               "-hwaccel_output_format vulkan, or hwupload with -init_hw_device vulkan=vk "
               "-filter_hw_device vk), or bring both to system memory (hwdownload,format=...).\n",
               ctx->input_pads[!sw].name, ctx->input_pads[sw].name,
               av_get_pix_fmt_name(ctx->inputs[sw]->format), ctx->input_pads[sw].name);
        return AVERROR(EINVAL);
    }

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

    if (s->gpu_failed)
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
    if (s->gpu_failed)
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
            ff_vk_exec_discard_deps(&s->vkctx, exec[k]);
            last = exec[k];
        }
        exec[k] = NULL;
    }
    if (ret < 0)
        return ret;
    if (s->timer.pool) {
        s->gpu_sum   += us;
        s->gpu_tiles += tiles;
        if (us < s->gpu_min) {
            s->gpu_min       = us;
            s->gpu_min_tiles = tiles;
        }
        s->gpu_max    = FFMAX(s->gpu_max, us);
        s->gpu_frames++;
    }
    return 1;
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
static void retire_queues(VKBackend *s)
{
    FFVulkanContext *vkctx = &s->vkctx;
    VkFence fences[64];
    int nb_fences = 0;

    /* after a GPU error a context's fence may never signal */
    if (!s->qf || !s->e.contexts || s->gpu_failed)
        return;
    /* the pool's contexts take the family's queues in turn */
    for (int i = 0; i < FFMIN3(s->e.pool_size, s->qf->num, FF_ARRAY_ELEMS(fences)); i++) {
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


static void vk_uninit(FSSIMEngine *e)
{
    VKBackend *s = e->priv;
    FFVulkanContext *vkctx = &s->vkctx;

    ff_fssim_vk3d_uninit(e, &s->b3d);
    retire_queues(s);
    if (s->gpu_frames)
        av_log(e->ctx, AV_LOG_VERBOSE, "GPU time per frame: mean %.1f us, min %.1f us, "
               "max %.1f us (tile pass %.1f us, of the quickest frame %.1f us) over "
               "%"PRIu64" frames (%s, %s).\n",
               s->gpu_sum / s->gpu_frames, s->gpu_min, s->gpu_max,
               s->gpu_tiles / s->gpu_frames, s->gpu_min_tiles, s->gpu_frames,
               vkctx->props.properties.deviceName, av_get_pix_fmt_name(e->fmt.pix_fmt));
    if (s->initialized) {
        ff_vk_exec_pool_free(vkctx, &s->e);
        ff_vk_shader_free(vkctx, &s->shd_tile);
        ff_vk_shader_free(vkctx, &s->shd_reduce);
        ff_vk_shader_free(vkctx, &s->shd_tile_rs);
        ff_vk_shader_free(vkctx, &s->shd_rs);
        ff_vk_free_buf(vkctx, &s->tables);
        ff_vk_free_buf(vkctx, &s->rsbuf);
        ff_vk_shader_free(vkctx, &s->shd_ms_tile);
        ff_vk_shader_free(vkctx, &s->shd_ms_reduce);
        ff_vk_shader_free(vkctx, &s->shd_ms_tile_rs);
        ff_vk_free_buf(vkctx, &s->ms_buf);
        ff_vk_free_buf(vkctx, &s->scratch);
        ff_vk_free_buf(vkctx, &s->results);
        ff_fssim_vk_timer_uninit(vkctx, &s->timer);
        ff_vk_uninit(vkctx);
        s->initialized = 0;
    }
    av_freep(&s->exec);
    av_freep(&s->slot_n);
}

const FSSIMBackend ff_fssim_vulkan_backend = {
    .name         = "Vulkan",
    .priv_size    = sizeof(VKBackend),
    .queue_depth  = QUEUE_DEPTH,
    .ring_extra3d = 1,
    .check_inputs = vk_check_inputs,
    .init         = vk_init,
    .submit       = vk_submit,
    .collect      = vk_collect,
    .moments      = vk_moments,
    .submit3d     = vk_submit3d,
    .uninit       = vk_uninit,
    .storage3d    = "device memory, 24 bytes per position (mu_a, mu_b, var_a + var_b, cov "
                    "as doubles rounded to 48 bits)",
};
