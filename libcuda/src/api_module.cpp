// Loading modules (PTX, fatbins, files holding either) and looking up their kernels and
// variables.
#include "contexts.hpp"
#include "modules.hpp"
#include "results.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

using namespace cudabridge::libcuda;

namespace {

// cuModuleLoadDataEx's options: the error and info logs get what the load says, within the
// sizes given (which come back as the bytes written, as CUDA does).
struct jit_logs {
    char* error = nullptr;
    size_t error_size = 0;
    char* info = nullptr;
    size_t info_size = 0;
};

jit_logs read_options(unsigned count, const CUjit_option* options, void** values) {
    jit_logs logs;
    for (unsigned i = 0; options && values && i < count; ++i) {
        const auto as_size = static_cast<size_t>(reinterpret_cast<uintptr_t>(values[i]));
        switch (options[i]) {
        case CU_JIT_ERROR_LOG_BUFFER:
            logs.error = static_cast<char*>(values[i]);
            break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
            logs.error_size = as_size;
            break;
        case CU_JIT_INFO_LOG_BUFFER:
            logs.info = static_cast<char*>(values[i]);
            break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
            logs.info_size = as_size;
            break;
        default:
            break;  // optimization levels, targets, register limits: nothing to tune here
        }
    }
    return logs;
}

size_t write_log(char* buffer, size_t size, const std::string& text) {
    if (!buffer || size == 0) return 0;
    const size_t n = std::min(size - 1, text.size());
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
    return n + 1;
}

void write_back_sizes(unsigned count, const CUjit_option* options, void** values, size_t error_bytes,
                      size_t info_bytes) {
    for (unsigned i = 0; options && values && i < count; ++i) {
        if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            values[i] = reinterpret_cast<void*>(static_cast<uintptr_t>(error_bytes));
        if (options[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)
            values[i] = reinterpret_cast<void*>(static_cast<uintptr_t>(info_bytes));
    }
}

}  // namespace

extern "C" {

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned count, CUjit_option* options, void** values) {
    if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
    const jit_logs logs = read_options(count, options, values);
    std::string log;
    const CUresult r = load_module(identify_image(image), *module, log);
    const size_t error_bytes =
        r == CUDA_SUCCESS ? write_log(logs.error, logs.error_size, "") : write_log(logs.error, logs.error_size, log);
    const size_t info_bytes = write_log(logs.info, logs.info_size, "");
    write_back_sizes(count, options, values, error_bytes, info_bytes);
    return r;
}

CUresult cuModuleLoadData(CUmodule* module, const void* image) {
    return cuModuleLoadDataEx(module, image, 0, nullptr, nullptr);
}

CUresult cuModuleLoadFatBinary(CUmodule* module, const void* fatbin) { return cuModuleLoadData(module, fatbin); }

// A file of PTX, a fatbin or a cubin, read whole (a NUL is added so PTX text ends).
CUresult cuModuleLoad(CUmodule* module, const char* path) {
    if (!module || !path) return CUDA_ERROR_INVALID_VALUE;
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(CUDA_ERROR_FILE_NOT_FOUND, std::string("cuModuleLoad: cannot open ") + path);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.empty()) return fail(CUDA_ERROR_INVALID_IMAGE, std::string("cuModuleLoad: ") + path + " is empty");
    bytes.push_back('\0');
    return cuModuleLoadData(module, bytes.data());
}

CUresult cuModuleUnload(CUmodule module) { return unload_module(module); }

// A kernel exists when the family knows its parameters (a kernel with none answers "no
// parameter 0", not "no kernel").
CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
    if (!function || !name) return CUDA_ERROR_INVALID_VALUE;
    if (!live(module)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuModuleGetFunction: no such module");
    std::lock_guard lock(module->mutex);
    auto& slot = module->functions[name];
    if (!slot) {
        size_t offset = 0, size = 0;
        if (cbModuleGetParamInfo(module->module, name, 0, &offset, &size) == cbErrorNotFound) {
            (void)cbGetLastError();
            module->functions.erase(name);
            return fail(CUDA_ERROR_NOT_FOUND, std::string("cuModuleGetFunction: no kernel ") + name);
        }
        (void)cbGetLastError();
        slot = std::make_unique<CUfunc_st>();
        slot->module = module;
        slot->name = name;
    }
    *function = slot.get();
    return CUDA_SUCCESS;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr* address, size_t* bytes, CUmodule module, const char* name) {
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    if (!live(module)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuModuleGetGlobal: no such module");
    void* p = nullptr;
    size_t n = 0;
    if (cbError_t e = cbModuleGetGlobal(&p, &n, module->module, name); e != cbSuccess) {
        return e == cbErrorNotFound ? fail(CUDA_ERROR_NOT_FOUND, std::string("cuModuleGetGlobal: no variable ") + name)
                                    : from_runtime(e);
    }
    if (address) *address = reinterpret_cast<CUdeviceptr>(p);
    if (bytes) *bytes = n;
    return CUDA_SUCCESS;
}

// Modules are checked whole when loaded and each kernel compiled at its first launch: CUDA's
// eager loading, as far as what a program can observe (a refused instruction fails the load).
CUresult cuModuleGetLoadingMode(int* mode) {
    if (!mode) return CUDA_ERROR_INVALID_VALUE;
    *mode = 1;  // CU_MODULE_EAGER_LOADING
    return CUDA_SUCCESS;
}

}  // extern "C"
