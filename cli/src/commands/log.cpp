// `log [-n N] [--level L] [--category C] [--since T] [--follow]` reads what the SQLite sink
// wrote; `log write [--level L] [--category C] MESSAGE` writes one record through the sinks.
#include "app.hpp"
#include "command_args.hpp"
#include "interruption.hpp"
#include "json_output.hpp"
#include "terminal_text.hpp"
#include "time_text.hpp"

#include <cudabridge/core/log.hpp>
#include <cudabridge/core/store.hpp>

#include <boost/program_options.hpp>

#include <chrono>
#include <iostream>
#include <thread>

namespace cudabridge::cli {

namespace po = boost::program_options;

namespace {

cb_log_level level_arg(const std::string& text) {
    auto l = core::log::parse_level(text);
    if (!l || *l == CB_LOG_OFF)
        throw usage_error("'" + text + "' is not a level (TRACE, DEBUG, INFO, WARN, ERROR, FATAL)");
    return *l;
}

std::string category_arg(const std::string& text) {
    std::string upper;
    for (char c : text) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return upper;
}

json_object row_json(const core::log_row& r) {
    auto o = make_object();
    o->set("id", r.id);
    o->set("time", format_utc_iso(r.time_ns));
    o->set("time_ns", r.time_ns);
    o->set("level", std::string(core::log::level_name(r.level)));
    o->set("category", r.category);
    o->set("thread", r.thread_id);
    if (r.device.empty())
        o->set("device", Poco::Dynamic::Var());
    else
        o->set("device", r.device);
    o->set("message", r.message);
    return o;
}

void print_row(const core::log_row& r, bool color) {
    const char* tint = "";
    if (color) {
        if (r.level >= CB_LOG_ERROR)
            tint = "\033[31m";
        else if (r.level == CB_LOG_WARN)
            tint = "\033[33m";
    }
    std::cout << format_local_time(r.time_ns) << " " << tint << std::left;
    std::string lvl = core::log::level_name(r.level);
    lvl.resize(5, ' ');
    std::cout << lvl << (color && *tint ? "\033[0m" : "") << " [" << for_stdout(r.category) << "]";
    if (!r.device.empty()) std::cout << " [" << for_stdout(r.device) << "]";
    std::cout << " " << for_stdout(r.message) << "\n";
}

int write_record(app& a, const std::vector<std::string>& args) {
    po::options_description d("log write options");
    d.add_options()("level", po::value<std::string>()->default_value("INFO"), "level")(
        "category", po::value<std::string>()->default_value("GENERAL"), "category")(
        "message", po::value<std::vector<std::string>>(), "message words");
    po::positional_options_description p;
    p.add("message", -1);
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(d).positional(p).run(), vm);
    if (!vm.count("message")) throw usage_error("log write needs a MESSAGE");
    std::string message;
    for (const auto& w : vm["message"].as<std::vector<std::string>>()) message += (message.empty() ? "" : " ") + w;
    const cb_log_level level = level_arg(vm["level"].as<std::string>());
    const std::string category = category_arg(vm["category"].as<std::string>());
    auto& ctx = a.core(true);
    // A record no sink takes is lost: say so rather than succeed.
    if (ctx.active_sinks().empty())
        throw cli_error(exit_error, "no log sink is active, so the record would be lost (" +
                                        (ctx.sink_failures().empty() ? std::string("none configured")
                                                                     : ctx.sink_failures().front()) +
                                        "); 'cudabridge-cli config get log.sinks' shows the configured ones");
    const int cat = core::log::category_id(category);
    if (cat < 0) throw usage_error("too many log categories; cannot add '" + category + "'");
    // Make sure the record is not filtered out by the category level: the user asked for it.
    if (!ctx.log().enabled(cat, level)) ctx.log().set_level(cat, level);
    ctx.log().log(level, cat, message);
    ctx.log().flush();
    if (a.options().json) {
        auto o = make_object();
        o->set("written", true);
        o->set("level", std::string(core::log::level_name(level)));
        o->set("category", category);
        o->set("message", message);
        auto sinks = make_array();
        for (const auto& s : ctx.active_sinks()) sinks->add(s);
        o->set("sinks", sinks);
        print_json(o);
    }
    return exit_ok;
}

int run_log(app& a, const std::vector<std::string>& args) {
    if (!args.empty() && args[0] == "write") return write_record(a, {args.begin() + 1, args.end()});
    po::options_description d("log options");
    d.add_options()("lines,n", po::value<int>()->default_value(50), "show the newest N records")(
        "level", po::value<std::string>(), "at this level or above")(
        "category", po::value<std::string>(), "only this category")("since", po::value<std::string>(),
                                                                    "newer than T (10m, 2h, 2026-11-29 17:00, @EPOCH)")(
        "follow", "keep printing new records until Ctrl-C");
    const po::variables_map vm = parse_options(args, d);
    core::log_query q;
    const int n = vm["lines"].as<int>();
    if (n <= 0) throw usage_error("-n must be 1 or more");
    q.limit = static_cast<size_t>(n);
    if (vm.count("level")) q.min_level = level_arg(vm["level"].as<std::string>());
    if (vm.count("category")) {
        q.category = category_arg(vm["category"].as<std::string>());
        if (!core::log::find_category(q.category))
            std::cerr << "note: '" << q.category << "' is not a built-in category\n";
    }
    if (vm.count("since")) {
        auto t = parse_since(vm["since"].as<std::string>(), unix_now_ns());
        if (!t) throw usage_error("cannot read --since '" + vm["since"].as<std::string>() + "'");
        q.since_ns = *t;
    }
    const bool follow = vm.count("follow") > 0;
    auto& db = a.core(false).db();
    const bool json = a.options().json;
    const bool color = a.color();

    auto rows = core::query_logs(db, q);
    if (json && !follow) {
        auto arr = make_array();
        for (const auto& r : rows) arr->add(row_json(r));
        print_json(arr);
        return exit_ok;
    }
    for (const auto& r : rows) json ? print_json_line(row_json(r)) : print_row(r, color);
    if (!follow) return exit_ok;

    std::cout.flush();
    const interruption_scope ctrl_c;
    int64_t last_id = rows.empty() ? 0 : rows.back().id;
    if (rows.empty()) {
        // Start from the newest row so only records written from now on appear.
        core::log_query newest;
        newest.limit = 1;
        auto r = core::query_logs(db, newest);
        if (!r.empty()) last_id = r.back().id;
    }
    while (!interruption_requested()) {
        core::log_query next = q;
        next.after_id = last_id;
        next.limit = 1000;
        for (const auto& r : core::query_logs(db, next)) {
            json ? print_json_line(row_json(r)) : print_row(r, color);
            last_id = r.id;
        }
        std::cout.flush();
        for (int i = 0; i < 5 && !interruption_requested(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return exit_ok;  // Ctrl-C is the normal way to end --follow
}

}  // namespace

command log_command() {
    return {
        "log",
        "l",
        "show driver log records (or write one)",
        "log [-n N] [--level L] [--category C] [--since T] [--follow] | log write [--level L] [--category C] MESSAGE",
        "Reads the records the SQLite log sink stored, oldest first. --follow keeps printing new\n"
        "records as other processes write them until Ctrl-C. 'log write' sends one record through\n"
        "the configured sinks (console, file, sqlite by default). With --json: an array, or one\n"
        "object per line with --follow.\n"
        "Examples:\n"
        "  cudabridge-cli log -n 50 --level ERROR\n"
        "  cudabridge-cli log --category EGPU --since 10m --follow",
        false,
        run_log};
}

}  // namespace cudabridge::cli
