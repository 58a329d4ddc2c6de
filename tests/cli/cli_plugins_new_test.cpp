// `plugins new KIND NAME [DIR]`: the project it writes, and what it refuses without writing.
// (tests/install/sdk_examples_test.sh builds the projects against an installed SDK.)
#include "cli_fixture.hpp"
#include "read_file.hpp"

#include <filesystem>
#include <fstream>

namespace cudabridge::test {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(cli_test, PluginsNewWritesAProjectForEachKind) {
    for (const std::string kind : {"logsink", "safety", "transport", "gpu"}) {
        const fs::path dir = tmp / ("project_" + kind);
        const std::string name = "my_" + kind;
        auto r = run({"plugins", "new", kind, name, dir.string(), "--json"});
        ASSERT_EQ(r.exit_code, 0) << kind << ": " << r.err;
        EXPECT_EQ(object(r.out)->getArray("files")->size(), 3u) << r.out;

        const std::string cmake = read_file(dir / "CMakeLists.txt");
        EXPECT_TRUE(contains(cmake, "find_package(CudaBridge CONFIG REQUIRED)")) << cmake;
        EXPECT_TRUE(
            contains(cmake, "cudabridge_add_plugin(NAME " + name + " KIND " + kind + " SOURCES " + name + ".cpp)"))
            << cmake;
        const std::string source = read_file(dir / (name + ".cpp"));
        EXPECT_TRUE(contains(source, "identity{\n        \"" + name + "\", CB_MAKE_VERSION(0, 1, 0)")) << kind;
        EXPECT_TRUE(contains(source, "CB_PLUGIN_DEFINE(cudabridge::sdk::descriptor_of<" + name + "_plugin>())"))
            << kind;
        const std::string readme = read_file(dir / "README.md");
        EXPECT_TRUE(contains(readme, "plugins verify build/lib" + name + ".so")) << readme;
        for (const std::string& text : {cmake, source, readme})
            EXPECT_FALSE(contains(text, "@")) << kind << ": a placeholder is left";
    }
}

TEST_F(cli_test, PluginsNewWritesIntoAnEmptyFolder) {
    fs::create_directories(tmp / "empty");
    auto r = run({"plugins", "new", "logsink", "sink_a", (tmp / "empty").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(tmp / "empty" / "sink_a.cpp"));
    EXPECT_TRUE(contains(r.out, "plugins verify")) << r.out;
}

TEST_F(cli_test, PluginsNewRefusesAndWritesNothing) {
    fs::create_directories(tmp / "full");
    std::ofstream(tmp / "full" / "keep.txt") << "mine";
    const std::string absent = (tmp / "absent").string();
    expect_refused({
        {{"plugins", "new", "widget", "w", absent}, 2, "unknown kind 'widget' (logsink, safety, transport or gpu)"},
        {{"plugins", "new", "endpoint-model", "m", absent}, 2, "an endpoint model is not a plugin kind"},
        {{"plugins", "new", "logsink", "9lives", absent}, 2, "'9lives' is not a plugin name"},
        {{"plugins", "new", "logsink", "My-Sink", absent}, 2, "is not a plugin name"},
        {{"plugins", "new", "logsink", std::string(64, 'a'), absent}, 2, "is not a plugin name"},
        {{"plugins", "new", "logsink", "test", absent}, 2, "a target name CMake reserves"},
        {{"plugins", "new", "logsink", "fine", (tmp / "full").string()}, 1, "is not empty; nothing was written"},
        {{"plugins", "new", "logsink", "fine", (tmp / "full" / "keep.txt").string()}, 1, "is not a folder"},
        {{"plugins", "new", "logsink"}, 2, "plugins new needs KIND and NAME"},
    });
    EXPECT_FALSE(fs::exists(absent));
    size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(tmp / "full")) ++entries;
    EXPECT_EQ(entries, 1u);
    EXPECT_EQ(read_file(tmp / "full" / "keep.txt"), "mine");
}

}  // namespace
}  // namespace cudabridge::test
