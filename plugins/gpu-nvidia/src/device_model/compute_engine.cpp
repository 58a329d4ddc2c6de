#include "device_model/compute_engine.hpp"

#include "device_model/host_kernel_execution.hpp"
#include "host_kernels/host_kernel_launch.hpp"
#include "launch/builtin_call.hpp"

#include <thread>
#include <vector>

namespace cudabridge::nv {

compute_engine::compute_engine(unsigned threads, std::shared_ptr<const host_kernel_registry> host_kernels)
    : threads_(threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency())),
      host_kernels_(std::move(host_kernels)) {}

compute_engine::~compute_engine() = default;

kernels::engine& compute_engine::engine() {
    if (!engine_) engine_ = std::make_unique<kernels::engine>(threads_);
    return *engine_;
}

command_result compute_engine::fetch_block(const dma_port& dma, uint64_t block_iova, uint64_t block_bytes,
                                           const abort_check& abort, std::vector<uint8_t>& out) const {
    if (block_bytes == 0 || block_bytes > max_launch_block_bytes)
        return command_result::failure(CB_ERR_INVALID_ARGUMENT, xid_graphics_engine_exception,
                                       "launch: block of " + std::to_string(block_bytes) +
                                           " bytes (1.." + std::to_string(max_launch_block_bytes) + " allowed)");
    out.resize(block_bytes);
    if (cb_status st = dma.read(block_iova, out.data(), out.size(), abort); st != CB_OK)
        return command_result::failure(st, 0, "launch: fetching the launch block failed (status " +
                                                  std::to_string(st) + ")");
    return command_result::success();
}

command_result compute_engine::launch(const dma_port& dma, const vram& memory, uint64_t block_iova,
                                      uint64_t block_bytes, const abort_check& abort, work_amount& work) {
    work = {};
    std::vector<uint8_t> block;
    if (command_result r = fetch_block(dma, block_iova, block_bytes, abort, block); !r.ok()) return r;
    builtin_call call;
    if (auto s = decode(block.data(), block.size(), call); !s.ok())
        return command_result::failure(s.code, xid_graphics_engine_exception, s.message);
    work = builtin_work(call);

    bool faulted = false;
    const address_resolver resolve = [&](uint64_t device_address, uint64_t bytes) -> void* {
        uint8_t* p = memory.translate(device_address, bytes);
        faulted |= p == nullptr;
        return p;
    };
    if (auto s = run_on_cpu(call, resolve, engine()); !s.ok())
        return command_result::failure(s.code, faulted ? xid_mmu_fault : xid_graphics_engine_exception, s.message);
    return command_result::success();
}

command_result compute_engine::launch_host_kernel(const dma_port& dma, const vram& memory, uint64_t block_iova,
                                                  uint64_t block_bytes, const abort_check& abort,
                                                  work_amount& work) {
    work = {};
    if (!host_kernels_)
        return command_result::failure(CB_ERR_UNSUPPORTED, xid_graphics_engine_exception,
                                       "host kernel: this simulated GPU has no host-kernel registry (it was not "
                                       "created by the GPU family that loads the modules)");
    std::vector<uint8_t> block;
    if (command_result r = fetch_block(dma, block_iova, block_bytes, abort, block); !r.ok()) return r;
    host_kernel_launch launch;
    if (auto s = decode_host_kernel_launch(block.data(), block.size(), launch); !s.ok())
        return command_result::failure(s.code, xid_graphics_engine_exception, s.message);
    work = host_kernel_work(launch);
    const auto module = host_kernels_->find(launch.module_id);
    if (!module || launch.kernel_index >= module->kernels.size())
        return command_result::failure(CB_ERR_NOT_FOUND, xid_graphics_engine_exception,
                                       "host kernel: module " + std::to_string(launch.module_id) + " kernel " +
                                           std::to_string(launch.kernel_index) + " is not loaded");
    return run_host_kernel(launch, module->kernels[launch.kernel_index], memory, engine(), abort);
}

}  // namespace cudabridge::nv
