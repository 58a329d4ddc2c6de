#include "nvidia_driver/cuda_driver/dynamic_library.hpp"

#include <dlfcn.h>

#include <utility>

namespace cudabridge::nv {

dynamic_library::dynamic_library(dynamic_library&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)), error_(std::move(other.error_)) {}

dynamic_library& dynamic_library::operator=(dynamic_library&& other) noexcept {
    if (this != &other) {
        close();
        handle_ = std::exchange(other.handle_, nullptr);
        path_ = std::move(other.path_);
        error_ = std::move(other.error_);
    }
    return *this;
}

dynamic_library::~dynamic_library() { close(); }

bool dynamic_library::open(const std::string& path, bool keep_loaded) {
    close();
    path_ = path;
    error_.clear();
    handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | (keep_loaded ? RTLD_NODELETE : 0));
    if (handle_ == nullptr) {
        const char* err = ::dlerror();
        error_ = err != nullptr ? err : "dlopen failed";
        return false;
    }
    return true;
}

void dynamic_library::close() {
    if (handle_ != nullptr) {
        ::dlclose(handle_);
        handle_ = nullptr;
    }
}

void* dynamic_library::symbol(const char* name) const {
    if (handle_ == nullptr || name == nullptr) return nullptr;
    ::dlerror();
    return ::dlsym(handle_, name);
}

}  // namespace cudabridge::nv
