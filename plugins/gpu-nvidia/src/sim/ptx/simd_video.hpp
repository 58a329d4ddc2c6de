// The SIMD video instructions: vadd4, vsub4, vavrg4, vabsdiff4, vmin4, vmax4, vset4 over the four
// bytes of a 32-bit word, and their two-way forms (vadd2, ..., vset2) over its two half-words
// (what `__vabsdiffu4` and its family emit). Per the PTX ISA:
//   - each lane's operands are chosen from the eight bytes (four half-words) of {b, a} by the
//     selectors `.bxyzw` / `.hxy` on a and b (defaults .b3210/.b7654, .h10/.h32), sign- or
//     zero-extended by .atype/.btype;
//   - the lane's result is the operation (vset: the comparison, 1 or 0), clamped to the
//     destination lane's range with .sat;
//   - then either the merge: lanes in d's mask (`.b3210`, `.h10`, ... the default all) take the
//     result's low bits, the others c's; or, with .add, d = c plus the results of the lanes in the
//     mask, as 32-bit integers.
// Scalar video instructions (vadd, vmad, vshl, ...) are refused.
#pragma once

#include "sim/ptx/ast.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace cudabridge::nv::ptx {

struct simd_video_code {
    enum class operation { add, sub, avrg, absdiff, min, max, set } op = operation::add;
    enum class comparison { eq, ne, lt, le, gt, ge } cmp = comparison::eq;  // vset
    int lanes = 4;                                                          // 4 bytes or 2 half-words
    bool d_signed = false, a_signed = false, b_signed = false;
    bool saturate = false;
    bool accumulate = false;                        // .add
    std::array<uint8_t, 4> a_select{}, b_select{};  // lane i's element of {b, a}
    uint8_t mask = 0xF;                             // lanes written or added, bit i for lane i
    operand d, a, b, c;                             // the operands without their suffixes
};

// True for the opcodes above.
bool is_simd_video(const std::string& opcode);

// Reads the instruction's types, modifiers and operand suffixes; false with the reason for a form
// the ISA does not have or the engine does not run.
bool simd_video_code_of(const instruction& in, simd_video_code& out, std::string& why);

}  // namespace cudabridge::nv::ptx
