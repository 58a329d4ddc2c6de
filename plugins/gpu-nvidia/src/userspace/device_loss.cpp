#include "userspace/device_loss.hpp"

namespace cudabridge::nv {

bool device_loss::mark(const std::string& reason) {
    std::lock_guard lock(mutex_);
    if (lost_.load()) return false;
    reason_ = reason;
    lost_.store(true, std::memory_order_release);
    return true;
}

void device_loss::clear() {
    std::lock_guard lock(mutex_);
    reason_.clear();
    lost_.store(false, std::memory_order_release);
}

std::string device_loss::reason() const {
    std::lock_guard lock(mutex_);
    return reason_.empty() ? "the device was lost" : "the device was lost: " + reason_;
}

}  // namespace cudabridge::nv
