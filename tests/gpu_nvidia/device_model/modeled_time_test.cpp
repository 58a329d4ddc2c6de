// PTIMER and timestamps through the device model: modeled time, not the simulator's host time.
// The fake link offers a modeled clock (latency + bytes at a rate per DMA call); timestamps
// queued with their work under one doorbell differ by exactly the modeled duration of that work
// (the engines stay busy, so no idle wall time enters).
#include "gpu_harness.hpp"

#include "sim/device_model/dma_port.hpp"
#include "sim/device_model/work_cost.hpp"
#include "common/launch/builtin_call.hpp"

#include <cudabridge/cpp/builtin_args.hpp>

#include <cmath>
#include <cstddef>

namespace cudabridge::test {
namespace {

constexpr uint64_t stamp_a = timestamp_iova;
constexpr uint64_t stamp_b = timestamp_iova + 8;
constexpr double link_bytes_per_ns = 2.8;  // a Thunderbolt 4-like link
constexpr uint64_t link_latency_ns = 2000;

uint64_t stamp(gpu_harness& g, uint64_t iova) {
    uint64_t v = 0;
    std::memcpy(&v, g.link.at(iova), sizeof v);
    return v;
}

uint64_t ptimer(gpu_harness& g) {
    const uint32_t lo = g.rd(hw::ptimer_time_0);
    return (uint64_t{g.rd(hw::ptimer_time_1)} << 32) | lo;
}

// timestamp, `work`, timestamp under one doorbell; the two stamps' difference.
uint64_t stamped(gpu_harness& g, const hw::command& work) {
    g.queue(gpu_harness::make(hw::opcode::timestamp, stamp_a));
    g.queue(work);
    const uint64_t last = g.queue(gpu_harness::make(hw::opcode::timestamp, stamp_b));
    g.doorbell();
    EXPECT_TRUE(g.wait(last));
    EXPECT_EQ(g.error_code(), CB_OK);
    return stamp(g, stamp_b) - stamp(g, stamp_a);
}

// What the fake link charges for a DMA of `bytes` in the device's pieces.
uint64_t link_cost(const gpu_harness& g, uint64_t bytes) {
    uint64_t ns = 0;
    for (uint64_t done = 0; done < bytes; done += nv::dma_piece_bytes)
        ns += g.link.dma_cost_ns(std::min<uint64_t>(nv::dma_piece_bytes, bytes - done));
    return ns;
}

class DeviceModelModeledTime : public ::testing::Test {
protected:
    DeviceModelModeledTime() : g("rtx-5090") {}
    void SetUp() override {
        g.link.model_time(link_bytes_per_ns, link_latency_ns);
        g.bring_up();
    }
    gpu_harness g;
};

TEST_F(DeviceModelModeledTime, CopiesAcrossTheLinkTakeTheLinksModeledTime) {
    const uint64_t h2d = 8u << 20, d2h = 3u << 20;
    EXPECT_EQ(stamped(g, gpu_harness::make(hw::opcode::copy_h2d, data_iova, hw::vram_base, h2d)), link_cost(g, h2d));
    EXPECT_EQ(link_cost(g, h2d),
              2 * link_latency_ns + static_cast<uint64_t>(std::ceil(h2d / 2 / link_bytes_per_ns)) * 2);
    EXPECT_EQ(stamped(g, gpu_harness::make(hw::opcode::copy_d2h, hw::vram_base, data_iova, d2h)), link_cost(g, d2h));
}

TEST_F(DeviceModelModeledTime, DeviceWorkTakesItsRooflineEstimate) {
    const nv::gpu_profile& p = profile("rtx-5090");
    const double bytes_per_ns = p.memory_bandwidth_gbps;
    const uint64_t n = 64u << 20;
    EXPECT_EQ(stamped(g, gpu_harness::make(hw::opcode::memset8, hw::vram_base, 0x5A, n)),
              static_cast<uint64_t>(std::ceil(n / bytes_per_ns)));
    EXPECT_EQ(stamped(g, gpu_harness::make(hw::opcode::copy_d2d, hw::vram_base, hw::vram_base + n, n)),
              static_cast<uint64_t>(std::ceil(2.0 * n / bytes_per_ns)));

    // A matmul large enough to be compute bound: 2·m·n·k flops at cores × boost clock × 2.
    const int64_t m = 512, k = 512, cols = 512;
    const auto a = sdk::contiguous_tensor(hw::vram_base, CB_DTYPE_FLOAT32, {m, k});
    const auto b = sdk::contiguous_tensor(hw::vram_base + 0x100000, CB_DTYPE_FLOAT32, {k, cols});
    const auto out = sdk::contiguous_tensor(hw::vram_base + 0x200000, CB_DTYPE_FLOAT32, {m, cols});
    const std::vector<cb_kernel_arg> args = {sdk::tensor_arg(a), sdk::tensor_arg(b), sdk::tensor_arg(out)};
    const cb_kernel_launch l = sdk::builtin_launch("matmul", CB_DTYPE_FLOAT32, args);
    nv::builtin_call call;
    std::string error;
    ASSERT_EQ(nv::parse_builtin(l, call, error), CB_OK) << error;
    const std::vector<uint8_t> block = nv::encode(call);
    std::memcpy(g.link.at(block_iova), block.data(), block.size());
    const double peak_flops_per_ns = static_cast<double>(p.cuda_cores) * p.boost_clock_mhz * 2 / 1000;
    const double flops_ns = 2.0 * m * k * cols / peak_flops_per_ns;
    const double bytes_ns = 4.0 * (m * k + k * cols + m * cols) / bytes_per_ns;
    ASSERT_GT(flops_ns, bytes_ns);
    EXPECT_EQ(stamped(g, gpu_harness::make(hw::opcode::launch, block_iova, 0, block.size())),
              static_cast<uint64_t>(std::ceil(flops_ns + 3000.0)));  // and the kernel launch latency
}

TEST_F(DeviceModelModeledTime, TimestampsAndNopsTakeNoTime) {
    EXPECT_EQ(stamped(g, gpu_harness::make(hw::opcode::nop)), 0u);
    EXPECT_EQ(stamped(g, gpu_harness::make(hw::opcode::timestamp, stamp_a + 16)), 0u);
}

TEST_F(DeviceModelModeledTime, IdleTimeFollowsTheWallClockAndPtimerNeverGoesBack) {
    ASSERT_TRUE(g.wait(g.submit(gpu_harness::make(hw::opcode::timestamp, stamp_a))));
    const uint64_t first = stamp(g, stamp_a);
    const uint64_t before_sleep = ptimer(g);
    EXPECT_GE(before_sleep, first);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const uint64_t after_sleep = ptimer(g);
    EXPECT_GE(after_sleep - before_sleep, 20'000'000u);  // at least the sleep: idle follows wall time
    ASSERT_TRUE(g.wait(g.submit(gpu_harness::make(hw::opcode::timestamp, stamp_b))));
    EXPECT_GE(stamp(g, stamp_b), after_sleep);
    EXPECT_GE(ptimer(g), stamp(g, stamp_b));
}

// A host older than ABI 1.3 offers no modeled clock: its table ends before modeled_time_ns,
// whatever lies beyond is never called, and a copy falls back to wall time (still monotonic).
TEST(DeviceModelModeledTimeFallback, AnOlderHostsTableIsReadOnlyToItsSize) {
    gpu_harness g;
    static std::atomic<int> called{0};
    cb_endpoint_host_ops old = g.link.ops();
    old.struct_size = offsetof(cb_endpoint_host_ops, modeled_time_ns);
    old.modeled_time_ns = [](void*) -> uint64_t {
        called.fetch_add(1);
        return 0;
    };
    ASSERT_EQ(g.table->attach(g.model.get(), &old), CB_OK);
    g.wr64(hw::reg::ring_base_lo, ring_iova);
    g.wr(hw::reg::ring_entries, ring_entries);
    g.wr64(hw::reg::fence_addr_lo, fence_iova);
    g.wr(hw::reg::ring_control, 1);
    g.queue(gpu_harness::make(hw::opcode::timestamp, stamp_a));
    g.queue(gpu_harness::make(hw::opcode::copy_h2d, data_iova, hw::vram_base, 4u << 20));
    const uint64_t last = g.queue(gpu_harness::make(hw::opcode::timestamp, stamp_b));
    g.doorbell();
    ASSERT_TRUE(g.wait(last));
    EXPECT_GE(stamp(g, stamp_b), stamp(g, stamp_a));
    EXPECT_EQ(called.load(), 0);
}

}  // namespace
}  // namespace cudabridge::test
