// A 4 GiB host-to-device copy through the Apple-Silicon DART (1.5 GiB mapped at once), checked
// bit-exactly. The source is 4 GiB of address space made of one memfd mapped over and over; its
// length is a prime number of pages, so the pattern never lines up with a chunk boundary and a
// chunk copied to the wrong place is detected. Verification reads VRAM back in chunks.
#include "sim_bench.hpp"
#include "test_pattern.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace cudabridge::test {
namespace {

constexpr uint64_t total_bytes = 4ull << 30;
constexpr uint64_t period_pages = 4099;  // prime

class repeated_source {
public:
    repeated_source() {
        page_ = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
        period_ = period_pages * page_;
        pattern_ = pattern(period_, 2024);
        fd_ = memfd_create("userspace-4gib-source", 0);
        if (fd_ < 0 || ftruncate(fd_, static_cast<off_t>(period_)) != 0) return;
        if (pwrite(fd_, pattern_.data(), period_, 0) != static_cast<ssize_t>(period_)) return;
        void* base = mmap(nullptr, total_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (base == MAP_FAILED) return;
        base_ = static_cast<uint8_t*>(base);
        for (uint64_t off = 0; off < total_bytes; off += period_) {
            const uint64_t len = std::min(period_, total_bytes - off);
            if (mmap(base_ + off, len, PROT_READ, MAP_SHARED | MAP_FIXED, fd_, 0) == MAP_FAILED) {
                munmap(base_, total_bytes);
                base_ = nullptr;
                return;
            }
        }
    }
    ~repeated_source() {
        if (base_) munmap(base_, total_bytes);
        if (fd_ >= 0) close(fd_);
    }

    const uint8_t* data() const { return base_; }
    // Does `got` hold the source's bytes [offset, offset + size)?
    bool matches(uint64_t offset, const uint8_t* got, size_t size) const {
        while (size > 0) {
            const uint64_t at = offset % period_;
            const size_t n = static_cast<size_t>(std::min<uint64_t>(size, period_ - at));
            if (std::memcmp(got, pattern_.data() + at, n) != 0) return false;
            got += n;
            offset += n;
            size -= n;
        }
        return true;
    }

private:
    uint64_t page_ = 4096, period_ = 0;
    std::vector<uint8_t> pattern_;
    int fd_ = -1;
    uint8_t* base_ = nullptr;
};

TEST(UserspaceBigCopy, FourGiBHostToDeviceThroughTheDart) {
    repeated_source source;
    ASSERT_NE(source.data(), nullptr) << "cannot build the 4 GiB source";
    bench_options o;
    o.driver.timeout_ms = 120000;
    sim_bench bench(o);
    auto& gpu = bench.gpu();
    std::string error;
    cb_dma_limits limits{};
    limits.struct_size = sizeof limits;
    ASSERT_EQ(bench.link().dma_limits(limits), CB_OK);
    ASSERT_LT(limits.max_mapped_bytes, total_bytes);  // the copy cannot be mapped at once
    const uint64_t baseline = bench.counters().mappings;

    uint64_t dev = 0;
    ASSERT_EQ(gpu.mem_alloc(total_bytes, dev, error), CB_OK) << error;
    ASSERT_EQ(gpu.memcpy_h2d(dev, source.data(), total_bytes, nullptr, error), CB_OK) << error;

    const usb4::link_counters after = bench.counters();
    EXPECT_LE(after.peak_mapped_bytes, limits.max_mapped_bytes);
    EXPECT_LE(after.peak_mappings, baseline + 2);
    EXPECT_EQ(after.mappings, baseline);
    EXPECT_EQ(after.map_failures, 0u);

    constexpr size_t chunk = 64u << 20;
    std::vector<uint8_t> back(chunk);
    for (uint64_t off = 0; off < total_bytes; off += chunk) {
        ASSERT_EQ(gpu.memcpy_d2h(back.data(), dev + off, chunk, nullptr, error), CB_OK) << error;
        ASSERT_TRUE(source.matches(off, back.data(), chunk)) << "VRAM differs in the chunk at " << off;
    }
    EXPECT_EQ(bench.counters().mappings, baseline);
}

}  // namespace
}  // namespace cudabridge::test
