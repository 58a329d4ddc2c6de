#include "host_kernels/host_kernel_registry.hpp"

namespace cudabridge::nv {

uint64_t host_kernel_registry::add(std::shared_ptr<const host_kernel_module> module) {
    std::lock_guard lock(mutex_);
    const uint64_t id = next_id_++;
    modules_.emplace(id, std::move(module));
    return id;
}

bool host_kernel_registry::remove(uint64_t id) {
    std::shared_ptr<const host_kernel_module> dropped;  // released after the lock
    std::lock_guard lock(mutex_);
    auto it = modules_.find(id);
    if (it == modules_.end()) return false;
    dropped = std::move(it->second);
    modules_.erase(it);
    return true;
}

std::shared_ptr<const host_kernel_module> host_kernel_registry::find(uint64_t id) const {
    std::lock_guard lock(mutex_);
    auto it = modules_.find(id);
    return it == modules_.end() ? nullptr : it->second;
}

size_t host_kernel_registry::size() const {
    std::lock_guard lock(mutex_);
    return modules_.size();
}

}  // namespace cudabridge::nv
