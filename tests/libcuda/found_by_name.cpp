// What NVIDIA's libraries and frameworks do: dlopen("libcuda.so.1") by name, then resolve the
// driver's functions. Under `cudabridge-cli run` on a simulated eGPU the name must find
// CudaBridge's library (run puts lib/cudabridge/driver first on the loader path), and it must
// answer. The program links no CUDA library of its own. Prints PASS.
#include "driver_types.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>

namespace {

int failures = 0;

void check(bool ok, const char* what) {
    std::printf(ok ? "ok   %s\n" : "FAIL %s\n", what);
    failures += !ok;
}

}  // namespace

int main() {
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    check(library != nullptr, "dlopen(\"libcuda.so.1\") finds a library");
    if (!library) {
        std::printf("     %s\n", dlerror());
        return 1;
    }
    auto init = reinterpret_cast<decltype(&cuInit)>(dlsym(library, "cuInit"));
    auto count = reinterpret_cast<decltype(&cuDeviceGetCount)>(dlsym(library, "cuDeviceGetCount"));
    check(init && count, "it has cuInit and cuDeviceGetCount");
    Dl_info where{};
    check(init && dladdr(reinterpret_cast<void*>(init), &where) && where.dli_fname &&
              std::strstr(where.dli_fname, "cudabridge/driver/libcuda.so.1"),
          "it is CudaBridge's (lib/cudabridge/driver)");
    if (where.dli_fname) std::printf("     loaded from %s\n", where.dli_fname);
    int devices = 0;
    check(init && init(0) == CUDA_SUCCESS, "cuInit(0)");
    check(count && count(&devices) == CUDA_SUCCESS && devices >= 1, "cuDeviceGetCount finds the eGPU");
    dlclose(library);
    std::printf(failures ? "found_by_name: %d FAILED\n" : "found_by_name: PASS\n", failures);
    return failures ? 1 : 0;
}
