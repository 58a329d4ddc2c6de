// The string-getter contract: a C entry that fills a caller's char buffer reports the full length
// plus one in *needed, writes nothing for a NULL buffer or a zero size, cuts what does not fit
// (terminated), and answers CB_OK in each case. The SDK's copy_text_out is its one home; the
// host's own service table answers through it.
#include "internal.hpp"  // core/src/registry: the host service table without loading a plugin

#include <cudabridge/cpp/text_out.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

namespace sdk = cudabridge::sdk;
namespace core = cudabridge::core;

namespace {

// A buffer whose bytes past what a call may write still show their fill.
struct guarded_buffer {
    char bytes[16];
    guarded_buffer() { std::memset(bytes, '#', sizeof bytes); }
};

}  // namespace

TEST(TextOut, AResultThatFitsIsCopiedWithItsTerminator) {
    guarded_buffer b;
    size_t needed = 0;
    EXPECT_EQ(sdk::copy_text_out("hello", b.bytes, 6, &needed), CB_OK);
    EXPECT_STREQ(b.bytes, "hello");
    EXPECT_EQ(needed, 6u);
}

TEST(TextOut, AResultThatDoesNotFitIsCutTerminatedAndStillOk) {
    guarded_buffer b;
    size_t needed = 0;
    EXPECT_EQ(sdk::copy_text_out("hello world", b.bytes, 6, &needed), CB_OK);
    EXPECT_STREQ(b.bytes, "hello");
    EXPECT_EQ(b.bytes[6], '#');  // nothing past size
    EXPECT_EQ(needed, 12u);      // the caller compares it with size and asks again
}

TEST(TextOut, ANullBufferOrAZeroSizeOnlyReportsTheLength) {
    size_t needed = 0;
    EXPECT_EQ(sdk::copy_text_out("hello", nullptr, 0, &needed), CB_OK);
    EXPECT_EQ(needed, 6u);
    needed = 0;
    EXPECT_EQ(sdk::copy_text_out("hello", nullptr, 64, &needed), CB_OK);
    EXPECT_EQ(needed, 6u);
    guarded_buffer b;
    needed = 0;
    EXPECT_EQ(sdk::copy_text_out("hello", b.bytes, 0, &needed), CB_OK);
    EXPECT_EQ(needed, 6u);
    EXPECT_EQ(b.bytes[0], '#');
}

TEST(TextOut, NoNeededAndNoBufferIsStillOk) {
    // A `control` caller that wants the request carried out and no reply asks exactly this.
    EXPECT_EQ(sdk::copy_text_out("hello", nullptr, 0, nullptr), CB_OK);
    guarded_buffer b;
    EXPECT_EQ(sdk::copy_text_out("hello", b.bytes, sizeof b.bytes, nullptr), CB_OK);
    EXPECT_STREQ(b.bytes, "hello");
}

TEST(TextOut, AOneByteBufferHoldsTheTerminatorOnly) {
    guarded_buffer b;
    size_t needed = 0;
    EXPECT_EQ(sdk::copy_text_out("hello", b.bytes, 1, &needed), CB_OK);
    EXPECT_EQ(b.bytes[0], '\0');
    EXPECT_EQ(b.bytes[1], '#');
    EXPECT_EQ(needed, 6u);
    EXPECT_EQ(sdk::copy_text_out("", b.bytes, 1, &needed), CB_OK);
    EXPECT_EQ(needed, 1u);
}

TEST(TextOut, TheHostServiceGettersKeepTheContract) {
    auto backend = std::make_shared<core::services_backend>();
    backend->database_path = "/nonexistent/state/cudabridge.db";
    auto host = core::make_host_context(backend, "probe", {{"greeting", "hello world"}});
    const cb_host_services& s = host->services;

    size_t needed = 0;
    EXPECT_EQ(s.param_get(s.host, "greeting", nullptr, 0, &needed), CB_OK);
    EXPECT_EQ(needed, 12u);
    EXPECT_EQ(s.param_get(s.host, "greeting", nullptr, 0, nullptr), CB_OK);
    EXPECT_EQ(s.get_path(s.host, CB_PATH_DATABASE, nullptr, 0, nullptr), CB_OK);
    guarded_buffer b;
    EXPECT_EQ(s.param_get(s.host, "greeting", b.bytes, 6, &needed), CB_OK);
    EXPECT_STREQ(b.bytes, "hello");
    EXPECT_EQ(needed, 12u);
    EXPECT_EQ(s.get_path(s.host, CB_PATH_STATE_DIR, b.bytes, sizeof b.bytes, &needed), CB_OK);
    EXPECT_STREQ(b.bytes, "/nonexistent/st");
    EXPECT_EQ(needed, std::strlen("/nonexistent/state") + 1);
}

// Fixed-size char fields of ABI records (names, UUIDs, reasons) are filled through copy_text.

TEST(CopyText, TextThatFitsIsCopiedWithItsTerminator) {
    guarded_buffer b;
    sdk::copy_text("hello", b.bytes, 6);
    EXPECT_STREQ(b.bytes, "hello");
    EXPECT_EQ(b.bytes[6], '#');
}

TEST(CopyText, TextThatDoesNotFitIsCutAndTerminated) {
    guarded_buffer b;
    sdk::copy_text("hello world", b.bytes, 6);
    EXPECT_STREQ(b.bytes, "hello");
    EXPECT_EQ(b.bytes[6], '#');  // nothing past size
}

TEST(CopyText, ACutNeverSplitsAUtf8Character) {
    // "°" is the two bytes C2 B0: a 5-byte field holds "abc" and the terminator, never C2 alone.
    guarded_buffer b;
    sdk::copy_text("abc\u00B0C", b.bytes, 5);
    EXPECT_STREQ(b.bytes, "abc");
    // A three-byte character ("€", E2 82 AC) cut after its first or second byte goes whole.
    sdk::copy_text("a\xE2\x82\xAC", b.bytes, 3);
    EXPECT_STREQ(b.bytes, "a");
    sdk::copy_text("a\xE2\x82\xAC", b.bytes, 4);
    EXPECT_STREQ(b.bytes, "a");
    sdk::copy_text("a\xE2\x82\xAC", b.bytes, 5);
    EXPECT_STREQ(b.bytes, "a\xE2\x82\xAC");
}

TEST(CopyText, ANullFieldOrAZeroSizeWritesNothing) {
    sdk::copy_text("hello", nullptr, 8);  // must not crash
    guarded_buffer b;
    sdk::copy_text("hello", b.bytes, 0);
    EXPECT_EQ(b.bytes[0], '#');
    sdk::copy_text("hello", b.bytes, 1);
    EXPECT_EQ(b.bytes[0], '\0');
    EXPECT_EQ(b.bytes[1], '#');
}

TEST(CopyText, AnArrayFieldTakesItsSizeFromItsType) {
    struct record {
        char name[4];
        char after;
    } r{};
    r.after = '#';
    sdk::copy_text(r.name, std::string("abcdef"));
    EXPECT_STREQ(r.name, "abc");
    EXPECT_EQ(r.after, '#');
    sdk::copy_text(r.name, "");
    EXPECT_STREQ(r.name, "");
}
