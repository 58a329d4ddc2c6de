#include "sim/ptx/limits.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace cudabridge::nv::ptx::limits {
namespace {

std::string at(int line) { return "line " + std::to_string(line) + ": "; }

// "sm_90", "sm_90a", "compute_120f": a GPU architecture NVIDIA has shipped (PTX ISA, "Target
// ISA notes"); texmode_independent, debug and map_f64_to_f32 are options, not targets.
bool known_target(const std::string& t) {
    static const std::set<int> architectures = {10, 11, 12, 13, 20, 21, 30, 32, 35, 37, 50,  52,  53,  60,  61,  62, 70,
                                                72, 73, 75, 80, 82, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121};
    std::string digits;
    if (t.rfind("sm_", 0) == 0)
        digits = t.substr(3);
    else if (t.rfind("compute_", 0) == 0)
        digits = t.substr(8);
    else
        return false;
    if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.pop_back();
    if (digits.empty() || digits.size() > 3 ||
        !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
        return false;
    return architectures.count(std::stoi(digits)) > 0;
}

std::string check_version(const std::string& v) {
    const size_t dot = v.find('.');
    const bool digits_only =
        !v.empty() && std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c) != 0 || c == '.'; });
    if (dot == std::string::npos || dot == 0 || dot + 1 == v.size() || !digits_only || v.size() > 6 ||
        v.find('.', dot + 1) != std::string::npos)
        return ".version '" + v + "' is not a PTX ISA version (major.minor)";
    const int major = std::stoi(v.substr(0, dot));
    if (major < 1 || major > newest_isa_major)
        return ".version " + v + ": PTX ISA " + std::to_string(major) + ".x is not one this engine reads (1.0 to " +
               std::to_string(newest_isa_major) + ".x)";
    return {};
}

std::string too_big(const variable& v, const char* what, uint64_t bytes, uint64_t limit) {
    return at(v.line) + "'" + v.name + "': " + std::to_string(bytes) + " bytes of " + what + " (at most " +
           std::to_string(limit) + ")";
}

// The sizes one function's own variables take, by state space.
std::string check_function(const function& f) {
    uint64_t local = 0, shared = 0, params = 0;
    for (const auto& p : f.params) params += p.size_bytes();
    if (f.is_entry && params > kernel_parameter_bytes)
        return at(f.line) + "kernel '" + f.name + "': " + std::to_string(params) + " bytes of parameters (at most " +
               std::to_string(kernel_parameter_bytes) + ")";
    for (const auto& v : f.locals) {
        if (v.where == space::local && (local += v.size_bytes()) > local_bytes_per_thread)
            return too_big(v, "local memory per thread", local, local_bytes_per_thread);
        if (v.where == space::shared && (shared += v.size_bytes()) > shared_bytes_per_block)
            return too_big(v, "shared memory per block", shared, shared_bytes_per_block);
    }
    return {};
}

std::string check_globals(const module& m) {
    uint64_t shared = 0, constant = 0, global = 0;
    for (const auto& v : m.globals) {
        if (v.where == space::shared && (shared += v.size_bytes()) > shared_bytes_per_block)
            return too_big(v, "shared memory per block", shared, shared_bytes_per_block);
        if (v.where == space::constant && (constant += v.size_bytes()) > constant_bytes)
            return too_big(v, "constant memory", constant, constant_bytes);
        if (v.where == space::global && (global += v.size_bytes()) > global_variable_bytes)
            return too_big(v, "module variables (.global)", global, global_variable_bytes);
    }
    return {};
}

}  // namespace

std::string check(const module& m) {
    if (std::string e = check_version(m.version); !e.empty()) return at(1) + e;
    if (!known_target(m.target))
        return at(1) + ".target " + (m.target.empty() ? std::string("(none)") : m.target) +
               ": not a GPU architecture (sm_50 ... sm_121, or compute_NN)";
    if (std::string e = check_globals(m); !e.empty()) return e;
    std::set<std::string> defined;
    for (const auto& f : m.functions) {
        if (f.is_extern) continue;
        if (!defined.insert(f.name).second)
            return at(f.line) + (f.is_entry ? "kernel '" : "function '") + f.name + "' is defined twice";
        if (std::string e = check_function(f); !e.empty()) return e;
    }
    return {};
}

}  // namespace cudabridge::nv::ptx::limits
