// A wait judges progress, not age: work that keeps moving (a deep queue, a long kernel whose blocks
// keep finishing) is waited for past the driver's timeout; work that stops moving times out after
// it; and a reset ends a wait on hung work at once instead of after the timeout.
#include "sim_bench.hpp"
#include "test_kernels.hpp"

#include "userspace/driver/device_objects.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace cudabridge::test {
namespace {

namespace tk = cb_test_kernels;

constexpr uint64_t short_timeout_ms = 200;

cb_kernel_arg int_arg(int64_t v) {
    cb_kernel_arg a{};
    a.type = CB_ARG_INT64;
    a.value.i64 = v;
    return a;
}

cb_kernel_launch one_dim(const char* name, const std::vector<cb_kernel_arg>& args, uint32_t blocks) {
    cb_kernel_launch l{};
    l.struct_size = sizeof l;
    l.name = name;
    l.grid[0] = blocks;
    l.grid[1] = l.grid[2] = 1;
    l.block[0] = l.block[1] = l.block[2] = 1;
    l.args = args.data();
    l.arg_count = args.size();
    return l;
}

class progress_test : public ::testing::Test {
protected:
    explicit progress_test(uint64_t timeout_ms = short_timeout_ms) {
        o_.driver.timeout_ms = timeout_ms;
        bench_ = std::make_unique<sim_bench>(o_);
        const cb_host_kernel_module image = tk::module();
        std::string log;
        EXPECT_EQ(gpu().module_load(&image, sizeof image, CB_MODULE_HOST_KERNELS, module_, log, error_), CB_OK)
            << error_;
    }
    nv::userspace_device& gpu() { return bench_->gpu(); }

    // Queues, on a new stream `s`, a one-block kernel that holds the engine until `gate` opens.
    void hold_engine(tk::gate& gate, nv::userspace_stream*& s) {
        uint64_t out = 0;
        ASSERT_EQ(gpu().mem_alloc(64, out, error_), CB_OK) << error_;
        cb_kernel_arg g{}, o{};
        g.type = CB_ARG_UINT64;
        g.value.u64 = reinterpret_cast<uintptr_t>(&gate);
        o.type = CB_ARG_DEVICE_PTR;
        o.value.device_ptr = out;
        const std::vector<cb_kernel_arg> args = {g, o, int_arg(4)};
        ASSERT_EQ(gpu().stream_create(s, error_), CB_OK) << error_;
        ASSERT_EQ(gpu().launch_kernel(module_, one_dim("wait_for_gate", args, 1), s, error_), CB_OK) << error_;
    }

    bench_options o_;
    std::unique_ptr<sim_bench> bench_;
    nv::userspace_module* module_ = nullptr;
    std::string error_;
};

TEST_F(progress_test, TheCounterMovesWithEveryCommandAndBlock) {
    uint64_t before = 0, after = 0;
    ASSERT_EQ(gpu().progress(before, error_), CB_OK) << error_;
    const std::vector<cb_kernel_arg> args = {int_arg(0)};
    const cb_kernel_launch l = one_dim("serial_sleep", args, 5);
    ASSERT_EQ(gpu().launch_kernel(module_, l, nullptr, error_), CB_OK) << error_;
    ASSERT_EQ(gpu().device_synchronize(error_), CB_OK) << error_;
    ASSERT_EQ(gpu().progress(after, error_), CB_OK) << error_;
    EXPECT_GE(after - before, 6u) << "five blocks and the command that carried them";
}

// Thirty launches of 20 ms each: over half a second of work on one queue, three times the
// driver's timeout, retiring a command every 20 ms.
TEST_F(progress_test, ADeepQueueThatKeepsRetiringIsWaitedForPastTheTimeout) {
    const std::vector<cb_kernel_arg> args = {int_arg(20)};
    const cb_kernel_launch l = one_dim("serial_sleep", args, 1);
    for (int i = 0; i < 30; ++i) ASSERT_EQ(gpu().launch_kernel(module_, l, nullptr, error_), CB_OK) << error_;
    EXPECT_EQ(gpu().device_synchronize(error_), CB_OK) << error_;
}

// One launch whose thirty blocks take 20 ms each, one after another: one command, moving.
TEST_F(progress_test, ALongKernelWhoseBlocksKeepFinishingIsWaitedForPastTheTimeout) {
    const std::vector<cb_kernel_arg> args = {int_arg(20)};
    const cb_kernel_launch l = one_dim("serial_sleep", args, 30);
    ASSERT_EQ(gpu().launch_kernel(module_, l, nullptr, error_), CB_OK) << error_;
    EXPECT_EQ(gpu().device_synchronize(error_), CB_OK) << error_;
}

// A block that never ends: no command retires, no block starts. The wait gives up after the
// timeout of no progress, and says so.
TEST_F(progress_test, WorkThatStopsMovingTimesOut) {
    tk::gate gate;
    nv::userspace_stream* s = nullptr;
    ASSERT_NO_FATAL_FAILURE(hold_engine(gate, s));
    EXPECT_EQ(gpu().stream_synchronize(s, error_), CB_ERR_TIMEOUT);
    EXPECT_NE(error_.find("made no progress for 200 ms"), std::string::npos) << error_;
    EXPECT_FALSE(gate.kernel_done.load()) << "the kernel was still held when the wait gave up";
    gate.open.store(true);
    EXPECT_EQ(gpu().stream_synchronize(s, error_), CB_OK) << error_;
}

class reset_during_wait_test : public progress_test {
protected:
    reset_during_wait_test() : progress_test(20000) {}
};

// A wait on hung work ends as soon as a reset is written, not when its own timeout runs out: here
// the wait returns while the hung block still holds the engine, long before its 20 s timeout.
TEST_F(reset_during_wait_test, AResetEndsAWaitOnHungWorkAtOnce) {
    tk::gate gate;
    nv::userspace_stream* s = nullptr;
    ASSERT_NO_FATAL_FAILURE(hold_engine(gate, s));
    while (!gate.kernel_started.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));

    std::atomic<bool> wait_done{false};
    cb_status waited = CB_OK;
    std::string wait_error;
    std::thread waiter([&] {
        waited = gpu().stream_synchronize(s, wait_error);
        wait_done.store(true);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let it block
    cb_status reset = CB_ERR_INTERNAL;
    std::string reset_error;
    std::thread resetter([&] { reset = gpu().reset(CB_RESET_SOFT, reset_error); });
    // The wait must end while the block is still held (the gate is not open yet).
    for (int i = 0; i < 15000 && !wait_done.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_TRUE(wait_done.load()) << "the wait outlived the reset by 15 s";
    EXPECT_FALSE(gate.kernel_done.load());
    gate.open.store(true);
    waiter.join();
    resetter.join();
    EXPECT_NE(waited, CB_OK);
    EXPECT_NE(wait_error.find("abandoned by a soft reset"), std::string::npos) << wait_error;
    EXPECT_EQ(reset, CB_OK) << reset_error;
    uint64_t after = 0;
    ASSERT_EQ(gpu().mem_alloc(64, after, error_), CB_OK) << error_;
    EXPECT_EQ(gpu().memset8(after, 1, 64, nullptr, error_), CB_OK) << error_;
}

}  // namespace
}  // namespace cudabridge::test
