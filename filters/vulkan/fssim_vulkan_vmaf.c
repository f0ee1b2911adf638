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
 * (doc/algorithms.md#vmaf_ssim-and-vmaf_msssim-in-the-filters), the host side of
 * fssim_vmaf.comp.glsl.  Per job, in phases with a barrier between them:
 * the float planes of the reference (once per command buffer) and of each
 * rendition (its lane's), each further scale of vmaf_msssim, the scoring of
 * every plane pair (a dispatch each), the sums of each component's pairs
 * into the lane's result words.  Everything but the frames is set up once.
 */
#include <string.h>

#include "libavutil/intfloat.h"
#include "libavutil/mem.h"

#include "fssim_vulkan_resample.h"
#include "fssim_vulkan_vmaf.h"

extern const unsigned char ff_fssim_vmaf_comp_spv_data[];
extern const unsigned int  ff_fssim_vmaf_comp_spv_len;

/* Bindings and specialization constants of fssim_vmaf.comp.glsl: the
 * frames' planes as in fssim_frames.glsl, then its buffers. */
enum { BIND_MAIN = 2 * FSSIM_VK_MAX_PLANES, BIND_REF, BIND_PART, BIND_RES, BIND_RSB, BIND_NB };
enum { SPEC_MODE, SPEC_MAIN_BUF, SPEC_C1, SPEC_G0 = SPEC_C1 + 3, SPEC_L0 = 16 };
enum { MODE_LOAD, MODE_LPF, MODE_SCORE, MODE_REDUCE };

/* a component's plane pairs at most: vmaf_ssim's, the five scales */
#define NJOB       (1 + FSSIM_VMAF_SCALES)
/* what a pair sums: l c s, l, c, s (filters/core/fssim_ref.h); its result words,
 * as doubles */
#define FSSIM_VMAF_SUMS FSSIM_REF_VMAF_NB_SUMS
#define PAIR_WORDS (2 * FSSIM_VMAF_SUMS)
/* workgroups a load or lpf dispatch uses at most (they stride) */
#define MAX_GROUPS 8192

typedef struct FSSIMVkVmafPush {
    int32_t  size[2], out_size[2];
    int32_t  plane, chan, shift, from_ref, f;
    float    k, inv;
    int32_t  tiles_x;
    uint32_t in_off, in_ref_off, out_off, part_off, res_off;
    uint32_t seg_off[NJOB], seg_n[NJOB];
    uint32_t buf_off, buf_pitch;
} FSSIMVkVmafPush;

/* PushData in fssim_vmaf.comp.glsl, scalar layout */
_Static_assert(sizeof(FSSIMVkVmafPush) == (19 + 2 * NJOB) * 4,
               "FSSIMVkVmafPush matches the shader's PushData");

typedef struct Dispatch {
    FSSIMVkVmafPush pc;
    uint32_t groups[2];
} Dispatch;

struct FSSIMVkVmaf {
    FFVulkanShader shd_load, shd_load_rs, shd_lpf, shd_score, shd_reduce;
    /* per lane the rendition's float planes and the partial records, per
     * execution context the reference's planes */
    FFVkBuffer main_buf, ref_buf, part_buf;
    size_t plane_stride, part_stride;
    int nb_comps;
    Dispatch load[4][2];                     /* per component: vmaf_ssim's, scale 0 */
    int nb_load[4];
    Dispatch lpf[4][FSSIM_VMAF_SCALES];      /* [c][j]: scale j, 1 to 4 */
    int nb_lpf;                              /* 5 with vmaf_msssim, else 1 */
    Dispatch score[4][NJOB];
    int nb_jobs[4];
    int job_scale[4][NJOB];                  /* -1: vmaf_ssim */
    Dispatch reduce[4];
};

int ff_fssim_vk_vmaf_wanted(const FSSIMEngine *e)
{
    return !!(e->opts->algos & (FSSIM_BIT(FSSIM_ALGO_VMAF_SSIM) |
                                FSSIM_BIT(FSSIM_ALGO_VMAF_MSSSIM)));
}

/* fssim_vmaf.comp.glsl's shared memory: both planes' tile and halo, the
 * five moments' horizontal sums, the reduction's doubles. */
static int shared_bytes(void)
{
    const int rw = TILE_W + 2 * FSSIM_VMAF_RADIUS, rh = TILE_H + 2 * FSSIM_VMAF_RADIUS;

    return 4 * (2 * rw * rh + 5 * rh * TILE_W) + 8 * FSSIM_VMAF_SUMS * WG_SIZE;
}

int ff_fssim_vk_vmaf_check(FSSIMEngine *e, FSSIMVk *vk)
{
    const VkPhysicalDeviceFeatures *feats = &vk->vkctx.hwctx->device_features.features;

    if (!feats->shaderFloat64) {
        av_log(e->ctx, AV_LOG_ERROR, "The Vulkan device '%s' lacks shaderFloat64 (or it is not "
               "enabled), which algo=vmaf_ssim and vmaf_msssim need: libvmaf sums in double. "
               "Score them with fssim on software frames, or fssim_cuda.\n",
               vk->vkctx.props.properties.deviceName);
        return AVERROR(ENOSYS);
    }
    return ff_fssim_vk_check_workgroup(e->ctx, vk, shared_bytes(), "algo=vmaf_ssim and "
                                       "vmaf_msssim", "for their tiles.");
}

/* The pairs a component scores: vmaf_ssim's, then vmaf_msssim's scales. */
static int comp_jobs(const FSSIMEngine *e)
{
    return !!(e->opts->algos & FSSIM_BIT(FSSIM_ALGO_VMAF_SSIM)) +
           (e->opts->algos & FSSIM_BIT(FSSIM_ALGO_VMAF_MSSSIM) ? FSSIM_VMAF_SCALES : 0);
}

int ff_fssim_vk_vmaf_words(const FSSIMEngine *e)
{
    return PAIR_WORDS * comp_jobs(e) * e->fmt.nb_comps;
}

static uint32_t groups_of(int w, int h)
{
    return FFMIN(((uint32_t)w * h + WG_SIZE - 1) / WG_SIZE, MAX_GROUPS);
}

/* Every dispatch, the planes' layout (the same in a lane's and in a
 * reference's region) and the partial records'. */
static void setup(const FSSIMEngine *e, FSSIMVkVmaf *vm, uint32_t res_word)
{
    const int ssim = !!(e->opts->algos & FSSIM_BIT(FSSIM_ALGO_VMAF_SSIM));
    const int ms = !!(e->opts->algos & FSSIM_BIT(FSSIM_ALGO_VMAF_MSSSIM));
    const float inv = 1.0f / (float)(1 << (e->fmt.depth - 8));
    uint32_t floats = 0, parts = 0;
    int resampling = 0;

    for (int k = 0; k < e->nb_dist; k++)
        resampling |= e->resample[k];
    vm->nb_comps = e->fmt.nb_comps;
    vm->nb_lpf = ms ? FSSIM_VMAF_SCALES : 1;
    for (int c = 0; c < e->fmt.nb_comps; c++) {
        const FSSIMPlane *cp = &e->fmt.comp[c];
        const int f = ff_fssim_ref_vmaf_scale(cp->width, cp->height);
        uint32_t off[NJOB];
        int sz[NJOB][2], n = 0;

        /* the planes: vmaf_ssim's, then the scales */
        for (int j = ssim ? -1 : 0; j < (ms ? FSSIM_VMAF_SCALES : 0); j++, n++) {
            if (j < 0)
                ff_fssim_ref_vmaf_decimated_size(cp->width, cp->height, f, &sz[n][0], &sz[n][1]);
            else
                ff_fssim_ref_vmaf_scale_size(cp->width, cp->height, j, &sz[n][0], &sz[n][1]);
            off[n] = floats;
            floats += sz[n][0] * sz[n][1];
            vm->job_scale[c][n] = j;
        }
        vm->nb_jobs[c] = n;
        vm->nb_load[c] = 0;
        for (int t = 0; t < n; t++) {
            FSSIMVkVmafPush *pc;
            Dispatch *d;
            if (vm->job_scale[c][t] > 0)
                break;
            d = &vm->load[c][vm->nb_load[c]++];
            pc = &d->pc;
            memset(d, 0, sizeof(*d));
            pc->size[0] = cp->width;
            pc->size[1] = cp->height;
            pc->out_size[0] = sz[t][0];
            pc->out_size[1] = sz[t][1];
            pc->plane = cp->plane;
            pc->chan  = cp->offset / cp->bytes;
            pc->shift = cp->shift;
            pc->f     = vm->job_scale[c][t] < 0 ? f : 1;
            pc->k     = 1.0f / (float)(f * f);
            pc->inv   = inv;
            pc->out_off = off[t];
            d->groups[0] = groups_of(sz[t][0], sz[t][1]);
            d->groups[1] = 1;
            if (resampling)
                ff_fssim_vk_resample_plane(e, c, &pc->buf_off, &pc->buf_pitch);
        }
        for (int j = 1; ms && j < FSSIM_VMAF_SCALES; j++) {
            const int t = ssim + j;
            Dispatch *d = &vm->lpf[c][j];
            memset(d, 0, sizeof(*d));
            d->pc.size[0] = sz[t - 1][0];
            d->pc.size[1] = sz[t - 1][1];
            d->pc.out_size[0] = sz[t][0];
            d->pc.out_size[1] = sz[t][1];
            d->pc.in_off  = off[t - 1];
            d->pc.out_off = off[t];
            d->groups[0] = groups_of(sz[t][0], sz[t][1]);
            d->groups[1] = 1;
        }
        /* the scoring of each pair, then the component's sums */
        memset(&vm->reduce[c], 0, sizeof(vm->reduce[c]));
        vm->reduce[c].pc.res_off = res_word + PAIR_WORDS * (c * comp_jobs(e));
        vm->reduce[c].groups[0]  = n;
        vm->reduce[c].groups[1]  = 1;
        for (int t = 0; t < n; t++) {
            Dispatch *d = &vm->score[c][t];
            const int ow = sz[t][0] - FSSIM_VMAF_WINDOW + 1, oh = sz[t][1] - FSSIM_VMAF_WINDOW + 1;
            memset(d, 0, sizeof(*d));
            d->pc.size[0] = sz[t][0];
            d->pc.size[1] = sz[t][1];
            d->pc.in_off = d->pc.in_ref_off = off[t];
            d->pc.tiles_x = (ow + TILE_W - 1) / TILE_W;
            d->pc.part_off = parts;
            d->groups[0] = d->pc.tiles_x;
            d->groups[1] = (oh + TILE_H - 1) / TILE_H;
            vm->reduce[c].pc.seg_off[t] = parts;
            vm->reduce[c].pc.seg_n[t]   = d->groups[0] * d->groups[1];
            parts += vm->reduce[c].pc.seg_n[t];
        }
    }
    vm->plane_stride = ff_fssim_vk_align(sizeof(float) * floats);
    vm->part_stride  = ff_fssim_vk_align(sizeof(double) * FSSIM_VMAF_SUMS * parts);
}

/* A mode's shader; main_buf: the rendition's samples from the resampled
 * planes. */
static int init_shader(const FSSIMEngine *e, FSSIMVk *vk, FFVulkanShader *shd, int mode,
                       int main_buf)
{
    SPEC_LIST_CREATE(sl, SPEC_L0 + 15, (SPEC_L0 + 15) * sizeof(uint32_t))
    float c3[3];
    int n = 0;

    ff_fssim_ref_vmaf_constants(c3);
    SPEC_LIST_ADD(sl, SPEC_MODE, 32, mode);
    SPEC_LIST_ADD(sl, SPEC_MAIN_BUF, 32, main_buf);
    for (int i = 0; i < 3; i++)
        SPEC_LIST_ADD(sl, SPEC_C1 + i, 32, av_float2int(c3[i]));
    /* the window is symmetric: its first six taps */
    for (int i = 0; i <= FSSIM_VMAF_RADIUS; i++)
        SPEC_LIST_ADD(sl, SPEC_G0 + i, 32, av_float2int(ff_fssim_ref_vmaf_gauss[i]));
    /* the low-pass table's quadrant, its lower triangle row by row */
    for (int a = 0; a < 5; a++)
        for (int b = 0; b <= a; b++)
            SPEC_LIST_ADD(sl, SPEC_L0 + n++, 32, av_float2int(ff_fssim_ref_vmaf_lpf(a, b)));

    ff_fssim_vk_shader_load(shd, sl, WG_SIZE, 1, 0);
    return ff_fssim_vk_shader_link(vk, shd, BIND_MAIN, BIND_NB - BIND_MAIN,
                                   sizeof(FSSIMVkVmafPush), ff_fssim_vmaf_comp_spv_data,
                                   ff_fssim_vmaf_comp_spv_len);
}

int ff_fssim_vk_vmaf_init(FSSIMEngine *e, FSSIMVk *vk, uint32_t res_word, size_t nb_regions,
                          int lanes, FSSIMVkVmaf **pvm)
{
    FFVulkanContext *vkctx = &vk->vkctx;
    FSSIMVkVmaf *vm;
    int err;

    vm = *pvm = av_mallocz(sizeof(*vm));
    if (!vm)
        return AVERROR(ENOMEM);
    setup(e, vm, res_word);
    RET(ff_vk_create_buf(vkctx, &vm->main_buf, vm->plane_stride * nb_regions, NULL, NULL,
                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
    RET(ff_vk_create_buf(vkctx, &vm->ref_buf, vm->plane_stride * (nb_regions / lanes), NULL,
                         NULL, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
    RET(ff_vk_create_buf(vkctx, &vm->part_buf, vm->part_stride * nb_regions, NULL, NULL,
                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
    RET(init_shader(e, vk, &vm->shd_load, MODE_LOAD, 0));
    RET(init_shader(e, vk, &vm->shd_lpf, MODE_LPF, 0));
    RET(init_shader(e, vk, &vm->shd_score, MODE_SCORE, 0));
    RET(init_shader(e, vk, &vm->shd_reduce, MODE_REDUCE, 0));
    av_log(e->ctx, AV_LOG_VERBOSE, "vmaf: %zu bytes of float planes and %zu of partial sums "
           "per rendition and context.\n", vm->plane_stride, vm->part_stride);
    for (int k = 0; k < e->nb_dist; k++)
        if (e->resample[k])
            return init_shader(e, vk, &vm->shd_load_rs, MODE_LOAD, 1);
    return 0;

fail:
    return err;
}

/* A shader for a lane: its frames, its planes and partial records, the
 * reference's planes of this command buffer, its results. */
static void bind(const FSSIMEngine *e, FSSIMVk *vk, FSSIMVkVmaf *vm, FFVkExecContext *exec,
                 FFVulkanShader *shd, const FSSIMVkLane *l)
{
    const FSSIMVkRange pm = { &vm->main_buf, l->region * vm->plane_stride, vm->plane_stride };
    const FSSIMVkRange pr = { &vm->ref_buf, exec->idx * vm->plane_stride, vm->plane_stride };
    const FSSIMVkRange part = { &vm->part_buf, l->region * vm->part_stride, vm->part_stride };

    ff_fssim_vk_bind_lane(e, vk, exec, shd, l, BIND_RSB);
    ff_fssim_vk_bind_range(&vk->vkctx, exec, shd, BIND_MAIN, &pm);
    ff_fssim_vk_bind_range(&vk->vkctx, exec, shd, BIND_REF, &pr);
    ff_fssim_vk_bind_range(&vk->vkctx, exec, shd, BIND_PART, &part);
    ff_fssim_vk_bind_range(&vk->vkctx, exec, shd, BIND_RES, &l->res);
}

static void dispatch(FSSIMVk *vk, FFVkExecContext *exec, FFVulkanShader *shd, Dispatch *d,
                     int from_ref)
{
    d->pc.from_ref = from_ref;
    ff_vk_shader_update_push_const(&vk->vkctx, exec, shd, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                   sizeof(d->pc), &d->pc);
    vk->vkctx.vkfn.CmdDispatch(exec->buf, d->groups[0], d->groups[1], 1);
}

/* Step j of the planes (0: the frames' floats, 1-4: the scales) of the
 * reference, then of the renditions in set. */
static void record_planes(const FSSIMEngine *e, FSSIMVk *vk, FSSIMVkVmaf *vm,
                          FFVkExecContext *exec, const FSSIMVkLane *lane, unsigned set, int j)
{
    const int first = ff_ctz(set);

    for (int k = -1; k < e->nb_dist; k++) {
        const FSSIMVkLane *l = &lane[k < 0 ? first : k];
        FFVulkanShader *shd = j ? &vm->shd_lpf :
                              k >= 0 && l->resampled ? &vm->shd_load_rs : &vm->shd_load;
        if (k >= 0 && !(set & (1u << k)))
            continue;
        bind(e, vk, vm, exec, shd, l);
        for (int c = 0; c < vm->nb_comps; c++) {
            if (j)
                dispatch(vk, exec, shd, &vm->lpf[c][j], k < 0);
            for (int t = 0; !j && t < vm->nb_load[c]; t++)
                dispatch(vk, exec, shd, &vm->load[c][t], k < 0);
        }
    }
    ff_fssim_vk_barrier_compute(&vk->vkctx.vkfn, exec);
}

void ff_fssim_vk_vmaf_record(const FSSIMEngine *e, FSSIMVk *vk, FSSIMVkVmaf *vm,
                             FFVkExecContext *exec, const FSSIMVkLane *lane, unsigned set)
{
    FFVulkanFunctions *fn = &vk->vkctx.vkfn;

    for (int j = 0; j < vm->nb_lpf; j++)
        record_planes(e, vk, vm, exec, lane, set, j);
    for (int k = 0; k < e->nb_dist; k++) {
        if (!(set & (1u << k)))
            continue;
        bind(e, vk, vm, exec, &vm->shd_score, &lane[k]);
        for (int c = 0; c < vm->nb_comps; c++)
            for (int t = 0; t < vm->nb_jobs[c]; t++)
                dispatch(vk, exec, &vm->shd_score, &vm->score[c][t], 0);
    }
    ff_fssim_vk_barrier_compute(fn, exec);
    for (int k = 0; k < e->nb_dist; k++) {
        if (!(set & (1u << k)))
            continue;
        bind(e, vk, vm, exec, &vm->shd_reduce, &lane[k]);
        for (int c = 0; c < vm->nb_comps; c++)
            dispatch(vk, exec, &vm->shd_reduce, &vm->reduce[c], 0);
    }
}

void ff_fssim_vk_vmaf_read(const FSSIMEngine *e, const FSSIMVkVmaf *vm, const uint32_t *res,
                           FSSIMSum (*v)[FSSIM_NB_PARTS])
{
    for (int c = 0; c < vm->nb_comps; c++) {
        for (int t = 0; t < vm->nb_jobs[c]; t++) {
            const uint32_t *w = res + vm->reduce[c].pc.res_off + PAIR_WORDS * t;
            double s[FSSIM_VMAF_SUMS];
            for (int i = 0; i < FSSIM_VMAF_SUMS; i++)
                s[i] = av_int2double(w[2 * i] | (uint64_t)w[2 * i + 1] << 32);
            if (vm->job_scale[c][t] < 0) {
                v[c][FSSIM_PART_VMAF_SSIM].d = s[FSSIM_REF_VMAF_LCS];
                continue;
            }
            for (int i = 0; i < 3; i++)
                v[c][FSSIM_PART_VMAF_MS(vm->job_scale[c][t], i)].d = s[FSSIM_REF_VMAF_L + i];
        }
    }
}

void ff_fssim_vk_vmaf_uninit(FSSIMVk *vk, FSSIMVkVmaf **pvm)
{
    FSSIMVkVmaf *vm = *pvm;

    /* made only once the device was open */
    if (!vm)
        return;
    ff_vk_shader_free(&vk->vkctx, &vm->shd_load);
    ff_vk_shader_free(&vk->vkctx, &vm->shd_load_rs);
    ff_vk_shader_free(&vk->vkctx, &vm->shd_lpf);
    ff_vk_shader_free(&vk->vkctx, &vm->shd_score);
    ff_vk_shader_free(&vk->vkctx, &vm->shd_reduce);
    ff_vk_free_buf(&vk->vkctx, &vm->main_buf);
    ff_vk_free_buf(&vk->vkctx, &vm->ref_buf);
    ff_vk_free_buf(&vk->vkctx, &vm->part_buf);
    av_freep(pvm);
}
