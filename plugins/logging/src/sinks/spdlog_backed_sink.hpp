// Common part of the sinks that write through a spdlog sink (console, file, syslog): write,
// write_batch, flush and close, with spdlog's exceptions turned into status_errors.
#pragma once

#include <cudabridge/cpp/plugin.hpp>

#include <spdlog/sinks/sink.h>

#include <memory>
#include <string>

namespace cudabridge::plugins::logging {

class spdlog_backed_sink : public sdk::logsink {
public:
    cb_status write(const cb_log_record& record) override;
    cb_status write_batch(const cb_log_record* records, size_t count) override;
    cb_status flush() override;
    void close() override;

protected:
    spdlog_backed_sink(const sdk::host& h, std::string what) : logsink(h), what_(std::move(what)) {}
    ~spdlog_backed_sink() override;

    // Called once by the derived constructor.
    void attach(std::shared_ptr<spdlog::sinks::sink> sink) { sink_ = std::move(sink); }
    // Records below this level are dropped by this sink alone (the front end's levels apply to
    // every sink; this lets a terminal show warnings while the database keeps everything).
    void set_min_level(cb_log_level level) noexcept { min_level_ = level; }
    const std::string& what() const noexcept { return what_; }  // "file sink"

private:
    spdlog::sinks::sink& sink();

    std::string what_;
    std::shared_ptr<spdlog::sinks::sink> sink_;
    cb_log_level min_level_ = CB_LOG_TRACE;
};

}  // namespace cudabridge::plugins::logging
