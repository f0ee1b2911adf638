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
 * fssim CPU reference: integer SSIM (doc/algorithms.md#int), the Daala / libvmaf
 * integer_ssim algorithm.  Taps outside the plane are skipped, so every
 * pixel is scored and border pixels simply carry less weight.
 */
#include <stdlib.h>

#include "fssim_ref.h"

#define R FSSIM_INT_RADIUS

/* The six running sums of one filter pass. */
typedef struct IntSums {
    int64_t mux, muy, x2, xy, y2, w;
} IntSums;

double ff_fssim_ref_int_term(int64_t mux, int64_t muy, int64_t x2, int64_t xy,
                             int64_t y2, int64_t w, double c1base, double c2base)
{
    /* doc/algorithms.md#int prescribes this exact association; the file is built with
     * -ffp-contract=off so that no multiply-add is fused. */
    const double W   = (double)w;
    const double c1  = c1base * W * W;
    const double c2  = c2base * W * W;
    const double mx2 = (double)mux * (double)mux;
    const double mxy = (double)mux * (double)muy;
    const double my2 = (double)muy * (double)muy;

    return W * (2 * mxy + c1) * (c2 + 2 * ((double)xy * W - mxy)) /
           ((mx2 + my2 + c1) * ((double)x2 * W - mx2 + (double)y2 * W - my2 + c2));
}

/* Horizontal pass of one plane row: hs[x] for every x of the row. */
static void int_row(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int y, IntSums *hs)
{
    for (int x = 0; x < a->width; x++) {
        IntSums s = { 0 };
        for (int j = -R; j <= R; j++) {
            const int xx = x + j;
            if (xx < 0 || xx >= a->width)
                continue;
            const int64_t k = ff_fssim_ref_int_taps[j + R];
            const int64_t p = fssim_ref_sample(a, xx, y);
            const int64_t q = fssim_ref_sample(b, xx, y);
            s.mux += k * p;
            s.muy += k * q;
            s.x2  += k * p * p;
            s.xy  += k * p * q;
            s.y2  += k * q * q;
            s.w   += k;
        }
        hs[x] = s;
    }
}

size_t ff_fssim_ref_int_scratch_size(int width, int rows)
{
    /* the horizontal sums of every input row a band's windows touch */
    return sizeof(IntSums) * (size_t)width * (rows + 2 * R);
}

void ff_fssim_ref_int_rows(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth,
                           int y0, int y1, void *scratch, FSSIMRefIntSums *sums)
{
    const int w = a->width, h = a->height;
    const double L = (double)((1 << depth) - 1);
    const double c1base = FSSIM_INT_C1BASE(L);
    const double c2base = FSSIM_INT_C2BASE(L);
    const int hy0 = y0 - R < 0 ? 0 : y0 - R;
    const int hy1 = y1 + R > h ? h : y1 + R;
    IntSums *hs = scratch;

    if (y0 >= y1)
        return;
    for (int y = hy0; y < hy1; y++)
        int_row(a, b, y, hs + (size_t)(y - hy0) * w);

    for (int y = y0; y < y1; y++) {
        for (int x = 0; x < w; x++) {
            IntSums s = { 0 };
            for (int j = -R; j <= R; j++) {
                const int yy = y + j;
                if (yy < 0 || yy >= h)
                    continue;
                const int64_t k = ff_fssim_ref_int_taps[j + R];
                const IntSums *p = &hs[(size_t)(yy - hy0) * w + x];
                s.mux += k * p->mux;
                s.muy += k * p->muy;
                s.x2  += k * p->x2;
                s.xy  += k * p->xy;
                s.y2  += k * p->y2;
                s.w   += k * p->w;
            }
            sums->t += ff_fssim_ref_int_term(s.mux, s.muy, s.x2, s.xy, s.y2, s.w,
                                             c1base, c2base);
            sums->w += (uint64_t)s.w;
        }
    }
}

double ff_fssim_ref_int(const FSSIMRefPlane *a, const FSSIMRefPlane *b, int depth)
{
    FSSIMRefIntSums s = { 0 };
    void *scratch = malloc(ff_fssim_ref_int_scratch_size(a->width, a->height));

    if (!scratch)
        return -1.0;
    ff_fssim_ref_int_rows(a, b, depth, 0, a->height, scratch, &s);
    free(scratch);
    return s.t / (double)s.w;
}
