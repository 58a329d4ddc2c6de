// The checks a plugin file goes through before the dynamic loader may touch it
// (core/src/registry/file_checks.cpp, elf_checks.cpp): the input is written to a file named like
// a plugin in a private temporary folder, and stat_plugin_file, file_sha256, unsafe_permissions
// and elf_problem run on it as verify_plugin_file runs them. None may crash, and none may load
// the file: dlopen is replaced here by a function that aborts.
// looks_like_plugin_file also gets the input as a file name.
#include "fuzz_temp_dir.hpp"
#include "internal.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;

// The checks exist so that nothing of a bad file runs: loading it here is a finding.
extern "C" void* dlopen(const char* file, int) {
    std::fprintf(stderr, "dlopen(%s) called by the plugin file checks\n", file ? file : "NULL");
    std::abort();
}
extern "C" void* dlmopen(Lmid_t, const char* file, int) { return dlopen(file, 0); }

namespace {

const fs::path& plugin_path() {
    // mkdtemp's mode 0700: the permission check passes wherever the folders above are sane.
    static const cudabridge::fuzz::temp_dir dir("cb-plugin-fuzz");
    static const fs::path file = dir.path() / "libcudabridge_fuzz.so";
    return file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace cudabridge::core;
    const fs::path& path = plugin_path();
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ::write(fd, data, size) != static_cast<ssize_t>(size) || ::close(fd) != 0) {
        std::perror(path.c_str());
        std::abort();
    }

    std::string why;
    const auto facts = stat_plugin_file(path, why);
    if (!facts || facts->size != static_cast<int64_t>(size)) {
        std::fprintf(stderr, "stat_plugin_file: %s\n", why.c_str());
        std::abort();
    }
    if (file_sha256(facts->canonical).size() != 64) std::abort();
    (void)unsafe_permissions(facts->canonical);
    (void)elf_problem(facts->canonical, facts->size);

    const char* text = reinterpret_cast<const char*>(data);
    (void)looks_like_plugin_file(fs::path(std::string(text, strnlen(text, size))));
    return 0;
}
