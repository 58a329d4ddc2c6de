// cb_log_init_default / cb_log_shutdown of the seed's C API: the process-wide front end with
// the console and rotating-file sink plugins attached.
#include <cb_log.h>
#include <cudabridge/core/context.hpp>
#include <cudabridge/core/process_log.hpp>

#include <cstdio>
#include <mutex>

namespace cudabridge::core {
namespace {

// The sinks the C API attached; the one piece of process state besides the front end itself.
struct default_logging_registry {
    std::mutex mutex;
    std::unique_ptr<context> ctx;
};

default_logging_registry& default_logging() {
    static default_logging_registry r;
    return r;
}

}  // namespace
}  // namespace cudabridge::core

extern "C" int cb_log_init_default(void) {
    using namespace cudabridge::core;
    try {
        auto& r = default_logging();
        std::lock_guard lock(r.mutex);
        if (r.ctx) return CB_OK;
        context_options o;
        o.log_sinks = std::vector<sink_spec>{{"console", {}}, {"file", {}}};
        log::process_front_end().restart();  // after cb_log_shutdown, start delivering again
        o.external_log = &log::process_front_end();
        r.ctx = std::make_unique<context>(o);
        for (const auto& f : r.ctx->sink_failures()) std::fprintf(stderr, "cudabridge: log sink %s\n", f.c_str());
        return r.ctx->active_sinks().empty() ? CB_ERR_NOT_FOUND : CB_OK;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cudabridge: cb_log_init_default failed: %s\n", e.what());
        return CB_ERR_INTERNAL;
    }
}

extern "C" void cb_log_shutdown(void) {
    using namespace cudabridge::core;
    try {
        auto& r = default_logging();
        std::lock_guard lock(r.mutex);
        log::process_front_end().flush();
        r.ctx.reset();  // detaches and closes the sinks
        log::process_front_end().shutdown();
    } catch (...) {
    }
}
