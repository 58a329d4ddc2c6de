// Random straight-line PTX programs for the engine's differential fuzz test, one kernel each:
// `.visible .entry fuzz_<seed>(.param .u64 out, .param .u64 in)` loads its inputs from the
// thread's input slice with ld.global, runs 20-60 random integer, float and predicate
// instructions over virtual registers, and then either stores every register it wrote (one
// 8-byte output slot each) or folds them all into one 64-bit digest that it stores.
// Deterministic in the seed.
//
// The engine's JIT costs about 0.13 ms per PTX instruction and 1 ms per global memory
// instruction, so the programs load with few vector loads and CI runs most of them as digests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudabridge::nv::ptx::fuzz {

// What a register (and so an input field or an output slot) holds.
enum class value_kind { b32, b64, f32, f64, pred };

enum class output_mode {
    // Every register the program wrote, each in its own 8-byte slot; 32-bit values leave the
    // slot's upper half as the test filled it. Shows which register differs.
    every_register,
    // h = h * 0x100000001B3 + v (mad.lo.u64) over every register written, 32-bit values paired
    // into 64 (mov.b64 {lo, hi}), NaNs first replaced by one canonical NaN (testp, selp), so
    // that the bits compare as the test compares stored floats: "both NaN" or equal. Each step
    // is a bijection in v, so one differing register always changes the digest.
    digest,
};

inline constexpr uint32_t input_stride = 128;  // bytes of input per thread
inline constexpr uint32_t output_slots = 128;  // every_register: 8-byte slots per thread
inline constexpr uint32_t slot_bytes = 8;
uint32_t output_stride(output_mode mode);  // bytes of output per thread

// Where a program reads one input value within its input slice.
struct input_field {
    value_kind kind = value_kind::b32;
    uint32_t offset = 0;
    uint32_t bytes = 4;  // 1, 2, 4 or 8
};

struct generated_program {
    uint64_t seed = 0;
    std::vector<input_field> inputs;
    std::vector<value_kind> outputs;  // every_register: what output slot k holds
    std::vector<std::string> stored;  // every_register: the register in output slot k
};

// Thread t reads [in + t * input_stride, + input_stride) and writes
// [out + t * output_stride(mode), + output_stride(mode)).
struct generated_kernel {
    std::string name;  // fuzz_<seed>
    std::string text;  // the .entry, without the module header
    output_mode mode = output_mode::digest;
    generated_program program;
};

generated_kernel generate_kernel(uint64_t seed, output_mode mode);

// A module of kernels: `.version 9.0`, `.target sm_75`, `.address_size 64`, then each entry.
std::string module_text(const std::vector<generated_kernel>& kernels);

// The input slice of one thread of a program (input_stride bytes): integers and floats biased
// towards edge values (0, ±1, extremes, ±0, subnormals, infinities, NaNs, ties).
std::vector<uint8_t> thread_inputs(const generated_program& program, uint32_t thread);

// The instruction forms ("add.s32", "cvt.rzi.u64.f32", ...) a kernel's text uses, for the
// coverage check: the opcode with its modifiers, without operands or guard.
std::vector<std::string> instruction_forms(const std::string& entry_text);

}  // namespace cudabridge::nv::ptx::fuzz
