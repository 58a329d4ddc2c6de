// Telemetry, settings, reset and heartbeat of the kernel-driver backend (NVML and the driver).
#include "nvidia_driver/cuda_driver/cuda_result.hpp"
#include "nvidia_driver/kernel_driver/backend_registry.hpp"
#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"
#include "nvidia_driver/kernel_driver/nvml_management.hpp"
#include "nvidia_driver/kernel_driver/nvml_processes.hpp"

namespace cudabridge::nv {

namespace {

// NVML's absence or a GPU it does not list, as one message.
cb_status no_nvml(const kd_device& d, std::string& error) {
    return fail(error, CB_ERR_UNSUPPORTED, "no NVML telemetry or settings for this GPU: " + d.nvml_reason);
}

}  // namespace

cb_status kernel_driver_backend::telemetry(kd_device* device, cb_gpu_telemetry& out, std::string& error) const {
    if (cb_status s = check_device(device, error); s != CB_OK) return s;
    if (device->nvml_index < 0) return no_nvml(*device, error);
    return read_gpu_telemetry(nvml_, device->nvml_index, out, error);
}

cb_status kernel_driver_backend::processes(kd_device* device, std::vector<cb_gpu_process>& out,
                                           std::string& error) const {
    if (cb_status s = check_device(device, error); s != CB_OK) return s;
    if (device->nvml_index < 0) return no_nvml(*device, error);
    return read_compute_processes(nvml_, device->nvml_index, out, error);
}

cb_status kernel_driver_backend::telemetry_details(kd_device* device, kd_telemetry_details& out,
                                                   std::string& error) const {
    if (cb_status s = check_device(device, error); s != CB_OK) return s;
    if (device->nvml_index < 0) return no_nvml(*device, error);
    return read_gpu_telemetry_details(nvml_, device->nvml_index, out, error);
}

cb_status kernel_driver_backend::settings(kd_device* device, cb_gpu_settings& out, std::string& error) const {
    if (cb_status s = check_device(device, error); s != CB_OK) return s;
    if (device->nvml_index < 0) return no_nvml(*device, error);
    cb_gpu_settings applied{};
    {
        std::lock_guard lock(device->mutex);
        applied = device->applied;
    }
    return read_settings(nvml_, device->nvml_index, applied, out, error);
}

cb_status kernel_driver_backend::setting_limits(kd_device* device, cb_gpu_setting_limits& out,
                                                std::string& error) const {
    if (cb_status s = check_device(device, error); s != CB_OK) return s;
    if (device->nvml_index < 0) return no_nvml(*device, error);
    return read_setting_limits(nvml_, device->nvml_index, out, error);
}

cb_status kernel_driver_backend::apply_settings(kd_device* device, const cb_gpu_settings& request, std::string& error) {
    if (cb_status s = check_device(device, error); s != CB_OK) return s;
    if (request.struct_size < sizeof(cb_gpu_settings))
        return fail(error, CB_ERR_INVALID_ARGUMENT, "apply_settings: struct_size too small");
    if (device->nvml_index < 0) return no_nvml(*device, error);
    std::lock_guard lock(device->mutex);
    return apply_gpu_settings(nvml_, device->nvml_index, request, device->applied, error);
}

cb_status kernel_driver_backend::reset(kd_device* device, cb_reset_kind kind, std::string& error) {
    if (cb_status s = check_device(device, error); s != CB_OK) return s;
    (void)kind;
    char bus[32] = "<bus id>";
    (void)driver_.api().cuDeviceGetPCIBusId(bus, sizeof bus - 1, device->device);
    // NVML's public API has no reset (only drain/remove/rediscover, which detach the GPU), and
    // the CUDA driver can only reset this process's context, which is no GPU reset.
    return fail(error, CB_ERR_UNSUPPORTED,
                std::string("the NVIDIA kernel driver offers no GPU reset to a process; stop every process using "
                            "the GPU and run as root: nvidia-smi -r -i ") +
                    bus);
}

cb_status kernel_driver_backend::heartbeat(kd_device* device, uint64_t& out_counter, std::string& error) {
    out_counter = 0;
    if (cb_status s = check_device(device, error); s != CB_OK) return s;
    const cuda_api& api = driver_.api();
    // A lost GPU or a poisoned context answers every call with an error (NOT_READY only means
    // busy); the memory query goes to the kernel driver and fails when the GPU fell off the bus.
    auto lost = [&](cu::CUresult r, const char* what) -> cb_status {
        return fail(error, CB_ERR_DEVICE_LOST, std::string("heartbeat: ") + what + ": " + driver_.describe(r));
    };
    if (cu::CUresult r = api.cuCtxSetCurrent(device->context); r != cu::CUDA_SUCCESS) return lost(r, "cuCtxSetCurrent");
    if (cu::CUresult r = api.cuStreamQuery(nullptr); r != cu::CUDA_SUCCESS && r != cu::CUDA_ERROR_NOT_READY)
        return lost(r, "cuStreamQuery");
    std::size_t free = 0, total = 0;
    if (cu::CUresult r = api.cuMemGetInfo(&free, &total); r != cu::CUDA_SUCCESS) return lost(r, "cuMemGetInfo_v2");

    unsigned long long energy = 0;
    nvml::nvmlDevice_t handle = nullptr;
    if (device->nvml_index >= 0 && nvml_.api().nvmlDeviceGetTotalEnergyConsumption != nullptr &&
        nvml_.device(static_cast<unsigned>(device->nvml_index), handle) == CB_OK) {
        nvml::nvmlReturn_t r = nvml_.api().nvmlDeviceGetTotalEnergyConsumption(handle, &energy);
        if (r == nvml::NVML_ERROR_GPU_IS_LOST)
            return fail(error, CB_ERR_DEVICE_LOST, "heartbeat: NVML reports the GPU lost: " + nvml_.describe(r));
        if (r != nvml::NVML_SUCCESS) energy = 0;
    }
    std::lock_guard lock(device->mutex);
    ++device->heartbeats;
    out_counter = energy != 0 ? energy : device->heartbeats;
    return CB_OK;
}

}  // namespace cudabridge::nv
