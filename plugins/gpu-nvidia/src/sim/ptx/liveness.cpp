#include "sim/ptx/liveness.hpp"

#include "sim/ptx/layout.hpp"

#include <cstdint>
#include <set>
#include <unordered_map>

namespace cudabridge::nv::ptx {
namespace {

// Instructions whose first operand is written, in full, and never read. Any other instruction is
// taken to read all its register operands: a wrong guess keeps a register, it never drops one.
bool writes_first_operand(const std::string& op) {
    static const std::set<std::string> ops = {
        "mov",  "ld",       "ldu",       "cvta",  "cvt",        "add",   "sub",   "mul",   "mad",   "fma",  "div",
        "rem",  "abs",      "neg",       "min",   "max",        "and",   "or",    "xor",   "not",   "cnot", "shl",
        "shr",  "shf",      "popc",      "clz",   "brev",       "bfe",   "bfi",   "prmt",  "lop3",  "setp", "selp",
        "set",  "slct",     "copysign",  "testp", "rcp",        "sqrt",  "rsqrt", "sin",   "cos",   "ex2",  "lg2",
        "tanh", "atom",     "shfl",      "vote",  "activemask", "match", "redux", "mul24", "mad24", "sad",  "isspacep",
        "mma",  "ldmatrix", "movmatrix", "tex",   "tld4",       "txq",   "suld"};
    return ops.count(op) != 0;
}

bool writes_first_operand(const instruction& in) {
    if (in.opcode == "wmma") return !in.has("store");  // wmma.load and wmma.mma write their fragment
    if (in.opcode == "cp") return false;               // cp.async's first operand is its destination address
    if (in.opcode == "mbarrier") return !in.has("init") && !in.has("inval");
    return writes_first_operand(in.opcode);
}

using bits = std::vector<uint64_t>;

struct register_index {
    std::unordered_map<std::string, uint32_t> of;
    std::vector<std::string> names;

    explicit register_index(const function& f) {
        auto add = [&](const std::string& n) {
            if (of.emplace(n, static_cast<uint32_t>(names.size())).second) names.push_back(n);
        };
        for (const auto& v : f.locals) {
            if (v.where != space::reg) continue;
            if (v.reg_count >= 0)
                for (int i = 0; i < v.reg_count; ++i) add(v.name + std::to_string(i));
            else
                add(v.name);
        }
    }
    void mark(const std::string& name, bits& set) const {
        if (auto it = of.find(name); it != of.end()) set[it->second / 64] |= uint64_t{1} << (it->second % 64);
    }
};

// The registers an operand names (an address's base, a vector's elements).
void registers_of(const operand& o, const register_index& regs, bits& set) {
    if (o.k == operand::kind::vector) {
        for (const auto& e : o.elements) registers_of(e, regs, set);
    } else if (o.k == operand::kind::reg || (o.k == operand::kind::address && o.base_is_reg)) {
        regs.mark(o.name, set);
    }
    if (o.k == operand::kind::address)  // a texture's or surface's coordinates
        for (const auto& e : o.elements) registers_of(e, regs, set);
}

struct uses_and_defs {
    bits use, def;
};

uses_and_defs uses_and_defs_of(const instruction& in, const register_index& regs, size_t words) {
    uses_and_defs u{bits(words, 0), bits(words, 0)};
    if (!in.label.empty()) return u;
    if (!in.guard.empty()) regs.mark(in.guard, u.use);
    const bool writes = writes_first_operand(in) && !in.operands.empty();
    for (size_t i = 0; i < in.operands.size(); ++i) {
        // A guarded write may not happen, so it kills nothing.
        if (i == 0 && writes)
            registers_of(in.operands[0], regs, in.guard.empty() ? u.def : u.use);
        else
            registers_of(in.operands[i], regs, u.use);
    }
    for (const auto& o : in.call_args) registers_of(o, regs, u.use);
    for (const auto& o : in.call_returns) registers_of(o, regs, u.use);
    return u;
}

// The instructions control can reach next from instruction i.
std::vector<size_t> successors(const function& f, size_t i, const std::unordered_map<std::string, size_t>& labels) {
    const instruction& in = f.body[i];
    std::vector<size_t> next;
    const bool ends =
        in.guard.empty() && (in.opcode == "bra" || in.opcode == "ret" || in.opcode == "exit" || in.opcode == "trap");
    if (in.label.empty() && in.opcode == "bra" && !in.operands.empty()) {
        if (auto it = labels.find(in.operands[0].name); it != labels.end()) next.push_back(it->second);
    }
    if (!ends && i + 1 < f.body.size()) next.push_back(i + 1);
    return next;
}

}  // namespace

std::map<size_t, std::vector<std::string>> live_after_parks(const function& f, const std::set<size_t>& back_edges) {
    const register_index regs(f);
    const size_t n = f.body.size(), words = (regs.names.size() + 63) / 64;
    std::unordered_map<std::string, size_t> labels;
    for (size_t i = 0; i < n; ++i)
        if (!f.body[i].label.empty()) labels[f.body[i].label] = i;
    std::vector<uses_and_defs> ud;
    std::vector<std::vector<size_t>> succ;
    ud.reserve(n);
    succ.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        ud.push_back(uses_and_defs_of(f.body[i], regs, words));
        succ.push_back(successors(f, i, labels));
    }
    // live_in(i) = use(i) | (live_out(i) & ~def(i)); live_out(i) = the union over successors.
    std::vector<bits> live_in(n, bits(words, 0)), live_out(n, bits(words, 0));
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = n; i-- > 0;) {
            bits out(words, 0);
            for (size_t s : succ[i])
                for (size_t w = 0; w < words; ++w) out[w] |= live_in[s][w];
            for (size_t w = 0; w < words; ++w) {
                const uint64_t in = ud[i].use[w] | (out[w] & ~ud[i].def[w]);
                if (in != live_in[i][w]) live_in[i][w] = in, changed = true;
            }
            live_out[i] = std::move(out);
        }
    }
    std::map<size_t, std::vector<std::string>> parks;
    for (size_t i : back_edges) {
        const auto target = labels.find(f.body.at(i).operands.at(0).name);
        auto& names = parks[i];
        for (size_t r = 0; r < regs.names.size(); ++r)
            if (live_in[target->second][r / 64] >> (r % 64) & 1) names.push_back(regs.names[r]);
    }
    for (size_t i = 0; i < n; ++i) {
        const instruction& in = f.body[i];
        if (!in.label.empty() || !parks_thread(in)) continue;
        // A convergence point parks before its access: what it reads (and all else live) is kept.
        if (is_convergence_point(in)) {
            auto& names = parks[i];
            for (size_t r = 0; r < regs.names.size(); ++r)
                if (live_in[i][r / 64] >> (r % 64) & 1) names.push_back(regs.names[r]);
            continue;
        }
        // A warp instruction's destination is written when the thread resumes (a guarded one
        // parks only when its guard holds), so its old value need not be kept. A spinning load
        // parks after it wrote its destination: that is kept.
        bits result(words, 0);
        if (writes_first_operand(in) && !in.operands.empty() && !is_spin_load(in))
            registers_of(in.operands[0], regs, result);
        auto& names = parks[i];
        for (size_t r = 0; r < regs.names.size(); ++r)
            if ((live_out[i][r / 64] & ~result[r / 64]) >> (r % 64) & 1) names.push_back(regs.names[r]);
    }
    return parks;
}

}  // namespace cudabridge::nv::ptx
