// Events: what happened to devices and sessions, for people and for the CLI's `events` view.
#include "store_internal.hpp"

namespace cudabridge::core {

using store_detail::bind_optional;

int64_t add_event(store& s, const event_row& e) {
    statement st = s.prepare(
        "INSERT INTO events(time_ns, device, category, severity, kind, message, data) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    st.bind(1, e.time_ns != 0 ? e.time_ns : store_detail::now_ns());
    bind_optional(st, 2, e.device);
    st.bind(3, e.category).bind(4, int64_t{e.severity}).bind(5, e.kind).bind(6, e.message);
    bind_optional(st, 7, e.data_json);
    st.run();
    return s.last_insert_rowid();
}

// Newest first, by id: ids follow commit order even when the wall clock steps back.
std::vector<event_row> query_events(store& s, const event_query& q) {
    statement st = s.prepare(
        "SELECT id, time_ns, device, category, severity, kind, message, data FROM events "
        "WHERE time_ns >= ?1 AND severity >= ?2 AND (?3 = '' OR device = ?3) "
        "AND (?4 = '' OR category = ?4) AND (?5 = '' OR kind = ?5 OR substr(kind, 1, length(?5) + 1) = ?5 || '.') "
        "ORDER BY id DESC LIMIT ?6");
    st.bind(1, q.since_ns).bind(2, int64_t{q.min_severity}).bind(3, q.device).bind(4, q.category);
    st.bind(5, q.kind).bind(6, store_detail::sql_limit(q.limit));
    return store_detail::all_rows(std::move(st), [](statement& row) {
        return event_row{.id = row.column_int(0),
                         .time_ns = row.column_int(1),
                         .device = row.column_text(2),
                         .category = row.column_text(3),
                         .severity = static_cast<int>(row.column_int(4)),
                         .kind = row.column_text(5),
                         .message = row.column_text(6),
                         .data_json = row.column_text(7)};
    });
}

}  // namespace cudabridge::core
