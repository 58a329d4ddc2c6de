// Textures and surfaces: `tex`, `tld4`, `txq`, `suld.b` and `sust.b` on texture and surface
// objects. A handle is the device address of a cb_texture_descriptor (texture_descriptor.h) the
// runtime wrote into device memory; the generated code hands the handle, the instruction's code
// (below) and its operands to cb_ptx_texture, which reads the descriptor and the texels through
// the global-memory path and computes the fetch as CUDA's texture units do.
#pragma once

#include "sim/ptx/abi.hpp"
#include "sim/ptx/ast.hpp"

#include <cstdint>
#include <string>

namespace cudabridge::nv::ptx {

// An instruction's code: what cb_ptx_texture does, packed into 32 bits.
enum texture_op : uint32_t { tex_fetch = 0, tex_gather = 1, tex_query = 2, surface_load = 3, surface_store = 4 };
// Geometries in PTX's order: 1d, 2d, 3d, a1d, a2d, cube, acube.
enum texture_geometry : uint32_t { geo_1d = 0, geo_2d, geo_3d, geo_a1d, geo_a2d, geo_cube, geo_acube };

struct texture_code {
    uint32_t op = 0;            // texture_op
    uint32_t geometry = 0;      // texture_geometry
    uint32_t result = 0;        // tex/tld4: 0 f32, 1 s32, 2 u32
    uint32_t float_coords = 0;  // tex: 1 when the coordinates are .f32
    uint32_t component = 0;     // tld4: r g b a as 0..3; txq: the query (txq_query)
    uint32_t element_log2 = 0;  // suld/sust: b8 b16 b32 b64 as 0..3
    uint32_t vector = 1;        // suld/sust: 1, 2 or 4 elements
    uint32_t clamp = 0;         // suld/sust: 0 .trap, 1 .clamp, 2 .zero

    uint32_t pack() const {
        return op | geometry << 4 | result << 8 | float_coords << 10 | component << 12 | element_log2 << 16 |
               vector << 20 | clamp << 24;
    }
    static texture_code unpack(uint32_t c) {
        texture_code t;
        t.op = c & 15;
        t.geometry = c >> 4 & 15;
        t.result = c >> 8 & 3;
        t.float_coords = c >> 10 & 1;
        t.component = c >> 12 & 15;
        t.element_log2 = c >> 16 & 3;
        t.vector = c >> 20 & 7;
        t.clamp = c >> 24 & 3;
        return t;
    }
};

enum txq_query : uint32_t {
    txq_width = 0,
    txq_height,
    txq_depth,
    txq_channel_data_type,
    txq_channel_order,
    txq_normalized_coords,
    txq_filter_mode,
    txq_addr_mode_0,
    txq_addr_mode_1,
    txq_addr_mode_2,
    txq_array_size,
    txq_num_mipmap_levels,
    txq_num_samples,
};

// The code of a texture or surface instruction, or an empty `why` set to the reason it is
// refused (layout.cpp refuses at load with it; lowering.cpp lowers what it accepts).
bool texture_instruction_code(const instruction& in, texture_code& out, std::string& why);

// The operand buffer the generated code passes: coordinates, then data to store, 64 bits each.
inline constexpr uint32_t texture_operand_words = 8;  // [0, 4): coordinates; [4, 8): sust's data
inline constexpr uint32_t texture_result_words = 4;   // the destination vector, 64 bits each

extern "C" {
// Runs one texture or surface instruction for one thread: `handle` is the object, `operands` the
// coordinates' and data's bits, `result` the destination vector's. A handle that names no
// descriptor, or a .trap surface access out of range, raises the launch's fault.
void cb_ptx_texture(block_env* env, thread_state* thread, uint32_t code, uint64_t handle, const uint64_t* operands,
                    uint64_t* result);
}

}  // namespace cudabridge::nv::ptx
