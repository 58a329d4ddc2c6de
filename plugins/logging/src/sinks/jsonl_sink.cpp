#include "jsonl_sink.hpp"

#include "../support/filesystem.hpp"
#include "../support/record_fields.hpp"
#include "../support/sink_params.hpp"

#include <Poco/Dynamic/Var.h>
#include <Poco/Exception.h>
#include <Poco/JSON/Object.h>
#include <Poco/Types.h>

#include <cerrno>
#include <cstring>

namespace cudabridge::plugins::logging {

jsonl_sink::jsonl_sink(const sdk::host& h, const sdk::config& c) : logsink(h) {
    sink_params p(h, c, identity.name);
    const std::string log_dir = h.path(CB_PATH_LOG_DIR).value_or(CB_DEFAULT_LOG_DIR);
    p.declare_text("path", log_dir + (log_dir.empty() || log_dir.back() != '/' ? "/" : "") + "cudabridge.jsonl",
                   "file the JSON lines are appended to (its folder is created, 0700, when "
                   "missing); default: cudabridge.jsonl in the host's log folder");
    path_ = p.text("path");
    if (path_.empty() || path_.back() == '/') {
        throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "jsonl sink: path = '" + path_ + "' is not a file path");
    }
    ensure_directory(parent_of(path_), "jsonl sink");
    file_ = std::fopen(path_.c_str(), "ae");
    make_private(file_);
    if (file_ == nullptr) {
        const int err = errno;
        throw sdk::status_error(status_from_errno(err),
                                "jsonl sink: cannot open '" + path_ + "' for appending: " + std::strerror(err));
    }
}

jsonl_sink::~jsonl_sink() { release(); }

std::string jsonl_sink::to_json(const cb_log_record& r) {
    const int64_t time_ns = time_of(r);
    // Keys in the documented order; strings escaped by Poco (quotes, control characters; UTF-8
    // passes through unchanged).
    Poco::JSON::Object obj(Poco::JSON_PRESERVE_KEY_ORDER);
    obj.set("time", iso8601_utc(time_ns));
    obj.set("time_ns", static_cast<Poco::Int64>(time_ns));
    obj.set("level", std::string(level_name(r.level)));
    obj.set("category", std::string(category_of(r)));
    obj.set("thread", static_cast<Poco::UInt64>(r.thread_id));
    if (r.device != nullptr) {
        obj.set("device", std::string(r.device));
    } else {
        obj.set("device", Poco::Dynamic::Var());
    }
    obj.set("message", std::string(message_of(r)));
    std::ostringstream out;
    obj.stringify(out);
    return std::move(out).str();
}

cb_status jsonl_sink::write(const cb_log_record& record) { return write_batch(&record, 1); }

cb_status jsonl_sink::write_batch(const cb_log_record* records, size_t count) {
    std::lock_guard lock(mutex_);
    if (file_ == nullptr) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "jsonl sink is closed");
    buffer_.clear();
    try {
        for (size_t i = 0; i < count; ++i) {
            buffer_ += to_json(records[i]);
            buffer_ += '\n';
        }
    } catch (const Poco::Exception& e) {
        throw sdk::status_error(CB_ERR_INTERNAL, "jsonl sink: cannot encode a record: " + e.displayText());
    }
    if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
        const int err = errno;
        throw sdk::status_error(CB_ERR_INTERNAL, "jsonl sink: cannot write to '" + path_ + "': " + std::strerror(err));
    }
    return CB_OK;
}

cb_status jsonl_sink::flush() {
    std::lock_guard lock(mutex_);
    if (file_ == nullptr) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "jsonl sink is closed");
    if (std::fflush(file_) != 0) {
        const int err = errno;
        throw sdk::status_error(CB_ERR_INTERNAL, "jsonl sink: cannot flush '" + path_ + "': " + std::strerror(err));
    }
    return CB_OK;
}

void jsonl_sink::close() {
    std::lock_guard lock(mutex_);
    release();
}

void jsonl_sink::release() noexcept {
    if (file_ != nullptr) {
        std::fclose(file_);
        file_ = nullptr;
    }
}

}  // namespace cudabridge::plugins::logging
