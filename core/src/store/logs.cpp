// Reading the logs table (the SQLite log sink writes it) for `cudabridge-cli log`.
#include "store_internal.hpp"

#include <algorithm>

namespace cudabridge::core {

// The newest `limit` matching rows, returned oldest first so they print in order; after_id lets
// --follow ask only for rows it has not shown yet. A category also matches its dotted children
// ("plugin" matches "plugin.file").
std::vector<log_row> query_logs(store& s, const log_query& q) {
    statement st = s.prepare(
        "SELECT id, time_ns, level, category, thread_id, device, message FROM logs "
        "WHERE level >= ?1 AND time_ns >= ?2 AND id > ?3 AND (?4 = '' OR category = ?4 "
        "OR substr(category, 1, length(?4) + 1) = ?4 || '.') "
        "ORDER BY id DESC LIMIT ?5");
    store_detail::bind_values(st, q.min_level, q.since_ns, q.after_id, q.category, store_detail::sql_limit(q.limit));
    auto rows = store_detail::all_rows(std::move(st), [](statement& row) {
        log_row r;
        store_detail::read_columns(row, r.id, r.time_ns, r.level, r.category, r.thread_id, r.device, r.message);
        return r;
    });
    std::reverse(rows.begin(), rows.end());
    return rows;
}

}  // namespace cudabridge::core
