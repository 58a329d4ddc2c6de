#include "fixture_tree.hpp"

#include <fstream>
#include <sstream>

namespace cudabridge::usb4::linux_sysfs::test {

namespace fs = std::filesystem;

fs::path fixture(const std::string& name) {
    return fs::path(CB_TEST_SOURCE_DIR) / "tests/transport_usb4/linux/fixtures" / name;
}

fixture_copy::fixture_copy(const std::string& name) : root_(fs::path(dir_.path()) / name) {
    fs::copy(fixture(name), root_, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

std::string read_text(const fs::path& file) {
    std::ifstream in(file);
    std::stringstream s;
    s << in.rdbuf();
    std::string text = s.str();
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

}  // namespace cudabridge::usb4::linux_sysfs::test
