#include "device_limits.hpp"

#include "errors.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace cudabridge::cudart {
namespace {

struct capability_row {
    int major, minor;
    int threads_per_sm, blocks_per_sm;
    int shared_kib_per_sm, shared_kib_optin;
};

// CUDA C++ Programming Guide, "Technical Specifications per Compute Capability".
constexpr capability_row rows[] = {
    {7, 5, 1024, 16, 64, 64},  {8, 0, 2048, 32, 164, 163}, {8, 6, 1536, 16, 100, 99},   {8, 7, 1536, 16, 164, 163},
    {8, 9, 1536, 24, 100, 99}, {9, 0, 2048, 32, 228, 227}, {10, 0, 2048, 32, 228, 227}, {12, 0, 1536, 32, 100, 99},
};

const capability_row& row_for(int major, int minor) {
    const capability_row* best = &rows[0];
    for (const auto& r : rows)
        if (r.major < major || (r.major == major && r.minor <= minor)) best = &r;
    return *best;
}

// The texture and surface sizes of compute capability 5.0 and newer (CUDA C++ Programming Guide,
// "Technical Specifications per Compute Capability"). Textures themselves are not offered
// (cudaCreateTextureObject answers cudaErrorNotSupported); the sizes are the device's.
void fill_texture_limits(cudaDeviceProp& out) {
    out.maxTexture1D = 131072;
    out.maxTexture1DMipmap = 32768;
    out.maxTexture2D[0] = 131072;
    out.maxTexture2D[1] = 65536;
    out.maxTexture2DMipmap[0] = out.maxTexture2DMipmap[1] = 32768;
    out.maxTexture2DLinear[0] = 131072;
    out.maxTexture2DLinear[1] = 65000;
    out.maxTexture2DLinear[2] = 2097120;
    out.maxTexture2DGather[0] = out.maxTexture2DGather[1] = 32768;
    out.maxTexture3D[0] = out.maxTexture3D[1] = out.maxTexture3D[2] = 16384;
    out.maxTexture3DAlt[0] = out.maxTexture3DAlt[1] = 8192;
    out.maxTexture3DAlt[2] = 32768;
    out.maxTextureCubemap = 32768;
    out.maxTexture1DLayered[0] = 32768;
    out.maxTexture1DLayered[1] = 2048;
    out.maxTexture2DLayered[0] = out.maxTexture2DLayered[1] = 32768;
    out.maxTexture2DLayered[2] = 2048;
    out.maxTextureCubemapLayered[0] = 32768;
    out.maxTextureCubemapLayered[1] = 2046;
    out.maxSurface1D = 32768;
    out.maxSurface2D[0] = 131072;
    out.maxSurface2D[1] = 65536;
    out.maxSurface3D[0] = out.maxSurface3D[1] = out.maxSurface3D[2] = 16384;
    out.maxSurface1DLayered[0] = 32768;
    out.maxSurface1DLayered[1] = 2048;
    out.maxSurface2DLayered[0] = out.maxSurface2DLayered[1] = 32768;
    out.maxSurface2DLayered[2] = 2048;
    out.maxSurfaceCubemap = 32768;
    out.maxSurfaceCubemapLayered[0] = 32768;
    out.maxSurfaceCubemapLayered[1] = 2046;
    out.surfaceAlignment = 512;
}

}  // namespace

device_limits limits_of(const cbDeviceProp& p) {
    device_limits l;
    l.major = p.major;
    l.minor = p.minor;
    if (p.maxThreadsPerBlock > 0) l.max_threads_per_block = p.maxThreadsPerBlock;
    for (int i = 0; i < 3; ++i) {
        if (p.maxThreadsDim[i] > 0) l.max_block[i] = p.maxThreadsDim[i];
        if (p.maxGridSize[i] > 0) l.max_grid[i] = p.maxGridSize[i];
    }
    l.multiprocessors = p.multiProcessorCount;
    if (p.warpSize > 0) l.warp_size = p.warpSize;
    const capability_row& r = row_for(p.major, p.minor);
    l.max_threads_per_sm = r.threads_per_sm;
    l.max_blocks_per_sm = r.blocks_per_sm;
    if (p.sharedMemPerBlock > 0) l.shared_memory_per_block = p.sharedMemPerBlock;
    l.shared_memory_per_block_optin = std::max<size_t>(l.shared_memory_per_block, size_t(r.shared_kib_optin) * 1024);
    l.shared_memory_per_sm = size_t(r.shared_kib_per_sm) * 1024;
    return l;
}

cudaError_t device_properties(int device, cbDeviceProp& out) {
    static std::mutex mutex;
    static std::array<std::pair<bool, cbDeviceProp>, 16> cache{};
    if (device < 0 || device >= static_cast<int>(cache.size())) return record(cudaErrorInvalidDevice);
    std::lock_guard lock(mutex);
    auto& [known, prop] = cache[static_cast<size_t>(device)];
    if (!known) {
        if (cbError_t e = cbGetDeviceProperties(&prop, device); e != cbSuccess) return record(e);
        known = true;
    }
    out = prop;
    return cudaSuccess;
}

cudaError_t current_device_limits(device_limits& out) {
    int device = 0;
    if (cbError_t e = cbGetDevice(&device); e != cbSuccess) return record(e);
    cbDeviceProp p{};
    if (cudaError_t e = device_properties(device, p); e != cudaSuccess) return e;
    out = limits_of(p);
    return cudaSuccess;
}

int occupancy_blocks(const device_limits& l, int block_size, size_t dynamic_shared) {
    if (block_size > l.max_threads_per_block) return 0;
    const int warps = (block_size + l.warp_size - 1) / l.warp_size;
    int blocks = std::min(l.max_blocks_per_sm, l.max_threads_per_sm / (warps * l.warp_size));
    if (dynamic_shared > l.shared_memory_per_block_optin) return 0;
    if (dynamic_shared > 0) blocks = std::min<int>(blocks, static_cast<int>(l.shared_memory_per_sm / dynamic_shared));
    return std::max(blocks, 0);
}

void fill_cuda_properties(const cbDeviceProp& p, cudaDeviceProp& out) {
    const device_limits l = limits_of(p);
    out = cudaDeviceProp{};
    std::snprintf(out.name, sizeof out.name, "%s", p.name);
    // The runtime's uuid is text ("GPU-xxxxxxxx-..."): its hex digits give the 16 bytes.
    size_t n = 0;
    for (const char* c = p.uuid; *c && n < 32; ++c) {
        int v = -1;
        if (*c >= '0' && *c <= '9') v = *c - '0';
        if (*c >= 'a' && *c <= 'f') v = *c - 'a' + 10;
        if (*c >= 'A' && *c <= 'F') v = *c - 'A' + 10;
        if (v < 0) continue;
        out.uuid.bytes[n / 2] = static_cast<char>(out.uuid.bytes[n / 2] | (n % 2 ? v : v << 4));
        ++n;
    }
    out.totalGlobalMem = p.totalGlobalMem;
    out.sharedMemPerBlock = l.shared_memory_per_block;
    out.regsPerBlock = 65536;
    out.warpSize = l.warp_size;
    out.memPitch = 2147483647;
    out.maxThreadsPerBlock = l.max_threads_per_block;
    std::copy(std::begin(l.max_block), std::end(l.max_block), out.maxThreadsDim);
    std::copy(std::begin(l.max_grid), std::end(l.max_grid), out.maxGridSize);
    out.totalConstMem = 65536;
    out.major = p.major;
    out.minor = p.minor;
    out.textureAlignment = 512;
    out.texturePitchAlignment = 32;
    out.multiProcessorCount = p.multiProcessorCount;
    out.canMapHostMemory = 0;  // and managedMemory: the GPU family says (api_device.cpp)
    out.concurrentKernels = 1;
    unsigned domain = 0, bus = 0, device_number = 0;  // "0000:05:00.0"
    if (std::sscanf(p.pciBusId, "%x:%x:%x", &domain, &bus, &device_number) == 3) {
        out.pciDomainID = static_cast<int>(domain);
        out.pciBusID = static_cast<int>(bus);
        out.pciDeviceID = static_cast<int>(device_number);
    }
    out.asyncEngineCount = 2;
    out.unifiedAddressing = 1;
    out.memoryBusWidth = p.memoryBusWidth;
    out.l2CacheSize = p.l2CacheSize;
    out.maxThreadsPerMultiProcessor = l.max_threads_per_sm;
    out.globalL1CacheSupported = 1;
    out.localL1CacheSupported = 1;
    out.sharedMemPerMultiprocessor = l.shared_memory_per_sm;
    out.regsPerMultiprocessor = l.registers_per_sm;
    out.managedMemory = 0;
    out.sharedMemPerBlockOptin = l.shared_memory_per_block_optin;
    out.maxBlocksPerMultiProcessor = l.max_blocks_per_sm;
    out.reservedSharedMemPerBlock = 1024;
    out.hostRegisterSupported = 1;
    out.hostNumaId = -1;
    out.deviceNumaId = -1;
    out.gpuPciDeviceID = (static_cast<unsigned>(p.pciDeviceId) << 16) | static_cast<unsigned>(p.pciVendorId);
    out.computePreemptionSupported = 1;
    out.streamPrioritiesSupported = 1;
    out.memoryPoolsSupported = 1;  // stream-ordered allocation from pools (memory_pools.cpp)
    out.cooperativeLaunch = 1;     // cudaLaunchCooperativeKernel: grid-wide barriers (api_launch.cpp)
    // L2 persistence is accepted and modeled as a no-op (the simulator has no cache): the limits
    // are Ampere's rule, three quarters of L2 may persist, through windows of up to 128 MiB - 4 KiB.
    if (p.major >= 8) {
        out.persistingL2CacheMaxSize = p.l2CacheSize / 4 * 3;
        out.accessPolicyMaxWindowSize = 134213632;
    }
    fill_texture_limits(out);
}

cudaError_t check_launch_configuration(const device_limits& l, dim3 grid, dim3 block, size_t shared_memory) {
    const unsigned long long threads = 1ull * block.x * block.y * block.z;
    if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z) return cudaErrorInvalidConfiguration;
    if (threads > static_cast<unsigned long long>(l.max_threads_per_block)) return cudaErrorInvalidConfiguration;
    if (block.x > static_cast<unsigned>(l.max_block[0]) || block.y > static_cast<unsigned>(l.max_block[1]) ||
        block.z > static_cast<unsigned>(l.max_block[2]))
        return cudaErrorInvalidConfiguration;
    if (grid.x > static_cast<unsigned>(l.max_grid[0]) || grid.y > static_cast<unsigned>(l.max_grid[1]) ||
        grid.z > static_cast<unsigned>(l.max_grid[2]))
        return cudaErrorInvalidConfiguration;
    if (shared_memory > l.shared_memory_per_block_optin) return cudaErrorInvalidValue;
    return cudaSuccess;
}

std::string cooperative_grid_too_large(const device_limits& l, dim3 grid, dim3 block, size_t shared_memory,
                                       const std::string& kernel) {
    const uint64_t blocks = uint64_t{grid.x} * grid.y * grid.z;
    const int per_sm = occupancy_blocks(l, static_cast<int>(block.x * block.y * block.z), shared_memory);
    const uint64_t most = uint64_t(std::max(per_sm, 0)) * uint64_t(std::max(l.multiprocessors, 0));
    if (blocks <= most) return {};
    return "cooperative launch of " + kernel + ": " + std::to_string(blocks) + " blocks, more than the " +
           std::to_string(most) + " the device holds at once";
}

}  // namespace cudabridge::cudart
