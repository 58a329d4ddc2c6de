// Each fault kind injected into the simulated eGPU during real work: the supervisor's rung, the
// events it records, and afterwards correct results or a clear error, never wrong data. The
// supervisor's thread is slowed to a crawl; each test runs its cycles itself (supervise_once)
// so the order of events is deterministic.
#include "host_fixture.hpp"

#include <cudabridge/core/store.hpp>
#include <cudabridge/host_kernels.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

namespace cudabridge::test {
namespace {

using host::device_state;
using host::runtime;

class fault_test : public host_test {
protected:
    void start(core::config_entries extra = {}) {
        core::config_entries safety = {
            {"heartbeat_interval_ms", "3600000"}, {"heartbeat_timeout_ms", "3600000"}, {"retry_delay_ms", "0"}};
        for (auto& e : extra) {  // a key given again replaces the slow default
            auto same = std::find_if(safety.begin(), safety.end(), [&](const auto& s) { return s.first == e.first; });
            if (same != safety.end())
                same->second = e.second;
            else
                safety.push_back(e);
        }
        rt = std::make_unique<runtime>(runtime_options(safety));
        ASSERT_EQ(rt->device_count(), 1) << rt->startup_error();
        enclosure = rt->device(0).id();
        rt->device(0).add_callback([this](const host::device_event& e) {
            std::lock_guard lock(seen_mutex);
            seen.push_back(e.kind);
        });
        rt->device(0).supervise_once();  // the baseline sample
    }
    void TearDown() override { rt.reset(); }
    // A runtime whose policy calls 200 ms without progress a hang, with `module` (host kernels)
    // loaded and a stream to queue them on.
    void start_watching_progress(const cb_host_kernel_module& module, cbModule_t& m, cbStream_t& s) {
        start({{"heartbeat_timeout_ms", "200"}});
        ASSERT_EQ(rt->module_load(&m, &module, sizeof module, CB_MODULE_HOST_KERNELS), cbSuccess)
            << cbGetLastErrorMessage();
        ASSERT_EQ(rt->stream_create(&s, cbStreamDefault), cbSuccess);
    }

    host::device& dev() { return rt->device(0); }
    void fault(const std::string& fields) {
        control(rt->current_session(), R"({"op":"fault","id":")" + enclosure + "\"," + fields + "}");
    }
    size_t count(const std::string& kind) { return events(rt->current_session(), kind).size(); }
    bool callback_saw(const std::string& kind) {
        std::lock_guard lock(seen_mutex);
        return std::find(seen.begin(), seen.end(), kind) != seen.end();
    }

    // Uploads and downloads `n` bytes; true when they came back intact. On failure `error` is
    // the runtime's code.
    bool round_trip(size_t n, cbError_t& error) { return round_trip(*rt, n, error); }
    static bool round_trip(runtime& r, size_t n, cbError_t& error) {
        std::vector<uint8_t> in(n), out(n, 0);
        for (size_t i = 0; i < n; ++i) in[i] = static_cast<uint8_t>(i * 31 + 7);
        void* d = nullptr;
        error = r.malloc(&d, n);
        if (error == cbSuccess) error = r.memcpy(d, in.data(), n, cbMemcpyHostToDevice, nullptr, false);
        if (error == cbSuccess) error = r.memcpy(out.data(), d, n, cbMemcpyDeviceToHost, nullptr, false);
        if (d) r.free(d);
        return error == cbSuccess && in == out;
    }
    void expect_working_after_reset() {
        cbError_t e = rt->reset_device();
        ASSERT_EQ(e, cbSuccess) << cbGetLastErrorMessage();
        ASSERT_EQ(dev().state(), device_state::connected);
        EXPECT_TRUE(round_trip(4 << 20, e)) << cbGetErrorName(e) << ": " << cbGetLastErrorMessage();
    }

    // A link takes what other processes posted (a hang, the reset that ended it) at most every
    // 100 ms.
    static void past_the_fabric_sync() { std::this_thread::sleep_for(std::chrono::milliseconds(150)); }

    std::unique_ptr<runtime> rt;
    std::string enclosure;
    std::mutex seen_mutex;
    std::vector<std::string> seen;
};

// ---- the hung-engine check judges progress ---------------------------------------------------

// Kernels the simulated GPU runs as C functions: one that sleeps args[0] ms per block, one block at
// a time; one whose single block holds the engine until the flag at args[0] is set (at most 20 s).
cb_status serial_sleep(const cb_host_kernel_call* call) {
    static std::mutex one_at_a_time;
    std::lock_guard lock(one_at_a_time);
    std::this_thread::sleep_for(std::chrono::milliseconds(call->args[0].value.i64));
    return CB_OK;
}
struct hold {
    std::atomic<bool> started{false}, released{false};
};
cb_status hold_until_released(const cb_host_kernel_call* call) {
    auto* h = reinterpret_cast<hold*>(static_cast<uintptr_t>(call->args[0].value.u64));
    h->started.store(true);
    for (int i = 0; i < 20000 && !h->released.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return CB_OK;
}
// Queues hold_until_released on `s` and returns once its block holds the engine.
void launch_held(runtime& r, cbModule_t m, cbStream_t s, hold& held) {
    const cbKernelArg args[] = {cbArgUInt(reinterpret_cast<uintptr_t>(&held))};
    ASSERT_EQ(r.launch_kernel(m, "hold_until_released", {1, 1, 1}, {1, 1, 1}, args, 1, 0, s), cbSuccess);
    while (!held.started.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

const cb_host_kernel progress_kernels[] = {{"serial_sleep", &serial_sleep},
                                           {"hold_until_released", &hold_until_released}};
const cb_host_kernel_module progress_module = {sizeof(cb_host_kernel_module), 0, progress_kernels, 2};

// A new stream `s` of `r` whose kernel holds the engine until `held` is released.
void hold_the_engine(runtime& r, cbStream_t& s, hold& held) {
    cbModule_t m = nullptr;
    ASSERT_EQ(r.module_load(&m, &progress_module, sizeof progress_module, CB_MODULE_HOST_KERNELS), cbSuccess);
    ASSERT_EQ(r.stream_create(&s, cbStreamDefault), cbSuccess);
    ASSERT_NO_FATAL_FAILURE(launch_held(r, m, s, held));
}

// Item 1 of the watchdog's issue: 5 s of queued work was taken for a hung engine. Here the
// timeout is 200 ms and the queue holds 30 launches of 40 ms (over a second): the supervisor,
// asked every 50 ms, sees the work move and leaves it alone.
TEST_F(fault_test, ADeepQueueThatKeepsMovingIsNotTakenForAHang) {
    cbModule_t m = nullptr;
    cbStream_t s = nullptr;
    ASSERT_NO_FATAL_FAILURE(start_watching_progress(progress_module, m, s));
    const cbKernelArg args[] = {cbArgInt(40)};
    for (int i = 0; i < 30; ++i)
        ASSERT_EQ(rt->launch_kernel(m, "serial_sleep", {1, 1, 1}, {1, 1, 1}, args, 1, 0, s), cbSuccess)
            << cbGetLastErrorMessage();
    int samples = 0;
    while (rt->stream_query(s) == cbErrorNotReady) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        dev().supervise_once();
        ++samples;
    }
    EXPECT_GT(samples, 4) << "the queue outlived the timeout";
    EXPECT_EQ(rt->stream_synchronize(s), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(count("safety.hard_reset"), 0u);
    EXPECT_EQ(count("safety.soft_reset"), 0u);
    EXPECT_EQ(dev().state(), device_state::connected);
    EXPECT_EQ(rt->stream_destroy(s), cbSuccess);
}

// Work that stops moving is a hang: the supervisor resets the device, and a synchronize waiting on
// that work hears of the reset as soon as it starts (cbErrorDeviceReset), while the hung block still
// holds the engine, not after the 30 s fence timeout.
TEST_F(fault_test, WorkThatStopsMovingIsResetAndItsWaitEndsAtOnce) {
    cbModule_t m = nullptr;
    cbStream_t s = nullptr;
    ASSERT_NO_FATAL_FAILURE(start_watching_progress(progress_module, m, s));
    hold held;
    ASSERT_NO_FATAL_FAILURE(launch_held(*rt, m, s, held));
    std::atomic<bool> wait_done{false};
    cbError_t waited = cbSuccess;
    std::string wait_message;
    std::thread waiter([&] {
        waited = rt->stream_synchronize(s);
        wait_message = cbGetLastErrorMessage();
        wait_done.store(true);
    });
    dev().supervise_once();  // starts the watch
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::thread supervisor([&] { dev().supervise_once(); });  // stalled past 200 ms: a hard reset
    for (int i = 0; i < 15000 && !wait_done.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_TRUE(wait_done.load()) << "the wait outlived the reset by 15 s";
    held.released.store(true);
    waiter.join();
    supervisor.join();
    EXPECT_EQ(waited, cbErrorDeviceReset) << wait_message;
    const auto resets = events(rt->current_session(), "safety.hard_reset");
    ASSERT_EQ(resets.size(), 1u);
    EXPECT_NE(resets[0].message.find("no progress for"), std::string::npos) << resets[0].message;
    expect_working_after_reset();
}

// A kernel time limit (a display GPU's watchdog) stops a kernel that runs past it, whether or not
// it moves; without one (the default, as on a compute GPU) the same kernel runs on.
TEST_F(fault_test, AKernelPastTheTimeLimitIsStoppedOnlyWhenThePolicySetsOne) {
    for (const char* limit : {"0", "200"}) {
        SCOPED_TRACE(std::string("kernel_time_limit_ms ") + limit);
        start({{"kernel_time_limit_ms", limit}});
        cbStream_t s = nullptr;
        hold held;
        ASSERT_NO_FATAL_FAILURE(hold_the_engine(*rt, s, held));
        std::atomic<bool> wait_done{false};
        std::thread waiter([&] {
            rt->stream_synchronize(s);
            wait_done.store(true);
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const bool limited = std::string(limit) != "0";
        // The reset's engines wait for the held host kernel to return: sample beside it.
        std::thread supervisor([&] { dev().supervise_once(); });
        // Stopped: the wait ends within 15 s. Not stopped: a second after the sample it still runs.
        for (int i = 0; i < (limited ? 15000 : 1000) && !wait_done.load(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        EXPECT_EQ(wait_done.load(), limited);
        held.released.store(true);
        supervisor.join();
        waiter.join();
        const auto resets = events(rt->current_session(), "safety.soft_reset");
        ASSERT_EQ(resets.size(), limited ? 1u : 0u);
        if (limited) {
            EXPECT_NE(resets[0].message.find("kernel time limit (200 ms)"), std::string::npos) << resets[0].message;
        }
        EXPECT_NO_FATAL_FAILURE(expect_working_after_reset());
        rt.reset();
    }
}

// `cudabridge-cli reset` (a soft reset) in another program stops this program's work too, as a
// GPU's engine reset does: a synchronize waiting on a kernel that would run forever returns. It
// reaches this program between samples: its next sample is an hour away, yet the wait ends (the
// supervisor looks at the shared connection file every few tens of ms).
TEST_F(fault_test, ASoftResetInAnotherProgramAbandonsThisProgramsWorkBeforeItsNextSample) {
    start();
    cbStream_t s = nullptr;
    hold held;
    ASSERT_NO_FATAL_FAILURE(hold_the_engine(*rt, s, held));
    std::atomic<bool> wait_done{false};
    cbError_t waited = cbSuccess;
    std::thread waiter([&] {
        waited = rt->stream_synchronize(s);
        wait_done.store(true);
    });

    runtime other(runtime_options({{"heartbeat_interval_ms", "3600000"}, {"heartbeat_timeout_ms", "3600000"}}));
    ASSERT_EQ(other.device_count(), 1) << other.startup_error();
    ASSERT_EQ(other.device(0).manual_reset(false), CB_OK) << cbGetLastErrorMessage();
    for (int i = 0; i < 15000 && !wait_done.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_TRUE(wait_done.load()) << "the wait outlived the other program's reset by 15 s";
    held.released.store(true);
    waiter.join();
    EXPECT_NE(waited, cbSuccess);
    // Recorded after the queue was abandoned: the wait may end first.
    for (int i = 0; i < 5000 && count("safety.reset_elsewhere") == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(count("safety.reset_elsewhere"), 1u);
}

TEST_F(fault_test, BitErrorsAboveTheThresholdGetASoftResetAndDataStaysRight) {
    start();
    // About 2 % of 256-byte packets take a bit error: over the 1 % threshold. The link's CRC
    // and replay deliver every byte right regardless.
    fault("\"bit_error_rate\":1e-5");
    cbError_t e = cbSuccess;
    EXPECT_TRUE(round_trip(16 << 20, e)) << cbGetErrorName(e) << ": " << cbGetLastErrorMessage();
    dev().supervise_once();
    EXPECT_EQ(count("safety.soft_reset"), 1u);
    EXPECT_TRUE(callback_saw("safety.soft_reset"));
    EXPECT_EQ(dev().state(), device_state::connected);
    fault("\"bit_error_rate\":0");
    EXPECT_TRUE(round_trip(4 << 20, e)) << "a soft reset keeps the context: " << cbGetLastErrorMessage();
    // Recovered once it stays healthy: five samples in a row.
    for (int i = 0; i < 4; ++i) dev().supervise_once();
    EXPECT_EQ(count("safety.recovered"), 0u);
    dev().supervise_once();
    EXPECT_EQ(count("safety.recovered"), 1u);
}

// An error rate that comes and goes (a flaky cable: 18.8 % for 23 s gave three soft resets, each
// "attempt 1 of 3") climbs the ladder: a healthy sample between two faults does not start it over.
TEST_F(fault_test, AFaultThatComesAndGoesClimbsTheLadder) {
    start();
    cbError_t e = cbSuccess;
    fault("\"bit_error_rate\":1e-5");
    ASSERT_TRUE(round_trip(16 << 20, e)) << cbGetLastErrorMessage();
    dev().supervise_once();
    ASSERT_EQ(count("safety.soft_reset"), 1u);
    fault("\"bit_error_rate\":0");
    ASSERT_TRUE(round_trip(4 << 20, e)) << cbGetLastErrorMessage();
    dev().supervise_once();  // one healthy sample
    fault("\"bit_error_rate\":1e-5");
    ASSERT_TRUE(round_trip(16 << 20, e)) << cbGetLastErrorMessage();
    dev().supervise_once();
    EXPECT_EQ(count("safety.soft_reset"), 1u) << "the second fault is the ladder's second rung";
    EXPECT_EQ(count("safety.hard_reset"), 1u);
    EXPECT_TRUE(dev().state() == device_state::connected) << host::state_name(dev().state());
}

TEST_F(fault_test, AnotherProgramSeesTheLinksErrorCountersAndItsErrorRate) {
    start();
    fault("\"bit_error_rate\":1e-5");
    cbError_t e = cbSuccess;
    ASSERT_TRUE(round_trip(16 << 20, e)) << cbGetErrorName(e) << ": " << cbGetLastErrorMessage();
    const cb_link_status mine = dev().link_status();
    ASSERT_GT(mine.crc_errors, 0u);

    // A second program, as `status` or `monitor` would be: the link's counters are the
    // enclosure's, whoever moved the packets, and so is the rate its first sample reports.
    runtime other(runtime_options({{"heartbeat_interval_ms", "3600000"}, {"heartbeat_timeout_ms", "3600000"}}));
    ASSERT_EQ(other.device_count(), 1) << other.startup_error();
    const cb_link_status theirs = other.device(0).link_status();
    EXPECT_GE(theirs.packets, mine.packets);
    EXPECT_GE(theirs.crc_errors, mine.crc_errors);
    EXPECT_GE(theirs.replays, mine.replays);
    ASSERT_TRUE(CB_HAS_MEMBER(&theirs, cb_link_status, recent_error_rate));
    EXPECT_GT(theirs.recent_error_rate, 0.01) << "about 2 % of 256-byte packets take a bit error";
    EXPECT_LT(theirs.recent_error_rate, 0.05);
}

TEST_F(fault_test, BitErrorsAnotherProgramMeetsReachThisProgramsSafetyManager) {
    start();
    fault("\"bit_error_rate\":1e-5,\"shared\":true");  // posted: links opened later take it too
    runtime other(runtime_options({{"heartbeat_interval_ms", "3600000"}, {"heartbeat_timeout_ms", "3600000"}}));
    ASSERT_EQ(other.device_count(), 1) << other.startup_error();
    cbError_t e = cbSuccess;
    ASSERT_TRUE(round_trip(other, 16 << 20, e)) << cbGetErrorName(e) << ": " << cbGetLastErrorMessage();
    ASSERT_GT(other.device(0).link_status().crc_errors, 0u);
    // This program moved nothing, but its link is the same link: its supervisor sees the rate.
    dev().supervise_once();
    EXPECT_EQ(count("safety.soft_reset"), 1u);
}

TEST_F(fault_test, APersistentErrorRateClimbsTheLadderThenMarksTheDeviceFailed) {
    start({{"max_retry_count", "3"}});
    fault("\"bit_error_rate\":1e-5,\"shared\":true");
    // Another program keeps the link busy (and its errors high) whatever this one's resets do. A
    // hard reset or reconnect takes its memory too: it resets its context, as a CUDA program
    // would after cudaErrorDeviceReset, and goes on. Work of its own that this program's resets
    // abandoned (the other program follows them within tens of ms) it simply does again.
    runtime other(runtime_options({{"heartbeat_interval_ms", "3600000"}, {"heartbeat_timeout_ms", "3600000"}}));
    ASSERT_EQ(other.device_count(), 1) << other.startup_error();
    cbError_t e = cbSuccess;
    const auto keep_busy = [&] {
        for (int attempt = 0; attempt < 3; ++attempt) {
            if (round_trip(other, 8 << 20, e)) return true;
            if (e == cbErrorDeviceReset && other.reset_device() != cbSuccess) return false;
        }
        return false;
    };
    for (const char* rung : {"safety.soft_reset", "safety.hard_reset", "safety.reconnect"}) {
        ASSERT_TRUE(keep_busy()) << cbGetErrorName(e) << ": " << cbGetLastErrorMessage();
        other.device(0).link_status();  // its traffic reaches the shared counters now
        dev().supervise_once();
        EXPECT_EQ(count(rung), 1u) << rung;
    }
    ASSERT_TRUE(keep_busy()) << cbGetErrorName(e) << ": " << cbGetLastErrorMessage();
    other.device(0).link_status();
    dev().supervise_once();
    EXPECT_EQ(count("safety.mark_failed"), 1u) << "after max_retry_count attempts";
    EXPECT_EQ(dev().state(), device_state::failed);
}

TEST_F(fault_test, ALinkDropFailsTheWorkAtOnceWithLinkDown) {
    start();
    void* d = nullptr;
    ASSERT_EQ(rt->malloc(&d, 4 << 20), cbSuccess);
    std::vector<uint8_t> in(4 << 20, 0x5a);
    fault("\"link_drop_ms\":3000");
    const cbError_t e = rt->memcpy(d, in.data(), in.size(), cbMemcpyHostToDevice, nullptr, false);
    EXPECT_EQ(e, cbErrorLinkDown) << cbGetErrorName(e) << ": " << cbGetLastErrorMessage();
    std::string message = cbGetLastErrorMessage();
    std::transform(message.begin(), message.end(), message.begin(), [](unsigned char c) { return std::tolower(c); });
    EXPECT_NE(message.find("link"), std::string::npos) << message;
    void* p = nullptr;
    EXPECT_EQ(rt->malloc(&p, 16), cbErrorLinkDown) << "sticky until the device is reset";
}

TEST_F(fault_test, WhileTheLinkIsDownCallsFailAtOnceWithLinkDown) {
    // Auto recovery off: the supervisor only warns, so the link stays down after its sample.
    start({{"enable_auto_recovery", "false"}});
    fault("\"link_drop_ms\":3000");
    dev().supervise_once();
    void* p = nullptr;
    EXPECT_EQ(rt->malloc(&p, 4096), cbErrorLinkDown) << cbGetErrorName(rt->malloc(&p, 4096));
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("is down"), std::string::npos) << cbGetLastErrorMessage();
}

TEST_F(fault_test, AStuckDeviceLosesItsHeartbeatAndGetsAHardReset) {
    start();
    fault("\"stuck\":true");
    dev().supervise_once();
    const auto resets = events(rt->current_session(), "safety.hard_reset");
    ASSERT_EQ(resets.size(), 1u);
    EXPECT_NE(resets[0].data_json.find("\"ok\":true"), std::string::npos) << resets[0].message;
    // The reset dropped the GPU's memory: a clear, sticky error until cbDeviceReset.
    void* p = nullptr;
    EXPECT_EQ(rt->malloc(&p, 4096), cbErrorDeviceReset);
    EXPECT_EQ(rt->malloc(&p, 4096), cbErrorDeviceReset) << "sticky";
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("hard_reset"), std::string::npos) << cbGetLastErrorMessage();
    expect_working_after_reset();
}

// A hard reset is one event for the device, not for one program: another program attached to it
// finds its memory gone at its next call (cbErrorDeviceReset, as CUDA reports a reset) and works
// again after cbDeviceReset, with a fresh context. Neither program is reset a second time.
TEST_F(fault_test, AHardResetByOneProgramIsSeenByEveryOtherProgram) {
    start();
    runtime other(runtime_options({{"heartbeat_interval_ms", "3600000"}, {"heartbeat_timeout_ms", "3600000"}}));
    ASSERT_EQ(other.device_count(), 1) << other.startup_error();
    void* kept = nullptr;
    ASSERT_EQ(other.malloc(&kept, 4096), cbSuccess) << cbGetLastErrorMessage();
    fault("\"stuck\":true,\"shared\":true");
    dev().supervise_once();
    ASSERT_EQ(count("safety.hard_reset"), 1u);

    void* p = nullptr;
    EXPECT_EQ(other.malloc(&p, 16), cbErrorDeviceReset) << cbGetLastErrorMessage();
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("was reset"), std::string::npos) << cbGetLastErrorMessage();
    EXPECT_EQ(other.memcpy(kept, &p, sizeof p, cbMemcpyHostToDevice, nullptr, false), cbErrorDeviceReset)
        << "sticky until cbDeviceReset";
    ASSERT_EQ(other.reset_device(), cbSuccess) << cbGetLastErrorMessage();
    cbError_t e = cbSuccess;
    EXPECT_TRUE(round_trip(other, 4 << 20, e)) << cbGetErrorName(e) << ": " << cbGetLastErrorMessage();

    expect_working_after_reset();  // the program that reset it: its own reset, once
    EXPECT_TRUE(round_trip(other, 1 << 20, e)) << "not reset again: " << cbGetLastErrorMessage();
    EXPECT_TRUE(round_trip(*rt, 1 << 20, e)) << cbGetLastErrorMessage();
    EXPECT_EQ(count("safety.hard_reset"), 1u);
}

// The second reliability round's drill (8 runs of a 3 s drop under a Python loop): a
// synchronize waiting on queued work blocked 30 s, and the reconnect came at +61 s. The wait must
// end at once with the link's error, and the supervisor reconnect as soon as the link is back.
TEST_F(fault_test, ALinkDropUnderQueuedWorkEndsTheWaitAtOnceAndIsReconnected) {
    start();
    const size_t n = 8 << 20;
    void* d = nullptr;
    ASSERT_EQ(rt->malloc(&d, n), cbSuccess);
    std::vector<uint8_t> host(n, 0x5a);
    cbStream_t s = nullptr;
    ASSERT_EQ(rt->stream_create(&s, cbStreamDefault), cbSuccess);
    for (int i = 0; i < 200; ++i) {  // far more than the device finishes before the drop
        ASSERT_EQ(rt->memset(d, i & 0xff, n, s, true), cbSuccess);
        ASSERT_EQ(rt->memcpy(host.data(), d, n, cbMemcpyDeviceToHost, s, true), cbSuccess);
    }
    fault("\"link_drop_ms\":1000");
    const auto t0 = std::chrono::steady_clock::now();
    const cbError_t waited = rt->stream_synchronize(s);
    const auto waited_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_NE(waited, cbSuccess);
    EXPECT_LT(waited_ms, 30000) << "the wait ran out the fence timeout instead of hearing of the link";
    // The supervisor reconnects once the link is back (1 s of link time), and the device works.
    for (int i = 0; i < 50 && (count("safety.reconnect") == 0 || dev().state() != device_state::connected); ++i) {
        dev().supervise_once();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_GE(count("safety.reconnect"), 1u);
    EXPECT_EQ(dev().state(), device_state::connected);
    expect_working_after_reset();
}

// DART exhaustion (the second round: clear errors, but no event and no recovery): the refused
// mappings reach the policy, which hard-resets (releasing the runtime's mappings); once the IOMMU
// has room again the device works.
TEST_F(fault_test, AnExhaustedIommuReachesTheLadderAndTheDeviceWorksOnceThereIsRoom) {
    start();
    fault("\"dart_exhausted\":true");
    cbError_t e = cbSuccess;
    EXPECT_FALSE(round_trip(1 << 20, e));
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("DMA"), std::string::npos) << cbGetLastErrorMessage();
    dev().supervise_once();
    EXPECT_EQ(count("dma.refused"), 1u);
    const auto resets = events(rt->current_session(), "safety.hard_reset");
    ASSERT_EQ(resets.size(), 1u);
    EXPECT_NE(resets[0].message.find("refused by the IOMMU"), std::string::npos) << resets[0].message;
    fault("\"dart_exhausted\":false");
    expect_working_after_reset();
}

TEST_F(fault_test, ALinkDropIsReconnected) {
    start();
    fault("\"link_drop_ms\":200");
    dev().supervise_once();
    EXPECT_EQ(count("safety.reconnect"), 1u);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    if (dev().state() != device_state::connected) dev().supervise_once();  // the link came back
    EXPECT_EQ(dev().state(), device_state::connected);
    void* p = nullptr;
    EXPECT_EQ(rt->malloc(&p, 4096), cbErrorDeviceReset);
    expect_working_after_reset();
}

TEST_F(fault_test, UnplugMidCopyIsAClearErrorThenAReconnectOnceReplugged) {
    start();
    const size_t n = 32 << 20;
    std::vector<uint8_t> in(n, 0x42);
    void* d = nullptr;
    ASSERT_EQ(rt->malloc(&d, n), cbSuccess);
    fault("\"unplug_after_bytes\":8388608");
    const cbError_t e = rt->memcpy(d, in.data(), n, cbMemcpyHostToDevice, nullptr, false);
    EXPECT_TRUE(e == cbErrorDeviceLost || e == cbErrorLinkDown) << cbGetErrorName(e) << ": " << cbGetLastErrorMessage();
    EXPECT_EQ(rt->malloc(&d, 16), e) << "loss is sticky";
    dev().supervise_once();  // unplugged: the reconnect fails
    auto tries = events(rt->current_session(), "safety.reconnect");
    ASSERT_EQ(tries.size(), 1u);
    EXPECT_NE(tries[0].data_json.find("\"ok\":false"), std::string::npos) << tries[0].message;
    control(rt->current_session(), R"({"op":"plug","id":")" + enclosure + "\"}");
    dev().supervise_once();
    tries = events(rt->current_session(), "safety.reconnect");
    ASSERT_EQ(tries.size(), 2u);
    EXPECT_NE(tries[0].data_json.find("\"ok\":true"), std::string::npos) << tries[0].message;  // newest first
    expect_working_after_reset();
}

TEST_F(fault_test, RecoveryGivesUpAfterMaxRetriesAndStaysFailedUntilAManualReset) {
    start({{"max_retry_count", "2"}});
    control(rt->current_session(), R"({"op":"unplug","id":")" + enclosure + "\"}");
    for (int i = 0; i < 4; ++i) dev().supervise_once();
    EXPECT_EQ(count("safety.reconnect"), 2u);
    EXPECT_EQ(count("safety.mark_failed"), 1u);
    EXPECT_EQ(dev().state(), device_state::failed);
    EXPECT_TRUE(callback_saw("safety.mark_failed"));
    dev().supervise_once();
    EXPECT_EQ(dev().state(), device_state::failed) << "stays failed";
    void* p = nullptr;
    EXPECT_NE(rt->malloc(&p, 16), cbSuccess);
    control(rt->current_session(), R"({"op":"plug","id":")" + enclosure + "\"}");
    expect_working_after_reset();
    EXPECT_EQ(count("safety.manual_reset"), 1u);
}

// One program's policy marks the stuck device failed (max_retry_count 0: at the first fault). The
// mark is the device's: another program attached to it refuses work with that reason, its own
// policy does not mark it again, and a manual reset there clears the mark for both.
TEST_F(fault_test, AFailedMarkRefusesWorkInEveryProcessUntilAManualResetInAnyOfThem) {
    start({{"max_retry_count", "0"}});
    runtime other(runtime_options({{"heartbeat_interval_ms", "3600000"}, {"heartbeat_timeout_ms", "3600000"}}));
    ASSERT_EQ(other.device_count(), 1) << other.startup_error();
    fault("\"stuck\":true,\"shared\":true");
    past_the_fabric_sync();  // the other program's link hangs too
    dev().supervise_once();
    ASSERT_EQ(dev().state(), device_state::failed);
    void* p = nullptr;
    EXPECT_NE(other.malloc(&p, 16), cbSuccess);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("marked failed"), std::string::npos) << cbGetLastErrorMessage();
    other.device(0).supervise_once();
    EXPECT_EQ(count("safety.mark_failed"), 1u) << "one mark for the device";

    ASSERT_EQ(other.reset_device(), cbSuccess) << cbGetLastErrorMessage();
    ASSERT_EQ(other.malloc(&p, 16), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(other.free(p), cbSuccess);
    past_the_fabric_sync();
    dev().supervise_once();  // this program learns of the reset at its next sample
    EXPECT_EQ(dev().state(), device_state::connected);
    EXPECT_EQ(rt->malloc(&p, 16), cbErrorDeviceReset) << "its context went with the reset";
    expect_working_after_reset();
}

// `monitor`, `query -l` and `status` only look. One that met the device lost opens the GPU again
// once another program's policy reset it, as nvidia-smi's next reading shows a reset GPU.
TEST_F(fault_test, AnObserverSeesTheGpuAgainAfterAnotherProgramsResetEndedAHang) {
    start();
    host::runtime_options o = runtime_options({{"heartbeat_interval_ms", "3600000"}});
    o.observe = true;
    runtime watcher(std::move(o));
    ASSERT_EQ(watcher.device_count(), 1) << watcher.startup_error();
    host::device& look = watcher.device(0);
    cb_gpu_telemetry t{};
    ASSERT_EQ(look.read_telemetry(t), CB_OK) << core::last_error();

    fault("\"stuck\":true,\"shared\":true");
    past_the_fabric_sync();
    look.supervise_once();
    EXPECT_EQ(look.read_telemetry(t), CB_ERR_DEVICE_LOST);
    EXPECT_EQ(count("safety.hard_reset"), 0u) << "an observer resets nothing";
    dev().supervise_once();  // the program's policy resets the device
    ASSERT_EQ(count("safety.hard_reset"), 1u);
    past_the_fabric_sync();
    look.supervise_once();
    EXPECT_EQ(look.read_telemetry(t), CB_OK) << core::last_error();
    EXPECT_EQ(count("safety.hard_reset"), 1u);
}

TEST_F(fault_test, OverTheThermalLimitIsAnEmergencyStop) {
    // The simulated board idles above 20 °C: a lowered limit is a thermal runaway.
    start({{"thermal_limit", "20"}});
    dev().supervise_once();
    EXPECT_EQ(count("safety.emergency_stop"), 1u);
    EXPECT_EQ(dev().state(), device_state::emergency_stop);
    EXPECT_TRUE(callback_saw("safety.emergency_stop"));
    void* p = nullptr;
    EXPECT_EQ(rt->malloc(&p, 16), cbErrorThermalLimit);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("thermal"), std::string::npos) << cbGetLastErrorMessage();
    dev().supervise_once();
    EXPECT_EQ(count("safety.emergency_stop"), 1u) << "one stop, not one per sample";
    EXPECT_EQ(dev().state(), device_state::emergency_stop) << "no restart while still hot";
}

// This runtime's policy stops the device (its limit is below the board's idle temperature);
// then another program attaches to the same connection, with the standard limit (90 C).
class emergency_stop_test : public fault_test {
protected:
    void SetUp() override {
        start({{"thermal_limit", "20"}});
        dev().supervise_once();
        ASSERT_EQ(dev().state(), device_state::emergency_stop);
        second_ = std::make_unique<runtime>(
            runtime_options({{"heartbeat_interval_ms", "3600000"}, {"heartbeat_timeout_ms", "3600000"}}));
        ASSERT_EQ(second_->device_count(), 1) << second_->startup_error();
    }
    void TearDown() override {
        second_.reset();
        fault_test::TearDown();
    }
    std::unique_ptr<runtime> second_;  // the other program
};

TEST_F(emergency_stop_test, AnEmergencyStopHoldsNewWorkInEveryProcessUntilAPolicyResumesIt) {
    // After the stop was recorded, vector_add and benchmark --quick in other processes still ran.
    runtime& other = *second_;
    void* p = nullptr;
    EXPECT_EQ(other.malloc(&p, 16), cbErrorThermalLimit);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("emergency stop"), std::string::npos)
        << cbGetLastErrorMessage();
    // Its own policy sees the stop and the GPU well under its limit: it resumes, for everyone.
    other.device(0).supervise_once();
    ASSERT_EQ(other.malloc(&p, 16), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(other.free(p), cbSuccess);
    EXPECT_GE(count("safety.resume"), 1u);
}

TEST_F(emergency_stop_test, AManualResetInAnotherProcessEndsAnEmergencyStop) {
    runtime& other = *second_;
    void* p = nullptr;
    ASSERT_EQ(other.malloc(&p, 16), cbErrorThermalLimit);
    ASSERT_EQ(other.device(0).manual_reset(false), CB_OK) << core::last_error();
    ASSERT_EQ(other.malloc(&p, 16), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(other.free(p), cbSuccess);
}

}  // namespace
}  // namespace cudabridge::test
