// One open PCIe tunnel on the simulated fabric: the endpoint model behind it, the link model's
// timing, the host's IOMMU (DART on Apple Silicon) and the wire every DMA byte crosses as CRC'd
// packets. The model reaches host memory only through this link's IOMMU and wire.
//
// Threading: every member is thread safe. Model calls are serialised by one mutex (a transport
// serialises calls into a model, as the endpoint-model contract says); DMA from the model's own
// threads goes through the IOMMU's and the wire's own locks, and an unmap waits for it (dma_fence).
#pragma once

#include "sim/dma_fence.hpp"
#include "sim/fabric.hpp"
#include "sim/shared_link_counters.hpp"

#include <cudabridge/transport.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace cudabridge::usb4 {

class iommu;
class wire;
struct link_figures;

// The statistics the qemu-vfio-apple dext keeps, and the wire's: what `links` reports.
struct link_counters {
    uint64_t packets_to_device = 0, packets_from_device = 0;
    uint64_t bytes_to_device = 0, bytes_from_device = 0;
    uint64_t crc_errors = 0, replays = 0;
    uint64_t mappings = 0, peak_mappings = 0, mapped_bytes = 0, peak_mapped_bytes = 0;
    uint64_t map_failures = 0, translation_faults = 0, dma_failures = 0;
    uint64_t modeled_ns = 0;
};

struct sim_options {
    bool pace = false;           // sleep so wall time follows the modeled link time
    uint64_t seed = 1;           // fault-injection stream
    double bit_error_rate = 0;   // per bit, on every packet
    uint32_t max_payload = 256;  // negotiated PCIe Max Payload Size
    uint32_t max_read_request = 512;
};

// A fault to inject into an open link (the control entry's "fault" operation).
struct fault_request {
    std::optional<double> bit_error_rate;
    std::optional<uint64_t> link_drop_ns;        // link down for this long (modeled clock)
    std::optional<uint64_t> unplug_after_bytes;  // surprise removal after this many DMA bytes
    std::optional<bool> unplug_now;
    std::optional<bool> dart_exhausted;  // every dma_map refused with CB_ERR_DMA_LIMIT
    std::optional<bool> stuck;           // MMIO reads return all ones, writes are lost
};

class sim_link {
public:
    // Opens the tunnel: checks the device may tunnel PCIe and has a model, builds the link.
    // Throws sdk::status_error with a status and a reason when it cannot.
    sim_link(const fabric::function_target& target, const sim_options& options);
    ~sim_link();
    sim_link(const sim_link&) = delete;
    sim_link& operator=(const sim_link&) = delete;

    const std::string& enclosure_id() const noexcept { return enclosure_id_; }

    cb_status config_read(uint32_t offset, void* data, uint32_t size);
    cb_status config_write(uint32_t offset, const void* data, uint32_t size);
    cb_status bar_info(uint32_t bar, cb_bar_info& out);
    cb_status mmio_read(uint32_t bar, uint64_t offset, void* data, uint32_t size);
    cb_status mmio_write(uint32_t bar, uint64_t offset, const void* data, uint32_t size, cb_mmio_mapping mapping);
    // A host mapping of a memory BAR's range from the model (its bar_map, ABI 1.11). CPU accesses
    // through it are not modeled as link traffic.
    cb_status bar_map(uint32_t bar, uint64_t offset, uint64_t size, void*& host);
    cb_status dma_map(void* host, size_t size, cb_dma_direction dir, uint64_t& iova);
    cb_status dma_unmap(uint64_t iova, size_t size);
    cb_status dma_limits(cb_dma_limits& out);
    cb_status set_interrupt_handler(cb_interrupt_handler handler, void* user);
    // The link's state. Its traffic counters are the enclosure's, all processes together, when
    // the counters are shared (share_counters); this link's own otherwise.
    cb_status status(cb_link_status& out);
    void share_counters(std::shared_ptr<shared_link_counters> shared);
    link_counters counters() const;
    cb_status reset(cb_reset_kind kind);
    cb_status inject(const fault_request& fault);
    // True once after a surprise removal cut the wire mid-transfer (fault unplug_after_bytes):
    // the fabric does not know of it yet.
    bool take_surprise_cut() noexcept { return surprise_cut_.exchange(false); }
    // The device was pulled out (this process or another): every later call fails.
    void device_removed();
    void device_returned();
    bool removed() const noexcept { return removed_.load(); }

    // Sync with the stored fabric (posted faults, unplugs by other processes): the posted-fault
    // sequence this link has applied, and when it last looked (monotonic ns).
    uint64_t seen_fault_seq() const noexcept { return seen_fault_seq_.load(); }
    void set_seen_fault_seq(uint64_t seq) noexcept { seen_fault_seq_.store(seq); }
    // True (and the next time moved on) when `now_ns` is past the next time to look.
    bool sync_due(uint64_t now_ns, uint64_t period_ns) noexcept;

private:
    // cb_endpoint_host_ops for the model: its DMA and interrupts cross this link.
    static cb_status host_dma_read(void* self, uint64_t iova, void* dst, size_t size);
    static cb_status host_dma_write(void* self, uint64_t iova, const void* src, size_t size);
    static cb_status host_raise_interrupt(void* self, uint32_t vector);
    static uint64_t host_modeled_time_ns(void* self);
    // The link's modeled time so far: the wire's clock plus config and MMIO charges.
    uint64_t modeled_ns() const noexcept;
    cb_status device_dma(uint64_t iova, void* device_buffer, size_t size, bool device_writes);
    cb_status gone_status() const;
    void charge(uint64_t ns);
    // What this link's wire moved since it opened.
    link_traffic own_traffic() const;
    // Adds what the wire moved since the last call to the shared counters and returns their
    // totals; nothing when the counters are not shared.
    std::optional<shared_link_totals> publish_traffic();

    std::string enclosure_id_;
    attached_model model_;
    std::unique_ptr<link_figures> figures_;
    std::unique_ptr<iommu> iommu_;
    std::unique_ptr<wire> wire_;
    dma_fence dma_fence_;  // unmapping waits for the DMAs in flight
    cb_endpoint_host_ops host_ops_{};
    std::mutex model_mutex_;
    std::mutex irq_mutex_;
    cb_interrupt_handler irq_handler_ = nullptr;
    void* irq_user_ = nullptr;
    std::atomic<bool> removed_{false};
    std::atomic<bool> surprise_cut_{false};
    std::atomic<bool> stuck_{false};
    std::atomic<uint64_t> mmio_ns_{0};     // modeled time of config and MMIO cycles
    std::atomic<uint64_t> dma_faults_{0};  // IOMMU translation faults and failed DMA
    std::atomic<uint64_t> seen_fault_seq_{0};
    std::atomic<uint64_t> next_sync_ns_{0};
    std::mutex publish_mutex_;
    std::shared_ptr<shared_link_counters> shared_;
    link_traffic published_;  // this link's traffic already in shared_
};

}  // namespace cudabridge::usb4
