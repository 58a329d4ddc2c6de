// CUDA 12's context-independent loading (cuLibrary*, cuKernel*). A library is a module loaded in
// the current context (a simulated eGPU is one device), and a CUkernel is the CUfunction of its
// module: the same handle, so cuLaunchKernel takes either, as CUDA's does.
#include "contexts.hpp"
#include "modules.hpp"
#include "results.hpp"

#include <mutex>
#include <set>

struct CUlib_st {
    CUmodule module = nullptr;
};

using namespace cudabridge::libcuda;

namespace {

std::mutex mutex;
std::set<CUlibrary> libraries;

bool live(CUlibrary l) {
    std::lock_guard lock(mutex);
    return l && libraries.count(l);
}

CUresult adopt(CUmodule module, CUlibrary* library) {
    auto* l = new CUlib_st{module};
    std::lock_guard lock(mutex);
    *library = *libraries.insert(l).first;
    return CUDA_SUCCESS;
}

CUkernel as_kernel(CUfunction f) { return reinterpret_cast<CUkernel>(f); }
CUfunction as_function(CUkernel k) { return reinterpret_cast<CUfunction>(k); }

}  // namespace

extern "C" {

// The JIT options are cuModuleLoadDataEx's (its logs); the library options (code kept or not
// after load) change nothing here.
CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option* options, void** values, unsigned count,
                           void* /*library_options*/, void** /*library_values*/, unsigned /*library_count*/) {
    if (!library || !code) return CUDA_ERROR_INVALID_VALUE;
    CUmodule m = nullptr;
    if (CUresult r = cuModuleLoadDataEx(&m, code, count, options, values); r != CUDA_SUCCESS) return r;
    return adopt(m, library);
}

CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* path, CUjit_option* /*options*/, void** /*values*/,
                               unsigned /*count*/, void* /*library_options*/, void** /*library_values*/,
                               unsigned /*library_count*/) {
    if (!library || !path) return CUDA_ERROR_INVALID_VALUE;
    CUmodule m = nullptr;
    if (CUresult r = cuModuleLoad(&m, path); r != CUDA_SUCCESS) return r;
    return adopt(m, library);
}

CUresult cuLibraryUnload(CUlibrary library) {
    {
        std::lock_guard lock(mutex);
        if (!library || !libraries.erase(library))
            return fail(CUDA_ERROR_INVALID_HANDLE, "cuLibraryUnload: no such library");
    }
    const CUresult r = cuModuleUnload(library->module);
    delete library;
    return r;
}

CUresult cuLibraryGetModule(CUmodule* module, CUlibrary library) {
    if (!module) return CUDA_ERROR_INVALID_VALUE;
    if (!live(library)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuLibraryGetModule: no such library");
    *module = library->module;
    return CUDA_SUCCESS;
}

CUresult cuLibraryGetKernel(CUkernel* kernel, CUlibrary library, const char* name) {
    if (!kernel) return CUDA_ERROR_INVALID_VALUE;
    if (!live(library)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuLibraryGetKernel: no such library");
    CUfunction f = nullptr;
    if (CUresult r = cuModuleGetFunction(&f, library->module, name); r != CUDA_SUCCESS) return r;
    *kernel = as_kernel(f);
    return CUDA_SUCCESS;
}

CUresult cuLibraryGetGlobal(CUdeviceptr* address, size_t* bytes, CUlibrary library, const char* name) {
    if (!live(library)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuLibraryGetGlobal: no such library");
    return cuModuleGetGlobal_v2(address, bytes, library->module, name);
}

CUresult cuKernelGetFunction(CUfunction* function, CUkernel kernel) {
    if (!function) return CUDA_ERROR_INVALID_VALUE;
    if (!live(as_function(kernel))) return fail(CUDA_ERROR_INVALID_HANDLE, "cuKernelGetFunction: no such kernel");
    *function = as_function(kernel);
    return CUDA_SUCCESS;
}

CUresult cuKernelGetLibrary(CUlibrary* library, CUkernel kernel) {
    if (!library) return CUDA_ERROR_INVALID_VALUE;
    if (!live(as_function(kernel))) return fail(CUDA_ERROR_INVALID_HANDLE, "cuKernelGetLibrary: no such kernel");
    std::lock_guard lock(mutex);
    for (CUlibrary l : libraries)
        if (l->module == as_function(kernel)->module) {
            *library = l;
            return CUDA_SUCCESS;
        }
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuKernelGetLibrary: the kernel's module is no library");
}

CUresult cuKernelGetAttribute(int* value, int attribute, CUkernel kernel, CUdevice /*device*/) {
    return cuFuncGetAttribute(value, attribute, as_function(kernel));
}

CUresult cuKernelSetAttribute(int attribute, int value, CUkernel kernel, CUdevice /*device*/) {
    return cuFuncSetAttribute(as_function(kernel), attribute, value);
}

CUresult cuKernelGetName(const char** name, CUkernel kernel) { return cuFuncGetName(name, as_function(kernel)); }

CUresult cuKernelGetParamInfo(CUkernel kernel, size_t index, size_t* offset, size_t* size) {
    return cuFuncGetParamInfo(as_function(kernel), index, offset, size);
}

}  // extern "C"
