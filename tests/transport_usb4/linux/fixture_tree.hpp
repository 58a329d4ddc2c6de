// Where the committed sysfs fixtures are, and a writable copy of one for tests that write.
#pragma once

#include "temp_dir.hpp"

#include <filesystem>
#include <string>

namespace cudabridge::usb4::linux_sysfs::test {

// tests/transport_usb4/linux/fixtures/<name> (read only: never write here).
std::filesystem::path fixture(const std::string& name);

// A copy of a fixture in a fresh temporary folder, symlinks kept as symlinks.
class fixture_copy {
public:
    explicit fixture_copy(const std::string& name);
    const std::filesystem::path& root() const { return root_; }
    std::filesystem::path operator/(const std::string& relative) const { return root_ / relative; }

private:
    cudabridge::test::temp_dir dir_;
    std::filesystem::path root_;
};

// The trimmed text of a file ("" when missing).
std::string read_text(const std::filesystem::path& file);

}  // namespace cudabridge::usb4::linux_sysfs::test
