// The committed corpus files (tests/ptx_corpus) these tests read.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace cudabridge::nv::test {

inline std::string corpus_file(const std::string& relative) {
    std::ifstream in(std::string(CB_PTX_CORPUS_DIR) + "/" + relative, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

// The text without comment lines and blank lines, each line's white space collapsed to one
// space: what nvcc keeps of PTX in a fatbin.
inline std::string code_lines(const std::string& ptx) {
    std::istringstream lines(ptx);
    std::string out;
    for (std::string l; std::getline(lines, l);) {
        std::istringstream words(l);
        std::string line;
        for (std::string w; words >> w;) line += (line.empty() ? "" : " ") + w;
        if (line.empty() || line.compare(0, 2, "//") == 0) continue;
        out += line + "\n";
    }
    return out;
}

}  // namespace cudabridge::nv::test
