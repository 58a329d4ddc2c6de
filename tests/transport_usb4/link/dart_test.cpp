// The IOMMU model: the DART's limits hit exactly at the boundary, IOVAs chosen by the IOMMU,
// unmap, translation faults, statistics, exhaustion injection, the x86 profile.
// Host addresses are fake (never dereferenced by map or translate) unless a test says otherwise.
#include "link/dart.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <utility>
#include <vector>

namespace cudabridge::usb4 {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;
constexpr uint64_t kDartPage = 16 * 1024;

void* fake(uint64_t address) { return reinterpret_cast<void*>(static_cast<uintptr_t>(address)); }

// A fake host region far from anything real; page aligned for both profiles.
constexpr uint64_t kHost = 0x7000'0000'0000ull;

TEST(Usb4Dart, AppleProfileLimits) {
    const auto p = apple_dart();
    EXPECT_EQ(p.page_size, kDartPage);
    EXPECT_EQ(p.max_mapped_bytes, 1536 * kMiB);
    EXPECT_EQ(p.max_mappings, 65536u);
    EXPECT_NE(p.iova_base, 0u);
    iommu mmu(p);
    const cb_dma_limits l = mmu.limits();
    EXPECT_EQ(l.struct_size, sizeof(cb_dma_limits));
    EXPECT_EQ(l.max_mapped_bytes, 1536 * kMiB);
    EXPECT_EQ(l.max_mappings, 65536u);
    EXPECT_EQ(l.page_size, kDartPage);
    EXPECT_EQ(l.mapped_bytes, 0u);
    EXPECT_EQ(l.mappings, 0u);
}

TEST(Usb4Dart, MappingCountLimitIsExact) {
    iommu mmu(apple_dart());
    uint64_t iova = 0;
    for (uint64_t i = 0; i < 65536; ++i) {
        ASSERT_EQ(mmu.map(fake(kHost + i * kDartPage), kDartPage, CB_DMA_TO_DEVICE, iova), CB_OK) << "mapping " << i;
    }
    std::string why;
    EXPECT_EQ(mmu.map(fake(kHost + 65536 * kDartPage), kDartPage, CB_DMA_TO_DEVICE, iova, &why), CB_ERR_DMA_LIMIT);
    EXPECT_NE(why.find("65536"), std::string::npos) << why;
    auto s = mmu.stats();
    EXPECT_EQ(s.mappings, 65536u);
    EXPECT_EQ(s.peak_mappings, 65536u);
    EXPECT_EQ(s.mapped_bytes, 65536 * kDartPage);  // 1 GiB: the count, not the bytes, bound
    EXPECT_EQ(s.map_failures, 1u);
    EXPECT_EQ(mmu.limits().mappings, 65536u);

    // Freeing one makes room for exactly one.
    const uint64_t first = apple_dart().iova_base;
    ASSERT_EQ(mmu.unmap(first, kDartPage), CB_OK);
    EXPECT_EQ(mmu.map(fake(kHost), kDartPage, CB_DMA_TO_DEVICE, iova), CB_OK);
    EXPECT_EQ(iova, first);  // the freed space is reused
    EXPECT_EQ(mmu.map(fake(kHost), kDartPage, CB_DMA_TO_DEVICE, iova), CB_ERR_DMA_LIMIT);
    EXPECT_EQ(mmu.stats().map_failures, 2u);
}

TEST(Usb4Dart, MappedBytesLimitIsExact) {
    iommu mmu(apple_dart());
    uint64_t iova = 0;
    // 1.5 GiB exactly: two aligned 512 MiB mappings, then 512 MiB - 1 at page offset 1 (whole
    // pages: exactly 512 MiB).
    ASSERT_EQ(mmu.map(fake(kHost), 512 * kMiB, CB_DMA_BIDIRECTIONAL, iova), CB_OK);
    ASSERT_EQ(mmu.map(fake(kHost + kGiB), 512 * kMiB, CB_DMA_BIDIRECTIONAL, iova), CB_OK);
    // At offset 1 a full 512 MiB needs one page more than is left: refused.
    EXPECT_EQ(mmu.map(fake(kHost + 2 * kGiB + 1), 512 * kMiB, CB_DMA_TO_DEVICE, iova), CB_ERR_DMA_LIMIT);
    ASSERT_EQ(mmu.map(fake(kHost + 2 * kGiB + 1), 512 * kMiB - 1, CB_DMA_TO_DEVICE, iova), CB_OK);
    EXPECT_EQ(iova % kDartPage, 1u);
    EXPECT_EQ(mmu.stats().mapped_bytes, 1536 * kMiB);
    EXPECT_EQ(mmu.limits().mapped_bytes, 1536 * kMiB);

    // One more page — even one byte, which takes a page — is refused.
    std::string why;
    EXPECT_EQ(mmu.map(fake(kHost + 3 * kGiB), kDartPage, CB_DMA_TO_DEVICE, iova, &why), CB_ERR_DMA_LIMIT);
    EXPECT_NE(why.find("limit"), std::string::npos) << why;
    EXPECT_EQ(mmu.map(fake(kHost + 3 * kGiB), 1, CB_DMA_TO_DEVICE, iova), CB_ERR_DMA_LIMIT);
    const auto s = mmu.stats();
    EXPECT_EQ(s.map_failures, 3u);
    EXPECT_EQ(s.mappings, 3u);
    EXPECT_EQ(s.peak_mapped_bytes, 1536 * kMiB);
}

TEST(Usb4Dart, PartialPagesCountWhole) {
    iommu mmu(apple_dart());
    uint64_t iova = 0;
    ASSERT_EQ(mmu.map(fake(kHost + 100), 1, CB_DMA_TO_DEVICE, iova), CB_OK);
    EXPECT_EQ(mmu.stats().mapped_bytes, kDartPage);
    // Straddling a page boundary takes two pages.
    ASSERT_EQ(mmu.map(fake(kHost + kDartPage - 8), 16, CB_DMA_TO_DEVICE, iova), CB_OK);
    EXPECT_EQ(mmu.stats().mapped_bytes, 3 * kDartPage);
}

TEST(Usb4Dart, IovasAreChosenAlignedUniqueAndDisjoint) {
    iommu mmu(apple_dart());
    struct range {
        uint64_t iova, size;
    };
    std::vector<range> got;
    uint64_t host = kHost;
    for (uint64_t i = 0; i < 2000; ++i) {
        const uint64_t offset = (i * 977) % kDartPage;
        const uint64_t size = 1 + (i * 7919) % (5 * kDartPage);
        uint64_t iova = 0;
        ASSERT_EQ(mmu.map(fake(host + offset), size, CB_DMA_BIDIRECTIONAL, iova), CB_OK);
        EXPECT_EQ(iova % kDartPage, offset) << i;  // page aligned plus the host's offset
        EXPECT_GE(iova, apple_dart().iova_base);
        EXPECT_LE(iova + size, apple_dart().iova_end);
        got.push_back({iova, size});
        host += 8 * kDartPage;
        // Free every third so later maps land in holes.
        if (i % 3 == 2) {
            ASSERT_EQ(mmu.unmap(got[got.size() - 2].iova, got[got.size() - 2].size), CB_OK);
            got.erase(got.end() - 2);
        }
    }
    // Whole-page footprints of live mappings never overlap.
    std::vector<std::pair<uint64_t, uint64_t>> pages;
    for (const auto& r : got) {
        const uint64_t b = r.iova & ~(kDartPage - 1);
        const uint64_t e = (r.iova + r.size + kDartPage - 1) & ~(kDartPage - 1);
        pages.emplace_back(b, e);
    }
    std::sort(pages.begin(), pages.end());
    for (size_t i = 1; i < pages.size(); ++i) EXPECT_LE(pages[i - 1].second, pages[i].first) << "overlap at " << i;
    EXPECT_EQ(mmu.stats().mappings, got.size());
}

TEST(Usb4Dart, UnmapFreesCountBytesAndSpace) {
    iommu mmu(apple_dart());
    uint64_t a = 0, b = 0, c = 0;
    ASSERT_EQ(mmu.map(fake(kHost + 5), 3 * kDartPage, CB_DMA_TO_DEVICE, a), CB_OK);
    ASSERT_EQ(mmu.map(fake(kHost + kGiB), kDartPage, CB_DMA_FROM_DEVICE, b), CB_OK);
    EXPECT_EQ(mmu.stats().mapped_bytes, 5 * kDartPage);
    ASSERT_EQ(mmu.unmap(a, 3 * kDartPage), CB_OK);
    auto s = mmu.stats();
    EXPECT_EQ(s.mappings, 1u);
    EXPECT_EQ(s.mapped_bytes, kDartPage);
    EXPECT_EQ(s.peak_mappings, 2u);
    EXPECT_EQ(s.peak_mapped_bytes, 5 * kDartPage);
    EXPECT_EQ(s.maps, 2u);
    EXPECT_EQ(s.unmaps, 1u);
    // The freed IOVA range is handed out again.
    ASSERT_EQ(mmu.map(fake(kHost + 2 * kGiB + 5), 3 * kDartPage, CB_DMA_TO_DEVICE, c), CB_OK);
    EXPECT_EQ(c, a);
}

TEST(Usb4Dart, BadUnmapRefused) {
    iommu mmu(apple_dart());
    uint64_t iova = 0;
    ASSERT_EQ(mmu.map(fake(kHost + 64), 4096, CB_DMA_TO_DEVICE, iova), CB_OK);
    std::string why;
    EXPECT_EQ(mmu.unmap(iova, 4095, &why), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(why.find("no mapping"), std::string::npos);
    EXPECT_EQ(mmu.unmap(iova, 4097), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(mmu.unmap(iova + 1, 4095), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(mmu.unmap(iova - 64, 4096), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(mmu.unmap(0, 4096), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(mmu.unmap(iova + kGiB, 4096), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(mmu.stats().mappings, 1u);
    ASSERT_EQ(mmu.unmap(iova, 4096), CB_OK);
    EXPECT_EQ(mmu.unmap(iova, 4096), CB_ERR_INVALID_ARGUMENT);  // twice
    EXPECT_EQ(mmu.stats().map_failures, 0u);                    // bad unmaps are not map failures
}

TEST(Usb4Dart, InvalidMapArguments) {
    iommu mmu(apple_dart());
    uint64_t iova = 123;
    EXPECT_EQ(mmu.map(nullptr, 10, CB_DMA_TO_DEVICE, iova), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(mmu.map(fake(kHost), 0, CB_DMA_TO_DEVICE, iova), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(mmu.map(fake(kHost), 10, 0, iova), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(mmu.map(fake(kHost), 10, 4, iova), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(mmu.map(fake(UINTPTR_MAX - 4), 10, CB_DMA_TO_DEVICE, iova), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(iova, 123u);
    EXPECT_EQ(mmu.stats().map_failures, 0u);
    EXPECT_EQ(mmu.stats().mappings, 0u);
}

TEST(Usb4Dart, TranslateReturnsTheHostBytes) {
    // Real memory here, to show the spans land on it.
    std::vector<std::byte> buf(100000);
    iommu mmu(apple_dart());
    uint64_t iova = 0;
    ASSERT_EQ(mmu.map(buf.data(), buf.size(), CB_DMA_BIDIRECTIONAL, iova), CB_OK);
    std::vector<host_span> spans;
    ASSERT_EQ(mmu.translate(iova + 1000, 5000, false, spans), CB_OK);
    ASSERT_EQ(spans.size(), 1u);
    EXPECT_EQ(spans[0].data, buf.data() + 1000);
    EXPECT_EQ(spans[0].size, 5000u);
    ASSERT_EQ(mmu.translate(iova, buf.size(), true, spans), CB_OK);
    ASSERT_EQ(spans.size(), 1u);
    EXPECT_EQ(spans[0].data, buf.data());
    EXPECT_EQ(spans[0].size, buf.size());
    EXPECT_EQ(mmu.translate(iova, 0, false, spans), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(mmu.stats().translation_faults, 0u);
}

TEST(Usb4Dart, TranslateFaults) {
    iommu mmu(apple_dart());
    uint64_t to_dev = 0, from_dev = 0;
    ASSERT_EQ(mmu.map(fake(kHost + 10), 1000, CB_DMA_TO_DEVICE, to_dev), CB_OK);
    ASSERT_EQ(mmu.map(fake(kHost + kGiB), 1000, CB_DMA_FROM_DEVICE, from_dev), CB_OK);
    std::vector<host_span> spans;
    std::string why;

    // Direction.
    EXPECT_EQ(mmu.translate(to_dev, 8, true, spans, &why), CB_ERR_PERMISSION);
    EXPECT_TRUE(spans.empty());
    EXPECT_NE(why.find("write"), std::string::npos) << why;
    EXPECT_EQ(mmu.translate(from_dev, 8, false, spans), CB_ERR_PERMISSION);
    EXPECT_EQ(mmu.translate(to_dev, 8, false, spans), CB_OK);
    EXPECT_EQ(mmu.translate(from_dev, 8, true, spans), CB_OK);

    // Unmapped: nothing at the base's low addresses, below a mapping's first byte, in the slack
    // of its last page, or past the aperture.
    EXPECT_EQ(mmu.translate(0, 4, false, spans), CB_ERR_NOT_FOUND);
    EXPECT_EQ(mmu.translate(to_dev - 1, 1, false, spans), CB_ERR_NOT_FOUND);
    EXPECT_EQ(mmu.translate(to_dev + 1000, 1, false, spans), CB_ERR_NOT_FOUND);
    EXPECT_EQ(mmu.translate(UINT64_MAX - 2, 8, false, spans), CB_ERR_NOT_FOUND);

    // Crossing the end of a mapping into unmapped space.
    EXPECT_EQ(mmu.translate(to_dev + 500, 501, false, spans, &why), CB_ERR_NOT_FOUND);
    EXPECT_TRUE(spans.empty());
    EXPECT_NE(why.find("not mapped"), std::string::npos) << why;
    EXPECT_EQ(mmu.translate(to_dev + 500, 500, false, spans), CB_OK);

    const auto s = mmu.stats();
    EXPECT_EQ(s.permission_faults, 2u);
    EXPECT_EQ(s.unmapped_faults, 5u);
    EXPECT_EQ(s.translation_faults, 7u);
}

TEST(Usb4Dart, TranslateCrossesAdjacentMappingsAndForgetsUnmapped) {
    iommu mmu(apple_dart());
    uint64_t a = 0, b = 0;
    ASSERT_EQ(mmu.map(fake(kHost), kDartPage, CB_DMA_TO_DEVICE, a), CB_OK);
    ASSERT_EQ(mmu.map(fake(kHost + kGiB), kDartPage, CB_DMA_TO_DEVICE, b), CB_OK);
    ASSERT_EQ(b, a + kDartPage);  // sequential first fit: byte-adjacent in IOVA space
    std::vector<host_span> spans;
    ASSERT_EQ(mmu.translate(a + kDartPage - 16, 32, false, spans), CB_OK);
    ASSERT_EQ(spans.size(), 2u);
    EXPECT_EQ(spans[0].data, static_cast<std::byte*>(fake(kHost + kDartPage - 16)));
    EXPECT_EQ(spans[0].size, 16u);
    EXPECT_EQ(spans[1].data, static_cast<std::byte*>(fake(kHost + kGiB)));
    EXPECT_EQ(spans[1].size, 16u);

    // The last hit is cached; unmapping it must not leave a stale translation.
    ASSERT_EQ(mmu.translate(b + 4, 4, false, spans), CB_OK);
    ASSERT_EQ(mmu.unmap(b, kDartPage), CB_OK);
    EXPECT_EQ(mmu.translate(b + 4, 4, false, spans), CB_ERR_NOT_FOUND);
    EXPECT_EQ(mmu.translate(a + kDartPage - 16, 32, false, spans), CB_ERR_NOT_FOUND);
}

TEST(Usb4Dart, ExhaustionInjection) {
    iommu mmu(apple_dart());
    uint64_t live = 0, iova = 0;
    ASSERT_EQ(mmu.map(fake(kHost), 4096, CB_DMA_TO_DEVICE, live), CB_OK);
    mmu.set_exhausted(true);
    EXPECT_TRUE(mmu.exhausted());
    std::string why;
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(mmu.map(fake(kHost + kGiB), 4096, CB_DMA_TO_DEVICE, iova, &why), CB_ERR_DMA_LIMIT);
    EXPECT_NE(why.find("exhausted"), std::string::npos);
    EXPECT_EQ(mmu.stats().map_failures, 3u);
    // Existing mappings keep working and can be unmapped.
    std::vector<host_span> spans;
    EXPECT_EQ(mmu.translate(live, 4096, false, spans), CB_OK);
    mmu.set_exhausted(false);
    EXPECT_EQ(mmu.map(fake(kHost + kGiB), 4096, CB_DMA_TO_DEVICE, iova), CB_OK);
    EXPECT_EQ(mmu.stats().mappings, 2u);
}

TEST(Usb4Dart, UnmapAllForSurpriseRemoval) {
    iommu mmu(apple_dart());
    uint64_t iova = 0, first = 0;
    for (uint64_t i = 0; i < 10; ++i) {
        ASSERT_EQ(mmu.map(fake(kHost + i * kGiB), 100 * kMiB, CB_DMA_TO_DEVICE, iova), CB_OK);
        if (i == 0) first = iova;
    }
    EXPECT_EQ(mmu.stats().mapped_bytes, 1000 * kMiB);
    EXPECT_EQ(mmu.unmap_all(), 10u);
    const auto s = mmu.stats();
    EXPECT_EQ(s.mappings, 0u);
    EXPECT_EQ(s.mapped_bytes, 0u);
    EXPECT_EQ(s.peak_mappings, 10u);
    EXPECT_EQ(s.peak_mapped_bytes, 1000 * kMiB);
    std::vector<host_span> spans;
    EXPECT_EQ(mmu.translate(first, 4, false, spans), CB_ERR_NOT_FOUND);
    EXPECT_EQ(mmu.unmap(first, 100 * kMiB), CB_ERR_INVALID_ARGUMENT);
    // The whole budget and address space are back.
    ASSERT_EQ(mmu.map(fake(kHost), 1536 * kMiB, CB_DMA_TO_DEVICE, iova), CB_OK);
    EXPECT_EQ(iova, first);
}

TEST(Usb4Dart, X86ProfileHasNoDartLimits) {
    const auto p = x86_iommu();
    EXPECT_EQ(p.page_size, 4096u);
    iommu mmu(p);
    EXPECT_EQ(mmu.limits().max_mapped_bytes, UINT64_MAX);
    EXPECT_EQ(mmu.limits().max_mappings, UINT64_MAX);
    uint64_t iova = 0;
    for (uint64_t i = 0; i < 4; ++i)  // 4 GiB mapped at once
        ASSERT_EQ(mmu.map(fake(kHost + i * kGiB), kGiB, CB_DMA_BIDIRECTIONAL, iova), CB_OK);
    EXPECT_EQ(mmu.stats().mapped_bytes, 4 * kGiB);
    for (uint64_t i = 0; i < 70000; ++i)  // more than the DART's 65,536 mappings
        ASSERT_EQ(mmu.map(fake(kHost + 8 * kGiB + i * 4096), 4096, CB_DMA_TO_DEVICE, iova), CB_OK);
    EXPECT_EQ(iova % 4096, 0u);
    EXPECT_EQ(mmu.stats().mappings, 70004u);
    EXPECT_EQ(mmu.stats().map_failures, 0u);
}

TEST(Usb4Dart, ConcurrentUseKeepsBooksStraight) {
    iommu mmu(apple_dart());
    std::vector<std::thread> threads;
    std::atomic<int> errors{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&mmu, &errors, t] {
            std::vector<host_span> spans;
            for (uint64_t i = 0; i < 2000; ++i) {
                const uint64_t host = kHost + static_cast<uint64_t>(t) * kGiB + i * kDartPage;
                uint64_t iova = 0;
                if (mmu.map(fake(host + 8), 3000, CB_DMA_TO_DEVICE, iova) != CB_OK) ++errors;
                if (mmu.translate(iova, 3000, false, spans) != CB_OK || spans.size() != 1 ||
                    spans[0].data != static_cast<std::byte*>(fake(host + 8)))
                    ++errors;
                if (mmu.unmap(iova, 3000) != CB_OK) ++errors;
            }
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(errors.load(), 0);
    const auto s = mmu.stats();
    EXPECT_EQ(s.mappings, 0u);
    EXPECT_EQ(s.mapped_bytes, 0u);
    EXPECT_EQ(s.maps, 8000u);
    EXPECT_EQ(s.unmaps, 8000u);
    EXPECT_GE(s.peak_mappings, 1u);
    EXPECT_LE(s.peak_mappings, 4u);
}

}  // namespace
}  // namespace cudabridge::usb4
