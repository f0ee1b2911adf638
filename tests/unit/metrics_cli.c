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
 * metrics_cli: the CPU reference's PSNR and MS-SSIM of two raw planes, for
 * the peer tests (tests/peers/test_psnr.py, test_msssim.py).
 *
 *   metrics_cli W H DEPTH WINDOW SIGMA a.raw b.raw
 *
 * a.raw (main) and b.raw (reference): W x H samples, 16-bit little-endian,
 * no padding.  Prints one JSON object, every double with %.17g:
 *   {"sse": N, "mse": x, "psnr": x, "s": [5], "cs": [5], "msssim": x}
 * psnr is Infinity for identical planes (Python's json reads it); s, cs and
 * msssim are null where ff_fssim_ref_msssim_scales refuses the pair (plane too
 * small, or a WINDOW outside odd 3..15: WINDOW 0 asks for PSNR alone).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fssim_ref.h"
#include "raw_plane.h"

static void print_double(double v)
{
    if (isinf(v))
        printf(v > 0 ? "Infinity" : "-Infinity");
    else if (isnan(v))
        printf("NaN");
    else
        printf("%.17g", v);
}

static void print_array(const char *key, const double *v, int n)
{
    printf(", \"%s\": [", key);
    for (int i = 0; i < n; i++) {
        if (i)
            printf(", ");
        print_double(v[i]);
    }
    printf("]");
}

int main(int argc, char **argv)
{
    double s[FSSIM_REF_MSSSIM_SCALES], cs[FSSIM_REF_MSSSIM_SCALES];
    uint64_t sse = 0;
    double *work;
    int w, h, depth, window, ret;
    double sigma;

    if (argc != 8) {
        fprintf(stderr, "usage: metrics_cli W H DEPTH WINDOW SIGMA a.raw b.raw\n");
        return 2;
    }
    w      = atoi(argv[1]);
    h      = atoi(argv[2]);
    depth  = atoi(argv[3]);
    window = atoi(argv[4]);
    sigma  = atof(argv[5]);
    if (w <= 0 || h <= 0 || depth < 1 || depth > 16) {
        fprintf(stderr, "metrics_cli: bad size or depth\n");
        return 2;
    }

    uint16_t *va = read_plane("metrics_cli", argv[6], (size_t)w * h);
    uint16_t *vb = read_plane("metrics_cli", argv[7], (size_t)w * h);
    const FSSIMRefPlane a = { (const uint8_t *)va, 2 * (ptrdiff_t)w, w, h, 2, 1, 0 };
    const FSSIMRefPlane b = { (const uint8_t *)vb, 2 * (ptrdiff_t)w, w, h, 2, 1, 0 };

    ff_fssim_ref_sse_rows(&a, &b, 0, h, &sse);
    const double mse = ff_fssim_ref_mse(sse, w, h);
    printf("{\"sse\": %llu, \"mse\": ", (unsigned long long)sse);
    print_double(mse);
    printf(", \"psnr\": ");
    print_double(ff_fssim_ref_psnr_from_mse(mse, depth));

    work = malloc(sizeof(*work) * ff_fssim_ref_msssim_work_size(w, h));
    if (!work) {
        fprintf(stderr, "metrics_cli: out of memory\n");
        return 2;
    }
    ret = ff_fssim_ref_msssim_scales(&a, &b, depth, window, sigma, work, s, cs);
    if (ret < 0) {
        printf(", \"s\": null, \"cs\": null, \"msssim\": null}\n");
    } else {
        print_array("s", s, FSSIM_REF_MSSSIM_SCALES);
        print_array("cs", cs, FSSIM_REF_MSSSIM_SCALES);
        printf(", \"msssim\": ");
        print_double(ff_fssim_ref_msssim_combine(s, cs));
        printf("}\n");
    }
    free(work);
    free(va);
    free(vb);
    return 0;
}
