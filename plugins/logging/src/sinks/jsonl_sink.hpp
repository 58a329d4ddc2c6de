// jsonl: one JSON object per line, built with Poco::JSON:
// {"time":"2026-11-29T17:42:23.123456789Z","time_ns":...,"level":"INFO","category":"DRIVER",
//  "thread":1234,"device":null,"message":"..."}
#pragma once

#include <cudabridge/cpp/plugin.hpp>

#include <cstdio>
#include <mutex>
#include <sstream>
#include <string>

namespace cudabridge::plugins::logging {

class jsonl_sink final : public sdk::logsink {
public:
    static constexpr sdk::plugin_identity identity{"jsonl", CB_MAKE_VERSION(1, 0, 0), "MIT",
                                                   "records as JSON lines (one object per record) appended to a file"};

    jsonl_sink(const sdk::host& h, const sdk::config& c);
    ~jsonl_sink() override;

    cb_status write(const cb_log_record& record) override;
    cb_status write_batch(const cb_log_record* records, size_t count) override;
    cb_status flush() override;
    void close() override;

    // The line for one record, without the newline.
    static std::string to_json(const cb_log_record& record);

private:
    void release() noexcept;

    std::mutex mutex_;
    std::string path_;
    std::FILE* file_ = nullptr;
    std::string buffer_;
};

}  // namespace cudabridge::plugins::logging
