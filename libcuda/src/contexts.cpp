#include "contexts.hpp"

#include "results.hpp"
#include "runtime_calls.hpp"
#include "run_summary.hpp"

#include <cudabridge.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

namespace cudabridge::libcuda {
namespace {

struct registry {
    std::mutex mutex;
    std::map<CUdevice, std::unique_ptr<CUctx_st>> primaries;
    std::map<CUdevice, int> retains;
    std::set<CUcontext> created;
};

registry& contexts() {
    static auto* r = new registry;  // outlives static destructors that may still call in
    return *r;
}

thread_local std::vector<CUcontext> stack;
std::atomic<bool> init_called{false};

}  // namespace

bool initialized() { return init_called.load() || cudabridge::cudart::runtime_started(); }
void mark_initialized() { init_called = true; }

CUresult check_device(CUdevice device) {
    if (!initialized()) return fail(CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called");
    int count = 0;
    if (cbError_t e = cbGetDeviceCount(&count); e != cbSuccess) return from_runtime(e);
    if (device < 0 || device >= count)
        return fail(CUDA_ERROR_INVALID_DEVICE, "device " + std::to_string(device) + " of " + std::to_string(count));
    return CUDA_SUCCESS;
}

CUcontext primary_context(CUdevice device) {
    registry& r = contexts();
    std::lock_guard lock(r.mutex);
    auto& slot = r.primaries[device];
    if (!slot) {
        slot = std::make_unique<CUctx_st>();
        slot->device = device;
        slot->primary = true;
    }
    return slot.get();
}

int primary_retains(CUdevice device) {
    registry& r = contexts();
    std::lock_guard lock(r.mutex);
    return r.retains[device];
}

void retain_primary(CUdevice device) {
    registry& r = contexts();
    std::lock_guard lock(r.mutex);
    ++r.retains[device];
}

bool release_primary(CUdevice device) {
    registry& r = contexts();
    std::lock_guard lock(r.mutex);
    int& n = r.retains[device];
    if (n == 0) return false;
    --n;
    return true;
}

CUcontext create_context(CUdevice device, unsigned flags) {
    auto c = std::make_unique<CUctx_st>();
    c->device = device;
    c->flags = flags;
    registry& r = contexts();
    std::lock_guard lock(r.mutex);
    return *r.created.insert(c.release()).first;
}

bool destroy_context(CUcontext context) {
    registry& r = contexts();
    {
        std::lock_guard lock(r.mutex);
        if (!r.created.erase(context)) return false;
    }
    // Off this thread's stack wherever it is; other threads must not use it any more (CUDA's rule).
    std::erase(stack, context);
    delete context;
    return true;
}

bool live(CUcontext context) {
    if (!context) return false;
    registry& r = contexts();
    std::lock_guard lock(r.mutex);
    if (r.created.count(context)) return true;
    for (const auto& [device, primary] : r.primaries)
        if (primary.get() == context) return true;
    return false;
}

CUcontext current_context() {
    if (!stack.empty()) return stack.back();
    if (!initialized()) return nullptr;
    int device = 0;
    if (cbGetDevice(&device) != cbSuccess) return nullptr;
    return primary_context(device);
}

void set_current(CUcontext context) {
    if (stack.empty())
        stack.push_back(context);
    else
        stack.back() = context;
    if (!context) stack.pop_back();
}

void push_current(CUcontext context) { stack.push_back(context); }

CUcontext pop_current() {
    if (stack.empty()) return nullptr;
    CUcontext c = stack.back();
    stack.pop_back();
    return c;
}

CUresult enter_current(CUdevice* device) {
    if (!initialized()) return fail(CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called");
    CUcontext c = current_context();
    if (!c) return fail(CUDA_ERROR_INVALID_CONTEXT, "no context is current on this thread");
    if (!live(c)) return fail(CUDA_ERROR_INVALID_CONTEXT, "the current context was destroyed");
    if (cudaError_t e = cudaSetDevice(c->device); e != cudaSuccess) return from_runtime(e);
    if (device) *device = c->device;
    return CUDA_SUCCESS;
}

}  // namespace cudabridge::libcuda
