// CB_PLUGIN_DEFINE in a C++ translation unit, over the SDK's descriptor_of<T>(): one C++ safety
// policy. Built as its own module and loaded by test_plugin_define.cpp.
#include <cudabridge/cpp/plugin.hpp>

#include <cstdio>

namespace {

class cpp_policy final : public cudabridge::sdk::safety_policy {
public:
    static constexpr cudabridge::sdk::plugin_identity identity{"cpp_policy", CB_MAKE_VERSION(3, 1, 4), "BSD-3-Clause",
                                                               "C++ policy built with CB_PLUGIN_DEFINE"};

    cpp_policy(const cudabridge::sdk::host& h, const cudabridge::sdk::config& c)
        : safety_policy(h), limit_(h.param_double("max_temperature_c", 90.0)) {
        (void)c;
    }

    cb_status check_compatibility(const cb_device_facts& facts, cb_verdict& out) override {
        out.compatible = facts.pci_vendor_id == 0x10de ? 1 : 0;
        std::snprintf(out.reason, sizeof out.reason, "%s", out.compatible ? "ok" : "not NVIDIA");
        return CB_OK;
    }
    cb_status evaluate(const cb_health_history& history, cb_safety_decision& out) override {
        if (history.sample_count == 0) throw cudabridge::sdk::status_error(CB_ERR_INVALID_ARGUMENT, "no samples");
        const cb_health_sample& now = history.samples[history.sample_count - 1];
        out.action = now.temperature_c > limit_ ? CB_ACTION_THROTTLE : CB_ACTION_NONE;
        return CB_OK;
    }

private:
    double limit_;
};

}  // namespace

CB_PLUGIN_DEFINE(cudabridge::sdk::descriptor_of<cpp_policy>())
