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
 * fssim: algo=msssim on Vulkan frames (doc/algorithms.md#msssim-in-the-filters).
 * Per plane and scale, one dispatch of fssim_msssim.comp.glsl scores the
 * scale's tiles into partial records and pools the next scale of both
 * inputs into the level buffer; each scale's dispatches follow the
 * previous scale's pooling.  A reduce dispatch per plane adds the partial
 * records of every scale in a fixed order into the job's result words.
 */
#include <string.h>

#include "libavutil/mem.h"

#include "fssim_vulkan_msssim.h"
#include "fssim_vulkan_resample.h"

extern const unsigned char ff_fssim_msssim_comp_spv_data[];
extern const unsigned int  ff_fssim_msssim_comp_spv_len;

/* Bindings and specialization constants of fssim_msssim.comp.glsl: the
 * frames' planes as in fssim_core.glsl, then its buffers. */
enum { BIND_LVL = 2 * FSSIM_VK_MAX_PLANES, BIND_PART, BIND_RES, BIND_RSB, BIND_NB };
enum { SPEC_MODE, SPEC_RF, SPEC_C1F, SPEC_C2F, SPEC_SG, SPEC_G0,
       SPEC_MAIN_BUF = SPEC_G0 + 15, SPEC_NB };

/* result words per plane: S and CS float pairs of each scale */
#define RES_WORDS (4 * FSSIM_MS_SCALES)
/* no next scale to pool */
#define NONE      0xFFFFFFFFu

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

struct FSSIMVkMsssim {
    FFVulkanShader shd_tile, shd_reduce;
    FFVulkanShader shd_tile_rs;               /* scale 0 of a resampled rendition */
    /* per lane and job: scales 1-4 of both inputs' planes (floats), then
     * the workgroups' partial records (vec4) */
    FFVkBuffer buf;
    size_t stride, lvl_size;
    FSSIMVkMsDispatch scale[4][FSSIM_MS_SCALES];  /* per plane and scale */
    FSSIMVkMsPush reduce[4];                      /* per plane */
};

int ff_fssim_vk_msssim_words(const FSSIMEngine *e)
{
    return RES_WORDS * e->fmt.nb_comps;
}

/* Shared memory of a scale's workgroup: the tile and its halo of both
 * inputs, the horizontal pass (4 moments) or the staging area of the
 * reduction (a float quadruple per slot), the taps. */
int ff_fssim_vk_msssim_shared_bytes(const FSSIMEngine *e, uint32_t subgroup_size)
{
    const int rf = e->opts->window / 2;
    const int hb = 4 * (TILE_H + 2 * rf) * TILE_W;
    const int st = 4 * (subgroup_size ? WG_SIZE / 4 : WG_SIZE);

    return 4 * (2 * (TILE_W + 2 * rf) * (TILE_H + 2 * rf) + FFMAX(hb, st) +
                2 * FSSIM_MAX_RADIUS + 1);
}

/* Where scale j (1-4) of component c's main starts in the level buffer,
 * the reference's following it: per component, scale by scale, rows
 * packed. */
static void level_offsets(const FSSIMEngine *e, uint32_t off[4][FSSIM_MS_SCALES],
                          uint32_t *size)
{
    uint32_t lvl = 0;

    for (int c = 0; c < e->fmt.nb_comps; c++) {
        for (int j = 1; j < FSSIM_MS_SCALES; j++) {
            int sw, sh;
            ff_fssim_ref_msssim_scale_size(e->fmt.comp[c].width, e->fmt.comp[c].height, j,
                                           &sw, &sh);
            off[c][j] = lvl;
            lvl += 2 * sw * sh;
        }
    }
    *size = lvl;
}

/* The dispatches of every plane and scale, the layout of the level buffer
 * and of the partial records, and the result words from res_word on. */
static void setup(const FSSIMEngine *e, FSSIMVkMsssim *ms, uint32_t res_word)
{
    uint32_t off[4][FSSIM_MS_SCALES] = { { 0 } };
    uint32_t lvl, parts = 0;
    int resampling = 0;

    for (int k = 0; k < e->nb_dist; k++)
        resampling |= e->resample[k];
    level_offsets(e, off, &lvl);
    for (int c = 0; c < e->fmt.nb_comps; c++) {
        const FSSIMPlane *cp = &e->fmt.comp[c];
        FSSIMVkMsPush *rp = &ms->reduce[c];

        memset(rp, 0, sizeof(*rp));
        rp->res_off = res_word + c * RES_WORDS;
        for (int j = 0; j < FSSIM_MS_SCALES; j++) {
            FSSIMVkMsDispatch *d = &ms->scale[c][j];
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
            pc->out_off  = pc->out_ref_off = NONE;
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
        if (resampling)
            ff_fssim_vk_resample_plane(e, c, &ms->scale[c][0].pc.buf_off,
                                       &ms->scale[c][0].pc.buf_pitch);
    }
    ms->lvl_size = ff_fssim_vk_align(sizeof(float) * lvl);
    ms->stride   = ms->lvl_size + ff_fssim_vk_align(4 * sizeof(float) * parts);
}

/* mode 0 a scale's tiles, 1 the reduction; main_buf: scale 0 of main read
 * from the resampled planes. */
static int init_shader(const FSSIMEngine *e, FSSIMVk *vk, FFVulkanShader *shd, int mode,
                       int main_buf, uint32_t subgroup_size)
{
    SPEC_LIST_CREATE(sl, SPEC_NB, SPEC_NB * sizeof(uint32_t))

    SPEC_LIST_ADD(sl, SPEC_MODE, 32, mode);
    SPEC_LIST_ADD(sl, SPEC_RF,   32, e->opts->window / 2);
    /* the reference's constants (doc/algorithms.md#msssim), rounded to float */
    ff_fssim_vk_spec_float_c(sl, SPEC_C1F, e->fmt.depth);
    SPEC_LIST_ADD(sl, SPEC_SG,   32, !!subgroup_size);
    SPEC_LIST_ADD(sl, SPEC_MAIN_BUF, 32, main_buf);
    ff_fssim_vk_spec_gauss(sl, SPEC_G0, e->opts, 0);

    ff_fssim_vk_shader_load(shd, sl, WG_SIZE, 1, subgroup_size);
    return ff_fssim_vk_shader_link(vk, shd, BIND_LVL, BIND_NB - BIND_LVL,
                                   sizeof(FSSIMVkMsPush), ff_fssim_msssim_comp_spv_data,
                                   ff_fssim_msssim_comp_spv_len);
}

int ff_fssim_vk_msssim_init(FSSIMEngine *e, FSSIMVk *vk, uint32_t subgroup_size,
                            uint32_t res_word, size_t nb_regions, FSSIMVkMsssim **pms)
{
    FSSIMVkMsssim *ms;
    int err;

    ms = *pms = av_mallocz(sizeof(*ms));
    if (!ms)
        return AVERROR(ENOMEM);
    setup(e, ms, res_word);
    RET(ff_vk_create_buf(&vk->vkctx, &ms->buf, ms->stride * nb_regions, NULL, NULL,
                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
    RET(init_shader(e, vk, &ms->shd_tile, 0, 0, subgroup_size));
    RET(init_shader(e, vk, &ms->shd_reduce, 1, 0, subgroup_size));
    av_log(e->ctx, AV_LOG_VERBOSE, "msssim: %zu bytes of scales and partial sums per "
           "rendition and context, %zu in all.\n", ms->stride, ms->stride * nb_regions);
    for (int k = 0; k < e->nb_dist; k++)
        if (e->resample[k])
            return init_shader(e, vk, &ms->shd_tile_rs, 0, 1, subgroup_size);
    return 0;

fail:
    return err;
}

/* A shader for a lane: its frames, its region of the level buffer and
 * partial records, its results. */
static void bind_lane(const FSSIMEngine *e, FSSIMVk *vk, FSSIMVkMsssim *ms,
                      FFVkExecContext *exec, FFVulkanShader *shd, const FSSIMVkLane *l)
{
    const size_t base = l->region * ms->stride;
    const FSSIMVkRange lvl  = { &ms->buf, base, ms->lvl_size };
    const FSSIMVkRange part = { &ms->buf, base + ms->lvl_size, ms->stride - ms->lvl_size };

    ff_fssim_vk_bind_lane(e, vk, exec, shd, l, BIND_RSB);
    ff_fssim_vk_bind_range(&vk->vkctx, exec, shd, BIND_LVL, &lvl);
    ff_fssim_vk_bind_range(&vk->vkctx, exec, shd, BIND_PART, &part);
    ff_fssim_vk_bind_range(&vk->vkctx, exec, shd, BIND_RES, &l->res);
}

void ff_fssim_vk_msssim_record(const FSSIMEngine *e, FSSIMVk *vk, FSSIMVkMsssim *ms,
                               FFVkExecContext *exec, const FSSIMVkLane *lane,
                               unsigned set)
{
    FFVulkanContext *vkctx = &vk->vkctx;
    FFVulkanFunctions *fn = &vkctx->vkfn;

    for (int j = 0; j < FSSIM_MS_SCALES; j++) {
        for (int k = 0; k < e->nb_dist; k++) {
            FFVulkanShader *tile = lane[k].resampled ? &ms->shd_tile_rs : &ms->shd_tile;
            if (!(set & (1u << k)))
                continue;
            bind_lane(e, vk, ms, exec, tile, &lane[k]);
            for (int c = 0; c < e->fmt.nb_comps; c++) {
                FSSIMVkMsDispatch *d = &ms->scale[c][j];
                ff_vk_shader_update_push_const(vkctx, exec, tile, VK_SHADER_STAGE_COMPUTE_BIT,
                                               0, sizeof(d->pc), &d->pc);
                fn->CmdDispatch(exec->buf, d->pc.tiles_x, d->tiles_y, 1);
            }
        }
        ff_fssim_vk_barrier_compute(fn, exec);
    }
    for (int k = 0; k < e->nb_dist; k++) {
        if (!(set & (1u << k)))
            continue;
        bind_lane(e, vk, ms, exec, &ms->shd_reduce, &lane[k]);
        for (int c = 0; c < e->fmt.nb_comps; c++) {
            ff_vk_shader_update_push_const(vkctx, exec, &ms->shd_reduce,
                                           VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                           sizeof(ms->reduce[c]), &ms->reduce[c]);
            fn->CmdDispatch(exec->buf, FSSIM_MS_SCALES, 1, 1);
        }
    }
}

void ff_fssim_vk_msssim_read(const FSSIMEngine *e, const FSSIMVkMsssim *ms,
                             const uint32_t *res, FSSIMSum (*v)[FSSIM_NB_PARTS])
{
    for (int c = 0; c < e->fmt.nb_comps; c++) {
        const uint32_t *w = res + ms->reduce[c].res_off;
        for (int j = 0; j < FSSIM_MS_SCALES; j++) {
            v[c][FSSIM_PART_MS_S(j)].d  = ff_fssim_vk_float_pair(w + 4 * j);
            v[c][FSSIM_PART_MS_CS(j)].d = ff_fssim_vk_float_pair(w + 4 * j + 2);
        }
    }
}

void ff_fssim_vk_msssim_uninit(FSSIMVk *vk, FSSIMVkMsssim **pms)
{
    FSSIMVkMsssim *ms = *pms;

    /* made only once the device was open */
    if (!ms)
        return;
    ff_vk_shader_free(&vk->vkctx, &ms->shd_tile);
    ff_vk_shader_free(&vk->vkctx, &ms->shd_reduce);
    ff_vk_shader_free(&vk->vkctx, &ms->shd_tile_rs);
    ff_vk_free_buf(&vk->vkctx, &ms->buf);
    av_freep(pms);
}
