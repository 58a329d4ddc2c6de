// Benchmark results, modeled (simulator) or measured (hardware), kept apart by the `modeled` flag.
#include "store_internal.hpp"

namespace cudabridge::core {

int64_t add_benchmark(store& s, const benchmark_row& b) {
    statement st = s.prepare(
        "INSERT INTO benchmarks(time_ns, name, metric, value, unit, modeled, data) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    st.bind(1, b.time_ns != 0 ? b.time_ns : store_detail::now_ns());
    st.bind(2, b.name).bind(3, b.metric).bind(4, b.value).bind(5, b.unit);
    st.bind(6, int64_t{b.modeled ? 1 : 0});
    store_detail::bind_optional(st, 7, b.data_json);
    st.run();
    return s.last_insert_rowid();
}

// Newest first; an empty name means every benchmark.
std::vector<benchmark_row> query_benchmarks(store& s, std::string_view name, size_t limit) {
    statement st = s.prepare(
        "SELECT id, time_ns, name, metric, value, unit, modeled, data FROM benchmarks "
        "WHERE ?1 = '' OR name = ?1 ORDER BY id DESC LIMIT ?2");
    st.bind(1, name).bind(2, store_detail::sql_limit(limit));
    return store_detail::all_rows(std::move(st), [](statement& row) {
        return benchmark_row{.id = row.column_int(0),
                             .time_ns = row.column_int(1),
                             .name = row.column_text(2),
                             .metric = row.column_text(3),
                             .unit = row.column_text(5),
                             .value = row.column_double(4),
                             .modeled = row.column_int(6) != 0,
                             .data_json = row.column_text(7)};
    });
}

}  // namespace cudabridge::core
