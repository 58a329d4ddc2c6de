// The CUDA driver API as a program built against it uses it, through CudaBridge's libcuda.so.1
// under `cudabridge-cli run`: compiled by the host compiler with driver_types.hpp's declarations
// (no CUDA toolkit), its kernels the PTX of kernels.cu. Each check prints one line; each result is
// compared with one computed here on the host. Prints PASS and exits 0 when every check held.
//   driver_api KERNELS_PTX BROKEN_PTX
#include "checks.hpp"
#include "driver_types.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace driver_checks;

struct kernels {
    CUfunction scale_add, fill_index, count, times_factor, mixed_args, block_sum;
};

// cuInit, the driver's version, and device 0 as its attributes describe it.
void devices() {
    CALL(cuInit(0));
    int version = 0, count = 0;
    CALL(cuDriverGetVersion(&version));
    CHECK(version >= 13000);
    CALL(cuDeviceGetCount(&count));
    CHECK(count >= 1);
    CUdevice device = -1;
    CALL(cuDeviceGet(&device, 0));
    CHECK(device == 0);
    RESULT(cuDeviceGet(&device, count), CUDA_ERROR_INVALID_DEVICE);

    char name[256] = {};
    CALL(cuDeviceGetName(name, sizeof name, 0));
    CHECK(std::strlen(name) > 0);
    std::printf("     device 0: %s\n", name);
    int major = -1, minor = -1, attr_major = -2, attr_minor = -2, threads = 0, sms = 0, value = 0;
    CALL(cuDeviceComputeCapability(&major, &minor, 0));
    CALL(cuDeviceGetAttribute(&attr_major, attribute::major, 0));
    CALL(cuDeviceGetAttribute(&attr_minor, attribute::minor, 0));
    CHECK(major == attr_major && minor == attr_minor);
    size_t total = 0;
    CALL(cuDeviceTotalMem_v2(&total, 0));
    CHECK(total > 0);
    CALL(cuDeviceGetAttribute(&threads, attribute::max_threads_per_block, 0));
    CHECK(threads == 1024);
    CALL(cuDeviceGetAttribute(&sms, attribute::multiprocessor_count, 0));
    CHECK(sms > 0);
    RESULT(cuDeviceGetAttribute(&value, 100000, 0), CUDA_ERROR_INVALID_VALUE);

    // The PCI bus id names the device it came from.
    char bus[32] = {};
    CUdevice by_bus = -1;
    CALL(cuDeviceGetPCIBusId(bus, sizeof bus, 0));
    std::printf("     PCI bus id: %s\n", bus);
    CALL(cuDeviceGetByPCIBusId(&by_bus, bus));
    CHECK(by_bus == 0);
}

CUcontext current() {
    CUcontext context = nullptr;
    CALL(cuCtxGetCurrent(&context));
    return context;
}

// The primary context made current, and a context of the program's own pushed above it.
void contexts() {
    CUcontext primary = nullptr, own = nullptr, popped = nullptr;
    CALL(cuDevicePrimaryCtxRetain(&primary, 0));
    CHECK(primary != nullptr);
    CALL(cuCtxSetCurrent(primary));
    CHECK(current() == primary);
    CUdevice device = -1;
    CALL(cuCtxGetDevice(&device));
    CHECK(device == 0);

    // A new context is current at once; popping it uncovers the primary one.
    CALL(cuCtxCreate_v2(&own, 0, 0));
    CHECK(own != nullptr && own != primary && current() == own);
    CALL(cuCtxPopCurrent_v2(&popped));
    CHECK(popped == own && current() == primary);
    CALL(cuCtxPushCurrent_v2(own));
    CHECK(current() == own);
    CALL(cuCtxPopCurrent_v2(&popped));
    CHECK(popped == own && current() == primary);
    CALL(cuCtxDestroy_v2(own));
    CALL(cuCtxSynchronize());
}

// The kernels' module from PTX text, its functions and variables; PTX that must not load.
CUmodule modules(const std::string& kernels_path, const std::string& broken_path, kernels& k) {
    const std::string ptx = read_file(kernels_path);
    CHECK(!ptx.empty());
    CUmodule m = nullptr;
    if (!CALL(cuModuleLoadData(&m, ptx.c_str()))) return nullptr;
    const std::pair<CUfunction*, const char*> functions[] = {
        {&k.scale_add, "scale_add"},       {&k.fill_index, "fill_index"}, {&k.count, "count"},
        {&k.times_factor, "times_factor"}, {&k.mixed_args, "mixed_args"}, {&k.block_sum, "block_sum"}};
    for (const auto& [f, name] : functions)
        check_result(cuModuleGetFunction(f, m, name), CUDA_SUCCESS, std::string("cuModuleGetFunction ") + name,
                     __LINE__);
    CUfunction none = nullptr;
    RESULT(cuModuleGetFunction(&none, m, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);

    // __device__ int counter: the host sets it, 1000 threads add to it, the host reads the sum.
    CUdeviceptr counter = 0, factor = 0;
    size_t bytes = 0;
    CALL(cuModuleGetGlobal_v2(&counter, &bytes, m, "counter"));
    CHECK(bytes == sizeof(int));
    const int start = 40;
    int n = 1000, sum = 0;
    CALL(cuMemcpyHtoD_v2(counter, &start, sizeof start));
    void* count_params[] = {&n};
    CALL(launch(k.count, n, count_params));
    CALL(cuMemcpyDtoH_v2(&sum, counter, sizeof sum));
    CHECK(sum == 1040);
    RESULT(cuModuleGetGlobal_v2(&counter, &bytes, m, "no_such_variable"), CUDA_ERROR_NOT_FOUND);

    // __constant__ float factor, set by the host, read by times_factor: out[i] = factor * i.
    const float two_and_a_half = 2.5f;
    CALL(cuModuleGetGlobal_v2(&factor, &bytes, m, "factor"));
    CALL(cuMemcpyHtoD_v2(factor, &two_and_a_half, sizeof two_and_a_half));
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i) want[i] = 2.5f * float(i);
    CUdeviceptr out = upload(std::vector<float>(n));
    void* factor_params[] = {&out, &n};
    CALL(launch(k.times_factor, n, factor_params));
    CHECK(mismatches(download<float>(out, n), want) == 0);
    CALL(cuMemFree_v2(out));

    // Broken PTX is refused, and the error log names the instruction that is not PTX.
    const std::string broken = read_file(broken_path);
    CHECK(!broken.empty());
    char log[4096] = {};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {log, reinterpret_cast<void*>(uintptr_t{sizeof log - 1})};
    CUmodule bad = nullptr;
    FAILS(cuModuleLoadDataEx(&bad, broken.c_str(), 2, options, values));
    std::printf("     error log: %s\n", log);
    CHECK(std::strstr(log, "frobnicate") != nullptr);

    // From a file, by path; a path with no file.
    CUmodule from_file = nullptr;
    CUfunction f = nullptr;
    CALL(cuModuleLoad(&from_file, kernels_path.c_str()));
    CALL(cuModuleGetFunction(&f, from_file, "fill_index"));
    CALL(cuModuleUnload(from_file));
    RESULT(cuModuleLoad(&from_file, (kernels_path + ".missing").c_str()), CUDA_ERROR_FILE_NOT_FOUND);
    return m;
}

// mixed_args(char c, double d, double* out, short s) through `extra`: one buffer with each value
// at the offset cuFuncGetParamInfo gives, which is where natural alignment puts it, as the C ABI
// lays out a struct of the same members: c at 0, d at 8, out at 16, s at 24.
void packed_arguments(CUfunction f) {
    struct packed {
        char c;
        double d;
        CUdeviceptr out;
        short s;
    };
    const size_t natural[] = {offsetof(packed, c), offsetof(packed, d), offsetof(packed, out), offsetof(packed, s)};
    size_t offset[4] = {}, size[4] = {}, unused = 0;
    for (size_t i = 0; i < 4; ++i) CALL(cuFuncGetParamInfo(f, i, &offset[i], &size[i]));
    RESULT(cuFuncGetParamInfo(f, 4, &unused, &unused), CUDA_ERROR_INVALID_VALUE);
    if (!CHECK(std::memcmp(offset, natural, sizeof offset) == 0)) return;
    CHECK(size[0] == 1 && size[1] == 8 && size[2] == 8 && size[3] == 2);

    packed args{'A', 0.1, upload(std::vector<double>(3)), -1234};
    size_t bytes = offset[3] + size[3];  // to the end of s: 26, without the struct's tail padding
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &args, CU_LAUNCH_PARAM_BUFFER_SIZE, &bytes, CU_LAUNCH_PARAM_END};
    CALL(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, extra));
    CHECK(mismatches(download<double>(args.out, 3), std::vector<double>{65, 0.1, -1234}) == 0);
    CALL(cuMemFree_v2(args.out));
}

// Kernels from the module, each result against the host's.
void launches(const kernels& k) {
    // y = 3x + y on 1M + 3 floats: small integers, so one rounding or two give the same sum.
    int n = (1 << 20) + 3;
    std::vector<float> x(n), y(n), want(n);
    for (int i = 0; i < n; ++i) x[i] = float(i % 1000), y[i] = float(i % 7), want[i] = 3 * x[i] + y[i];
    CUdeviceptr dx = upload(x), dy = upload(y);
    float a = 3;
    void* params[] = {&dy, &dx, &a, &n};
    CALL(launch(k.scale_add, n, params));
    CHECK(mismatches(download<float>(dy, n), want) == 0);

    packed_arguments(k.mixed_args);

    // One sum per block of 256, reduced in 256 unsigneds of dynamic shared memory.
    const int blocks = (n + 255) / 256;
    std::vector<unsigned> in(n), sums(blocks);
    for (int i = 0; i < n; ++i) in[i] = i % 1000 + 1, sums[i / 256] += in[i];
    CUdeviceptr din = upload(in), dsums = upload(std::vector<unsigned>(blocks));
    void* sum_params[] = {&din, &dsums, &n};
    CALL(launch(k.block_sum, n, sum_params, nullptr, 256 * sizeof(unsigned)));
    CHECK(mismatches(download<unsigned>(dsums, blocks), sums) == 0);

    // A block of no threads is no launch.
    FAILS(cuLaunchKernel(k.scale_add, 1, 1, 1, 0, 1, 1, 0, nullptr, params, nullptr));

    int max_threads = 0, blocks_per_sm = 0;
    CALL(cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k.scale_add));
    CHECK(max_threads > 0);
    CALL(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, k.scale_add, 256, 0));
    CHECK(blocks_per_sm > 0);
    for (CUdeviceptr d : {dx, dy, din, dsums}) CALL(cuMemFree_v2(d));
}

// cuMemsetD8/D16/D32 over an odd count: every element set, the one just past left as it was.
void memsets(CUdeviceptr d, size_t n) {
    CALL(cuMemcpyHtoD_v2(d, std::vector<uint8_t>(4 * (n + 1), 0x5a).data(), 4 * (n + 1)));
    std::vector<uint8_t> bytes(n, 0xc3);
    bytes.push_back(0x5a);
    CALL(cuMemsetD8_v2(d, 0xc3, n));
    CHECK(mismatches(download<uint8_t>(d, n + 1), bytes) == 0);
    std::vector<uint16_t> halves(n, 0xbeef);
    halves.push_back(0x5a5a);
    CALL(cuMemsetD16_v2(d, 0xbeef, n));
    CHECK(mismatches(download<uint16_t>(d, n + 1), halves) == 0);
    std::vector<uint32_t> words(n, 0x12345678);
    words.push_back(0x5a5a5a5a);
    CALL(cuMemsetD32_v2(d, 0x12345678, n));
    CHECK(mismatches(download<uint32_t>(d, n + 1), words) == 0);
}

// Device, pinned and managed memory: copies, sets, and what the driver says of a pointer.
void memory(const kernels& k) {
    const size_t n = 1000003;
    CUdeviceptr d = 0, copy = 0, base = 0;
    CALL(cuMemAlloc_v2(&d, 4 * (n + 1)));
    memsets(d, n);
    CALL(cuMemAlloc_v2(&copy, 4 * (n + 1)));
    CALL(cuMemcpyDtoD_v2(copy, d, 4 * (n + 1)));
    CHECK(mismatches(download<uint32_t>(copy, n + 1), download<uint32_t>(d, n + 1)) == 0);

    size_t free_bytes = 0, total = 0, size = 0;
    CALL(cuMemGetInfo_v2(&free_bytes, &total));
    CHECK(total > 0 && free_bytes <= total);
    CALL(cuMemGetAddressRange_v2(&base, &size, d + 1000));
    CHECK(base == d && size == 4 * (n + 1));
    unsigned type = 0;
    CALL(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
    CHECK(type == CU_MEMORYTYPE_DEVICE);
    FAILS(cuMemFree_v2(d + 4));  // inside an allocation, not one
    CALL(cuMemFree_v2(d));
    CALL(cuMemFree_v2(copy));

    // Pinned memory there and back on a stream of the program's own: y = 2y + y.
    float* pinned = nullptr;
    CUstream s = nullptr;
    int count = int(n);
    float two = 2;
    CALL(cuMemAllocHost_v2(reinterpret_cast<void**>(&pinned), n * sizeof(float)));
    if (!pinned) return;
    std::vector<float> want(n);
    for (size_t i = 0; i < n; ++i) pinned[i] = float(i % 100), want[i] = 3 * pinned[i];
    CALL(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    CALL(cuMemAlloc_v2(&d, n * sizeof(float)));
    CALL(cuMemcpyHtoDAsync_v2(d, pinned, n * sizeof(float), s));
    void* params[] = {&d, &d, &two, &count};
    CALL(launch(k.scale_add, count, params, s));
    CALL(cuMemcpyDtoHAsync_v2(pinned, d, n * sizeof(float), s));
    CALL(cuStreamSynchronize(s));
    CHECK(mismatches(std::vector<float>(pinned, pinned + n), want) == 0);
    CALL(cuStreamDestroy_v2(s));
    CALL(cuMemFreeHost(pinned));
    CALL(cuMemFree_v2(d));

    // Managed memory: written by the host, then by a kernel up to the last element.
    CUdeviceptr managed = 0;
    CALL(cuMemAllocManaged(&managed, n * sizeof(unsigned), CU_MEM_ATTACH_GLOBAL));
    if (!managed) return;
    auto* host = reinterpret_cast<unsigned*>(managed);
    std::vector<unsigned> index(n);
    for (size_t i = 0; i < n; ++i) host[i] = 0xffffffff, index[i] = unsigned(i);
    index[n - 1] = 0xffffffff;
    count = int(n) - 1;
    void* fill_params[] = {&managed, &count};
    CALL(launch(k.fill_index, count, fill_params));
    CALL(cuCtxSynchronize());
    CHECK(mismatches(std::vector<unsigned>(host, host + n), index) == 0);
    CALL(cuMemFree_v2(managed));
}

struct host_sum {
    const unsigned* data;
    int n;
    bool ran;
    unsigned long long sum;
};

// A host function on a stream: it sees what the copies before it brought.
void add_on_host(void* p) {
    auto* s = static_cast<host_sum*>(p);
    for (int i = 0; i < s->n; ++i) s->sum += s->data[i];
    s->ran = true;
}

// Events time work and order streams; host functions run in their stream's order.
void streams_and_events(const kernels& k) {
    int n = 1 << 20;
    CUstream a = nullptr, b = nullptr;
    CUevent start = nullptr, stop = nullptr, ready = nullptr;
    CALL(cuStreamCreate(&a, CU_STREAM_DEFAULT));
    CALL(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
    for (CUevent* e : {&start, &stop, &ready}) CALL(cuEventCreate(e, CU_EVENT_DEFAULT));

    // a makes x (5, doubled), b waits for it, then y = 2x + 1 is 21 everywhere.
    CUdeviceptr x = upload(std::vector<float>(n, 5)), y = upload(std::vector<float>(n, 1));
    float one = 1, two = 2;
    void* double_x[] = {&x, &x, &one, &n};
    void* y_from_x[] = {&y, &x, &two, &n};
    CALL(launch(k.scale_add, n, double_x, a));
    CALL(cuEventRecord(ready, a));
    CALL(cuStreamWaitEvent(b, ready, 0));
    CALL(cuEventRecord(start, b));
    CALL(launch(k.scale_add, n, y_from_x, b));
    CALL(cuEventRecord(stop, b));
    CALL(cuEventSynchronize(stop));
    CALL(cuEventQuery(stop));
    float ms = -1;
    CALL(cuEventElapsedTime(&ms, start, stop));
    CHECK(ms >= 0);
    std::printf("     scale_add on %d floats: %.3f ms\n", n, double(ms));
    CHECK(mismatches(download<float>(y, n), std::vector<float>(n, 21)) == 0);

    // fill_index, a copy to pinned memory, then the host function that sums what arrived.
    unsigned* pinned = nullptr;
    CALL(cuMemAllocHost_v2(reinterpret_cast<void**>(&pinned), n * sizeof(unsigned)));
    if (pinned) {
        std::memset(pinned, 0, n * sizeof(unsigned));
        host_sum seen{pinned, n, false, 0};
        void* fill_params[] = {&x, &n};
        CALL(launch(k.fill_index, n, fill_params, a));
        CALL(cuMemcpyDtoHAsync_v2(pinned, x, n * sizeof(unsigned), a));
        CALL(cuLaunchHostFunc(a, add_on_host, &seen));
        CALL(cuStreamSynchronize(a));
        CHECK(seen.ran && seen.sum == (unsigned long long)n * (n - 1) / 2);
        CALL(cuStreamQuery(a));
        CALL(cuMemFreeHost(pinned));
    }
    for (CUevent e : {start, stop, ready}) CALL(cuEventDestroy_v2(e));
    for (CUstream s : {a, b}) CALL(cuStreamDestroy_v2(s));
    for (CUdeviceptr d : {x, y}) CALL(cuMemFree_v2(d));
}

void errors() {
    const char* name = nullptr;
    const char* text = nullptr;
    CALL(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &name));
    CHECK(name && std::strcmp(name, "CUDA_ERROR_INVALID_VALUE") == 0);
    CALL(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &text));
    CHECK(text && *text);
    RESULT(cuGetErrorName(12345, &name), CUDA_ERROR_INVALID_VALUE);
}

// cuGetProcAddress gives the entry point a program compiled for CUDA 13 would have called.
void proc_address() {
    using mem_alloc = CUresult (*)(CUdeviceptr*, size_t);
    void* pfn = nullptr;
    CUdriverProcAddressQueryResult status = -1;
    CALL(cuGetProcAddress_v2("cuMemAlloc", &pfn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    CHECK(pfn != nullptr && status == CU_GET_PROC_ADDRESS_SUCCESS);
    if (pfn) {
        CUdeviceptr d = 0;
        CALL(reinterpret_cast<mem_alloc>(pfn)(&d, 4096));
        CHECK(d != 0);
        CALL(cuMemFree_v2(d));
    }
    RESULT(cuGetProcAddress_v2("cuNoSuchFunction", &pfn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status),
           CUDA_ERROR_NOT_FOUND);
    CHECK(status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s KERNELS_PTX BROKEN_PTX\n", argv[0]);
        return 2;
    }
    devices();
    contexts();
    kernels k{};
    CUmodule m = modules(argv[1], argv[2], k);
    if (m) {
        launches(k);
        memory(k);
        streams_and_events(k);
        CALL(cuModuleUnload(m));
    }
    errors();
    proc_address();
    CALL(cuDevicePrimaryCtxRelease_v2(0));
    if (failures) {
        std::printf("driver_api: %d FAILED\n", failures);
        return 1;
    }
    std::printf("driver_api: PASS\n");
    return 0;
}
