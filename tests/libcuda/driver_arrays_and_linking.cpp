// More of the CUDA driver API through CudaBridge's libcuda.so.1 under `cudabridge-cli run`: CUDA
// arrays and texture objects, 2D copies between host, pitched device memory and arrays, the
// launch API before CUDA 4, cuLink* of two PTX units, stream-ordered allocation with
// cuLaunchKernelEx, CUDA 12's libraries, graphs (every node kind) and stream capture of driver
// launches, virtual memory management, and what CUDA 13's own samples ask first.
// Each result is compared with one computed here on the host. Prints PASS when every check held.
//   driver_arrays_and_linking KERNELS_PTX LINK_MAIN_PTX LINK_TWICE_PTX
#include "checks.hpp"
#include "driver_types.hpp"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace driver_checks;

constexpr size_t width = 37, height = 19;  // odd sizes: no row is a multiple of any alignment

// cuMemcpy2D from host rows `pitch` bytes apart into the array.
void upload_rows(CUarray array, const void* host, size_t row_bytes, size_t pitch) {
    CUDA_MEMCPY2D c{};
    c.srcMemoryType = CU_MEMORYTYPE_HOST, c.srcHost = host, c.srcPitch = pitch;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY, c.dstArray = array;
    c.WidthInBytes = row_bytes, c.Height = height;
    CALL(cuMemcpy2D_v2(&c));
}

// read_texture over the whole array, through a texture object with `flags`.
std::vector<float> read_through_texture(CUfunction read_texture, CUarray array, unsigned flags) {
    CUDA_RESOURCE_DESC resource{};
    resource.resType = CU_RESOURCE_TYPE_ARRAY;
    resource.res.array.hArray = array;
    CUDA_TEXTURE_DESC texture{};  // clamp, point filtering, unnormalized coordinates
    texture.flags = flags;
    CUtexObject tex = 0;
    CALL(cuTexObjectCreate(&tex, &resource, &texture, nullptr));
    CUdeviceptr out = upload(std::vector<float>(width * height));
    int w = int(width), h = int(height);
    void* params[] = {&tex, &out, &w, &h};
    CALL(cuLaunchKernel(read_texture, (w + 15) / 16, (h + 15) / 16, 1, 16, 16, 1, 0, nullptr, params, nullptr));
    std::vector<float> got = download<float>(out, width * height);
    CALL(cuTexObjectDestroy(tex));
    CALL(cuMemFree_v2(out));
    return got;
}

// A float array, filled from padded host rows, read back through a texture element for element.
void float_array(CUfunction read_texture) {
    std::vector<float> want(width * height);
    const size_t pitch = width * sizeof(float) + 12;
    std::vector<char> padded(pitch * height);
    for (size_t y = 0; y < height; ++y)
        for (size_t x = 0; x < width; ++x) {
            want[y * width + x] = float(y * 100 + x);
            std::memcpy(&padded[y * pitch + x * sizeof(float)], &want[y * width + x], sizeof(float));
        }
    CUDA_ARRAY_DESCRIPTOR d{width, height, CU_AD_FORMAT_FLOAT, 1}, back{};
    CUarray array = nullptr;
    CALL(cuArrayCreate_v2(&array, &d));
    CALL(cuArrayGetDescriptor_v2(&back, array));
    CHECK(back.Width == width && back.Height == height && back.Format == CU_AD_FORMAT_FLOAT && back.NumChannels == 1);
    upload_rows(array, padded.data(), width * sizeof(float), pitch);
    CHECK(mismatches(read_through_texture(read_texture, array, 0), want) == 0);

    // The array into pitched device memory, and back to tight host rows.
    CUdeviceptr pitched = 0;
    size_t device_pitch = 0;
    CALL(cuMemAllocPitch_v2(&pitched, &device_pitch, width * sizeof(float), height, 4));
    CHECK(device_pitch >= width * sizeof(float));
    CUDA_MEMCPY2D to_device{};
    to_device.srcMemoryType = CU_MEMORYTYPE_ARRAY, to_device.srcArray = array;
    to_device.dstMemoryType = CU_MEMORYTYPE_DEVICE, to_device.dstDevice = pitched, to_device.dstPitch = device_pitch;
    to_device.WidthInBytes = width * sizeof(float), to_device.Height = height;
    CALL(cuMemcpy2D_v2(&to_device));
    std::vector<float> rows(width * height);
    CUDA_MEMCPY2D to_host{};
    to_host.srcMemoryType = CU_MEMORYTYPE_DEVICE, to_host.srcDevice = pitched, to_host.srcPitch = device_pitch;
    to_host.dstMemoryType = CU_MEMORYTYPE_HOST, to_host.dstHost = rows.data(), to_host.dstPitch = width * sizeof(float);
    to_host.WidthInBytes = width * sizeof(float), to_host.Height = height;
    CALL(cuMemcpy2D_v2(&to_host));
    CHECK(mismatches(rows, want) == 0);
    CALL(cuMemFree_v2(pitched));
    CALL(cuArrayDestroy(array));
}

// 8-bit texels read as floats in [0, 1] (the driver's default for 8-bit integers), or as the
// integers themselves with CU_TRSF_READ_AS_INTEGER.
void byte_array(CUfunction read_texture) {
    std::vector<unsigned char> bytes(width * height);
    std::vector<float> normalized(width * height);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 7 % 256);
    CUDA_ARRAY_DESCRIPTOR d{width, height, CU_AD_FORMAT_UNSIGNED_INT8, 1};
    CUarray array = nullptr;
    CALL(cuArrayCreate_v2(&array, &d));
    upload_rows(array, bytes.data(), width, width);
    const std::vector<float> got = read_through_texture(read_texture, array, 0);
    size_t off = 0;
    for (size_t i = 0; i < got.size(); ++i) off += std::fabs(got[i] - bytes[i] / 255.0f) > 1e-6f;
    CHECK(off == 0);
    CUDA_ARRAY_DESCRIPTOR bad{width, height, CU_AD_FORMAT_UNSIGNED_INT8, 3};  // three channels: no such format
    CUarray none = nullptr;
    FAILS(cuArrayCreate_v2(&none, &bad));
    CALL(cuArrayDestroy(array));
}

// A 3D array filled from host slices with cuMemcpy3D and read back; 1D copies into and out of an
// array at byte offsets; a 2D fill of 32-bit values whose bytes differ, row by row within a pitch.
void copies_in_more_dimensions() {
    constexpr size_t w = 9, h = 5, d = 3;
    std::vector<unsigned> volume(w * h * d), back(w * h * d, 0);
    for (size_t i = 0; i < volume.size(); ++i) volume[i] = unsigned(i * 2654435761u);
    CUDA_ARRAY3D_DESCRIPTOR desc{w, h, d, CU_AD_FORMAT_UNSIGNED_INT32, 1, 0};
    CUarray cube = nullptr;
    CALL(cuArray3DCreate_v2(&cube, &desc));
    CUDA_MEMCPY3D in{};
    in.srcMemoryType = CU_MEMORYTYPE_HOST, in.srcHost = volume.data(), in.srcPitch = w * 4, in.srcHeight = h;
    in.dstMemoryType = CU_MEMORYTYPE_ARRAY, in.dstArray = cube;
    in.WidthInBytes = w * 4, in.Height = h, in.Depth = d;
    CALL(cuMemcpy3D_v2(&in));
    CUDA_MEMCPY3D out{};
    out.srcMemoryType = CU_MEMORYTYPE_ARRAY, out.srcArray = cube;
    out.dstMemoryType = CU_MEMORYTYPE_HOST, out.dstHost = back.data(), out.dstPitch = w * 4, out.dstHeight = h;
    out.WidthInBytes = w * 4, out.Height = h, out.Depth = d;
    CALL(cuMemcpy3D_v2(&out));
    CHECK(mismatches(back, volume) == 0);
    CALL(cuArrayDestroy(cube));

    CUDA_ARRAY_DESCRIPTOR line{64, 0, CU_AD_FORMAT_FLOAT, 1};
    CUarray array = nullptr;
    CALL(cuArrayCreate_v2(&array, &line));
    std::vector<float> values(16), read(16);
    for (int i = 0; i < 16; ++i) values[i] = 0.5f * float(i);
    CALL(cuMemcpyHtoA_v2(array, 10 * sizeof(float), values.data(), values.size() * sizeof(float)));
    CALL(cuMemcpyAtoH_v2(read.data(), array, 10 * sizeof(float), read.size() * sizeof(float)));
    CHECK(mismatches(read, values) == 0);
    CALL(cuArrayDestroy(array));

    CUdeviceptr pitched = 0;
    size_t pitch = 0;
    CALL(cuMemAllocPitch_v2(&pitched, &pitch, 7 * sizeof(unsigned), 4, 4));
    CALL(cuMemsetD8_v2(pitched, 0, pitch * 4));
    CALL(cuMemsetD2D32_v2(pitched, pitch, 0x12345678u, 7, 4));
    const std::vector<unsigned char> bytes = download<unsigned char>(pitched, pitch * 4);
    size_t wrong = 0;
    for (size_t row = 0; row < 4; ++row)
        for (size_t col = 0; col < pitch / 4; ++col) {
            unsigned v = 0;
            std::memcpy(&v, &bytes[row * pitch + col * 4], 4);
            wrong += v != (col < 7 ? 0x12345678u : 0u);
        }
    CHECK(wrong == 0);
    int attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    unsigned type = 0;
    int ordinal = -1;
    void* data[] = {&type, &ordinal};
    CALL(cuPointerGetAttributes(2, attributes, data, pitched));
    CHECK(type == CU_MEMORYTYPE_DEVICE && ordinal == 0);
    CALL(cuMemFree_v2(pitched));
}

// scale_add(y, x, a, n) through cuParamSet* and cuLaunchGrid: y = 2x + y.
void legacy_launch(CUfunction scale_add) {
    const int n = 1000;
    std::vector<float> x(n), y(n), want(n);
    for (int i = 0; i < n; ++i) x[i] = float(i), y[i] = 1, want[i] = 2 * x[i] + 1;
    CUdeviceptr dx = upload(x), dy = upload(y);
    CALL(cuFuncSetBlockShape(scale_add, 256, 1, 1));
    CALL(cuFuncSetSharedSize(scale_add, 0));
    CALL(cuParamSetSize(scale_add, 24));  // y at 0, x at 8, a at 16, n at 20
    CALL(cuParamSetv(scale_add, 0, &dy, sizeof dy));
    CALL(cuParamSetv(scale_add, 8, &dx, sizeof dx));
    CALL(cuParamSetf(scale_add, 16, 2.0f));
    CALL(cuParamSeti(scale_add, 20, n));
    FAILS(cuParamSeti(scale_add, 22, n));  // past the size set
    CALL(cuLaunchGrid(scale_add, (n + 255) / 256, 1));
    CHECK(mismatches(download<float>(dy, n), want) == 0);
    CALL(cuMemFree_v2(dx));
    CALL(cuMemFree_v2(dy));
}

// Two PTX units, one calling a function the other defines, linked into one module.
void linking(const std::string& main_path, const std::string& twice_path) {
    std::string main_ptx = read_file(main_path);
    CUlinkState link = nullptr;
    CALL(cuLinkCreate_v2(0, nullptr, nullptr, &link));
    CALL(cuLinkAddData_v2(link, 1, main_ptx.data(), main_ptx.size(), "link_main.ptx", 0, nullptr, nullptr));
    CALL(cuLinkAddFile_v2(link, 1, twice_path.c_str(), 0, nullptr, nullptr));
    char machine_code[] =
        "\x7f"
        "ELF";
    RESULT(cuLinkAddData_v2(link, 0, machine_code, sizeof machine_code, "a.cubin", 0, nullptr, nullptr),
           CUDA_ERROR_NOT_SUPPORTED);
    void* image = nullptr;
    size_t size = 0;
    CALL(cuLinkComplete(link, &image, &size));
    CHECK(image != nullptr && size > 0);
    CUmodule m = nullptr;
    CUfunction apply_twice = nullptr;
    CALL(cuModuleLoadData(&m, image));
    CALL(cuLinkDestroy(link));
    CALL(cuModuleGetFunction(&apply_twice, m, "apply_twice"));
    unsigned n = 777;
    std::vector<unsigned> want(n);
    for (unsigned i = 0; i < n; ++i) want[i] = 2 * i;
    CUdeviceptr out = upload(std::vector<unsigned>(n));
    void* params[] = {&out, &n};
    CALL(launch(apply_twice, int(n), params));
    CHECK(mismatches(download<unsigned>(out, n), want) == 0);
    CALL(cuMemFree_v2(out));
    CALL(cuModuleUnload(m));
}

void callback_saw(CUstream, CUresult status, void* seen) { *static_cast<CUresult*>(seen) = status; }

// Memory from the device's pool on a stream, filled by cuLaunchKernelEx launches (plain, and
// cooperative), freed on the stream; a stream callback runs after them with the stream's status.
void stream_ordered(CUfunction fill_index) {
    CUstream s = nullptr;
    CALL(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    int n = 3000;
    CUdeviceptr out = 0;
    CALL(cuMemAllocAsync(&out, n * sizeof(unsigned), s));
    CUmemoryPool pool = nullptr;
    size_t used = 0;
    CALL(cuDeviceGetDefaultMemPool(&pool, 0));
    CALL(cuMemPoolGetAttribute(pool, 7, &used));  // CU_MEMPOOL_ATTR_USED_MEM_CURRENT
    CHECK(used >= n * sizeof(unsigned));
    void* params[] = {&out, &n};
    CUlaunchAttribute cooperative{};
    cooperative.id = 2;  // CU_LAUNCH_ATTRIBUTE_COOPERATIVE
    cooperative.value[0] = 1;
    CUlaunchConfig config{unsigned(n + 255) / 256, 1, 1, 256, 1, 1, 0, s, &cooperative, 1};
    CALL(cuLaunchKernelEx(&config, fill_index, params, nullptr));
    std::vector<unsigned> want(n);
    for (int i = 0; i < n; ++i) want[i] = unsigned(i);
    std::vector<unsigned> got(n);
    CALL(cuMemcpyDtoHAsync_v2(got.data(), out, n * sizeof(unsigned), s));
    CALL(cuMemFreeAsync(out, s));
    CUresult seen = CUDA_ERROR_UNKNOWN;
    CALL(cuStreamAddCallback(s, callback_saw, &seen, 0));
    CALL(cuStreamSynchronize(s));
    CHECK(mismatches(got, want) == 0);
    CHECK(seen == CUDA_SUCCESS);
    CUlaunchAttribute cluster{};
    cluster.id = 4;  // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: 2 x 1 x 1 blocks
    cluster.value[0] = 2, cluster.value[1] = 1, cluster.value[2] = 1;
    CUlaunchConfig clustered{2, 1, 1, 32, 1, 1, 0, s, &cluster, 1};
    RESULT(cuLaunchKernelEx(&clustered, fill_index, params, nullptr), CUDA_ERROR_NOT_SUPPORTED);
    CALL(cuStreamDestroy_v2(s));
}

// CUDA 12's context-independent loading: a library's kernel launches as a function (the same
// handle), and its variables are the module's.
void library(const std::string& kernels_path) {
    const std::string ptx = read_file(kernels_path);
    CUlibrary lib = nullptr;
    CALL(cuLibraryLoadData(&lib, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    CUkernel kernel = nullptr;
    CUfunction f = nullptr;
    CALL(cuLibraryGetKernel(&kernel, lib, "fill_index"));
    CALL(cuKernelGetFunction(&f, kernel));
    CUlibrary owner = nullptr;
    CALL(cuKernelGetLibrary(&owner, kernel));
    CHECK(owner == lib);
    int n = 500;
    CUdeviceptr out = upload(std::vector<unsigned>(n));
    void* params[] = {&out, &n};
    CALL(launch(reinterpret_cast<CUfunction>(kernel), n, params));
    std::vector<unsigned> want(n);
    for (int i = 0; i < n; ++i) want[i] = unsigned(i);
    CHECK(mismatches(download<unsigned>(out, n), want) == 0);
    CUdeviceptr counter = 0;
    size_t bytes = 0;
    CALL(cuLibraryGetGlobal(&counter, &bytes, lib, "counter"));
    CHECK(counter != 0 && bytes == sizeof(int));
    RESULT(cuLibraryGetKernel(&kernel, lib, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
    CALL(cuMemFree_v2(out));
    CALL(cuLibraryUnload(lib));
    RESULT(cuLibraryUnload(lib), CUDA_ERROR_INVALID_HANDLE);
}

// A program built with --default-stream per-thread asks cuGetProcAddress for the per-thread
// forms: they are other functions, and their NULL stream is the thread's own.
void per_thread_forms(CUfunction fill_index) {
    void *plain = nullptr, *per_thread = nullptr, *launch_form = nullptr, *sync_form = nullptr;
    CUdriverProcAddressQueryResult status{};
    const auto flag = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    CALL(cuGetProcAddress_v2("cuMemsetD32", &plain, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    CALL(cuGetProcAddress_v2("cuMemsetD32", &per_thread, 13000, flag, &status));
    CALL(cuGetProcAddress_v2("cuLaunchKernel", &launch_form, 13000, flag, &status));
    CALL(cuGetProcAddress_v2("cuStreamSynchronize", &sync_form, 13000, flag, &status));
    CHECK(plain && per_thread && plain != per_thread);
    int n = 1000;
    CUdeviceptr out = upload(std::vector<unsigned>(n));
    CALL(reinterpret_cast<CUresult (*)(CUdeviceptr, unsigned, size_t)>(per_thread)(out, 7u, size_t(n)));
    CHECK(mismatches(download<unsigned>(out, n), std::vector<unsigned>(n, 7)) == 0);
    void* params[] = {&out, &n};
    using launch_fn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                   CUstream, void**, void**);
    CALL(reinterpret_cast<launch_fn>(launch_form)(fill_index, 4, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
    CALL(reinterpret_cast<CUresult (*)(CUstream)>(sync_form)(nullptr));
    std::vector<unsigned> want(n);
    for (int i = 0; i < n; ++i) want[i] = unsigned(i);
    CHECK(mismatches(download<unsigned>(out, n), want) == 0);
    CALL(cuMemFree_v2(out));
}

void set_flag(void* flag) { *static_cast<int*>(flag) = 1; }

// cuLaunchKernel on a capturing stream becomes a kernel node: the captured graph replayed three
// times adds three times; a graph built node by node (a kernel, then a host function after it)
// runs in its dependencies' order.
void graphs(CUfunction scale_add, CUfunction fill_index) {
    CUstream s = nullptr;
    CALL(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    int n = 2000;
    std::vector<float> x(n), want(n);
    for (int i = 0; i < n; ++i) x[i] = float(i % 50), want[i] = 1 + 3 * 2 * x[i];
    CUdeviceptr dx = upload(x), dy = upload(std::vector<float>(n, 1.0f));
    float a = 2;
    void* params[] = {&dy, &dx, &a, &n};
    CALL(cuStreamBeginCapture_v2(s, 0));  // CU_STREAM_CAPTURE_MODE_GLOBAL
    CALL(launch(scale_add, n, params, s));
    int status = 0;
    CALL(cuStreamIsCapturing(s, &status));
    CHECK(status == 1);  // CU_STREAM_CAPTURE_STATUS_ACTIVE
    CUgraph captured = nullptr;
    CALL(cuStreamEndCapture(s, &captured));
    size_t nodes = 0;
    CALL(cuGraphGetNodes(captured, nullptr, &nodes));
    CHECK(nodes == 1);
    CUgraphExec exec = nullptr;
    CALL(cuGraphInstantiateWithFlags(&exec, captured, 0));
    for (int i = 0; i < 3; ++i) CALL(cuGraphLaunch(exec, s));
    CALL(cuStreamSynchronize(s));
    CHECK(mismatches(download<float>(dy, n), want) == 0);
    CALL(cuGraphExecDestroy(exec));
    CALL(cuGraphDestroy(captured));

    CUgraph built = nullptr;
    CALL(cuGraphCreate(&built, 0));
    CUdeviceptr out = upload(std::vector<unsigned>(n));
    void* fill_params[] = {&out, &n};
    CUDA_KERNEL_NODE_PARAMS k{};
    k.func = fill_index;
    k.gridDimX = unsigned(n + 255) / 256, k.gridDimY = k.gridDimZ = 1;
    k.blockDimX = 256, k.blockDimY = k.blockDimZ = 1;
    k.kernelParams = fill_params;
    CUgraphNode kernel_node = nullptr, host_node = nullptr;
    CALL(cuGraphAddKernelNode_v2(&kernel_node, built, nullptr, 0, &k));
    int flag = 0;
    struct {
        void (*fn)(void*);
        void* data;
    } host{set_flag, &flag};
    CALL(cuGraphAddHostNode(&host_node, built, &kernel_node, 1, &host));
    CALL(cuGraphInstantiateWithFlags(&exec, built, 0));
    CALL(cuGraphLaunch(exec, s));
    CALL(cuStreamSynchronize(s));
    std::vector<unsigned> indices(n);
    for (int i = 0; i < n; ++i) indices[i] = unsigned(i);
    CHECK(mismatches(download<unsigned>(out, n), indices) == 0);
    CHECK(flag == 1);
    CALL(cuGraphExecDestroy(exec));
    CALL(cuGraphDestroy(built));
    for (CUdeviceptr d : {dx, dy, out}) CALL(cuMemFree_v2(d));
    CALL(cuStreamDestroy_v2(s));
}

// A graph of every other node kind built through the driver API: fill a buffer (memset node), copy
// it to a pitched 2D region (memcpy node), a child graph that fills again, an event record and
// wait, then host code; its shape read back (types, roots, edges, parameters); a fill's value
// changed in the executable graph and with cuGraphExecUpdate, each run checked on the host.
void graph_nodes() {
    CUstream s = nullptr;
    CALL(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    const size_t n = 512, rows = 4, pitch = 1024;
    CUdeviceptr line = upload(std::vector<unsigned>(n)), grid = upload(std::vector<unsigned char>(rows * pitch));
    CUgraph g = nullptr, child = nullptr;
    CALL(cuGraphCreate(&g, 0));
    CALL(cuGraphCreate(&child, 0));
    CUDA_MEMSET_NODE_PARAMS fill{line, 0, 0x01020304u, 4, n, 1};
    CUgraphNode fill_node = nullptr, copy_node = nullptr, child_node = nullptr, record = nullptr, wait = nullptr;
    CALL(cuGraphAddMemsetNode(&fill_node, g, nullptr, 0, &fill, nullptr));
    CUDA_MEMCPY3D copy{};
    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE, copy.srcDevice = line, copy.srcPitch = n;
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE, copy.dstDevice = grid, copy.dstPitch = pitch, copy.dstHeight = rows;
    copy.WidthInBytes = n, copy.Height = rows, copy.Depth = 1;  // each row from the line's bytes, n apart
    copy.srcHeight = rows;
    CALL(cuGraphAddMemcpyNode(&copy_node, g, &fill_node, 1, &copy, nullptr));
    // The child fills the last row's second half with 0xAB after the copy.
    CUDA_MEMSET_NODE_PARAMS tail{grid + (rows - 1) * pitch + n / 2, 0, 0xAB, 1, n / 2, 1};
    CUgraphNode tail_node = nullptr;
    CALL(cuGraphAddMemsetNode(&tail_node, child, nullptr, 0, &tail, nullptr));
    CALL(cuGraphAddChildGraphNode(&child_node, g, &copy_node, 1, child));
    CUevent event = nullptr;
    CALL(cuEventCreate(&event, 0));
    CALL(cuGraphAddEventRecordNode(&record, g, &child_node, 1, event));
    CALL(cuGraphAddEventWaitNode(&wait, g, &record, 1, event));

    int type = -1;
    CALL(cuGraphNodeGetType(copy_node, &type));
    CHECK(type == CU_GRAPH_NODE_TYPE_MEMCPY);
    CALL(cuGraphNodeGetType(child_node, &type));
    CHECK(type == CU_GRAPH_NODE_TYPE_GRAPH);
    size_t count = 0;
    CALL(cuGraphGetRootNodes(g, nullptr, &count));
    CHECK(count == 1);
    CALL(cuGraphGetEdges(g, nullptr, nullptr, &count));
    CHECK(count == 4);
    CUgraphNode before = nullptr;
    count = 1;
    CALL(cuGraphNodeGetDependencies(copy_node, &before, &count));
    CHECK(count == 1 && before == fill_node);
    CUDA_MEMSET_NODE_PARAMS read_fill{};
    CALL(cuGraphMemsetNodeGetParams(fill_node, &read_fill));
    CHECK(read_fill.dst == line && read_fill.value == 0x01020304u && read_fill.width == n);
    CUDA_MEMCPY3D read_copy{};
    CALL(cuGraphMemcpyNodeGetParams(copy_node, &read_copy));
    CHECK(read_copy.dstDevice == grid && read_copy.dstPitch == pitch && read_copy.WidthInBytes == n);

    const auto expect_grid = [&](unsigned char first_byte) {
        std::vector<unsigned char> want(rows * pitch, 0);
        for (size_t r = 0; r < rows; ++r)
            for (size_t i = 0; i < n; ++i) want[r * pitch + i] = static_cast<unsigned char>(first_byte - i % 4);
        for (size_t i = n / 2; i < n; ++i) want[(rows - 1) * pitch + i] = 0xAB;
        return mismatches(download<unsigned char>(grid, rows * pitch), want) == 0;
    };
    CUgraphExec exec = nullptr;
    CALL(cuGraphInstantiateWithFlags(&exec, g, 0));
    CALL(cuGraphLaunch(exec, s));
    CALL(cuStreamSynchronize(s));
    CHECK(expect_grid(0x04));  // 0x01020304 little-endian: 04 03 02 01

    fill.value = 0x05060708u;  // only the executable graph changes
    CALL(cuGraphExecMemsetNodeSetParams(exec, fill_node, &fill, nullptr));
    CALL(cuGraphLaunch(exec, s));
    CALL(cuStreamSynchronize(s));
    CHECK(expect_grid(0x08));

    fill.value = 0x090A0B0Cu;  // the graph changes, then the executable graph takes it whole
    CALL(cuGraphMemsetNodeSetParams(fill_node, &fill));
    struct {
        int result;
        CUgraphNode error_node, error_from_node;
    } update{-1, nullptr, nullptr};
    CALL(cuGraphExecUpdate_v2(exec, g, &update));
    CHECK(update.result == 0);  // CU_GRAPH_EXEC_UPDATE_SUCCESS
    CALL(cuGraphLaunch(exec, s));
    CALL(cuStreamSynchronize(s));
    CHECK(expect_grid(0x0C));

    CALL(cuGraphExecDestroy(exec));
    CALL(cuGraphDestroyNode(wait));
    CALL(cuGraphGetEdges(g, nullptr, nullptr, &count));
    CHECK(count == 3);
    CALL(cuGraphDestroy(child));
    CALL(cuGraphDestroy(g));
    CALL(cuEventDestroy_v2(event));
    for (CUdeviceptr d : {line, grid}) CALL(cuMemFree_v2(d));
    CALL(cuStreamDestroy_v2(s));
}

// Virtual memory management as vectorAddMMAP uses it: a reserved range, three physical
// allocations mapped side by side, a kernel over all of it; an allocation keeps its bytes across an
// unmap and a map; what the simulated GPU cannot show (aliasing) is refused by name.
void virtual_memory(CUfunction fill_index) {
    int supported = 0;
    CALL(cuDeviceGetAttribute(&supported, 102, 0));  // VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
    CHECK(supported == 1);
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
    size_t granule = 0;
    CALL(cuMemGetAllocationGranularity(&granule, &prop, 0));
    CHECK(granule > 0);
    const size_t bytes = 3 * granule;
    CUdeviceptr range = 0;
    CALL(cuMemAddressReserve(&range, bytes, 0, 0, 0));
    CUmemGenericAllocationHandle parts[3] = {};
    for (int i = 0; i < 3; ++i) {
        CALL(cuMemCreate(&parts[i], granule, &prop, 0));
        CALL(cuMemMap(range + i * granule, granule, 0, parts[i], 0));
        CALL(cuMemRelease(parts[i]));  // as vectorAddMMAP: the mapping keeps it
    }
    CUmemAccessDesc access{{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    CALL(cuMemSetAccess(range, bytes, &access, 1));
    int n = int(bytes / 4);
    void* params[] = {&range, &n};
    CALL(cuLaunchKernel(fill_index, unsigned(n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
    CALL(cuCtxSynchronize());
    std::vector<unsigned> indices(n);
    for (int i = 0; i < n; ++i) indices[i] = unsigned(i);
    CHECK(mismatches(download<unsigned>(range, size_t(n)), indices) == 0);

    CUmemGenericAllocationHandle middle = 0;
    CALL(cuMemRetainAllocationHandle(&middle, reinterpret_cast<void*>(range + granule + 64)));
    CHECK(cuMemMap(range, granule, 0, middle, 0) == CUDA_ERROR_NOT_SUPPORTED);  // aliasing
    CALL(cuMemUnmap(range + granule, granule));
    CALL(cuMemsetD8_v2(range + granule, 0, granule));  // the hole: not the allocation's bytes
    CALL(cuMemMap(range + granule, granule, 0, middle, 0));
    CALL(cuMemRelease(middle));
    CHECK(mismatches(download<unsigned>(range, size_t(n)), indices) == 0);

    CHECK(cuMemAddressFree(range, bytes) == CUDA_ERROR_INVALID_VALUE);  // still mapped
    CALL(cuMemUnmap(range, bytes));
    CALL(cuMemAddressFree(range, bytes));
    CHECK(cuMemAddressFree(range, bytes) == CUDA_ERROR_INVALID_VALUE);
    CUmemGenericAllocationHandle none = 0;
    CHECK(cuMemCreate(&none, granule + 1, &prop, 0) == CUDA_ERROR_INVALID_VALUE);
}

// What CUDA 13's samples do first: a context from zeroed creation parameters, attributes only
// the driver has, the block size that fills a multiprocessor.
void what_samples_ask(CUfunction scale_add) {
    CUctxCreateParams none{};
    CUcontext context = nullptr;
    CALL(cuCtxCreate_v4(&context, &none, 0, 0));
    int value = -1;
    CALL(cuDeviceGetAttribute(&value, 102, 0));  // virtual memory management: offered
    CHECK(value == 1);
    CALL(cuDeviceGetAttribute(&value, 96, 0));  // multi-device cooperative launch: not offered
    CHECK(value == 0);
    int min_grid = 0, block = 0;
    CALL(cuOccupancyMaxPotentialBlockSize(&min_grid, &block, scale_add, nullptr, 0, 0));
    CHECK(block > 0 && block % 32 == 0 && min_grid > 0);
    CALL(cuCtxDestroy_v2(context));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s KERNELS_PTX LINK_MAIN_PTX LINK_TWICE_PTX\n", argv[0]);
        return 2;
    }
    CUcontext primary = nullptr;
    CUmodule m = nullptr;
    CUfunction read_texture = nullptr, scale_add = nullptr, fill_index = nullptr;
    if (!CALL(cuInit(0)) || !CALL(cuDevicePrimaryCtxRetain(&primary, 0)) || !CALL(cuCtxSetCurrent(primary)) ||
        !CALL(cuModuleLoad(&m, argv[1])) || !CALL(cuModuleGetFunction(&read_texture, m, "read_texture")) ||
        !CALL(cuModuleGetFunction(&scale_add, m, "scale_add")) ||
        !CALL(cuModuleGetFunction(&fill_index, m, "fill_index")))
        return 1;
    float_array(read_texture);
    byte_array(read_texture);
    copies_in_more_dimensions();
    legacy_launch(scale_add);
    linking(argv[2], argv[3]);
    stream_ordered(fill_index);
    library(argv[1]);
    per_thread_forms(fill_index);
    graphs(scale_add, fill_index);
    graph_nodes();
    virtual_memory(fill_index);
    what_samples_ask(scale_add);
    CALL(cuModuleUnload(m));
    CALL(cuDevicePrimaryCtxRelease_v2(0));
    if (failures) {
        std::printf("driver_arrays_and_linking: %d FAILED\n", failures);
        return 1;
    }
    std::printf("driver_arrays_and_linking: PASS\n");
    return 0;
}
