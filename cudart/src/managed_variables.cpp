#include "managed_variables.hpp"

#include "errors.hpp"
#include "run_summary.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

extern "C" cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned flags);

namespace cudabridge::cudart {
namespace {

struct managed_variable {
    fatbin_record* fatbin = nullptr;
    std::string name;
    size_t size = 0;
    void** host_pointer = nullptr;  // the program's pointer, which host code dereferences
    // Bound (by __cudaInitModule, or again after a reset):
    void* host = nullptr;         // what *host_pointer points at
    int device = -1;              // where the device copy is
    cbModule_t module = nullptr;  // whose variable it is
    void* device_copy = nullptr;
    std::vector<unsigned char> agreed;      // the bytes both copies held when they last agreed
    bool kernels_may_have_written = false;  // a kernel of the module ran since they agreed
};

struct state {
    std::mutex mutex;
    std::list<managed_variable> variables;
    std::map<int, cbStream_t> streams;  // per device: the library's own stream for the exchanges
};

state& managed() {
    static state s;
    return s;
}

// The exchanges go on a non-blocking stream of their own, so that waiting for one never waits
// for the program's other streams.
cudaError_t exchange_stream(int device, cbStream_t& out) {
    auto& streams = managed().streams;
    if (auto it = streams.find(device); it != streams.end()) {
        out = it->second;
        return cudaSuccess;
    }
    if (cbError_t e = cbStreamCreateWithFlags(&out, cbStreamNonBlocking); e != cbSuccess) return record(e);
    streams[device] = out;
    return cudaSuccess;
}

cudaError_t transfer(int device, void* dst, const void* src, size_t count, cbMemcpyKind kind) {
    cbStream_t stream = nullptr;
    if (cudaError_t e = exchange_stream(device, stream); e != cudaSuccess) return e;
    if (cbError_t e = cbMemcpyAsync(dst, src, count, kind, stream); e != cbSuccess) return record(e);
    return record(cbStreamSynchronize(stream));
}

bool host_changed(const managed_variable& v) { return std::memcmp(v.host, v.agreed.data(), v.size) != 0; }

cudaError_t upload(managed_variable& v) {
    if (cudaError_t e = transfer(v.device, v.device_copy, v.host, v.size, cbMemcpyHostToDevice); e != cudaSuccess)
        return e;
    std::memcpy(v.agreed.data(), v.host, v.size);
    return cudaSuccess;
}

cudaError_t download(managed_variable& v) {
    if (cudaError_t e = transfer(v.device, v.host, v.device_copy, v.size, cbMemcpyDeviceToHost); e != cudaSuccess)
        return e;
    std::memcpy(v.agreed.data(), v.host, v.size);
    return cudaSuccess;
}

// The module's variable on the current device, and host memory for it: managed memory where the
// family gives it (kernels handed the host address reach it too, and cudaPointerGetAttributes
// calls it managed), page-aligned host memory otherwise.
cudaError_t bind(managed_variable& v, int device) {
    cbModule_t module = nullptr;
    if (cudaError_t e = registered().module_on_current_device(*v.fatbin, module); e != cudaSuccess) return e;
    void* address = nullptr;
    size_t size = 0;
    if (cbError_t e = cbModuleGetGlobal(&address, &size, module, v.name.c_str()); e != cbSuccess)
        return fail(e == cbErrorNotFound ? cudaErrorInvalidSymbol : to_cuda(e),
                    ("__managed__ " + v.name + ": not in its module").c_str());
    if (size != v.size) return fail(cudaErrorInvalidSymbol, ("__managed__ " + v.name + ": sizes differ").c_str());
    int has_managed = 0;
    void* host = nullptr;
    if (cbDeviceGetAttribute(&has_managed, cbDevAttrManagedMemory, device) == cbSuccess && has_managed) {
        if (cudaError_t e = cudaMallocManaged(&host, size, 1 /* cudaMemAttachGlobal */); e != cudaSuccess) return e;
    } else {
        const size_t page = 4096;
        host = std::aligned_alloc(page, (size + page - 1) / page * page);
        if (!host) return fail(cudaErrorMemoryAllocation, ("__managed__ " + v.name).c_str());
    }
    std::memset(host, 0, size);
    v.host = host;
    v.device = device;
    v.module = module;
    v.device_copy = address;
    v.agreed.assign(size, 0);
    v.kernels_may_have_written = false;
    *v.host_pointer = host;  // even if the value cannot be read: host code dereferences it unchecked
    // Its value: the initializer, or what the module's kernels launched before left there.
    return download(v);
}

bool overlaps(const managed_variable& v, const void* p, size_t count) {
    if (!v.host || !p) return false;
    const auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(v.host);
    return a < b + v.size && b < a + count;
}

int current_device() {
    int device = 0;
    (void)cbGetDevice(&device);
    return device;
}

}  // namespace

void add_managed_variable(fatbin_record* f, void** host_pointer, const char* device_name, size_t size) {
    if (!f || !host_pointer || !device_name || size == 0) return;
    std::lock_guard lock(managed().mutex);
    managed_variable v;
    v.fatbin = f;
    v.name = device_name;
    v.size = size;
    v.host_pointer = host_pointer;
    managed().variables.push_back(std::move(v));
}

void forget_managed_variables(fatbin_record* f) {
    std::lock_guard lock(managed().mutex);
    managed().variables.remove_if([&](const managed_variable& v) { return v.fatbin == f; });
}

cudaError_t bind_managed_variables(fatbin_record& f) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    const int device = current_device();
    std::lock_guard lock(managed().mutex);
    for (auto& v : managed().variables) {
        if (v.fatbin != &f || v.host) continue;
        if (cudaError_t e = bind(v, device); e != cudaSuccess) {
            // Host code dereferences the variable's pointer unchecked: say why it will fault.
            if (!v.host)
                std::fprintf(stderr,
                             "cudabridge cudart: __managed__ %s has no memory (%s); host code that uses it faults\n",
                             v.name.c_str(), error_name(e));
            return e;
        }
    }
    return cudaSuccess;
}

cudaError_t managed_variables_before_launch(fatbin_record& f, cbModule_t module) {
    std::lock_guard lock(managed().mutex);
    for (auto& v : managed().variables) {
        if (v.fatbin != &f || !v.host) continue;
        if (v.module != module) {
            // Another device, or the module loaded again: its copy starts from the host's.
            void* address = nullptr;
            size_t size = 0;
            if (cbError_t e = cbModuleGetGlobal(&address, &size, module, v.name.c_str()); e != cbSuccess)
                return record(e);
            v.module = module;
            v.device = current_device();
            v.device_copy = address;
            if (cudaError_t e = upload(v); e != cudaSuccess) return e;
        } else if (host_changed(v)) {
            if (cudaError_t e = upload(v); e != cudaSuccess) return e;
        }
        v.kernels_may_have_written = true;
    }
    return cudaSuccess;
}

cudaError_t managed_variables_synchronized(bool whole_device) {
    const int device = current_device();
    std::lock_guard lock(managed().mutex);
    for (auto& v : managed().variables) {
        if (!v.host || v.device != device) continue;
        if (host_changed(v)) {
            // The host wrote it since the copies agreed (kernels may not have used it meanwhile,
            // concurrentManagedAccess being 0): the device copy takes the host's bytes.
            if (cudaError_t e = upload(v); e != cudaSuccess) return e;
        } else if (v.kernels_may_have_written) {
            if (cudaError_t e = download(v); e != cudaSuccess) return e;
        }
        // Only when every stream is done can no kernel still be writing the device copy.
        if (whole_device) v.kernels_may_have_written = false;
    }
    return cudaSuccess;
}

cudaError_t managed_variables_before_blocking_copy(const void* dst, const void* src, size_t count) {
    bool touches = false;
    {
        std::lock_guard lock(managed().mutex);
        for (const auto& v : managed().variables)
            touches = touches || overlaps(v, dst, count) || overlaps(v, src, count);
    }
    if (!touches) return cudaSuccess;
    // The copy follows the work queued before it on the legacy default stream.
    if (cbError_t e = cbStreamSynchronize(nullptr); e != cbSuccess) return record(e);
    return managed_variables_synchronized(false);
}

bool managed_variable_at(const void* symbol, void** address, size_t* size) {
    std::lock_guard lock(managed().mutex);
    for (const auto& v : managed().variables) {
        if (!v.host || v.host != symbol) continue;
        if (address) *address = v.host;
        if (size) *size = v.size;
        return true;
    }
    return false;
}

void rebind_managed_variables_after_reset(int device) {
    std::lock_guard lock(managed().mutex);
    managed().streams.erase(device);  // the reset destroyed it
    for (auto& v : managed().variables) {
        if (!v.host || v.device != device) continue;
        v.host = nullptr;
        if (bind(v, device) != cudaSuccess) *v.host_pointer = nullptr;
    }
}

}  // namespace cudabridge::cudart
