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
 * fssim: fssim3d's operations of the Vulkan backend (fssim_be_vulkan.c
 * hands them the engine when it scores fssim3d's frames), on
 * AV_PIX_FMT_VULKAN inputs from Vulkan Video decoding, hwupload or
 * scale_vulkan.  Frame data never leaves the GPU; only the few doubles of
 * each frame's scores come back.
 *
 * Per frame pair, one dispatch per component (fssim3d_moments.comp.glsl)
 * computes the spatial moments in double into the frame's ring slot in
 * device memory (of the main input's planes resampled to the reference's
 * first, fssim_vulkan_resample.c, where its size or format differs): per scored position mu_a, mu_b, var_a + var_b and cov,
 * each a double rounded to 48 bits (24 bytes; fssim3d_core.glsl).  Per
 * scored frame, fssim3d_score.comp.glsl combines the slots of its temporal
 * window in double into per-workgroup partial sums, adds them per component
 * in a fixed order, and the host reads the sums back.
 *
 * That temporal pass is bound by reading the ring, so a frame's score job
 * is held back until the next frame's and both run as one pass, which
 * reads the records they share once.  The ring has one slot more than
 * depth (ring_extra3d) so that the held frame's window is still whole when
 * the next frame's moments arrive.  A held job goes alone where waiting
 * would stall: when collect waits for it, when a moments job is about to
 * overwrite a slot it reads, when the next frame is not the following one.
 *
 * Every submission goes to one queue, so that a pipeline barrier at the
 * start of each command buffer orders it after the ring writes of the
 * earlier ones (barriers do not reach across queues).  A frame pair's
 * moments are submitted at once and not waited for; a scored frame's job
 * writes its sums to its result slot, read when the engine's queue
 * collects it, and its fence covers everything submitted before it.
 *
 * A failed submission or fence (VK_ERROR_DEVICE_LOST...) ends the run: no
 * score is read from the device after it, so that no frame is published
 * with the sums of an incomplete job.
 */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"

#include "../engine/fssim_ring.h"
#include "fssim_vulkan_common.h"
#include "fssim_vulkan_resample.h"

extern const unsigned char ff_fssim3d_moments_comp_spv_data[];
extern const unsigned int  ff_fssim3d_moments_comp_spv_len;
extern const unsigned char ff_fssim3d_score_comp_spv_data[];
extern const unsigned int  ff_fssim3d_score_comp_spv_len;

/* Taps: fssim_consts.h, shared with fssim3d_core.glsl (the tile: fssim_vulkan_common.h). */
#define MAX_TAPS    FSSIM3D_VK_MAX_TAPS
#define SCORE_CHUNK (WG_SIZE * FSSIM3D_VK_SCORE_PER)   /* positions per score workgroup */
#define NB_EXEC     16              /* jobs in flight: moments and scores */
#define NB_TS       2               /* timestamps per job: start, end */
/* A ring record (fssim3d_core.glsl): the high 32 bits of the four values,
 * then their next 16 bits, in two arrays. */
#define RECORD_HI   16
#define RECORD_LO   8

/* Descriptor bindings of the moments shader: one per plane of each frame,
 * then the resampled main planes. */
enum { BIND_MAIN = 0, BIND_REF = BIND_MAIN + FSSIM_VK_MAX_PLANES,
       BIND_IMG_NB = BIND_REF + FSSIM_VK_MAX_PLANES, BIND_RSB = BIND_IMG_NB };
/* and of the score shader */
enum { BIND_WINDOW, BIND_PARTIALS, BIND_RESULTS, BIND_SCORE_NB };

/* Push constants, laid out as PushData in the shaders (scalar layout). */
typedef struct FSSIM3DVkMomentsPush {
    uint32_t hi_addr[2], lo_addr[2];
    int32_t  size[2], out_size[2];
    int32_t  offset, plane, chan, shift;
    uint32_t buf_off, buf_pitch;  /* a resampled main's plane in the resampler's output */
} FSSIM3DVkMomentsPush;

typedef struct FSSIM3DVkScorePush {
    double   c1, c2;
    uint32_t n, hi_off, lo_off, nb_taps, part_off, nb_parts, comp;
    uint32_t nb_frames, part_stride, res_at[2];
} FSSIM3DVkScorePush;

/* What a scored frame exchanges with the host, in host-visible memory, one
 * per result slot: the windows of its pass in (the Window block of
 * fssim3d_score.comp.glsl; the first frame's slot holds them), its
 * per-component sums out. */
typedef struct FSSIM3DVkIO {
    double   wt[2][MAX_TAPS];    /* each frame's weight of the tap, 0: not its tap */
    uint64_t slot[MAX_TAPS];     /* device address of the tap's ring slot */
    double   sums[4];
} FSSIM3DVkIO;

/* a pass of two frames reads depth + 1 slots */
_Static_assert(FSSIM3D_MAX_RING <= MAX_TAPS, "the score shader's taps hold the whole ring");

typedef struct VkComp {
    FSSIM3DVkMomentsPush mp;     /* all but the addresses, set per slot */
    FSSIM3DVkScorePush   sp;     /* all but the pass's taps, frames and results */
    int    groups[2];            /* spatial pass workgroups */
    int    score_groups;
    size_t hi_off, lo_off;       /* the component's records in a slot */
} VkComp;

/* What an execution context's last submission was, until its fence has
 * been seen to signal. */
enum { JOB_NONE, JOB_MOMENTS, JOB_SCORE };

typedef struct VkJob {
    int      kind;
    int64_t  n;                  /* frame pair or (first) scored frame, for messages */
    int      nb_frames;          /* frames a score job scores */
    uint64_t seq;                /* submission order */
} VkJob;

struct VK3DBackend {
    /* the compute family restricted to its first queue: see the top */
    FSSIMVk vk;
    FFVulkanShader shd_moments, shd_score, shd_sum;
    /* a main input of another size or format: resampled into the one region
     * of rs before each pair's moments (the queue orders a pair's
     * resampling after the previous pair's moments) */
    FSSIMVkResampler *rs;

    VkComp comp[4];
    size_t slot_bytes;
    FFVkBuffer ring[FSSIM3D_MAX_RING];
    FFVkBuffer partials;         /* double per score workgroup and frame of a pass */
    FFVkBuffer io;               /* FSSIM3DVkIO per result slot */
    uint8_t *io_map;
    size_t   io_stride;
    uint32_t nb_parts;

    VkJob   job[NB_EXEC];
    int64_t nb_pairs, nb_scored, nb_passes; /* submitted */
    uint64_t seq;
    /* per result slot: the context and submission of its score job */
    FFVkExecContext **slot_exec;
    uint64_t *slot_seq;
    /* the score job held back for the next frame's: its result slot (-1:
     * none) and window */
    int      pend_slot;
    FSSIM3DWindow pend;

    /* GPU time, from timestamp queries */
    double   moments_us, score_us;
    uint64_t nb_moments_ts, nb_score_ts;   /* timed moments jobs, timed scored frames */
};

/* Shared memory of a spatial workgroup at radius r, as
 * fssim3d_moments.comp.glsl sizes it: the samples of the tile and its
 * halo, the four horizontal sums in double, the taps. */
static int moments_shared_bytes(int r)
{
    const int sw = TILE_W + 2 * r, sh = TILE_H + 2 * r;
    return 4 * sw * sh + 32 * sh * TILE_W + 8 * (2 * FSSIM_MAX_RADIUS + 1);
}

/* doc/errors.md: name the missing feature and the way out. */
static int check_device(FSSIMEngine *e, VK3DBackend *b)
{
    AVFilterContext *ctx = e->ctx;
    FFVulkanContext *vkctx = &b->vk.vkctx;
    const char *name = vkctx->props.properties.deviceName;
    const VkPhysicalDeviceFeatures *feats = &vkctx->hwctx->device_features.features;
    const VkPhysicalDeviceVulkan12Features *f12 =
        ff_vk_find_struct(vkctx->hwctx->device_features.pNext,
                          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
    char why[64];

    if (e->resample[0] && !feats->shaderInt64) {
        av_log(ctx, AV_LOG_ERROR, "The Vulkan device '%s' lacks shaderInt64 (or it is not "
               "enabled), which resampling the main input to the reference's size and "
               "format needs for its exact arithmetic. Bring the main input to the "
               "reference's size and format first (scale_vulkan=W:H:format=...).\n", name);
        return AVERROR(ENOSYS);
    }
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
    snprintf(why, sizeof(why), "with window=%d. Use a smaller window.", e->opts->window);
    return ff_fssim_vk_check_workgroup(ctx, &b->vk, moments_shared_bytes(e->opts->window / 2),
                                       "fssim3d", why);
}

static int has_extension(FFVulkanContext *vkctx, const char *name)
{
    VkExtensionProperties *props;
    uint32_t n = 0;
    int found = 0;

    if (vkctx->vkfn.EnumerateDeviceExtensionProperties(vkctx->hwctx->phys_dev, NULL, &n,
                                                       NULL) != VK_SUCCESS ||
        !(props = av_malloc_array(n, sizeof(*props))))
        return 0;
    if (vkctx->vkfn.EnumerateDeviceExtensionProperties(vkctx->hwctx->phys_dev, NULL, &n,
                                                       props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found = !strcmp(props[i].extensionName, name);
    av_free(props);
    return found;
}

/* The device memory the ring may take: what the budget of the largest
 * device-local heap leaves (VK_EXT_memory_budget), else that heap's size. */
static int64_t device_memory(FFVulkanContext *vkctx)
{
    const VkPhysicalDeviceMemoryProperties *mp = &vkctx->mprops;
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT,
    };
    VkPhysicalDeviceMemoryProperties2 mp2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
        .pNext = &budget,
    };
    PFN_vkGetPhysicalDeviceMemoryProperties2 get = NULL;
    int64_t best = -1;

    if (has_extension(vkctx, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME))
        get = (PFN_vkGetPhysicalDeviceMemoryProperties2)
              vkctx->hwctx->get_proc_addr(vkctx->hwctx->inst,
                                          "vkGetPhysicalDeviceMemoryProperties2");
    if (get)
        get(vkctx->hwctx->phys_dev, &mp2);
    for (uint32_t h = 0; h < mp->memoryHeapCount; h++) {
        int64_t room = mp->memoryHeaps[h].size;
        if (!(mp->memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT))
            continue;
        if (get)
            room = budget.heapBudget[h] > budget.heapUsage[h] ?
                   budget.heapBudget[h] - budget.heapUsage[h] : 0;
        best = FFMAX(best, room);
    }
    return best;
}

/* The device, for the rings of the process's other filters on it: its
 * UUID, the same whatever instance or process-wide device opened it. */
static const char *device_name(const FFVulkanContext *vkctx, char memory[64])
{
    const uint8_t *id = vkctx->props_11.deviceUUID;
    int n = snprintf(memory, 64, "Vulkan device ");

    for (int i = 0; i < VK_UUID_SIZE && n < 62; i++)
        n += snprintf(memory + n, 64 - n, "%02x", id[i]);
    return memory;
}

/* The layout of the ring and the dispatches: everything but the device
 * objects, so that the ring's size is known before anything can fail. */
static void setup_comps(FSSIMEngine *e, VK3DBackend *b)
{
    const FSSIMRefFloatParams fp = { e->opts->window, e->opts->sigma, e->opts->padding };
    const int off = e->opts->padding == FSSIM_REF_PAD_VALID ? e->opts->window / 2 : 0;
    const double L = (double)((1 << e->fmt.depth) - 1);
    uint32_t parts = 0;

    b->slot_bytes = 0;
    for (int c = 0; c < e->fmt.nb_comps; c++) {
        const FSSIMPlane *p = &e->fmt.comp[c];
        VkComp *vc = &b->comp[c];
        int ow, oh;

        /* ff_fssim_check_options() made sure every plane scores something */
        ff_fssim_ref_float_out_size(p->width, p->height, &fp, &ow, &oh);
        memset(vc, 0, sizeof(*vc));
        vc->mp = (FSSIM3DVkMomentsPush) {
            .size     = { p->width, p->height },
            .out_size = { ow, oh },
            .offset   = off,
            .plane    = p->plane,
            .chan     = p->offset / p->bytes,
            .shift    = p->shift,
        };
        if (e->resample[0])
            ff_fssim_vk_resample_plane(e, c, &vc->mp.buf_off, &vc->mp.buf_pitch);
        vc->groups[0]    = (ow + TILE_W - 1) / TILE_W;
        vc->groups[1]    = (oh + TILE_H - 1) / TILE_H;
        vc->score_groups = ((size_t)ow * oh + SCORE_CHUNK - 1) / SCORE_CHUNK;
        vc->hi_off       = b->slot_bytes;
        b->slot_bytes   += ff_fssim_vk_align((size_t)ow * oh * RECORD_HI);
        vc->lo_off       = b->slot_bytes;
        b->slot_bytes   += ff_fssim_vk_align((size_t)ow * oh * RECORD_LO);
        vc->sp = (FSSIM3DVkScorePush) {
            .c1       = FSSIM_FLOAT_C1(L),
            .c2       = FSSIM_FLOAT_C2(L),
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
    /* a pass's second frame has its partial sums after all of the first's */
    for (int c = 0; c < e->fmt.nb_comps; c++)
        b->comp[c].sp.part_stride = parts;
    b->io_stride = ff_fssim_vk_align(sizeof(FSSIM3DVkIO));
}

/* The moments shader (mode < 0: frames in, the ring out), or the score
 * shader's two passes (mode 0: the window's partial sums, 1: their sums). */
static int init_shader(FSSIMEngine *e, VK3DBackend *b, FFVulkanShader *shd, int mode)
{
    SPEC_LIST_CREATE(sl, 17, 17 * sizeof(uint64_t))

    if (mode >= 0) {
        SPEC_LIST_ADD(sl, 0, 32, mode);
        ff_fssim_vk_shader_load(shd, sl, WG_SIZE, 1, 0);
        return ff_fssim_vk_shader_link(&b->vk, shd, 0, BIND_SCORE_NB,
                                       sizeof(FSSIM3DVkScorePush),
                                       ff_fssim3d_score_comp_spv_data,
                                       ff_fssim3d_score_comp_spv_len);
    }
    SPEC_LIST_ADD(sl, 0, 32, e->opts->window / 2);
    /* the reference's weights, bit for bit */
    ff_fssim_vk_spec_gauss(sl, 1, e->opts, 1);
    SPEC_LIST_ADD(sl, 16, 32, e->resample[0]);
    ff_fssim_vk_shader_load(shd, sl, WG_SIZE, 1, 0);
    return ff_fssim_vk_shader_link(&b->vk, shd, BIND_IMG_NB, 1, sizeof(FSSIM3DVkMomentsPush),
                                   ff_fssim3d_moments_comp_spv_data,
                                   ff_fssim3d_moments_comp_spv_len);
}

int ff_fssim_vk3d_init(FSSIMEngine *e, VK3DBackend **pb, size_t *bytes)
{
    AVFilterContext *ctx = e->ctx;
    const VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    FFVulkanContext *vkctx;
    VK3DBackend *b;
    char memory[64];
    int err;

    b = *pb = av_mallocz(sizeof(*b));
    if (!b)
        return AVERROR(ENOMEM);
    vkctx = &b->vk.vkctx;
    b->slot_exec = av_calloc(e->nb_slots, sizeof(*b->slot_exec));
    b->slot_seq  = av_calloc(e->nb_slots, sizeof(*b->slot_seq));
    if (!b->slot_exec || !b->slot_seq)
        return AVERROR(ENOMEM);

    /* the ring's size first, so that it is reported even if a step fails */
    setup_comps(e, b);
    *bytes = (size_t)e->ring_size * b->slot_bytes;
    b->pend_slot = -1;

    RET(ff_fssim_vk_open(ctx, &b->vk));
    RET(check_device(e, b));
    RET(ff_fssim_ring_fits(e, *bytes, device_memory(vkctx), "device memory",
                           device_name(vkctx, memory)));
    RET(ff_fssim_vk_pool_init(ctx, &b->vk, NB_EXEC, 1));

    /* Allocated once: nothing is allocated on the device per frame.  A
     * buffer per slot: no single allocation or buffer grows with depth. */
    for (int k = 0; k < e->ring_size; k++) {
        err = ff_vk_create_buf(vkctx, &b->ring[k], b->slot_bytes, NULL, NULL,
                               usage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                               VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        /* the ring is the one large allocation: a failure there is "too
         * little device memory" (the caller suggests a smaller depth) */
        if (err < 0)
            return AVERROR(ENOMEM);
    }
    RET(ff_vk_create_buf(vkctx, &b->partials, ff_fssim_vk_align(2 * b->nb_parts * sizeof(double)),
                         NULL, NULL, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
    RET(ff_vk_create_buf(vkctx, &b->io, b->io_stride * e->nb_slots, NULL, NULL, usage,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                         VK_MEMORY_PROPERTY_HOST_COHERENT_BIT));
    RET(ff_vk_map_buffer(vkctx, &b->io, &b->io_map, 0));

    RET(init_shader(e, b, &b->shd_moments, -1));
    RET(init_shader(e, b, &b->shd_score, 0));
    RET(init_shader(e, b, &b->shd_sum, 1));
    if (e->resample[0])
        RET(ff_fssim_vk_resample_init(e, &b->vk, 1, &b->rs));
    ff_fssim_vk_timer_init(ctx, &b->vk, NB_TS);

    av_log(ctx, AV_LOG_VERBOSE, "Vulkan device '%s': %zu bytes a ring slot, %u score "
           "workgroups, %d bytes of shared memory in the spatial pass.\n",
           vkctx->props.properties.deviceName, b->slot_bytes, b->nb_parts,
           moments_shared_bytes(e->opts->window / 2));
    return 0;

fail:
    return err;
}

/* ---- per frame -------------------------------------------------------- */

static const char *job_name(int kind)
{
    return kind == JOB_MOMENTS ? "spatial moments of frame pair" : "scores of frame";
}

/* A command buffer that could not be started or submitted
 * (ff_fssim_vk_submit_failed()).  ff_vk_exec_submit() has logged the
 * VkResult; say what it was for. */
static int submit_failed(AVFilterContext *ctx, VK3DBackend *b, FFVkExecContext *exec,
                         int kind, int64_t n, int err)
{
    ff_fssim_vk_submit_failed(&b->vk, exec);
    av_log(ctx, AV_LOG_ERROR, "Submitting the %s %"PRId64" to the Vulkan device failed: "
           "%s. No score is published after it.\n", job_name(kind), n, av_err2str(err));
    return AVERROR_EXTERNAL;
}

/* A fence that reports an error (VK_ERROR_DEVICE_LOST...): the ring and the
 * sums hold an older frame's values or garbage, never published. */
static int fence_failed(AVFilterContext *ctx, VK3DBackend *b, VkResult res, const VkJob *job)
{
    return ff_fssim_vk_fence_failed(&b->vk, res, job_name(job->kind), job->n);
}

static void read_gpu_time(VK3DBackend *b, FFVkExecContext *exec, const VkJob *job)
{
    double us;

    if (!ff_fssim_vk_timer_read(&b->vk, exec, &us))
        return;
    if (job->kind == JOB_MOMENTS) {
        b->moments_us += us;
        b->nb_moments_ts++;
    } else {
        /* per frame: a pass of two frames counts twice */
        b->score_us += us;
        b->nb_score_ts += job->nb_frames;
    }
}

/* Wait until the last job of an execution context is done, check its fence
 * and release what it held (the frames, their image views).  ff_vk_exec_start()
 * would ignore the VkResult. */
static int job_done(AVFilterContext *ctx, VK3DBackend *b, FFVkExecContext *exec)
{
    FFVulkanContext *vkctx = &b->vk.vkctx;
    VkJob *job = &b->job[exec->idx];
    VkResult res;

    if (job->kind == JOB_NONE)
        return 0;
    res = ff_fssim_vk_fence(&b->vk, exec, 1);
    if (res != VK_SUCCESS)
        return fence_failed(ctx, b, res, job);
    ff_vk_exec_discard_deps(vkctx, exec);
    read_gpu_time(b, exec, job);
    job->kind = JOB_NONE;
    return 0;
}

static void write_ts(VK3DBackend *b, FFVkExecContext *exec, int i)
{
    ff_fssim_vk_timer_write(&b->vk, exec, i,
                            i ? VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT :
                                VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
}

/* A job that failed before anything was recorded: submit the empty command
 * buffer so that the context's fence signals again. */
static int abandon(AVFilterContext *ctx, VK3DBackend *b, FFVkExecContext *exec, int kind,
                   int64_t n, int err)
{
    if (ff_fssim_vk_abandon(&b->vk, exec) < 0)
        submit_failed(ctx, b, exec, kind, n, err);
    return err;
}

/* Start the command buffer of a job in the next execution context, once
 * that context's last job is done. */
static int start_job(AVFilterContext *ctx, VK3DBackend *b, int kind, int64_t n,
                     FFVkExecContext **exec)
{
    FFVulkanContext *vkctx = &b->vk.vkctx;
    int err;

    *exec = ff_vk_exec_get(vkctx, &b->vk.pool);
    err = job_done(ctx, b, *exec);
    if (err < 0)
        return err;
    err = ff_vk_exec_start(vkctx, *exec);
    return err < 0 ? submit_failed(ctx, b, *exec, kind, n, err) : 0;
}

/* The taps of one pass in window order, into io: frame 0's window, and
 * frame 1's (the next frame: its tap k is frame 0's tap k + 1) if any.
 * Only taps of non-zero weight, each frame's in its own order, as the
 * reference sums them. */
static uint32_t pass_taps(VK3DBackend *b, FSSIM3DVkIO *io, const FSSIM3DWindow *w0,
                          const FSSIM3DWindow *w1)
{
    const int span = w0->depth + !!w1;
    uint32_t nb_taps = 0;

    for (int u = 0; u < span; u++) {
        const int s0 = u < w0->depth ? w0->slot[u] : -1;
        const int s1 = w1 && u > 0 ? w1->slot[u - 1] : -1;

        if (s0 < 0 && s1 < 0)
            continue;
        io->wt[0][nb_taps] = s0 >= 0 ? w0->wt[u] : 0.0;
        io->wt[1][nb_taps] = s1 >= 0 ? w1->wt[u - 1] : 0.0;
        io->slot[nb_taps]  = b->ring[s0 >= 0 ? s0 : s1].address;
        nb_taps++;
    }
    return nb_taps;
}

/* Submit the score job of the frame in result slot slot0 (window w0) and,
 * if w1, of the next frame in slot1, as one pass. */
static int submit_pass(FSSIMEngine *e, VK3DBackend *b, int slot0, const FSSIM3DWindow *w0,
                       int slot1, const FSSIM3DWindow *w1)
{
    AVFilterContext *ctx = e->ctx;
    FFVulkanContext *vkctx = &b->vk.vkctx;
    FFVulkanFunctions *vk = &vkctx->vkfn;
    const int nb_frames = w1 ? 2 : 1;
    const size_t off = slot0 * b->io_stride;
    FSSIM3DVkIO *io = (FSSIM3DVkIO *)(b->io_map + off);
    const int64_t n = b->nb_scored;
    const int slots[2] = { slot0, slot1 };
    FFVkExecContext *exec;
    uint32_t nb_taps;
    int err;

    err = start_job(ctx, b, JOB_SCORE, n, &exec);
    if (err < 0)
        return err;
    /* the slot's previous job, which read io, was collected */
    nb_taps = pass_taps(b, io, w0, w1);

    write_ts(b, exec, 0);
    /* the moments jobs submitted before, on this queue */
    ff_fssim_vk_barrier(vk, exec, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                        NULL, 0);
    for (int pass = 0; pass < 2; pass++) {
        FFVulkanShader *shd = pass ? &b->shd_sum : &b->shd_score;

        ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, BIND_WINDOW, 0, &b->io, off,
                                        offsetof(FSSIM3DVkIO, sums), VK_FORMAT_UNDEFINED);
        ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, BIND_PARTIALS, 0, &b->partials,
                                        0, b->partials.size, VK_FORMAT_UNDEFINED);
        ff_vk_shader_update_desc_buffer(vkctx, exec, shd, 0, BIND_RESULTS, 0, &b->io,
                                        0, b->io.size, VK_FORMAT_UNDEFINED);
        ff_vk_exec_bind_shader(vkctx, exec, shd);
        for (int c = 0; c < e->fmt.nb_comps; c++) {
            VkComp *vc = &b->comp[c];

            vc->sp.nb_taps     = nb_taps;
            vc->sp.nb_frames   = nb_frames;
            for (int f = 0; f < nb_frames; f++)
                vc->sp.res_at[f] = (slots[f] * b->io_stride +
                                    offsetof(FSSIM3DVkIO, sums)) / sizeof(double) + c;
            ff_vk_shader_update_push_const(vkctx, exec, shd, VK_SHADER_STAGE_COMPUTE_BIT,
                                           0, sizeof(vc->sp), &vc->sp);
            vk->CmdDispatch(exec->buf, pass ? nb_frames : vc->score_groups, 1, 1);
        }
        /* the partial sums, then the sums for the host */
        if (pass)
            ff_fssim_vk_barrier(vk, exec, VK_PIPELINE_STAGE_2_HOST_BIT,
                                VK_ACCESS_2_HOST_READ_BIT, NULL, 0);
        else
            ff_fssim_vk_barrier_compute(vk, exec);
    }
    write_ts(b, exec, 1);

    err = ff_vk_exec_submit(vkctx, exec);
    if (err < 0)
        return submit_failed(ctx, b, exec, JOB_SCORE, n, err);
    for (int f = 0; f < nb_frames; f++) {
        b->slot_exec[slots[f]] = exec;
        b->slot_seq[slots[f]]  = b->seq;
    }
    b->job[exec->idx] = (VkJob) { JOB_SCORE, n, nb_frames, b->seq++ };
    b->nb_scored += nb_frames;
    b->nb_passes++;
    return 0;
}

/* Submit the held score job alone. */
static int submit_held(FSSIMEngine *e, VK3DBackend *b)
{
    const int slot = b->pend_slot;

    if (slot < 0)
        return 0;
    b->pend_slot = -1;
    return submit_pass(e, b, slot, &b->pend, -1, NULL);
}

/* The held job reads ring slot ring_slot. */
static int held_reads(const VK3DBackend *b, int ring_slot)
{
    if (b->pend_slot < 0)
        return 0;
    for (int k = 0; k < b->pend.depth; k++)
        if (b->pend.slot[k] == ring_slot)
            return 1;
    return 0;
}

int ff_fssim_vk3d_moments(FSSIMEngine *e, VK3DBackend *b, int slot, const AVFrame *ref,
                          const AVFrame *main)
{
    AVFilterContext *ctx = e->ctx;
    FFVulkanContext *vkctx = &b->vk.vkctx;
    FFVulkanFunctions *vk = &vkctx->vkfn;
    const int nb_planes = av_pix_fmt_count_planes(e->fmt.pix_fmt);
    /* split inputs share the frame: one dependency, one barrier */
    const int same = main->data[0] == ref->data[0];
    VkImageView mv[AV_NUM_DATA_POINTERS], rv[AV_NUM_DATA_POINTERS];
    VkImageMemoryBarrier2 img_bar[8];
    const int64_t n = b->nb_pairs;
    /* without resampling, any valid range: the shader does not read it */
    FSSIMVkRange rsb = { &b->partials, 0, b->partials.size };
    int nb_img_bar = 0, err;
    FFVkExecContext *exec;

    /* a failed device runs nothing reliably any more */
    if (b->vk.failed)
        return AVERROR_EXTERNAL;
    /* the held job goes first: it reads what this job overwrites */
    if (held_reads(b, slot) && (err = submit_held(e, b)) < 0)
        return err;
    err = start_job(ctx, b, JOB_MOMENTS, n, &exec);
    if (err < 0)
        return err;

    /* the frames stay referenced until the job is done */
    RET(ff_fssim_vk_add_frame(vkctx, exec, main, mv));
    if (!same)
        RET(ff_fssim_vk_add_frame(vkctx, exec, ref, rv));
    else
        memcpy(rv, mv, sizeof(rv));

    write_ts(b, exec, 0);
    ff_fssim_vk_frame_barrier(vkctx, exec, main, img_bar, &nb_img_bar);
    if (!same)
        ff_fssim_vk_frame_barrier(vkctx, exec, ref, img_bar, &nb_img_bar);
    /* the slot's earlier readers (score jobs) and writers, on this queue */
    ff_fssim_vk_barrier(vk, exec, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                        img_bar, nb_img_bar);

    if (b->rs) {
        const FSSIMVkLane lane = { .own = mv, .ref = rv, .resampled = 1,
                                   .rsb = ff_fssim_vk_resample_out(b->rs, 0) };
        ff_fssim_vk_resample_record(e, &b->vk, b->rs, exec, &lane, 1);
        rsb = lane.rsb;
    }
    /* a resampled main is read from rsb: the reference's images stand in
     * for its own, of another format */
    ff_fssim_vk_bind_planes(vkctx, exec, &b->shd_moments, BIND_MAIN, b->rs ? rv : mv,
                            nb_planes);
    ff_fssim_vk_bind_planes(vkctx, exec, &b->shd_moments, BIND_REF, rv, nb_planes);
    ff_fssim_vk_bind_range(vkctx, exec, &b->shd_moments, BIND_RSB, &rsb);
    ff_vk_exec_bind_shader(vkctx, exec, &b->shd_moments);
    for (int c = 0; c < e->fmt.nb_comps; c++) {
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
        return submit_failed(ctx, b, exec, JOB_MOMENTS, n, err);
    b->job[exec->idx] = (VkJob) { JOB_MOMENTS, n, 0, b->seq++ };
    b->nb_pairs++;
    return 0;

fail:
    return abandon(ctx, b, exec, JOB_MOMENTS, n, err);
}

int ff_fssim_vk3d_submit(FSSIMEngine *e, VK3DBackend *b, int slot, const FSSIM3DWindow *win)
{
    int err;

    /* After a failure nothing the device holds can be trusted: the ring
     * may lack a frame's moments.  Held frames are not scored at uninit
     * then. */
    if (b->vk.failed)
        return AVERROR_EXTERNAL;
    if (b->pend_slot >= 0) {
        if (win->t == b->pend.t + 1) {
            const int slot0 = b->pend_slot;
            b->pend_slot = -1;
            return submit_pass(e, b, slot0, &b->pend, slot, win);
        }
        if ((err = submit_held(e, b)) < 0)
            return err;
    }
    b->pend_slot = slot;
    b->pend      = *win;
    return 0;
}

int ff_fssim_vk3d_collect(FSSIMEngine *e, VK3DBackend *b, int slot, int wait,
                          FSSIMSums *sums)
{
    AVFilterContext *ctx = e->ctx;
    FFVulkanContext *vkctx = &b->vk.vkctx;
    const FSSIM3DVkIO *io = (const FSSIM3DVkIO *)(b->io_map + slot * b->io_stride);
    FFVkExecContext *exec;
    const VkJob *job;
    int err = 0;

    if (b->vk.failed)
        return AVERROR_EXTERNAL;
    /* held back for the next frame's: not started yet */
    if (slot == b->pend_slot) {
        if (!wait)
            return 0;
        if ((err = submit_held(e, b)) < 0)
            return err;
    }
    exec = b->slot_exec[slot];
    job  = &b->job[exec->idx];
    /* unless its context was taken for a later job (which waited for it) */
    if (job->kind == JOB_SCORE && job->seq == b->slot_seq[slot]) {
        if (!wait && ff_fssim_vk_fence(&b->vk, exec, 0) == VK_NOT_READY)
            return 0;
        err = job_done(ctx, b, exec);
    }
    /* its fence covered every job submitted before it: release their frames */
    for (int i = 0; i < b->vk.pool.pool_size && err >= 0; i++)
        if (b->job[i].kind != JOB_NONE && b->job[i].seq < b->slot_seq[slot])
            err = job_done(ctx, b, &b->vk.pool.contexts[i]);
    if (err < 0)
        return err;

    err = ff_fssim_vk_invalidate(vkctx, &b->io, slot * b->io_stride, b->io_stride);
    if (err < 0)
        return err;
    for (int c = 0; c < e->fmt.nb_comps; c++)
        sums->v[0][c][FSSIM_PART_FLOAT].d = io->sums[c];
    return 1;
}

void ff_fssim_vk3d_uninit(FSSIMEngine *e, VK3DBackend **pb)
{
    AVFilterContext *ctx = e->ctx;
    VK3DBackend *b = *pb;
    FFVulkanContext *vkctx;

    if (!b)
        return;
    vkctx = &b->vk.vkctx;
    if (b->vk.initialized) {
        /* jobs whose frames were never scored (the run was cut short):
         * their errors, if any, no longer change what was published */
        for (int i = 0; i < b->vk.pool.pool_size && !b->vk.failed; i++)
            job_done(ctx, b, &b->vk.pool.contexts[i]);
        /* every job of this backend ran on one queue */
        ff_fssim_vk_pool_uninit(&b->vk);

        if (b->nb_moments_ts && b->nb_score_ts) {
            const double mus = b->moments_us / b->nb_moments_ts;
            const double sus = b->score_us / b->nb_score_ts;
            av_log(ctx, AV_LOG_VERBOSE, "GPU time per frame pair: %.1f us over %"PRIu64
                   " frames (spatial moments %.1f us, temporal window and score %.1f us; "
                   "%s; %"PRId64" frames scored in %"PRId64" passes)\n", mus + sus,
                   b->nb_score_ts, mus, sus, vkctx->props.properties.deviceName,
                   b->nb_scored, b->nb_passes);
        }
    }
    /* a hung device may still use what it holds: it is left as it is */
    if (b->vk.initialized && !b->vk.hung) {
        ff_vk_shader_free(vkctx, &b->shd_moments);
        ff_vk_shader_free(vkctx, &b->shd_score);
        ff_vk_shader_free(vkctx, &b->shd_sum);
        ff_fssim_vk_resample_uninit(&b->vk, &b->rs);
        for (int k = 0; k < FSSIM3D_MAX_RING; k++)
            ff_vk_free_buf(vkctx, &b->ring[k]);
        ff_vk_free_buf(vkctx, &b->partials);
        ff_vk_free_buf(vkctx, &b->io);
        ff_fssim_vk_close(&b->vk);
    }
    av_freep(&b->slot_exec);
    av_freep(&b->slot_seq);
    av_freep(pb);
}
