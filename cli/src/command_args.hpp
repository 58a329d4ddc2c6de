// Argument parsing the commands share: options with no stray positional words, and counts that
// are whole numbers in a range (Boost's unsigned conversion takes "-1" as the largest value).
#pragma once

#include <boost/program_options.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cudabridge::cli {

// Parses `args` against `options`; a word that is no option's value is a usage error.
boost::program_options::variables_map parse_options(const std::vector<std::string>& args,
                                                    const boost::program_options::options_description& options);

// `text` as a whole number in [min, max]; a usage error naming `option` otherwise.
uint64_t count_arg(const std::string& text, const std::string& option, uint64_t min, uint64_t max);

}  // namespace cudabridge::cli
