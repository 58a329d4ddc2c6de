// Linking translation units' PTX (link_units.hpp).
#include "sim/ptx/link_units.hpp"

#include <map>
#include <set>

namespace cudabridge::nv::ptx {
namespace {

bool starts_line(std::string_view text, size_t at) { return at == 0 || text[at - 1] == '\n'; }

using renames = std::map<std::string, std::string>;

void rename_operand(operand& o, const renames& to) {
    if (o.k == operand::kind::vector) {
        for (auto& e : o.elements) rename_operand(e, to);
        return;
    }
    const bool named_symbol = o.k == operand::kind::symbol || (o.k == operand::kind::address && !o.base_is_reg);
    if (!named_symbol) return;
    if (const auto it = to.find(o.name); it != to.end()) o.name = it->second;
}

// Gives the unit's own symbols in `to` their new names, wherever the unit names them.
void rename_symbols(module& m, const renames& to) {
    for (auto& f : m.functions) {
        if (const auto it = to.find(f.name); it != to.end()) f.name = it->second;
        for (auto& in : f.body) {
            for (auto& o : in.operands) rename_operand(o, to);
            for (auto& o : in.call_args) rename_operand(o, to);
            for (auto& o : in.call_returns) rename_operand(o, to);
            if (!in.indirect_call())
                if (const auto it = to.find(in.callee); it != to.end()) in.callee = it->second;
        }
    }
    for (auto& v : m.globals) {
        if (const auto it = to.find(v.name); it != to.end()) v.name = it->second;
        for (auto& [offset, symbol] : v.address_init)
            if (const auto it = to.find(symbol); it != to.end()) symbol = it->second;
    }
}

bool linked(const function& f) { return f.visible || f.is_extern; }
bool linked(const variable& v) { return v.visible || v.is_extern; }

// The unit's own (unlinked) symbols whose names another unit links or an earlier unit already
// uses: renamed for this unit.
renames own_names_taken(const module& m, const std::set<std::string>& taken, size_t unit) {
    renames to;
    const std::string suffix = "$unit" + std::to_string(unit);
    for (const auto& f : m.functions)
        if (!linked(f) && taken.count(f.name)) to[f.name] = f.name + suffix;
    for (const auto& v : m.globals)
        if (!linked(v) && taken.count(v.name)) to[v.name] = v.name + suffix;
    return to;
}

}  // namespace

std::vector<std::string_view> translation_units(std::string_view text) {
    std::vector<size_t> starts;
    for (size_t at = text.find(".version"); at != std::string_view::npos; at = text.find(".version", at + 1))
        if (starts_line(text, at)) starts.push_back(at);
    std::vector<std::string_view> units;
    if (starts.size() < 2) return {text};
    for (size_t i = 0; i < starts.size(); ++i) {
        const size_t begin = i == 0 ? 0 : starts[i];
        const size_t end = i + 1 < starts.size() ? starts[i + 1] : text.size();
        units.push_back(text.substr(begin, end - begin));
    }
    return units;
}

bool link_units(std::vector<module>& units, module& out, std::string& error) {
    out = module{};
    if (units.empty()) return true;
    out.version = units.front().version;
    out.target = units.front().target;
    out.address_size = units.front().address_size;
    std::set<std::string> taken;  // the linked names, then each unit's own as it comes
    for (const auto& m : units) {
        for (const auto& f : m.functions)
            if (linked(f)) taken.insert(f.name);
        for (const auto& v : m.globals)
            if (linked(v)) taken.insert(v.name);
    }
    for (size_t u = 0; u < units.size(); ++u) {
        module& m = units[u];
        rename_symbols(m, own_names_taken(m, taken, u));
        for (const auto& f : m.functions) taken.insert(f.name);
        for (const auto& v : m.globals) taken.insert(v.name);
    }
    // Definitions first; an .extern stays only where no unit defines the name.
    std::set<std::string> defined;
    for (auto& m : units) {
        for (auto& f : m.functions) {
            if (f.is_extern) continue;
            if (!defined.insert(f.name).second) {
                error = "translation units define '" + f.name + "' twice (line " + std::to_string(f.line) + ")";
                return false;
            }
            out.functions.push_back(std::move(f));
        }
        for (auto& v : m.globals) {
            if (v.is_extern) continue;
            if (!defined.insert(v.name).second) {
                error = "translation units define '" + v.name + "' twice (line " + std::to_string(v.line) + ")";
                return false;
            }
            out.globals.push_back(std::move(v));
        }
    }
    for (auto& m : units) {
        for (auto& f : m.functions)
            if (f.is_extern && defined.insert(f.name).second) out.functions.push_back(std::move(f));
        for (auto& v : m.globals)
            if (v.is_extern && defined.insert(v.name).second) out.globals.push_back(std::move(v));
    }
    return true;
}

}  // namespace cudabridge::nv::ptx
