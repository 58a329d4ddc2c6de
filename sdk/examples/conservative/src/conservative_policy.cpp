// conservative: a safety policy for people who would rather stop than guess. It admits what the
// standard policy admits, stops all work at a lower temperature (80 C against 90 C), and where
// the standard policy would reset, reconnect or resume on its own it marks the device failed or
// keeps it stopped until a manual `cudabridge-cli reset`. Select it with `--safety conservative`.
#include "compatibility.hpp"
#include "decision.hpp"
#include "parameters.hpp"
#include "samples.hpp"
#include "text.hpp"

#include <cudabridge/cpp/plugin.hpp>

namespace conservative {

namespace sdk = cudabridge::sdk;

// Output records: the host sets struct_size; a record too small for the fields is refused.
template <class Record>
void check_output(const Record& out, const char* what) {
    if (out.struct_size < sizeof(Record))
        throw sdk::status_error(CB_ERR_INVALID_ARGUMENT,
                                format_text("%s struct_size %u is too small", what, out.struct_size));
}

class conservative_policy final : public sdk::safety_policy {
public:
    static constexpr sdk::plugin_identity identity{
        "conservative", CB_MAKE_VERSION(1, 0, 0), "MIT",
        "conservative safety policy: emergency stop at 80 C, no automatic recovery (a fault marks the "
        "device failed; a stop lasts until a manual reset)"};

    // Parameters are read here once: the entries below run without blocking, as the ABI asks.
    conservative_policy(const sdk::host& h, const sdk::config&) : safety_policy(h), params_(read_parameters(h)) {}

    cb_status check_compatibility(const cb_device_facts& facts, cb_verdict& out) override {
        check_output(out, "verdict");
        if (facts.struct_size < sizeof(cb_device_facts))
            throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "device facts record is too small");
        const verdict v = conservative::check_compatibility(facts, params_);
        out.compatible = v.compatible ? 1 : 0;
        copy_reason(v.reason, out.reason);
        return CB_OK;
    }

    cb_status evaluate(const cb_health_history& history, cb_safety_decision& out) override {
        check_output(out, "decision");
        health_view health;
        if (auto why = read_history(&history, health)) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, *why);
        const decision d = decide(health, params_);
        out.action = d.action;
        out.delay_ms = 0;  // nothing is retried, so nothing waits
        copy_reason(d.reason, out.reason);
        return CB_OK;
    }

private:
    const parameters params_;  // read-only after create: evaluate runs on several threads at once
};

}  // namespace conservative

CB_PLUGIN_DEFINE(cudabridge::sdk::descriptor_of<conservative::conservative_policy>())
