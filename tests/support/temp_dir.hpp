// A fresh folder under /tmp for one test, removed with everything in it when the object goes away.
#pragma once

#include <filesystem>
#include <string>

namespace cudabridge::test {

class temp_dir {
public:
    temp_dir();
    ~temp_dir();
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
    const std::string& path() const noexcept { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return std::filesystem::path(path_) / name; }

private:
    std::string path_;
};

}  // namespace cudabridge::test
