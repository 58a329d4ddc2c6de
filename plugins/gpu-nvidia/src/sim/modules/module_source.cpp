#include "sim/modules/module_source.hpp"

#include "nvidia_driver/cuda_driver/nvrtc_library.hpp"
#include "sim/modules/fatbin.hpp"
#include "sim/modules/library_from_environment.hpp"

#include <cstdlib>
#include <memory>
#include <mutex>

namespace cudabridge::nv {
namespace {

const std::string build_with_ptx =
    "the simulated GPU runs PTX, not machine code: load the PTX (nvcc -ptx), or a fatbin that holds it "
    "(nvcc -fatbin -gencode arch=compute_75,code=compute_75)";

// CUDABRIDGE_NVRTC when set (and trusted), else NVRTC's sonames, then the toolkit the build found
// and the toolkit's standard place. A refused variable leaves no candidate: nothing else is
// loaded behind the user's back, and the compile says why.
std::vector<std::string> nvrtc_candidates(const library_choice& chosen) {
    if (chosen.path) return {*chosen.path};
    if (!chosen.refused.empty()) return {};
    std::vector<std::string> names = nvrtc_library::default_candidates();
#ifdef CB_NV_TOOLKIT_LIBRARY_DIR
    names.push_back(std::string(CB_NV_TOOLKIT_LIBRARY_DIR) + "/libnvrtc.so");
#endif
    names.push_back("/usr/local/cuda/lib64/libnvrtc.so");
    return names;
}

// Loaded at the first CUDA source module, kept for the process (libnvrtc is large).
struct process_compiler {
    std::unique_ptr<nvrtc_library> library;
    std::string refused;  // why CUDABRIDGE_NVRTC's library was not loaded
};

const process_compiler& process_nvrtc() {
    static std::once_flag once;
    static process_compiler compiler;
    std::call_once(once, [] {
        const library_choice chosen = library_from_environment("CUDABRIDGE_NVRTC");
        compiler.refused = chosen.refused;
        compiler.library = std::make_unique<nvrtc_library>(nvrtc_candidates(chosen));
    });
    return compiler;
}

cb_status text_of(const void* image, size_t size, std::string& out, std::string& error) {
    const auto* chars = static_cast<const char*>(image);
    size_t n = size;
    while (n > 0 && chars[n - 1] == '\0') --n;
    out.assign(chars, n);
    if (out.find('\0') != std::string::npos) {
        error = "module_load: the text holds a NUL byte";
        return CB_ERR_INVALID_ARGUMENT;
    }
    return CB_OK;
}

}  // namespace

cb_status compile_cuda_source(const nvrtc_library& lib, const void* image, size_t size, int cc_major, int cc_minor,
                              module_text& out, std::string& error) {
    std::string source;
    if (cb_status st = text_of(image, size, source, error); st != CB_OK) return st;
    if (!lib.available()) {
        error = "module_load: no NVRTC on this machine, so CUDA source cannot be compiled (" + lib.status().reason +
                "); install the CUDA toolkit, or load PTX (nvcc -ptx) instead";
        return CB_ERR_UNSUPPORTED;
    }
    nvrtc_output compiled;
    std::string message;
    const cb_status st = lib.compile(source, "cudabridge_module.cu", cc_major, cc_minor, compiled, &message, true);
    out.log = compiled.log;
    if (st != CB_OK) {
        error = "module_load: " + message;
        return st;
    }
    return text_of(compiled.image.data(), compiled.image.size(), out.ptx, error);
}

cb_status module_ptx(const void* image, size_t size, cb_module_format format, int cc_major, int cc_minor,
                     module_text& out, std::string& error) {
    out = {};
    if (image == nullptr || size == 0) {
        error = "module_load: empty image";
        return CB_ERR_INVALID_ARGUMENT;
    }
    switch (format) {
    case CB_MODULE_PTX:
        return text_of(image, size, out.ptx, error);
    case CB_MODULE_FATBIN:
        return newest_fatbin_ptx(image, size, out.ptx, error);
    case CB_MODULE_CUDA_SOURCE: {
        const process_compiler& compiler = process_nvrtc();
        if (!compiler.refused.empty()) {
            error = "module_load: " + compiler.refused;
            return CB_ERR_PERMISSION;
        }
        return compile_cuda_source(*compiler.library, image, size, cc_major, cc_minor, out, error);
    }
    case CB_MODULE_CUBIN:
        error = "module_load: a CUBIN holds no PTX; " + build_with_ptx;
        return CB_ERR_UNSUPPORTED;
    default:
        error = "module_load: unknown module format " + std::to_string(format);
        return CB_ERR_INVALID_ARGUMENT;
    }
}

}  // namespace cudabridge::nv
