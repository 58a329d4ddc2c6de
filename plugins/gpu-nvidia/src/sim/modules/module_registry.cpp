#include "sim/modules/module_registry.hpp"

namespace cudabridge::nv {

uint64_t module_registry::add(registered_module module) {
    std::lock_guard lock(mutex_);
    const uint64_t id = next_id_++;
    modules_.emplace(id, std::move(module));
    return id;
}

bool module_registry::remove(uint64_t id) {
    registered_module dropped;  // released after the lock
    std::lock_guard lock(mutex_);
    auto it = modules_.find(id);
    if (it == modules_.end()) return false;
    dropped = std::move(it->second);
    modules_.erase(it);
    return true;
}

registered_module module_registry::find(uint64_t id) const {
    std::lock_guard lock(mutex_);
    auto it = modules_.find(id);
    return it == modules_.end() ? registered_module{} : it->second;
}

size_t module_registry::size() const {
    std::lock_guard lock(mutex_);
    return modules_.size();
}

}  // namespace cudabridge::nv
