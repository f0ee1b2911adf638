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
 * Command-line front end of the ladder resampler (filters/core/ref_resample.c), so
 * that tests/peers/test_resample.py can compare it with independent
 * implementations and with FFmpeg's scale filter:
 *
 *   resample_cli SCALER DEPTH IN_W IN_H OUT_W OUT_H in.raw out.raw
 *
 * SCALER is bicubic, bilinear or lanczos; DEPTH is the bit depth of both
 * planes, or IN_DEPTH:OUT_DEPTH to bring the input's depth to another one;
 * the planes are raw 16-bit little-endian samples, row after row, no
 * padding.  Input samples are read as stored, whatever their depth.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fssim_ref.h"

static int parse_scaler(const char *s)
{
    if (!strcmp(s, "bicubic"))
        return FSSIM_REF_SCALER_BICUBIC;
    if (!strcmp(s, "bilinear"))
        return FSSIM_REF_SCALER_BILINEAR;
    if (!strcmp(s, "lanczos"))
        return FSSIM_REF_SCALER_LANCZOS;
    return -1;
}

static int parse_int(const char *s, int lo, int hi, int *v)
{
    char *end;
    long n = strtol(s, &end, 10);
    if (!*s || *end || n < lo || n > hi)
        return -1;
    *v = (int)n;
    return 0;
}

/* Whole file of 16-bit LE samples into native uint16, exactly n of them. */
static int read_plane(const char *path, uint16_t *v, size_t n)
{
    FILE *f = fopen(path, "rb");
    uint8_t b[2];
    size_t i = 0;
    int extra;
    if (!f)
        return -1;
    for (; i < n && fread(b, 1, 2, f) == 2; i++)
        v[i] = (uint16_t)(b[0] | b[1] << 8);
    extra = fgetc(f) != EOF;
    fclose(f);
    return i == n && !extra ? 0 : -1;
}

static int write_plane(const char *path, const uint16_t *v, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok;
    if (!f)
        return -1;
    ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        const uint8_t b[2] = { v[i] & 0xff, v[i] >> 8 };
        ok = fwrite(b, 1, 2, f) == 2;
    }
    return fclose(f) == 0 && ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    FSSIMRefResampleAxis ax = { 0 }, ay = { 0 };
    FSSIMRefPlane src = { 0 };
    int scaler, in_depth, depth, iw, ih, ow, oh, ret = 1;
    char *colon;
    size_t nin, nout;
    uint16_t *in = NULL, *out = NULL;
    int64_t *tmp = NULL;

    colon = argc == 9 ? strchr(argv[2], ':') : NULL;
    if (colon)
        *colon = 0;
    if (argc != 9 || (scaler = parse_scaler(argv[1])) < 0 ||
        parse_int(argv[2], 1, 16, &in_depth) ||
        parse_int(colon ? colon + 1 : argv[2], 1, 16, &depth) ||
        parse_int(argv[3], 1, 1 << 16, &iw) || parse_int(argv[4], 1, 1 << 16, &ih) ||
        parse_int(argv[5], 1, 1 << 16, &ow) || parse_int(argv[6], 1, 1 << 16, &oh)) {
        fprintf(stderr, "usage: resample_cli bicubic|bilinear|lanczos DEPTH[:OUT_DEPTH] "
                        "IN_W IN_H OUT_W OUT_H in.raw out.raw\n");
        return 2;
    }
    if (ff_fssim_ref_resample_axis_init(&ax, iw, ow, scaler) < 0 ||
           ff_fssim_ref_resample_axis_init(&ay, ih, oh, scaler) < 0) {
           fprintf(stderr, "resample_cli: cannot build the coefficient tables\n");
           goto end;
    }
    nin  = (size_t)iw * ih;
    nout = (size_t)ow * oh;
    in   = malloc(sizeof(*in) * nin);
    out  = malloc(sizeof(*out) * nout);
    tmp = malloc(sizeof(*tmp) * ff_fssim_ref_resample_tmp_size(&ax, &ay));
    if (!in || !out || !tmp) {
        fprintf(stderr, "resample_cli: out of memory\n");
        goto end;
    }
    if (read_plane(argv[7], in, nin)) {
        fprintf(stderr, "resample_cli: %s is not %dx%d 16-bit samples\n", argv[7], iw, ih);
        goto end;
    }

    src.data     = (const uint8_t *)in;
    src.linesize = (ptrdiff_t)iw * 2;
    src.width    = iw;
    src.height   = ih;
    src.bytes    = 2;
    src.step     = 1;
    ff_fssim_ref_resample_rows(&src, &ax, &ay, in_depth, depth, 0, oh, out, (ptrdiff_t)ow * 2,
                               tmp);
    if (write_plane(argv[8], out, nout)) {
        fprintf(stderr, "resample_cli: cannot write %s\n", argv[8]);
        goto end;
    }
    ret = 0;
end:
    free(in);
    free(out);
    free(tmp);
    ff_fssim_ref_resample_axis_free(&ax);
    ff_fssim_ref_resample_axis_free(&ay);
    return ret;
}
