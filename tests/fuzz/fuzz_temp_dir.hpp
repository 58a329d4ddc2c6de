// A private temporary folder for fuzz targets that write their input to files, removed at exit.
// Targets write a file or more per input: on a tmpfs (/dev/shm) where there is one, that costs
// no disk I/O and runs several times faster.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace cudabridge::fuzz {

class temp_dir {
public:
    explicit temp_dir(const char* prefix) {
        namespace fs = std::filesystem;
        const fs::path shm = "/dev/shm";
        const fs::path base = ::access(shm.c_str(), W_OK | X_OK) == 0 ? shm : fs::temp_directory_path();
        std::string name = (base / (std::string(prefix) + "-XXXXXX")).string();
        if (!::mkdtemp(name.data())) {  // mode 0700
            std::perror(name.c_str());
            std::abort();
        }
        path_ = name;
    }
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace cudabridge::fuzz
