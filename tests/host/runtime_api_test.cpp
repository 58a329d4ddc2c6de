// The runtime API (C++ host::runtime, the objects behind cudabridge.h) on the simulated eGPU:
// copies in every direction, streams and the default stream, events, pinned memory, the caching
// allocator, kernels, and the errors bad input gets.
#include "host_fixture.hpp"

#include <cudabridge/host/runtime.hpp>
#include <cudabridge/host_kernels.h>

#include <cstdlib>
#include <cstring>
#include <thread>

namespace cudabridge::test {
namespace {

using host::runtime;

class runtime_test : public host_test {
protected:
    void SetUp() override {
        rt = std::make_unique<runtime>(runtime_options());
        ASSERT_EQ(rt->device_count(), 1) << rt->startup_error();
    }
    void TearDown() override { rt.reset(); }

    void* device_alloc(size_t bytes) {
        void* p = nullptr;
        EXPECT_EQ(rt->malloc(&p, bytes), cbSuccess) << cbGetLastErrorMessage();
        return p;
    }

    std::unique_ptr<runtime> rt;
};

TEST_F(runtime_test, CopiesRoundTripInEveryDirection) {
    const size_t n = 300000;
    const auto in = pattern(n, 1.5f);
    std::vector<float> out(n, 0.0f);
    void* a = device_alloc(n * 4);
    void* b = device_alloc(n * 4);
    ASSERT_EQ(rt->memcpy(a, in.data(), n * 4, cbMemcpyHostToDevice, nullptr, false), cbSuccess)
        << cbGetLastErrorMessage();
    ASSERT_EQ(rt->memcpy(b, a, n * 4, cbMemcpyDeviceToDevice, nullptr, false), cbSuccess) << cbGetLastErrorMessage();
    ASSERT_EQ(rt->memcpy(out.data(), b, n * 4, cbMemcpyDeviceToHost, nullptr, false), cbSuccess)
        << cbGetLastErrorMessage();
    EXPECT_EQ(in, out);
    // cbMemcpyDefault tells the directions apart by the pointers.
    std::vector<float> again(n, 0.0f);
    ASSERT_EQ(rt->memset(b, 0, n * 4, nullptr, false), cbSuccess);
    ASSERT_EQ(rt->memcpy(b, a, n * 4, cbMemcpyDefault, nullptr, false), cbSuccess);
    ASSERT_EQ(rt->memcpy(again.data(), b, n * 4, cbMemcpyDefault, nullptr, false), cbSuccess);
    EXPECT_EQ(in, again);
    // memset writes bytes.
    ASSERT_EQ(rt->memset(a, 0x7f, 4096, nullptr, false), cbSuccess);
    std::vector<uint8_t> bytes(4096);
    ASSERT_EQ(rt->memcpy(bytes.data(), a, 4096, cbMemcpyDeviceToHost, nullptr, false), cbSuccess);
    for (uint8_t v : bytes) ASSERT_EQ(v, 0x7f);
    EXPECT_EQ(rt->free(a), cbSuccess);
    EXPECT_EQ(rt->free(b), cbSuccess);
}

TEST_F(runtime_test, AsyncWorkOnAStreamRunsInOrder) {
    const size_t n = 1 << 16;
    float* host_a = nullptr;
    float* host_out = nullptr;
    ASSERT_EQ(rt->malloc_host(reinterpret_cast<void**>(&host_a), n * 4), cbSuccess) << cbGetLastErrorMessage();
    ASSERT_EQ(rt->malloc_host(reinterpret_cast<void**>(&host_out), n * 4), cbSuccess);
    const auto a = pattern(n, 2.0f);
    std::memcpy(host_a, a.data(), n * 4);
    void* da = device_alloc(n * 4);
    void* dc = device_alloc(n * 4);
    cbStream_t s = nullptr;
    ASSERT_EQ(rt->stream_create(&s, cbStreamDefault), cbSuccess);
    ASSERT_EQ(rt->memcpy(da, host_a, n * 4, cbMemcpyHostToDevice, s, true), cbSuccess) << cbGetLastErrorMessage();
    const cbTensor ta = cbTensor1D(da, CB_DTYPE_FLOAT32, n), tc = cbTensor1D(dc, CB_DTYPE_FLOAT32, n);
    const cbKernelArg args[] = {cbArgTensor(&ta), cbArgTensor(&ta), cbArgTensor(&tc)};
    ASSERT_EQ(rt->launch_builtin("add", CB_DTYPE_FLOAT32, args, 3, s), cbSuccess) << cbGetLastErrorMessage();
    ASSERT_EQ(rt->memcpy(host_out, dc, n * 4, cbMemcpyDeviceToHost, s, true), cbSuccess);
    ASSERT_EQ(rt->stream_synchronize(s), cbSuccess) << cbGetLastErrorMessage();
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(host_out[i], a[i] + a[i]) << i;
    EXPECT_EQ(rt->stream_query(s), cbSuccess);
    EXPECT_EQ(rt->stream_destroy(s), cbSuccess);
    EXPECT_EQ(rt->free_host(host_a), cbSuccess);
    EXPECT_EQ(rt->free_host(host_out), cbSuccess);
}

// Pinned host memory is reachable by the device at its own address (unified addressing): a copy
// that names it the device side goes where the pointers really are, as CUDA's does (a published
// tutorial copies HostToDevice into cudaMallocHost memory). Plain host memory named the device
// side is still refused, naming the side.
TEST_F(runtime_test, PinnedHostMemoryNamedTheDeviceSideIsCopiedWhereItIs) {
    constexpr size_t n = 1024;
    std::vector<float> h(n), back(n, 0.0f);
    for (size_t i = 0; i < n; ++i) h[i] = float(i);
    void* pinned = nullptr;
    ASSERT_EQ(rt->malloc_host(&pinned, n * 4), cbSuccess) << cbGetLastErrorMessage();
    void* device = device_alloc(n * 4);
    EXPECT_EQ(rt->memcpy(pinned, h.data(), n * 4, cbMemcpyHostToDevice, nullptr, false), cbSuccess)
        << cbGetLastErrorMessage();
    EXPECT_EQ(std::memcmp(pinned, h.data(), n * 4), 0);
    EXPECT_EQ(rt->memcpy(device, pinned, n * 4, cbMemcpyDeviceToDevice, nullptr, false), cbSuccess)
        << cbGetLastErrorMessage();
    EXPECT_EQ(rt->memcpy(back.data(), device, n * 4, cbMemcpyDeviceToHost, nullptr, false), cbSuccess);
    EXPECT_EQ(back, h);
    std::fill(back.begin(), back.end(), 0.0f);
    EXPECT_EQ(rt->memcpy(back.data(), pinned, n * 4, cbMemcpyDeviceToHost, nullptr, false), cbSuccess)
        << cbGetLastErrorMessage();
    EXPECT_EQ(back, h);
    EXPECT_EQ(rt->memcpy(back.data(), h.data(), n * 4, cbMemcpyDeviceToHost, nullptr, false), cbErrorInvalidValue);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("source"), std::string::npos) << cbGetLastErrorMessage();
    EXPECT_EQ(rt->free(device), cbSuccess);
    EXPECT_EQ(rt->free_host(pinned), cbSuccess);
}

TEST_F(runtime_test, FreeHostTakesOnlyLivePointersFromMallocHost) {
    // Each of these crashed (double free, stack, interior, wild) or returned success (malloc).
    void* pinned = nullptr;
    ASSERT_EQ(rt->malloc_host(&pinned, 8192), cbSuccess) << cbGetLastErrorMessage();
    int on_stack = 0;
    void* from_malloc = std::malloc(64);
    void* device = device_alloc(4096);
    for (void* bad : std::initializer_list<void*>{&on_stack, static_cast<char*>(pinned) + 16,
                                                  reinterpret_cast<void*>(uintptr_t{0x1234}), from_malloc, device}) {
        EXPECT_EQ(rt->free_host(bad), cbErrorInvalidValue) << bad;
        EXPECT_NE(std::string(cbGetLastErrorMessage()).find("cbMallocHost"), std::string::npos);
    }
    EXPECT_EQ(rt->free_host(pinned), cbSuccess);
    EXPECT_EQ(rt->free_host(pinned), cbErrorInvalidValue);  // freed twice
    EXPECT_EQ(rt->free_host(nullptr), cbSuccess);           // as CUDA: freeing NULL does nothing
    std::free(from_malloc);
    EXPECT_EQ(rt->free(device), cbSuccess);
}

TEST_F(runtime_test, FreeingPinnedMemoryAfterAnEventWaitLeavesNoCheckReadingIt) {
    // A copy into pinned memory, waited for with an event only (which settles no end-to-end
    // check), then the memory freed: a later synchronize read the freed pages and crashed. 32 MiB,
    // so that the free returns the pages to the system.
    const size_t bytes = 32u << 20;
    void* pinned = nullptr;
    ASSERT_EQ(rt->malloc_host(&pinned, bytes), cbSuccess) << cbGetLastErrorMessage();
    void* d = device_alloc(bytes);
    ASSERT_EQ(rt->memset(d, 7, bytes, nullptr, false), cbSuccess);
    cbEvent_t done = nullptr;
    ASSERT_EQ(rt->event_create(&done), cbSuccess);
    ASSERT_EQ(rt->memcpy(pinned, d, bytes, cbMemcpyDeviceToHost, nullptr, true), cbSuccess) << cbGetLastErrorMessage();
    ASSERT_EQ(rt->event_record(done, nullptr), cbSuccess);
    ASSERT_EQ(rt->event_synchronize(done), cbSuccess);
    EXPECT_EQ(static_cast<unsigned char*>(pinned)[bytes - 1], 7);
    ASSERT_EQ(rt->free_host(pinned), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(rt->synchronize(), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(rt->event_destroy(done), cbSuccess);
}

TEST_F(runtime_test, ABuiltinOnAFreedPointerIsRefusedAndWritesNothing) {
    // It returned success and, once the address was handed out again, wrote into the new owner.
    const size_t n = 1024;
    void* a = device_alloc(n * 4);
    void* out = device_alloc(n * 4);
    ASSERT_EQ(rt->free(out), cbSuccess);
    const cbTensor ta = cbTensor1D(a, CB_DTYPE_FLOAT32, n), tout = cbTensor1D(out, CB_DTYPE_FLOAT32, n);
    const cbKernelArg args[] = {cbArgTensor(&ta), cbArgTensor(&ta), cbArgTensor(&tout)};
    EXPECT_EQ(rt->launch_builtin("add", CB_DTYPE_FLOAT32, args, 3, nullptr), cbErrorInvalidValue);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("operand 2"), std::string::npos) << cbGetLastErrorMessage();
    // Past the end of a live allocation is refused too; inside it works.
    const cbTensor too_long = cbTensor1D(a, CB_DTYPE_FLOAT32, n + 1);
    const cbKernelArg past[] = {cbArgTensor(&too_long), cbArgTensor(&too_long), cbArgTensor(&too_long)};
    EXPECT_EQ(rt->launch_builtin("add", CB_DTYPE_FLOAT32, past, 3, nullptr), cbErrorInvalidValue);
    const cbKernelArg fine[] = {cbArgTensor(&ta), cbArgTensor(&ta), cbArgTensor(&ta)};
    EXPECT_EQ(rt->launch_builtin("add", CB_DTYPE_FLOAT32, fine, 3, nullptr), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(rt->free(a), cbSuccess);
}

TEST_F(runtime_test, TheDefaultStreamWaitsForBlockingStreams) {
    const size_t n = 1 << 20;
    void* buf = device_alloc(n);
    void* copy = device_alloc(n);
    cbStream_t s = nullptr;
    ASSERT_EQ(rt->stream_create(&s, cbStreamDefault), cbSuccess);
    for (int round = 0; round < 5; ++round) {
        const int value = 0x10 + round;
        ASSERT_EQ(rt->memset(buf, value, n, s, true), cbSuccess);
        // Queued on the legacy default stream: must see the memset queued before it on s.
        ASSERT_EQ(rt->memcpy(copy, buf, n, cbMemcpyDeviceToDevice, nullptr, true), cbSuccess)
            << cbGetLastErrorMessage();
        std::vector<uint8_t> out(n);
        ASSERT_EQ(rt->memcpy(out.data(), copy, n, cbMemcpyDeviceToHost, nullptr, false), cbSuccess);
        ASSERT_EQ(out.front(), value);
        ASSERT_EQ(out.back(), value);
    }
    EXPECT_EQ(rt->synchronize(), cbSuccess);
    EXPECT_EQ(rt->stream_destroy(s), cbSuccess);
}

TEST_F(runtime_test, EventsTimeWorkOnTheDevice) {
    const size_t n = 8 << 20;
    std::vector<uint8_t> host(n, 3);
    void* d = device_alloc(n);
    cbEvent_t start = nullptr, end = nullptr;
    ASSERT_EQ(rt->event_create(&start), cbSuccess);
    ASSERT_EQ(rt->event_create(&end), cbSuccess);
    float ms = -1;
    EXPECT_EQ(rt->event_elapsed(&ms, start, end), cbErrorInvalidValue) << "neither was recorded";
    ASSERT_EQ(rt->event_record(start, nullptr), cbSuccess);
    ASSERT_EQ(rt->memcpy(d, host.data(), n, cbMemcpyHostToDevice, nullptr, true), cbSuccess);
    ASSERT_EQ(rt->event_record(end, nullptr), cbSuccess);
    ASSERT_EQ(rt->event_synchronize(end), cbSuccess);
    EXPECT_EQ(rt->event_query(end), cbSuccess);
    ASSERT_EQ(rt->event_elapsed(&ms, start, end), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_GT(ms, 0.0f);
    EXPECT_EQ(rt->event_destroy(start), cbSuccess);
    EXPECT_EQ(rt->event_destroy(end), cbSuccess);
}

TEST_F(runtime_test, FreedMemoryComesBackAndTheCacheCountsAsFree) {
    size_t free0 = 0, total = 0;
    ASSERT_EQ(rt->mem_get_info(&free0, &total), cbSuccess);
    EXPECT_EQ(total, rt->device(0).properties().total_memory);
    for (int i = 0; i < 300; ++i) {
        void* p = device_alloc(64 << 20);
        ASSERT_NE(p, nullptr) << "cycle " << i;
        ASSERT_EQ(rt->free(p), cbSuccess);
    }
    size_t free1 = 0;
    ASSERT_EQ(rt->mem_get_info(&free1, &total), cbSuccess);
    EXPECT_EQ(free1, free0);
}

TEST_F(runtime_test, BadInputGetsAClearErrorAndNoCrash) {
    int dummy = 0;
    EXPECT_EQ(rt->free(&dummy), cbErrorInvalidValue);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("not a device allocation"), std::string::npos);
    void* p = device_alloc(4096);
    EXPECT_EQ(rt->free(p), cbSuccess);
    EXPECT_EQ(rt->free(p), cbErrorInvalidValue) << "double free";
    p = device_alloc(4096);
    std::vector<uint8_t> big(8192);
    EXPECT_EQ(rt->memcpy(p, big.data(), 8192, cbMemcpyHostToDevice, nullptr, false), cbErrorInvalidValue);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("not inside one device allocation"), std::string::npos);
    EXPECT_EQ(rt->memcpy(big.data(), reinterpret_cast<void*>(0xdead0000), 16, cbMemcpyDeviceToHost, nullptr, false),
              cbErrorInvalidValue);
    auto* bogus_stream = reinterpret_cast<cbStream_t>(&dummy);
    EXPECT_EQ(rt->stream_synchronize(bogus_stream), cbErrorInvalidResourceHandle);
    const cbTensor t = cbTensor1D(p, CB_DTYPE_FLOAT32, 16);
    const cbKernelArg args[] = {cbArgTensor(&t)};
    EXPECT_EQ(rt->launch_builtin("no_such_kernel", CB_DTYPE_FLOAT32, args, 1, nullptr), cbErrorInvalidDeviceFunction);
    EXPECT_EQ(rt->launch_kernel(nullptr, "my_kernel", {1, 1, 1}, {1, 1, 1}, args, 1, 0, nullptr),
              cbErrorInvalidDeviceFunction);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("my_kernel"), std::string::npos);
    EXPECT_EQ(rt->malloc(nullptr, 16), cbErrorInvalidValue);
    EXPECT_EQ(rt->set_device(3), cbErrorInvalidDevice);
    // The last error is the most recent failure; Get resets it, Peek does not.
    EXPECT_EQ(cbPeekAtLastError(), cbErrorInvalidDevice);
    EXPECT_EQ(cbGetLastError(), cbErrorInvalidDevice);
    EXPECT_EQ(cbGetLastError(), cbSuccess);
    // None of that poisoned the device.
    EXPECT_EQ(rt->memset(p, 1, 4096, nullptr, false), cbSuccess);
    EXPECT_STREQ(cbGetErrorName(cbErrorDeviceLost), "cbErrorDeviceLost");
    EXPECT_STRNE(cbGetErrorString(cbErrorIntegrity), "unrecognized error code");
}

TEST_F(runtime_test, ThreadsShareTheDeviceSafely) {
    const size_t n = 1 << 16;
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            cbStream_t s = nullptr;
            void* d = nullptr;
            if (rt->stream_create(&s, cbStreamNonBlocking) != cbSuccess || rt->malloc(&d, n * 4) != cbSuccess) {
                ++failures;
                return;
            }
            for (int round = 0; round < 20; ++round) {
                const auto in = pattern(n, static_cast<float>(t * 100 + round));
                std::vector<float> out(n);
                if (rt->memcpy(d, in.data(), n * 4, cbMemcpyHostToDevice, s, true) != cbSuccess ||
                    rt->memcpy(out.data(), d, n * 4, cbMemcpyDeviceToHost, s, true) != cbSuccess ||
                    rt->stream_synchronize(s) != cbSuccess || in != out)
                    ++failures;
            }
            rt->free(d);
            rt->stream_destroy(s);
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(failures.load(), 0);
}

TEST_F(runtime_test, CorruptionBeyondTheLinkIsCaughtAndRepaired) {
    const size_t n = 3 << 20;
    std::vector<uint8_t> in(n), out(n);
    for (size_t i = 0; i < n; ++i) in[i] = static_cast<uint8_t>(i * 7 + 1);
    void* d = device_alloc(n);
    rt->inject_copy_corruption();
    ASSERT_EQ(rt->memcpy(d, in.data(), n, cbMemcpyHostToDevice, nullptr, false), cbSuccess) << cbGetLastErrorMessage();
    ASSERT_EQ(rt->memcpy(out.data(), d, n, cbMemcpyDeviceToHost, nullptr, false), cbSuccess);
    EXPECT_EQ(in, out) << "the retried copy delivered the right data";
    const auto mismatches = events(rt->current_session(), "integrity.mismatch");
    ASSERT_EQ(mismatches.size(), 1u);
    EXPECT_NE(mismatches[0].message.find("copying again"), std::string::npos) << mismatches[0].message;
}

TEST_F(runtime_test, AHostBufferReusedAfterItsCopyWasWaitedForIsNotAnIntegrityFailure) {
    // simpleStreams' pattern: an asynchronous device-to-host copy on a created stream into pinned
    // memory, waited for through an event on the legacy stream (which waits for blocking
    // streams); the program then reuses its buffer. The copy's check read the buffer at the next
    // device synchronize, after the program changed it, and reported a false mismatch.
    const size_t bytes = 8u << 20;
    void* pinned = nullptr;
    ASSERT_EQ(rt->malloc_host(&pinned, bytes), cbSuccess) << cbGetLastErrorMessage();
    void* d = device_alloc(bytes);
    ASSERT_EQ(rt->memset(d, 7, bytes, nullptr, false), cbSuccess);
    cbStream_t s = nullptr;
    ASSERT_EQ(rt->stream_create(&s, cbStreamDefault), cbSuccess);
    cbEvent_t done = nullptr;
    ASSERT_EQ(rt->event_create(&done), cbSuccess);
    ASSERT_EQ(rt->memcpy(pinned, d, bytes, cbMemcpyDeviceToHost, s, true), cbSuccess) << cbGetLastErrorMessage();
    ASSERT_EQ(rt->event_record(done, nullptr), cbSuccess);
    ASSERT_EQ(rt->event_synchronize(done), cbSuccess);
    EXPECT_EQ(static_cast<unsigned char*>(pinned)[bytes - 1], 7);
    std::memset(pinned, 0, bytes);  // the program's own use of its buffer
    EXPECT_EQ(rt->synchronize(), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_TRUE(events(rt->current_session(), "integrity.mismatch").empty());
    EXPECT_EQ(rt->stream_destroy(s), cbSuccess);
    EXPECT_EQ(rt->event_destroy(done), cbSuccess);
    EXPECT_EQ(rt->free_host(pinned), cbSuccess);
}

TEST_F(runtime_test, ACopyOverwrittenByALaterCopyBeforeAnyWaitIsNotAnIntegrityFailure) {
    // simpleStreams' loop: on each of several streams, a kernel changes a device buffer and a
    // copy brings it into the same host buffer, a hundred times over, with no wait in between.
    // The host bytes a copy wrote are gone (a later copy replaced them) before any wait; its
    // check compared them with the final bytes and failed.
    const size_t bytes = 1u << 20;
    void* pinned = nullptr;
    ASSERT_EQ(rt->malloc_host(&pinned, bytes), cbSuccess) << cbGetLastErrorMessage();
    void* d = device_alloc(bytes);
    cbStream_t a = nullptr, b = nullptr;
    ASSERT_EQ(rt->stream_create(&a, cbStreamDefault), cbSuccess);
    ASSERT_EQ(rt->stream_create(&b, cbStreamDefault), cbSuccess);
    const size_t half = bytes / 2;
    for (int round = 0; round < 5; ++round) {
        auto* dev = static_cast<char*>(d);
        auto* host = static_cast<char*>(pinned);
        ASSERT_EQ(rt->memset(dev, round, half, a, true), cbSuccess);
        ASSERT_EQ(rt->memset(dev + half, round + 50, half, b, true), cbSuccess);
        ASSERT_EQ(rt->memcpy(host, dev, half, cbMemcpyDeviceToHost, a, true), cbSuccess);
        ASSERT_EQ(rt->memcpy(host + half, dev + half, half, cbMemcpyDeviceToHost, b, true), cbSuccess);
    }
    EXPECT_EQ(rt->synchronize(), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(static_cast<unsigned char*>(pinned)[0], 4);
    EXPECT_EQ(static_cast<unsigned char*>(pinned)[bytes - 1], 54);
    EXPECT_TRUE(events(rt->current_session(), "integrity.mismatch").empty());
    EXPECT_EQ(rt->stream_destroy(a), cbSuccess);
    EXPECT_EQ(rt->stream_destroy(b), cbSuccess);
    EXPECT_EQ(rt->free_host(pinned), cbSuccess);
}

TEST_F(runtime_test, AsyncCopiesAreCheckedWhenTheirStreamIsSynchronized) {
    const size_t n = 5 << 20;
    std::vector<uint8_t> in(n), out(n);
    for (size_t i = 0; i < n; ++i) in[i] = static_cast<uint8_t>(i * 13 + 5);
    void* d = device_alloc(n);
    void* e = device_alloc(n);
    cbStream_t s = nullptr;
    ASSERT_EQ(rt->stream_create(&s, cbStreamDefault), cbSuccess);
    ASSERT_EQ(rt->memcpy(d, in.data(), n, cbMemcpyHostToDevice, s, true), cbSuccess);
    ASSERT_EQ(rt->memcpy(e, d, n, cbMemcpyDeviceToDevice, s, true), cbSuccess);
    ASSERT_EQ(rt->memcpy(out.data(), e, n, cbMemcpyDeviceToHost, s, true), cbSuccess);
    ASSERT_EQ(rt->stream_synchronize(s), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(in, out);
    EXPECT_TRUE(events(rt->current_session(), "integrity.mismatch").empty());
    EXPECT_EQ(rt->stream_destroy(s), cbSuccess);
}

// Small asynchronous copies queued one after another on a stream are checked as one span
// (runtime/copy_run.hpp): the device ends up with what the host sent, later copies winning.
TEST_F(runtime_test, SmallAsyncCopiesAreCheckedTogetherAndLandInOrder) {
    const size_t n = 8192;
    std::vector<uint8_t> expected(n, 0), out(n);
    auto* d = static_cast<uint8_t*>(device_alloc(n));
    ASSERT_EQ(rt->memset(d, 0, n, nullptr, false), cbSuccess);
    cbStream_t s = nullptr;
    ASSERT_EQ(rt->stream_create(&s, cbStreamDefault), cbSuccess);
    std::vector<std::vector<uint8_t>> sources;  // kept alive until synchronized, as CUDA wants
    for (size_t i = 0; i < 300; ++i) {
        const size_t at = (i * 40) % (n - 100), size = 16 + i % 80;  // overlapping, adjacent, repeated
        sources.emplace_back(size, static_cast<uint8_t>(i + 1));
        std::copy(sources.back().begin(), sources.back().end(), expected.begin() + static_cast<std::ptrdiff_t>(at));
        ASSERT_EQ(rt->memcpy(d + at, sources.back().data(), size, cbMemcpyHostToDevice, s, true), cbSuccess);
    }
    ASSERT_EQ(rt->stream_synchronize(s), cbSuccess) << cbGetLastErrorMessage();
    ASSERT_EQ(rt->memcpy(out.data(), d, n, cbMemcpyDeviceToHost, nullptr, false), cbSuccess);
    EXPECT_EQ(out, expected);
    EXPECT_TRUE(events(rt->current_session(), "integrity.mismatch").empty());
    EXPECT_EQ(rt->stream_destroy(s), cbSuccess);
}

// The CRC of a run of small copies costs the GPU one kernel, not one per copy: the device's
// modeled kernel time grows by the same amount for one copy as for a hundred into one span.
TEST_F(runtime_test, ARunOfSmallCopiesCostsOneCheckKernel) {
    auto* d = static_cast<uint8_t*>(device_alloc(4096));
    const std::vector<uint8_t> src(64, 7);
    const auto kernel_time_of = [&](int copies) {
        unsigned long long before = 0, after = 0;
        EXPECT_EQ(rt->kernel_time(&before), cbSuccess);
        for (int i = 0; i < copies; ++i)
            EXPECT_EQ(rt->memcpy(d, src.data(), src.size(), cbMemcpyHostToDevice, nullptr, true), cbSuccess);
        EXPECT_EQ(rt->synchronize(), cbSuccess) << cbGetLastErrorMessage();
        EXPECT_EQ(rt->kernel_time(&after), cbSuccess);
        return after - before;
    };
    const unsigned long long one = kernel_time_of(1);
    EXPECT_GT(one, 0u) << "the check runs a crc32c kernel";
    EXPECT_EQ(kernel_time_of(100), one);
}

// A corrupted byte in a run's span is reported when its stream is synchronized.
TEST_F(runtime_test, CorruptionInARunOfSmallCopiesIsReported) {
    auto* d = static_cast<uint8_t*>(device_alloc(4096));
    const std::vector<uint8_t> src(256, 0x3c);
    cbStream_t s = nullptr;
    ASSERT_EQ(rt->stream_create(&s, cbStreamDefault), cbSuccess);
    rt->inject_copy_corruption();
    for (size_t at = 0; at < 1024; at += 256)
        ASSERT_EQ(rt->memcpy(d + at, src.data(), src.size(), cbMemcpyHostToDevice, s, true), cbSuccess);
    EXPECT_EQ(rt->stream_synchronize(s), cbErrorIntegrity) << cbGetLastErrorMessage();
    const auto mismatches = events(rt->current_session(), "integrity.mismatch");
    ASSERT_EQ(mismatches.size(), 1u);
    EXPECT_NE(mismatches[0].message.find("1024-byte asynchronous copy"), std::string::npos) << mismatches[0].message;
    EXPECT_EQ(rt->stream_destroy(s), cbSuccess);
}

// Other work that may write a run's span ends the run first, so its check never sees their bytes
// and reports a mismatch that is not there: a memset on the same stream, a synchronous copy, a
// stream ordered after this one by an event.
TEST_F(runtime_test, WorkAfterSmallCopiesDoesNotFailTheirCheck) {
    auto* d = static_cast<uint8_t*>(device_alloc(4096));
    const std::vector<uint8_t> a(64, 0x11), b(64, 0x22);
    cbStream_t s = nullptr, other = nullptr;
    cbEvent_t copied = nullptr;
    ASSERT_EQ(rt->stream_create(&s, cbStreamDefault), cbSuccess);  // the synchronous copy waits for it
    ASSERT_EQ(rt->stream_create(&other, cbStreamNonBlocking), cbSuccess);
    ASSERT_EQ(rt->event_create(&copied), cbSuccess);

    ASSERT_EQ(rt->memcpy(d, a.data(), 64, cbMemcpyHostToDevice, s, true), cbSuccess);
    ASSERT_EQ(rt->memset(d, 0x33, 64, s, true), cbSuccess);
    ASSERT_EQ(rt->memcpy(d + 64, a.data(), 64, cbMemcpyHostToDevice, s, true), cbSuccess);
    ASSERT_EQ(rt->memcpy(d + 64, b.data(), 32, cbMemcpyHostToDevice, nullptr, false), cbSuccess);
    ASSERT_EQ(rt->memcpy(d + 128, a.data(), 64, cbMemcpyHostToDevice, s, true), cbSuccess);
    ASSERT_EQ(rt->event_record(copied, s), cbSuccess);
    ASSERT_EQ(rt->stream_wait_event(other, copied), cbSuccess);
    ASSERT_EQ(rt->memset(d + 128, 0x44, 16, other, true), cbSuccess);
    void* elsewhere = device_alloc(64);  // a copy that starts a run of its own
    ASSERT_EQ(rt->memcpy(elsewhere, a.data(), 64, cbMemcpyHostToDevice, s, true), cbSuccess);
    ASSERT_EQ(rt->synchronize(), cbSuccess) << cbGetLastErrorMessage();

    std::vector<uint8_t> out(192);
    ASSERT_EQ(rt->memcpy(out.data(), d, out.size(), cbMemcpyDeviceToHost, nullptr, false), cbSuccess);
    std::vector<uint8_t> expected(192, 0x11);
    std::fill(expected.begin(), expected.begin() + 64, 0x33);
    std::fill(expected.begin() + 64, expected.begin() + 96, 0x22);
    std::fill(expected.begin() + 128, expected.begin() + 144, 0x44);
    EXPECT_EQ(out, expected);
    EXPECT_TRUE(events(rt->current_session(), "integrity.mismatch").empty());
    EXPECT_EQ(rt->event_destroy(copied), cbSuccess);
    EXPECT_EQ(rt->stream_destroy(other), cbSuccess);
    EXPECT_EQ(rt->stream_destroy(s), cbSuccess);
}

}  // namespace
}  // namespace cudabridge::test

namespace cudabridge::test {
namespace {

// A user kernel as a simulated GPU runs it: one call per block.
cb_status scale_kernel(const cb_host_kernel_call* call) {
    auto* data = static_cast<float*>(call->buffers[0].data);
    const uint64_t n = call->args[1].value.u64;
    const uint64_t first = static_cast<uint64_t>(call->block_index[0]) * call->block[0];
    for (uint64_t i = first; i < first + call->block[0] && i < n; ++i) data[i] *= 2.0f;
    return CB_OK;
}
cb_status faulting_kernel(const cb_host_kernel_call*) { return CB_ERR_INVALID_ARGUMENT; }

const cb_host_kernel kernels[] = {{"scale", &scale_kernel}, {"fault", &faulting_kernel}};
const cb_host_kernel_module module = {sizeof(cb_host_kernel_module), 0, kernels, 2};

TEST_F(runtime_test, UserKernelsRunAndAFaultingOneIsAStickyLaunchFailure) {
    const size_t n = 10000;
    const auto in = pattern(n, 1.0f);
    void* d = device_alloc(n * 4);
    ASSERT_EQ(rt->memcpy(d, in.data(), n * 4, cbMemcpyHostToDevice, nullptr, false), cbSuccess);
    cbModule_t m = nullptr;
    ASSERT_EQ(rt->module_load(&m, &module, sizeof module, CB_MODULE_HOST_KERNELS), cbSuccess)
        << cbGetLastErrorMessage();
    const cbKernelArg args[] = {cbArgPointer(d), cbArgUInt(n)};
    const cbDim3 block{256, 1, 1}, grid{static_cast<unsigned>((n + 255) / 256), 1, 1};
    ASSERT_EQ(rt->launch_kernel(nullptr, "scale", grid, block, args, 2, 0, nullptr), cbSuccess)
        << cbGetLastErrorMessage();
    ASSERT_EQ(rt->synchronize(), cbSuccess);
    std::vector<float> out(n);
    ASSERT_EQ(rt->memcpy(out.data(), d, n * 4, cbMemcpyDeviceToHost, nullptr, false), cbSuccess);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] * 2.0f) << i;
    EXPECT_EQ(rt->launch_kernel(m, "missing", grid, block, args, 2, 0, nullptr), cbErrorInvalidDeviceFunction);

    // A kernel that faults: the launch (or the next synchronization) fails, and stays failed.
    cbStream_t s = nullptr;
    ASSERT_EQ(rt->stream_create(&s, cbStreamDefault), cbSuccess);
    ASSERT_EQ(rt->launch_kernel(m, "fault", {1, 1, 1}, {1, 1, 1}, args, 2, 0, s), cbSuccess);
    EXPECT_EQ(rt->stream_synchronize(s), cbErrorLaunchFailure) << cbGetLastErrorMessage();
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("fault"), std::string::npos) << cbGetLastErrorMessage();
    EXPECT_EQ(rt->memset(d, 0, 16, nullptr, false), cbErrorLaunchFailure) << "sticky";
    // cbDeviceReset clears it; the device works again.
    ASSERT_EQ(rt->reset_device(), cbSuccess) << cbGetLastErrorMessage();
    void* again = device_alloc(4096);
    EXPECT_EQ(rt->memset(again, 1, 4096, nullptr, false), cbSuccess);
}

// cbDeviceGetKernelTime: the device's count of this process's kernel time moves with its kernels
// (the family's own test checks that copies add nothing; here a checked copy's CRC kernel may).
TEST_F(runtime_test, KernelTimeGrowsWithKernelsOnly) {
    EXPECT_EQ(rt->kernel_time(nullptr), cbErrorInvalidValue);
    const size_t n = 1 << 16;
    void* d = device_alloc(n * 4);
    const auto in = pattern(n, 1.0f);
    ASSERT_EQ(rt->memcpy(d, in.data(), n * 4, cbMemcpyHostToDevice, nullptr, false), cbSuccess);
    unsigned long long after_copy = 0, after_kernels = 0;
    ASSERT_EQ(rt->kernel_time(&after_copy), cbSuccess) << cbGetLastErrorMessage();
    cbModule_t m = nullptr;
    ASSERT_EQ(rt->module_load(&m, &module, sizeof module, CB_MODULE_HOST_KERNELS), cbSuccess);
    const cbKernelArg args[] = {cbArgPointer(d), cbArgUInt(n)};
    for (int i = 0; i < 3; ++i)
        ASSERT_EQ(rt->launch_kernel(m, "scale", {n / 256, 1, 1}, {256, 1, 1}, args, 2, 0, nullptr), cbSuccess);
    ASSERT_EQ(rt->synchronize(), cbSuccess);
    ASSERT_EQ(rt->kernel_time(&after_kernels), cbSuccess);
    EXPECT_GT(after_kernels, after_copy);
}

// cbMemGetHostPointer: on the simulated eGPU the host address through BAR1 is the allocation's
// bytes themselves, in both directions, and only ranges inside one allocation map.
TEST_F(runtime_test, HostPointerReachesDeviceMemoryWithoutACopy) {
    const size_t n = 4096;
    auto* d = static_cast<char*>(device_alloc(n * 4));
    const auto in = pattern(n, 3.0f);
    ASSERT_EQ(rt->memcpy(d, in.data(), n * 4, cbMemcpyHostToDevice, nullptr, false), cbSuccess);
    void* host = nullptr;
    ASSERT_EQ(rt->mem_host_pointer(&host, d + 64, n * 4 - 64), cbSuccess) << cbGetLastErrorMessage();
    ASSERT_NE(host, nullptr);
    EXPECT_EQ(std::memcmp(host, in.data() + 16, n * 4 - 64), 0);
    static_cast<float*>(host)[0] = -1.5f;
    float back = 0;
    ASSERT_EQ(rt->memcpy(&back, d + 64, 4, cbMemcpyDeviceToHost, nullptr, false), cbSuccess);
    EXPECT_EQ(back, -1.5f);

    EXPECT_EQ(rt->mem_host_pointer(nullptr, d, 4), cbErrorInvalidValue);
    EXPECT_EQ(rt->mem_host_pointer(&host, d, 0), cbErrorInvalidValue);
    EXPECT_EQ(rt->mem_host_pointer(&host, d, n * 4 + 1), cbErrorInvalidValue);  // past the allocation
    EXPECT_EQ(rt->mem_host_pointer(&host, in.data(), 4), cbErrorInvalidValue);  // host memory
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("not inside one allocation"), std::string::npos);
}

}  // namespace
}  // namespace cudabridge::test
