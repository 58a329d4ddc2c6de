// A policy instance: the parameters read once at create, and the two table entries, which check
// the ABI records and hand plain structs to the policy's free functions.
//
// Parameters are read at create only: evaluate must not block, and reading the store could wait
// on its lock. A `config set` therefore takes effect when the host next creates the policy (the
// next session or connection).
#pragma once

#include "plugin/null_checked_policy.hpp"
#include "policy/parameters.hpp"

#include <cudabridge/cpp/host.hpp>
#include <cudabridge/cpp/plugin.hpp>

#include <string>

namespace cudabridge::plugins::safety {

class policy_instance : public null_checked_policy {
public:
    policy_instance(const sdk::host& h, std::string plugin_name, const parameters& defaults);

    cb_status check_compatibility(const cb_device_facts& facts, cb_verdict& out) override;
    cb_status evaluate(const cb_health_history& history, cb_safety_decision& out) override;

    const parameters& params() const noexcept { return params_; }

private:
    std::string plugin_name_;
    parameters params_;
};

// The standard policy: the documented defaults.
class standard_policy final : public policy_instance {
public:
    static constexpr sdk::plugin_identity identity{
        "standard", CB_MAKE_VERSION(1, 0, 0), "MIT",
        "standard safety policy: NVIDIA-only compatibility, link and power checks, recovery "
        "ladder (soft reset, hard reset, reconnect), thermal emergency stop"};
    standard_policy(const sdk::host& h, const sdk::config&);
};

// The same rules with tighter defaults (one retry, 83 °C, 0.1% error rate).
class strict_policy final : public policy_instance {
public:
    static constexpr sdk::plugin_identity identity{
        "strict", CB_MAKE_VERSION(1, 0, 0), "MIT",
        "strict safety policy: the standard rules with one retry, an 83 C thermal limit and a "
        "0.1% error-rate threshold"};
    strict_policy(const sdk::host& h, const sdk::config&);
};

}  // namespace cudabridge::plugins::safety
