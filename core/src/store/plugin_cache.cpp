// Plugin cache: what the registry learned about a plugin file, keyed by its canonical path, so an
// unchanged file (same size, mtime and change time) is not opened and checked again.
#include "store_internal.hpp"

namespace cudabridge::core {

namespace {
// A macro so string-literal concatenation keeps each statement one constant SQL text.
#define CB_SELECT_PLUGIN_CACHE \
    "SELECT path, size, mtime_ns, state, reason, descriptors, checked_ns, ctime_ns, sha256 FROM plugin_cache"

plugin_cache_row plugin_cache_from(const statement& st) {
    plugin_cache_row r;
    store_detail::read_columns(st, r.path, r.size, r.mtime_ns, r.state, r.reason, r.descriptors_json, r.checked_ns,
                               r.ctime_ns, r.sha256);
    return r;
}
}  // namespace

std::optional<plugin_cache_row> find_plugin_cache(store& s, std::string_view path) {
    return store_detail::find_row(s, CB_SELECT_PLUGIN_CACHE " WHERE path = ?1", path, plugin_cache_from);
}

void put_plugin_cache(store& s, const plugin_cache_row& row) {
    statement st = s.prepare(
        "INSERT INTO plugin_cache(path, size, mtime_ns, state, reason, descriptors, checked_ns, ctime_ns, sha256) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT(path) DO UPDATE SET size = excluded.size, "
        "mtime_ns = excluded.mtime_ns, state = excluded.state, reason = excluded.reason, "
        "descriptors = excluded.descriptors, checked_ns = excluded.checked_ns, ctime_ns = excluded.ctime_ns, "
        "sha256 = excluded.sha256");
    // The descriptors column is NOT NULL DEFAULT '[]': an empty string means "no descriptors".
    const std::string_view descriptors = row.descriptors_json.empty() ? "[]" : std::string_view(row.descriptors_json);
    store_detail::bind_values(st, row.path, row.size, row.mtime_ns, row.state, row.reason, descriptors,
                              row.checked_ns != 0 ? row.checked_ns : store_detail::now_ns(), row.ctime_ns, row.sha256);
    st.run();
}

std::vector<plugin_cache_row> list_plugin_cache(store& s) {
    return store_detail::all_rows(s.prepare(CB_SELECT_PLUGIN_CACHE " ORDER BY path"), plugin_cache_from);
}

void erase_plugin_cache(store& s, std::string_view path) {
    s.prepare("DELETE FROM plugin_cache WHERE path = ?1").bind(1, path).run();
}

#undef CB_SELECT_PLUGIN_CACHE

}  // namespace cudabridge::core
