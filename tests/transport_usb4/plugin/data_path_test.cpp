// Config, MMIO, DMA both ways and interrupts across a simulated link, with its counters and
// the DART's limits.
#include "transport_fixture.hpp"

#include "link/link_model.hpp"

#include <cudabridge/core/error.hpp>

#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>

namespace cudabridge::test {
namespace {

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng());
    return v;
}

void count_irq(void* user, uint32_t) { static_cast<std::atomic<int>*>(user)->fetch_add(1); }

// Programs the loopback model's DMA engine and returns its STATUS register.
uint32_t run_dma(const cb_transport_table* t, void* h, cb_link* link, uint64_t iova, uint32_t size, uint32_t dev_offset,
                 uint32_t command) {
    EXPECT_EQ(t->mmio_write64(h, link, 0, 0x08, iova), CB_OK);
    EXPECT_EQ(t->mmio_write32(h, link, 0, 0x10, size), CB_OK);
    EXPECT_EQ(t->mmio_write32(h, link, 0, 0x14, dev_offset), CB_OK);
    EXPECT_EQ(t->mmio_write32(h, link, 0, 0x18, command), CB_OK);
    uint32_t status = 0;
    t->mmio_read32(h, link, 0, 0x1c, &status);
    return status;
}

TEST_F(usb4_test, ConfigAndMmioReachTheModel) {
    cb_link* link = authorize_and_open();
    ASSERT_NE(link, nullptr);
    uint16_t ids[2] = {};
    ASSERT_EQ(t()->config_read(h(), link, 0, ids, sizeof ids), CB_OK);
    EXPECT_EQ(ids[0], loopback_model::vendor);
    EXPECT_EQ(ids[1], loopback_model::device);
    cb_bar_info bar{};
    bar.struct_size = sizeof bar;
    ASSERT_EQ(t()->bar_info(h(), link, 1, &bar), CB_OK);
    EXPECT_EQ(bar.size, 8u << 20);
    EXPECT_EQ(bar.prefetchable, 1);
    uint32_t id = 0;
    ASSERT_EQ(t()->mmio_read32(h(), link, 0, 0, &id), CB_OK);
    EXPECT_EQ(id, loopback_model::id_value);
    // A block through the BAR1 aperture, both mappings, reads back the same.
    auto data = random_bytes(4096, 1);
    ASSERT_EQ(t()->mmio_write_block(h(), link, 1, 64, data.data(), data.size(), CB_MMIO_GATHERED), CB_OK);
    std::vector<uint8_t> back(4096);
    ASSERT_EQ(t()->mmio_read_block(h(), link, 1, 64, back.data(), back.size()), CB_OK);
    EXPECT_EQ(back, data);
    EXPECT_EQ(t()->close_link(h(), link), CB_OK);
    EXPECT_EQ(t()->mmio_read32(h(), link, 0, 0, &id), CB_ERR_INVALID_ARGUMENT);  // closed handle
}

TEST_F(usb4_test, GatheredBarWritesCostLessModeledTimeThanDeviceNgnrne) {
    cb_link* link = authorize_and_open();
    auto data = random_bytes(64 * 1024, 2);
    cb_link_status s0{}, s1{}, s2{};
    s0.struct_size = s1.struct_size = s2.struct_size = sizeof s0;
    t()->link_status(h(), link, &s0);
    ASSERT_EQ(t()->mmio_write_block(h(), link, 1, 0, data.data(), data.size(), CB_MMIO_DEVICE_NGNRNE), CB_OK);
    t()->link_status(h(), link, &s1);
    ASSERT_EQ(t()->mmio_write_block(h(), link, 1, 0, data.data(), data.size(), CB_MMIO_GATHERED), CB_OK);
    t()->link_status(h(), link, &s2);
    const uint64_t ngnrne = s1.modeled_time_ns - s0.modeled_time_ns;
    const uint64_t gathered = s2.modeled_time_ns - s1.modeled_time_ns;
    EXPECT_GT(ngnrne, 5 * gathered);  // one TLP per 8-byte store vs per Max Payload
}

TEST_F(usb4_test, DmaBothWaysIsBitExactAndCounted) {
    cb_link* link = authorize_and_open();
    std::atomic<int> irqs{0};
    ASSERT_EQ(t()->set_interrupt_handler(h(), link, &count_irq, &irqs), CB_OK);
    const size_t n = (1 << 20) + 3;  // not a multiple of the packet payload
    auto src = random_bytes(n, 3);
    uint64_t iova = 0;
    ASSERT_EQ(t()->dma_map(h(), link, src.data(), n, CB_DMA_TO_DEVICE, &iova), CB_OK);
    EXPECT_NE(iova, reinterpret_cast<uint64_t>(src.data()));  // the IOMMU picks the address
    ASSERT_EQ(run_dma(t(), h(), link, iova, static_cast<uint32_t>(n), 0, 1), 1u);
    EXPECT_TRUE(std::equal(src.begin(), src.end(), model->memory().begin()));

    std::vector<uint8_t> dst(n, 0);
    uint64_t out_iova = 0;
    ASSERT_EQ(t()->dma_map(h(), link, dst.data(), n, CB_DMA_FROM_DEVICE, &out_iova), CB_OK);
    ASSERT_EQ(run_dma(t(), h(), link, out_iova, static_cast<uint32_t>(n), 0, 2), 1u);
    EXPECT_EQ(dst, src);
    EXPECT_EQ(irqs.load(), 2);

    cb_link_status s{};
    s.struct_size = sizeof s;
    ASSERT_EQ(t()->link_status(h(), link, &s), CB_OK);
    EXPECT_EQ(s.up, 1);
    EXPECT_EQ(s.is_simulated, 1);
    EXPECT_EQ(s.bytes_to_device, n);
    EXPECT_EQ(s.bytes_from_device, n);
    EXPECT_EQ(s.packets, 2 * ((n + 255) / 256));
    EXPECT_EQ(s.crc_errors, 0u);
    // Modeled time: at least the bytes at the modeled bandwidth (TB4 ~2.8 GB/s).
    EXPECT_GT(s.modeled_time_ns, static_cast<uint64_t>(2 * n / 3.0));
    EXPECT_NEAR(s.h2d_bandwidth_gbs, 2.8, 0.1);

    // Direction is enforced: the device may not write a to-device mapping.
    EXPECT_NE(run_dma(t(), h(), link, iova, 4096, 0, 2), 1u);
    EXPECT_EQ(t()->dma_unmap(h(), link, iova, n), CB_OK);
    EXPECT_EQ(t()->dma_unmap(h(), link, iova, n), CB_ERR_INVALID_ARGUMENT);
    // An unmapped address faults instead of reaching memory.
    EXPECT_EQ(run_dma(t(), h(), link, iova, 4096, 0, 1), static_cast<uint32_t>(-CB_ERR_NOT_FOUND));
    EXPECT_EQ(t()->dma_unmap(h(), link, out_iova, n), CB_OK);
}

// ABI 1.3: the model reads the link's modeled clock around its DMA, as the simulated GPU prices a
// copy. It is what link_status reports, and a DMA moves it by the bytes at the link's modeled
// bandwidth plus one transfer latency (the default layout's Thunderbolt 4 link).
TEST_F(usb4_test, ModelSeesTheLinksModeledClockAdvanceByADmasModeledTime) {
    cb_link* link = authorize_and_open();
    ASSERT_TRUE(model->has_modeled_clock());
    cb_link_status s0{};
    s0.struct_size = sizeof s0;
    ASSERT_EQ(t()->link_status(h(), link, &s0), CB_OK);
    EXPECT_EQ(model->link_time_ns(), s0.modeled_time_ns);  // nothing crossed the link in between

    const usb4::link_figures tb4 = usb4::compute_link({usb4::generation::tb4, 256, 512, 0});
    ASSERT_DOUBLE_EQ(s0.h2d_bandwidth_gbs, tb4.h2d_gbs);
    const size_t n = 1u << 20;  // whole packets: the tunnel headers cancel out of the rate
    auto src = random_bytes(n, 9);
    uint64_t iova = 0;
    ASSERT_EQ(t()->dma_map(h(), link, src.data(), n, CB_DMA_TO_DEVICE, &iova), CB_OK);
    ASSERT_EQ(run_dma(t(), h(), link, iova, static_cast<uint32_t>(n), 0, 1), 1u);
    const double expected_h2d = static_cast<double>(tb4.latency_ns) + static_cast<double>(n) / tb4.h2d_gbs;
    EXPECT_NEAR(static_cast<double>(model->last_dma_modeled_ns()), expected_h2d, 2.0);

    std::vector<uint8_t> dst(n);
    uint64_t out_iova = 0;
    ASSERT_EQ(t()->dma_map(h(), link, dst.data(), n, CB_DMA_FROM_DEVICE, &out_iova), CB_OK);
    ASSERT_EQ(run_dma(t(), h(), link, out_iova, static_cast<uint32_t>(n), 0, 2), 1u);
    const double expected_d2h = static_cast<double>(tb4.latency_ns) + static_cast<double>(n) / tb4.d2h_gbs;
    EXPECT_NEAR(static_cast<double>(model->last_dma_modeled_ns()), expected_d2h, 2.0);

    // Config and MMIO cycles count too: the clock is monotonic and covers everything charged.
    cb_link_status s1{};
    s1.struct_size = sizeof s1;
    ASSERT_EQ(t()->link_status(h(), link, &s1), CB_OK);
    EXPECT_EQ(model->link_time_ns(), s1.modeled_time_ns);
    EXPECT_GT(s1.modeled_time_ns - s0.modeled_time_ns, static_cast<uint64_t>(expected_h2d + expected_d2h));
    EXPECT_EQ(t()->dma_unmap(h(), link, iova, n), CB_OK);
    EXPECT_EQ(t()->dma_unmap(h(), link, out_iova, n), CB_OK);
}

// A driver unmaps a buffer and frees it while the device is still writing into it (a copy the
// host gave up on). The unmap waits for the DMA in flight through the IOMMU to finish, as an
// IOTLB invalidation does, so freeing right after it is safe; later DMA to the address faults.
TEST_F(usb4_test, AnUnmapWaitsForTheDmaInFlightSoTheBufferCanBeFreedRightAfter) {
    cb_link* link = authorize_and_open();
    const size_t n = 8u << 20;  // the model's whole memory: each DMA takes a while
    std::atomic<uint64_t> target{0};
    std::atomic<uint64_t> started{0};
    std::atomic<bool> done{false};
    std::thread device([&] {
        while (!done.load()) {
            const uint64_t iova = target.load();
            if (iova == 0) {
                std::this_thread::yield();
                continue;
            }
            started.fetch_add(1);
            run_dma(t(), h(), link, iova, static_cast<uint32_t>(n), 0, 2);  // faults once unmapped
        }
    });
    for (int round = 0; round < 20; ++round) {
        void* buf = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ASSERT_NE(buf, MAP_FAILED);
        uint64_t iova = 0;
        ASSERT_EQ(t()->dma_map(h(), link, buf, n, CB_DMA_FROM_DEVICE, &iova), CB_OK);
        const uint64_t before = started.load();
        target.store(iova);
        while (started.load() == before) std::this_thread::yield();
        std::this_thread::sleep_for(std::chrono::microseconds(200 * (round % 4)));
        target.store(0);
        ASSERT_EQ(t()->dma_unmap(h(), link, iova, n), CB_OK);
        ASSERT_EQ(munmap(buf, n), 0);  // a write still in flight would now fault the process
    }
    done.store(true);
    device.join();
}

TEST_F(usb4_test, DartLimitsHitExactlyAtTheBoundaryThroughTheTable) {
    cb_link* link = authorize_and_open();
    cb_dma_limits lim{};
    lim.struct_size = sizeof lim;
    ASSERT_EQ(t()->dma_limits(h(), link, &lim), CB_OK);
    EXPECT_EQ(lim.max_mappings, 65536u);
    EXPECT_EQ(lim.max_mapped_bytes, 1536ull << 20);
    EXPECT_EQ(lim.page_size, 16384u);
    // The IOMMU never touches the memory it maps, so page-spaced addresses stand in for buffers.
    std::vector<uint64_t> iovas;
    for (uint64_t i = 0; i < 65536; ++i) {
        uint64_t iova = 0;
        ASSERT_EQ(t()->dma_map(h(), link, reinterpret_cast<void*>(0x100000000ull + i * 16384), 16384,
                               CB_DMA_BIDIRECTIONAL, &iova),
                  CB_OK)
            << i;
        iovas.push_back(iova);
    }
    uint64_t iova = 0;
    EXPECT_EQ(t()->dma_map(h(), link, reinterpret_cast<void*>(0x900000000ull), 16384, CB_DMA_BIDIRECTIONAL, &iova),
              CB_ERR_DMA_LIMIT);
    EXPECT_FALSE(core::last_error().empty());
    ASSERT_EQ(t()->dma_unmap(h(), link, iovas.back(), 16384), CB_OK);
    EXPECT_EQ(t()->dma_map(h(), link, reinterpret_cast<void*>(0x900000000ull), 16384, CB_DMA_BIDIRECTIONAL, &iova),
              CB_OK);
}

TEST_F(usb4_test, X86HostHasNoDartLimits) {
    set_layout("x86", "user");
    cb_link* link = authorize_and_open();
    uint64_t iova = 0;
    EXPECT_EQ(t()->dma_map(h(), link, reinterpret_cast<void*>(0x100000000ull), 4ull << 30, CB_DMA_TO_DEVICE, &iova),
              CB_OK);
}

}  // namespace
}  // namespace cudabridge::test
