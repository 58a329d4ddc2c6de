// The command ring: copies and memset bit-exact, fences by DMA and in fence_done, interrupts,
// GET/PUT and wrap-around, command errors, host DMA failures, and detach with work queued.
#include "gpu_harness.hpp"

#include <random>

namespace cudabridge::test {
namespace {

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng());
    return v;
}

TEST(DeviceModelRing, CopiesAndMemsetRoundTripBitExact) {
    gpu_harness g;
    g.bring_up();
    const uint64_t a = hw::vram_base + 0x100000, b = hw::vram_base + 0x900000;
    const size_t n = 3 * 1024 * 1024 + 17;  // not a multiple of anything
    const auto data = random_bytes(n, 1);
    g.h2d(a, data.data(), n);
    EXPECT_EQ(g.fence_word(), g.fence_done());

    // D2D, then back to the host.
    ASSERT_TRUE(g.wait(g.submit(gpu_harness::make(hw::opcode::copy_d2d, a, b, n))));
    std::vector<uint8_t> back(n);
    g.d2h(back.data(), b, n);
    EXPECT_EQ(back, data);

    // memset8 of a middle stretch (only the low byte of b counts).
    ASSERT_TRUE(g.wait(g.submit(gpu_harness::make(hw::opcode::memset8, b + 1000, 0x1A5, 5000))));
    g.d2h(back.data(), b, n);
    auto expect = data;
    std::fill(expect.begin() + 1000, expect.begin() + 6000, uint8_t{0xA5});
    EXPECT_EQ(back, expect);

    // Overlapping D2D behaves as memmove.
    ASSERT_TRUE(g.wait(g.submit(gpu_harness::make(hw::opcode::copy_d2d, b, b + 3, 4096))));
    g.d2h(back.data(), b, 8192);
    std::memmove(expect.data() + 3, expect.data(), 4096);
    EXPECT_TRUE(std::equal(back.begin(), back.begin() + 8192, expect.begin()));

    EXPECT_EQ(g.fence_word(), g.fence_done());
    EXPECT_EQ(g.rd(hw::reg::status) & hw::status_error, 0u);
    EXPECT_EQ(g.rd(hw::reg::ring_get), g.rd(hw::reg::ring_put));
}

TEST(DeviceModelRing, LargeCopiesGoInPiecesOfAtMost4MiB) {
    gpu_harness g;
    g.bring_up();
    const size_t n = 9u << 20;
    const auto data = random_bytes(n, 2);
    const uint64_t calls_before = g.link.dma_calls();
    g.h2d(hw::vram_base, data.data(), n);
    EXPECT_GE(g.link.dma_calls() - calls_before, 3u);
    EXPECT_LE(g.link.largest_dma(), 4u << 20);
    std::vector<uint8_t> back(n);
    g.d2h(back.data(), hw::vram_base, n);
    EXPECT_EQ(back, data);
}

TEST(DeviceModelRing, FencesInterruptsAndWrapAround) {
    gpu_harness g;
    g.bring_up();
    // More commands than the ring holds, in batches, so GET and PUT wrap.
    uint64_t last = 0;
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 200; ++i) last = g.queue(gpu_harness::make(hw::opcode::nop));
        g.doorbell();
        ASSERT_TRUE(g.wait(last));
    }
    EXPECT_EQ(g.fence_done(), 600u);
    EXPECT_EQ(g.fence_word(), 600u);
    EXPECT_EQ(g.rd(hw::reg::ring_get), 600u % ring_entries);

    // flag_interrupt raises MSI 0 and sets intr_fence; without it, no MSI.
    const uint64_t irq_before = g.link.interrupts();
    ASSERT_TRUE(g.wait(g.submit(gpu_harness::make(hw::opcode::nop))));
    ASSERT_TRUE(g.wait_idle());
    EXPECT_EQ(g.link.interrupts(), irq_before + 1);
    EXPECT_TRUE(g.rd(hw::reg::intr_status) & hw::intr_fence);
    g.wr(hw::reg::intr_status, hw::intr_fence);  // write 1 to clear
    EXPECT_EQ(g.rd(hw::reg::intr_status) & hw::intr_fence, 0u);
    ASSERT_TRUE(g.wait(g.submit(gpu_harness::make(hw::opcode::nop), hw::flag_fence)));
    ASSERT_TRUE(g.wait_idle());
    EXPECT_EQ(g.link.interrupts(), irq_before + 1);
    // Interrupts masked: status bit set, no MSI.
    g.wr(hw::reg::intr_enable, 0);
    ASSERT_TRUE(g.wait(g.submit(gpu_harness::make(hw::opcode::nop))));
    ASSERT_TRUE(g.wait_idle());
    EXPECT_EQ(g.link.interrupts(), irq_before + 1);
    EXPECT_TRUE(g.rd(hw::reg::intr_status) & hw::intr_fence);
}

TEST(DeviceModelRing, TimestampWritesThePtimer) {
    gpu_harness g;
    g.bring_up();
    const uint32_t lo = g.rd(hw::ptimer_time_0);
    const uint64_t before = (uint64_t{g.rd(hw::ptimer_time_1)} << 32) | lo;
    ASSERT_TRUE(g.wait(g.submit(gpu_harness::make(hw::opcode::timestamp, timestamp_iova))));
    const uint32_t lo2 = g.rd(hw::ptimer_time_0);
    const uint64_t after = (uint64_t{g.rd(hw::ptimer_time_1)} << 32) | lo2;
    uint64_t stamp = 0;
    std::memcpy(&stamp, g.link.at(timestamp_iova), sizeof stamp);
    EXPECT_GE(stamp, before);
    EXPECT_LE(stamp, after);
}

TEST(DeviceModelRing, EnablingChecksTheRing) {
    gpu_harness g;
    g.attach();
    g.wr64(hw::reg::ring_base_lo, ring_iova);
    g.wr(hw::reg::ring_entries, 100);  // not a power of two
    g.wr(hw::reg::ring_control, 1);
    EXPECT_EQ(g.rd(hw::reg::ring_control), 0u);
    g.wr(hw::reg::ring_entries, 1);  // too small
    g.wr(hw::reg::ring_control, 1);
    EXPECT_EQ(g.rd(hw::reg::ring_control), 0u);
    g.wr(hw::reg::ring_entries, 64);
    g.wr64(hw::reg::ring_base_lo, 0);  // no base
    g.wr(hw::reg::ring_control, 1);
    EXPECT_EQ(g.rd(hw::reg::ring_control), 0u);
    // A LO write alone does not commit.
    g.wr(hw::reg::ring_base_lo, ring_iova);
    EXPECT_EQ(g.rd(hw::reg::ring_base_lo), 0u);
    g.wr(hw::reg::ring_base_hi, 0);
    EXPECT_EQ(g.rd(hw::reg::ring_base_lo), ring_iova);
    g.wr(hw::reg::ring_control, 1);
    EXPECT_EQ(g.rd(hw::reg::ring_control), 1u);
    EXPECT_TRUE(g.rd(hw::reg::status) & hw::status_ring_on);
    // Base and size are fixed while the ring runs.
    g.wr(hw::reg::ring_entries, 128);
    EXPECT_EQ(g.rd(hw::reg::ring_entries), 64u);
    // A doorbell past the ring is a ring error.
    g.wr(hw::reg::ring_put, 64);
    EXPECT_TRUE(g.rd(hw::reg::status) & hw::status_error);
    EXPECT_EQ(g.error_code(), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g.rd(hw::reg::ring_put), 0u);
}

TEST(DeviceModelRing, BadCommandsSetTheErrorRegistersAndTheRingGoesOn) {
    gpu_harness g;
    g.bring_up();
    const uint64_t vram_end = hw::vram_base + profile("rtx-4060-ti").vram_bytes;
    struct bad {
        hw::command cmd;
        cb_status status;
    };
    std::vector<uint8_t> junk(200, 0x77);
    std::memcpy(g.link.at(block_iova), junk.data(), junk.size());
    const bad cases[] = {
        {gpu_harness::make(hw::opcode::copy_h2d, data_iova, vram_end - 100, 200), CB_ERR_INVALID_ARGUMENT},
        {gpu_harness::make(hw::opcode::copy_d2h, hw::vram_base - 8, data_iova, 16), CB_ERR_INVALID_ARGUMENT},
        {gpu_harness::make(hw::opcode::copy_d2d, hw::vram_base, UINT64_MAX - 4, 16), CB_ERR_INVALID_ARGUMENT},
        {gpu_harness::make(hw::opcode::memset8, vram_end, 0, 1), CB_ERR_INVALID_ARGUMENT},
        {gpu_harness::make(hw::opcode::launch, block_iova, 0, junk.size()), CB_ERR_INVALID_ARGUMENT},
        {gpu_harness::make(hw::opcode::launch, block_iova, 0, 1u << 30), CB_ERR_INVALID_ARGUMENT},
        {gpu_harness::make(static_cast<hw::opcode>(99)), CB_ERR_UNSUPPORTED},
    };
    uint64_t irq = g.link.interrupts();
    uint32_t xids = g.rd(hw::reg::xid_count);
    for (const bad& b : cases) {
        SCOPED_TRACE(static_cast<uint32_t>(b.cmd.op));
        const uint64_t fence = g.submit(b.cmd, hw::flag_fence);  // no flag_interrupt: only intr_error
        ASSERT_TRUE(g.wait(fence));                              // completed anyway
        ASSERT_TRUE(g.wait_idle());
        EXPECT_EQ(g.fence_word(), fence);
        EXPECT_TRUE(g.rd(hw::reg::status) & hw::status_error);
        EXPECT_EQ(g.error_code(), b.status);
        EXPECT_EQ(g.error_fence(), fence);
        EXPECT_TRUE(g.rd(hw::reg::intr_status) & hw::intr_error);
        EXPECT_EQ(g.link.interrupts(), ++irq);
        EXPECT_EQ(g.rd(hw::reg::xid_count), ++xids);
        // Acknowledge: status_error clears with intr_error; the next command runs normally.
        g.wr(hw::reg::intr_status, hw::intr_error);
        EXPECT_EQ(g.rd(hw::reg::status) & hw::status_error, 0u);
        ASSERT_TRUE(g.wait(g.submit(gpu_harness::make(hw::opcode::memset8, hw::vram_base, 1, 64), hw::flag_fence)));
        EXPECT_EQ(g.rd(hw::reg::status) & hw::status_error, 0u);
    }
    EXPECT_EQ(g.rd(hw::reg::last_xid), 13u);  // the unknown opcode: graphics engine exception
}

TEST(DeviceModelRing, HostDmaFailureFailsTheCommandWithItsStatus) {
    gpu_harness g;
    g.bring_up();
    const std::vector<uint8_t> data(64 * 1024, 0x3C);
    g.h2d(hw::vram_base, data.data(), data.size());
    for (cb_status st : {CB_ERR_DMA_LIMIT, CB_ERR_DEVICE_LOST}) {
        SCOPED_TRACE(st);
        g.link.poison(data_iova, data_iova + (32u << 20), st);
        uint64_t fence = g.submit(gpu_harness::make(hw::opcode::copy_h2d, data_iova, hw::vram_base, data.size()));
        ASSERT_TRUE(g.wait(fence));
        EXPECT_EQ(g.error_code(), st);
        EXPECT_EQ(g.error_fence(), fence);
        fence = g.submit(gpu_harness::make(hw::opcode::copy_d2h, hw::vram_base, data_iova + (16u << 20), 4096));
        ASSERT_TRUE(g.wait(fence));
        EXPECT_EQ(g.error_fence(), fence);
        EXPECT_EQ(g.error_code(), st);
        g.link.heal();
        g.wr(hw::reg::intr_status, hw::intr_error | hw::intr_fence);
    }
    // An IOVA the host never mapped: the host's translation fault.
    const uint64_t fence = g.submit(gpu_harness::make(hw::opcode::copy_h2d, 1ull << 40, hw::vram_base, 16));
    ASSERT_TRUE(g.wait(fence));
    EXPECT_EQ(g.error_code(), CB_ERR_DMA_LIMIT);
    // VRAM unharmed by the failed copies.
    std::vector<uint8_t> back(data.size());
    g.d2h(back.data(), hw::vram_base, back.size());
    EXPECT_EQ(back, data);
}

TEST(DeviceModelRing, UnreachableRingTurnsTheRingOff) {
    gpu_harness g;
    g.bring_up();
    g.link.poison(ring_iova, ring_iova + 4096, CB_ERR_DMA_LIMIT);
    g.submit(gpu_harness::make(hw::opcode::nop));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!(g.rd(hw::reg::status) & hw::status_error) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    EXPECT_EQ(g.error_code(), CB_ERR_DMA_LIMIT);
    EXPECT_EQ(g.error_fence(), 0u);
    EXPECT_EQ(g.rd(hw::reg::ring_control), 0u);
    EXPECT_TRUE(g.rd(hw::reg::intr_status) & hw::intr_error);
}

TEST(DeviceModelRing, DetachWithCommandsQueuedReturnsPromptlyAndStopsDma) {
    gpu_harness g("rtx-5090");
    g.bring_up();
    // Far more work than runs before detach: 200 memsets of 256 MiB (50 GiB of writes).
    for (int i = 0; i < 200; ++i) g.queue(gpu_harness::make(hw::opcode::memset8, hw::vram_base, i, 256u << 20));
    g.queue(gpu_harness::make(hw::opcode::copy_h2d, data_iova, hw::vram_base, 8u << 20));
    g.doorbell();
    g.detach();  // returns (a hang would trip the test's timeout)
    const uint64_t calls = g.link.dma_calls();
    const uint64_t irqs = g.link.interrupts();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(g.link.dma_calls(), calls);
    EXPECT_EQ(g.link.interrupts(), irqs);
    EXPECT_LT(g.fence_done(), 201u);
    // Registers still answer after detach; a soft reset drops what was left on the ring.
    g.wr(hw::reg::reset, hw::reset_soft);
    EXPECT_EQ(g.rd(hw::reg::ring_get), 0u);
}

TEST(DeviceModelRing, DestroyingAnAttachedModelWithWorkQueuedReturns) {
    auto g = std::make_unique<gpu_harness>("rtx-5090");
    g->bring_up();
    for (int i = 0; i < 100; ++i) g->queue(gpu_harness::make(hw::opcode::memset8, hw::vram_base, i, 256u << 20));
    g->doorbell();
    g->model.reset();  // the destructor stops and joins the processor
    SUCCEED();
}

}  // namespace
}  // namespace cudabridge::test
