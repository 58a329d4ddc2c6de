// The simulated fabric's layout JSON, which every process reads from the store and `sim` commands
// rewrite: usb4::layout_from_json on any text. A layout it accepts must be written back by
// to_json as text it accepts again, describing the same layout (to_json is stable).
#include "sim/fabric_layout.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace cudabridge::usb4;
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::string why;
    const auto layout = layout_from_json(text, why);
    if (!layout) return 0;
    const std::string written = to_json(*layout);
    const auto again = layout_from_json(written, why);
    if (!again || to_json(*again) != written) {
        std::fprintf(stderr, "a layout does not survive to_json and layout_from_json (%s)\nin: %s\nwritten: %s\n",
                     again ? "changed" : why.c_str(), text.c_str(), written.c_str());
        std::abort();
    }
    return 0;
}
