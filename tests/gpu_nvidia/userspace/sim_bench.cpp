#include "sim_bench.hpp"

#include "sim/fabric_layout.hpp"

#include <stdexcept>

namespace cudabridge::test {

namespace {

const nv::gpu_profile& profile_of(const std::string& key) {
    const nv::gpu_profile* p = nv::find_profile_by_key(key);
    if (!p) throw std::runtime_error("no GPU profile " + key);
    return *p;
}

}  // namespace

sim_bench::sim_bench(bench_options options) {
    nv::device_model_options model_options;
    model_options.compute_threads = 2;
    model_options.device_id = "userspace-test";
    model_options.modules = options.modules;
    model_ = std::make_unique<nv::device_model>(host_, profile_of(options.profile), model_options);
    open_link(nv::device_model::table(), model_.get(), options.host);
    gpu_ = std::make_unique<nv::userspace_device>(sim_transport_table(), link_.get(), sim_link_handle(*link_),
                                                  options.driver, options.modules);
    if (options.init) {
        std::string error;
        const cb_status st = gpu_->init(error);
        if (st != CB_OK) throw std::runtime_error("init failed: " + error);
    }
}

sim_bench::sim_bench(const cb_endpoint_model_table* table, void* model) {
    open_link(table, model, usb4::host_kind::apple_silicon);
    gpu_ = std::make_unique<nv::userspace_device>(sim_transport_table(), link_.get(), sim_link_handle(*link_));
}

sim_bench::~sim_bench() {
    std::string ignored;
    gpu_->close(ignored);  // drains and unmaps through the link
    link_.reset();         // detaches the model: no interrupt handler call runs after this
    gpu_.reset();
    model_.reset();
}

void sim_bench::open_link(const cb_endpoint_model_table* table, void* model, usb4::host_kind host) {
    usb4::fabric_layout layout = usb4::default_layout();
    usb4::fabric::function_target target;
    target.enclosure = layout.enclosures.at(0);
    target.enclosure.authorized = CB_AUTH_AUTHORIZED;
    target.domain = layout.domains.at(0);
    target.host = host;
    target.model = usb4::attached_model{table, model};
    link_ = std::make_unique<usb4::sim_link>(target, usb4::sim_options{});
}

}  // namespace cudabridge::test
