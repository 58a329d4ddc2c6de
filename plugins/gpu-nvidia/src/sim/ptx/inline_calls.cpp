// Inlining calls of .funcs that park (inline_calls.hpp).
#include "sim/ptx/inline_calls.hpp"

#include "sim/ptx/layout.hpp"
#include "sim/ptx/limits.hpp"

#include <map>
#include <set>
#include <string>

namespace cudabridge::nv::ptx {
namespace {

bool parks_here(const instruction& in) { return parks_thread(in) && !is_convergence_point(in) && !is_spin_load(in); }

// Whether `f`, or a function it calls directly, parks. A call back into a function on the path
// (recursion) does not count: such calls stay calls.
bool parks(const module& m, const function& f, std::set<std::string>& path, std::map<std::string, bool>& known) {
    if (auto it = known.find(f.name); it != known.end()) return it->second;
    if (!path.insert(f.name).second) return false;
    bool result = false;
    for (const auto& in : f.body) {
        if (parks_here(in)) result = true;
        if (in.opcode == "call" && !in.indirect_call())
            if (const function* g = m.find_function(in.callee);
                g && !g->is_extern && !g->is_entry && parks(m, *g, path, known))
                result = true;
        if (result) break;
    }
    path.erase(f.name);
    known[f.name] = result;
    return result;
}

// The names a call site's copy of the callee uses instead of the callee's own.
class site_names {
public:
    site_names(const function& callee, const instruction& call, const std::string& prefix) : prefix_(prefix) {
        for (const auto& v : callee.locals) {
            if (v.where == space::shared) continue;  // one variable for every call, as in the callee
            const std::string renamed = fresh(v.name);
            if (v.where == space::reg && v.reg_count >= 0)
                for (int i = 0; i < v.reg_count; ++i) names_[v.name + std::to_string(i)] = renamed + std::to_string(i);
            else
                names_[v.name] = renamed;
        }
        for (size_t i = 0; i < callee.params.size() && i < call.call_args.size(); ++i)
            names_[callee.params[i].name] = call.call_args[i].name;
        for (size_t i = 0; i < callee.returns.size() && i < call.call_returns.size(); ++i)
            names_[callee.returns[i].name] = call.call_returns[i].name;
        for (const auto& in : callee.body)
            if (!in.label.empty()) names_[in.label] = "$" + prefix_ + in.label;
    }

    std::string fresh(const std::string& name) const {
        return name[0] == '%' ? "%" + prefix_ + name.substr(1) : prefix_ + name;
    }
    const std::string& operator()(const std::string& name) const {
        const auto it = names_.find(name);
        return it == names_.end() ? name : it->second;
    }
    std::string end_label() const { return "$" + prefix_ + "end"; }

private:
    std::string prefix_;
    std::map<std::string, std::string> names_;
};

void rename(operand& o, const site_names& names) {
    if (o.k == operand::kind::vector)
        for (auto& e : o.elements) rename(e, names);
    else if (o.k == operand::kind::reg || o.k == operand::kind::symbol || o.k == operand::kind::address)
        o.name = names(o.name);
}

instruction branch_to(const std::string& label, const instruction& like) {
    instruction bra;
    bra.line = like.line;
    bra.guard = like.guard;
    bra.guard_negated = like.guard_negated;
    bra.opcode = "bra";
    operand target;
    target.k = operand::kind::symbol;
    target.name = label;
    bra.operands.push_back(target);
    return bra;
}

// The callee's body for one call site, ending at its end label.
std::vector<instruction> inlined_body(const function& callee, const instruction& call, const site_names& names) {
    std::vector<instruction> out;
    if (!call.guard.empty()) {  // @%p call: the whole body is skipped when %p says so
        instruction skip = branch_to(names.end_label(), call);
        skip.guard_negated = !call.guard_negated;
        out.push_back(skip);
    }
    for (instruction in : callee.body) {
        if (!in.guard.empty()) in.guard = names(in.guard);
        if (!in.label.empty()) in.label = names(in.label);
        for (auto& o : in.operands) rename(o, names);
        for (auto& o : in.call_args) rename(o, names);
        for (auto& o : in.call_returns) rename(o, names);
        if (in.indirect_call()) in.callee = names(in.callee);
        if (in.opcode == "ret") in = branch_to(names.end_label(), in);
        out.push_back(std::move(in));
    }
    instruction end;
    end.line = call.line;
    end.label = names.end_label();
    out.push_back(end);
    return out;
}

void add_locals(function& caller, const function& callee, const site_names& names) {
    for (variable v : callee.locals) {
        if (v.where == space::shared) {
            bool present = false;
            for (const auto& mine : caller.locals) present = present || mine.name == v.name;
            if (!present) caller.locals.push_back(v);
            continue;
        }
        v.name = names.fresh(v.name);
        caller.locals.push_back(std::move(v));
    }
}

}  // namespace

size_t inline_parking_calls(module& m) {
    std::map<std::string, bool> known;
    std::set<std::string> path;
    size_t sites = 0;
    for (size_t k = 0; k < m.functions.size(); ++k) {
        if (!m.functions[k].is_entry) continue;
        for (size_t i = 0; i < m.functions[k].body.size(); ++i) {
            const instruction& call = m.functions[k].body[i];
            if (call.opcode != "call" || call.indirect_call()) continue;
            const function* callee = m.find_function(call.callee);
            if (!callee || callee->is_extern || callee->is_entry || !parks(m, *callee, path, known)) continue;
            if (callee->params.size() != call.call_args.size() || callee->returns.size() != call.call_returns.size())
                continue;  // the layout names the mismatch
            if (m.functions[k].body.size() + callee->body.size() > limits::instructions_per_function) continue;
            // The callee is another element of m.functions (a kernel is never called), which
            // this loop does not resize: `callee` stays valid while the caller's body changes.
            const site_names names(*callee, call, "inl" + std::to_string(++sites) + "_");
            std::vector<instruction> body = inlined_body(*callee, call, names);
            function& caller = m.functions[k];
            add_locals(caller, *callee, names);
            caller.body.erase(caller.body.begin() + static_cast<std::ptrdiff_t>(i));
            caller.body.insert(caller.body.begin() + static_cast<std::ptrdiff_t>(i), body.begin(), body.end());
            --i;  // the inlined body may call further functions that park
        }
    }
    return sites;
}

}  // namespace cudabridge::nv::ptx
