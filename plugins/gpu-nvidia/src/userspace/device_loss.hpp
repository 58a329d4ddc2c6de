// Whether the device is gone, and why. Set once by whichever call first meets the loss (a
// transport call reporting the device lost or the link down, or a register reading all ones);
// every later call checks it first. Cleared only by a reset that brings the device back.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

namespace cudabridge::nv {

class device_loss {
public:
    bool lost() const noexcept { return lost_.load(std::memory_order_acquire); }
    // Records the loss; true when this call made the device lost (the first reason is kept).
    bool mark(const std::string& reason);
    void clear();
    std::string reason() const;

private:
    std::atomic<bool> lost_{false};
    mutable std::mutex mutex_;
    std::string reason_;
};

}  // namespace cudabridge::nv
