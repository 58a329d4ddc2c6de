#include "sim/ptx/barrier_regions.hpp"

#include "sim/ptx/layout.hpp"

#include <unordered_map>

namespace cudabridge::nv::ptx {
namespace {

bool is_block_barrier(const instruction& in) {
    return in.label.empty() && (in.opcode == "bar" || in.opcode == "barrier") && !in.has("warp");
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

}  // namespace cudabridge::nv::ptx
