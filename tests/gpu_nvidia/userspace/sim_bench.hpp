// One simulated GPU behind one simulated USB4 link, with the userspace driver on top: the device
// model of a profile, a sim_link on the chosen host (Apple Silicon DART by default), and a
// userspace_device over the test-local transport table, with the link's fault injection and
// IOMMU counters at hand.
#pragma once

#include "sim_transport.hpp"

#include "sim/device_model/device_model.hpp"
#include "sim/modules/module_registry.hpp"
#include "sim/sim_link.hpp"
#include "userspace/driver/userspace_device.hpp"

#include <cudabridge/cpp/host.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace cudabridge::test {

struct bench_options {
    std::string profile = "rtx-5090";
    usb4::host_kind host = usb4::host_kind::apple_silicon;
    nv::userspace_options driver;
    bool init = true;  // probe and init in the constructor
    // Shared by the model and the driver, as the family shares its own (null: no host kernels).
    std::shared_ptr<nv::module_registry> modules = std::make_shared<nv::module_registry>();
};

class sim_bench {
public:
    explicit sim_bench(bench_options options = {});
    // Another endpoint model behind the link (not a GPU of ours); the driver is not initialized.
    sim_bench(const cb_endpoint_model_table* table, void* model);
    ~sim_bench();

    nv::userspace_device& gpu() { return *gpu_; }
    usb4::sim_link& link() { return *link_; }
    nv::device_model* model() { return model_.get(); }

    void inject(const usb4::fault_request& fault) { link_->inject(fault); }
    // IOMMU use as the link counts it.
    usb4::link_counters counters() const { return link_->counters(); }

private:
    void open_link(const cb_endpoint_model_table* table, void* model, usb4::host_kind host);

    sdk::host host_{nullptr};
    std::unique_ptr<nv::device_model> model_;
    std::unique_ptr<usb4::sim_link> link_;
    std::unique_ptr<nv::userspace_device> gpu_;
};

}  // namespace cudabridge::test
