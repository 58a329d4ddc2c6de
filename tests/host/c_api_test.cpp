// The C layers as an application uses them: egpu_safety.h (the seed's flow) and cudabridge.h over
// the process's one runtime. Each test points CUDABRIDGE_HOME at its own folder and shuts the
// runtime down at the end.
#include "host_fixture.hpp"

#include <cudabridge.h>
#include <egpu_safety.h>

#include <Poco/JSON/Array.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

namespace cudabridge::test {
namespace {

struct heard {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::pair<EGPUConnectionState, EGPUError>> events;
    std::vector<std::string> messages;

    bool saw(EGPUConnectionState s) {
        std::lock_guard lock(mutex);
        for (const auto& e : events)
            if (e.first == s) return true;
        return false;
    }
    // Waits (bounded) until a state is heard: what the supervisor does on its own thread.
    bool wait_for(EGPUConnectionState s, std::chrono::seconds limit) {
        std::unique_lock lock(mutex);
        return changed.wait_for(lock, limit, [&] {
            for (const auto& e : events)
                if (e.first == s) return true;
            return false;
        });
    }
};

void on_event(EGPUConnectionState state, EGPUError error, const char* message, void* user) {
    auto* h = static_cast<heard*>(user);
    {
        std::lock_guard lock(h->mutex);
        h->events.emplace_back(state, error);
        h->messages.emplace_back(message ? message : "");
    }
    h->changed.notify_all();
}

class c_api_test : public host_test {
protected:
    void SetUp() override {
        ::setenv("CUDABRIDGE_HOME", tmp.path().c_str(), 1);
        ::setenv("CUDABRIDGE_LOG_SINKS", "sqlite", 1);
        ::setenv("CUDABRIDGE_PLUGIN_PATH", CB_TEST_PLUGIN_DIR, 1);
        ::setenv("CUDABRIDGE_TRANSPORT", "usb4", 1);
    }
    void TearDown() override {
        egpu_set_event_callback(nullptr, nullptr);
        egpu_safety_shutdown();
        ::unsetenv("CUDABRIDGE_HOME");
    }
};

TEST_F(c_api_test, TheSeedsSafetyFlowWorks) {
    heard h;
    ASSERT_EQ(egpu_safety_init(nullptr), EGPU_OK) << egpu_last_error_message();
    ASSERT_EQ(egpu_set_event_callback(on_event, &h), EGPU_OK);
    EXPECT_EQ(egpu_get_state(), EGPU_STATE_DISCONNECTED);
    ASSERT_EQ(egpu_connect(-1), EGPU_OK) << egpu_last_error_message();
    for (auto s : {EGPU_STATE_DETECTING, EGPU_STATE_CHECKING, EGPU_STATE_AUTHORIZING, EGPU_STATE_TUNNELING,
                   EGPU_STATE_INITIALIZING, EGPU_STATE_CONNECTED})
        EXPECT_TRUE(h.saw(s)) << egpu_state_string(s);
    EXPECT_EQ(egpu_get_state(), EGPU_STATE_CONNECTED);
    EXPECT_EQ(egpu_connect(-1), EGPU_OK) << "already connected: nothing to do";

    // The runtime uses the device egpu_connect brought up.
    int count = 0;
    ASSERT_EQ(cbGetDeviceCount(&count), cbSuccess);
    EXPECT_EQ(count, 1);
    float in[256], out[256];
    for (int i = 0; i < 256; ++i) in[i] = static_cast<float>(i) * 0.25f;
    void* d = nullptr;
    ASSERT_EQ(cbMalloc(&d, sizeof in), cbSuccess) << cbGetLastErrorMessage();
    ASSERT_EQ(cbMemcpy(d, in, sizeof in, CB_MEMCPY_HOST_TO_DEVICE), cbSuccess);
    ASSERT_EQ(cbMemcpy(out, d, sizeof out, CB_MEMCPY_DEVICE_TO_HOST), cbSuccess);
    EXPECT_EQ(0, std::memcmp(in, out, sizeof in));

    ASSERT_EQ(egpu_safe_disconnect(), EGPU_OK) << egpu_last_error_message();
    EXPECT_TRUE(h.saw(EGPU_STATE_DISCONNECTING));
    EXPECT_EQ(egpu_get_state(), EGPU_STATE_DISCONNECTED);
    EXPECT_EQ(cbMemcpy(out, d, sizeof out, CB_MEMCPY_DEVICE_TO_HOST), cbErrorDeviceLost);
    EXPECT_EQ(egpu_safe_disconnect(), EGPU_ERR_NOT_CONNECTED);
    EXPECT_EQ(egpu_set_event_callback(nullptr, nullptr), EGPU_OK);  // before `h` goes away
    EXPECT_EQ(egpu_safety_shutdown(), EGPU_OK);
}

TEST_F(c_api_test, APolicyGivenAtInitDrivesTheSupervisor) {
    heard h;
    EGPUSafetyPolicy p = egpu_default_policy();
    EXPECT_EQ(p.max_retry_count, 3u);
    EXPECT_EQ(p.heartbeat_timeout_ms, 5000u);
    p.heartbeat_interval_ms = 20;
    p.thermal_limit = 20;  // below the simulated board's idle temperature: a thermal runaway
    ASSERT_EQ(egpu_safety_init(&p), EGPU_OK) << egpu_last_error_message();
    egpu_set_event_callback(on_event, &h);
    ASSERT_EQ(egpu_connect(-1), EGPU_OK) << egpu_last_error_message();
    ASSERT_TRUE(h.wait_for(EGPU_STATE_EMERGENCY_STOP, std::chrono::seconds(30)));
    void* d = nullptr;
    EXPECT_EQ(cbMalloc(&d, 16), cbErrorThermalLimit);
    EXPECT_EQ(egpu_get_state(), EGPU_STATE_EMERGENCY_STOP);
    egpu_set_event_callback(nullptr, nullptr);  // the supervisor may be calling it: wait, then `h` may go
}

TEST_F(c_api_test, BadCallsGetClearErrors) {
    EGPUSafetyPolicy p = egpu_default_policy();
    p.heartbeat_interval_ms = 0;
    EXPECT_EQ(egpu_safety_init(&p), EGPU_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(egpu_last_error_message()).find("heartbeat"), std::string::npos);
    EXPECT_EQ(egpu_safety_init(nullptr), EGPU_OK);
    EXPECT_EQ(egpu_connect(-7), EGPU_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(egpu_safe_disconnect(), EGPU_ERR_NOT_CONNECTED);
    EXPECT_STREQ(egpu_error_string(EGPU_ERR_INCOMPATIBLE), "refused by the safety policy");
    EXPECT_STREQ(egpu_state_string(EGPU_STATE_EMERGENCY_STOP), "emergency-stop");
    EXPECT_EQ(cbSetDevice(0), cbErrorNoDevice);
    EXPECT_EQ(cbGetLastError(), cbErrorNoDevice);
}

TEST_F(c_api_test, CbInitConnectsAndAnEmptyFabricIsNoDevice) {
    ASSERT_EQ(cbInit(), cbSuccess) << cbGetLastErrorMessage();
    int n = 0;
    EXPECT_EQ(cbGetDeviceCount(&n), cbSuccess);
    EXPECT_EQ(n, 1);
    cbDeviceProp prop{};
    ASSERT_EQ(cbGetDeviceProperties(&prop, 0), cbSuccess);
    EXPECT_EQ(prop.isSimulated, 1);
    EXPECT_NE(std::string(prop.name).find("RTX 5090"), std::string::npos);
    EXPECT_STREQ(prop.linkName, "Thunderbolt 4");
    EXPECT_GT(prop.linkBandwidthGBs, 0.0);
    EXPECT_EQ(cbShutdown(), cbSuccess);

    // The process's runtime is gone; an empty fabric next time.
    edit_layout([](auto layout) { layout->set("enclosures", Poco::JSON::Array()); });
    EXPECT_EQ(cbInit(), cbErrorNoDevice);
    EXPECT_NE(std::string(cbGetLastErrorMessage()).find("no eGPU"), std::string::npos) << cbGetLastErrorMessage();
    EXPECT_EQ(cbGetDeviceCount(&n), cbErrorNoDevice);
    EXPECT_EQ(n, 0);
}

}  // namespace
}  // namespace cudabridge::test
