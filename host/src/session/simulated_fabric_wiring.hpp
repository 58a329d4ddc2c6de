// Puts a GPU in every simulated enclosure: for each enclosure of the transport's simulated
// fabric that names a GPU model, the GPU family builds an endpoint model and the transport hosts
// it. The two plugins meet only through the SDK's tables; this is the only place they are
// introduced to each other.
#pragma once

#include <cudabridge/gpu.h>
#include <cudabridge/transport.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace cudabridge::host {

class simulated_fabric_wiring {
public:
    using report_fn = std::function<void(cb_log_level, const std::string&)>;
    // The stored profile of a GPU model key with the user's overrides ("" when none is stored):
    // the model is built from it, so an override (VRAM, SMs, limits) holds on the simulated GPU.
    using profile_fn = std::function<std::string(const std::string& key)>;

    simulated_fabric_wiring(const cb_transport_table* transport, void* transport_instance, const cb_gpu_table* gpu,
                            void* gpu_instance, report_fn report, profile_fn profile = nullptr);
    ~simulated_fabric_wiring();  // detaches and destroys every model it attached
    simulated_fabric_wiring(const simulated_fabric_wiring&) = delete;
    simulated_fabric_wiring& operator=(const simulated_fabric_wiring&) = delete;

    // Attaches a model to every simulated enclosure that names a GPU model and has none from
    // us yet. A transport without a simulated fabric (or a family without models) attaches
    // nothing. Returns how many enclosures hold one of our models.
    size_t wire();
    void unwire();

private:
    struct attached {
        std::string enclosure_id;
        void* model = nullptr;
    };

    const cb_transport_table* transport_;
    void* transport_instance_;
    const cb_gpu_table* gpu_;
    void* gpu_instance_;
    report_fn report_;
    profile_fn profile_;
    std::vector<attached> models_;
};

// A JSON control request to a transport: the reply, or "" with `status` set to why not.
std::string transport_control(const cb_transport_table* t, void* instance, const std::string& request,
                              cb_status& status);

}  // namespace cudabridge::host
