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
 * A stand-in for the CUDA driver (libcuda.so.1) that runs fssim's kernels
 * (fssim_cuda's fssim_plane and fssim_reduce, the resamplers, msssim's
 * fssim_ms_scale and fssim_ms_reduce, the vmaf_ssim / vmaf_msssim kernels,
 * fssim3d's three and its resamplers)
 * through the
 * emulator (tests/cuda/emu.h): "device" memory is host memory, streams and
 * events complete at once, kernels run on the CPU.  With it the whole CUDA
 * path of the built ffmpeg — hwcontext_cuda, hwupload, the filters' host
 * code (module choice, stream and event order, launch geometry, the
 * readback pipeline, ring slots, the flush, the teardown) — runs where no
 * GPU exists:
 *
 *   LD_LIBRARY_PATH=DIR_OF_THIS_LIB ffmpeg -init_hw_device cuda=cu ... hwupload ... fssim_cuda
 *
 * It proves the host logic against the software filters, not the device:
 * tests/cuda/test_cuda.py and test_cuda3d.py on a GPU do that.
 *
 * Modules.  fssim3d's two are told apart by their PTX (the any-window
 * kernel reads the radius from its parameters).  fssim_cuda's six (per
 * sample class, default or any window) are identified exactly, by
 * comparing the image with the PTX files that the FFmpeg build made:
 * FSSIM_FAKE_CUDA_PTX names their folder (default: the build's, compiled
 * in).  Every launch is checked against its module: geometry, shared
 * memory, the radius a default-window module is built for, and the sample
 * class of the bit depth the parameters were made for, so that a host
 * choosing the wrong module fails.
 *
 * Faults.  FSSIM_FAKE_CUDA_FAULT=KIND:N[:ERROR][:once][,...] makes the
 * N-th call (counted from 1 over the process) of a kind fail:
 *   launch  cuLaunchKernel (the kernel does not run)
 *   sync    cuEventSynchronize, cuEventQuery, cuStreamSynchronize
 *   memcpy  the 1-D copies (cuMemcpy*, HtoD/DtoH/DtoD, async or not; not
 *           the 2-D copies of hwupload), the copy is not made
 * ERROR is launch_failed (CUDA_ERROR_LAUNCH_FAILED, the default) or
 * illegal_address (CUDA_ERROR_ILLEGAL_ADDRESS).  As a real context after a
 * kernel fault, the error is sticky: every later call that uses the
 * context (launches, copies, allocations, events, streams, frees) returns
 * it, and pinned host memory is filled with garbage, as whatever the GPU
 * was to copy back never arrives.  ":once" fails that one call only (a
 * sync fault still spoils the pinned memory: its results are undefined).
 *
 * FSSIM_FAKE_CUDA_COUNTS=PATH: the number of calls of each kind, written
 * to PATH at exit ("launch N", "sync N", "memcpy N" lines).
 *
 * FSSIM_FAKE_CUDA_LAZY=1: cuEventQuery and cuStreamQuery answer
 * CUDA_ERROR_NOT_READY (work finishes only when waited for), so the
 * filters' pipelines fill up as behind a busy GPU.
 *
 * FSSIM_FAKE_CUDA_FREE=BYTES: the device memory cuMemGetInfo reports free
 * (default 16 GiB, of as much in all), so that a filter's check of what it
 * allocates against it can be tried.
 *
 * FAKE_CUDA_VERBOSE=1 prints every launch and fault on stderr.
 *
 * Built by `make check` (Makefile.am, FAKE_CUDA) into tests/cuda/fake/ and
 * used by tests/cuda/test_cuda3d_emu.sh, test_cuda_emu.py and
 * test_cuda_faults.py.
 */
#include "emu.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <list>
#include <map>
#include <mutex>
#include <string>

struct alignas(16) float4 { float x, y, z, w; };

extern "C" {
#include "fssim_cuda_params.h"
#include "fssim3d_cuda_params.h"
}
#include "emu_fssim.h"
#include "fssim3d.cuh"

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
enum {
    OK = 0, INVALID = 1, OOM = 2, NO_BINARY = 209, INVALID_PTX = 218, NOT_FOUND = 500,
    NOT_READY = 600, ILLEGAL_ADDRESS = 700, LAUNCH_FAILED = 719, UNKNOWN = 999,
};

/* the driver's 2-D copy descriptor (ffnvcodec's dynlink_cuda.h) */
struct Memcpy2D {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
};

enum ModuleType { MOD_FSSIM3D, MOD_PLANE, MOD_RESAMPLE, MOD_VMAF };
struct Module { ModuleType type; bool any; int kind; bool ladder; };
struct Function { std::string name; Module mod; };
/* A loaded module owns its functions, as a real driver's does: they go with
 * cuModuleUnload.  FFmpeg unloads the stand-in with its CUDA device, and
 * LeakSanitizer reports whatever it still held then, with no symbol to name. */
struct LoadedModule { Module mod; std::list<Function> functions; };

static int dummy_obj;
#define DUMMY ((void *)&dummy_obj)

static bool verbose(void)
{
    static int v = -1;
    if (v < 0)
        v = getenv("FAKE_CUDA_VERBOSE") != NULL;
    return v;
}

/* ---- faults ---------------------------------------------------------- */

enum FaultKind { F_LAUNCH, F_SYNC, F_MEMCPY, F_NB };
static const char *const fault_names[F_NB] = { "launch", "sync", "memcpy" };

struct Fault { long n; CUresult err; bool once; };

static std::mutex lock;                       /* emulator and bookkeeping */
static std::map<void *, size_t> pinned;       /* cuMemAllocHost blocks */
static std::atomic<long> counts[F_NB];
static std::atomic<CUresult> sticky;
static Fault faults[F_NB];

static void parse_faults(void)
{
    static bool done;
    const char *env = getenv("FSSIM_FAKE_CUDA_FAULT");
    if (done)
        return;
    done = true;
    if (!env)
        return;
    std::string s(env);
    size_t pos = 0;
    while (pos <= s.size()) {
        size_t end = s.find(',', pos);
        std::string item = s.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        pos = end == std::string::npos ? s.size() + 1 : end + 1;
        if (item.empty())
            continue;
        char kind[16] = "", a[32] = "", b[32] = "";
        long n = 0;
        int k;
        if (sscanf(item.c_str(), "%15[a-z]:%ld:%31[a-z_]:%31[a-z_]", kind, &n, a, b) < 2 ||
            n < 1) {
            fprintf(stderr, "[fake cuda] bad FSSIM_FAKE_CUDA_FAULT item '%s'\n", item.c_str());
            abort();
        }
        for (k = 0; k < F_NB && strcmp(kind, fault_names[k]); k++)
            ;
        if (k == F_NB) {
            fprintf(stderr, "[fake cuda] unknown fault kind '%s'\n", kind);
            abort();
        }
        Fault f = { n, LAUNCH_FAILED, false };
        for (const char *o : { a, b }) {
            if (!*o || !strcmp(o, "launch_failed"))
                continue;
            if (!strcmp(o, "illegal_address"))
                f.err = ILLEGAL_ADDRESS;
            else if (!strcmp(o, "once"))
                f.once = true;
            else {
                fprintf(stderr, "[fake cuda] unknown fault option '%s'\n", o);
                abort();
            }
        }
        faults[k] = f;
    }
}

/* What the GPU was to copy back never arrives. */
static void spoil_pinned(void)
{
    std::lock_guard<std::mutex> g(lock);
    for (auto &b : pinned)
        memset(b.first, 0x7f, b.second);
}

/* The sticky error, if any; else count a call of kind k and inject its
 * fault.  kind F_NB: only the sticky error. */
static CUresult fault(int k, const char *call)
{
    CUresult s;

    parse_faults();
    s = sticky.load();
    if (s != OK)
        return s;
    if (k == F_NB)
        return OK;
    if (++counts[k] != faults[k].n)
        return OK;
    fprintf(stderr, "[fake cuda] fault: %s call %ld (%s) -> %d%s\n", fault_names[k],
            faults[k].n, call, faults[k].err, faults[k].once ? " once" : " sticky");
    if (!faults[k].once)
        sticky = faults[k].err;
    if (k == F_SYNC || !faults[k].once)
        spoil_pinned();
    return faults[k].err;
}

/* FSSIM_FAKE_CUDA_COUNTS=PATH: how many calls of each kind the process
 * made, written at exit, so that a test can aim a fault at the last ones
 * (the flush). */
__attribute__((destructor)) static void write_counts(void)
{
    const char *path = getenv("FSSIM_FAKE_CUDA_COUNTS");
    FILE *f;

    if (!path || !(f = fopen(path, "w")))
        return;
    for (int k = 0; k < F_NB; k++)
        fprintf(f, "%s %ld\n", fault_names[k], counts[k].load());
    fclose(f);
}

static bool lazy(void)
{
    static int v = -1;
    if (v < 0)
        v = getenv("FSSIM_FAKE_CUDA_LAZY") && strcmp(getenv("FSSIM_FAKE_CUDA_LAZY"), "0");
    return v;
}

/* ---- modules --------------------------------------------------------- */

#ifndef FAKE_PTX_DIR
#define FAKE_PTX_DIR ""
#endif

/* [ladder][any window][sample class] */
static const char *const plane_modules[2][2][3] = {
    { { "fssim_8.ptx", "fssim_12.ptx", "fssim_16.ptx" },
      { "fssim_8_any.ptx", "fssim_12_any.ptx", "fssim_16_any.ptx" } },
    { { "fssim_8_ladder.ptx", "fssim_12_ladder.ptx", "fssim_16_ladder.ptx" },
      { "fssim_8_any_ladder.ptx", "fssim_12_any_ladder.ptx", "fssim_16_any_ladder.ptx" } },
};

static std::string file_bytes(const std::string &path)
{
    FILE *f = fopen(path.c_str(), "rb");
    std::string data;
    char buf[65536];
    size_t n;

    if (!f)
        return data;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        data.append(buf, n);
    fclose(f);
    return data;
}

/* A fat binary (the machine code the build embeds beside the PTX, from
 * fatbinary): its length from its header, 0 if image is none. */
static size_t fatbin_size(const void *image)
{
    const unsigned char *h = (const unsigned char *)image;
    unsigned long long fat = 0;

    if (h[0] != 0x50 || h[1] != 0xed || h[2] != 0x55 || h[3] != 0xba)
        return 0;
    for (int i = 7; i >= 0; i--)
        fat = fat << 8 | h[8 + i];
    return (size_t)(h[6] | h[7] << 8) + fat;
}

/* Whether image is the module file dir/name: the PTX, which the build
 * embeds with a terminating NUL, or, for a fat binary, the .fatbin beside
 * it. */
static bool same_module(const void *image, const std::string &dir, const char *name)
{
    const size_t fat = fatbin_size(image);
    std::string path = dir + "/" + name, data;

    if (fat)
        path.replace(path.size() - 4, 4, ".fatbin");
    data = file_bytes(path);
    if (fat)
        return data.size() == fat && !memcmp(image, data.data(), fat);
    while (!data.empty() && data.back() == '\0')
        data.pop_back();
    return !data.empty() && strlen((const char *)image) == data.size() &&
           !memcmp(image, data.data(), data.size());
}

/* ---- the emulated kernels ------------------------------------------ */

static void moments_any(FSSIM3DCudaMomentParams p) { fssim3d_moments_impl<0>(p); }
static void moments_def(FSSIM3DCudaMomentParams p) { fssim3d_moments_impl<FSSIM_DEFAULT_RADIUS>(p); }
static void score(FSSIM3DCudaScoreParams p) { fssim3d_score_impl(p); }
static void sum(FSSIM3DCudaSumParams p) { fssim3d_sum_impl(p); }


/* [ladder][any window][sample class] */
static void (*const plane_kernels[2][2][3])(FSSIMCudaParams) = {
    { { plane_8<FSSIM_DEFAULT_RADIUS>, plane_12<FSSIM_DEFAULT_RADIUS>,
        plane_16<FSSIM_DEFAULT_RADIUS> },
      { plane_8<0>, plane_12<0>, plane_16<0> } },
    { { plane_8<FSSIM_DEFAULT_RADIUS, true>, plane_12<FSSIM_DEFAULT_RADIUS, true>,
        plane_16<FSSIM_DEFAULT_RADIUS, true> },
      { plane_8<0, true>, plane_12<0, true>, plane_16<0, true> } },
};

/* ---- the driver API -------------------------------------------------- */

extern "C" {

CUresult cuInit(unsigned flags) { return OK; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return OK; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return OK; }
CUresult cuDeviceGet(int *d, int i) { *d = 0; return i == 0 ? OK : INVALID; }
/* An sm_90 device; FSSIM_FAKE_CUDA_SMEM_OPTIN=N: N bytes of shared memory
 * per block (97, the opt-in limit), as a smaller GPU offers (Turing: 65536). */
CUresult cuDeviceGetAttribute(int *v, int attr, int dev)
{
    const char *smem = getenv("FSSIM_FAKE_CUDA_SMEM_OPTIN");

    *v = attr == 75 ? 9 : attr == 76 ? 0 : attr == 14 || attr == 51 ? 256 :
         attr == 97 ? (smem && *smem ? atoi(smem) : 232448) : 1;
    return OK;
}
CUresult cuDeviceGetName(char *name, int len, int dev)
{
    snprintf(name, len, "fake CUDA device (CPU emulation)");
    return OK;
}
CUresult cuDeviceComputeCapability(int *ma, int *mi, int dev) { *ma = 9; *mi = 0; return OK; }
/* every context its own, as the driver's: two are told apart */
CUresult cuCtxCreate_v2(void **ctx, unsigned flags, int dev) { *ctx = malloc(1); return OK; }
CUresult cuCtxGetCurrent(void **ctx) { *ctx = DUMMY; return OK; }
CUresult cuCtxSetLimit(int l, size_t v) { return OK; }
CUresult cuCtxPushCurrent_v2(void *ctx) { return OK; }
CUresult cuCtxPopCurrent_v2(void **ctx) { if (ctx) *ctx = DUMMY; return OK; }
CUresult cuCtxDestroy_v2(void *ctx) { if (ctx != DUMMY) free(ctx); return OK; }
CUresult cuCtxGetDevice(int *d) { *d = 0; return OK; }
CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) { *ctx = DUMMY; return OK; }
CUresult cuDevicePrimaryCtxRelease(int dev) { return OK; }
CUresult cuDevicePrimaryCtxSetFlags(int dev, unsigned f) { return OK; }
CUresult cuDevicePrimaryCtxGetState(int dev, unsigned *f, int *active) { *f = 0; *active = 0; return OK; }
CUresult cuDevicePrimaryCtxReset(int dev) { return OK; }

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
    CUresult r = fault(F_NB, "cuMemAlloc");
    if (r != OK)
        return r;
    void *m = aligned_alloc(256, (n + 255) & ~(size_t)255);
    if (!m)
        return OOM;
    /* garbage, as device memory is: nothing may read what was not written */
    memset(m, 0xa5, n);
    *p = (CUdeviceptr)(uintptr_t)m;
    return OK;
}
CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    const char *env = getenv("FSSIM_FAKE_CUDA_FREE");
    const size_t all = (size_t)16 << 30;

    *free_bytes = env && *env ? (size_t)strtoull(env, NULL, 0) : all;
    *total = *free_bytes > all ? *free_bytes : all;
    return OK;
}
CUresult cuMemAllocPitch_v2(CUdeviceptr *p, size_t *pitch, size_t w, size_t h, unsigned e)
{
    *pitch = (w + 255) & ~(size_t)255;
    return cuMemAlloc_v2(p, *pitch * h);
}
CUresult cuMemAllocManaged(CUdeviceptr *p, size_t n, unsigned f) { return cuMemAlloc_v2(p, n); }
/* freed even after a fault: the real driver frees with the context */
CUresult cuMemFree_v2(CUdeviceptr p)
{
    free((void *)(uintptr_t)p);
    return fault(F_NB, "cuMemFree");
}
CUresult cuMemAllocHost_v2(void **p, size_t n)
{
    CUresult r = fault(F_NB, "cuMemAllocHost");
    if (r != OK)
        return r;
    *p = malloc(n);
    if (!*p)
        return OOM;
    std::lock_guard<std::mutex> g(lock);
    pinned[*p] = n;
    return OK;
}
CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags)
{
    return cuMemAllocHost_v2(p, n);
}
/* the emulated device shares the host's addresses */
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *d, void *p, unsigned flags)
{
    std::lock_guard<std::mutex> g(lock);
    if (!pinned.count(p) || flags)
        return INVALID;
    *d = (CUdeviceptr)(uintptr_t)p;
    return OK;
}
CUresult cuMemFreeHost(void *p)
{
    {
        std::lock_guard<std::mutex> g(lock);
        pinned.erase(p);
    }
    free(p);
    return fault(F_NB, "cuMemFreeHost");
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void *s)
{
    CUresult r = fault(F_NB, "cuMemsetD8Async");
    if (r == OK)
        memset((void *)(uintptr_t)d, v, n);
    return r;
}
static CUresult copy1d(void *d, const void *s, size_t n, const char *call)
{
    CUresult r = fault(F_MEMCPY, call);
    if (r == OK)
        memcpy(d, s, n);
    return r;
}
CUresult cuMemcpy(CUdeviceptr d, CUdeviceptr s, size_t n)
{
    return copy1d((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n, "cuMemcpy");
}
CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, void *st) { return cuMemcpy(d, s, n); }
CUresult cuMemcpy2D_v2(const Memcpy2D *c)
{
    const uint8_t *src = c->srcMemoryType == 1 ? (const uint8_t *)c->srcHost
                                               : (const uint8_t *)(uintptr_t)c->srcDevice;
    uint8_t *dst = c->dstMemoryType == 1 ? (uint8_t *)c->dstHost : (uint8_t *)(uintptr_t)c->dstDevice;
    CUresult r = fault(F_NB, "cuMemcpy2D");
    if (r != OK)
        return r;
    if (c->srcMemoryType == 3 || c->dstMemoryType == 3)
        return UNKNOWN;
    for (size_t y = 0; y < c->Height; y++)
        memcpy(dst + (c->dstY + y) * c->dstPitch + c->dstXInBytes,
               src + (c->srcY + y) * c->srcPitch + c->srcXInBytes, c->WidthInBytes);
    return OK;
}
CUresult cuMemcpy2DAsync_v2(const Memcpy2D *c, void *s) { return cuMemcpy2D_v2(c); }
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n)
{
    return copy1d((void *)(uintptr_t)d, s, n, "cuMemcpyHtoD");
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, void *st) { return cuMemcpyHtoD_v2(d, s, n); }
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n)
{
    return copy1d(d, (const void *)(uintptr_t)s, n, "cuMemcpyDtoH");
}
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, void *st) { return cuMemcpyDtoH_v2(d, s, n); }
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { return cuMemcpy(d, s, n); }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void *st) { return cuMemcpy(d, s, n); }

static const struct { CUresult code; const char *name, *desc; } error_names[] = {
    { OK,              "CUDA_SUCCESS",                "no error" },
    { INVALID,         "CUDA_ERROR_INVALID_VALUE",    "invalid argument" },
    { OOM,             "CUDA_ERROR_OUT_OF_MEMORY",    "out of memory" },
    { NO_BINARY,       "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device" },
    { INVALID_PTX,     "CUDA_ERROR_INVALID_PTX",      "a PTX JIT compilation failed" },
    { NOT_FOUND,       "CUDA_ERROR_NOT_FOUND",        "named symbol not found" },
    { NOT_READY,       "CUDA_ERROR_NOT_READY",        "device not ready" },
    { ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",  "an illegal memory access was encountered" },
    { LAUNCH_FAILED,   "CUDA_ERROR_LAUNCH_FAILED",    "unspecified launch failure" },
    { UNKNOWN,         "CUDA_ERROR_UNKNOWN",          "unknown error" },
};
CUresult cuGetErrorName(CUresult e, const char **s)
{
    for (const auto &n : error_names)
        if (n.code == e) {
            *s = n.name;
            return OK;
        }
    *s = NULL;
    return INVALID;
}
CUresult cuGetErrorString(CUresult e, const char **s)
{
    for (const auto &n : error_names)
        if (n.code == e) {
            *s = n.desc;
            return OK;
        }
    *s = NULL;
    return INVALID;
}

/* streams and events: everything has completed when it returns (or, lazy,
 * when waited for) */
CUresult cuStreamCreate(void **s, unsigned f) { *s = malloc(1); return fault(F_NB, "cuStreamCreate"); }
CUresult cuStreamQuery(void *s)
{
    CUresult r = fault(F_NB, "cuStreamQuery");
    return r != OK ? r : lazy() ? NOT_READY : OK;
}
CUresult cuStreamSynchronize(void *s) { return fault(F_SYNC, "cuStreamSynchronize"); }
CUresult cuStreamDestroy_v2(void *s) { free(s); return fault(F_NB, "cuStreamDestroy"); }
CUresult cuStreamAddCallback(void *s, void (*cb)(void *, CUresult, void *), void *u, unsigned f)
{
    cb(s, fault(F_NB, "cuStreamAddCallback"), u);
    return OK;
}
CUresult cuStreamWaitEvent(void *s, void *e, unsigned f)
{
    return !e ? INVALID : fault(F_NB, "cuStreamWaitEvent");
}
CUresult cuEventCreate(void **e, unsigned f) { *e = malloc(1); return fault(F_NB, "cuEventCreate"); }
CUresult cuEventDestroy_v2(void *e) { free(e); return fault(F_NB, "cuEventDestroy"); }
CUresult cuEventSynchronize(void *e) { return !e ? INVALID : fault(F_SYNC, "cuEventSynchronize"); }
CUresult cuEventQuery(void *e)
{
    CUresult r;
    if (!e)
        return INVALID;
    r = fault(F_SYNC, "cuEventQuery");
    return r != OK ? r : lazy() ? NOT_READY : OK;
}
CUresult cuEventRecord(void *e, void *s) { return !e ? INVALID : fault(F_NB, "cuEventRecord"); }
CUresult cuEventElapsedTime(float *ms, void *a, void *b)
{
    *ms = 0.001f;
    return !a || !b ? INVALID : fault(F_NB, "cuEventElapsedTime");
}

/* modules: fssim3d's two, told apart by the any-window kernel reading the
 * radius from its parameters (FSSIM3DCudaMomentParams.radius); fssim_cuda's
 * and the resampler's by their PTX files.  Machine code (a fat binary) is matched against the
 * .fatbin files the build left beside the PTX, and refused, as a GPU the
 * build made none for refuses it, under FSSIM_FAKE_CUDA_NO_SASS=1. */
CUresult cuModuleLoadData(void **m, const void *image)
{
    const char *ptx = (const char *)image;
    const char *env = getenv("FSSIM_FAKE_CUDA_PTX");
    const std::string dir = env && *env ? env : FAKE_PTX_DIR;
    const char *no_sass = getenv("FSSIM_FAKE_CUDA_NO_SASS");
    CUresult r = fault(F_NB, "cuModuleLoadData");
    const bool fat = fatbin_size(image) != 0;
    char key[64];

    if (r != OK)
        return r;
    if (fat && no_sass && strcmp(no_sass, "0"))
        return NO_BINARY;
    if ((fat || strstr(ptx, ".entry fssim_vmaf_score")) &&
        same_module(image, dir, "fssim_vmaf.ptx")) {
        *m = new LoadedModule{ { MOD_VMAF, false, 0, false }, {} };
        if (verbose())
            fprintf(stderr, "[fake cuda] module fssim_vmaf.ptx%s\n", fat ? " (machine code)" : "");
        return OK;
    }
    if ((fat || strstr(ptx, ".entry fssim_resample_")) &&
        same_module(image, dir, "fssim_resample.ptx")) {
        *m = new LoadedModule{ { MOD_RESAMPLE, false, 0, false }, {} };
        if (verbose())
            fprintf(stderr, "[fake cuda] module fssim_resample.ptx%s\n",
                    fat ? " (machine code)" : "");
        return OK;
    }
    if (fat) {
        for (int any = 0; any < 2; any++)
            if (same_module(image, dir, any ? "fssim3d_any.ptx" : "fssim3d.ptx")) {
                *m = new LoadedModule{ { MOD_FSSIM3D, any != 0, 0, false }, {} };
                if (verbose())
                    fprintf(stderr, "[fake cuda] module %s (machine code)\n",
                            any ? "fssim3d_any.ptx" : "fssim3d.ptx");
                return OK;
            }
    } else if (strstr(ptx, ".entry fssim3d_moments")) {
        snprintf(key, sizeof(key), "fssim3d_moments_param_0+%d",
                 (int)offsetof(FSSIM3DCudaMomentParams, radius));
        *m = new LoadedModule{ { MOD_FSSIM3D, strstr(ptx, key) != NULL, 0, false }, {} };
        if (verbose())
            fprintf(stderr, "[fake cuda] module %s\n",
                    (*(LoadedModule **)m)->mod.any ? "fssim3d_any.ptx" : "fssim3d.ptx");
        return OK;
    }
    if (fat || strstr(ptx, ".entry fssim_plane")) {
        for (int ladder = 0; ladder < 2; ladder++)
            for (int any = 0; any < 2; any++)
                for (int kind = 0; kind < 3; kind++)
                    if (same_module(image, dir, plane_modules[ladder][any][kind])) {
                        *m = new LoadedModule{ { MOD_PLANE, any != 0, kind, ladder != 0 }, {} };
                        if (verbose())
                            fprintf(stderr, "[fake cuda] module %s%s\n",
                                    plane_modules[ladder][any][kind], fat ? " (machine code)" : "");
                        return OK;
                    }
        fprintf(stderr, "[fake cuda] an fssim module that is none of the files in '%s' (set "
                "FSSIM_FAKE_CUDA_PTX to the folder holding fssim_8.ptx ...)\n", dir.c_str());
    }
    return fat ? NO_BINARY : INVALID_PTX;   /* only fssim's kernels are emulated */
}
CUresult cuModuleUnload(void *m) { delete (LoadedModule *)m; return fault(F_NB, "cuModuleUnload"); }
CUresult cuModuleGetFunction(void **f, void *m, const char *name)
{
    LoadedModule *lm = (LoadedModule *)m;
    const Module *mod = &lm->mod;
    static const char *const names[4][5] = {
        { "fssim3d_moments", "fssim3d_score", "fssim3d_sum", NULL, NULL },
        { "fssim_plane", "fssim_reduce", "fssim_ms_scale", "fssim_ms_reduce", NULL },
        { "fssim_resample_8to8", "fssim_resample_8to16", "fssim_resample_16to8",
          "fssim_resample_16to16", NULL },
        { "fssim_vmaf_load_8", "fssim_vmaf_load_16", "fssim_vmaf_lpf", "fssim_vmaf_score",
          "fssim_vmaf_reduce" },
    };
    for (const char *n : names[mod->type])
        if (n && !strcmp(name, n)) {
            lm->functions.push_back(Function{ name, *mod });
            *f = &lm->functions.back();
            return OK;
        }
    return NOT_FOUND;
}
CUresult cuModuleGetGlobal_v2(CUdeviceptr *p, size_t *n, void *m, const char *name) { return NOT_FOUND; }
CUresult cuFuncSetAttribute(void *f, int attr, int v) { return OK; }

/* The sample class of the parameters: from the bit depth they were filled
 * for (c1base = (0.01 L)^2) and the container's shift, since samples at the
 * bottom of 16-bit words take the 16-bit class whatever the depth. */
static int params_kind(const FSSIMCudaParams &p)
{
    const double L = sqrt(p.c1base) / 0.01;
    const int depth = (int)lround(log2(L + 1));
    return fssim_cuda_kind_stored(depth, p.shift);
}

/* Whether msssim's parameters are for 8-bit containers (c1 = (0.01 L)^2 in
 * float): the scale pass reads the module's container. */
static bool ms_params_8bit(const FSSIMCudaMsParams &p)
{
    const double L = sqrt((double)p.c1) / 0.01;
    return lround(log2(L + 1)) <= 8;
}

static void (*const ms_scale_kernels[2][3])(FSSIMCudaMsParams) = {
    { ms_scale<unsigned char, FSSIM_DEFAULT_RADIUS>, ms_scale<unsigned short, FSSIM_DEFAULT_RADIUS>,
      ms_scale<unsigned short, FSSIM_DEFAULT_RADIUS> },
    { ms_scale<unsigned char, 0>, ms_scale<unsigned short, 0>, ms_scale<unsigned short, 0> },
};

/* A launch of fssim_ms_scale: the planes' blocks follow one another and
 * fill the grid exactly; a scale is half the previous one. */
static bool ms_grid_ok(const FSSIMCudaMsParams &p, unsigned gx)
{
    int next = 0;
    if (p.nb_planes < 1 || p.nb_planes > 4)
        return false;
    for (int i = 0; i < p.nb_planes; i++) {
        const FSSIMCudaMsPlane &pl = p.plane[i];
        int tx, ty;
        if (pl.first_tile != next || pl.width < 2 * p.radius + 1 ||
            pl.height < 2 * p.radius + 1)
            return false;
        next += fssim_cuda_nb_blocks(pl.width, pl.height, &tx, &ty);
        if (tx != pl.tiles_x || (p.level < FSSIM_MS_SCALES - 1) != (pl.main_next != 0))
            return false;
    }
    return (int)gx == next;
}

/* A launch of fssim_resample: the components' tiles follow one another and
 * fill the grid exactly, and each tile's band fits the block's rows. */
static bool resample_grid_ok(const FSSIMCudaResampleParams &p, unsigned gx)
{
    int next = 0;
    if (p.nb_comps < 1 || p.nb_comps > 4)
        return false;
    for (int i = 0; i < p.nb_comps; i++) {
        const FSSIMCudaResampleComp &c = p.comp[i];
        const int rows = c.rows ? c.rows : FSSIM_RESAMPLE_DIRECT_ROWS;
        const int ty = (c.out_h + rows - 1) / rows;
        if (c.first_block != next || c.tiles_x != (c.out_w + FSSIM_TILE - 1) / FSSIM_TILE ||
            c.rows < 0 || c.rows > FSSIM_TILE)
            return false;
        for (int t = 0; c.rows && t < ty; t++) {
            const int *band = (const int *)c.bands + 2 * t;
            if (band[1] < 1 || band[1] > FSSIM_RESAMPLE_SPAN)
                return false;
            for (int y = t * rows; y < (t + 1) * rows && y < c.out_h; y++) {
                const int s = ((const int *)c.ystart)[y];
                if (s < band[0] || s + c.ytaps > band[0] + band[1])
                    return false;
            }
        }
        next += c.tiles_x * ty;
    }
    return (int)gx == next;
}

/* A launch of the vmaf kernels: the jobs' blocks (blocks[i], negative for
 * a job that is not well formed) follow one another from first[i] and fill
 * the grid exactly. */
static bool vmaf_grid_ok(const int *first, const int *blocks, int nb, int max, unsigned gx)
{
    int next = 0;
    if (nb < 1 || nb > max)
        return false;
    for (int i = 0; i < nb; i++) {
        if (first[i] != next || blocks[i] < 0)
            return false;
        next += blocks[i];
    }
    return (int)gx == next;
}

static bool vmaf_load_ok(const FSSIMCudaVmafLoadParams &p, unsigned gx)
{
    int first[8], blocks[8];
    for (int i = 0; i < p.nb_jobs && i < 8; i++) {
        first[i]  = p.job[i].first_block;
        blocks[i] = (p.job[i].dst_w * p.job[i].dst_h + FSSIM_THREADS - 1) / FSSIM_THREADS;
    }
    return vmaf_grid_ok(first, blocks, p.nb_jobs, 8, gx);
}

/* each scale half the previous one, rounding up */
static bool vmaf_lpf_ok(const FSSIMCudaVmafLpfParams &p, unsigned gx)
{
    int first[4], blocks[4];
    for (int i = 0; i < p.nb_jobs && i < 4; i++) {
        const FSSIMCudaVmafLpf &l = p.job[i];
        first[i]  = l.first_block;
        blocks[i] = l.dst_w != (l.src_w + 1) / 2 || l.dst_h != (l.src_h + 1) / 2 ? -1 :
                    (l.dst_w * l.dst_h + FSSIM_THREADS - 1) / FSSIM_THREADS;
    }
    return vmaf_grid_ok(first, blocks, p.nb_jobs, 4, gx);
}

/* a block per tile of valid positions */
static bool vmaf_score_ok(const FSSIMCudaVmafScoreParams &p, unsigned gx)
{
    int first[FSSIM_VMAF_MAX_JOBS], blocks[FSSIM_VMAF_MAX_JOBS];
    for (int i = 0; i < p.nb_jobs && i < FSSIM_VMAF_MAX_JOBS; i++) {
        const FSSIMCudaVmafScore &s = p.job[i];
        const int ow = s.width - FSSIM_VMAF_WINDOW + 1, oh = s.height - FSSIM_VMAF_WINDOW + 1;
        first[i]  = s.first_block;
        blocks[i] = ow < 1 || oh < 1 || s.tiles_x != (ow + FSSIM_VMAF_TILE - 1) / FSSIM_VMAF_TILE ?
                    -1 : s.tiles_x * ((oh + FSSIM_VMAF_TILE - 1) / FSSIM_VMAF_TILE);
    }
    return vmaf_grid_ok(first, blocks, p.nb_jobs, FSSIM_VMAF_MAX_JOBS, gx);
}

static CUresult bad_launch(const char *why, const Function *f)
{
    fprintf(stderr, "[fake cuda] invalid launch of %s: %s\n", f->name.c_str(), why);
    return INVALID;
}

CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem, void *stream,
                        void **params, void **extra)
{
    const Function *f = (const Function *)fn;
    CUresult r = fault(F_LAUNCH, f->name.c_str());

    if (r != OK)
        return r;
    if (gz != 1 || bz != 1 || bx * by != FSSIM_THREADS || !params || !stream)
        return bad_launch("geometry, parameters or stream", f);
    if (verbose())
        fprintf(stderr, "[fake cuda] %s grid %ux%u block %ux%u smem %u\n", f->name.c_str(),
                gx, gy, bx, by, smem);
    std::lock_guard<std::mutex> g(lock);
    if (f->name == "fssim3d_moments") {
        FSSIM3DCudaMomentParams p;
        memcpy(&p, params[0], sizeof(p));
        if ((int)smem < fssim3d_smem_bytes(p.radius) || bx != FSSIM_TILE ||
            (!f->mod.any && p.radius != FSSIM_DEFAULT_RADIUS))
            return bad_launch("shared memory, block or radius", f);
        emu_launch(f->mod.any ? moments_any : moments_def, gx, gy, bx, by, p);
    } else if (f->name == "fssim3d_score") {
        FSSIM3DCudaScoreParams p;
        memcpy(&p, params[0], sizeof(p));
        if (gy != 1 || by != 1)
            return bad_launch("grid", f);
        emu_launch(score, gx, gy, bx, by, p);
    } else if (f->name == "fssim3d_sum") {
        FSSIM3DCudaSumParams p;
        memcpy(&p, params[0], sizeof(p));
        if (gy != 1 || by != 1 || gx > 4)
            return bad_launch("grid", f);
        emu_launch(sum, gx, gy, bx, by, p);
    } else if (f->name == "fssim_plane") {
        const bool ladder = f->mod.ladder;
        FSSIMCudaParams p;
        int ngx, ngy;
        memcpy(&p, params[0], sizeof(p));
        const int rf = f->mod.any ? p.radius : FSSIM_DEFAULT_RADIUS;
        if (bx != FSSIM_TILE || p.radius < 1 || p.radius > FSSIM_MAX_RADIUS)
            return bad_launch("block or radius", f);
        if (!f->mod.any && p.radius != FSSIM_DEFAULT_RADIUS)
            return bad_launch("a default-window module for another window", f);
        /* a lone pair's fssim_plane scores only the first rendition: more
         * would be lost */
        if (p.nb_main < 1 || p.nb_main > FSSIM_MAX_DIST || (!ladder && p.nb_main != 1))
            return bad_launch("renditions for a lone pair's module", f);
        if (params_kind(p) != f->mod.kind)
            return bad_launch("the module of another sample class", f);
        if ((int)smem < fssim_smem_layout(rf, p.algos, f->mod.kind, ladder).total)
            return bad_launch("too little shared memory", f);
        fssim_cuda_nb_blocks(p.width, p.height, &ngx, &ngy);
        if ((int)gx != ngx || (int)gy != ngy)
            return bad_launch("grid does not cover the plane", f);
        emu_launch(plane_kernels[ladder][f->mod.any][f->mod.kind], gx, gy, bx, by, p);
    } else if (f->name == "fssim_ms_scale") {
        FSSIMCudaMsParams p;
        memcpy(&p, params[0], sizeof(p));
        const int rf = f->mod.any ? p.radius : FSSIM_DEFAULT_RADIUS;
        if (bx != FSSIM_TILE || gy != 1 || p.radius < 1 || p.radius > FSSIM_MAX_RADIUS)
            return bad_launch("block, grid or radius", f);
        if (!f->mod.any && p.radius != FSSIM_DEFAULT_RADIUS)
            return bad_launch("a default-window module for another window", f);
        if (ms_params_8bit(p) != (f->mod.kind == FSSIM_KIND_8))
            return bad_launch("the module of another sample container", f);
        if ((int)smem < fssim_ms_smem_layout(rf).total)
            return bad_launch("too little shared memory", f);
        if (!ms_grid_ok(p, gx))
            return bad_launch("grid does not cover the planes", f);
        emu_launch(ms_scale_kernels[f->mod.any][f->mod.kind], gx, gy, bx, by, p);
    } else if (f->name == "fssim_ms_reduce") {
        FSSIMCudaMsReduceParams p;
        memcpy(&p, params[0], sizeof(p));
        if (gy != 1 || gx > 4 * FSSIM_MS_SCALES || gx % FSSIM_MS_SCALES || bx != FSSIM_TILE)
            return bad_launch("grid", f);
        emu_launch(ms_reduce, gx, gy, bx, by, p);
    } else if (f->mod.type == MOD_VMAF && f->name == "fssim_vmaf_lpf") {
        FSSIMCudaVmafLpfParams p;
        memcpy(&p, params[0], sizeof(p));
        if (gy != 1 || by != 1 || !vmaf_lpf_ok(p, gx))
            return bad_launch("grid does not cover the planes", f);
        emu_launch(vmaf_lpf, gx, gy, bx, by, p);
    } else if (f->mod.type == MOD_VMAF && f->name == "fssim_vmaf_score") {
        FSSIMCudaVmafScoreParams p;
        memcpy(&p, params[0], sizeof(p));
        if (gy != 1 || (int)smem < FSSIM_VMAF_SMEM ||
            !vmaf_score_ok(p, gx))
            return bad_launch("grid or shared memory", f);
        emu_launch(vmaf_score, gx, gy, bx, by, p);
    } else if (f->mod.type == MOD_VMAF && f->name == "fssim_vmaf_reduce") {
        FSSIMCudaVmafReduceParams p;
        memcpy(&p, params[0], sizeof(p));
        if (gy != 1 || (int)gx != p.nb_jobs || p.nb_jobs > FSSIM_VMAF_MAX_JOBS)
            return bad_launch("grid", f);
        emu_launch(vmaf_reduce, gx, gy, bx, by, p);
    } else if (f->mod.type == MOD_VMAF) {
        /* fssim_vmaf_load_<8|16>: the frames' container */
        FSSIMCudaVmafLoadParams p;
        memcpy(&p, params[0], sizeof(p));
        if (gy != 1 || by != 1 || !vmaf_load_ok(p, gx))
            return bad_launch("grid does not cover the planes", f);
        if (f->name == "fssim_vmaf_load_8")
            emu_launch(vmaf_load<unsigned char>, gx, gy, bx, by, p);
        else
            emu_launch(vmaf_load<unsigned short>, gx, gy, bx, by, p);
    } else if (f->mod.type == MOD_RESAMPLE) {
        /* fssim_resample_<S>to<T>: from the rendition's container into the
         * reference's (fssim3d's: 16-bit planes) */
        const bool from8 = f->name.compare(0, 17, "fssim_resample_8t") == 0;
        const bool to8 = f->name.size() > 3 && f->name.compare(f->name.size() - 3, 3, "to8") == 0;
        FSSIMCudaResampleParams p;
        memcpy(&p, params[0], sizeof(p));
        if (gy != 1 || bx != FSSIM_TILE || !resample_grid_ok(p, gx))
            return bad_launch("grid does not cover the planes", f);
        for (int i = 0; verbose() && i < p.nb_comps; i++)
            fprintf(stderr, "[fake cuda] %s component %d: %d-row tiles, %d-bit rounding "
                    "shift\n", f->name.c_str(), i, p.comp[i].rows, p.comp[i].round);
        if (from8 && to8)
            emu_launch(resample<unsigned char, unsigned char>, gx, gy, bx, by, p);
        else if (from8)
            emu_launch(resample<unsigned char, unsigned short>, gx, gy, bx, by, p);
        else if (to8)
            emu_launch(resample<unsigned short, unsigned char>, gx, gy, bx, by, p);
        else
            emu_launch(resample<unsigned short, unsigned short>, gx, gy, bx, by, p);
    } else {
        FSSIMCudaReduceParams p;
        memcpy(&p, params[0], sizeof(p));
        if (gy < 1 || gy > FSSIM_MAX_DIST || (int)gx != p.chunk[4] || bx != FSSIM_TILE)
            return bad_launch("grid", f);
        /* each component's chunks cover its partials, one after another */
        for (int c = 0; c < 4; c++)
            if (p.chunk[c + 1] - p.chunk[c] !=
                (p.count[c] + FSSIM_REDUCE_CHUNK - 1) / FSSIM_REDUCE_CHUNK ||
                (c && p.offset[c] != p.offset[c - 1] + p.count[c - 1]))
                return bad_launch("chunks", f);
        for (unsigned i = 0; i < gy; i++)
            if (p.dist[i] < 0 || p.dist[i] >= FSSIM_MAX_DIST || (i && p.dist[i] <= p.dist[i - 1]))
                return bad_launch("renditions", f);
        emu_launch(reduce, gx, gy, bx, by, p);
    }
    return OK;
}

/* what the loader wants and fssim never calls */
#define UNUSED(name) CUresult name(void) { return UNKNOWN; }
UNUSED(cuModuleGetGlobal)
UNUSED(cuLinkCreate)
UNUSED(cuLinkAddData)
UNUSED(cuLinkComplete)
UNUSED(cuLinkDestroy)
UNUSED(cuTexObjectCreate)
UNUSED(cuTexObjectDestroy)
UNUSED(cuGLGetDevices_v2)
UNUSED(cuGraphicsGLRegisterImage)
UNUSED(cuGraphicsUnregisterResource)
UNUSED(cuGraphicsMapResources)
UNUSED(cuGraphicsUnmapResources)
UNUSED(cuGraphicsSubResourceGetMappedArray)
UNUSED(cuGraphicsResourceGetMappedPointer_v2)
UNUSED(cuArrayCreate_v2)
UNUSED(cuArray3DCreate_v2)
UNUSED(cuArrayDestroy)
UNUSED(cuD3D11GetDevice)
UNUSED(cuD3D11GetDevices)
UNUSED(cuGraphicsD3D11RegisterResource)

}
