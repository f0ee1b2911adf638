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
 * A Vulkan layer for fssim's tests that fakes a lost or a hung device, so
 * that the GPU error paths of fssim_vulkan run on any Vulkan driver
 * (lavapipe).
 *
 * Loaded by the loader from fault_layer.json next to this library:
 *     VK_ADD_LAYER_PATH=<dir> VK_INSTANCE_LAYERS=VK_LAYER_FSSIM_fault
 * and set up by the environment:
 *     FSSIM_FAULT="device_lost_after=N[,scope=all|dispatch]"
 *     FSSIM_FAULT="stall_after=N[,stall=dispatch|decode]"
 *
 * A "frame" is a queue submission holding a command buffer that records a
 * compute dispatch (what fssim_vulkan submits once per frame; hwupload's
 * transfers have none).  Once N of them went through, the device is lost:
 *   scope=all (default): every vkQueueSubmit/vkQueueSubmit2 returns
 *     VK_ERROR_DEVICE_LOST without submitting, every vkWaitForFences and
 *     vkGetFenceStatus returns it too, as a real lost device does;
 *   scope=dispatch: only the submissions with a dispatch and the fences of
 *     such submissions fail; the uploads keep working, so that the error
 *     reaches the filter itself while the run goes on.
 * N = 0: the first frame's submission already fails.

stall_after=N: a hung device.  After N submissions of the kind stalled
(stall=dispatch, the default: those with a compute dispatch, fssim_vulkan's
frames; stall=decode: those with a video decode, a Vulkan Video decoder's
frames), the fences of every later one never signal as far as the
application can tell: vkGetFenceStatus returns VK_NOT_READY, and
vkWaitForFences returns VK_TIMEOUT once its timeout has passed, or never
returns when the timeout is UINT64_MAX, as on a hung device.  The work
itself runs, so that nothing the application frees is still in use.
 *
 * Work already handed to the driver still runs to its end: before any
 * loss is reported the layer waits for the device to be idle, as a lost
 * device is, so that the application never frees what the driver still
 * uses (lavapipe's queue thread can still hold a command buffer for a
 * moment after its fence signalled).
 * Without FSSIM_FAULT the layer only passes calls through.
 *
 * This file is part of fssim's tests.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_OBJS 4096

/* ---- configuration and fault state ------------------------------------ */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t lost_after = -1;      /* -1: no fault */
static int scope_dispatch;
static int64_t frames;               /* submissions with a dispatch that went through */
static int64_t stall_after = -1;     /* -1: no stall */
static int stall_kind = 1;           /* KIND_DISPATCH or KIND_DECODE */
static int64_t stall_seen;           /* submissions of stall_kind that went through */

/* What a command buffer records (Set flags), and the flags of a fence. */
#define KIND_DISPATCH 1
#define KIND_DECODE   2
#define FENCE_STALLED 4

static void parse_config(void)
{
    static int done;
    const char *env;
    char buf[256], *tok, *save = NULL;

    if (done)
        return;
    done = 1;
    env = getenv("FSSIM_FAULT");
    if (!env || !*env)
        return;
    snprintf(buf, sizeof(buf), "%s", env);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!strncmp(tok, "device_lost_after=", 18))
            lost_after = strtoll(tok + 18, NULL, 10);
        else if (!strcmp(tok, "scope=dispatch"))
            scope_dispatch = 1;
        else if (!strcmp(tok, "scope=all"))
            scope_dispatch = 0;
        else if (!strncmp(tok, "stall_after=", 12))
            stall_after = strtoll(tok + 12, NULL, 10);
        else if (!strcmp(tok, "stall=dispatch"))
            stall_kind = KIND_DISPATCH;
        else if (!strcmp(tok, "stall=decode"))
            stall_kind = KIND_DECODE;
        else
            fprintf(stderr, "[fssim fault layer] unknown FSSIM_FAULT item '%s'\n", tok);
    }
    if (lost_after >= 0)
        fprintf(stderr, "[fssim fault layer] the device is lost after %"PRId64" frame "
                "submissions (%s)\n", lost_after, scope_dispatch ? "dispatch only" : "all");
    if (stall_after >= 0)
        fprintf(stderr, "[fssim fault layer] the fences of %s submissions stall after "
                "%"PRId64" of them\n", stall_kind == KIND_DECODE ? "video decode" : "dispatch",
                stall_after);
}

static int is_lost(void)
{
    return lost_after >= 0 && frames >= lost_after;
}

/* Small sets of handles (command buffers with a dispatch or a decode, and
 * which; fences of real submissions, flagged with their submission's kinds
 * and FENCE_STALLED). */
typedef struct Set {
    uint64_t key[MAX_OBJS];
    int flag[MAX_OBJS];
    int n;
} Set;

static Set dispatch_cbs, fences;

static int set_find(const Set *s, uint64_t k)
{
    for (int i = 0; i < s->n; i++)
        if (s->key[i] == k)
            return i;
    return -1;
}

static void set_put(Set *s, uint64_t k, int flag)
{
    int i = set_find(s, k);
    if (i < 0) {
        if (s->n == MAX_OBJS)
            return;
        i = s->n++;
        s->key[i] = k;
    }
    s->flag[i] = flag;
}

static void set_del(Set *s, uint64_t k)
{
    int i = set_find(s, k);
    if (i >= 0) {
        s->n--;
        s->key[i] = s->key[s->n];
        s->flag[i] = s->flag[s->n];
    }
}

#define HKEY(h) ((uint64_t)(uintptr_t)(h))

/* ---- dispatch tables ---------------------------------------------------- */

/* Dispatchable handles start with the loader's dispatch table pointer, the
 * same for a device and its queues and command buffers. */
#define DKEY(h) (*(void **)(h))

typedef struct InstanceData {
    void *key;
    VkInstance instance;
    PFN_vkGetInstanceProcAddr gipa;
    PFN_vkDestroyInstance DestroyInstance;
} InstanceData;

typedef struct DeviceData {
    void *key;
    VkDevice device;
    PFN_vkGetDeviceProcAddr gdpa;
    PFN_vkDestroyDevice DestroyDevice;
    PFN_vkDeviceWaitIdle DeviceWaitIdle;
    PFN_vkQueueSubmit QueueSubmit;
    PFN_vkQueueSubmit2 QueueSubmit2;
    PFN_vkQueueSubmit2 QueueSubmit2KHR;
    PFN_vkWaitForFences WaitForFences;
    PFN_vkGetFenceStatus GetFenceStatus;
    PFN_vkResetFences ResetFences;
    PFN_vkDestroyFence DestroyFence;
    PFN_vkBeginCommandBuffer BeginCommandBuffer;
    PFN_vkCmdDispatch CmdDispatch;
    PFN_vkCmdDispatchBase CmdDispatchBase;
    PFN_vkCmdDispatchIndirect CmdDispatchIndirect;
    PFN_vkCmdDecodeVideoKHR CmdDecodeVideoKHR;
} DeviceData;

static InstanceData instances[16];
static DeviceData devices[16];
static VkInstance last_instance;

static InstanceData *instance_data(void *key)
{
    for (int i = 0; i < 16; i++)
        if (instances[i].key == key)
            return &instances[i];
    return NULL;
}

static DeviceData *device_data(void *key)
{
    for (int i = 0; i < 16; i++)
        if (devices[i].key == key)
            return &devices[i];
    return NULL;
}

/* ---- instance ----------------------------------------------------------- */

static VKAPI_ATTR VkResult VKAPI_CALL
layer_CreateInstance(const VkInstanceCreateInfo *info, const VkAllocationCallbacks *alloc,
                     VkInstance *inst)
{
    VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)info->pNext;
    PFN_vkGetInstanceProcAddr gipa;
    PFN_vkCreateInstance create;
    InstanceData *d;
    VkResult res;

    while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
                     link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerInstanceCreateInfo *)link->pNext;
    if (!link)
        return VK_ERROR_INITIALIZATION_FAILED;
    gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    /* the next layer gets the rest of the chain */
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    if (!create)
        return VK_ERROR_INITIALIZATION_FAILED;
    res = create(info, alloc, inst);
    if (res != VK_SUCCESS)
        return res;

    pthread_mutex_lock(&lock);
    parse_config();
    d = instance_data(NULL);
    if (d) {
        d->key = DKEY(*inst);
        d->instance = *inst;
        d->gipa = gipa;
        d->DestroyInstance = (PFN_vkDestroyInstance)gipa(*inst, "vkDestroyInstance");
    }
    last_instance = *inst;
    pthread_mutex_unlock(&lock);
    return d ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
}

static VKAPI_ATTR void VKAPI_CALL
layer_DestroyInstance(VkInstance inst, const VkAllocationCallbacks *alloc)
{
    InstanceData *d;
    PFN_vkDestroyInstance destroy = NULL;

    if (!inst)
        return;
    pthread_mutex_lock(&lock);
    d = instance_data(DKEY(inst));
    if (d) {
        destroy = d->DestroyInstance;
        memset(d, 0, sizeof(*d));
    }
    pthread_mutex_unlock(&lock);
    if (destroy)
        destroy(inst, alloc);
}

/* ---- device ------------------------------------------------------------- */

static VKAPI_ATTR VkResult VKAPI_CALL
layer_CreateDevice(VkPhysicalDevice phys, const VkDeviceCreateInfo *info,
                   const VkAllocationCallbacks *alloc, VkDevice *dev)
{
    VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)info->pNext;
    PFN_vkGetInstanceProcAddr gipa;
    PFN_vkGetDeviceProcAddr gdpa;
    PFN_vkCreateDevice create;
    DeviceData *d;
    VkResult res;

    while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
                     link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerDeviceCreateInfo *)link->pNext;
    if (!link)
        return VK_ERROR_INITIALIZATION_FAILED;
    gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    create = (PFN_vkCreateDevice)gipa(last_instance, "vkCreateDevice");
    if (!create)
        return VK_ERROR_INITIALIZATION_FAILED;
    res = create(phys, info, alloc, dev);
    if (res != VK_SUCCESS)
        return res;

    pthread_mutex_lock(&lock);
    d = device_data(NULL);
    if (d) {
        d->key    = DKEY(*dev);
        d->device = *dev;
        d->gdpa   = gdpa;
#define LOAD(name) d->name = (void *)gdpa(*dev, "vk" #name)
        LOAD(DestroyDevice);
        LOAD(DeviceWaitIdle);
        LOAD(QueueSubmit);
        LOAD(QueueSubmit2);
        LOAD(QueueSubmit2KHR);
        LOAD(WaitForFences);
        LOAD(GetFenceStatus);
        LOAD(ResetFences);
        LOAD(DestroyFence);
        LOAD(BeginCommandBuffer);
        LOAD(CmdDispatch);
        LOAD(CmdDispatchBase);
        LOAD(CmdDispatchIndirect);
        LOAD(CmdDecodeVideoKHR);
#undef LOAD
    }
    pthread_mutex_unlock(&lock);
    return d ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
}

static VKAPI_ATTR void VKAPI_CALL
layer_DestroyDevice(VkDevice dev, const VkAllocationCallbacks *alloc)
{
    DeviceData *d;
    PFN_vkDestroyDevice destroy = NULL;

    if (!dev)
        return;
    pthread_mutex_lock(&lock);
    d = device_data(DKEY(dev));
    if (d) {
        destroy = d->DestroyDevice;
        memset(d, 0, sizeof(*d));
    }
    pthread_mutex_unlock(&lock);
    if (destroy)
        destroy(dev, alloc);
}

static DeviceData *dev_of(void *handle)
{
    DeviceData *d;
    pthread_mutex_lock(&lock);
    d = device_data(DKEY(handle));
    pthread_mutex_unlock(&lock);
    return d;
}

/* ---- command buffers: which ones dispatch -------------------------------- */

static VKAPI_ATTR VkResult VKAPI_CALL
layer_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info)
{
    pthread_mutex_lock(&lock);
    set_del(&dispatch_cbs, HKEY(cb));
    pthread_mutex_unlock(&lock);
    return dev_of(cb)->BeginCommandBuffer(cb, info);
}

static void mark_cb(VkCommandBuffer cb, int kind)
{
    int i;
    pthread_mutex_lock(&lock);
    i = set_find(&dispatch_cbs, HKEY(cb));
    set_put(&dispatch_cbs, HKEY(cb), kind | (i >= 0 ? dispatch_cbs.flag[i] : 0));
    pthread_mutex_unlock(&lock);
}

static void mark_dispatch(VkCommandBuffer cb)
{
    mark_cb(cb, KIND_DISPATCH);
}

static VKAPI_ATTR void VKAPI_CALL
layer_CmdDecodeVideoKHR(VkCommandBuffer cb, const VkVideoDecodeInfoKHR *info)
{
    mark_cb(cb, KIND_DECODE);
    dev_of(cb)->CmdDecodeVideoKHR(cb, info);
}

static VKAPI_ATTR void VKAPI_CALL
layer_CmdDispatch(VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z)
{
    mark_dispatch(cb);
    dev_of(cb)->CmdDispatch(cb, x, y, z);
}

static VKAPI_ATTR void VKAPI_CALL
layer_CmdDispatchBase(VkCommandBuffer cb, uint32_t bx, uint32_t by, uint32_t bz,
                      uint32_t x, uint32_t y, uint32_t z)
{
    mark_dispatch(cb);
    dev_of(cb)->CmdDispatchBase(cb, bx, by, bz, x, y, z);
}

static VKAPI_ATTR void VKAPI_CALL
layer_CmdDispatchIndirect(VkCommandBuffer cb, VkBuffer buf, VkDeviceSize off)
{
    mark_dispatch(cb);
    dev_of(cb)->CmdDispatchIndirect(cb, buf, off);
}

/* ---- submissions ---------------------------------------------------------- */

/* What a lost device has: nothing running any more. */
static VkResult report_lost(DeviceData *d)
{
    d->DeviceWaitIdle(d->device);
    return VK_ERROR_DEVICE_LOST;
}

/* Called with the lock held: decide for a submission; 1: fail it. */
static int submit_fails(int has_dispatch)
{
    return is_lost() && (!scope_dispatch || has_dispatch);
}

/* A submission of these kinds went through: its fence's flags. */
static void submitted(VkFence fence, int kinds)
{
    int flags = kinds;

    if (stall_after >= 0 && (kinds & stall_kind) && stall_seen++ >= stall_after)
        flags |= FENCE_STALLED;
    if (fence)
        set_put(&fences, HKEY(fence), flags);
    if (kinds & KIND_DISPATCH)
        frames++;
}

/* The kinds of the command buffer cb (0: neither dispatch nor decode); lock held. */
static int cb_kinds(VkCommandBuffer cb)
{
    const int i = set_find(&dispatch_cbs, HKEY(cb));
    return i >= 0 ? dispatch_cbs.flag[i] : 0;
}

static VKAPI_ATTR VkResult VKAPI_CALL
layer_QueueSubmit(VkQueue q, uint32_t n, const VkSubmitInfo *info, VkFence fence)
{
    int disp = 0;
    VkResult res;

    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < info[i].commandBufferCount; j++)
            disp |= cb_kinds(info[i].pCommandBuffers[j]);
    if (submit_fails(disp & KIND_DISPATCH)) {
        pthread_mutex_unlock(&lock);
        return report_lost(dev_of(q));
    }
    pthread_mutex_unlock(&lock);
    res = dev_of(q)->QueueSubmit(q, n, info, fence);
    if (res == VK_SUCCESS) {
        pthread_mutex_lock(&lock);
        submitted(fence, disp);
        pthread_mutex_unlock(&lock);
    }
    return res;
}

static VkResult submit2(VkQueue q, uint32_t n, const VkSubmitInfo2 *info, VkFence fence,
                        int khr)
{
    DeviceData *d = dev_of(q);
    int disp = 0;
    VkResult res;

    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < info[i].commandBufferInfoCount; j++)
            disp |= cb_kinds(info[i].pCommandBufferInfos[j].commandBuffer);
    if (submit_fails(disp & KIND_DISPATCH)) {
        pthread_mutex_unlock(&lock);
        return report_lost(d);
    }
    pthread_mutex_unlock(&lock);
    res = (khr ? d->QueueSubmit2KHR : d->QueueSubmit2)(q, n, info, fence);
    if (res == VK_SUCCESS) {
        pthread_mutex_lock(&lock);
        submitted(fence, disp);
        pthread_mutex_unlock(&lock);
    }
    return res;
}

static VKAPI_ATTR VkResult VKAPI_CALL
layer_QueueSubmit2(VkQueue q, uint32_t n, const VkSubmitInfo2 *info, VkFence fence)
{
    return submit2(q, n, info, fence, 0);
}

static VKAPI_ATTR VkResult VKAPI_CALL
layer_QueueSubmit2KHR(VkQueue q, uint32_t n, const VkSubmitInfo2 *info, VkFence fence)
{
    return submit2(q, n, info, fence, 1);
}

/* ---- fences ---------------------------------------------------------------- */

/* With the device lost: does this fence report the loss?  Lock held. */
static int fence_lost(VkFence fence)
{
    const int i = set_find(&fences, HKEY(fence));
    return is_lost() && (!scope_dispatch || (i >= 0 && (fences.flag[i] & KIND_DISPATCH)));
}

/* Whether the application is never told that this fence signalled.  Lock held. */
static int fence_stalled(VkFence fence)
{
    const int i = set_find(&fences, HKEY(fence));
    return i >= 0 && (fences.flag[i] & FENCE_STALLED);
}

/* A wait on a stalled fence: its timeout, or for good. */
static VkResult stall(uint64_t timeout)
{
    struct timespec ts;

    if (timeout == UINT64_MAX)
        for (;;)
            sleep(60);
    ts.tv_sec  = timeout / 1000000000u;
    ts.tv_nsec = timeout % 1000000000u;
    while (nanosleep(&ts, &ts) < 0)
        ;
    return VK_TIMEOUT;
}

static VKAPI_ATTR VkResult VKAPI_CALL
layer_WaitForFences(VkDevice dev, uint32_t n, const VkFence *f, VkBool32 all, uint64_t timeout)
{
    DeviceData *d = dev_of(dev);
    int lost = 0, stalled = 0;

    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < n; i++) {
        lost |= fence_lost(f[i]);
        stalled += fence_stalled(f[i]);
    }
    pthread_mutex_unlock(&lock);
    if (lost)
        return report_lost(d);
    /* waiting for all of them, or for any while every one is stalled */
    if (stalled && (all || stalled == n))
        return stall(timeout);
    return d->WaitForFences(dev, n, f, all, timeout);
}

static VKAPI_ATTR VkResult VKAPI_CALL
layer_GetFenceStatus(VkDevice dev, VkFence fence)
{
    DeviceData *d = dev_of(dev);
    int lost, stalled;

    pthread_mutex_lock(&lock);
    lost    = fence_lost(fence);
    stalled = fence_stalled(fence);
    pthread_mutex_unlock(&lock);
    if (lost)
        return report_lost(d);
    return stalled ? VK_NOT_READY : d->GetFenceStatus(dev, fence);
}

static VKAPI_ATTR void VKAPI_CALL
layer_DestroyFence(VkDevice dev, VkFence fence, const VkAllocationCallbacks *alloc)
{
    pthread_mutex_lock(&lock);
    set_del(&fences, HKEY(fence));
    pthread_mutex_unlock(&lock);
    dev_of(dev)->DestroyFence(dev, fence, alloc);
}

static VKAPI_ATTR VkResult VKAPI_CALL
layer_ResetFences(VkDevice dev, uint32_t n, const VkFence *f)
{
    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < n; i++)
        set_del(&fences, HKEY(f[i]));
    pthread_mutex_unlock(&lock);
    return dev_of(dev)->ResetFences(dev, n, f);
}

/* ---- entry points ------------------------------------------------------------ */

static PFN_vkVoidFunction device_hook(const char *name)
{
#define HOOK(fn) if (!strcmp(name, "vk" #fn)) return (PFN_vkVoidFunction)layer_##fn
    HOOK(DestroyDevice);
    HOOK(QueueSubmit);
    HOOK(QueueSubmit2);
    HOOK(QueueSubmit2KHR);
    HOOK(WaitForFences);
    HOOK(GetFenceStatus);
    HOOK(ResetFences);
    HOOK(DestroyFence);
    HOOK(BeginCommandBuffer);
    HOOK(CmdDispatch);
    HOOK(CmdDispatchBase);
    HOOK(CmdDispatchIndirect);
    HOOK(CmdDecodeVideoKHR);
#undef HOOK
    if (!strcmp(name, "vkCmdDispatchBaseKHR"))
        return (PFN_vkVoidFunction)layer_CmdDispatchBase;
    return NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
fssim_fault_GetDeviceProcAddr(VkDevice dev, const char *name)
{
    PFN_vkVoidFunction f;
    DeviceData *d;

    if (!strcmp(name, "vkGetDeviceProcAddr"))
        return (PFN_vkVoidFunction)fssim_fault_GetDeviceProcAddr;
    d = dev ? dev_of(dev) : NULL;
    if (!d)
        return NULL;
    f = device_hook(name);
    /* only what the driver has: a hook for a missing function would crash */
    if (f && !d->gdpa(dev, name))
        return NULL;
    return f ? f : d->gdpa(dev, name);
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
fssim_fault_GetInstanceProcAddr(VkInstance inst, const char *name)
{
    InstanceData *d;
    PFN_vkVoidFunction f;

    if (!strcmp(name, "vkGetInstanceProcAddr"))
        return (PFN_vkVoidFunction)fssim_fault_GetInstanceProcAddr;
    if (!strcmp(name, "vkCreateInstance"))
        return (PFN_vkVoidFunction)layer_CreateInstance;
    if (!strcmp(name, "vkGetDeviceProcAddr"))
        return (PFN_vkVoidFunction)fssim_fault_GetDeviceProcAddr;
    if (!inst)
        return NULL;
    if (!strcmp(name, "vkDestroyInstance"))
        return (PFN_vkVoidFunction)layer_DestroyInstance;
    if (!strcmp(name, "vkCreateDevice"))
        return (PFN_vkVoidFunction)layer_CreateDevice;
    pthread_mutex_lock(&lock);
    d = instance_data(DKEY(inst));
    pthread_mutex_unlock(&lock);
    if (!d)
        return NULL;
    f = device_hook(name);
    if (f && !d->gipa(inst, name))
        return NULL;
    return f ? f : d->gipa(inst, name);
}

/* The loader's interface, version 2: the entry points by negotiation. */
EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v)
{
    if (v->loaderLayerInterfaceVersion < 2)
        return VK_ERROR_INITIALIZATION_FAILED;
    v->loaderLayerInterfaceVersion = 2;
    v->pfnGetInstanceProcAddr = fssim_fault_GetInstanceProcAddr;
    v->pfnGetDeviceProcAddr = fssim_fault_GetDeviceProcAddr;
    v->pfnGetPhysicalDeviceProcAddr = NULL;
    return VK_SUCCESS;
}
