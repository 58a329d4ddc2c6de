// Events: what happened to devices and sessions, for people and for the CLI's `events` view.
#include "store_internal.hpp"

namespace cudabridge::core {

using store_detail::or_null;

int64_t add_event(store& s, const event_row& e) {
    statement st = s.prepare(
        "INSERT INTO events(time_ns, device, category, severity, kind, message, data) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    store_detail::bind_values(st, e.time_ns != 0 ? e.time_ns : store_detail::now_ns(), or_null{e.device}, e.category,
                              e.severity, e.kind, e.message, or_null{e.data_json});
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
    store_detail::bind_values(st, q.since_ns, q.min_severity, q.device, q.category, q.kind,
                              store_detail::sql_limit(q.limit));
    return store_detail::all_rows(std::move(st), [](statement& row) {
        event_row e;
        store_detail::read_columns(row, e.id, e.time_ns, e.device, e.category, e.severity, e.kind, e.message,
                                   e.data_json);
        return e;
    });
}

}  // namespace cudabridge::core
