#include "sim/device_model/compute_engine.hpp"

#include "sim/device_model/host_kernel_execution.hpp"
#include "sim/device_model/linked_host_memory.hpp"
#include "common/host_kernels/host_kernel_launch.hpp"
#include "common/launch/builtin_call.hpp"
#include "sim/modules/ptx_launch.hpp"
#include "sim/ptx/abi.hpp"
#include "common/hw/registers.hpp"

#include <thread>
#include <vector>

namespace cudabridge::nv {

namespace {

command_result no_registry(const char* what) {
    return command_result::failure(CB_ERR_UNSUPPORTED, xid_graphics_engine_exception,
                                   std::string(what) +
                                       ": this simulated GPU has no module registry (it was not "
                                       "created by the GPU family that loads the modules)");
}

command_result not_loaded(const char* what, uint64_t module_id, uint32_t kernel_index) {
    return command_result::failure(CB_ERR_NOT_FOUND, xid_graphics_engine_exception,
                                   std::string(what) + ": module " + std::to_string(module_id) + " kernel " +
                                       std::to_string(kernel_index) + " is not loaded");
}

}  // namespace

compute_engine::compute_engine(unsigned threads, std::shared_ptr<const module_registry> modules)
    : threads_(threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency())),
      modules_(std::move(modules)) {}

compute_engine::~compute_engine() = default;

kernels::engine& compute_engine::engine() {
    if (!engine_) engine_ = std::make_unique<kernels::engine>(threads_);
    return *engine_;
}

command_result compute_engine::fetch_block(const dma_port& dma, uint64_t block_iova, uint64_t block_bytes,
                                           const abort_check& abort, std::vector<uint8_t>& out) const {
    if (block_bytes == 0 || block_bytes > max_launch_block_bytes)
        return command_result::failure(CB_ERR_INVALID_ARGUMENT, xid_graphics_engine_exception,
                                       "launch: block of " + std::to_string(block_bytes) + " bytes (1.." +
                                           std::to_string(max_launch_block_bytes) + " allowed)");
    out.resize(block_bytes);
    if (cb_status st = dma.read(block_iova, out.data(), out.size(), abort); st != CB_OK)
        return command_result::failure(st, 0,
                                       "launch: fetching the launch block failed (status " + std::to_string(st) + ")");
    return command_result::success();
}

command_result compute_engine::launch(const dma_port& dma, const vram& memory, uint64_t block_iova,
                                      uint64_t block_bytes, const abort_check& abort, work_amount& work) {
    work = {};
    std::vector<uint8_t> block;
    if (command_result r = fetch_block(dma, block_iova, block_bytes, abort, block); !r.ok()) return r;
    builtin_call call;
    std::string error;
    if (cb_status st = decode(block.data(), block.size(), call, error); st != CB_OK)
        return command_result::failure(st, xid_graphics_engine_exception, error);
    work = builtin_work(call);

    bool faulted = false;
    const address_resolver resolve = [&](uint64_t device_address, uint64_t bytes) -> void* {
        uint8_t* p = memory.translate(device_address, bytes);
        faulted |= p == nullptr;
        return p;
    };
    if (cb_status st = run_on_cpu(call, resolve, engine(), error); st != CB_OK)
        return command_result::failure(st, faulted ? xid_mmu_fault : xid_graphics_engine_exception, error);
    return command_result::success();
}

command_result compute_engine::launch_host_kernel(const dma_port& dma, const vram& memory, uint64_t block_iova,
                                                  uint64_t block_bytes, const abort_check& abort, work_amount& work) {
    work = {};
    if (!modules_) return no_registry("host kernel");
    std::vector<uint8_t> block;
    if (command_result r = fetch_block(dma, block_iova, block_bytes, abort, block); !r.ok()) return r;
    host_kernel_launch launch;
    std::string error;
    if (cb_status st = decode_host_kernel_launch(block.data(), block.size(), launch, error); st != CB_OK)
        return command_result::failure(st, xid_graphics_engine_exception, error);
    work = host_kernel_work(launch);
    const auto module = modules_->find(launch.module_id).host_kernels;
    if (!module || launch.kernel_index >= module->kernels.size())
        return not_loaded("host kernel", launch.module_id, launch.kernel_index);
    return run_host_kernel(launch, module->kernels[launch.kernel_index], memory, engine(), abort);
}

const uint8_t* compute_engine::page_map(uint64_t vram_size, const std::vector<address_range>& unmapped) {
    const size_t pages = static_cast<size_t>((vram_size >> ptx::vram_page_shift) + 1);
    if (page_map_.size() == pages && unmapped == page_map_holes_) return page_map_.data();
    page_map_.assign(pages, 1);
    for (const address_range& r : unmapped) {
        if (r.first < hw::vram_base || r.end > hw::vram_base + vram_size) continue;  // not VRAM: nothing to unmap
        const uint64_t first = (r.first - hw::vram_base) >> ptx::vram_page_shift;
        const uint64_t end = (r.end - hw::vram_base) >> ptx::vram_page_shift;
        std::fill(page_map_.begin() + static_cast<ptrdiff_t>(first), page_map_.begin() + static_cast<ptrdiff_t>(end),
                  0);
    }
    page_map_holes_ = unmapped;
    return page_map_.data();
}

command_result compute_engine::launch_ptx_kernel(const dma_port& dma, const vram& memory, uint64_t block_iova,
                                                 uint64_t block_bytes, const abort_check& abort, work_amount& work) {
    work = {};
    if (!modules_) return no_registry("PTX kernel");
    std::vector<uint8_t> block;
    if (command_result r = fetch_block(dma, block_iova, block_bytes, abort, block); !r.ok()) return r;
    ptx_launch launch;
    std::string error;
    if (cb_status st = decode_ptx_launch(block.data(), block.size(), launch, error); st != CB_OK)
        return command_result::failure(st, xid_graphics_engine_exception, error);
    const auto module = modules_->find(launch.module_id).ptx;
    if (!module) return not_loaded("PTX kernel", launch.module_id, launch.kernel_index);

    ptx::launch_request r;
    r.kernel = launch.kernel_index;
    std::copy(std::begin(launch.grid), std::end(launch.grid), r.grid);
    std::copy(std::begin(launch.block), std::end(launch.block), r.block);
    r.dynamic_shared = launch.dynamic_shared;
    r.params = std::move(launch.params);
    r.symbols = launch.symbols;
    r.stack_bytes = launch.stack_bytes;
    r.heap_address = launch.heap_address;
    r.heap_bytes = launch.heap_bytes;
    r.cooperative = launch.cooperative;
    std::unique_ptr<linked_host_memory> host;
    if (!launch.host_windows.empty()) host = std::make_unique<linked_host_memory>(dma, std::move(launch.host_windows));
    const ptx::device_memory device{memory.at_offset(0, memory.size()), hw::vram_base, memory.size(),
                                    page_map(memory.size(), launch.unmapped), host.get()};
    kernels::engine& threads = engine();
    const ptx::block_runner run = [&](uint64_t count, const std::function<void(uint64_t, uint64_t)>& fn) {
        threads.parallel_for(static_cast<int64_t>(count), 1,
                             [&](int64_t b, int64_t e) { fn(uint64_t(b), uint64_t(e)); });
    };
    ptx::launch_outcome out = module->launch(r, device, run, abort);
    // What kernels stored in host memory lands there even when the launch faulted, as on a GPU.
    if (const cb_status st = host && out.status != CB_ERR_DEVICE_LOST ? host->write_back() : CB_OK;
        st != CB_OK && out.status == CB_OK) {
        out.status = CB_ERR_ILLEGAL_ADDRESS;
        out.message = "PTX kernel: writing host memory back over the link failed (status " + std::to_string(st) + ")";
    }
    work = ptx_kernel_work(out.executed, out.bytes_moved);
    if (host) work.link_ns = static_cast<double>(host->link_ns());
    if (out.status == CB_OK) return command_result::success();
    return command_result::failure(
        out.status, out.status == CB_ERR_ILLEGAL_ADDRESS ? xid_mmu_fault : xid_graphics_engine_exception, out.message);
}

}  // namespace cudabridge::nv
