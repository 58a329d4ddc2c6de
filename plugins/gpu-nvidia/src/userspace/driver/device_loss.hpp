// Whether the device is gone, why, and how: the link went down (CB_ERR_LINK_DOWN: work cut off
// by a link drop fails with that) or the device itself was lost (CB_ERR_DEVICE_LOST). Set once
// by whichever call first meets the loss (a transport call reporting the device lost or the link
// down, or a register reading all ones); every later call checks it first. Cleared only by a
// reset that brings the device back.
#pragma once

#include <cudabridge/abi.h>

#include <atomic>
#include <mutex>
#include <string>

namespace cudabridge::nv {

class device_loss {
public:
    bool lost() const noexcept { return lost_.load(std::memory_order_acquire); }
    // Records the loss; true when this call made the device lost (the first reason is kept).
    bool mark(const std::string& reason, cb_status cause = CB_ERR_DEVICE_LOST);
    void clear();
    std::string reason() const;
    // CB_ERR_LINK_DOWN or CB_ERR_DEVICE_LOST: what every call fails with while lost.
    cb_status status() const noexcept { return cause_.load(std::memory_order_acquire); }

private:
    std::atomic<bool> lost_{false};
    std::atomic<cb_status> cause_{CB_ERR_DEVICE_LOST};
    mutable std::mutex mutex_;
    std::string reason_;
};

}  // namespace cudabridge::nv
