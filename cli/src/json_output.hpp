// JSON output of the CLI, built with Poco::JSON (keys in insertion order, numbers as numbers).
#pragma once

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>

#include <string>

namespace cudabridge::cli {

using json_object = Poco::JSON::Object::Ptr;
using json_array = Poco::JSON::Array::Ptr;

json_object make_object();
json_array make_array();
// Prints the value to stdout, indented, with a trailing newline.
void print_json(const json_object& o);
void print_json(const json_array& a);
// One compact line (for streams such as `log --follow --json`).
void print_json_line(const json_object& o);

}  // namespace cudabridge::cli
