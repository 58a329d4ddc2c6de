#include "plugin/policy_instance.hpp"

#include "plugin/parameter_io.hpp"
#include "policy/compatibility.hpp"
#include "policy/decide.hpp"
#include "policy/health_input.hpp"
#include "policy/text.hpp"

#include <cudabridge/cpp/text_out.hpp>

#include <algorithm>
#include <cstring>
#include <utility>

namespace cudabridge::plugins::safety {

namespace {

// An output record's usable size: 0 means the whole struct (as elsewhere in the ABI); a size
// that cannot hold the fields is refused.
template <class Record>
uint32_t output_size(const Record& out, const char* what) {
    if (out.struct_size == 0 || out.struct_size >= sizeof(Record)) return sizeof(Record);
    throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, printf_text("%s struct_size %u is smaller than %zu", what,
                                                                 out.struct_size, sizeof(Record)));
}

}  // namespace

policy_instance::policy_instance(const sdk::host& h, std::string plugin_name, const parameters& defaults)
    : null_checked_policy(h), plugin_name_(std::move(plugin_name)) {
    declare_parameters(h, defaults);
    params_ = read_parameters(h, defaults, plugin_name_);
}

cb_status policy_instance::check_compatibility(const cb_device_facts& facts, cb_verdict& out) {
    if (facts.struct_size < sizeof(cb_device_facts))
        throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, printf_text("device facts struct_size %u is smaller than %zu",
                                                                     facts.struct_size, sizeof(cb_device_facts)));
    const uint32_t size = output_size(out, "verdict");
    const verdict v = safety::check_compatibility(facts, params_);
    cb_verdict r{};
    r.struct_size = size;
    r.compatible = v.compatible ? 1 : 0;
    sdk::copy_text(r.reason, v.reason);
    std::memcpy(&out, &r, sizeof r);
    return CB_OK;
}

cb_status policy_instance::evaluate(const cb_health_history& history, cb_safety_decision& out) {
    const uint32_t size = output_size(out, "decision");
    health_input in;
    if (auto why = read_health_input(&history, in))
        throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "evaluate: " + *why);
    const decision d = decide(in, params_);
    cb_safety_decision r{};
    r.struct_size = size;
    r.action = d.action;
    r.delay_ms = d.delay_ms;
    sdk::copy_text(r.reason, d.reason);
    std::memcpy(&out, &r, sizeof r);
    return CB_OK;
}

standard_policy::standard_policy(const sdk::host& h, const sdk::config&)
    : policy_instance(h, identity.name, standard_defaults()) {}

strict_policy::strict_policy(const sdk::host& h, const sdk::config&)
    : policy_instance(h, identity.name, strict_defaults()) {}

}  // namespace cudabridge::plugins::safety
