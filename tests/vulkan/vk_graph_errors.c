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
 * Graph set-ups of fssim_vulkan (or fssim3d on Vulkan frames) that the
 * ffmpeg command line cannot make, for tests/vulkan/test_vulkan.py and
 * test_vulkan3d.py (doc/errors.md):
 *
 *   two-devices  the inputs uploaded to two different Vulkan devices
 *   no-fp64      a device whose enabled features lack shaderFloat64 and
 *                shaderInt64 (the list is edited after creation: what a GPU
 *                without them reports)
 *   no-bda       a device whose enabled features lack bufferDeviceAddress
 *   same         both inputs on one device (the control case)
 *
 * usage: vk_graph_errors MODE DEVICE [FILTER_OPTIONS [FILTER]]
 * FILTER: fssim_vulkan (default) or fssim3d.
 * Configures buffer -> hwupload -> FILTER -> buffersink twice over,
 * pushes two frames through when that succeeds, and prints "configured" or
 * "failed: <error>" after the filter's own messages.  Exit status 0 if the
 * graph configured and ran, 1 if not, 2 on a usage or set-up error.
 */
#include <stdio.h>
#include <string.h>

#include "libavfilter/avfilter.h"
#include "libavfilter/buffersink.h"
#include "libavfilter/buffersrc.h"
#include "libavutil/error.h"
#include "libavutil/frame.h"
#include "libavutil/hwcontext.h"
#include "libavutil/hwcontext_vulkan.h"
#include "libavutil/pixfmt.h"

#define W 64
#define H 48

static AVFilterContext *add(AVFilterGraph *g, const char *filter, const char *name,
                            const char *args, AVBufferRef *device)
{
    AVFilterContext *f = avfilter_graph_alloc_filter(g, avfilter_get_by_name(filter), name);
    if (!f)
        return NULL;
    if (device && !(f->hw_device_ctx = av_buffer_ref(device)))
        return NULL;
    return avfilter_init_str(f, args) < 0 ? NULL : f;
}

static int push_frames(AVFilterContext *src[2], AVFilterContext *sink, int is_3d)
{
    /* the frame's overall score: float's for fssim_vulkan, fssim3d's own */
    const char *key = is_3d ? "lavfi.fssim3d.All" : "lavfi.fssim.float.All";
    AVFrame *out = av_frame_alloc();
    int ret = out ? 0 : AVERROR(ENOMEM);

    for (int n = 0; ret >= 0 && n < 2; n++) {
        for (int i = 0; ret >= 0 && i < 2; i++) {
            AVFrame *f = av_frame_alloc();
            if (!f)
                return AVERROR(ENOMEM);
            f->format = AV_PIX_FMT_YUV420P;
            f->width  = W;
            f->height = H;
            f->pts    = n;
            ret = av_frame_get_buffer(f, 0);
            for (int p = 0; ret >= 0 && p < 3; p++)
                for (int y = 0; y < (p ? H / 2 : H); y++)
                    for (int x = 0; x < (p ? W / 2 : W); x++)
                        f->data[p][y * f->linesize[p] + x] = (x * 7 + y * 3 + n + i * (x & 1)) & 255;
            if (ret >= 0)
                ret = av_buffersrc_add_frame(src[i], f);
            av_frame_free(&f);
        }
    }
    for (int i = 0; ret >= 0 && i < 2; i++)
        ret = av_buffersrc_add_frame(src[i], NULL);
    while (ret >= 0 && (ret = av_buffersink_get_frame(sink, out)) >= 0) {
        const AVDictionaryEntry *e = av_dict_get(out->metadata, key, NULL, 0);
        printf("frame %"PRId64": %s %s\n", out->pts, key + (is_3d ? 6 : 12),
               e ? e->value : "(none)");
        av_frame_unref(out);
    }
    av_frame_free(&out);
    return ret == AVERROR_EOF ? 0 : ret;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 2 ? argv[1] : NULL, *device = argc > 2 ? argv[2] : NULL;
    const char *opts = argc > 3 ? argv[3] : "";
    const char *filter = argc > 4 ? argv[4] : "fssim_vulkan";
    AVBufferRef *dev[2] = { NULL };
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *src[2], *up[2], *fs, *sink;
    char args[128];
    int ret;

    if (!mode || (strcmp(mode, "two-devices") && strcmp(mode, "no-fp64") &&
                  strcmp(mode, "no-bda") && strcmp(mode, "same")) ||
        (strcmp(filter, "fssim_vulkan") && strcmp(filter, "fssim3d"))) {
        fprintf(stderr, "usage: %s two-devices|no-fp64|no-bda|same DEVICE [OPTIONS "
                "[fssim_vulkan|fssim3d]]\n", argv[0]);
        return 2;
    }
    for (int i = 0; i < 2; i++) {
        if (i && strcmp(mode, "two-devices")) {
            dev[1] = av_buffer_ref(dev[0]);
            break;
        }
        ret = av_hwdevice_ctx_create(&dev[i], AV_HWDEVICE_TYPE_VULKAN, device, NULL, 0);
        if (ret < 0) {
            fprintf(stderr, "no Vulkan device %s: %s\n", device, av_err2str(ret));
            return 2;
        }
    }
    if (!strcmp(mode, "no-fp64")) {
        AVVulkanDeviceContext *hw = ((AVHWDeviceContext *)dev[0]->data)->hwctx;
        hw->device_features.features.shaderFloat64 = VK_FALSE;
        hw->device_features.features.shaderInt64   = VK_FALSE;
    }
    if (!strcmp(mode, "no-bda")) {
        AVVulkanDeviceContext *hw = ((AVHWDeviceContext *)dev[0]->data)->hwctx;
        for (VkBaseOutStructure *f = hw->device_features.pNext; f; f = f->pNext)
            if (f->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES)
                ((VkPhysicalDeviceVulkan12Features *)f)->bufferDeviceAddress = VK_FALSE;
    }

    snprintf(args, sizeof(args), "video_size=%dx%d:pix_fmt=%d:time_base=1/25:pixel_aspect=1/1",
             W, H, AV_PIX_FMT_YUV420P);
    for (int i = 0; i < 2; i++) {
        char name[16];
        snprintf(name, sizeof(name), "in%d", i);
        src[i] = add(g, "buffer", name, args, NULL);
        snprintf(name, sizeof(name), "up%d", i);
        up[i] = add(g, "hwupload", name, NULL, dev[i]);
        if (!src[i] || !up[i] || avfilter_link(src[i], 0, up[i], 0) < 0)
            return 2;
    }
    fs   = add(g, filter, "fssim", opts, NULL);
    sink = add(g, "buffersink", "out", NULL, NULL);
    if (!fs || !sink || avfilter_link(up[0], 0, fs, 0) < 0 ||
        avfilter_link(up[1], 0, fs, 1) < 0 || avfilter_link(fs, 0, sink, 0) < 0)
        return 2;

    ret = avfilter_graph_config(g, NULL);
    if (ret >= 0) {
        printf("configured\n");
        ret = push_frames(src, sink, !strcmp(filter, "fssim3d"));
    }
    if (ret < 0)
        printf("failed: %s\n", av_err2str(ret));
    fflush(stdout);
    avfilter_graph_free(&g);
    av_buffer_unref(&dev[0]);
    av_buffer_unref(&dev[1]);
    return ret < 0;
}
