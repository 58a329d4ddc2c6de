// VRAM allocation and copies: out of memory is a status, copies of every awkward size and
// offset round-trip bit-exactly, device-to-device copies and memset match a host reference, and
// staged copies keep at most two chunks mapped and release them all.
#include "sim_bench.hpp"
#include "test_pattern.hpp"

#include <algorithm>
#include <thread>
#include <vector>

namespace cudabridge::test {
namespace {

TEST(UserspaceMemory, AllocUntilOutOfMemoryThenFreeAndReuse) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    uint64_t free_bytes = 0, total = 0;
    ASSERT_EQ(gpu.mem_info(free_bytes, total, error), CB_OK) << error;
    const uint64_t block = total / 8;
    std::vector<uint64_t> ptrs;
    cb_status st = CB_OK;
    for (int i = 0; i < 64 && st == CB_OK; ++i) {
        uint64_t p = 0;
        st = gpu.mem_alloc(block, p, error);
        if (st == CB_OK) ptrs.push_back(p);
    }
    EXPECT_EQ(st, CB_ERR_OUT_OF_MEMORY);
    EXPECT_NE(error.find("out of device memory"), std::string::npos) << error;
    EXPECT_EQ(ptrs.size(), 8u);
    uint64_t too_big = 0;
    EXPECT_EQ(gpu.mem_alloc(total + 1, too_big, error), CB_ERR_OUT_OF_MEMORY);
    ASSERT_EQ(gpu.mem_info(free_bytes, total, error), CB_OK);
    EXPECT_EQ(free_bytes, 0u);

    ASSERT_EQ(gpu.mem_free(ptrs[3], error), CB_OK) << error;
    EXPECT_EQ(gpu.mem_free(ptrs[3], error), CB_ERR_INVALID_ARGUMENT);        // twice
    EXPECT_EQ(gpu.mem_free(ptrs[4] + 256, error), CB_ERR_INVALID_ARGUMENT);  // interior
    uint64_t again = 0;
    ASSERT_EQ(gpu.mem_alloc(block, again, error), CB_OK) << error;
    EXPECT_EQ(again, ptrs[3]);  // best fit takes the hole back
    // The reused memory works.
    const std::vector<uint8_t> data = pattern(4096, 1);
    std::vector<uint8_t> back(4096);
    ASSERT_EQ(gpu.memcpy_h2d(again, data.data(), data.size(), nullptr, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_d2h(back.data(), again, back.size(), nullptr, error), CB_OK) << error;
    EXPECT_EQ(back, data);
    EXPECT_EQ(gpu.mem_alloc(0, again, error), CB_ERR_INVALID_ARGUMENT);
}

TEST(UserspaceMemory, RoundTripsAwkwardSizesAndOffsetsBitExact) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    uint64_t dev = 0;
    ASSERT_EQ(gpu.mem_alloc(4u << 20, dev, error), CB_OK) << error;
    uint64_t seed = 10;
    for (size_t size : {size_t{1}, size_t{3}, size_t{255}, size_t{4097}, size_t{65537}, size_t{(1u << 20) + 13}}) {
        for (uint64_t dev_offset : {0ull, 1ull, 7ull, 4093ull}) {
            for (size_t host_offset : {size_t{0}, size_t{1}, size_t{3}}) {
                const std::vector<uint8_t> src = pattern(size + host_offset, ++seed);
                std::vector<uint8_t> dst(size + 5, 0xEE);
                ASSERT_EQ(gpu.memcpy_h2d(dev + dev_offset, src.data() + host_offset, size, nullptr, error), CB_OK)
                    << error;
                ASSERT_EQ(gpu.memcpy_d2h(dst.data() + 2, dev + dev_offset, size, nullptr, error), CB_OK) << error;
                ASSERT_TRUE(std::equal(src.begin() + static_cast<long>(host_offset), src.end(), dst.begin() + 2))
                    << "size " << size << " device offset " << dev_offset << " host offset " << host_offset;
                EXPECT_EQ(dst[0], 0xEE);  // nothing written around the range
                EXPECT_EQ(dst[1], 0xEE);
                EXPECT_EQ(dst[size + 2], 0xEE);
            }
        }
    }
}

TEST(UserspaceMemory, ZeroByteCopiesDoNothing) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    EXPECT_EQ(gpu.memcpy_h2d(0, nullptr, 0, nullptr, error), CB_OK);
    EXPECT_EQ(gpu.memcpy_d2h(nullptr, 0, 0, nullptr, error), CB_OK);
    EXPECT_EQ(gpu.memcpy_d2d(0, 0, 0, nullptr, error), CB_OK);
    EXPECT_EQ(gpu.memset8(0, 1, 0, nullptr, error), CB_OK);
}

TEST(UserspaceMemory, RangesOutsideAnAllocationAreRefused) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    uint64_t dev = 0;
    ASSERT_EQ(gpu.mem_alloc(1000, dev, error), CB_OK);
    std::vector<uint8_t> host(2000);
    EXPECT_EQ(gpu.memcpy_h2d(dev + 1, host.data(), 1000, nullptr, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("not inside one live allocation"), std::string::npos) << error;
    EXPECT_EQ(gpu.memcpy_d2h(host.data(), dev - 1, 10, nullptr, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.memcpy_d2d(dev, 12345, 10, nullptr, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.memset8(dev + 999, 0, 2, nullptr, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.memcpy_h2d(dev, nullptr, 10, nullptr, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gpu.memcpy_h2d(dev, host.data(), 1000, nullptr, error), CB_OK) << error;
}

TEST(UserspaceMemory, DeviceToDeviceAndMemsetMatchAHostReference) {
    sim_bench bench;
    auto& gpu = bench.gpu();
    std::string error;
    const size_t n = 300000;
    uint64_t a = 0, b = 0;
    ASSERT_EQ(gpu.mem_alloc(n, a, error), CB_OK);
    ASSERT_EQ(gpu.mem_alloc(n, b, error), CB_OK);
    std::vector<uint8_t> ref_a = pattern(n, 3), ref_b = pattern(n, 4);
    ASSERT_EQ(gpu.memcpy_h2d(a, ref_a.data(), n, nullptr, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_h2d(b, ref_b.data(), n, nullptr, error), CB_OK) << error;

    ASSERT_EQ(gpu.memcpy_d2d(b + 11, a + 5, 100001, nullptr, error), CB_OK) << error;
    std::copy_n(ref_a.begin() + 5, 100001, ref_b.begin() + 11);
    ASSERT_EQ(gpu.memset8(b + 200003, 0xA7, 777, nullptr, error), CB_OK) << error;
    std::fill_n(ref_b.begin() + 200003, 777, uint8_t{0xA7});
    ASSERT_EQ(gpu.memset8(a, 0, n, nullptr, error), CB_OK) << error;
    std::fill(ref_a.begin(), ref_a.end(), uint8_t{0});

    std::vector<uint8_t> got(n);
    ASSERT_EQ(gpu.memcpy_d2h(got.data(), b, n, nullptr, error), CB_OK) << error;
    EXPECT_TRUE(got == ref_b);
    ASSERT_EQ(gpu.memcpy_d2h(got.data(), a, n, nullptr, error), CB_OK) << error;
    EXPECT_TRUE(got == ref_a);
}

TEST(UserspaceMemory, StagedCopiesKeepTwoChunksMappedAtMostAndReleaseAll) {
    bench_options o;
    o.driver.staging_chunk_bytes = 64 << 10;
    sim_bench bench(o);
    auto& gpu = bench.gpu();
    std::string error;
    const uint64_t baseline = bench.counters().mappings;  // ring and fence word
    const size_t n = (5u << 20) + 123;
    uint64_t dev = 0;
    ASSERT_EQ(gpu.mem_alloc(n + 64, dev, error), CB_OK);
    const std::vector<uint8_t> src = pattern(n + 1, 9);
    std::vector<uint8_t> dst(n + 3);
    ASSERT_EQ(gpu.memcpy_h2d(dev + 17, src.data() + 1, n, nullptr, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_d2h(dst.data() + 3, dev + 17, n, nullptr, error), CB_OK) << error;
    EXPECT_TRUE(std::equal(src.begin() + 1, src.end(), dst.begin() + 3));
    const usb4::link_counters c = bench.counters();
    EXPECT_LE(c.peak_mappings, baseline + 2);
    EXPECT_GE(c.peak_mappings, baseline + 2);  // double-buffered: the next chunk mapped while one runs
    EXPECT_EQ(c.mappings, baseline);
    EXPECT_EQ(c.map_failures, 0u);
}

TEST(UserspaceMemory, ConcurrentCopiesFromManyThreads) {
    bench_options o;
    o.driver.staging_chunk_bytes = 256 << 10;
    sim_bench bench(o);
    auto& gpu = bench.gpu();
    constexpr int threads = 4;
    std::vector<std::thread> workers;
    std::vector<int> failures(threads, 0);
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            std::string error;
            const size_t n = (1u << 20) + 1000 * static_cast<size_t>(t);
            uint64_t dev = 0;
            if (gpu.mem_alloc(n, dev, error) != CB_OK) {
                failures[t] = 1;
                return;
            }
            for (int round = 0; round < 5; ++round) {
                const std::vector<uint8_t> src = pattern(n, static_cast<uint64_t>(100 * t + round));
                std::vector<uint8_t> dst(n);
                if (gpu.memcpy_h2d(dev, src.data(), n, nullptr, error) != CB_OK ||
                    gpu.memcpy_d2h(dst.data(), dev, n, nullptr, error) != CB_OK || dst != src)
                    failures[t] += 1;
            }
            gpu.mem_free(dev, error);
        });
    }
    for (auto& w : workers) w.join();
    for (int t = 0; t < threads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

TEST(UserspaceMemory, X86HostMapsWithoutDartLimits) {
    bench_options o;
    o.host = usb4::host_kind::x86;
    sim_bench bench(o);
    std::string error;
    const size_t n = 3u << 20;
    uint64_t dev = 0;
    ASSERT_EQ(bench.gpu().mem_alloc(n, dev, error), CB_OK);
    const std::vector<uint8_t> src = pattern(n, 77);
    std::vector<uint8_t> dst(n);
    ASSERT_EQ(bench.gpu().memcpy_h2d(dev, src.data(), n, nullptr, error), CB_OK) << error;
    ASSERT_EQ(bench.gpu().memcpy_d2h(dst.data(), dev, n, nullptr, error), CB_OK) << error;
    EXPECT_TRUE(dst == src);
}

}  // namespace
}  // namespace cudabridge::test
