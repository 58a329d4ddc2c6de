// Connection sessions: one row per connection to a device, from the connect attempt to its end,
// so the CLI can show what was connected when and how each connection ended.
#include "store_internal.hpp"

#include <algorithm>
#include <array>

namespace cudabridge::core {

using store_detail::or_null;

namespace {
// A macro so string-literal concatenation keeps each statement one constant SQL text.
#define CB_SELECT_SESSION "SELECT id, device_id, started_ns, ended_ns, state, reason, data FROM sessions"

constexpr std::array<std::string_view, 5> session_states{"connected", "disconnected", "failed", "lost", "refused"};

session_row session_from(const statement& st) {
    session_row r;
    store_detail::read_columns(st, r.id, r.device_id, r.started_ns, r.ended_ns, r.state, r.reason, r.data_json);
    return r;
}

std::string where(const store& s, int64_t id) {
    return "store " + s.path().string() + ": session " + std::to_string(id);
}

void check_state(const store& s, int64_t id, std::string_view state, bool ending) {
    bool known = std::find(session_states.begin(), session_states.end(), state) != session_states.end();
    if (!known || (ending && state == "connected"))
        throw error(CB_ERR_INVALID_ARGUMENT,
                    where(s, id) + ": '" + std::string(state) + "' is not a " +
                        (ending ? "final state (disconnected, failed, lost, refused)"
                                : "session state (connected, disconnected, failed, lost, refused)"));
}

// Runs an UPDATE that only touches open sessions; when it changed nothing, tells an unknown id
// (an error) from an ended session (left as it is: its end is final).
void update_open(store& s, int64_t id, statement& update) {
    update.run();
    if (sqlite3_changes64(s.handle()) > 0) return;
    statement st = s.prepare("SELECT 1 FROM sessions WHERE id = ?1");
    st.bind(1, id);
    if (!st.step()) throw error(CB_ERR_NOT_FOUND, where(s, id) + " does not exist");
}
}  // namespace

int64_t begin_session(store& s, std::string_view device_id, std::string_view data_json) {
    if (device_id.empty())
        throw error(CB_ERR_INVALID_ARGUMENT, "store " + s.path().string() + ": a session needs a device id");
    int64_t id = 0;
    s.write([&] {
        statement st =
            s.prepare("INSERT INTO sessions(device_id, started_ns, state, data) VALUES(?1, ?2, 'connected', ?3)");
        store_detail::bind_values(st, device_id, store_detail::now_ns(), or_null{data_json}).run();
        id = s.last_insert_rowid();
    });
    return id;
}

void update_session(store& s, int64_t id, std::string_view state, std::string_view reason) {
    check_state(s, id, state, false);
    s.write([&] {
        statement st = s.prepare("UPDATE sessions SET state = ?2, reason = ?3 WHERE id = ?1 AND ended_ns IS NULL");
        store_detail::bind_values(st, id, state, or_null{reason});
        update_open(s, id, st);
    });
}

void end_session(store& s, int64_t id, std::string_view state, std::string_view reason) {
    check_state(s, id, state, true);
    s.write([&] {
        // MAX: a wall clock stepped back must not make a session end before it started.
        statement st = s.prepare(
            "UPDATE sessions SET ended_ns = MAX(started_ns, ?2), state = ?3, reason = ?4 "
            "WHERE id = ?1 AND ended_ns IS NULL");
        store_detail::bind_values(st, id, store_detail::now_ns(), state, or_null{reason});
        update_open(s, id, st);
    });
}

std::optional<session_row> find_session(store& s, int64_t id) {
    return store_detail::find_row(s, CB_SELECT_SESSION " WHERE id = ?1", id, session_from);
}

// Newest by id: ids follow commit order even when the wall clock steps back.
std::optional<session_row> open_session(store& s, std::string_view device_id) {
    return store_detail::find_row(
        s, CB_SELECT_SESSION " WHERE device_id = ?1 AND ended_ns IS NULL ORDER BY id DESC LIMIT 1", device_id,
        session_from);
}

std::vector<session_row> list_sessions(store& s, std::string_view device_id, size_t limit) {
    statement st = s.prepare(CB_SELECT_SESSION " WHERE ?1 = '' OR device_id = ?1 ORDER BY id DESC LIMIT ?2");
    st.bind(1, device_id).bind(2, store_detail::sql_limit(limit));
    return store_detail::all_rows(std::move(st), session_from);
}

#undef CB_SELECT_SESSION

}  // namespace cudabridge::core
