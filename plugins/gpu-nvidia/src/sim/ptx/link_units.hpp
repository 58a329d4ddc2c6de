// Several translation units' PTX as one module, as nvlink links a program built with -rdc: a
// symbol declared .visible, .weak or .common (or .extern) is one symbol across the units; a
// symbol without a linkage directive is its unit's own, renamed in every unit after the first
// where another unit has the name (printf's `$str` strings are in every unit that prints). An
// .extern declaration that a unit defines gives way to the definition; one no unit defines stays
// (vprintf, the device runtime's calls, `extern __shared__` arrays).
//
// The text of such a program is its units one after another, each from its own `.version`
// directive (what the module loader gathers from an -rdc program's prelinked fatbins).
#pragma once

#include "sim/ptx/ast.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::nv::ptx {

// The units of `text`: one per `.version` directive at the start of a line (the text before the
// first belongs to it). A text of one unit gives one.
std::vector<std::string_view> translation_units(std::string_view text);

// One module from `units` (parsed each on its own). False, with `error`, when two units define
// the same linked symbol.
bool link_units(std::vector<module>& units, module& out, std::string& error);

}  // namespace cudabridge::nv::ptx
