// A PTX module as plain data, as the parser reads it: directives, variables, functions with their
// parameters, register declarations and instructions. Nothing here knows LLVM; every element
// keeps its source line so that later stages can name it in messages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudabridge::nv::ptx {

// PTX state spaces that variables and memory instructions name.
enum class space { none, reg, param, global, shared, local, constant, generic };

// A scalar PTX type (.b32, .f16, .pred, ...). `bits` is 1 for .pred.
struct scalar_type {
    enum class kind { none, bits, uint, sint, flt, pred } k = kind::none;
    int bits = 0;
    bool is_float() const { return k == kind::flt; }
    bool is_signed() const { return k == kind::sint; }
    bool valid() const { return k != kind::none; }
    bool operator==(const scalar_type&) const = default;
};

// One operand of an instruction.
struct operand {
    enum class kind {
        reg,        // %r1 (name), or a special register such as %tid.x
        imm_int,    // 42, -1, 0x7f
        imm_float,  // 0f3F800000 (f32 bits) or 0d... (f64 bits); `value` holds the bits
        symbol,     // a variable, parameter, label or function name
        address,    // [base+offset]: base is a register or symbol name, or empty for [imm]
        vector,     // {%f1, %f2, ...}: `elements`
        discard,    // _ (a sink)
    } k = kind::reg;
    std::string name;          // reg, symbol, address base
    int64_t value = 0;         // imm_int, imm_float bits, address offset
    bool negate_pred = false;  // !%p as a predicate source (selp, setp's combine, vote)
    bool base_is_reg = false;  // address: the base is a register
    int float_bits = 0;        // imm_float: 32 or 64
    std::vector<operand> elements;
};

struct instruction {
    int line = 0;
    std::string guard;  // predicate register name, or empty
    bool guard_negated = false;
    std::string opcode;             // e.g. "ld"
    std::vector<std::string> mods;  // e.g. {"global", "nc", "v4", "f32"} in source order
    std::vector<operand> operands;
    std::string label;  // a label definition: the instruction is a label only
    // call: the return parameters, the callee and the arguments.
    std::vector<operand> call_returns, call_args;
    std::string callee;  // a function's name, or the register holding its address (an indirect call)
    bool indirect_call() const { return !callee.empty() && callee[0] == '%'; }

    bool has(const char* m) const {
        for (const auto& x : mods)
            if (x == m) return true;
        return false;
    }
};

// A .reg/.param/.local/.shared declaration inside a body or at module scope.
struct variable {
    int line = 0;
    space where = space::none;
    scalar_type type;
    std::string name;
    uint32_t align = 0;
    uint64_t array_count = 0;    // [N]; 0 for a scalar
    bool unsized_array = false;  // [] (extern .shared)
    bool is_extern = false;
    bool visible = false;       // .visible, .weak or .common at module scope: linked by name
    int vector_width = 1;       // .v2/.v4 declarations
    int reg_count = -1;         // %r<N>: N registers %r0..%r(N-1); -1 for one named register
    std::vector<uint8_t> init;  // initializer bytes (global/const), little endian
    bool has_init = false;
    // Initializer elements that are addresses (a function for a vtable, a variable: `f`,
    // `generic(v)`): the symbol and the byte offset in `init` of its 8 bytes, which hold 0 until
    // the layout knows where the symbol lies.
    std::vector<std::pair<uint64_t, std::string>> address_init;
    uint64_t size_bytes() const;
};

struct function {
    int line = 0;
    bool is_entry = false;   // .entry (a kernel) or .func
    bool is_extern = false;  // declared only (vprintf)
    bool visible = false;
    std::string name;
    std::vector<variable> params;   // .param list
    std::vector<variable> returns;  // .func return parameters
    std::vector<variable> locals;   // .reg/.local/.shared/.param declared in the body
    std::vector<instruction> body;
    uint32_t reqntid[3] = {0, 0, 0};  // .reqntid/.maxntid, informational
};

struct module {
    std::string version;  // "9.0"
    std::string target;   // "sm_75"
    int address_size = 64;
    std::vector<variable> globals;  // .global/.const/.shared at module scope
    std::vector<function> functions;

    const function* find_function(const std::string& name) const {
        for (const auto& f : functions)
            if (f.name == name) return &f;
        return nullptr;
    }
};

inline uint64_t variable::size_bytes() const {
    const uint64_t elem = type.k == scalar_type::kind::pred ? 1 : uint64_t(type.bits / 8) * vector_width;
    return array_count ? elem * array_count : (unsized_array ? 0 : elem);
}

}  // namespace cudabridge::nv::ptx
