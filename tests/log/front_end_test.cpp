// The asynchronous log front end: filters, delivery, flush, overflow policies, failures.
#include <cudabridge/core/log.hpp>

#include <cb_log.h>

#include "test_sink.hpp"

#include <gtest/gtest.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace lg = cudabridge::core::log;
using cbtest::test_sink;
using namespace std::chrono_literals;

namespace {

lg::options small_queue(size_t capacity, lg::overflow_policy p) {
    lg::options o;
    o.queue_capacity = capacity;
    o.overflow = p;
    return o;
}

std::vector<std::string> numbered(int from, int to) {  // "m<from>" .. "m<to>" inclusive
    std::vector<std::string> v;
    for (int i = from; i <= to; ++i) v.push_back("m" + std::to_string(i));
    return v;
}

// Waits (bounded) for a condition that becomes true on another thread.
template <class F>
bool eventually(F f, std::chrono::milliseconds timeout = 10s) {
    auto end = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < end) {
        if (f()) return true;
        std::this_thread::sleep_for(1ms);
    }
    return f();
}

}  // namespace

TEST(LogFrontEnd, LevelFilterPerCategory) {
    lg::front_end fe;
    test_sink sink;
    fe.add_sink("t", sink.table(), sink.instance());

    EXPECT_TRUE(fe.enabled(CB_LOG_CAT_DRIVER, CB_LOG_INFO));
    EXPECT_FALSE(fe.enabled(1, CB_LOG_DEBUG));
    EXPECT_FALSE(fe.enabled(2, CB_LOG_DEBUG));

    fe.set_level(2, CB_LOG_DEBUG);  // EGPU
    EXPECT_TRUE(fe.enabled(2, CB_LOG_DEBUG));
    EXPECT_FALSE(fe.enabled(2, CB_LOG_TRACE));
    EXPECT_FALSE(fe.enabled(1, CB_LOG_DEBUG));  // DRIVER unchanged
    EXPECT_EQ(fe.level(2), CB_LOG_DEBUG);
    EXPECT_EQ(fe.level(1), CB_LOG_INFO);

    fe.set_level(3, CB_LOG_OFF);  // MEMORY silenced
    EXPECT_FALSE(fe.enabled(3, CB_LOG_FATAL));
    EXPECT_FALSE(fe.enabled(0, CB_LOG_OFF));  // OFF is not a level one logs at

    // log() applies the same filter even when the caller did not ask enabled() first.
    fe.log(CB_LOG_DEBUG, 1, "driver debug: filtered");
    fe.log(CB_LOG_DEBUG, 2, "egpu debug: kept");
    fe.log(CB_LOG_ERROR, 3, "memory error: filtered (OFF)");
    fe.log(CB_LOG_INFO, 1, "driver info: kept");
    fe.log(CB_LOG_OFF, 1, "level OFF: invalid, dropped");
    fe.log(static_cast<cb_log_level>(42), 1, "bad level: dropped");
    fe.flush();
    EXPECT_EQ(sink.messages(), (std::vector<std::string>{"egpu debug: kept", "driver info: kept"}));

    fe.set_all_levels(CB_LOG_WARN);
    EXPECT_FALSE(fe.enabled(2, CB_LOG_INFO));
    EXPECT_TRUE(fe.enabled(3, CB_LOG_WARN));
    EXPECT_TRUE(fe.enabled(lg::max_categories - 1, CB_LOG_WARN));

    EXPECT_THROW(fe.set_level(-1, CB_LOG_INFO), std::exception);
    EXPECT_THROW(fe.set_level(lg::max_categories, CB_LOG_INFO), std::exception);
    EXPECT_THROW(fe.set_level(0, 7), std::exception);
    // Out-of-range ids are checked against GENERAL, never index out of bounds.
    EXPECT_TRUE(fe.enabled(9999, CB_LOG_ERROR));
    EXPECT_FALSE(fe.enabled(-5, CB_LOG_DEBUG));
}

TEST(LogFrontEnd, DefaultLevelOption) {
    lg::options o;
    o.default_level = CB_LOG_TRACE;
    lg::front_end fe(o);
    EXPECT_TRUE(fe.enabled(5, CB_LOG_TRACE));
}

TEST(LogFrontEnd, RecordFieldsReachTheSink) {
    lg::front_end fe;
    test_sink sink;
    fe.add_sink("t", sink.table(), sink.instance());
    const auto before = std::chrono::system_clock::now().time_since_epoch();
    fe.log(CB_LOG_WARN, 4, "link trained at Gen4 x4", "egpu0");
    fe.log(CB_LOG_INFO, 1, "no device");
    fe.log(CB_LOG_INFO, 57, "unregistered id goes to GENERAL");
    fe.flush();
    const auto after = std::chrono::system_clock::now().time_since_epoch();

    auto rs = sink.records();
    ASSERT_EQ(rs.size(), 3u);
    EXPECT_EQ(rs[0].level, CB_LOG_WARN);
    EXPECT_EQ(rs[0].category, "PCIE");
    EXPECT_EQ(rs[0].message, "link trained at Gen4 x4");
    EXPECT_TRUE(rs[0].nul_terminated);
    EXPECT_TRUE(rs[0].has_device);
    EXPECT_EQ(rs[0].device, "egpu0");
    EXPECT_EQ(rs[0].thread_id, static_cast<uint64_t>(::syscall(SYS_gettid)));
    EXPECT_GE(rs[0].time_ns, std::chrono::duration_cast<std::chrono::nanoseconds>(before).count());
    EXPECT_LE(rs[0].time_ns, std::chrono::duration_cast<std::chrono::nanoseconds>(after).count());
    EXPECT_EQ(rs[1].category, "DRIVER");
    EXPECT_FALSE(rs[1].has_device);
    EXPECT_EQ(rs[2].category, "GENERAL");
}

TEST(LogFrontEnd, HugeMessageIsTruncatedNotLost) {
    lg::front_end fe;
    test_sink sink;
    fe.add_sink("t", sink.table(), sink.instance());
    std::string big((1u << 20) + 100, 'x');
    big[(1u << 20) - 1] = '\xc3';  // a two-byte UTF-8 sequence straddling the cut
    big[(1u << 20)] = '\xa9';
    fe.log(CB_LOG_INFO, 0, big);
    fe.flush();
    auto rs = sink.records();
    ASSERT_EQ(rs.size(), 1u);
    EXPECT_EQ(rs[0].message.size(), (1u << 20) - 1);  // cut before the sequence, not inside it
}

TEST(LogFrontEnd, BatchDeliveryRespectsMaxBatch) {
    lg::options o;
    o.max_batch = 16;
    lg::front_end fe(o);
    test_sink sink;
    sink.close_gate();
    fe.add_sink("t", sink.table(), sink.instance());
    fe.log(CB_LOG_INFO, 0, "m0");
    ASSERT_TRUE(sink.wait_blocked());
    for (int i = 1; i <= 100; ++i) fe.log(CB_LOG_INFO, 0, "m" + std::to_string(i));
    sink.open_gate();
    fe.flush();
    EXPECT_EQ(sink.messages(), numbered(0, 100));
    EXPECT_EQ(sink.write_calls.load(), 0);
    EXPECT_LE(sink.largest_batch.load(), 16u);
    EXPECT_EQ(sink.largest_batch.load(), 16u);  // 100 queued behind the gate come in full chunks
    EXPECT_GE(sink.batch_calls.load(), 1 + 100 / 16);
}

TEST(LogFrontEnd, OlderSinkWithoutWriteBatchGetsOneRecordPerCall) {
    lg::front_end fe;
    test_sink sink;
    fe.add_sink("old", sink.table_v1_0(), sink.instance());
    for (int i = 0; i < 100; ++i) fe.log(CB_LOG_INFO, 0, "m" + std::to_string(i));
    fe.flush();
    EXPECT_EQ(sink.messages(), numbered(0, 99));
    EXPECT_EQ(sink.write_calls.load(), 100);
    EXPECT_EQ(sink.batch_calls.load(), 0);
    EXPECT_EQ(sink.forbidden_calls.load(), 0);
}

TEST(LogFrontEnd, ABatchEntryAnsweringUnsupportedIsAbsentAndRecordsGoOneByOne) {
    lg::front_end fe;
    test_sink sink;
    int errors = 0;
    fe.set_error_handler([&](const std::string&) { ++errors; });
    fe.add_sink("no-batch", sink.table_unsupported_batch(), sink.instance());
    for (int i = 0; i < 100; ++i) fe.log(CB_LOG_INFO, 0, "m" + std::to_string(i));
    fe.flush();
    EXPECT_EQ(sink.messages(), numbered(0, 99));
    EXPECT_EQ(sink.write_calls.load(), 100);
    EXPECT_GE(sink.batch_calls.load(), 1);
    EXPECT_EQ(errors, 0);
}

TEST(LogFrontEnd, AddSinkValidates) {
    lg::front_end fe;
    test_sink sink;
    EXPECT_THROW(fe.add_sink("null", nullptr, nullptr), std::exception);
    cb_logsink_table empty{};
    empty.struct_size = sizeof empty;
    EXPECT_THROW(fe.add_sink("empty", &empty, nullptr), std::exception);
    fe.add_sink("a", sink.table(), sink.instance());
    EXPECT_THROW(fe.add_sink("a", sink.table(), sink.instance()), std::exception);
    EXPECT_EQ(fe.sink_names(), std::vector<std::string>{"a"});
}

TEST(LogFrontEnd, ShutdownDrainsEverythingInOrderPerThread) {
    constexpr int threads = 4;
    constexpr int per_thread = 20000;
    test_sink sink;
    {
        lg::front_end fe(small_queue(512, lg::overflow_policy::block));
        fe.add_sink("t", sink.table(), sink.instance());
        std::vector<std::thread> ts;
        for (int t = 0; t < threads; ++t)
            ts.emplace_back([&fe, t] {
                for (int i = 0; i < per_thread; ++i)
                    fe.log(CB_LOG_INFO, 0, std::to_string(t) + ":" + std::to_string(i));
            });
        for (auto& th : ts) th.join();
        fe.shutdown();
        EXPECT_EQ(sink.count(), size_t{threads} * per_thread);  // all there when shutdown returns
        auto st = fe.stats();
        EXPECT_EQ(st.enqueued, uint64_t{threads} * per_thread);
        EXPECT_EQ(st.written, uint64_t{threads} * per_thread);
        EXPECT_EQ(st.dropped, 0u);
        EXPECT_EQ(sink.events().back(), 'f');  // flushed on the way out
    }
    std::map<int, int> next;
    for (const auto& m : sink.messages()) {
        auto colon = m.find(':');
        int t = std::stoi(m.substr(0, colon));
        int i = std::stoi(m.substr(colon + 1));
        ASSERT_EQ(i, next[t]) << "thread " << t << " out of order";
        next[t] = i + 1;
    }
    for (int t = 0; t < threads; ++t) EXPECT_EQ(next[t], per_thread);
}

TEST(LogFrontEnd, AfterShutdownLogIsDroppedSilentlyAndRestartWorks) {
    lg::front_end fe;
    test_sink sink;
    fe.add_sink("t", sink.table(), sink.instance());
    fe.log(CB_LOG_INFO, 0, "before");
    fe.shutdown();
    EXPECT_FALSE(fe.running());
    EXPECT_FALSE(fe.enabled(0, CB_LOG_FATAL));
    EXPECT_TRUE(fe.sink_names().empty());  // detached
    fe.log(CB_LOG_INFO, 0, "after");
    fe.flush();     // returns at once
    fe.shutdown();  // idempotent
    EXPECT_EQ(sink.messages(), std::vector<std::string>{"before"});
    EXPECT_EQ(fe.stats().dropped, 0u);

    fe.restart();
    EXPECT_TRUE(fe.running());
    fe.add_sink("t", sink.table(), sink.instance());
    fe.log(CB_LOG_INFO, 0, "again");
    fe.flush();
    EXPECT_EQ(sink.messages(), (std::vector<std::string>{"before", "again"}));
}

TEST(LogFrontEnd, FlushWaitsForDeliveryAndSinkFlush) {
    lg::front_end fe;
    test_sink sink;
    sink.delay_us = 200;  // a slow sink: 200 records take >= 40 ms
    fe.add_sink("old", sink.table_v1_0(), sink.instance());
    fe.flush();  // nothing logged: returns immediately
    for (int i = 0; i < 200; ++i) fe.log(CB_LOG_INFO, 0, "m" + std::to_string(i));
    fe.flush();
    EXPECT_EQ(sink.count(), 200u);
    std::string ev = sink.events();
    ASSERT_FALSE(ev.empty());
    EXPECT_EQ(ev.back(), 'f');
    EXPECT_EQ(std::count(ev.begin(), ev.end(), 'w'), 200);
}

TEST(LogFrontEnd, SinksAreFlushedWhenTheQueueGoesIdle) {
    lg::front_end fe;
    test_sink sink;
    fe.add_sink("t", sink.table(), sink.instance());
    fe.log(CB_LOG_INFO, 0, "one");
    EXPECT_TRUE(eventually([&] { return sink.events() == "wf"; })) << sink.events();
}

TEST(LogFrontEnd, FlushFromManyThreadsWhileLogging) {
    lg::front_end fe(small_queue(64, lg::overflow_policy::block));
    test_sink sink;
    fe.add_sink("t", sink.table(), sink.instance());
    std::vector<std::thread> ts;
    std::atomic<int> bad{0};
    for (int t = 0; t < 4; ++t)
        ts.emplace_back([&, t] {
            for (int i = 0; i < 200; ++i) {
                fe.log(CB_LOG_INFO, 0, "t" + std::to_string(t));
                if (i % 20 == 0) {
                    fe.flush();
                    // everything this thread logged so far is delivered
                    size_t mine = 0;
                    for (const auto& m : sink.messages()) mine += (m == "t" + std::to_string(t));
                    if (mine < static_cast<size_t>(i + 1)) bad++;
                }
            }
        });
    for (auto& th : ts) th.join();
    fe.flush();
    EXPECT_EQ(bad.load(), 0);
    EXPECT_EQ(sink.count(), 800u);
}

TEST(LogFrontEnd, OverflowBlockLosesNothing) {
    lg::front_end fe(small_queue(4, lg::overflow_policy::block));
    test_sink sink;
    sink.close_gate();
    fe.add_sink("t", sink.table(), sink.instance());
    fe.log(CB_LOG_INFO, 0, "m0");
    ASSERT_TRUE(sink.wait_blocked());

    std::atomic<bool> done{false};
    std::thread producer([&] {
        for (int i = 1; i <= 20; ++i) fe.log(CB_LOG_INFO, 0, "m" + std::to_string(i));
        done = true;
    });
    EXPECT_TRUE(eventually([&] { return fe.stats().enqueued == 5u; }));  // m0 + a full queue
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(done.load());  // stuck behind the full queue
    EXPECT_EQ(fe.stats().enqueued, 5u);
    sink.open_gate();
    producer.join();
    fe.flush();
    EXPECT_EQ(sink.messages(), numbered(0, 20));
    EXPECT_EQ(fe.stats().dropped, 0u);
    EXPECT_EQ(fe.stats().enqueued, 21u);
    EXPECT_EQ(fe.stats().written, 21u);
}

TEST(LogFrontEnd, OverflowDropNewestKeepsTheFirst) {
    lg::front_end fe(small_queue(4, lg::overflow_policy::drop_newest));
    test_sink sink;
    sink.close_gate();
    fe.add_sink("t", sink.table(), sink.instance());
    fe.log(CB_LOG_INFO, 0, "m0");
    ASSERT_TRUE(sink.wait_blocked());  // m0 is with the sink; the queue is empty
    for (int i = 1; i <= 20; ++i) fe.log(CB_LOG_INFO, 0, "m" + std::to_string(i));  // never blocks
    EXPECT_EQ(fe.stats().dropped, 16u);
    sink.open_gate();
    fe.flush();
    EXPECT_EQ(sink.messages(), numbered(0, 4));
    auto st = fe.stats();
    EXPECT_EQ(st.dropped, 16u);
    EXPECT_EQ(st.enqueued, 5u);
    EXPECT_EQ(st.written, 5u);
}

TEST(LogFrontEnd, OverflowDropOldestKeepsTheLast) {
    lg::front_end fe(small_queue(4, lg::overflow_policy::drop_oldest));
    test_sink sink;
    sink.close_gate();
    fe.add_sink("t", sink.table(), sink.instance());
    fe.log(CB_LOG_INFO, 0, "m0");
    ASSERT_TRUE(sink.wait_blocked());
    for (int i = 1; i <= 20; ++i) fe.log(CB_LOG_INFO, 0, "m" + std::to_string(i));
    EXPECT_EQ(fe.stats().dropped, 16u);
    sink.open_gate();
    fe.flush();
    std::vector<std::string> want{"m0"};
    for (auto& m : numbered(17, 20)) want.push_back(m);
    EXPECT_EQ(sink.messages(), want);
    auto st = fe.stats();
    EXPECT_EQ(st.dropped, 16u);
    EXPECT_EQ(st.enqueued, 21u);  // evicted records were accepted first
    EXPECT_EQ(st.written, 5u);
}

TEST(LogFrontEnd, DropOldestUnderLongPressureKeepsBoundedMemoryAndTheLastRecords) {
    lg::front_end fe(small_queue(8, lg::overflow_policy::drop_oldest));
    test_sink sink;
    sink.close_gate();
    fe.add_sink("t", sink.table(), sink.instance());
    fe.log(CB_LOG_INFO, 0, "m0");
    ASSERT_TRUE(sink.wait_blocked());
    for (int i = 1; i <= 100000; ++i)  // exercises the compaction of evicted entries
        fe.log(CB_LOG_INFO, 0, "m" + std::to_string(i) + std::string(static_cast<size_t>(i % 50), '.'));
    sink.open_gate();
    fe.flush();
    auto ms = sink.messages();
    ASSERT_EQ(ms.size(), 9u);
    EXPECT_EQ(ms[0], "m0");
    for (int k = 0; k < 8; ++k) {
        int i = 100000 - 7 + k;
        EXPECT_EQ(ms[static_cast<size_t>(k) + 1],
                  "m" + std::to_string(i) + std::string(static_cast<size_t>(i % 50), '.'));
    }
    EXPECT_EQ(fe.stats().dropped, 100000u - 8u);
}

TEST(LogFrontEnd, OverflowPolicyCanChangeAtRunTimeAndReleasesBlockedProducers) {
    lg::front_end fe(small_queue(2, lg::overflow_policy::block));
    test_sink sink;
    sink.close_gate();
    fe.add_sink("t", sink.table(), sink.instance());
    fe.log(CB_LOG_INFO, 0, "m0");
    ASSERT_TRUE(sink.wait_blocked());
    fe.log(CB_LOG_INFO, 0, "m1");
    fe.log(CB_LOG_INFO, 0, "m2");
    std::atomic<bool> done{false};
    std::thread producer([&] {
        fe.log(CB_LOG_INFO, 0, "m3");  // blocks
        done = true;
    });
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(done.load());
    fe.set_overflow_policy(lg::overflow_policy::drop_newest);
    producer.join();  // released; m3 dropped
    EXPECT_EQ(fe.stats().dropped, 1u);
    sink.open_gate();
    fe.flush();
    EXPECT_EQ(sink.messages(), numbered(0, 2));
}

TEST(LogFrontEnd, ShutdownReleasesBlockedProducers) {
    test_sink sink;
    auto fe = std::make_unique<lg::front_end>(small_queue(1, lg::overflow_policy::block));
    sink.close_gate();
    fe->add_sink("t", sink.table(), sink.instance());
    fe->log(CB_LOG_INFO, 0, "m0");
    ASSERT_TRUE(sink.wait_blocked());
    fe->log(CB_LOG_INFO, 0, "m1");
    std::thread producer([&] { fe->log(CB_LOG_INFO, 0, "m2"); });  // blocks
    std::this_thread::sleep_for(100ms);
    std::thread closer([&] { fe->shutdown(); });
    producer.join();  // released by shutdown (no deadlock), m2 dropped
    sink.open_gate();
    closer.join();
    EXPECT_EQ(sink.messages(), numbered(0, 1));  // what was queued before shutdown is delivered
    // 1 when the producer was already waiting (the usual case); a producer that only arrives
    // after shutdown is dropped silently and not counted.
    EXPECT_LE(fe->stats().dropped, 1u);
}

TEST(LogFrontEnd, FailingSinkGoesToTheRateLimitedErrorHandler) {
    lg::options o;
    o.error_interval = 500ms;
    lg::front_end fe(o);
    std::mutex m;
    std::vector<std::string> errors;
    fe.set_error_handler([&](const std::string& e) {
        std::lock_guard lk(m);
        errors.push_back(e);
    });
    test_sink sink;
    sink.fail_with = CB_ERR_LINK_DOWN;
    fe.add_sink("flaky", sink.table_v1_0(), sink.instance());                       // one failure per record
    for (int i = 0; i < 100; ++i) fe.log(CB_LOG_INFO, 0, "m" + std::to_string(i));  // no throw
    fe.flush();
    EXPECT_EQ(sink.count(), 100u);
    EXPECT_EQ(fe.stats().sink_errors, 100u);
    {
        std::lock_guard lk(m);
        ASSERT_EQ(errors.size(), 1u);
        EXPECT_NE(errors[0].find("flaky"), std::string::npos) << errors[0];
        EXPECT_NE(errors[0].find("CB_ERR_LINK_DOWN"), std::string::npos) << errors[0];
    }
    std::this_thread::sleep_for(550ms);
    fe.log(CB_LOG_INFO, 0, "one more");
    fe.flush();
    {
        std::lock_guard lk(m);
        ASSERT_EQ(errors.size(), 2u);
        EXPECT_NE(errors[1].find("99 similar messages suppressed"), std::string::npos) << errors[1];
    }
}

TEST(LogFrontEnd, DefaultErrorHandlerPrintsOncePerInterval) {
    lg::front_end fe;  // default: stderr, once per second
    test_sink sink;
    sink.fail_with = CB_ERR_TIMEOUT;
    fe.add_sink("slowpoke", sink.table_v1_0(), sink.instance());
    testing::internal::CaptureStderr();
    for (int i = 0; i < 50; ++i) fe.log(CB_LOG_INFO, 0, "x");
    fe.flush();
    std::string err = testing::internal::GetCapturedStderr();
    size_t lines = 0;
    for (size_t p = err.find("cudabridge log:"); p != std::string::npos; p = err.find("cudabridge log:", p + 1))
        ++lines;
    EXPECT_EQ(lines, 1u) << err;
    EXPECT_NE(err.find("slowpoke"), std::string::npos) << err;
    EXPECT_EQ(fe.stats().sink_errors, 50u);
}

TEST(LogFrontEnd, ThrowingSinkAndCallbackAreContained) {
    lg::front_end fe;
    std::atomic<int> handler_calls{0};
    std::string first_error;
    fe.set_error_handler([&](const std::string& e) {
        if (handler_calls++ == 0) first_error = e;
        throw std::runtime_error("the handler throws too");  // also contained
    });
    test_sink bad;
    bad.throw_on_write = true;
    test_sink good;
    fe.add_sink("bad", bad.table(), bad.instance());
    fe.add_sink("good", good.table(), good.instance());
    std::atomic<int> good_cb{0};
    fe.add_callback([](const lg::record&) { throw std::runtime_error("callback exploded"); });
    fe.add_callback([&](const lg::record&) { good_cb++; });
    for (int i = 0; i < 10; ++i) fe.log(CB_LOG_INFO, 0, "m" + std::to_string(i));
    fe.flush();
    EXPECT_EQ(good.messages(), numbered(0, 9));
    EXPECT_EQ(good_cb.load(), 10);
    EXPECT_EQ(handler_calls.load(), 1);  // rate limited
    EXPECT_NE(first_error.find("bad"), std::string::npos) << first_error;
    EXPECT_GE(fe.stats().sink_errors, 11u);  // 1 batch call + 10 callback calls
    EXPECT_TRUE(fe.running());
}

TEST(LogFrontEnd, CallbacksSeeEveryRecordAndCanBeRemoved) {
    lg::front_end fe;
    std::mutex m;
    std::vector<lg::record> seen;
    int id = fe.add_callback([&](const lg::record& r) {
        std::lock_guard lk(m);
        seen.push_back(r);
    });
    EXPECT_GT(id, 0);
    fe.log(CB_LOG_ERROR, 2, "connection lost", "egpu0");
    fe.flush();
    fe.remove_callback(id);
    fe.remove_callback(id);  // unknown id: nothing happens
    fe.log(CB_LOG_ERROR, 2, "not seen");
    fe.flush();
    std::lock_guard lk(m);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].level, CB_LOG_ERROR);
    EXPECT_EQ(seen[0].category, 2);
    EXPECT_EQ(seen[0].message, "connection lost");
    EXPECT_EQ(seen[0].device, "egpu0");
    EXPECT_GT(seen[0].time_ns, 0);
    EXPECT_THROW(fe.add_callback(nullptr), std::exception);
}

TEST(LogFrontEnd, RemoveSinkWaitsUntilTheSinkIsNotInUse) {
    lg::front_end fe;
    test_sink a;
    test_sink b;
    fe.add_sink("a", a.table(), a.instance());
    fe.add_sink("b", b.table(), b.instance());
    a.close_gate();
    fe.log(CB_LOG_INFO, 0, "m0");
    ASSERT_TRUE(a.wait_blocked());

    std::atomic<bool> removed{false};
    std::thread remover([&] {
        fe.remove_sink("a");
        removed = true;
    });
    std::this_thread::sleep_for(100ms);
    EXPECT_FALSE(removed.load());  // "a" is inside write_batch
    a.open_gate();
    remover.join();
    EXPECT_TRUE(removed.load());
    EXPECT_EQ(fe.sink_names(), std::vector<std::string>{"b"});

    fe.log(CB_LOG_INFO, 0, "m1");
    fe.flush();
    EXPECT_EQ(a.messages(), numbered(0, 0));
    EXPECT_EQ(b.messages(), numbered(0, 1));
    fe.remove_sink("no such sink");  // nothing happens
}

TEST(LogFrontEnd, ReentrantCallsFromTheLoggingThreadDoNotDeadlock) {
    lg::front_end fe(small_queue(2, lg::overflow_policy::block));
    test_sink sink;
    fe.add_sink("t", sink.table(), sink.instance());
    std::atomic<int> calls{0};
    int id = 0;
    id = fe.add_callback([&](const lg::record& r) {
        calls++;
        if (r.message.rfind("echo", 0) == 0) return;
        for (int i = 0; i < 10; ++i) fe.log(CB_LOG_INFO, 0, "echo");  // fills the tiny queue
        fe.flush();                                                   // returns at once
        if (r.message == "remove me") fe.remove_callback(id);
    });
    fe.log(CB_LOG_INFO, 0, "m0");
    fe.log(CB_LOG_INFO, 0, "remove me");
    fe.flush();
    fe.flush();
    EXPECT_GE(sink.count(), 2u);
    EXPECT_GT(fe.stats().dropped, 0u);  // echoes beyond the queue were dropped, not waited for
    EXPECT_TRUE(fe.running());
}

TEST(LogFrontEnd, ManyProducersUnderBlockLoseNothing) {
    constexpr int threads = 8;
    constexpr int per_thread = 25000;
    lg::front_end fe(small_queue(128, lg::overflow_policy::block));
    std::atomic<uint64_t> sum{0};
    std::atomic<int> count{0};
    fe.add_callback([&](const lg::record& r) {
        sum += std::stoull(r.message);
        count++;
    });
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
        ts.emplace_back([&fe, t] {
            for (int i = 0; i < per_thread; ++i) fe.log(CB_LOG_INFO, 0, std::to_string(t * per_thread + i));
        });
    for (auto& th : ts) th.join();
    fe.flush();
    const uint64_t n = uint64_t{threads} * per_thread;
    EXPECT_EQ(count.load(), static_cast<int>(n));
    EXPECT_EQ(sum.load(), n * (n - 1) / 2);
    EXPECT_EQ(fe.stats().dropped, 0u);
}

TEST(LogFrontEnd, DestructorShutsDownAndDrains) {
    test_sink sink;
    {
        lg::front_end fe;
        fe.add_sink("t", sink.table(), sink.instance());
        for (int i = 0; i < 1000; ++i) fe.log(CB_LOG_INFO, 0, "m" + std::to_string(i));
    }
    EXPECT_EQ(sink.count(), 1000u);
}

// A callback may destroy the front end that calls it (an application tearing down from a log
// record). The logging thread still finishes its batch after that callback returns, so what it
// uses must outlive the front end: the next callback still sees the record, and everything is
// released once the thread ends. (Before, the thread went on using freed state, which ASan
// reports: scripts/test-asan.sh.)
TEST(LogFrontEnd, ACallbackMayDestroyTheFrontEndThatCallsIt) {
    auto* fe = new lg::front_end;
    std::atomic<int> seen_after{0};
    auto token = std::make_shared<int>(0);  // held only by a callback: gone when the front end is
    std::weak_ptr<int> callbacks_alive = token;
    std::promise<void> destroyed;
    fe->add_callback([fe, &destroyed](const lg::record& r) {
        if (r.message != "last") return;
        delete fe;
        destroyed.set_value();
    });
    fe->add_callback([&seen_after, token = std::move(token)](const lg::record& r) {
        if (r.message == "last") seen_after++;
    });
    fe->log(CB_LOG_INFO, 0, "first");
    fe->log(CB_LOG_ERROR, 0, "last");
    destroyed.get_future().wait();
    // The thread ends on its own after that batch and releases the callbacks it held.
    for (int i = 0; i < 60000 && !callbacks_alive.expired(); ++i) std::this_thread::sleep_for(1ms);
    ASSERT_TRUE(callbacks_alive.expired()) << "the logging thread never released the front end";
    EXPECT_EQ(seen_after.load(), 1);
}
