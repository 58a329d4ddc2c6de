#include "toolkit_nvrtc.hpp"

#include <cudabridge/cpp/secure_env.hpp>

#include <cstdio>
#include <dlfcn.h>
#include <mutex>
#include <vector>

extern "C" int nvrtcVersion(int*, int*);  // this library's own (api.cpp)

namespace cudabridge::nvrtc {

namespace {

struct loaded {
    toolkit_functions functions{};
    bool ok = false;
    std::string why;
};

std::vector<std::string> candidates(std::string& refused) {
    if (auto named = sdk::secure_env("CUDABRIDGE_NVRTC")) {
        if (auto reason = sdk::untrusted_reason(*named)) {
            refused = "CUDABRIDGE_NVRTC=" + *named + " is not loaded: " + *reason;
            return {};
        }
        return {*named};
    }
    std::vector<std::string> paths;
#ifdef CB_TOOLKIT_LIBRARY_DIR
    paths.push_back(std::string(CB_TOOLKIT_LIBRARY_DIR) + "/libnvrtc.so.13");
#endif
    paths.push_back("/usr/local/cuda/lib64/libnvrtc.so.13");
    return paths;
}

template <typename F>
bool bind(void* library, F& slot, const char* name) {
    slot = reinterpret_cast<F>(dlsym(library, name));
    return slot != nullptr;
}

bool bind_all(void* l, toolkit_functions& f) {
    return bind(l, f.error_string, "nvrtcGetErrorString") && bind(l, f.version, "nvrtcVersion") &&
           bind(l, f.num_supported_archs, "nvrtcGetNumSupportedArchs") &&
           bind(l, f.supported_archs, "nvrtcGetSupportedArchs") && bind(l, f.create_program, "nvrtcCreateProgram") &&
           bind(l, f.destroy_program, "nvrtcDestroyProgram") && bind(l, f.compile_program, "nvrtcCompileProgram") &&
           bind(l, f.ptx_size, "nvrtcGetPTXSize") && bind(l, f.ptx, "nvrtcGetPTX") &&
           bind(l, f.cubin_size, "nvrtcGetCUBINSize") && bind(l, f.cubin, "nvrtcGetCUBIN") &&
           bind(l, f.ltoir_size, "nvrtcGetLTOIRSize") && bind(l, f.ltoir, "nvrtcGetLTOIR") &&
           bind(l, f.optixir_size, "nvrtcGetOptiXIRSize") && bind(l, f.optixir, "nvrtcGetOptiXIR") &&
           bind(l, f.log_size, "nvrtcGetProgramLogSize") && bind(l, f.log, "nvrtcGetProgramLog") &&
           bind(l, f.add_name_expression, "nvrtcAddNameExpression") && bind(l, f.lowered_name, "nvrtcGetLoweredName") &&
           bind(l, f.pch_heap_size, "nvrtcGetPCHHeapSize") && bind(l, f.set_pch_heap_size, "nvrtcSetPCHHeapSize") &&
           bind(l, f.pch_create_status, "nvrtcGetPCHCreateStatus") &&
           bind(l, f.pch_heap_size_required, "nvrtcGetPCHHeapSizeRequired") &&
           bind(l, f.set_flow_callback, "nvrtcSetFlowCallback");
}

loaded load() {
    loaded out;
    std::string refused;
    const std::vector<std::string> paths = candidates(refused);
    for (const auto& path : paths) {
        void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!library) continue;
        // A path that leads back here (a link to this library) would call itself forever.
        if (dlsym(library, "nvrtcVersion") == reinterpret_cast<void*>(&nvrtcVersion)) {
            dlclose(library);
            continue;
        }
        if (bind_all(library, out.functions)) {
            out.ok = true;
            return out;
        }
        dlclose(library);
    }
    out.why = !refused.empty() ? refused : "NVIDIA's NVRTC (libnvrtc.so.13) was not found in the CUDA toolkit";
    std::fprintf(stderr, "cudabridge: %s; NVRTC calls fail with NVRTC_ERROR_INTERNAL_ERROR\n", out.why.c_str());
    return out;
}

const loaded& once() {
    static const loaded l = load();
    return l;
}

}  // namespace

const toolkit_functions* toolkit() { return once().ok ? &once().functions : nullptr; }
const std::string& why() { return once().why; }

}  // namespace cudabridge::nvrtc
