#include "per_thread_stream.hpp"

#include <atomic>
#include <map>

namespace cudabridge::cudart {
namespace {

std::atomic<uint64_t> generation{0};  // advanced by every device reset

struct thread_streams {
    uint64_t generation = 0;
    std::map<int, cbStream_t> by_device;
};
thread_local thread_streams mine;

}  // namespace

cbStream_t per_thread_default_stream() {
    if (mine.generation != generation.load()) mine = {generation.load(), {}};
    int device = 0;
    if (cbGetDevice(&device) != cbSuccess) return nullptr;
    if (auto it = mine.by_device.find(device); it != mine.by_device.end()) return it->second;
    cbStream_t s = nullptr;
    if (cbStreamCreateWithFlags(&s, 0) != cbSuccess) return nullptr;
    mine.by_device[device] = s;
    return s;
}

void forget_per_thread_streams() { generation.fetch_add(1); }

}  // namespace cudabridge::cudart
