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
    st.bind(1, int64_t{q.min_level}).bind(2, q.since_ns).bind(3, q.after_id).bind(4, q.category);
    st.bind(5, store_detail::sql_limit(q.limit));
    auto rows = store_detail::all_rows(std::move(st), [](statement& row) {
        return log_row{.id = row.column_int(0),
                       .time_ns = row.column_int(1),
                       .level = static_cast<int>(row.column_int(2)),
                       .category = row.column_text(3),
                       .thread_id = row.column_int(4),
                       .device = row.column_text(5),
                       .message = row.column_text(6)};
    });
    std::reverse(rows.begin(), rows.end());
    return rows;
}

}  // namespace cudabridge::core
