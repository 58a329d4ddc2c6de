#include "sim/device_model/modeled_clock.hpp"

#include "sim/device_model/host_wall_clock.hpp"

#include <algorithm>
#include <utility>

namespace cudabridge::nv {

modeled_clock::modeled_clock(wall_clock wall) : wall_(std::move(wall)) {
    anchor_wall_ = wall_();
    base_ = anchor_wall_;
    last_read_ = base_;
}

modeled_clock::modeled_clock() : modeled_clock(wall_clock(&monotonic_ns)) {}

uint64_t modeled_clock::value_at_locked(uint64_t wall) {
    uint64_t value = base_;
    // Idle time follows the wall clock; a wall clock that steps back adds nothing.
    if (!busy_ && wall > anchor_wall_) value += wall - anchor_wall_;
    last_read_ = std::max(last_read_, value);
    return last_read_;
}

void modeled_clock::reanchor_locked() {
    const uint64_t wall = wall_();
    base_ = value_at_locked(wall);
    anchor_wall_ = wall;
}

uint64_t modeled_clock::now() {
    std::lock_guard lock(m_);
    return value_at_locked(busy_ ? anchor_wall_ : wall_());
}

void modeled_clock::set_busy(bool busy) {
    std::lock_guard lock(m_);
    if (busy == busy_) return;
    // From the value readers may already have seen, so the switch is seamless.
    reanchor_locked();
    busy_ = busy;
}

void modeled_clock::advance(uint64_t ns) {
    std::lock_guard lock(m_);
    reanchor_locked();
    base_ = ns > UINT64_MAX - base_ ? UINT64_MAX : base_ + ns;
}

bool modeled_clock::busy() const {
    std::lock_guard lock(m_);
    return busy_;
}

}  // namespace cudabridge::nv
