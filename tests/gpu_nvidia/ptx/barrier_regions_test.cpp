// Which kernels run as straight regions (one loop over the threads per stretch between barriers),
// what a region computes again instead of keeping, and which threads a region's loop visits.
#include "sim/ptx/barrier_regions.hpp"
#include "sim/ptx/layout.hpp"
#include "sim/ptx/parser.hpp"
#include "sim/ptx/recomputable.hpp"

#include <gtest/gtest.h>

#include <set>

namespace cudabridge::nv::ptx {
namespace {

function kernel_of(const std::string& body) {
    const std::string text =
        ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 k_p)\n{\n"
        ".reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.shared .align 4 .b8 s[1024];\n" +
        body + "\n}\n";
    parse_result parsed = parse(text);
    EXPECT_TRUE(parsed.ok) << parsed.error;
    return parsed.ok ? parsed.mod.functions.at(0) : function{};
}

size_t regions_of(const std::string& body) { return straight_region_barriers(kernel_of(body)).size(); }

// A tree-reduction step: threads with %tid.x > 127 branch straight to the next barrier.
const char* tree_step =
    "mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\nmov.u32 %r3, s;\nadd.s32 %r4, %r3, %r2;\n"
    "st.shared.u32 [%r4], %r1;\nbar.sync 0;\n"
    "setp.gt.u32 %p1, %r1, 127;\n@%p1 bra $L_end;\n"
    "ld.shared.u32 %r5, [%r4+512];\nst.shared.u32 [%r4], %r5;\n$L_end:\nbar.sync 0;\n"
    "setp.ne.s32 %p2, %r1, 0;\n@%p2 bra $L_ret;\nld.param.u64 %rd1, [k_p];\n$L_ret:\nret;";

TEST(PtxBarrierRegions, BarriersEveryThreadMeetsInOrderSplitTheKernel) { EXPECT_EQ(regions_of(tree_step), 2u); }

TEST(PtxBarrierRegions, ABarrierInsideALoopNeedsTheGeneralLoop) {
    EXPECT_EQ(regions_of("mov.u32 %r1, 0;\n$L_loop:\nbar.sync 0;\nadd.s32 %r1, %r1, 1;\n"
                         "setp.lt.u32 %p1, %r1, 4;\n@%p1 bra $L_loop;\nret;"),
              0u);
}

TEST(PtxBarrierRegions, ABarrierBehindAConditionNeedsTheGeneralLoop) {
    EXPECT_EQ(regions_of("mov.u32 %r1, %tid.x;\nsetp.eq.s32 %p1, %r1, 0;\n@%p1 bra $L_skip;\nbar.sync 0;\n"
                         "$L_skip:\nret;"),
              0u);
    EXPECT_EQ(regions_of("mov.u32 %r1, %tid.x;\nsetp.eq.s32 %p1, %r1, 0;\n@%p1 bar.sync 0;\nret;"), 0u);
}

TEST(PtxBarrierRegions, AnExitBeforeTheLastBarrierNeedsTheGeneralLoop) {
    EXPECT_EQ(regions_of("mov.u32 %r1, %tid.x;\nsetp.eq.s32 %p1, %r1, 0;\n@%p1 ret;\nbar.sync 0;\nret;"), 0u);
}

TEST(PtxBarrierRegions, AWarpInstructionNeedsTheGeneralLoop) {
    EXPECT_EQ(regions_of("mov.u32 %r1, %tid.x;\nbar.sync 0;\nshfl.sync.down.b32 %r2, %r1, 1, 31, -1;\nret;"), 0u);
}

TEST(PtxRecomputable, IndicesAddressesAndParametersAreComputedAgainNotKept) {
    const auto r = recomputable_registers(kernel_of(tree_step));
    for (const char* name : {"%r1", "%r2", "%r3", "%r4", "%p1", "%p2", "%rd1"}) EXPECT_EQ(r.count(name), 1u) << name;
    EXPECT_EQ(r.count("%r5"), 0u) << "a value loaded from shared memory";
}

TEST(PtxRecomputable, ARegisterWrittenTwiceOrUnderAGuardIsKept) {
    const auto r =
        recomputable_registers(kernel_of("mov.u32 %r1, %tid.x;\nadd.s32 %r1, %r1, 1;\n"
                                         "setp.eq.s32 %p1, %r1, 0;\n@%p1 mov.u32 %r2, 5;\n"
                                         "add.s32 %r3, %r1, 2;\nret;"));
    EXPECT_TRUE(r.empty());
}

// A barrier inside a loop: the general loop. At the barrier's resume point the thread's index
// (%r2) is computed again from %tid.x; only the loop counter (%r1) is kept in its record.
TEST(PtxRecomputable, TheGeneralLoopKeepsOnlyWhatItCannotComputeAgain) {
    const std::string text =
        ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n"
        ".reg .pred %p<2>;\n.reg .b32 %r<4>;\n.shared .align 4 .b8 s[1024];\n"
        "mov.u32 %r2, %tid.x;\nmov.u32 %r1, 0;\n$L_loop:\nshl.b32 %r3, %r2, 2;\n"
        "st.shared.u32 [%r3], %r1;\nbar.sync 0;\nadd.s32 %r1, %r1, 1;\nsetp.lt.u32 %p1, %r1, 4;\n"
        "@%p1 bra $L_loop;\nret;\n}\n";
    parse_result parsed = parse(text);
    ASSERT_TRUE(parsed.ok) << parsed.error;
    const layout_result laid = lay_out(parsed.mod);
    ASSERT_TRUE(laid.ok) << laid.error;
    const kernel_layout& k = laid.layout.kernels.at(0);
    ASSERT_TRUE(k.region_barriers.empty()) << "a barrier in a loop: the general loop";
    ASSERT_EQ(k.live_after_park.size(), 1u);
    const auto& [barrier, kept] = *k.live_after_park.begin();
    EXPECT_EQ(kept, std::vector<std::string>{"%r1"});
    const auto& again = k.recompute_after_park.at(barrier);
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(parsed.mod.functions.at(0).body.at(again[0]).operands.at(0).name, "%r2");
    EXPECT_EQ(k.save_slots.count("%r2"), 0u) << "no slot for what is computed again";
}

TEST(PtxRecomputable, TheOrderComputesSourcesFirst) {
    const function k = kernel_of(tree_step);
    const auto r = recomputable_registers(k);
    const auto order = recompute_order(k, r, {"%r4"});
    ASSERT_EQ(order.size(), 4u);  // %r1, %r2 and %r3 before %r4
    EXPECT_EQ(k.body[order.back()].operands[0].name, "%r4");
    std::set<std::string> computed;
    for (size_t index : order) {
        const instruction& in = k.body[index];
        for (size_t i = 1; i < in.operands.size(); ++i) {
            if (!r.count(in.operands[i].name)) continue;
            EXPECT_EQ(computed.count(in.operands[i].name), 1u) << in.operands[i].name;
        }
        computed.insert(in.operands[0].name);
    }
}

TEST(PtxRegionThreads, AGuardOnTidXNarrowsTheRegionsThreads) {
    const function k = kernel_of(tree_step);
    const auto ranges = region_thread_ranges(k, straight_region_barriers(k), recomputable_registers(k));
    ASSERT_EQ(ranges.size(), 3u);
    EXPECT_EQ(ranges[0].lo, 0);  // region 0 is never narrowed
    EXPECT_EQ(ranges[0].skipped_instructions, 0u);
    EXPECT_EQ(ranges[1].lo, 0);
    EXPECT_EQ(ranges[1].hi, 128);                   // %tid.x > 127 skips
    EXPECT_EQ(ranges[1].skipped_instructions, 3u);  // setp, bra, bar.sync
    EXPECT_EQ(ranges[2].lo, 0);
    EXPECT_EQ(ranges[2].hi, 1);                     // %tid.x != 0 skips
    EXPECT_EQ(ranges[2].skipped_instructions, 3u);  // setp, bra, ret
}

TEST(PtxRegionThreads, ANegatedGuardKeepsTheOtherSide) {
    const function k = kernel_of(
        "mov.u32 %r1, %tid.x;\nbar.sync 0;\nsetp.lt.u32 %p1, %r1, 32;\n@!%p1 bra $L_end;\n"
        "st.shared.u32 [s], %r1;\n$L_end:\nbar.sync 0;\nret;");
    const auto ranges = region_thread_ranges(k, straight_region_barriers(k), recomputable_registers(k));
    ASSERT_EQ(ranges.size(), 3u);
    EXPECT_EQ(ranges[1].lo, 0);
    EXPECT_EQ(ranges[1].hi, 32);
}

TEST(PtxRegionThreads, ABranchThatDoesNotReachTheRegionsEndVisitsEveryThread) {
    const function k = kernel_of(
        "mov.u32 %r1, %tid.x;\nbar.sync 0;\nsetp.gt.u32 %p1, %r1, 7;\n@%p1 bra $L_mid;\n"
        "st.shared.u32 [s], %r1;\n$L_mid:\nst.shared.u32 [s+4], %r1;\nbar.sync 0;\nret;");
    const auto ranges = region_thread_ranges(k, straight_region_barriers(k), recomputable_registers(k));
    ASSERT_EQ(ranges.size(), 3u);
    EXPECT_EQ(ranges[1].lo, 0);
    EXPECT_EQ(ranges[1].hi, std::numeric_limits<int64_t>::max());
    EXPECT_EQ(ranges[1].skipped_instructions, 0u);
}

}  // namespace
}  // namespace cudabridge::nv::ptx
