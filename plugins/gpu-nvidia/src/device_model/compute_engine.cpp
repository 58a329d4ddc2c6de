#include "device_model/compute_engine.hpp"

#include "launch/builtin_call.hpp"

#include <thread>
#include <vector>

namespace cudabridge::nv {

compute_engine::compute_engine(unsigned threads)
    : threads_(threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency())) {}

compute_engine::~compute_engine() = default;

command_result compute_engine::launch(const dma_port& dma, const vram& memory, uint64_t block_iova,
                                      uint64_t block_bytes, const abort_check& abort) {
    if (block_bytes == 0 || block_bytes > max_launch_block_bytes)
        return command_result::failure(CB_ERR_INVALID_ARGUMENT, xid_graphics_engine_exception,
                                       "launch: block of " + std::to_string(block_bytes) +
                                           " bytes (1.." + std::to_string(max_launch_block_bytes) + " allowed)");
    std::vector<uint8_t> block(block_bytes);
    if (cb_status st = dma.read(block_iova, block.data(), block.size(), abort); st != CB_OK)
        return command_result::failure(st, 0, "launch: fetching the launch block failed (status " +
                                                  std::to_string(st) + ")");
    builtin_call call;
    if (auto s = decode(block.data(), block.size(), call); !s.ok())
        return command_result::failure(s.code, xid_graphics_engine_exception, s.message);

    bool faulted = false;
    const address_resolver resolve = [&](uint64_t device_address, uint64_t bytes) -> void* {
        uint8_t* p = memory.translate(device_address, bytes);
        faulted |= p == nullptr;
        return p;
    };
    if (!engine_) engine_ = std::make_unique<kernels::engine>(threads_);
    if (auto s = run_on_cpu(call, resolve, *engine_); !s.ok())
        return command_result::failure(s.code, faulted ? xid_mmu_fault : xid_graphics_engine_exception, s.message);
    return command_result::success();
}

}  // namespace cudabridge::nv
