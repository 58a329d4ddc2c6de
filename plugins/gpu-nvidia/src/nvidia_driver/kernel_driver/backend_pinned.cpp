// Pinned host memory of the kernel-driver backend (ABI 1.3): cuMemHostRegister_v2 /
// cuMemHostUnregister through the dlopen'ed driver.
#include "nvidia_driver/kernel_driver/backend_registry.hpp"
#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"

namespace cudabridge::nv {

using status = kernels::status;

status kernel_driver_backend::host_register(kd_device* device, void* ptr, size_t size) {
    if (status s = current(device); !s.ok()) return s;
    if (ptr == nullptr || size == 0) return status::invalid("host_register: NULL pointer or size 0");
    const auto reg = driver_.api().cuMemHostRegister;
    if (reg == nullptr) return status::unsupported("host_register: this driver does not export cuMemHostRegister_v2");
    // Portable, as cudaHostRegisterPortable: pinned for every context of the process, since the
    // same buffer may feed several GPUs.
    return cuda(reg(ptr, size, cu::CU_MEMHOSTREGISTER_PORTABLE), "cuMemHostRegister_v2");
}

status kernel_driver_backend::host_unregister(kd_device* device, void* ptr) {
    if (status s = current(device); !s.ok()) return s;
    if (ptr == nullptr) return status::invalid("host_unregister: NULL pointer");
    const auto unreg = driver_.api().cuMemHostUnregister;
    if (unreg == nullptr)
        return status::unsupported("host_unregister: this driver does not export cuMemHostUnregister");
    // Copies queued through the range must finish before it becomes pageable again.
    if (status s = cuda(driver_.api().cuCtxSynchronize(), "cuCtxSynchronize"); !s.ok()) return s;
    return cuda(unreg(ptr), "cuMemHostUnregister");
}

}  // namespace cudabridge::nv
