#include "host_functions.hpp"

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace cudabridge::cudart {
namespace {

struct pending_functions {
    std::mutex mutex;
    std::condition_variable returned;
    std::map<cbStream_t, int> by_stream;  // nullptr: the legacy default stream
    // Written under the mutex; read without it first, so that launches and copies in a program
    // with no host function pending take no lock.
    std::atomic<int> total{0};

    // Work on the legacy default stream follows every stream's host functions; work on another
    // stream follows its own and the default stream's.
    bool blocks(cbStream_t s) const {
        if (!s) return total > 0;
        auto count = [&](cbStream_t k) {
            auto it = by_stream.find(k);
            return it == by_stream.end() ? 0 : it->second;
        };
        return count(s) > 0 || count(nullptr) > 0;
    }
};

pending_functions& pending() {
    static pending_functions p;
    return p;
}

thread_local bool inside_host_function = false;

}  // namespace

void wait_for_host_functions(cbStream_t stream) {
    if (inside_host_function) return;
    auto& p = pending();
    if (p.total.load(std::memory_order_acquire) == 0) return;
    std::unique_lock lock(p.mutex);
    p.returned.wait(lock, [&] { return !p.blocks(stream); });
}

bool host_functions_pending(cbStream_t stream) {
    auto& p = pending();
    if (p.total.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard lock(p.mutex);
    return p.blocks(stream);
}

void start_host_function(cbStream_t stream, cbEvent_t done, std::function<void(cbError_t)> fn) {
    auto& p = pending();
    {
        std::lock_guard lock(p.mutex);
        ++p.by_stream[stream];
        ++p.total;
    }
    std::thread([stream, done, fn = std::move(fn)] {
        const cbError_t status = cbEventSynchronize(done);
        cbEventDestroy(done);
        inside_host_function = true;
        fn(status);
        auto& q = pending();
        std::lock_guard lock(q.mutex);
        if (--q.by_stream[stream] == 0) q.by_stream.erase(stream);
        --q.total;
        q.returned.notify_all();
    }).detach();
}

}  // namespace cudabridge::cudart
