// cuLink*: PTX units linked into one module image. The PTX engine links translation units given
// one after another, each from its .version (how it reads an -rdc program), so the linked image
// is the units' PTX in the order they were added; cuModuleLoadData then compiles and links them,
// and a unit the engine refuses or two definitions of one symbol fail there, with the reason.
#include "contexts.hpp"
#include "results.hpp"

#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <set>
#include <string>

struct CUlinkState_st {
    std::string image;  // the units' PTX, then the NUL cuModuleLoadData reads up to
    bool completed = false;
};

using namespace cudabridge::libcuda;

namespace {

// CUjitInputType (CUDA Driver API).
enum { input_cubin = 0, input_ptx = 1, input_fatbinary = 2, input_object = 3, input_library = 4, input_nvvm = 5 };

std::mutex mutex;
std::set<CUlinkState> states;

bool live(CUlinkState s) {
    std::lock_guard lock(mutex);
    return s && states.count(s);
}

CUresult add_ptx(CUlinkState state, const std::string& text, const std::string& name) {
    if (text.find(".version") == std::string::npos)
        return fail(CUDA_ERROR_INVALID_PTX, "cuLinkAddData: " + name + " is no PTX (it has no .version)");
    state->image += text;
    if (!state->image.empty() && state->image.back() != '\n') state->image += '\n';
    return CUDA_SUCCESS;
}

// NVIDIA's device runtime (libcudadevrt, which -rdc programs link for dynamic parallelism) is
// provided by the PTX engine itself; other inputs than PTX carry machine code or host objects the
// simulated GPU cannot use.
CUresult add_input(CUlinkState state, int type, const std::string& bytes, const std::string& name) {
    if (type == input_ptx) return add_ptx(state, bytes, name);
    if (type == input_library && name.find("cudadevrt") != std::string::npos) return CUDA_SUCCESS;
    static const char* kinds[] = {"a cubin", "PTX", "a fatbin", "a host object", "a library", "NVVM IR"};
    const std::string kind = type >= 0 && type <= input_nvvm ? kinds[type] : "an unknown input";
    return fail(CUDA_ERROR_NOT_SUPPORTED, "cuLinkAddData: " + name + " is " + kind +
                                              "; the simulated GPU links PTX only (compile to PTX: nvcc -ptx, "
                                              "nvrtcGetPTX)");
}

}  // namespace

extern "C" {

CUresult cuLinkCreate_v2(unsigned /*count*/, int* /*options*/, void** /*values*/, CUlinkState* state) {
    if (!state) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    auto s = std::make_unique<CUlinkState_st>();
    std::lock_guard lock(mutex);
    *state = *states.insert(s.release()).first;
    return CUDA_SUCCESS;
}

CUresult cuLinkAddData_v2(CUlinkState state, int type, void* data, size_t size, const char* name, unsigned /*count*/,
                          int* /*options*/, void** /*values*/) {
    if (!live(state) || !data) return CUDA_ERROR_INVALID_VALUE;
    if (state->completed) return fail(CUDA_ERROR_INVALID_VALUE, "cuLinkAddData: the link was completed");
    std::string bytes(static_cast<const char*>(data), size);
    if (const auto nul = bytes.find('\0'); type == input_ptx && nul != std::string::npos) bytes.resize(nul);
    return add_input(state, type, bytes, name && *name ? name : "(unnamed input)");
}

CUresult cuLinkAddFile_v2(CUlinkState state, int type, const char* path, unsigned /*count*/, int* /*options*/,
                          void** /*values*/) {
    if (!live(state) || !path) return CUDA_ERROR_INVALID_VALUE;
    if (state->completed) return fail(CUDA_ERROR_INVALID_VALUE, "cuLinkAddFile: the link was completed");
    if (type == input_library && std::string(path).find("cudadevrt") != std::string::npos) return CUDA_SUCCESS;
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(CUDA_ERROR_FILE_NOT_FOUND, std::string("cuLinkAddFile: cannot open ") + path);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return add_input(state, type, bytes, path);
}

// The image stays the link state's until cuLinkDestroy, as CUDA's does.
CUresult cuLinkComplete(CUlinkState state, void** image, size_t* size) {
    if (!live(state) || !image) return CUDA_ERROR_INVALID_VALUE;
    if (state->image.empty()) return fail(CUDA_ERROR_INVALID_VALUE, "cuLinkComplete: nothing was added");
    state->completed = true;
    *image = state->image.data();  // std::string keeps a NUL after its bytes
    if (size) *size = state->image.size() + 1;
    return CUDA_SUCCESS;
}

CUresult cuLinkDestroy(CUlinkState state) {
    {
        std::lock_guard lock(mutex);
        if (!state || !states.erase(state)) return CUDA_ERROR_INVALID_HANDLE;
    }
    delete state;
    return CUDA_SUCCESS;
}

}  // extern "C"
