// RFC 4180 rows: fields joined by commas, a field quoted when it holds a comma, a double quote,
// CR or LF (quotes inside doubled), the row ended by CRLF.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace csv_sink {

// The field as it appears in a row: unchanged, or quoted when it must be.
std::string quote_field(std::string_view field);

// The fields quoted and joined, with the CRLF line end.
std::string csv_row(const std::vector<std::string>& fields);

}  // namespace csv_sink
