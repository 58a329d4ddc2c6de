#include "app.hpp"
#include "json_output.hpp"

#include <cudabridge/abi.h>

#include <iostream>

#ifndef CB_VERSION_STRING
#define CB_VERSION_STRING "0.0.0"
#endif

namespace cudabridge::cli {

namespace {

int run_version(app& a, const std::vector<std::string>& args) {
    if (!args.empty()) throw usage_error("version takes no arguments");
    const std::string abi = std::to_string(CB_ABI_MAJOR) + "." + std::to_string(CB_ABI_MINOR);
    if (a.options().json) {
        auto o = make_object();
        o->set("version", std::string(CB_VERSION_STRING));
        o->set("plugin_abi", abi);
        o->set("abi_major", CB_ABI_MAJOR);
        o->set("abi_minor", CB_ABI_MINOR);
        print_json(o);
    } else {
        std::cout << "cudabridge-cli " << CB_VERSION_STRING << " (plugin ABI " << abi << ")\n";
    }
    return exit_ok;
}

}  // namespace

command version_command() {
    return {"version",
            "",
            "show the program version and plugin ABI",
            "version",
            "Prints the CLI's version and the plugin ABI it speaks.\nExample:\n  cudabridge-cli version --json",
            false,
            run_version};
}

}  // namespace cudabridge::cli
