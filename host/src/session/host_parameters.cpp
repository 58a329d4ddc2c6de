// The settings the host itself reads, declared so `cudabridge-cli config` can show and check
// them (idempotent: only what changed is written).
#include "session/host_parameters.hpp"

#include <cudabridge/core/store.hpp>
#include <cudabridge/host_services.h>

namespace cudabridge::host {
namespace {

core::parameter_row host_param(const char* name, cb_param_type type, const char* def, const char* help) {
    core::parameter_row p;
    p.name = name;
    p.owner = "host";
    p.type = type;
    p.default_value = def;
    p.help = help;
    return p;
}

}  // namespace

void declare_host_parameters(core::store& db) {
    const core::parameter_row rows[] = {
        host_param("session.transport", CB_PARAM_STRING, "usb4",
                   "transport plugin a session uses (after --transport and CUDABRIDGE_TRANSPORT)"),
        host_param("session.gpu", CB_PARAM_STRING, "nvidia",
                   "GPU family plugin a session uses (after --gpu and CUDABRIDGE_GPU)"),
        host_param("session.safety", CB_PARAM_STRING, "standard",
                   "safety policy plugin a session uses (after --safety and CUDABRIDGE_SAFETY)"),
        host_param("session.deauthorize_on_disconnect", CB_PARAM_BOOL, "0",
                   "a safe disconnect also deauthorizes the Thunderbolt device (the next connect authorizes again)"),
    };
    for (const auto& p : rows) {
        const auto known = core::find_parameter(db, p.name);
        if (!known || known->help != p.help || known->default_value != p.default_value || known->type != p.type)
            core::declare_parameter(db, p);
    }
}

}  // namespace cudabridge::host
