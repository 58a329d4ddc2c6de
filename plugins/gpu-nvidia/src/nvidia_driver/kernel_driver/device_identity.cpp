#include "nvidia_driver/kernel_driver/device_identity.hpp"

#include <cstdio>

namespace cudabridge::nv {

std::string format_gpu_uuid(const cu::CUuuid& uuid) {
    const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
    char text[64];
    std::snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return text;
}

const char* architecture_name(int cc_major, int cc_minor) {
    switch (cc_major) {
    case 6:
        return "Pascal";
    case 7:
        return cc_minor >= 5 ? "Turing" : "Volta";
    case 8:
        return cc_minor == 9 ? "Ada Lovelace" : "Ampere";
    case 9:
        return "Hopper";
    case 10:
    case 11:
    case 12:
        return "Blackwell";
    default:
        return "unknown";
    }
}

int nvml_index_of(const cuda_driver& driver, const nvml_library& nvml, cu::CUdevice device, std::string& why) {
    if (!nvml.available()) {
        why = "NVML not available: " + nvml.status().reason;
        return -1;
    }
    const nvml_api& api = nvml.api();
    // By UUID: the same bytes in both APIs.
    cu::CUuuid uuid{};
    nvml::nvmlDevice_t handle = nullptr;
    unsigned int index = 0;
    if (driver.api().cuDeviceGetUuid(&uuid, device) == cu::CUDA_SUCCESS && api.nvmlDeviceGetHandleByUUID != nullptr &&
        api.nvmlDeviceGetIndex != nullptr &&
        api.nvmlDeviceGetHandleByUUID(format_gpu_uuid(uuid).c_str(), &handle) == nvml::NVML_SUCCESS &&
        api.nvmlDeviceGetIndex(handle, &index) == nvml::NVML_SUCCESS)
        return static_cast<int>(index);
    // By PCI address.
    int domain = 0, bus = 0, dev = 0;
    if (api.nvmlDeviceGetPciInfo != nullptr &&
        driver.api().cuDeviceGetAttribute(&domain, cu::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, device) == cu::CUDA_SUCCESS &&
        driver.api().cuDeviceGetAttribute(&bus, cu::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, device) == cu::CUDA_SUCCESS &&
        driver.api().cuDeviceGetAttribute(&dev, cu::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, device) == cu::CUDA_SUCCESS) {
        for (int i = 0; i < nvml.status().device_count; ++i) {
            nvml::nvmlPciInfo_t pci{};
            if (api.nvmlDeviceGetHandleByIndex(static_cast<unsigned>(i), &handle) == nvml::NVML_SUCCESS &&
                api.nvmlDeviceGetPciInfo(handle, &pci) == nvml::NVML_SUCCESS && pci.domain == unsigned(domain) &&
                pci.bus == unsigned(bus) && pci.device == unsigned(dev))
                return i;
        }
    }
    why = "NVML lists no GPU with this device's UUID or PCI address";
    return -1;
}

}  // namespace cudabridge::nv
