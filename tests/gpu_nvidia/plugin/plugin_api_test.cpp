// The nvidia family's table on the simulated GPU: identity, memory, copies, streams and events,
// management, handle checking, model requests, device loss and the kernel-driver backend's
// "not available here" answer.
#include "gpu_fixture.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/store.hpp>
#include <cudabridge/host/gpu_profile_seed.hpp>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <random>
#include <thread>

namespace cudabridge::test {
namespace {

class nvidia_plugin : public gpu_test {};

std::vector<uint8_t> random_bytes(size_t n, unsigned seed) {
    std::vector<uint8_t> v(n);
    std::mt19937 rng(seed);
    for (auto& b : v) b = static_cast<uint8_t>(rng());
    return v;
}

TEST_F(nvidia_plugin, ClaimsNvidiaDisplayFunctionsOnly) {
    gpu = reg->create(CB_KIND_GPU, "nvidia", {{"cuda_library", "/nonexistent/libcuda.so.1"}});
    cb_endpoint_info e{};
    e.struct_size = sizeof e;
    e.kind = CB_ENDPOINT_PCI_FUNCTION;
    e.pci_vendor_id = 0x10de;
    e.pci_class_code = 0x030000;
    cb_bool claim = 0;
    ASSERT_EQ(g()->claim(gh(), &e, &claim), CB_OK);
    EXPECT_EQ(claim, 1);
    e.pci_class_code = 0x040300;  // the HDMI audio function of the same card
    ASSERT_EQ(g()->claim(gh(), &e, &claim), CB_OK);
    EXPECT_EQ(claim, 0);
    e.pci_class_code = 0x030200;
    e.pci_vendor_id = 0x1002;
    ASSERT_EQ(g()->claim(gh(), &e, &claim), CB_OK);
    EXPECT_EQ(claim, 0);
}

TEST_F(nvidia_plugin, KernelDriverAbsentMeansNoDevicesAndAClearError) {
    gpu = reg->create(CB_KIND_GPU, "nvidia", {{"cuda_library", "/nonexistent/libcuda.so.1"}});
    uint32_t count = 99;
    ASSERT_EQ(g()->device_count(gh(), &count), CB_OK);
    EXPECT_EQ(count, 0u);
    cb_gpu_open_params p{};
    p.struct_size = sizeof p;
    p.ordinal = 0;
    cb_gpu_device* d = nullptr;
    EXPECT_NE(g()->open_device(gh(), &p, &d), CB_OK);
    EXPECT_EQ(d, nullptr);
    EXPECT_FALSE(core::last_error().empty());
    p.ordinal = -1;  // neither a link nor an ordinal
    EXPECT_EQ(g()->open_device(gh(), &p, &d), CB_ERR_INVALID_ARGUMENT);
}

TEST_F(nvidia_plugin, PropertiesDescribeTheSimulatedRtx5090) {
    bring_up();
    cb_gpu_properties p{};
    p.struct_size = sizeof p;
    ASSERT_EQ(g()->get_properties(gh(), dev, &p), CB_OK) << core::last_error();
    EXPECT_EQ(p.is_simulated, 1);
    EXPECT_STREQ(p.name, "NVIDIA GeForce RTX 5090");
    EXPECT_STREQ(p.architecture, "Blackwell");
    EXPECT_STREQ(p.backend, "userspace");
    EXPECT_EQ(p.pci_vendor_id, 0x10de);
    EXPECT_EQ(p.pci_device_id, 0x2b85);
    EXPECT_EQ(p.total_memory, 32ull << 30);
    EXPECT_EQ(p.compute_major, 12);
    EXPECT_GT(p.sm_count, 0u);
    EXPECT_EQ(std::string(p.pci_bus_id), function_id());
    EXPECT_EQ(std::strlen(p.uuid), 40u) << p.uuid;
    EXPECT_EQ(std::string(p.uuid).substr(0, 4), "GPU-");
    uint64_t free = 0, total = 0;
    ASSERT_EQ(g()->mem_info(gh(), dev, &free, &total), CB_OK);
    EXPECT_EQ(total, 32ull << 30);
    EXPECT_LE(free, total);
}

TEST_F(nvidia_plugin, ModelRequestsByKeyIdOrInFullAndBadOnesRefused) {
    bring_up({}, R"({"pci_device_id":9860})");  // 0x2684: RTX 4090
    cb_gpu_properties p{};
    p.struct_size = sizeof p;
    ASSERT_EQ(g()->get_properties(gh(), dev, &p), CB_OK);
    EXPECT_STREQ(p.name, "NVIDIA GeForce RTX 4090");
    void* m = nullptr;
    const cb_endpoint_model_table* table = nullptr;
    EXPECT_EQ(g()->create_endpoint_model(gh(), "not json", &m, &table), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g()->create_endpoint_model(gh(), R"({"key":"rtx-9999"})", &m, &table), CB_ERR_NOT_FOUND);
    EXPECT_NE(core::last_error().find("rtx-9999"), std::string::npos);
    EXPECT_EQ(g()->create_endpoint_model(gh(), R"({"key":"rtx-4090","vram_bytes":5})", &m, &table),
              CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g()->destroy_endpoint_model(gh(), &p), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g()->create_endpoint_model(gh(), R"({"key":"rtx-4090","pcie_link_gen":9})", &m, &table),
              CB_ERR_INVALID_ARGUMENT);
    // Integers past INT64_MAX are refused as out of range, not thrown out of Poco as
    // CB_ERR_INTERNAL; booleans are not integers (found by tests/fuzz/control_request_fuzzer).
    EXPECT_EQ(
        g()->create_endpoint_model(gh(), R"({"key":"rtx-4090","pcie_link_gen":18446744073709551615})", &m, &table),
        CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g()->create_endpoint_model(gh(), R"({"pci_device_id":18446744073709551615})", &m, &table),
              CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g()->create_endpoint_model(gh(), R"({"key":"rtx-4090","pcie_link_width":true})", &m, &table),
              CB_ERR_INVALID_ARGUMENT);
}

TEST_F(nvidia_plugin, ThePcieLinkTheEnclosureTrainedToIsReported) {
    bring_up({}, R"({"key":"rtx-5090","pcie_link_gen":4,"pcie_link_width":4})");
    cb_gpu_telemetry t{};
    t.struct_size = sizeof t;
    ASSERT_EQ(g()->get_telemetry(gh(), dev, &t), CB_OK) << core::last_error();
    EXPECT_EQ(t.pcie_link_gen, 4u);
    EXPECT_EQ(t.pcie_link_width, 4u);
}

TEST_F(nvidia_plugin, CopiesOfEverySizeRoundTripBitExact) {
    bring_up();
    const uint64_t buf = alloc(1 << 20);
    for (size_t size : {size_t{0}, size_t{1}, size_t{3}, size_t{4095}, size_t{4097}, size_t{65537}, size_t{1 << 20}}) {
        auto src = random_bytes(size + 7, static_cast<unsigned>(size));
        const size_t offset = size ? (size % 7) : 0;  // unaligned host and device offsets
        const size_t n = std::min<size_t>(size, (1 << 20) - offset);
        ASSERT_EQ(g()->memcpy_h2d(gh(), dev, buf + offset, src.data() + offset, n, nullptr), CB_OK)
            << size << ": " << core::last_error();
        std::vector<uint8_t> back(n + 1, 0xEE);
        ASSERT_EQ(g()->memcpy_d2h(gh(), dev, back.data(), buf + offset, n, nullptr), CB_OK) << core::last_error();
        EXPECT_EQ(0, std::memcmp(back.data(), src.data() + offset, n)) << size;
        EXPECT_EQ(back[n], 0xEE) << "wrote past the end";
    }
    // Device to device and memset.
    const uint64_t other = alloc(4096);
    auto src = random_bytes(4096, 9);
    upload(buf, src.data(), src.size());
    ASSERT_EQ(g()->memcpy_d2d(gh(), dev, other, buf, 4096, nullptr), CB_OK);
    ASSERT_EQ(g()->memset8(gh(), dev, other + 100, 0x5A, 50, nullptr), CB_OK);
    std::vector<uint8_t> back(4096);
    download(back.data(), other, back.size());
    for (size_t i = 0; i < 4096; ++i) ASSERT_EQ(back[i], (i >= 100 && i < 150) ? 0x5A : src[i]) << i;
    // Out of range copies are refused.
    EXPECT_EQ(g()->memcpy_h2d(gh(), dev, other + 4000, src.data(), 4096, nullptr), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g()->memcpy_h2d(gh(), dev, buf, nullptr, 16, nullptr), CB_ERR_INVALID_ARGUMENT);
}

TEST_F(nvidia_plugin, AllocatingUntilFullGivesOutOfMemoryThenRecovers) {
    bring_up();
    std::vector<uint64_t> blocks;
    cb_status st = CB_OK;
    while (blocks.size() < 64) {
        uint64_t p = 0;
        st = g()->mem_alloc(gh(), dev, 3ull << 30, &p);  // reserved lazily: nothing is committed
        if (st != CB_OK) break;
        blocks.push_back(p);
    }
    EXPECT_EQ(st, CB_ERR_OUT_OF_MEMORY) << core::last_error();
    EXPECT_EQ(blocks.size(), 10u);  // 32 GiB / 3 GiB
    for (auto p : blocks) EXPECT_EQ(g()->mem_free(gh(), dev, p), CB_OK);
    uint64_t p = 0;
    EXPECT_EQ(g()->mem_alloc(gh(), dev, 30ull << 30, &p), CB_OK);
    EXPECT_EQ(g()->mem_free(gh(), dev, p), CB_OK);
    EXPECT_EQ(g()->mem_free(gh(), dev, p), CB_ERR_INVALID_ARGUMENT);  // double free
}

TEST_F(nvidia_plugin, StreamsEventsAndLaunchesCompleteInOrder) {
    bring_up();
    const int64_t n = 1 << 16;
    const uint64_t a = alloc(n * 4), b = alloc(n * 4), out = alloc(n * 4), total = alloc(8);
    cb_gpu_stream* s = nullptr;
    ASSERT_EQ(g()->stream_create(gh(), dev, &s), CB_OK);
    cb_gpu_event *start = nullptr, *end = nullptr;
    ASSERT_EQ(g()->event_create(gh(), dev, &start), CB_OK);
    ASSERT_EQ(g()->event_create(gh(), dev, &end), CB_OK);
    ASSERT_EQ(g()->event_record(gh(), start, s), CB_OK);
    auto da = sdk::contiguous_tensor(a, CB_DTYPE_FLOAT32, {n});
    auto db = sdk::contiguous_tensor(b, CB_DTYPE_FLOAT32, {n});
    auto dout = sdk::contiguous_tensor(out, CB_DTYPE_FLOAT32, {n});
    auto dtotal = sdk::contiguous_tensor(total, CB_DTYPE_FLOAT64, {});
    std::vector<cb_kernel_arg> fill_a = {sdk::tensor_arg(da), sdk::float64_arg(1.5)},
                               fill_b = {sdk::tensor_arg(db), sdk::float64_arg(2.0)};
    std::vector<cb_kernel_arg> add = {sdk::tensor_arg(da), sdk::tensor_arg(db), sdk::tensor_arg(dout)};
    auto dsum = sdk::contiguous_tensor(total, CB_DTYPE_FLOAT32, {});
    std::vector<cb_kernel_arg> sum = {sdk::tensor_arg(dout), sdk::tensor_arg(dsum), sdk::int64_arg(CB_REDUCE_ALL_AXES)};
    for (auto* l : {&fill_a, &fill_b}) {
        auto launch = sdk::builtin_launch("fill", CB_DTYPE_FLOAT32, *l);
        ASSERT_EQ(g()->launch_builtin(gh(), dev, &launch, s), CB_OK) << core::last_error();
    }
    auto launch_add = sdk::builtin_launch("add", CB_DTYPE_FLOAT32, add);
    ASSERT_EQ(g()->launch_builtin(gh(), dev, &launch_add, s), CB_OK) << core::last_error();
    auto launch_sum = sdk::builtin_launch("sum", CB_DTYPE_FLOAT32, sum);
    ASSERT_EQ(g()->launch_builtin(gh(), dev, &launch_sum, s), CB_OK) << core::last_error();
    ASSERT_EQ(g()->event_record(gh(), end, s), CB_OK);
    ASSERT_EQ(g()->stream_synchronize(gh(), s), CB_OK) << core::last_error();
    EXPECT_EQ(g()->stream_query(gh(), s), CB_OK);
    EXPECT_EQ(g()->event_query(gh(), end), CB_OK);
    float ms = -1;
    ASSERT_EQ(g()->event_elapsed_ms(gh(), start, end, &ms), CB_OK) << core::last_error();
    EXPECT_GE(ms, 0.0f);
    float result = 0;
    download(&result, total, sizeof result);
    EXPECT_EQ(result, 3.5f * n);
    (void)dtotal;
    // A tensor outside every allocation is refused before it reaches the device.
    auto wild = sdk::contiguous_tensor(out + (1ull << 30), CB_DTYPE_FLOAT32, {n});
    std::vector<cb_kernel_arg> bad = {sdk::tensor_arg(da), sdk::tensor_arg(db), sdk::tensor_arg(wild)};
    auto launch_bad = sdk::builtin_launch("add", CB_DTYPE_FLOAT32, bad);
    EXPECT_EQ(g()->launch_builtin(gh(), dev, &launch_bad, s), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g()->event_destroy(gh(), start), CB_OK);
    EXPECT_EQ(g()->event_destroy(gh(), end), CB_OK);
    EXPECT_EQ(g()->stream_destroy(gh(), s), CB_OK);
    EXPECT_EQ(g()->device_synchronize(gh(), dev), CB_OK);
}

TEST_F(nvidia_plugin, StaleAndForeignHandlesAreRefused) {
    bring_up();
    cb_gpu_stream* s = nullptr;
    ASSERT_EQ(g()->stream_create(gh(), dev, &s), CB_OK);
    ASSERT_EQ(g()->stream_destroy(gh(), s), CB_OK);
    EXPECT_EQ(g()->stream_synchronize(gh(), s), CB_ERR_INVALID_ARGUMENT);
    int junk = 0;
    EXPECT_EQ(g()->get_properties(gh(), reinterpret_cast<cb_gpu_device*>(&junk), nullptr), CB_ERR_INVALID_ARGUMENT);
    cb_gpu_telemetry t{};
    t.struct_size = sizeof t;
    EXPECT_EQ(g()->get_telemetry(gh(), reinterpret_cast<cb_gpu_device*>(&junk), &t), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g()->close_device(gh(), reinterpret_cast<cb_gpu_device*>(&junk)), CB_ERR_INVALID_ARGUMENT);
}

// Destroying a handle twice at once, from two threads: one destroy wins, the other is refused,
// and the backend object is destroyed once (a reference kept past the check would be freed
// under the loser).
TEST_F(nvidia_plugin, ConcurrentDestroysOfOneHandleDestroyItOnce) {
    bring_up();
    for (int round = 0; round < 200; ++round) {
        cb_gpu_stream* s = nullptr;
        cb_gpu_event* e = nullptr;
        ASSERT_EQ(g()->stream_create(gh(), dev, &s), CB_OK);
        ASSERT_EQ(g()->event_create(gh(), dev, &e), CB_OK);
        cb_status stream_answers[2], event_answers[2];
        std::thread a([&] {
            stream_answers[0] = g()->stream_destroy(gh(), s);
            event_answers[0] = g()->event_destroy(gh(), e);
        });
        std::thread b([&] {
            stream_answers[1] = g()->stream_destroy(gh(), s);
            event_answers[1] = g()->event_destroy(gh(), e);
        });
        a.join();
        b.join();
        for (const cb_status* answers : {stream_answers, event_answers}) {
            EXPECT_TRUE((answers[0] == CB_OK) != (answers[1] == CB_OK)) << answers[0] << " " << answers[1];
            EXPECT_EQ(answers[0] + answers[1], CB_ERR_INVALID_ARGUMENT);  // the loser's answer
        }
    }
    EXPECT_EQ(g()->device_synchronize(gh(), dev), CB_OK);
}

// Closing a device while other threads are inside a copy and a synchronize on it: the close
// answers CB_OK, and each call in flight ends with CB_OK (it holds the device until it finishes)
// or with CB_ERR_INVALID_ARGUMENT (it came after the close and finds no device); nothing hangs
// (ctest's timeout would say so). Rounds let the close land at different points of the calls.
TEST_F(nvidia_plugin, ClosingADeviceWhileACopyOrSynchronizeRunsEndsEveryCallCleanly) {
    const size_t bytes = 4 << 20;
    const std::vector<uint8_t> data(bytes, 0x5A);
    for (int round = 0; round < 3; ++round) {
        if (round > 0) tear_down();
        bring_up();
        const uint64_t buf = alloc(bytes);
        cb_gpu_stream* s = nullptr;
        ASSERT_EQ(g()->stream_create(gh(), dev, &s), CB_OK);
        cb_gpu_device* const closing = dev;
        std::atomic<int> calls{0};
        // Calls until one is refused; every answer is kept to be checked on this thread.
        auto keep_calling = [&](auto call) {
            std::vector<cb_status> answers;
            do {
                answers.push_back(call());
                ++calls;
            } while (answers.back() == CB_OK);
            return answers;
        };
        std::vector<cb_status> copies, syncs;
        std::thread copier(
            [&] { copies = keep_calling([&] { return g()->memcpy_h2d(gh(), closing, buf, data.data(), bytes, s); }); });
        std::thread syncer([&] {
            syncs = keep_calling([&] {
                const cb_status st = g()->stream_synchronize(gh(), s);
                return st != CB_OK ? st : g()->device_synchronize(gh(), closing);
            });
        });
        while (calls.load() < 2 + 4 * round) std::this_thread::yield();
        EXPECT_EQ(g()->close_device(gh(), closing), CB_OK) << core::last_error();
        dev = nullptr;  // closed here, not by tear_down
        copier.join();
        syncer.join();
        for (const auto* answers : {&copies, &syncs}) {
            ASSERT_FALSE(answers->empty());
            for (size_t i = 0; i + 1 < answers->size(); ++i) EXPECT_EQ((*answers)[i], CB_OK) << i;
            EXPECT_EQ(answers->back(), CB_ERR_INVALID_ARGUMENT) << "round " << round;  // the last sees no device
        }
    }
}

TEST_F(nvidia_plugin, TelemetryIsModeledAndSettingsAreBounded) {
    bring_up();
    cb_gpu_telemetry t{};
    t.struct_size = sizeof t;
    ASSERT_EQ(g()->get_telemetry(gh(), dev, &t), CB_OK) << core::last_error();
    EXPECT_EQ(t.is_simulated, 1);
    EXPECT_GT(t.temperature_c, 0.0);
    EXPECT_GT(t.power_limit_w, 0.0);
    EXPECT_EQ(t.memory_total, 32ull << 30);
    cb_gpu_setting_limits l{};
    l.struct_size = sizeof l;
    ASSERT_EQ(g()->get_setting_limits(gh(), dev, &l), CB_OK);
    EXPECT_LT(l.min_power_w, l.max_power_w);
    cb_gpu_settings s{};
    s.struct_size = sizeof s;
    s.fields = CB_SET_POWER_LIMIT;
    s.power_limit_w = l.min_power_w;
    ASSERT_EQ(g()->apply_settings(gh(), dev, &s), CB_OK) << core::last_error();
    ASSERT_EQ(g()->get_telemetry(gh(), dev, &t), CB_OK);
    EXPECT_NEAR(t.power_limit_w, l.min_power_w, 0.01);
    s.power_limit_w = l.max_power_w + 100;
    EXPECT_EQ(g()->apply_settings(gh(), dev, &s), CB_ERR_INVALID_ARGUMENT);
    EXPECT_FALSE(core::last_error().empty());
    cb_gpu_settings now{};
    now.struct_size = sizeof now;
    ASSERT_EQ(g()->get_settings(gh(), dev, &now), CB_OK);
    EXPECT_NEAR(now.power_limit_w, l.min_power_w, 0.01);
    uint64_t beat1 = 0, beat2 = 0;
    ASSERT_EQ(g()->heartbeat(gh(), dev, &beat1), CB_OK);
    ASSERT_EQ(g()->heartbeat(gh(), dev, &beat2), CB_OK);
    EXPECT_GE(beat2, beat1);
    // The live state is shared through a file in the state folder (beside the database).
    bool found = false;
    for (const auto& e : std::filesystem::directory_iterator(tmp.path())) found |= e.path().extension() == ".live";
    EXPECT_TRUE(found);
}

TEST_F(nvidia_plugin, UnplugTurnsEveryCallIntoDeviceLostWithoutHanging) {
    bring_up({{"timeout_ms", "2000"}});
    const uint64_t buf = alloc(4096);
    std::string reply(64 * 1024, '\0');
    size_t needed = 0;
    const std::string request = R"({"op":"unplug","id":")" + enclosure_id() + "\"}";
    ASSERT_EQ(t()->control(th(), request.c_str(), reply.data(), reply.size(), &needed), CB_OK) << core::last_error();
    std::vector<uint8_t> data(4096, 1);
    EXPECT_EQ(g()->memcpy_h2d(gh(), dev, buf, data.data(), data.size(), nullptr), CB_ERR_DEVICE_LOST);
    uint64_t beat = 0;
    EXPECT_EQ(g()->heartbeat(gh(), dev, &beat), CB_ERR_DEVICE_LOST);
    EXPECT_EQ(g()->device_synchronize(gh(), dev), CB_ERR_DEVICE_LOST);
}

TEST_F(nvidia_plugin, SeedsTheStoreWithEveryModelProfileAndItsSources) {
    gpu = reg->create(CB_KIND_GPU, "nvidia", {{"cuda_library", "/nonexistent/libcuda.so.1"}});
    // The host seeds the store from the family; seeding again replaces.
    EXPECT_EQ(host::seed_gpu_profiles(*database, g(), gh(), "nvidia"), 18u);
    EXPECT_EQ(host::seed_gpu_profiles(*database, g(), gh(), "nvidia"), 18u);
    auto rows = core::list_gpu_profiles(*database);
    ASSERT_EQ(rows.size(), 18u);
    auto rtx5090 = core::find_gpu_profile(*database, 0x2b85);
    ASSERT_TRUE(rtx5090.has_value());
    EXPECT_EQ(rtx5090->key, "rtx-5090");
    EXPECT_EQ(rtx5090->name, "NVIDIA GeForce RTX 5090");
    EXPECT_NE(rtx5090->data.find("\"sources\""), std::string::npos);
    EXPECT_NE(rtx5090->data.find("docs/gpu-profiles.md"), std::string::npos);
    for (const auto& key : {"rtx-3090", "rtx-4090", "rtx-a4000", "rtx-a6000", "l4", "a100-pcie-40gb", "h100-pcie"})
        EXPECT_TRUE(core::find_gpu_profile_by_key(*database, key).has_value()) << key;
    // One profile by key, and unknown ops and keys refused.
    std::string reply(64 * 1024, '\0');
    size_t needed = 0;
    ASSERT_EQ(g()->control(gh(), R"({"op":"profile","key":"l4"})", reply.data(), reply.size(), &needed), CB_OK);
    EXPECT_NE(reply.find("NVIDIA L4"), std::string::npos);
    EXPECT_EQ(g()->control(gh(), R"({"op":"dance"})", reply.data(), reply.size(), &needed), CB_ERR_UNSUPPORTED);
    EXPECT_EQ(g()->control(gh(), R"({"op":"profile","key":"nope"})", reply.data(), reply.size(), &needed),
              CB_ERR_NOT_FOUND);
    EXPECT_EQ(g()->control(gh(), "[1,2", reply.data(), reply.size(), &needed), CB_ERR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace cudabridge::test
