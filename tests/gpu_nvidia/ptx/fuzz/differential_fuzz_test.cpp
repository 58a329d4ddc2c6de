// Differential fuzzing of the PTX engine: random straight-line integer, float and predicate
// programs (program_generator) run through the engine's JIT and through a reference
// interpreter written from the PTX ISA (reference_evaluator), compared bit for bit; NaNs
// compare as "both NaN", since PTX specifies neither a NaN result's payload nor its sign (the
// engine keeps the host's: input payloads propagate, a new NaN is 0xFFC00000 where a GPU gives
// 0x7FFFFFFF; the two sides' payloads differ in nearly every program that makes a NaN).
//
// What it found in the engine, each now fixed: testp.normal of zero, f32 add/sub/fma with
// directed rounding, cvt of NaN from .f64 or into 64 bits, min/max of -0 and +0. It also runs
// the integer instructions of CUDA's intrinsics (bmsk, szext, dp4a, dp2a, fns, prmt's modes,
// .relu, 16-bit pairs, the SIMD video instructions with their masks and selectors) and directed
// rounding of f32 and f64 add/sub/mul/fma/div/sqrt/rcp.
//
// Most programs run in digest mode (each thread's registers folded into one word: the
// engine's JIT time, about 30 ms of CPU per program, is what limits the count), the first few
// hundred storing every register. A program whose digest differs is rerun storing every
// register, to name the register and the bits.
//
// CB_PTX_FUZZ_PROGRAMS (default 10000, over all shards), CB_PTX_FUZZ_FIRST_SEED (default 0)
// and CB_PTX_FUZZ_EVERY_REGISTER (how many of them store every register, default 200) choose
// the seeds, so that a failure's seed can be rerun alone; CB_PTX_FUZZ_SHOW (default 3) how
// many failures are printed with their PTX.
#include "program_generator.hpp"
#include "reference_evaluator.hpp"

#include "sim/ptx/program.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

namespace cudabridge::nv::ptx::fuzz {
namespace {

// Random programs are never compiled twice: caching their machine code on disk (jit_cache.hpp)
// would only fill the user's cache folder. Set before the first compile.
const bool no_jit_cache = setenv("CUDABRIDGE_PTX_CACHE", "off", 1) == 0;

constexpr uint32_t threads_per_block = 4;
constexpr uint8_t untouched = 0xCD;  // what output bytes hold before a kernel runs

// Kernels per module (per program::load): the JIT's cost is per instruction, but a load has
// its own fixed cost too.
constexpr uint64_t kernels_per_module = 50;

uint64_t setting(const char* name, uint64_t fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

// A VRAM stand-in: device addresses from `base`, bump-allocated, reset per kernel.
struct fake_vram {
    static constexpr uint64_t base = 0x300000000ull;
    std::vector<uint8_t> bytes = std::vector<uint8_t>(1u << 16);
    uint64_t used = 0;
    device_memory memory() { return {bytes.data(), base, bytes.size()}; }
    uint64_t alloc(uint64_t n) {
        used = (used + 255) / 256 * 256;
        const uint64_t at = base + used;
        used += n;
        return at;
    }
    uint8_t* at(uint64_t address) { return bytes.data() + (address - base); }
};

cb_kernel_arg device_pointer(uint64_t p) {
    cb_kernel_arg a{};
    a.type = CB_ARG_DEVICE_PTR;
    a.value.device_ptr = p;
    return a;
}

const char* kind_name(value_kind k) {
    switch (k) {
    case value_kind::b32:
        return "b32";
    case value_kind::b64:
        return "b64";
    case value_kind::f32:
        return "f32";
    case value_kind::f64:
        return "f64";
    default:
        return "pred";
    }
}

bool is_nan_bits(value_kind k, uint64_t v) {
    if (k == value_kind::f32) return (v & 0x7F800000u) == 0x7F800000u && (v & 0x007FFFFFu) != 0;
    if (k == value_kind::f64)
        return (v & 0x7FF0000000000000ull) == 0x7FF0000000000000ull && (v & 0x000FFFFFFFFFFFFFull) != 0;
    return false;
}

// A stored slot matches when all 8 bytes agree, or when both hold a NaN of the slot's float
// width (and the bytes past a 32-bit value still agree).
bool slot_matches(value_kind k, uint64_t expected, uint64_t actual) {
    if (expected == actual) return true;
    if (k == value_kind::f32)
        return (expected >> 32) == (actual >> 32) && is_nan_bits(k, expected & 0xFFFFFFFFu) &&
               is_nan_bits(k, actual & 0xFFFFFFFFu);
    return k == value_kind::f64 && is_nan_bits(k, expected) && is_nan_bits(k, actual);
}

std::string hex64(uint64_t v) {
    char s[24];
    std::snprintf(s, sizeof s, "0x%016llx", static_cast<unsigned long long>(v));
    return s;
}

struct mismatch {
    uint64_t seed = 0;
    std::string what;  // the first differing word, or why the program could not be compared
    std::string ptx;
};

struct tally {
    std::vector<mismatch> failures;
    uint64_t programs = 0, words = 0, nan_words = 0;
    std::set<std::string> engine_nans;  // NaN bits the engine stored where the reference has a NaN too

    void add(const tally& o) {
        failures.insert(failures.end(), o.failures.begin(), o.failures.end());
        programs += o.programs;
        words += o.words;
        nan_words += o.nan_words;
        engine_nans.insert(o.engine_nans.begin(), o.engine_nans.end());
    }
};

// Both sides' output of one launch of one kernel, over the same inputs.
struct outcome {
    std::string error;  // the launch or the reference failed
    std::vector<uint8_t> expected, actual;
};

class fuzz_run {
public:
    tally t;

    // The programs for seeds [first, first + count), in one module.
    void module(output_mode mode, uint64_t first, uint64_t count) {
        std::vector<generated_kernel> kernels;
        for (uint64_t seed = first; seed < first + count; ++seed) kernels.push_back(generate_kernel(seed, mode));
        t.programs += count;
        std::string error;
        auto loaded = program::load(module_text(kernels), error);
        if (!loaded) return locate_load_failure(kernels, error);
        for (const auto& k : kernels) check(*loaded, k);
    }

private:
    fake_vram vram_;
    std::vector<uint8_t> reference_bytes_;
    const block_runner inline_runner_ = [](uint64_t n, const std::function<void(uint64_t, uint64_t)>& fn) { fn(0, n); };

    void fail(uint64_t seed, const std::string& what, const std::string& ptx) {
        t.failures.push_back({seed, what, ptx});
    }

    // A module that does not load: each program alone names the culprit.
    void locate_load_failure(const std::vector<generated_kernel>& kernels, const std::string& module_error) {
        bool found = false;
        for (const auto& k : kernels) {
            std::string error;
            if (!program::load(module_text({k}), error)) {
                fail(k.program.seed, "the engine refused it: " + error, module_text({k}));
                found = true;
            }
        }
        if (!found) fail(kernels.front().program.seed, "the module failed to load: " + module_error, "");
    }

    outcome run(const program& engine, const generated_kernel& k) {
        outcome o;
        std::string error;
        auto reference = reference_kernel::decode(k.text, error);
        if (!reference) return {"the reference evaluator cannot decode it: " + error, {}, {}};
        const uint64_t out_bytes = threads_per_block * output_stride(k.mode);
        vram_.used = 0;
        const uint64_t in = vram_.alloc(threads_per_block * input_stride), out = vram_.alloc(out_bytes);
        for (uint32_t th = 0; th < threads_per_block; ++th) {
            const auto slice = thread_inputs(k.program, th);
            std::memcpy(vram_.at(in + th * input_stride), slice.data(), input_stride);
        }
        std::memset(vram_.at(out), untouched, out_bytes);
        reference_bytes_.assign(vram_.bytes.begin(), vram_.bytes.begin() + long(vram_.used));

        const reference_memory memory{reference_bytes_.data(), fake_vram::base, reference_bytes_.size()};
        for (uint32_t th = 0; th < threads_per_block; ++th) {
            const std::string why = reference->run({out, in}, th, threads_per_block, memory);
            if (!why.empty())
                return {"the reference evaluator stopped in thread " + std::to_string(th) + ": " + why, {}, {}};
        }
        if (std::string why = launch(engine, k, in, out); !why.empty()) return {why, {}, {}};
        const uint64_t at = out - fake_vram::base;
        o.expected.assign(reference_bytes_.begin() + long(at), reference_bytes_.begin() + long(at + out_bytes));
        o.actual.assign(vram_.bytes.begin() + long(at), vram_.bytes.begin() + long(at + out_bytes));
        return o;
    }

    std::string launch(const program& engine, const generated_kernel& k, uint64_t in, uint64_t out) {
        launch_request r;
        const int index = engine.find(k.name);
        if (index < 0) return "the engine has no kernel " + k.name;
        r.kernel = size_t(index);
        r.block[0] = threads_per_block;
        const cb_kernel_arg args[2] = {device_pointer(out), device_pointer(in)};
        std::string error;
        if (engine.pack_arguments(r.kernel, args, 2, r.params, error) != CB_OK) return "pack_arguments: " + error;
        const launch_outcome o = engine.launch(r, vram_.memory(), inline_runner_, {});
        return o.status == CB_OK ? "" : "the launch failed: " + o.message;
    }

    static uint64_t word(const std::vector<uint8_t>& bytes, size_t offset) {
        uint64_t v;
        std::memcpy(&v, bytes.data() + offset, 8);
        return v;
    }

    void check(const program& engine, const generated_kernel& k) {
        const outcome o = run(engine, k);
        if (!o.error.empty()) return fail(k.program.seed, o.error, module_text({k}));
        for (uint32_t th = 0; th < threads_per_block; ++th) {
            const size_t at = th * output_stride(k.mode);
            if (k.mode == output_mode::every_register) {
                if (!compare_slots(k, th, o, at)) return;
                continue;
            }
            ++t.words;
            if (word(o.expected, at) != word(o.actual, at))
                return diagnose(k.program.seed, th, word(o.expected, at), word(o.actual, at));
        }
    }

    bool compare_slots(const generated_kernel& k, uint32_t th, const outcome& o, size_t at) {
        const generated_program& p = k.program;
        for (size_t s = 0; s < output_slots; ++s) {
            const uint64_t expected = word(o.expected, at + s * slot_bytes),
                           actual = word(o.actual, at + s * slot_bytes);
            const value_kind kind = s < p.outputs.size() ? p.outputs[s] : value_kind::b64;
            ++t.words;
            if (slot_matches(kind, expected, actual)) {
                if (is_nan_bits(kind, expected)) {
                    ++t.nan_words;
                    t.engine_nans.insert(hex64(kind == value_kind::f32 ? actual & 0xFFFFFFFFu : actual));
                }
                continue;
            }
            std::ostringstream what;
            what << "thread " << th << ", output slot " << s;
            if (s < p.outputs.size()) what << " (" << p.stored[s] << ", " << kind_name(kind) << ")";
            what << ": reference " << hex64(expected) << ", engine " << hex64(actual);
            fail(p.seed, what.str(), module_text({k}));
            return false;
        }
        return true;
    }

    // A digest differs: the program alone, storing every register, names the register.
    void diagnose(uint64_t seed, uint32_t th, uint64_t expected, uint64_t actual) {
        const std::string digest_what = "thread " + std::to_string(th) + ": digest " + hex64(expected) +
                                        " in the reference, " + hex64(actual) + " from the engine";
        const auto alone = generate_kernel(seed, output_mode::every_register);
        std::string error;
        auto loaded = program::load(module_text({alone}), error);
        const size_t before = t.failures.size();
        if (loaded) {
            const outcome o = run(*loaded, alone);
            if (o.error.empty())
                for (uint32_t x = 0; x < threads_per_block && t.failures.size() == before; ++x)
                    compare_slots(alone, x, o, x * output_stride(output_mode::every_register));
        }
        if (t.failures.size() == before)  // the difference is in the digest's own instructions
            fail(seed, digest_what, module_text({generate_kernel(seed, output_mode::digest)}));
        else
            t.failures.back().what += " (found from a differing " + digest_what + ")";
    }
};

// Seeds [first, first + count) in modules of kernels_per_module, over a few threads.
tally campaign(output_mode mode, uint64_t first, uint64_t count) {
    tally total;
    const uint64_t per_module = kernels_per_module;
    const uint64_t modules = (count + per_module - 1) / per_module;
    std::atomic<uint64_t> next{0};
    std::mutex merge;
    auto worker = [&] {
        fuzz_run mine;
        for (uint64_t m; (m = next++) < modules;) {
            const uint64_t seed = first + m * per_module;
            mine.module(mode, seed, std::min<uint64_t>(per_module, first + count - seed));
        }
        std::lock_guard<std::mutex> lock(merge);
        total.add(mine.t);
    };
    const unsigned n = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < n; ++i) pool.emplace_back(worker);
    for (auto& th : pool) th.join();
    std::sort(total.failures.begin(), total.failures.end(),
              [](const mismatch& a, const mismatch& b) { return a.seed < b.seed; });
    return total;
}

// The seeds run as shards, each its own ctest test, so that none runs long and ctest -j can
// spread them: shard i of n takes the i-th n-th of the seeds, its first tenth storing every
// register.
constexpr int shards = 10;

class PtxDifferentialFuzzShard : public ::testing::TestWithParam<int> {};

TEST_P(PtxDifferentialFuzzShard, RandomStraightLineProgramsMatchTheReferenceEvaluatorBitForBit) {
    const uint64_t total = setting("CB_PTX_FUZZ_PROGRAMS", 10000), start = setting("CB_PTX_FUZZ_FIRST_SEED", 0);
    // Where shard i starts in a run of n; a run shorter than the shards is all shard 0's.
    const auto edge = [](uint64_t n, uint64_t i) { return n < shards ? (i ? n : 0) : n * i / shards; };
    const uint64_t shard = uint64_t(GetParam()), every_total = setting("CB_PTX_FUZZ_EVERY_REGISTER", 200);
    const uint64_t first = start + edge(total, shard), count = edge(total, shard + 1) - edge(total, shard);
    const uint64_t every = std::min(count, edge(every_total, shard + 1) - edge(every_total, shard));
    if (count == 0) GTEST_SKIP() << "no seeds left for this shard";
    const auto started = std::chrono::steady_clock::now();
    tally all = campaign(output_mode::every_register, first, every);
    all.add(campaign(output_mode::digest, first + every, count - every));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cout << "[ fuzz     ] " << all.programs << " programs (seeds " << first << ".." << first + count - 1
              << ", the first " << every << " storing every register), " << all.words << " words compared ("
              << all.nan_words << " NaN on both sides), " << seconds << " s\n[ fuzz     ] NaN bits the engine stored:";
    for (const auto& nan : all.engine_nans) std::cout << " " << nan;
    std::cout << "\n";
    EXPECT_EQ(all.programs, count) << "every program ran";
    const uint64_t shown = setting("CB_PTX_FUZZ_SHOW", 3);  // failures printed with their PTX
    for (size_t i = 0; i < all.failures.size() && i < shown; ++i)
        ADD_FAILURE() << "seed " << all.failures[i].seed << ": " << all.failures[i].what << "\n" << all.failures[i].ptx;
    EXPECT_TRUE(all.failures.empty()) << all.failures.size()
                                      << " programs differ; rerun one with CB_PTX_FUZZ_FIRST_SEED=<seed> "
                                      << "CB_PTX_FUZZ_PROGRAMS=1 (shard 0)";
}

INSTANTIATE_TEST_SUITE_P(TenThousandSeeds, PtxDifferentialFuzzShard, ::testing::Range(0, shards));

// The instruction forms of a kernel from its program's loads to its last body instruction:
// what does not depend on the output mode.
std::vector<std::string> body_forms(const std::string& text) {
    const std::string prologue_end = "add.s64 %rd7, %rd3, %rd6;\n";
    const size_t begin = text.find(prologue_end) + prologue_end.size();
    size_t end = text.find("    ret;", begin);
    for (const char* tail : {"    st.global", ", 1, 0, %p", "0xCBF29CE484222325"})
        end = std::min(end, text.find(tail, begin));
    end = text.rfind('\n', end);
    return instruction_forms(text.substr(begin, end - begin));
}

TEST(PtxDifferentialFuzz, ASeedMakesTheSameProgramAndInputsInEitherOutputMode) {
    for (uint64_t seed : {3ull, 7ull, 123456789ull}) {
        const auto every = generate_kernel(seed, output_mode::every_register);
        const auto digest = generate_kernel(seed, output_mode::digest);
        EXPECT_EQ(every.text, generate_kernel(seed, output_mode::every_register).text);
        EXPECT_EQ(body_forms(every.text), body_forms(digest.text));
        EXPECT_EQ(thread_inputs(every.program, 2), thread_inputs(digest.program, 2));
        EXPECT_NE(thread_inputs(every.program, 0), thread_inputs(every.program, 1))
            << "each thread reads different data";
    }
    EXPECT_NE(generate_kernel(1, output_mode::digest).text, generate_kernel(2, output_mode::digest).text);
}

TEST(PtxDifferentialFuzz, ProgramsRunTwentyToSixtyInstructionsAndStoreEveryRegisterTheyWrite) {
    for (uint64_t seed = 0; seed < 200; ++seed) {
        const auto k = generate_kernel(seed, output_mode::every_register);
        const generated_program& p = k.program;
        const auto forms = body_forms(k.text);
        const auto last_load =
            std::find_if(forms.rbegin(), forms.rend(), [](const std::string& f) { return f.rfind("ld.", 0) == 0; });
        // After the loads, three movs reinterpret integer lanes as floats.
        const long body = long(last_load - forms.rbegin()) - 3;
        EXPECT_GE(body, 20) << seed;
        EXPECT_LE(body, 60 + 6) << seed << ": the last instruction may bring its divisor's guard";
        const auto all = instruction_forms(k.text);
        EXPECT_EQ(
            size_t(std::count_if(all.begin(), all.end(), [](const std::string& f) { return f.rfind("st.", 0) == 0; })),
            p.outputs.size())
            << seed;
        EXPECT_LE(p.outputs.size(), size_t(output_slots)) << seed;
        for (const auto& f : p.inputs) EXPECT_LE(f.offset + f.bytes, input_stride) << seed;
    }
}

TEST(PtxDifferentialFuzz, TheFirstThousandProgramsCoverEveryInstructionFamily) {
    std::set<std::string> seen;
    for (uint64_t seed = 0; seed < 1000; ++seed)
        for (const auto& f : instruction_forms(generate_kernel(seed, output_mode::digest).text)) seen.insert(f);
    for (const char* f : {"add.s32",
                          "add.sat.s32",
                          "sub.u64",
                          "mul.lo.s64",
                          "mul.hi.u32",
                          "mul.hi.s64",
                          "mul.wide.s32",
                          "mad.lo.u32",
                          "mad.hi.s64",
                          "mad.wide.u32",
                          "div.s32",
                          "div.u64",
                          "rem.s64",
                          "rem.u32",
                          "and.b32",
                          "or.b64",
                          "xor.b32",
                          "not.b64",
                          "cnot.b32",
                          "shl.b32",
                          "shl.b64",
                          "shr.s32",
                          "shr.u64",
                          "shr.b32",
                          "min.s32",
                          "max.u64",
                          "abs.s32",
                          "neg.s64",
                          "popc.b64",
                          "clz.b32",
                          "brev.b64",
                          "bfe.s32",
                          "bfe.u64",
                          "bfi.b32",
                          "bfi.b64",
                          "selp.s64",
                          "selp.f32",
                          "setp.lt.s32",
                          "setp.hi.u64",
                          "setp.ne.b64",
                          "setp.ltu.f32",
                          "setp.nan.f64",
                          "setp.ge.and.s32",
                          "and.pred",
                          "xor.pred",
                          "not.pred",
                          "testp.finite.f32",
                          "testp.subnormal.f64",
                          "testp.notanumber.f64",
                          "cvt.u32.u64",
                          "cvt.s64.s32",
                          "cvt.s32.s8",
                          "cvt.u8.u32",
                          "cvt.sat.s32.s64",
                          "cvt.sat.u32.s32",
                          "cvt.rni.s32.f32",
                          "cvt.rzi.u64.f64",
                          "cvt.rmi.s64.f32",
                          "cvt.rpi.u32.f64",
                          "cvt.rn.f32.s64",
                          "cvt.rn.f64.u32",
                          "cvt.f64.f32",
                          "cvt.rn.f32.f64",
                          "cvt.rni.f32.f32",
                          "cvt.rzi.f64.f64",
                          "add.rn.f32",
                          "sub.rn.f32",
                          "mul.rz.f32",
                          "mul.rm.f32",
                          "mul.rp.f32",
                          "add.rn.f64",
                          "mul.rn.f64",
                          "div.rn.f32",
                          "div.rn.f64",
                          "fma.rn.f32",
                          "fma.rn.f64",
                          "setp.nan.f32",
                          "mad.rn.f32",
                          "sqrt.rn.f32",
                          "sqrt.rn.f64",
                          "rcp.rn.f32",
                          "rcp.rn.f64",
                          "min.f32",
                          "max.f64",
                          "abs.f32",
                          "neg.f64",
                          "mov.b64",
                          "mov.b32",
                          "mov.f32",
                          "ld.global.s8",
                          "ld.global.u16",
                          "ld.global.f64",
                          "ld.global.v4.u32",
                          "ld.global.v2.f32",
                          "ld.global.v2.s64",
                          "ld.global.v2.f64",
                          "bmsk.clamp.b32",
                          "bmsk.wrap.b32",
                          "szext.clamp.s32",
                          "szext.wrap.u32",
                          "dp4a.s32.u32",
                          "dp2a.hi.u32.s32",
                          "dp2a.lo.s32.s32",
                          "fns.b32",
                          "prmt.b32",
                          "prmt.b32.f4e",
                          "prmt.b32.rc16",
                          "max.relu.s32",
                          "min.u16x2",
                          "max.relu.s16x2",
                          "vabsdiff4.u32.u32.u32",
                          "vset2.s32.u32.ne.add",
                          "vavrg4.s32.s32.u32.sat",
                          "vmin2.u32.s32.s32.add",
                          "add.rm.f64",
                          "sub.rz.f64",
                          "mul.rp.f64",
                          "fma.rz.f64",
                          "div.rp.f64",
                          "div.rz.f32",
                          "sqrt.rm.f32",
                          "sqrt.rp.f64",
                          "rcp.rz.f32",
                          "rcp.rm.f64"})
        EXPECT_TRUE(seen.count(f)) << f;
    std::string text;
    for (uint64_t seed = 0; seed < 50; ++seed) text += generate_kernel(seed, output_mode::digest).text;
    EXPECT_NE(text.find("@%p"), std::string::npos) << "some instructions run under a predicate";
    EXPECT_NE(text.find("@!%p"), std::string::npos) << "and some under a negated one";
}

// ---- The reference evaluator against the ISA's own edge cases ---------------------------------

class ReferenceEvaluator : public ::testing::Test {
protected:
    // Runs `body` (which reads %rd1 and writes %rd2: in and out) in one thread and returns the
    // first 8 output words.
    std::vector<uint64_t> run(const std::string& body, const std::vector<uint64_t>& in = {}) {
        const std::string text =
            ".visible .entry t(.param .u64 out, .param .u64 in)\n{\n"
            "    .reg .pred %p<8>;\n    .reg .b32 %r<16>;\n    .reg .b64 %rd<16>;\n"
            "    .reg .f32 %f<16>;\n    .reg .f64 %fd<16>;\n"
            "    ld.param.u64 %rd2, [out];\n    ld.param.u64 %rd1, [in];\n" +
            body + "    ret;\n}\n";
        std::string error;
        auto k = reference_kernel::decode(text, error);
        EXPECT_TRUE(k) << error;
        if (!k) return {};
        std::vector<uint8_t> bytes(256, 0);
        if (!in.empty()) std::memcpy(bytes.data(), in.data(), in.size() * 8);
        const reference_memory memory{bytes.data(), 0x1000, bytes.size()};
        EXPECT_EQ(k->run({0x1000 + 128, 0x1000}, 0, 1, memory), "");
        std::vector<uint64_t> out(8);
        std::memcpy(out.data(), bytes.data() + 128, 64);
        return out;
    }
};

TEST_F(ReferenceEvaluator, ShiftAmountsPastTheWidthClampToTheWidth) {
    const auto out =
        run("    mov.b32 %r1, 0x80000010;\n"
            "    shl.b32 %r2, %r1, 32;\n    st.global.u32 [%rd2], %r2;\n"
            "    shr.s32 %r3, %r1, 40;\n    st.global.u32 [%rd2+8], %r3;\n"
            "    shr.u32 %r4, %r1, 0xFFFFFFFF;\n    st.global.u32 [%rd2+16], %r4;\n"
            "    mov.b64 %rd3, 0x8000000000000000;\n    shr.s64 %rd4, %rd3, 64;\n"
            "    st.global.u64 [%rd2+24], %rd4;\n    shr.s32 %r5, %r1, 4;\n"
            "    st.global.u32 [%rd2+32], %r5;\n");
    EXPECT_EQ(out[0], 0u);
    EXPECT_EQ(out[1], 0xFFFFFFFFu);
    EXPECT_EQ(out[2], 0u);
    EXPECT_EQ(out[3], ~0ull);
    EXPECT_EQ(out[4], 0xF8000001u);
}

TEST_F(ReferenceEvaluator, BitFieldExtractFillsWithTheFieldsSignBitAndInsertStopsAtTheMsb) {
    const auto out =
        run("    mov.b32 %r1, 0x00000F00;\n"
            "    bfe.s32 %r2, %r1, 8, 4;\n    st.global.u32 [%rd2], %r2;\n"
            "    bfe.u32 %r3, %r1, 8, 4;\n    st.global.u32 [%rd2+8], %r3;\n"
            "    bfe.s32 %r4, %r1, 264, 0;\n    st.global.u32 [%rd2+16], %r4;\n"
            "    mov.b32 %r5, 0x80000000;\n    bfe.s32 %r6, %r5, 30, 10;\n    st.global.u32 [%rd2+24], %r6;\n"
            "    bfi.b32 %r7, 0xFF, 0, 28, 8;\n    st.global.u32 [%rd2+32], %r7;\n");
    EXPECT_EQ(out[0], 0xFFFFFFFFu) << "the field 0xF is negative as 4 bits";
    EXPECT_EQ(out[1], 0xFu);
    EXPECT_EQ(out[2], 0u) << "length 0 extracts nothing";
    EXPECT_EQ(out[3], 0xFFFFFFFEu) << "past the msb the msb is the sign";
    EXPECT_EQ(out[4], 0xF0000000u);
}

TEST_F(ReferenceEvaluator, FloatMinAndMaxPreferNumbersAndOrderNegativeZeroFirst) {
    const auto out =
        run("    mov.f32 %f1, 0f80000000;\n    mov.f32 %f2, 0f00000000;\n    mov.f32 %f3, 0f7FC00000;\n"
            "    min.f32 %f4, %f2, %f1;\n    st.global.f32 [%rd2], %f4;\n"
            "    max.f32 %f5, %f1, %f2;\n    st.global.f32 [%rd2+8], %f5;\n"
            "    max.f32 %f6, %f3, 0f3F800000;\n    st.global.f32 [%rd2+16], %f6;\n");
    EXPECT_EQ(out[0], 0x80000000u);
    EXPECT_EQ(out[1], 0u);
    EXPECT_EQ(out[2], 0x3F800000u);
}

TEST_F(ReferenceEvaluator, FloatToIntegerSaturatesAndANanBecomesZeroOrTheTopBit) {
    const auto out =
        run("    mov.f32 %f1, 0f7FC00000;\n    mov.f64 %fd1, 0d7FF8000000000000;\n"
            "    cvt.rzi.s32.f32 %r1, %f1;\n    st.global.u32 [%rd2], %r1;\n"
            "    cvt.rzi.s32.f64 %r2, %fd1;\n    st.global.u32 [%rd2+8], %r2;\n"
            "    cvt.rzi.u64.f32 %rd3, %f1;\n    st.global.u64 [%rd2+16], %rd3;\n"
            "    cvt.rni.s8.f32 %r4, 0fC3200000;\n    st.global.u32 [%rd2+24], %r4;\n"
            "    cvt.rmi.u32.f32 %r5, 0fBF000000;\n    st.global.u32 [%rd2+32], %r5;\n"
            "    cvt.rni.s32.f32 %r6, 0f40200000;\n    st.global.u32 [%rd2+40], %r6;\n");
    EXPECT_EQ(out[0], 0u) << "f32 NaN into a 32-bit integer";
    EXPECT_EQ(out[1], 0x80000000u) << "f64 NaN: 1 << (width - 1)";
    EXPECT_EQ(out[2], 0x8000000000000000u) << "NaN into a 64-bit integer: 1 << 63";
    EXPECT_EQ(out[3], 0xFFFFFF80u) << "-160 saturates to -128, sign-extended into the register";
    EXPECT_EQ(out[4], 0u) << "-0.5 rounds down to -1, saturating at 0";
    EXPECT_EQ(out[5], 2u) << "2.5 rounds to even";
}

TEST_F(ReferenceEvaluator, DirectedRoundingOfF32ArithmeticIsExact) {
    // 1 - 2^-60 lies just below 1: towards zero and down it is the float below 1.
    const auto out =
        run("    add.rz.f32 %f1, 0f3F800000, 0fA1800000;\n    st.global.f32 [%rd2], %f1;\n"
            "    add.rm.f32 %f2, 0f3F800000, 0fA1800000;\n    st.global.f32 [%rd2+8], %f2;\n"
            "    add.rp.f32 %f3, 0f3F800000, 0fA1800000;\n    st.global.f32 [%rd2+16], %f3;\n"
            "    sub.rm.f32 %f4, 0f3F800000, 0f3F800000;\n    st.global.f32 [%rd2+24], %f4;\n"
            "    mul.rz.f32 %f5, 0f7F7FFFFF, 0f40000000;\n    st.global.f32 [%rd2+32], %f5;\n"
            "    fma.rp.f32 %f6, 0f3F800001, 0f3F800001, 0fBF800000;\n    st.global.f32 [%rd2+40], %f6;\n");
    EXPECT_EQ(out[0], 0x3F7FFFFFu);
    EXPECT_EQ(out[1], 0x3F7FFFFFu);
    EXPECT_EQ(out[2], 0x3F800000u);
    EXPECT_EQ(out[3], 0x80000000u) << "x - x is -0 when rounding down";
    EXPECT_EQ(out[4], 0x7F7FFFFFu) << "overflow towards zero is FLT_MAX";
    EXPECT_EQ(out[5], 0x34800001u) << "2^-22 + 2^-46 rounded up";
}

TEST_F(ReferenceEvaluator, PredicatesCombineGuardAndCountZeroAsANormalNumber) {
    const auto out =
        run("    testp.normal.f32 %p1, 0f80000000;\n    selp.u32 %r1, 1, 0, %p1;\n    st.global.u32 [%rd2], %r1;\n"
            "    setp.lt.or.s32 %p2|%p3, 5, 3, %p1;\n    selp.u32 %r2, 1, 0, %p2;\n"
            "    selp.u32 %r3, 1, 0, %p3;\n    st.global.u32 [%rd2+8], %r2;\n    st.global.u32 [%rd2+16], %r3;\n"
            "    mov.u32 %r4, 7;\n    @!%p1 mov.u32 %r4, 9;\n    @%p1 add.s32 %r4, %r4, 1;\n"
            "    st.global.u32 [%rd2+24], %r4;\n"
            "    setp.neu.f32 %p4, 0f7FC00000, 0f7FC00000;\n    selp.u32 %r5, 1, 0, %p4;\n"
            "    st.global.u32 [%rd2+32], %r5;\n");
    EXPECT_EQ(out[0], 1u);
    EXPECT_EQ(out[1], 1u) << "(5 < 3) or true";
    EXPECT_EQ(out[2], 1u) << "!(5 < 3) or true";
    EXPECT_EQ(out[3], 8u);
    EXPECT_EQ(out[4], 1u) << "unordered not-equal holds for NaN";
}

TEST_F(ReferenceEvaluator, IntegerConversionsExtendBySourceTypeAndSaturateOnlyWhenAsked) {
    const auto out =
        run("    mov.b32 %r1, 0x000001F0;\n"
            "    cvt.s32.s8 %r2, %r1;\n    st.global.u32 [%rd2], %r2;\n"
            "    cvt.u64.s32 %rd3, -2;\n    st.global.u64 [%rd2+8], %rd3;\n"
            "    cvt.sat.u8.s32 %r4, %r1;\n    st.global.u32 [%rd2+16], %r4;\n"
            "    cvt.s16.u32 %r5, 0x18000;\n    st.global.u32 [%rd2+24], %r5;\n"
            "    mov.b64 %rd6, {%r1, %r2};\n    st.global.u64 [%rd2+32], %rd6;\n"
            "    mul.hi.s64 %rd7, -3, 0x4000000000000000;\n    st.global.u64 [%rd2+40], %rd7;\n");
    EXPECT_EQ(out[0], 0xFFFFFFF0u);
    EXPECT_EQ(out[1], 0xFFFFFFFFFFFFFFFEu);
    EXPECT_EQ(out[2], 0xFFu);
    EXPECT_EQ(out[3], 0xFFFF8000u) << "truncated to s16 and sign-extended";
    EXPECT_EQ(out[4], 0xFFFFFFF0000001F0u);
    EXPECT_EQ(out[5], 0xFFFFFFFFFFFFFFFFu) << "-3 * 2^62 = -0.75 * 2^64";
}

}  // namespace
}  // namespace cudabridge::nv::ptx::fuzz
