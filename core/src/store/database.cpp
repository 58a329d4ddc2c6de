// Opening the database (folders, pragmas), the statement cache, and transactions.
#include "store_internal.hpp"

#include <cudabridge/core/paths.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace cudabridge::core {

using store_detail::throw_sqlite;

namespace {

bool is_memory(const std::filesystem::path& path) { return path == ":memory:"; }

// Creates each missing parent folder with mode 0700: the database may hold device keys.
// Existing folders are left as they are.
void create_parent_folders(const std::filesystem::path& path) {
    std::filesystem::path parent = std::filesystem::absolute(path).parent_path();
    std::filesystem::path partial;
    for (const auto& part : parent) {
        partial /= part;
        if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST)
            throw error(
                errno == EACCES ? CB_ERR_PERMISSION : CB_ERR_INTERNAL,
                "store " + path.string() + ": cannot create folder " + partial.string() + ": " + std::strerror(errno));
    }
}

// Creates the file 0600 before SQLite does (it would use 0644); SQLite gives the -wal and -shm
// files the same mode as the database file. An existing file is never opened here: on Linux,
// closing any descriptor of a file drops every fcntl lock this process holds on it, including
// those of this process's other connections, and another process would then reset the WAL under
// them (SQLite's "How To Corrupt An SQLite Database File", section 2.2). A file that does not
// exist yet has no connection in this process to lose its locks.
void create_private_file(const std::filesystem::path& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return;
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) return;  // another process created it just now
    if (fd < 0)
        throw error(errno == EACCES ? CB_ERR_PERMISSION : CB_ERR_INTERNAL,
                    "store " + path.string() + ": cannot create: " + std::strerror(errno));
    ::close(fd);
}

sqlite3* open_connection(const std::filesystem::path& path, const store_options& options) {
    if (std::error_code ec; !is_memory(path) && std::filesystem::is_directory(path, ec))
        throw error(CB_ERR_INVALID_ARGUMENT, "store " + path.string() + ": is a folder; name a database file (e.g. " +
                                                 (path / "cudabridge.db").string() + ")");
    if (options.read_only && !is_memory(path) && !std::filesystem::exists(path))
        throw error(CB_ERR_NOT_FOUND, "store " + path.string() + ": no such database");
    if (!options.read_only && !is_memory(path)) create_parent_folders(path);
    // A privileged process reads its settings from here and writes its secrets: only from a folder
    // no one else could have made or can write.
    if (!is_memory(path) && running_privileged())
        if (auto why = unsafe_store_location(path))
            throw error(CB_ERR_PERMISSION, "store " + path.string() +
                                               ": a privileged process uses a store only in a folder it owns that no "
                                               "one else can write: " +
                                               *why);
    if (!options.read_only && !is_memory(path)) create_private_file(path);
    // NOMUTEX: the store's own lock gives one thread at a time the connection (statement_cache::use).
    int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE |
                (options.read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
        sqlite3_close_v2(db);
        throw error(store_detail::status_from_sqlite(rc), "store " + path.string() + ": cannot open: " + msg);
    }
    sqlite3_extended_result_codes(db, 1);
    return db;
}

// WAL lets readers and the one writer run at once across processes. Switching needs a moment
// alone with the file; when other processes are opening it too, SQLite may answer busy without
// calling the busy handler, so retry for up to the busy timeout.
void set_wal_mode(store& s, int busy_timeout_ms) {
    auto mode_after = [&s](const char* sql) {
        statement st = s.prepare(sql);
        return st.step() ? st.column_text(0) : std::string();
    };
    if (mode_after("PRAGMA journal_mode") == "wal") return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
    for (;;) {
        try {
            std::string mode = mode_after("PRAGMA journal_mode=WAL");
            if (mode == "wal" || (is_memory(s.path()) && mode == "memory")) return;
            throw error(CB_ERR_UNSUPPORTED, "store " + s.path().string() + ": cannot use WAL (journal_mode is " + mode +
                                                "); network file systems are not supported");
        } catch (const error& e) {
            if (e.status() != CB_ERR_BUSY || std::chrono::steady_clock::now() >= deadline) throw;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

void configure(store& s, const store_options& options) {
    // The C call is PRAGMA busy_timeout without formatting a number into SQL.
    sqlite3_busy_timeout(s.handle(), options.busy_timeout_ms);
    if (!options.read_only) set_wal_mode(s, options.busy_timeout_ms);
    s.exec(options.synchronous_full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
    s.exec("PRAGMA foreign_keys=ON");
}

}  // namespace

store::store(const std::filesystem::path& path, store_options options)
    : path_(path), cache_(std::make_unique<statement_cache>()) {
    cache_->options = options;
    db_ = open_connection(path_, options);
    try {
        configure(*this, options);
        migrate();
    } catch (...) {
        cache_.reset();  // finalize statements before closing
        sqlite3_close_v2(db_);
        db_ = nullptr;
        throw;
    }
}

store::~store() {
    cache_.reset();
    // The last connection to close checkpoints the WAL and removes it.
    sqlite3_close_v2(db_);
}

statement store::prepare(std::string_view sql) {
    std::unique_lock use(cache_->use);
    if (auto it = cache_->statements.find(sql); it != cache_->statements.end()) {
        // One sqlite3_stmt per SQL text: handing it out twice while the first user is still
        // stepping it would silently restart that user's query.
        if (sqlite3_stmt_busy(it->second))
            throw error(CB_ERR_INTERNAL,
                        "store " + path_.string() + ": statement already in use: \"" + std::string(sql) + "\"");
        return statement(db_, it->second, std::move(use));
    }
    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt, &tail);
    if (rc != SQLITE_OK) throw_sqlite(path_, db_, rc, "prepare \"" + std::string(sql) + "\"");
    std::string_view rest(tail, static_cast<size_t>(sql.data() + sql.size() - tail));
    if (stmt == nullptr || rest.find_first_not_of(" \t\r\n;") != std::string_view::npos) {
        sqlite3_finalize(stmt);
        throw error(CB_ERR_INTERNAL, "store " + path_.string() + ": prepare needs exactly one SQL statement: \"" +
                                         std::string(sql) + "\"");
    }
    cache_->statements.emplace(std::string(sql), stmt);
    return statement(db_, stmt, std::move(use));
}

void store::exec(std::string_view sql) {
    std::lock_guard use(cache_->use);
    char* message = nullptr;
    std::string text(sql);  // sqlite3_exec needs a terminated string
    int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
    sqlite3_free(message);  // the same text is in sqlite3_errmsg, which throw_sqlite uses
    if (rc != SQLITE_OK) throw_sqlite(path_, db_, rc, "exec \"" + text + "\"");
}

namespace {
// Counts a body as running inside the current transaction, also when it throws.
struct depth_guard {
    int& depth;
    explicit depth_guard(int& d) : depth(d) { ++depth; }
    ~depth_guard() { --depth; }
    depth_guard(const depth_guard&) = delete;
    depth_guard& operator=(const depth_guard&) = delete;
};

void rollback_quietly(sqlite3* db) noexcept {
    // After some errors SQLite has already rolled back; a second ROLLBACK would only fail.
    if (sqlite3_get_autocommit(db) == 0) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
}

void run_transaction(store& s, int& depth, const std::function<void()>& body, const char* begin) {
    s.prepare(begin).run();
    try {
        depth_guard guard(depth);
        body();
        s.prepare("COMMIT").run();
    } catch (...) {
        rollback_quietly(s.handle());
        throw;
    }
}
}  // namespace

// A nested write() is not a savepoint: its body simply joins the outer transaction, and the
// outer commit or rollback decides for both. An exception from the inner body reaches the
// outer one; if the outer body catches it, the inner body's partial writes stay.
void store::write(const std::function<void()>& body) {
    std::lock_guard use(cache_->use);
    if (cache_->depth > 0) {
        // Upgrading a deferred read to a write can fail with SQLITE_BUSY_SNAPSHOT, unretryable.
        if (!cache_->writing) throw error(CB_ERR_INTERNAL, "store " + path_.string() + ": write() inside read()");
        depth_guard guard(cache_->depth);
        body();
        return;
    }
    cache_->writing = true;
    run_transaction(*this, cache_->depth, body, "BEGIN IMMEDIATE");
}

// A read nested in a read or write joins that transaction (same snapshot).
void store::read(const std::function<void()>& body) {
    std::lock_guard use(cache_->use);
    if (cache_->depth > 0) {
        depth_guard guard(cache_->depth);
        body();
        return;
    }
    cache_->writing = false;
    run_transaction(*this, cache_->depth, body, "BEGIN DEFERRED");
}

int store::user_version() {
    statement st = prepare("PRAGMA user_version");
    return st.step() ? static_cast<int>(st.column_int(0)) : 0;
}

std::string store::integrity_check() {
    std::string result;
    statement st = prepare("PRAGMA integrity_check");
    while (st.step()) {
        if (!result.empty()) result += '\n';
        result += st.column_text(0);
    }
    return result;
}

int64_t store::last_insert_rowid() const {
    std::lock_guard use(cache_->use);
    return sqlite3_last_insert_rowid(db_);
}

}  // namespace cudabridge::core
