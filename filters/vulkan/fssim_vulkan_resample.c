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
 * fssim: renditions (and a pair's main input) of another size or format,
 * resampled on the GPU to the reference's size, depth and layout before
 * they are scored, with the engine's fixed integer coefficients
 * (doc/algorithms.md#resampling), so that every backend scores the same
 * samples.  One dispatch per plane of a rendition
 * (fssim_resample.comp.glsl), reading the rendition's images through views
 * of its own format: each workgroup keeps its band's horizontal pass in
 * shared memory, and for bicubic its rows' vertical coefficients.
 */
#include <string.h>

#include "libavutil/mem.h"

#include "../engine/fssim_resample_tiles.h"
#include "fssim_vulkan_resample.h"

extern const unsigned char ff_fssim_resample_comp_spv_data[];
extern const unsigned int  ff_fssim_resample_comp_spv_len;

/* Descriptor bindings, as in fssim_resample.comp.glsl. */
enum { BIND_SRC = 0, BIND_TAB = BIND_SRC + FSSIM_VK_MAX_PLANES, BIND_OUT, BIND_NB };

/* PushData in fssim_resample.comp.glsl: the resampling of one plane of a
 * rendition (offsets in elements of the tables and output buffers). */
typedef struct FSSIMVkRsPush {
    int32_t  in_size[2], out_size[2];
    int32_t  xtaps, ytaps;
    uint32_t xstart, xcoef, ystart, ycoef;
    int32_t  plane, chan, shift;    /* the rendition's */
    int32_t  maxval;                /* the reference's */
    uint32_t bands;     /* per row of tiles, first source row and count */
    int32_t  rows;      /* output rows of a tile; 0: the direct path */
    uint32_t out_off;
    int32_t  out_shift; /* the reference's container */
    int32_t  round;     /* FSSIM_RESAMPLE_SHIFT of the two depths */
} FSSIMVkRsPush;

_Static_assert(sizeof(FSSIMVkRsPush) == 19 * 4, "FSSIMVkRsPush matches the shader's PushData");

/* load_rows() in fssim_resample.comp.glsl: one invocation per coefficient */
_Static_assert(4 * FSSIM_VK_RESAMPLE_ROWS <= WG_SIZE,
               "a resampler workgroup reads its rows' vertical coefficients in one pass");

struct FSSIMVkResampler {
    FFVulkanShader shd;
    FFVkBuffer tables;            /* coefficients and bands, host-written once */
    FFVkBuffer out;               /* the resampled planes, a region per lane and job */
    size_t size, stride;          /* of a region */
    FSSIMVkRsPush push[FSSIM_MAX_DIST][4];
};

/* Rows of workgroups of a resampled component's dispatch. */
static int groups_y(const FSSIMVkRsPush *rp)
{
    const int rows = rp->rows ? rp->rows : TILE_H;
    return (rp->out_size[1] + rows - 1) / rows;
}

/* Append n int32s to the tables at *nb; their offset. */
static uint32_t pack_table(int32_t *tab, size_t *nb, const int32_t *v, size_t n)
{
    const uint32_t at = *nb;

    if (n)
        memcpy(tab + *nb, v, n * sizeof(*v));
    *nb += n;
    return at;
}

void ff_fssim_vk_resample_plane(const FSSIMEngine *e, int c, uint32_t *off, uint32_t *pitch)
{
    *off = 0;
    for (int i = 0; i < c; i++)
        *off += e->fmt.comp[i].width * e->fmt.comp[i].height;
    *pitch = e->fmt.comp[c].width;
}

/* The tables' size in int32s: each axis's first taps and coefficients,
 * and the bands of the tiles where they fit (rows[k][c] > 0). */
static size_t tables_size(const FSSIMEngine *e, int rows[FSSIM_MAX_DIST][4])
{
    size_t nb = 0;

    for (int k = 0; k < e->nb_dist; k++) {
        for (int c = 0; e->resample[k] && c < e->fmt.nb_comps; c++) {
            const FSSIMRefResampleAxis *ay = &e->axis[k][c][1];
            for (int a = 0; a < 2; a++)
                nb += (size_t)e->axis[k][c][a].out * (1 + e->axis[k][c][a].ntaps);
            if (rows[k][c])
                nb += 2 * (size_t)((ay->out + rows[k][c] - 1) / rows[k][c]);
        }
    }
    return nb;
}

/* Fill the tables and each component's push constants. */
static void pack_tables(const FSSIMEngine *e, FSSIMVkResampler *rs, int32_t *tab,
                        int32_t *bands[FSSIM_MAX_DIST][4], int rows[FSSIM_MAX_DIST][4])
{
    size_t nb = 0;

    for (int k = 0; k < e->nb_dist; k++) {
        for (int c = 0; e->resample[k] && c < e->fmt.nb_comps; c++) {
            const FSSIMPlane *in = &e->dist[k].comp[c], *o = &e->fmt.comp[c];
            const FSSIMRefResampleAxis *ax = &e->axis[k][c][0], *ay = &e->axis[k][c][1];
            FSSIMVkRsPush *rp = &rs->push[k][c];
            uint32_t off, pitch;

            ff_fssim_vk_resample_plane(e, c, &off, &pitch);
            *rp = (FSSIMVkRsPush) {
                .in_size  = { in->width, in->height }, .out_size = { o->width, o->height },
                .xtaps = ax->ntaps, .ytaps = ay->ntaps,
                .xstart = pack_table(tab, &nb, ax->start, ax->out),
                .xcoef  = pack_table(tab, &nb, ax->coef, (size_t)ax->out * ax->ntaps),
                .ystart = pack_table(tab, &nb, ay->start, ay->out),
                .ycoef  = pack_table(tab, &nb, ay->coef, (size_t)ay->out * ay->ntaps),
                .plane = in->plane, .chan = in->offset / in->bytes, .shift = in->shift,
                .maxval = (1 << e->fmt.depth) - 1, .rows = rows[k][c], .out_off = off,
                .out_shift = o->shift,
                .round = FSSIM_RESAMPLE_SHIFT(e->dist[k].depth, e->fmt.depth),
            };
            rp->bands = pack_table(tab, &nb, bands[k][c],
                                   rp->rows ? 2 * (size_t)groups_y(rp) : 0);
        }
    }
}

/* The resampler's shader: no constants of its own. */
static int init_shader(FSSIMVk *vk, FFVulkanShader *shd)
{
    /* room for the workgroup size FFmpeg adds */
    SPEC_LIST_CREATE(sl, 0, 0)

    ff_fssim_vk_shader_load(shd, sl, TILE_W, TILE_H, 0);
    return ff_fssim_vk_shader_link(vk, shd, BIND_TAB, BIND_NB - BIND_TAB,
                                   sizeof(FSSIMVkRsPush), ff_fssim_resample_comp_spv_data,
                                   ff_fssim_resample_comp_spv_len);
}

int ff_fssim_vk_resample_init(FSSIMEngine *e, FSSIMVk *vk, size_t nb_regions,
                              FSSIMVkResampler **prs)
{
    FFVulkanContext *vkctx = &vk->vkctx;
    int32_t *bands[FSSIM_MAX_DIST][4] = { { NULL } };
    int rows[FSSIM_MAX_DIST][4] = { { 0 } };
    FSSIMVkResampler *rs;
    int32_t *tab;
    int err;

    rs = *prs = av_mallocz(sizeof(*rs));
    if (!rs)
        return AVERROR(ENOMEM);
    for (int c = 0; c < e->fmt.nb_comps; c++)
        rs->size += sizeof(uint32_t) * e->fmt.comp[c].width * e->fmt.comp[c].height;
    rs->stride = ff_fssim_vk_align(rs->size);
    for (int k = 0; k < e->nb_dist; k++)
        for (int c = 0; e->resample[k] && c < e->fmt.nb_comps; c++)
            RET(rows[k][c] = ff_fssim_resample_tiles(&e->axis[k][c][1], FSSIM_VK_RESAMPLE_ROWS,
                                                     FSSIM_RESAMPLE_SPAN, &bands[k][c]));

    RET(ff_vk_create_buf(vkctx, &rs->tables, tables_size(e, rows) * sizeof(int32_t), NULL,
                         NULL, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                         VK_MEMORY_PROPERTY_HOST_COHERENT_BIT));
    RET(ff_vk_map_buffer(vkctx, &rs->tables, (uint8_t **)&tab, 0));
    pack_tables(e, rs, tab, bands, rows);
    ff_vk_unmap_buffer(vkctx, &rs->tables, 1);

    RET(ff_vk_create_buf(vkctx, &rs->out, rs->stride * nb_regions, NULL, NULL,
                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
    RET(init_shader(vk, &rs->shd));
    err = 0;

fail: /* and done: the bands are in the tables */
    for (int k = 0; k < FSSIM_MAX_DIST; k++)
        for (int c = 0; c < 4; c++)
            av_free(bands[k][c]);
    return err;
}

FSSIMVkRange ff_fssim_vk_resample_out(FSSIMVkResampler *rs, size_t region)
{
    return (FSSIMVkRange) { &rs->out, region * rs->stride, rs->size };
}

void ff_fssim_vk_resample_record(const FSSIMEngine *e, FSSIMVk *vk, FSSIMVkResampler *rs,
                                 FFVkExecContext *exec, const FSSIMVkLane *lane,
                                 unsigned set)
{
    FFVulkanContext *vkctx = &vk->vkctx;
    const FSSIMVkRange tables = { &rs->tables, 0, rs->tables.size };
    int any = 0;

    for (int k = 0; k < e->nb_dist; k++) {
        /* the rendition's own planes, of its own format */
        const int nb_planes = av_pix_fmt_count_planes(e->dist[k].pix_fmt);
        if (!(set & (1u << k)) || !e->resample[k])
            continue;
        ff_vk_exec_bind_shader(vkctx, exec, &rs->shd);
        ff_fssim_vk_bind_planes(vkctx, exec, &rs->shd, BIND_SRC, lane[k].own, nb_planes);
        ff_fssim_vk_bind_range(vkctx, exec, &rs->shd, BIND_TAB, &tables);
        ff_fssim_vk_bind_range(vkctx, exec, &rs->shd, BIND_OUT, &lane[k].rsb);
        for (int c = 0; c < e->fmt.nb_comps; c++) {
            const FSSIMVkRsPush *rp = &rs->push[k][c];
            ff_vk_shader_update_push_const(vkctx, exec, &rs->shd, VK_SHADER_STAGE_COMPUTE_BIT,
                                           0, sizeof(*rp), (void *)rp);
            vkctx->vkfn.CmdDispatch(exec->buf, (rp->out_size[0] + TILE_W - 1) / TILE_W,
                                    groups_y(rp), 1);
        }
        any = 1;
    }
    if (any)
        ff_fssim_vk_barrier_compute(&vkctx->vkfn, exec);
}

void ff_fssim_vk_resample_uninit(FSSIMVk *vk, FSSIMVkResampler **prs)
{
    FSSIMVkResampler *rs = *prs;

    /* made only once the device was open */
    if (!rs)
        return;
    ff_vk_shader_free(&vk->vkctx, &rs->shd);
    ff_vk_free_buf(&vk->vkctx, &rs->tables);
    ff_vk_free_buf(&vk->vkctx, &rs->out);
    av_freep(prs);
}
