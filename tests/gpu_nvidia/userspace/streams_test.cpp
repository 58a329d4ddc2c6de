// Streams and events: asynchronous device work runs in submission order, queries settle to
// CB_OK, events time device work, the ring wraps and waits for room, and all of it works with
// interrupts and with polling.
#include "sim_bench.hpp"
#include "test_pattern.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

namespace cudabridge::test {
namespace {

class UserspaceStreams : public ::testing::TestWithParam<bool> {
protected:
    bench_options options(uint32_t ring_entries = 1024) {
        bench_options o;
        o.driver.use_interrupts = GetParam();
        o.driver.poll_interval_us = 50;
        o.driver.ring_entries = ring_entries;
        return o;
    }
};

TEST_P(UserspaceStreams, WorkOnAStreamRunsInOrder) {
    sim_bench bench(options());
    auto& gpu = bench.gpu();
    std::string error;
    const size_t n = 1u << 20;
    uint64_t a = 0, b = 0;
    ASSERT_EQ(gpu.mem_alloc(n, a, error), CB_OK);
    ASSERT_EQ(gpu.mem_alloc(n, b, error), CB_OK);
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK) << error;
    ASSERT_EQ(gpu.memset8(a, 1, n, s, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_d2d(b, a, n, s, error), CB_OK) << error;
    ASSERT_EQ(gpu.memset8(a, 2, n, s, error), CB_OK) << error;
    const cb_status q = gpu.stream_query(s, error);
    EXPECT_TRUE(q == CB_OK || q == CB_ERR_BUSY) << q;
    ASSERT_EQ(gpu.stream_synchronize(s, error), CB_OK) << error;
    EXPECT_EQ(gpu.stream_query(s, error), CB_OK);
    std::vector<uint8_t> got(n);
    ASSERT_EQ(gpu.memcpy_d2h(got.data(), b, n, s, error), CB_OK) << error;
    EXPECT_TRUE(std::all_of(got.begin(), got.end(), [](uint8_t v) { return v == 1; }));
    ASSERT_EQ(gpu.memcpy_d2h(got.data(), a, n, nullptr, error), CB_OK) << error;
    EXPECT_TRUE(std::all_of(got.begin(), got.end(), [](uint8_t v) { return v == 2; }));

    ASSERT_EQ(gpu.stream_destroy(s, error), CB_OK);
    EXPECT_EQ(gpu.stream_destroy(s, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.stream_synchronize(s, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.memset8(a, 0, 1, s, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.stream_query(nullptr, error), CB_OK);
    EXPECT_EQ(gpu.device_synchronize(error), CB_OK) << error;
}

TEST_P(UserspaceStreams, EventsTimeDeviceWorkInOrder) {
    sim_bench bench(options());
    auto& gpu = bench.gpu();
    std::string error;
    const size_t n = 8u << 20;
    uint64_t a = 0;
    ASSERT_EQ(gpu.mem_alloc(n, a, error), CB_OK);
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    nv::userspace_event *start = nullptr, *middle = nullptr, *end = nullptr, *never = nullptr;
    ASSERT_EQ(gpu.event_create(start, error), CB_OK) << error;
    ASSERT_EQ(gpu.event_create(middle, error), CB_OK);
    ASSERT_EQ(gpu.event_create(end, error), CB_OK);
    ASSERT_EQ(gpu.event_create(never, error), CB_OK);

    ASSERT_EQ(gpu.event_record(start, s, error), CB_OK) << error;
    ASSERT_EQ(gpu.memset8(a, 3, n, s, error), CB_OK);
    ASSERT_EQ(gpu.event_record(middle, s, error), CB_OK);
    ASSERT_EQ(gpu.memset8(a, 4, n, s, error), CB_OK);
    ASSERT_EQ(gpu.event_record(end, nullptr, error), CB_OK);
    ASSERT_EQ(gpu.event_synchronize(end, error), CB_OK) << error;
    EXPECT_EQ(gpu.event_query(end, error), CB_OK);
    EXPECT_EQ(gpu.event_query(start, error), CB_OK);  // earlier in the ring
    EXPECT_EQ(gpu.event_synchronize(never, error), CB_OK);
    EXPECT_EQ(gpu.event_query(never, error), CB_OK);

    float first = -1, second = -1, whole = -1, backwards = 1;
    ASSERT_EQ(gpu.event_elapsed_ms(start, middle, first, error), CB_OK) << error;
    ASSERT_EQ(gpu.event_elapsed_ms(middle, end, second, error), CB_OK) << error;
    ASSERT_EQ(gpu.event_elapsed_ms(start, end, whole, error), CB_OK) << error;
    ASSERT_EQ(gpu.event_elapsed_ms(end, start, backwards, error), CB_OK) << error;
    EXPECT_GE(first, 0.0f);
    EXPECT_GE(second, 0.0f);
    EXPECT_GE(whole, first);
    EXPECT_GE(whole, second);
    EXPECT_LE(backwards, 0.0f);
    float ignored = 0;
    EXPECT_EQ(gpu.event_elapsed_ms(start, never, ignored, error), CB_ERR_INVALID_ARGUMENT);

    for (auto* e : {start, middle, end, never}) EXPECT_EQ(gpu.event_destroy(e, error), CB_OK);
    EXPECT_EQ(gpu.event_destroy(start, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.event_record(start, s, error), CB_ERR_INVALID_ARGUMENT);
}

TEST_P(UserspaceStreams, ASmallRingWrapsAndWaitsForRoom) {
    sim_bench bench(options(4));
    auto& gpu = bench.gpu();
    std::string error;
    const size_t n = 4096;
    uint64_t a = 0;
    ASSERT_EQ(gpu.mem_alloc(n, a, error), CB_OK);
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    std::vector<uint8_t> ref(n, 0);
    for (int i = 0; i < 200; ++i) {
        const size_t at = static_cast<size_t>(i) * 17 % (n - 64);
        ASSERT_EQ(gpu.memset8(a + at, static_cast<uint8_t>(i), 64, s, error), CB_OK) << error;
        std::fill_n(ref.begin() + static_cast<long>(at), 64, static_cast<uint8_t>(i));
        if (i == 0) {  // zero everything under the first fill
            ASSERT_EQ(gpu.memset8(a, 0, n, nullptr, error), CB_OK);
            std::fill(ref.begin(), ref.end(), uint8_t{0});
        }
    }
    ASSERT_EQ(gpu.stream_synchronize(s, error), CB_OK) << error;
    std::vector<uint8_t> got(n);
    ASSERT_EQ(gpu.memcpy_d2h(got.data(), a, n, nullptr, error), CB_OK) << error;
    EXPECT_TRUE(got == ref);
}

TEST_P(UserspaceStreams, HostCopiesOnAStreamAreDoneWhenTheyReturn) {
    sim_bench bench(options());
    auto& gpu = bench.gpu();
    std::string error;
    const size_t n = 3u << 20;
    uint64_t a = 0;
    ASSERT_EQ(gpu.mem_alloc(n, a, error), CB_OK);
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    std::vector<uint8_t> src = pattern(n, 5), dst(n);
    ASSERT_EQ(gpu.memcpy_h2d(a, src.data(), n, s, error), CB_OK) << error;
    std::fill(src.begin(), src.end(), uint8_t{0});  // the host buffer is free again
    ASSERT_EQ(gpu.memcpy_d2h(dst.data(), a, n, s, error), CB_OK) << error;
    EXPECT_TRUE(dst == pattern(n, 5));  // landed before the call returned
    EXPECT_EQ(gpu.stream_query(s, error), CB_OK);
}

// Small copies from pageable memory are staged (the bytes are taken at the call, as CUDA's are),
// so the caller may reuse its buffer at once; more of them than the staging space holds wait for
// room, and each lands in its place in the stream's order.
TEST_P(UserspaceStreams, SmallHostCopiesAreTakenAtTheCallAndLandInStreamOrder) {
    sim_bench bench(options());
    auto& gpu = bench.gpu();
    std::string error;
    const size_t sizes[] = {1, 63, 4096, 60000, 65536};
    const size_t slot = 65536, copies = 40;  // 2.5 MiB through a 256 KiB staging arena
    uint64_t a = 0;
    ASSERT_EQ(gpu.mem_alloc(slot * copies, a, error), CB_OK);
    nv::userspace_stream* s = nullptr;
    ASSERT_EQ(gpu.stream_create(s, error), CB_OK);
    ASSERT_EQ(gpu.memset8(a, 0xEE, slot * copies, s, error), CB_OK) << error;  // runs first
    std::vector<uint8_t> src(slot);
    for (size_t i = 0; i < copies; ++i) {
        const size_t n = sizes[i % std::size(sizes)];
        src = pattern(slot, static_cast<uint32_t>(i + 1));
        ASSERT_EQ(gpu.memcpy_h2d(a + i * slot, src.data(), n, s, error), CB_OK) << error;
        std::fill(src.begin(), src.end(), uint8_t{0});  // the host buffer is free again at once
    }
    ASSERT_EQ(gpu.stream_synchronize(s, error), CB_OK) << error;
    std::vector<uint8_t> got(slot * copies);
    ASSERT_EQ(gpu.memcpy_d2h(got.data(), a, got.size(), nullptr, error), CB_OK) << error;
    for (size_t i = 0; i < copies; ++i) {
        const size_t n = sizes[i % std::size(sizes)];
        const std::vector<uint8_t> want = pattern(slot, static_cast<uint32_t>(i + 1));
        const auto* at = got.data() + i * slot;
        EXPECT_TRUE(std::equal(want.begin(), want.begin() + static_cast<ptrdiff_t>(n), at)) << "copy " << i;
        EXPECT_TRUE(std::all_of(at + n, at + slot, [](uint8_t v) { return v == 0xEE; })) << "past copy " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Waiting, UserspaceStreams, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "Interrupts" : "Polling"; });

}  // namespace
}  // namespace cudabridge::test
