#include "app.hpp"
#include "suggest.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/log.hpp>

#include <boost/program_options.hpp>

#include <algorithm>
#include <map>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace cudabridge::cli {

namespace po = boost::program_options;

app::app(global_options options) : options_(std::move(options)) {}
app::~app() = default;

const std::vector<command>& app::commands() {
    static const std::vector<command> table = {
        info_command(),     status_command(),     monitor_command(), query_command(), exporter_command(),
        connect_command(),  disconnect_command(), config_command(),  diag_command(),  benchmark_command(),
        reset_command(),    devices_command(),    forget_command(),  log_command(),   history_command(),
        sim_command(),      plugins_command(),    profile_command(), run_command(),   help_command(),
        version_command(),  completion_command(), summary_command(), pmon_command(),  domains_command(),
        authorize_command()};
    return table;
}

const command* app::find_command(const std::string& name) {
    for (const auto& c : commands())
        if (c.name == name || (!c.alias.empty() && c.alias == name)) return &c;
    return nullptr;
}

bool app::color() const {
    if (options_.no_color || options_.json) return false;
    if (const char* nc = std::getenv("NO_COLOR"); nc != nullptr) return false;
    return isatty(STDOUT_FILENO) != 0;
}

core::context& app::core(bool with_log_sinks) {
    if (core_) return *core_;
    core::context_options o;
    if (options_.db) o.database = *options_.db;
    for (const auto& p : options_.plugin_paths) o.search.extra_paths.emplace_back(p);
    o.no_color = options_.no_color || std::getenv("NO_COLOR") != nullptr;
    if (options_.verbose) o.level = CB_LOG_DEBUG;
    o.start_logging = with_log_sinks;
    if (!options_.log_sinks.empty()) o.log_sinks = sink_specs();
    core_ = std::make_unique<core::context>(o);
    for (const auto& f : core_->sink_failures()) std::cerr << "warning: log sink " << f << "\n";
    if (!with_log_sinks && o.log_sinks) require_sinks(*core_, *o.log_sinks);
    return *core_;
}

std::vector<core::sink_spec> app::sink_specs() const {
    std::vector<core::sink_spec> sinks;
    for (const auto& text : options_.log_sinks) {
        std::string why;
        auto spec = core::parse_sink_spec(text, why);
        if (!spec) throw usage_error(why);
        sinks.push_back(*spec);
    }
    return sinks;
}

// A command that writes no log records starts no sink, but a sink it was told to start must still
// exist: a misspelt --log-sink is an error, not silence.
void require_sinks(core::context& ctx, const std::vector<core::sink_spec>& sinks) {
    for (const auto& spec : sinks)
        if (!ctx.plugins().find(CB_KIND_LOGSINK, spec.name))
            throw usage_error("--log-sink: no logsink plugin named '" + spec.name +
                              "' ('cudabridge-cli plugins list' shows them)");
}

namespace {

// Words that make a command line nvidia-smi's query (scripts call `nvidia-smi --query-gpu=...`).
bool nvidia_smi_query(const std::vector<std::string>& words) {
    return std::any_of(words.begin(), words.end(), [](const std::string& w) {
        return w.rfind("--query-", 0) == 0 || w.rfind("--help-query", 0) == 0 || w == "-L" || w == "--list-gpus";
    });
}

po::options_description global_description();

// An nvidia-smi query line without a command (`-i 0 --query-gpu=name -l 1`): its options that take
// a separate value are joined to it (`--id=0`, `--loop=1`), so that the value is not taken for
// the command's name. Other lines are left as they are.
std::vector<std::string> joined_query_values(int argc, char** argv) {
    std::vector<std::string> words(argv + 1, argv + argc);
    if (!nvidia_smi_query(words)) return words;
    static const std::map<std::string, std::string> long_name = {
        {"-i", "--id"},       {"--id", "--id"},       {"-l", "--loop"},
        {"--loop", "--loop"}, {"-lms", "--loop-ms"},  {"--loop-ms", "--loop-ms"},
        {"-c", "--count"},    {"--count", "--count"}, {"--format", "--format"}};
    std::vector<std::string> out;
    for (size_t k = 0; k < words.size(); ++k) {
        const auto it = long_name.find(words[k]);
        if (it != long_name.end() && k + 1 < words.size())
            out.push_back(it->second + "=" + words[++k]);
        else
            out.push_back(words[k]);
    }
    return out;
}

std::vector<std::string> global_option_names() {
    const po::options_description d = global_description();
    std::vector<std::string> names = {"--query-gpu", "--query-compute-apps", "--help-query-gpu", "--list-gpus"};
    for (const auto& o : d.options()) names.push_back("--" + o->long_name());
    return names;
}

po::options_description global_description() {
    po::options_description d("Global options");
    d.add_options()("verbose,v", "verbose output (debug log records)")("json,j", "JSON output")(
        "no-color", "no ANSI colour")("device,d", po::value<int>(), "target device index N")(
        "force,f", "force the operation")("sim", "use the simulated fabric even where Thunderbolt hardware is present")(
        "db", po::value<std::string>(), "use the store at PATH")(
        "plugin-path", po::value<std::vector<std::string>>()->composing(),
        "search DIR (or pin FILE) for plugins first; repeatable")("transport", po::value<std::string>(),
                                                                  "transport plugin to use")(
        "gpu", po::value<std::string>(), "GPU family plugin to use")("safety", po::value<std::string>(),
                                                                     "safety policy plugin to use")(
        "log-sink", po::value<std::vector<std::string>>()->composing(),
        "log sink NAME[:KEY=VALUE,...] to start; repeatable")("help,h", "show help")("version", "show the version");
    return d;
}

}  // namespace

std::string global_options_help() {
    std::ostringstream out;
    out << global_description();
    return out.str();
}

int run_cli(int argc, char** argv) {
    po::options_description hidden;
    hidden.add_options()("command", po::value<std::string>())("args", po::value<std::vector<std::string>>());
    po::options_description all;
    auto globals = global_description();
    all.add(globals).add(hidden);
    po::positional_options_description positional;
    positional.add("command", 1).add("args", -1);

    global_options g;
    std::string name;
    std::vector<std::string> rest;
    try {
        // Global options may stand before or after the command (`info --json`); everything the
        // global parser does not know is handed to the command, in order.
        auto parsed = po::command_line_parser(joined_query_values(argc, argv))
                          .options(all)
                          .positional(positional)
                          .allow_unregistered()
                          .run();
        // The words after the command are the hidden "command" and "args" options; typed as
        // options (`--a X`, taken by guessing as --args) they are unknown options, not words.
        for (const auto& o : parsed.options)
            if ((o.string_key == "command" || o.string_key == "args") && o.position_key < 0 &&
                !o.original_tokens.empty())
                throw usage_error("unknown option '" + o.original_tokens.front() + "'");
        po::variables_map vm;
        po::store(parsed, vm);
        po::notify(vm);
        g.verbose = vm.count("verbose") > 0;
        g.json = vm.count("json") > 0;
        g.no_color = vm.count("no-color") > 0;
        g.force = vm.count("force") > 0;
        g.sim = vm.count("sim") > 0;
        if (vm.count("device")) g.device = vm["device"].as<int>();
        if (vm.count("db")) g.db = vm["db"].as<std::string>();
        if (vm.count("plugin-path")) g.plugin_paths = vm["plugin-path"].as<std::vector<std::string>>();
        if (vm.count("transport")) g.transport = vm["transport"].as<std::string>();
        if (vm.count("gpu")) g.gpu = vm["gpu"].as<std::string>();
        if (vm.count("safety")) g.safety = vm["safety"].as<std::string>();
        if (vm.count("log-sink")) g.log_sinks = vm["log-sink"].as<std::vector<std::string>>();
        if (g.device && *g.device < 0) throw usage_error("--device must be 0 or greater");
        const bool named = vm.count("command") > 0;  // an empty word is a name too, and no command's
        if (named) name = vm["command"].as<std::string>();
        rest = po::collect_unrecognized(parsed.options, po::include_positional);
        if (!rest.empty() && rest.front() == name) rest.erase(rest.begin());
        if (!named && !rest.empty()) {
            // nvidia-smi's habits without a command: `--query-gpu=name --format=csv`, `-L`.
            if (!nvidia_smi_query(rest))
                throw usage_error("unknown option '" + rest.front() + "'" +
                                  did_you_mean(rest.front().substr(0, rest.front().find('=')), global_option_names()));
            name = "query";
        } else if (!named) {
            name = vm.count("version") ? "version" : vm.count("help") ? "help" : "summary";
        }
        if (named && vm.count("help")) {
            rest = {name};
            name = "help";
        }
    } catch (const po::error& e) {
        std::cerr << "cudabridge-cli: " << e.what() << "\nTry 'cudabridge-cli help'.\n";
        return exit_usage;
    } catch (const usage_error& e) {
        std::cerr << "cudabridge-cli: " << e.what() << "\nTry 'cudabridge-cli help'.\n";
        return exit_usage;
    }

    const command* cmd = app::find_command(name);
    if (cmd == nullptr) {
        std::vector<std::string> names;
        for (const auto& c : app::commands()) {
            names.push_back(c.name);
            if (!c.alias.empty()) names.push_back(c.alias);
        }
        std::cerr << "cudabridge-cli: unknown command '" << name << "'" << did_you_mean(name, names)
                  << "\nTry 'cudabridge-cli help'.\n";
        return exit_usage;
    }
    app a(g);
    try {
        return cmd->run(a, rest);
    } catch (const usage_error& e) {
        std::cerr << "cudabridge-cli " << cmd->name << ": " << e.what() << "\nUsage: cudabridge-cli " << cmd->usage
                  << "\n";
        return exit_usage;
    } catch (const po::unknown_option& e) {
        std::cerr << "cudabridge-cli " << cmd->name << ": " << e.what()
                  << did_you_mean(e.get_option_name(), options_named_in(*cmd)) << "\nUsage: cudabridge-cli "
                  << cmd->usage << "\n";
        return exit_usage;
    } catch (const po::error& e) {
        std::cerr << "cudabridge-cli " << cmd->name << ": " << e.what() << "\nUsage: cudabridge-cli " << cmd->usage
                  << "\n";
        return exit_usage;
    } catch (const cli_error& e) {
        std::cerr << "cudabridge-cli " << cmd->name << ": " << e.what() << "\n";
        return e.code();
    } catch (const host::connect_error& e) {
        std::cerr << "cudabridge-cli " << cmd->name << ": " << e.what() << "\n";
        return exit_code_for_connect(e);
    } catch (const core::error& e) {
        std::cerr << "cudabridge-cli " << cmd->name << ": " << e.what() << "\n";
        return exit_code_for(e.status());
    } catch (const host::runtime_error& e) {
        std::cerr << "cudabridge-cli " << cmd->name << ": " << e.what() << "\n";
        return exit_code_for_runtime(e.code());
    } catch (const std::exception& e) {
        std::cerr << "cudabridge-cli " << cmd->name << ": " << e.what() << "\n";
        return exit_error;
    }
}

}  // namespace cudabridge::cli
