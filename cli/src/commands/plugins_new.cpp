// `plugins new KIND NAME [DIR]`: writes a plugin project that builds against the installed SDK.
// An unknown kind, a bad name, or a DIR that exists and is not an empty folder is refused before
// anything is written.
#include "app.hpp"
#include "json_output.hpp"
#include "plugin_templates/plugin_templates.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace cudabridge::cli {

namespace fs = std::filesystem;

namespace {

void check_kind(const std::string& kind) {
    const auto& kinds = template_kinds();
    if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) return;
    if (kind == "endpoint-model" || kind == "endpoint_model")
        throw usage_error(
            "an endpoint model is not a plugin kind: a GPU family builds it and a transport hosts "
            "it; start from 'plugins new gpu NAME' (see sdk/docs/kinds/endpoint-model.md)");
    throw usage_error("unknown kind '" + kind + "' (logsink, safety, transport or gpu)");
}

// DIR must not exist yet, or be an empty folder.
void check_dir(const fs::path& dir) {
    std::error_code ec;
    const fs::file_status st = fs::status(dir, ec);
    if (!fs::exists(st)) return;
    if (!fs::is_directory(st))
        throw cli_error(exit_error, dir.string() + " exists and is not a folder; nothing was written");
    if (!fs::is_empty(dir, ec) || ec)
        throw cli_error(exit_error, dir.string() + " is not empty; nothing was written (name a new or empty folder)");
}

void write_files(const fs::path& dir, const std::vector<template_file>& files) {
    std::error_code ec;
    const bool made = !fs::exists(dir, ec);
    if (!fs::create_directories(dir, ec) && ec)
        throw cli_error(exit_error, "cannot create " + dir.string() + ": " + ec.message());
    for (const auto& f : files) {
        std::ofstream out(dir / f.path, std::ios::binary);
        if (out << f.text && out.flush()) continue;
        // Leave no half-made project behind.
        for (const auto& written : files) fs::remove(dir / written.path, ec);
        if (made) fs::remove(dir, ec);
        throw cli_error(exit_error, "cannot write " + (dir / f.path).string() + "; nothing was kept");
    }
}

// The prefix this CLI is installed in, when it holds the SDK's CMake package.
std::string sdk_prefix() {
    std::error_code ec;
    const fs::path prefix = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path();
    if (!ec && fs::exists(prefix / CB_INSTALL_LIBDIR / "cmake/CudaBridge/CudaBridgeConfig.cmake", ec))
        return prefix.string();
    return "<CudaBridge install prefix>";
}

}  // namespace

int run_plugins_new(app& a, const std::vector<std::string>& args) {
    if (args.size() < 3 || args.size() > 4) throw usage_error("plugins new needs KIND and NAME, and optionally DIR");
    const std::string& kind = args[1];
    const std::string& name = args[2];
    check_kind(kind);
    if (auto why = invalid_project_name(name)) throw usage_error(*why);
    const fs::path dir = args.size() == 4 ? fs::path(args[3]) : fs::path(name);
    check_dir(dir);
    const auto files = plugin_project(kind, name);
    write_files(dir, files);

    if (a.options().json) {
        auto o = make_object();
        o->set("kind", kind);
        o->set("name", name);
        o->set("dir", dir.string());
        auto list = make_array();
        for (const auto& f : files) list->add((dir / f.path).string());
        o->set("files", list);
        print_json(o);
        return exit_ok;
    }
    std::cout << "Wrote a " << kind << " plugin project to " << dir.string() << ":\n";
    for (const auto& f : files) std::cout << "  " << f.path << "\n";
    const std::string build = (dir / "build").string();
    std::cout << "Build and check it:\n"
              << "  cmake -S " << dir.string() << " -B " << build << " -DCMAKE_PREFIX_PATH=" << sdk_prefix() << "\n"
              << "  cmake --build " << build << "\n"
              << "  cudabridge-cli plugins verify " << build << "/lib" << name << ".so\n";
    return exit_ok;
}

}  // namespace cudabridge::cli
