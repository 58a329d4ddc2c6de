// Pinned host memory through the userspace driver: copies inside a registration map nothing and,
// on a stream, return once queued (shown with a kernel that holds the queue until the copy has
// returned); copies only partly inside take the mapped-per-chunk path; overlap and unknown
// pointers are refused with clear messages; pinning beyond the IOMMU's budget is staged; unregister waits for queued copies;
// close and resets leave no mapping behind. Also stream_wait_event's checks.
#include "sim_bench.hpp"
#include "test_kernels.hpp"
#include "test_pattern.hpp"

#include "userspace/driver/device_objects.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include <sys/mman.h>

#include <thread>
#include <vector>

namespace cudabridge::test {
namespace {

namespace tk = cb_test_kernels;

cb_kernel_arg ptr(uint64_t p) {
    cb_kernel_arg a{};
    a.type = CB_ARG_DEVICE_PTR;
    a.value.device_ptr = p;
    return a;
}
cb_kernel_arg scalar(uint64_t v) {
    cb_kernel_arg a{};
    a.type = CB_ARG_UINT64;
    a.value.u64 = v;
    return a;
}

TEST(UserspacePinned, CopiesInsideARegistrationMapNothing) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    const size_t n = 3u << 20;
    std::vector<uint8_t> src = pattern(n, 5), dst(n, 0);
    ASSERT_EQ(gpu.host_register(src.data(), n, error), CB_OK) << error;
    ASSERT_EQ(gpu.host_register(dst.data(), n, error), CB_OK) << error;
    const uint64_t mappings = bench.counters().mappings, peak = bench.counters().peak_mappings;
    uint64_t d = 0;
    ASSERT_EQ(gpu.mem_alloc(n, d, error), CB_OK);
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    ASSERT_EQ(gpu.memcpy_h2d(d, src.data(), n, s, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_d2h(dst.data(), d, n, s, error), CB_OK) << error;
    ASSERT_EQ(gpu.stream_synchronize(s, error), CB_OK) << error;
    EXPECT_EQ(dst, src);
    // A part of a registration, on the null stream.
    std::fill(dst.begin(), dst.end(), 0);
    ASSERT_EQ(gpu.memcpy_d2h(dst.data() + 4097, d + 11, 65536, nullptr, error), CB_OK) << error;
    EXPECT_TRUE(std::equal(dst.begin() + 4097, dst.begin() + 4097 + 65536, src.begin() + 11));
    EXPECT_EQ(bench.counters().mappings, mappings);
    EXPECT_EQ(bench.counters().peak_mappings, peak);  // no per-copy mapping at any moment

    // A copy only partly inside a registration takes the normal path (and maps per chunk).
    std::vector<uint8_t> other = pattern(8192, 9);
    ASSERT_EQ(gpu.host_register(other.data(), 4096, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_h2d(d, other.data(), 8192, s, error), CB_OK) << error;
    std::vector<uint8_t> back(8192);
    ASSERT_EQ(gpu.memcpy_d2h(back.data(), d, 8192, nullptr, error), CB_OK) << error;
    EXPECT_EQ(back, other);
    EXPECT_GE(bench.counters().peak_mappings, mappings + 2);  // the registration and a chunk
    for (void* p : {static_cast<void*>(src.data()), static_cast<void*>(dst.data()), static_cast<void*>(other.data())})
        ASSERT_EQ(gpu.host_unregister(p, error), CB_OK) << error;
    EXPECT_EQ(bench.counters().mappings, mappings - 2);
}

TEST(UserspacePinned, AStreamCopyReturnsOnceQueuedAndRunsInOrder) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error, log;
    nv::userspace_module* m = nullptr;
    const cb_host_kernel_module image = tk::module();
    ASSERT_EQ(gpu.module_load(&image, sizeof image, CB_MODULE_HOST_KERNELS, m, log, error), CB_OK) << error;
    const int64_t n = 4096;
    uint64_t d = 0;
    ASSERT_EQ(gpu.mem_alloc(n * sizeof(int32_t), d, error), CB_OK);
    std::vector<int32_t> host(n, -1);
    ASSERT_EQ(gpu.host_register(host.data(), host.size() * sizeof(int32_t), error), CB_OK) << error;
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    // The kernel holds the queue until the gate opens, then writes 1..n; the copy comes after it.
    tk::gate gate;
    const std::vector<cb_kernel_arg> args = {scalar(reinterpret_cast<uintptr_t>(&gate)), ptr(d),
                                             scalar(static_cast<uint64_t>(n))};
    cb_kernel_launch l{};
    l.struct_size = sizeof l;
    l.name = "wait_for_gate";
    l.grid[0] = l.grid[1] = l.grid[2] = 1;
    l.block[0] = l.block[1] = l.block[2] = 1;
    l.args = args.data();
    l.arg_count = args.size();
    ASSERT_EQ(gpu.launch_kernel(m, l, s, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_d2h(host.data(), d, n * sizeof(int32_t), s, error), CB_OK) << error;
    // Returned while the kernel still waits: a synchronous copy could not have.
    EXPECT_FALSE(gate.kernel_done.load());
    gate.open.store(true);
    ASSERT_EQ(gpu.stream_synchronize(s, error), CB_OK) << error;
    EXPECT_TRUE(gate.kernel_saw_open.load());
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(host[static_cast<size_t>(i)], i + 1) << i;
    ASSERT_EQ(gpu.host_unregister(host.data(), error), CB_OK) << error;
}

TEST(UserspacePinned, UnregisterWaitsForQueuedCopies) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error, log;
    nv::userspace_module* m = nullptr;
    const cb_host_kernel_module image = tk::module();
    ASSERT_EQ(gpu.module_load(&image, sizeof image, CB_MODULE_HOST_KERNELS, m, log, error), CB_OK) << error;
    const int64_t n = 1024;
    uint64_t d = 0;
    ASSERT_EQ(gpu.mem_alloc(n * sizeof(int32_t), d, error), CB_OK);
    std::vector<int32_t> host(n, 0);
    ASSERT_EQ(gpu.host_register(host.data(), host.size() * sizeof(int32_t), error), CB_OK) << error;
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    tk::gate gate;
    const std::vector<cb_kernel_arg> args = {scalar(reinterpret_cast<uintptr_t>(&gate)), ptr(d),
                                             scalar(static_cast<uint64_t>(n))};
    cb_kernel_launch l{};
    l.struct_size = sizeof l;
    l.name = "wait_for_gate";
    l.grid[0] = l.grid[1] = l.grid[2] = 1;
    l.block[0] = l.block[1] = l.block[2] = 1;
    l.args = args.data();
    l.arg_count = args.size();
    ASSERT_EQ(gpu.launch_kernel(m, l, s, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_d2h(host.data(), d, n * sizeof(int32_t), s, error), CB_OK) << error;
    std::thread opener([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        gate.open.store(true);
    });
    ASSERT_EQ(gpu.host_unregister(host.data(), error), CB_OK) << error;
    // The copy queued through the range finished before it was unmapped.
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(host[static_cast<size_t>(i)], i + 1) << i;
    opener.join();
    EXPECT_EQ(gpu.stream_synchronize(s, error), CB_OK) << error;
}

TEST(UserspacePinned, OverlapUnknownPointersAndTheIommuBudgetAreRefused) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    std::vector<uint8_t> buffer(64 << 10);
    uint8_t* p = buffer.data() + 16384;
    ASSERT_EQ(gpu.host_register(p, 8192, error), CB_OK) << error;
    EXPECT_EQ(gpu.host_register(p + 4096, 8192, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("overlaps"), std::string::npos) << error;
    EXPECT_EQ(gpu.host_register(p - 100, 101, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.host_register(p + 8191, 1, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.host_register(p - 4096, 16384, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.host_register(p + 8192, 4096, error), CB_OK) << error;  // adjacent is fine
    EXPECT_EQ(gpu.host_register(p - 100, 100, error), CB_OK) << error;
    EXPECT_EQ(gpu.host_register(nullptr, 10, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.host_register(p, 0, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.host_unregister(p + 1, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("does not start a registered range"), std::string::npos) << error;
    EXPECT_EQ(gpu.host_unregister(p, error), CB_OK) << error;
    EXPECT_EQ(gpu.host_unregister(p, error), CB_ERR_INVALID_ARGUMENT);
}

// The DART limits what is mapped at once, not what is pinned: more than it can hold (1.5 GiB on
// the Apple-Silicon host) is still registered, unmapped, and its copies are staged through the
// window as pageable memory's are. (A third 724 MB cudaMallocHost failed.) Reserved, never
// touched beyond the copy, so it costs no memory.
TEST(UserspacePinned, PinningBeyondTheIommuBudgetIsRegisteredAndCopiesStillArrive) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    const size_t huge = size_t{2} << 30;
    auto* reserved = static_cast<uint8_t*>(
        ::mmap(nullptr, huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    ASSERT_NE(reserved, MAP_FAILED);
    const uint64_t mappings = bench.counters().mappings;
    ASSERT_EQ(gpu.host_register(reserved, huge, error), CB_OK) << error;
    EXPECT_EQ(bench.counters().mappings, mappings);  // nothing held mapped
    const size_t n = 1 << 20;
    std::vector<uint8_t> in = pattern(n, 7), out(n);
    std::memcpy(reserved + huge - n, in.data(), n);
    uint64_t d = 0;
    ASSERT_EQ(gpu.mem_alloc(n, d, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_h2d(d, reserved + huge - n, n, nullptr, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_d2h(out.data(), d, n, nullptr, error), CB_OK) << error;
    EXPECT_EQ(out, in);
    EXPECT_EQ(gpu.host_unregister(reserved, error), CB_OK) << error;
    ::munmap(reserved, huge);
}

TEST(UserspacePinned, CloseAndResetsLeaveNoMappingBehind) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    std::vector<uint8_t> a = pattern(1 << 20, 1), b(1 << 20);
    ASSERT_EQ(gpu.host_register(a.data(), a.size(), error), CB_OK) << error;
    ASSERT_EQ(gpu.host_register(b.data(), b.size(), error), CB_OK) << error;
    const uint64_t mappings = bench.counters().mappings;
    // A reset keeps registrations (the IOMMU mapping is the host's): copies still use them.
    ASSERT_EQ(gpu.reset(CB_RESET_SOFT, error), CB_OK) << error;
    EXPECT_EQ(bench.counters().mappings, mappings);
    uint64_t d = 0;
    ASSERT_EQ(gpu.mem_alloc(a.size(), d, error), CB_OK);
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    ASSERT_EQ(gpu.memcpy_h2d(d, a.data(), a.size(), s, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_d2h(b.data(), d, b.size(), s, error), CB_OK) << error;
    ASSERT_EQ(gpu.stream_synchronize(s, error), CB_OK) << error;
    EXPECT_EQ(a, b);
    // Close unmaps everything: the ring, the fence word, the timestamp slabs and both
    // registrations.
    ASSERT_EQ(gpu.close(error), CB_OK) << error;
    EXPECT_EQ(bench.counters().mappings, 0u);
    EXPECT_EQ(bench.counters().mapped_bytes, 0u);
    EXPECT_EQ(gpu.host_unregister(a.data(), error), CB_ERR_INVALID_ARGUMENT);
}

TEST(UserspaceStreamWaitEvent, ChecksTheHandlesAndQueuesNothing) {
    sim_bench bench, other;
    auto& gpu = bench.gpu();
    std::string error;
    nv::userspace_stream* s = nullptr;
    nv::userspace_event* e = nullptr;
    nv::userspace_event* foreign = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    ASSERT_EQ(gpu.event_create(e, error), CB_OK);
    ASSERT_EQ(other.gpu().event_create(foreign, error), CB_OK);
    EXPECT_EQ(gpu.stream_wait_event(s, e, error), CB_OK) << error;  // never recorded: no wait
    ASSERT_EQ(gpu.event_record(e, nullptr, error), CB_OK);
    EXPECT_EQ(gpu.stream_wait_event(s, e, error), CB_OK) << error;
    EXPECT_EQ(gpu.stream_wait_event(nullptr, e, error), CB_OK) << error;
    EXPECT_EQ(gpu.stream_wait_event(s, foreign, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("not an event of this device"), std::string::npos) << error;
    EXPECT_EQ(gpu.stream_wait_event(s, nullptr, error), CB_ERR_INVALID_ARGUMENT);
    auto* bogus = reinterpret_cast<nv::userspace_stream*>(e);
    EXPECT_EQ(gpu.stream_wait_event(bogus, e, error), CB_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(gpu.stream_destroy(s, error), CB_OK);
    EXPECT_EQ(gpu.stream_wait_event(s, e, error), CB_ERR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace cudabridge::test
