// libnvrtc loaded at run time: CUDA C++ source compiled for one device's compute capability.
// A CUBIN when this NVRTC knows the device's real architecture, else PTX for the newest virtual
// architecture at or below it (the driver finishes it with its JIT). The first candidate that
// loads and binds wins.
#pragma once

#include <cudabridge/abi.h>

#include <string>
#include <string_view>
#include <vector>

#include "nvidia_driver/cuda_driver/availability.hpp"
#include "nvidia_driver/cuda_driver/bound_symbol.hpp"
#include "nvidia_driver/cuda_driver/dynamic_library.hpp"

namespace cudabridge::nv {

namespace nvrtc {
using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram*;
enum : nvrtcResult { NVRTC_SUCCESS = 0, NVRTC_ERROR_COMPILATION = 6 };

extern "C" {
using nvrtcVersion_t = nvrtcResult (*)(int* major, int* minor);
using nvrtcGetErrorString_t = const char* (*)(nvrtcResult result);
using nvrtcCreateProgram_t = nvrtcResult (*)(nvrtcProgram* prog, const char* src, const char* name, int numHeaders,
                                             const char* const* headers, const char* const* includeNames);
using nvrtcDestroyProgram_t = nvrtcResult (*)(nvrtcProgram* prog);
using nvrtcCompileProgram_t = nvrtcResult (*)(nvrtcProgram prog, int numOptions, const char* const* options);
using nvrtcGetSize_t = nvrtcResult (*)(nvrtcProgram prog, std::size_t* size);
using nvrtcGetBytes_t = nvrtcResult (*)(nvrtcProgram prog, char* out);
using nvrtcGetNumSupportedArchs_t = nvrtcResult (*)(int* count);
using nvrtcGetSupportedArchs_t = nvrtcResult (*)(int* archs);
}
}  // namespace nvrtc

// X(member, type, export, required)
#define CB_NV_NVRTC_ENTRY_POINTS(X)                                                                      \
    X(nvrtcVersion, nvrtc::nvrtcVersion_t, "nvrtcVersion", true)                                         \
    X(nvrtcGetErrorString, nvrtc::nvrtcGetErrorString_t, "nvrtcGetErrorString", true)                    \
    X(nvrtcCreateProgram, nvrtc::nvrtcCreateProgram_t, "nvrtcCreateProgram", true)                       \
    X(nvrtcDestroyProgram, nvrtc::nvrtcDestroyProgram_t, "nvrtcDestroyProgram", true)                    \
    X(nvrtcCompileProgram, nvrtc::nvrtcCompileProgram_t, "nvrtcCompileProgram", true)                    \
    X(nvrtcGetProgramLogSize, nvrtc::nvrtcGetSize_t, "nvrtcGetProgramLogSize", true)                     \
    X(nvrtcGetProgramLog, nvrtc::nvrtcGetBytes_t, "nvrtcGetProgramLog", true)                            \
    X(nvrtcGetPTXSize, nvrtc::nvrtcGetSize_t, "nvrtcGetPTXSize", true)                                   \
    X(nvrtcGetPTX, nvrtc::nvrtcGetBytes_t, "nvrtcGetPTX", true)                                          \
    X(nvrtcGetCUBINSize, nvrtc::nvrtcGetSize_t, "nvrtcGetCUBINSize", false)                              \
    X(nvrtcGetCUBIN, nvrtc::nvrtcGetBytes_t, "nvrtcGetCUBIN", false)                                     \
    X(nvrtcGetNumSupportedArchs, nvrtc::nvrtcGetNumSupportedArchs_t, "nvrtcGetNumSupportedArchs", false) \
    X(nvrtcGetSupportedArchs, nvrtc::nvrtcGetSupportedArchs_t, "nvrtcGetSupportedArchs", false)

struct nvrtc_api {
#define CB_NV_NVRTC_MEMBER(member, type, name, required) type member = nullptr;
    CB_NV_NVRTC_ENTRY_POINTS(CB_NV_NVRTC_MEMBER)
#undef CB_NV_NVRTC_MEMBER
};

// What one compile produced.
struct nvrtc_output {
    std::string image;  // CUBIN bytes, or NUL-terminated PTX text
    bool is_cubin = false;
    std::string architecture;  // the --gpu-architecture used: "sm_89" or "compute_90"
    std::string log;           // the compiler's log (warnings too); kept on success and failure
};

class nvrtc_library {
public:
    // Sonames of the NVRTC releases this loader knows, newest first.
    static std::vector<std::string> default_candidates();

    explicit nvrtc_library(const std::vector<std::string>& candidates = default_candidates());
    nvrtc_library(const nvrtc_library&) = delete;
    nvrtc_library& operator=(const nvrtc_library&) = delete;

    [[nodiscard]] const availability& status() const { return availability_; }
    [[nodiscard]] bool available() const { return availability_.available; }
    [[nodiscard]] const nvrtc_api& api() const { return api_; }
    [[nodiscard]] const std::string& library_path() const { return library_.path(); }
    // 1000 * major + 10 * minor (13000), 0 when unavailable.
    [[nodiscard]] int version() const { return availability_.driver_version; }
    // The real architectures this NVRTC generates code for (75, 80, ...); empty when unknown.
    [[nodiscard]] const std::vector<int>& supported_architectures() const { return archs_; }

    // The --gpu-architecture for a device of compute capability major.minor: "sm_XY" when
    // supported (or when the list is unknown), else "compute_XY" for the newest supported one
    // below it; "" when the device is older than everything this NVRTC supports.
    [[nodiscard]] std::string architecture_for(int cc_major, int cc_minor) const;

    // The --gpu-architecture for PTX only: "compute_XY" for the newest supported one at or
    // below the device's; "" when none is.
    [[nodiscard]] std::string virtual_architecture_for(int cc_major, int cc_minor) const;

    // Compiles `source` (name: the file name in diagnostics). Compilation errors return
    // CB_ERR_INVALID_ARGUMENT with the log in out.log and a one-line summary in `message`.
    // `ptx_only`: PTX for virtual_architecture_for (what the simulated GPU runs), never a CUBIN.
    cb_status compile(std::string_view source, const std::string& name, int cc_major, int cc_minor, nvrtc_output& out,
                      std::string* message = nullptr, bool ptx_only = false) const;

    [[nodiscard]] std::string describe(nvrtc::nvrtcResult result) const;

private:
    bool try_load(const std::string& library, std::string& why);

    dynamic_library library_;
    nvrtc_api api_;
    std::vector<bound_symbol> bound_;
    availability availability_;
    std::vector<int> archs_;
    // The toolkit's headers (cuda_fp16.h, ...) beside the loaded library, passed to every compile
    // as nvcc would find them; empty when the library came without them.
    std::string include_dir_;
};

}  // namespace cudabridge::nv
