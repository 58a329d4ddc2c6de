#include "nvidia_driver/kernel_driver/kernel_args.hpp"

#include <cstring>
#include <limits>
#include <string>

namespace cudabridge::nv {

namespace {

template <class T>
std::vector<unsigned char> bytes_of(T v) {
    std::vector<unsigned char> b(sizeof v);
    std::memcpy(b.data(), &v, sizeof v);
    return b;
}

// An integer argument in a parameter of `size` bytes: narrowed when it fits (as signed or as
// unsigned of that width), refused otherwise.
bool narrow_integer(int64_t v, bool is_unsigned, std::size_t size, std::vector<unsigned char>& out) {
    auto fits = [&](int64_t lo, uint64_t hi) {
        if (is_unsigned) return static_cast<uint64_t>(v) <= hi;
        return v >= lo && (v < 0 || static_cast<uint64_t>(v) <= hi);
    };
    switch (size) {
    case 8:
        out = bytes_of(v);
        return true;
    case 4:
        if (!fits(std::numeric_limits<int32_t>::min(), std::numeric_limits<uint32_t>::max())) return false;
        out = bytes_of(static_cast<uint32_t>(v));
        return true;
    case 2:
        if (!fits(std::numeric_limits<int16_t>::min(), std::numeric_limits<uint16_t>::max())) return false;
        out = bytes_of(static_cast<uint16_t>(v));
        return true;
    case 1:
        if (!fits(std::numeric_limits<int8_t>::min(), std::numeric_limits<uint8_t>::max())) return false;
        out = bytes_of(static_cast<uint8_t>(v));
        return true;
    default:
        return false;
    }
}

}  // namespace

cb_status packed_kernel_args::pack(const cb_kernel_launch& launch,
                                   const std::optional<std::vector<std::size_t>>& param_sizes, std::string& error) {
    storage_.clear();
    pointers_.clear();
    const std::string name = launch.name != nullptr ? launch.name : "kernel";
    if (launch.arg_count > 0 && launch.args == nullptr)
        return fail(error, CB_ERR_INVALID_ARGUMENT, name + ": arg_count > 0 but no args");
    if (param_sizes && param_sizes->size() != launch.arg_count)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    name + " takes " + std::to_string(param_sizes->size()) + " parameters, got " +
                        std::to_string(launch.arg_count) + " arguments");
    storage_.reserve(launch.arg_count);
    for (std::size_t i = 0; i < launch.arg_count; ++i) {
        const cb_kernel_arg& a = launch.args[i];
        const std::string where = name + ": argument " + std::to_string(i) + ": ";
        const std::size_t size = param_sizes ? (*param_sizes)[i] : 8;
        std::vector<unsigned char> b;
        switch (a.type) {
        case CB_ARG_DEVICE_PTR:
            if (size != 8)
                return fail(error, CB_ERR_INVALID_ARGUMENT,
                            where + "a device pointer for a " + std::to_string(size) + "-byte parameter");
            b = bytes_of(a.value.device_ptr);
            break;
        case CB_ARG_INT64:
        case CB_ARG_UINT64:
            if (!narrow_integer(a.value.i64, a.type == CB_ARG_UINT64, size, b))
                return fail(error, CB_ERR_INVALID_ARGUMENT,
                            where + "the integer does not fit the " + std::to_string(size) + "-byte parameter");
            break;
        case CB_ARG_FLOAT64:
            if (size == 8)
                b = bytes_of(a.value.f64);
            else if (size == 4)
                b = bytes_of(static_cast<float>(a.value.f64));
            else
                return fail(error, CB_ERR_INVALID_ARGUMENT,
                            where + "a floating value for a " + std::to_string(size) + "-byte parameter");
            break;
        case CB_ARG_BYTES:
            if (a.size > 0 && a.value.bytes == nullptr)
                return fail(error, CB_ERR_INVALID_ARGUMENT, where + "CB_ARG_BYTES without bytes");
            if (param_sizes && a.size != size)
                return fail(
                    error, CB_ERR_INVALID_ARGUMENT,
                    where + std::to_string(a.size) + " bytes for a " + std::to_string(size) + "-byte parameter");
            b.assign(static_cast<const unsigned char*>(a.value.bytes),
                     static_cast<const unsigned char*>(a.value.bytes) + a.size);
            if (b.empty()) b.resize(1);  // a valid pointer even for an empty struct
            break;
        default:
            return fail(error, CB_ERR_INVALID_ARGUMENT, where + "unknown argument type " + std::to_string(a.type));
        }
        storage_.push_back(std::move(b));
    }
    for (auto& s : storage_) pointers_.push_back(s.data());
    return CB_OK;
}

}  // namespace cudabridge::nv
