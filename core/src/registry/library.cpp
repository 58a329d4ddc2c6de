// Loading with Boost.DLL: RTLD_NOW so a missing symbol fails here rather than mid-run,
// RTLD_LOCAL so plugins cannot interpose on each other.
#include "internal.hpp"

#include <cudabridge/core/error.hpp>

#include <boost/dll/shared_library.hpp>

#include <dlfcn.h>

namespace cudabridge::core {

struct loaded_library::impl {
    boost::dll::shared_library lib;
};

loaded_library::loaded_library(const std::string& path) : impl_(std::make_unique<impl>()), path_(path) {
    boost::dll::fs::error_code ec;
    impl_->lib.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, ec);
    if (ec) {
        // Boost reports a generic code; the dynamic loader's own words say what was wrong.
        const char* why = dlerror();
        throw error(CB_ERR_NOT_FOUND, "cannot load " + path + ": " + (why ? std::string(why) : ec.message()));
    }
}

loaded_library::~loaded_library() = default;

bool loaded_library::has_entry() const { return impl_->lib.has(CB_PLUGIN_ENTRY_SYMBOL); }

const cb_plugin_library* loaded_library::entry() const {
    auto& fn = impl_->lib.get<const cb_plugin_library*()>(CB_PLUGIN_ENTRY_SYMBOL);
    return fn();
}

}  // namespace cudabridge::core
