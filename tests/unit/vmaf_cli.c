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
 * vmaf_cli: the CPU reference's vmaf_ssim and vmaf_msssim (libvmaf's
 * float_ssim and float_ms_ssim) of two raw planes, for the peer tests
 * (tests/peers/test_vmaf.py, tests/e2e/test_vmaf.py).
 *
 *   vmaf_cli W H DEPTH a.raw b.raw
 *
 * a.raw (main) and b.raw (reference): W x H samples, 16-bit little-endian,
 * no padding.  Prints one JSON object, every number with %.17g:
 *   {"scale": f, "ssim": x, "l": [5], "c": [5], "s": [5], "msssim": x}
 * ssim is null where the decimated plane is smaller than the window; l, c,
 * s and msssim are null where the plane is too small for five scales.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fssim_ref.h"
#include "raw_plane.h"

static void print_number(double v)
{
    if (isnan(v))
        printf("null");
    else
        printf("%.17g", v);
}

static void print_floats(const char *key, const float *v)
{
    printf(", \"%s\": [", key);
    for (int i = 0; i < FSSIM_VMAF_SCALES; i++) {
        printf(i ? ", " : "");
        print_number(v[i]);
    }
    printf("]");
}

int main(int argc, char **argv)
{
    float l[FSSIM_VMAF_SCALES], c[FSSIM_VMAF_SCALES], s[FSSIM_VMAF_SCALES];
    int w, h, depth;

    if (argc != 6) {
        fprintf(stderr, "usage: vmaf_cli W H DEPTH a.raw b.raw\n");
        return 2;
    }
    w     = atoi(argv[1]);
    h     = atoi(argv[2]);
    depth = atoi(argv[3]);
    if (w <= 0 || h <= 0 || depth < 8 || depth > 16) {
        fprintf(stderr, "vmaf_cli: bad size or depth\n");
        return 2;
    }

    uint16_t *va = read_plane("vmaf_cli", argv[4], (size_t)w * h);
    uint16_t *vb = read_plane("vmaf_cli", argv[5], (size_t)w * h);
    const FSSIMRefPlane a = { (const uint8_t *)va, 2 * (ptrdiff_t)w, w, h, 2, 1, 0 };
    const FSSIMRefPlane b = { (const uint8_t *)vb, 2 * (ptrdiff_t)w, w, h, 2, 1, 0 };

    printf("{\"scale\": %d, \"ssim\": ", ff_fssim_ref_vmaf_scale(w, h));
    print_number(ff_fssim_ref_vmaf_ssim(&a, &b, depth));
    if (ff_fssim_ref_vmaf_msssim_scales(&a, &b, depth, l, c, s) < 0) {
        printf(", \"l\": null, \"c\": null, \"s\": null, \"msssim\": null}\n");
    } else {
        print_floats("l", l);
        print_floats("c", c);
        print_floats("s", s);
        printf(", \"msssim\": ");
        print_number(ff_fssim_ref_vmaf_msssim_combine(l, c, s));
        printf("}\n");
    }
    free(va);
    free(vb);
    return 0;
}
