#include "spdlog_backed_sink.hpp"

#include "../support/line_formatter.hpp"

#include <spdlog/common.h>

namespace cudabridge::plugins::logging {

namespace {
// Runs a call into spdlog, turning its exceptions (I/O failures) into a status_error.
template <class Call>
void io(const std::string& what, Call&& call) {
    try {
        call();
    } catch (const spdlog::spdlog_ex& e) {
        throw sdk::status_error(CB_ERR_INTERNAL, what + ": " + e.what());
    }
}
}  // namespace

spdlog_backed_sink::~spdlog_backed_sink() {
    try {
        spdlog_backed_sink::close();
    } catch (...) {
        // A destructor reports nothing; close() already swallows what it can.
    }
}

spdlog::sinks::sink& spdlog_backed_sink::sink() {
    if (!sink_) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, what_ + " is closed");
    return *sink_;
}

cb_status spdlog_backed_sink::write(const cb_log_record& record) {
    auto& s = sink();
    if (record.level < min_level_) return CB_OK;
    io(what_, [&] { feed(s, record); });
    return CB_OK;
}

cb_status spdlog_backed_sink::write_batch(const cb_log_record* records, size_t count) {
    auto& s = sink();
    io(what_, [&] {
        for (size_t i = 0; i < count; ++i)
            if (records[i].level >= min_level_) feed(s, records[i]);
    });
    return CB_OK;
}

cb_status spdlog_backed_sink::flush() {
    auto& s = sink();
    io(what_, [&] { s.flush(); });
    return CB_OK;
}

void spdlog_backed_sink::close() {
    if (!sink_) return;
    try {
        sink_->flush();
    } catch (const spdlog::spdlog_ex&) {
        // Closing still releases the file or connection below.
    }
    sink_.reset();
}

}  // namespace cudabridge::plugins::logging
