// How a program reaches the CUDA runtime, read from its ELF file: through libcudart.so (which
// `cudabridge-cli run` can replace), linked in statically (nvcc's default, which no loader path
// can redirect), or neither (a script, or a program that loads CUDA some other way).
#pragma once

#include <filesystem>
#include <string>

namespace cudabridge::cli {

enum class cuda_runtime_linkage { shared, static_runtime, none, not_elf };

// Throws cli_error when the file cannot be read.
cuda_runtime_linkage cuda_runtime_linkage_of(const std::filesystem::path& program);

// PROGRAM as the shell would find it: a path when it has a '/', else the first match on PATH.
// Empty when there is none that is an executable file.
std::filesystem::path find_program(const std::string& program);

}  // namespace cudabridge::cli
