// Declared parameters: the type, default, help and range a plugin or the core gives for a key.
#include "store_internal.hpp"

namespace cudabridge::core {

namespace {
// A macro so string-literal concatenation keeps each statement one constant SQL text.
#define CB_SELECT_PARAMETER                                                                           \
    "SELECT name, owner, type, default_value, help, has_range, min_value, max_value, choices, flags " \
    "FROM parameters"

parameter_row parameter_from(const statement& st) {
    parameter_row p;
    store_detail::read_columns(st, p.name, p.owner, p.type, p.default_value, p.help, p.has_range, p.min_value,
                               p.max_value, p.choices, p.flags);
    return p;
}
}  // namespace

// Declaring again replaces the row: a plugin upgrade may change the help or range.
void declare_parameter(store& s, const parameter_row& p) {
    statement st = s.prepare(
        "INSERT INTO parameters(name, owner, type, default_value, help, has_range, min_value, "
        "max_value, choices, flags) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
        "ON CONFLICT(name) DO UPDATE SET owner = excluded.owner, type = excluded.type, "
        "default_value = excluded.default_value, help = excluded.help, "
        "has_range = excluded.has_range, min_value = excluded.min_value, "
        "max_value = excluded.max_value, choices = excluded.choices, flags = excluded.flags");
    store_detail::bind_values(st, p.name, p.owner, p.type, p.default_value, p.help, p.has_range, p.min_value,
                              p.max_value, p.choices, p.flags);
    if (!p.has_range) st.bind_null(7).bind_null(8);  // no range: min_value and max_value are NULL
    st.run();
}

std::optional<parameter_row> find_parameter(store& s, std::string_view name) {
    return store_detail::find_row(s, CB_SELECT_PARAMETER " WHERE name = ?1", name, parameter_from);
}

std::vector<parameter_row> list_parameters(store& s) {
    return store_detail::all_rows(s.prepare(CB_SELECT_PARAMETER " ORDER BY name"), parameter_from);
}

#undef CB_SELECT_PARAMETER

}  // namespace cudabridge::core
