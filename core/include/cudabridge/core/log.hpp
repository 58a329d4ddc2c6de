// The log front end: callers format a message and enqueue it; one background thread hands
// records to the log-sink plugins and user callbacks. Logging never throws into its caller.
//
// Threading: every member is thread safe. enabled() and log() take no lock on the fast path
// beyond the bounded queue's own.
#pragma once

#include <cudabridge/abi.h>
#include <cudabridge/logsink.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::core::log {

// What happens when the queue is full.
enum class overflow_policy { block, drop_newest, drop_oldest };
std::optional<overflow_policy> parse_overflow_policy(std::string_view text);
const char* to_string(overflow_policy p) noexcept;

// Levels by name ("TRACE".."FATAL", "OFF"), case-insensitive.
std::optional<cb_log_level> parse_level(std::string_view text);
const char* level_name(cb_log_level level) noexcept;

// Categories: the C API's nine (CB_LOG_CAT_*) come first with fixed ids;
// more may be registered at run time up to max_categories.
constexpr int max_categories = 64;
int category_id(std::string_view name);  // registers on first use; -1 when full
std::optional<int> find_category(std::string_view name);
std::string category_name(int id);  // "" when id is not registered
std::vector<std::string> category_names();
// The name as a C string that stays valid for the life of the process; nullptr when id is not
// registered. Lock-free (used on the logging thread for every record).
const char* category_c_name(int id) noexcept;

// A record as callbacks see it (owning copy).
struct record {
    cb_log_level level = CB_LOG_INFO;
    int64_t time_ns = 0;  // wall clock
    uint64_t thread_id = 0;
    int category = 0;
    std::string device;
    std::string message;
};

struct options {
    size_t queue_capacity = 65536;  // records
    overflow_policy overflow = overflow_policy::block;
    cb_log_level default_level = CB_LOG_INFO;
    size_t max_batch = 1024;  // records handed to a sink's write_batch at once
    // The error handler is called at most once per interval; messages in between are counted
    // and the count is appended to the next one that goes through.
    std::chrono::milliseconds error_interval{1000};
};

struct statistics {
    uint64_t enqueued = 0;     // accepted into the queue (an evicted record was counted here first)
    uint64_t dropped = 0;      // by the overflow policy: refused (drop_newest, block at shutdown)
                               // or evicted (drop_oldest)
    uint64_t written = 0;      // records delivered (handed to every sink and callback)
    uint64_t sink_errors = 0;  // failed sink calls and throwing callbacks
};

class front_end {
public:
    explicit front_end(options opts = {});
    ~front_end();  // shutdown()
    front_end(const front_end&) = delete;
    front_end& operator=(const front_end&) = delete;

    // Sinks are not owned: the caller keeps table and instance alive until remove_sink/shutdown
    // returns. close() is not called by the front end; the owner closes and destroys (and must
    // detach a plugin's sink before unloading the plugin). Throws core::error when the table has
    // neither write nor write_batch, or the name is taken. write_batch is used when the table is
    // large enough to hold it (CB_HAS_FIELD), else write per record.
    void add_sink(std::string name, const cb_logsink_table* table, void* instance);
    // Waits until the sink is no longer in use (unless called from a sink or callback, i.e. the
    // logging thread itself). Unknown names are ignored.
    void remove_sink(std::string_view name);
    std::vector<std::string> sink_names() const;

    // Callbacks run on the logging thread, one record at a time; an exception goes to the error
    // handler. remove_callback waits like remove_sink.
    using callback = std::function<void(const record&)>;
    int add_callback(callback cb);  // returns an id (> 0); throws core::error on an empty cb
    void remove_callback(int id);

    // set_level/set_all_levels throw core::error for an id outside [0, max_categories) or a level
    // outside TRACE..OFF.
    void set_level(int category, cb_log_level level);
    cb_log_level level(int category) const;
    void set_all_levels(cb_log_level level);
    void set_overflow_policy(overflow_policy p);

    // Lock-free. An unregistered category id is treated as GENERAL; false after shutdown().
    bool enabled(int category, cb_log_level level) const noexcept;
    // Enqueue one message (already formatted). Never throws, never blocks unless the policy
    // is block and the queue is full. Applies the category's level too; an unregistered
    // category is logged as GENERAL; messages over 1 MiB (device names over 256 bytes) are cut.
    // From a sink or callback (the logging thread) a full queue drops instead of blocking.
    void log(cb_log_level level, int category, std::string_view message, std::string_view device = {}) noexcept;

    // Wait until everything enqueued before this call has been delivered and sinks flushed.
    // Returns at once after shutdown() and when called from a sink or callback.
    void flush();
    // Drain the queue, flush sinks, stop the thread. Later log() calls are dropped. Sinks and
    // callbacks are detached: once it returns the front end touches none of them again.
    void shutdown();
    // Start a fresh thread after shutdown() (no sinks, no callbacks; levels and policy kept).
    // Does nothing while running.
    void restart();
    bool running() const noexcept;

    statistics stats() const;

    // Where sink and callback failures go. The default prints to stderr at most once per second
    // with a count of suppressed messages.
    void set_error_handler(std::function<void(const std::string&)> handler);

private:
    struct impl;
    // Shared with the logging thread, which may outlive this object when a callback destroys it.
    std::shared_ptr<impl> impl_;
};

}  // namespace cudabridge::core::log
