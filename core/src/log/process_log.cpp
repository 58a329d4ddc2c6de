// The process-wide front end (see process_log.hpp).
#include <cudabridge/core/process_log.hpp>

#include <cstdlib>

namespace cudabridge::core::log {

namespace {
void shutdown_at_exit() noexcept {
    try {
        process_front_end().shutdown();
    } catch (...) {
    }
}
}  // namespace

front_end& process_front_end() {
    // Deliberately leaked: log calls from other static destructors stay safe (they are dropped
    // once the atexit handler has shut the front end down).
    static front_end* const instance = [] {
        auto* fe = new front_end();
        std::atexit(shutdown_at_exit);
        return fe;
    }();
    return *instance;
}

}  // namespace cudabridge::core::log
