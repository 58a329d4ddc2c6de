// A built-in kernel call, parsed once from cb_kernel_launch (builtin_kernels.h) and then carried
// as plain data: encoded into the command ring's launch block by the userspace driver, decoded by
// the device model, run on the CPU engine, or handed to the CUDA launcher. One parser, so every
// backend refuses the same bad calls with the same message.
#pragma once

#include "common/kernels/elementwise.hpp"
#include "common/kernels/engine.hpp"
#include "common/kernels/ops.hpp"
#include "common/errors/fail.hpp"
#include "common/kernels/tensor_view.hpp"

#include <cudabridge/builtin_kernels.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cudabridge::nv {

enum class builtin_kind : uint32_t {
    binary,
    unary,
    cast,
    fill,
    arange,
    random_uniform,
    reduce,
    matmul,
    crc32c,
    take,
    put,
    copyto,
    sort,
    argsort
};

// A call's tensor operands: at most three, kept inline (a launch allocates nothing for them).
class tensor_operands {
public:
    static constexpr size_t capacity = 3;
    size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }
    bool push_back(const cb_tensor_desc& d) {
        if (count_ == capacity) return false;
        items_[count_++] = d;
        return true;
    }
    void resize(size_t n) { count_ = n < capacity ? n : capacity; }
    cb_tensor_desc* data() { return items_; }
    const cb_tensor_desc* data() const { return items_; }
    cb_tensor_desc& operator[](size_t i) { return items_[i]; }
    const cb_tensor_desc& operator[](size_t i) const { return items_[i]; }
    const cb_tensor_desc& back() const { return items_[count_ - 1]; }
    const cb_tensor_desc* begin() const { return items_; }
    const cb_tensor_desc* end() const { return items_ + count_; }

private:
    cb_tensor_desc items_[capacity]{};
    size_t count_ = 0;
};

struct builtin_call {
    builtin_kind kind = builtin_kind::fill;
    kernels::binary_op binary = kernels::binary_op::add;
    kernels::unary_op unary = kernels::unary_op::negate;
    kernels::reduce_op reduce = kernels::reduce_op::sum;
    cb_dtype dtype = CB_DTYPE_FLOAT32;  // the output's dtype
    int32_t axis = CB_REDUCE_ALL_AXES;  // reduce
    kernels::scalar value0, value1;     // fill: value0; arange: start, step
    uint64_t seed = 0, offset = 0;      // random_uniform
    int64_t chunk = 0;                  // crc32c: bytes per CRC (> 0)
    tensor_operands tensors;            // operands in argument order; the output is last
                                        // (reduce: in, out; put and copyto write it in place)

    const cb_tensor_desc& output() const { return tensors.back(); }
};

// Name, argument kinds and tensor descriptors checked; shapes and dtypes checked against the
// kernel's NumPy rules (the output must have the planned shape and dtype). `where` is the kernel
// name for messages.
cb_status parse_builtin(const cb_kernel_launch& launch, builtin_call& out, std::string& error);

// The built-in names, for listings and tests.
const std::vector<std::string>& builtin_names();

// The launch block of the command ring: self-contained bytes (little-endian host layout).
std::vector<uint8_t> encode(const builtin_call& call);
cb_status decode(const void* data, size_t size, builtin_call& out, std::string& error);

// A descriptor's dtype, shape and strides as a view of `data` (nullptr: for planning only).
kernels::tensor_view view_of(const cb_tensor_desc& d, void* data);

// The device bytes [lowest, highest] a tensor touches, relative to its device_ptr; empty tensors
// touch nothing (returns false).
bool tensor_extent(const cb_tensor_desc& t, int64_t& first_byte, int64_t& end_byte);

// Runs the call on the CPU engine. `resolve(device_address, bytes)` returns the host pointer
// backing that device range, or nullptr when it is not valid memory (→ CB_ERR_INVALID_ARGUMENT).
using address_resolver = std::function<void*(uint64_t device_address, uint64_t bytes)>;
cb_status run_on_cpu(const builtin_call& call, const address_resolver& resolve, kernels::engine& engine,
                     std::string& error);

}  // namespace cudabridge::nv
