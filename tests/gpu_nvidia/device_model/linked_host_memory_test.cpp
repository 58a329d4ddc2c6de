// Host memory a PTX launch reaches over the link (linked_host_memory): a page crosses once, at
// first touch, and only the bytes the launch changed go back; what the host changed elsewhere in
// the page meanwhile survives; the link's modeled time is what crossed; nothing outside the
// launch's windows is reached.
#include "sim/device_model/linked_host_memory.hpp"

#include "fake_link.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace cudabridge::nv {
namespace {

constexpr uint64_t address = 0x7f1234560000ull;  // where the host sees the window
constexpr uint64_t iova = 0x2000, bytes = 3 * 4096;

class linked_host_memory_test : public ::testing::Test {
protected:
    void SetUp() override {
        link.model_time(4.0, 500);
        for (uint64_t i = 0; i < bytes; ++i) link.at(iova)[i] = static_cast<uint8_t>(i * 13);
    }
    test::fake_link link{1 << 20};
};

TEST_F(linked_host_memory_test, APageCrossesOnceAndOnlyChangedBytesGoBack) {
    const dma_port port(link.ops());
    linked_host_memory memory(port, {{address, bytes, iova}});
    uint8_t* p = memory.reach(address + 4096 + 8, 4);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p[0], static_cast<uint8_t>((4096 + 8) * 13));
    EXPECT_EQ(link.dma_calls(), 1u);
    uint8_t* q = memory.reach(address + 4096 + 200, 4);
    ASSERT_EQ(q, p + 192) << "the same copy of the page";
    EXPECT_EQ(link.dma_calls(), 1u) << "fetched once";
    EXPECT_EQ(memory.link_ns(), link.dma_cost_ns(4096));

    const uint32_t stored = 0xDEADBEEF;
    std::memcpy(p, &stored, 4);        // a kernel's store
    std::memcpy(q, &stored, 4);        // another, 192 bytes on
    link.at(iova)[4096 + 100] = 0x5A;  // the host, meanwhile, between them
    ASSERT_EQ(memory.write_back(), CB_OK);
    EXPECT_EQ(std::memcmp(link.at(iova + 4096 + 8), &stored, 4), 0);
    EXPECT_EQ(std::memcmp(link.at(iova + 4096 + 200), &stored, 4), 0);
    EXPECT_EQ(link.at(iova)[4096 + 100], 0x5A) << "a byte no store came near is not written back";
    EXPECT_EQ(link.dma_calls(), 3u) << "two runs, more than a sector apart";
    EXPECT_EQ(memory.link_ns(), link.dma_cost_ns(4096) + 2 * link.dma_cost_ns(4));
}

// Two registered ranges may share a host page (two heap buffers side by side). Each window's part
// of the page is its own: a store through the second window lands on the host although the
// first window fetched the page first.
TEST_F(linked_host_memory_test, TwoWindowsSharingAPageEachWriteBackTheirOwnStores) {
    const uint64_t split = 4096 + 1000;  // the second page: [4096, split) is A's, the rest B's
    const dma_port port(link.ops());
    linked_host_memory memory(port, {{address, split, iova}, {address + split, bytes - split, iova + split}});
    uint8_t* b = memory.reach(address + split + 16, 4);  // B touches the shared page first
    ASSERT_NE(b, nullptr);
    uint8_t* a = memory.reach(address + 4096 + 8, 4);  // then A
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a[0], static_cast<uint8_t>((4096 + 8) * 13)) << "A reads the host's bytes";
    const uint32_t stored_a = 0xA1A2A3A4, stored_b = 0xB1B2B3B4;
    std::memcpy(a, &stored_a, 4);
    std::memcpy(b, &stored_b, 4);
    ASSERT_EQ(memory.write_back(), CB_OK);
    EXPECT_EQ(std::memcmp(link.at(iova + 4096 + 8), &stored_a, 4), 0) << "A's store reached the host";
    EXPECT_EQ(std::memcmp(link.at(iova + split + 16), &stored_b, 4), 0) << "B's store reached the host";
}

TEST_F(linked_host_memory_test, NothingOutsideTheWindowsIsReached) {
    const dma_port port(link.ops());
    linked_host_memory memory(port, {{address, bytes, iova}});
    EXPECT_EQ(memory.reach(address - 4, 4), nullptr);
    EXPECT_EQ(memory.reach(address + bytes - 2, 4), nullptr) << "past the window's end";
    EXPECT_EQ(memory.reach(address + 4094, 4), nullptr) << "across a page: misaligned";
    EXPECT_EQ(memory.reach(address + bytes, 1), nullptr);
    EXPECT_EQ(link.dma_calls(), 0u);
    EXPECT_EQ(memory.write_back(), CB_OK);
    EXPECT_EQ(link.dma_calls(), 0u) << "nothing fetched, nothing written";
}

TEST_F(linked_host_memory_test, AWindowUnmappedUnderTheKernelFaultsItsAccess) {
    link.poison(iova, iova + 4096, CB_ERR_LINK_DOWN);
    const dma_port port(link.ops());
    linked_host_memory memory(port, {{address, bytes, iova}});
    EXPECT_EQ(memory.reach(address + 16, 4), nullptr);
    EXPECT_NE(memory.reach(address + 4096, 4), nullptr);
}

}  // namespace
}  // namespace cudabridge::nv
