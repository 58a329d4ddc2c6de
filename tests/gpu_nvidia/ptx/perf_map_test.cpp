// CUDABRIDGE_PERF_MAP=1: the functions the engine JITs are listed in /tmp/perf-<pid>.map, where
// Linux perf looks for the names of code it has no symbols for, each kernel under "ptx:NAME".
#include "sim/ptx/perf_map.hpp"
#include "sim/ptx/program.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace cudabridge::nv::ptx {
namespace {

// Before anything in this program asks: the setting is read once.
const bool asked = [] { return ::setenv("CUDABRIDGE_PERF_MAP", "1", 1) == 0; }();

std::string corpus(const std::string& name) {
    std::ifstream f(std::string(CB_PTX_CORPUS_DIR) + "/" + name + ".ptx");
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

struct map_line {
    uint64_t start = 0, size = 0;
    std::string name;
};

std::vector<map_line> read_map(const std::filesystem::path& path) {
    std::vector<map_line> lines;
    std::ifstream f(path);
    for (std::string text; std::getline(f, text);) {
        std::istringstream in(text);
        map_line l;
        in >> std::hex >> l.start >> l.size >> l.name;
        lines.push_back(l);
    }
    return lines;
}

TEST(PerfMap, AKernelsCodeIsListedUnderItsName) {
    ASSERT_TRUE(asked);
    ASSERT_TRUE(perf_map_wanted());
    const std::filesystem::path path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
    std::string error;
    auto p = program::load(corpus("saxpy"), error);
    ASSERT_TRUE(p) << error;
    const uint32_t block[3] = {256, 1, 1};
    const size_t kernel = static_cast<size_t>(p->find("saxpy"));
    const block_function code = p->code_for(kernel, p->launch_shape(kernel, block, 0), error);
    ASSERT_TRUE(code) << error;

    const auto address = reinterpret_cast<uint64_t>(code);
    bool found = false;
    for (const auto& l : read_map(path))
        if (l.name == "ptx:saxpy") found = found || (l.start <= address && address < l.start + l.size);
    std::filesystem::remove(path);
    EXPECT_TRUE(found) << "no line for ptx:saxpy covers its code at " << std::hex << address << " in " << path;
}

}  // namespace
}  // namespace cudabridge::nv::ptx
