// A dlopen'ed shared library, closed on destruction. Nothing NVIDIA-specific.
#pragma once

#include <string>

namespace cudabridge::nv {

class dynamic_library {
public:
    dynamic_library() = default;
    dynamic_library(const dynamic_library&) = delete;
    dynamic_library& operator=(const dynamic_library&) = delete;
    dynamic_library(dynamic_library&& other) noexcept;
    dynamic_library& operator=(dynamic_library&& other) noexcept;
    ~dynamic_library();

    // dlopen(path, RTLD_NOW | RTLD_LOCAL), plus RTLD_NODELETE when `keep_loaded`: closing then
    // only drops this handle, and the library's code stays mapped until the process exits. On
    // failure returns false and error() holds dlerror().
    bool open(const std::string& path, bool keep_loaded = false);
    void close();

    [[nodiscard]] bool is_open() const { return handle_ != nullptr; }
    [[nodiscard]] const std::string& error() const { return error_; }
    [[nodiscard]] const std::string& path() const { return path_; }

    // dlsym; nullptr when the library is closed or lacks the symbol.
    [[nodiscard]] void* symbol(const char* name) const;

private:
    void* handle_ = nullptr;
    std::string path_;
    std::string error_;
};

}  // namespace cudabridge::nv
