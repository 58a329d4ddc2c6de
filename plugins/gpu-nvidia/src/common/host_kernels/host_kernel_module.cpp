#include "common/host_kernels/host_kernel_module.hpp"

#include <cstring>
#include <set>

namespace cudabridge::nv {

int host_kernel_module::find(const std::string& name) const {
    for (size_t i = 0; i < kernels.size(); ++i)
        if (kernels[i].name == name) return static_cast<int>(i);
    return -1;
}

namespace {

// The longest symbol accepted: as long as any CUDA toolchain allows, and it bounds messages.
constexpr size_t max_name_bytes = 1024;

cb_status check_entry(const cb_host_kernel& k, size_t index, std::set<std::string>& seen, host_kernel_entry& out,
                      std::string& error) {
    const std::string where = "host kernel module: kernel " + std::to_string(index) + ": ";
    if (k.name == nullptr || k.name[0] == '\0') return fail(error, CB_ERR_INVALID_ARGUMENT, where + "no name");
    const size_t length = ::strnlen(k.name, max_name_bytes + 1);
    if (length > max_name_bytes)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    where + "name longer than " + std::to_string(max_name_bytes) + " bytes");
    out.name.assign(k.name, length);
    if (k.fn == nullptr) return fail(error, CB_ERR_INVALID_ARGUMENT, where + "'" + out.name + "' has no function");
    if (!seen.insert(out.name).second)
        return fail(error, CB_ERR_INVALID_ARGUMENT, where + "'" + out.name + "' is named twice");
    out.fn = k.fn;
    return CB_OK;
}

}  // namespace

cb_status parse_host_kernel_module(const void* image, size_t size, host_kernel_module& out, std::string& error) {
    if (image == nullptr) return fail(error, CB_ERR_INVALID_ARGUMENT, "host kernel module: NULL image");
    const size_t needed = offsetof(cb_host_kernel_module, kernel_count) + sizeof(size_t);
    cb_host_kernel_module m{};
    std::memcpy(&m.struct_size, image, sizeof m.struct_size);
    if (size < needed || m.struct_size < needed)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    "host kernel module: size " + std::to_string(size) + " / struct_size " +
                        std::to_string(m.struct_size) + " is smaller than a cb_host_kernel_module (" +
                        std::to_string(needed) + " bytes); pass the module and sizeof it");
    std::memcpy(&m, image, sizeof m);
    if (m.kernel_count == 0 || m.kernels == nullptr)
        return fail(error, CB_ERR_INVALID_ARGUMENT, "host kernel module: no kernels");
    if (m.kernel_count > 65536)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    "host kernel module: " + std::to_string(m.kernel_count) + " kernels (at most 65536)");
    host_kernel_module parsed;
    parsed.kernels.resize(m.kernel_count);
    std::set<std::string> seen;
    for (size_t i = 0; i < m.kernel_count; ++i)
        if (cb_status s = check_entry(m.kernels[i], i, seen, parsed.kernels[i], error); s != CB_OK) return s;
    out = std::move(parsed);
    return CB_OK;
}

}  // namespace cudabridge::nv
