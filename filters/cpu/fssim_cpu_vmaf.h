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
 * fssim: algo=vmaf_ssim and vmaf_msssim on software frames
 * (fssim_cpu_vmaf.c), which the CPU backend runs after its other
 * algorithms, into the same sums.
 */
#ifndef AVFILTER_FSSIM_CPU_VMAF_H
#define AVFILTER_FSSIM_CPU_VMAF_H

#include "../engine/fssim_backend.h"

typedef struct FSSIMCpuVmaf FSSIMCpuVmaf;

/** Whether the engine asks for vmaf_ssim or vmaf_msssim. */
int  ff_fssim_cpu_vmaf_wanted(const FSSIMEngine *e);

/** The float planes of every image and the units that fill and score
 *  them, for nb_threads threads.  *vm is freed by ff_fssim_cpu_vmaf_uninit()
 *  whatever this returns. */
int  ff_fssim_cpu_vmaf_init(FSSIMEngine *e, int nb_threads, FSSIMCpuVmaf **vm);

/**
 * Add the vmaf parts of every rendition in present (bit k) to sums.
 * planes[k][c]: rendition k's component c at the reference's size and
 * depth (a resampled rendition's resampled plane), planes[nb_dist][c]: the
 * reference's.
 */
void ff_fssim_cpu_vmaf_score(FSSIMEngine *e, FSSIMCpuVmaf *vm,
                             const FSSIMRefPlane (*planes)[4], unsigned present,
                             FSSIMSums *sums);

void ff_fssim_cpu_vmaf_uninit(FSSIMCpuVmaf **vm);

#endif /* AVFILTER_FSSIM_CPU_VMAF_H */
