#include "common/host_kernels/host_kernel_launch.hpp"

#include <cstring>

namespace cudabridge::nv {
namespace {

constexpr uint32_t block_magic = 0x4B484243;  // "CBHK"
constexpr uint32_t max_grid[3] = {0x7FFFFFFFu, 65535, 65535};
constexpr uint32_t max_block[3] = {1024, 1024, 64};
constexpr uint64_t max_block_threads = 1024;
constexpr const char* axis_names[3] = {"x", "y", "z"};

struct block_header : launch_block_target {
    uint32_t arg_count;
    uint32_t payload_bytes;
};
static_assert(sizeof(block_header) == 48);

struct arg_record {
    int32_t type;
    uint32_t size;
    uint64_t value;
    uint64_t vram_offset;
    uint64_t span;
};

}  // namespace

cb_status check_launch_shape(const uint32_t grid[3], const uint32_t block[3], const std::string& where,
                             std::string& error) {
    uint64_t threads = 1;
    for (int i = 0; i < 3; ++i) {
        if (grid[i] == 0 || block[i] == 0)
            return fail(error, CB_ERR_INVALID_ARGUMENT, where + ": grid and block dimensions must all be at least 1");
        if (grid[i] > max_grid[i])
            return fail(error, CB_ERR_INVALID_ARGUMENT,
                        where + ": grid " + axis_names[i] + " = " + std::to_string(grid[i]) + " (at most " +
                            std::to_string(max_grid[i]) + ")");
        if (block[i] > max_block[i])
            return fail(error, CB_ERR_INVALID_ARGUMENT,
                        where + ": block " + axis_names[i] + " = " + std::to_string(block[i]) + " (at most " +
                            std::to_string(max_block[i]) + ")");
        threads *= block[i];
    }
    if (threads > max_block_threads)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    where + ": blocks of " + std::to_string(threads) + " threads (at most " +
                        std::to_string(max_block_threads) + ")");
    return CB_OK;
}

namespace {

cb_status check_counts(size_t args, size_t payload, const std::string& where, std::string& error) {
    if (args > max_host_kernel_args)
        return fail(
            error, CB_ERR_INVALID_ARGUMENT,
            where + ": " + std::to_string(args) + " arguments (at most " + std::to_string(max_host_kernel_args) + ")");
    if (payload > max_host_kernel_arg_bytes)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    where + ": " + std::to_string(payload) + " bytes of arguments by value (at most " +
                        std::to_string(max_host_kernel_arg_bytes) + ")");
    return CB_OK;
}

uint64_t scalar_bits(const cb_kernel_arg& a) {
    uint64_t bits = 0;
    std::memcpy(&bits, &a.value, sizeof bits);
    return bits;
}

// One launched argument as the ring carries it; CB_ARG_BYTES go to the payload.
cb_status convert_arg(const cb_kernel_arg& a, size_t i, const std::string& where,
                      const device_pointer_resolver& resolve, host_kernel_arg& out, std::vector<uint8_t>& payload,
                      std::string& error) {
    out = host_kernel_arg{};
    out.type = a.type;
    switch (a.type) {
    case CB_ARG_DEVICE_PTR:
        out.value = a.value.device_ptr;
        if (a.value.device_ptr == 0) return CB_OK;  // a null pointer, as CUDA passes one
        return resolve(i, a.value.device_ptr, out.vram_offset, out.span, error);
    case CB_ARG_INT64:
    case CB_ARG_UINT64:
    case CB_ARG_FLOAT64:
        out.value = scalar_bits(a);
        return CB_OK;
    case CB_ARG_BYTES:
        if (a.size == 0 || a.value.bytes == nullptr)
            return fail(error, CB_ERR_INVALID_ARGUMENT,
                        where + ": argument " + std::to_string(i) + ": CB_ARG_BYTES without bytes");
        if (payload.size() + a.size > max_host_kernel_arg_bytes)
            return check_counts(0, payload.size() + a.size, where, error);
        out.size = a.size;
        out.value = payload.size();
        payload.insert(payload.end(), static_cast<const uint8_t*>(a.value.bytes),
                       static_cast<const uint8_t*>(a.value.bytes) + a.size);
        return CB_OK;
    default:
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    where + ": argument " + std::to_string(i) + ": unknown argument type " + std::to_string(a.type));
    }
}

cb_status check_record(const host_kernel_arg& a, size_t i, size_t payload, std::string& error) {
    const std::string where = "host kernel launch block: argument " + std::to_string(i) + ": ";
    switch (a.type) {
    case CB_ARG_DEVICE_PTR:
        if (a.size != 0 || (a.value == 0) != (a.span == 0))
            return fail(error, CB_ERR_INVALID_ARGUMENT, where + "inconsistent device pointer");
        return CB_OK;
    case CB_ARG_INT64:
    case CB_ARG_UINT64:
    case CB_ARG_FLOAT64:
        return a.size == 0 ? CB_OK : fail(error, CB_ERR_INVALID_ARGUMENT, where + "a scalar with a size");
    case CB_ARG_BYTES:
        if (a.size == 0 || a.value > payload || payload - a.value < a.size)
            return fail(error, CB_ERR_INVALID_ARGUMENT, where + "bytes outside the block");
        return CB_OK;
    default:
        return fail(error, CB_ERR_INVALID_ARGUMENT, where + "unknown argument type " + std::to_string(a.type));
    }
}

}  // namespace

cb_status make_host_kernel_launch(const cb_kernel_launch& launch, const std::string& name, uint64_t module_id,
                                  uint32_t kernel_index, const device_pointer_resolver& resolve,
                                  host_kernel_launch& out, std::string& error) {
    const std::string where = "launch_kernel " + name;
    if (cb_launch_kernel_params(&launch))
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    where +
                        ": a host kernel takes cb_kernel_arg arguments, not kernelParams (its C function "
                        "declares no parameter list the launch could be laid out by)");
    if (launch.arg_count != 0 && launch.args == nullptr)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    where + ": " + std::to_string(launch.arg_count) + " arguments but args is NULL");
    if (cb_status s = check_counts(launch.arg_count, 0, where, error); s != CB_OK) return s;
    if (cb_status s = check_launch_shape(launch.grid, launch.block, where, error); s != CB_OK) return s;
    host_kernel_launch l;
    l.module_id = module_id;
    l.kernel_index = kernel_index;
    std::memcpy(l.grid, launch.grid, sizeof l.grid);
    std::memcpy(l.block, launch.block, sizeof l.block);
    l.args.resize(launch.arg_count);
    for (size_t i = 0; i < launch.arg_count; ++i)
        if (cb_status s = convert_arg(launch.args[i], i, where, resolve, l.args[i], l.payload, error); s != CB_OK)
            return s;
    out = std::move(l);
    return CB_OK;
}

std::vector<uint8_t> encode_host_kernel_launch(const host_kernel_launch& l) {
    block_header h{};
    h.magic = block_magic;
    copy_launch_target(h, l);
    h.arg_count = static_cast<uint32_t>(l.args.size());
    h.payload_bytes = static_cast<uint32_t>(l.payload.size());
    std::vector<uint8_t> bytes(sizeof h + l.args.size() * sizeof(arg_record) + l.payload.size());
    std::memcpy(bytes.data(), &h, sizeof h);
    uint8_t* at = bytes.data() + sizeof h;
    for (const host_kernel_arg& a : l.args) {
        const arg_record r{a.type, a.size, a.value, a.vram_offset, a.span};
        std::memcpy(at, &r, sizeof r);
        at += sizeof r;
    }
    if (!l.payload.empty()) std::memcpy(at, l.payload.data(), l.payload.size());
    return bytes;
}

cb_status decode_host_kernel_launch(const void* data, size_t size, host_kernel_launch& out, std::string& error) {
    block_header h{};
    if (data == nullptr || size < sizeof h)
        return fail(error, CB_ERR_INVALID_ARGUMENT, "host kernel launch block: truncated header");
    std::memcpy(&h, data, sizeof h);
    if (h.magic != block_magic) return fail(error, CB_ERR_INVALID_ARGUMENT, "host kernel launch block: bad magic");
    if (cb_status s = check_counts(h.arg_count, h.payload_bytes, "host kernel launch block", error); s != CB_OK)
        return s;
    if (size != sizeof h + size_t{h.arg_count} * sizeof(arg_record) + h.payload_bytes)
        return fail(error, CB_ERR_INVALID_ARGUMENT, "host kernel launch block: size does not match its argument count");
    if (cb_status s = check_launch_shape(h.grid, h.block, "host kernel launch block", error); s != CB_OK) return s;
    host_kernel_launch l;
    copy_launch_target(l, h);
    const auto* at = static_cast<const uint8_t*>(data) + sizeof h;
    l.args.resize(h.arg_count);
    for (size_t i = 0; i < l.args.size(); ++i, at += sizeof(arg_record)) {
        arg_record r{};
        std::memcpy(&r, at, sizeof r);
        l.args[i] = host_kernel_arg{r.type, r.size, r.value, r.vram_offset, r.span};
        if (cb_status s = check_record(l.args[i], i, h.payload_bytes, error); s != CB_OK) return s;
    }
    l.payload.assign(at, at + h.payload_bytes);
    out = std::move(l);
    return CB_OK;
}

}  // namespace cudabridge::nv
