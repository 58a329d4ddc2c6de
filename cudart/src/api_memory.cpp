// Memory: device and pinned host allocations, copies and fills (synchronous, async and 2-D),
// pointer attributes. Copies go through the runtime's DART-aware paths and are counted for the
// run summary.
#include "allocation_ranges.hpp"
#include "errors.hpp"
#include "handles.hpp"
#include "host_functions.hpp"
#include "managed_variables.hpp"
#include "registration.hpp"
#include "run_summary.hpp"
#include "stream_capture.hpp"
#include "versioned_api.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <iterator>
#include <map>
#include <mutex>

using namespace cudabridge::cudart;

namespace {

// The entry of `m` holding p, or m.end().
std::map<uintptr_t, size_t>::const_iterator holding(const std::map<uintptr_t, size_t>& m, uintptr_t p) {
    auto it = m.upper_bound(p);
    if (it == m.begin()) return m.end();
    --it;
    return p < it->first + std::max<size_t>(it->second, 1) ? it : m.end();
}

// This process's live allocations, for cudaPointerGetAttributes and copy kinds.
struct allocation_map {
    std::mutex mutex;
    std::map<uintptr_t, size_t> device, host, managed;
    std::map<uintptr_t, unsigned> host_flags;  // what cudaHostAlloc / cudaHostRegister were given

    static bool inside(const std::map<uintptr_t, size_t>& m, uintptr_t p) { return holding(m, p) != m.end(); }
};

allocation_map& allocations() {
    static allocation_map a;
    return a;
}

// A copy on a capturing stream: a memcpy node.
bool captured_copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream,
                   cudaError_t& result) {
    if (!capturing(stream)) return false;
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeMemcpy;
    node->copy.dstPtr = {dst, count, count, 1};
    node->copy.srcPtr = {const_cast<void*>(src), count, count, 1};
    node->copy.extent = {count, 1, 1};
    node->copy.kind = kind;
    return captured(stream, std::move(node), result);
}

cudaError_t copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream, bool async) {
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return record(cudaErrorInvalidMemcpyDirection);
    if (count == 0) return cudaSuccess;
    if (cudaError_t result = cudaSuccess; async && captured_copy(dst, src, count, kind, stream, result)) return result;
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    const auto cb_kind = static_cast<cbMemcpyKind>(kind);
    if (!async) {
        wait_for_host_functions(nullptr);  // the legacy default stream's place in line
        // A __managed__ variable's host memory on either side holds what kernels left there.
        if (cudaError_t e = managed_variables_before_blocking_copy(dst, src, count); e != cudaSuccess) return e;
    }
    const cbError_t e =
        async ? cbMemcpyAsync(dst, src, count, cb_kind, ordered(stream)) : cbMemcpy(dst, src, count, cb_kind);
    if (e != cbSuccess) return record(e);
    note_copy(kind, count);
    if (async) return cudaSuccess;
    settle_timings(false);
    return managed_variables_synchronized(false);
}

// A __device__ or __constant__ variable's device address and size: its module is loaded on the
// current device, as CUDA does on first use, and asked by the variable's name. A __managed__
// variable's is its host memory (the address host code gives for it), which kernels reach too.
cudaError_t symbol_address(const void* symbol, void** address, size_t* size) {
    const variable_record* v = registered().variable(symbol);
    if (!v && managed_variable_at(symbol, address, size)) return cudaSuccess;
    if (!v) return record(cudaErrorInvalidSymbol);
    const std::string name = v->name;
    fatbin_record* fatbin = v->fatbin;
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    cbModule_t module = nullptr;
    if (cudaError_t e = registered().module_on_current_device(*fatbin, module); e != cudaSuccess) return e;
    if (cbError_t e = cbModuleGetGlobal(address, size, module, name.c_str()); e != cbSuccess)
        return record(e == cbErrorNotFound ? cudaErrorInvalidSymbol : to_cuda(e));
    return cudaSuccess;
}

// [offset, offset + count) of a variable, as a device address; cudaErrorInvalidValue past its end.
cudaError_t symbol_range(const void* symbol, size_t offset, size_t count, char*& at) {
    void* base = nullptr;
    size_t size = 0;
    if (cudaError_t e = symbol_address(symbol, &base, &size); e != cudaSuccess) return e;
    if (offset > size || count > size - offset) return record(cudaErrorInvalidValue);
    at = static_cast<char*>(base) + offset;
    return cudaSuccess;
}

// [ptr, ptr + count) inside one managed allocation.
bool managed_range(const void* ptr, size_t count) {
    const auto p = reinterpret_cast<uintptr_t>(ptr);
    std::lock_guard lock(allocations().mutex);
    auto it = allocations().managed.upper_bound(p);
    if (it == allocations().managed.begin()) return false;
    --it;
    return p - it->first < it->second && count <= it->second - (p - it->first);
}

bool valid_location(const cudaMemLocation& l) {
    int devices = 0;
    if (l.type == cudaMemLocationTypeDevice)
        return cbGetDeviceCount(&devices) == cbSuccess && l.id >= 0 && l.id < devices;
    return l.type == cudaMemLocationTypeHost || l.type == cudaMemLocationTypeHostNuma ||
           l.type == cudaMemLocationTypeHostNumaCurrent;
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
    // A graph's allocation freed outside the graph: CUDA maps it again at the same address at
    // the graph's next launch; here it stays until the graph goes (cudaFree still synchronizes).
    if (graph_allocation_at(ptr)) return record(cbDeviceSynchronize());
    if (cbError_t e = cbFree(ptr); e != cbSuccess) return record(e);
    std::lock_guard lock(allocations().mutex);
    allocations().device.erase(reinterpret_cast<uintptr_t>(ptr));
    allocations().managed.erase(reinterpret_cast<uintptr_t>(ptr));
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

// Pinned memory is mapped for the device whatever the flags (unified addressing: kernels reach it
// at its own address where the family can, cudaHostGetDevicePointer); write-combining is a CPU
// cache hint the host's ordinary memory ignores.
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned flags) {
    if (flags & ~(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
        return record(cudaErrorInvalidValue);
    if (cudaError_t e = cudaMallocHost(ptr, size); e != cudaSuccess) return e;
    std::lock_guard lock(allocations().mutex);
    allocations().host_flags[reinterpret_cast<uintptr_t>(*ptr)] = flags;
    return cudaSuccess;
}

cudaError_t cudaHostGetFlags(unsigned* flags, void* host) {
    if (!flags || !host) return record(cudaErrorInvalidValue);
    const auto p = reinterpret_cast<uintptr_t>(host);
    std::lock_guard lock(allocations().mutex);
    auto it = allocations().host.upper_bound(p);
    if (it == allocations().host.begin()) return record(cudaErrorInvalidValue);
    --it;
    if (p - it->first >= std::max<size_t>(it->second, 1)) return record(cudaErrorInvalidValue);
    auto f = allocations().host_flags.find(it->first);
    *flags = f != allocations().host_flags.end() ? f->second : 0;
    return cudaSuccess;
}

cudaError_t cudaFreeHost(void* ptr) {
    if (!ptr) return cudaSuccess;
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbFreeHost(ptr); e != cbSuccess) return record(e);
    std::lock_guard lock(allocations().mutex);
    allocations().host.erase(reinterpret_cast<uintptr_t>(ptr));
    allocations().host_flags.erase(reinterpret_cast<uintptr_t>(ptr));
    return cudaSuccess;
}

// Registered memory is portable and mapped whatever the flags (as cudaHostAlloc's); read-only
// only promises the device will not write. I/O memory (a device's BAR) cannot be registered.
cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned flags) {
    if (flags &
        ~(cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory | cudaHostRegisterReadOnly))
        return record(cudaErrorInvalidValue);
    if (flags & cudaHostRegisterIoMemory) return not_supported("cudaHostRegister (cudaHostRegisterIoMemory)");
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbHostRegister(ptr, size, cbHostRegisterDefault); e != cbSuccess) return record(e);
    std::lock_guard lock(allocations().mutex);
    allocations().host[reinterpret_cast<uintptr_t>(ptr)] = size;
    allocations().host_flags[reinterpret_cast<uintptr_t>(ptr)] = flags;
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void* ptr) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbHostUnregister(ptr); e != cbSuccess) return record(e);
    std::lock_guard lock(allocations().mutex);
    allocations().host.erase(reinterpret_cast<uintptr_t>(ptr));
    allocations().host_flags.erase(reinterpret_cast<uintptr_t>(ptr));
    return cudaSuccess;
}

// The GPU family's managed memory (cbMallocManaged): on a simulated GPU, host memory its kernels
// reach over the link; on a real one, the driver's migrating pages. As in CUDA, the flags are
// cudaMemAttachGlobal or cudaMemAttachHost (cudaMemAttachSingle is for cudaStreamAttachMemAsync).
cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned flags) {
    if (!ptr || size == 0) return record(cudaErrorInvalidValue);
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbMallocManaged(ptr, size, flags); e != cbSuccess) return record(e);
    std::lock_guard lock(allocations().mutex);
    allocations().managed[reinterpret_cast<uintptr_t>(*ptr)] = size;
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned flags) {
    if (!device || !host || flags != 0) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbHostGetDevicePointer(device, host, 0));
}

}  // extern "C"

// Prefetching moves nothing on a simulated GPU (managed memory stays in host memory, where its
// kernels reach it) and on a real GPU without concurrent managed access; it is checked and takes
// its place on the stream all the same.
cudaError_t cudabridge::cudart::prefetch(const void* ptr, size_t count, cudaMemLocation location, unsigned flags,
                                         cudaStream_t stream) {
    if (!ptr || count == 0 || flags != 0 || !valid_location(location)) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (!managed_range(ptr, count)) return record(cudaErrorInvalidValue);
    const cbError_t e = cbStreamQuery(ordered(stream));
    return e == cbErrorNotReady ? cudaSuccess : record(e);
}

extern "C" {

// Which streams may touch managed memory: every one, always, here (nothing migrates, and the host
// synchronizes before touching it, concurrentManagedAccess being 0). Checked and stream-ordered.
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* ptr, size_t length, unsigned flags) {
    if (!ptr || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != cudaMemAttachSingle))
        return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (!managed_range(ptr, std::max<size_t>(length, 1))) return record(cudaErrorInvalidValue);
    const cbError_t e = cbStreamQuery(ordered(stream));
    return e == cbErrorNotReady ? cudaSuccess : record(e);
}

}  // extern "C"

// Advice about where pages should live changes nothing where they never move (see above).
cudaError_t cudabridge::cudart::advise(const void* ptr, size_t count, cudaMemoryAdvise advice,
                                       cudaMemLocation location) {
    if (!ptr || count == 0 || advice < 1 || advice > 6) return record(cudaErrorInvalidValue);
    const bool names_location = advice == 3 || advice == 5;  // SetPreferredLocation, SetAccessedBy
    if (names_location && !valid_location(location)) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return managed_range(ptr, count) ? cudaSuccess : record(cudaErrorInvalidValue);
}

extern "C" {

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
    wait_for_host_functions(nullptr);
    return record(cbMemset(ptr, value, count));
}

cudaError_t cudaMemset2DAsync(void* ptr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream);

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream) {
    if (capturing(stream)) return cudaMemset2DAsync(ptr, count, value, count, 1, stream);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbMemsetAsync(ptr, value, count, ordered(stream)));
}

// A pitched 2D area: one memset per row (the rows are apart by `pitch`).
cudaError_t cudaMemset2DAsync(void* ptr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream) {
    if (height > 1 && width > pitch) return record(cudaErrorInvalidPitchValue);
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeMemset;
    node->memset = {ptr, pitch, static_cast<unsigned>(value) & 0xFFu, 1, width, height};
    if (cudaError_t result = cudaSuccess; captured(stream, std::move(node), result)) return result;
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (pitch == width) return record(cbMemsetAsync(ptr, value, width * height, ordered(stream)));
    for (size_t row = 0; row < height; ++row)
        if (cbError_t e = cbMemsetAsync(static_cast<char*>(ptr) + row * pitch, value, width, ordered(stream));
            e != cbSuccess)
            return record(e);
    return cudaSuccess;
}

cudaError_t cudaMemset2D(void* ptr, size_t pitch, int value, size_t width, size_t height) {
    if (cudaError_t e = cudaMemset2DAsync(ptr, pitch, value, width, height, nullptr); e != cudaSuccess) return e;
    return record(cbStreamSynchronize(nullptr));
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
    if (!attributes || !ptr) return record(cudaErrorInvalidValue);
    *attributes = cudaPointerAttributes{};
    attributes->device = -2;
    const auto p = reinterpret_cast<uintptr_t>(ptr);
    std::lock_guard lock(allocations().mutex);
    if (allocation_map::inside(allocations().managed, p)) {
        attributes->type = cudaMemoryTypeManaged;
        (void)cbGetDevice(&attributes->device);
        attributes->devicePointer = const_cast<void*>(ptr);
        attributes->hostPointer = const_cast<void*>(ptr);
    } else if (allocation_map::inside(allocations().device, p)) {
        attributes->type = cudaMemoryTypeDevice;
        (void)cbGetDevice(&attributes->device);
        attributes->devicePointer = const_cast<void*>(ptr);
    } else if (allocation_map::inside(allocations().host, p)) {
        attributes->type = cudaMemoryTypeHost;
        (void)cbGetDevice(&attributes->device);
        attributes->hostPointer = const_cast<void*>(ptr);
        // Where kernels reach it, when they can (zero-copy).
        if (cbHostGetDevicePointer(&attributes->devicePointer, const_cast<void*>(ptr), 0) != cbSuccess)
            attributes->devicePointer = nullptr;
    } else {
        attributes->type = cudaMemoryTypeUnregistered;
    }
    return cudaSuccess;
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind) {
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return record(cudaErrorInvalidMemcpyDirection);
    char* at = nullptr;
    if (cudaError_t e = symbol_range(symbol, offset, count, at); e != cudaSuccess) return e;
    return copy(at, src, count, kind, nullptr, false);
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind) {
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return record(cudaErrorInvalidMemcpyDirection);
    char* at = nullptr;
    if (cudaError_t e = symbol_range(symbol, offset, count, at); e != cudaSuccess) return e;
    return copy(dst, at, count, kind, nullptr, false);
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t stream) {
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return record(cudaErrorInvalidMemcpyDirection);
    char* at = nullptr;
    if (cudaError_t e = symbol_range(symbol, offset, count, at); e != cudaSuccess) return e;
    return copy(at, src, count, kind, stream, true);
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind,
                                      cudaStream_t stream) {
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return record(cudaErrorInvalidMemcpyDirection);
    char* at = nullptr;
    if (cudaError_t e = symbol_range(symbol, offset, count, at); e != cudaSuccess) return e;
    return copy(dst, at, count, kind, stream, true);
}

cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
    if (!size) return record(cudaErrorInvalidValue);
    void* address = nullptr;
    return symbol_address(symbol, &address, size);
}

cudaError_t cudaGetSymbolAddress(void** address, const void* symbol) {
    if (!address) return record(cudaErrorInvalidValue);
    return symbol_address(symbol, address, nullptr);
}

}  // extern "C"

bool cudabridge::cudart::allocation_range(const void* ptr, uintptr_t& base, size_t& bytes) {
    allocation_map& a = allocations();
    std::lock_guard lock(a.mutex);
    const auto p = reinterpret_cast<uintptr_t>(ptr);
    for (const auto* m : {&a.device, &a.managed})
        if (auto it = holding(*m, p); it != m->end()) {
            base = it->first;
            bytes = it->second;
            return true;
        }
    return false;
}
