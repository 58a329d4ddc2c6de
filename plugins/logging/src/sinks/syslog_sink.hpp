// syslog: records to syslog(3) through spdlog's syslog sink.
#pragma once

#include "spdlog_backed_sink.hpp"

namespace cudabridge::plugins::logging {

class syslog_sink final : public spdlog_backed_sink {
public:
    static constexpr sdk::plugin_identity identity{
        "syslog", CB_MAKE_VERSION(1, 0, 0), "MIT",
        "records to the system log (syslog(3)); ident and facility configurable"};

    syslog_sink(const sdk::host& h, const sdk::config& c);

    // "user", "daemon", "local0".."local7" -> LOG_USER...; -1 for anything else.
    static int facility_from_name(const std::string& facility);
};

}  // namespace cudabridge::plugins::logging
