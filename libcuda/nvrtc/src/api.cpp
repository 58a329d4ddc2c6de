// NVRTC's C API (nvrtc.h of CUDA 13), each call passed to NVIDIA's library, except where a
// program asks for machine code: a compile for sm_NN runs for compute_NN, and the program's
// "CUBIN" is its PTX, which the simulated GPU's driver (libcuda.so.1) loads as a module.
#include "architecture_options.hpp"
#include "toolkit_nvrtc.hpp"

#include <mutex>
#include <set>
#include <string>
#include <vector>

using namespace cudabridge::nvrtc;

namespace {

// Programs compiled for a real architecture, whose CUBIN is their PTX.
std::mutex ptx_as_cubin_mutex;
std::set<program> ptx_as_cubin;

bool cubin_is_ptx(program p) {
    std::lock_guard lock(ptx_as_cubin_mutex);
    return ptx_as_cubin.count(p) > 0;
}

void remember(program p, bool machine_code_asked) {
    std::lock_guard lock(ptx_as_cubin_mutex);
    if (machine_code_asked)
        ptx_as_cubin.insert(p);
    else
        ptx_as_cubin.erase(p);
}

// Calls `call` on NVIDIA's library; NVRTC_ERROR_INTERNAL_ERROR without one (said once on stderr).
template <typename F>
result with_toolkit(F&& call) {
    const toolkit_functions* t = toolkit();
    return t ? call(*t) : internal_error;
}

}  // namespace

#define CB_NVRTC_API extern "C" __attribute__((visibility("default")))

CB_NVRTC_API const char* nvrtcGetErrorString(result r) {
    const toolkit_functions* t = toolkit();
    if (t) return t->error_string(r);
    return r == success ? "NVRTC_SUCCESS" : "NVRTC_ERROR_INTERNAL_ERROR (NVIDIA's NVRTC was not found)";
}

CB_NVRTC_API result nvrtcVersion(int* major, int* minor) {
    return with_toolkit([&](const toolkit_functions& t) { return t.version(major, minor); });
}

CB_NVRTC_API result nvrtcGetNumSupportedArchs(int* count) {
    return with_toolkit([&](const toolkit_functions& t) { return t.num_supported_archs(count); });
}

CB_NVRTC_API result nvrtcGetSupportedArchs(int* archs) {
    return with_toolkit([&](const toolkit_functions& t) { return t.supported_archs(archs); });
}

CB_NVRTC_API result nvrtcCreateProgram(program* p, const char* source, const char* name, int headers,
                                       const char* const* contents, const char* const* include_names) {
    return with_toolkit([&](const toolkit_functions& t) {
        return t.create_program(p, source, name, headers, contents, include_names);
    });
}

CB_NVRTC_API result nvrtcDestroyProgram(program* p) {
    if (p) remember(*p, false);
    return with_toolkit([&](const toolkit_functions& t) { return t.destroy_program(p); });
}

CB_NVRTC_API result nvrtcCompileProgram(program p, int count, const char* const* options) {
    if (count < 0 || (count > 0 && !options)) return invalid_input;
    std::vector<std::string> given;
    for (int i = 0; i < count; ++i) {
        if (!options[i]) return invalid_input;
        given.emplace_back(options[i]);
    }
    const rewritten_options rewritten = to_virtual_architecture(given);
    std::vector<const char*> pointers;
    for (const auto& o : rewritten.options) pointers.push_back(o.c_str());
    const result r = with_toolkit([&](const toolkit_functions& t) {
        return t.compile_program(p, count, pointers.empty() ? nullptr : pointers.data());
    });
    remember(p, r == success && rewritten.asked_for_machine_code);
    return r;
}

CB_NVRTC_API result nvrtcGetPTXSize(program p, size_t* size) {
    return with_toolkit([&](const toolkit_functions& t) { return t.ptx_size(p, size); });
}

CB_NVRTC_API result nvrtcGetPTX(program p, char* out) {
    return with_toolkit([&](const toolkit_functions& t) { return t.ptx(p, out); });
}

CB_NVRTC_API result nvrtcGetCUBINSize(program p, size_t* size) {
    return with_toolkit(
        [&](const toolkit_functions& t) { return cubin_is_ptx(p) ? t.ptx_size(p, size) : t.cubin_size(p, size); });
}

CB_NVRTC_API result nvrtcGetCUBIN(program p, char* out) {
    return with_toolkit([&](const toolkit_functions& t) { return cubin_is_ptx(p) ? t.ptx(p, out) : t.cubin(p, out); });
}

CB_NVRTC_API result nvrtcGetLTOIRSize(program p, size_t* size) {
    return with_toolkit([&](const toolkit_functions& t) { return t.ltoir_size(p, size); });
}

CB_NVRTC_API result nvrtcGetLTOIR(program p, char* out) {
    return with_toolkit([&](const toolkit_functions& t) { return t.ltoir(p, out); });
}

CB_NVRTC_API result nvrtcGetOptiXIRSize(program p, size_t* size) {
    return with_toolkit([&](const toolkit_functions& t) { return t.optixir_size(p, size); });
}

CB_NVRTC_API result nvrtcGetOptiXIR(program p, char* out) {
    return with_toolkit([&](const toolkit_functions& t) { return t.optixir(p, out); });
}

CB_NVRTC_API result nvrtcGetProgramLogSize(program p, size_t* size) {
    return with_toolkit([&](const toolkit_functions& t) { return t.log_size(p, size); });
}

CB_NVRTC_API result nvrtcGetProgramLog(program p, char* out) {
    return with_toolkit([&](const toolkit_functions& t) { return t.log(p, out); });
}

CB_NVRTC_API result nvrtcAddNameExpression(program p, const char* expression) {
    return with_toolkit([&](const toolkit_functions& t) { return t.add_name_expression(p, expression); });
}

CB_NVRTC_API result nvrtcGetLoweredName(program p, const char* expression, const char** lowered) {
    return with_toolkit([&](const toolkit_functions& t) { return t.lowered_name(p, expression, lowered); });
}

CB_NVRTC_API result nvrtcGetPCHHeapSize(size_t* size) {
    return with_toolkit([&](const toolkit_functions& t) { return t.pch_heap_size(size); });
}

CB_NVRTC_API result nvrtcSetPCHHeapSize(size_t size) {
    return with_toolkit([&](const toolkit_functions& t) { return t.set_pch_heap_size(size); });
}

CB_NVRTC_API result nvrtcGetPCHCreateStatus(program p) {
    return with_toolkit([&](const toolkit_functions& t) { return t.pch_create_status(p); });
}

CB_NVRTC_API result nvrtcGetPCHHeapSizeRequired(program p, size_t* size) {
    return with_toolkit([&](const toolkit_functions& t) { return t.pch_heap_size_required(p, size); });
}

CB_NVRTC_API result nvrtcSetFlowCallback(program p, int (*callback)(void*, void*), void* payload) {
    return with_toolkit([&](const toolkit_functions& t) { return t.set_flow_callback(p, callback, payload); });
}
