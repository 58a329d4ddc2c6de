// Plain-text tables for human output: columns as wide as their widest cell, two spaces apart,
// the last column unpadded.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace cudabridge::cli {

class text_table {
public:
    explicit text_table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
    void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
    void print(std::ostream& out) const;

private:
    std::vector<std::vector<std::string>> rows_;
};

}  // namespace cudabridge::cli
