#include "csv_row.hpp"

namespace csv_sink {

std::string quote_field(std::string_view field) {
    if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
    std::string out = "\"";
    for (char c : field) {
        if (c == '"') out += '"';  // a quote inside a quoted field is written twice
        out += c;
    }
    out += '"';
    return out;
}

std::string csv_row(const std::vector<std::string>& fields) {
    std::string row;
    for (size_t i = 0; i < fields.size(); ++i) {
        if (i != 0) row += ',';
        row += quote_field(fields[i]);
    }
    row += "\r\n";
    return row;
}

}  // namespace csv_sink
