// Memory: device and pinned host allocations, copies and fills (synchronous, async and 2-D),
// pointer attributes. Copies go through the runtime's DART-aware paths and are counted for the
// run summary.
#include "errors.hpp"
#include "handles.hpp"
#include "registration.hpp"
#include "run_summary.hpp"

#include <cstring>
#include <iterator>
#include <map>
#include <mutex>

using namespace cudabridge::cudart;

namespace {

// This process's live allocations, for cudaPointerGetAttributes and copy kinds.
struct allocation_map {
    std::mutex mutex;
    std::map<uintptr_t, size_t> device, host;

    static bool inside(const std::map<uintptr_t, size_t>& m, uintptr_t p) {
        auto it = m.upper_bound(p);
        if (it == m.begin()) return false;
        --it;
        return p < it->first + std::max<size_t>(it->second, 1);
    }
};

allocation_map& allocations() {
    static allocation_map a;
    return a;
}

cudaError_t copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream, bool async) {
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return record(cudaErrorInvalidMemcpyDirection);
    if (count == 0) return cudaSuccess;
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    const auto cb_kind = static_cast<cbMemcpyKind>(kind);
    const cbError_t e =
        async ? cbMemcpyAsync(dst, src, count, cb_kind, cb_stream(stream)) : cbMemcpy(dst, src, count, cb_kind);
    if (e != cbSuccess) return record(e);
    note_copy(kind, count);
    if (!async) settle_timings(false);
    return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaMalloc(void** ptr, size_t size) {
    if (!ptr) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbMalloc(ptr, size); e != cbSuccess) return record(e);
    std::lock_guard lock(allocations().mutex);
    allocations().device[reinterpret_cast<uintptr_t>(*ptr)] = size;
    return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
    if (!ptr) return cudaSuccess;
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbFree(ptr); e != cbSuccess) return record(e);
    std::lock_guard lock(allocations().mutex);
    allocations().device.erase(reinterpret_cast<uintptr_t>(ptr));
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void** ptr, size_t size) {
    if (!ptr) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbMallocHost(ptr, size); e != cbSuccess) return record(e);
    std::lock_guard lock(allocations().mutex);
    allocations().host[reinterpret_cast<uintptr_t>(*ptr)] = size;
    return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned /*flags*/) { return cudaMallocHost(ptr, size); }

cudaError_t cudaFreeHost(void* ptr) {
    if (!ptr) return cudaSuccess;
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbFreeHost(ptr); e != cbSuccess) return record(e);
    std::lock_guard lock(allocations().mutex);
    allocations().host.erase(reinterpret_cast<uintptr_t>(ptr));
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned flags) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbHostRegister(ptr, size, flags); e != cbSuccess) return record(e);
    std::lock_guard lock(allocations().mutex);
    allocations().host[reinterpret_cast<uintptr_t>(ptr)] = size;
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void* ptr) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbHostUnregister(ptr); e != cbSuccess) return record(e);
    std::lock_guard lock(allocations().mutex);
    allocations().host.erase(reinterpret_cast<uintptr_t>(ptr));
    return cudaSuccess;
}

cudaError_t cudaMallocManaged(void** /*ptr*/, size_t /*size*/, unsigned /*flags*/) {
    // One address valid on both sides needs the GPU to reach host memory in place; a simulated
    // eGPU's memory is its own, so managed memory is not offered.
    return not_supported("cudaMallocManaged");
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
    if (!free || !total) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbMemGetInfo(free, total));
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
    return copy(dst, src, count, kind, nullptr, false);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
    return copy(dst, src, count, kind, stream, true);
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t stream) {
    if (width > dpitch || width > spitch) return record(cudaErrorInvalidPitchValue);
    if (width == dpitch && width == spitch) return copy(dst, src, width * height, kind, stream, true);
    for (size_t row = 0; row < height; ++row)
        if (cudaError_t e = copy(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch,
                                 width, kind, stream, true);
            e != cudaSuccess)
            return e;
    return cudaSuccess;
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind) {
    if (cudaError_t e = cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, nullptr); e != cudaSuccess)
        return e;
    return record(cbStreamSynchronize(nullptr));
}

cudaError_t cudaMemset(void* ptr, int value, size_t count) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbMemset(ptr, value, count));
}

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbMemsetAsync(ptr, value, count, cb_stream(stream)));
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
    if (!attributes || !ptr) return record(cudaErrorInvalidValue);
    *attributes = cudaPointerAttributes{};
    attributes->device = -2;
    const auto p = reinterpret_cast<uintptr_t>(ptr);
    std::lock_guard lock(allocations().mutex);
    if (allocation_map::inside(allocations().device, p)) {
        attributes->type = cudaMemoryTypeDevice;
        (void)cbGetDevice(&attributes->device);
        attributes->devicePointer = const_cast<void*>(ptr);
    } else if (allocation_map::inside(allocations().host, p)) {
        attributes->type = cudaMemoryTypeHost;
        (void)cbGetDevice(&attributes->device);
        attributes->hostPointer = const_cast<void*>(ptr);
    } else {
        attributes->type = cudaMemoryTypeUnregistered;
    }
    return cudaSuccess;
}

// __device__ and __constant__ variables live in the module's own memory on the simulated GPU,
// which host copies do not reach yet: refused by name, never copied wrongly.
cudaError_t cudaMemcpyToSymbol(const void* symbol, const void*, size_t, size_t, cudaMemcpyKind) {
    if (!registered().variable(symbol)) return record(cudaErrorInvalidSymbol);
    return not_supported("cudaMemcpyToSymbol");
}

cudaError_t cudaMemcpyFromSymbol(void*, const void* symbol, size_t, size_t, cudaMemcpyKind) {
    if (!registered().variable(symbol)) return record(cudaErrorInvalidSymbol);
    return not_supported("cudaMemcpyFromSymbol");
}

cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
    const variable_record* v = registered().variable(symbol);
    if (!size) return record(cudaErrorInvalidValue);
    if (!v) return record(cudaErrorInvalidSymbol);
    *size = v->size;
    return cudaSuccess;
}

cudaError_t cudaGetSymbolAddress(void**, const void* symbol) {
    if (!registered().variable(symbol)) return record(cudaErrorInvalidSymbol);
    return not_supported("cudaGetSymbolAddress");
}

}  // extern "C"
