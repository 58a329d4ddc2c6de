#include "health_samples.hpp"

#include <cstring>

namespace cudabridge::test {

cb_device_facts nvidia_facts() {
    cb_device_facts f{};
    f.struct_size = sizeof f;
    f.pci_vendor_id = 0x10de;
    f.pci_device_id = 0x2b85;
    f.pci_class_code = 0x030000;
    f.link_generation = CB_LINK_TB4;
    f.link_lanes = 2;
    f.link_bandwidth_gbs = 3.8;
    f.enclosure_power_w = 600;
    f.board_power_w = 575;
    f.min_link_bandwidth_gbs = 2.0;
    f.security_level = CB_SECURITY_USER;
    f.iommu_dma_protection = 1;
    f.name = "NVIDIA GeForce RTX 5090";
    return f;
}

cb_health_sample healthy_sample() {
    cb_health_sample s{};
    s.struct_size = sizeof s;
    s.link_up = 1;
    s.time_ns = 1'000'000'000;
    s.heartbeat_age_ms = 100;
    s.temperature_c = 60;
    s.power_w = 200;
    s.power_limit_w = 575;
    s.packets = 100000;
    return s;
}

history history::after_healthy(const cb_health_sample& current) {
    history h;
    h.samples = {healthy_sample(), current};
    return h;
}

cb_health_history history::view() const {
    cb_health_history v{};
    v.struct_size = sizeof v;
    v.recovery_attempts = recovery_attempts;
    v.samples = samples.data();
    v.sample_count = samples.size();
    v.emergency_stopped = emergency_stopped ? 1 : 0;
    v.failed = failed ? 1 : 0;
    return v;
}

v10_history::v10_history(const history& h)
    : sample_bytes(h.samples.size() * v10_sample_size),
      count(h.samples.size()),
      recovery_attempts(h.recovery_attempts) {
    for (size_t i = 0; i < h.samples.size(); ++i) {
        cb_health_sample s = h.samples[i];
        s.struct_size = v10_sample_size;
        std::memcpy(sample_bytes.data() + i * v10_sample_size, &s, v10_sample_size);
    }
}

cb_health_history v10_history::view() const {
    cb_health_history v{};
    v.struct_size = v10_history_size;
    v.recovery_attempts = recovery_attempts;
    v.samples = reinterpret_cast<const cb_health_sample*>(sample_bytes.data());
    v.sample_count = count;
    // What lies past a 1.0 history is not the caller's; make it loud if the policy reads it.
    v.emergency_stopped = 1;
    v.failed = 1;
    return v;
}

}  // namespace cudabridge::test
