// userspace_device: host kernels (CB_MODULE_HOST_KERNELS, ABI 1.3) for the simulated GPU. A module
// is checked, copied and registered in the family's host_kernel_registry; a launch resolves every
// device pointer to its VRAM offset and the bytes left in its allocation, and travels as a launch
// block through the ring (hw::opcode::host_kernel) like a built-in launch.
#include "userspace/userspace_device.hpp"

#include "userspace/device_objects.hpp"
#include "userspace/status_text.hpp"

#include "host_kernels/host_kernel_launch.hpp"
#include "host_kernels/host_kernel_registry.hpp"

namespace cudabridge::nv {

namespace {

std::string kernel_names(const host_kernel_module& m) {
    std::string names;
    for (const auto& k : m.kernels) names += (names.empty() ? "" : ", ") + k.name;
    return names;
}

}  // namespace

std::shared_ptr<userspace_module> userspace_device::find_module(userspace_module* module) const {
    std::lock_guard lock(objects_mutex_);
    auto it = modules_.find(module);
    return it == modules_.end() ? nullptr : it->second;
}

cb_status userspace_device::module_load_host_kernels(const void* image, size_t size, userspace_module*& out,
                                                     std::string& error) {
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    cb_link_status link{};
    if (!host_kernels_ || port_.link_status(link) != CB_OK || link.is_simulated == 0) {
        error = "module_load: host kernels run on simulated GPUs only; load PTX, CUBIN or CUDA source on a real one";
        return CB_ERR_UNSUPPORTED;
    }
    auto parsed = std::make_shared<host_kernel_module>();
    if (kernels::status s = parse_host_kernel_module(image, size, *parsed); !s.ok()) {
        error = "module_load: " + s.message;
        return s.code;
    }
    auto m = std::make_shared<userspace_module>();
    m->module = parsed;
    m->registry_id = host_kernels_->add(parsed);
    std::lock_guard objects(objects_mutex_);
    modules_.emplace(m.get(), m);
    out = m.get();
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
    if (st != CB_OK && st != CB_ERR_DEVICE_LOST) {
        std::unique_lock use(m->use);
        m->unloading = false;
        error = "module_unload: queued launches of the module did not finish: " + why;
        return st;
    }
    {
        std::lock_guard objects(objects_mutex_);
        modules_.erase(module);
    }
    host_kernels_->remove(m->registry_id);
    return CB_OK;
}

void userspace_device::release_modules_locked() {
    std::map<userspace_module*, std::shared_ptr<userspace_module>> modules;
    {
        std::lock_guard objects(objects_mutex_);
        modules.swap(modules_);
    }
    if (host_kernels_)
        for (auto& [handle, m] : modules) host_kernels_->remove(m->registry_id);
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
    const int index = m->module->find(name);
    if (index < 0) {
        error = "launch_kernel: the module has no kernel named '" + name + "' (it has " + kernel_names(*m->module) + ")";
        return CB_ERR_NOT_FOUND;
    }
    const device_pointer_resolver resolve = [&](size_t i, uint64_t ptr, uint64_t& offset, uint64_t& span) {
        vram_block block;
        // find() also answers for the padding after an allocation; only its requested bytes count.
        if (!vram_->find(ptr, block) || ptr >= block.address + block.size)
            return kernels::status::invalid("launch_kernel " + name + ": argument " + std::to_string(i) +
                                            ": device pointer " + hex(ptr) + " is not inside a live allocation");
        offset = ptr - vram_base_;
        span = block.address + block.size - ptr;
        return kernels::status::success();
    };
    host_kernel_launch planned;
    if (kernels::status st = make_host_kernel_launch(launch, name, m->registry_id, static_cast<uint32_t>(index),
                                                     resolve, planned);
        !st.ok()) {
        error = st.message;
        return st.code;
    }
    auto sink = s ? s->errors : std::make_shared<error_sink>();
    uint64_t fence = 0;
    if (cb_status st = queue_launch_block(hw::opcode::host_kernel, encode_host_kernel_launch(planned),
                                          "host kernel '" + name + "'", sink, fence, error);
        st != CB_OK)
        return st;
    raise_to(m->last_fence, fence);
    use.unlock();
    return finish_submission(s, fence, *sink, error);
}

}  // namespace cudabridge::nv
