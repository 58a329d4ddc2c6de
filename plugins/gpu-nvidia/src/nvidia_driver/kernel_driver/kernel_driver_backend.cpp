// The backend's life cycle, devices and properties; the other calls live beside it
// (backend_memory.cpp, backend_kernels.cpp, backend_management.cpp).
#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"

#include <cudabridge/cpp/text_out.hpp>

#include <cstring>

#include "nvidia_driver/cuda_driver/cuda_result.hpp"
#include "nvidia_driver/cuda_kernels/embedded_fatbin.hpp"
#include "nvidia_driver/kernel_driver/backend_registry.hpp"
#include "nvidia_driver/kernel_driver/device_identity.hpp"
#include "common/profiles/profile.hpp"

namespace cudabridge::nv {

namespace {

// Where the build found the toolkit's libraries: a last resort after the sonames.
std::vector<std::string> with_toolkit_path(std::vector<std::string> names, const char* file) {
#ifdef CB_NV_TOOLKIT_LIBRARY_DIR
    names.push_back(std::string(CB_NV_TOOLKIT_LIBRARY_DIR) + "/" + file);
#else
    (void)file;
#endif
    return names;
}

}  // namespace

std::vector<std::string> kernel_driver_options::default_cublas_libraries() {
    return with_toolkit_path(cublas_library::default_candidates(), "libcublas.so");
}
std::vector<std::string> kernel_driver_options::default_nvrtc_libraries() {
    return with_toolkit_path(nvrtc_library::default_candidates(), "libnvrtc.so");
}

kernel_driver_backend::kernel_driver_backend(kernel_driver_options options)
    : options_(std::move(options)),
      driver_(options_.cuda_library),
      nvml_(options_.nvml_library),
      registry_(std::make_unique<registry>()) {}

kernel_driver_backend::~kernel_driver_backend() {
    std::vector<kd_device*> open;
    {
        std::lock_guard lock(registry_->mutex);
        for (auto& [p, d] : registry_->devices) open.push_back(p);
    }
    std::string ignored;  // nothing to report from a destructor
    for (kd_device* d : open) (void)close(d, ignored);
}

bool kernel_driver_backend::has_builtin_kernels() { return cuda_kernels::builtin_fatbin().size > 0; }

const cublas_library& kernel_driver_backend::cublas() const {
    std::call_once(registry_->cublas_once,
                   [&] { registry_->cublas = std::make_unique<cublas_library>(options_.cublas_libraries); });
    return *registry_->cublas;
}

const nvrtc_library& kernel_driver_backend::nvrtc() const {
    std::call_once(registry_->nvrtc_once,
                   [&] { registry_->nvrtc = std::make_unique<nvrtc_library>(options_.nvrtc_libraries); });
    return *registry_->nvrtc;
}

// ---- shared checks ---------------------------------------------------------------------------

cb_status kernel_driver_backend::unavailable(std::string& error) const {
    const availability& a = driver_.status();
    return fail(error, a.status != CB_OK ? a.status : CB_ERR_NO_DEVICE,
                "kernel-driver backend not available: " + a.reason);
}

cb_status kernel_driver_backend::cuda(cu::CUresult result, const char* what, std::string& error) const {
    if (result == cu::CUDA_SUCCESS) return CB_OK;
    return driver_.check(result, what, &error);
}

cb_status kernel_driver_backend::check_device(kd_device* device, std::string& error) const {
    if (!available()) return unavailable(error);
    if (!registry_->live(registry_->devices, device))
        return fail(error, CB_ERR_INVALID_ARGUMENT, "unknown or closed device handle");
    return CB_OK;
}

cb_status kernel_driver_backend::check_stream(kd_stream* stream, std::string& error, kd_device** device) const {
    if (!available()) return unavailable(error);
    if (!registry_->live(registry_->streams, stream))
        return fail(error, CB_ERR_INVALID_ARGUMENT, "unknown or destroyed stream handle");
    if (device != nullptr) *device = stream->device;
    return CB_OK;
}

cb_status kernel_driver_backend::check_event(kd_event* event, std::string& error) const {
    if (!available()) return unavailable(error);
    if (!registry_->live(registry_->events, event))
        return fail(error, CB_ERR_INVALID_ARGUMENT, "unknown or destroyed event handle");
    return CB_OK;
}

cb_status kernel_driver_backend::check_module(kd_module* module, std::string& error) const {
    if (!available()) return unavailable(error);
    if (!registry_->live(registry_->modules, module))
        return fail(error, CB_ERR_INVALID_ARGUMENT, "unknown or unloaded module handle");
    return CB_OK;
}

cb_status kernel_driver_backend::current(kd_device* device, std::string& error) const {
    if (cb_status s = check_device(device, error); s != CB_OK) return s;
    return cuda(driver_.api().cuCtxSetCurrent(device->context), "cuCtxSetCurrent", error);
}

cb_status kernel_driver_backend::make_current(kd_device* device, std::string& error) const {
    return current(device, error);
}

cu::CUcontext kernel_driver_backend::raw_context(kd_device* device) const {
    std::string ignored;
    return check_device(device, ignored) == CB_OK ? device->context : nullptr;
}

cu::CUstream kernel_driver_backend::raw_stream(kd_stream* stream) const {
    std::string ignored;
    return check_stream(stream, ignored) == CB_OK ? stream->stream : nullptr;
}

// ---- devices ---------------------------------------------------------------------------------

uint32_t kernel_driver_backend::device_count() const {
    return available() ? static_cast<uint32_t>(driver_.status().device_count) : 0;
}

namespace {

// The embedded fatbin into the device's context; a failure is kept for launch_builtin to report.
void load_builtins(const cuda_driver& driver, kd_device& d) {
    const cuda_kernels::embedded_image image = cuda_kernels::builtin_fatbin();
    if (image.size == 0) {
        d.builtins_status = fail(d.builtins_error, CB_ERR_UNSUPPORTED,
                                 "launch_builtin: built without the CUDA toolkit, so no built-in GPU kernels are "
                                 "embedded (rebuild with nvcc available)");
        return;
    }
    cu::CUresult r = driver.api().cuModuleLoadData(&d.builtins, image.data);
    if (r != cu::CUDA_SUCCESS) {
        d.builtins = nullptr;
        d.builtins_status =
            driver.check(r, "loading the built-in kernels' fatbin (cuModuleLoadData)", &d.builtins_error);
        if (r == cu::CUDA_ERROR_NO_BINARY_FOR_GPU || r == cu::CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
            d.builtins_error += "; the fatbin carries no code this GPU (compute " + std::to_string(d.cc_major) + "." +
                                std::to_string(d.cc_minor) +
                                ") or this driver can run: set CUDABRIDGE_CUDA_FATBIN_ARCHS and rebuild";
    }
}

}  // namespace

cb_status kernel_driver_backend::open(int ordinal, kd_device*& out, std::string& error) {
    out = nullptr;
    if (!available()) return unavailable(error);
    if (ordinal < 0 || ordinal >= driver_.status().device_count)
        return fail(error, CB_ERR_NOT_FOUND,
                    "no CUDA device " + std::to_string(ordinal) + " (the driver sees " +
                        std::to_string(driver_.status().device_count) + ")");
    const cuda_api& api = driver_.api();
    auto d = std::make_unique<kd_device>();
    d->ordinal = ordinal;
    if (cb_status s = cuda(api.cuDeviceGet(&d->device, ordinal), "cuDeviceGet", error); s != CB_OK) return s;
    if (cb_status s = cuda(api.cuDevicePrimaryCtxRetain(&d->context, d->device), "cuDevicePrimaryCtxRetain", error);
        s != CB_OK)
        return s;
    if (cb_status s = cuda(api.cuCtxSetCurrent(d->context), "cuCtxSetCurrent", error); s != CB_OK) {
        (void)api.cuDevicePrimaryCtxRelease(d->device);
        return s;
    }
    (void)api.cuDeviceGetAttribute(&d->cc_major, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->device);
    (void)api.cuDeviceGetAttribute(&d->cc_minor, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->device);
    (void)api.cuDeviceGetAttribute(&d->sm_count, cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d->device);
    d->nvml_index = nvml_index_of(driver_, nvml_, d->device, d->nvml_reason);
    load_builtins(driver_, *d);
    out = d.get();
    std::lock_guard lock(registry_->mutex);
    registry_->devices.emplace(out, std::move(d));
    return CB_OK;
}

cb_status kernel_driver_backend::close(kd_device* device, std::string& error) {
    if (cb_status s = check_device(device, error); s != CB_OK) return s;
    const cuda_api& api = driver_.api();
    (void)api.cuCtxSetCurrent(device->context);  // best effort: a lost device still gets released
    std::unique_ptr<kd_device> owned;
    {
        std::lock_guard lock(registry_->mutex);
        // What the device owns goes first, while its context is still alive.
        for (auto it = registry_->modules.begin(); it != registry_->modules.end();)
            if (it->first->device == device) {
                (void)api.cuModuleUnload(it->first->module);
                it = registry_->modules.erase(it);
            } else
                ++it;
        for (auto it = registry_->events.begin(); it != registry_->events.end();)
            if (it->first->device == device) {
                (void)api.cuEventDestroy(it->first->event);
                it = registry_->events.erase(it);
            } else
                ++it;
        for (auto it = registry_->streams.begin(); it != registry_->streams.end();)
            if (it->first->device == device) {
                (void)api.cuStreamDestroy(it->first->stream);
                it = registry_->streams.erase(it);
            } else
                ++it;
        auto it = registry_->devices.find(device);
        owned = std::move(it->second);
        registry_->devices.erase(it);
    }
    if (owned->cublas != nullptr && registry_->cublas) (void)registry_->cublas->api().cublasDestroy(owned->cublas);
    if (owned->builtins != nullptr) (void)api.cuModuleUnload(owned->builtins);
    (void)api.cuCtxSetCurrent(nullptr);
    return cuda(api.cuDevicePrimaryCtxRelease(owned->device), "cuDevicePrimaryCtxRelease_v2", error);
}

cb_status kernel_driver_backend::properties(kd_device* device, cb_gpu_properties& out, std::string& error) const {
    if (cb_status s = check_device(device, error); s != CB_OK) return s;
    const cuda_api& api = driver_.api();
    std::memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    out.is_simulated = 0;
    sdk::copy_text(out.backend, "kernel-driver");

    char name[256] = {};
    if (cb_status s = cuda(api.cuDeviceGetName(name, sizeof name - 1, device->device), "cuDeviceGetName", error);
        s != CB_OK)
        return s;
    sdk::copy_text(out.name, name);
    cu::CUuuid uuid{};
    if (api.cuDeviceGetUuid(&uuid, device->device) == cu::CUDA_SUCCESS) sdk::copy_text(out.uuid, format_gpu_uuid(uuid));
    char bus[32] = {};
    if (api.cuDeviceGetPCIBusId(bus, sizeof bus - 1, device->device) == cu::CUDA_SUCCESS)
        sdk::copy_text(out.pci_bus_id, bus);
    std::size_t total = 0;
    if (api.cuDeviceTotalMem(&total, device->device) == cu::CUDA_SUCCESS) out.total_memory = total;

    auto attr = [&](cu::CUdevice_attribute a) {
        int v = 0;
        return api.cuDeviceGetAttribute(&v, a, device->device) == cu::CUDA_SUCCESS && v > 0 ? static_cast<uint32_t>(v)
                                                                                            : 0u;
    };
    out.compute_major = device->cc_major;
    out.compute_minor = device->cc_minor;
    out.sm_count = attr(cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    out.warp_size = attr(cu::CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    out.max_threads_per_block = attr(cu::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    out.max_block_dim[0] = attr(cu::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    out.max_block_dim[1] = attr(cu::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    out.max_block_dim[2] = attr(cu::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    out.max_grid_dim[0] = attr(cu::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    out.max_grid_dim[1] = attr(cu::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    out.max_grid_dim[2] = attr(cu::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    out.shared_memory_per_block = attr(cu::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    out.memory_bus_width = attr(cu::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    out.l2_cache_bytes = attr(cu::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    // Clock attributes are in kHz (and deprecated in CUDA 13); NVML's max clocks fill the gaps.
    out.clock_mhz = attr(cu::CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;
    out.memory_clock_mhz = attr(cu::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000;
    out.pci_vendor_id = 0x10de;

    sdk::copy_text(out.architecture, architecture_name(device->cc_major, device->cc_minor));
    nvml::nvmlDevice_t handle = nullptr;
    if (device->nvml_index >= 0 && nvml_.device(static_cast<unsigned>(device->nvml_index), handle) == CB_OK) {
        const nvml_api& n = nvml_.api();
        nvml::nvmlPciInfo_t pci{};
        if (n.nvmlDeviceGetPciInfo != nullptr && n.nvmlDeviceGetPciInfo(handle, &pci) == nvml::NVML_SUCCESS) {
            out.pci_device_id = static_cast<uint16_t>(pci.pciDeviceId >> 16);
            out.pci_subsystem_id = pci.pciSubSystemId;
            if (const gpu_profile* p = find_profile_by_pci_id(out.pci_device_id))
                sdk::copy_text(out.architecture, p->architecture);
        }
        unsigned int mhz = 0;
        if (n.nvmlDeviceGetMaxClockInfo != nullptr) {
            if (out.clock_mhz == 0 &&
                n.nvmlDeviceGetMaxClockInfo(handle, nvml::NVML_CLOCK_SM, &mhz) == nvml::NVML_SUCCESS)
                out.clock_mhz = mhz;
            if (out.memory_clock_mhz == 0 &&
                n.nvmlDeviceGetMaxClockInfo(handle, nvml::NVML_CLOCK_MEM, &mhz) == nvml::NVML_SUCCESS)
                out.memory_clock_mhz = mhz;
        }
    }
    return CB_OK;
}

}  // namespace cudabridge::nv
