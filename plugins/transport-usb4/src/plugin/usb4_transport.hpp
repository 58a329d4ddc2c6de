// The usb4 transport plugin: one cb_transport_table over the Linux sysfs backend or the
// simulated fabric, chosen at creation (see backend_choice.hpp).
#pragma once

#include "plugin/backend_choice.hpp"
#include "plugin/hotplug_poller.hpp"
#include "sim/fabric.hpp"
#include "sim/sim_link.hpp"

#include <cudabridge/cpp/plugin.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

namespace cudabridge::usb4 {

class usb4_transport final : public sdk::transport {
public:
    static constexpr sdk::plugin_identity identity{
        "usb4", CB_MAKE_VERSION(0, 1, 0), "MIT",
        "USB4 / Thunderbolt: the Linux sysfs backend, or a simulated fabric with PCIe tunnel, DART "
        "and CRC-checked packets"};

    usb4_transport(const sdk::host& h, const sdk::config& c);
    ~usb4_transport() override;

    cb_status enumerate(cb_endpoint_info* out, size_t capacity, size_t& count) override;
    cb_status authorize(const char* id, cb_auth_state level, const uint8_t* key, size_t key_len) override;
    cb_status deauthorize(const char* id) override;
    cb_status set_event_handler(cb_transport_event_handler handler, void* user) override;
    cb_status open_link(const char* pci_function_id, cb_link** out) override;
    cb_status close_link(cb_link* link) override;
    cb_status config_read(cb_link* link, uint32_t offset, void* data, uint32_t size) override;
    cb_status config_write(cb_link* link, uint32_t offset, const void* data, uint32_t size) override;
    cb_status bar_info(cb_link* link, uint32_t bar, cb_bar_info& out) override;
    cb_status mmio_read32(cb_link* link, uint32_t bar, uint64_t offset, uint32_t& out) override;
    cb_status mmio_write32(cb_link* link, uint32_t bar, uint64_t offset, uint32_t value) override;
    cb_status mmio_read64(cb_link* link, uint32_t bar, uint64_t offset, uint64_t& out) override;
    cb_status mmio_write64(cb_link* link, uint32_t bar, uint64_t offset, uint64_t value) override;
    cb_status mmio_write_block(cb_link* link, uint32_t bar, uint64_t offset, const void* data, size_t size,
                               cb_mmio_mapping mapping) override;
    cb_status mmio_read_block(cb_link* link, uint32_t bar, uint64_t offset, void* data, size_t size) override;
    cb_status dma_map(cb_link* link, void* host, size_t size, cb_dma_direction dir, uint64_t& iova) override;
    cb_status dma_unmap(cb_link* link, uint64_t iova, size_t size) override;
    cb_status dma_limits(cb_link* link, cb_dma_limits& out) override;
    cb_status set_interrupt_handler(cb_link* link, cb_interrupt_handler handler, void* user) override;
    cb_status link_status(cb_link* link, cb_link_status& out) override;
    cb_status reset_link(cb_link* link, cb_reset_kind reset_kind) override;
    cb_status attach_endpoint_model(const char* enclosure_id, const cb_endpoint_model_table* table,
                                    void* model) override;
    cb_status detach_endpoint_model(const char* enclosure_id) override;
    cb_status control(const char* request, char* reply, size_t reply_size, size_t* needed) override;
    cb_status bar_map(cb_link* link, uint32_t bar, uint64_t offset, uint64_t size, void*& host) override;

private:
    sim_link& link_of(cb_link* link);
    // Applies what other processes changed in the stored fabric to one of our links: an
    // unplug, a posted fault. Rate-limited; called from link_status.
    void sync_with_stored_fabric(sim_link& link);
    // At open: the lasting part of a fault posted for the enclosure (bit errors, DART, stuck).
    void apply_standing_fault(sim_link& link, const enclosure_layout& enclosure);
    // After a reset of a simulated function: a posted hang ends for every process.
    void lift_posted_stuck(const std::string& enclosure_id);
    fabric& sim_fabric();
    // Enclosure `enclosure_id`'s counters shared by every process (null when the host gives no
    // state folder or the file cannot be used; the link then counts for this process alone).
    std::shared_ptr<shared_link_counters> shared_counters(const std::string& enclosure_id);
    // Marks every open link to `enclosure_id` removed (or back).
    void for_links_of(const std::string& enclosure_id, bool removed);
    std::string handle_control(const std::string& request);

    backend_choice backend_;
    std::filesystem::path sysfs_root_;
    sim_options options_;
    std::unique_ptr<fabric> fabric_;
    std::mutex links_mutex_;
    std::map<cb_link*, std::unique_ptr<sim_link>> links_;
    std::map<std::string, std::shared_ptr<shared_link_counters>> shared_counters_;  // under links_mutex_
    std::chrono::milliseconds poll_period_{1000};
    std::unique_ptr<hotplug_poller> poller_;  // Linux backend, while an event handler is set
};

}  // namespace cudabridge::usb4
