#include "nvidia_driver/cuda_driver/nvrtc_library.hpp"

#include <algorithm>
#include <filesystem>

#include <dlfcn.h>

#include "nvidia_driver/cuda_driver/bind_symbol.hpp"

namespace cudabridge::nv {
namespace {

// Where the toolkit keeps cuda_fp16.h and the other device headers, judged from where the NVRTC
// library was loaded (<toolkit>/lib64, or <toolkit>/targets/<arch>/lib); empty when not there.
std::string toolkit_include_dir(const void* symbol_in_library) {
    Dl_info info{};
    if (!symbol_in_library || !dladdr(symbol_in_library, &info) || !info.dli_fname) return {};
    std::error_code ec;
    const auto lib = std::filesystem::canonical(info.dli_fname, ec).parent_path();
    if (ec) return {};
    for (const auto& dir : {lib.parent_path() / "include", lib.parent_path().parent_path() / "include"})
        if (std::filesystem::exists(dir / "cuda_fp16.h", ec)) return dir.string();
    return {};
}

}  // namespace

std::vector<std::string> nvrtc_library::default_candidates() {
    return {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
}

nvrtc_library::nvrtc_library(const std::vector<std::string>& candidates) {
    auto result =
        load_first(candidates, "NVRTC", [this](const std::string& c, std::string& why) { return try_load(c, why); });
    if (!result.available) availability_ = result;
}

bool nvrtc_library::try_load(const std::string& library, std::string& why) {
    api_ = {};
    bound_.clear();
    archs_.clear();
    // Kept loaded once opened, as NVIDIA's own runtime does: NVRTC links its own static libstdc++,
    // whose exception-handling pool lives as long as the library; unloading it would leave that
    // pool behind as a leak no one can free.
    if (!library_.open(library, /*keep_loaded=*/true)) {
        why = library_.error();
        return false;
    }
    std::vector<std::string> missing;
#define CB_NV_NVRTC_BIND(member, type, name, required) \
    if (!bind_symbol(library_, api_.member, #member, name, nullptr, bound_) && (required)) missing.emplace_back(name);
    CB_NV_NVRTC_ENTRY_POINTS(CB_NV_NVRTC_BIND)
#undef CB_NV_NVRTC_BIND
    if (!missing.empty()) {
        why = missing_symbols_text(missing, library);
        library_.close();
        return false;
    }
    int major = 0, minor = 0;
    if (api_.nvrtcVersion(&major, &minor) != nvrtc::NVRTC_SUCCESS) {
        why = library + ": nvrtcVersion failed";
        library_.close();
        return false;
    }
    int count = 0;
    if (api_.nvrtcGetNumSupportedArchs != nullptr && api_.nvrtcGetSupportedArchs != nullptr &&
        api_.nvrtcGetNumSupportedArchs(&count) == nvrtc::NVRTC_SUCCESS && count > 0 && count < 1024) {
        archs_.resize(static_cast<std::size_t>(count));
        if (api_.nvrtcGetSupportedArchs(archs_.data()) != nvrtc::NVRTC_SUCCESS) archs_.clear();
        std::sort(archs_.begin(), archs_.end());
    }
    include_dir_ = toolkit_include_dir(reinterpret_cast<const void*>(api_.nvrtcVersion));
    availability_ = {};
    availability_.available = true;
    availability_.status = CB_OK;
    availability_.driver_version = 1000 * major + 10 * minor;
    return true;
}

std::string nvrtc_library::architecture_for(int cc_major, int cc_minor) const {
    const int cc = 10 * cc_major + cc_minor;
    if (archs_.empty() || std::find(archs_.begin(), archs_.end(), cc) != archs_.end())
        return "sm_" + std::to_string(cc);
    return virtual_architecture_for(cc_major, cc_minor);
}

std::string nvrtc_library::virtual_architecture_for(int cc_major, int cc_minor) const {
    const int cc = 10 * cc_major + cc_minor;
    if (archs_.empty()) return "compute_" + std::to_string(cc);
    int best = 0;
    for (int a : archs_)
        if (a <= cc) best = a;
    return best == 0 ? std::string() : "compute_" + std::to_string(best);
}

std::string nvrtc_library::describe(nvrtc::nvrtcResult result) const {
    const char* text = api_.nvrtcGetErrorString != nullptr ? api_.nvrtcGetErrorString(result) : nullptr;
    std::string label = "nvrtcResult " + std::to_string(result);
    return text != nullptr && *text != '\0' ? std::string(text) + " (" + std::to_string(result) + ")" : label;
}

namespace {

// The first line of a compiler log that reports an error, for one-line messages.
std::string first_error_line(const std::string& log) {
    std::size_t pos = log.find("error");
    if (pos == std::string::npos) return {};
    std::size_t begin = log.rfind('\n', pos);
    begin = begin == std::string::npos ? 0 : begin + 1;
    std::size_t end = log.find('\n', pos);
    return log.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// Destroys the program on every path out of compile().
struct program_guard {
    const nvrtc_api& api;
    nvrtc::nvrtcProgram program = nullptr;
    ~program_guard() {
        if (program != nullptr) api.nvrtcDestroyProgram(&program);
    }
};

}  // namespace

cb_status nvrtc_library::compile(std::string_view source, const std::string& name, int cc_major, int cc_minor,
                                 nvrtc_output& out, std::string* message, bool ptx_only) const {
    out = {};
    auto fail = [&](cb_status s, std::string text) {
        if (message != nullptr) *message = std::move(text);
        return s;
    };
    if (!available()) return fail(availability_.status, "NVRTC not available: " + availability_.reason);
    out.architecture = ptx_only ? virtual_architecture_for(cc_major, cc_minor) : architecture_for(cc_major, cc_minor);
    if (out.architecture.empty())
        return fail(CB_ERR_UNSUPPORTED, "NVRTC " + std::to_string(version() / 1000) + "." +
                                            std::to_string(version() % 1000 / 10) +
                                            " cannot generate code for compute capability " + std::to_string(cc_major) +
                                            "." + std::to_string(cc_minor));

    const std::string text(source);  // NVRTC wants a NUL-terminated string
    program_guard guard{api_};
    nvrtc::nvrtcResult r = api_.nvrtcCreateProgram(&guard.program, text.c_str(), name.c_str(), 0, nullptr, nullptr);
    if (r != nvrtc::NVRTC_SUCCESS) return fail(CB_ERR_INTERNAL, "nvrtcCreateProgram: " + describe(r));

    const std::string arch_option = "--gpu-architecture=" + out.architecture;
    const std::string include_option = "--include-path=" + include_dir_;
    const char* options[] = {arch_option.c_str(), "--std=c++17", include_option.c_str()};
    const nvrtc::nvrtcResult compiled = api_.nvrtcCompileProgram(guard.program, include_dir_.empty() ? 2 : 3, options);

    std::size_t log_size = 0;
    if (api_.nvrtcGetProgramLogSize(guard.program, &log_size) == nvrtc::NVRTC_SUCCESS && log_size > 1) {
        out.log.resize(log_size);
        if (api_.nvrtcGetProgramLog(guard.program, out.log.data()) != nvrtc::NVRTC_SUCCESS) out.log.clear();
        while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n')) out.log.pop_back();
    }
    if (compiled == nvrtc::NVRTC_ERROR_COMPILATION) {
        std::string line = first_error_line(out.log);
        return fail(CB_ERR_INVALID_ARGUMENT,
                    "CUDA source failed to compile for " + out.architecture + (line.empty() ? "" : ": " + line));
    }
    if (compiled != nvrtc::NVRTC_SUCCESS) return fail(CB_ERR_INTERNAL, "nvrtcCompileProgram: " + describe(compiled));

    const bool cubin =
        out.architecture.rfind("sm_", 0) == 0 && api_.nvrtcGetCUBINSize != nullptr && api_.nvrtcGetCUBIN != nullptr;
    std::size_t size = 0;
    r = cubin ? api_.nvrtcGetCUBINSize(guard.program, &size) : api_.nvrtcGetPTXSize(guard.program, &size);
    if (r != nvrtc::NVRTC_SUCCESS || size == 0)
        return fail(CB_ERR_INTERNAL, std::string(cubin ? "nvrtcGetCUBINSize" : "nvrtcGetPTXSize") + ": " + describe(r));
    out.image.resize(size);
    r = cubin ? api_.nvrtcGetCUBIN(guard.program, out.image.data()) : api_.nvrtcGetPTX(guard.program, out.image.data());
    if (r != nvrtc::NVRTC_SUCCESS)
        return fail(CB_ERR_INTERNAL, std::string(cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX") + ": " + describe(r));
    out.is_cubin = cubin;
    return CB_OK;
}

}  // namespace cudabridge::nv
