// Pinned host memory of the kernel-driver backend (ABI 1.3): cuMemHostRegister_v2 /
// cuMemHostUnregister through the dlopen'ed driver; managed memory and the device address of
// registered memory (ABI 1.9): cuMemAllocManaged, cuMemHostGetDevicePointer_v2.
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
    // same buffer may feed several GPUs. Mapped too, so that kernels reach it (zero-copy,
    // host_device_address).
    return cuda(reg(ptr, size, cu::CU_MEMHOSTREGISTER_PORTABLE | cu::CU_MEMHOSTREGISTER_DEVICEMAP),
                "cuMemHostRegister_v2", error);
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

cb_status kernel_driver_backend::mem_alloc_managed(kd_device* device, uint64_t size, uint64_t& out_ptr,
                                                   std::string& error) {
    out_ptr = 0;
    if (cb_status s = current(device, error); s != CB_OK) return s;
    const auto alloc = driver_.api().cuMemAllocManaged;
    if (alloc == nullptr)
        return fail(error, CB_ERR_UNSUPPORTED, "mem_alloc_managed: this driver does not export cuMemAllocManaged");
    if (size == 0) return fail(error, CB_ERR_INVALID_ARGUMENT, "mem_alloc_managed: size 0");
    cu::CUdeviceptr p = 0;
    if (cb_status s =
            cuda(alloc(&p, static_cast<std::size_t>(size), cu::CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged", error);
        s != CB_OK)
        return s;
    out_ptr = p;
    return CB_OK;
}

cb_status kernel_driver_backend::host_device_address(kd_device* device, const void* ptr, uint64_t& out,
                                                     std::string& error) {
    if (cb_status s = current(device, error); s != CB_OK) return s;
    const auto get = driver_.api().cuMemHostGetDevicePointer;
    if (get == nullptr)
        return fail(error, CB_ERR_UNSUPPORTED,
                    "host_device_address: this driver does not export cuMemHostGetDevicePointer_v2");
    cu::CUdeviceptr d = 0;
    const cu::CUresult r = get(&d, const_cast<void*>(ptr), 0);
    if (r == cu::CUDA_ERROR_INVALID_VALUE)  // what the driver answers for memory it never registered
        return fail(error, CB_ERR_NOT_FOUND, "host_device_address: the memory is not registered with the driver");
    if (cb_status s = cuda(r, "cuMemHostGetDevicePointer_v2", error); s != CB_OK) return s;
    out = d;
    return CB_OK;
}

}  // namespace cudabridge::nv
