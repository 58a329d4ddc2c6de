// The loopback's one open link: the host's config, MMIO and reset cycles go straight to the
// hosted model, and the model's DMA and interrupts come straight back, through the IOVA table.
// No cable and no modeled time: every copy is a memcpy in this process.
//
// Threading: any thread may call any member. Model-table calls take the model's lock; the
// model's own threads call back (DMA, interrupts) without it.
#pragma once

#include "hosted_model.hpp"
#include "iova_table.hpp"

#include <cudabridge/transport.h>

#include <atomic>
#include <memory>
#include <mutex>

namespace loopback {

class endpoint_link {
public:
    // Attaches the model to this link; throws cudabridge::sdk::status_error when it refuses.
    explicit endpoint_link(std::shared_ptr<hosted_model> model);
    ~endpoint_link();
    endpoint_link(const endpoint_link&) = delete;
    endpoint_link& operator=(const endpoint_link&) = delete;

    // Lets go of the model (it makes no further call back); later calls answer device lost.
    void detach();

    cb_status config_read(uint32_t offset, void* data, uint32_t size);
    cb_status config_write(uint32_t offset, const void* data, uint32_t size);
    cb_status bar_info(uint32_t bar, cb_bar_info& out);
    cb_status mmio_read(uint32_t bar, uint64_t offset, void* data, size_t size);
    cb_status mmio_write(uint32_t bar, uint64_t offset, const void* data, size_t size);
    cb_status reset(cb_reset_kind kind);
    cb_status set_interrupt_handler(cb_interrupt_handler handler, void* user);
    cb_status status(cb_link_status& out);
    iova_table& iommu() noexcept { return iommu_; }

private:
    static cb_status dma_read(void* self, uint64_t iova, void* dst, size_t size);
    static cb_status dma_write(void* self, uint64_t iova, const void* src, size_t size);
    static cb_status raise_interrupt(void* self, uint32_t vector);

    // Runs one model-table call under the model's lock, unless the link has let go of it.
    template <class Call>
    cb_status with_model(Call call);

    std::shared_ptr<hosted_model> model_;
    std::atomic<bool> attached_{false};
    cb_endpoint_host_ops ops_{};
    iova_table iommu_;
    std::mutex irq_mutex_;  // held while a handler runs, so replacing one waits for it
    cb_interrupt_handler irq_handler_ = nullptr;
    void* irq_user_ = nullptr;
    std::atomic<uint64_t> bytes_to_device_{0}, bytes_from_device_{0}, transfers_{0}, dma_faults_{0};
};

}  // namespace loopback
