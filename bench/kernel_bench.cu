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
 * Kernel-only benchmark of fssim_cuda's kernels, run exactly as the filter
 * runs them: the PTX modules that FFmpeg's build embeds (clang or nvcc),
 * loaded through the driver API (so the driver compiles them, and the time
 * it takes is measured), launched per plane of a 4:2:0 frame pair of
 * natural-looking content, timed with CUDA events over many iterations
 * (median) and checked against the CPU reference.
 *
 * Build on any machine with the CUDA toolkit (it links only libcuda):
 *   make -C bench -f kernel_bench.mk
 * usage: kernel_bench ITERATIONS PTX8 PTX12 PTX16 [--check]
 *   e.g. the fssim_8.ptx, fssim_12.ptx, fssim_16.ptx of an FFmpeg build tree
 * KB_ALGOS=3,8: only these sets of algorithm bits (FSSIM_BIT()s), in order;
 * KB_PROFILE=1: only the 8-bit 2160p run (for Nsight Compute's -c 1);
 * KB_TAIL=1: also copy the sums to the host after the reduction, as the
 * filter does, and time the two apart.
 */
#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

extern "C" {
#include "fssim_cuda_params.h"
#include "fssim_ref.h"
}

#define CK(x) do { CUresult e_ = (x); if (e_ != CUDA_SUCCESS) { const char *s_; \
    cuGetErrorString(e_, &s_); fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_); \
    exit(1); } } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static std::string slurp(const char *path)
{
    std::string s;
    FILE *f = fopen(path, "rb");
    char buf[65536];
    size_t n;
    if (!f) {
        perror(path);
        exit(1);
    }
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        s.append(buf, n);
    fclose(f);
    return s;
}

struct Module {
    CUmodule mod;
    CUfunction plane, reduce;
    double load_s;
};

static Module load(const char *path)
{
    Module m;
    std::string ptx = slurp(path);
    double t = now();
    CK(cuModuleLoadData(&m.mod, ptx.c_str()));
    m.load_s = now() - t;
    CK(cuModuleGetFunction(&m.plane, m.mod, "fssim_plane"));
    CK(cuModuleGetFunction(&m.reduce, m.mod, "fssim_reduce"));
    return m;
}

struct Plane {
    int w, h, bytes;
    std::vector<uint8_t> host[2];
    CUdeviceptr dev[2];
    size_t pitch;
};

/* Smooth structure plus noise, and a blurred, noisier copy. */
static void fill(Plane &p, int depth, unsigned seed)
{
    const int max = (1 << depth) - 1;
    unsigned r = seed;
    for (int k = 0; k < 2; k++) {
        p.host[k].resize((size_t)p.w * p.h * p.bytes);
        for (int y = 0; y < p.h; y++)
            for (int x = 0; x < p.w; x++) {
                r = r * 1664525u + 1013904223u;
                double v = 0.5 + 0.25 * sin(x * 0.013 + y * 0.007) * cos(y * 0.021) +
                           0.15 * sin((x + y) * 0.11 + k * 0.2);
                v = v * max + ((int)(r >> 24) - 128) * max / 2048.0 * (k + 1);
                const int q = (int)fmin(max, fmax(0, v));
                if (p.bytes == 1)
                    p.host[k][(size_t)y * p.w + x] = (uint8_t)q;
                else
                    ((uint16_t *)p.host[k].data())[(size_t)y * p.w + x] = (uint16_t)q;
            }
        CK(cuMemAllocPitch(&p.dev[k], &p.pitch, (size_t)p.w * p.bytes, p.h, 16));
        CUDA_MEMCPY2D c = {};
        c.srcMemoryType = CU_MEMORYTYPE_HOST;
        c.srcHost = p.host[k].data();
        c.srcPitch = (size_t)p.w * p.bytes;
        c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        c.dstDevice = p.dev[k];
        c.dstPitch = p.pitch;
        c.WidthInBytes = (size_t)p.w * p.bytes;
        c.Height = p.h;
        CK(cuMemcpy2D(&c));
    }
}

static const char *algo_name(int a)
{
    static char buf[32];
    buf[0] = 0;
    if (a & FSSIM_BIT(FSSIM_ALGO_FLOAT)) strcat(buf, "float+");
    if (a & FSSIM_BIT(FSSIM_ALGO_INT))   strcat(buf, "int+");
    if (a & FSSIM_BIT(FSSIM_ALGO_BLOCK)) strcat(buf, "block+");
    if (a & FSSIM_BIT(FSSIM_ALGO_PSNR))  strcat(buf, "psnr+");
    buf[strlen(buf) - 1] = 0;
    return buf;
}

static void run(const Module &m, int w, int h, int depth, int iters, bool check)
{
    const int bytes = depth > 8 ? 2 : 1;
    Plane pl[3] = { { w, h, bytes }, { (w + 1) / 2, (h + 1) / 2, bytes },
                    { (w + 1) / 2, (h + 1) / 2, bytes } };
    std::vector<int> combos = { FSSIM_BIT(FSSIM_ALGO_FLOAT) | FSSIM_BIT(FSSIM_ALGO_INT), FSSIM_BIT(FSSIM_ALGO_INT),
                                FSSIM_BIT(FSSIM_ALGO_FLOAT), FSSIM_BIT(FSSIM_ALGO_BLOCK),
                                FSSIM_BIT(FSSIM_ALGO_PSNR),
                                FSSIM_BIT(FSSIM_ALGO_FLOAT) | FSSIM_BIT(FSSIM_ALGO_INT) | FSSIM_BIT(FSSIM_ALGO_BLOCK) };
    CUdeviceptr partials, out;
    /* KB_TAIL=1: the reduction and a copy of the sums to pinned host memory,
     * as the filter's frame ends, timed apart too */
    const bool tail = getenv("KB_TAIL") != NULL;
    void *pinned = NULL;
    /* KB_ALGOS="3,8": these sets of algorithm bits instead (one, for ncu) */
    if (const char *env = getenv("KB_ALGOS")) {
        combos.clear();
        for (const char *c = env; *c; c += strcspn(c, ","), c += *c == ',')
            combos.push_back(atoi(c));
    }
    FSSIMCudaReduceParams lay = {};
    int total = 0, grid[3][2], count[3];

    for (int i = 0; i < 3; i++) {
        fill(pl[i], depth, 17 + i);
        count[i] = fssim_cuda_nb_blocks(pl[i].w, pl[i].h, &grid[i][0], &grid[i][1]);
        total += count[i];
    }
    /* fssim_reduce's chunks, as the filter lays them out */
    const int chunks = fssim_cuda_reduce_layout(&lay, count, 3);
    std::vector<double> host_out((size_t)chunks * FSSIM_NB_FUSED_PARTS);
    const size_t out_bytes = host_out.size() * sizeof(double);
    CK(cuMemAlloc(&partials, (size_t)total * FSSIM_NB_FUSED_PARTS * sizeof(double)));
    CK(cuMemAlloc(&out, out_bytes));
    CK(cuMemAllocHost(&pinned, out_bytes));

    for (int algos : combos) {
        FSSIMCudaParams kp[3];
        FSSIMCudaReduceParams rp = lay;
        const FSSIMSmemLayout l = fssim_smem_layout(5, algos, fssim_cuda_kind(depth), 0);
        int per_sm = 0;
        CK(cuFuncSetAttribute(m.plane, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, l.total));
        CK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, m.plane, FSSIM_THREADS, l.total));
        for (int i = 0; i < 3; i++) {
            ff_fssim_cuda_fill_params(&kp[i], depth, pl[i].w, pl[i].h, bytes, 1, 0, algos, 11, 1.5, 0);
            kp[i].main_ptr[0] = pl[i].dev[0];
            kp[i].ref_ptr     = pl[i].dev[1];
            kp[i].main_pitch[0] = kp[i].ref_pitch = (int)pl[i].pitch;
            kp[i].nb_main     = 1;
            kp[i].partials = partials;
            kp[i].part_offset = lay.offset[i];
            kp[i].part_stride = total;
        }
        rp.partials = partials;
        rp.out = out;

        CUevent e0, e1, em;
        CK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
        CK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
        CK(cuEventCreate(&em, CU_EVENT_DEFAULT));
        std::vector<float> ms, ms_tail;
        for (int it = 0; it < iters + 5; it++) {
            CK(cuEventRecord(e0, 0));
            for (int i = 0; i < 3; i++) {
                void *args[] = { &kp[i] };
                CK(cuLaunchKernel(m.plane, grid[i][0], grid[i][1], 1, FSSIM_TILE,
                                  FSSIM_THREADS / FSSIM_TILE, 1, l.total, 0, args, NULL));
            }
            if (tail)
                CK(cuEventRecord(em, 0));
            void *args[] = { &rp };
            CK(cuLaunchKernel(m.reduce, chunks, 1, 1, FSSIM_TILE, FSSIM_THREADS / FSSIM_TILE, 1,
                              0, 0, args, NULL));
            if (tail)
                CK(cuMemcpyDtoHAsync(pinned, out, out_bytes, 0));
            CK(cuEventRecord(e1, 0));
            CK(cuEventSynchronize(e1));
            float t;
            CK(cuEventElapsedTime(&t, e0, e1));
            if (it >= 5)
                ms.push_back(t);
            if (tail && it >= 5) {
                CK(cuEventElapsedTime(&t, em, e1));
                ms_tail.push_back(t);
            }
        }
        std::sort(ms.begin(), ms.end());
        std::sort(ms_tail.begin(), ms_tail.end());
        if (tail)
            printf("  tail (fssim_reduce and the copy of the sums to the host): median %.1f us\n",
                   1000.0 * ms_tail[ms_tail.size() / 2]);
        CK(cuMemcpyDtoH(host_out.data(), out, out_bytes));
        printf("%dx%d %2d-bit %-17s smem %6d B  %d blocks/SM  median %8.1f us  min %8.1f us\n",
               w, h, depth, algo_name(algos), l.total, per_sm, 1000.0 * ms[ms.size() / 2],
               1000.0 * ms[0]);

        if (check && algos == (FSSIM_BIT(FSSIM_ALGO_FLOAT) | FSSIM_BIT(FSSIM_ALGO_INT) | FSSIM_BIT(FSSIM_ALGO_BLOCK))) {
            for (int i = 0; i < 3; i++) {
                FSSIMRefPlane a = { pl[i].host[0].data(), (ptrdiff_t)pl[i].w * bytes, pl[i].w, pl[i].h, bytes, 1, 0 };
                FSSIMRefPlane b = { pl[i].host[1].data(), (ptrdiff_t)pl[i].w * bytes, pl[i].w, pl[i].h, bytes, 1, 0 };
                const FSSIMRefFloatParams fp = { 11, 1.5, 0 };
                int ow, oh, nx, ny;
                ff_fssim_ref_float_out_size(pl[i].w, pl[i].h, &fp, &ow, &oh);
                ff_fssim_ref_block_windows(pl[i].w, pl[i].h, &nx, &ny);
                double v[FSSIM_NB_FUSED_PARTS];
                fssim_cuda_chunk_sums(host_out.data(), &rp, 0, i, v);
                const double gi = v[FSSIM_PART_INT] / (double)ff_fssim_cuda_int_weight_sum(pl[i].w, pl[i].h);
                const double gf = v[FSSIM_PART_FLOAT] / ((double)ow * oh);
                const double gb = v[FSSIM_PART_BLOCK] / ((double)nx * ny);
                const double ri = ff_fssim_ref_int(&a, &b, depth);
                const double rf = ff_fssim_ref_float(&a, &b, depth, &fp);
                const double rb = ff_fssim_ref_block(&a, &b, depth);
                /* the scores in full, to compare builds bit for bit */
                printf("  plane %d check: int %.17g float %.9g block %.9g\n", i, gi, gf, gb);
                printf("  plane %d check: int %.3g (%s) float %.3g (%s) block %.3g (%s)\n", i,
                       fabs(gi - ri), fabs(gi - ri) <= 1e-12 ? "ok" : "FAIL",
                       fabs(gf - rf), fabs(gf - rf) <= 1e-5 ? "ok" : "FAIL",
                       fabs(gb - rb), fabs(gb - rb) <= 1e-6 ? "ok" : "FAIL");
            }
        }
        CK(cuEventDestroy(e0));
        CK(cuEventDestroy(e1));
        CK(cuEventDestroy(em));
    }
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 2; k++)
            CK(cuMemFree(pl[i].dev[k]));
    CK(cuMemFree(partials));
    CK(cuMemFree(out));
    CK(cuMemFreeHost(pinned));
}

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    char name[256];
    int sms;

    if (argc < 5) {
        fprintf(stderr, "usage: %s ITERATIONS PTX8 PTX12 PTX16 [--check]\n", argv[0]);
        return 2;
    }
    const int iters = atoi(argv[1]);
    const bool check = argc > 5 && !strcmp(argv[5], "--check");
    double t = now();
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    printf("context: %.3f s\n", now() - t);
    CK(cuDeviceGetName(name, sizeof(name), dev));
    CK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    printf("device: %s, %d SMs\n", name, sms);

    Module m8 = load(argv[2]), m12 = load(argv[3]), m16 = load(argv[4]);
    printf("module load (driver PTX compile unless cached): 8-bit %.3f s, 12-bit %.3f s, "
           "16-bit %.3f s\n", m8.load_s, m12.load_s, m16.load_s);
    if (getenv("KB_PROFILE")) {   /* one configuration, for ncu */
        run(m8, 3840, 2160, 8, iters, false);
        return 0;
    }
    run(m8, 3840, 2160, 8, iters, check);
    run(m12, 3840, 2160, 10, iters, check);
    run(m16, 3840, 2160, 16, iters, false);
    run(m8, 1920, 1080, 8, iters, false);
    return 0;
}
