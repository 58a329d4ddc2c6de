// The compute engine: a launch command's block is fetched by DMA, decoded (launch/), and the
// built-in kernel runs on host threads against VRAM. A bad block or a bad call fails with the
// kernel library's status (Xid 13); a tensor outside VRAM with CB_ERR_INVALID_ARGUMENT (Xid 31).
//
// A host_kernel command runs a user's C function from the family's module_registry once per
// block of its grid (host_kernel_execution.hpp); a ptx_kernel command runs a PTX kernel the
// engine compiled, its blocks spread over the same threads, against VRAM (an access outside it,
// or to a 64 KiB page no allocation holds, fails the launch: CB_ERR_ILLEGAL_ADDRESS, Xid 31). Without a registry both fail
// (CB_ERR_UNSUPPORTED).
#pragma once

#include "sim/device_model/command_result.hpp"
#include "sim/device_model/dma_port.hpp"
#include "sim/device_model/vram.hpp"
#include "sim/device_model/work_cost.hpp"
#include "sim/modules/module_registry.hpp"
#include "sim/modules/ptx_launch.hpp"
#include "common/kernels/engine.hpp"

#include <cstdint>
#include <memory>

namespace cudabridge::nv {

// A launch block is a header and at most three tensor descriptors (a host-kernel block: at most
// 512 arguments and 32 KiB of them by value); anything larger is refused before it is fetched.
inline constexpr uint64_t max_launch_block_bytes = 64u << 10;

class compute_engine {
public:
    // threads == 0: every core. The worker threads start at the first launch.
    explicit compute_engine(unsigned threads, std::shared_ptr<const module_registry> modules = nullptr);
    ~compute_engine();

    unsigned threads() const noexcept { return threads_; }

    // `work` is what the launch asked of the GPU (work_cost.hpp), once its block decoded; zero
    // when the block could not be fetched or decoded.
    command_result launch(const dma_port& dma, const vram& memory, uint64_t block_iova, uint64_t block_bytes,
                          const abort_check& abort, work_amount& work);
    command_result launch_host_kernel(const dma_port& dma, const vram& memory, uint64_t block_iova,
                                      uint64_t block_bytes, const abort_check& abort, work_amount& work);
    command_result launch_ptx_kernel(const dma_port& dma, const vram& memory, uint64_t block_iova, uint64_t block_bytes,
                                     const abort_check& abort, work_amount& work);

private:
    // Fetches a launch block of `block_bytes` into `out`; a failure result when it cannot.
    command_result fetch_block(const dma_port& dma, uint64_t block_iova, uint64_t block_bytes, const abort_check& abort,
                               std::vector<uint8_t>& out) const;
    kernels::engine& engine();
    // The PTX engine's page map for VRAM with `unmapped` pages cleared; kept while they repeat.
    const uint8_t* page_map(uint64_t vram_size, const std::vector<address_range>& unmapped);

    unsigned threads_;
    std::shared_ptr<const module_registry> modules_;
    std::unique_ptr<kernels::engine> engine_;
    std::vector<uint8_t> page_map_;
    std::vector<address_range> page_map_holes_;
};

}  // namespace cudabridge::nv
