// A hand-written recursive-descent parser over a small tokenizer: PTX's grammar is regular enough
// (directives, declarations, "[@p] opcode.mods operands;") that no parser generator is needed.
#include "sim/ptx/parser.hpp"

#include "sim/ptx/simd_video.hpp"

#include "sim/ptx/limits.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <cctype>
#include <cstring>
#include <stdexcept>

namespace cudabridge::nv::ptx {
namespace {

struct token {
    enum class kind { word, punct, string, end } k = kind::end;
    std::string text;
    int line = 0;
};

struct syntax_error : std::runtime_error {
    int line;
    syntax_error(int l, const std::string& m) : std::runtime_error(m), line(l) {}
};

bool word_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.';
}

std::vector<token> tokenize(std::string_view s) {
    std::vector<token> out;
    int line = 1;
    size_t i = 0;
    while (i < s.size()) {
        const char c = s[i];
        if (c == '\n') {
            ++line;
            ++i;
        } else if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
        } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
            while (i < s.size() && s[i] != '\n') ++i;
        } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
            i += 2;
            while (i + 1 < s.size() && !(s[i] == '*' && s[i + 1] == '/')) line += s[i++] == '\n';
            i += 2;
        } else if (c == '"') {
            size_t j = i + 1;
            while (j < s.size() && s[j] != '"') j += s[j] == '\\' ? 2 : 1;
            out.push_back({token::kind::string, std::string(s.substr(i + 1, j - i - 1)), line});
            i = j + 1;
        } else if (word_char(c)) {
            size_t j = i;
            // `::` inside a word belongs to it (.shared::cta, .L2::cache_hint).
            while (j < s.size() && (word_char(s[j]) || (s[j] == ':' && j + 2 < s.size() && s[j + 1] == ':' &&
                                                        word_char(s[j + 2]) && j > i)))
                j += s[j] == ':' ? 2 : 1;
            std::string w(s.substr(i, j - i));
            // `.reg.b16` (cuda_fp16.h writes it without a space) is `.reg .b16`.
            if (w.rfind(".reg.", 0) == 0) {
                out.push_back({token::kind::word, ".reg", line});
                w.erase(0, 4);
            }
            out.push_back({token::kind::word, std::move(w), line});
            i = j;
        } else if (c == '\0') {
            break;  // a NUL-terminated image
        } else {
            out.push_back({token::kind::punct, std::string(1, c), line});
            ++i;
        }
    }
    out.push_back({token::kind::end, "", line});
    return out;
}

// Splits "ld.global.f32" into "ld" and {"global", "f32"}.
void split_dotted(const std::string& word, std::string& head, std::vector<std::string>& mods) {
    size_t start = 0, dot = word.find('.');
    head = word.substr(0, dot);
    while (dot != std::string::npos) {
        start = dot + 1;
        dot = word.find('.', start);
        mods.push_back(word.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    }
}

bool parse_integer(const std::string& w, int64_t& out) {
    if (w.empty() || !std::isdigit(static_cast<unsigned char>(w[0]))) return false;
    std::string digits = w;
    if (!digits.empty() && (digits.back() == 'U' || digits.back() == 'u')) digits.pop_back();
    try {
        size_t used = 0;
        const unsigned long long v = std::stoull(digits, &used, 0);
        if (used != digits.size()) return false;
        out = static_cast<int64_t>(v);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

// 0f3F800000 (f32 bits) and 0d3FF0000000000000 (f64 bits).
bool parse_hex_float(const std::string& w, int64_t& bits, int& width) {
    if (w.size() < 3 || w[0] != '0' || (w[1] != 'f' && w[1] != 'F' && w[1] != 'd' && w[1] != 'D')) return false;
    width = (w[1] == 'f' || w[1] == 'F') ? 32 : 64;
    if (w.size() != 2 + static_cast<size_t>(width) / 4) return false;
    try {
        size_t used = 0;
        bits = static_cast<int64_t>(std::stoull(w.substr(2), &used, 16));
        return used == w.size() - 2;
    } catch (const std::exception&) {
        return false;
    }
}

// -v in two's complement: -9223372036854775808 is a valid PTX immediate, and negating it as a
// signed number is undefined behaviour.
int64_t negated(int64_t v) { return static_cast<int64_t>(0 - static_cast<uint64_t>(v)); }

class parser {
public:
    explicit parser(std::string_view text) : toks_(tokenize(text)) {}

    module run() {
        module m;
        while (!at_end()) top_level(m);
        drop_forward_declarations(m);
        return m;
    }

    // nvcc declares a .func before the kernel that calls it when the definition comes later
    // (CUDA's double-precision trig slow path): the declaration is not an external function.
    static void drop_forward_declarations(module& m) {
        std::set<std::string> defined;
        for (const auto& f : m.functions)
            if (!f.is_extern) defined.insert(f.name);
        std::erase_if(m.functions, [&](const function& f) { return f.is_extern && defined.count(f.name); });
    }

private:
    std::vector<token> toks_;
    size_t pos_ = 0;
    // Registers declared inside a { } block of a function body (inline asm from CUDA's headers
    // declares `.reg .f16 low, high;` or `.reg .u32 %r0, ...;` there), renamed for the block, so
    // a block's names neither clash with another block's nor hide the function's after it ends.
    std::vector<std::map<std::string, std::string>> scopes_;
    int scope_serial_ = 0;
    int64_t registers_ = 0;  // registers the function being read has declared so far

    std::string scoped(const std::string& name) const {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
            if (auto r = it->find(name); r != it->end()) return r->second;
        return name;
    }

    const token& peek(size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
    bool at_end() const { return peek().k == token::kind::end; }
    int line() const { return peek().line; }
    token next() {
        token t = peek();
        if (!at_end()) ++pos_;
        return t;
    }
    [[noreturn]] void fail(const std::string& what) const {
        const token& t = peek();
        throw syntax_error(t.line,
                           what + (t.k == token::kind::end ? " at the end of the text" : " near '" + t.text + "'"));
    }
    bool is_punct(const char* p) const { return peek().k == token::kind::punct && peek().text == p; }
    bool is_word(const char* w) const { return peek().k == token::kind::word && peek().text == w; }
    bool accept(const char* p) {
        if (!is_punct(p) && !is_word(p)) return false;
        ++pos_;
        return true;
    }
    void expect(const char* p) {
        if (!accept(p)) fail(std::string("expected '") + p + "'");
    }
    std::string word() {
        if (peek().k != token::kind::word) fail("expected a name");
        return next().text;
    }
    // A count the module gives, refused outside [low, high] with the limit named.
    int64_t bounded(int64_t low, uint64_t high, const char* what) {
        const int64_t v = integer();
        if (v < low || static_cast<uint64_t>(v) > high) {
            --pos_;  // name the number in the message
            fail(std::to_string(v) + " " + what + " (" + std::to_string(low) + " to " + std::to_string(high) +
                 " allowed)");
        }
        return v;
    }
    int64_t integer() {
        bool negative = accept("-");
        int64_t v = 0;
        if (peek().k != token::kind::word || !parse_integer(peek().text, v)) fail("expected a number");
        next();
        return negative ? negated(v) : v;
    }
    void skip_line(int l) {
        while (!at_end() && peek().line == l) next();
    }

    void top_level(module& m) {
        const int l = line();
        if (accept(".version")) {
            m.version = word();
        } else if (accept(".target")) {
            m.target = word();
            while (accept(",")) word();
        } else if (accept(".address_size")) {
            m.address_size = static_cast<int>(integer());
        } else if (is_word(".file") || is_word(".loc") || is_word(".section")) {
            skip_line(l);
        } else if (accept(".pragma")) {
            while (!at_end() && !accept(";")) next();
        } else {
            declaration_or_function(m);
        }
    }

    void declaration_or_function(module& m) {
        bool is_extern = false, visible = false;
        for (;;) {
            if (accept(".extern"))
                is_extern = true;
            else if (accept(".visible"))
                visible = true;
            else if (accept(".weak") || accept(".common"))
                visible = true;
            else
                break;
        }
        if (is_word(".entry") || is_word(".func")) return function_decl(m, is_extern, visible);
        variable v = variable_decl();
        v.is_extern = is_extern;
        v.visible = visible;
        expect(";");
        m.globals.push_back(std::move(v));
    }

    // [.space] [.align N] [.vN] .type name[<N>] [[N]] [= init]
    variable variable_decl() {
        variable v;
        v.line = line();
        for (;;) {
            const std::string w = peek().k == token::kind::word ? peek().text : "";
            if (w == ".reg")
                v.where = space::reg;
            else if (w == ".param")
                v.where = space::param;
            else if (w == ".global")
                v.where = space::global;
            else if (w == ".shared")
                v.where = space::shared;
            else if (w == ".local")
                v.where = space::local;
            else if (w == ".const")
                v.where = space::constant;
            else if (w == ".align") {
                next();
                v.align = static_cast<uint32_t>(bounded(1, limits::alignment, "bytes of alignment"));
                if ((v.align & (v.align - 1)) != 0)
                    fail(".align " + std::to_string(v.align) + " is not a power of two");
                continue;
            } else if (w == ".attribute") {
                // .attribute(.managed) (a __managed__ variable), .attribute(.unified(...)): where
                // the runtime places the variable; to the engine it is an ordinary one.
                next();
                expect("(");
                for (int depth = 1; depth > 0 && !at_end();) {
                    if (accept("("))
                        ++depth;
                    else if (accept(")"))
                        --depth;
                    else
                        next();
                }
                continue;
            } else if (w == ".v2" || w == ".v4" || w == ".v8")
                v.vector_width = w[2] - '0';
            else if (w == ".ptr" || w == ".restrict") {
            } else if (w.size() > 1 && w[0] == '.' && type_from_word(w.substr(1)).valid()) {
                v.type = type_from_word(w.substr(1));
            } else
                break;
            next();
        }
        if (v.where == space::none) fail("expected a declaration");
        if (!v.type.valid()) fail("a declaration without a type");
        declarator(v);
        return v;
    }

    // name[<N>] [[N]...] [= init]: one name of a declaration.
    void declarator(variable& v) {
        v.name = word();
        if (accept("<")) {
            v.reg_count =
                static_cast<int>(bounded(1, limits::registers_per_declaration, "registers in one declaration"));
            expect(">");
        }
        if (accept("[")) {
            if (accept("]")) {
                v.unsized_array = true;
            } else {
                v.array_count = 1;
                do {  // a multi-dimensional array: flattened
                    const auto n = static_cast<uint64_t>(bounded(1, limits::array_elements, "array elements"));
                    if (v.array_count > limits::array_elements / n) fail("more than 2^32 array elements");
                    v.array_count *= n;
                    expect("]");
                } while (accept("["));
            }
        }
        if (accept("=")) initializer(v);
    }

    // A declaration in a function body, with every name of a comma-separated list; registers
    // declared inside a { } block get names of their own (scopes_).
    void local_declarations(function& f) {
        variable first = variable_decl();
        std::vector<variable> all{first};
        while (accept(",")) {
            variable more = first;
            more.init.clear();
            more.has_init = false;
            more.array_count = 0;
            more.unsized_array = false;
            more.reg_count = -1;
            declarator(more);
            all.push_back(std::move(more));
        }
        expect(";");
        for (auto& v : all) {
            if (v.where == space::reg && (registers_ += std::max(v.reg_count, 1)) > limits::registers_per_function)
                throw syntax_error(v.line, "more than " + std::to_string(limits::registers_per_function) +
                                               " registers declared in '" + f.name + "'");
            if (v.where == space::reg && scopes_.size() > 1) rename_in_block(v);
            f.locals.push_back(std::move(v));
        }
    }

    void rename_in_block(variable& v) {
        const std::string bare = v.name[0] == '%' ? v.name.substr(1) : v.name;
        const std::string renamed = "%" + bare + "$" + std::to_string(scope_serial_) + "_";
        auto& names = scopes_.back();
        if (v.reg_count < 0) {
            names[v.name] = renamed;
        } else {
            for (int i = 0; i < v.reg_count; ++i) names[v.name + std::to_string(i)] = renamed + std::to_string(i);
        }
        v.name = renamed;
    }

    void append_value(variable& v, int64_t bits) {
        const int width = v.type.k == scalar_type::kind::pred ? 1 : v.type.bits / 8;
        for (int i = 0; i < width; ++i) v.init.push_back(static_cast<uint8_t>(static_cast<uint64_t>(bits) >> (8 * i)));
    }

    void initializer_value(variable& v) {
        if (accept("{")) {
            if (!accept("}")) {
                do initializer_value(v);
                while (accept(","));
                expect("}");
            }
            return;
        }
        bool negative = accept("-");
        const token t = next();
        int64_t bits = 0;
        int width = 0;
        if (t.k != token::kind::word) fail("expected an initializer value");
        if (parse_hex_float(t.text, bits, width)) {
            if (width != v.type.bits) fail("a float initializer of another width");
            if (negative) bits ^= int64_t(1) << (width - 1);
        } else if (parse_integer(t.text, bits)) {
            if (negative) bits = negated(bits);
        } else {
            // An address: `symbol` or `generic(symbol)`, filled in by the layout.
            std::string symbol = t.text;
            if (t.text == "generic") {
                expect("(");
                symbol = next().text;
                expect(")");
            }
            if (negative || v.type.bits != 64) fail("an address in an initializer of fewer than 64 bits");
            v.address_init.emplace_back(v.init.size(), symbol);
        }
        append_value(v, bits);
    }

    void initializer(variable& v) {
        v.has_init = true;
        initializer_value(v);
        if (v.unsized_array && v.type.bits) v.array_count = v.init.size() / (v.type.bits / 8), v.unsized_array = false;
    }

    std::vector<variable> param_list() {
        std::vector<variable> ps;
        expect("(");
        if (accept(")")) return ps;
        do ps.push_back(variable_decl());
        while (accept(","));
        expect(")");
        return ps;
    }

    void function_decl(module& m, bool is_extern, bool visible) {
        function f;
        f.line = line();
        f.is_entry = next().text == ".entry";
        f.is_extern = is_extern;
        f.visible = visible;
        if (!f.is_entry && is_punct("(")) f.returns = param_list();
        f.name = word();
        if (is_punct("(")) f.params = param_list();
        // Performance directives (.maxntid, .reqntid, .minnctapersm, .maxnreg, .noreturn, ...).
        while (peek().k == token::kind::word && peek().text[0] == '.') {
            const std::string d = next().text;
            std::vector<int64_t> values;
            while (peek().k == token::kind::word && std::isdigit(static_cast<unsigned char>(peek().text[0]))) {
                values.push_back(integer());
                if (!accept(",")) break;
            }
            if (d == ".reqntid" || d == ".maxntid")
                for (size_t i = 0; i < values.size() && i < 3; ++i) f.reqntid[i] = static_cast<uint32_t>(values[i]);
        }
        if (accept(";")) {
            f.is_extern = true;
            m.functions.push_back(std::move(f));
            return;
        }
        expect("{");
        body(f);
        m.functions.push_back(std::move(f));
    }

    void body(function& f) {
        scopes_.assign(1, {});
        registers_ = 0;
        while (!scopes_.empty()) {
            if (at_end()) fail("a function body without its closing '}'");
            if (f.body.size() > limits::instructions_per_function)
                fail("more than " + std::to_string(limits::instructions_per_function) + " instructions in '" + f.name +
                     "'");
            if (accept("{")) {
                if (scopes_.size() >= limits::nesting_depth)
                    fail("{ } blocks nested more than " + std::to_string(limits::nesting_depth) + " deep");
                scopes_.emplace_back();
                ++scope_serial_;
            } else if (accept("}")) {
                scopes_.pop_back();
            } else if (is_word(".loc") || is_word(".file")) {
                skip_line(line());
            } else if (is_word(".pragma")) {
                while (!at_end() && !accept(";")) next();
            } else if (peek().k == token::kind::word &&
                       (peek().text == ".reg" || peek().text == ".param" || peek().text == ".local" ||
                        peek().text == ".shared" || peek().text == ".const" || peek().text == ".global")) {
                local_declarations(f);
            } else if (peek().k == token::kind::word && peek(1).k == token::kind::punct && peek(1).text == ":" &&
                       peek(2).k == token::kind::word && peek(2).text == ".callprototype") {
                // prototype_3 : .callprototype (.param .b32 _) _ (.param .b64 _); an indirect
                // call's signature: the call's own .param buffers say the same.
                while (!at_end() && !accept(";")) next();
            } else if (peek().k == token::kind::word && peek(1).k == token::kind::punct && peek(1).text == ":") {
                instruction label;
                label.line = line();
                label.label = next().text;
                next();
                f.body.push_back(std::move(label));
            } else {
                f.body.push_back(instruction_stmt());
            }
        }
    }

    instruction instruction_stmt() {
        instruction in;
        in.line = line();
        if (accept("@")) {
            in.guard_negated = accept("!");
            in.guard = scoped(word());
        }
        const std::string op = word();
        split_dotted(op, in.opcode, in.mods);
        if (in.opcode == "call") return call_stmt(in);
        if (!accept(";")) {
            do in.operands.push_back(operand_expr());
            while (accept(","));
            expect(";");
        }
        if (is_simd_video(in.opcode)) move_lane_suffixes(in);
        return in;
    }

    // vadd4 d.b20, a.b3210, ...: the lane mask and selectors become modifiers "operand:suffix"
    // ("0:b20"), so that every later stage sees plain register names.
    static void move_lane_suffixes(instruction& in) {
        for (size_t i = 0; i < in.operands.size(); ++i) {
            operand& o = in.operands[i];
            const size_t dot = o.name.find('.');
            if (o.k != operand::kind::reg || dot == std::string::npos) continue;
            in.mods.push_back(std::to_string(i) + ":" + o.name.substr(dot + 1));
            o.name.resize(dot);
        }
    }

    // call[.uni] [(ret, ...),] callee[, (arg, ...)];
    instruction call_stmt(instruction& in) {
        if (accept("(")) {
            do in.call_returns.push_back(operand_expr());
            while (accept(","));
            expect(")");
            expect(",");
        }
        in.callee = word();
        if (accept(",")) {
            expect("(");
            if (!accept(")")) {
                do in.call_args.push_back(operand_expr());
                while (accept(","));
                expect(")");
            }
            // An indirect call names its prototype: call (r), %rd, (a), prototype_3;
            if (accept(",")) word();
        }
        // The address register is also the call's operand, so that the analyses see it read.
        if (in.indirect_call()) {
            in.callee = scoped(in.callee);
            operand address;
            address.name = in.callee;
            in.operands.push_back(address);
        }
        expect(";");
        return in;
    }

    operand operand_expr() {
        operand o;
        if (accept("{")) {
            o.k = operand::kind::vector;
            do o.elements.push_back(operand_expr());
            while (accept(","));
            expect("}");
            return o;
        }
        if (accept("[")) return address_expr();
        if (accept("!")) {
            o = operand_expr();
            o.negate_pred = true;
            return o;
        }
        bool negative = accept("-");
        if (peek().k != token::kind::word) fail("expected an operand");
        const std::string w = next().text;
        int width = 0;
        if (parse_hex_float(w, o.value, width)) {
            o.k = operand::kind::imm_float;
            o.float_bits = width;
            if (negative) o.value ^= int64_t(1) << (width - 1);
        } else if (parse_integer(w, o.value)) {
            o.k = operand::kind::imm_int;
            if (negative) o.value = negated(o.value);
        } else if (negative) {
            fail("a '-' before a name");
        } else if (w == "_") {
            o.k = operand::kind::discard;
        } else {
            o.name = scoped(w);
            o.k = o.name[0] == '%' ? operand::kind::reg : operand::kind::symbol;
        }
        if (accept("|")) {  // d|p: a value and a predicate destination (shfl.sync, setp, match.all)
            operand pair;
            pair.k = operand::kind::vector;
            pair.name = "|";
            pair.elements.push_back(o);
            pair.elements.push_back(operand_expr());
            return pair;
        }
        return o;
    }

    operand address_expr() {
        operand o;
        o.k = operand::kind::address;
        if (peek().k == token::kind::word && !std::isdigit(static_cast<unsigned char>(peek().text[0]))) {
            o.name = scoped(next().text);
            o.base_is_reg = o.name[0] == '%';
            if (accept("+"))
                o.value = integer();
            else if (accept("-"))
                o.value = -integer();
        } else {
            o.value = integer();
        }
        if (accept(","))  // texture and surface coordinates: [tex, {x, y}], in `elements`
            o.elements.push_back(operand_expr());
        expect("]");
        return o;
    }
};

}  // namespace

scalar_type type_from_word(std::string_view w) {
    using k = scalar_type::kind;
    if (w == "pred") return {k::pred, 1};
    if (w.size() < 2) return {};
    k kind = k::none;
    switch (w[0]) {
    case 'b':
        kind = k::bits;
        break;
    case 'u':
        kind = k::uint;
        break;
    case 's':
        kind = k::sint;
        break;
    case 'f':
        kind = k::flt;
        break;
    default:
        return {};
    }
    const std::string_view digits = w.substr(1);
    int bits = 0;
    if (digits == "8")
        bits = 8;
    else if (digits == "16")
        bits = 16;
    else if (digits == "32")
        bits = 32;
    else if (digits == "64")
        bits = 64;
    else
        return {};
    if (kind == k::flt && bits == 8) return {};
    return {kind, bits};
}

parse_result parse(std::string_view text) {
    parse_result r;
    try {
        r.mod = parser(text).run();
        r.ok = true;
    } catch (const syntax_error& e) {
        r.error = "line " + std::to_string(e.line) + ": " + e.what();
    }
    return r;
}

}  // namespace cudabridge::nv::ptx
