#include "plugin_templates/plugin_templates.hpp"

#include "plugin_templates/template_sources.hpp"

#include <algorithm>
#include <regex>

namespace cudabridge::cli {

namespace {

struct kind_info {
    const char* kind;
    const char* (*source)();
    const char* what;    // for the README
    const char* select;  // the global option that selects it, with an example of its use
};

const kind_info kinds[] = {
    {"logsink", templates::logsink_source, "A log sink: one text line per log record, to a file or stderr",
     "cudabridge-cli --plugin-path build --log-sink @NAME@:path=/tmp/@NAME@.log log write hello"},
    {"safety", templates::safety_source,
     "A safety policy: a thermal emergency stop, a link-down failure mark, a display-class check",
     "cudabridge-cli --plugin-path build --safety @NAME@ connect"},
    {"transport", templates::transport_source, "A transport: one USB4 domain with nothing plugged in yet",
     "cudabridge-cli --plugin-path build --transport @NAME@ devices"},
    {"gpu", templates::gpu_source, "A GPU family: claims one vendor's display controllers and identifies them",
     "cudabridge-cli --plugin-path build --gpu @NAME@ connect   # with a transport that shows such a GPU"},
};

const kind_info& info_of(const std::string& kind) {
    for (const auto& k : kinds)
        if (kind == k.kind) return k;
    return kinds[0];  // callers pass a kind from template_kinds()
}

using fields = std::vector<std::pair<std::string, std::string>>;

// Replaces each @KEY@ in order, so a value may itself hold a later key.
std::string filled(std::string text, const fields& values) {
    for (const auto& [key, value] : values)
        for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
            text.replace(at, key.size(), value);
    return text;
}

fields fields_of(const kind_info& k, const std::string& name) {
    return {{"@KIND@", k.kind},
            {"@WHAT@", k.what},
            {"@SELECT@", k.select},
            {"@NAME@", name},
            {"@CLASS@", name + "_plugin"}};
}

const char* cmake_text =
    "# @NAME@: a CudaBridge @KIND@ plugin, built against the installed SDK.\n"
    "cmake_minimum_required(VERSION 3.20)\n"
    "project(@NAME@ LANGUAGES CXX)\n"
    "find_package(CudaBridge CONFIG REQUIRED)\n"
    "cudabridge_add_plugin(NAME @NAME@ KIND @KIND@ SOURCES @NAME@.cpp)\n";

const char* readme_text =
    "# @NAME@\n\n"
    "@WHAT@. Made by `cudabridge-cli plugins new @KIND@ @NAME@`. The kind's contract (when each\n"
    "entry is called, on which thread, what it may block on, what it returns) is in\n"
    "`sdk/docs/kinds/@KIND@.md` of the CudaBridge sources.\n\n"
    "## Build\n\n"
    "    cmake -S . -B build -DCMAKE_PREFIX_PATH=<CudaBridge install prefix>\n"
    "    cmake --build build\n\n"
    "## Check and use\n\n"
    "    cudabridge-cli plugins verify build/lib@NAME@.so\n"
    "    @SELECT@\n\n"
    "`--plugin-path DIR` searches DIR first; to load it without the option, copy `lib@NAME@.so` into\n"
    "`~/.local/share/cudabridge/plugins/`, or install it next to CudaBridge's own plugins with\n"
    "`cmake --install build --prefix <CudaBridge install prefix>`.\n";

}  // namespace

const std::vector<std::string>& template_kinds() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const auto& k : kinds) v.emplace_back(k.kind);
        return v;
    }();
    return names;
}

std::optional<std::string> invalid_project_name(const std::string& name) {
    static const std::regex allowed("[a-z][a-z0-9_]{0,62}");
    if (!std::regex_match(name, allowed))
        return "'" + name +
               "' is not a plugin name: use 1 to 63 characters of a-z, 0-9 and _, starting with a "
               "letter (it names the plugin, its CMake target and its C++ class)";
    // CMake reserves these target names.
    static const char* const reserved[] = {"all",     "clean",          "help",       "install",       "test",
                                           "package", "package_source", "edit_cache", "rebuild_cache", "depend"};
    if (std::find(std::begin(reserved), std::end(reserved), name) != std::end(reserved))
        return "'" + name + "' is a target name CMake reserves; choose another";
    return std::nullopt;
}

std::vector<template_file> plugin_project(const std::string& kind, const std::string& name) {
    const kind_info& k = info_of(kind);
    const fields values = fields_of(k, name);
    return {{"CMakeLists.txt", filled(cmake_text, values)},
            {name + ".cpp", filled(k.source(), values)},
            {"README.md", filled(readme_text, values)}};
}

}  // namespace cudabridge::cli
