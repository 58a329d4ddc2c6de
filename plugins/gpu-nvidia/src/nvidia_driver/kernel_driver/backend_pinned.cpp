// Pinned host memory of the kernel-driver backend (ABI 1.3): cuMemHostRegister_v2 /
// cuMemHostUnregister through the dlopen'ed driver.
#include "nvidia_driver/kernel_driver/backend_registry.hpp"
#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"

namespace cudabridge::nv {

cb_status kernel_driver_backend::host_register(kd_device* device, void* ptr, size_t size, std::string& error) {
    if (cb_status s = current(device, error); s != CB_OK) return s;
    if (ptr == nullptr || size == 0)
        return fail(error, CB_ERR_INVALID_ARGUMENT, "host_register: NULL pointer or size 0");
    const auto reg = driver_.api().cuMemHostRegister;
    if (reg == nullptr)
        return fail(error, CB_ERR_UNSUPPORTED, "host_register: this driver does not export cuMemHostRegister_v2");
    // Portable, as cudaHostRegisterPortable: pinned for every context of the process, since the
    // same buffer may feed several GPUs.
    return cuda(reg(ptr, size, cu::CU_MEMHOSTREGISTER_PORTABLE), "cuMemHostRegister_v2", error);
}

cb_status kernel_driver_backend::host_unregister(kd_device* device, void* ptr, std::string& error) {
    if (cb_status s = current(device, error); s != CB_OK) return s;
    if (ptr == nullptr) return fail(error, CB_ERR_INVALID_ARGUMENT, "host_unregister: NULL pointer");
    const auto unreg = driver_.api().cuMemHostUnregister;
    if (unreg == nullptr)
        return fail(error, CB_ERR_UNSUPPORTED, "host_unregister: this driver does not export cuMemHostUnregister");
    // Copies queued through the range must finish before it becomes pageable again.
    if (cb_status s = cuda(driver_.api().cuCtxSynchronize(), "cuCtxSynchronize", error); s != CB_OK) return s;
    return cuda(unreg(ptr), "cuMemHostUnregister", error);
}

}  // namespace cudabridge::nv
