// PTX text, as a program hands it to cuModuleLoadData, cb.RawModule or a fatbin: the PTX engine's
// parser, its limits and its layout (everything before LLVM). Any text is either refused with a
// message ("line N: ...") or laid out; neither may crash, hang, or take memory in proportion to a
// number the text gives (libFuzzer's RSS limit, 2 GiB, catches that).
#include "sim/ptx/layout.hpp"
#include "sim/ptx/parser.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    namespace ptx = cudabridge::nv::ptx;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const ptx::parse_result parsed = ptx::parse(text);
    if (!parsed.ok) {
        if (parsed.error.empty()) std::abort();  // a refusal always says why
        return 0;
    }
    const ptx::layout_result laid = ptx::lay_out(parsed.mod);
    if (!laid.ok && laid.error.empty()) std::abort();
    return 0;
}
