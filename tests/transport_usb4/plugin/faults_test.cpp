// Fault injection through the control entry: bit errors are caught and replayed, a surprise
// unplug never yields partial data reported as good, the link works again after re-plug, a
// stuck device reads as all ones, DART exhaustion refuses maps.
#include "transport_fixture.hpp"

#include <cudabridge/core/error.hpp>

#include <algorithm>
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

uint32_t run_dma(const cb_transport_table* t, void* h, cb_link* link, uint64_t iova, uint32_t size, uint32_t command) {
    t->mmio_write64(h, link, 0, 0x08, iova);
    t->mmio_write32(h, link, 0, 0x10, size);
    t->mmio_write32(h, link, 0, 0x14, 0);
    t->mmio_write32(h, link, 0, 0x18, command);
    uint32_t status = 0;
    t->mmio_read32(h, link, 0, 0x1c, &status);
    return status;
}

cb_link_status status_of(const cb_transport_table* t, void* h, cb_link* link) {
    cb_link_status s{};
    s.struct_size = sizeof s;
    t->link_status(h, link, &s);
    return s;
}

TEST_F(usb4_test, BitErrorsAreDetectedAndReplayedNeverDeliveredAsGood) {
    cb_link* link = authorize_and_open();
    control(R"({"op":"fault","bit_error_rate":2e-6})");
    const size_t n = 4 << 20;
    auto src = random_bytes(n, 7);
    uint64_t iova = 0;
    ASSERT_EQ(t()->dma_map(h(), link, src.data(), n, CB_DMA_TO_DEVICE, &iova), CB_OK);
    ASSERT_EQ(run_dma(t(), h(), link, iova, n, 1), 1u);
    EXPECT_TRUE(std::equal(src.begin(), src.end(), model->memory().begin()));
    auto s = status_of(t(), h(), link);
    EXPECT_GT(s.crc_errors, 0u);  // ~2e-6 x 8 x 4 MiB ≈ 67 errors expected
    EXPECT_GE(s.replays, s.crc_errors);
    EXPECT_EQ(s.uncorrectable_errors, 0u);
    EXPECT_EQ(s.bytes_to_device, n);
}

TEST_F(usb4_test, UnplugMidTransferFailsAndReplugWorksAgain) {
    cb_link* link = authorize_and_open();
    const size_t n = 1 << 20;
    auto src = random_bytes(n, 9);
    uint64_t iova = 0;
    ASSERT_EQ(t()->dma_map(h(), link, src.data(), n, CB_DMA_TO_DEVICE, &iova), CB_OK);
    const std::string enc = enclosure_id();
    control(R"({"op":"fault","unplug_after_bytes":100000})");
    // The device is gone mid-transfer: its STATUS register reads as all ones, like every register
    // of a removed function, never "done"; nothing after the cut reached the device.
    const uint32_t st = run_dma(t(), h(), link, iova, n, 1);
    EXPECT_EQ(st, 0xFFFFFFFFu);
    auto s = status_of(t(), h(), link);
    EXPECT_EQ(s.up, 0);
    EXPECT_LE(s.bytes_to_device, 100000u);
    EXPECT_TRUE(
        std::all_of(model->memory().begin() + 100000, model->memory().begin() + n, [](uint8_t b) { return b == 0; }));
    uint32_t id = 0;
    EXPECT_EQ(t()->mmio_read32(h(), link, 0, 0, &id), CB_ERR_DEVICE_LOST);
    EXPECT_EQ(id, 0xFFFFFFFFu);

    // The surprise removal reached the fabric: the enclosure is gone for every process.
    EXPECT_EQ(enclosure_id(), "");
    // Plug it back: the link comes back; the IOMMU forgot the old mapping.
    control(R"({"op":"plug","id":")" + enc + R"("})");
    ASSERT_EQ(t()->authorize(h(), enc.c_str(), CB_AUTH_AUTHORIZED, nullptr, 0), CB_OK);
    EXPECT_EQ(status_of(t(), h(), link).up, 1);
    EXPECT_EQ(run_dma(t(), h(), link, iova, n, 1), static_cast<uint32_t>(-CB_ERR_NOT_FOUND));
    ASSERT_EQ(t()->dma_map(h(), link, src.data(), n, CB_DMA_TO_DEVICE, &iova), CB_OK);
    ASSERT_EQ(run_dma(t(), h(), link, iova, n, 1), 1u);
    EXPECT_TRUE(std::equal(src.begin(), src.end(), model->memory().begin()));
}

TEST_F(usb4_test, AnUnplugAfterPostedBeforeTheLinkOpensCutsItOnce) {
    // It only hit links already open: posted (as `sim fault` posts it, for every process)
    // before a program connected, it never fired.
    const std::string enc = enclosure_id();
    control(R"({"op":"fault","unplug_after_bytes":100000,"shared":true})");
    cb_link* link = authorize_and_open();
    const size_t n = 1 << 20;
    auto src = random_bytes(n, 11);
    uint64_t iova = 0;
    ASSERT_EQ(t()->dma_map(h(), link, src.data(), n, CB_DMA_TO_DEVICE, &iova), CB_OK);
    EXPECT_EQ(run_dma(t(), h(), link, iova, n, 1), 0xFFFFFFFFu);
    EXPECT_EQ(status_of(t(), h(), link).up, 0);
    EXPECT_EQ(enclosure_id(), "");  // the surprise removal reached the fabric
    // Once it has happened, a link opened after re-plugging is not cut again.
    control(R"({"op":"plug","id":")" + enc + R"("})");
    ASSERT_EQ(t()->close_link(h(), link), CB_OK);
    ASSERT_EQ(t()->authorize(h(), enc.c_str(), CB_AUTH_AUTHORIZED, nullptr, 0), CB_OK);
    cb_link* again = nullptr;
    ASSERT_EQ(t()->open_link(h(), function_id().c_str(), &again), CB_OK) << core::last_error();
    ASSERT_EQ(t()->dma_map(h(), again, src.data(), n, CB_DMA_TO_DEVICE, &iova), CB_OK);
    EXPECT_EQ(run_dma(t(), h(), again, iova, n, 1), 1u);
    EXPECT_TRUE(std::equal(src.begin(), src.end(), model->memory().begin()));
}

TEST_F(usb4_test, LinkDropFailsTransfersForItsWindow) {
    cb_link* link = authorize_and_open();
    std::vector<uint8_t> src(4096, 0x5a);
    uint64_t iova = 0;
    ASSERT_EQ(t()->dma_map(h(), link, src.data(), src.size(), CB_DMA_TO_DEVICE, &iova), CB_OK);
    control(R"({"op":"fault","link_drop_ms":1})");
    EXPECT_EQ(status_of(t(), h(), link).up, 0);
    // Each refused transfer costs one latency on the modeled clock, so the window passes.
    uint32_t st = 0;
    int refused = 0;
    for (int i = 0; i < 2000 && (st = run_dma(t(), h(), link, iova, 4096, 1)) != 1u; ++i) {
        EXPECT_EQ(st, static_cast<uint32_t>(-CB_ERR_LINK_DOWN));
        ++refused;
    }
    EXPECT_GT(refused, 0);
    EXPECT_EQ(st, 1u);
}

TEST_F(usb4_test, StuckDeviceReadsAllOnesUntilReset) {
    cb_link* link = authorize_and_open();
    control(R"({"op":"fault","stuck":true})");
    uint32_t id = 0;
    ASSERT_EQ(t()->mmio_read32(h(), link, 0, 0, &id), CB_OK);
    EXPECT_EQ(id, 0xFFFFFFFFu);
    ASSERT_EQ(t()->reset_link(h(), link, CB_RESET_FUNCTION), CB_ERR_UNSUPPORTED);  // the model has no reset
    ASSERT_EQ(t()->mmio_read32(h(), link, 0, 0, &id), CB_OK);
    EXPECT_EQ(id, loopback_model::id_value);
}

TEST_F(usb4_test, DartExhaustionRefusesMaps) {
    cb_link* link = authorize_and_open();
    control(R"({"op":"fault","dart_exhausted":true})");
    std::vector<uint8_t> buf(4096);
    uint64_t iova = 0;
    EXPECT_EQ(t()->dma_map(h(), link, buf.data(), buf.size(), CB_DMA_TO_DEVICE, &iova), CB_ERR_DMA_LIMIT);
    control(R"({"op":"fault","dart_exhausted":false})");
    EXPECT_EQ(t()->dma_map(h(), link, buf.data(), buf.size(), CB_DMA_TO_DEVICE, &iova), CB_OK);
    auto links = control(R"({"op":"links"})");
    EXPECT_NE(links.find("\"modeled\":true"), std::string::npos) << links;
    EXPECT_NE(links.find("\"map_failures\":1"), std::string::npos) << links;
    EXPECT_NE(links.find("\"mappings\":1"), std::string::npos) << links;
}

// Another process (here: another instance on the same store) posts a fault: the open link takes
// it at its next status check, once; a link opened later starts with its lasting part.
TEST_F(usb4_test, APostedFaultReachesTheLinksOfAnotherInstance) {
    cb_link* link = authorize_and_open();
    auto other = make();
    char reply[4096];
    size_t needed = 0;
    ASSERT_EQ(other->transport()->control(other->handle(), R"({"op":"fault","stuck":true,"shared":true})", reply,
                                          sizeof reply, &needed),
              CB_OK);
    EXPECT_NE(std::string(reply).find("\"posted\":1"), std::string::npos) << reply;
    std::this_thread::sleep_for(std::chrono::milliseconds(120));  // past the sync period
    status_of(t(), h(), link);
    uint32_t id = 0;
    ASSERT_EQ(t()->mmio_read32(h(), link, 0, 0, &id), CB_OK);
    EXPECT_EQ(id, 0xFFFFFFFFu);
    // Cleared the same way; a reset alone would not bring it back while the post stands.
    ASSERT_EQ(other->transport()->control(other->handle(), R"({"op":"fault","stuck":false,"shared":true})", reply,
                                          sizeof reply, &needed),
              CB_OK);
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    status_of(t(), h(), link);
    ASSERT_EQ(t()->mmio_read32(h(), link, 0, 0, &id), CB_OK);
    EXPECT_EQ(id, loopback_model::id_value);
}

TEST_F(usb4_test, ALinkOpenedAfterAPostStartsWithItsLastingConditions) {
    control(R"({"op":"fault","stuck":true,"link_drop_ms":5,"shared":true})");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the drop is over before the link opens
    cb_link* link = authorize_and_open();
    uint32_t id = 0;
    ASSERT_EQ(t()->mmio_read32(h(), link, 0, 0, &id), CB_OK);
    EXPECT_EQ(id, 0xFFFFFFFFu);                  // stuck holds for new links
    EXPECT_EQ(status_of(t(), h(), link).up, 1);  // a drop that ended before it opened does not reach it
}

// A link drop is one event in time for every process (the cable is the same): a link opened
// while it lasts (another program's `status`, a reconnect) is down for what is left of it, and up
// afterwards, though it carried no traffic to move its modeled clock.
TEST_F(usb4_test, ALinkOpenedDuringAPostedDropIsDownForWhatIsLeftOfIt) {
    control(R"({"op":"fault","link_drop_ms":1500,"shared":true})");
    cb_link* link = authorize_and_open();
    EXPECT_EQ(status_of(t(), h(), link).up, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(1600));
    EXPECT_EQ(status_of(t(), h(), link).up, 1);
}

TEST_F(usb4_test, AnUnplugByAnotherInstanceTakesTheLinkDown) {
    cb_link* link = authorize_and_open();
    EXPECT_EQ(status_of(t(), h(), link).up, 1);
    auto other = make();
    const std::string request = R"({"op":"unplug","id":")" + enclosure_id() + R"("})";
    char reply[4096];
    size_t needed = 0;
    ASSERT_EQ(other->transport()->control(other->handle(), request.c_str(), reply, sizeof reply, &needed), CB_OK);
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    EXPECT_EQ(status_of(t(), h(), link).up, 0);
}

}  // namespace
}  // namespace cudabridge::test
