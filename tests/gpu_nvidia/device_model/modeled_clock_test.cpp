// The modeled device clock on a wall clock the test moves: idle it follows the wall clock, busy it
// is frozen but for the modeled durations it is advanced by, and it never goes backwards, even
// under concurrent readers.
#include "sim/device_model/modeled_clock.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace cudabridge::test {
namespace {

// A wall clock the test sets.
struct test_wall {
    std::atomic<uint64_t> ns{1'000'000};
    nv::wall_clock source() {
        return [this] { return ns.load(); };
    }
};

TEST(ModeledClock, IdleFollowsTheWallClockFromItsReadingAtStart) {
    test_wall wall;
    nv::modeled_clock clock(wall.source());
    EXPECT_EQ(clock.now(), 1'000'000u);
    wall.ns += 2'500;
    EXPECT_EQ(clock.now(), 1'002'500u);
    EXPECT_FALSE(clock.busy());
}

TEST(ModeledClock, BusyIgnoresWallTimeAndAdvancesByModeledDurations) {
    test_wall wall;
    nv::modeled_clock clock(wall.source());
    wall.ns += 100;
    clock.set_busy(true);
    EXPECT_TRUE(clock.busy());
    wall.ns += 5'000'000;  // the simulator took 5 ms of host time ...
    EXPECT_EQ(clock.now(), 1'000'100u);
    clock.advance(3'000);  // ... for work the real GPU does in 3 us
    EXPECT_EQ(clock.now(), 1'003'100u);
    wall.ns += 1'000;
    clock.advance(700);
    EXPECT_EQ(clock.now(), 1'003'800u);
    clock.set_busy(true);  // no-op while busy
    EXPECT_EQ(clock.now(), 1'003'800u);
    // Idle again: wall time counts from the moment the engines went idle.
    clock.set_busy(false);
    EXPECT_EQ(clock.now(), 1'003'800u);
    wall.ns += 40;
    EXPECT_EQ(clock.now(), 1'003'840u);
}

TEST(ModeledClock, AdvanceWhileIdleAddsToTheWallTime) {
    test_wall wall;
    nv::modeled_clock clock(wall.source());
    clock.advance(500);
    EXPECT_EQ(clock.now(), 1'000'500u);
    wall.ns += 10;
    EXPECT_EQ(clock.now(), 1'000'510u);
}

TEST(ModeledClock, AWallClockThatStepsBackDoesNotMoveItBack) {
    test_wall wall;
    nv::modeled_clock clock(wall.source());
    wall.ns += 1'000;
    EXPECT_EQ(clock.now(), 1'001'000u);
    wall.ns -= 600;
    EXPECT_EQ(clock.now(), 1'001'000u);
    clock.set_busy(true);
    clock.set_busy(false);
    wall.ns += 50;
    EXPECT_EQ(clock.now(), 1'001'050u);
}

TEST(ModeledClock, MonotonicUnderConcurrentReadersWhileTheEnginesToggle) {
    nv::modeled_clock clock;  // the host's CLOCK_MONOTONIC
    std::atomic<bool> done{false};
    std::atomic<int> regressions{0};
    std::vector<std::thread> readers;
    for (int r = 0; r < 3; ++r) {
        readers.emplace_back([&] {
            uint64_t last = 0;
            while (!done.load()) {
                const uint64_t now = clock.now();
                if (now < last) regressions.fetch_add(1);
                last = now;
            }
        });
    }
    uint64_t last = clock.now();
    for (int i = 0; i < 20'000; ++i) {
        clock.set_busy(i % 3 != 0);
        clock.advance(static_cast<uint64_t>(i % 7));
        const uint64_t now = clock.now();
        if (now < last) regressions.fetch_add(1);
        last = now;
    }
    done = true;
    for (auto& t : readers) t.join();
    EXPECT_EQ(regressions.load(), 0);
}

}  // namespace
}  // namespace cudabridge::test
