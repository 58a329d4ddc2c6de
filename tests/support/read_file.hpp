// A whole file as text, for tests that check what a plugin or the CLI wrote ("" when missing).
#pragma once

#include <filesystem>
#include <string>

namespace cudabridge::test {

std::string read_file(const std::filesystem::path& p);

}  // namespace cudabridge::test
