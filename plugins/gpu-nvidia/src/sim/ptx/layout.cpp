#include "sim/ptx/layout.hpp"

#include "sim/ptx/abi.hpp"
#include "sim/ptx/barrier_regions.hpp"
#include "sim/ptx/device_heap.hpp"
#include "sim/ptx/device_launch.hpp"
#include "sim/ptx/limits.hpp"
#include "sim/ptx/liveness.hpp"
#include "sim/ptx/recomputable.hpp"
#include "sim/ptx/simd_video.hpp"
#include "sim/ptx/texture_fetch.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <set>

namespace cudabridge::nv::ptx {
namespace {

// The registers live after a parking instruction that can be computed again (recomputable.hpp)
// leave the save list for the list of instructions that compute them; in straight regions, each
// region's threads too.
void plan_recomputation(const function& k, kernel_layout& kl) {
    const auto recomputable = recomputable_registers(k);
    for (auto& [index, live] : kl.live_after_park) {
        std::vector<std::string> kept;
        for (const auto& name : live)
            if (!recomputable.count(name)) kept.push_back(name);
        kl.recompute_after_park[index] = recompute_order(k, recomputable, live);
        live = std::move(kept);
    }
    if (!kl.region_barriers.empty()) kl.region_ranges = region_thread_ranges(k, kl.region_barriers, recomputable);
}

// Packed half pairs and bf16 the lowering computes (lower_half2, lower_bf16): __hadd2, __hmul2, ...
bool half2_arithmetic(const std::string& op) {
    return op == "add" || op == "sub" || op == "mul" || op == "fma" || op == "neg" || op == "abs" || op == "min" ||
           op == "max";
}

uint32_t align_up(uint64_t v, uint64_t a) { return static_cast<uint32_t>(a ? (v + a - 1) / a * a : v); }

uint32_t natural_align(const variable& v) {
    if (v.align) return v.align;
    const uint32_t elem = v.type.k == scalar_type::kind::pred ? 1 : uint32_t(v.type.bits / 8) * v.vector_width;
    return std::max<uint32_t>(elem, 1);
}

// Opcodes the lowering handles; anything else is refused at load, by name and line.
const std::set<std::string>& supported_opcodes() {
    static const std::set<std::string> ops = {
        "mov",       "ld",    "ldu",   "st",         "cvta",     "cvt",           "add",       "sub",      "mul",
        "mad",       "fma",   "div",   "rem",        "abs",      "neg",           "min",       "max",      "and",
        "or",        "xor",   "not",   "cnot",       "shl",      "shr",           "popc",      "clz",      "brev",
        "bfe",       "bfi",   "prmt",  "lop3",       "setp",     "selp",          "set",       "slct",     "copysign",
        "testp",     "rcp",   "sqrt",  "rsqrt",      "sin",      "cos",           "ex2",       "lg2",      "tanh",
        "bra",       "ret",   "exit",  "trap",       "bar",      "barrier",       "membar",    "fence",    "atom",
        "red",       "shfl",  "vote",  "activemask", "match",    "redux",         "call",      "prefetch", "prefetchu",
        "nanosleep", "mul24", "mad24", "sad",        "discard",  "applypriority", "pmevent",   "isspacep", "cp",
        "shf",       "bfind", "addc",  "subc",       "madc",     "bmsk",          "szext",     "fns",      "dp4a",
        "dp2a",      "wmma",  "mma",   "ldmatrix",   "mbarrier", "stmatrix",      "movmatrix", "tex",      "tld4",
        "txq",       "suld",  "sust"};
    return ops;
}

// Why an opcode the language has is not run, for the message.
std::string why_not(const std::string& op) {
    if (op == "sured" || op == "suq") return "surface reductions and surface queries are not supported";
    if (op == "vadd" || op == "vsub" || op == "vabsdiff" || op == "vmin" || op == "vmax" || op == "vshl" ||
        op == "vshr" || op == "vmad" || op == "vset")
        return "the scalar video instructions are not supported (their SIMD forms vadd4, vadd2, ... are)";
    if (op == "wgmma" || op == "tcgen05")
        return "tensor-core matrix instructions other than wmma, mma.sync and ld/st/movmatrix are not supported";
    return "the simulated GPU's PTX engine does not implement it";
}

std::string at(const instruction& in) { return "line " + std::to_string(in.line) + ": "; }

std::string full_opcode(const instruction& in) {
    std::string s = in.opcode;
    for (const auto& m : in.mods) s += "." + m;
    return s;
}

std::string check_instruction(const instruction& in, const module& m, bool in_func) {
    if (!in.label.empty()) return {};
    const std::string name = full_opcode(in);
    if (is_simd_video(in.opcode)) {
        simd_video_code code;
        std::string why;
        if (!simd_video_code_of(in, code, why)) return at(in) + "'" + name + "': " + why;
        return {};
    }
    if (!supported_opcodes().count(in.opcode)) return at(in) + "'" + name + "': " + why_not(in.opcode);
    if (in.opcode == "tex" || in.opcode == "tld4" || in.opcode == "txq" || in.opcode == "suld" || in.opcode == "sust") {
        texture_code code;
        std::string why;
        if (!texture_instruction_code(in, code, why)) return at(in) + "'" + name + "': " + why;
    }
    // cp.async copies at once (the data is there when a wait returns); the bulk (TMA) forms and
    // transaction counts are sm_90's and not run.
    if (in.opcode == "cp" && (!in.has("async") || in.has("bulk")))
        return at(in) + "'" + name + "': bulk asynchronous copies (cp.async.bulk, TMA) are not supported";
    if (in.opcode == "cp" && in.has("async") &&
        !(in.has("ca") || in.has("cg") || in.has("commit_group") || in.has("wait_group") || in.has("wait_all") ||
          in.has("mbarrier")))
        return at(in) + "'" + name + "': this form of cp.async is not supported";
    if (in.opcode == "mbarrier" && (in.has("expect_tx") || in.has("complete_tx") || in.has("shared::cluster")))
        return at(in) + "'" + name + "': mbarrier transaction counts and cluster barriers are not supported";
    if (in.opcode == "barrier" && (in.has("cluster") || in.has("arrive")))
        return at(in) + "'" + name + "': cluster barriers and split arrive/wait are not supported";
    if ((in.opcode == "bar" || in.opcode == "barrier") && !in.has("warp")) {
        if (in.has("arrive")) return at(in) + "'" + name + "': bar.arrive is not supported";
        // bar.red d, a, {!}c: the barrier's number, then the predicate (a thread count between
        // them is not supported, as for bar.sync).
        const size_t counted = in.has("red") ? 3 : 1;
        if (in.operands.size() > counted)
            return at(in) + "'" + name + "': barriers with a thread count are not supported";
        if (in.has("red") && !(in.has("popc") || in.has("and") || in.has("or")))
            return at(in) + "'" + name + "': a bar.red other than popc, and, or";
    }
    if (in.opcode == "call") {
        if (in.callee == "vprintf" || in.callee == "__assertfail") return {};
        if (const device_runtime_call d = device_runtime_function(in.callee); d != device_runtime_call::none) {
            size_t arguments = 0, returns = 0;
            device_runtime_signature(d, arguments, returns);
            if (in.call_args.size() != arguments || in.call_returns.size() != returns)
                return at(in) + "'call " + in.callee + "': not the signature of CUDA's device runtime";
            return {};
        }
        if (in.callee == "cudaGetParameterBufferV2" || in.callee == "cudaLaunchDeviceV2" ||
            in.callee == "cudaGetParameterBuffer")
            return at(in) + "'call " + in.callee +
                   "': the legacy device runtime (CDP1, before CUDA 12) is not supported; CUDA 12 and 13 "
                   "compile launches from kernels to the __cudaCDP2 calls the engine runs";
        if (heap_function(in.callee) != heap_call::none) {
            if (in.call_args.size() != 1 ||
                in.call_returns.size() != (heap_function(in.callee) == heap_call::allocate ? 1u : 0u))
                return at(in) + "'call " + in.callee + "': not the signature of CUDA's " + in.callee;
            return {};
        }
        if (in.indirect_call()) {
            if (call_targets(m, in).empty())
                return at(in) + "'call " + in.callee + "': no function of the module takes " +
                       std::to_string(in.call_args.size()) + " parameters and returns " +
                       std::to_string(in.call_returns.size()) + " values";
            return {};
        }
        const function* f = m.find_function(in.callee);
        if (!f) return at(in) + "'call " + in.callee + "': no such function in the module";
        if (f->is_extern) return at(in) + "'call " + in.callee + "': an external function the engine does not provide";
        if (f->is_entry) return at(in) + "'call " + in.callee + "': a kernel cannot be called";
    }
    if (in_func && parks_thread(in) && !is_convergence_point(in) && !is_spin_load(in))
        return at(in) + "'" + name +
               "': barriers and warp-wide instructions inside a called .func are not supported "
               "(mark the device function __forceinline__)";
    // cvt to tf32 (what wmma::__float_to_tf32 emits) rounds as it says (lower_tf32_cvt).
    if (in.opcode == "cvt" && in.has("tf32")) {
        if (in.has("f32") && (in.has("rna") || in.has("rn") || in.has("rz")) && !in.has("satfinite") &&
            !in.has("relu") && in.mods.size() == 3)
            return {};
        return at(in) + "'" + name + "': conversions to .tf32 other than cvt.{rna,rn,rz}.tf32.f32 are not supported";
    }
    for (const auto& mod : in.mods)
        if (mod == "rz" || mod == "rm" || mod == "rp") {
            const std::string& op = in.opcode;
            const bool arith = (op == "add" || op == "sub" || op == "mul" || op == "fma" || op == "mad" ||
                                op == "div" || op == "sqrt" || op == "rcp") &&
                               (in.has("f32") || in.has("f64"));
            if (!arith)
                return at(in) + "'" + name + "': directed rounding (." + mod +
                       ") is only supported for f32 and f64 add, sub, mul, fma, div, sqrt and rcp";
        }
    if (in.has("xorsign")) return at(in) + "'" + name + "': min/max with .xorsign.abs are not supported";
    // Tensor cores: the lowering checks shapes and types (lower_matrix), naming what it refuses.
    if (in.opcode == "wmma" || in.opcode == "mma" || in.opcode == "ldmatrix" || in.opcode == "stmatrix" ||
        in.opcode == "movmatrix")
        return {};
    for (const auto& mod : in.mods) {
        // Packed halves and bf16 in arithmetic (lowering.cpp's lower_half2, lower_bf16), compares,
        // conversions from f32 and atomic adds.
        const bool anywhere = in.opcode == "setp" || in.opcode == "set" || in.opcode == "cvt" ||
                              ((in.opcode == "atom" || in.opcode == "red") && in.has("add"));
        if ((mod == "f16x2" || mod == "bf16" || mod == "bf16x2") && (half2_arithmetic(in.opcode) || anywhere)) continue;
        if (mod == "f16x2" || mod == "bf16" || mod == "bf16x2" || mod == "tf32" || mod == "e4m3" || mod == "e5m2")
            return at(in) + "'" + name + "': the ." + mod + " type is not supported";
    }
    return {};
}

// Calls that go to a function of the module (not printf, assert, the device heap or the device
// runtime).
bool calls_module_function(const instruction& in) {
    return in.opcode == "call" && in.callee != "vprintf" && in.callee != "__assertfail" &&
           device_runtime_function(in.callee) == device_runtime_call::none &&
           heap_function(in.callee) == heap_call::none;
}

// The functions reachable from `root` through calls (root first), and whether some of them call
// themselves, directly or through others.
std::vector<const function*> call_tree(const module& m, const function& root, bool& recursive) {
    std::vector<const function*> out, stack;
    recursive = false;
    std::function<void(const function&)> visit = [&](const function& f) {
        if (std::find(stack.begin(), stack.end(), &f) != stack.end()) {
            recursive = true;
            return;
        }
        if (std::find(out.begin(), out.end(), &f) != out.end()) return;
        out.push_back(&f);
        stack.push_back(&f);
        for (const auto& in : f.body)
            if (calls_module_function(in))
                for (const function* g : call_targets(m, in)) visit(*g);
        stack.pop_back();
    };
    visit(root);
    return out;
}

// Depot sizes: a function's own .local variables, then the deepest callee frame after them (a
// call back into a function on the way counts its own frame only: recursion's depth is checked
// as it runs, against the launch's stack).
uint32_t frame_bytes(const module& m, const function& f, module_layout& l, std::vector<const function*>& path) {
    if (auto it = l.local_frame.find(f.name); it != l.local_frame.end()) return it->second;
    uint32_t own = 0;
    auto& offsets = l.depot_offsets[f.name];
    for (const auto& v : f.locals)
        if (v.where == space::local) {
            own = align_up(own, natural_align(v));
            offsets[v.name] = own;
            own += static_cast<uint32_t>(v.size_bytes());
        }
    own = align_up(own, 16);
    l.own_frame[f.name] = own;
    path.push_back(&f);
    uint32_t deepest = 0;
    bool on_cycle = false;
    for (const auto& in : f.body)
        if (calls_module_function(in))
            for (const function* g : call_targets(m, in)) {
                if (std::find(path.begin(), path.end(), g) != path.end()) {
                    on_cycle = true;
                    continue;
                }
                deepest = std::max(deepest, frame_bytes(m, *g, l, path));
            }
    path.pop_back();
    // A function on a cycle is not remembered: its depth depends on where the cycle was entered.
    if (!on_cycle) l.local_frame[f.name] = own + deepest;
    return own + deepest;
}

// Appends v's bytes (its initializer, zero-filled to its size: nvcc leaves trailing zeros out)
// at its alignment, and records where.
void place_variable(const variable& v, std::map<std::string, uint64_t>& offsets, std::vector<uint8_t>& image) {
    const uint64_t off = align_up(image.size(), natural_align(v));
    image.resize(off);
    offsets[v.name] = off;
    std::vector<uint8_t> bytes(v.size_bytes(), 0);
    std::copy_n(v.init.begin(), std::min(v.init.size(), bytes.size()), bytes.begin());
    image.insert(image.end(), bytes.begin(), bytes.end());
}

}  // namespace

std::vector<const function*> functions_called_by(const module& m, const function& kernel) {
    bool recursive = false;
    std::vector<const function*> tree = call_tree(m, kernel, recursive);
    tree.erase(tree.begin());  // the kernel itself
    return tree;
}

std::vector<const function*> call_targets(const module& m, const instruction& call) {
    std::vector<const function*> out;
    if (!call.indirect_call()) {
        if (const function* f = m.find_function(call.callee); f && !f->is_extern) out.push_back(f);
        return out;
    }
    for (const auto& f : m.functions)
        if (!f.is_entry && !f.is_extern && f.params.size() == call.call_args.size() &&
            f.returns.size() == call.call_returns.size())
            out.push_back(&f);
    return out;
}

bool symbol_address(const module& m, const module_layout& l, const std::string& symbol, uint64_t& address) {
    for (size_t i = 0; i < m.functions.size(); ++i)
        if (m.functions[i].name == symbol && !m.functions[i].is_entry) {
            address = function_address(i);
            return true;
        }
    for (size_t i = 0; i < l.kernels.size(); ++i)
        if (l.kernels[i].name == symbol) {
            address = kernel_address(i);
            return true;
        }
    if (auto it = l.global_offsets.find(symbol); it != l.global_offsets.end()) {
        address = module_globals_window | it->second;
        return true;
    }
    if (auto it = l.const_offsets.find(symbol); it != l.const_offsets.end()) {
        address = const_window | it->second;
        return true;
    }
    return false;
}

namespace {

std::string lay_out_globals(const module& m, module_layout& l) {
    for (const auto& v : m.globals) {
        if (v.where == space::global) {
            place_variable(v, l.global_offsets, l.globals_init);
        } else if (v.where == space::constant) {
            place_variable(v, l.const_offsets, l.const_init);
        } else if (v.where != space::shared) {
            return "line " + std::to_string(v.line) + ": '" + v.name +
                   "': a module-scope variable of this state space "
                   "is not supported";
        }
    }
    // Addresses in initializers (vtables, pointers to variables), now that every variable has its
    // place: a function's in the function window, a variable's in its space's window.
    for (const auto& v : m.globals) {
        if (v.address_init.empty()) continue;
        const bool is_const = v.where == space::constant;
        std::vector<uint8_t>& image = is_const ? l.const_init : l.globals_init;
        const uint64_t at = (is_const ? l.const_offsets : l.global_offsets).at(v.name);
        for (const auto& [offset, symbol] : v.address_init) {
            uint64_t address = 0;
            if (!symbol_address(m, l, symbol, address))
                return "line " + std::to_string(v.line) + ": '" + v.name + "': the initializer's '" + symbol +
                       "' is neither a function nor a .global or .const variable of the module";
            if (offset + 8 <= v.size_bytes()) std::memcpy(image.data() + at + offset, &address, 8);
        }
    }
    return {};
}

kernel_layout lay_out_kernel(const module& m, const function& k, module_layout& l,
                             const std::vector<const function*>& tree) {
    kernel_layout kl;
    kl.name = k.name;
    kl.fn = &k;
    uint32_t off = 0;
    for (const auto& p : k.params) {
        param_slot s;
        s.name = p.name;
        s.type = p.type;
        s.align = natural_align(p);
        s.size = static_cast<uint32_t>(p.size_bytes());
        s.is_array = p.array_count > 0;
        off = align_up(off, s.align);
        s.offset = off;
        off += s.size;
        kl.params.push_back(s);
    }
    kl.param_bytes = off;
    // Static shared memory: the module's shared variables and those the call tree declares.
    uint64_t sh = 0;  // summed wide: the kernel's total is checked against the limit below
    auto place = [&](const variable& v) {
        if (v.where != space::shared || v.is_extern || v.unsized_array || kl.shared_offsets.count(v.name)) return;
        sh = align_up(sh, natural_align(v));
        kl.shared_offsets[v.name] = sh;
        sh += v.size_bytes();
    };
    for (const auto& v : m.globals) place(v);
    for (const function* f : tree)
        for (const auto& v : f->locals) place(v);
    uint32_t dyn_align = 16;
    for (const auto& v : m.globals)
        if (v.where == space::shared && (v.is_extern || v.unsized_array))
            dyn_align = std::max(dyn_align, natural_align(v));
    kl.static_shared = static_cast<uint32_t>(std::min<uint64_t>(sh, UINT32_MAX));
    kl.dynamic_shared_align = dyn_align;
    const uint32_t dyn_at = align_up(sh, dyn_align);
    for (const auto& v : m.globals)
        if (v.where == space::shared && (v.is_extern || v.unsized_array)) kl.shared_offsets[v.name] = dyn_at;
    // A called .func's volatile accesses and spinning loads do not park (its lanes run as before):
    // only the kernel's.
    for (const function* f : tree)
        for (const auto& in : f->body)
            if (parks_thread(in) && (f == &k || (!is_convergence_point(in) && !is_spin_load(in)))) kl.parks = true;
    std::vector<const function*> path;
    kl.local_bytes = frame_bytes(m, k, l, path);
    for (const function* f : tree)
        for (const auto& in : f->body) {
            if (in.opcode != "call") continue;
            const device_runtime_call d = device_runtime_function(in.callee);
            kl.device_runtime = kl.device_runtime || d != device_runtime_call::none;
            // Parameter buffers and error texts come from the device heap.
            kl.uses_heap = kl.uses_heap || heap_function(in.callee) != heap_call::none ||
                           d == device_runtime_call::parameter_buffer || d == device_runtime_call::error_string;
        }
    if (kl.parks) {
        kl.converging_back_edges = converging_back_edges(k);
        kl.live_after_park = live_after_parks(k, kl.converging_back_edges);
        kl.region_barriers = straight_region_barriers(k);
        plan_recomputation(k, kl);
        for (const auto& [index, names] : kl.live_after_park)
            for (const auto& name : names) kl.save_slots.emplace(name, static_cast<uint32_t>(kl.save_slots.size()));
    }
    kl.register_bytes = static_cast<uint32_t>(kl.save_slots.size()) * 8;
    kl.state_stride = align_up(thread_state_header + kl.register_bytes + kl.local_bytes, 16);
    // Tensor-core instructions exchange their fragments through an area after local memory.
    for (const auto& in : k.body)
        if (uses_matrix_area(in) && !kl.matrix_offset) {
            kl.matrix_offset = kl.state_stride;
            kl.state_stride += matrix_area_bytes;
        }
    return kl;
}

}  // namespace

bool parks_thread(const instruction& in) {
    if (in.opcode == "bar" || in.opcode == "barrier") return true;  // incl. bar.warp.sync
    return in.opcode == "shfl" || in.opcode == "vote" || in.opcode == "activemask" || in.opcode == "match" ||
           in.opcode == "redux" || is_convergence_point(in) || uses_matrix_area(in) || is_yield_point(in);
}

bool is_yield_point(const instruction& in) {
    return in.label.empty() &&
           ((in.opcode == "mbarrier" && (in.has("test_wait") || in.has("try_wait"))) || is_spin_load(in));
}

bool is_spin_load(const instruction& in) {
    if (!in.label.empty() || in.opcode != "ld") return false;
    for (const char* other : {"shared", "local", "const", "param"})
        if (in.has(other)) return false;
    if (in.has("acquire") || in.has("relaxed")) return !is_convergence_point(in);
    return in.has("volatile") && in.has("global");
}

std::set<size_t> converging_back_edges(const function& kernel) {
    const auto& body = kernel.body;
    std::map<std::string, size_t> labels;
    std::vector<size_t> converging;  // the convergence points, in order
    for (size_t i = 0; i < body.size(); ++i) {
        if (!body[i].label.empty()) labels[body[i].label] = i;
        if (is_convergence_point(body[i])) converging.push_back(i);
    }
    std::set<size_t> edges;
    for (size_t i = 0; i < body.size() && !converging.empty(); ++i) {
        const instruction& in = body[i];
        if (!in.label.empty() || in.opcode != "bra" || in.operands.size() != 1) continue;
        auto head = labels.find(in.operands[0].name);
        if (head == labels.end() || head->second > i) continue;
        auto first = std::lower_bound(converging.begin(), converging.end(), head->second);
        if (first != converging.end() && *first < i) edges.insert(i);
    }
    return edges;
}

bool uses_matrix_area(const instruction& in) {
    return in.label.empty() && (in.opcode == "mma" || in.opcode == "ldmatrix" || in.opcode == "stmatrix" ||
                                in.opcode == "movmatrix" || (in.opcode == "wmma" && in.has("mma")));
}

bool is_convergence_point(const instruction& in) {
    if (!in.label.empty() || (in.opcode != "ld" && in.opcode != "st") || !in.has("volatile")) return false;
    // Shared, or generic (which may be shared); not global, local, const or param.
    for (const char* other : {"global", "local", "const", "param"})
        if (in.has(other)) return false;
    return true;
}

layout_result lay_out(const module& m) {
    layout_result r;
    if (std::string e = limits::check(m); !e.empty()) {
        r.error = e;
        return r;
    }
    if (m.address_size != 64) {
        r.error = "line 1: .address_size " + std::to_string(m.address_size) + ": only 64-bit PTX is supported";
        return r;
    }
    // A .func no kernel calls (one inline_calls.hpp inlined everywhere) is never lowered: what
    // only a called function may not do does not apply to it.
    std::set<const function*> called;
    for (const auto& f : m.functions)
        if (f.is_entry && !f.is_extern)
            for (const function* g : functions_called_by(m, f)) called.insert(g);
    for (const auto& f : m.functions)
        for (const auto& in : f.body)
            if (std::string e = check_instruction(in, m, !f.is_entry && called.count(&f)); !e.empty()) {
                r.error = e;
                return r;
            }
    if (std::string e = lay_out_globals(m, r.layout); !e.empty()) {
        r.error = e;
        return r;
    }
    for (const auto& f : m.functions) {
        if (!f.is_entry || f.is_extern) continue;
        bool recursive = false;
        const std::vector<const function*> tree = call_tree(m, f, recursive);
        r.layout.kernels.push_back(lay_out_kernel(m, f, r.layout, tree));
        kernel_layout& kl = r.layout.kernels.back();
        kl.recursive = recursive;
        // A recursive kernel's local memory grows to the launch's stack, past the matrix area's
        // fixed place in the thread record.
        if (recursive && kl.matrix_offset) {
            r.error = "line " + std::to_string(f.line) + ": kernel '" + f.name +
                      "': recursion in a kernel with tensor-core instructions is not supported";
            return r;
        }
        // The module's shared variables and those of the kernel's call tree, together.
        if (const uint32_t shared = r.layout.kernels.back().static_shared; shared > limits::shared_bytes_per_block) {
            r.error = "line " + std::to_string(f.line) + ": kernel '" + f.name + "': " + std::to_string(shared) +
                      " bytes of shared memory per block (at most " + std::to_string(limits::shared_bytes_per_block) +
                      ")";
            return r;
        }
    }
    r.ok = true;
    return r;
}

}  // namespace cudabridge::nv::ptx
