// Texture fetches and surface accesses (texture_fetch.hpp), computed as the CUDA C++ Programming
// Guide's "Texture Fetching" appendix describes CUDA's texture units:
//   - point sampling takes texel floor(x) (x scaled by the size for normalized coordinates);
//   - linear filtering blends the texels around x - 0.5 with weights held in 9-bit fixed point,
//     8 bits of fraction (so 1.0 is exact): each weight is rounded to a multiple of 1/256;
//   - address modes: wrap and mirror for normalized coordinates only (otherwise clamp), clamp to
//     the edge, and border (a texel outside gives the border color);
//   - read mode normalized float maps 8- and 16-bit integers to [0, 1] (unsigned) or [-1, 1]
//     (signed), and sRGB textures' 8-bit color channels through the sRGB curve to linear;
//     half-float channels become float;
//   - a cubemap's face is chosen by the coordinate of largest magnitude (the guide's table), and
//     the other two, divided by it, address the face as normalized coordinates.
// Surfaces address bytes in x; out of range, .trap faults, .clamp clamps, .zero reads zeros and
// drops stores.
#include "sim/ptx/texture_fetch.hpp"

#include <cudabridge/texture_descriptor.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cudabridge::nv::ptx {

namespace {

// `n` bytes at a global address: mapped VRAM inline, anything else through the resolver (which
// raises the launch's fault where no memory holds them).
uint8_t* global_bytes(block_env* env, thread_state* thread, uint64_t address, uint32_t n) {
    const uint64_t at = address - env->vram_base;
    if (address >= env->vram_base && n <= env->vram_size && at <= env->vram_size - n &&
        env->page_map[at >> vram_page_shift] && env->page_map[(at + n - 1) >> vram_page_shift])
        return env->vram_host + at;
    return cb_ptx_resolve(env, thread, address, n, 0);
}

float half_to_float(uint16_t h) {
    const uint32_t sign = uint32_t(h >> 15) << 31, exponent = h >> 10 & 31, mantissa = h & 1023;
    uint32_t bits;
    if (exponent == 31) {
        bits = sign | 0x7F800000u | mantissa << 13;
    } else if (exponent) {
        bits = sign | (exponent + 112) << 23 | mantissa << 13;
    } else if (mantissa) {
        const float f = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -f : f;
    } else {
        bits = sign;
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// A texel's four channels, as floats (float results) and as integers (integer results).
struct texel {
    float f[4] = {0, 0, 0, 1};
    uint32_t u[4] = {0, 0, 0, 1};
};

struct fetcher {
    block_env* env;
    thread_state* thread;
    const cb_texture_descriptor& d;
    bool float_result;  // float channels, or normalized-float reads of 8- and 16-bit integers

    // The bytes of `n` at `address`; nullptr (the fault raised) outside memory.
    const uint8_t* bytes(uint64_t address, uint32_t n) const {
        env->bytes_moved += n;
        return global_bytes(env, thread, address, n);
    }

    uint32_t slices() const {
        switch (d.geometry) {
        case CB_TEXTURE_3D:
            return std::max(d.depth, 1u);
        case CB_TEXTURE_1D_LAYERED:
        case CB_TEXTURE_2D_LAYERED:
            return std::max(d.layers, 1u);
        case CB_TEXTURE_CUBEMAP:
            return 6;
        case CB_TEXTURE_CUBEMAP_LAYERED:
            return 6 * std::max(d.layers, 1u);
        default:
            return 1;
        }
    }

    uint64_t address_of(int64_t x, int64_t y, int64_t slice) const {
        return d.address + uint64_t(slice) * d.slice_pitch + uint64_t(y) * d.pitch + uint64_t(x) * d.element_bytes;
    }

    texel read(int64_t x, int64_t y, int64_t slice) const {
        texel t;
        const uint8_t* p = bytes(address_of(x, y, slice), d.element_bytes);
        if (!p) return t;
        if (d.channel_kind == CB_CHANNEL_FLOAT && d.channel_bits[0] == 32) {  // the common case
            const uint32_t n = d.element_bytes / 4;
            std::memcpy(t.f, p, n * 4);
            std::memcpy(t.u, p, n * 4);
            return t;
        }
        uint32_t offset = 0;
        for (int c = 0; c < 4; ++c) {
            const uint32_t bits = d.channel_bits[c];
            if (!bits) {
                t.f[c] = c == 3 ? 1.0f : 0.0f;
                t.u[c] = c == 3 ? 1 : 0;
                continue;
            }
            uint32_t raw = 0;
            std::memcpy(&raw, p + offset / 8, std::min<uint32_t>(bits / 8, 4));
            offset += bits;
            if (d.channel_kind == CB_CHANNEL_FLOAT) {
                if (bits == 16)
                    t.f[c] = half_to_float(static_cast<uint16_t>(raw));
                else
                    std::memcpy(&t.f[c], &raw, 4);
                std::memcpy(&t.u[c], &t.f[c], 4);
                continue;
            }
            const bool is_signed = d.channel_kind == CB_CHANNEL_SIGNED;
            if (is_signed && bits < 32 && (raw >> (bits - 1) & 1)) raw |= ~0u << bits;  // sign-extend
            t.u[c] = raw;
            if (d.read_mode == CB_READ_NORMALIZED_FLOAT && bits <= 16) {
                if (is_signed)
                    t.f[c] = std::max(
                        static_cast<float>(static_cast<int32_t>(raw)) / static_cast<float>((1u << (bits - 1)) - 1),
                        -1.0f);
                else
                    t.f[c] = static_cast<float>(raw) / static_cast<float>((1u << bits) - 1);
                // sRGB: 8-bit unsigned color channels (not alpha) to linear, by the sRGB curve.
                if (d.srgb && !is_signed && bits == 8 && c < 3)
                    t.f[c] = t.f[c] <= 0.04045f ? t.f[c] / 12.92f : std::pow((t.f[c] + 0.055f) / 1.055f, 2.4f);
            } else {
                t.f[c] = is_signed ? static_cast<float>(static_cast<int32_t>(raw)) : static_cast<float>(raw);
            }
        }
        return t;
    }

    texel border() const {
        texel t;
        for (int c = 0; c < 4; ++c) {
            t.f[c] = d.border_color[c];
            t.u[c] = static_cast<uint32_t>(static_cast<int64_t>(d.border_color[c]));
        }
        return t;
    }

    uint32_t mode(int axis, bool normalized) const {
        const uint32_t m = d.address_mode[axis];
        // Wrap and mirror need normalized coordinates; otherwise they act as clamp.
        if (!normalized && (m == CB_ADDRESS_WRAP || m == CB_ADDRESS_MIRROR)) return CB_ADDRESS_CLAMP;
        return m;
    }

    // An integer texel index under an address mode: false for a border texel.
    static bool index(int64_t& i, int64_t n, uint32_t m) {
        if (n <= 0) return false;
        switch (m) {
        case CB_ADDRESS_WRAP:
            i = ((i % n) + n) % n;
            return true;
        case CB_ADDRESS_MIRROR: {
            int64_t k = ((i % (2 * n)) + 2 * n) % (2 * n);
            i = k < n ? k : 2 * n - 1 - k;
            return true;
        }
        case CB_ADDRESS_BORDER:
            return i >= 0 && i < n;
        default:
            i = std::clamp<int64_t>(i, 0, n - 1);
            return true;
        }
    }

    // Point sampling's texel index along one axis.
    static bool point_index(float x, int64_t n, uint32_t m, bool normalized, int64_t& i) {
        if (normalized) {
            if (m == CB_ADDRESS_WRAP) {
                x -= std::floor(x);
            } else if (m == CB_ADDRESS_MIRROR) {
                const float f = std::floor(x);
                const float frac = x - f;
                x = static_cast<int64_t>(f) % 2 == 0 ? frac : 1.0f - frac;
            }
            x *= static_cast<float>(n);
        }
        if (!std::isfinite(x)) x = 0;
        const double fl = std::floor(static_cast<double>(x));
        i = static_cast<int64_t>(std::clamp(fl, -1e15, 1e15));
        if (m == CB_ADDRESS_WRAP || m == CB_ADDRESS_MIRROR) i = std::clamp<int64_t>(i, 0, n - 1);
        return index(i, n, m == CB_ADDRESS_WRAP || m == CB_ADDRESS_MIRROR ? CB_ADDRESS_CLAMP : m);
    }

    // Linear filtering's first texel and weight along one axis: x - 0.5, its floor and its
    // fraction in 1.8 fixed point.
    static void linear_base(float x, int64_t n, bool normalized, int64_t& i, float& alpha) {
        if (normalized) x *= static_cast<float>(n);
        float xb = x - 0.5f;
        if (!std::isfinite(xb)) xb = 0;
        const float fl = std::floor(xb);
        i = static_cast<int64_t>(std::clamp<double>(fl, -1e15, 1e15));
        alpha = std::round((xb - fl) * 256.0f) / 256.0f;
    }

    // The texel at integer (x, y, slice) under the address modes, or the border.
    texel at(int64_t x, int64_t y, int64_t slice, int dims, bool normalized) const {
        const int64_t sizes[2] = {int64_t(d.width), int64_t(std::max(d.height, 1u))};
        if (!index(x, sizes[0], mode(0, normalized))) return border();
        if (dims > 1 && !index(y, sizes[1], mode(1, normalized))) return border();
        return read(x, y, slice);
    }

    texel at3(int64_t x, int64_t y, int64_t z, bool normalized) const {
        if (!index(x, d.width, mode(0, normalized)) || !index(y, std::max(d.height, 1u), mode(1, normalized)) ||
            !index(z, std::max(d.depth, 1u), mode(2, normalized)))
            return border();
        return read(x, y, z);
    }

    // A fetch at float coordinates of a 1D/2D image (dims) in `slice`, or of the 3D volume.
    texel sample(const float* xyz, int dims, int64_t slice, bool normalized, bool cube_face) const {
        const bool linear = d.filter_mode == CB_FILTER_LINEAR && float_result;
        const int64_t n[3] = {int64_t(d.width), int64_t(std::max(d.height, 1u)), int64_t(std::max(d.depth, 1u))};
        auto m = [&](int axis) { return cube_face ? uint32_t(CB_ADDRESS_CLAMP) : mode(axis, normalized); };
        if (!linear) {
            int64_t i[3] = {0, 0, slice};
            for (int a = 0; a < dims; ++a)
                if (!point_index(xyz[a], n[a], m(a), normalized, i[a])) return border();
            return read(i[0], i[1], i[2]);
        }
        // Each axis's two texel indices (and whether each is inside, for the border) once.
        int64_t at[3][2] = {{0, 0}, {0, 0}, {slice, slice}};
        bool inside[3][2] = {{true, true}, {true, true}, {true, true}};
        float w[3] = {0, 0, 0};
        for (int a = 0; a < dims; ++a) {
            int64_t base = 0;
            linear_base(xyz[a], n[a], normalized, base, w[a]);
            for (int k = 0; k < 2; ++k) {
                at[a][k] = base + k;
                inside[a][k] = index(at[a][k], n[a], m(a));
            }
        }
        texel out;
        const int corners = 1 << dims;
        float sum[4] = {0, 0, 0, 0};
        for (int k = 0; k < corners; ++k) {
            const int dx = k & 1, dy = k >> 1 & 1, dz = k >> 2 & 1;
            float weight = dx ? w[0] : 1.0f - w[0];
            if (dims > 1) weight *= dy ? w[1] : 1.0f - w[1];
            if (dims > 2) weight *= dz ? w[2] : 1.0f - w[2];
            const bool in = inside[0][dx] && inside[1][dy] && inside[2][dz];
            const texel t = in ? read(at[0][dx], at[1][dy], at[2][dz]) : border();
            for (int c = 0; c < 4; ++c) sum[c] += weight * t.f[c];
        }
        for (int c = 0; c < 4; ++c) out.f[c] = sum[c];
        return out;
    }
};

// The cubemap face and the face's normalized coordinates of direction (x, y, z).
void cube_face(float x, float y, float z, uint32_t& face, float st[2]) {
    const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
    float s, t, m;
    if (ax >= ay && ax >= az) {
        face = x >= 0 ? 0 : 1;
        s = x >= 0 ? -z : z;
        t = -y;
        m = ax;
    } else if (ay >= az) {
        face = y >= 0 ? 2 : 3;
        s = x;
        t = y >= 0 ? z : -z;
        m = ay;
    } else {
        face = z >= 0 ? 4 : 5;
        s = z >= 0 ? x : -x;
        t = -y;
        m = az;
    }
    if (m == 0) m = 1;
    st[0] = (s / m + 1.0f) * 0.5f;
    st[1] = (t / m + 1.0f) * 0.5f;
}

float as_float(uint64_t bits) {
    float f;
    const auto b = static_cast<uint32_t>(bits);
    std::memcpy(&f, &b, 4);
    return f;
}

uint64_t float_bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

void query(const cb_texture_descriptor& d, uint32_t what, uint64_t* result) {
    uint32_t v = 0;
    switch (what) {
    case txq_width:
        v = d.width;
        break;
    case txq_height:
        v = d.height;
        break;
    case txq_depth:
        v = d.depth;
        break;
    case txq_normalized_coords:
        v = d.normalized_coords;
        break;
    case txq_filter_mode:
        v = d.filter_mode;
        break;
    case txq_addr_mode_0:
    case txq_addr_mode_1:
    case txq_addr_mode_2:
        v = d.address_mode[what - txq_addr_mode_0];
        break;
    case txq_array_size:
        v = d.layers;
        break;
    case txq_num_mipmap_levels:
    case txq_num_samples:
        v = 1;
        break;
    default:
        v = 0;
    }
    result[0] = v;
}

void surface(block_env* env, thread_state* thread, const cb_texture_descriptor& d, const texture_code& c,
             const uint64_t* operands, uint64_t* result) {
    const fetcher f{env, thread, d, false};
    const uint32_t element = 1u << c.element_log2, bytes = element * c.vector;
    int64_t x = 0, y = 0, z = 0;
    auto s32 = [&](int k) { return static_cast<int64_t>(static_cast<int32_t>(operands[k])); };
    switch (c.geometry) {
    case geo_1d:
        x = s32(0);
        break;
    case geo_2d:
        x = s32(0), y = s32(1);
        break;
    case geo_3d:
        x = s32(0), y = s32(1), z = s32(2);
        break;
    case geo_a1d:
        z = s32(0), x = s32(1);
        break;
    default:  // a2d
        z = s32(0), x = s32(1), y = s32(2);
        break;
    }
    const int64_t row = int64_t(d.width) * d.element_bytes, height = std::max(d.height, 1u), slices = f.slices();
    const bool inside = x >= 0 && x + bytes <= row && y >= 0 && y < height && z >= 0 && z < slices;
    if (!inside) {
        if (c.clamp == 0) {
            cb_ptx_fault(env, d.address + uint64_t(z) * d.slice_pitch + uint64_t(y) * d.pitch + uint64_t(x), bytes);
            return;
        }
        if (c.clamp == 2) {
            if (c.op == surface_load)
                for (uint32_t i = 0; i < c.vector; ++i) result[i] = 0;
            return;
        }
        x = std::clamp<int64_t>(x, 0, std::max<int64_t>(row - bytes, 0));
        y = std::clamp<int64_t>(y, 0, height - 1);
        z = std::clamp<int64_t>(z, 0, slices - 1);
    }
    const uint64_t address = d.address + uint64_t(z) * d.slice_pitch + uint64_t(y) * d.pitch + uint64_t(x);
    env->bytes_moved += bytes;
    uint8_t* p = global_bytes(env, thread, address, bytes);
    if (!p) return;
    for (uint32_t i = 0; i < c.vector; ++i) {
        if (c.op == surface_load) {
            result[i] = 0;
            std::memcpy(&result[i], p + i * element, element);
        } else {
            std::memcpy(p + i * element, &operands[4 + i], element);
        }
    }
}

}  // namespace

extern "C" void cb_ptx_texture(block_env* env, thread_state* thread, uint32_t code, uint64_t handle,
                               const uint64_t* operands, uint64_t* result) {
    const texture_code c = texture_code::unpack(code);
    for (uint32_t i = 0; i < texture_result_words; ++i) result[i] = 0;
    cb_texture_descriptor d;
    const uint8_t* p = global_bytes(env, thread, handle, sizeof d);
    if (!p) return;
    std::memcpy(&d, p, sizeof d);
    const bool is_surface_op = c.op == surface_load || c.op == surface_store;
    if (d.magic != CB_TEXTURE_DESCRIPTOR_MAGIC || d.struct_size < sizeof d || d.element_bytes == 0 ||
        d.element_bytes > 16 || (is_surface_op && !d.is_surface)) {
        cb_ptx_fault(env, handle, sizeof d);
        return;
    }
    if (c.op == tex_query) return query(d, c.component, result);
    if (is_surface_op) return surface(env, thread, d, c, operands, result);

    uint32_t max_bits = 0;
    for (uint32_t b : d.channel_bits) max_bits = std::max(max_bits, b);
    const bool float_result =
        d.channel_kind == CB_CHANNEL_FLOAT || (d.read_mode == CB_READ_NORMALIZED_FLOAT && max_bits <= 16);
    const fetcher f{env, thread, d, float_result};
    const bool normalized = d.normalized_coords != 0;
    texel t;
    auto layer_of = [&](uint64_t bits, uint32_t per) {
        const int64_t count = std::max<int64_t>(f.slices() / per, 1);
        return std::clamp<int64_t>(static_cast<int32_t>(bits), 0, count - 1);
    };

    if (c.op == tex_gather) {
        const float xy[2] = {as_float(operands[0]), as_float(operands[1])};
        int64_t i = 0, j = 0;
        float a = 0, b = 0;
        fetcher::linear_base(xy[0], d.width, normalized, i, a);
        fetcher::linear_base(xy[1], std::max(d.height, 1u), normalized, j, b);
        // tld4's order: (i, j+1), (i+1, j+1), (i+1, j), (i, j).
        const int64_t corners[4][2] = {{i, j + 1}, {i + 1, j + 1}, {i + 1, j}, {i, j}};
        for (int k = 0; k < 4; ++k) {
            const texel g = f.at(corners[k][0], corners[k][1], 0, 2, normalized);
            result[k] = float_result ? float_bits(g.f[c.component]) : g.u[c.component];
        }
        return;
    }

    if (!c.float_coords) {
        // Integer coordinates: texels by index, no filtering (tex1Dfetch on linear memory gives
        // zeros outside it).
        int64_t x = 0, y = 0, z = 0, slice = 0;
        auto s32 = [&](int k) { return static_cast<int64_t>(static_cast<int32_t>(operands[k])); };
        switch (c.geometry) {
        case geo_1d:
            x = s32(0);
            break;
        case geo_2d:
            x = s32(0), y = s32(1);
            break;
        case geo_3d:
            x = s32(0), y = s32(1), z = s32(2);
            break;
        case geo_a1d:
            slice = layer_of(operands[0], 1), x = s32(1);
            break;
        case geo_a2d:
            slice = layer_of(operands[0], 1), x = s32(1), y = s32(2);
            break;
        default:
            break;
        }
        if (d.geometry == CB_TEXTURE_LINEAR) {
            texel zero;
            zero.f[3] = 0, zero.u[3] = 0;
            t = x >= 0 && x < int64_t(d.width) ? f.read(x, 0, 0) : zero;
        } else if (c.geometry == geo_3d) {
            t = f.at3(x, y, z, false);
        } else {
            t = f.at(x, y, slice, c.geometry == geo_1d || c.geometry == geo_a1d ? 1 : 2, false);
        }
    } else {
        float xyz[3] = {0, 0, 0};
        switch (c.geometry) {
        case geo_1d:
            xyz[0] = as_float(operands[0]);
            t = f.sample(xyz, 1, 0, normalized, false);
            break;
        case geo_2d:
            xyz[0] = as_float(operands[0]), xyz[1] = as_float(operands[1]);
            t = f.sample(xyz, 2, 0, normalized, false);
            break;
        case geo_3d:
            xyz[0] = as_float(operands[0]), xyz[1] = as_float(operands[1]), xyz[2] = as_float(operands[2]);
            t = f.sample(xyz, 3, 0, normalized, false);
            break;
        case geo_a1d:
            xyz[0] = as_float(operands[1]);
            t = f.sample(xyz, 1, layer_of(operands[0], 1), normalized, false);
            break;
        case geo_a2d:
            xyz[0] = as_float(operands[1]), xyz[1] = as_float(operands[2]);
            t = f.sample(xyz, 2, layer_of(operands[0], 1), normalized, false);
            break;
        case geo_cube:
        case geo_acube: {
            const int first = c.geometry == geo_acube ? 1 : 0;
            const int64_t layer = c.geometry == geo_acube ? layer_of(operands[0], 6) : 0;
            uint32_t face = 0;
            float st[2];
            cube_face(as_float(operands[first]), as_float(operands[first + 1]), as_float(operands[first + 2]), face,
                      st);
            t = f.sample(st, 2, layer * 6 + face, true, true);
            break;
        }
        default:
            break;
        }
    }
    for (int k = 0; k < 4; ++k) result[k] = float_result ? float_bits(t.f[k]) : t.u[k];
}

}  // namespace cudabridge::nv::ptx
