#include "syslog_sink.hpp"

#include "../support/line_formatter.hpp"
#include "../support/sink_params.hpp"

#include <spdlog/sinks/syslog_sink.h>

#include <memory>

#include <syslog.h>

namespace cudabridge::plugins::logging {

int syslog_sink::facility_from_name(const std::string& facility) {
    struct entry {
        const char* name;
        int value;
    };
    static constexpr entry table[] = {{"user", LOG_USER},     {"daemon", LOG_DAEMON}, {"local0", LOG_LOCAL0},
                                      {"local1", LOG_LOCAL1}, {"local2", LOG_LOCAL2}, {"local3", LOG_LOCAL3},
                                      {"local4", LOG_LOCAL4}, {"local5", LOG_LOCAL5}, {"local6", LOG_LOCAL6},
                                      {"local7", LOG_LOCAL7}};
    for (const entry& e : table) {
        if (facility == e.name) return e.value;
    }
    return -1;
}

syslog_sink::syslog_sink(const sdk::host& h, const sdk::config& c) : spdlog_backed_sink(h, "syslog sink") {
    sink_params p(h, c, identity.name);
    p.declare_text("ident", "cudabridge", "program name syslog shows for each record (openlog ident; one per process)");
    p.declare_choice(
        "facility", "user", "syslog facility: user, daemon or local0..local7",
        {"user", "daemon", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"});
    const std::string ident = p.text("ident");
    const std::string facility_name = p.choice("facility");
    const int facility = facility_from_name(facility_name);

    // Priorities (spdlog's table): TRACE and DEBUG -> LOG_DEBUG, INFO -> LOG_INFO,
    // WARN -> LOG_WARNING, ERROR -> LOG_ERR, FATAL -> LOG_CRIT. syslog stamps its own time.
    auto sink = std::make_shared<spdlog::sinks::syslog_sink_mt>(ident, LOG_PID, facility, true);
    sink->set_formatter(std::make_unique<line_formatter>(line_formatter::options{false, false}));
    attach(std::move(sink));
}

}  // namespace cudabridge::plugins::logging
