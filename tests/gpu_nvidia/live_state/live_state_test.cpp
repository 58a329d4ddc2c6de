// The shared live state file: objects in one process and in forked processes see each other's
// changes; foreign or damaged files are refused with the path and reason; a process that dies
// holding the lock leaves a usable file; tick() turns busy time into activity.
#include "sim/live_state/live_state.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace cudabridge::nv;
namespace fs = std::filesystem;

namespace {

const gpu_profile& seeded(const char* key) {
    const gpu_profile* p = find_profile_by_key(key);
    if (!p) throw std::runtime_error(std::string("no seeded profile ") + key);
    return *p;
}

const gpu_profile& board() { return seeded("rtx-5090"); }

uint64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

class LiveState : public ::testing::Test {
protected:
    void SetUp() override {
        std::string tmpl = (fs::temp_directory_path() / "cb_live_state_XXXXXX").string();
        ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
        dir_ = tmpl;
        alarm(60);  // a lock that never comes back fails the test instead of hanging it
    }
    void TearDown() override {
        alarm(0);
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    fs::path file(const char* name = "gpu.live") const { return dir_ / name; }

    // Runs `child` in a forked process; returns its exit status (-1 if it did not exit normally).
    template <typename Fn>
    static int in_child(Fn child) {
        const pid_t pid = fork();
        if (pid == 0) {
            int code = 99;
            try {
                code = child();
            } catch (...) {
                code = 98;
            }
            _exit(code);
        }
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

    // Expects opening `path` to throw a message naming the path and containing `reason`.
    static void expect_refused(const fs::path& path, const gpu_profile& profile, const std::string& reason) {
        try {
            live_state s(path, profile);
            ADD_FAILURE() << "opened " << path;
        } catch (const std::runtime_error& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(path.string()), std::string::npos) << what;
            EXPECT_NE(what.find(reason), std::string::npos) << what;
        }
    }

    void overwrite(const fs::path& path, size_t offset, const std::string& bytes) const {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(offset));
        f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }

    fs::path dir_;
};

}  // namespace

TEST_F(LiveState, CreatesTheFileAndItsFoldersWithAnIdleBoard) {
    const fs::path path = dir_ / "a" / "b" / "gpu.live";
    live_state s(path, board());
    EXPECT_EQ(s.path(), path);
    EXPECT_TRUE(fs::is_regular_file(path));
    EXPECT_GT(fs::file_size(path), sizeof(thermal_state) + sizeof(live_counters));
    const live_snapshot snap = s.snapshot();
    const thermal_state idle = initial_thermal_state(board());
    EXPECT_DOUBLE_EQ(snap.thermal.temperature_c, idle.temperature_c);
    EXPECT_DOUBLE_EQ(snap.thermal.power_w, idle.power_w);
    EXPECT_DOUBLE_EQ(snap.thermal.settings.power_limit_w, board().power_default_w);
    EXPECT_EQ(snap.counters.memory_total, board().vram_bytes);
    EXPECT_EQ(snap.counters.attached_processes, 1u);
    EXPECT_EQ(snap.counters.busy_ns, 0u);
}

TEST_F(LiveState, TwoObjectsInOneProcessShare) {
    live_state a(file(), board());
    {
        live_state b(file(), board());
        EXPECT_EQ(a.snapshot().counters.attached_processes, 2u);
        a.update([](thermal_state& t, live_counters&) { t.settings.power_limit_w = 500; });
        EXPECT_DOUBLE_EQ(b.snapshot().thermal.settings.power_limit_w, 500);
        b.add_busy(1234);
        b.add_busy(1000);
        EXPECT_EQ(a.snapshot().counters.busy_ns, 2234u);
        a.add_memory_used(1 << 20);
        b.add_memory_used(3 << 20);
        b.add_memory_used(-(1 << 20));
        EXPECT_EQ(a.snapshot().counters.memory_used, uint64_t{3} << 20);
    }
    // b detached: its 2 MiB go back, a's 1 MiB stays.
    const live_snapshot snap = a.snapshot();
    EXPECT_EQ(snap.counters.attached_processes, 1u);
    EXPECT_EQ(snap.counters.memory_used, uint64_t{1} << 20);
    EXPECT_DOUBLE_EQ(snap.thermal.settings.power_limit_w, 500);  // settings hold
}

TEST_F(LiveState, AForkedProcessSeesAndIsSeen) {
    live_state parent(file(), board());
    parent.update([](thermal_state& t, live_counters&) { t.settings.fan_percent = 42; });
    int to_parent[2], to_child[2];
    ASSERT_EQ(pipe(to_parent), 0);
    ASSERT_EQ(pipe(to_child), 0);

    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        int code = 0;
        try {
            live_state child(file(), board());
            if (child.snapshot().thermal.settings.fan_percent != 42) code = 1;
            if (child.snapshot().counters.attached_processes != 2) code = 2;
            child.add_busy(777);
            child.add_memory_used(4096);
            child.update([](thermal_state& t, live_counters& c) {
                t.settings.locked_sm_clock_mhz = 1800;
                c.kernels_launched += 5;
            });
            char go = 'x';
            if (write(to_parent[1], &go, 1) != 1 || read(to_child[0], &go, 1) != 1) code = 3;
        } catch (...) {
            code = 4;
        }
        _exit(code);
    }
    char ready = 0;
    ASSERT_EQ(read(to_parent[0], &ready, 1), 1);
    live_snapshot snap = parent.snapshot();
    EXPECT_EQ(snap.counters.busy_ns, 777u);
    EXPECT_EQ(snap.counters.memory_used, 4096u);
    EXPECT_EQ(snap.counters.kernels_launched, 5u);
    EXPECT_EQ(snap.counters.attached_processes, 2u);
    EXPECT_EQ(snap.thermal.settings.locked_sm_clock_mhz, 1800u);
    ASSERT_EQ(write(to_child[1], &ready, 1), 1);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    for (int fd : {to_parent[0], to_parent[1], to_child[0], to_child[1]}) close(fd);

    snap = parent.snapshot();
    EXPECT_EQ(snap.counters.attached_processes, 1u);
    EXPECT_EQ(snap.counters.memory_used, 0u);  // the child's allocation went with it
    EXPECT_EQ(snap.counters.busy_ns, 777u);
    EXPECT_EQ(snap.thermal.settings.locked_sm_clock_mhz, 1800u);
}

// The process table: who is attached, with what memory and queued work, read without attaching.
TEST_F(LiveState, TheProcessTableListsEachAttachmentWithItsMemoryAndQueuedWork) {
    EXPECT_TRUE(live_state::processes(file()).empty());  // no file yet: nobody attached
    live_state s(file(), board());
    std::vector<live_process> table = live_state::processes(file());
    ASSERT_EQ(table.size(), 1u);
    EXPECT_EQ(table[0].pid, getpid());
    EXPECT_FALSE(table[0].name.empty());
    EXPECT_GT(table[0].start_unix_ns, uint64_t{1'600'000'000} * 1'000'000'000);
    EXPECT_FALSE(table[0].computes);  // attached, nothing allocated or queued yet

    ASSERT_TRUE(s.reserve_memory(64u << 20));
    s.set_queued(3);
    table = live_state::processes(file());
    ASSERT_EQ(table.size(), 1u);
    EXPECT_EQ(table[0].memory_bytes, uint64_t{64} << 20);
    EXPECT_EQ(table[0].queued, 3u);
    EXPECT_TRUE(table[0].computes);
    EXPECT_EQ(s.snapshot().counters.attached_processes, 1u);  // reading the table did not attach
}

// Device memory is one board's: reservations of all processes together never exceed it.
TEST_F(LiveState, ReservationsOfAllProcessesShareTheBoardsMemory) {
    live_state a(file(), board());
    const uint64_t total = board().vram_bytes;
    ASSERT_TRUE(a.reserve_memory(total - (1u << 20)));
    const int code = in_child([&] {
        live_state b(file(), board());
        if (b.reserve_memory(2u << 20)) return 1;  // only 1 MiB is left
        if (!b.reserve_memory(1u << 20)) return 2;
        if (b.snapshot().counters.memory_used != total) return 3;
        return 0;
    });
    EXPECT_EQ(code, 0);
    EXPECT_EQ(a.snapshot().counters.memory_used, total - (1u << 20));  // the child's went with it
    a.release_memory(UINT64_MAX);
    EXPECT_EQ(a.snapshot().counters.memory_used, 0u);
    a.release_memory(1);  // nothing left to give back: no underflow
    EXPECT_EQ(a.snapshot().counters.memory_used, 0u);
    EXPECT_FALSE(a.reserve_memory(total + 1));
}

// A process killed without detaching leaves the table on its next reading.
TEST_F(LiveState, AKilledProcessLeavesTheTable) {
    live_state a(file(), board());
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        live_state b(file(), board());
        b.reserve_memory(8u << 20);
        char go = 'x';
        if (write(ready[1], &go, 1) != 1) _exit(1);
        pause();
        _exit(0);
    }
    char go = 0;
    ASSERT_EQ(read(ready[0], &go, 1), 1);
    EXPECT_EQ(live_state::processes(file()).size(), 2u);
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    const std::vector<live_process> table = live_state::processes(file());
    ASSERT_EQ(table.size(), 1u);
    EXPECT_EQ(table[0].pid, getpid());
    close(ready[0]);
    close(ready[1]);
}

TEST_F(LiveState, HardResetsAreCountedForEveryProcess) {
    live_state a(file(), board());
    live_state b(file(), board());
    a.count_hard_reset();
    EXPECT_EQ(b.snapshot().counters.hard_resets, 1u);
}

TEST_F(LiveState, ConcurrentFirstOpenersAgree) {
    constexpr int kChildren = 6;
    pid_t pids[kChildren];
    for (pid_t& pid : pids) {
        pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            try {
                live_state s(file(), board());
                s.add_busy(1);
                s.update([](thermal_state&, live_counters& c) { c.commands_completed += 10; });
                _exit(0);
            } catch (...) {
                _exit(1);
            }
        }
    }
    for (pid_t pid : pids) {
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    live_state s(file(), board());
    const live_snapshot snap = s.snapshot();
    EXPECT_EQ(snap.counters.busy_ns, uint64_t{kChildren});
    EXPECT_EQ(snap.counters.commands_completed, uint64_t{10 * kChildren});
    EXPECT_EQ(snap.counters.attached_processes, 1u);  // the children exited without closing
}

TEST_F(LiveState, AHolderThatDiesLeavesAUsableFile) {
    live_state parent(file(), board());
    parent.add_memory_used(100);
    const int code = in_child([&] {
        live_state child(file(), board());
        child.add_memory_used(5000);
        child.update([](thermal_state& t, live_counters& c) {
            c.kernels_launched = 9;
            t.temperature_c = std::nan("");  // half-written when it died
            _exit(7);
        });
        return 0;
    });
    ASSERT_EQ(code, 7);
    // The lock comes back (EOWNERDEAD recovered), the damage is repaired, the dead slot dropped.
    parent.update([](thermal_state&, live_counters& c) { c.kernels_launched += 1; });
    const live_snapshot snap = parent.snapshot();
    EXPECT_EQ(snap.counters.kernels_launched, 10u);
    EXPECT_TRUE(std::isfinite(snap.thermal.temperature_c));
    EXPECT_EQ(snap.counters.attached_processes, 1u);
    EXPECT_EQ(snap.counters.memory_used, 100u);
    parent.tick();
    live_state again(file(), board());
    EXPECT_EQ(again.snapshot().counters.attached_processes, 2u);
}

TEST_F(LiveState, AFileOfTheWrongSizeIsRefused) {
    {
        std::ofstream f(file(), std::ios::binary);
        f << std::string(100, 'x');
    }
    expect_refused(file(), board(), "size 100 bytes");
}

TEST_F(LiveState, AFileWithTheWrongMagicIsRefused) {
    { live_state s(file(), board()); }
    overwrite(file(), 0, "NOTMINE!");
    expect_refused(file(), board(), "magic");
}

TEST_F(LiveState, AFileOfAnotherLayoutVersionIsRefused) {
    { live_state s(file(), board()); }
    overwrite(file(), 8, std::string("\x63\x00\x00\x00", 4));  // layout_version follows the magic
    expect_refused(file(), board(), "layout version 99");
}

TEST_F(LiveState, AFileOfAnotherModelIsRefused) {
    { live_state s(file(), board()); }
    expect_refused(file(), seeded("rtx-4090"), "another model (rtx-5090)");
}

TEST_F(LiveState, OutOfBoundsSettingsInTheFileAreNotTrusted) {
    {
        live_state s(file(), board());
        s.update([](thermal_state& t, live_counters&) { t.settings.power_limit_w = 1e6; });
    }
    live_state s(file(), board());
    EXPECT_DOUBLE_EQ(s.snapshot().thermal.settings.power_limit_w, board().power_default_w);
}

TEST_F(LiveState, AnUnfinishedFileIsInitialisedAgain) {
    uintmax_t size = 0;
    {
        live_state s(file(), board());
        size = fs::file_size(file());
    }
    overwrite(file(), 0, std::string(size, '\0'));  // as if its creator died before the header
    live_state s(file(), board());
    EXPECT_EQ(s.snapshot().counters.memory_total, board().vram_bytes);
}

TEST_F(LiveState, UnusablePathsAreRefusedWithTheReason) {
    {
        std::ofstream f(dir_ / "plain");
        f << "x";
    }
    expect_refused(dir_ / "plain" / "gpu.live", board(), "folder");
    fs::create_directories(dir_ / "folder.live");
    expect_refused(dir_ / "folder.live", board(), "");
}

TEST_F(LiveState, TickTurnsBusyTimeIntoActivity) {
    constexpr uint64_t kS = 1'000'000'000ull;
    if (now_ns() < 200 * kS) GTEST_SKIP() << "monotonic clock too young for a 100 s look-back";
    live_state s(file(), board());
    // 50 s busy in the last 100 s, 40 of them running kernels and 20 reading or writing device
    // memory: activity 0.5 (power), utilization.gpu 40 %, utilization.memory 20 %, held long
    // enough to settle (200 lags of 0.5 s).
    s.update([&](thermal_state&, live_counters& c) {
        c.last_update_ns = now_ns() - 100 * kS;
        c.busy_ns += 50 * kS;
        c.kernels.add(40 * kS);
        c.memory_traffic.add(20 * kS);
    });
    s.tick();
    live_snapshot snap = s.snapshot();
    EXPECT_NEAR(snap.thermal.activity, 0.5, 0.005);
    EXPECT_NEAR(snap.counters.gpu_utilization, 40.0, 0.5);
    EXPECT_NEAR(snap.counters.memory_utilization, 20.0, 0.5);
    EXPECT_EQ(snap.counters.busy_ns_at_last_update, 50 * kS);
    const double idle = 0.10 * board().power_default_w;  // documented model choice
    EXPECT_NEAR(snap.thermal.power_w, idle + 0.5 * (board().power_default_w - idle), 0.01 * board().power_default_w);
    EXPECT_EQ(snap.thermal.performance_state, 0);

    // More busy time than elapsed time: the excess is carried, at most 1 s of it.
    s.update([&](thermal_state&, live_counters& c) {
        c.last_update_ns = now_ns() - kS;
        c.busy_ns += 3 * kS;
    });
    s.tick();
    snap = s.snapshot();
    EXPECT_EQ(snap.counters.busy_ns - snap.counters.busy_ns_at_last_update, kS);

    // Memory in use is not memory utilization (NVML's: the time memory was read or written).
    s.add_memory_used(static_cast<int64_t>(board().vram_bytes / 4));
    s.update([&](thermal_state&, live_counters& c) { c.last_update_ns = now_ns() - 100 * kS; });
    s.tick();
    EXPECT_LT(s.snapshot().counters.memory_utilization, 1.0);
}

TEST(BusyShare, IsTheShareOfTimeSmoothedAndCarriesAtMostOneSecond) {
    constexpr uint64_t kS = 1'000'000'000ull;
    busy_share b;
    b.add(30 * kS);
    b.advance(60 * kS);  // half the time, long enough to settle
    EXPECT_NEAR(b.share, 0.5, 1e-6);
    b.advance(60 * kS);  // nothing since: idle
    EXPECT_NEAR(b.share, 0.0, 1e-6);
    b.add(5 * kS);  // a lump longer than the reading's interval: one second carried at most
    b.advance(kS / 2);
    EXPECT_EQ(b.busy_ns - b.counted_ns, kS);
    busy_share restarted;
    restarted.counted_ns = 10;  // a counter that began again is taken from where it is
    restarted.advance(kS);
    EXPECT_EQ(restarted.counted_ns, 0u);
}

TEST_F(LiveState, TickSurvivesClockJumps) {
    live_state s(file(), board());
    const thermal_state before = s.snapshot().thermal;
    // A last update "in the future" (a file from before a reboot): no advance, clock re-based.
    s.update([](thermal_state&, live_counters& c) { c.last_update_ns = now_ns() + 1'000'000'000'000ull; });
    s.tick();
    live_snapshot snap = s.snapshot();
    EXPECT_DOUBLE_EQ(snap.thermal.temperature_c, before.temperature_c);
    EXPECT_LE(snap.counters.last_update_ns, now_ns());
    // A last update at 0: the gap is capped, the idle board just settles.
    s.update([](thermal_state&, live_counters& c) { c.last_update_ns = 0; });
    s.tick();
    snap = s.snapshot();
    const gpu_profile& p = board();
    EXPECT_NEAR(snap.thermal.temperature_c, p.ambient_temp_c + 0.10 * p.power_default_w * p.thermal_resistance_c_per_w,
                1e-6);
    EXPECT_GT(snap.counters.last_update_ns, 0u);
}

TEST(LiveStatePath, SanitisesTheDeviceId) {
    EXPECT_EQ(live_state_path("/run/cb", "0000:03:00.0"), fs::path("/run/cb/gpu-0000_03_00.0.v3.live"));
    EXPECT_EQ(live_state_path("/run/cb", "sim-enclosure-1_gpu"), fs::path("/run/cb/gpu-sim-enclosure-1_gpu.v3.live"));
    const fs::path hostile = live_state_path("/run/cb", "../../etc/passwd x");
    EXPECT_EQ(hostile.parent_path(), fs::path("/run/cb"));
    EXPECT_EQ(hostile.filename(), fs::path("gpu-.._.._etc_passwd_x.v3.live"));
    EXPECT_EQ(live_state_path("/run/cb", "").parent_path(), fs::path("/run/cb"));
}
