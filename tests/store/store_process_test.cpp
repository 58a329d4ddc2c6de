// Several processes on one database, and writers killed with SIGKILL mid-stream.
// Children report through pipes and exit codes only; they never touch the parent's connections
// (SQLite connections must not cross fork()).
#include "store_test_util.hpp"

#include <cudabridge/core/error.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>

using namespace cudabridge::core;
using namespace cb_store_test;

namespace {

constexpr int64_t in_transaction_marker = -1;

struct pipe_fds {
    int read_end = -1, write_end = -1;
    pipe_fds() {
        int fds[2];
        if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
        read_end = fds[0];
        write_end = fds[1];
    }
    ~pipe_fds() {
        close_read();
        close_write();
    }
    void close_read() {
        if (read_end >= 0) ::close(std::exchange(read_end, -1));
    }
    void close_write() {
        if (write_end >= 0) ::close(std::exchange(write_end, -1));
    }
};

bool write_id(int fd, int64_t id) { return ::write(fd, &id, sizeof id) == sizeof id; }

// False at end of file (the child is gone and every copy of the write end is closed).
bool read_id(int fd, int64_t& id) {
    auto* p = reinterpret_cast<char*>(&id);
    size_t got = 0;
    while (got < sizeof id) {
        ssize_t n = ::read(fd, p + got, sizeof id - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        got += static_cast<size_t>(n);
    }
    return true;
}

// Runs body in a child process; the child's exit code is 0 when body returns, 1 when it throws.
template <typename F>
pid_t spawn(F&& body) {
    pid_t pid = ::fork();
    if (pid == 0) {
        int code = 0;
        try {
            body();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "child %d: %s\n", static_cast<int>(::getpid()), e.what());
            code = 1;
        } catch (...) {
            code = 1;
        }
        ::_exit(code);  // no atexit handlers, no gtest teardown in the child
    }
    return pid;
}

int exit_code(pid_t pid) {
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

event_row heartbeat(const char* kind) {
    event_row e;
    e.category = "test";
    e.kind = kind;
    e.message = "heartbeat";
    return e;
}

bool event_exists(store& s, int64_t id) {
    auto st = s.prepare("SELECT 1 FROM events WHERE id = ?1");
    st.bind(1, id);
    return st.step();
}

}  // namespace

TEST(StoreProcesses, ConcurrentWritersAllCommit) {
    temp_dir dir;
    constexpr int children = 4;
    constexpr int events_each = 300;
    pipe_fds start;  // children wait for EOF here so they start together
    std::vector<pid_t> pids;
    for (int c = 0; c < children; ++c) {
        pids.push_back(spawn([&] {
            start.close_write();
            char byte;
            while (::read(start.read_end, &byte, 1) > 0) {
            }
            // Every child opens (and may create and migrate) the fresh file at the same moment.
            store s(dir.db());
            for (int i = 0; i < events_each; ++i) {
                s.write([&] { add_event(s, heartbeat("concurrent")); });
            }
        }));
        ASSERT_GT(pids.back(), 0);
    }
    start.close_write();
    for (pid_t pid : pids) EXPECT_EQ(exit_code(pid), 0) << "see the child's message above";

    store s(dir.db());
    EXPECT_EQ(count_rows(s, "SELECT count(*) FROM events"), children * events_each);
    EXPECT_EQ(count_rows(s, "SELECT count(DISTINCT id) FROM events"), children * events_each);
    EXPECT_EQ(s.user_version(), store::schema_version);
    EXPECT_EQ(s.integrity_check(), "ok");
}

TEST(StoreProcesses, KilledWriterKeepsEveryAcknowledgedCommit) {
    temp_dir dir;
    { store create(dir.db()); }  // created before the trials so each starts writing at once
    std::set<int64_t> acknowledged;
    for (int trial = 0; trial < 5; ++trial) {
        pipe_fds ids;
        pid_t pid = spawn([&] {
            ids.close_read();
            store s(dir.db());
            for (;;) {
                int64_t id = 0;
                s.write([&] { id = add_event(s, heartbeat("crash")); });
                if (!write_id(ids.write_end, id)) return;  // reported only after COMMIT returned
            }
        });
        ASSERT_GT(pid, 0);
        ids.close_write();
        int64_t id = 0;
        size_t read_this_trial = 0;
        while (read_this_trial < 200 && read_id(ids.read_end, id)) {
            acknowledged.insert(id);
            ++read_this_trial;
        }
        ::kill(pid, SIGKILL);
        EXPECT_EQ(exit_code(pid), 128 + SIGKILL);
        while (read_id(ids.read_end, id)) acknowledged.insert(id);  // ids still in the pipe
        ASSERT_EQ(read_this_trial, 200u) << "the writer stopped early in trial " << trial;

        store s(dir.db(), {.busy_timeout_ms = 2000});
        ASSERT_EQ(s.integrity_check(), "ok") << "trial " << trial;
        size_t missing = 0;
        for (int64_t a : acknowledged) missing += event_exists(s, a) ? 0 : 1;
        EXPECT_EQ(missing, 0u) << "acknowledged commits lost in trial " << trial;
        EXPECT_GE(count_rows(s, "SELECT count(*) FROM events"), static_cast<int64_t>(acknowledged.size()));
    }
}

TEST(StoreProcesses, KilledWriterInsideTransactionLeavesNoRows) {
    temp_dir dir;
    { store create(dir.db()); }
    std::set<int64_t> committed;
    for (int trial = 0; trial < 3; ++trial) {
        pipe_fds ids;
        pid_t pid = spawn([&] {
            ids.close_read();
            store s(dir.db());
            // A small page cache makes SQLite spill uncommitted pages into the WAL before the
            // kill, so recovery really has uncommitted frames to ignore.
            s.exec("PRAGMA cache_size = 16");
            for (int i = 0; i < 20; ++i) {
                int64_t id = 0;
                s.write([&] { id = add_event(s, heartbeat("committed")); });
                write_id(ids.write_end, id);
            }
            s.write([&] {
                event_row big = heartbeat("uncommitted");
                big.message.assign(2000, 'x');
                for (int i = 0; i < 1000; ++i) add_event(s, big);
                write_id(ids.write_end, in_transaction_marker);
                for (;;) ::pause();  // killed here, transaction open
            });
        });
        ASSERT_GT(pid, 0);
        ids.close_write();
        int64_t id = 0;
        bool in_transaction = false;
        while (!in_transaction && read_id(ids.read_end, id)) {
            if (id == in_transaction_marker)
                in_transaction = true;
            else
                committed.insert(id);
        }
        ASSERT_TRUE(in_transaction) << "the child did not reach its open transaction";
        ::kill(pid, SIGKILL);
        EXPECT_EQ(exit_code(pid), 128 + SIGKILL);

        // The dead writer's lock is gone with it: a new writer gets in within the timeout.
        store s(dir.db(), {.busy_timeout_ms = 2000});
        ASSERT_EQ(s.integrity_check(), "ok") << "trial " << trial;
        EXPECT_EQ(count_rows(s, "SELECT count(*) FROM events WHERE kind = 'uncommitted'"), 0);
        EXPECT_EQ(count_rows(s, "SELECT count(*) FROM events WHERE kind = 'committed'"),
                  static_cast<int64_t>(committed.size()));
        for (int64_t c : committed) EXPECT_TRUE(event_exists(s, c)) << c;
        s.write([&] { add_event(s, heartbeat("after")); });
    }
}

namespace {

// Whether another process sees any fcntl lock held on `file` (fcntl locks are per process, so a
// forked child sees the parent's as conflicts). The child answers through its exit code.
bool another_process_sees_a_lock(const std::filesystem::path& file) {
    pid_t pid = spawn([&] {
        int fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC);
        if (fd < 0) ::_exit(2);
        struct flock probe {};
        probe.l_type = F_WRLCK;
        probe.l_whence = SEEK_SET;  // the whole file: SQLite locks bytes near 1 GiB
        if (::fcntl(fd, F_GETLK, &probe) != 0) ::_exit(2);
        ::_exit(probe.l_type == F_UNLCK ? 0 : 3);
    });
    return exit_code(pid) == 3;
}

}  // namespace

// Linux drops every fcntl lock a process holds on a file when the process closes any descriptor
// of that file. Opening a second store on the same file must not do that to the first: another
// process would then believe it is the last connection and reset the WAL under it ("database
// disk image is malformed" after two concurrent `cudabridge-cli status` loops).
TEST(StoreProcesses, OpeningASecondStoreKeepsTheFirstStoresLocks) {
    temp_dir dir;
    store first(dir.db());
    first.read([&] { count_rows(first, "SELECT count(*) FROM events"); });
    ASSERT_TRUE(another_process_sees_a_lock(dir.db())) << "an open WAL connection holds a read lock";
    store second(dir.db());
    EXPECT_TRUE(another_process_sees_a_lock(dir.db())) << "the second open dropped the first's locks";
    first.write([&] { add_event(first, heartbeat("after")); });
    EXPECT_EQ(first.integrity_check(), "ok");
}
