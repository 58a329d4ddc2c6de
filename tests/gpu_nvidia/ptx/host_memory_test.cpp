// The PTX engine reaching host memory at its own address (zero-copy, managed memory): kernels
// load, store and atomically add in host ranges that device_memory::host_ranges offers, those
// bytes are counted as host traffic, not VRAM traffic, and every other address still faults.
#include "sim/ptx/program.hpp"

#include "common/kernels/engine.hpp"

#include <cudabridge/cpp/builtin_args.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <sstream>

namespace cudabridge::nv::ptx {
namespace {

std::string corpus(const std::string& name) {
    std::ifstream f(std::string(CB_PTX_CORPUS_DIR) + "/" + name + ".ptx");
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// Host ranges a kernel may reach, each at its own address, as a registration offers them.
class identity_ranges final : public host_memory {
public:
    void add(const void* p, size_t bytes) { ranges_.push_back({reinterpret_cast<uint64_t>(p), bytes}); }
    uint8_t* reach_span(uint64_t address, uint32_t bytes, span& around) override {
        ++calls;
        for (const auto& [start, size] : ranges_)
            if (address >= start && address - start <= size && bytes <= size - (address - start)) {
                around = {start, start + size, reinterpret_cast<uint8_t*>(start)};
                return reinterpret_cast<uint8_t*>(address);
            }
        return nullptr;
    }
    std::atomic<uint64_t> calls{0};

private:
    std::vector<std::pair<uint64_t, size_t>> ranges_;
};

class ptx_host_memory : public ::testing::Test {
protected:
    launch_outcome run(const std::string& name, const std::string& kernel, uint32_t grid, uint32_t block,
                       const std::vector<cb_kernel_arg>& args) {
        std::string error;
        auto p = program::load(corpus(name), error);
        EXPECT_TRUE(p) << error;
        if (!p) return {};
        launch_request r;
        r.kernel = static_cast<size_t>(p->find(kernel));
        r.grid[0] = grid;
        r.block[0] = block;
        EXPECT_EQ(p->pack_arguments(r.kernel, args.data(), args.size(), r.params, error), CB_OK) << error;
        const device_memory memory{vram.data(), vram_base, vram.size(), nullptr, &ranges};
        return p->launch(r, memory, on_engine, {});
    }
    static cb_kernel_arg ptr(const void* p) { return sdk::device_ptr_arg(reinterpret_cast<uint64_t>(p)); }

    static constexpr uint64_t vram_base = 1ull << 40;
    std::vector<uint8_t> vram = std::vector<uint8_t>(1u << 20);
    identity_ranges ranges;
    kernels::engine engine{2};
    const block_runner on_engine = [this](uint64_t n, const std::function<void(uint64_t, uint64_t)>& fn) {
        engine.parallel_for(static_cast<int64_t>(n), 1, [&](int64_t b, int64_t e) { fn(uint64_t(b), uint64_t(e)); });
    };
};

TEST_F(ptx_host_memory, SaxpyReadsAndWritesRegisteredHostMemoryAtItsOwnAddress) {
    const int n = 10007;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) x[i] = float(i % 31) - 7.0f, y[i] = float(i % 5) * 0.5f;
    const std::vector<float> y0 = y;
    ranges.add(x.data(), x.size() * sizeof(float));
    ranges.add(y.data(), y.size() * sizeof(float));
    auto out = run("saxpy", "saxpy", (n + 127) / 128, 128,
                   {sdk::int64_arg(n), sdk::float64_arg(2.0), ptr(x.data()), ptr(y.data())});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    for (int i = 0; i < n; ++i) ASSERT_EQ(y[i], std::fma(x[i], 2.0f, y0[i])) << i;
    EXPECT_EQ(out.host_bytes, uint64_t(n) * 12) << "every access crossed to host memory";
    EXPECT_EQ(out.bytes_moved, 0u) << "none of them is VRAM traffic";
    // A block asks again only when it leaves the span it reached last (x, then y, then x...).
    EXPECT_LT(ranges.calls.load(), uint64_t(n) * 3);
}

TEST_F(ptx_host_memory, AtomicAddsFromEveryBlockIntoHostMemoryAllLand) {
    const int n = 1 << 16;
    std::vector<unsigned char> data(n);
    for (int i = 0; i < n; ++i) data[i] = static_cast<unsigned char>(i * 7);
    std::vector<unsigned> bins(256, 0);
    ranges.add(data.data(), data.size());
    ranges.add(bins.data(), bins.size() * sizeof(unsigned));
    auto out = run("histogram", "histogram256", 16, 256, {ptr(data.data()), sdk::int64_arg(n), ptr(bins.data())});
    ASSERT_EQ(out.status, CB_OK) << out.message;
    std::vector<unsigned> want(256, 0);
    for (unsigned char c : data) ++want[c];
    EXPECT_EQ(bins, want);
}

TEST_F(ptx_host_memory, HostMemoryOutsideEveryRangeStillFaults) {
    std::vector<float> x(256, 1.0f), y(256, 2.0f), elsewhere(256, 3.0f);
    ranges.add(x.data(), x.size() * sizeof(float));
    ranges.add(y.data(), 128 * sizeof(float));  // only half of y
    auto out =
        run("saxpy", "saxpy", 2, 128, {sdk::int64_arg(256), sdk::float64_arg(1.0), ptr(x.data()), ptr(y.data())});
    EXPECT_EQ(out.status, CB_ERR_ILLEGAL_ADDRESS) << out.message;
    out = run("saxpy", "saxpy", 2, 128,
              {sdk::int64_arg(256), sdk::float64_arg(1.0), ptr(x.data()), ptr(elsewhere.data())});
    EXPECT_EQ(out.status, CB_ERR_ILLEGAL_ADDRESS) << out.message;
    EXPECT_EQ(elsewhere[0], 3.0f) << "an unreachable host range is never touched";
}

}  // namespace
}  // namespace cudabridge::nv::ptx
