// Stream-ordered allocation from memory pools (cudaMallocAsync, cudaMallocFromPoolAsync,
// cudaFreeAsync, cudaMemPool*). A pool here keeps no memory of its own: an allocation is the
// runtime's cudaMalloc, ready at once (stronger than CUDA promises), and a free waits for the
// stream's earlier work before the memory goes back. What a pool does keep is what programs ask
// it: its attributes, and the bytes in use through it now and at most, as CUDA counts them
// (reserved memory equals used memory: nothing is cached past a free, whatever the release
// threshold says).
#include "errors.hpp"
#include "handles.hpp"
#include "host_functions.hpp"
#include "run_summary.hpp"
#include "stream_capture.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <set>

extern "C" {
cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaFree(void* ptr);
}

struct cudart_mem_pool {
    int device = 0;
    uint64_t release_threshold = 0;
    int reuse[3] = {1, 1, 1};  // follow event dependencies, opportunistic, internal dependencies
    uint64_t used = 0, used_high = 0;
    int access_flags = 3;  // read and write, from its own device
};

using namespace cudabridge::cudart;

namespace {

struct pools {
    std::mutex mutex;
    std::map<int, std::unique_ptr<cudart_mem_pool>> default_pools;  // per device
    std::map<int, cudaMemPool_t> current;                           // cudaDeviceSetMemPool's
    std::set<cudaMemPool_t> created;
    std::map<void*, std::pair<cudaMemPool_t, size_t>> allocations;

    cudaMemPool_t default_pool(int device) {
        auto& p = default_pools[device];
        if (!p) {
            p = std::make_unique<cudart_mem_pool>();
            p->device = device;
        }
        return p.get();
    }
    bool known(cudaMemPool_t pool) {
        if (created.count(pool)) return true;
        return std::any_of(default_pools.begin(), default_pools.end(),
                           [pool](const auto& d) { return d.second.get() == pool; });
    }
};

pools& all_pools() {
    static pools* p = new pools;  // outlives the program's static destructors, which may free
    return *p;
}

int current_device() {
    int device = 0;
    (void)cbGetDevice(&device);
    return device;
}

// cudaMallocAsync on a capturing stream: an allocation node, whose memory exists from now on for
// the graph's lifetime (the pointer is what the captured kernels were given).
bool captured_allocation(void** ptr, size_t size, cudaStream_t stream, cudaError_t& result) {
    if (!capturing(stream)) return false;
    auto a = std::make_shared<graph_allocation>();
    if (result = cudaMalloc(&a->ptr, size); result != cudaSuccess) return true;
    a->hold(size);
    remember_graph_allocation(a);
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeMemAlloc;
    node->allocation = a;
    if (captured(stream, std::move(node), result) && result == cudaSuccess) *ptr = a->ptr;
    return true;
}

bool captured_free(void* ptr, cudaStream_t stream, cudaError_t& result) {
    if (!capturing(stream)) return false;
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeMemFree;
    node->freed = ptr;
    node->allocation = graph_allocation_at(ptr);
    return captured(stream, std::move(node), result);
}

cudaError_t allocate_from(cudaMemPool_t pool, void** ptr, size_t size) {
    if (!ptr) return record(cudaErrorInvalidValue);
    if (cudaError_t e = cudaMalloc(ptr, size); e != cudaSuccess) return e;
    auto& p = all_pools();
    std::lock_guard lock(p.mutex);
    pool->used += size;
    pool->used_high = std::max(pool->used_high, pool->used);
    p.allocations[*ptr] = {pool, size};
    return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
    if (!pool) return record(cudaErrorInvalidValue);
    int count = 0;
    if (cbGetDeviceCount(&count) != cbSuccess || device < 0 || device >= count) return record(cudaErrorInvalidDevice);
    auto& p = all_pools();
    std::lock_guard lock(p.mutex);
    *pool = p.default_pool(device);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) {
    if (cudaError_t e = cudaDeviceGetDefaultMemPool(pool, device); e != cudaSuccess) return e;
    auto& p = all_pools();
    std::lock_guard lock(p.mutex);
    if (auto it = p.current.find(device); it != p.current.end()) *pool = it->second;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
    auto& p = all_pools();
    std::lock_guard lock(p.mutex);
    if (!pool || !p.known(pool) || pool->device != device) return record(cudaErrorInvalidValue);
    p.current[device] = pool;
    return cudaSuccess;
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props) {
    if (!pool || !props || props->allocType != 1 || props->location.type != cudaMemLocationTypeDevice)
        return fail(cudaErrorInvalidValue, "cudaMemPoolCreate: only pinned pools on a device are offered");
    int count = 0;
    if (cbGetDeviceCount(&count) != cbSuccess || props->location.id < 0 || props->location.id >= count)
        return record(cudaErrorInvalidDevice);
    auto* created = new cudart_mem_pool;
    created->device = props->location.id;
    auto& p = all_pools();
    std::lock_guard lock(p.mutex);
    p.created.insert(created);
    *pool = created;
    return cudaSuccess;
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
    auto& p = all_pools();
    std::lock_guard lock(p.mutex);
    if (!p.created.count(pool)) return record(cudaErrorInvalidValue);  // a default pool cannot go
    for (auto it = p.current.begin(); it != p.current.end();)
        it = it->second == pool ? p.current.erase(it) : std::next(it);
    p.created.erase(pool);
    // Allocations still out keep their memory (CUDA frees the pool once they are freed).
    for (auto& a : p.allocations)
        if (a.second.first == pool) a.second.first = p.default_pool(pool->device);
    delete pool;
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, int attribute, void* value) {
    auto& p = all_pools();
    std::lock_guard lock(p.mutex);
    if (!pool || !value || !p.known(pool)) return record(cudaErrorInvalidValue);
    switch (attribute) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        pool->reuse[attribute - 1] = *static_cast<int*>(value);
        return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold:
        pool->release_threshold = *static_cast<uint64_t*>(value);
        return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh:  // only a reset to zero is allowed: the high mark restarts
        if (*static_cast<uint64_t*>(value) != 0) return record(cudaErrorInvalidValue);
        pool->used_high = pool->used;
        return cudaSuccess;
    default:
        return record(cudaErrorInvalidValue);
    }
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, int attribute, void* value) {
    auto& p = all_pools();
    std::lock_guard lock(p.mutex);
    if (!pool || !value || !p.known(pool)) return record(cudaErrorInvalidValue);
    switch (attribute) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        *static_cast<int*>(value) = pool->reuse[attribute - 1];
        return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold:
        *static_cast<uint64_t*>(value) = pool->release_threshold;
        return cudaSuccess;
    case cudaMemPoolAttrReservedMemCurrent:
    case cudaMemPoolAttrUsedMemCurrent:
        *static_cast<uint64_t*>(value) = pool->used;
        return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh:
        *static_cast<uint64_t*>(value) = pool->used_high;
        return cudaSuccess;
    default:
        return record(cudaErrorInvalidValue);
    }
}

// Nothing is reserved past what is in use, so there is nothing to trim.
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t /*min_bytes_to_keep*/) {
    auto& p = all_pools();
    std::lock_guard lock(p.mutex);
    return pool && p.known(pool) ? cudaSuccess : record(cudaErrorInvalidValue);
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc* descs, size_t count) {
    auto& p = all_pools();
    std::lock_guard lock(p.mutex);
    if (!pool || !p.known(pool) || (count && !descs)) return record(cudaErrorInvalidValue);
    for (size_t i = 0; i < count; ++i) {
        if (descs[i].location.type != cudaMemLocationTypeDevice) return record(cudaErrorInvalidValue);
        // The pool's own device always has read-write access; peers are not offered.
        if (descs[i].location.id != pool->device) return not_supported("cudaMemPoolSetAccess (peer access)");
    }
    return cudaSuccess;
}

cudaError_t cudaMemPoolGetAccess(int* flags, cudaMemPool_t pool, cudaMemLocation* location) {
    auto& p = all_pools();
    std::lock_guard lock(p.mutex);
    if (!flags || !location || !pool || !p.known(pool)) return record(cudaErrorInvalidValue);
    *flags = location->type == cudaMemLocationTypeDevice && location->id == pool->device ? pool->access_flags : 0;
    return cudaSuccess;
}

cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream) {
    if (!ptr) return record(cudaErrorInvalidValue);
    if (cudaError_t result = cudaSuccess; captured_allocation(ptr, size, stream, result)) return result;
    {
        auto& p = all_pools();
        std::lock_guard lock(p.mutex);
        if (!pool || !p.known(pool)) return record(cudaErrorInvalidValue);
    }
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return allocate_from(pool, ptr, size);
}

cudaError_t cudaMallocFromPoolAsync_ptsz(void** ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream) {
    return cudaMallocFromPoolAsync(ptr, size, pool, per_thread_if_null(stream));
}

// The pools of a location (a device; host pools are not offered).
cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t* pool, cudaMemLocation* location, int type) {
    if (!location || location->type != cudaMemLocationTypeDevice || type != 1 /* pinned */)
        return not_supported("cudaMemGetDefaultMemPool (other than a device's pinned pool)");
    return cudaDeviceGetDefaultMemPool(pool, location->id);
}
cudaError_t cudaMemGetMemPool(cudaMemPool_t* pool, cudaMemLocation* location, int type) {
    if (!location || location->type != cudaMemLocationTypeDevice || type != 1)
        return not_supported("cudaMemGetMemPool (other than a device's pinned pool)");
    return cudaDeviceGetMemPool(pool, location->id);
}
cudaError_t cudaMemSetMemPool(cudaMemLocation* location, int type, cudaMemPool_t pool) {
    if (!location || location->type != cudaMemLocationTypeDevice || type != 1)
        return not_supported("cudaMemSetMemPool (other than a device's pinned pool)");
    return cudaDeviceSetMemPool(location->id, pool);
}

cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t stream) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    cudaMemPool_t pool = nullptr;
    if (cudaError_t e = cudaDeviceGetMemPool(&pool, current_device()); e != cudaSuccess) return e;
    return cudaMallocFromPoolAsync(ptr, size, pool, stream);
}

cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) {
    if (cudaError_t result = cudaSuccess; captured_free(ptr, stream, result)) return result;
    if (graph_allocation_at(ptr)) return cudaSuccess;  // a graph's memory lives as long as the graph
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbStreamSynchronize(ordered(stream)); e != cbSuccess) return record(e);
    {
        auto& p = all_pools();
        std::lock_guard lock(p.mutex);
        if (auto it = p.allocations.find(ptr); it != p.allocations.end()) {
            it->second.first->used -= it->second.second;
            p.allocations.erase(it);
        }
    }
    return cudaFree(ptr);
}

}  // extern "C"
