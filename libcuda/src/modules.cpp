#include "modules.hpp"

#include "contexts.hpp"
#include "results.hpp"

#include <cstdio>
#include <set>

namespace cudabridge::libcuda {
namespace {

struct module_registry {
    std::mutex mutex;
    std::set<CUmodule> modules;
};

module_registry& registry() {
    static auto* r = new module_registry;  // outlives static destructors that may still unload
    return *r;
}

}  // namespace

CUresult load_module(const module_image& image, CUmodule& out, std::string& log) {
    CUdevice device = 0;
    if (CUresult r = enter_current(&device); r != CUDA_SUCCESS) return r;
    cbModule_t m = nullptr;
    if (cbError_t e = cbModuleLoadData(&m, image.bytes, image.size, image.format); e != cbSuccess) {
        log = cbGetLastErrorMessage();
        // The program sees a code; the reason (the instruction and its PTX line) reaches the user.
        std::fprintf(stderr, "cudabridge libcuda: a module cannot be loaded on this GPU: %s\n", log.c_str());
        // CUDA's names for these: PTX the JIT refuses is "invalid PTX", an image without code the
        // GPU runs (a cubin or a fatbin of machine code only, for a simulated GPU) "no binary".
        const CUresult r = to_driver(e);
        if (image.format == CB_MODULE_PTX &&
            (r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_NOT_SUPPORTED))
            return CUDA_ERROR_INVALID_PTX;
        if (image.format != CB_MODULE_PTX && r == CUDA_ERROR_NOT_SUPPORTED) return CUDA_ERROR_NO_BINARY_FOR_GPU;
        return r;
    }
    auto module = std::make_unique<CUmod_st>();
    module->module = m;
    module->device = device;
    module_registry& r = registry();
    std::lock_guard lock(r.mutex);
    out = *r.modules.insert(module.release()).first;
    return CUDA_SUCCESS;
}

bool live(CUmodule module) {
    module_registry& r = registry();
    std::lock_guard lock(r.mutex);
    return module && r.modules.count(module);
}

bool live(CUfunction function) {
    module_registry& r = registry();
    std::lock_guard lock(r.mutex);
    if (!function || !r.modules.count(function->module)) return false;
    std::lock_guard functions(function->module->mutex);
    for (const auto& [name, f] : function->module->functions)
        if (f.get() == function) return true;
    return false;
}

CUresult unload_module(CUmodule module) {
    module_registry& r = registry();
    {
        std::lock_guard lock(r.mutex);
        if (!module || !r.modules.erase(module)) return fail(CUDA_ERROR_INVALID_HANDLE, "no such module");
    }
    const cbError_t e = cbModuleUnload(module->module);
    delete module;
    return from_runtime(e);
}

}  // namespace cudabridge::libcuda
