// userspace_device: user modules for the simulated GPU, registered in the family's
// module_registry that the GPU behind the link shares.
//  - Host kernels (CB_MODULE_HOST_KERNELS, ABI 1.3): checked and copied; a launch resolves every
//    device pointer to its VRAM offset and the bytes left in its allocation and travels as a
//    launch block through the ring (hw::opcode::host_kernel).
//  - PTX, fatbin and CUDA source: the PTX they hold (sim/modules/module_source.hpp) compiled by
//    the PTX engine at load; a launch packs its arguments as the kernel's .param list lays them
//    out and travels as a PTX launch block (hw::opcode::ptx_kernel).
#include "userspace/driver/userspace_device.hpp"

#include "userspace/driver/device_objects.hpp"
#include "userspace/driver/status_text.hpp"

#include "common/errors/fail.hpp"
#include "common/host_kernels/host_kernel_launch.hpp"
#include "sim/modules/module_registry.hpp"
#include "sim/modules/module_source.hpp"
#include "sim/modules/ptx_engine_library.hpp"
#include "sim/modules/ptx_launch.hpp"

#include <array>

namespace cudabridge::nv {

namespace {

std::string kernel_names(const userspace_module& m) {
    if (m.ptx) return m.ptx->kernel_names();
    std::string names;
    for (const auto& k : m.module->kernels) names += (names.empty() ? "" : ", ") + k.name;
    return names;
}

int find_kernel(const userspace_module& m, const std::string& name) {
    return m.ptx ? m.ptx->find(name) : m.module->find(name);
}

}  // namespace

std::shared_ptr<userspace_module> userspace_device::find_module(userspace_module* module) const {
    std::lock_guard lock(objects_mutex_);
    auto it = modules_.find(module);
    return it == modules_.end() ? nullptr : it->second;
}

bool userspace_device::runs_user_modules() {
    cb_link_status link{};
    return registry_ && port_.link_status(link) == CB_OK && link.is_simulated != 0;
}

cb_status userspace_device::module_load(const void* image, size_t size, cb_module_format format, userspace_module*& out,
                                        std::string& log, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    if (!runs_user_modules()) {
        error =
            format == CB_MODULE_HOST_KERNELS
                ? "module_load: host kernels run on simulated GPUs only; load PTX, CUBIN or CUDA source on a real one"
                : "module_load: PTX, CUBIN, fatbin and CUDA source need NVIDIA's compiler and kernel driver on a "
                  "real GPU; the userspace driver runs the built-in kernels there";
        return CB_ERR_UNSUPPORTED;
    }
    auto m = std::make_shared<userspace_module>();
    if (format == CB_MODULE_HOST_KERNELS) {
        auto parsed = std::make_shared<host_kernel_module>();
        if (cb_status st = parse_host_kernel_module(image, size, *parsed, error); st != CB_OK) {
            error = "module_load: " + error;
            return st;
        }
        m->module = parsed;
        m->registry_id = registry_->add({parsed, nullptr});
    } else {
        module_text text;
        const int major = profile_ ? profile_->compute_major : 7, minor = profile_ ? profile_->compute_minor : 5;
        cb_status st = module_ptx(image, size, format, major, minor, text, error);
        log = text.log;
        if (st == CB_OK) st = load_ptx_module(text.ptx, m->ptx, error);
        if (st == CB_OK) st = place_module_symbols(*m, error);
        if (st != CB_OK) return st;
        m->registry_id = registry_->add({nullptr, m->ptx});
    }
    std::lock_guard objects(objects_mutex_);
    modules_.emplace(m.get(), m);
    out = m.get();
    return CB_OK;
}

cb_status userspace_device::place_module_symbols(userspace_module& m, std::string& error) {
    const uint64_t bytes = m.ptx->symbol_bytes();
    if (bytes == 0) return CB_OK;
    if (vram_->allocate(bytes, m.symbols) != CB_OK) {
        error = "module_load: no device memory for the module's " + std::to_string(bytes) + " bytes of variables";
        return CB_ERR_OUT_OF_MEMORY;
    }
    std::vector<uint8_t> initial = m.ptx->initial_symbols();
    cb_status st = host_copy(host_direction::to_device, m.symbols, reinterpret_cast<std::byte*>(initial.data()),
                             initial.size(), nullptr, error);
    if (st != CB_OK) {
        error = "module_load: writing the module's variables: " + error;
        vram_->free(m.symbols);
        m.symbols = 0;
    }
    return st;
}

cb_status userspace_device::place_device_heap(uint64_t bytes, const std::string& name, std::string& error) {
    std::lock_guard heap(heap_mutex_);
    if (heap_address_) return CB_OK;
    uint64_t address = 0;
    if (vram_->allocate(bytes, address) != CB_OK) {
        error = "launch_kernel " + name + ": no device memory for the " + std::to_string(bytes) +
                "-byte device heap its malloc/new need (cudaLimitMallocHeapSize)";
        return CB_ERR_OUT_OF_MEMORY;
    }
    std::array<std::byte, 64> header{};  // the engine lays the heap out when it finds no header
    if (cb_status st = host_copy(host_direction::to_device, address, header.data(), header.size(), nullptr, error);
        st != CB_OK) {
        vram_->free(address);
        return st;
    }
    heap_address_ = address;
    heap_bytes_ = bytes;
    return CB_OK;
}

void userspace_device::replace_module_symbols_locked() {
    {
        std::lock_guard heap(heap_mutex_);
        heap_address_ = heap_bytes_ = 0;  // the old heap went with VRAM; the next launch that needs one places it
    }
    std::vector<std::shared_ptr<userspace_module>> modules;
    {
        std::lock_guard objects(objects_mutex_);
        for (auto& [handle, m] : modules_) modules.push_back(m);
    }
    for (auto& m : modules) {
        if (!m->ptx) continue;
        m->symbols = 0;  // the old block went with VRAM; without a new one kernels use the module's own copy
        std::string ignored;
        place_module_symbols(*m, ignored);
    }
}

cb_status userspace_device::module_global(userspace_module* module, const std::string& name, uint64_t& address,
                                          uint64_t& bytes, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    auto m = find_module(module);
    if (!m) {
        error = "module_global: not a module of this device";
        return CB_ERR_INVALID_ARGUMENT;
    }
    ptx::module_symbol symbol;
    if (!m->ptx || !m->ptx->find_symbol(name, symbol)) {
        error = "module_global: the module defines no variable named '" + name + "'";
        return CB_ERR_NOT_FOUND;
    }
    address = m->symbols + symbol.offset;
    bytes = symbol.size;
    return CB_OK;
}

cb_status userspace_device::kernel_param_info(userspace_module* module, const std::string& name, uint32_t index,
                                              uint64_t& offset, uint64_t& size, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    auto m = find_module(module);
    if (!m) {
        error = "kernel_param_info: not a module of this device";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (!m->ptx) {
        error = "kernel_param_info: the module's kernels are host functions, which take CudaBridge's arguments";
        return CB_ERR_UNSUPPORTED;
    }
    const int kernel = m->ptx->find(name);
    if (kernel < 0) {
        error = "kernel_param_info: the module has no kernel named '" + name + "'";
        return CB_ERR_NOT_FOUND;
    }
    if (!m->ptx->param_info(static_cast<size_t>(kernel), index, offset, size)) {
        error = "kernel_param_info: " + name + " has no parameter " + std::to_string(index);
        return CB_ERR_INVALID_ARGUMENT;
    }
    return CB_OK;
}

cb_status userspace_device::module_unload(userspace_module* module, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (phase_ == phase::closed) return CB_OK;  // closing unloaded every module
    auto m = find_module(module);
    if (!m) {
        error = "module_unload: not a module of this device";
        return CB_ERR_INVALID_ARGUMENT;
    }
    {
        std::unique_lock use(m->use);
        m->unloading = true;
    }
    // Launches already queued still find the module; wait for them first.
    std::string why;
    cb_status st = CB_OK;
    if (phase_ == phase::ready && !loss_.lost()) st = tracker_.wait_fence(m->last_fence.load(), why);
    if (st != CB_OK && st != CB_ERR_DEVICE_LOST && st != CB_ERR_LINK_DOWN) {
        std::unique_lock use(m->use);
        m->unloading = false;
        error = "module_unload: queued launches of the module did not finish: " + why;
        return st;
    }
    {
        std::lock_guard objects(objects_mutex_);
        modules_.erase(module);
    }
    registry_->remove(m->registry_id);
    if (m->symbols && phase_ == phase::ready) vram_->free(m->symbols);
    return CB_OK;
}

void userspace_device::release_modules_locked() {
    std::map<userspace_module*, std::shared_ptr<userspace_module>> modules;
    {
        std::lock_guard objects(objects_mutex_);
        modules.swap(modules_);
    }
    if (registry_)
        for (auto& [handle, m] : modules) registry_->remove(m->registry_id);
}

cb_status userspace_device::launch_kernel(userspace_module* module, const cb_kernel_launch& launch,
                                          userspace_stream* stream, std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    auto m = find_module(module);
    if (!m) {
        error = "launch_kernel: not a module of this device";
        return CB_ERR_INVALID_ARGUMENT;
    }
    std::shared_ptr<userspace_stream> s;
    if (cb_status st = stream_or_error(stream, s, error); st != CB_OK) return st;
    if (launch.name == nullptr || launch.name[0] == '\0') {
        error = "launch_kernel: no kernel name";
        return CB_ERR_INVALID_ARGUMENT;
    }
    const std::string name = launch.name;
    std::shared_lock use(m->use);
    if (m->unloading) {
        error = "launch_kernel " + name + ": the module is being unloaded";
        return CB_ERR_INVALID_ARGUMENT;
    }
    const int index = find_kernel(*m, name);
    if (index < 0) {
        error = "launch_kernel: the module has no kernel named '" + name + "' (it has " + kernel_names(*m) + ")";
        return CB_ERR_NOT_FOUND;
    }
    auto sink = s ? s->errors : std::make_shared<error_sink>();
    std::vector<uint8_t> block;
    if (cb_status st = m->ptx ? ptx_launch_block(*m, static_cast<uint32_t>(index), launch, name, block, error)
                              : host_kernel_launch_block(*m, static_cast<uint32_t>(index), launch, name, block, error);
        st != CB_OK)
        return st;
    uint64_t fence = 0;
    const std::string what = std::string(m->ptx ? "kernel '" : "host kernel '") + name + "'";
    if (cb_status st = queue_launch_block(m->ptx ? hw::opcode::ptx_kernel : hw::opcode::host_kernel, block, what, sink,
                                          fence, error);
        st != CB_OK)
        return st;
    raise_to(m->last_fence, fence);
    if (m->ptx) host_windows_used(fence);
    use.unlock();
    return finish_submission(s, fence, *sink, error);
}

cb_status userspace_device::ptx_launch_block(const userspace_module& m, uint32_t index, const cb_kernel_launch& launch,
                                             const std::string& name, std::vector<uint8_t>& block, std::string& error) {
    ptx_launch planned;
    planned.module_id = m.registry_id;
    planned.kernel_index = index;
    std::copy(std::begin(launch.grid), std::end(launch.grid), planned.grid);
    std::copy(std::begin(launch.block), std::end(launch.block), planned.block);
    planned.dynamic_shared = launch.shared_memory_bytes;
    planned.symbols = m.symbols;
    planned.stack_bytes = static_cast<uint32_t>(std::min<uint64_t>(cb_launch_stack_bytes(&launch), max_stack_bytes));
    planned.cooperative = (launch.flags & CB_LAUNCH_COOPERATIVE) != 0;
    if (m.ptx->uses_heap(index)) {
        if (cb_status st = place_device_heap(cb_launch_heap_bytes(&launch), name, error); st != CB_OK) return st;
        std::lock_guard heap(heap_mutex_);
        planned.heap_address = heap_address_;
        planned.heap_bytes = heap_bytes_;
    }
    void* const* raw = cb_launch_kernel_params(&launch);
    if (cb_status st = raw ? m.ptx->pack_parameters(index, raw, planned.params, error)
                           : m.ptx->pack_arguments(index, launch.args, launch.arg_count, planned.params, error);
        st != CB_OK)
        return st;
    // The pages no allocation holds, so the kernel faults there as on a GPU's page tables.
    std::vector<address_range> free_blocks;
    for (const vram_block& b : vram_->free_blocks()) free_blocks.push_back({b.address, b.address + b.size});
    planned.unmapped = unmapped_pages(free_blocks);
    add_host_windows(planned);  // zero-copy: registered host memory at its own address
    if (cb_status st = check_ptx_launch(planned, "launch_kernel " + name, error); st != CB_OK) return st;
    block = encode_ptx_launch(planned);
    return CB_OK;
}

cb_status userspace_device::host_kernel_launch_block(const userspace_module& m, uint32_t index,
                                                     const cb_kernel_launch& launch, const std::string& name,
                                                     std::vector<uint8_t>& block, std::string& error) {
    const device_pointer_resolver resolve = [&](size_t i, uint64_t ptr, uint64_t& offset, uint64_t& span,
                                                std::string& message) -> cb_status {
        vram_block owner;
        // find() also answers for the padding after an allocation; only its requested bytes count.
        if (!vram_->find(ptr, owner) || ptr >= owner.address + owner.size)
            return fail(message, CB_ERR_INVALID_ARGUMENT,
                        "launch_kernel " + name + ": argument " + std::to_string(i) + ": device pointer " + hex(ptr) +
                            " is not inside a live allocation");
        offset = ptr - vram_base_;
        span = owner.address + owner.size - ptr;
        return CB_OK;
    };
    host_kernel_launch planned;
    if (cb_status st = make_host_kernel_launch(launch, name, m.registry_id, index, resolve, planned, error);
        st != CB_OK)
        return st;
    block = encode_host_kernel_launch(planned);
    return CB_OK;
}

}  // namespace cudabridge::nv
