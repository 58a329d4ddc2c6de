#include "program_generator.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace cudabridge::nv::ptx::fuzz {
namespace {

// splitmix64: the same sequence on every platform, which the std distributions do not promise.
struct rng {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return next() % n; }
    bool percent(unsigned p) { return below(100) < p; }
    template <typename T, size_t N>
    const T& pick(const std::array<T, N>& a) {
        return a[below(N)];
    }
};

// ---- Input and immediate values, biased towards the edges -------------------------------------

uint32_t edge_u32(rng& r) {
    static constexpr std::array<uint32_t, 8> fixed = {0, 1, 2, 0xFFFFFFFF, 0xFFFFFFFE, 0x80000000, 0x7FFFFFFF, 31};
    switch (r.below(8)) {
    case 0:
        return r.pick(fixed);
    case 1:
        return uint32_t(int32_t(r.below(41)) - 20);
    case 2:
        return 1u << r.below(32);
    case 3:
        return (1u << r.below(32)) - 1;
    case 4:
        return uint32_t(r.below(300));
    default:
        return uint32_t(r.next());
    }
}

uint64_t edge_u64(rng& r) {
    static constexpr std::array<uint64_t, 8> fixed = {
        0, 1, ~0ull, 0x8000000000000000ull, 0x7FFFFFFFFFFFFFFFull, 0xFFFFFFFFull, 0x100000000ull, 63};
    switch (r.below(8)) {
    case 0:
        return r.pick(fixed);
    case 1:
        return uint64_t(int64_t(r.below(41)) - 20);
    case 2:
        return 1ull << r.below(64);
    case 3:
        return uint64_t(int64_t(int32_t(edge_u32(r))));  // a sign-extended 32-bit value
    case 4:
        return edge_u32(r);
    default:
        return r.next();
    }
}

// Integral values, halves (ties for .rni), and the neighbours of the integer ranges' ends, where
// float-to-integer conversions saturate.
constexpr std::array<double, 16> interesting_reals = {0.5,
                                                      1.5,
                                                      2.5,
                                                      -0.5,
                                                      -2.5,
                                                      2147483647.0,
                                                      2147483648.0,
                                                      4294967295.0,
                                                      4294967296.0,
                                                      -2147483648.0,
                                                      -2147483649.0,
                                                      9223372036854775807.0,
                                                      18446744073709551616.0,
                                                      -9223372036854775808.0,
                                                      255.5,
                                                      -128.5};

uint32_t f32_bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
uint64_t f64_bits(double d) {
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
}

uint32_t edge_f32(rng& r) {
    const uint32_t sign = r.percent(50) ? 0x80000000u : 0u;
    static constexpr std::array<uint32_t, 6> nans = {0x7FC00000, 0xFFC00000, 0x7F800001,
                                                     0x7FFFFFFF, 0xFFBFFFFF, 0x7FA00000};
    switch (r.below(14)) {
    case 0:
        return sign;  // ±0
    case 1:
        return sign | 0x7F800000u;  // ±inf
    case 2:
        return r.pick(nans);  // quiet, signalling, negative NaNs
    case 3:
        return sign | uint32_t(1 + r.below(0x7FFFFF));  // subnormals
    case 4:
        return sign | (r.percent(50) ? 0x00800000u : 0x7F7FFFFFu);  // FLT_MIN, FLT_MAX
    case 5:
        return sign | f32_bits(float(r.below(21)));
    case 6:
        return f32_bits(float(r.pick(interesting_reals)));
    case 7:
        return sign | (0x3F800000u + uint32_t(r.below(3)) - 1);  // 1 and its neighbours
    case 8:
    case 9: {  // a short mantissa at a moderate exponent: sums and products round less often
        const float m = float(int32_t(r.below(1u << 12)) - (1 << 11));
        return f32_bits(std::ldexp(m, int(r.below(40)) - 20));
    }
    default:
        return uint32_t(r.next());
    }
}

uint64_t edge_f64(rng& r) {
    const uint64_t sign = r.percent(50) ? 0x8000000000000000ull : 0;
    static constexpr std::array<uint64_t, 4> nans = {0x7FF8000000000000ull, 0xFFF8000000000000ull,
                                                     0x7FF0000000000001ull, 0x7FFFFFFFFFFFFFFFull};
    switch (r.below(14)) {
    case 0:
        return sign;
    case 1:
        return sign | 0x7FF0000000000000ull;
    case 2:
        return r.pick(nans);
    case 3:
        return sign | (1 + r.below(0x000FFFFFFFFFFFFFull));
    case 4:
        return sign | (r.percent(50) ? 0x0010000000000000ull : 0x7FEFFFFFFFFFFFFFull);
    case 5:
        return sign | f64_bits(double(r.below(21)));
    case 6:
        return f64_bits(r.pick(interesting_reals));
    case 7:
        return sign | (0x3FF0000000000000ull + r.below(3) - 1);
    case 8:
        return f64_bits(double(std::bit_cast<float>(edge_f32(r))));  // exactly a float
    case 9: {
        const double m = double(int64_t(r.below(1u << 20)) - (1 << 19));
        return f64_bits(std::ldexp(m, int(r.below(80)) - 40));
    }
    default:
        return r.next();
    }
}

std::string hex(uint64_t v) {
    char s[24];
    std::snprintf(s, sizeof s, "0x%llX", static_cast<unsigned long long>(v));
    return s;
}
std::string f32_literal(uint32_t bits) {
    char s[16];
    std::snprintf(s, sizeof s, "0f%08X", bits);
    return s;
}
std::string f64_literal(uint64_t bits) {
    char s[24];
    std::snprintf(s, sizeof s, "0d%016llX", static_cast<unsigned long long>(bits));
    return s;
}

// ---- Types ------------------------------------------------------------------------------------

constexpr std::array<const char*, 5> prefixes = {"%r", "%rd", "%f", "%fd", "%p"};
size_t index(value_kind k) { return static_cast<size_t>(k); }

int width(const std::string& type) { return std::stoi(type.substr(1)); }
value_kind int_kind(const std::string& type) { return width(type) == 64 ? value_kind::b64 : value_kind::b32; }
value_kind float_kind(const std::string& type) { return type == "f64" ? value_kind::f64 : value_kind::f32; }

constexpr std::array<const char*, 8> int_types = {"u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"};

// .sat on an integer cvt is legal only where the destination cannot hold every source value.
bool can_saturate(const std::string& d, const std::string& a) {
    const bool ds = d[0] == 's', as = a[0] == 's';
    const int dw = width(d), aw = width(a);
    const bool superset = (ds == as && dw >= aw) || (ds && !as && dw > aw);
    return !superset;
}

// ---- The emitter ------------------------------------------------------------------------------

class emitter {
public:
    emitter(uint64_t seed, std::array<int, 5>& next, std::ostringstream& out)
        : seed_(seed), next_(next), body_(out), r_{seed * 0x2545F4914F6CDD1Dull + 0x5DEECE66Dull} {}

    generated_program run(output_mode mode) {
        load_inputs();
        const int target = 20 + int(r_.below(41));
        while (body_count_ < target && live_total() < int(output_slots) - 8) one_instruction();
        return finish(mode);
    }

private:
    uint64_t seed_;
    std::array<int, 5>& next_;
    std::ostringstream& body_;
    rng r_;
    std::array<std::vector<int>, 5> live_;  // this program's registers with values, oldest first
    std::vector<input_field> inputs_;
    int body_count_ = 0;

    int live_total() const {
        int n = 0;
        for (const auto& l : live_) n += int(l.size());
        return n;
    }
    static std::string name(value_kind k, int n) { return prefixes[index(k)] + std::to_string(n); }

    // A register holding a value of kind k, usually a recent one so that chains grow deep.
    std::string src(value_kind k) {
        const auto& l = live_[index(k)];
        const size_t n = l.size();
        const size_t i = (n > 4 && r_.percent(50)) ? n - 1 - r_.below(4) : r_.below(n);
        return name(k, l[i]);
    }
    std::string fresh(value_kind k) {
        const int n = next_[index(k)]++;
        live_[index(k)].push_back(n);
        return name(k, n);
    }
    // A guarded instruction overwrites a register that already holds a value, so that the
    // result shows whether the guard held.
    std::string dest(value_kind k, const std::string& guard) {
        if (guard.empty()) return fresh(k);
        const auto& l = live_[index(k)];
        return name(k, l[r_.below(l.size())]);
    }
    std::string guard() {
        if (live_[index(value_kind::pred)].empty() || !r_.percent(15)) return {};
        return "@" + std::string(r_.percent(30) ? "!" : "") + src(value_kind::pred) + " ";
    }
    std::string pred_src() {
        if (live_[index(value_kind::pred)].empty()) int_compare();
        return src(value_kind::pred);
    }
    void emit(const std::string& g, const std::string& op, const std::vector<std::string>& operands) {
        body_ << "    " << g << op;
        for (size_t i = 0; i < operands.size(); ++i) body_ << (i ? ", " : " ") << operands[i];
        body_ << ";\n";
        ++body_count_;
    }

    std::string int_imm(const std::string& type) {
        const bool is_signed = type[0] == 's';
        if (width(type) == 64) {
            const uint64_t v = edge_u64(r_);
            if (is_signed && v != 0x8000000000000000ull) return std::to_string(int64_t(v));
            return hex(v);
        }
        const uint32_t v = edge_u32(r_);
        return is_signed ? std::to_string(int32_t(v)) : hex(v);
    }
    std::string int_operand(const std::string& type) { return r_.percent(20) ? int_imm(type) : src(int_kind(type)); }
    std::string float_operand(const std::string& type) {
        if (!r_.percent(15)) return src(float_kind(type));
        return type == "f64" ? f64_literal(edge_f64(r_)) : f32_literal(edge_f32(r_));
    }
    // A shift amount, bit position or field length: a small literal, often past the width, or
    // any register value (only its low bits, or its clamped value, matter).
    std::string amount(int bits) {
        if (r_.percent(40)) return src(value_kind::b32);
        return std::to_string(r_.below(uint64_t(bits) + 12));
    }

    // In the thread's input slice (%rd7).
    static std::string input_at(uint32_t offset) { return offset ? "[%rd7+" + std::to_string(offset) + "]" : "[%rd7]"; }

    // Few memory instructions: each costs the engine's JIT about 1 ms, a dozen other
    // instructions' worth. Two vector loads give every kind operands (float lanes loaded as
    // integers and reinterpreted with mov); sometimes a third vector load and a scalar load.
    void load_inputs() {
        live_[index(value_kind::b32)].push_back(0);  // %r0, %tid.x
        static constexpr std::array<const char*, 3> b32_types = {"u32", "s32", "b32"};
        static constexpr std::array<const char*, 3> b64_types = {"u64", "s64", "b64"};
        std::string w[4];
        for (auto& x : w) x = fresh(value_kind::b32);
        body_ << "    ld.global.v4." << r_.pick(b32_types) << " {" << w[0] << ", " << w[1] << ", " << w[2] << ", "
              << w[3] << "}, " << input_at(0) << ";\n";
        inputs_.insert(
            inputs_.end(),
            {{value_kind::b32, 0, 4}, {value_kind::b32, 4, 4}, {value_kind::f32, 8, 4}, {value_kind::f32, 12, 4}});
        const std::string d0 = fresh(value_kind::b64), d1 = fresh(value_kind::b64);
        body_ << "    ld.global.v2." << r_.pick(b64_types) << " {" << d0 << ", " << d1 << "}, " << input_at(16)
              << ";\n";
        inputs_.insert(inputs_.end(), {{value_kind::b64, 16, 8}, {value_kind::f64, 24, 8}});
        uint32_t offset = 32;
        if (r_.percent(50)) typed_vector_load(offset), offset += 16;
        if (r_.percent(40)) scalar_load(offset);
        body_ << "    mov.b32 " << fresh(value_kind::f32) << ", " << w[2] << ";\n";
        body_ << "    mov.b32 " << fresh(value_kind::f32) << ", " << w[3] << ";\n";
        body_ << "    mov.b64 " << fresh(value_kind::f64) << ", " << d1 << ";\n";
    }

    void typed_vector_load(uint32_t offset) {
        static constexpr std::array<const char*, 8> types = {"f32", "f64", "u32", "s32", "u64", "s64", "b32", "b64"};
        const std::string type = r_.pick(types);
        const value_kind k = type[0] == 'f' ? float_kind(type) : int_kind(type);
        const uint32_t bytes = uint32_t(width(type) / 8);
        const int lanes = bytes == 8 || r_.percent(40) ? 2 : 4;
        std::string regs;
        for (int i = 0; i < lanes; ++i) {
            regs += (i ? ", " : "") + fresh(k);
            inputs_.push_back({k, offset + uint32_t(i) * bytes, bytes});
        }
        body_ << "    ld.global.v" << lanes << "." << type << " {" << regs << "}, " << input_at(offset) << ";\n";
    }

    void scalar_load(uint32_t offset) {
        static constexpr std::array<const char*, 12> types = {"u8",  "s8",  "u16", "s16", "u32", "s32",
                                                              "b32", "u64", "s64", "b64", "f32", "f64"};
        const std::string type = r_.pick(types);
        const value_kind k = type[0] == 'f' ? float_kind(type) : int_kind(type);
        inputs_.push_back({k, offset, uint32_t(width(type) / 8)});
        body_ << "    ld.global." << type << " " << fresh(k) << ", " << input_at(offset) << ";\n";
    }

    void one_instruction() {
        switch (r_.below(26)) {
        case 0:
        case 1:
            int_arith();
            break;
        case 2:
            logic();
            break;
        case 3:
            mul_wide_or_mad();
            break;
        case 4:
            divide();
            break;
        case 5:
            shift();
            break;
        case 6:
            int_unary();
            break;
        case 7:
            bit_field();
            break;
        case 8:
            select();
            break;
        case 9:
            int_compare();
            break;
        case 10:
            float_compare();
            break;
        case 11:
            pred_logic();
            break;
        case 12:
            test_property();
            break;
        case 13:
            convert_int();
            break;
        case 14:
            convert_float_to_int();
            break;
        case 15:
            convert_int_to_float();
            break;
        case 16:
            convert_float();
            break;
        case 17:
        case 18:
        case 19:
            float_arith();
            break;
        case 20:
            float_fma();
            break;
        case 21:
            float_unary();
            break;
        case 22:
            float_min_max();
            break;
        case 23:
            move();
            break;
        default:
            integer_intrinsic();
            break;
        }
    }

    // Instructions CUDA's intrinsics and CCCL write: bmsk, szext, dp4a/dp2a, fns, prmt with and
    // without a mode, min/max with .relu and of 16-bit pairs.
    void integer_intrinsic() {
        static constexpr std::array<const char*, 2> modes = {"clamp", "wrap"};
        static constexpr std::array<const char*, 2> halves = {"u32", "s32"};
        const std::string a = src(value_kind::b32);
        switch (r_.below(10)) {
        case 0: {
            const std::string n = amount(32), w = amount(32), g = guard();
            emit(g, std::string("bmsk.") + r_.pick(modes) + ".b32", {dest(value_kind::b32, g), n, w});
            return;
        }
        case 1: {
            const std::string w = amount(32), g = guard();
            emit(g, std::string("szext.") + r_.pick(modes) + "." + r_.pick(halves), {dest(value_kind::b32, g), a, w});
            return;
        }
        case 2:
        case 3: {
            const std::string b = int_operand("u32"), c = int_operand("u32");
            const std::string op = r_.percent(50) ? "dp4a." : std::string("dp2a.") + (r_.percent(50) ? "lo." : "hi.");
            const std::string g = guard();
            emit(g, op + r_.pick(halves) + "." + r_.pick(halves), {dest(value_kind::b32, g), a, b, c});
            return;
        }
        case 4: {  // the base must be at most 31: a literal, or a register's low five bits
            std::string base = std::to_string(r_.below(32));
            if (r_.percent(50)) {
                base = fresh(value_kind::b32);
                emit("", "and.b32", {base, src(value_kind::b32), "31"});
            }
            const std::string offset = r_.percent(60) ? std::to_string(int(r_.below(71)) - 35) : src(value_kind::b32);
            const std::string g = guard();
            emit(g, "fns.b32", {dest(value_kind::b32, g), a, base, offset});
            return;
        }
        case 5: {
            static constexpr std::array<const char*, 7> kinds = {"", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"};
            const std::string b = src(value_kind::b32), c = int_operand("u32"), g = guard();
            emit(g, std::string("prmt.b32") + r_.pick(kinds), {dest(value_kind::b32, g), a, b, c});
            return;
        }
        case 6: {
            const std::string b = int_operand("s32"), g = guard();
            emit(g, std::string(r_.percent(50) ? "min" : "max") + ".relu.s32", {dest(value_kind::b32, g), a, b});
            return;
        }
        case 7:
        case 8:
            return simd_video(a);
        default: {
            static constexpr std::array<const char*, 3> pairs = {"u16x2", "s16x2", "relu.s16x2"};
            const std::string type = r_.pick(pairs), b = src(value_kind::b32), g = guard();
            emit(g, std::string(r_.percent(50) ? "min." : "max.") + type, {dest(value_kind::b32, g), a, b});
        }
        }
    }

    // vadd4 ... vset4 and vadd2 ... vset2: types, .sat or .add, and now and then a lane mask on d
    // and selectors on a and b (%r1.b20, %r2.b7430, %r3.h21).
    void simd_video(const std::string& a) {
        static constexpr std::array<const char*, 7> ops = {"add", "sub", "avrg", "absdiff", "min", "max", "set"};
        static constexpr std::array<const char*, 6> cmps = {"eq", "ne", "lt", "le", "gt", "ge"};
        static constexpr std::array<const char*, 2> types = {"u32", "s32"};
        const std::string op = r_.pick(ops);
        const int lanes = r_.percent(50) ? 4 : 2;
        std::string name = "v" + op + std::to_string(lanes);
        if (op != "set") name += std::string(".") + r_.pick(types);
        name += std::string(".") + r_.pick(types) + "." + r_.pick(types);
        if (op == "set") name += std::string(".") + r_.pick(cmps);
        const int extra = int(r_.below(3));  // nothing, .sat (not for vset) or .add
        if (extra == 1 && op != "set") name += ".sat";
        if (extra == 2) name += ".add";
        const char letter = lanes == 4 ? 'b' : 'h';
        auto selector = [&](int top) {
            std::string text(1, letter);
            for (int i = 0; i < lanes; ++i) text += char('0' + r_.below(uint32_t(top)));
            return "." + text;
        };
        auto lane_mask = [&] {
            std::string text(1, letter);
            const uint32_t bits = 1 + r_.below((1u << lanes) - 1);  // at least one lane
            for (int lane = lanes - 1; lane >= 0; --lane)
                if (bits >> lane & 1) text += char('0' + lane);
            return "." + text;
        };
        const bool suffixes = r_.percent(30);
        const std::string b = src(value_kind::b32), c = src(value_kind::b32), g = guard();
        const std::string d = dest(value_kind::b32, g);
        emit(g, name,
             {suffixes ? d + lane_mask() : d, suffixes ? a + selector(2 * lanes) : a,
              suffixes ? b + selector(2 * lanes) : b, c});
    }

    void int_arith() {
        static constexpr std::array<const char*, 6> ops = {"add", "sub", "mul.lo", "mul.hi", "min", "max"};
        static constexpr std::array<const char*, 4> types = {"s32", "u32", "s64", "u64"};
        std::string op = r_.pick(ops);
        const std::string type = r_.pick(types);
        if (type == "s32" && (op == "add" || op == "sub") && r_.percent(30)) op += ".sat";
        const std::string a = src(int_kind(type)), b = int_operand(type), g = guard();
        emit(g, op + "." + type, {dest(int_kind(type), g), a, b});
    }

    void logic() {
        static constexpr std::array<const char*, 5> ops = {"and", "or", "xor", "not", "cnot"};
        const std::string op = r_.pick(ops), type = r_.percent(50) ? "b32" : "b64";
        const value_kind k = int_kind(type);
        const std::string a = src(k);
        if (op == "not" || op == "cnot") {
            const std::string g = guard();
            emit(g, op + "." + type, {dest(k, g), a});
            return;
        }
        const std::string b = int_operand(type), g = guard();
        emit(g, op + "." + type, {dest(k, g), a, b});
    }

    void mul_wide_or_mad() {
        const std::string half = r_.percent(50) ? "s32" : "u32";
        switch (r_.below(3)) {
        case 0: {
            const std::string a = src(value_kind::b32), b = int_operand(half), g = guard();
            emit(g, "mul.wide." + half, {dest(value_kind::b64, g), a, b});
            return;
        }
        case 1: {
            const std::string a = src(value_kind::b32), b = int_operand(half), c = src(value_kind::b64);
            const std::string g = guard();
            emit(g, "mad.wide." + half, {dest(value_kind::b64, g), a, b, c});
            return;
        }
        default: {
            static constexpr std::array<const char*, 4> types = {"s32", "u32", "s64", "u64"};
            const std::string type = r_.pick(types), mode = r_.percent(50) ? "lo" : "hi";
            const value_kind k = int_kind(type);
            const std::string a = src(k), b = int_operand(type), c = int_operand(type), g = guard();
            emit(g, "mad." + mode + "." + type, {dest(k, g), a, b, c});
        }
        }
    }

    // A divisor that is never 0, and for signed division never -1 (INT_MIN / -1 overflows):
    // PTX leaves both unspecified, so the program never asks.
    std::string divisor(const std::string& type) {
        const value_kind k = int_kind(type);
        const std::string w = std::to_string(width(type)), b = src(k);
        if (type[0] == 's' && r_.percent(50)) {  // odd, with -1 replaced: negatives stay in
            const std::string odd = fresh(k);
            emit("", "or.b" + w, {odd, b, "1"});
            const std::string minus_one = fresh(value_kind::pred);
            emit("", "setp.eq.s" + w, {minus_one, odd, "-1"});
            const std::string out = fresh(k);
            emit("", "selp.b" + w, {out, "3", odd, minus_one});
            return out;
        }
        if (type[0] == 'u' && r_.percent(50)) {
            const std::string out = fresh(k);
            emit("", "max.u" + w, {out, b, "1"});
            return out;
        }
        // Shifted down to a smaller magnitude so that quotients are not all 0, at least 2, and
        // for signed division sometimes negated.
        const std::string shifted = fresh(k);
        emit("", "shr.u" + w, {shifted, b, std::to_string(1 + r_.below(uint64_t(width(type)) - 4))});
        const std::string at_least = fresh(k);
        emit("", "max.u" + w, {at_least, shifted, type[0] == 's' ? "2" : "1"});
        if (type[0] != 's' || r_.percent(50)) return at_least;
        const std::string negated = fresh(k);
        emit("", "neg.s" + w, {negated, at_least});
        return negated;
    }

    void divide() {
        static constexpr std::array<const char*, 4> types = {"s32", "u32", "s64", "u64"};
        const std::string type = r_.pick(types), op = r_.percent(50) ? "div" : "rem";
        const value_kind k = int_kind(type);
        const std::string a = src(k), b = divisor(type), g = guard();
        emit(g, op + "." + type, {dest(k, g), a, b});
    }

    void shift() {
        static constexpr std::array<const char*, 4> ops = {"shl.b", "shr.b", "shr.u", "shr.s"};
        const int bits = r_.percent(50) ? 32 : 64;
        const std::string op = r_.pick(ops) + std::to_string(bits);
        const value_kind k = bits == 64 ? value_kind::b64 : value_kind::b32;
        const std::string a = src(k), n = amount(bits), g = guard();
        emit(g, op, {dest(k, g), a, n});
    }

    void int_unary() {
        static constexpr std::array<const char*, 5> ops = {"abs.s", "neg.s", "popc.b", "clz.b", "brev.b"};
        const std::string op = r_.pick(ops);
        const int bits = r_.percent(50) ? 32 : 64;
        const value_kind k = bits == 64 ? value_kind::b64 : value_kind::b32;
        // popc and clz of a 64-bit value still write a 32-bit count.
        const value_kind d = (op == "popc.b" || op == "clz.b") ? value_kind::b32 : k;
        const std::string a = src(k), g = guard();
        emit(g, op + std::to_string(bits), {dest(d, g), a});
    }

    void bit_field() {
        const int bits = r_.percent(50) ? 32 : 64;
        const value_kind k = bits == 64 ? value_kind::b64 : value_kind::b32;
        const std::string w = std::to_string(bits);
        if (r_.percent(50)) {
            const std::string type = (r_.percent(50) ? "u" : "s") + w;
            const std::string a = src(k), pos = amount(bits), len = amount(bits), g = guard();
            emit(g, "bfe." + type, {dest(k, g), a, pos, len});
            return;
        }
        const std::string a = src(k), b = src(k), pos = amount(bits), len = amount(bits), g = guard();
        emit(g, "bfi.b" + w, {dest(k, g), a, b, pos, len});
    }

    void select() {
        static constexpr std::array<const char*, 8> types = {"b32", "u32", "s32", "b64", "u64", "s64", "f32", "f64"};
        const std::string type = r_.pick(types);
        const bool is_float = type[0] == 'f';
        const value_kind k = is_float ? float_kind(type) : int_kind(type);
        const std::string p = pred_src();
        const std::string a = is_float ? float_operand(type) : src(k);
        const std::string b = is_float ? float_operand(type) : int_operand(type), g = guard();
        emit(g, "selp." + type, {dest(k, g), a, b, p});
    }

    // setp's optional combining form: p = (a cmp b) op c, and p|q writes the complement too.
    void compare(const std::string& cmp, const std::string& type, const std::string& a, const std::string& b) {
        std::string op = "setp." + cmp;
        std::vector<std::string> operands;
        const bool combine = r_.percent(25);
        std::string c;
        if (combine) {
            static constexpr std::array<const char*, 3> bools = {"and", "or", "xor"};
            op += std::string(".") + r_.pick(bools);
            c = (r_.percent(30) ? "!" : "") + pred_src();
        }
        op += "." + type;
        const bool both = r_.percent(10);
        const std::string g = both ? "" : guard();
        std::string d = dest(value_kind::pred, g);
        if (both) d += "|" + fresh(value_kind::pred);
        operands = {d, a, b};
        if (combine) operands.push_back(c);
        emit(g, op, operands);
    }

    void int_compare() {
        static constexpr std::array<const char*, 6> signed_cmps = {"eq", "ne", "lt", "le", "gt", "ge"};
        static constexpr std::array<const char*, 10> unsigned_cmps = {"eq", "ne", "lt", "le", "gt",
                                                                      "ge", "lo", "ls", "hi", "hs"};
        static constexpr std::array<const char*, 6> types = {"s32", "u32", "b32", "s64", "u64", "b64"};
        const std::string type = r_.pick(types);
        const std::string cmp = type[0] == 's'   ? r_.pick(signed_cmps)
                                : type[0] == 'u' ? r_.pick(unsigned_cmps)
                                                 : (r_.percent(50) ? "eq" : "ne");
        const std::string a = src(int_kind(type)), b = int_operand(type);
        compare(cmp, type, a, b);
    }

    void float_compare() {
        static constexpr std::array<const char*, 14> cmps = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",  "equ",
                                                             "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
        const std::string type = r_.percent(50) ? "f32" : "f64";
        const std::string a = src(float_kind(type)), b = float_operand(type);
        compare(r_.pick(cmps), type, a, b);
    }

    void pred_logic() {
        static constexpr std::array<const char*, 4> ops = {"and", "or", "xor", "not"};
        const std::string op = r_.pick(ops), a = pred_src();
        if (op == "not") {
            const std::string g = guard();
            emit(g, "not.pred", {dest(value_kind::pred, g), a});
            return;
        }
        const std::string b = pred_src(), g = guard();
        emit(g, op + ".pred", {dest(value_kind::pred, g), a, b});
    }

    void test_property() {
        static constexpr std::array<const char*, 6> props = {"finite",     "infinite", "number",
                                                             "notanumber", "normal",   "subnormal"};
        const std::string prop = r_.pick(props);
        const std::string type = r_.percent(50) ? "f32" : "f64";
        const std::string a = src(float_kind(type)), g = guard();
        emit(g, "testp." + prop + "." + type, {dest(value_kind::pred, g), a});
    }

    void convert_int() {
        std::string d = r_.pick(int_types), a = r_.pick(int_types);
        while (a == d) a = r_.pick(int_types);
        const std::string sat = can_saturate(d, a) && r_.percent(40) ? "sat." : "";
        const std::string s = src(int_kind(a)), g = guard();
        emit(g, "cvt." + sat + d + "." + a, {dest(int_kind(d), g), s});
    }

    void convert_float_to_int() {
        static constexpr std::array<const char*, 4> modes = {"rni", "rzi", "rmi", "rpi"};
        const std::string d = r_.pick(int_types), a = r_.percent(50) ? "f32" : "f64";
        const std::string s = src(float_kind(a)), g = guard();
        emit(g, std::string("cvt.") + r_.pick(modes) + "." + d + "." + a, {dest(int_kind(d), g), s});
    }

    // The engine refuses directed rounding on cvt (README), so integer to float is .rn only.
    void convert_int_to_float() {
        const std::string d = r_.percent(50) ? "f32" : "f64", a = r_.pick(int_types);
        const std::string s = src(int_kind(a)), g = guard();
        emit(g, "cvt.rn." + d + "." + a, {dest(float_kind(d), g), s});
    }

    void convert_float() {
        static constexpr std::array<const char*, 4> modes = {"rni", "rzi", "rmi", "rpi"};
        switch (r_.below(3)) {
        case 0: {
            const std::string s = src(value_kind::f32), g = guard();
            emit(g, "cvt.f64.f32", {dest(value_kind::f64, g), s});
            return;
        }
        case 1: {
            const std::string s = src(value_kind::f64), g = guard();
            emit(g, "cvt.rn.f32.f64", {dest(value_kind::f32, g), s});
            return;
        }
        default: {
            const std::string type = r_.percent(50) ? "f32" : "f64";
            const std::string s = src(float_kind(type)), g = guard();
            emit(g, std::string("cvt.") + r_.pick(modes) + "." + type + "." + type, {dest(float_kind(type), g), s});
        }
        }
    }

    // Rounded to nearest, or towards zero, down or up: the engine has each for f32 and f64 add,
    // sub, mul, fma (mad), div, sqrt and rcp (README).
    std::string rounding(const std::string&) {
        static constexpr std::array<const char*, 3> directed = {"rz", "rm", "rp"};
        return r_.percent(35) ? r_.pick(directed) : "rn";
    }

    void float_arith() {
        static constexpr std::array<const char*, 4> ops = {"add", "sub", "mul", "div"};
        const std::string op = r_.pick(ops), type = r_.percent(50) ? "f32" : "f64";
        const std::string rnd = rounding(type);
        const std::string a = src(float_kind(type)), b = float_operand(type), g = guard();
        emit(g, op + "." + rnd + "." + type, {dest(float_kind(type), g), a, b});
    }

    void float_fma() {
        const std::string type = r_.percent(50) ? "f32" : "f64";
        const std::string op = (type == "f32" && r_.percent(25)) ? "mad" : "fma";
        const std::string rnd = rounding(type);
        const std::string a = src(float_kind(type)), b = float_operand(type), c = float_operand(type), g = guard();
        emit(g, op + "." + rnd + "." + type, {dest(float_kind(type), g), a, b, c});
    }

    void float_unary() {
        static constexpr std::array<const char*, 4> ops = {"sqrt", "rcp", "abs", "neg"};
        const std::string type = r_.percent(50) ? "f32" : "f64";
        std::string op = r_.pick(ops);
        if (op == "sqrt" || op == "rcp") op += "." + rounding(type);
        const std::string a = src(float_kind(type)), g = guard();
        emit(g, op + "." + type, {dest(float_kind(type), g), a});
    }

    void float_min_max() {
        const std::string op = r_.percent(50) ? "min" : "max", type = r_.percent(50) ? "f32" : "f64";
        const std::string a = src(float_kind(type)), b = float_operand(type), g = guard();
        emit(g, op + "." + type, {dest(float_kind(type), g), a, b});
    }

    // Literals, copies, int-to-float bit casts and 64-bit pack/unpack. No float-to-int bit
    // casts: a NaN's payload is not specified, so its bits must not reach an integer output.
    void move() {
        switch (r_.below(7)) {
        case 0: {
            const std::string type = r_.percent(50) ? "s32" : "u32";
            const std::string v = int_imm(type), g = guard();
            emit(g, "mov." + std::string(type == "s32" ? "s32" : "b32"), {dest(value_kind::b32, g), v});
            return;
        }
        case 1: {
            const std::string v = int_imm(r_.percent(50) ? "s64" : "u64"), g = guard();
            emit(g, "mov.b64", {dest(value_kind::b64, g), v});
            return;
        }
        case 2: {
            const bool wide = r_.percent(50);
            const std::string v = wide ? f64_literal(edge_f64(r_)) : f32_literal(edge_f32(r_)), g = guard();
            emit(g, wide ? "mov.f64" : "mov.f32", {dest(wide ? value_kind::f64 : value_kind::f32, g), v});
            return;
        }
        case 3: {
            const bool wide = r_.percent(50);
            const std::string s = src(wide ? value_kind::b64 : value_kind::b32), g = guard();
            emit(g, wide ? "mov.b64" : "mov.b32", {dest(wide ? value_kind::f64 : value_kind::f32, g), s});
            return;
        }
        case 4: {
            const bool wide = r_.percent(50);
            const value_kind k = wide ? value_kind::b64 : value_kind::b32;
            const std::string s = src(k), g = guard();
            emit(g, wide ? "mov.u64" : "mov.u32", {dest(k, g), s});
            return;
        }
        case 5: {
            const std::string lo = src(value_kind::b32), hi = src(value_kind::b32), g = guard();
            emit(g, "mov.b64", {dest(value_kind::b64, g), "{" + lo + ", " + hi + "}"});
            return;
        }
        default: {
            const std::string s = src(value_kind::b64);
            const std::string lo = fresh(value_kind::b32), hi = fresh(value_kind::b32);
            emit("", "mov.b64", {"{" + lo + ", " + hi + "}", s});
        }
        }
    }

    generated_program finish(output_mode mode) {
        generated_program p;
        p.seed = seed_;
        p.inputs = inputs_;
        if (mode == output_mode::digest)
            store_digest();
        else
            store_every_register(p);
        return p;
    }

    // In the thread's output slice (%rd5).
    static std::string output_at(uint64_t offset) {
        return offset ? "[%rd5+" + std::to_string(offset) + "]" : "[%rd5]";
    }

    void store_every_register(generated_program& p) {
        static constexpr std::array<const char*, 3> b32_stores = {"u32", "s32", "b32"};
        for (size_t k = 0; k < live_.size(); ++k) {
            const value_kind kind = value_kind(k);
            for (int n : live_[k]) {
                const std::string at = output_at(p.outputs.size() * slot_bytes);
                std::string reg = name(kind, n), type;
                if (kind == value_kind::pred) {  // a predicate cannot be stored: as 0 or 1
                    const std::string bit = name(value_kind::b32, next_[index(value_kind::b32)]++);
                    body_ << "    selp.u32 " << bit << ", 1, 0, " << reg << ";\n";
                    reg = bit;
                    type = "u32";
                } else {
                    type = kind == value_kind::b32   ? r_.pick(b32_stores)
                           : kind == value_kind::b64 ? "u64"
                           : kind == value_kind::f32 ? "f32"
                                                     : "f64";
                }
                body_ << "    st.global." << type << " " << at << ", " << reg << ";\n";
                p.outputs.push_back(kind);
                p.stored.push_back(name(kind, n));
            }
        }
    }

    // Registers for the digest's own work; not outputs.
    std::string scratch(value_kind k) { return name(k, next_[index(k)]++); }

    void store_digest() {
        std::string h = scratch(value_kind::b64);
        body_ << "    mov.b64 " << h << ", 0xCBF29CE484222325;\n";
        auto fold = [&](const std::string& v64) {
            const std::string next = scratch(value_kind::b64);
            body_ << "    mad.lo.u64 " << next << ", " << h << ", 0x100000001B3, " << v64 << ";\n";
            h = next;
        };
        std::vector<std::string> words;  // 32-bit values, folded in pairs
        for (int n : live_[index(value_kind::b32)]) words.push_back(name(value_kind::b32, n));
        for (int n : live_[index(value_kind::pred)]) {
            const std::string bit = scratch(value_kind::b32);
            body_ << "    selp.u32 " << bit << ", 1, 0, " << name(value_kind::pred, n) << ";\n";
            words.push_back(bit);
        }
        for (int n : live_[index(value_kind::f32)]) {
            const std::string nan = scratch(value_kind::pred), canonical = scratch(value_kind::f32);
            const std::string bits = scratch(value_kind::b32), f = name(value_kind::f32, n);
            body_ << "    testp.notanumber.f32 " << nan << ", " << f << ";\n    selp.f32 " << canonical
                  << ", 0f7FFFFFFF, " << f << ", " << nan << ";\n    mov.b32 " << bits << ", " << canonical << ";\n";
            words.push_back(bits);
        }
        if (words.size() % 2) words.push_back(words.front());
        for (size_t i = 0; i < words.size(); i += 2) {
            const std::string pair = scratch(value_kind::b64);
            body_ << "    mov.b64 " << pair << ", {" << words[i] << ", " << words[i + 1] << "};\n";
            fold(pair);
        }
        for (int n : live_[index(value_kind::b64)]) fold(name(value_kind::b64, n));
        for (int n : live_[index(value_kind::f64)]) {
            const std::string nan = scratch(value_kind::pred), canonical = scratch(value_kind::f64);
            const std::string bits = scratch(value_kind::b64), f = name(value_kind::f64, n);
            body_ << "    testp.notanumber.f64 " << nan << ", " << f << ";\n    selp.f64 " << canonical
                  << ", 0d7FFFFFFFFFFFFFFF, " << f << ", " << nan << ";\n    mov.b64 " << bits << ", " << canonical
                  << ";\n";
            fold(bits);
        }
        body_ << "    st.global.u64 " << output_at(0) << ", " << h << ";\n";
    }
};

}  // namespace

uint32_t output_stride(output_mode mode) { return mode == output_mode::digest ? 8 : output_slots * slot_bytes; }

generated_kernel generate_kernel(uint64_t seed, output_mode mode) {
    generated_kernel k;
    k.name = "fuzz_" + std::to_string(seed);
    k.mode = mode;
    std::array<int, 5> next = {1, 8, 0, 0, 0};  // %r0 holds %tid.x, %rd0..%rd7 the addresses
    std::ostringstream body;
    k.program = emitter(seed, next, body).run(mode);
    std::ostringstream t;
    t << ".visible .entry " << k.name << "(\n    .param .u64 out,\n    .param .u64 in\n)\n{\n";
    t << "    .reg .pred %p<" << std::max(next[4], 1) << ">;\n";
    t << "    .reg .b32 %r<" << next[0] << ">;\n";
    t << "    .reg .b64 %rd<" << next[1] << ">;\n";
    t << "    .reg .f32 %f<" << std::max(next[2], 1) << ">;\n";
    t << "    .reg .f64 %fd<" << std::max(next[3], 1) << ">;\n\n";
    t << "    ld.param.u64 %rd0, [out];\n    ld.param.u64 %rd1, [in];\n"
         "    cvta.to.global.u64 %rd2, %rd0;\n    cvta.to.global.u64 %rd3, %rd1;\n"
         "    mov.u32 %r0, %tid.x;\n"
      << "    mul.wide.u32 %rd4, %r0, " << output_stride(mode) << ";\n    add.s64 %rd5, %rd2, %rd4;\n"
      << "    mul.wide.u32 %rd6, %r0, " << input_stride << ";\n    add.s64 %rd7, %rd3, %rd6;\n";
    t << body.str() << "    ret;\n}\n";
    k.text = t.str();
    return k;
}

std::string module_text(const std::vector<generated_kernel>& kernels) {
    std::string s = ".version 9.0\n.target sm_75\n.address_size 64\n\n";
    for (const auto& k : kernels) s += k.text + "\n";
    return s;
}

std::vector<uint8_t> thread_inputs(const generated_program& program, uint32_t thread) {
    rng r{(program.seed + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t(thread) << 40)};
    std::vector<uint8_t> slice(input_stride);
    for (auto& b : slice) b = uint8_t(r.next());  // bytes no field covers still hold something
    std::vector<uint64_t> floats32, floats64;     // earlier float values, for exact cancellations
    for (const input_field& f : program.inputs) {
        uint64_t v = 0;
        switch (f.kind) {
        case value_kind::b32:
            v = edge_u32(r);
            break;
        case value_kind::b64:
            v = edge_u64(r);
            break;
        case value_kind::f32:
            // Sometimes ±(an earlier input): x - x, x + (-x), equal operands.
            v = (!floats32.empty() && r.percent(15))
                    ? floats32[r.below(floats32.size())] ^ (r.percent(50) ? 0x80000000u : 0)
                    : edge_f32(r);
            floats32.push_back(v);
            break;
        case value_kind::f64:
            v = (!floats64.empty() && r.percent(15))
                    ? floats64[r.below(floats64.size())] ^ (r.percent(50) ? 0x8000000000000000ull : 0)
                    : edge_f64(r);
            floats64.push_back(v);
            break;
        case value_kind::pred:
            break;
        }
        std::memcpy(slice.data() + f.offset, &v, f.bytes);
    }
    return slice;
}

std::vector<std::string> instruction_forms(const std::string& entry_text) {
    std::vector<std::string> forms;
    std::istringstream in(entry_text);
    std::string line;
    while (std::getline(in, line)) {
        size_t i = line.find_first_not_of(' ');
        if (i == std::string::npos || line[i] == '.' || line[i] == '{' || line[i] == '}' || line[i] == ')') continue;
        if (line[i] == '@') i = line.find(' ', i) + 1;
        const size_t end = line.find_first_of(" ;", i);
        forms.push_back(line.substr(i, end - i));
    }
    return forms;
}

}  // namespace cudabridge::nv::ptx::fuzz
