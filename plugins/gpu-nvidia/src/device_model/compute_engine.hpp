// The compute engine: a launch command's block is fetched by DMA, decoded (launch/), and the
// built-in kernel runs on host threads against VRAM. A bad block or a bad call fails with the
// kernel library's status (Xid 13); a tensor outside VRAM with CB_ERR_INVALID_ARGUMENT (Xid 31).
#pragma once

#include "device_model/command_result.hpp"
#include "device_model/dma_port.hpp"
#include "device_model/vram.hpp"
#include "kernels/engine.hpp"

#include <cstdint>
#include <memory>

namespace cudabridge::nv {

// A launch block is a header and at most three tensor descriptors; anything larger is refused
// before it is fetched.
inline constexpr uint64_t max_launch_block_bytes = 64u << 10;

class compute_engine {
public:
    // threads == 0: every core. The worker threads start at the first launch.
    explicit compute_engine(unsigned threads);
    ~compute_engine();

    unsigned threads() const noexcept { return threads_; }

    command_result launch(const dma_port& dma, const vram& memory, uint64_t block_iova, uint64_t block_bytes,
                          const abort_check& abort);

private:
    unsigned threads_;
    std::unique_ptr<kernels::engine> engine_;
};

}  // namespace cudabridge::nv
