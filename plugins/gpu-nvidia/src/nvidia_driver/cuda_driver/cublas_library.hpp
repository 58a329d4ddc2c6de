// libcublas loaded at run time, for the float32/float64 matrix products of the kernel-driver
// backend. Only the _v2 entry points (cublas_v2.h maps cublasSgemm to cublasSgemm_v2; the
// unsuffixed exports are the legacy API without a handle). The first candidate that loads and
// binds wins; a missing library is not an error for the backend, which then uses its own kernel.
#pragma once

#include <cudabridge/abi.h>

#include <string>
#include <vector>

#include "nvidia_driver/cuda_driver/availability.hpp"
#include "nvidia_driver/cuda_driver/bound_symbol.hpp"
#include "nvidia_driver/cuda_driver/cuda_types.hpp"
#include "nvidia_driver/cuda_driver/dynamic_library.hpp"

namespace cudabridge::nv {

namespace cublas {
using cublasStatus_t = int;
using cublasHandle_t = struct cublasContext*;
using cublasOperation_t = int;
enum : cublasStatus_t {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_ARCH_MISMATCH = 8,
    CUBLAS_STATUS_MAPPING_ERROR = 11,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
    CUBLAS_STATUS_INTERNAL_ERROR = 14,
    CUBLAS_STATUS_NOT_SUPPORTED = 15,
    CUBLAS_STATUS_LICENSE_ERROR = 16
};
enum : cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };

extern "C" {
using cublasCreate_t = cublasStatus_t (*)(cublasHandle_t* handle);
using cublasDestroy_t = cublasStatus_t (*)(cublasHandle_t handle);
using cublasSetStream_t = cublasStatus_t (*)(cublasHandle_t handle, cu::CUstream stream);
using cublasGetVersion_t = cublasStatus_t (*)(cublasHandle_t handle, int* version);
using cublasSgemm_t = cublasStatus_t (*)(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const float* alpha, const float* A, int lda,
                                         const float* B, int ldb, const float* beta, float* C, int ldc);
using cublasDgemm_t = cublasStatus_t (*)(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const double* alpha, const double* A, int lda,
                                         const double* B, int ldb, const double* beta, double* C, int ldc);
using cublasGetStatusString_t = const char* (*)(cublasStatus_t status);
}
}  // namespace cublas

// X(member, type, export, required)
#define CB_NV_CUBLAS_ENTRY_POINTS(X)                                              \
    X(cublasCreate, cublas::cublasCreate_t, "cublasCreate_v2", true)              \
    X(cublasDestroy, cublas::cublasDestroy_t, "cublasDestroy_v2", true)           \
    X(cublasSetStream, cublas::cublasSetStream_t, "cublasSetStream_v2", true)     \
    X(cublasSgemm, cublas::cublasSgemm_t, "cublasSgemm_v2", true)                 \
    X(cublasDgemm, cublas::cublasDgemm_t, "cublasDgemm_v2", true)                 \
    X(cublasGetVersion, cublas::cublasGetVersion_t, "cublasGetVersion_v2", false) \
    X(cublasGetStatusString, cublas::cublasGetStatusString_t, "cublasGetStatusString", false)

struct cublas_api {
#define CB_NV_CUBLAS_MEMBER(member, type, name, required) type member = nullptr;
    CB_NV_CUBLAS_ENTRY_POINTS(CB_NV_CUBLAS_MEMBER)
#undef CB_NV_CUBLAS_MEMBER
};

class cublas_library {
public:
    // Sonames of the cuBLAS releases whose _v2 ABI is declared above, newest first.
    static std::vector<std::string> default_candidates();

    // Tries each candidate (soname or path) in order. Never throws: see status().
    explicit cublas_library(const std::vector<std::string>& candidates = default_candidates());
    cublas_library(const cublas_library&) = delete;
    cublas_library& operator=(const cublas_library&) = delete;

    [[nodiscard]] const availability& status() const { return availability_; }
    [[nodiscard]] bool available() const { return availability_.available; }
    [[nodiscard]] const cublas_api& api() const { return api_; }
    [[nodiscard]] const std::vector<bound_symbol>& bound_symbols() const { return bound_; }
    [[nodiscard]] std::string bound_name(const std::string& api) const;
    [[nodiscard]] const std::string& library_path() const { return library_.path(); }

    // "CUBLAS_STATUS_NOT_INITIALIZED (1)" plus the library's text when it has one.
    [[nodiscard]] std::string describe(cublas::cublasStatus_t status) const;
    // CB_OK for success; on error, when `message` is given, "<what>: <describe()>".
    cb_status check(cublas::cublasStatus_t status, const char* what, std::string* message = nullptr) const;

private:
    bool try_load(const std::string& library, std::string& why);

    dynamic_library library_;
    cublas_api api_;
    std::vector<bound_symbol> bound_;
    availability availability_;
};

}  // namespace cudabridge::nv
