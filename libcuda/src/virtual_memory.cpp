// Virtual memory management (cuMemAddressReserve, cuMemCreate, cuMemMap): programs reserve an
// address range, create physical allocations and map them into it, as vectorAddMMAP and growing
// allocators do. The simulated GPU's addresses are its memory's own, with no page table between,
// so a reservation is backed when it is made (device memory the size of the range) and mapping an
// allocation binds it to its place in the range. What that cannot show is refused by name: an
// allocation mapped at two places at once (aliasing), a mapping that starts inside an allocation
// (offset), exported handles. An allocation keeps its bytes while unmapped: they are moved aside
// at cuMemUnmap and back at its next cuMemMap. Access is not checked per mapping: cuMemSetAccess
// is accepted for this device, and the whole reservation is reachable.
#include "contexts.hpp"
#include "results.hpp"
#include "runtime_calls.hpp"

#include <map>
#include <mutex>

using namespace cudabridge::libcuda;

namespace {

// Physical allocations and mappings come in these (CUDA's on current GPUs).
constexpr size_t granularity = 2u << 20;

struct reservation {
    size_t size = 0;
    void* backing = nullptr;  // cudaMalloc'ed; the reserved range starts at its first granule
};

struct allocation {
    size_t size = 0;
    CUmemAllocationProp prop{};
    CUdeviceptr mapped_at = 0;                         // 0: not mapped
    void* parked = nullptr;                            // its bytes while unmapped, once it has been mapped
    int references = 1;                                // cuMemCreate and each cuMemRetainAllocationHandle; cuMemRelease
    bool released() const { return references == 0; }  // while mapped: it goes at its unmap
};

std::mutex mutex;
std::map<CUdeviceptr, reservation> reservations;             // by start
std::map<CUmemGenericAllocationHandle, allocation> handles;  // by handle
CUmemGenericAllocationHandle next_handle = 1;

void* as_pointer(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

// The reservation holding [ptr, ptr + size); nullptr when none holds all of it (mutex held).
const reservation* reservation_of(CUdeviceptr ptr, size_t size) {
    auto it = reservations.upper_bound(ptr);
    if (it == reservations.begin()) return nullptr;
    --it;
    if (ptr - it->first > it->second.size || size > it->second.size - (ptr - it->first)) return nullptr;
    return &it->second;
}

bool on_this_device(const CUmemLocation& l) {
    CUdevice device = 0;
    return l.type == CU_MEM_LOCATION_TYPE_DEVICE && cuCtxGetDevice(&device) == CUDA_SUCCESS && l.id == device;
}

CUresult check_prop(const CUmemAllocationProp* prop, const char* what) {
    if (!prop || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED) return fail(CUDA_ERROR_INVALID_VALUE, what);
    if (!on_this_device(prop->location))
        return fail(CUDA_ERROR_INVALID_DEVICE, std::string(what) + ": the location is not the current device");
    if (prop->requestedHandleTypes != 0) return not_supported("exportable VMM allocations (IPC handles)");
    if (prop->allocFlags.compressionType != 0) return not_supported("compressible memory");
    return CUDA_SUCCESS;
}

// Moves an allocation's bytes between its place in a reservation and a buffer of its own.
CUresult move_bytes(void* to, const void* from, size_t size) {
    return from_runtime(cudaMemcpy(to, from, size, cudaMemcpyDeviceToDevice));
}

CUresult unmap_one(allocation& a) {
    if (!a.parked && !a.released()) {
        if (cudaError_t e = cudaMalloc(&a.parked, a.size); e != cudaSuccess) return from_runtime(e);
    }
    if (!a.released())
        if (CUresult r = move_bytes(a.parked, as_pointer(a.mapped_at), a.size); r != CUDA_SUCCESS) return r;
    a.mapped_at = 0;
    return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

CUresult cuMemGetAllocationGranularity(size_t* out, const CUmemAllocationProp* prop, int option) {
    if (!out || (option != 0 && option != 1)) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_prop(prop, "cuMemGetAllocationGranularity"); r != CUDA_SUCCESS) return r;
    *out = granularity;
    return CUDA_SUCCESS;
}

CUresult cuMemAddressReserve(CUdeviceptr* ptr, size_t size, size_t alignment, CUdeviceptr addr,
                             unsigned long long flags) {
    if (!ptr || size == 0 || size % granularity || flags != 0 || (alignment & (alignment - 1)))
        return fail(CUDA_ERROR_INVALID_VALUE,
                    "cuMemAddressReserve: a size in whole granules (cuMemGetAllocationGranularity), flags 0, "
                    "a power-of-two alignment");
    (void)addr;  // a hint, as in CUDA
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    if (alignment > granularity) return not_supported("cuMemAddressReserve with an alignment above 2 MiB");
    // One granule more, so that the range can start on a granule.
    void* backing = nullptr;
    if (cudaError_t e = cudaMalloc(&backing, size + granularity); e != cudaSuccess) return from_runtime(e);
    std::lock_guard lock(mutex);
    *ptr = (reinterpret_cast<uintptr_t>(backing) + granularity - 1) / granularity * granularity;
    reservations[*ptr] = {size, backing};
    return CUDA_SUCCESS;
}

CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
    std::lock_guard lock(mutex);
    auto it = reservations.find(ptr);
    if (it == reservations.end() || it->second.size != size)
        return fail(CUDA_ERROR_INVALID_VALUE, "cuMemAddressFree: not a range cuMemAddressReserve gave");
    for (const auto& [h, a] : handles)
        if (a.mapped_at >= ptr && a.mapped_at < ptr + size)
            return fail(CUDA_ERROR_INVALID_VALUE, "cuMemAddressFree: the range still has mappings (cuMemUnmap)");
    const cudaError_t e = cudaFree(it->second.backing);
    reservations.erase(it);
    return from_runtime(e);
}

CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size, const CUmemAllocationProp* prop,
                     unsigned long long flags) {
    if (!handle || size == 0 || size % granularity || flags != 0)
        return fail(CUDA_ERROR_INVALID_VALUE, "cuMemCreate: a size in whole granules, flags 0");
    if (CUresult r = check_prop(prop, "cuMemCreate"); r != CUDA_SUCCESS) return r;
    std::lock_guard lock(mutex);
    *handle = next_handle++;
    handles[*handle] = {size, *prop, 0, nullptr, 1};
    return CUDA_SUCCESS;
}

CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
    std::lock_guard lock(mutex);
    auto it = handles.find(handle);
    if (it == handles.end() || it->second.released())
        return fail(CUDA_ERROR_INVALID_VALUE, "cuMemRelease: no such handle");
    allocation& a = it->second;
    if (--a.references > 0) return CUDA_SUCCESS;
    if (a.parked) cudaFree(a.parked), a.parked = nullptr;
    if (!a.mapped_at) handles.erase(it);  // else its memory goes with its mapping, as in CUDA
    return CUDA_SUCCESS;
}

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                  unsigned long long flags) {
    std::lock_guard lock(mutex);
    auto it = handles.find(handle);
    if (it == handles.end() || it->second.released() || flags != 0)
        return fail(CUDA_ERROR_INVALID_VALUE, "cuMemMap: no such handle, or flags not 0");
    allocation& a = it->second;
    if (offset != 0 || size != a.size) return not_supported("cuMemMap of part of an allocation");
    if (a.mapped_at) return not_supported("an allocation mapped at two addresses at once (cuMemMap aliasing)");
    if (ptr % granularity || !reservation_of(ptr, size))
        return fail(CUDA_ERROR_INVALID_VALUE, "cuMemMap: the range is not granule-aligned inside one reservation");
    for (const auto& [h, other] : handles)
        if (other.mapped_at && ptr < other.mapped_at + other.size && other.mapped_at < ptr + size)
            return fail(CUDA_ERROR_INVALID_VALUE, "cuMemMap: the range is already mapped");
    if (a.parked) {
        if (CUresult r = move_bytes(as_pointer(ptr), a.parked, size); r != CUDA_SUCCESS) return r;
        cudaFree(a.parked);
        a.parked = nullptr;
    }
    a.mapped_at = ptr;
    return CUDA_SUCCESS;
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
    std::lock_guard lock(mutex);
    if (!reservation_of(ptr, size)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemUnmap: not inside one reservation");
    for (auto it = handles.begin(); it != handles.end();) {
        allocation& a = it->second;
        const bool inside = a.mapped_at && a.mapped_at >= ptr && a.mapped_at + a.size <= ptr + size;
        if (a.mapped_at && !inside && ptr < a.mapped_at + a.size && a.mapped_at < ptr + size)
            return not_supported("cuMemUnmap of part of a mapping");
        if (inside)
            if (CUresult r = unmap_one(a); r != CUDA_SUCCESS) return r;
        it = inside && a.released() ? handles.erase(it) : std::next(it);
    }
    return CUDA_SUCCESS;
}

CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc, size_t count) {
    if (!desc || count == 0) return CUDA_ERROR_INVALID_VALUE;
    {
        std::lock_guard lock(mutex);
        if (!reservation_of(ptr, size))
            return fail(CUDA_ERROR_INVALID_VALUE, "cuMemSetAccess: not inside one reservation");
    }
    for (size_t i = 0; i < count; ++i) {
        if (!on_this_device(desc[i].location)) return not_supported("cuMemSetAccess for another device or the host");
        if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return not_supported("cuMemSetAccess other than read-write (access is not checked per mapping)");
    }
    return CUDA_SUCCESS;
}

CUresult cuMemGetAccess(unsigned long long* flags, const CUmemLocation* location, CUdeviceptr ptr) {
    if (!flags || !location) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lock(mutex);
    if (!reservation_of(ptr, 1)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemGetAccess: not inside a reservation");
    *flags = on_this_device(*location) ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : 0;
    return CUDA_SUCCESS;
}

CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle* handle, void* addr) {
    if (!handle) return CUDA_ERROR_INVALID_VALUE;
    const auto at = reinterpret_cast<uintptr_t>(addr);
    std::lock_guard lock(mutex);
    for (const auto& [h, a] : handles)
        if (a.mapped_at && at >= a.mapped_at && at < a.mapped_at + a.size) {
            ++handles[h].references;  // released by its own cuMemRelease, as in CUDA
            *handle = h;
            return CUDA_SUCCESS;
        }
    return fail(CUDA_ERROR_INVALID_VALUE, "cuMemRetainAllocationHandle: no allocation is mapped there");
}

CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp* prop, CUmemGenericAllocationHandle handle) {
    if (!prop) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lock(mutex);
    auto it = handles.find(handle);
    if (it == handles.end())
        return fail(CUDA_ERROR_INVALID_VALUE, "cuMemGetAllocationPropertiesFromHandle: no such handle");
    *prop = it->second.prop;
    return CUDA_SUCCESS;
}

}  // extern "C"
