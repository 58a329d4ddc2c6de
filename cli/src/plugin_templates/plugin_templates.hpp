// `plugins new KIND NAME`: the files of a plugin project that builds against the installed SDK
// (find_package(CudaBridge) + cudabridge_add_plugin), with one source file implementing the
// kind's table and a README that says how to build, verify and select it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cudabridge::cli {

struct template_file {
    std::string path;  // relative to the project folder
    std::string text;
};

// The kinds a project can be made for, as the SDK names them: logsink, safety, transport, gpu.
const std::vector<std::string>& template_kinds();

// Why NAME cannot name a plugin project (it becomes the plugin's name, the CMake target and a
// C++ class name), or nullopt when it can.
std::optional<std::string> invalid_project_name(const std::string& name);

// The project's files; `kind` is one of template_kinds() and `name` is valid.
std::vector<template_file> plugin_project(const std::string& kind, const std::string& name);

}  // namespace cudabridge::cli
