#include "json_output.hpp"

#include <Poco/JSON/Stringifier.h>

#include <iostream>

namespace cudabridge::cli {

json_object make_object() { return new Poco::JSON::Object(Poco::JSON_PRESERVE_KEY_ORDER); }
json_array make_array() { return new Poco::JSON::Array(Poco::JSON_PRESERVE_KEY_ORDER); }

void print_json(const json_object& o) {
    o->stringify(std::cout, 2);
    std::cout << "\n";
}

void print_json(const json_array& a) {
    a->stringify(std::cout, 2);
    std::cout << "\n";
}

void print_json_line(const json_object& o) {
    o->stringify(std::cout, 0);
    std::cout << std::endl;  // flushed: a reader may be waiting on each line
}

}  // namespace cudabridge::cli
