// A cached prepared statement handed out by store::prepare. It never owns the sqlite3_stmt (the
// store's cache does); it only resets it so the next user finds it clean.
#include "store_internal.hpp"

#include <utility>

namespace cudabridge::core {

using store_detail::throw_sqlite;

namespace {
std::string sql_of(sqlite3_stmt* stmt) {
    const char* sql = stmt ? sqlite3_sql(stmt) : nullptr;
    return sql ? sql : "";
}

[[noreturn]] void throw_statement(sqlite3* db, sqlite3_stmt* stmt, int rc, const char* what) {
    throw_sqlite(db, rc, std::string(what) + " \"" + sql_of(stmt) + "\"");
}
}  // namespace

statement::statement(statement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)), use_(std::move(other.use_)) {}

statement::~statement() {
    if (stmt_ == nullptr) return;
    // reset returns the last step's error again; it was already reported by step().
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

statement& statement::bind(int index, int64_t value) {
    if (int rc = sqlite3_bind_int64(stmt_, index, value); rc != SQLITE_OK) throw_statement(db_, stmt_, rc, "bind");
    return *this;
}

statement& statement::bind(int index, double value) {
    if (int rc = sqlite3_bind_double(stmt_, index, value); rc != SQLITE_OK) throw_statement(db_, stmt_, rc, "bind");
    return *this;
}

statement& statement::bind(int index, std::string_view value) {
    // An empty string_view may have a null data(); SQLite would bind that as NULL, not ''.
    const char* data = value.data() ? value.data() : "";
    if (int rc = sqlite3_bind_text64(stmt_, index, data, value.size(), SQLITE_TRANSIENT, SQLITE_UTF8); rc != SQLITE_OK)
        throw_statement(db_, stmt_, rc, "bind");
    return *this;
}

statement& statement::bind(int index, const char* value) {
    return value ? bind(index, std::string_view(value)) : bind_null(index);
}

statement& statement::bind_null(int index) {
    if (int rc = sqlite3_bind_null(stmt_, index); rc != SQLITE_OK) throw_statement(db_, stmt_, rc, "bind");
    return *this;
}

statement& statement::bind_blob(int index, const void* data, size_t size) {
    // A zero-length blob with a null pointer would be NULL; zeroblob(0) keeps it an empty blob.
    int rc =
        data ? sqlite3_bind_blob64(stmt_, index, data, size, SQLITE_TRANSIENT) : sqlite3_bind_zeroblob(stmt_, index, 0);
    if (rc != SQLITE_OK) throw_statement(db_, stmt_, rc, "bind");
    return *this;
}

bool statement::step() {
    if (stmt_ == nullptr) throw error(CB_ERR_INTERNAL, "store: step on a moved-from statement");
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw_statement(db_, stmt_, rc, "step");
}

void statement::run() {
    while (step()) {
    }
}

int64_t statement::column_int(int index) const { return sqlite3_column_int64(stmt_, index); }

double statement::column_double(int index) const { return sqlite3_column_double(stmt_, index); }

std::string statement::column_text(int index) const {
    const auto* text = sqlite3_column_text(stmt_, index);
    if (text == nullptr) return {};
    // bytes after text(): the text call may convert the value and change its length.
    return std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(stmt_, index)));
}

std::vector<uint8_t> statement::column_blob(int index) const {
    const auto* data = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, index));
    if (data == nullptr) return {};
    return std::vector<uint8_t>(data, data + sqlite3_column_bytes(stmt_, index));
}

bool statement::column_is_null(int index) const { return sqlite3_column_type(stmt_, index) == SQLITE_NULL; }

}  // namespace cudabridge::core
