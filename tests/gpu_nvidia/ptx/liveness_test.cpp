// What a thread keeps when it parks: the registers live after each barrier or warp instruction.
#include "sim/ptx/layout.hpp"
#include "sim/ptx/liveness.hpp"
#include "sim/ptx/parser.hpp"

#include <gtest/gtest.h>

namespace cudabridge::nv::ptx {
namespace {

using names = std::vector<std::string>;

// The live registers after each parking instruction of the kernel `body`, in body order.
std::vector<names> live_at_parks(const std::string& body) {
    const std::string text =
        ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 k_p)\n{\n"
        ".reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n" +
        body + "\n}\n";
    parse_result parsed = parse(text);
    EXPECT_TRUE(parsed.ok) << parsed.error;
    std::vector<names> out;
    if (!parsed.ok) return out;
    for (const auto& [index, live] : live_after_parks(parsed.mod.functions.at(0))) out.push_back(live);
    return out;
}

TEST(PtxLiveness, AValueReadAfterTheBarrierIsKeptAndADeadOneIsNot) {
    EXPECT_EQ(live_at_parks("mov.u32 %r1, %tid.x;\nmov.u32 %r2, 7;\nbar.sync 0;\nadd.s32 %r3, %r1, 1;\nret;"),
              std::vector<names>({{"%r1"}}));
}

TEST(PtxLiveness, AValueOverwrittenAfterTheBarrierBeforeAnyReadIsNotKept) {
    EXPECT_EQ(live_at_parks("mov.u32 %r1, 1;\nbar.sync 0;\nmov.u32 %r1, 2;\nadd.s32 %r2, %r1, %r1;\nret;"),
              std::vector<names>({{}}));
}

TEST(PtxLiveness, AGuardedWriteDoesNotEndTheOldValue) {
    // If %p1 is false the add reads the %r1 from before the barrier.
    EXPECT_EQ(live_at_parks("mov.u32 %r1, 1;\nsetp.eq.s32 %p1, %r1, 0;\nbar.sync 0;\n@%p1 mov.u32 %r1, 2;\n"
                            "add.s32 %r2, %r1, 1;\nret;"),
              std::vector<names>({{"%p1", "%r1"}}));
}

TEST(PtxLiveness, ValuesReadOnOnlyOneBranchAndAroundALoopAreKept) {
    const auto live = live_at_parks(
        "mov.u32 %r1, 0;\nmov.u32 %r2, 5;\nmov.u32 %r3, 9;\n"
        "$L_loop:\nbar.sync 0;\nadd.s32 %r1, %r1, 1;\nsetp.lt.u32 %p1, %r1, %r2;\n@%p1 bra $L_loop;\n"
        "setp.eq.s32 %p2, %r1, 3;\n@%p2 bra $L_other;\nret;\n$L_other:\nadd.s32 %r4, %r3, 1;\nret;");
    EXPECT_EQ(live, std::vector<names>({{"%r1", "%r2", "%r3"}}));
}

TEST(PtxLiveness, AddressBasesVectorElementsAndStoredValuesAreReads) {
    const auto live = live_at_parks(
        "mov.u64 %rd1, 0;\nmov.u32 %r1, 1;\nmov.u32 %r2, 2;\nmov.u32 %r5, 3;\n"
        "bar.sync 0;\nst.global.v2.u32 [%rd1+8], {%r1, %r2};\n"
        "st.shared.u32 [%r5], %r1;\nret;");
    EXPECT_EQ(live, std::vector<names>({{"%r1", "%r2", "%r5", "%rd1"}}));
}

TEST(PtxLiveness, AWarpInstructionsResultIsNotKeptButItsLaterReadsAre) {
    const auto live = live_at_parks(
        "mov.u32 %r1, 1;\nmov.u32 %r2, 2;\n"
        "shfl.sync.down.b32 %r3|%p1, %r1, 1, 31, -1;\nbar.sync 0;\n"
        "add.s32 %r4, %r3, %r2;\nret;");
    ASSERT_EQ(live.size(), 2u);
    EXPECT_EQ(live[0], names({"%r2"}));
    EXPECT_EQ(live[1], names({"%r2", "%r3"}));
}

TEST(PtxLiveness, AnInstructionNotKnownToWriteItsFirstOperandReadsIt) {
    // st has no destination: its address register is a read, and stays live.
    EXPECT_EQ(live_at_parks("mov.u64 %rd2, 0;\nbar.sync 0;\nst.global.u32 [%rd2], 1;\nret;"),
              std::vector<names>({{"%rd2"}}));
}

// A volatile shared (or generic) access is a warp's convergence point: the thread parks before
// it, so what the access reads is kept, and its loaded value is not. A volatile global load parks
// after it (a thread may spin on it while another block sets it): its value is kept.
TEST(PtxLiveness, AVolatileSharedAccessParksBeforeItAndKeepsWhatItReads) {
    const auto live = live_at_parks(
        "mov.u32 %r1, 4;\nmov.u32 %r2, 9;\nmov.u64 %rd1, 0;\nld.volatile.shared.u32 %r3, [%r1];\n"
        "add.s32 %r4, %r3, %r2;\nst.volatile.u32 [%rd1], %r4;\nld.volatile.global.u32 %r5, [%rd1];\n"
        "st.volatile.shared.u32 [%r1], %r5;\nret;");
    EXPECT_EQ(live,
              std::vector<names>({{"%r1", "%r2", "%rd1"}, {"%r1", "%r4", "%rd1"}, {"%r1", "%r5"}, {"%r1", "%r5"}}));
}

// A branch back to a loop's head that parks keeps what is live at the head.
TEST(PtxLiveness, AConvergingBackEdgeKeepsWhatIsLiveAtTheLoopsHead) {
    const std::string text =
        ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 k_p)\n{\n"
        ".reg .pred %p<4>;\n.reg .b32 %r<8>;\n"
        "mov.u32 %r1, 0;\nmov.u32 %r2, 9;\nmov.u32 %r5, 3;\n$L_loop:\nld.volatile.shared.u32 %r3, [%r1];\n"
        "add.s32 %r1, %r1, 4;\nsetp.lt.u32 %p1, %r1, %r2;\n@%p1 bra $L_loop;\nst.shared.u32 [%r1], %r5;\nret;\n}\n";
    parse_result parsed = parse(text);
    ASSERT_TRUE(parsed.ok) << parsed.error;
    const function& f = parsed.mod.functions.at(0);
    const auto edges = converging_back_edges(f);
    ASSERT_EQ(edges.size(), 1u);
    const auto live = live_after_parks(f, edges);
    EXPECT_EQ(live.at(*edges.begin()), names({"%r1", "%r2", "%r5"}));
}

}  // namespace
}  // namespace cudabridge::nv::ptx
