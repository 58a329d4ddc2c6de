// `diag [-r 1|2|3] [--duration S]`: diagnostics by level, after dcgmi diag. PASS / WARN / FAIL per
// test with the reason; the exit code is the worst result's.
#include "app.hpp"
#include "command_args.hpp"
#include "diag/checks.hpp"
#include "interruption.hpp"
#include "json_output.hpp"

#include <boost/program_options.hpp>

#include <iomanip>
#include <iostream>

namespace cudabridge::cli {

namespace po = boost::program_options;

namespace {

const char* level_name(int level) {
    switch (level) {
    case 1:
        return "software and deployment";
    case 2:
        return "link and memory";
    default:
        return "compute stress";
    }
}

// A level whose checks throw (the device lost or reset mid-run, say) is reported as a FAIL of
// that level, and the run still ends with its Result line (or its JSON).
void run_level(diag_context& c, int level, void (*checks)(diag_context&)) {
    try {
        checks(c);
    } catch (const std::exception& e) {
        c.report({level, "aborted", verdict::fail, std::string("the level stopped: ") + e.what(), nullptr});
    }
}

int run_diag(app& a, const std::vector<std::string>& args) {
    po::options_description d;
    d.add_options()("run,r", po::value<int>()->default_value(1), "")("duration", po::value<double>()->default_value(10),
                                                                     "");
    const po::variables_map vm = parse_options(args, d);
    const int level = vm["run"].as<int>();
    if (level < 1 || level > 3) throw usage_error("-r takes 1, 2 or 3");
    const double duration = vm["duration"].as<double>();
    if (!(duration >= 1 && duration <= 3600)) throw usage_error("--duration must be 1 to 3600 seconds");
    auto& rt = a.runtime();
    const bool json = a.options().json, color = a.color();
    std::vector<diag_result> results;
    int shown_level = 0;
    diag_context c{rt,
                   -1,
                   duration,
                   [&](const diag_result& r) {
                       results.push_back(r);
                       if (json) return;
                       if (r.level != shown_level) {
                           shown_level = r.level;
                           std::cout << "Level " << r.level << ": " << level_name(r.level) << "\n";
                       }
                       const char* tint = r.result == verdict::pass   ? "\033[32m"
                                          : r.result == verdict::warn ? "\033[33m"
                                                                      : "\033[31m";
                       std::cout << "  " << (color ? tint : "") << verdict_name(r.result) << (color ? "\033[0m" : "")
                                 << "  " << std::left << std::setw(17) << r.test << r.reason << "\n"
                                 << std::flush;
                   },
                   {}};
    if (rt.device_count() > 0)
        c.device = a.device_index();
    else if (a.options().device)
        a.device_index();  // -d N with nothing connected: exit 3
    else
        c.unreachable = a.unreachable_egpu();
    // Ctrl-C ends the stress early and skips the levels not yet begun; the tests that ran are
    // reported as usual, and the exit code is 130.
    const interruption_scope ctrl_c;
    run_level(c, 1, software_checks);
    if (level >= 2 && !interruption_requested()) run_level(c, 2, link_checks);
    if (level >= 3 && !interruption_requested()) run_level(c, 3, stress_checks);
    const bool interrupted = interruption_requested();
    verdict worst = verdict::pass;
    size_t counts[3] = {0, 0, 0};
    for (const auto& r : results) {
        worst = std::max(worst, r.result);
        ++counts[static_cast<int>(r.result)];
    }
    if (json) {
        auto o = make_object();
        o->set("level", level);
        o->set("result", std::string(verdict_name(worst)));
        auto arr = make_array();
        for (const auto& r : results) {
            auto t = make_object();
            t->set("level", r.level);
            t->set("test", r.test);
            t->set("result", std::string(verdict_name(r.result)));
            t->set("reason", r.reason);
            t->set("details", r.details ? Poco::Dynamic::Var(r.details) : Poco::Dynamic::Var());
            arr->add(t);
        }
        o->set("tests", arr);
        o->set("interrupted", interrupted);
        print_json(o);
    } else {
        std::cout << "Result: " << verdict_name(worst) << " (" << counts[0] << " passed, " << counts[1] << " warned, "
                  << counts[2] << " failed" << (interrupted ? "; interrupted by Ctrl-C" : "") << ")\n";
    }
    if (interrupted) return exit_interrupted;
    return worst == verdict::pass ? exit_ok : worst == verdict::warn ? exit_diag_warning : exit_error;
}

}  // namespace

command diag_command() {
    return {"diag",
            "d",
            "run diagnostics (levels 1-3, like dcgmi diag)",
            "diag [-r 1|2|3] [--duration SECONDS]",
            "-r 1 (default, seconds): plugins, store integrity_check, NVIDIA driver availability and\n"
            "     why, permissions, settings sanity, the connection's state and authorization.\n"
            "-r 2 adds the link and memory: bandwidth both ways against what the link should give,\n"
            "     latency, CRC errors and replays against the policy's error rate and DCGM's replay\n"
            "     limits, link downgrade, a VRAM pattern test.\n"
            "-r 3 adds a compute stress (--duration seconds, default 10) whose every result is checked,\n"
            "     and the thermal and power behaviour under it.\n"
            "Each test prints PASS, WARN or FAIL with its reason. Exit code: 0 all passed, 8 the worst\n"
            "was a warning, 1 a test failed, 130 Ctrl-C stopped the run (what ran is reported).\n"
            "Examples:\n"
            "  cudabridge-cli diag\n"
            "  cudabridge-cli diag -r 3 --duration 30 --json",
            false,
            run_diag};
}

}  // namespace cudabridge::cli
