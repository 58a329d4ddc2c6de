// Semantics follow the PTX ISA's own pseudocode and notes (9.x); where the ISA leaves a result
// unspecified (division by zero, INT_MIN / -1, a NaN's payload) the generator never asks or the
// test does not compare. Directed rounding is the host's: the rounding mode is set around one
// volatile operation (this file is built with -frounding-math).
#include "reference_evaluator.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace cudabridge::nv::ptx::fuzz {
namespace {

__extension__ using int128 = __int128;
__extension__ using uint128 = unsigned __int128;

struct bad : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// ---- Decoded form -----------------------------------------------------------------------------

struct type_info {
    char k = 0;  // 'b', 'u', 's', 'f', 'p'
    int bits = 0;
};

std::optional<type_info> parse_type(const std::string& m) {
    if (m == "pred") return type_info{'p', 1};
    if (m.size() < 2 || (m[0] != 'b' && m[0] != 'u' && m[0] != 's' && m[0] != 'f')) return std::nullopt;
    for (size_t i = 1; i < m.size(); ++i)
        if (m[i] < '0' || m[i] > '9') return std::nullopt;
    const int bits = std::stoi(m.substr(1));
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return std::nullopt;
    return type_info{m[0], bits};
}

struct operand {
    enum class kind { reg, imm, tid, ntid, param, address, vector, pair } k = kind::reg;
    int reg = -1;
    bool negated = false;   // !%p
    uint64_t imm = 0;       // integer literals as 64-bit two's complement, float literals as bits
    int param = -1;         // [name] of a .param
    int64_t offset = 0;     // [%rd+offset]
    std::vector<int> regs;  // {%r1, %r2} or p|q
    std::string lanes;      // a SIMD video operand's lane mask or selector: "b20" of %r1.b20
};

enum class op_code {
    mov,
    ld,
    st,
    cvta,
    ret,
    add,
    sub,
    mul,
    mad,
    fma,
    div,
    rem,
    and_,
    or_,
    xor_,
    not_,
    cnot,
    shl,
    shr,
    min,
    max,
    abs,
    neg,
    popc,
    clz,
    brev,
    bfe,
    bfi,
    selp,
    setp,
    testp,
    cvt,
    sqrt,
    rcp,
    bmsk,
    szext,
    dp4a,
    dp2a,
    fns,
    prmt,
    simd_video  // vadd4 ... vset4, vadd2 ... vset2
};

// vabsdiff4 -> "absdiff" and 4 lanes; empty for any other opcode.
std::pair<std::string, int> video_operation(const std::string& opcode) {
    static const std::array<const char*, 7> ops = {"add", "sub", "avrg", "absdiff", "min", "max", "set"};
    if (opcode.size() < 3 || opcode[0] != 'v' || (opcode.back() != '4' && opcode.back() != '2')) return {};
    const std::string name = opcode.substr(1, opcode.size() - 2);
    for (const char* o : ops)
        if (name == o) return {name, opcode.back() - '0'};
    return {};
}

op_code parse_opcode(const std::string& s) {
    static const std::unordered_map<std::string, op_code> ops = {
        {"mov", op_code::mov},   {"ld", op_code::ld},     {"st", op_code::st},       {"cvta", op_code::cvta},
        {"ret", op_code::ret},   {"add", op_code::add},   {"sub", op_code::sub},     {"mul", op_code::mul},
        {"mad", op_code::mad},   {"fma", op_code::fma},   {"div", op_code::div},     {"rem", op_code::rem},
        {"and", op_code::and_},  {"or", op_code::or_},    {"xor", op_code::xor_},    {"not", op_code::not_},
        {"cnot", op_code::cnot}, {"shl", op_code::shl},   {"shr", op_code::shr},     {"min", op_code::min},
        {"max", op_code::max},   {"abs", op_code::abs},   {"neg", op_code::neg},     {"popc", op_code::popc},
        {"clz", op_code::clz},   {"brev", op_code::brev}, {"bfe", op_code::bfe},     {"bfi", op_code::bfi},
        {"selp", op_code::selp}, {"setp", op_code::setp}, {"testp", op_code::testp}, {"cvt", op_code::cvt},
        {"sqrt", op_code::sqrt}, {"rcp", op_code::rcp},   {"bmsk", op_code::bmsk},   {"szext", op_code::szext},
        {"dp4a", op_code::dp4a}, {"dp2a", op_code::dp2a}, {"fns", op_code::fns},     {"prmt", op_code::prmt}};
    if (!video_operation(s).first.empty()) return op_code::simd_video;
    const auto it = ops.find(s);
    if (it == ops.end()) throw bad("unknown opcode '" + s + "'");
    return it->second;
}

struct instruction {
    std::string text;
    std::string opcode;  // the word before the first dot
    int guard = -1;
    bool guard_negated = false;
    op_code op = op_code::ret;
    std::vector<std::string> mods;  // every modifier, types included, in order
    std::vector<type_info> types;   // the modifiers that are types, in order
    std::vector<operand> operands;

    bool has(const char* m) const {
        for (const auto& x : mods)
            if (x == m) return true;
        return false;
    }
    const type_info& type(size_t i = 0) const {
        if (types.size() <= i) throw bad("missing type in '" + text + "'");
        return types[i];
    }
    // The first modifier found among `names`, or empty.
    std::string one_of(std::initializer_list<const char*> names) const {
        for (const auto& x : mods)
            for (const char* n : names)
                if (x == n) return x;
        return {};
    }
};

}  // namespace

struct reference_kernel::decoded {
    std::vector<std::string> params;
    std::vector<int> reg_bits;  // by register index; 1 for predicates
    std::vector<std::string> reg_names;
    std::vector<instruction> body;
};

namespace {

// ---- Text to decoded form ---------------------------------------------------------------------

std::string trim(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return std::string(s.substr(b, e - b));
}

std::string strip_comments(std::string_view text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '/' && i + 1 < text.size() && text[i + 1] == '/') {
            while (i < text.size() && text[i] != '\n') ++i;
        }
        if (i < text.size()) out += text[i];
    }
    return out;
}

std::vector<std::string> split_top_level(const std::string& s, char sep) {
    std::vector<std::string> parts;
    int depth = 0;
    std::string cur;
    for (char c : s) {
        if (c == '{' || c == '[') ++depth;
        if (c == '}' || c == ']') --depth;
        if (c == sep && depth == 0) {
            parts.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!trim(cur).empty()) parts.push_back(trim(cur));
    return parts;
}

class decoder {
public:
    explicit decoder(reference_kernel::decoded& d) : d_(d) {}

    void header(const std::string& params_text) {
        for (const auto& p : split_top_level(params_text, ',')) {
            // ".param .u64 name"
            const size_t last = p.find_last_of(" \t");
            if (p.rfind(".param", 0) != 0 || last == std::string::npos) throw bad("bad parameter '" + p + "'");
            d_.params.push_back(trim(p.substr(last + 1)));
        }
    }

    void declaration(const std::string& s) {
        // ".reg .b32 %r<12>"
        const size_t t = s.find('.', 4), sp = s.find(' ', t), lt = s.find('<'), gt = s.find('>');
        if (t == std::string::npos || sp == std::string::npos || lt == std::string::npos || gt == std::string::npos)
            throw bad("bad declaration '" + s + "'");
        const auto type = parse_type(s.substr(t + 1, sp - t - 1));
        if (!type) throw bad("bad register type in '" + s + "'");
        const std::string prefix = trim(s.substr(sp, lt - sp));
        const int count = std::stoi(s.substr(lt + 1, gt - lt - 1));
        for (int i = 0; i < count; ++i) {
            const std::string name = prefix + std::to_string(i);
            regs_[name] = int(d_.reg_bits.size());
            d_.reg_bits.push_back(type->bits);
            d_.reg_names.push_back(name);
        }
    }

    void statement(const std::string& s) {
        instruction in;
        in.text = s;
        std::string rest = s;
        if (rest[0] == '@') {
            const size_t sp = rest.find_first_of(" \t");
            std::string g = rest.substr(1, sp - 1);
            if (g[0] == '!') in.guard_negated = true, g = g.substr(1);
            in.guard = reg(g);
            rest = trim(rest.substr(sp));
        }
        const size_t sp = rest.find_first_of(" \t");
        const std::string word = rest.substr(0, sp);
        size_t dot = word.find('.');
        in.opcode = word.substr(0, dot);
        in.op = parse_opcode(in.opcode);
        while (dot != std::string::npos) {
            const size_t next = word.find('.', dot + 1);
            in.mods.push_back(word.substr(dot + 1, next == std::string::npos ? std::string::npos : next - dot - 1));
            dot = next;
        }
        for (const auto& m : in.mods)
            if (auto t = parse_type(m)) in.types.push_back(*t);
        if (sp != std::string::npos)
            for (const auto& o : split_top_level(trim(rest.substr(sp)), ',')) in.operands.push_back(parse_operand(o));
        d_.body.push_back(std::move(in));
    }

private:
    reference_kernel::decoded& d_;
    std::unordered_map<std::string, int> regs_;

    int reg(const std::string& name) const {
        const auto it = regs_.find(name);
        if (it == regs_.end()) throw bad("undeclared register '" + name + "'");
        return it->second;
    }

    operand parse_operand(const std::string& s) {
        operand o;
        if (s[0] == '[') {
            const std::string inner = trim(s.substr(1, s.size() - 2));
            const size_t plus = inner.find('+');
            const std::string base = trim(inner.substr(0, plus));
            if (plus != std::string::npos) o.offset = std::stoll(trim(inner.substr(plus + 1)), nullptr, 0);
            if (base[0] == '%') {
                o.k = operand::kind::address;
                o.reg = reg(base);
                return o;
            }
            for (size_t i = 0; i < d_.params.size(); ++i)
                if (d_.params[i] == base) o.param = int(i);
            if (o.param < 0) throw bad("unknown parameter '" + base + "'");
            o.k = operand::kind::param;
            return o;
        }
        if (s[0] == '{') {
            o.k = operand::kind::vector;
            for (const auto& e : split_top_level(s.substr(1, s.size() - 2), ',')) o.regs.push_back(reg(e));
            return o;
        }
        if (const size_t bar = s.find('|'); bar != std::string::npos) {
            o.k = operand::kind::pair;
            o.regs = {reg(trim(s.substr(0, bar))), reg(trim(s.substr(bar + 1)))};
            return o;
        }
        if (s[0] == '!') {
            o.negated = true;
            o.reg = reg(s.substr(1));
            return o;
        }
        if (s == "%tid.x" || s == "%ntid.x") {
            o.k = s == "%tid.x" ? operand::kind::tid : operand::kind::ntid;
            return o;
        }
        if (s[0] == '%') {
            const size_t dot = s.find('.');  // %r1.b20: a SIMD video lane suffix
            if (dot != std::string::npos) o.lanes = s.substr(dot + 1);
            o.reg = reg(s.substr(0, dot));
            return o;
        }
        o.k = operand::kind::imm;
        if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'd')) {
            o.imm = std::stoull(s.substr(2), nullptr, 16);
            return o;
        }
        std::string digits = s;
        if (digits.back() == 'U') digits.pop_back();
        const bool minus = digits[0] == '-';
        const uint64_t v = std::stoull(minus ? digits.substr(1) : digits, nullptr, 0);
        o.imm = minus ? 0 - v : v;
        return o;
    }
};

// ---- Integer helpers --------------------------------------------------------------------------

uint64_t mask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }
int64_t sext(uint64_t v, int bits) {
    if (bits >= 64) return int64_t(v);
    const int s = 64 - bits;
    return int64_t(v << s) >> s;
}
// The value of the low `t.bits` of v as the integer type t says.
int128 as_integer(uint64_t v, const type_info& t) {
    return t.k == 's' ? int128(sext(v, t.bits)) : int128(v & mask(t.bits));
}
int128 int_min(const type_info& t) { return t.k == 's' ? -(int128(1) << (t.bits - 1)) : 0; }
int128 int_max(const type_info& t) { return t.k == 's' ? (int128(1) << (t.bits - 1)) - 1 : (int128(1) << t.bits) - 1; }
int128 clamp(int128 v, const type_info& t) { return v < int_min(t) ? int_min(t) : v > int_max(t) ? int_max(t) : v; }

uint64_t bit_reverse(uint64_t v, int bits) {
    uint64_t r = 0;
    for (int i = 0; i < bits; ++i) r |= ((v >> i) & 1) << (bits - 1 - i);
    return r;
}

// ---- Float helpers ----------------------------------------------------------------------------

float as_f32(uint64_t b) { return std::bit_cast<float>(uint32_t(b)); }
double as_f64(uint64_t b) { return std::bit_cast<double>(b); }
uint64_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
uint64_t bits_of(double d) { return std::bit_cast<uint64_t>(d); }

int host_rounding(const std::string& rnd) {
    if (rnd == "rz") return FE_TOWARDZERO;
    if (rnd == "rm") return FE_DOWNWARD;
    if (rnd == "rp") return FE_UPWARD;
    return FE_TONEAREST;
}

// The host's rounding mode for one operation, put back afterwards.
struct rounding_scope {
    int saved;
    explicit rounding_scope(int mode) : saved(std::fegetround()) { std::fesetround(mode); }
    ~rounding_scope() { std::fesetround(saved); }
    rounding_scope(const rounding_scope&) = delete;
    rounding_scope& operator=(const rounding_scope&) = delete;
};

// a op b (op one of + - * /) or a*b+c for '*+', rounded as `rnd` says.
template <typename T>
T rounded(char op, T a, T b, T c, const std::string& rnd) {
    volatile T x = a, y = b, z = c;
    volatile T r;
    rounding_scope scope(host_rounding(rnd));
    switch (op) {
    case '+':
        r = x + y;
        break;
    case '-':
        r = x - y;
        break;
    case '*':
        r = x * y;
        break;
    case '/':
        r = x / y;
        break;
    case 'f':
        r = std::fma(T(x), T(y), T(z));
        break;
    case 's':
        r = std::sqrt(T(x));
        break;
    default:
        throw bad("bad float operation");
    }
    return r;
}

// min/max without .NaN: a NaN operand loses to a number; -0.0 < +0.0.
template <typename T>
T float_min_max(bool is_min, T a, T b) {
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
    if (a == 0 && b == 0) return (std::signbit(a) == is_min) ? a : b;
    if (is_min) return a < b ? a : b;
    return a > b ? a : b;
}

template <typename T>
bool float_compare(const std::string& cmp, T a, T b) {
    const bool unordered = std::isnan(a) || std::isnan(b);
    if (cmp == "num") return !unordered;
    if (cmp == "nan") return unordered;
    const bool u = cmp.size() == 3 && cmp.back() == 'u';
    if (unordered) return u;
    const std::string c = u ? cmp.substr(0, 2) : cmp;
    if (c == "eq") return a == b;
    if (c == "ne") return a != b;
    if (c == "lt") return a < b;
    if (c == "le") return a <= b;
    if (c == "gt") return a > b;
    if (c == "ge") return a >= b;
    throw bad("bad float comparison '" + cmp + "'");
}

template <typename T>
bool test_property(const std::string& p, T a) {
    const int c = std::fpclassify(a);
    if (p == "finite") return c != FP_NAN && c != FP_INFINITE;
    if (p == "infinite") return c == FP_INFINITE;
    if (p == "number") return c != FP_NAN;
    if (p == "notanumber") return c == FP_NAN;
    if (p == "normal") return c == FP_NORMAL || c == FP_ZERO;  // the ISA counts ±0 as normal
    if (p == "subnormal") return c == FP_SUBNORMAL;
    throw bad("bad testp property '" + p + "'");
}

// Integer rounding of a float value to an integral value (still a double here: exact).
double integral(const std::string& irnd, double v) {
    if (irnd == "rni") {
        rounding_scope scope(FE_TONEAREST);
        return std::nearbyint(v);
    }
    if (irnd == "rzi") return std::trunc(v);
    if (irnd == "rmi") return std::floor(v);
    if (irnd == "rpi") return std::ceil(v);
    throw bad("bad integer rounding '" + irnd + "'");
}

// ---- The interpreter --------------------------------------------------------------------------

class machine {
public:
    machine(const reference_kernel::decoded& d, const std::vector<uint64_t>& params, uint32_t tid, uint32_t ntid,
            const reference_memory& memory)
        : d_(d), params_(params), tid_(tid), ntid_(ntid), mem_(memory), regs_(d.reg_bits.size(), 0) {}

    void run() {
        for (const auto& in : d_.body) {
            if (in.guard >= 0 && ((regs_[size_t(in.guard)] != 0) == in.guard_negated)) continue;
            if (in.op == op_code::ret) return;
            try {
                step(in);
            } catch (const bad& e) {
                throw bad(std::string(e.what()) + " in '" + in.text + "'");
            }
        }
    }

private:
    const reference_kernel::decoded& d_;
    const std::vector<uint64_t>& params_;
    uint32_t tid_, ntid_;
    const reference_memory& mem_;
    std::vector<uint64_t> regs_;

    // The low `bits` of an operand's value.
    uint64_t read(const operand& o, int bits) const {
        switch (o.k) {
        case operand::kind::reg: {
            const uint64_t v = regs_[size_t(o.reg)] & mask(bits);
            return o.negated ? uint64_t(v == 0) : v;
        }
        case operand::kind::imm:
            return o.imm & mask(bits);
        case operand::kind::tid:
            return tid_;
        case operand::kind::ntid:
            return ntid_;
        default:
            throw bad("operand is not a value");
        }
    }
    // Writes the low `t.bits` of v, extended to the register's width as t's signedness says
    // (a destination wider than the instruction type).
    void write(const operand& o, uint64_t v, const type_info& t) {
        if (o.k != operand::kind::reg) throw bad("destination is not a register");
        const int reg_bits = d_.reg_bits[size_t(o.reg)];
        if (t.k == 'p' || reg_bits == 1) {
            regs_[size_t(o.reg)] = v & 1;
            return;
        }
        const uint64_t value = t.k == 's' ? uint64_t(sext(v, t.bits)) : (v & mask(t.bits));
        regs_[size_t(o.reg)] = value & mask(reg_bits);
    }
    bool pred(const operand& o) const { return read(o, 1) != 0; }
    const operand& arg(const instruction& in, size_t i) const {
        if (in.operands.size() <= i) throw bad("missing operand");
        return in.operands[i];
    }

    void step(const instruction& in) {
        switch (in.op) {
        case op_code::mov:
            return move(in);
        case op_code::ld:
            return load(in);
        case op_code::st:
            return store(in);
        case op_code::cvta:
            return write(arg(in, 0), read(arg(in, 1), 64), in.type());
        case op_code::cvt:
            return convert(in);
        case op_code::selp: {
            const type_info& t = in.type();
            return write(arg(in, 0), pred(arg(in, 3)) ? read(arg(in, 1), t.bits) : read(arg(in, 2), t.bits), t);
        }
        case op_code::setp:
            return set_predicate(in);
        case op_code::testp: {
            const type_info& t = in.type();
            const std::string& p = in.mods.at(0);
            const uint64_t a = read(arg(in, 1), t.bits);
            return write(arg(in, 0), t.bits == 32 ? test_property(p, as_f32(a)) : test_property(p, as_f64(a)),
                         type_info{'p', 1});
        }
        default:
            break;
        }
        if (in.has("s16x2") || in.has("u16x2")) return packed_min_max(in);
        if (in.op == op_code::simd_video) return simd_video(in);
        if (in.types.empty()) throw bad("missing type");
        if (in.type().k == 'f') return float_op(in);
        if (in.type().k == 'p') return pred_op(in);
        return int_op(in);
    }

    void move(const instruction& in) {
        const operand& d = arg(in, 0);
        const operand& s = arg(in, 1);
        if (d.k == operand::kind::vector) {  // mov.b64 {lo, hi}, %rd
            const uint64_t v = read(s, 64);
            regs_[size_t(d.regs.at(0))] = v & 0xFFFFFFFFu;
            regs_[size_t(d.regs.at(1))] = v >> 32;
            return;
        }
        if (s.k == operand::kind::vector) {  // mov.b64 %rd, {lo, hi}
            regs_[size_t(d.reg)] = (regs_[size_t(s.regs.at(0))] & 0xFFFFFFFFu) | (regs_[size_t(s.regs.at(1))] << 32);
            return;
        }
        const type_info& t = in.type();
        write(d, read(s, t.bits), t);
    }

    uint64_t address(const operand& o, int bytes) const {
        if (o.k != operand::kind::address) throw bad("not an address");
        const uint64_t a = regs_[size_t(o.reg)] + uint64_t(o.offset);
        if (a < mem_.base || a + uint64_t(bytes) > mem_.base + mem_.size) throw bad("address outside memory");
        return a - mem_.base;
    }

    void load(const instruction& in) {
        const type_info& t = in.type();
        const operand& s = arg(in, 1);
        if (in.has("param")) {
            if (s.k != operand::kind::param) throw bad("ld.param needs a parameter");
            return write(arg(in, 0), params_.at(size_t(s.param)), t);
        }
        if (!in.has("global")) throw bad("only ld.param and ld.global");
        const operand& d = arg(in, 0);
        const size_t bytes = size_t(t.bits / 8);
        if (d.k != operand::kind::vector) {
            uint64_t v = 0;
            std::memcpy(&v, mem_.bytes + address(s, int(bytes)), bytes);
            return write(d, v, t);
        }
        // ld.global.v2/.v4: consecutive elements into the listed registers.
        const uint64_t at = address(s, int(bytes * d.regs.size()));
        for (size_t i = 0; i < d.regs.size(); ++i) {
            uint64_t v = 0;
            std::memcpy(&v, mem_.bytes + at + i * bytes, bytes);
            operand element;
            element.reg = d.regs[i];
            write(element, v, t);
        }
    }

    void store(const instruction& in) {
        if (!in.has("global")) throw bad("only st.global");
        const type_info& t = in.type();
        const uint64_t v = read(arg(in, 1), t.bits);
        std::memcpy(mem_.bytes + address(arg(in, 0), t.bits / 8), &v, size_t(t.bits / 8));
    }

    bool int_compare(const std::string& cmp, const type_info& t, uint64_t a, uint64_t b) const {
        const int128 x = as_integer(a, t), y = as_integer(b, t);
        const uint64_t ux = a & mask(t.bits), uy = b & mask(t.bits);
        if (cmp == "eq") return ux == uy;
        if (cmp == "ne") return ux != uy;
        if (t.k == 'b') throw bad("ordered comparison of a bit type");
        if (cmp == "lt") return x < y;
        if (cmp == "le") return x <= y;
        if (cmp == "gt") return x > y;
        if (cmp == "ge") return x >= y;
        if (cmp == "lo") return ux < uy;
        if (cmp == "ls") return ux <= uy;
        if (cmp == "hi") return ux > uy;
        if (cmp == "hs") return ux >= uy;
        throw bad("bad comparison '" + cmp + "'");
    }

    // setp.cmp{.bool}.type p{|q}, a, b{, c}: t = a cmp b; p = t bool c; q = !t bool c.
    void set_predicate(const instruction& in) {
        const type_info& t = in.type();
        const std::string& cmp = in.mods.at(0);
        const uint64_t a = read(arg(in, 1), t.bits), b = read(arg(in, 2), t.bits);
        bool r;
        if (t.k == 'f')
            r = t.bits == 32 ? float_compare(cmp, as_f32(a), as_f32(b)) : float_compare(cmp, as_f64(a), as_f64(b));
        else
            r = int_compare(cmp, t, a, b);
        const std::string boolean = in.one_of({"and", "or", "xor"});
        auto combine = [&](bool v) {
            if (boolean.empty()) return v;
            const bool c = pred(arg(in, 3));
            return boolean == "and" ? (v && c) : boolean == "or" ? (v || c) : (v != c);
        };
        const operand& d = arg(in, 0);
        const type_info p{'p', 1};
        if (d.k == operand::kind::pair) {
            regs_[size_t(d.regs[0])] = combine(r);
            regs_[size_t(d.regs[1])] = combine(!r);
            return;
        }
        write(d, combine(r), p);
    }

    void pred_op(const instruction& in) {
        const bool a = pred(arg(in, 1));
        const type_info p{'p', 1};
        switch (in.op) {
        case op_code::not_:
            return write(arg(in, 0), !a, p);
        case op_code::and_:
            return write(arg(in, 0), a && pred(arg(in, 2)), p);
        case op_code::or_:
            return write(arg(in, 0), a || pred(arg(in, 2)), p);
        case op_code::xor_:
            return write(arg(in, 0), a != pred(arg(in, 2)), p);
        default:
            throw bad("not a predicate operation");
        }
    }

    void int_op(const instruction& in) {
        const type_info& t = in.type();
        const int n = t.bits;
        const uint64_t m = mask(n);
        const bool is_signed = t.k == 's';
        const operand& d = arg(in, 0);
        const uint64_t a = read(arg(in, 1), n);
        auto b = [&] { return read(arg(in, 2), n); };
        auto c = [&](int bits) { return read(arg(in, 3), bits); };
        switch (in.op) {
        case op_code::add:
        case op_code::sub: {
            const int128 x = as_integer(a, t), y = as_integer(b(), t);
            const int128 r = in.op == op_code::add ? x + y : x - y;
            if (in.has("sat")) return write(d, uint64_t(clamp(r, t)), t);
            return write(d, uint64_t(r) & m, t);
        }
        case op_code::mul:
        case op_code::mad: {
            // The product modulo 2^128 has the right low 2n bits for signed and unsigned.
            const uint128 product = uint128(as_integer(a, t)) * uint128(as_integer(b(), t));
            const bool wide = in.has("wide"), hi = in.has("hi");
            if (wide) {
                const type_info w{t.k, 2 * n};
                const uint64_t add = in.op == op_code::mad ? c(2 * n) : 0;
                return write(d, uint64_t(product) + add, w);
            }
            const uint64_t half = hi ? uint64_t(product >> n) & m : uint64_t(product) & m;
            const uint64_t add = in.op == op_code::mad ? c(n) : 0;
            return write(d, (half + add) & m, t);
        }
        case op_code::div:
        case op_code::rem: {
            const uint64_t y = b();
            if ((y & m) == 0) throw bad("division by zero (unspecified in PTX)");
            if (is_signed) {
                const int64_t sx = sext(a, n), sy = sext(y, n);
                if (sy == -1 && sx == int64_t(int_min(t))) throw bad("INT_MIN / -1 (unspecified in PTX)");
                return write(d, uint64_t(in.op == op_code::div ? sx / sy : sx % sy) & m, t);
            }
            return write(d, in.op == op_code::div ? a / y : a % y, t);
        }
        case op_code::and_:
            return write(d, a & b(), t);
        case op_code::or_:
            return write(d, a | b(), t);
        case op_code::xor_:
            return write(d, a ^ b(), t);
        case op_code::not_:
            return write(d, ~a & m, t);
        case op_code::cnot:
            return write(d, a == 0 ? 1 : 0, t);
        case op_code::shl:
        case op_code::shr: {
            // The amount is an unsigned 32-bit value; amounts past the width clamp to it.
            const uint64_t k = read(arg(in, 2), 32);
            if (in.op == op_code::shl) return write(d, k >= uint64_t(n) ? 0 : (a << k) & m, t);
            if (is_signed) {
                const int64_t sa = sext(a, n);
                return write(d, uint64_t(k >= uint64_t(n) ? (sa < 0 ? -1 : 0) : sa >> k) & m, t);
            }
            return write(d, k >= uint64_t(n) ? 0 : a >> k, t);
        }
        case op_code::min:
        case op_code::max: {
            const int128 x = as_integer(a, t), y = as_integer(b(), t);
            const bool take_a = in.op == op_code::min ? x < y : x > y;
            // .relu (s32): a negative result is 0.
            if (in.has("relu") && (take_a ? x : y) < 0) return write(d, 0, t);
            return write(d, take_a ? a : b(), t);
        }
        case op_code::abs:
            return write(d, sext(a, n) < 0 ? (0 - a) & m : a, t);
        case op_code::neg:
            return write(d, (0 - a) & m, t);
        case op_code::popc:
            return write(d, uint64_t(std::popcount(a)), type_info{'u', 32});
        case op_code::clz: {
            const int lz = n == 32 ? std::countl_zero(uint32_t(a)) : std::countl_zero(a);
            return write(d, uint64_t(lz), type_info{'u', 32});
        }
        case op_code::brev:
            return write(d, bit_reverse(a, n), t);
        case op_code::bmsk:
            return write(d, bit_mask(a, b(), in.has("clamp")), t);
        case op_code::szext:
            return write(d, sign_zero_extend(a, b(), in.has("clamp"), is_signed), t);
        case op_code::dp4a:
        case op_code::dp2a:
            return write(d, dot_product(in, a, b(), c(32)), type_info{'b', 32});
        case op_code::fns:
            return write(d, nth_set_bit(a, b(), c(32)), t);
        case op_code::prmt:
            return write(d, permute(in, a, b(), c(32)), t);
        case op_code::bfe:
            return write(d, bit_field_extract(t, a, read(arg(in, 2), 32), c(32)), t);
        case op_code::bfi: {
            // bfi.type f, a, b, c (position), d (length): a's low bits into b.
            const uint64_t base = b();
            const uint64_t pos = read(arg(in, 3), 32) & 0xFF, len = read(arg(in, 4), 32) & 0xFF;
            uint64_t f = base;
            for (uint64_t i = 0; i < len && pos + i <= uint64_t(n - 1); ++i)
                f = (f & ~(1ull << (pos + i))) | (((a >> i) & 1) << (pos + i));
            return write(d, f, t);
        }
        default:
            throw bad("not an integer operation");
        }
    }

    // bmsk: the ISA's pseudocode. Position a and width b mod 32; .clamp: a >= 32 gives 0, b >= 32
    // every bit from a up; a + b past 31 stops at bit 31.
    static uint64_t bit_mask(uint64_t a, uint64_t b, bool clamp) {
        const uint64_t a1 = a & 0x1f, b1 = b & 0x1f, sum = a1 + b1;
        uint64_t mask0 = (0xFFFFFFFFull << a1) & 0xFFFFFFFFull;
        uint64_t mask1 = sum >= 32 ? 0 : (0xFFFFFFFFull << sum) & 0xFFFFFFFFull;
        const bool position_over = clamp && a >= 32, width_over = clamp && b >= 32;
        if (position_over) mask0 = 0;
        if (sum >= 32 || position_over || width_over) mask1 = 0;
        return mask0 & ~mask1 & 0xFFFFFFFFull;
    }

    // szext: the low b bits of a (b mod 32; .clamp keeps all of a for b >= 32), sign- or
    // zero-extended.
    static uint64_t sign_zero_extend(uint64_t a, uint64_t b, bool clamp, bool is_signed) {
        const uint64_t b1 = b & 0x1f;
        if (clamp && b >= 32) return a;
        if (b1 == 0) return 0;
        const uint64_t field = a & ((1ull << b1) - 1);
        const bool negative = is_signed && ((a >> (b1 - 1)) & 1);
        return negative ? (field | (0xFFFFFFFFull << b1)) & 0xFFFFFFFFull : field;
    }

    // dp4a: c + the four products of a's and b's bytes; dp2a.lo/.hi: c + a's two halves times
    // b's bytes 0, 1 (or 2, 3). Signed or not by .atype and .btype; the sum wraps at 32 bits.
    static uint64_t dot_product(const instruction& in, uint64_t a, uint64_t b, uint64_t c) {
        const bool sa = in.type(0).k == 's', sb = in.type(1).k == 's';
        auto field = [](uint64_t v, int at, int bits, bool s) {
            const uint64_t raw = (v >> at) & ((1ull << bits) - 1);
            return s ? sext(raw, bits) : int64_t(raw);
        };
        int64_t sum = int64_t(c & 0xFFFFFFFFull);
        if (in.op == op_code::dp4a) {
            for (int i = 0; i < 4; ++i) sum += field(a, 8 * i, 8, sa) * field(b, 8 * i, 8, sb);
        } else {
            const int first = in.has("hi") ? 2 : 0;
            for (int i = 0; i < 2; ++i) sum += field(a, 16 * i, 16, sa) * field(b, 8 * (first + i), 8, sb);
        }
        return uint64_t(sum) & 0xFFFFFFFFull;
    }

    // fns: the ISA's loop. From bit `base` (at most 31), the |offset|-th set bit going up
    // (offset > 0) or down (< 0); offset 0 asks for base itself. 0xFFFFFFFF when there is none.
    static uint64_t nth_set_bit(uint64_t mask, uint64_t base, uint64_t offset_bits) {
        const int64_t offset = sext(offset_bits, 32);
        if (base > 31) throw bad("fns with a base past 31 (undefined in PTX)");
        if (offset == 0) return (mask >> base) & 1 ? base : 0xFFFFFFFFull;
        int64_t count = (offset < 0 ? -offset : offset) - 1;
        for (int64_t pos = int64_t(base); pos >= 0 && pos<32; pos += offset> 0 ? 1 : -1)
            if ((mask >> pos) & 1) {
                if (count == 0) return uint64_t(pos);
                --count;
            }
        return 0xFFFFFFFFull;
    }

    // prmt: bytes of {b, a} (7..0) picked by c's nibbles (the default: bit 3 replicates the
    // byte's sign) or, with a mode, by the ISA's table row for c's low two bits.
    static uint64_t permute(const instruction& in, uint64_t a, uint64_t b, uint64_t c) {
        const uint64_t source = (a & 0xFFFFFFFFull) | (b << 32);
        auto byte = [&](uint64_t i) { return (source >> (8 * i)) & 0xFF; };
        // Each row: the source byte of d's bytes 3, 2, 1, 0.
        static const std::unordered_map<std::string, std::array<std::array<int, 4>, 4>> modes = {
            {"f4e", {{{3, 2, 1, 0}, {4, 3, 2, 1}, {5, 4, 3, 2}, {6, 5, 4, 3}}}},
            {"b4e", {{{5, 6, 7, 0}, {6, 7, 0, 1}, {7, 0, 1, 2}, {0, 1, 2, 3}}}},
            {"rc8", {{{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}}},
            {"ecl", {{{3, 2, 1, 0}, {3, 2, 1, 1}, {3, 2, 2, 2}, {3, 3, 3, 3}}}},
            {"ecr", {{{0, 0, 0, 0}, {1, 1, 1, 0}, {2, 2, 1, 0}, {3, 2, 1, 0}}}},
            {"rc16", {{{1, 0, 1, 0}, {3, 2, 3, 2}, {1, 0, 1, 0}, {3, 2, 3, 2}}}}};
        uint64_t d = 0;
        for (const auto& m : in.mods)
            if (auto it = modes.find(m); it != modes.end()) {
                const auto& row = it->second[c & 3];
                for (int i = 0; i < 4; ++i) d |= byte(uint64_t(row[size_t(3 - i)])) << (8 * i);
                return d;
            }
        for (int i = 0; i < 4; ++i) {
            const uint64_t sel = (c >> (4 * i)) & 0xF;
            uint64_t v = byte(sel & 7);
            if (sel & 8) v = (v & 0x80) ? 0xFF : 0;
            d |= v << (8 * i);
        }
        return d;
    }

    // The SIMD video instructions, the ISA's pseudocode: Va, Vb from {b, a} by the selectors
    // (a.b3210 / b.b7654, a.h10 / b.h32 by default), extended by .atype and .btype; t[i] the
    // operation (vset: the comparison as 1 or 0), clamped to .dtype's lane with .sat; then
    // d = c + the masked t[i] (.add), or lane i of d = mask[i] ? t[i] : c's lane i.
    void simd_video(const instruction& in) {
        const auto [operation, lanes] = video_operation(in.opcode);
        const int width = 32 / lanes;
        const uint64_t field = mask(width);
        std::vector<type_info> types = in.types;
        if (operation == "set") types.insert(types.begin(), type_info{'u', 32});  // vset's d is unsigned
        if (types.size() != 3) throw bad("a SIMD video instruction needs its types");
        const bool d_signed = types[0].k == 's';
        const uint64_t a = read(arg(in, 1), 32), b = read(arg(in, 2), 32), c = read(arg(in, 3), 32);
        const uint64_t both = a | (b << 32);
        // A selector "b7430" names lane 3's element first; "" is the default.
        auto selector = [&](const std::string& text, int lane, bool is_b) {
            if (text.empty()) return lane + (is_b ? lanes : 0);
            return text[size_t(lanes - lane)] - '0';
        };
        auto element = [&](int index, const type_info& t) {
            const uint64_t raw = (both >> (index * width)) & field;
            return t.k == 's' ? sext(raw, width) : int64_t(raw);
        };
        const std::string& mask_text = arg(in, 0).lanes;
        auto in_mask = [&](int lane) {
            return mask_text.empty() || mask_text.find(char('0' + lane), 1) != std::string::npos;
        };
        const std::string cmp = in.one_of({"eq", "ne", "lt", "le", "gt", "ge"});
        uint64_t d = in.has("add") ? c : 0;
        for (int i = 0; i < lanes; ++i) {
            const int64_t x = element(selector(arg(in, 1).lanes, i, false), types[1]);
            const int64_t y = element(selector(arg(in, 2).lanes, i, true), types[2]);
            int64_t t = 0;
            if (operation == "add")
                t = x + y;
            else if (operation == "sub")
                t = x - y;
            else if (operation == "avrg")
                t = x + y >= 0 ? (x + y + 1) >> 1 : (x + y) >> 1;
            else if (operation == "absdiff")
                t = x > y ? x - y : y - x;
            else if (operation == "min")
                t = std::min(x, y);
            else if (operation == "max")
                t = std::max(x, y);
            else
                t = cmp == "eq"   ? x == y
                    : cmp == "ne" ? x != y
                    : cmp == "lt" ? x < y
                    : cmp == "le" ? x <= y
                    : cmp == "gt" ? x > y
                                  : x >= y;
            if (in.has("sat")) {
                const int64_t lo = d_signed ? -int64_t(field / 2) - 1 : 0,
                              hi = d_signed ? int64_t(field / 2) : int64_t(field);
                t = std::clamp(t, lo, hi);
            }
            if (in.has("add")) {
                if (in_mask(i)) d += uint64_t(t);
            } else {
                const uint64_t lane = in_mask(i) ? uint64_t(t) & field : (c >> (i * width)) & field;
                d |= lane << (i * width);
            }
        }
        write(arg(in, 0), d & 0xFFFFFFFFull, type_info{'b', 32});
    }

    // min/max.{u16x2,s16x2}{.relu}: each 16-bit lane on its own.
    void packed_min_max(const instruction& in) {
        if (in.op != op_code::min && in.op != op_code::max) throw bad("only min and max of 16-bit pairs");
        const bool is_signed = in.has("s16x2");
        const type_info lane{is_signed ? 's' : 'u', 16};
        const uint64_t a = read(arg(in, 1), 32), b = read(arg(in, 2), 32);
        uint64_t d = 0;
        for (int i = 0; i < 2; ++i) {
            const uint64_t x = (a >> (16 * i)) & 0xFFFF, y = (b >> (16 * i)) & 0xFFFF;
            const int128 vx = as_integer(x, lane), vy = as_integer(y, lane);
            uint64_t r = (in.op == op_code::min ? vx <= vy : vx >= vy) ? x : y;
            if (in.has("relu") && as_integer(r, lane) < 0) r = 0;
            d |= r << (16 * i);
        }
        write(arg(in, 0), d, type_info{'b', 32});
    }

    // The ISA's pseudocode: pos and len are taken mod 256; bits past the msb read as the sign
    // bit of the field (signed) or 0.
    static uint64_t bit_field_extract(const type_info& t, uint64_t a, uint64_t b, uint64_t c) {
        const int msb = t.bits - 1;
        const uint64_t pos = b & 0xFF, len = c & 0xFF;
        uint64_t sbit = 0;
        if (t.k == 's' && len != 0) sbit = (a >> std::min<uint64_t>(pos + len - 1, uint64_t(msb))) & 1;
        uint64_t d = 0;
        for (int i = 0; i <= msb; ++i) {
            const uint64_t bit =
                (uint64_t(i) < len && pos + uint64_t(i) <= uint64_t(msb)) ? (a >> (pos + i)) & 1 : sbit;
            d |= bit << i;
        }
        return d;
    }

    template <typename T>
    T float_value(const instruction& in, size_t i) const {
        const uint64_t b = read(arg(in, i), sizeof(T) * 8);
        if constexpr (sizeof(T) == 4)
            return as_f32(b);
        else
            return as_f64(b);
    }

    void float_op(const instruction& in) {
        if (in.type().bits == 32) return float_op_as<float>(in);
        return float_op_as<double>(in);
    }

    template <typename T>
    void float_op_as(const instruction& in) {
        const type_info& t = in.type();
        const operand& d = arg(in, 0);
        const std::string rnd = in.one_of({"rn", "rz", "rm", "rp"});
        const T a = float_value<T>(in, 1);
        auto b = [&] { return float_value<T>(in, 2); };
        const uint64_t sign = 1ull << (t.bits - 1);
        T r;
        switch (in.op) {
        case op_code::add:
            r = rounded<T>('+', a, b(), 0, rnd);
            break;
        case op_code::sub:
            r = rounded<T>('-', a, b(), 0, rnd);
            break;
        case op_code::mul:
            r = rounded<T>('*', a, b(), 0, rnd);
            break;
        case op_code::div:
            r = rounded<T>('/', a, b(), 0, rnd);
            break;
        case op_code::fma:
        case op_code::mad:
            r = rounded<T>('f', a, b(), float_value<T>(in, 3), rnd);
            break;
        case op_code::sqrt:
            r = rounded<T>('s', a, 0, 0, rnd);
            break;
        case op_code::rcp:
            r = rounded<T>('/', T(1), a, 0, rnd);
            break;
        case op_code::min:
            r = float_min_max<T>(true, a, b());
            break;
        case op_code::max:
            r = float_min_max<T>(false, a, b());
            break;
        // abs and neg act on the sign bit alone.
        case op_code::abs:
            return write(d, read(arg(in, 1), t.bits) & ~sign, t);
        case op_code::neg:
            return write(d, read(arg(in, 1), t.bits) ^ sign, t);
        default:
            throw bad("not a float operation");
        }
        write(d, bits_of(r), t);
    }

    void convert(const instruction& in) {
        if (in.types.size() != 2) throw bad("cvt needs two types");
        const type_info& dt = in.type(0);
        const type_info& at = in.type(1);
        const operand& d = arg(in, 0);
        const uint64_t a = read(arg(in, 1), at.bits);
        if (dt.k != 'f' && at.k != 'f') {  // integer to integer
            const int128 v = as_integer(a, at);
            return write(d, uint64_t(in.has("sat") ? clamp(v, dt) : v), dt);
        }
        if (dt.k != 'f') return write(d, float_to_int(in, dt, at, a), dt);
        if (at.k != 'f') {  // integer to float, rounded to nearest (the only mode generated)
            if (in.one_of({"rn"}).empty()) throw bad("only cvt.rn from integers");
            const int128 v = as_integer(a, at);
            if (dt.bits == 32) return write(d, bits_of(at.k == 's' ? float(int64_t(v)) : float(uint64_t(v))), dt);
            return write(d, bits_of(at.k == 's' ? double(int64_t(v)) : double(uint64_t(v))), dt);
        }
        const std::string irnd = in.one_of({"rni", "rzi", "rmi", "rpi"});
        if (dt.bits == 64 && at.bits == 32) return write(d, bits_of(double(as_f32(a))), dt);  // exact
        if (dt.bits == 32 && at.bits == 64) {
            if (in.one_of({"rn"}).empty()) throw bad("only cvt.rn.f32.f64");
            return write(d, bits_of(float(as_f64(a))), dt);
        }
        if (irnd.empty()) throw bad("same-size float cvt needs integer rounding");
        if (dt.bits == 32) return write(d, bits_of(float(integral(irnd, double(as_f32(a))))), dt);
        return write(d, bits_of(integral(irnd, as_f64(a))), dt);
    }

    // Float to integer: rounded as .rni/.rzi/.rmi/.rpi says, then clamped to the destination's
    // range. NaN gives 0, except from .f64 or into a 64-bit integer: 1 << (width - 1).
    static uint64_t float_to_int(const instruction& in, const type_info& dt, const type_info& at, uint64_t a) {
        const double v = at.bits == 32 ? double(as_f32(a)) : as_f64(a);
        if (std::isnan(v)) return (at.bits == 64 || dt.bits == 64) ? 1ull << (dt.bits - 1) : 0;
        const std::string irnd = in.one_of({"rni", "rzi", "rmi", "rpi"});
        if (irnd.empty()) throw bad("float to integer cvt needs integer rounding");
        const double r = integral(irnd, v);
        const double lo = double(int_min(dt)), hi_excl = std::ldexp(1.0, dt.k == 's' ? dt.bits - 1 : dt.bits);
        if (r < lo) return uint64_t(int_min(dt));
        if (r >= hi_excl) return uint64_t(int_max(dt));
        return dt.k == 's' ? uint64_t(int64_t(r)) : uint64_t(r);
    }
};

}  // namespace

reference_kernel::reference_kernel(std::unique_ptr<decoded> d) : d_(std::move(d)) {}
reference_kernel::~reference_kernel() = default;

std::unique_ptr<reference_kernel> reference_kernel::decode(std::string_view entry_text, std::string& error) {
    auto d = std::make_unique<decoded>();
    try {
        const std::string text = strip_comments(entry_text);
        const size_t open = text.find('('), close = text.find(')', open), body = text.find('{', close),
                     end = text.rfind('}');
        if (open == std::string::npos || close == std::string::npos || body == std::string::npos ||
            end == std::string::npos || end < body)
            throw bad("not an .entry with a body");
        decoder dec(*d);
        dec.header(text.substr(open + 1, close - open - 1));
        for (const auto& s : split_top_level(text.substr(body + 1, end - body - 1), ';')) {
            if (s.empty()) continue;
            if (s.rfind(".reg", 0) == 0)
                dec.declaration(s);
            else
                dec.statement(s);
        }
    } catch (const std::exception& e) {
        error = e.what();
        return nullptr;
    }
    return std::unique_ptr<reference_kernel>(new reference_kernel(std::move(d)));
}

std::string reference_kernel::run(const std::vector<uint64_t>& params, uint32_t tid, uint32_t ntid,
                                  const reference_memory& memory) const {
    if (params.size() != d_->params.size()) return "expected " + std::to_string(d_->params.size()) + " parameters";
    try {
        machine(*d_, params, tid, ntid, memory).run();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

}  // namespace cudabridge::nv::ptx::fuzz
