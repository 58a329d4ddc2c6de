#include "read_file.hpp"

#include <fstream>
#include <sstream>

namespace cudabridge::test {

std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

}  // namespace cudabridge::test
