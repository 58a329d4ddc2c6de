#include "modules.hpp"

#include "registration.hpp"

#include <cstring>

namespace cudabridge::libcuda {
namespace {

constexpr uint32_t fatbin_wrapper_magic = 0x466243b1u;  // nvcc's __fatBinC_Wrapper_t

uint32_t first_word(const void* p) {
    uint32_t w = 0;
    std::memcpy(&w, p, sizeof w);
    return w;
}

// An ELF file's size: the end of its section header table (which comes last in a cubin).
size_t elf_size(const void* image) {
    const auto* b = static_cast<const unsigned char*>(image);
    uint64_t section_headers = 0;
    uint16_t entry_size = 0, entries = 0;
    std::memcpy(&section_headers, b + 0x28, 8);
    std::memcpy(&entry_size, b + 0x3a, 2);
    std::memcpy(&entries, b + 0x3c, 2);
    return static_cast<size_t>(section_headers + uint64_t{entry_size} * entries);
}

}  // namespace

module_image identify_image(const void* image) {
    module_image m;
    if (first_word(image) == fatbin_wrapper_magic) {
        const void* data = nullptr;
        std::memcpy(&data, static_cast<const char*>(image) + 8, sizeof data);  // magic, version, data
        if (data) image = data;
    }
    if (const size_t size = cudabridge::cudart::fatbin_size(image); size != 0) {
        m = {image, size, CB_MODULE_FATBIN};
    } else if (std::memcmp(image,
                           "\x7f"
                           "ELF",
                           4) == 0) {
        m = {image, elf_size(image), CB_MODULE_CUBIN};
    } else {
        m = {image, std::strlen(static_cast<const char*>(image)) + 1, CB_MODULE_PTX};
    }
    return m;
}

}  // namespace cudabridge::libcuda
