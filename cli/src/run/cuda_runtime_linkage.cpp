#include "run/cuda_runtime_linkage.hpp"

#include "exit_codes.hpp"

#include <elf.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>
#include <vector>

namespace cudabridge::cli {
namespace {

std::vector<char> read_all(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw cli_error(exit_error, "cannot read " + p.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <typename T>
bool read_at(const std::vector<char>& file, uint64_t offset, T& out) {
    if (offset > file.size() || file.size() - offset < sizeof(T)) return false;
    std::memcpy(&out, file.data() + offset, sizeof(T));
    return true;
}

// The DT_NEEDED names of a 64-bit little-endian ELF file (the dynamic section read through the
// section headers: PT_DYNAMIC's string table address would need the program headers' mapping).
std::vector<std::string> needed_libraries(const std::vector<char>& file) {
    std::vector<std::string> names;
    Elf64_Ehdr eh{};
    if (!read_at(file, 0, eh) || eh.e_shentsize != sizeof(Elf64_Shdr)) return names;
    for (uint16_t i = 0; i < eh.e_shnum; ++i) {
        Elf64_Shdr dynamic{};
        if (!read_at(file, eh.e_shoff + uint64_t(i) * sizeof(Elf64_Shdr), dynamic) || dynamic.sh_type != SHT_DYNAMIC)
            continue;
        Elf64_Shdr strings{};
        if (!read_at(file, eh.e_shoff + uint64_t(dynamic.sh_link) * sizeof(Elf64_Shdr), strings)) return names;
        for (uint64_t off = dynamic.sh_offset; off + sizeof(Elf64_Dyn) <= dynamic.sh_offset + dynamic.sh_size;
             off += sizeof(Elf64_Dyn)) {
            Elf64_Dyn d{};
            if (!read_at(file, off, d) || d.d_tag == DT_NULL) break;
            if (d.d_tag != DT_NEEDED || d.d_un.d_val >= strings.sh_size) continue;
            const uint64_t at = strings.sh_offset + d.d_un.d_val;
            if (at >= file.size()) continue;
            names.emplace_back(file.data() + at, strnlen(file.data() + at, file.size() - at));
        }
    }
    return names;
}

}  // namespace

cuda_runtime_linkage cuda_runtime_linkage_of(const std::filesystem::path& program) {
    const std::vector<char> file = read_all(program);
    if (file.size() < EI_NIDENT || std::memcmp(file.data(), ELFMAG, SELFMAG) != 0 || file[EI_CLASS] != ELFCLASS64)
        return cuda_runtime_linkage::not_elf;
    for (const std::string& name : needed_libraries(file))
        if (name.rfind("libcudart.so", 0) == 0) return cuda_runtime_linkage::shared;
    // The static runtime carries the registration entry nvcc's host code calls.
    const std::string_view text(file.data(), file.size());
    return text.find("__cudaRegisterFatBinary") != std::string_view::npos ? cuda_runtime_linkage::static_runtime
                                                                          : cuda_runtime_linkage::none;
}

std::filesystem::path find_program(const std::string& program) {
    const auto runnable = [](const std::filesystem::path& p) {
        std::error_code ec;
        return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
    };
    if (program.find('/') != std::string::npos) return runnable(program) ? std::filesystem::path(program) : "";
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');)
        if (auto candidate = std::filesystem::path(dir.empty() ? "." : dir) / program; runnable(candidate))
            return candidate;
    return {};
}

}  // namespace cudabridge::cli
