/*
 * Copyright (c) 2026 the fssim developers
 *
 * This file is part of fssim.
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
 * What the Vulkan driver made of the fused scoring shader: the statistics
 * of VK_KHR_pipeline_executable_properties (on NVIDIA: registers per
 * invocation, shared memory, ...), for the pipeline fssim_vulkan creates
 * for one set of options.  A measuring tool, not part of the filters:
 * Nsight Compute does not profile Vulkan, and registers bound how many
 * workgroups share a multiprocessor.
 *
 *   vk_pipeline_stats SPV ALGOS DEPTH [MAIN_BUF [INVOCATIONS]]
 *
 * SPV: the build's libavfilter/fssim/fssim.comp.spv; ALGOS: the
 * FSSIM_BIT() set (float 1, int 2, block 4, psnr 8); DEPTH: bits per
 * sample; INVOCATIONS: the workgroup's (FSSIM_VK_TILE_W x FSSIM_VK_TILE_H,
 * 256).  The specialization constants are those of init_shader() in
 * filters/vulkan/fssim_be_vulkan.c for the default window (11, sigma 1.5); their
 * float values do not change the code, only its constants.
 *
 * Build: cc -O2 -Ibuild/deps/usr/include bench/vk_pipeline_stats.c -ldl
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#define CHECK(x) do { VkResult r_ = (x); if (r_ != VK_SUCCESS) { \
    fprintf(stderr, "%s: %d\n", #x, r_); exit(1); } } while (0)

static PFN_vkGetInstanceProcAddr gipa;
#define IFN(inst, name) PFN_##name name = (PFN_##name)gipa(inst, #name)

static uint32_t *read_spv(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint32_t *buf;
    long n;

    if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET)) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    buf = malloc(n);
    if (!buf || fread(buf, 1, n, f) != (size_t)n)
        exit(1);
    fclose(f);
    *size = n;
    return buf;
}

int main(int argc, char **argv)
{
    /* fssim_core.glsl's constant ids, as init_shader() sets them */
    enum { MODE, ALGOS, RF, HALO, DEEP, WIDE, C1F, C2F, G0, C1BASE = G0 + 15, C2BASE,
           BC1, BC2, SG, MAIN_BUF, NB_SPEC };
    const uint32_t sg_size = 32;
    uint32_t wg;
    size_t spv_size;
    uint32_t *spv;
    int algos, depth, main_buf;
    uint64_t data[NB_SPEC + 3];
    VkSpecializationMapEntry map[NB_SPEC + 3];
    void *lib = dlopen("libvulkan.so.1", RTLD_NOW);

    if (argc < 4 || !lib) {
        fprintf(stderr, "usage: %s SPV ALGOS DEPTH [MAIN_BUF [INVOCATIONS]] (and a Vulkan loader)\n", argv[0]);
        return 1;
    }
    spv = read_spv(argv[1], &spv_size);
    algos = atoi(argv[2]);
    depth = atoi(argv[3]);
    main_buf = argc > 4 ? atoi(argv[4]) : 0;
    wg = argc > 5 ? atoi(argv[5]) : 256;
    gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");

    VkInstance inst;
    IFN(NULL, vkCreateInstance);
    CHECK(vkCreateInstance(&(VkInstanceCreateInfo) {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pApplicationInfo = &(VkApplicationInfo) {
            .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_3 },
    }, NULL, &inst));
    IFN(inst, vkEnumeratePhysicalDevices);
    IFN(inst, vkGetPhysicalDeviceProperties);
    IFN(inst, vkCreateDevice);
    IFN(inst, vkGetDeviceProcAddr);
    uint32_t n = 1;
    VkPhysicalDevice phys;
    VkPhysicalDeviceProperties props;
    vkEnumeratePhysicalDevices(inst, &n, &phys);
    if (!n)
        return 1;
    vkGetPhysicalDeviceProperties(phys, &props);

    VkDevice dev;
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pe = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
        .pipelineExecutableInfo = VK_TRUE,
    };
    VkPhysicalDeviceVulkan13Features f13 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES, .pNext = &pe,
        .subgroupSizeControl = VK_TRUE, .computeFullSubgroups = VK_TRUE,
    };
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .pNext = &f13,
        .scalarBlockLayout = VK_TRUE, .shaderInt8 = VK_TRUE,
    };
    VkPhysicalDeviceFeatures2 f2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12,
        .features = { .shaderFloat64 = VK_TRUE, .shaderInt64 = VK_TRUE },
    };
    const char *ext[] = { VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME };
    CHECK(vkCreateDevice(phys, &(VkDeviceCreateInfo) {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f2,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &(VkDeviceQueueCreateInfo) {
            .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
            .pQueuePriorities = (float []) { 1.0f } },
        .enabledExtensionCount = 1, .ppEnabledExtensionNames = ext,
    }, NULL, &dev));
#define DFN(name) PFN_##name name = (PFN_##name)vkGetDeviceProcAddr(dev, #name)
    DFN(vkCreateShaderModule);
    DFN(vkCreateDescriptorSetLayout);
    DFN(vkCreatePipelineLayout);
    DFN(vkCreateComputePipelines);
    DFN(vkGetPipelineExecutablePropertiesKHR);
    DFN(vkGetPipelineExecutableStatisticsKHR);
    DFN(vkGetPipelineExecutableInternalRepresentationsKHR);

    VkShaderModule mod;
    CHECK(vkCreateShaderModule(dev, &(VkShaderModuleCreateInfo) {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = spv_size, .pCode = spv,
    }, NULL, &mod));

    /* 8 images, 5 buffers, 18 words of push constants: fssim_core.glsl */
    VkDescriptorSetLayoutBinding b[13];
    for (int i = 0; i < 13; i++)
        b[i] = (VkDescriptorSetLayoutBinding) {
            .binding = i, .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
            .descriptorType = i < 8 ? VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE :
                                      VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        };
    VkDescriptorSetLayout dsl;
    CHECK(vkCreateDescriptorSetLayout(dev, &(VkDescriptorSetLayoutCreateInfo) {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = 13, .pBindings = b }, NULL, &dsl));
    VkPipelineLayout pl;
    CHECK(vkCreatePipelineLayout(dev, &(VkPipelineLayoutCreateInfo) {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
        .pSetLayouts = &dsl, .pushConstantRangeCount = 1,
        .pPushConstantRanges = &(VkPushConstantRange) {
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = 18 * 4 } }, NULL, &pl));

    /* the host's constants for the default window at this depth */
    const double L = (double)((1 << depth) - 1);
    const float c1f = (float)(0.01 * L * 0.01 * L), c2f = (float)(0.03 * L * 0.03 * L);
    const double c1b = L * L * (0.01 * 0.01), c2b = L * L * (0.03 * 0.03);
    int nm = 0, off = 0;
#define SPEC32(id, v) do { uint32_t v_ = (v); memcpy((char *)data + off, &v_, 4); \
    map[nm++] = (VkSpecializationMapEntry) { id, off, 4 }; off += 4; } while (0)
#define SPEC64(id, v) do { uint64_t v_; double d_ = (v); memcpy(&v_, &d_, 8); \
    memcpy((char *)data + off, &v_, 8); map[nm++] = (VkSpecializationMapEntry) { id, off, 8 }; \
    off += 8; } while (0)
    uint32_t fb;
    SPEC32(MODE, 0);
    SPEC32(ALGOS, algos);
    SPEC32(RF, 5);
    SPEC32(HALO, 5);
    SPEC32(DEEP, depth > 8);
    SPEC32(WIDE, depth > 12);
    memcpy(&fb, &c1f, 4); SPEC32(C1F, fb);
    memcpy(&fb, &c2f, 4); SPEC32(C2F, fb);
    for (int i = 0; i < 15; i++) {
        const float g = i < 11 ? 0.05f + 0.01f * i : 0.0f;
        memcpy(&fb, &g, 4);
        SPEC32(G0 + i, fb);
    }
    SPEC64(C1BASE, c1b);
    SPEC64(C2BASE, c2b);
    {
        const uint64_t bc1 = (uint64_t)(.01 * .01 * L * L * 64 + .5);
        const uint64_t bc2 = (uint64_t)(.03 * .03 * L * L * 64 * 63 + .5);
        memcpy((char *)data + off, &bc1, 8); map[nm++] = (VkSpecializationMapEntry) { BC1, off, 8 };
        off += 8;
        memcpy((char *)data + off, &bc2, 8); map[nm++] = (VkSpecializationMapEntry) { BC2, off, 8 };
        off += 8;
    }
    SPEC32(SG, 1);
    SPEC32(MAIN_BUF, main_buf);
    SPEC32(253, wg);
    SPEC32(254, 1);
    SPEC32(255, 1);

    VkPipeline pipe;
    CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &(VkComputePipelineCreateInfo) {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR |
                 (getenv("FSSIM_IR") ? VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR : 0),
        .layout = pl,
        .stage = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .pNext = &(VkPipelineShaderStageRequiredSubgroupSizeCreateInfo) {
                .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
                .requiredSubgroupSize = sg_size },
            .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = mod, .pName = "main",
            .pSpecializationInfo = &(VkSpecializationInfo) {
                .mapEntryCount = nm, .pMapEntries = map, .dataSize = off, .pData = data },
        },
    }, NULL, &pipe));

    VkPipelineExecutablePropertiesKHR ep[4];
    uint32_t ne = 4;
    for (uint32_t i = 0; i < ne; i++)
        ep[i] = (VkPipelineExecutablePropertiesKHR) {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR };
    CHECK(vkGetPipelineExecutablePropertiesKHR(dev, &(VkPipelineInfoKHR) {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = pipe }, &ne, ep));
    printf("%s, algos %d, depth %d, main_buf %d\n", props.deviceName, algos, depth, main_buf);
    for (uint32_t e = 0; e < ne; e++) {
        VkPipelineExecutableStatisticKHR st[32];
        uint32_t ns = 32;
        for (uint32_t i = 0; i < ns; i++)
            st[i] = (VkPipelineExecutableStatisticKHR) {
                .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR };
        CHECK(vkGetPipelineExecutableStatisticsKHR(dev, &(VkPipelineExecutableInfoKHR) {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = pipe,
            .executableIndex = e }, &ns, st));
        printf("  %s (subgroup %u)\n", ep[e].name, ep[e].subgroupSize);
        for (uint32_t i = 0; i < ns; i++) {
            printf("    %-32s ", st[i].name);
            switch (st[i].format) {
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
                printf("%s\n", st[i].value.b32 ? "true" : "false"); break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
                printf("%lld\n", (long long)st[i].value.i64); break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
                printf("%llu\n", (unsigned long long)st[i].value.u64); break;
            default:
                printf("%g\n", st[i].value.f64); break;
            }
        }
        /* FSSIM_IR=file: the driver's internal representations, if it gives any */
        if (getenv("FSSIM_IR")) {
            VkPipelineExecutableInternalRepresentationKHR ir[8];
            uint32_t ni = 8;
            FILE *out = fopen(getenv("FSSIM_IR"), "w");
            for (uint32_t i = 0; i < ni; i++)
                ir[i] = (VkPipelineExecutableInternalRepresentationKHR) {
                    .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR };
            VkPipelineExecutableInfoKHR info = {
                .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = pipe,
                .executableIndex = e };
            if (!out || vkGetPipelineExecutableInternalRepresentationsKHR(dev, &info, &ni, ir) < 0)
                continue;
            for (uint32_t i = 0; i < ni; i++)
                ir[i].pData = calloc(1, ir[i].dataSize + 1);
            vkGetPipelineExecutableInternalRepresentationsKHR(dev, &info, &ni, ir);
            for (uint32_t i = 0; i < ni; i++) {
                printf("  IR %s: %zu bytes%s\n", ir[i].name, ir[i].dataSize,
                       ir[i].isText ? " of text" : "");
                fprintf(out, "==== %s\n", ir[i].name);
                fwrite(ir[i].pData, 1, ir[i].dataSize, out);
            }
            fclose(out);
        }
    }
    return 0;
}
