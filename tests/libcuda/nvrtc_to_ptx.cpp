// How frameworks JIT: CUDA C++ compiled at run time by NVIDIA's NVRTC for the device's compute
// capability, loaded with cuModuleLoadDataEx and launched, the result checked on the host.
//   nvrtc_to_ptx          PTX for the virtual architecture (--gpu-architecture=compute_NN)
//   nvrtc_to_ptx cubin    a CUBIN for the real one (sm_NN), as NVIDIA's NVRTC samples ask: under
//                         run on a simulated GPU, CudaBridge's libnvrtc.so.13 hands out PTX
// NVRTC is dlopen'ed by name (libnvrtc.so.13: under run, CudaBridge's, which passes the calls to
// the toolkit's), or $CUDABRIDGE_TEST_NVRTC; without one the test is skipped (exit 77). Prints
// PASS.
#include "checks.hpp"
#include "driver_types.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace driver_checks;

// NVRTC's C API, by its documented signatures (nvrtc.h): results are ints, 0 is success.
struct nvrtc {
    int (*create)(void** program, const char* source, const char* name, int headers, const char* const* contents,
                  const char* const* include_names);
    int (*compile)(void* program, int count, const char* const* options);
    int (*ptx_size)(void* program, size_t* size);
    int (*ptx)(void* program, char* out);
    int (*cubin_size)(void* program, size_t* size);
    int (*cubin)(void* program, char* out);
    int (*log_size)(void* program, size_t* size);
    int (*log)(void* program, char* out);
    int (*destroy)(void** program);
};

bool load_nvrtc(nvrtc& n) {
    const char* named = std::getenv("CUDABRIDGE_TEST_NVRTC");
    void* lib = nullptr;
    for (const char* path : {named, "libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.13"})
        if (path && (lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib) return false;
    auto get = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    };
    get(n.create, "nvrtcCreateProgram");
    get(n.compile, "nvrtcCompileProgram");
    get(n.ptx_size, "nvrtcGetPTXSize");
    get(n.ptx, "nvrtcGetPTX");
    get(n.cubin_size, "nvrtcGetCUBINSize");
    get(n.cubin, "nvrtcGetCUBIN");
    get(n.log_size, "nvrtcGetProgramLogSize");
    get(n.log, "nvrtcGetProgramLog");
    get(n.destroy, "nvrtcDestroyProgram");
    return n.create && n.compile && n.ptx_size && n.ptx && n.cubin_size && n.cubin && n.log_size && n.log && n.destroy;
}

// out[i] = in[i] * in[i] + offset, with a loop so the PTX has control flow.
const char* source = R"(
extern "C" __global__ void square_plus(const float* in, float* out, float offset, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = in[i] * in[i] + offset;
}
)";

// The module image: PTX for compute_NN, or the "CUBIN" for sm_NN.
std::string compile(const nvrtc& n, int major, int minor, bool cubin) {
    void* program = nullptr;
    if (n.create(&program, source, "square_plus.cu", 0, nullptr, nullptr) != 0) return {};
    const std::string arch =
        std::string("--gpu-architecture=") + (cubin ? "sm_" : "compute_") + std::to_string(major * 10 + minor);
    const char* options[] = {arch.c_str()};
    const int compiled = n.compile(program, 1, options);
    size_t size = 0;
    std::string text;
    if (compiled == 0 && (cubin ? n.cubin_size(program, &size) : n.ptx_size(program, &size)) == 0) {
        text.resize(size);
        if ((cubin ? n.cubin(program, text.data()) : n.ptx(program, text.data())) != 0) text.clear();
    } else if (n.log_size(program, &size) == 0) {
        std::string log(size, '\0');
        n.log(program, log.data());
        std::printf("     NVRTC: %s\n", log.c_str());
    }
    n.destroy(&program);
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    const bool cubin = argc > 1 && std::string(argv[1]) == "cubin";
    nvrtc n{};
    if (!load_nvrtc(n)) {
        std::printf("SKIP: no NVRTC (libnvrtc.so.13) on this machine\n");
        return 77;
    }
    CUcontext context = nullptr;
    int major = 0, minor = 0;
    if (!CALL(cuInit(0)) || !CALL(cuDevicePrimaryCtxRetain(&context, 0)) || !CALL(cuCtxSetCurrent(context)) ||
        !CALL(cuDeviceComputeCapability(&major, &minor, 0)))
        return 1;
    const std::string ptx = compile(n, major, minor, cubin);
    CHECK(!ptx.empty());
    std::printf("     %s for %s_%d%d: %zu bytes\n", cubin ? "CUBIN" : "PTX", cubin ? "sm" : "compute", major, minor,
                ptx.size());
    CUmodule m = nullptr;
    CUfunction f = nullptr;
    char log[4096] = {};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {log, reinterpret_cast<void*>(uintptr_t{sizeof log})};
    if (!CALL(cuModuleLoadDataEx(&m, ptx.c_str(), 2, options, values))) {
        std::printf("     %s\n", log);
        return 1;
    }
    CALL(cuModuleGetFunction(&f, m, "square_plus"));
    int count = 100003;
    std::vector<float> in(count), want(count);
    for (int i = 0; i < count; ++i) in[i] = float(i % 1024) / 8, want[i] = in[i] * in[i] + 0.5f;
    CUdeviceptr din = upload(in), dout = upload(std::vector<float>(count));
    float offset = 0.5f;
    void* params[] = {&din, &dout, &offset, &count};
    CALL(cuLaunchKernel(f, 64, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
    // x*x + 0.5 with x a multiple of 1/8 below 128: exact in single precision, fused or not.
    CHECK(mismatches(download<float>(dout, count), want) == 0);
    CALL(cuMemFree_v2(din));
    CALL(cuMemFree_v2(dout));
    CALL(cuModuleUnload(m));
    CALL(cuDevicePrimaryCtxRelease_v2(0));
    if (failures)
        std::printf("nvrtc_to_%s: %d FAILED\n", cubin ? "cubin" : "ptx", failures);
    else
        std::printf("nvrtc_to_%s: PASS\n", cubin ? "cubin" : "ptx");
    return failures ? 1 : 0;
}
