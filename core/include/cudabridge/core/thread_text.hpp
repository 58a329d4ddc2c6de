// Text one thread keeps for itself (a last error message) that stays safe to write while the
// process exits: a thread's thread_local objects are destroyed before the process's static ones,
// and a static destructor that then set a std::string error (the runtime unloading its modules
// at exit) wrote into freed memory and aborted with "double free". This one has no destructor:
// a fixed buffer, longer texts cut.
#pragma once

#include <algorithm>
#include <cstring>
#include <string_view>

namespace cudabridge::core {

class thread_text {
public:
    void set(std::string_view text) noexcept {
        size_ = std::min(text.size(), sizeof text_ - 1);
        std::memcpy(text_, text.data(), size_);
        text_[size_] = '\0';
    }
    const char* c_str() const noexcept { return text_; }
    std::string_view view() const noexcept { return {text_, size_}; }

private:
    char text_[8192] = {};
    size_t size_ = 0;
};

}  // namespace cudabridge::core
