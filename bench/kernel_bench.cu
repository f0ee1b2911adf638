/*
 * Kernel-only benchmark of fssim_cuda's kernels (kernels/fssim.cu) with the
 * CUDA runtime: a 4:2:0 frame pair of natural-looking content per size and
 * bit depth, every algorithm combination, timed with CUDA events over many
 * iterations (median), and checked against the CPU reference once.
 *
 * Build (on any machine with nvcc; runs on the GPU machine):
 *   make -C bench -f kernel_bench.mk
 * usage: kernel_bench [iterations]
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

extern "C" {
#include "fssim_cuda.h"
#include "fssim_ref.h"
}

#include "fssim.cu"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

struct Plane {
    int w, h, bytes;
    std::vector<uint8_t> host[2];
    uint8_t *dev[2];
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
        CK(cudaMallocPitch((void **)&p.dev[k], &p.pitch, (size_t)p.w * p.bytes, p.h));
        CK(cudaMemcpy2D(p.dev[k], p.pitch, p.host[k].data(), (size_t)p.w * p.bytes,
                        (size_t)p.w * p.bytes, p.h, cudaMemcpyHostToDevice));
    }
}

static const char *algo_name(int a)
{
    static char buf[32];
    buf[0] = 0;
    if (a & FSSIM_ALGO_FLOAT_BIT) strcat(buf, "float+");
    if (a & FSSIM_ALGO_INT_BIT)   strcat(buf, "int+");
    if (a & FSSIM_ALGO_BLOCK_BIT) strcat(buf, "block+");
    buf[strlen(buf) - 1] = 0;
    return buf;
}

static void run(int w, int h, int depth, int iters, bool check)
{
    const int bytes = depth > 8 ? 2 : 1;
    Plane pl[3] = { { w, h, bytes }, { (w + 1) / 2, (h + 1) / 2, bytes },
                    { (w + 1) / 2, (h + 1) / 2, bytes } };
    const int combos[] = { FSSIM_ALGO_FLOAT_BIT | FSSIM_ALGO_INT_BIT, FSSIM_ALGO_INT_BIT,
                           FSSIM_ALGO_FLOAT_BIT, FSSIM_ALGO_BLOCK_BIT,
                           FSSIM_ALGO_FLOAT_BIT | FSSIM_ALGO_INT_BIT | FSSIM_ALGO_BLOCK_BIT };
    double *partials, *out, host_out[3 * FSSIM_NB_PARTS];
    int total = 0, grid[3][2];

    for (int i = 0; i < 3; i++) {
        fill(pl[i], depth, 17 + i);
        total += fssim_cuda_nb_blocks(pl[i].w, pl[i].h, &grid[i][0], &grid[i][1]);
    }
    CK(cudaMalloc(&partials, (size_t)total * FSSIM_NB_PARTS * sizeof(double)));
    CK(cudaMalloc(&out, sizeof(host_out)));

    for (int algos : combos) {
        FSSIMCudaParams kp[3];
        FSSIMCudaReduceParams rp = {};
        const FSSIMSmemLayout l = fssim_smem_layout(5, algos, bytes > 1);
        void (*kernel)(FSSIMCudaParams) = bytes > 1 ? fssim_plane_16 : fssim_plane_8;
        int off = 0;
        CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, l.total));
        for (int i = 0; i < 3; i++) {
            fssim_cuda_fill_params(&kp[i], depth, pl[i].w, pl[i].h, bytes, 1, 0, algos, 11, 1.5, 0);
            kp[i].main_ptr = (unsigned long long)pl[i].dev[0];
            kp[i].ref_ptr  = (unsigned long long)pl[i].dev[1];
            kp[i].main_pitch = kp[i].ref_pitch = (int)pl[i].pitch;
            kp[i].partials = (unsigned long long)partials;
            kp[i].part_offset = off;
            rp.offset[i] = off;
            rp.count[i]  = grid[i][0] * grid[i][1];
            off += rp.count[i];
        }
        rp.partials = (unsigned long long)partials;
        rp.out = (unsigned long long)out;

        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        std::vector<float> ms;
        for (int it = 0; it < iters + 5; it++) {
            CK(cudaEventRecord(e0));
            for (int i = 0; i < 3; i++)
                kernel<<<dim3(grid[i][0], grid[i][1]), dim3(FSSIM_TILE, FSSIM_THREADS / FSSIM_TILE),
                         l.total>>>(kp[i]);
            fssim_reduce<<<3, dim3(FSSIM_TILE, FSSIM_THREADS / FSSIM_TILE)>>>(rp);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaGetLastError());
            float t;
            CK(cudaEventElapsedTime(&t, e0, e1));
            if (it >= 5)
                ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        CK(cudaMemcpy(host_out, out, sizeof(host_out), cudaMemcpyDeviceToHost));
        printf("%dx%d %2d-bit %-17s smem %6d B  median %8.1f us  min %8.1f us\n", w, h, depth,
               algo_name(algos), l.total, 1000.0 * ms[ms.size() / 2], 1000.0 * ms[0]);

        if (check && algos == (FSSIM_ALGO_FLOAT_BIT | FSSIM_ALGO_INT_BIT | FSSIM_ALGO_BLOCK_BIT)) {
            for (int i = 0; i < 3; i++) {
                FSSIMRefPlane a = { pl[i].host[0].data(), (ptrdiff_t)pl[i].w * bytes, pl[i].w, pl[i].h, bytes, 1, 0 };
                FSSIMRefPlane b = { pl[i].host[1].data(), (ptrdiff_t)pl[i].w * bytes, pl[i].w, pl[i].h, bytes, 1, 0 };
                const FSSIMRefFloatParams fp = { 11, 1.5, 0 };
                int ow, oh, nx, ny;
                fssim_ref_float_out_size(pl[i].w, pl[i].h, &fp, &ow, &oh);
                fssim_ref_block_windows(pl[i].w, pl[i].h, &nx, &ny);
                const double *v = host_out + i * FSSIM_NB_PARTS;
                const double gi = v[FSSIM_PART_INT] / (double)fssim_cuda_int_weight_sum(pl[i].w, pl[i].h);
                const double gf = v[FSSIM_PART_FLOAT] / ((double)ow * oh);
                const double gb = v[FSSIM_PART_BLOCK] / ((double)nx * ny);
                const double ri = fssim_ref_int(&a, &b, depth);
                const double rf = fssim_ref_float(&a, &b, depth, &fp);
                const double rb = fssim_ref_block(&a, &b, depth);
                printf("  plane %d check: int %.3g (%s) float %.3g (%s) block %.3g (%s)\n", i,
                       fabs(gi - ri), fabs(gi - ri) <= 1e-12 ? "ok" : "FAIL",
                       fabs(gf - rf), fabs(gf - rf) <= 1e-5 ? "ok" : "FAIL",
                       fabs(gb - rb), fabs(gb - rb) <= 1e-6 ? "ok" : "FAIL");
            }
        }
    }
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 2; k++)
            CK(cudaFree(pl[i].dev[k]));
    CK(cudaFree(partials));
    CK(cudaFree(out));
}

int main(int argc, char **argv)
{
    const int iters = argc > 1 ? atoi(argv[1]) : 200;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
    run(3840, 2160, 8, iters, true);
    run(3840, 2160, 10, iters, true);
    run(1920, 1080, 8, iters, false);
    return 0;
}
