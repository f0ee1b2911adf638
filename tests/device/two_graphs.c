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
 * Two filter graphs on one hardware device, in one process: each graph is
 * two buffer sources -> hwupload (the one shared AVHWDeviceContext) -> the
 * filter -> buffersink.  The graphs run interleaved, frame by frame (or, with
 * -t, each in its own thread at the same time), then again one at a time on
 * the same device.  Every frame's scores (the lavfi.fssim* frame metadata)
 * must be identical between the two ways of running: state leaking between
 * two filter instances on one CUDA context / Vulkan device (a shared stream,
 * buffer, event or module) shows up as a difference.  The two graphs score
 * different content, so a mix-up cannot go unnoticed.
 *
 * usage: two_graphs [-d cuda|vulkan|none] [-D DEVICE] [-f FILTER] [-o OPTIONS]
 *                   [-k FRAMES] [-s WxH] [-p PIX_FMT] [-t] [-v]
 *   -d  device type; none scores software frames (no hwupload), for the CPU
 *       filters fssim and fssim3d (default cuda)
 *   -D  device string for av_hwdevice_ctx_create (default: the first)
 *   -f  filter (default fssim_cuda; fssim with -d none)
 *   -o  filter options (default algo=float+int+block)
 *   -k  frames per graph (default 30)
 *   -s  frame size (default 640x360); -p  software pixel format (default yuv420p)
 *   -t  run the two graphs in two threads at once instead of interleaved
 *   -v  print every frame's scores
 * Prints one line per graph and a PASS/FAIL line.  Exit status 0 when every
 * frame of both graphs is scored and identical, 1 on a mismatch, a missing
 * score or a filter error, 2 on a usage or set-up error.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libavfilter/avfilter.h"
#include "libavfilter/buffersink.h"
#include "libavfilter/buffersrc.h"
#include "libavutil/bprint.h"
#include "libavutil/dict.h"
#include "libavutil/error.h"
#include "libavutil/frame.h"
#include "libavutil/hwcontext.h"
#include "libavutil/mem.h"
#include "libavutil/parseutils.h"
#include "libavutil/pixdesc.h"

typedef struct Config {
    enum AVHWDeviceType type;           /* AV_HWDEVICE_TYPE_NONE: software frames */
    const char *filter, *opts;
    int frames, w, h;
    enum AVPixelFormat pix_fmt;
    int verbose;
} Config;

/* One graph and the scores of every frame it sent out, in order. */
typedef struct Graph {
    const Config *cfg;
    AVBufferRef *device;
    unsigned seed;                      /* content: differs between the graphs */
    AVFilterGraph *g;
    AVFilterContext *src[2], *sink;
    AVFrame *out;
    char **scores;
    int nb_scores;
    int ret;
} Graph;

/* A deterministic frame: smooth gradients and a moving disc (the reference,
 * input 1), plus seeded noise for the main input (input 0). */
static int make_frame(const Graph *gr, int n, int input, AVFrame **pf)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(gr->cfg->pix_fmt);
    AVFrame *f = av_frame_alloc();
    uint16_t *line = NULL;
    unsigned rng = gr->seed * 2654435761u + n * 40503u + 1;
    int ret;

    if (!f)
        return AVERROR(ENOMEM);
    f->format = gr->cfg->pix_fmt;
    f->width  = gr->cfg->w;
    f->height = gr->cfg->h;
    f->pts    = n;
    ret = av_frame_get_buffer(f, 0);
    /* av_write_image_line2() ORs sub-byte and 8-bit samples into place */
    for (int p = 0; ret >= 0 && p < FF_ARRAY_ELEMS(f->buf) && f->buf[p]; p++)
        memset(f->buf[p]->data, 0, f->buf[p]->size);
    if (ret >= 0 && !(line = av_malloc_array(gr->cfg->w, sizeof(*line))))
        ret = AVERROR(ENOMEM);
    for (int c = 0; ret >= 0 && c < desc->nb_components; c++) {
        const int chroma = (c == 1 || c == 2) && !(desc->flags & AV_PIX_FMT_FLAG_RGB);
        const int w = chroma ? AV_CEIL_RSHIFT(gr->cfg->w, desc->log2_chroma_w) : gr->cfg->w;
        const int h = chroma ? AV_CEIL_RSHIFT(gr->cfg->h, desc->log2_chroma_h) : gr->cfg->h;
        const int max = (1 << desc->comp[c].depth) - 1;
        const int cx = (w / 3 + n * 5 + gr->seed * 17) % w, cy = (h / 2 + n * 3) % h;
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int dx = x - cx, dy = y - cy;
                int v = ((x * (3 + c) + y * 2 + n * 4 + gr->seed * 29) % 256) * max / 255;
                if (dx * dx + dy * dy < (h / 4) * (h / 4))
                    v = max - v / 2;
                if (input == 0) {
                    rng = rng * 1664525u + 1013904223u;
                    v += (int)((rng >> 24) % 33) * max / 255 - 16 * max / 255;
                }
                line[x] = v < 0 ? 0 : v > max ? max : v;
            }
            av_write_image_line2(line, f->data, f->linesize, desc, 0, y, c, w, 2);
        }
    }
    av_free(line);
    if (ret < 0)
        av_frame_free(&f);
    *pf = f;
    return ret;
}

static AVFilterContext *add(AVFilterGraph *g, const char *filter, const char *name,
                            const char *args, AVBufferRef *device)
{
    const AVFilter *flt = avfilter_get_by_name(filter);
    AVFilterContext *f;

    if (!flt) {
        fprintf(stderr, "this FFmpeg has no filter %s\n", filter);
        return NULL;
    }
    if (!(f = avfilter_graph_alloc_filter(g, flt, name)))
        return NULL;
    if (device && !(f->hw_device_ctx = av_buffer_ref(device)))
        return NULL;
    return avfilter_init_str(f, args) < 0 ? NULL : f;
}

static int graph_open(Graph *gr)
{
    const Config *cfg = gr->cfg;
    AVFilterContext *in[2], *fs;
    char args[160];
    int ret;

    if (!(gr->g = avfilter_graph_alloc()) || !(gr->out = av_frame_alloc()))
        return AVERROR(ENOMEM);
    snprintf(args, sizeof(args), "video_size=%dx%d:pix_fmt=%d:time_base=1/25:pixel_aspect=1/1",
             cfg->w, cfg->h, cfg->pix_fmt);
    for (int i = 0; i < 2; i++) {
        char name[16];
        snprintf(name, sizeof(name), "in%d", i);
        if (!(gr->src[i] = add(gr->g, "buffer", name, args, NULL)))
            return AVERROR(EINVAL);
        in[i] = gr->src[i];
        if (gr->device) {
            snprintf(name, sizeof(name), "up%d", i);
            if (!(in[i] = add(gr->g, "hwupload", name, NULL, gr->device)) ||
                (ret = avfilter_link(gr->src[i], 0, in[i], 0)) < 0)
                return AVERROR(EINVAL);
        }
    }
    fs       = add(gr->g, cfg->filter, "score", cfg->opts, NULL);
    gr->sink = add(gr->g, "buffersink", "out", NULL, NULL);
    if (!fs || !gr->sink)
        return AVERROR(EINVAL);
    if ((ret = avfilter_link(in[0], 0, fs, 0)) < 0 || (ret = avfilter_link(in[1], 0, fs, 1)) < 0 ||
        (ret = avfilter_link(fs, 0, gr->sink, 0)) < 0)
        return ret;
    return avfilter_graph_config(gr->g, NULL);
}

static void graph_close(Graph *gr)
{
    avfilter_graph_free(&gr->g);
    av_frame_free(&gr->out);
}

static void graph_free_scores(Graph *gr)
{
    for (int i = 0; i < gr->nb_scores; i++)
        av_free(gr->scores[i]);
    av_freep(&gr->scores);
    gr->nb_scores = 0;
}

/* Record the scores of the frame in gr->out: "pts key=value ...". */
static int keep(Graph *gr)
{
    const AVDictionaryEntry *e = NULL;
    AVBPrint bp;
    char *str, **tmp;

    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
    av_bprintf(&bp, "pts %"PRId64, gr->out->pts);
    while ((e = av_dict_iterate(gr->out->metadata, e)))
        if (!strncmp(e->key, "lavfi.fssim", 11))
            av_bprintf(&bp, " %s=%s", e->key, e->value);
    av_frame_unref(gr->out);
    if (av_bprint_finalize(&bp, &str) < 0)
        return AVERROR(ENOMEM);
    if (!(tmp = av_realloc_array(gr->scores, gr->nb_scores + 1, sizeof(*tmp)))) {
        av_free(str);
        return AVERROR(ENOMEM);
    }
    gr->scores = tmp;
    gr->scores[gr->nb_scores++] = str;
    return 0;
}

/* Every frame the sink has ready; AVERROR(EAGAIN) or AVERROR_EOF at the end. */
static int drain(Graph *gr)
{
    int ret;

    while ((ret = av_buffersink_get_frame(gr->sink, gr->out)) >= 0)
        if ((ret = keep(gr)) < 0)
            return ret;
    return ret;
}

/* Frame n into both inputs (n == frames: EOF), then what comes out. */
static int push(Graph *gr, int n)
{
    int ret = 0;

    for (int i = 0; ret >= 0 && i < 2; i++) {
        AVFrame *f = NULL;
        if (n < gr->cfg->frames && (ret = make_frame(gr, n, i, &f)) < 0)
            break;
        ret = av_buffersrc_add_frame(gr->src[i], f);     /* NULL: EOF */
        av_frame_free(&f);
    }
    if (ret < 0)
        return ret;
    ret = drain(gr);
    return ret == AVERROR(EAGAIN) || ret == AVERROR_EOF ? 0 : ret;
}

/* EOF on both inputs; the sink then returns what the filter still held,
 * and EOF.  EAGAIN here means a frame stuck in the graph: an error. */
static int finish(Graph *gr)
{
    int ret = 0;

    for (int i = 0; ret >= 0 && i < 2; i++)
        ret = av_buffersrc_add_frame(gr->src[i], NULL);
    if (ret >= 0)
        ret = drain(gr);
    return ret == AVERROR_EOF ? 0 : ret == AVERROR(EAGAIN) ? AVERROR_BUG : ret;
}

/* The whole run of one graph, from configuration to EOF. */
static void *run_alone(void *arg)
{
    Graph *gr = arg;

    gr->ret = graph_open(gr);
    for (int n = 0; gr->ret >= 0 && n < gr->cfg->frames; n++)
        gr->ret = push(gr, n);
    if (gr->ret >= 0)
        gr->ret = finish(gr);
    graph_close(gr);
    return NULL;
}

static int run_interleaved(Graph gr[2])
{
    int ret = 0;

    for (int i = 0; ret >= 0 && i < 2; i++)
        if ((ret = graph_open(&gr[i])) < 0)
            fprintf(stderr, "graph %c: configuration failed: %s\n", 'A' + i, av_err2str(ret));
    for (int n = 0; ret >= 0 && n < gr[0].cfg->frames; n++)
        for (int i = 0; ret >= 0 && i < 2; i++)
            if ((ret = push(&gr[i], n)) < 0)
                fprintf(stderr, "graph %c, frame %d: %s\n", 'A' + i, n, av_err2str(ret));
    for (int i = 0; ret >= 0 && i < 2; i++)
        if ((ret = finish(&gr[i])) < 0)
            fprintf(stderr, "graph %c at EOF: %s\n", 'A' + i, av_err2str(ret));
    for (int i = 0; i < 2; i++)
        graph_close(&gr[i]);
    return ret;
}

static int run_threads(Graph gr[2])
{
    pthread_t th[2];
    int started = 0, ret = 0;

    for (; started < 2; started++)
        if (pthread_create(&th[started], NULL, run_alone, &gr[started])) {
            ret = AVERROR(EAGAIN);
            break;
        }
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; ret >= 0 && i < 2; i++)
        if ((ret = gr[i].ret) < 0)
            fprintf(stderr, "graph %c (thread): %s\n", 'A' + i, av_err2str(ret));
    return ret;
}

/* 0 if graph a's scores (together) equal b's (alone), every frame scored */
static int compare(const char *name, const Graph *a, const Graph *b, int frames, int verbose)
{
    int bad = 0;

    if (a->nb_scores != frames || b->nb_scores != frames) {
        printf("graph %s: %d frames out together, %d alone, %d expected\n",
               name, a->nb_scores, b->nb_scores, frames);
        bad = 1;
    }
    for (int i = 0; i < FFMIN(a->nb_scores, b->nb_scores); i++) {
        if (!strstr(a->scores[i], "lavfi.fssim")) {
            printf("graph %s, frame %d: no scores: %s\n", name, i, a->scores[i]);
            bad = 1;
        } else if (strcmp(a->scores[i], b->scores[i])) {
            if (bad++ < 5)
                printf("graph %s, frame %d differs:\n  together: %s\n  alone:    %s\n",
                       name, i, a->scores[i], b->scores[i]);
        } else if (verbose) {
            printf("graph %s: %s\n", name, a->scores[i]);
        }
    }
    return bad;
}

static int usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [-d cuda|vulkan|none] [-D DEVICE] [-f FILTER] [-o OPTIONS] "
            "[-k FRAMES] [-s WxH] [-p PIX_FMT] [-t] [-v]\n", argv0);
    return 2;
}

int main(int argc, char **argv)
{
    Config cfg = { .type = AV_HWDEVICE_TYPE_CUDA, .opts = "algo=float+int+block",
                   .frames = 30, .w = 640, .h = 360, .pix_fmt = AV_PIX_FMT_YUV420P };
    const char *devstr = NULL, *type = "cuda";
    AVBufferRef *device = NULL;
    Graph together[2], alone[2];
    int threads = 0, ret, bad = 0, opt;

    while ((opt = getopt(argc, argv, "d:D:f:o:k:s:p:tv")) != -1) {
        switch (opt) {
        case 'd': type = optarg; break;
        case 'D': devstr = optarg; break;
        case 'f': cfg.filter = optarg; break;
        case 'o': cfg.opts = optarg; break;
        case 'k': cfg.frames = atoi(optarg); break;
        case 's':
            if (av_parse_video_size(&cfg.w, &cfg.h, optarg) < 0)
                return usage(argv[0]);
            break;
        case 'p':
            if ((cfg.pix_fmt = av_get_pix_fmt(optarg)) == AV_PIX_FMT_NONE)
                return usage(argv[0]);
            break;
        case 't': threads = 1; break;
        case 'v': cfg.verbose = 1; break;
        default:  return usage(argv[0]);
        }
    }
    if (optind != argc || cfg.frames < 1)
        return usage(argv[0]);
    cfg.type = strcmp(type, "none") ? av_hwdevice_find_type_by_name(type) : AV_HWDEVICE_TYPE_NONE;
    if (strcmp(type, "none") && cfg.type == AV_HWDEVICE_TYPE_NONE)
        return usage(argv[0]);
    if (!cfg.filter)
        cfg.filter = cfg.type == AV_HWDEVICE_TYPE_NONE   ? "fssim" :
                     cfg.type == AV_HWDEVICE_TYPE_VULKAN ? "fssim_vulkan" : "fssim_cuda";

    if (cfg.type != AV_HWDEVICE_TYPE_NONE &&
        (ret = av_hwdevice_ctx_create(&device, cfg.type, devstr, NULL, 0)) < 0) {
        fprintf(stderr, "no %s device%s%s: %s\n", type, devstr ? " " : "", devstr ? devstr : "",
                av_err2str(ret));
        return 2;
    }
    printf("%s on %s frames, %dx%d %s, %s, %d frames, %s\n", cfg.filter,
           device ? type : "software", cfg.w, cfg.h, av_get_pix_fmt_name(cfg.pix_fmt), cfg.opts,
           cfg.frames, threads ? "two threads" : "interleaved frame by frame");
    fflush(stdout);

    for (int i = 0; i < 2; i++) {
        together[i] = alone[i] = (Graph){ .cfg = &cfg, .device = device, .seed = 1 + 6 * i };
    }
    ret = threads ? run_threads(together) : run_interleaved(together);
    for (int i = 0; ret >= 0 && i < 2; i++) {
        run_alone(&alone[i]);
        if ((ret = alone[i].ret) < 0)
            fprintf(stderr, "graph %c alone: %s\n", 'A' + i, av_err2str(ret));
    }
    if (ret >= 0) {
        bad |= compare("A", &together[0], &alone[0], cfg.frames, cfg.verbose);
        bad |= compare("B", &together[1], &alone[1], cfg.frames, cfg.verbose);
        /* the graphs score different content: equal scores would mean the
         * comparison cannot see one graph's results end up in the other */
        if (together[0].nb_scores && together[1].nb_scores &&
            !strcmp(strchr(together[0].scores[0], ' '), strchr(together[1].scores[0], ' '))) {
            printf("graphs A and B gave the same scores on different content\n");
            bad = 1;
        }
        for (int i = 0; i < 2 && together[i].nb_scores; i++)
            printf("graph %c: %d frames, last: %s\n", 'A' + i, together[i].nb_scores,
                   together[i].scores[together[i].nb_scores - 1]);
    }
    for (int i = 0; i < 2; i++) {
        graph_free_scores(&together[i]);
        graph_free_scores(&alone[i]);
    }
    av_buffer_unref(&device);
    if (ret < 0) {
        printf("FAIL: %s\n", av_err2str(ret));
        return 1;
    }
    printf("%s: both graphs' scores %s between the %s run and each graph alone\n",
           bad ? "FAIL" : "PASS", bad ? "differ" : "identical",
           threads ? "two-thread" : "interleaved");
    return !!bad;
}
