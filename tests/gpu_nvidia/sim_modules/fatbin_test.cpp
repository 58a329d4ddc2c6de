// Fatbins as nvcc 13 writes them (tests/ptx_corpus/fatbins): the newest PTX entry comes out as
// the text nvcc compiled, whichever way it was compressed; machine code alone is refused with
// how to build with PTX; malformed images are refused, never read past their end.
#include "sim/modules/fatbin.hpp"

#include "corpus_files.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace cudabridge::nv::test {
namespace {

std::string ptx_of(const std::string& fatbin, cb_status expected = CB_OK) {
    const std::string image = corpus_file("fatbins/" + fatbin);
    EXPECT_FALSE(image.empty()) << fatbin;
    std::string ptx, error;
    EXPECT_EQ(newest_fatbin_ptx(image.data(), image.size(), ptx, error), expected) << fatbin << ": " << error;
    return expected == CB_OK ? ptx : error;
}

TEST(Fatbin, EachCompressionGivesBackTheCompiledPtx) {
    const std::string want = code_lines(corpus_file("kernels/saxpy.ptx"));
    ASSERT_NE(want.find(".entry saxpy"), std::string::npos);
    EXPECT_EQ(code_lines(ptx_of("saxpy_zstd.fatbin")), want);   // nvcc's default
    EXPECT_EQ(code_lines(ptx_of("saxpy_lz4.fatbin")), want);    // --compress-mode=speed
    EXPECT_EQ(code_lines(ptx_of("saxpy_plain.fatbin")), want);  // --compress-mode=none
}

TEST(Fatbin, EntriesCarryTheirKindArchitectureAndCompression) {
    const std::string image = corpus_file("fatbins/saxpy_two_ptx.fatbin");
    std::vector<fatbin_entry> entries;
    std::string error;
    ASSERT_EQ(read_fatbin(image.data(), image.size(), entries, error), CB_OK) << error;
    int ptx75 = 0, ptx86 = 0, elf86 = 0;
    for (const auto& e : entries) {
        ptx75 += e.kind == 1 && e.arch == 75;
        ptx86 += e.kind == 1 && e.arch == 86;
        elf86 += e.kind == 2 && e.arch == 86;
        EXPECT_LE(e.payload + e.payload_bytes, image.size());
    }
    EXPECT_EQ(ptx75, 1);
    EXPECT_EQ(ptx86, 1);
    EXPECT_EQ(elf86, 1);
}

TEST(Fatbin, TheNewestPtxEntryIsChosen) {
    const std::string ptx = ptx_of("saxpy_two_ptx.fatbin");
    EXPECT_NE(ptx.find(".target sm_86"), std::string::npos) << ptx.substr(0, 300);
}

TEST(Fatbin, MachineCodeAloneIsRefusedSayingHowToBuildWithPtx) {
    const std::string error = ptx_of("saxpy_sass_only.fatbin", CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("sm_90"), std::string::npos) << error;
    EXPECT_NE(error.find("code=compute_"), std::string::npos) << error;
}

TEST(Fatbin, EveryTruncationIsRefusedWithoutReadingPastTheEnd) {
    const std::string image = corpus_file("fatbins/saxpy_zstd.fatbin");
    for (size_t n = 0; n < image.size(); ++n) {
        const std::string cut = image.substr(0, n);  // its own allocation: ASan sees any overread
        std::string ptx, error;
        EXPECT_NE(newest_fatbin_ptx(cut.data(), cut.size(), ptx, error), CB_OK) << n << " bytes";
        EXPECT_FALSE(error.empty());
    }
}

TEST(Fatbin, ABadMagicOrACorruptPayloadIsRefused) {
    std::string image = corpus_file("fatbins/saxpy_zstd.fatbin");
    std::string ptx, error;
    std::string wrong = image;
    wrong[0] ^= 0x01;
    EXPECT_EQ(newest_fatbin_ptx(wrong.data(), wrong.size(), ptx, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("magic"), std::string::npos) << error;
    for (const std::string name : {"saxpy_zstd.fatbin", "saxpy_lz4.fatbin"}) {
        std::string corrupt = corpus_file("fatbins/" + name);
        for (size_t i = 100; i < 140; ++i) corrupt[i] = static_cast<char>(0xA5);  // inside the payload
        error.clear();
        const cb_status st = newest_fatbin_ptx(corrupt.data(), corrupt.size(), ptx, error);
        // Either the decompressor notices, or it yields text that differs from the original.
        if (st == CB_OK)
            EXPECT_NE(code_lines(ptx), code_lines(corpus_file("kernels/saxpy.ptx"))) << name;
        else
            EXPECT_EQ(st, CB_ERR_INVALID_ARGUMENT) << error;
    }
}

// An entry whose flag word is garbage (bits no fatbin sets, or two compressions at once) is
// refused, naming the flags, before its payload is read.
TEST(Fatbin, AnEntryWithGarbageFlagsIsRefused) {
    const std::string image = corpus_file("fatbins/saxpy_plain.fatbin");
    uint16_t header = 0;
    std::memcpy(&header, image.data() + 6, sizeof header);
    const size_t flags_at = size_t{header} + 40;
    for (const uint64_t garbage : {uint64_t{0xDEADBEEFDEADBEEF}, uint64_t{0xA011}}) {
        std::string bad = image;
        std::memcpy(bad.data() + flags_at, &garbage, sizeof garbage);
        std::string ptx, error;
        EXPECT_EQ(newest_fatbin_ptx(bad.data(), bad.size(), ptx, error), CB_ERR_INVALID_ARGUMENT)
            << std::hex << garbage;
        EXPECT_NE(error.find("an entry"), std::string::npos) << error;
    }
}

}  // namespace
}  // namespace cudabridge::nv::test
