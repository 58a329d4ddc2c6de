// Parses PTX text (what nvcc and NVRTC emit: ISA 7.x-9.x, sm_75 and newer, 64-bit addresses) into
// the plain module of ast.hpp. Syntax errors name the line; what the language has but the engine
// does not run is refused later (layout.hpp: lay_out), not here.
#pragma once

#include "sim/ptx/ast.hpp"

#include <string>
#include <string_view>

namespace cudabridge::nv::ptx {

struct parse_result {
    bool ok = false;
    std::string error;  // "line N: ..." when !ok
    module mod;
};

parse_result parse(std::string_view text);

// Parses a PTX type word without the dot ("u32", "f16", "pred"); an invalid type when it is not one.
scalar_type type_from_word(std::string_view word);

}  // namespace cudabridge::nv::ptx
