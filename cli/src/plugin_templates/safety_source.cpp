#include "plugin_templates/template_sources.hpp"

namespace cudabridge::cli::templates {

const char* safety_source() {
    return R"cbt(// @NAME@: a safety policy (`--safety @NAME@`). It admits display controllers on a link that
// allows PCIe tunnels, stops all work at its `thermal_limit` (until `cudabridge-cli reset`), and
// marks a device whose link went down as failed. Both entries run on the host's connecting and
// supervisor threads and must not block, so parameters are read once, at create.
#include <cudabridge/cpp/plugin.hpp>

#include <cstdio>
#include <cstring>

namespace {

namespace sdk = cudabridge::sdk;

template <size_t N>
void set_reason(char (&field)[N], const char* text) {
    std::snprintf(field, N, "%s", text);
}

class @CLASS@ final : public sdk::safety_policy {
public:
    static constexpr sdk::plugin_identity identity{
        "@NAME@", CB_MAKE_VERSION(0, 1, 0), "MIT", "@NAME@: thermal emergency stop and link-down failure"};

    @CLASS@(const sdk::host& h, const sdk::config&) : safety_policy(h) {
        h.declare_range(CB_PARAM_DOUBLE, "thermal_limit", "85", "GPU temperature in C that stops all work",
                        true, 20, 120);
        // The host samples health at this interval (it reads the parameter by name).
        h.declare_range(CB_PARAM_INT, "heartbeat_interval_ms", "1000", "milliseconds between health samples",
                        true, 10, 3600000);
        thermal_limit_ = h.param_double("thermal_limit", 85);
    }

    cb_status check_compatibility(const cb_device_facts& f, cb_verdict& out) override {
        const bool display = ((f.pci_class_code >> 16) & 0xff) == 0x03;
        const bool pcie = f.security_level != CB_SECURITY_DPONLY && f.security_level != CB_SECURITY_USBONLY &&
                          f.security_level != CB_SECURITY_NOPCIE;
        out.compatible = display && pcie ? 1 : 0;
        set_reason(out.reason, !display ? "not a display controller"
                               : !pcie  ? "the Thunderbolt security level allows no PCIe tunnel"
                                        : "compatible");
        return CB_OK;
    }

    cb_status evaluate(const cb_health_history& h, cb_safety_decision& out) override {
        if (h.samples == nullptr || h.sample_count == 0) return CB_ERR_INVALID_ARGUMENT;
        // Samples are laid out at the host's record size, which the first one states.
        const size_t stride = h.samples[0].struct_size;
        cb_health_sample now{};
        std::memcpy(&now, reinterpret_cast<const char*>(h.samples) + (h.sample_count - 1) * stride,
                    stride < sizeof now ? stride : sizeof now);
        out.delay_ms = 0;
        if (now.temperature_c >= thermal_limit_) {
            out.action = CB_ACTION_EMERGENCY_STOP;
            std::snprintf(out.reason, sizeof out.reason, "%.1f C is at or over the %.0f C limit",
                          now.temperature_c, thermal_limit_);
        } else if (now.link_up == 0) {
            out.action = CB_ACTION_MARK_FAILED;
            set_reason(out.reason, "the link is down");
        } else {
            out.action = CB_ACTION_NONE;
            set_reason(out.reason, "healthy");
        }
        return CB_OK;
    }

private:
    double thermal_limit_ = 85;
};

}  // namespace

CB_PLUGIN_DEFINE(cudabridge::sdk::descriptor_of<@CLASS@>())
)cbt";
}

}  // namespace cudabridge::cli::templates
