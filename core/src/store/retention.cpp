// Retention: keep the newest N events and logs so the database does not grow without bound.
#include "store_internal.hpp"

#include <charconv>

namespace cudabridge::core {

namespace {
constexpr int64_t default_events_max_rows = 100000;
constexpr int64_t default_logs_max_rows = 200000;

// A positive integer from global settings; anything else (unset, junk, <= 0) means the default,
// so a typo never deletes everything.
int64_t max_rows_setting(store& s, std::string_view key, int64_t fallback) {
    std::optional<std::string> text = get_setting(s, "global", key);
    if (!text) return fallback;
    int64_t value = 0;
    const char* end = text->data() + text->size();
    auto [ptr, ec] = std::from_chars(text->data(), end, value);
    if (ec != std::errc() || ptr != end || value <= 0) return fallback;
    return value;
}

// Deletes every row older than the keep-th newest. Ids follow insertion order.
size_t trim(store& s, const char* sql, int64_t keep) {
    s.prepare(sql).bind(1, keep).run();
    return static_cast<size_t>(sqlite3_changes64(s.handle()));
}
}  // namespace

size_t apply_retention(store& s) {
    size_t deleted = 0;
    s.write([&] {
        const int64_t events_max = max_rows_setting(s, "store.events_max_rows", default_events_max_rows);
        const int64_t logs_max = max_rows_setting(s, "store.logs_max_rows", default_logs_max_rows);
        deleted += trim(s,
                        "DELETE FROM events WHERE id <= "
                        "(SELECT id FROM events ORDER BY id DESC LIMIT 1 OFFSET ?1)",
                        events_max);
        deleted += trim(s,
                        "DELETE FROM logs WHERE id <= "
                        "(SELECT id FROM logs ORDER BY id DESC LIMIT 1 OFFSET ?1)",
                        logs_max);
    });
    return deleted;
}

}  // namespace cudabridge::core
