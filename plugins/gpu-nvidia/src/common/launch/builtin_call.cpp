#include "common/launch/builtin_call.hpp"

#include "common/kernels/broadcast.hpp"
#include "common/kernels/crc32c.hpp"
#include "common/kernels/indexing.hpp"
#include "common/kernels/matmul.hpp"
#include "common/kernels/promotion.hpp"
#include "common/kernels/reduce.hpp"
#include "common/kernels/sort.hpp"

#include <cstring>
#include <limits>
#include <map>
#include <string_view>

namespace cudabridge::nv {

kernels::tensor_view view_of(const cb_tensor_desc& d, void* data) {
    kernels::tensor_view v{};
    v.data = data;
    v.dtype = d.dtype;
    v.ndim = d.ndim;
    for (int i = 0; i < d.ndim; ++i) {
        v.shape[i] = d.shape[i];
        v.strides[i] = d.strides[i];
    }
    return v;
}

namespace {

struct entry {
    builtin_kind kind;
    int op;  // binary_op / unary_op / reduce_op, by kind
};

const std::map<std::string, entry, std::less<>>& table() {
    using kernels::binary_op;
    using kernels::reduce_op;
    using kernels::unary_op;
    static const std::map<std::string, entry, std::less<>> t = {
        {"add", {builtin_kind::binary, int(binary_op::add)}},
        {"subtract", {builtin_kind::binary, int(binary_op::subtract)}},
        {"multiply", {builtin_kind::binary, int(binary_op::multiply)}},
        {"divide", {builtin_kind::binary, int(binary_op::divide)}},
        {"floor_divide", {builtin_kind::binary, int(binary_op::floor_divide)}},
        {"minimum", {builtin_kind::binary, int(binary_op::minimum)}},
        {"maximum", {builtin_kind::binary, int(binary_op::maximum)}},
        {"equal", {builtin_kind::binary, int(binary_op::equal)}},
        {"not_equal", {builtin_kind::binary, int(binary_op::not_equal)}},
        {"less", {builtin_kind::binary, int(binary_op::less)}},
        {"less_equal", {builtin_kind::binary, int(binary_op::less_equal)}},
        {"greater", {builtin_kind::binary, int(binary_op::greater)}},
        {"greater_equal", {builtin_kind::binary, int(binary_op::greater_equal)}},
        {"negative", {builtin_kind::unary, int(unary_op::negate)}},
        {"absolute", {builtin_kind::unary, int(unary_op::abs)}},
        {"power", {builtin_kind::binary, int(binary_op::power)}},
        {"arctan2", {builtin_kind::binary, int(binary_op::arctan2)}},
        {"hypot", {builtin_kind::binary, int(binary_op::hypot)}},
        {"copysign", {builtin_kind::binary, int(binary_op::copysign)}},
        {"logaddexp", {builtin_kind::binary, int(binary_op::logaddexp)}},
        {"logaddexp2", {builtin_kind::binary, int(binary_op::logaddexp2)}},
        {"fmod", {builtin_kind::binary, int(binary_op::fmod)}},
        {"remainder", {builtin_kind::binary, int(binary_op::remainder)}},
        {"fmax", {builtin_kind::binary, int(binary_op::fmax)}},
        {"fmin", {builtin_kind::binary, int(binary_op::fmin)}},
        {"bitwise_and", {builtin_kind::binary, int(binary_op::bitwise_and)}},
        {"bitwise_or", {builtin_kind::binary, int(binary_op::bitwise_or)}},
        {"bitwise_xor", {builtin_kind::binary, int(binary_op::bitwise_xor)}},
        {"left_shift", {builtin_kind::binary, int(binary_op::left_shift)}},
        {"right_shift", {builtin_kind::binary, int(binary_op::right_shift)}},
        {"logical_and", {builtin_kind::binary, int(binary_op::logical_and)}},
        {"logical_or", {builtin_kind::binary, int(binary_op::logical_or)}},
        {"logical_xor", {builtin_kind::binary, int(binary_op::logical_xor)}},
        {"exp", {builtin_kind::unary, int(unary_op::exp)}},
        {"expm1", {builtin_kind::unary, int(unary_op::expm1)}},
        {"exp2", {builtin_kind::unary, int(unary_op::exp2)}},
        {"log", {builtin_kind::unary, int(unary_op::log)}},
        {"log1p", {builtin_kind::unary, int(unary_op::log1p)}},
        {"log2", {builtin_kind::unary, int(unary_op::log2)}},
        {"log10", {builtin_kind::unary, int(unary_op::log10)}},
        {"sqrt", {builtin_kind::unary, int(unary_op::sqrt)}},
        {"cbrt", {builtin_kind::unary, int(unary_op::cbrt)}},
        {"square", {builtin_kind::unary, int(unary_op::square)}},
        {"reciprocal", {builtin_kind::unary, int(unary_op::reciprocal)}},
        {"sin", {builtin_kind::unary, int(unary_op::sin)}},
        {"cos", {builtin_kind::unary, int(unary_op::cos)}},
        {"tan", {builtin_kind::unary, int(unary_op::tan)}},
        {"arcsin", {builtin_kind::unary, int(unary_op::arcsin)}},
        {"arccos", {builtin_kind::unary, int(unary_op::arccos)}},
        {"arctan", {builtin_kind::unary, int(unary_op::arctan)}},
        {"sinh", {builtin_kind::unary, int(unary_op::sinh)}},
        {"cosh", {builtin_kind::unary, int(unary_op::cosh)}},
        {"tanh", {builtin_kind::unary, int(unary_op::tanh)}},
        {"arcsinh", {builtin_kind::unary, int(unary_op::arcsinh)}},
        {"arccosh", {builtin_kind::unary, int(unary_op::arccosh)}},
        {"arctanh", {builtin_kind::unary, int(unary_op::arctanh)}},
        {"floor", {builtin_kind::unary, int(unary_op::floor)}},
        {"ceil", {builtin_kind::unary, int(unary_op::ceil)}},
        {"trunc", {builtin_kind::unary, int(unary_op::trunc)}},
        {"rint", {builtin_kind::unary, int(unary_op::rint)}},
        {"deg2rad", {builtin_kind::unary, int(unary_op::deg2rad)}},
        {"rad2deg", {builtin_kind::unary, int(unary_op::rad2deg)}},
        {"signbit", {builtin_kind::unary, int(unary_op::signbit)}},
        {"sign", {builtin_kind::unary, int(unary_op::sign)}},
        {"isnan", {builtin_kind::unary, int(unary_op::isnan)}},
        {"isinf", {builtin_kind::unary, int(unary_op::isinf)}},
        {"isfinite", {builtin_kind::unary, int(unary_op::isfinite)}},
        {"logical_not", {builtin_kind::unary, int(unary_op::logical_not)}},
        {"invert", {builtin_kind::unary, int(unary_op::invert)}},
        {"cast", {builtin_kind::cast, 0}},
        {"fill", {builtin_kind::fill, 0}},
        {"arange", {builtin_kind::arange, 0}},
        {"random_uniform", {builtin_kind::random_uniform, 0}},
        {"sum", {builtin_kind::reduce, int(reduce_op::sum)}},
        {"mean", {builtin_kind::reduce, int(reduce_op::mean)}},
        {"prod", {builtin_kind::reduce, int(reduce_op::prod)}},
        {"max", {builtin_kind::reduce, int(reduce_op::max)}},
        {"min", {builtin_kind::reduce, int(reduce_op::min)}},
        {"nanmax", {builtin_kind::reduce, int(reduce_op::nanmax)}},
        {"nanmin", {builtin_kind::reduce, int(reduce_op::nanmin)}},
        {"matmul", {builtin_kind::matmul, 0}},
        {"crc32c", {builtin_kind::crc32c, 0}},
        {"take", {builtin_kind::take, 0}},
        {"put", {builtin_kind::put, 0}},
        {"copyto", {builtin_kind::copyto, 0}},
        {"sort", {builtin_kind::sort, 0}},
        {"argsort", {builtin_kind::argsort, 0}},
    };
    return t;
}

// The argument kinds each kernel takes: 't' tensor, 'n' number (INT64 or FLOAT64), 'u' UINT64,
// 'i' INT64 axis, 'c' INT64 chunk (> 0).
const char* signature(builtin_kind k) {
    switch (k) {
    case builtin_kind::binary:
        return "ttt";
    case builtin_kind::unary:
        return "tt";
    case builtin_kind::cast:
        return "tt";
    case builtin_kind::fill:
        return "tn";
    case builtin_kind::arange:
        return "tnn";
    case builtin_kind::random_uniform:
        return "tuu";
    case builtin_kind::reduce:
        return "tti";
    case builtin_kind::matmul:
        return "ttt";
    case builtin_kind::crc32c:
        return "ttc";
    case builtin_kind::take:
    case builtin_kind::put:
    case builtin_kind::copyto:
        return "ttt";
    case builtin_kind::sort:
    case builtin_kind::argsort:
        return "tt";
    }
    return "";
}

// The prefix of a message about argument `index` (built only when there is something to say).
std::string argument(std::string_view name, size_t index) {
    return std::string(name) + ": argument " + std::to_string(index) + ": ";
}

cb_status check_desc(std::string_view name, size_t index, const cb_tensor_desc& d, std::string& error) {
    auto where = [&] { return argument(name, index); };
    if (!kernels::is_valid_dtype(d.dtype))
        return fail(error, CB_ERR_INVALID_ARGUMENT, where() + "invalid dtype " + std::to_string(d.dtype));
    if (d.ndim < 0 || d.ndim > CB_TENSOR_MAX_DIMS)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    where() + "ndim " + std::to_string(d.ndim) + " outside 0.." + std::to_string(CB_TENSOR_MAX_DIMS));
    // Extents multiply without overflow (each < 2^62 in product).
    int64_t n = 1;
    for (int i = 0; i < d.ndim; ++i) {
        if (d.shape[i] < 0) return fail(error, CB_ERR_INVALID_ARGUMENT, where() + "negative dimension");
        if (d.shape[i] != 0 && n > (int64_t{1} << 62) / d.shape[i])
            return fail(error, CB_ERR_INVALID_ARGUMENT, where() + "shape too large");
        n *= d.shape[i];
    }
    int64_t first = 0, end = 0;
    if (n > 0 && !tensor_extent(d, first, end))
        return fail(error, CB_ERR_INVALID_ARGUMENT, where() + "strides overflow");
    if (n > 0 && d.device_ptr == 0) return fail(error, CB_ERR_INVALID_ARGUMENT, where() + "null device pointer");
    return CB_OK;
}

bool same_shape(const cb_tensor_desc& d, const kernels::shape_t& s) {
    if (d.ndim != s.ndim) return false;
    for (int i = 0; i < s.ndim; ++i)
        if (d.shape[i] != s.dims[i]) return false;
    return true;
}

cb_status check_output(const std::string& name, const cb_tensor_desc& out, cb_dtype dtype,
                       const kernels::shape_t& shape, std::string& error) {
    if (out.dtype != dtype)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    name + ": output dtype " + kernels::dtype_name(out.dtype) + " where the result is " +
                        kernels::dtype_name(dtype));
    if (!same_shape(out, shape))
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    name + ": output shape " + kernels::shape_string(out.ndim, out.shape) + " where the result is " +
                        kernels::shape_string(shape.ndim, shape.dims));
    return CB_OK;
}

kernels::shape_t shape_of(const cb_tensor_desc& d) {
    kernels::shape_t s;
    s.ndim = d.ndim;
    for (int i = 0; i < d.ndim; ++i) s.dims[i] = d.shape[i];
    return s;
}

bool contiguous(const cb_tensor_desc& d) { return kernels::is_contiguous(view_of(d, nullptr)); }

// crc32c: in uint8, 1-D, contiguous; out int64, 1-D, ceil(n / chunk), contiguous.
cb_status plan_crc32c(const std::string& name, const builtin_call& c, std::string& error) {
    const cb_tensor_desc& in = c.tensors[0];
    if (in.dtype != CB_DTYPE_UINT8 || in.ndim != 1 || !contiguous(in))
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    name + ": the input must be a contiguous 1-D uint8 tensor, not " + kernels::dtype_name(in.dtype) +
                        " " + kernels::shape_string(in.ndim, in.shape));
    kernels::shape_t shape;
    shape.ndim = 1;
    shape.dims[0] = kernels::crc32c_chunk_count(in.shape[0], c.chunk);
    if (!contiguous(c.tensors[1]))
        return fail(error, CB_ERR_INVALID_ARGUMENT, name + ": the output must be contiguous");
    return check_output(name, c.tensors[1], CB_DTYPE_INT64, shape, error);
}

// Shapes and dtypes by the kernel's NumPy rules.
cb_status plan(const std::string& name, const builtin_call& c, std::string& error) {
    const auto& t = c.tensors;
    switch (c.kind) {
    case builtin_kind::binary: {
        kernels::op_types types{};
        kernels::shape_t shape;
        if (cb_status s =
                kernels::plan_binary(c.binary, view_of(t[0], nullptr), view_of(t[1], nullptr), types, shape, error);
            s != CB_OK)
            return s;
        return check_output(name, t[2], types.result, shape, error);
    }
    case builtin_kind::unary: {
        kernels::op_types types{};
        if (cb_status s = kernels::unary_types(c.unary, t[0].dtype, types, error); s != CB_OK) return s;
        return check_output(name, t[1], types.result, shape_of(t[0]), error);
    }
    case builtin_kind::cast: {
        kernels::shape_t shape;
        if (cb_status s = kernels::broadcast_shapes(view_of(t[0], nullptr), view_of(t[1], nullptr), shape, error);
            s != CB_OK)
            return s;
        return check_output(name, t[1], t[1].dtype, shape_of(t[1]), error) == CB_OK && same_shape(t[1], shape)
                   ? CB_OK
                   : fail(error, CB_ERR_INVALID_ARGUMENT,
                          name + ": cannot broadcast " + kernels::shape_string(t[0].ndim, t[0].shape) + " to " +
                              kernels::shape_string(t[1].ndim, t[1].shape));
    }
    case builtin_kind::fill:
        return CB_OK;
    case builtin_kind::arange:
    case builtin_kind::random_uniform:
        if (!contiguous(t[0])) return fail(error, CB_ERR_INVALID_ARGUMENT, name + ": the output must be contiguous");
        if (c.kind == builtin_kind::random_uniform && !kernels::is_float_dtype(t[0].dtype))
            return fail(
                error, CB_ERR_UNSUPPORTED,
                name + ": output must be float32 or float64, not " + std::string(kernels::dtype_name(t[0].dtype)));
        return CB_OK;
    case builtin_kind::reduce: {
        cb_dtype dtype{};
        kernels::shape_t shape;
        if (cb_status s = kernels::plan_reduce(c.reduce, view_of(t[0], nullptr), c.axis, dtype, shape, error);
            s != CB_OK)
            return s;
        if (!contiguous(t[1])) return fail(error, CB_ERR_INVALID_ARGUMENT, name + ": the output must be contiguous");
        return check_output(name, t[1], dtype, shape, error);
    }
    case builtin_kind::matmul: {
        cb_dtype dtype{};
        kernels::shape_t shape;
        if (cb_status s = kernels::plan_matmul(view_of(t[0], nullptr), view_of(t[1], nullptr), dtype, shape, error);
            s != CB_OK)
            return s;
        if (!contiguous(t[2])) return fail(error, CB_ERR_INVALID_ARGUMENT, name + ": the output must be contiguous");
        return check_output(name, t[2], dtype, shape, error);
    }
    case builtin_kind::crc32c:
        return plan_crc32c(name, c, error);
    case builtin_kind::take:
        return kernels::plan_take(view_of(t[0], nullptr), view_of(t[1], nullptr), view_of(t[2], nullptr), error);
    case builtin_kind::put:
        return kernels::plan_put(view_of(t[0], nullptr), view_of(t[1], nullptr), view_of(t[2], nullptr), error);
    case builtin_kind::copyto:
        return kernels::plan_copyto(view_of(t[0], nullptr), view_of(t[1], nullptr), view_of(t[2], nullptr), error);
    case builtin_kind::sort:
    case builtin_kind::argsort:
        return kernels::plan_sort(c.kind == builtin_kind::argsort, view_of(t[0], nullptr), view_of(t[1], nullptr),
                                  error);
    }
    return fail(error, CB_ERR_INVALID_ARGUMENT, name + ": unknown kernel kind");
}

kernels::scalar number_of(const cb_kernel_arg& a) {
    return a.type == CB_ARG_INT64 ? kernels::scalar::of_int(a.value.i64) : kernels::scalar::of(a.value.f64);
}

}  // namespace

const std::vector<std::string>& builtin_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const auto& [name, e] : table()) v.push_back(name);
        return v;
    }();
    return names;
}

bool tensor_extent(const cb_tensor_desc& t, int64_t& first_byte, int64_t& end_byte) {
    int64_t lo = 0, hi = 0;
    for (int i = 0; i < t.ndim; ++i) {
        if (t.shape[i] == 0) return false;
        int64_t span = 0;
        if (__builtin_mul_overflow(t.shape[i] - 1, t.strides[i], &span)) return false;
        if (__builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi)) return false;
    }
    const auto size = static_cast<int64_t>(kernels::dtype_size(t.dtype));
    if (__builtin_mul_overflow(lo, size, &first_byte)) return false;
    int64_t last = 0;
    if (__builtin_mul_overflow(hi, size, &last) || __builtin_add_overflow(last, size, &end_byte)) return false;
    return true;
}

cb_status parse_builtin(const cb_kernel_launch& launch, builtin_call& out, std::string& error) {
    if (!launch.name) return fail(error, CB_ERR_INVALID_ARGUMENT, "launch_builtin: no kernel name");
    const std::string name = launch.name;  // short names fit the string's own buffer
    auto it = table().find(name);
    if (it == table().end()) return fail(error, CB_ERR_NOT_FOUND, "no built-in kernel named '" + name + "'");
    builtin_call c;
    c.kind = it->second.kind;
    c.binary = static_cast<kernels::binary_op>(it->second.op);
    c.unary = static_cast<kernels::unary_op>(it->second.op);
    c.reduce = static_cast<kernels::reduce_op>(it->second.op);
    const std::string_view sig = signature(c.kind);
    if (launch.arg_count != sig.size() || (launch.arg_count && !launch.args))
        return fail(
            error, CB_ERR_INVALID_ARGUMENT,
            name + ": takes " + std::to_string(sig.size()) + " arguments, got " + std::to_string(launch.arg_count));
    int number = 0, unsigned_arg = 0;
    for (size_t i = 0; i < sig.size(); ++i) {
        const cb_kernel_arg& a = launch.args[i];
        auto where = [&] { return argument(name, i); };
        switch (sig[i]) {
        case 't': {
            if (a.type != CB_ARG_BYTES || a.size != sizeof(cb_tensor_desc) || !a.value.bytes)
                return fail(error, CB_ERR_INVALID_ARGUMENT,
                            where() + "expected a cb_tensor_desc (CB_ARG_BYTES of " +
                                std::to_string(sizeof(cb_tensor_desc)) + " bytes)");
            cb_tensor_desc d;
            std::memcpy(&d, a.value.bytes, sizeof d);
            if (cb_status s = check_desc(name, i, d, error); s != CB_OK) return s;
            c.tensors.push_back(d);
            break;
        }
        case 'n':
            if (a.type != CB_ARG_INT64 && a.type != CB_ARG_FLOAT64)
                return fail(error, CB_ERR_INVALID_ARGUMENT, where() + "expected an INT64 or FLOAT64 scalar");
            (number++ == 0 ? c.value0 : c.value1) = number_of(a);
            break;
        case 'u':
            if (a.type != CB_ARG_UINT64 && a.type != CB_ARG_INT64)
                return fail(error, CB_ERR_INVALID_ARGUMENT, where() + "expected a UINT64 scalar");
            (unsigned_arg++ == 0 ? c.seed : c.offset) = a.value.u64;
            break;
        case 'i':
            if (a.type != CB_ARG_INT64) return fail(error, CB_ERR_INVALID_ARGUMENT, where() + "expected an INT64 axis");
            if (a.value.i64 < std::numeric_limits<int32_t>::min() || a.value.i64 > std::numeric_limits<int32_t>::max())
                return fail(error, CB_ERR_INVALID_ARGUMENT, where() + "axis out of range");
            c.axis = static_cast<int32_t>(a.value.i64);
            break;
        case 'c':
            if (a.type != CB_ARG_INT64)
                return fail(error, CB_ERR_INVALID_ARGUMENT, where() + "expected an INT64 chunk size");
            if (a.value.i64 <= 0)
                return fail(error, CB_ERR_INVALID_ARGUMENT,
                            where() + "the chunk size must be > 0, got " + std::to_string(a.value.i64));
            c.chunk = a.value.i64;
            break;
        }
    }
    c.dtype = c.output().dtype;
    if (launch.dtype != c.dtype)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    name + ": launch dtype " + kernels::dtype_name(launch.dtype) + " differs from the output's " +
                        kernels::dtype_name(c.dtype));
    if (cb_status s = plan(name, c, error); s != CB_OK) return s;
    out = c;
    return CB_OK;
}

// ---- launch block ------------------------------------------------------------------------------

namespace {

constexpr uint32_t block_magic = 0x4C424243;  // "CBBL"

struct block_header {
    uint32_t magic;
    uint32_t kind;
    int32_t op;
    cb_dtype dtype;
    int32_t axis;
    uint32_t tensor_count;
    uint32_t value0_is_int, value1_is_int;
    int64_t value0_i, value1_i;
    double value0_f, value1_f;
    uint64_t seed, offset;
    int64_t chunk;
};

int op_of(const builtin_call& c) {
    switch (c.kind) {
    case builtin_kind::binary:
        return int(c.binary);
    case builtin_kind::unary:
        return int(c.unary);
    case builtin_kind::reduce:
        return int(c.reduce);
    default:
        return 0;
    }
}

}  // namespace

std::vector<uint8_t> encode(const builtin_call& c) {
    block_header h{};
    h.magic = block_magic;
    h.kind = static_cast<uint32_t>(c.kind);
    h.op = op_of(c);
    h.dtype = c.dtype;
    h.axis = c.axis;
    h.tensor_count = static_cast<uint32_t>(c.tensors.size());
    h.value0_is_int = c.value0.is_int;
    h.value1_is_int = c.value1.is_int;
    h.value0_i = c.value0.i;
    h.value1_i = c.value1.i;
    h.value0_f = c.value0.f;
    h.value1_f = c.value1.f;
    h.seed = c.seed;
    h.offset = c.offset;
    h.chunk = c.chunk;
    std::vector<uint8_t> bytes(sizeof h + c.tensors.size() * sizeof(cb_tensor_desc));
    std::memcpy(bytes.data(), &h, sizeof h);
    if (!c.tensors.empty())
        std::memcpy(bytes.data() + sizeof h, c.tensors.data(), c.tensors.size() * sizeof(cb_tensor_desc));
    return bytes;
}

cb_status decode(const void* data, size_t size, builtin_call& out, std::string& error) {
    block_header h{};
    if (!data || size < sizeof h) return fail(error, CB_ERR_INVALID_ARGUMENT, "launch block: truncated header");
    std::memcpy(&h, data, sizeof h);
    if (h.magic != block_magic) return fail(error, CB_ERR_INVALID_ARGUMENT, "launch block: bad magic");
    if (h.kind > uint32_t(builtin_kind::argsort))
        return fail(error, CB_ERR_INVALID_ARGUMENT, "launch block: unknown kernel kind");
    if (h.tensor_count == 0 || h.tensor_count > 3 || size != sizeof h + h.tensor_count * sizeof(cb_tensor_desc))
        return fail(error, CB_ERR_INVALID_ARGUMENT, "launch block: size does not match its tensor count");
    builtin_call c;
    c.kind = static_cast<builtin_kind>(h.kind);
    c.binary = static_cast<kernels::binary_op>(h.op);
    c.unary = static_cast<kernels::unary_op>(h.op);
    c.reduce = static_cast<kernels::reduce_op>(h.op);
    if ((c.kind == builtin_kind::binary && (h.op < 0 || h.op > int(kernels::binary_op::greater_equal))) ||
        (c.kind == builtin_kind::unary && (h.op < 0 || h.op > int(kernels::unary_op::abs))) ||
        (c.kind == builtin_kind::reduce && (h.op < 0 || h.op > int(kernels::reduce_op::nanmin))))
        return fail(error, CB_ERR_INVALID_ARGUMENT, "launch block: unknown operation");
    c.dtype = h.dtype;
    c.axis = h.axis;
    c.value0 = h.value0_is_int ? kernels::scalar::of_int(h.value0_i) : kernels::scalar::of(h.value0_f);
    c.value1 = h.value1_is_int ? kernels::scalar::of_int(h.value1_i) : kernels::scalar::of(h.value1_f);
    c.seed = h.seed;
    c.offset = h.offset;
    c.chunk = h.chunk;
    if (c.kind == builtin_kind::crc32c && c.chunk <= 0)
        return fail(error, CB_ERR_INVALID_ARGUMENT, "launch block: crc32c chunk <= 0");
    c.tensors.resize(h.tensor_count);
    std::memcpy(c.tensors.data(), static_cast<const uint8_t*>(data) + sizeof h,
                h.tensor_count * sizeof(cb_tensor_desc));
    if (std::string_view(signature(c.kind)).find_last_of('t') + 1 != c.tensors.size())
        return fail(error, CB_ERR_INVALID_ARGUMENT, "launch block: wrong tensor count for the kernel");
    for (size_t i = 0; i < c.tensors.size(); ++i)
        if (cb_status s = check_desc("launch block", i, c.tensors[i], error); s != CB_OK) return s;
    out = c;
    return CB_OK;
}

// ---- CPU execution -----------------------------------------------------------------------------

cb_status run_on_cpu(const builtin_call& c, const address_resolver& resolve, kernels::engine& eng, std::string& error) {
    kernels::tensor_view v[3]{};
    for (size_t i = 0; i < c.tensors.size(); ++i) {
        const auto& d = c.tensors[i];
        int64_t first = 0, end = 0;
        void* base = nullptr;
        if (tensor_extent(d, first, end)) {
            // The range must be inside device memory; the view's data is element 0's address.
            const uint64_t lo = d.device_ptr + static_cast<uint64_t>(first);
            auto* p = static_cast<uint8_t*>(resolve(lo, static_cast<uint64_t>(end - first)));
            if (!p)
                return fail(error, CB_ERR_INVALID_ARGUMENT,
                            "argument " + std::to_string(i) + ": device range " + std::to_string(lo) + "+" +
                                std::to_string(end - first) + " is not allocated device memory");
            base = p - first;
        }
        v[i] = view_of(d, base);
    }
    switch (c.kind) {
    case builtin_kind::binary:
        return kernels::binary(c.binary, v[0], v[1], v[2], error, eng);
    case builtin_kind::unary:
        return kernels::unary(c.unary, v[0], v[1], error, eng);
    case builtin_kind::cast:
        return kernels::cast(v[0], v[1], error, eng);
    case builtin_kind::fill:
        return kernels::fill(v[0], c.value0, error, eng);
    case builtin_kind::arange:
        return kernels::arange(v[0], c.value0, c.value1, error, eng);
    case builtin_kind::random_uniform:
        return kernels::random_uniform(v[0], c.seed, c.offset, error, eng);
    case builtin_kind::reduce:
        return kernels::reduce(c.reduce, v[0], c.axis, v[1], error, eng);
    case builtin_kind::matmul:
        return kernels::matmul(v[0], v[1], v[2], error, eng);
    case builtin_kind::crc32c:
        return kernels::crc32c(v[0], c.chunk, v[1], error, eng);
    case builtin_kind::take:
        return kernels::take(v[0], v[1], v[2], error, eng);
    case builtin_kind::put:
        return kernels::put(v[0], v[1], v[2], error, eng);
    case builtin_kind::copyto:
        return kernels::copyto(v[0], v[1], v[2], error, eng);
    case builtin_kind::sort:
        return kernels::sort(v[0], v[1], error, eng);
    case builtin_kind::argsort:
        return kernels::argsort(v[0], v[1], error, eng);
    }
    return fail(error, CB_ERR_INVALID_ARGUMENT, "unknown kernel kind");
}

}  // namespace cudabridge::nv
