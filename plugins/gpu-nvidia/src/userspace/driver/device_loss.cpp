#include "userspace/driver/device_loss.hpp"

namespace cudabridge::nv {

bool device_loss::mark(const std::string& reason, cb_status cause) {
    std::lock_guard lock(mutex_);
    if (lost_.load()) return false;
    reason_ = reason;
    cause_.store(cause == CB_ERR_LINK_DOWN ? CB_ERR_LINK_DOWN : CB_ERR_DEVICE_LOST, std::memory_order_release);
    lost_.store(true, std::memory_order_release);
    return true;
}

void device_loss::clear() {
    std::lock_guard lock(mutex_);
    reason_.clear();
    cause_.store(CB_ERR_DEVICE_LOST);
    lost_.store(false, std::memory_order_release);
}

std::string device_loss::reason() const {
    std::lock_guard lock(mutex_);
    return reason_.empty() ? "the device was lost" : "the device was lost: " + reason_;
}

}  // namespace cudabridge::nv
