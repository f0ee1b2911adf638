/*
 * A stand-in for the CUDA driver (libcuda.so.1) that runs fssim3d's kernels
 * through the emulator (tests/cuda/emu.h): "device" memory is host memory,
 * streams and events complete at once, kernels run on the CPU.  With it the
 * whole CUDA path of the built ffmpeg — hwcontext_cuda, hwupload, the
 * filter's host code (stream and event order, launch geometry, ring slots
 * and offsets, the window upload, the readback, the flush) — runs where no
 * GPU exists:
 *
 *   LD_LIBRARY_PATH=DIR_OF_THIS_LIB ffmpeg -init_hw_device cuda=cu ... hwupload ... fssim3d
 *
 * It proves the host logic against the software backend, not the device:
 * tests/cuda/test_cuda3d.py on a GPU does that.  Only fssim3d's kernels are
 * provided (cuModuleGetFunction fails for others).  Built and used by
 * tests/cuda/test_cuda3d_fake.sh.
 */
#include "emu.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>

struct alignas(16) float4 { float x, y, z, w; };

extern "C" {
#include "fssim3d_cuda.h"
}
#include "fssim3d.cuh"

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
enum { OK = 0, NOT_FOUND = 500, INVALID = 1, UNKNOWN = 999 };

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

struct Module { bool any; };
struct Function { std::string name; bool any; };

static int dummy_obj;
#define DUMMY ((void *)&dummy_obj)

static bool verbose(void)
{
    static int v = -1;
    if (v < 0)
        v = getenv("FAKE_CUDA_VERBOSE") != NULL;
    return v;
}

extern "C" {

CUresult cuInit(unsigned flags) { return OK; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return OK; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return OK; }
CUresult cuDeviceGet(int *d, int i) { *d = 0; return i == 0 ? OK : INVALID; }
CUresult cuDeviceGetAttribute(int *v, int attr, int dev)
{
    *v = attr == 75 ? 9 : attr == 76 ? 0 : attr == 14 || attr == 51 ? 256 : 1;
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
    void *m = aligned_alloc(256, (n + 255) & ~(size_t)255);
    if (!m)
        return 2;   /* CUDA_ERROR_OUT_OF_MEMORY */
    /* garbage, as device memory is: nothing may read what was not written */
    memset(m, 0xa5, n);
    *p = (CUdeviceptr)(uintptr_t)m;
    return OK;
}
CUresult cuMemAllocPitch_v2(CUdeviceptr *p, size_t *pitch, size_t w, size_t h, unsigned e)
{
    *pitch = (w + 255) & ~(size_t)255;
    return cuMemAlloc_v2(p, *pitch * h);
}
CUresult cuMemAllocManaged(CUdeviceptr *p, size_t n, unsigned f) { return cuMemAlloc_v2(p, n); }
CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)(uintptr_t)p); return OK; }
CUresult cuMemAllocHost_v2(void **p, size_t n) { *p = malloc(n); return *p ? OK : 2; }
CUresult cuMemFreeHost(void *p) { free(p); return OK; }
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void *s)
{
    memset((void *)(uintptr_t)d, v, n);
    return OK;
}
CUresult cuMemcpy(CUdeviceptr d, CUdeviceptr s, size_t n)
{
    memcpy((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n);
    return OK;
}
CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, void *st) { return cuMemcpy(d, s, n); }
CUresult cuMemcpy2D_v2(const Memcpy2D *c)
{
    const uint8_t *src = c->srcMemoryType == 1 ? (const uint8_t *)c->srcHost
                                               : (const uint8_t *)(uintptr_t)c->srcDevice;
    uint8_t *dst = c->dstMemoryType == 1 ? (uint8_t *)c->dstHost : (uint8_t *)(uintptr_t)c->dstDevice;
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
    memcpy((void *)(uintptr_t)d, s, n);
    return OK;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, void *st) { return cuMemcpyHtoD_v2(d, s, n); }
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n)
{
    memcpy(d, (const void *)(uintptr_t)s, n);
    return OK;
}
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, void *st) { return cuMemcpyDtoH_v2(d, s, n); }
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { return cuMemcpy(d, s, n); }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void *st) { return cuMemcpy(d, s, n); }

CUresult cuGetErrorName(CUresult e, const char **s) { *s = "CUDA_ERROR_FAKE"; return OK; }
CUresult cuGetErrorString(CUresult e, const char **s) { *s = "error in the fake CUDA driver"; return OK; }

/* streams and events: everything has completed when it returns */
CUresult cuStreamCreate(void **s, unsigned f) { *s = malloc(1); return OK; }
CUresult cuStreamQuery(void *s) { return OK; }
CUresult cuStreamSynchronize(void *s) { return OK; }
CUresult cuStreamDestroy_v2(void *s) { free(s); return OK; }
CUresult cuStreamAddCallback(void *s, void (*cb)(void *, CUresult, void *), void *u, unsigned f)
{
    cb(s, OK, u);
    return OK;
}
CUresult cuStreamWaitEvent(void *s, void *e, unsigned f) { return e ? OK : INVALID; }
CUresult cuEventCreate(void **e, unsigned f) { *e = malloc(1); return OK; }
CUresult cuEventDestroy_v2(void *e) { free(e); return OK; }
CUresult cuEventSynchronize(void *e) { return e ? OK : INVALID; }
CUresult cuEventQuery(void *e) { return e ? OK : INVALID; }
CUresult cuEventRecord(void *e, void *s) { return e ? OK : INVALID; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) { *ms = 0.001f; return a && b ? OK : INVALID; }

/* modules: fssim3d's two, told apart by the any-window kernel reading the
 * radius from its parameters (FSSIM3DCudaMomentParams.radius) */
CUresult cuModuleLoadData(void **m, const void *image)
{
    const char *ptx = (const char *)image;
    char key[64];
    Module *mod = new Module;
    snprintf(key, sizeof(key), "fssim3d_moments_param_0+%d",
             (int)offsetof(FSSIM3DCudaMomentParams, radius));
    mod->any = strstr(ptx, key) != NULL;
    if (!strstr(ptx, ".entry fssim3d_moments")) {
        delete mod;
        return 218;   /* CUDA_ERROR_INVALID_PTX: only fssim3d is emulated */
    }
    *m = mod;
    return OK;
}
CUresult cuModuleUnload(void *m) { delete (Module *)m; return OK; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name)
{
    if (strcmp(name, "fssim3d_moments") && strcmp(name, "fssim3d_score") &&
        strcmp(name, "fssim3d_sum"))
        return NOT_FOUND;
    *f = new Function{ name, ((Module *)m)->any };
    return OK;
}
CUresult cuModuleGetGlobal_v2(CUdeviceptr *p, size_t *n, void *m, const char *name) { return NOT_FOUND; }
CUresult cuFuncSetAttribute(void *f, int attr, int v) { return OK; }

static void moments_any(FSSIM3DCudaMomentParams p) { fssim3d_moments_impl<0>(p); }
static void moments_def(FSSIM3DCudaMomentParams p) { fssim3d_moments_impl<FSSIM_DEFAULT_RADIUS>(p); }
static void score(FSSIM3DCudaScoreParams p) { fssim3d_score_impl(p); }
static void sum(FSSIM3DCudaSumParams p) { fssim3d_sum_impl(p); }

CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem, void *stream,
                        void **params, void **extra)
{
    const Function *f = (const Function *)fn;
    if (gz != 1 || bz != 1 || bx * by != FSSIM_THREADS || !params || !stream)
        return INVALID;
    if (verbose())
        fprintf(stderr, "[fake cuda] %s grid %ux%u block %ux%u smem %u\n", f->name.c_str(),
                gx, gy, bx, by, smem);
    if (f->name == "fssim3d_moments") {
        FSSIM3DCudaMomentParams p;
        memcpy(&p, params[0], sizeof(p));
        if ((int)smem < fssim3d_smem_bytes(p.radius) || bx != FSSIM_TILE ||
            (!f->any && p.radius != FSSIM_DEFAULT_RADIUS))
            return INVALID;
        emu_launch(f->any ? moments_any : moments_def, gx, gy, bx, by, p);
    } else if (f->name == "fssim3d_score") {
        FSSIM3DCudaScoreParams p;
        memcpy(&p, params[0], sizeof(p));
        if (gy != 1 || by != 1)
            return INVALID;
        emu_launch(score, gx, gy, bx, by, p);
    } else {
        FSSIM3DCudaSumParams p;
        memcpy(&p, params[0], sizeof(p));
        if (gy != 1 || by != 1 || gx > 4)
            return INVALID;
        emu_launch(sum, gx, gy, bx, by, p);
    }
    return OK;
}

/* what the loader wants and fssim3d never calls */
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
