// The manual page, cudabridge-cli(1), in troff: written from the same command table and help
// text as `help`, so the two never disagree. The build makes it (`help --man`) and installs it.
#pragma once

#include <string>

namespace cudabridge::cli {

std::string man_page(const std::string& exit_codes);

}  // namespace cudabridge::cli
