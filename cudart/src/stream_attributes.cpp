// Stream priorities and attributes as CUDA reports them. Priorities are kept and reported (the
// range is CUDA's on current GPUs, 0 lowest to -5 highest); the simulated GPU runs its streams
// in submission order whatever their priority. Attributes (an L2 access-policy window, a
// synchronization policy, memory-sync domains) are kept per stream and read back; the L2
// persistence they ask for is a no-op here, as on a GPU without persisting L2.
#include "errors.hpp"
#include "handles.hpp"
#include "run_summary.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <mutex>

extern "C" cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags);

using namespace cudabridge::cudart;

namespace {

constexpr int least_priority = 0, greatest_priority = -5;
// cudaLaunchAttributeValue is a 64-byte union (driver_types.h).
using attribute_value = std::array<unsigned char, 64>;
// cudaLaunchAttributeID values a stream takes (driver_types.h).
constexpr int attr_access_policy_window = 1, attr_synchronization_policy = 3, attr_priority = 8,
              attr_mem_sync_domain_map = 9, attr_mem_sync_domain = 10;

struct stream_state {
    unsigned flags = 0;
    int priority = least_priority;
    std::map<int, attribute_value> attributes;
};

std::mutex mutex;
std::map<cudaStream_t, stream_state>& states() {
    static auto* s = new std::map<cudaStream_t, stream_state>;
    return *s;
}

bool stream_attribute(int id) {
    return id == attr_access_policy_window || id == attr_synchronization_policy || id == attr_priority ||
           id == attr_mem_sync_domain_map || id == attr_mem_sync_domain;
}

}  // namespace

namespace cudabridge::cudart {
void remember_stream_flags(cudaStream_t stream, unsigned flags) {
    std::lock_guard lock(mutex);
    states()[stream].flags = flags;
}
void forget_stream_attributes(cudaStream_t stream) {
    std::lock_guard lock(mutex);
    states().erase(stream);
}
}  // namespace cudabridge::cudart

extern "C" {

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
    if (least) *least = least_priority;
    if (greatest) *greatest = greatest_priority;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned flags, int priority) {
    if (cudaError_t e = cudaStreamCreateWithFlags(stream, flags); e != cudaSuccess) return e;
    std::lock_guard lock(mutex);
    auto& state = states()[*stream];
    state.flags = flags;
    state.priority = std::clamp(priority, greatest_priority, least_priority);  // CUDA clamps
    return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
    if (!priority) return record(cudaErrorInvalidValue);
    std::lock_guard lock(mutex);
    const auto it = states().find(stream);
    *priority = it == states().end() ? least_priority : it->second.priority;
    return cudaSuccess;
}

cudaError_t cudaStreamSetAttribute(cudaStream_t stream, int id, const void* value) {
    if (!value || !stream_attribute(id)) return record(cudaErrorInvalidValue);
    std::lock_guard lock(mutex);
    auto& state = states()[stream];
    if (id == attr_priority) {
        int p = 0;
        std::memcpy(&p, value, sizeof p);
        state.priority = std::clamp(p, greatest_priority, least_priority);
        return cudaSuccess;
    }
    attribute_value v{};
    std::memcpy(v.data(), value, v.size());
    state.attributes[id] = v;
    return cudaSuccess;
}

cudaError_t cudaStreamGetAttribute(cudaStream_t stream, int id, void* value) {
    if (!value || !stream_attribute(id)) return record(cudaErrorInvalidValue);
    std::lock_guard lock(mutex);
    attribute_value v{};
    const auto it = states().find(stream);
    if (id == attr_priority) {
        const int p = it == states().end() ? least_priority : it->second.priority;
        std::memcpy(v.data(), &p, sizeof p);
    } else if (it != states().end()) {
        if (auto a = it->second.attributes.find(id); a != it->second.attributes.end()) v = a->second;
    }
    std::memcpy(value, v.data(), v.size());
    return cudaSuccess;
}

cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
    std::lock_guard lock(mutex);
    const auto it = states().find(src);
    states()[dst] = it == states().end() ? stream_state{} : it->second;
    return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned* flags) {
    if (!flags) return record(cudaErrorInvalidValue);
    std::lock_guard lock(mutex);
    const auto it = states().find(stream);
    *flags = it == states().end() ? 0 : it->second.flags;
    return cudaSuccess;
}

// Streams belong to the device current when they were made; this runtime's are the current one's.
cudaError_t cudaStreamGetDevice(cudaStream_t /*stream*/, int* device) {
    if (!device) return record(cudaErrorInvalidValue);
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    return record(cbGetDevice(device));
}

cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long* id) {
    if (!id) return record(cudaErrorInvalidValue);
    *id = static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(cb_stream(stream)));
    return cudaSuccess;
}

cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t s, unsigned* flags) { return cudaStreamGetFlags(per_thread_if_null(s), flags); }
cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t s, int* device) { return cudaStreamGetDevice(per_thread_if_null(s), device); }
cudaError_t cudaStreamGetId_ptsz(cudaStream_t s, unsigned long long* id) { return cudaStreamGetId(per_thread_if_null(s), id); }
cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t s, int* priority) { return cudaStreamGetPriority(per_thread_if_null(s), priority); }
cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t s, int id, void* value) { return cudaStreamGetAttribute(per_thread_if_null(s), id, value); }
cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t s, int id, const void* value) { return cudaStreamSetAttribute(per_thread_if_null(s), id, value); }
cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src) { return cudaStreamCopyAttributes(dst, src); }

// L2 persistence is modeled as a no-op: there is nothing to reset.
cudaError_t cudaCtxResetPersistingL2Cache(void) { return cudaSuccess; }

}  // extern "C"
