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
 * fssim: what the four filters share — options, input checks, the plane
 * layout of every supported format, and the outputs.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "config.h"
#if HAVE_UNISTD_H
#include <unistd.h>
#endif

#include "libavutil/avstring.h"
#include "libavutil/bprint.h"
#include "libavutil/file_open.h"
#include "libavutil/frame.h"
#include "libavutil/hwcontext.h"
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "libavutil/thread.h"
#include "libavfilter/avfilter.h"

#include "libavfilter/filters.h"
#include "libavfilter/formats.h"
#include "libavfilter/framesync.h"

#include "fssim_common.h"

const enum AVPixelFormat ff_fssim_sw_pix_fmts[] = {
    AV_PIX_FMT_GRAY8, AV_PIX_FMT_GRAY9, AV_PIX_FMT_GRAY10,
    AV_PIX_FMT_GRAY12, AV_PIX_FMT_GRAY14, AV_PIX_FMT_GRAY16,
    AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV444P,
    AV_PIX_FMT_YUV440P, AV_PIX_FMT_YUV411P, AV_PIX_FMT_YUV410P,
    AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P,
    AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P,
    AV_PIX_FMT_GBRP,
#define PF(suf) AV_PIX_FMT_YUV420##suf, AV_PIX_FMT_YUV422##suf, \
                AV_PIX_FMT_YUV444##suf, AV_PIX_FMT_GBR##suf
    PF(P9), PF(P10), PF(P12), PF(P14), PF(P16),
#undef PF
    AV_PIX_FMT_YUVA420P, AV_PIX_FMT_YUVA422P, AV_PIX_FMT_YUVA444P,
    AV_PIX_FMT_YUVA420P10, AV_PIX_FMT_YUVA444P10, AV_PIX_FMT_YUVA444P16,
    AV_PIX_FMT_GBRAP, AV_PIX_FMT_GBRAP10, AV_PIX_FMT_GBRAP12, AV_PIX_FMT_GBRAP16,
    AV_PIX_FMT_NV12, AV_PIX_FMT_NV21, AV_PIX_FMT_NV16, AV_PIX_FMT_NV24, AV_PIX_FMT_NV42,
    AV_PIX_FMT_P010, AV_PIX_FMT_P012, AV_PIX_FMT_P016,
    AV_PIX_FMT_P210, AV_PIX_FMT_P212, AV_PIX_FMT_P216,
    AV_PIX_FMT_P410, AV_PIX_FMT_P412, AV_PIX_FMT_P416,
    /* what NVDEC gives for 4:4:4 10/12-bit: MSB-aligned planar samples */
    AV_PIX_FMT_YUV444P10MSB, AV_PIX_FMT_YUV444P12MSB,
    AV_PIX_FMT_GBRP10MSB, AV_PIX_FMT_GBRP12MSB,
    AV_PIX_FMT_NONE
};

static const char *const algo_names[FSSIM_NB_ALGOS] = { "float", "int", "block" };

static AVFilterFormats *link_formats(enum AVPixelFormat hw_format)
{
    AVFilterFormats *f = ff_make_pixel_format_list(ff_fssim_sw_pix_fmts);

    if (f && hw_format != AV_PIX_FMT_NONE && ff_add_format(&f, hw_format) < 0)
        return NULL;   /* ff_add_format freed the list */
    return f;
}

/*
 * Colour space, range and alpha mode lists: one for main and the output
 * (the frames go out untouched), another for the reference.  With the
 * default single list FFmpeg converts the reference to main's range behind
 * the filter (an auto-inserted scale: identical content then scores below
 * 1); scored as decoded, a difference only gets a warning.
 */
static int query_frame_metadata(struct AVFilterFormatsConfig **cfg_in,
                                struct AVFilterFormatsConfig **cfg_out)
{
    static const struct {
        AVFilterFormats *(*all)(void);
        size_t offset;
    } kinds[] = {
        { ff_all_color_spaces, offsetof(AVFilterFormatsConfig, color_spaces) },
        { ff_all_color_ranges, offsetof(AVFilterFormatsConfig, color_ranges) },
        { ff_all_alpha_modes,  offsetof(AVFilterFormatsConfig, alpha_modes)  },
    };
#define LIST(cfg, k) ((AVFilterFormats **)((uint8_t *)(cfg) + kinds[k].offset))
    for (int k = 0; k < FF_ARRAY_ELEMS(kinds); k++) {
        AVFilterFormats *shared = kinds[k].all(), *ref = kinds[k].all();
        int ret;

        if (!shared || !ref) {
            ff_formats_unref(&shared);
            ff_formats_unref(&ref);
            return AVERROR(ENOMEM);
        }
        if ((ret = ff_formats_ref(shared, LIST(cfg_in[0], k))) < 0 ||
            (ret = ff_formats_ref(shared, LIST(cfg_out[0], k))) < 0) {
            ff_formats_unref(&ref);
            return ret;
        }
        if ((ret = ff_formats_ref(ref, LIST(cfg_in[1], k))) < 0)
            return ret;
    }
#undef LIST
    return 0;
}

int ff_fssim_query_formats(const AVFilterContext *ctx,
                           struct AVFilterFormatsConfig **cfg_in,
                           struct AVFilterFormatsConfig **cfg_out,
                           enum AVPixelFormat hw_format)
{
    AVFilterFormats *main_out = link_formats(hw_format);
    AVFilterFormats *ref = link_formats(hw_format);
    int ret;

    if (!main_out || !ref) {
        ff_formats_unref(&main_out);
        ff_formats_unref(&ref);
        return AVERROR(ENOMEM);
    }
    /* a failed ff_formats_ref() frees the list it was given, if unowned,
     * but not the other one */
    if ((ret = ff_formats_ref(main_out, &cfg_in[0]->formats)) < 0 ||
        (ret = ff_formats_ref(main_out, &cfg_out[0]->formats)) < 0) {
        ff_formats_unref(&ref);
        return ret;
    }
    if ((ret = ff_formats_ref(ref, &cfg_in[1]->formats)) < 0)
        return ret;
    return query_frame_metadata(cfg_in, cfg_out);
}

static int is_supported(enum AVPixelFormat fmt)
{
    for (int i = 0; ff_fssim_sw_pix_fmts[i] != AV_PIX_FMT_NONE; i++)
        if (ff_fssim_sw_pix_fmts[i] == fmt)
            return 1;
    return 0;
}

int ff_fssim_format_init(AVFilterContext *ctx, FSSIMFormat *f,
                         enum AVPixelFormat sw_format, int width, int height)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(sw_format);
    const int rgb = desc && (desc->flags & AV_PIX_FMT_FLAG_RGB);
    double total = 0.0;

    if (!desc || !is_supported(sw_format)) {
        av_log(ctx, AV_LOG_ERROR, "Pixel format %s is not supported: fssim scores planar "
               "8-16-bit YUV, GRAY and GBR, and the semi-planar NV12/NV16/NV24/P0xx/P2xx/P4xx "
               "formats. Convert the inputs first, e.g. with format=yuv420p or "
               "scale_cuda=format=nv12.\n", desc ? desc->name : "(none)");
        return AVERROR(ENOSYS);
    }

    memset(f, 0, sizeof(*f));
    f->pix_fmt  = sw_format;
    f->width    = width;
    f->height   = height;
    f->depth    = desc->comp[0].depth;
    f->nb_comps = desc->nb_components;
    for (int i = 0; i < f->nb_comps; i++) {
        const AVComponentDescriptor *cd = &desc->comp[i];
        const int chroma = !rgb && (i == 1 || i == 2);
        FSSIMPlane *p = &f->comp[i];

        p->name   = f->nb_comps == 1 ? 'Y' : (rgb ? "RGBA" : "YUVA")[i];
        p->plane  = cd->plane;
        p->offset = cd->offset;
        p->bytes  = cd->depth + cd->shift > 8 ? 2 : 1;
        p->step   = cd->step / p->bytes;
        p->shift  = cd->shift;
        p->width  = chroma ? AV_CEIL_RSHIFT(width,  desc->log2_chroma_w) : width;
        p->height = chroma ? AV_CEIL_RSHIFT(height, desc->log2_chroma_h) : height;
        total += (double)p->width * p->height;
    }
    for (int i = 0; i < f->nb_comps; i++)
        f->weight[i] = (double)f->comp[i].width * f->comp[i].height / total;
    return 0;
}

FSSIMRefPlane ff_fssim_ref_plane(const FSSIMFormat *f, int c,
                                 uint8_t *const data[], const int linesize[])
{
    const FSSIMPlane *p = &f->comp[c];
    return (FSSIMRefPlane) {
        .data     = data[p->plane] + p->offset,
        .linesize = linesize[p->plane],
        .width    = p->width,
        .height   = p->height,
        .bytes    = p->bytes,
        .step     = p->step,
        .shift    = p->shift,
    };
}

int ff_fssim_check_inputs(AVFilterContext *ctx, int mw, int mh, enum AVPixelFormat main_fmt,
                          int rw, int rh, enum AVPixelFormat ref_fmt, const char *fix)
{
    if (mw != rw || mh != rh) {
        av_log(ctx, AV_LOG_ERROR, "Input sizes differ: main is %dx%d, reference is %dx%d. "
               "Scale one input to the other's size first, e.g. %s=%d:%d on the reference.\n",
               mw, mh, rw, rh, fix, mw, mh);
        return AVERROR(EINVAL);
    }
    if (main_fmt != ref_fmt) {
        /* the software scale filter has no format option: format does it */
        const int sw = !strcmp(fix, "scale");
        av_log(ctx, AV_LOG_ERROR, "Input pixel formats differ: main is %s, reference is %s. "
               "Convert one input to the other's format first, e.g. %s%sformat=%s on the "
               "reference.\n", av_get_pix_fmt_name(main_fmt), av_get_pix_fmt_name(ref_fmt),
               sw ? "" : fix, sw ? "" : "=", av_get_pix_fmt_name(main_fmt));
        return AVERROR(EINVAL);
    }
    return 0;
}

int ff_fssim_config_output(AVFilterLink *outlink, FFFrameSync *fs, FSSIMOutput *out)
{
    AVFilterContext *ctx = outlink->src;
    AVFilterLink *mainlink = ctx->inputs[0], *reflink = ctx->inputs[1];
    FilterLink *il = ff_filter_link(mainlink);
    FilterLink *ol = ff_filter_link(outlink);
    int ret;

    ret = ff_framesync_init_dualinput(fs, ctx);
    if (ret < 0)
        return ret;
    outlink->w = mainlink->w;
    outlink->h = mainlink->h;
    outlink->time_base = mainlink->time_base;
    outlink->sample_aspect_ratio = mainlink->sample_aspect_ratio;
    ol->frame_rate = il->frame_rate;
    if (il->hw_frames_ctx && (ret = av_buffer_replace(&ol->hw_frames_ctx, il->hw_frames_ctx)) < 0)
        return ret;

    ret = ff_framesync_configure(fs);
    if (ret < 0)
        return ret;
    outlink->time_base = out->time_base = fs->time_base;

    /* as FFmpeg's ssim: pairing by timestamps is only as good as the bases */
    if (av_cmp_q(mainlink->time_base, reflink->time_base))
        av_log(ctx, AV_LOG_WARNING, "The main and reference inputs have different time "
               "bases (%d/%d and %d/%d): frames are paired by timestamp, check that the "
               "pairs are the frames you mean to compare (setpts, fps).\n",
               mainlink->time_base.num, mainlink->time_base.den,
               reflink->time_base.num, reflink->time_base.den);
    return 0;
}

/* A frame's own size and format must be those the filter was configured
 * with: a size changed inside the graph (scale with eval=frame) reaches the
 * filter without a rebuild, and scoring it with the configured layout
 * would read outside the frame. */
static int check_frame(AVFilterContext *ctx, const FSSIMFormat *f, const AVFrame *frame,
                       const char *pad)
{
    enum AVPixelFormat fmt = frame->format;

    if (frame->hw_frames_ctx)
        fmt = ((AVHWFramesContext *)frame->hw_frames_ctx->data)->sw_format;
    if (frame->width == f->width && frame->height == f->height && fmt == f->pix_fmt)
        return 0;
    av_log(ctx, AV_LOG_ERROR, "A %s frame is %dx%d %s, but the filter was configured for "
           "%dx%d %s: the size or format changed inside the filter graph, which FFmpeg does "
           "not rebuild for it. Keep the size and format constant in front of the filter, "
           "e.g. scale=%d:%d,format=%s.\n", pad, frame->width, frame->height,
           av_get_pix_fmt_name(fmt), f->width, f->height, av_get_pix_fmt_name(f->pix_fmt),
           f->width, f->height, av_get_pix_fmt_name(f->pix_fmt));
    return AVERROR(EINVAL);
}

int ff_fssim_check_frames(AVFilterContext *ctx, FSSIMOutput *out,
                          const AVFrame *main, const AVFrame *ref)
{
    int ret;

    if ((ret = check_frame(ctx, &out->fmt, main, "main")) < 0 ||
        (ret = check_frame(ctx, &out->fmt, ref, "reference")) < 0)
        return ret;
    if (main->color_range == ref->color_range || out->warned_range)
        return 0;
    out->warned_range = 1;
    av_log(ctx, AV_LOG_WARNING, "The main and reference frames use different colour ranges "
           "(%s and %s): the samples are compared as they are. Convert one with "
           "scale=out_range=... if that is not what you mean.\n",
           av_color_range_name(main->color_range), av_color_range_name(ref->color_range));
    return 0;
}

int ff_fssim_check_options(AVFilterContext *ctx, const FSSIMOptions *o, const FSSIMFormat *f)
{
    /* the flags parser takes algo=none / algo=0 whatever the option's minimum */
    if (!(o->algos & ((1 << FSSIM_NB_ALGOS) - 1))) {
        av_log(ctx, AV_LOG_ERROR, "algo selects no algorithm: choose one or more of float, "
               "int and block, e.g. algo=float+int.\n");
        return AVERROR(EINVAL);
    }
    if (!(o->window & 1)) {
        av_log(ctx, AV_LOG_ERROR, "window=%d: the window size must be odd (3 to 15).\n",
               o->window);
        return AVERROR(EINVAL);
    }
    if (o->stats_file_str && o->stats_algo >= 0 && !(o->algos & FSSIM_FLAG(o->stats_algo))) {
        av_log(ctx, AV_LOG_ERROR, "stats_algo=%s is not among the computed algorithms; "
               "add it to algo.\n", algo_names[o->stats_algo]);
        return AVERROR(EINVAL);
    }
    for (int i = 0; f && i < f->nb_comps; i++) {
        const FSSIMPlane *p = &f->comp[i];
        const FSSIMRefFloatParams fp = { o->window, o->sigma, o->padding };
        int ow, oh, nx, ny;

        if ((o->algos & FSSIM_FLAG(FSSIM_FLOAT)) &&
            fssim_ref_float_out_size(p->width, p->height, &fp, &ow, &oh) < 0) {
            av_log(ctx, AV_LOG_ERROR, "Plane %c is %dx%d, smaller than the %dx%d window: "
                   "padding=valid scores nothing. Use padding=same or a smaller window.\n",
                   p->name, p->width, p->height, o->window, o->window);
            return AVERROR(EINVAL);
        }
        if ((o->algos & FSSIM_FLAG(FSSIM_BLOCK)) &&
            fssim_ref_block_windows(p->width, p->height, &nx, &ny) < 0) {
            av_log(ctx, AV_LOG_ERROR, "Plane %c is %dx%d: algo=block needs planes of at "
                   "least 8x8 samples. Use algo=int or algo=float for frames this small.\n",
                   p->name, p->width, p->height);
            return AVERROR(EINVAL);
        }
    }
    return 0;
}

double ff_fssim_db(double ssim)
{
    return ssim < 1.0 ? -10.0 * log10(1.0 - ssim) : INFINITY;
}

/* ---- outputs ---------------------------------------------------------- */

static int nb_slots(const FSSIMOutput *out)
{
    return out->algos ? FSSIM_NB_ALGOS : 1;
}

static int slot_used(const FSSIMOutput *out, int a)
{
    return out->algos ? !!(out->algos & FSSIM_FLAG(a)) : a == 0;
}

static void json_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static double pool_mean(const FSSIMPool *p, uint64_t n)
{
    return n ? p->sum / n : NAN;
}

/* libvmaf's harmonic mean, defined for SSIM's range [-1, 1]. */
static double pool_harmonic(const FSSIMPool *p, uint64_t n)
{
    return n ? n / p->inv_sum - 1.0 : NAN;
}

static void pool_add(FSSIMPool *p, uint64_t n, double v)
{
    if (!n)
        p->min = p->max = v;
    p->sum     += v;
    p->inv_sum += 1.0 / (1.0 + v);
    p->min      = FFMIN(p->min, v);
    p->max      = FFMAX(p->max, v);
}

/* Planes weighted by their sample counts, divided once at the end: planes
 * that all score exactly 1 give exactly 1 (and dB inf, as FFmpeg's ssim
 * prints), which the rounded shares in fmt.weight[] (2/3 + 1/6 + 1/6 < 1)
 * do not. */
static double frame_all(const FSSIMOutput *out, const double *score)
{
    double all = 0.0, total = 0.0;
    for (int c = 0; c < out->fmt.nb_comps; c++) {
        const double n = (double)out->fmt.comp[c].width * out->fmt.comp[c].height;
        all   += n * score[c];
        total += n;
    }
    return all / total;
}

static int open_file(AVFilterContext *ctx, const char *path, const char *what,
                     const char *mode, FILE **f)
{
    if (!strcmp(path, "-")) {
        *f = stdout;
        return 0;
    }
    *f = avpriv_fopen_utf8(path, mode);
    if (!*f) {
        int err = AVERROR(errno);
        av_log(ctx, AV_LOG_ERROR, "Could not open %s %s for writing: %s. Check that the "
               "directory exists and is writable.\n", what, path, av_err2str(err));
        return err;
    }
    return 0;
}

/* Push what is buffered to the file and report, once, a write that failed
 * (disk full, I/O error): the run must fail rather than leave a log that
 * silently lacks frames. */
static int check_file(AVFilterContext *ctx, FSSIMOutput *out, FILE *f)
{
    const int is_log = f == out->log;
    int err;

    if (!f || out->write_error)
        return out->write_error;
    errno = 0;
    if (!fflush(f) && !ferror(f))
        return 0;
    err = AVERROR(errno ? errno : EIO);
    av_log(ctx, AV_LOG_ERROR, "Could not write the %s %s: %s.\n",
           is_log ? "log file" : "stats file",
           is_log ? out->opts->log_path : out->opts->stats_file_str, av_err2str(err));
    out->write_error = err;
    return err;
}

/*
 * Outputs parked by an instance freed mid-stream, for the instance of the
 * rebuilt graph: FFmpeg frees the old graph before it builds the new one,
 * so the two never write at once.  An entry lives while an instance writes
 * its paths (live) or while it waits to be taken up.
 */
typedef struct ParkedOutput {
    struct ParkedOutput *next;
    char *key;                /* log path, stats path */
    const char *filter;       /* the filter whose state is parked */
    int   live;
    FSSIMOutput state;        /* files closed */
} ParkedOutput;

static AVMutex parked_lock = AV_MUTEX_INITIALIZER;
static ParkedOutput *parked;

static char *output_key(const FSSIMOptions *o)
{
    /* stdout cannot be reopened: only files take part */
    const char *log = o->log_path && strcmp(o->log_path, "-") ? o->log_path : "";
    const char *st  = o->stats_file_str && strcmp(o->stats_file_str, "-") ? o->stats_file_str : "";

    if (!*log && !*st)
        return NULL;
    return av_asprintf("%s\n%s", log, st);
}

static ParkedOutput **find_parked(const char *key)
{
    ParkedOutput **p = &parked;

    while (*p && strcmp((*p)->key, key))
        p = &(*p)->next;
    return p;
}

/* Takes up a parked state for key, or registers key as written by this
 * instance.  Returns 1 if a state was taken up into out. */
static int take_parked(AVFilterContext *ctx, FSSIMOutput *out, const char *key)
{
    ParkedOutput **pp, *p;
    int ret = 0;

    ff_mutex_lock(&parked_lock);
    pp = find_parked(key);
    p = *pp;
    if (p && p->live) {
        av_log(ctx, AV_LOG_ERROR, "Another filter of this process writes the same "
               "log_path/stats_file: give each filter its own files.\n");
        ret = AVERROR(EBUSY);
    } else if (p && p->filter == ctx->filter->name && p->state.algos == out->algos &&
               p->state.log_fmt == out->log_fmt) {
        const FSSIMOutput cur = *out;
        *out = p->state;
        out->key_prefix = cur.key_prefix;
        out->stats_algo = cur.stats_algo;
        out->opts       = cur.opts;
        out->resumed    = 1;
        p->live = 1;
        ret = 1;
    } else if (p) {
        p->live = 1;           /* another filter or other algorithms: a new log */
    } else if ((p = av_mallocz(sizeof(*p))) && (p->key = av_strdup(key))) {
        p->live = 1;
        *pp = p;
    } else {
        av_free(p);
        ret = AVERROR(ENOMEM);
    }
    ff_mutex_unlock(&parked_lock);
    return ret;
}

/* At close: park the state (mid-stream) or forget the paths (ended). */
static void release_parked(const AVFilterContext *ctx, const FSSIMOutput *out, int park)
{
    char *key = output_key(out->opts);
    ParkedOutput **pp, *p;

    if (!key)
        return;
    ff_mutex_lock(&parked_lock);
    pp = find_parked(key);
    if ((p = *pp) && park) {
        p->filter = ctx->filter->name;
        p->state = *out;
        p->state.log = p->state.stats_file = NULL;
        p->state.opts = NULL;      /* freed with this instance */
        p->live = 0;
    } else if (p) {
        *pp = p->next;
        av_free(p->key);
        av_free(p);
    }
    ff_mutex_unlock(&parked_lock);
    av_free(key);
}

int ff_fssim_output_open(AVFilterContext *ctx, FSSIMOutput *out, const FSSIMOptions *o,
                         const char *key_prefix, int algos)
{
    char *key = output_key(o);
    int resumed = 0, ret;

    out->key_prefix      = key_prefix;
    out->algos           = algos;
    out->log_fmt         = o->log_fmt;
    out->log_trailer_pos = -1;
    out->stats_algo      = o->stats_algo;
    out->opts            = o;
    if (algos && out->stats_algo < 0)
        for (out->stats_algo = 0; !(algos & FSSIM_FLAG(out->stats_algo)); out->stats_algo++)
            ;
    if (!algos)
        out->stats_algo = 0;

    if (key) {
        resumed = take_parked(ctx, out, key);
        av_free(key);
        if (resumed < 0) {
            out->opts = NULL;    /* the paths are another filter's */
            return resumed;
        }
    }
    if (resumed)
        av_log(ctx, AV_LOG_VERBOSE, "Continuing the logs of the filter graph rebuilt "
               "mid-stream, after %"PRIu64" frames.\n", out->nb_frames);

    if (o->stats_file_str && (ret = open_file(ctx, o->stats_file_str, "stats file",
                                              resumed ? "a" : "w", &out->stats_file)) < 0)
        return ret;
    if (o->log_path && (ret = open_file(ctx, o->log_path, "log file",
                                        resumed ? "r+" : "w", &out->log)) < 0)
        return ret;
    if (resumed && out->log && out->log != stdout &&
        fseek(out->log, out->log_trailer_pos, SEEK_SET) < 0) {
        ret = AVERROR(errno);
        av_log(ctx, AV_LOG_ERROR, "Could not continue the log file %s: %s.\n",
               o->log_path, av_err2str(ret));
        return ret;
    }
    return 0;
}

/* An option's value as a user writes it: named constants by name. */
static char *option_value(void *obj, const AVOption *opt)
{
    const AVOption *c = NULL;
    uint8_t *val = NULL;
    int64_t v;
    AVBPrint bp;

    if (!opt->unit || (opt->type != AV_OPT_TYPE_INT && opt->type != AV_OPT_TYPE_FLAGS) ||
        av_opt_get_int(obj, opt->name, 0, &v) < 0) {
        if (av_opt_get(obj, opt->name, 0, &val) < 0)
            return NULL;
        return (char *)val;
    }
    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_AUTOMATIC);
    while ((c = av_opt_next(obj, c))) {
        if (c->type != AV_OPT_TYPE_CONST || !c->unit || strcmp(c->unit, opt->unit))
            continue;
        if (opt->type == AV_OPT_TYPE_FLAGS ? (c->default_val.i64 & v) == c->default_val.i64 &&
                                             c->default_val.i64 : c->default_val.i64 == v)
            av_bprintf(&bp, "%s%s", bp.len ? "+" : "", c->name);
        if (opt->type != AV_OPT_TYPE_FLAGS && bp.len)
            break;
    }
    if (!bp.len)
        av_bprintf(&bp, "%"PRId64, v);
    av_bprint_finalize(&bp, (char **)&val);
    return (char *)val;
}

/* Calls fn for every option of the filter and of its framesync child. */
static void for_each_option(AVFilterContext *ctx,
                            void (*fn)(void *arg, const char *name, const char *value),
                            void *arg)
{
    void *objs[2] = { ctx->priv, av_opt_child_next(ctx->priv, NULL) };

    for (int i = 0; i < 2 && objs[i]; i++) {
        const AVOption *opt = NULL;
        while ((opt = av_opt_next(objs[i], opt))) {
            char *val;
            /* constants are values, not options; "f" is stats_file */
            if (opt->type == AV_OPT_TYPE_CONST || !strcmp(opt->name, "f"))
                continue;
            if (!(val = option_value(objs[i], opt)))
                continue;
            fn(arg, opt->name, val);
            av_free(val);
        }
    }
}

typedef struct OptWriter {
    FILE *f;
    int n;
} OptWriter;

static void option_json(void *arg, const char *name, const char *value)
{
    OptWriter *w = arg;
    fprintf(w->f, "%s\n    ", w->n++ ? "," : "");
    json_string(w->f, name);
    fputs(": ", w->f);
    json_string(w->f, value);
}

static void option_csv(void *arg, const char *name, const char *value)
{
    OptWriter *w = arg;
    if (*value)
        fprintf(w->f, " %s=%s", name, value);
}

static void write_options_json(AVFilterContext *ctx, FILE *f)
{
    OptWriter w = { f, 0 };

    fputs("  \"options\": {", f);
    for_each_option(ctx, option_json, &w);
    fputs("\n  },\n", f);
}

static void write_options_csv(AVFilterContext *ctx, FILE *f)
{
    OptWriter w = { f, 0 };

    fprintf(f, "# filter=%s", ctx->filter->name);
    for_each_option(ctx, option_csv, &w);
    fputc('\n', f);
}

static void write_json_trailer(FSSIMOutput *out);

/* A resumed log keeps its header and pooled columns: the rebuilt graph's
 * input must have the same components. */
static int check_resumed_format(AVFilterContext *ctx, const FSSIMOutput *out,
                                const FSSIMFormat *f)
{
    int same = out->fmt.nb_comps == f->nb_comps;

    for (int c = 0; same && c < f->nb_comps; c++)
        same = out->fmt.comp[c].name == f->comp[c].name;
    if (!same) {
        av_log(ctx, AV_LOG_ERROR, "The filter graph was rebuilt mid-stream with %s input, "
               "whose components differ from the %s of the frames already logged: give "
               "the new format its own log_path/stats_file.\n",
               av_get_pix_fmt_name(f->pix_fmt), av_get_pix_fmt_name(out->fmt.pix_fmt));
        return AVERROR(EINVAL);
    }
    return 0;
}

int ff_fssim_output_config(AVFilterContext *ctx, FSSIMOutput *out, const FSSIMFormat *f)
{
    FILE *log = out->log;
    int ret;

    if (out->resumed) {
        ret = check_resumed_format(ctx, out, f);
        if (ret < 0)
            return ret;
        /* the sizes may have changed; the weights of All follow the frames */
        out->fmt = *f;
        return 0;
    }
    out->fmt = *f;
    if (!log)
        return 0;

    if (out->log_fmt == FSSIM_LOG_JSON) {
        fputs("{\n", log);
        fprintf(log, "  \"filter\": \"%s\",\n", ctx->filter->name);
        write_options_json(ctx, log);
        fprintf(log, "  \"input\": {\"pix_fmt\": \"%s\", \"width\": %d, \"height\": %d, "
                "\"bit_depth\": %d, \"components\": [", av_get_pix_fmt_name(f->pix_fmt),
                f->width, f->height, f->depth);
        for (int c = 0; c < f->nb_comps; c++)
            fprintf(log, "%s\"%c\"", c ? ", " : "", f->comp[c].name);
        fputs("]},\n  \"frames\": [", log);
        /* a seekable log gets its trailer now and after every frame */
        out->log_trailer_pos = log == stdout ? -1 : ftell(log);
        if (out->log_trailer_pos >= 0)
            write_json_trailer(out);
    } else {
        write_options_csv(ctx, log);
        fprintf(log, "# input pix_fmt=%s width=%d height=%d bit_depth=%d\n",
                av_get_pix_fmt_name(f->pix_fmt), f->width, f->height, f->depth);
        fputs("n,pts,pts_time", log);
        for (int a = 0; a < nb_slots(out); a++) {
            const char *name = out->algos ? algo_names[a] : "fssim3d";
            if (!slot_used(out, a))
                continue;
            for (int c = 0; c < f->nb_comps; c++)
                fprintf(log, ",%s.%c", name, f->comp[c].name);
            fprintf(log, ",%s.All,%s.dB", name, name);
        }
        fputc('\n', log);
    }
    return check_file(ctx, out, log);
}

/* The pooled values and the closing brackets.  Rewritten after every frame
 * when the log is seekable, so the file is valid JSON even if the run is cut
 * short, with every frame scored so far. */
static void write_json_trailer(FSSIMOutput *out)
{
    FILE *log = out->log;
    int64_t start = ftell(log);
    int len;

    fprintf(log, "\n  ],\n  \"frame_count\": %"PRIu64",\n  \"pooled\": {", out->nb_frames);
    for (int a = 0, first = 1; a < nb_slots(out); a++) {
        if (!slot_used(out, a))
            continue;
        fprintf(log, "%s\n    \"%s\": {", first ? "" : ",", out->algos ? algo_names[a] : "fssim3d");
        for (int c = 0; c <= out->fmt.nb_comps; c++) {
            const FSSIMPool *p = &out->pool[a][c];
            const char comp[2] = { c < out->fmt.nb_comps ? out->fmt.comp[c].name : 0, 0 };
            fprintf(log, "%s\n      \"%s\": {\"mean\": ", c ? "," : "",
                    c < out->fmt.nb_comps ? comp : "All");
            json_number(log, pool_mean(p, out->nb_frames));
            fputs(", \"min\": ", log);
            json_number(log, out->nb_frames ? p->min : NAN);
            fputs(", \"max\": ", log);
            json_number(log, out->nb_frames ? p->max : NAN);
            fputs(", \"harmonic_mean\": ", log);
            json_number(log, pool_harmonic(p, out->nb_frames));
            fputc('}', log);
        }
        fputs("\n    }", log);
        first = 0;
    }
    fputs("\n  }\n}", log);
    /* a shorter trailer than the last one must not leave its tail behind */
    len = (int)(ftell(log) - start);
    for (int i = len; i < out->log_trailer_len; i++)
        fputc(' ', log);
    fputc('\n', log);
    out->log_trailer_len = FFMAX(len, out->log_trailer_len);
}

static void log_frame_json(FSSIMOutput *out, const AVFrame *frame, const FSSIMScores *s)
{
    FILE *log = out->log;

    fprintf(log, "%s\n    {\"n\": %"PRIu64", \"pts\": ", out->nb_frames ? "," : "",
            out->first_n + out->nb_frames);
    if (frame->pts != AV_NOPTS_VALUE) {
        fprintf(log, "%"PRId64", \"pts_time\": ", frame->pts);
        json_number(log, frame->pts * av_q2d(out->time_base));
    } else {
        fputs("null, \"pts_time\": null", log);
    }
    for (int a = 0; a < nb_slots(out); a++) {
        const double all = frame_all(out, s->score[a]);
        if (!slot_used(out, a))
            continue;
        fprintf(log, ", \"%s\": {", out->algos ? algo_names[a] : "fssim3d");
        for (int c = 0; c < out->fmt.nb_comps; c++) {
            fprintf(log, "\"%c\": ", out->fmt.comp[c].name);
            json_number(log, s->score[a][c]);
            fputs(", ", log);
        }
        fputs("\"All\": ", log);
        json_number(log, all);
        fputs(", \"dB\": ", log);
        json_number(log, ff_fssim_db(all));
        fputc('}', log);
    }
    fputc('}', log);
}

static void log_frame_csv(FSSIMOutput *out, const AVFrame *frame, const FSSIMScores *s)
{
    FILE *log = out->log;

    fprintf(log, "%"PRIu64",", out->first_n + out->nb_frames);
    if (frame->pts != AV_NOPTS_VALUE)
        fprintf(log, "%"PRId64",%.17g", frame->pts, frame->pts * av_q2d(out->time_base));
    else
        fputs(",", log);
    for (int a = 0; a < nb_slots(out); a++) {
        const double all = frame_all(out, s->score[a]);
        if (!slot_used(out, a))
            continue;
        for (int c = 0; c < out->fmt.nb_comps; c++)
            fprintf(log, ",%.17g", s->score[a][c]);
        fprintf(log, ",%.17g,%.17g", all, ff_fssim_db(all));
    }
    fputc('\n', log);
}

static void set_meta(AVDictionary **metadata, const char *prefix, const char *algo,
                     const char *comp, double v)
{
    char key[128], value[64];

    snprintf(key, sizeof(key), "%s%s%s%s", prefix, algo ? algo : "", algo ? "." : "", comp);
    snprintf(value, sizeof(value), "%.17g", v);
    av_dict_set(metadata, key, value, 0);
}

int ff_fssim_output_frame(AVFilterContext *ctx, FSSIMOutput *out, AVFrame *frame,
                          const FSSIMScores *s)
{
    const FSSIMFormat *f = &out->fmt;
    int ret;

    if (out->write_error)
        return out->write_error;

    if (out->stats_file) {
        const double *sc = s->score[out->stats_algo];
        const double all = frame_all(out, sc);
        /* the ssim filter's line format, so existing parsers keep working */
        fprintf(out->stats_file, "n:%"PRIu64" ", out->first_n + out->nb_frames + 1);
        for (int c = 0; c < f->nb_comps; c++)
            fprintf(out->stats_file, "%c:%f ", f->comp[c].name, sc[c]);
        fprintf(out->stats_file, "All:%f (%f)\n", all, ff_fssim_db(all));
        if ((ret = check_file(ctx, out, out->stats_file)) < 0)
            return ret;
    }

    if (out->log && out->log_fmt == FSSIM_LOG_JSON) {
        if (out->log_trailer_pos >= 0)
            fseek(out->log, out->log_trailer_pos, SEEK_SET);
        log_frame_json(out, frame, s);
    } else if (out->log) {
        log_frame_csv(out, frame, s);
    }

    /* pooled and published once written: the logs never lack a frame
     * that was sent on with scores */
    for (int a = 0; a < nb_slots(out); a++) {
        const char *name = out->algos ? algo_names[a] : NULL;
        const double all = frame_all(out, s->score[a]);
        if (!slot_used(out, a))
            continue;
        for (int c = 0; c < f->nb_comps; c++) {
            const char comp[2] = { f->comp[c].name, 0 };
            set_meta(&frame->metadata, out->key_prefix, name, comp, s->score[a][c]);
            pool_add(&out->pool[a][c], out->nb_frames, s->score[a][c]);
        }
        set_meta(&frame->metadata, out->key_prefix, name, "All", all);
        set_meta(&frame->metadata, out->key_prefix, name, "dB", ff_fssim_db(all));
        pool_add(&out->pool[a][f->nb_comps], out->nb_frames, all);
    }
    out->nb_frames++;

    if (out->log && out->log_fmt == FSSIM_LOG_JSON && out->log_trailer_pos >= 0) {
        out->log_trailer_pos = ftell(out->log);
        write_json_trailer(out);
    }
    return check_file(ctx, out, out->log);
}

static void log_summary(AVFilterContext *ctx, FSSIMOutput *out)
{
    const FSSIMFormat *f = &out->fmt;

    for (int a = 0; a < nb_slots(out); a++) {
        const FSSIMPool *all = &out->pool[a][f->nb_comps];
        AVBPrint bp;
        if (!slot_used(out, a))
            continue;
        av_bprint_init(&bp, 0, AV_BPRINT_SIZE_AUTOMATIC);
        for (int c = 0; c < f->nb_comps; c++) {
            const double m = pool_mean(&out->pool[a][c], out->nb_frames);
            av_bprintf(&bp, " %c:%f (%f)", f->comp[c].name, m, ff_fssim_db(m));
        }
        av_log(ctx, AV_LOG_INFO, "SSIM%s%s%s All:%f (%f) min:%f frames:%"PRIu64"\n",
               out->algos ? " " : "", out->algos ? algo_names[a] : "", bp.str,
               pool_mean(all, out->nb_frames), ff_fssim_db(pool_mean(all, out->nb_frames)),
               all->min, out->nb_frames);
        av_bprint_finalize(&bp, NULL);
    }
}

static void write_csv_pooled(FSSIMOutput *out)
{
    static const char *const rows[] = { "mean", "min", "max", "harmonic_mean" };
    FILE *log = out->log;

    for (int r = 0; r < 4; r++) {
        fprintf(log, "%s,,", rows[r]);
        for (int a = 0; a < nb_slots(out); a++) {
            double v = 0.0;
            if (!slot_used(out, a))
                continue;
            for (int c = 0; c <= out->fmt.nb_comps; c++) {
                const FSSIMPool *p = &out->pool[a][c];
                v = r == 0 ? pool_mean(p, out->nb_frames) :
                    r == 1 ? p->min : r == 2 ? p->max :
                    pool_harmonic(p, out->nb_frames);
                fprintf(log, ",%.17g", v);
            }
            /* dB of this row's All */
            fprintf(log, ",%.17g", ff_fssim_db(v));
        }
        fputc('\n', log);
    }
    fprintf(log, "# frames=%"PRIu64"\n", out->nb_frames);
}

/* Cut the file at the current position (a resumed CSV log whose old
 * pooled rows were longer than the new ones). */
static void truncate_here(FILE *f)
{
#if HAVE_UNISTD_H
    if (ftruncate(fileno(f), ftell(f)) < 0)
        return;   /* the rows before stay valid; a stale tail is cosmetic */
#endif
}

static int check_file_closed(AVFilterContext *ctx, FSSIMOutput *out, const char *path)
{
    const int err = AVERROR(errno ? errno : EIO);

    av_log(ctx, AV_LOG_ERROR, "Could not write %s: %s.\n", path, av_err2str(err));
    out->write_error = err;
    return err;
}

int ff_fssim_output_close(AVFilterContext *ctx, FSSIMOutput *out, int ended)
{
    int park, ret;

    if (!out->opts)
        return 0;    /* never opened, or its paths are another filter's */
    if (out->nb_frames > 0)
        log_summary(ctx, out);

    if (out->log && !out->write_error) {
        if (!out->fmt.nb_comps && out->log_fmt == FSSIM_LOG_JSON) {
            /* configuration failed: still leave valid JSON behind in a
             * file.  Not on stdout: FFmpeg also frees unconfigured copies
             * of a graph (to learn its pads), whose JSON would come first. */
            if (out->log != stdout)
                fprintf(out->log, "{\n  \"filter\": \"%s\",\n  \"frames\": [],\n"
                        "  \"frame_count\": 0,\n  \"error\": \"the filter was not "
                        "configured\"\n}\n", ctx->filter->name);
        } else if (out->log_fmt == FSSIM_LOG_JSON) {
            if (out->log_trailer_pos >= 0)
                fseek(out->log, out->log_trailer_pos, SEEK_SET);
            write_json_trailer(out);
        } else if (out->nb_frames) {
            out->log_trailer_pos = out->log == stdout ? -1 : ftell(out->log);
            write_csv_pooled(out);
            /* a resumed log may have held longer pooled rows */
            if (out->log_trailer_pos >= 0 && !fflush(out->log))
                truncate_here(out->log);
        }
    }
    /* only a configured output with a log that can be taken up again is
     * parked: a new instance then appends to it */
    park = !ended && out->fmt.nb_comps && (!out->log || out->log_trailer_pos >= 0);
    ret = check_file(ctx, out, out->log);
    if (!ret)
        ret = check_file(ctx, out, out->stats_file);
    if (out->log && out->log != stdout && fclose(out->log) && !ret)
        ret = check_file_closed(ctx, out, out->opts->log_path);
    if (out->stats_file && out->stats_file != stdout && fclose(out->stats_file) && !ret)
        ret = check_file_closed(ctx, out, out->opts->stats_file_str);
    out->log = out->stats_file = NULL;
    release_parked(ctx, out, park && !ret);
    out->opts = NULL;
    return ret;
}
