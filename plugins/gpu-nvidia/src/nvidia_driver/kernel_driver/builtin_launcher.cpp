#include "nvidia_driver/kernel_driver/builtin_launcher.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>

#include "nvidia_driver/cuda_kernels/kernel_abi.hpp"
#include "nvidia_driver/kernel_driver/device_scratch.hpp"
#include "nvidia_driver/kernel_driver/nd_layout_plan.hpp"
#include "common/kernels/broadcast.hpp"
#include "common/kernels/functors.hpp"
#include "common/kernels/matmul.hpp"
#include "common/kernels/promotion.hpp"

namespace cudabridge::nv {

namespace {

using kernels::tensor_view;
using cuda_kernels::k_block_threads;
using cuda_kernels::nd_layout;

static_assert(sizeof(cuda_kernels::k_binary_tokens) / sizeof(char*) == int(kernels::binary_op::greater_equal) + 1);
static_assert(sizeof(cuda_kernels::k_unary_tokens) / sizeof(char*) == int(kernels::unary_op::abs) + 1);
static_assert(sizeof(cuda_kernels::k_reduce_tokens) / sizeof(char*) == int(kernels::reduce_op::nanmin) + 1);

// One launch context: the target plus this call's temporary buffers.
struct launcher {
    const gpu_launch_target& t;
    device_scratch scratch;

    explicit launcher(const gpu_launch_target& target) : t(target), scratch(*target.driver, target.stream) {}

    const cuda_api& api() const { return t.driver->api(); }

    cb_status cuda_failure(cu::CUresult r, const std::string& what, std::string& error) const {
        return t.driver->check(r, what.c_str(), &error);
    }

    // Enough blocks to fill the GPU several times over; the kernels loop (grid stride) past that.
    unsigned grid_for(int64_t items) const {
        const int64_t cap = t.sm_count > 0 ? int64_t(t.sm_count) * 32 : 4096;
        const int64_t blocks = (items + k_block_threads - 1) / k_block_threads;
        return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, cap));
    }

    cb_status launch(const std::string& name, unsigned grid_x, unsigned grid_y, void** params,
                     std::string& error) const {
        cu::CUfunction fn = nullptr;
        if (cb_status s = t.function(name, fn, error); s != CB_OK) return s;
        cu::CUresult r =
            api().cuLaunchKernel(fn, grid_x, grid_y, 1, k_block_threads, 1, 1, 0, t.stream, params, nullptr);
        return r == cu::CUDA_SUCCESS ? CB_OK : cuda_failure(r, "cuLaunchKernel(" + name + ")", error);
    }
    cb_status launch(const std::string& name, int64_t items, void** params, std::string& error) const {
        return launch(name, grid_for(items), 1, params, error);
    }

    // A contiguous device copy of `in` converted to `dtype` (same shape).
    cb_status converted(const tensor_view& in, cb_dtype dtype, tensor_view& out, std::string& error) {
        out = kernels::make_view(nullptr, dtype, in.ndim, in.shape);
        const int64_t n = kernels::numel(in);
        uint64_t ptr = 0;
        if (cb_status s = scratch.allocate(uint64_t(n) * kernels::dtype_size(dtype), ptr, error); s != CB_OK) return s;
        out.data = reinterpret_cast<void*>(static_cast<uintptr_t>(ptr));
        if (n == 0) return CB_OK;
        return cast(in, out, error);
    }

    // out = in (broadcast to out's shape) converted to out's dtype.
    cb_status cast(const tensor_view& in, const tensor_view& out, std::string& error) {
        kernels::shape_t shape;
        shape.ndim = out.ndim;
        for (int i = 0; i < out.ndim; ++i) shape.dims[i] = out.shape[i];
        const tensor_view src = kernels::broadcast_to(in, shape);
        const tensor_view* views[2] = {&out, &src};
        nd_layout layout = make_nd_layout(views, 2);
        int64_t n = kernels::numel(out);
        uint64_t o = address(out), i = address(src);
        void* params[] = {&layout, &n, &o, &i};
        return launch(cast_kernel_name(out.dtype, in.dtype), n, params, error);
    }

    static uint64_t address(const tensor_view& v) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(v.data)); }
};

tensor_view device_view(const cb_tensor_desc& d) {
    return view_of(d, reinterpret_cast<void*>(static_cast<uintptr_t>(d.device_ptr)));
}

std::string dtype_token(cb_dtype d) { return kernels::dtype_name(d); }

// The value's bits in the output dtype, with cast semantics (for the size-keyed fill kernels).
uint64_t fill_bits(cb_dtype dtype, const kernels::scalar& value) {
    return kernels::dispatch(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        uint64_t bits = 0;
        if constexpr (sizeof(T) <= sizeof bits) {  // complex128 never gets here (fatbin_has_dtype)
            const T v = value.is_int ? kernels::fn::cast_value<T>(value.i) : kernels::fn::cast_value<T>(value.f);
            std::memcpy(&bits, &v, sizeof v);
        }
        return bits;
    });
}

cb_status fill_tensor(launcher& l, const tensor_view& out, uint64_t bits, std::string& error) {
    const tensor_view* views[1] = {&out};
    nd_layout layout = make_nd_layout(views, 1);
    int64_t n = kernels::numel(out);
    if (n == 0) return CB_OK;
    uint64_t o = launcher::address(out);
    void* params[] = {&layout, &n, &o, &bits};
    return l.launch("cb_fill_" + std::to_string(kernels::dtype_size(out.dtype)), n, params, error);
}

cb_status run_binary(launcher& l, const builtin_call& c, std::string& error) {
    tensor_view a = device_view(c.tensors[0]), b = device_view(c.tensors[1]);
    const tensor_view out = device_view(c.tensors[2]);
    kernels::op_types types{};
    kernels::shape_t shape;
    if (cb_status s = kernels::plan_binary(c.binary, a, b, types, shape, error); s != CB_OK) return s;
    int64_t n = kernels::numel(out);
    if (n == 0) return CB_OK;
    if (a.dtype != types.compute)
        if (cb_status s = l.converted(tensor_view(a), types.compute, a, error); s != CB_OK) return s;
    if (b.dtype != types.compute)
        if (cb_status s = l.converted(tensor_view(b), types.compute, b, error); s != CB_OK) return s;
    const tensor_view va = kernels::broadcast_to(a, shape), vb = kernels::broadcast_to(b, shape);
    const tensor_view* views[3] = {&out, &va, &vb};
    nd_layout layout = make_nd_layout(views, 3);
    uint64_t o = launcher::address(out), pa = launcher::address(va), pb = launcher::address(vb);
    void* params[] = {&layout, &n, &o, &pa, &pb};
    return l.launch(binary_kernel_name(c.binary, types.compute), n, params, error);
}

cb_status run_unary(launcher& l, const builtin_call& c, std::string& error) {
    const tensor_view a = device_view(c.tensors[0]), out = device_view(c.tensors[1]);
    int64_t n = kernels::numel(out);
    if (n == 0) return CB_OK;
    const tensor_view* views[2] = {&out, &a};
    nd_layout layout = make_nd_layout(views, 2);
    uint64_t o = launcher::address(out), pa = launcher::address(a);
    void* params[] = {&layout, &n, &o, &pa};
    return l.launch(std::string("cb_unary_") + cuda_kernels::k_unary_tokens[int(c.unary)] + "_" + dtype_token(a.dtype),
                    n, params, error);
}

cb_status run_arange(launcher& l, const builtin_call& c, std::string& error) {
    const tensor_view out = device_view(c.tensors[0]);
    int64_t n = kernels::numel(out);
    if (n == 0) return CB_OK;
    uint64_t o = launcher::address(out);
    int64_t start_i = c.value0.i, step_i = c.value1.i;
    double start_f = c.value0.is_int ? double(c.value0.i) : c.value0.f;
    double step_f = c.value1.is_int ? double(c.value1.i) : c.value1.f;
    int32_t int_math = c.value0.is_int && c.value1.is_int && !kernels::is_float_dtype(out.dtype);
    void* params[] = {&n, &o, &start_i, &step_i, &start_f, &step_f, &int_math};
    return l.launch("cb_arange_" + dtype_token(out.dtype), n, params, error);
}

cb_status run_random(launcher& l, const builtin_call& c, std::string& error) {
    const tensor_view out = device_view(c.tensors[0]);
    int64_t n = kernels::numel(out);
    if (n == 0) return CB_OK;
    const int64_t per_block = out.dtype == CB_DTYPE_FLOAT32 ? 4 : 2;
    uint64_t o = launcher::address(out), seed = c.seed, offset = c.offset;
    void* params[] = {&n, &o, &seed, &offset};
    return l.launch("cb_random_uniform_" + dtype_token(out.dtype), (n + per_block - 1) / per_block, params, error);
}

// sum / mean / max / min, along one axis or all: [outer, n, inner] over contiguous data.
cb_status run_reduce(launcher& l, const builtin_call& c, std::string& error) {
    tensor_view in = device_view(c.tensors[0]);
    const tensor_view out = device_view(c.tensors[1]);
    int64_t outer = 1, n = kernels::numel(in), inner = 1;
    if (c.axis != CB_REDUCE_ALL_AXES) {
        const int ax = c.axis < 0 ? c.axis + in.ndim : c.axis;
        n = in.shape[ax];
        for (int i = 0; i < ax; ++i) outer *= in.shape[i];
        for (int i = ax + 1; i < in.ndim; ++i) inner *= in.shape[i];
    }
    if (n == 0 && kernels::is_ordered(c.reduce) && outer * inner > 0)
        return fail(error, CB_ERR_INVALID_ARGUMENT,
                    std::string("zero-size array to reduction operation ") + kernels::op_name(c.reduce) +
                        " which has no identity");
    if (outer * inner == 0) return CB_OK;
    if (n == 0) {  // sum of nothing is 0, mean of nothing NaN (0/0), as the CPU engine
        const bool mean = c.reduce == kernels::reduce_op::mean;
        return fill_tensor(l, out,
                           fill_bits(out.dtype, mean ? kernels::scalar::of(std::numeric_limits<double>::quiet_NaN())
                                                     : kernels::scalar::of_int(0)),
                           error);
    }
    if (!kernels::is_contiguous(in))  // compacted once, as the CPU engine does
        if (cb_status s = l.converted(tensor_view(in), in.dtype, in, error); s != CB_OK) return s;

    // Without NaNs to skip, nanmax and nanmin are max and min (the fatbin has them for floats only).
    kernels::reduce_op op = c.reduce;
    if (!kernels::is_float_dtype(in.dtype) && op == kernels::reduce_op::nanmax) op = kernels::reduce_op::max;
    if (!kernels::is_float_dtype(in.dtype) && op == kernels::reduce_op::nanmin) op = kernels::reduce_op::min;
    const std::string suffix = std::string(cuda_kernels::k_reduce_tokens[int(op)]) + "_" + dtype_token(in.dtype);
    uint64_t pin = launcher::address(in), pout = launcher::address(out);
    if (inner > 1) {
        void* params[] = {&pin, &outer, &n, &inner, &pout};
        return l.launch("cb_reduce_cols_" + suffix, outer * inner, params, error);
    }
    // Rows: split long rows over several blocks when there are too few rows to fill the GPU.
    int64_t rows = outer;
    const int64_t target_blocks = std::max(1, l.t.sm_count) * 4;
    const int64_t min_chunk = int64_t(k_block_threads) * 8;
    int64_t splits = 1;
    if (rows < target_blocks)
        splits = std::clamp<int64_t>((target_blocks + rows - 1) / rows, 1, (n + min_chunk - 1) / min_chunk);
    int64_t chunk = (n + splits - 1) / splits;
    splits = (n + chunk - 1) / chunk;
    int32_t splits32 = static_cast<int32_t>(splits);
    uint64_t partials = 0;
    if (splits > 1)
        if (cb_status s = l.scratch.allocate(uint64_t(rows) * uint64_t(splits) * 8, partials, error); s != CB_OK)
            return s;
    const unsigned grid_y = static_cast<unsigned>(std::min<int64_t>(rows, 65535));
    void* params[] = {&pin, &rows, &n, &chunk, &splits32, &partials, &pout};
    if (cb_status s = l.launch("cb_reduce_rows_" + suffix, static_cast<unsigned>(splits), grid_y, params, error);
        s != CB_OK)
        return s;
    if (splits == 1) return CB_OK;
    void* finish[] = {&partials, &rows, &splits32, &n, &pout};
    return l.launch("cb_reduce_finish_" + suffix, rows, finish, error);
}

// Row-major C (n x m) = A (n x k) B (k x m) with column-major cuBLAS: a row-major buffer is its
// own transpose in column-major terms, so C^T = B^T A^T is one GEMM with A and B swapped.
cb_status cublas_gemm(launcher& l, cb_dtype dtype, uint64_t a, uint64_t b, uint64_t c, int m, int n, int k,
                      std::string& error) {
    const cublas_library& lib = *l.t.cublas;
    if (cb_status s = lib.check(lib.api().cublasSetStream(l.t.cublas_handle, l.t.stream), "cublasSetStream_v2", &error);
        s != CB_OK)
        return s;
    const int lda = std::max(k, 1), ldb = std::max(m, 1), ldc = std::max(m, 1);
    cublas::cublasStatus_t r;
    if (dtype == CB_DTYPE_FLOAT32) {
        const float alpha = 1.0f, beta = 0.0f;
        r = lib.api().cublasSgemm(l.t.cublas_handle, cublas::CUBLAS_OP_N, cublas::CUBLAS_OP_N, m, n, k, &alpha,
                                  reinterpret_cast<const float*>(b), ldb, reinterpret_cast<const float*>(a), lda, &beta,
                                  reinterpret_cast<float*>(c), ldc);
    } else {
        const double alpha = 1.0, beta = 0.0;
        r = lib.api().cublasDgemm(l.t.cublas_handle, cublas::CUBLAS_OP_N, cublas::CUBLAS_OP_N, m, n, k, &alpha,
                                  reinterpret_cast<const double*>(b), ldb, reinterpret_cast<const double*>(a), lda,
                                  &beta, reinterpret_cast<double*>(c), ldc);
    }
    return lib.check(r, dtype == CB_DTYPE_FLOAT32 ? "cublasSgemm_v2" : "cublasDgemm_v2", &error);
}

// One product of 1-D or 2-D operands into out (its dtype the compute dtype).
cb_status run_matrix_product(launcher& l, tensor_view a, tensor_view b, const tensor_view& out, std::string& error) {
    const cb_dtype dtype = out.dtype;
    int64_t n = a.ndim == 2 ? a.shape[0] : 1, k = a.shape[a.ndim - 1], m = b.ndim == 2 ? b.shape[1] : 1;
    if (n == 0 || m == 0) return CB_OK;
    if (k == 0) return fill_tensor(l, out, 0, error);  // an empty sum: zeros (all-zero bits in every dtype)
    if (a.dtype != dtype || !kernels::is_contiguous(a))
        if (cb_status s = l.converted(tensor_view(a), dtype, a, error); s != CB_OK) return s;
    if (b.dtype != dtype || !kernels::is_contiguous(b))
        if (cb_status s = l.converted(tensor_view(b), dtype, b, error); s != CB_OK) return s;
    uint64_t pa = launcher::address(a), pb = launcher::address(b), pc = launcher::address(out);
    const bool fits_int = n <= INT_MAX && k <= INT_MAX && m <= INT_MAX;
    if (kernels::is_float_dtype(dtype) && l.t.cublas != nullptr && l.t.cublas_handle != nullptr && fits_int)
        return cublas_gemm(l, dtype, pa, pb, pc, int(m), int(n), int(k), error);
    void* params[] = {&pa, &pb, &pc, &n, &k, &m};
    return l.launch("cb_matmul_" + dtype_token(dtype), n * m, params, error);
}

// Stacked operands: one product per matrix of the broadcast stack, queued in turn on the stream.
cb_status run_matmul(launcher& l, const builtin_call& c, std::string& error) {
    const tensor_view a = device_view(c.tensors[0]), b = device_view(c.tensors[1]);
    const tensor_view out = device_view(c.tensors[2]);
    if (!kernels::is_stacked(a, b)) return run_matrix_product(l, a, b, out, error);
    const kernels::shape_t batch = kernels::stack_shape(out);
    for (int64_t i = 0, n = kernels::stack_size(batch); i < n; ++i)
        if (cb_status s = run_matrix_product(l, kernels::matrix_of(a, batch, i), kernels::matrix_of(b, batch, i),
                                             kernels::matrix_of(out, batch, i), error);
            s != CB_OK)
            return s;
    return CB_OK;
}

// crc32c: one thread per chunk over the contiguous uint8 input, into the contiguous int64 output.
cb_status run_crc32c(launcher& l, const builtin_call& c, std::string& error) {
    int64_t n = c.tensors[0].shape[0], chunk = c.chunk;
    int64_t chunks = n / chunk + (n % chunk != 0 ? 1 : 0);
    if (chunks == 0) return CB_OK;
    uint64_t in = c.tensors[0].device_ptr, out = c.tensors[1].device_ptr;
    void* params[] = {&in, &n, &chunk, &chunks, &out};
    return l.launch("cb_crc32c", chunks, params, error);
}

kernels::shape_t shape_of(const tensor_view& v) {
    kernels::shape_t s;
    s.ndim = v.ndim;
    for (int i = 0; i < v.ndim; ++i) s.dims[i] = v.shape[i];
    return s;
}

// take: the layout walks (out, indices broadcast to out's shape) over the contiguous input.
cb_status run_take(launcher& l, const builtin_call& c, std::string& error) {
    const tensor_view in = device_view(c.tensors[0]), out = device_view(c.tensors[2]);
    int64_t n = kernels::numel(out), n_in = kernels::numel(in);
    if (n == 0) return CB_OK;
    const tensor_view idx = kernels::broadcast_to(device_view(c.tensors[1]), shape_of(out));
    const tensor_view* views[2] = {&out, &idx};
    nd_layout layout = make_nd_layout(views, 2);
    uint64_t o = launcher::address(out), pi = launcher::address(idx), px = launcher::address(in);
    void* params[] = {&layout, &n, &o, &pi, &px, &n_in};
    return l.launch("cb_take_" + std::to_string(kernels::dtype_size(out.dtype)), n, params, error);
}

// put: the layout walks (indices, values broadcast to their shape) into the contiguous output.
cb_status run_put(launcher& l, const builtin_call& c, std::string& error) {
    const tensor_view idx = device_view(c.tensors[1]), out = device_view(c.tensors[2]);
    int64_t n = kernels::numel(idx), n_out = kernels::numel(out);
    if (n == 0) return CB_OK;
    const tensor_view vals = kernels::broadcast_to(device_view(c.tensors[0]), shape_of(idx));
    const tensor_view* views[2] = {&idx, &vals};
    nd_layout layout = make_nd_layout(views, 2);
    uint64_t o = launcher::address(out), pi = launcher::address(idx), pv = launcher::address(vals);
    void* params[] = {&layout, &n, &o, &pi, &pv, &n_out};
    return l.launch("cb_put_" + std::to_string(kernels::dtype_size(out.dtype)), n, params, error);
}

// copyto: out, src and mask (both broadcast to out's shape) walked together.
cb_status run_copyto(launcher& l, const builtin_call& c, std::string& error) {
    const tensor_view out = device_view(c.tensors[2]);
    int64_t n = kernels::numel(out);
    if (n == 0) return CB_OK;
    const kernels::shape_t shape = shape_of(out);
    const tensor_view src = kernels::broadcast_to(device_view(c.tensors[0]), shape);
    const tensor_view mask = kernels::broadcast_to(device_view(c.tensors[1]), shape);
    const tensor_view* views[3] = {&out, &src, &mask};
    nd_layout layout = make_nd_layout(views, 3);
    uint64_t o = launcher::address(out), ps = launcher::address(src), pm = launcher::address(mask);
    void* params[] = {&layout, &n, &o, &ps, &pm};
    return l.launch("cb_copyto_" + std::to_string(kernels::dtype_size(out.dtype)), n, params, error);
}

// sort / argsort (contiguous in and out): rows up to k_block_sort_max elements get one block each;
// longer rows run the network one step per launch over every element (out first holds a copy of
// in for sort; argsort's first step writes the starting order itself).
constexpr int64_t k_block_sort_max = 4096;

cb_status run_sort(launcher& l, const builtin_call& c, std::string& error) {
    const tensor_view in = device_view(c.tensors[0]), out = device_view(c.tensors[1]);
    const bool arg = c.kind == builtin_kind::argsort;
    int64_t n = in.shape[in.ndim - 1];
    int64_t rows = n == 0 ? 0 : kernels::numel(in) / n;
    if (rows == 0) return CB_OK;
    uint64_t pin = launcher::address(in), pout = launcher::address(out);
    const std::string dtype = dtype_token(in.dtype);
    if (n <= k_block_sort_max) {
        void* params[] = {&pin, &pout, &rows, &n};
        return l.launch((arg ? "cb_argsort_" : "cb_sort_") + dtype,
                        static_cast<unsigned>(std::min<int64_t>(rows, 65535)), 1, params, error);
    }
    if (!arg)
        if (cb_status s = l.cast(in, out, error); s != CB_OK) return s;
    int64_t size = 1;
    while (size < n) size <<= 1;
    const std::string name = (arg ? "cb_argsort_step_" : "cb_sort_step_") + dtype;
    for (int64_t k = 2; k <= size; k <<= 1)
        for (int64_t j = k >> 1; j > 0; j >>= 1) {
            void* sort_params[] = {&pout, &rows, &n, &k, &j};
            void* arg_params[] = {&pin, &pout, &rows, &n, &k, &j};
            if (cb_status s = l.launch(name, rows * n, arg ? arg_params : sort_params, error); s != CB_OK) return s;
        }
    return CB_OK;
}

// A kernel reading a misaligned or unallocated address poisons the whole context (every later
// call fails), so each operand's byte range must be aligned and inside one allocation.
cb_status check_operands(const cuda_driver& driver, const builtin_call& c, std::string& error) {
    for (std::size_t i = 0; i < c.tensors.size(); ++i) {
        const cb_tensor_desc& t = c.tensors[i];
        int64_t first = 0, end = 0;
        if (!tensor_extent(t, first, end)) continue;  // empty: touches nothing
        const std::string where = "argument " + std::to_string(i) + ": ";
        const uint64_t size = kernels::dtype_size(t.dtype);
        if (t.device_ptr % size != 0)
            return fail(error, CB_ERR_INVALID_ARGUMENT,
                        where + "device address " + std::to_string(t.device_ptr) + " is not aligned to its " +
                            std::to_string(size) + "-byte elements");
        const uint64_t lo = t.device_ptr + static_cast<uint64_t>(first), hi = t.device_ptr + static_cast<uint64_t>(end);
        cu::CUdeviceptr base = 0;
        std::size_t bytes = 0;
        if (driver.api().cuMemGetAddressRange(&base, &bytes, lo) != cu::CUDA_SUCCESS || hi > base + bytes || hi < lo)
            return fail(error, CB_ERR_INVALID_ARGUMENT,
                        where + "device range " + std::to_string(lo) + "+" + std::to_string(hi - lo) +
                            " is not inside one device allocation");
    }
    return CB_OK;
}

}  // namespace

std::string binary_kernel_name(kernels::binary_op op, cb_dtype compute) {
    return std::string("cb_binary_") + cuda_kernels::k_binary_tokens[int(op)] + "_" + dtype_token(compute);
}

std::string cast_kernel_name(cb_dtype to, cb_dtype from) {
    return "cb_cast_" + dtype_token(to) + "_" + dtype_token(from);
}

cb_status run_builtin_on_gpu(const builtin_call& call, const gpu_launch_target& target, std::string& error) {
    if (target.driver == nullptr || !target.function)
        return fail(error, CB_ERR_INTERNAL, "launch_builtin: no launch target");
    if (cb_status s = check_operands(*target.driver, call, error); s != CB_OK) return s;
    for (const cb_tensor_desc& t : call.tensors)
        if (!fatbin_has_dtype(t.dtype))
            return fail(error, CB_ERR_UNSUPPORTED,
                        std::string("launch_builtin: ") + kernels::dtype_name(t.dtype) +
                            " is not supported on a real GPU yet (the simulated GPU computes it)");
    launcher l(target);
    switch (call.kind) {
    case builtin_kind::binary:
        return run_binary(l, call, error);
    case builtin_kind::unary:
        return run_unary(l, call, error);
    case builtin_kind::cast: {
        const tensor_view in = device_view(call.tensors[0]), out = device_view(call.tensors[1]);
        if (kernels::numel(out) == 0) return CB_OK;
        return l.cast(in, out, error);
    }
    case builtin_kind::fill: {
        const tensor_view out = device_view(call.tensors[0]);
        return fill_tensor(l, out, fill_bits(out.dtype, call.value0), error);
    }
    case builtin_kind::arange:
        return run_arange(l, call, error);
    case builtin_kind::random_uniform:
        return run_random(l, call, error);
    case builtin_kind::reduce:
        return run_reduce(l, call, error);
    case builtin_kind::matmul:
        return run_matmul(l, call, error);
    case builtin_kind::crc32c:
        return run_crc32c(l, call, error);
    case builtin_kind::take:
        return run_take(l, call, error);
    case builtin_kind::put:
        return run_put(l, call, error);
    case builtin_kind::copyto:
        return run_copyto(l, call, error);
    case builtin_kind::sort:
    case builtin_kind::argsort:
        return run_sort(l, call, error);
    }
    return fail(error, CB_ERR_INVALID_ARGUMENT, "launch_builtin: unknown kernel kind");
}

}  // namespace cudabridge::nv
