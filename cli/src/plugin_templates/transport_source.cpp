#include "plugin_templates/template_sources.hpp"

namespace cudabridge::cli::templates {

const char* transport_source() {
    return R"cbt(// @NAME@: a transport (`--transport @NAME@`). It shows the host one USB4 domain with nothing
// plugged in, so `connect` finds no enclosure and says so. Add the device routers and the PCI
// functions behind them to enumerate, then open_link and the link entries for one function.
// Entries the base class leaves out answer CB_ERR_UNSUPPORTED.
#include <cudabridge/cpp/plugin.hpp>
#include <cudabridge/cpp/records.hpp>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

namespace sdk = cudabridge::sdk;

class @CLASS@ final : public sdk::transport {
public:
    static constexpr sdk::plugin_identity identity{
        "@NAME@", CB_MAKE_VERSION(0, 1, 0), "MIT", "@NAME@: a USB4 domain with nothing plugged in"};

    @CLASS@(const sdk::host& h, const sdk::config&) : transport(h) {}

    // Any thread may call any entry; this one reads no shared state.
    cb_status enumerate(cb_endpoint_info* out, size_t capacity, size_t& count) override {
        count = 1;
        if (capacity == 0 || out == nullptr) return CB_OK;  // the host asks for the count first
        cb_endpoint_info domain{};
        domain.struct_size = sizeof domain;
        domain.kind = CB_ENDPOINT_DOMAIN;
        std::snprintf(domain.id, sizeof domain.id, "%s", "@NAME@0");
        std::snprintf(domain.name, sizeof domain.name, "%s", "@NAME@ domain 0");
        domain.security_level = CB_SECURITY_USER;
        // The caller's struct_size is its record's size and the array's stride (an older host's
        // is shorter, a newer one's longer): the SDK copies what fits.
        return sdk::copy_records(out, capacity, &domain, 1);
    }

    cb_status open_link(const char* pci_function, cb_link**) override {
        throw sdk::status_error(CB_ERR_NOT_FOUND, std::string("no PCI function '") +
                                                      (pci_function ? pci_function : "") + "' on @NAME@");
    }
    cb_status close_link(cb_link*) override {
        throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "@NAME@ opens no links");
    }
};

}  // namespace

CB_PLUGIN_DEFINE(cudabridge::sdk::descriptor_of<@CLASS@>())
)cbt";
}

}  // namespace cudabridge::cli::templates
