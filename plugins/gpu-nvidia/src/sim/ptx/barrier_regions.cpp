#include "sim/ptx/barrier_regions.hpp"

#include "sim/ptx/layout.hpp"

#include <algorithm>
#include <unordered_map>

namespace cudabridge::nv::ptx {
namespace {

const std::map<std::string, std::string> normal_comparison = {{"eq", "eq"}, {"ne", "ne"}, {"lt", "lt"}, {"le", "le"},
                                                              {"gt", "gt"}, {"ge", "ge"}, {"lo", "lt"}, {"ls", "le"},
                                                              {"hi", "gt"}, {"hs", "ge"}};

// `setp.CMP.{u32,s32,b32} %p, %tid.x-register, constant`: the comparison and the constant.
struct tid_comparison {
    std::string cmp;
    int64_t constant = 0;
};

bool is_tid_x(const operand& o, const function& k, const std::map<std::string, size_t>& recomputable) {
    if (o.k != operand::kind::reg) return false;
    if (o.name == "%tid.x") return true;
    auto def = recomputable.find(o.name);
    if (def == recomputable.end()) return false;
    const instruction& in = k.body[def->second];
    return in.opcode == "mov" && in.operands.size() == 2 && in.operands[1].k == operand::kind::reg &&
           in.operands[1].name == "%tid.x" && (in.has("u32") || in.has("b32") || in.has("s32"));
}

bool compares_tid_x(const instruction& in, const function& k, const std::map<std::string, size_t>& recomputable,
                    tid_comparison& out) {
    if (in.opcode != "setp" || in.operands.size() != 3 || in.mods.size() != 2) return false;
    const bool is_signed = in.mods[1] == "s32";
    if (!is_signed && in.mods[1] != "u32" && in.mods[1] != "b32") return false;
    auto cmp = normal_comparison.find(in.mods[0]);
    if (cmp == normal_comparison.end() || in.operands[0].k != operand::kind::reg) return false;
    if (!is_tid_x(in.operands[1], k, recomputable) || in.operands[2].k != operand::kind::imm_int) return false;
    out.cmp = cmp->second;
    const auto bits = static_cast<uint32_t>(in.operands[2].value);
    out.constant = is_signed ? int64_t{static_cast<int32_t>(bits)} : int64_t{bits};
    return true;
}

// The %tid.x values for which `tid CMP c` is false (`holds`: true), as [lo, hi).
void range_where(const tid_comparison& c, bool holds, int64_t& lo, int64_t& hi) {
    const int64_t k = c.constant, none = std::numeric_limits<int64_t>::max();
    std::string cmp = c.cmp;
    if (!holds) {
        static const std::map<std::string, std::string> opposite = {{"eq", "ne"}, {"ne", "eq"}, {"lt", "ge"},
                                                                    {"le", "gt"}, {"gt", "le"}, {"ge", "lt"}};
        cmp = opposite.at(cmp);
    }
    lo = 0, hi = none;
    if (cmp == "eq") lo = k, hi = k + 1;
    if (cmp == "lt") hi = k;
    if (cmp == "le") hi = k + 1;
    if (cmp == "gt") lo = k + 1;
    if (cmp == "ge") lo = k;
    lo = std::max<int64_t>(lo, 0);
    hi = std::max(hi, lo);
}

// A plain block barrier (bar.red, which reduces across the block, needs the general loop's
// executor, as warp instructions do).
bool is_block_barrier(const instruction& in) {
    return in.label.empty() && (in.opcode == "bar" || in.opcode == "barrier") && !in.has("warp") && !in.has("red");
}

}  // namespace

std::vector<size_t> straight_region_barriers(const function& kernel) {
    const auto& body = kernel.body;
    // region[i]: how many barriers come before instruction i.
    std::vector<size_t> barriers, region(body.size());
    std::unordered_map<std::string, size_t> labels;
    for (size_t i = 0; i < body.size(); ++i) {
        const instruction& in = body[i];
        region[i] = barriers.size();
        if (!in.label.empty()) labels[in.label] = i;
        if (!in.label.empty() || !parks_thread(in)) continue;
        // A warp instruction or a guarded barrier needs the general loop.
        if (!is_block_barrier(in) || !in.guard.empty()) return {};
        barriers.push_back(i);
    }
    if (barriers.empty()) return {};
    for (size_t i = 0; i < body.size(); ++i) {
        const instruction& in = body[i];
        if (!in.label.empty()) continue;
        // An exit before the last barrier leaves threads out of the next regions.
        if ((in.opcode == "ret" || in.opcode == "exit") && region[i] != barriers.size()) return {};
        if (in.opcode == "brx") return {};
        if (in.opcode != "bra") continue;
        // A branch stays inside its region (a jump to the label of the region's own barrier
        // included): one that leaves it puts a barrier in a loop or behind a condition.
        if (in.operands.empty()) return {};
        auto target = labels.find(in.operands[0].name);
        if (target == labels.end() || region[target->second] != region[i]) return {};
    }
    return barriers;
}

std::vector<region_threads> region_thread_ranges(const function& kernel, const std::vector<size_t>& barriers,
                                                 const std::map<std::string, size_t>& recomputable) {
    const auto& body = kernel.body;
    std::vector<region_threads> ranges(barriers.size() + 1);
    std::unordered_map<std::string, size_t> labels;
    for (size_t i = 0; i < body.size(); ++i)
        if (!body[i].label.empty()) labels[body[i].label] = i;
    auto next_instruction = [&](size_t i, size_t end) {
        while (i < end && !body[i].label.empty()) ++i;
        return i;
    };
    // Region 0 starts from zeroed registers; the others from a barrier.
    for (size_t r = 1; r < ranges.size(); ++r) {
        const size_t begin = barriers[r - 1] + 1, end = r < barriers.size() ? barriers[r] : body.size();
        size_t i = next_instruction(begin, end);
        uint32_t executed = 0;
        tid_comparison c;
        std::string predicate;
        if (i < end && compares_tid_x(body[i], kernel, recomputable, c)) {
            predicate = body[i].operands[0].name;
            ++executed;
            i = next_instruction(i + 1, end);
        }
        if (i >= end || body[i].opcode != "bra" || body[i].guard.empty() || body[i].operands.empty()) continue;
        const instruction& branch = body[i];
        ++executed;
        if (predicate.empty()) {
            // The predicate comes from an earlier region: its one write must be such a comparison.
            auto def = recomputable.find(branch.guard);
            if (def == recomputable.end() || !compares_tid_x(body[def->second], kernel, recomputable, c)) continue;
        } else if (branch.guard != predicate || !recomputable.count(predicate)) {
            continue;
        }
        // The branch goes to the region's end: only labels, then the barrier (or the kernel's
        // unguarded ret/exit and its end) follow its target.
        auto target = labels.find(branch.operands[0].name);
        if (target == labels.end() || target->second < i) continue;
        size_t after = next_instruction(target->second, end);
        if (r < barriers.size()) {
            if (after != end) continue;
            ++executed;  // the barrier
        } else {
            while (after < end && body[after].guard.empty() &&
                   (body[after].opcode == "ret" || body[after].opcode == "exit"))
                after = next_instruction(after + 1, end), ++executed;
            if (after != end) continue;
        }
        range_where(c, branch.guard_negated, ranges[r].lo, ranges[r].hi);
        ranges[r].skipped_instructions = executed;
    }
    return ranges;
}

}  // namespace cudabridge::nv::ptx
