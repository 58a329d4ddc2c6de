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
    const std::string& what() const noexcept { return what_; }  // "file sink"

private:
    spdlog::sinks::sink& sink();

    std::string what_;
    std::shared_ptr<spdlog::sinks::sink> sink_;
};

}  // namespace cudabridge::plugins::logging
