// The simulated USB4 fabric: domains, a host router and eGPU enclosures whose layout lives in
// the store, so every process sees the same devices, authorizations and plug states. It
// enumerates like the kernel's sysfs does, applies authorization per security level, raises
// plug and authorization events, and keeps the endpoint models GPU families attach to the
// enclosures of this process.
//
// Threading: every member is thread safe (one mutex); event handlers run outside it.
#pragma once

#include "sim/authorization.hpp"
#include "sim/fabric_layout.hpp"

#include <cudabridge/endpoint_model.h>
#include <cudabridge/transport.h>

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cudabridge::usb4 {

// Where the layout is kept between processes (the plugin uses the host's settings).
struct layout_storage {
    std::function<std::optional<std::string>()> load;
    std::function<void(const std::string&)> save;
};

// An endpoint model attached to an enclosure in this process.
struct attached_model {
    const cb_endpoint_model_table* table = nullptr;
    void* model = nullptr;
};

class fabric {
public:
    // Loads the stored layout, or stores the default one when there is none. Throws
    // std::runtime_error when the stored text is not a layout (it is never overwritten).
    explicit fabric(layout_storage storage);

    // The layout as another process may have left it.
    fabric_layout layout();
    // Replaces the layout (validated by the caller); open links are the caller's concern.
    void replace_layout(const fabric_layout& layout);

    std::vector<cb_endpoint_info> enumerate();
    cb_status authorize(const std::string& id, cb_auth_state level, const uint8_t* key, size_t key_len,
                        std::string& message);
    cb_status deauthorize(const std::string& id, std::string& message);
    cb_status set_plugged(const std::string& id, bool plugged, std::string& message);
    // Posts a fault (a JSON fault request) for every process's open links to enclosure `id`
    // ("" = every enclosure); *posted receives how many enclosures took it.
    cb_status post_fault(const std::string& id, const std::string& fault_json, size_t& posted, std::string& message);
    // The posted fault's one-time event happened on some link: links opened later are not armed.
    void mark_fault_event_spent(const std::string& id);

    void set_event_handler(cb_transport_event_handler handler, void* user);

    cb_status attach_model(const std::string& enclosure_id, attached_model model);
    cb_status detach_model(const std::string& enclosure_id);

    // The enclosure behind a PCI function id ("0000:BB:00.0") with the state a link needs.
    struct function_target {
        enclosure_layout enclosure;
        domain_layout domain;
        host_kind host = host_kind::apple_silicon;
        std::optional<attached_model> model;
    };
    std::optional<function_target> find_function(const std::string& pci_function_id);

    // PCI address of the GPU slot of the enclosure at `index` in the layout.
    static std::string function_id(size_t index);

private:
    // Applies `change` to enclosure `id` with the layout loaded under the lock; stores the
    // layout when the change sets `save`.
    using enclosure_change =
        std::function<cb_status(const domain_layout&, enclosure_layout&, std::string& message, bool& save)>;
    cb_status update_enclosure(const std::string& id, std::string& message, const enclosure_change& change);
    fabric_layout load_locked();
    void save_locked(const fabric_layout& layout);
    void emit(cb_transport_event_type type, const std::string& id, const std::string& message);

    layout_storage storage_;
    std::mutex mutex_;
    std::map<std::string, attached_model> models_;
    cb_transport_event_handler handler_ = nullptr;
    void* handler_user_ = nullptr;
};

}  // namespace cudabridge::usb4
