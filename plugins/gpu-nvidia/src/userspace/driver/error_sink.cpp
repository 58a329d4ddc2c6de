#include "userspace/driver/error_sink.hpp"

namespace cudabridge::nv {

void error_sink::record(cb_status code, const std::string& message) {
    std::lock_guard lock(mutex_);
    if (code_ != CB_OK) return;
    code_ = code;
    message_ = message;
}

cb_status error_sink::take(std::string& message) {
    std::lock_guard lock(mutex_);
    const cb_status code = code_;
    if (code != CB_OK) message = std::move(message_);
    code_ = CB_OK;
    message_.clear();
    return code;
}

cb_status error_sink::peek(std::string& message) const {
    std::lock_guard lock(mutex_);
    if (code_ != CB_OK) message = message_;
    return code_;
}

}  // namespace cudabridge::nv
