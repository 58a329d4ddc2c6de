// Settings: one value per (scope, key), and a history row for every change made through here.
#include "store_internal.hpp"

namespace cudabridge::core {

using store_detail::now_ns;

namespace {
void add_history(store& s, std::string_view scope, std::string_view key, const std::optional<std::string>& old_value,
                 std::optional<std::string_view> new_value, std::string_view source) {
    statement st = s.prepare(
        "INSERT INTO settings_history(time_ns, scope, key, old_value, new_value, source) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
    st.bind(1, now_ns()).bind(2, scope).bind(3, key);
    if (old_value)
        st.bind(4, std::string_view(*old_value));
    else
        st.bind_null(4);
    if (new_value)
        st.bind(5, *new_value);
    else
        st.bind_null(5);
    st.bind(6, source).run();
}
}  // namespace

std::optional<std::string> get_setting(store& s, std::string_view scope, std::string_view key) {
    statement st = s.prepare("SELECT value FROM settings WHERE scope = ?1 AND key = ?2");
    st.bind(1, scope).bind(2, key);
    if (!st.step()) return std::nullopt;
    return st.column_text(0);
}

void set_setting(store& s, std::string_view scope, std::string_view key, std::string_view value,
                 std::string_view source) {
    // One transaction so the history's old value is the one this write replaced.
    s.write([&] {
        std::optional<std::string> old_value = get_setting(s, scope, key);
        statement st = s.prepare(
            "INSERT INTO settings(scope, key, value, updated_ns) VALUES(?1, ?2, ?3, ?4) "
            "ON CONFLICT(scope, key) DO UPDATE SET value = excluded.value, "
            "updated_ns = excluded.updated_ns");
        st.bind(1, scope).bind(2, key).bind(3, value).bind(4, now_ns()).run();
        add_history(s, scope, key, old_value, value, source);
    });
}

bool erase_setting(store& s, std::string_view scope, std::string_view key) {
    bool erased = false;
    s.write([&] {
        std::optional<std::string> old_value = get_setting(s, scope, key);
        if (!old_value) return;
        statement st = s.prepare("DELETE FROM settings WHERE scope = ?1 AND key = ?2");
        st.bind(1, scope).bind(2, key).run();
        add_history(s, scope, key, old_value, std::nullopt, "api");  // new_value NULL = erased
        erased = true;
    });
    return erased;
}

std::vector<setting_row> list_settings(store& s, std::string_view scope) {
    statement st = s.prepare(
        "SELECT scope, key, value, updated_ns FROM settings "
        "WHERE ?1 = '' OR scope = ?1 ORDER BY scope, key");
    st.bind(1, scope);
    return store_detail::all_rows(std::move(st), [](statement& row) {
        setting_row r;
        store_detail::read_columns(row, r.scope, r.key, r.value, r.updated_ns);
        return r;
    });
}

}  // namespace cudabridge::core
