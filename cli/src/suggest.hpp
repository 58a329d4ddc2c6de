// "Did you mean ...?" for a mistyped command or option: the closest known word, by edit distance
// (a swap of two neighbours counts once) or as the start of exactly one word.
#pragma once

#include <string>
#include <vector>

namespace cudabridge::cli {

struct command;

// The known word `typed` most likely meant; "" when none is close enough.
std::string nearest(const std::string& typed, const std::vector<std::string>& known);

// Every --option a command's usage and help text name.
std::vector<std::string> options_named_in(const command& c);

// " (did you mean 'X'?)" or "".
std::string did_you_mean(const std::string& typed, const std::vector<std::string>& known);

}  // namespace cudabridge::cli
