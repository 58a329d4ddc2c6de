// Built-in kernels, user modules and user kernel launches of the kernel-driver backend.
#include <cstring>

#include "nvidia_driver/cuda_kernels/embedded_fatbin.hpp"
#include "nvidia_driver/kernel_driver/backend_registry.hpp"
#include "nvidia_driver/kernel_driver/builtin_launcher.hpp"
#include "nvidia_driver/kernel_driver/kernel_args.hpp"
#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"
#include "common/launch/builtin_call.hpp"

namespace cudabridge::nv {

namespace {

cb_status lookup(const cuda_driver& driver, cu::CUmodule module, function_cache& cache, const std::string& name,
                 cu::CUfunction& out, std::string& error) {
    std::lock_guard lock(cache.mutex);
    if (auto it = cache.functions.find(name); it != cache.functions.end()) {
        out = it->second;
        return CB_OK;
    }
    cu::CUresult r = driver.api().cuModuleGetFunction(&out, module, name.c_str());
    if (r != cu::CUDA_SUCCESS) {
        cb_status s = driver.check(r, ("cuModuleGetFunction(" + name + ")").c_str(), &error);
        return r == cu::CUDA_ERROR_NOT_FOUND ? CB_ERR_NOT_FOUND : s;
    }
    cache.functions.emplace(name, out);
    return CB_OK;
}

// The device's cuBLAS handle, created on first use in its context; null when cuBLAS is missing
// or refuses this GPU (the matmul kernel then runs instead).
cublas::cublasHandle_t cublas_handle(const cublas_library& lib, kd_device& d) {
    std::lock_guard lock(d.mutex);
    if (!d.cublas_tried) {
        d.cublas_tried = true;
        if (lib.available()) {
            if (lib.check(lib.api().cublasCreate(&d.cublas), "cublasCreate_v2", &d.cublas_error) != CB_OK)
                d.cublas = nullptr;
        } else {
            d.cublas_error = lib.status().reason;
        }
    }
    return d.cublas;
}

// The bytes of a module image as the driver wants them: PTX NUL-terminated, binaries checked.
cb_status prepare_image(const void* image, size_t size, cb_module_format format, std::string& text,
                        std::string& error) {
    const auto* bytes = static_cast<const unsigned char*>(image);
    switch (format) {
    case CB_MODULE_PTX:
    case CB_MODULE_CUDA_SOURCE: {
        std::size_t n = size;
        while (n > 0 && bytes[n - 1] == '\0') --n;
        text.assign(reinterpret_cast<const char*>(bytes), n);
        if (text.find('\0') != std::string::npos)
            return fail(error, CB_ERR_INVALID_ARGUMENT, "module_load: text holds a NUL byte");
        return CB_OK;
    }
    case CB_MODULE_CUBIN:
        if (size < 4 || std::memcmp(bytes,
                                    "\x7f"
                                    "ELF",
                                    4) != 0)
            return fail(error, CB_ERR_INVALID_ARGUMENT, "module_load: not a CUBIN (no ELF header)");
        return CB_OK;
    case CB_MODULE_FATBIN: {
        uint32_t magic = 0;
        if (size >= 4) std::memcpy(&magic, bytes, 4);
        if (magic != cuda_kernels::k_fatbin_magic)
            return fail(error, CB_ERR_INVALID_ARGUMENT, "module_load: not a fatbin (bad magic)");
        return CB_OK;
    }
    case CB_MODULE_HOST_KERNELS:
        return fail(error, CB_ERR_UNSUPPORTED,
                    "module_load: host kernels run on simulated GPUs only; load PTX, CUBIN or CUDA "
                    "source");
    default:
        return fail(error, CB_ERR_INVALID_ARGUMENT, "module_load: unknown module format " + std::to_string(format));
    }
}

}  // namespace

cb_status kernel_driver_backend::launch_builtin(kd_device* device, const cb_kernel_launch& launch, kd_stream* stream,
                                                std::string& error) {
    cu::CUstream st = nullptr;
    if (cb_status s = current(device, error); s != CB_OK) return s;
    if (cb_status s = stream_of(device, stream, st, error); s != CB_OK) return s;
    builtin_call call;
    if (cb_status s = parse_builtin(launch, call, error); s != CB_OK) return s;
    if (device->builtins == nullptr) return fail(error, device->builtins_status, device->builtins_error);

    gpu_launch_target target;
    target.driver = &driver_;
    target.stream = st;
    target.sm_count = device->sm_count;
    target.function = [&](const std::string& name, cu::CUfunction& out, std::string& message) {
        return lookup(driver_, device->builtins, device->builtin_functions, name, out, message);
    };
    if (call.kind == builtin_kind::matmul && kernels::is_float_dtype(call.dtype)) {
        target.cublas = &cublas();
        target.cublas_handle = cublas_handle(*target.cublas, *device);
    }
    if (cb_status s = run_builtin_on_gpu(call, target, error); s != CB_OK) return s;
    return finish_sync(device, stream, launch.name, error);
}

cb_status kernel_driver_backend::module_load(kd_device* device, const void* image, size_t size, cb_module_format format,
                                             kd_module*& out, std::string& error, std::string* log) {
    out = nullptr;
    if (log != nullptr) log->clear();
    if (cb_status s = current(device, error); s != CB_OK) return s;
    if (image == nullptr || size == 0) return fail(error, CB_ERR_INVALID_ARGUMENT, "module_load: empty image");
    std::string text;
    if (cb_status s = prepare_image(image, size, format, text, error); s != CB_OK) return s;

    const void* data = image;
    nvrtc_output compiled;
    if (format == CB_MODULE_CUDA_SOURCE) {
        cb_status s =
            nvrtc().compile(text, "cudabridge_module.cu", device->cc_major, device->cc_minor, compiled, &error);
        if (log != nullptr) *log = compiled.log;
        if (s != CB_OK) return s;
        data = compiled.image.data();
    } else if (format == CB_MODULE_PTX) {
        data = text.c_str();
    }

    // The JIT's logs (PTX, or a fatbin without this GPU's code, is compiled on load).
    char error_log[8192] = {}, info_log[8192] = {};
    cu::CUjit_option options[] = {cu::CU_JIT_ERROR_LOG_BUFFER, cu::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                  cu::CU_JIT_INFO_LOG_BUFFER, cu::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {error_log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof error_log - 1)), info_log,
                      reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof info_log - 1))};
    auto mod = std::make_unique<kd_module>();
    mod->device = device;
    cu::CUresult r = driver_.api().cuModuleLoadDataEx(&mod->module, data, 4, options, values);
    if (log != nullptr) {
        for (const char* part : {info_log, error_log})
            if (*part != '\0') *log += (log->empty() ? "" : "\n") + std::string(part);
    }
    if (cb_status s = cuda(r, "cuModuleLoadDataEx", error); s != CB_OK) {
        if (*error_log != '\0') error += ": " + std::string(error_log);
        return s;
    }
    out = mod.get();
    std::lock_guard lock(registry_->mutex);
    registry_->modules.emplace(out, std::move(mod));
    return CB_OK;
}

cb_status kernel_driver_backend::module_unload(kd_module* module, std::string& error) {
    if (cb_status s = check_module(module, error); s != CB_OK) return s;
    if (cb_status s = current(module->device, error); s != CB_OK) return s;
    std::unique_ptr<kd_module> owned;
    {
        std::lock_guard lock(registry_->mutex);
        auto it = registry_->modules.find(module);
        if (it == registry_->modules.end())
            return fail(error, CB_ERR_INVALID_ARGUMENT, "unknown or unloaded module handle");
        owned = std::move(it->second);
        registry_->modules.erase(it);
    }
    return cuda(driver_.api().cuModuleUnload(owned->module), "cuModuleUnload", error);
}

cb_status kernel_driver_backend::kernel_param_info(kd_module* module, const std::string& name, uint32_t index,
                                                   uint64_t& offset, uint64_t& size, std::string& error) {
    if (cb_status s = check_module(module, error); s != CB_OK) return s;
    const auto info = driver_.api().cuFuncGetParamInfo;
    if (!info) return fail(error, CB_ERR_UNSUPPORTED, "kernel_param_info: the CUDA driver has no cuFuncGetParamInfo");
    if (cb_status s = current(module->device, error); s != CB_OK) return s;
    cu::CUfunction fn = nullptr;
    if (cb_status s = lookup(driver_, module->module, module->functions, name.c_str(), fn, error); s != CB_OK) return s;
    std::size_t at = 0, bytes = 0;
    if (info(fn, index, &at, &bytes) != cu::CUDA_SUCCESS)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    "kernel_param_info: " + name + " has no parameter " + std::to_string(index));
    offset = at;
    size = bytes;
    return CB_OK;
}

cb_status kernel_driver_backend::module_global(kd_module* module, const std::string& name, uint64_t& address,
                                               uint64_t& bytes, std::string& error) {
    if (cb_status s = check_module(module, error); s != CB_OK) return s;
    if (!driver_.api().cuModuleGetGlobal)
        return fail(error, CB_ERR_UNSUPPORTED, "module_global: the CUDA driver has no cuModuleGetGlobal_v2");
    if (cb_status s = current(module->device, error); s != CB_OK) return s;
    cu::CUdeviceptr dptr = 0;
    std::size_t size = 0;
    cu::CUresult r = driver_.api().cuModuleGetGlobal(&dptr, &size, module->module, name.c_str());
    if (r == cu::CUDA_ERROR_NOT_FOUND)
        return fail(error, CB_ERR_NOT_FOUND, "module_global: the module defines no variable named '" + name + "'");
    if (cb_status s = cuda(r, "cuModuleGetGlobal", error); s != CB_OK) return s;
    address = dptr;
    bytes = size;
    return CB_OK;
}

cb_status kernel_driver_backend::launch_kernel(kd_module* module, const cb_kernel_launch& launch, kd_stream* stream,
                                               std::string& error) {
    if (cb_status s = check_module(module, error); s != CB_OK) return s;
    kd_device* device = module->device;
    cu::CUstream st = nullptr;
    if (cb_status s = current(device, error); s != CB_OK) return s;
    if (cb_status s = stream_of(device, stream, st, error); s != CB_OK) return s;
    if (launch.name == nullptr || *launch.name == '\0')
        return fail(error, CB_ERR_INVALID_ARGUMENT, "launch_kernel: no kernel name");
    for (int i = 0; i < 3; ++i)
        if (launch.grid[i] == 0 || launch.block[i] == 0)
            return fail(
                error, CB_ERR_INVALID_ARGUMENT,
                std::string("launch_kernel(") + launch.name + "): grid and block dimensions must all be at least 1");
    cu::CUfunction fn = nullptr;
    if (cb_status s = lookup(driver_, module->module, module->functions, launch.name, fn, error); s != CB_OK) return s;

    // kernelParams go to the driver as they came: it lays them out by the kernel's own list.
    void* const* raw = cb_launch_kernel_params(&launch);
    // Otherwise the kernel's parameter sizes, when this driver can tell (CUDA 12.4+).
    std::optional<std::vector<std::size_t>> sizes;
    if (const auto info = driver_.api().cuFuncGetParamInfo; !raw && info != nullptr) {
        std::vector<std::size_t> found;
        std::size_t offset = 0, size = 0;
        while (found.size() <= launch.arg_count && info(fn, found.size(), &offset, &size) == cu::CUDA_SUCCESS)
            found.push_back(size);
        sizes = std::move(found);
    }
    packed_kernel_args args;
    if (!raw)
        if (cb_status s = args.pack(launch, sizes, error); s != CB_OK) return s;
    void** params = raw ? const_cast<void**>(raw) : args.params();
    const bool cooperative = (launch.flags & CB_LAUNCH_COOPERATIVE) != 0;
    const auto launch_cooperative = driver_.api().cuLaunchCooperativeKernel;
    if (cooperative && !launch_cooperative)
        return fail(
            error, CB_ERR_UNSUPPORTED,
            std::string("launch_kernel(") + launch.name + "): this CUDA driver has no cuLaunchCooperativeKernel");
    cu::CUresult r = cooperative
                         ? launch_cooperative(fn, launch.grid[0], launch.grid[1], launch.grid[2], launch.block[0],
                                              launch.block[1], launch.block[2], launch.shared_memory_bytes, st, params)
                         : driver_.api().cuLaunchKernel(fn, launch.grid[0], launch.grid[1], launch.grid[2],
                                                        launch.block[0], launch.block[1], launch.block[2],
                                                        launch.shared_memory_bytes, st, params, nullptr);
    const char* what = cooperative ? "cuLaunchCooperativeKernel(" : "cuLaunchKernel(";
    if (cb_status s = cuda(r, (std::string(what) + launch.name + ")").c_str(), error); s != CB_OK) return s;
    return finish_sync(device, stream, launch.name, error);
}

}  // namespace cudabridge::nv
