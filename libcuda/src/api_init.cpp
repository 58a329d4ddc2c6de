// cuInit, versions, the texts of results, and the private export tables (none offered yet).
#include "contexts.hpp"
#include "results.hpp"
#include "run_summary.hpp"

#include <cudabridge.h>

#include <cstdio>

using namespace cudabridge::libcuda;

extern "C" {

CUresult cuInit(unsigned flags) {
    if (flags != 0) return fail(CUDA_ERROR_INVALID_VALUE, "cuInit: flags must be 0");
    // The runtime underneath comes up as the CUDA runtime's does (and run's summary is armed).
    if (cudaError_t e = cudabridge::cudart::ensure_runtime(); e != cudaSuccess) return from_runtime(e);
    int count = 0;
    if (cbError_t e = cbGetDeviceCount(&count); e != cbSuccess) return from_runtime(e);
    if (count == 0) return fail(CUDA_ERROR_NO_DEVICE, "cuInit: no eGPU is connected");
    mark_initialized();
    return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* version) {
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    *version = 13000;  // the CUDA driver API this library provides
    return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char** name) {
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    *name = result_name(error);
    return *name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char** text) {
    if (!text) return CUDA_ERROR_INVALID_VALUE;
    *text = result_string(error);
    return *text ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// NVIDIA's CUDA runtime asks the driver for private tables by UUID. None is offered yet: a
// runtime linked into the program (nvcc's default) cannot run on this library, and says so.
CUresult cuGetExportTable(const void** table, const CUuuid* id) {
    if (!table || !id) return CUDA_ERROR_INVALID_VALUE;
    *table = nullptr;
    const auto* b = reinterpret_cast<const unsigned char*>(id->bytes);
    char text[40];
    std::snprintf(text, sizeof text, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                  b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return not_supported(("cuGetExportTable (private table " + std::string(text) + ")").c_str());
}

}  // extern "C"
