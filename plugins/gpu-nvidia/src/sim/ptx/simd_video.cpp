// The SIMD video instructions' description (simd_video.hpp): opcode, types, modifiers and the
// operands' lane suffixes, which the parser moved into modifiers (`%r1.b20` -> "0:b20").
#include "sim/ptx/simd_video.hpp"

#include <map>
#include <vector>

namespace cudabridge::nv::ptx {
namespace {

using operation = simd_video_code::operation;
using comparison = simd_video_code::comparison;

const std::map<std::string, operation>& operations() {
    static const std::map<std::string, operation> ops = {
        {"add", operation::add}, {"sub", operation::sub}, {"avrg", operation::avrg}, {"absdiff", operation::absdiff},
        {"min", operation::min}, {"max", operation::max}, {"set", operation::set}};
    return ops;
}

const std::map<std::string, comparison>& comparisons() {
    static const std::map<std::string, comparison> cmps = {{"eq", comparison::eq}, {"ne", comparison::ne},
                                                           {"lt", comparison::lt}, {"le", comparison::le},
                                                           {"gt", comparison::gt}, {"ge", comparison::ge}};
    return cmps;
}

// "vabsdiff4" -> absdiff and 4; false for anything else.
bool split_opcode(const std::string& opcode, operation& op, int& lanes) {
    if (opcode.size() < 3 || opcode[0] != 'v') return false;
    const char last = opcode.back();
    if (last != '4' && last != '2') return false;
    auto it = operations().find(opcode.substr(1, opcode.size() - 2));
    if (it == operations().end()) return false;
    op = it->second;
    lanes = last - '0';
    return true;
}

// A selector: `b` and four digits 0..7 (lanes 3..0) for bytes, `h` and two digits 0..3 for
// half-words. Empty: the default.
bool read_selector(const std::string& suffix, int lanes, const std::array<uint8_t, 4>& fallback,
                   std::array<uint8_t, 4>& out) {
    if (suffix.empty()) {
        out = fallback;
        return true;
    }
    const char letter = lanes == 4 ? 'b' : 'h';
    const char top = lanes == 4 ? '7' : '3';
    if (suffix.size() != static_cast<size_t>(lanes) + 1 || suffix[0] != letter) return false;
    for (int i = 0; i < lanes; ++i) {
        const char digit = suffix[static_cast<size_t>(lanes - i)];
        if (digit < '0' || digit > top) return false;
        out[static_cast<size_t>(i)] = static_cast<uint8_t>(digit - '0');
    }
    return true;
}

// d's mask: `b` and distinct lane digits in descending order (b3210, b20, b1, ...), `h` and h10,
// h1, h0. Empty: every lane.
bool read_mask(const std::string& suffix, int lanes, uint8_t& mask) {
    if (suffix.empty()) {
        mask = static_cast<uint8_t>((1u << lanes) - 1);
        return true;
    }
    if (suffix.size() < 2 || suffix[0] != (lanes == 4 ? 'b' : 'h')) return false;
    mask = 0;
    int previous = lanes;
    for (size_t i = 1; i < suffix.size(); ++i) {
        const int lane = suffix[i] - '0';
        if (lane < 0 || lane >= previous) return false;
        mask = static_cast<uint8_t>(mask | (1u << lane));
        previous = lane;
    }
    return true;
}

bool read_types(const instruction& in, simd_video_code& out, std::string& why) {
    std::vector<bool> signs;
    bool has_cmp = false;
    for (const auto& m : in.mods) {
        if (m.size() > 2 && m[1] == ':') continue;  // an operand's lane suffix (the parser's)
        if (m == "u32" || m == "s32")
            signs.push_back(m == "s32");
        else if (m == "sat")
            out.saturate = true;
        else if (m == "add")
            out.accumulate = true;
        else if (auto c = comparisons().find(m); c != comparisons().end())
            out.cmp = c->second, has_cmp = true;
        else {
            why = "the modifier ." + m + " is not one of this instruction's";
            return false;
        }
    }
    // vop: .dtype.atype.btype; vset: .atype.btype and a comparison (its result is unsigned).
    const size_t expected = out.op == operation::set ? 2 : 3;
    if (signs.size() != expected) {
        why = "expected " + std::to_string(expected) + " types of .u32 and .s32";
        return false;
    }
    size_t i = 0;
    if (out.op != operation::set) out.d_signed = signs[i++];
    out.a_signed = signs[i++];
    out.b_signed = signs[i];
    if (out.saturate && (out.accumulate || out.op == operation::set)) {
        why = ".sat goes with neither .add nor vset";
        return false;
    }
    if (has_cmp != (out.op == operation::set)) {
        why = out.op == operation::set ? "vset needs a comparison" : "only vset takes a comparison";
        return false;
    }
    return true;
}

}  // namespace

bool is_simd_video(const std::string& opcode) {
    operation op;
    int lanes = 0;
    return split_opcode(opcode, op, lanes);
}

bool simd_video_code_of(const instruction& in, simd_video_code& out, std::string& why) {
    out = simd_video_code{};
    if (!split_opcode(in.opcode, out.op, out.lanes)) {
        why = "not a SIMD video instruction";
        return false;
    }
    if (!read_types(in, out, why)) return false;
    if (in.operands.size() != 4) {
        why = "expected the operands d, a, b, c";
        return false;
    }
    std::string suffix[4];
    for (const auto& m : in.mods)
        if (m.size() > 2 && m[1] == ':' && m[0] >= '0' && m[0] <= '3') suffix[m[0] - '0'] = m.substr(2);
    operand* parts[4] = {&out.d, &out.a, &out.b, &out.c};
    for (size_t i = 0; i < 4; ++i) {
        *parts[i] = in.operands[i];
        const bool immediate_c = i == 3 && in.operands[i].k == operand::kind::imm_int;
        if (in.operands[i].k != operand::kind::reg && !immediate_c) {
            why = "d, a and b must be registers, c a register or an integer";
            return false;
        }
    }
    const std::array<uint8_t, 4> a_default =
        out.lanes == 4 ? std::array<uint8_t, 4>{0, 1, 2, 3} : std::array<uint8_t, 4>{0, 1, 0, 0};
    const std::array<uint8_t, 4> b_default =
        out.lanes == 4 ? std::array<uint8_t, 4>{4, 5, 6, 7} : std::array<uint8_t, 4>{2, 3, 0, 0};
    if (!suffix[3].empty() || !read_mask(suffix[0], out.lanes, out.mask) ||
        !read_selector(suffix[1], out.lanes, a_default, out.a_select) ||
        !read_selector(suffix[2], out.lanes, b_default, out.b_select)) {
        why = "a lane mask or selector the ISA does not have";
        return false;
    }
    return true;
}

}  // namespace cudabridge::nv::ptx
