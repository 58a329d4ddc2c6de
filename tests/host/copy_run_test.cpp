// A run of small host-to-device copies (runtime/copy_run.hpp): which copies may join it, and the
// bytes its span must hold once they are done.
#include "runtime/copy_run.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace cudabridge::host {
namespace {

cbStream_st* const stream_a = reinterpret_cast<cbStream_st*>(0x10);
cbStream_st* const stream_b = reinterpret_cast<cbStream_st*>(0x20);

std::vector<unsigned char> filled(size_t n, unsigned char first) {
    std::vector<unsigned char> v(n);
    std::iota(v.begin(), v.end(), first);
    return v;
}

copy_run run_of(uint64_t dst, const std::vector<unsigned char>& bytes) {
    copy_run r;
    extend(r, stream_a, nullptr, dst, bytes.data(), bytes.size());
    return r;
}

TEST(copy_run, AnySmallCopyStartsARunAndALargeOneNever) {
    const copy_run empty;
    EXPECT_TRUE(joins(empty, stream_b, 0x5000, 64));
    EXPECT_TRUE(joins(empty, stream_b, 0x5000, copy_run::largest_copy));
    EXPECT_FALSE(joins(empty, stream_b, 0x5000, copy_run::largest_copy + 1));
    EXPECT_FALSE(joins(empty, stream_b, 0x5000, 0));
}

TEST(copy_run, ACopyOnAnotherStreamDoesNotJoin) {
    const copy_run r = run_of(0x1000, filled(64, 0));
    EXPECT_TRUE(joins(r, stream_a, 0x1000, 64));
    EXPECT_FALSE(joins(r, stream_b, 0x1000, 64));
}

TEST(copy_run, ACopyThatWouldLeaveAGapDoesNotJoin) {
    const copy_run r = run_of(0x1000, filled(64, 0));
    EXPECT_TRUE(joins(r, stream_a, 0x1040, 64)) << "right after the span";
    EXPECT_TRUE(joins(r, stream_a, 0x0fc0, 64)) << "right before it";
    EXPECT_TRUE(joins(r, stream_a, 0x1020, 64)) << "overlapping its end";
    EXPECT_FALSE(joins(r, stream_a, 0x1041, 64)) << "one byte of gap after";
    EXPECT_FALSE(joins(r, stream_a, 0x0fbf, 64)) << "one byte of gap before";
}

TEST(copy_run, TheSpanStaysWithinItsLimit) {
    copy_run r = run_of(0x100000, filled(copy_run::largest_copy, 0));
    while (r.bytes.size() + copy_run::largest_copy <= copy_run::largest_span) {
        const uint64_t end = r.start + r.bytes.size();
        ASSERT_TRUE(joins(r, stream_a, end, copy_run::largest_copy));
        const auto more = filled(copy_run::largest_copy, 1);
        extend(r, stream_a, nullptr, end, more.data(), more.size());
    }
    EXPECT_EQ(r.bytes.size(), copy_run::largest_span);
    EXPECT_FALSE(joins(r, stream_a, r.start + r.bytes.size(), 1));
    EXPECT_TRUE(joins(r, stream_a, r.start, 64)) << "a copy inside the span never grows it";
}

TEST(copy_run, TheSpanHoldsTheLatestBytesWhereCopiesOverlap) {
    copy_run r = run_of(0x1000, std::vector<unsigned char>(8, 0xaa));
    const std::vector<unsigned char> later(4, 0xbb), before(6, 0xcc), after(3, 0xdd);
    extend(r, stream_a, nullptr, 0x1006, later.data(), later.size());    // past the end by 2
    extend(r, stream_a, nullptr, 0x0ffc, before.data(), before.size());  // 4 before the start
    extend(r, stream_a, nullptr, 0x100a, after.data(), after.size());    // right after
    EXPECT_EQ(r.start, 0x0ffcu);
    EXPECT_EQ(r.copies, 4u);
    const std::vector<unsigned char> expected = {0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xaa, 0xaa, 0xaa,
                                                 0xaa, 0xbb, 0xbb, 0xbb, 0xbb, 0xdd, 0xdd, 0xdd};
    EXPECT_EQ(r.bytes, expected);
    EXPECT_EQ(span_with(r, 0x0ff0, 4).start, 0x0ff0u);
    EXPECT_EQ(span_with(r, 0x0ff0, 4).size, 0x100du - 0x0ff0u) << "up to the span's end, 0x100d";
}

TEST(copy_run, ClearingForgetsTheCopies) {
    copy_run r = run_of(0x1000, filled(64, 0));
    clear(r);
    EXPECT_TRUE(r.empty());
    EXPECT_TRUE(r.bytes.empty());
    const auto next = filled(16, 9);
    extend(r, stream_b, nullptr, 0x9000, next.data(), next.size());
    EXPECT_EQ(r.start, 0x9000u);
    EXPECT_EQ(r.stream, stream_b);
    EXPECT_EQ(r.bytes, next);
}

}  // namespace
}  // namespace cudabridge::host
