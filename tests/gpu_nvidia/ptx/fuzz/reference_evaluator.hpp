// A small interpreter of the straight-line PTX subset that program_generator emits, written
// from the PTX ISA (not from the engine's lowering), so that the two can be compared bit for
// bit. It reads the kernel's text, one thread at a time, over a plain byte range standing in
// for global memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::nv::ptx::fuzz {

// The bytes that ld.global and st.global reach, at device address `base`.
struct reference_memory {
    uint8_t* bytes = nullptr;
    uint64_t base = 0;
    uint64_t size = 0;
};

class reference_kernel {
public:
    // One `.entry` (its text, as in a module). Null with `error` naming the statement it does
    // not understand.
    static std::unique_ptr<reference_kernel> decode(std::string_view entry_text, std::string& error);
    ~reference_kernel();

    // Runs thread `tid` of a one-dimensional block of `ntid` threads; `params` are the .param
    // values in declaration order. Empty on success, else what went wrong and where.
    std::string run(const std::vector<uint64_t>& params, uint32_t tid, uint32_t ntid,
                    const reference_memory& memory) const;

    struct decoded;

private:
    explicit reference_kernel(std::unique_ptr<decoded> d);
    std::unique_ptr<decoded> d_;
};

}  // namespace cudabridge::nv::ptx::fuzz
