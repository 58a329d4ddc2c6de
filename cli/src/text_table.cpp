#include "text_table.hpp"

#include <algorithm>

namespace cudabridge::cli {

void text_table::print(std::ostream& out) const {
    std::vector<size_t> width;
    for (const auto& row : rows_) {
        if (width.size() < row.size()) width.resize(row.size(), 0);
        for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    }
    for (const auto& row : rows_) {
        for (size_t i = 0; i < row.size(); ++i) {
            out << row[i];
            if (i + 1 < row.size()) out << std::string(width[i] - row[i].size() + 2, ' ');
        }
        out << "\n";
    }
}

}  // namespace cudabridge::cli
