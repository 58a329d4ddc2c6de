// Benchmark results, modeled (simulator) or measured (hardware), kept apart by the `modeled` flag.
#include "store_internal.hpp"

namespace cudabridge::core {

int64_t add_benchmark(store& s, const benchmark_row& b) {
    statement st = s.prepare(
        "INSERT INTO benchmarks(time_ns, name, metric, value, unit, modeled, data) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    store_detail::bind_values(st, b.time_ns != 0 ? b.time_ns : store_detail::now_ns(), b.name, b.metric, b.value,
                              b.unit, b.modeled, store_detail::or_null{b.data_json});
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
        benchmark_row b;
        store_detail::read_columns(row, b.id, b.time_ns, b.name, b.metric, b.value, b.unit, b.modeled, b.data_json);
        return b;
    });
}

}  // namespace cudabridge::core
