#include "sim/ptx/matrix.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace cudabridge::nv::ptx {
namespace {

// Every f16 as a float, computed once: without F16C (the baseline build) each conversion is a
// libgcc call, and a 16x16x16 product converts 768 elements.
const std::array<float, 65536>& half_values() {
    static const auto* table = [] {
        auto* t = new std::array<float, 65536>;
        for (uint32_t b = 0; b < 65536; ++b) {
            _Float16 h;
            const auto b16 = static_cast<uint16_t>(b);
            std::memcpy(&h, &b16, 2);
            (*t)[b] = static_cast<float>(h);
        }
        return t;
    }();
    return *table;
}

float half_to_float(uint32_t bits) { return half_values()[bits & 0xFFFF]; }

uint32_t half_bits(_Float16 h) {
    uint16_t b;
    std::memcpy(&b, &h, 2);
    return b;
}

float bits_to_float(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint32_t float_bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

// An element's value: floats exactly, integers as themselves. (These three run for every element
// of every tensor-core instruction: inlined into the loops.)
[[gnu::always_inline]] inline double value_of(matrix_element t, uint64_t bits) {
    switch (t) {
    case matrix_f64: {
        double d;
        std::memcpy(&d, &bits, 8);
        return d;
    }
    case matrix_f16:
        return half_to_float(bits);
    case matrix_bf16:
        return bits_to_float(bits << 16);
    case matrix_tf32:
        return bits_to_float(bits & 0xFFFFE000u);
    case matrix_f32:
        return bits_to_float(bits);
    case matrix_s32:
        return static_cast<int32_t>(bits);
    case matrix_s8:
        return static_cast<int8_t>(bits);
    default:
        return static_cast<uint8_t>(bits);
    }
}

// The f16 next to h towards +inf (up) or -inf.
_Float16 half_step(_Float16 h, bool up) {
    uint32_t b = half_bits(h);
    if ((b & 0x7FFF) == 0)
        b = up ? 1u : 0x8001u;
    else if (((b & 0x8000) == 0) == up)
        ++b;
    else
        --b;
    const auto b16 = static_cast<uint16_t>(b);
    _Float16 r;
    std::memcpy(&r, &b16, 2);
    return r;
}

// acc + p rounded once to f16 (p: a product of two f16, exact in double). The double sum may be
// inexact; TwoSum gives its error, which decides the one case where rounding the double sum to
// f16 differs: a sum exactly halfway between two f16.
_Float16 add_rounded_to_half(_Float16 acc, double p) {
    const double a = static_cast<double>(acc), s = a + p, bb = s - a;
    const double err = (a - (s - bb)) + (p - bb);
    _Float16 h = static_cast<_Float16>(s);
    const double hd = static_cast<double>(h);
    if (err == 0 || hd == s || !std::isfinite(s) || !std::isfinite(hd)) return h;
    const _Float16 other = half_step(h, hd < s);
    const double od = static_cast<double>(other);
    if ((hd + od) / 2 == s) h = (err > 0) == (od > hd) ? other : h;
    return h;
}

[[gnu::always_inline]] inline uint64_t extract(const uint32_t* words, uint32_t i, uint32_t bits) {
    if (bits == 64) return words[2 * i] | uint64_t{words[2 * i + 1]} << 32;
    const uint32_t at = i * bits;
    const uint32_t w = words[at / 32] >> (at % 32);
    return bits == 32 ? w : w & ((1u << bits) - 1);
}

[[gnu::always_inline]] inline void insert(uint32_t* words, uint32_t i, uint32_t bits, uint64_t wide) {
    if (bits == 64) {
        words[2 * i] = static_cast<uint32_t>(wide), words[2 * i + 1] = static_cast<uint32_t>(wide >> 32);
        return;
    }
    const auto value = static_cast<uint32_t>(wide);
    const uint32_t at = i * bits;
    const uint32_t mask = bits == 32 ? ~0u : ((1u << bits) - 1) << (at % 32);
    words[at / 32] = (words[at / 32] & ~mask) | ((value << (at % 32)) & mask);
}

}  // namespace

uint32_t element_bits(matrix_element e) {
    switch (e) {
    case matrix_f16:
    case matrix_bf16:
        return 16;
    case matrix_s8:
    case matrix_u8:
        return 8;
    case matrix_f64:
        return 64;
    default:
        return 32;
    }
}

uint64_t matrix_op::encode() const {
    uint64_t v = 0;
    v |= uint64_t{isa_layout} | uint64_t{satfinite} << 1;
    v |= uint64_t{m} << 2 | uint64_t{n} << 8 | uint64_t{k} << 14;
    v |= uint64_t{a} << 20 | uint64_t{b} << 23 | uint64_t{c} << 26 | uint64_t{d} << 29;
    v |= uint64_t{a_words} << 32 | uint64_t{b_words} << 36 | uint64_t{c_words} << 40 | uint64_t{d_words} << 44;
    return v;
}

matrix_op matrix_op::decode(uint64_t v) {
    matrix_op op;
    op.isa_layout = v & 1, op.satfinite = (v >> 1) & 1;
    op.m = (v >> 2) & 63, op.n = (v >> 8) & 63, op.k = (v >> 14) & 63;
    op.a = static_cast<matrix_element>((v >> 20) & 7), op.b = static_cast<matrix_element>((v >> 23) & 7);
    op.c = static_cast<matrix_element>((v >> 26) & 7), op.d = static_cast<matrix_element>((v >> 29) & 7);
    op.a_words = (v >> 32) & 15, op.b_words = (v >> 36) & 15, op.c_words = (v >> 40) & 15, op.d_words = (v >> 44) & 15;
    return op;
}

bool mma_position(const matrix_op& op, char which, uint32_t lane, uint32_t i, uint32_t& row, uint32_t& col) {
    const uint32_t group = lane >> 2, in_group = lane & 3;
    const bool tf32 = op.a == matrix_tf32, integer = op.a == matrix_s8 || op.a == matrix_u8;
    if (op.a == matrix_f64) {  // m8n8k4: one element of A and of B, two of C, per lane
        if (op.m != 8 || op.n != 8 || op.k != 4) return false;
        if (which == 'c') {
            row = group, col = in_group * 2 + i;
            return i < 2;
        }
        if (which == 'a')
            row = group, col = in_group;
        else
            row = in_group, col = group;
        return i < 1;
    }
    if (op.m == 8 && op.n == 8 && op.k == 16 && integer) {  // Turing's integer shape
        if (which == 'c') {
            row = group, col = in_group * 2 + i;
            return i < 2;
        }
        if (which == 'a')
            row = group, col = in_group * 4 + i;
        else
            row = in_group * 4 + i, col = group;
        return i < 4;
    }
    if (op.m != 16 || op.n != 8) return false;
    if (which == 'c') {  // every m16n8 shape: c0, c1 in row groupID, c2, c3 eight rows below
        row = group + (i >= 2 ? 8 : 0), col = in_group * 2 + (i & 1);
        return i < 4;
    }
    if (integer && op.k == 16) {
        if (which == 'a') {
            row = group + (i >= 4 ? 8 : 0), col = in_group * 4 + (i & 3);
            return i < 8;
        }
        row = in_group * 4 + i, col = group;
        return i < 4;
    }
    if (integer && op.k == 32) {
        if (which == 'a') {
            row = group + ((i >> 2) & 1) * 8, col = in_group * 4 + (i & 3) + (i >= 8 ? 16 : 0);
            return i < 16;
        }
        row = in_group * 4 + (i & 3) + (i >= 4 ? 16 : 0), col = group;
        return i < 8;
    }
    if (integer) return false;
    if (op.k == 16 && !tf32) {
        if (which == 'a') {
            row = group + ((i >> 1) & 1) * 8, col = in_group * 2 + (i & 1) + (i >= 4 ? 8 : 0);
            return i < 8;
        }
        row = in_group * 2 + (i & 1) + (i >= 2 ? 8 : 0), col = group;
        return i < 4;
    }
    if (op.k == 8 && !tf32) {
        if (which == 'a') {
            row = group + (i >= 2 ? 8 : 0), col = in_group * 2 + (i & 1);
            return i < 4;
        }
        row = in_group * 2 + i, col = group;
        return i < 2;
    }
    if (op.k == 8) {  // tf32
        if (which == 'a') {
            row = group + (i & 1) * 8, col = in_group + (i >= 2 ? 4 : 0);
            return i < 4;
        }
        row = in_group + i * 4, col = group;
        return i < 2;
    }
    if (op.k == 4 && tf32) {
        if (which == 'a') {
            row = group + i * 8, col = in_group;
            return i < 2;
        }
        row = in_group, col = group;
        return i < 1;
    }
    return false;
}

namespace {

// A matrix's elements in row-major order, on the stack: the largest operand of the shapes the
// engine computes has 512 (m16n8k32's A, m8n32k16's B). One product per warp instruction: no
// allocation.
constexpr uint32_t max_elements = 512;
using element_bits_array = std::array<uint64_t, max_elements>;

// The elements as values, decoded once (not once per product); the common types without a
// switch per element.
template <typename T>
std::array<T, max_elements> values(matrix_element t, const element_bits_array& bits, uint32_t count) {
    std::array<T, max_elements> out;
    if (t == matrix_f16) {
        const auto& half = half_values();
        for (uint32_t i = 0; i < count; ++i) out[i] = static_cast<T>(half[bits[i] & 0xFFFF]);
    } else if (t == matrix_f32) {
        for (uint32_t i = 0; i < count; ++i) out[i] = static_cast<T>(bits_to_float(static_cast<uint32_t>(bits[i])));
    } else {
        for (uint32_t i = 0; i < count; ++i) out[i] = static_cast<T>(value_of(t, bits[i]));
    }
    return out;
}

// The engine's wmma layout (slot i of lane l holds element (l * per_lane + i) mod `elements`) for
// elements of BITS bits in the lanes' words from `first` on.
template <uint32_t BITS>
void gather_engine_layout(uint32_t* const areas[32], uint32_t first, uint32_t per_lane, uint32_t elements,
                          element_bits_array& out) {
    uint32_t flat = 0;
    for (uint32_t lane = 0; lane < 32; ++lane) {
        const uint32_t* words = areas[lane] ? areas[lane] + first : nullptr;
        for (uint32_t i = 0; i < per_lane; ++i, flat = flat + 1 == elements ? 0 : flat + 1)
            if (words) out[flat] = extract(words, i, BITS);
    }
}

template <uint32_t N>
void add_scaled_row(float* __restrict row, float x, const float* __restrict y) {
    for (uint32_t col = 0; col < N; ++col) row[col] += x * y[col];
}

// f32 accumulation, k after k from k = 0: a product of f16, bf16 or tf32 elements is exact in
// f32, so acc + a * b rounds once, as fma does; each row's columns are independent sums, so the
// loop over them vectorizes and the order of every sum is kept.
void multiply_floats(const matrix_op& op, const element_bits_array& a_bits, const element_bits_array& b_bits,
                     const element_bits_array& c_bits, element_bits_array& d) {
    const uint32_t m = op.m, n = op.n, k = op.k;
    const auto a = values<float>(op.a, a_bits, m * k), b = values<float>(op.b, b_bits, k * n);
    const auto c = values<float>(op.c, c_bits, m * n);
    std::array<float, max_elements> row;
    for (uint32_t r = 0; r < m; ++r) {
        std::copy_n(c.begin() + r * n, n, row.begin());
        for (uint32_t i = 0; i < k; ++i) {
            const float x = a[r * k + i];
            const float* y = b.data() + i * n;
            // A row of a known width is a loop the compiler vectorizes (the shapes' 8, 16, 32).
            switch (n) {
            case 8:
                add_scaled_row<8>(row.data(), x, y);
                break;
            case 16:
                add_scaled_row<16>(row.data(), x, y);
                break;
            case 32:
                add_scaled_row<32>(row.data(), x, y);
                break;
            default:
                for (uint32_t col = 0; col < n; ++col) row[col] += x * y[col];
            }
        }
        for (uint32_t col = 0; col < n; ++col) d[r * n + col] = float_bits(row[col]);
    }
}

// s32 accumulation of 8-bit products, wrapping (or clamped once with .satfinite).
void multiply_integers(const matrix_op& op, const element_bits_array& a_bits, const element_bits_array& b_bits,
                       const element_bits_array& c_bits, element_bits_array& d) {
    const uint32_t m = op.m, n = op.n, k = op.k;
    const auto a = values<int64_t>(op.a, a_bits, m * k), b = values<int64_t>(op.b, b_bits, k * n);
    std::array<int64_t, max_elements> row;
    for (uint32_t r = 0; r < m; ++r) {
        for (uint32_t col = 0; col < n; ++col)
            row[col] = static_cast<int32_t>(static_cast<uint32_t>(c_bits[r * n + col]));
        for (uint32_t i = 0; i < k; ++i) {
            const int64_t x = a[r * k + i];
            const int64_t* y = b.data() + i * n;
            for (uint32_t col = 0; col < n; ++col) row[col] += x * y[col];
        }
        for (uint32_t col = 0; col < n; ++col) {
            int64_t v = row[col];
            if (op.satfinite)
                v = std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
            d[r * n + col] = static_cast<uint32_t>(v);
        }
    }
}

// f64: d = fma(a, b, d) k after k from k = 0, each rounded to nearest. Built twice, for CPUs with
// FMA (the instruction inline) and for the rest (libm's exact fma): the baseline build's
// std::fma is a call per product, most of the time of a DMMA.
__attribute__((target_clones("fma", "default"))) void multiply_doubles(const matrix_op& op,
                                                                       const element_bits_array& a_bits,
                                                                       const element_bits_array& b_bits,
                                                                       const element_bits_array& c_bits,
                                                                       element_bits_array& d) {
    const uint32_t m = op.m, n = op.n, k = op.k;
    const auto a = values<double>(op.a, a_bits, m * k), b = values<double>(op.b, b_bits, k * n);
    const auto c = values<double>(op.c, c_bits, m * n);
    for (uint32_t r = 0; r < m; ++r)
        for (uint32_t col = 0; col < n; ++col) {
            double acc = c[r * n + col];
            for (uint32_t i = 0; i < k; ++i) acc = std::fma(a[r * k + i], b[i * n + col], acc);
            std::memcpy(&d[r * n + col], &acc, 8);
        }
}

}  // namespace

void perform_matrix_mma(const matrix_op& op, uint32_t* const areas[32]) {
    const uint32_t m = op.m, n = op.n, k = op.k;
    if (m * k > max_elements || k * n > max_elements || m * n > max_elements) return;  // not a shape it lowers
    // Only the elements of this shape are cleared (a lane absent holds zeros): not 4 KiB each.
    element_bits_array a, b, c;
    std::fill_n(a.begin(), m * k, 0);
    std::fill_n(b.begin(), k * n, 0);
    std::fill_n(c.begin(), m * n, 0);
    auto gather = [&](char which, matrix_element t, uint32_t words, uint32_t first, element_bits_array& out,
                      uint32_t rows, uint32_t cols) {
        const uint32_t bits = element_bits(t), per_lane = words * 32 / bits, elements = rows * cols;
        if (!op.isa_layout) {
            switch (bits) {
            case 8:
                return gather_engine_layout<8>(areas, first, per_lane, elements, out);
            case 16:
                return gather_engine_layout<16>(areas, first, per_lane, elements, out);
            case 32:
                return gather_engine_layout<32>(areas, first, per_lane, elements, out);
            default:
                return gather_engine_layout<64>(areas, first, per_lane, elements, out);
            }
        }
        for (uint32_t lane = 0; lane < 32; ++lane) {
            if (!areas[lane]) continue;
            for (uint32_t i = 0; i < per_lane; ++i) {
                uint32_t r, col;
                if (mma_position(op, which, lane, i, r, col) && r < rows && col < cols)
                    out[r * cols + col] = extract(areas[lane] + first, i, bits);
            }
        }
    };
    gather('a', op.a, op.a_words, 0, a, m, k);
    gather('b', op.b, op.b_words, op.a_words, b, k, n);
    gather('c', op.c, op.c_words, op.a_words + op.b_words, c, m, n);
    element_bits_array d;
    std::fill_n(d.begin(), m * n, 0);
    if (op.d == matrix_s32) {
        multiply_integers(op, a, b, c, d);
    } else if (op.d == matrix_f64) {
        multiply_doubles(op, a, b, c, d);
    } else if (op.d == matrix_f16) {
        for (uint32_t r = 0; r < m; ++r)
            for (uint32_t col = 0; col < n; ++col) {
                _Float16 acc = static_cast<_Float16>(value_of(op.c, c[r * n + col]));
                for (uint32_t i = 0; i < k; ++i)
                    acc = add_rounded_to_half(acc, value_of(op.a, a[r * k + i]) * value_of(op.b, b[i * n + col]));
                d[r * n + col] = half_bits(acc);
            }
    } else {
        multiply_floats(op, a, b, c, d);
    }
    const uint32_t bits = element_bits(op.d), per_lane = op.d_words * 32 / bits;
    uint32_t flat = 0;  // the engine's wmma layout, as gathered
    for (uint32_t lane = 0; lane < 32; ++lane) {
        uint32_t out[16] = {};
        for (uint32_t i = 0; i < per_lane; ++i) {
            if (!op.isa_layout) {
                insert(out, i, bits, d[flat]);
                flat = flat + 1 == m * n ? 0 : flat + 1;
                continue;
            }
            uint32_t r, col;
            if (mma_position(op, 'c', lane, i, r, col) && r < m && col < n) insert(out, i, bits, d[r * n + col]);
        }
        if (areas[lane]) std::memcpy(areas[lane], out, 4 * op.d_words);
    }
}

void perform_ldmatrix(uint32_t count, bool transpose, uint32_t* const areas[32]) {
    // The rows' host addresses first: the results overwrite them.
    const uint8_t* rows[32] = {};
    for (uint32_t lane = 0; lane < 32; ++lane) {
        if (!areas[lane]) continue;
        uint64_t address;
        std::memcpy(&address, areas[lane], 8);
        rows[lane] = reinterpret_cast<const uint8_t*>(address);
    }
    auto element = [&](uint32_t matrix, uint32_t row, uint32_t col) -> uint32_t {
        const uint8_t* p = rows[matrix * 8 + row];
        if (!p) return 0;
        uint16_t v;
        std::memcpy(&v, p + 2 * col, 2);
        return v;
    };
    for (uint32_t lane = 0; lane < 32; ++lane) {
        if (!areas[lane]) continue;
        const uint32_t group = lane >> 2, pair = (lane & 3) * 2;
        for (uint32_t j = 0; j < count; ++j)
            areas[lane][j] = transpose ? element(j, pair, group) | element(j, pair + 1, group) << 16
                                       : element(j, group, pair) | element(j, group, pair + 1) << 16;
    }
}

void perform_stmatrix(uint32_t count, bool transpose, uint32_t* const areas[32]) {
    uint8_t* rows[32] = {};
    for (uint32_t lane = 0; lane < 32; ++lane) {
        if (!areas[lane]) continue;
        uint64_t address;
        std::memcpy(&address, areas[lane], 8);
        rows[lane] = reinterpret_cast<uint8_t*>(address);
    }
    auto put = [&](uint32_t matrix, uint32_t row, uint32_t col, uint32_t value) {
        if (uint8_t* p = rows[matrix * 8 + row]) {
            const auto v = static_cast<uint16_t>(value);
            std::memcpy(p + 2 * col, &v, 2);
        }
    };
    for (uint32_t lane = 0; lane < 32; ++lane) {
        if (!areas[lane]) continue;
        const uint32_t group = lane >> 2, pair = (lane & 3) * 2;
        for (uint32_t j = 0; j < count; ++j) {
            const uint32_t w = areas[lane][2 + j];
            for (uint32_t e = 0; e < 2; ++e) {
                if (transpose)
                    put(j, pair + e, group, w >> (16 * e));
                else
                    put(j, group, pair + e, w >> (16 * e));
            }
        }
    }
}

void perform_movmatrix(uint32_t* const areas[32]) {
    uint16_t m[8][8] = {};
    for (uint32_t lane = 0; lane < 32; ++lane) {
        if (!areas[lane]) continue;
        const uint32_t group = lane >> 2, pair = (lane & 3) * 2;
        m[group][pair] = static_cast<uint16_t>(areas[lane][0]);
        m[group][pair + 1] = static_cast<uint16_t>(areas[lane][0] >> 16);
    }
    for (uint32_t lane = 0; lane < 32; ++lane) {
        if (!areas[lane]) continue;
        const uint32_t group = lane >> 2, pair = (lane & 3) * 2;
        areas[lane][0] = uint32_t{m[pair][group]} | uint32_t{m[pair + 1][group]} << 16;
    }
}

}  // namespace cudabridge::nv::ptx
