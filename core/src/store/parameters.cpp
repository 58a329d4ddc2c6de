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
    p.name = st.column_text(0);
    p.owner = st.column_text(1);
    p.type = static_cast<int>(st.column_int(2));
    p.default_value = st.column_text(3);
    p.help = st.column_text(4);
    p.has_range = st.column_int(5) != 0;
    p.min_value = st.column_double(6);
    p.max_value = st.column_double(7);
    p.choices = st.column_text(8);
    p.flags = static_cast<uint32_t>(st.column_int(9));
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
    st.bind(1, p.name).bind(2, p.owner).bind(3, int64_t{p.type}).bind(4, p.default_value);
    st.bind(5, p.help).bind(6, int64_t{p.has_range ? 1 : 0});
    if (p.has_range)
        st.bind(7, p.min_value).bind(8, p.max_value);
    else
        st.bind_null(7).bind_null(8);
    st.bind(9, p.choices).bind(10, int64_t{p.flags});
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
