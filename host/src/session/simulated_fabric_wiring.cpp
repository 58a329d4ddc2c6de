#include "session/simulated_fabric_wiring.hpp"

#include <cudabridge/core/error.hpp>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <algorithm>
#include <vector>

namespace cudabridge::host {

std::string transport_control(const cb_transport_table* t, void* instance, const std::string& request,
                              cb_status& status) {
    if (!CB_HAS_FIELD(t, cb_transport_table, control)) {
        status = CB_ERR_UNSUPPORTED;
        return {};
    }
    // Control calls are not idempotent: one generous buffer (the contract says 64 KiB holds any).
    std::vector<char> reply(64 * 1024);
    size_t needed = 0;
    status = t->control(instance, request.c_str(), reply.data(), reply.size(), &needed);
    if (status != CB_OK) return {};
    return std::string(reply.data());
}

simulated_fabric_wiring::simulated_fabric_wiring(const cb_transport_table* transport, void* transport_instance,
                                                 const cb_gpu_table* gpu, void* gpu_instance, report_fn report,
                                                 profile_fn profile)
    : transport_(transport),
      transport_instance_(transport_instance),
      gpu_(gpu),
      gpu_instance_(gpu_instance),
      report_(std::move(report)),
      profile_(std::move(profile)) {}

simulated_fabric_wiring::~simulated_fabric_wiring() { unwire(); }

size_t simulated_fabric_wiring::wire() {
    if (!CB_HAS_FIELD(transport_, cb_transport_table, attach_endpoint_model) ||
        !CB_HAS_FIELD(gpu_, cb_gpu_table, create_endpoint_model))
        return models_.size();
    cb_status st = CB_OK;
    const std::string reply = transport_control(transport_, transport_instance_, R"({"op":"layout"})", st);
    if (st != CB_OK) return models_.size();  // no simulated fabric behind this transport
    Poco::JSON::Object::Ptr layout;
    try {
        layout = Poco::JSON::Parser().parse(reply).extract<Poco::JSON::Object::Ptr>()->getObject("layout");
    } catch (const std::exception& e) {
        report_(CB_LOG_WARN, std::string("simulated fabric: unreadable layout: ") + e.what());
        return models_.size();
    }
    auto enclosures = layout ? layout->getArray("enclosures") : nullptr;
    for (size_t i = 0; enclosures && i < enclosures->size(); ++i) {
        auto e = enclosures->getObject(static_cast<unsigned>(i));
        const std::string id = e->optValue<std::string>("id", "");
        const std::string model_key = e->optValue<std::string>("gpu_model", "");
        if (id.empty() || model_key.empty()) continue;
        if (std::any_of(models_.begin(), models_.end(), [&](const attached& a) { return a.enclosure_id == id; }))
            continue;
        Poco::JSON::Object request;
        const std::string stored = profile_ ? profile_(model_key) : std::string();
        if (!stored.empty()) {
            try {
                request = *Poco::JSON::Parser().parse(stored).extract<Poco::JSON::Object::Ptr>();
            } catch (const std::exception& ex) {
                report_(CB_LOG_WARN, "simulated enclosure " + id + ": the stored profile of '" + model_key +
                                         "' is unreadable (" + ex.what() + "); the family's own is used");
                request.clear();
            }
        }
        if (request.size() == 0) request.set("key", model_key);
        request.set("device_id", id);
        // The model's PCIe link status says what the enclosure's port trained to.
        if (e->has("pcie_link_gen")) request.set("pcie_link_gen", e->getValue<int>("pcie_link_gen"));
        if (e->has("pcie_link_width")) request.set("pcie_link_width", e->getValue<int>("pcie_link_width"));
        std::ostringstream text;
        request.stringify(text);
        void* model = nullptr;
        const cb_endpoint_model_table* table = nullptr;
        st = gpu_->create_endpoint_model(gpu_instance_, text.str().c_str(), &model, &table);
        if (st == CB_ERR_UNSUPPORTED) return models_.size();  // absent: a family without models
        if (st != CB_OK) {
            report_(CB_LOG_WARN, "simulated enclosure " + id + ": no model of GPU '" + model_key +
                                     "': " + core::last_error() + " (" + core::status_name(st) + ")");
            continue;
        }
        st = transport_->attach_endpoint_model(transport_instance_, id.c_str(), table, model);
        if (st != CB_OK) {
            // A copy, not a reference: last_error() is the thread's one slot, which the destroy below can
            // overwrite.
            const std::string why = core::last_error();  // NOLINT(performance-unnecessary-copy-initialization)
            if (CB_HAS_FIELD(gpu_, cb_gpu_table, destroy_endpoint_model))
                gpu_->destroy_endpoint_model(gpu_instance_, model);
            if (st == CB_ERR_UNSUPPORTED) return models_.size();  // absent: a transport that hosts no models
            report_(CB_LOG_WARN, "simulated enclosure " + id + ": cannot host the model: " + why);
            continue;
        }
        report_(CB_LOG_DEBUG, "simulated enclosure " + id + " holds a modeled " + model_key);
        models_.push_back({id, model});
    }
    return models_.size();
}

void simulated_fabric_wiring::unwire() {
    for (auto it = models_.rbegin(); it != models_.rend(); ++it) {
        if (CB_HAS_FIELD(transport_, cb_transport_table, detach_endpoint_model))
            transport_->detach_endpoint_model(transport_instance_, it->enclosure_id.c_str());
        if (CB_HAS_FIELD(gpu_, cb_gpu_table, destroy_endpoint_model))
            gpu_->destroy_endpoint_model(gpu_instance_, it->model);
    }
    models_.clear();
}

}  // namespace cudabridge::host
