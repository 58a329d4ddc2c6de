#include "sim/ptx/recomputable.hpp"

#include <set>

namespace cudabridge::nv::ptx {
namespace {

// Instructions that write no register (operand 0 is an address or a label, or there is none).
bool writes_no_register(const std::string& op) {
    static const std::set<std::string> ops = {
        "st",     "red",   "bar",      "barrier",   "bra",       "brx",     "ret",           "exit",    "trap",
        "membar", "fence", "prefetch", "prefetchu", "nanosleep", "discard", "applypriority", "pmevent", "call"};
    return ops.count(op) != 0;
}

// Side-effect-free instructions whose result depends only on their operands.
bool is_pure(const instruction& in) {
    static const std::set<std::string> ops = {"mov", "cvta", "cvt", "add",  "sub",  "mul", "mad", "shl", "shr", "and",
                                              "or",  "xor",  "not", "setp", "selp", "min", "max", "neg", "abs"};
    if (in.opcode == "ld") return in.has("param");
    return ops.count(in.opcode) != 0;
}

bool is_index_register(const std::string& name) {
    for (const char* family : {"%tid.", "%ntid.", "%ctaid.", "%nctaid."})
        if (name.rfind(family, 0) == 0) return true;
    return false;
}

void written_by(const operand& o, std::vector<std::string>& out) {
    if (o.k == operand::kind::vector) {
        for (const auto& e : o.elements) written_by(e, out);
    } else if (o.k == operand::kind::reg) {
        out.push_back(o.name);
    }
}

// Every register an instruction may write.
std::vector<std::string> destinations(const instruction& in) {
    std::vector<std::string> out;
    if (in.opcode == "call")
        for (const auto& o : in.call_returns) written_by(o, out);
    else if (!writes_no_register(in.opcode) && !in.operands.empty())
        written_by(in.operands[0], out);
    return out;
}

}  // namespace

std::map<std::string, size_t> recomputable_registers(const function& kernel) {
    const auto& body = kernel.body;
    std::set<std::string> kernel_params;  // ld.param of these reads the launch's bytes
    for (const auto& p : kernel.params) kernel_params.insert(p.name);
    std::map<std::string, int> writes;
    for (const auto& in : body)
        if (in.label.empty())
            for (const auto& name : destinations(in)) ++writes[name];
    // Candidates: written once, unguarded, by a pure instruction into one plain register.
    std::map<std::string, size_t> candidates;
    for (size_t i = 0; i < body.size(); ++i) {
        const instruction& in = body[i];
        if (!in.label.empty() || !in.guard.empty() || !is_pure(in) || in.operands.empty()) continue;
        if (in.operands[0].k != operand::kind::reg || writes[in.operands[0].name] != 1) continue;
        candidates[in.operands[0].name] = i;
    }
    // Keep those whose sources are all recomputable too, until nothing changes.
    auto sources_ok = [&](const instruction& in) {
        for (size_t k = 1; k < in.operands.size(); ++k) {
            const operand& o = in.operands[k];
            switch (o.k) {
            case operand::kind::imm_int:
            case operand::kind::imm_float:
            case operand::kind::symbol:
                break;
            case operand::kind::reg:
                if (!is_index_register(o.name) && !candidates.count(o.name)) return false;
                break;
            case operand::kind::address:
                if (in.opcode != "ld" || o.base_is_reg || !kernel_params.count(o.name)) return false;
                break;
            default:
                return false;
            }
        }
        return true;
    };
    for (bool changed = true; changed;) {
        changed = false;
        for (auto it = candidates.begin(); it != candidates.end();) {
            if (sources_ok(body[it->second])) {
                ++it;
            } else {
                it = candidates.erase(it);
                changed = true;
            }
        }
    }
    return candidates;
}

std::vector<size_t> recompute_order(const function& kernel, const std::map<std::string, size_t>& recomputable,
                                    const std::vector<std::string>& wanted) {
    std::vector<size_t> order;
    std::set<size_t> seen;
    // Depth first: an instruction after the ones that write its sources.
    auto visit = [&](auto&& self, const std::string& name) -> void {
        auto it = recomputable.find(name);
        if (it == recomputable.end() || !seen.insert(it->second).second) return;
        const instruction& in = kernel.body[it->second];
        for (size_t k = 1; k < in.operands.size(); ++k)
            if (in.operands[k].k == operand::kind::reg) self(self, in.operands[k].name);
        order.push_back(it->second);
    };
    for (const auto& name : wanted) visit(visit, name);
    return order;
}

}  // namespace cudabridge::nv::ptx
