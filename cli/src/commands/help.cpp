#include "app.hpp"
#include "commands/man_page.hpp"
#include "json_output.hpp"

#include <iomanip>
#include <iostream>

namespace cudabridge::cli {

namespace {

const char* exit_code_text =
    "Exit codes: 0 success, 1 the command failed, 2 bad command line, 3 no eGPU (connected, or the one\n"
    "asked for), 4 needs privileges (root), 5 refused by the safety policy or authorization, 6 device\n"
    "lost, 8 diag passed with warnings, 130 interrupted (Ctrl-C).\n";

int run_help(app& a, const std::vector<std::string>& args) {
    if (args.size() == 1 && args[0] == "--man") {  // the manual page the build installs
        std::cout << man_page(exit_code_text);
        return exit_ok;
    }
    if (args.size() > 1) throw usage_error("help takes at most one command name");
    if (args.size() == 1) {
        const command* c = app::find_command(args[0]);
        if (!c) {
            std::cerr << "cudabridge-cli: no command named '" << args[0] << "'\nTry 'cudabridge-cli help'.\n";
            return exit_usage;
        }
        if (a.options().json) {
            auto o = make_object();
            o->set("name", c->name);
            o->set("alias", c->alias);
            o->set("summary", c->summary);
            o->set("usage", "cudabridge-cli " + c->usage);
            o->set("details", c->details);
            print_json(o);
            return exit_ok;
        }
        std::cout << "Usage: cudabridge-cli " << c->usage << "\n\n" << c->summary << "\n";
        if (!c->alias.empty()) std::cout << "Alias: " << c->alias << "\n";
        if (!c->details.empty()) std::cout << "\n" << c->details << "\n";
        return exit_ok;
    }
    if (a.options().json) {
        auto arr = make_array();
        for (const auto& c : app::commands()) {
            auto o = make_object();
            o->set("name", c.name);
            o->set("alias", c.alias);
            o->set("summary", c.summary);
            o->set("usage", "cudabridge-cli " + c.usage);
            arr->add(o);
        }
        auto o = make_object();
        o->set("commands", arr);
        print_json(o);
        return exit_ok;
    }
    std::cout << "cudabridge-cli: manage CudaBridge (CUDA on an external NVIDIA GPU over USB4/Thunderbolt)\n\n"
              << "Usage: cudabridge-cli [global options] COMMAND [arguments]\n\nCommands:\n";
    for (const auto& c : app::commands()) {
        std::string label = c.name + (c.alias.empty() ? "" : " (" + c.alias + ")");
        std::cout << "  " << std::left << std::setw(18) << label << c.summary << "\n";
    }
    std::cout << "\n"
              << global_options_help() << "\n"
              << "Run 'cudabridge-cli help COMMAND' for a command's arguments.\n"
              << exit_code_text;
    return exit_ok;
}

}  // namespace

command help_command() {
    return {"help",
            "h",
            "show help for all commands or one",
            "help [COMMAND] | help --man",
            std::string("Without an argument lists every command; with one, shows its usage and examples.\n"
                        "--man prints this help as the manual page cudabridge-cli(1), in troff.\n") +
                exit_code_text + "Examples:\n  cudabridge-cli help\n  cudabridge-cli help connect",
            false,
            run_help};
}

}  // namespace cudabridge::cli
