#include "sim/modules/ptx_engine_library.hpp"

#include "nvidia_driver/cuda_driver/dynamic_library.hpp"
#include "sim/modules/library_from_environment.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

namespace cudabridge::nv {
namespace {

namespace fs = std::filesystem;

struct engine_library {
    dynamic_library library;
    ptx::load_function load = nullptr;
    std::string failure;  // why it could not be loaded
};

std::vector<std::string> candidates(std::string& refused) {
    std::vector<std::string> out;
    const library_choice chosen = library_from_environment("CUDABRIDGE_PTX_ENGINE");
    refused = chosen.refused;
    if (chosen.path) return {*chosen.path};
    if (!refused.empty()) return {};
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&load_ptx_module), &info) != 0 && info.dli_fname) {
        const fs::path here = fs::path(info.dli_fname).parent_path();
        out.push_back((here / CB_PTX_ENGINE_FROM_PLUGINS / ptx::engine_library_name).lexically_normal().string());
        out.push_back((here / CB_PTX_ENGINE_FROM_BIN / ptx::engine_library_name).lexically_normal().string());
    }
    return out;
}

engine_library open_engine() {
    engine_library e;
    std::string refused, tried;
    for (const std::string& path : candidates(refused)) {
        // Kept loaded (RTLD_NODELETE) until the process exits: a module's code lives in the
        // engine and its JIT, and LLVM is loaded once per process, however often this plugin is.
        if (e.library.open(path, /*keep_loaded=*/true)) break;
        tried += "\n  " + path + ": " + e.library.error();
    }
    if (!refused.empty()) {
        e.failure = "the simulated GPU's PTX engine: " + refused;
        return e;
    }
    if (!e.library.is_open()) {
        e.failure = "the simulated GPU's PTX engine (" + std::string(ptx::engine_library_name) +
                    ") is not installed; looked for:" + tried;
        return e;
    }
    e.load = reinterpret_cast<ptx::load_function>(e.library.symbol(ptx::load_symbol));
    if (!e.load) e.failure = e.library.path() + " has no " + ptx::load_symbol;
    return e;
}

// Lives in this plugin's image and goes with it: the host unloads the plugin with each runtime,
// so state on the heap that only a static pointer here reached was leaked at every unload.
const engine_library& engine() {
    static const engine_library e = open_engine();
    return e;
}

}  // namespace

cb_status load_ptx_module(std::string_view ptx_text, std::shared_ptr<const ptx::kernel_module>& out,
                          std::string& error) {
    const engine_library& e = engine();
    if (!e.load) {
        error = "module_load: " + e.failure;
        return CB_ERR_UNSUPPORTED;
    }
    std::string why;
    cb_status st = CB_ERR_INTERNAL;
    ptx::kernel_module* m = e.load(ptx_text.data(), ptx_text.size(), &why, &st);
    if (!m) {
        error = "module_load: " + why;
        return st == CB_OK ? CB_ERR_INTERNAL : st;
    }
    out.reset(m);
    return CB_OK;
}

}  // namespace cudabridge::nv
