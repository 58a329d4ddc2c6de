#include "temp_dir.hpp"

#include <cstdlib>
#include <stdexcept>
#include <system_error>

namespace cudabridge::test {

temp_dir::temp_dir() {
    char tmpl[] = "/tmp/cudabridge-test-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
}

temp_dir::~temp_dir() {
    namespace fs = std::filesystem;
    std::error_code ec;
    // Folders a test made read-only must become writable again to be removed.
    for (auto it = fs::recursive_directory_iterator(path_, ec); it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (it->is_directory(ec)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::remove_all(path_, ec);
}

}  // namespace cudabridge::test
