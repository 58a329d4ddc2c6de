// What a texture or surface instruction asks for (texture_fetch.hpp's texture_code), read from its
// opcode and modifiers: the load-time check and the lowering share it; the fetch itself is
// texture_fetch.cpp's.
#include "sim/ptx/texture_fetch.hpp"

#include <string>
#include <vector>

namespace cudabridge::nv::ptx {

bool texture_instruction_code(const instruction& in, texture_code& out, std::string& why) {
    texture_code c;
    const std::string& op = in.opcode;
    c.op = op == "tex"    ? tex_fetch
           : op == "tld4" ? tex_gather
           : op == "txq"  ? tex_query
           : op == "suld" ? surface_load
                          : surface_store;
    bool geometry = false, vector4 = false;
    std::vector<std::string> types;
    for (const auto& m : in.mods) {
        static const char* geometries[] = {"1d", "2d", "3d", "a1d", "a2d", "cube", "acube"};
        bool known = false;
        for (uint32_t g = 0; g < 7; ++g)
            if (m == geometries[g]) c.geometry = g, geometry = known = true;
        if (known) continue;
        if (m == "v4")
            vector4 = true, c.vector = 4;
        else if (m == "v2")
            c.vector = 2;
        else if (m == "f32" || m == "s32" || m == "u32" || m == "f16" || m == "f16x2" || m == "b32")
            types.push_back(m);
        else if (m == "b8" || m == "b16" || m == "b64")
            c.element_log2 = m == "b8" ? 0 : m == "b16" ? 1 : 3;
        else if (m == "trap" || m == "clamp" || m == "zero")
            c.clamp = m == "trap" ? 0 : m == "clamp" ? 1 : 2;
        else if (c.op == tex_gather && (m == "r" || m == "g" || m == "b" || m == "a"))
            c.component = m == "r" ? 0 : m == "g" ? 1 : m == "b" ? 2 : 3;
        else if (c.op == tex_fetch && (m == "level" || m == "grad" || m == "base"))
            continue;  // no mipmaps: level 0 whatever the level of detail
        else if ((c.op == surface_load || c.op == surface_store) && m == "b")
            continue;
        else if (c.op == tex_query) {
            static const char* queries[] = {
                "width",       "height",      "depth",       "channel_data_type", "channel_order", "normalized_coords",
                "filter_mode", "addr_mode_0", "addr_mode_1", "addr_mode_2",       "array_size",    "num_mipmap_levels",
                "num_samples"};
            bool found = false;
            for (uint32_t q = 0; q < 13; ++q)
                if (m == queries[q]) c.component = q, found = true;
            if (!found) return why = "the query ." + m + " is not supported", false;
        } else {
            return why = "the ." + m + " form is not supported", false;
        }
    }
    if (c.op == tex_query) {
        out = c;
        return true;
    }
    if (!geometry) return why = "a texture or surface instruction without a geometry", false;
    if (c.op == tex_fetch || c.op == tex_gather) {
        if (!vector4 || types.size() != 2 || types[0] == "f16" || types[0] == "f16x2" || types[0] == "b32")
            return why = "only the .v4 forms with f32, s32 or u32 results are supported", false;
        c.result = types[0] == "f32" ? 0 : types[0] == "s32" ? 1 : 2;
        c.float_coords = types[1] == "f32" ? 1 : 0;
        if (c.op == tex_gather && c.geometry != geo_2d) return why = "tld4 is supported on 2D textures only", false;
        if (c.op == tex_fetch && c.geometry == geo_1d && in.has("grad")) return out = c, true;
    } else {
        for (const auto& t : types)
            if (t == "b32") c.element_log2 = 2;
        if (c.geometry == geo_cube || c.geometry == geo_acube)
            return why = "cubemap surface geometries are not supported", false;
        if (c.op == surface_store && in.has("p"))
            return why = "formatted surface stores (sust.p) are not supported", false;
        if (c.element_log2 == 3 && c.vector == 4) return why = "v4.b64 is not a surface access", false;
    }
    out = c;
    return true;
}

}  // namespace cudabridge::nv::ptx
