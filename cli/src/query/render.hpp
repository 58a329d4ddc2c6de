// A reading as `query` prints it: nvidia-smi's CSV (", " between values, a heading line with the
// units in brackets), JSON (numbers as numbers, null for [N/A]), and the --help-query listing.
#pragma once

#include "json_output.hpp"
#include "query/fields.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::cli::query {

struct output_format {
    bool json = false;
    bool header = true;  // csv: the heading line (off with noheader)
    bool units = true;   // csv: units after values (off with nounits)
};
// "csv", "csv,noheader", "csv,nounits,noheader", "json": the format, or nullopt and why not.
std::optional<output_format> parse_format(std::string_view spec, std::string& why);

std::string csv_heading(const std::vector<requested_field>& fields);
std::string csv_row(const std::vector<requested_field>& fields, const gpu_snapshot& s, bool units);
// {"index":0,"modeled":true,"values":{"name":"...","power.draw":120.5,"fan.speed":null}}: keys as
// typed; "modeled" says the reading's telemetry and link figures are the simulator's.
json_object json_row(const std::vector<requested_field>& fields, const gpu_snapshot& s);

// Every field, its other spellings, unit, where it comes from (modeled on a simulated GPU or not)
// and what it means.
std::string help_query_text();

}  // namespace cudabridge::cli::query
