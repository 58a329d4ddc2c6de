// Every built-in kernel on the GPU against the CPU engine: each operation, dtype and
// broadcasting / striding case; exact where the arithmetic is the same IEEE operations, within a
// tolerance where the order of a sum differs (reductions, cuBLAS); crc32c against an independent
// CRC-32C.
#include <cmath>
#include <cstring>
#include <limits>

#include <cudabridge/cpp/builtin_args.hpp>

#include "../gpu_nvidia/common/crc32c_reference.hpp"
#include "common/kernels/broadcast.hpp"
#include "common/kernels/promotion.hpp"
#include "real_gpu_fixture.hpp"

namespace kernels = cudabridge::nv::kernels;
using namespace real_gpu;

namespace {

const cb_dtype k_all[] = {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64, CB_DTYPE_INT32, CB_DTYPE_INT64,
                          CB_DTYPE_UINT8,   CB_DTYPE_INT8,    CB_DTYPE_INT16, CB_DTYPE_BOOL};

const char* const k_binary[] = {"add",        "subtract", "multiply",     "divide",    "floor_divide",
                                "minimum",    "maximum",  "equal",        "not_equal", "less",
                                "less_equal", "greater",  "greater_equal"};
// The ops of k_binary, by name (the enum's order is not k_binary's).
const kernels::binary_op k_binary_ops[] = {
    kernels::binary_op::add,          kernels::binary_op::subtract,     kernels::binary_op::multiply,
    kernels::binary_op::divide,       kernels::binary_op::floor_divide, kernels::binary_op::minimum,
    kernels::binary_op::maximum,      kernels::binary_op::equal,        kernels::binary_op::not_equal,
    kernels::binary_op::less,         kernels::binary_op::less_equal,   kernels::binary_op::greater,
    kernels::binary_op::greater_equal};

std::string dt(cb_dtype d) { return kernels::dtype_name(d); }

// (a shape, b shape) pairs covering numpy broadcasting; "T" marks a transposed (strided) a.
struct broadcast_case {
    std::vector<int64_t> a, b;
    bool a_transposed = false;
};
const broadcast_case k_broadcasts[] = {
    {{5, 7}, {5, 7}},    {{5, 7}, {7}},       {{5, 1}, {1, 7}}, {{}, {3, 4}},
    {{2, 3, 4}, {3, 1}}, {{6, 4}, {4}, true}, {{1000}, {1000}}, {{0, 3}, {3}},
};

kernels::shape_t broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    kernels::shape_t s;
    s.ndim = static_cast<int>(std::max(a.size(), b.size()));
    for (int i = 0; i < s.ndim; ++i) {
        const int ia = i - (s.ndim - static_cast<int>(a.size())), ib = i - (s.ndim - static_cast<int>(b.size()));
        const int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
        s.dims[i] = da == 1 ? db : da;
    }
    return s;
}

host_tensor operand(cb_dtype dtype, const std::vector<int64_t>& shape, bool transposed_view, std::mt19937_64& rng,
                    bool specials = true) {
    host_tensor t =
        transposed_view && shape.size() == 2 ? transposed(dtype, shape[0], shape[1]) : contiguous(dtype, shape);
    randomize(t, rng, specials);
    return t;
}

}  // namespace

TEST_F(RealGpuKernels, BinaryOpsEveryDtypeAndBroadcast) {
    std::mt19937_64 rng(1);
    std::vector<std::pair<cb_dtype, cb_dtype>> pairs;
    for (cb_dtype d : k_all) pairs.emplace_back(d, d);
    pairs.insert(pairs.end(), {{CB_DTYPE_INT32, CB_DTYPE_FLOAT32},
                               {CB_DTYPE_UINT8, CB_DTYPE_INT8},
                               {CB_DTYPE_BOOL, CB_DTYPE_INT16},
                               {CB_DTYPE_INT64, CB_DTYPE_FLOAT64},
                               {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64},
                               {CB_DTYPE_UINT8, CB_DTYPE_BOOL}});
    for (int op = 0; op < 13; ++op)
        for (auto [da, db] : pairs)
            for (const auto& bc : k_broadcasts) {
                host_tensor a = operand(da, bc.a, bc.a_transposed, rng);
                host_tensor b = operand(db, bc.b, false, rng);
                cb_dtype result = kernels::result_dtype(k_binary_ops[op], da, db);
                const kernels::shape_t s = broadcast(bc.a, bc.b);
                host_tensor out = contiguous(result < 0 ? da : result, std::vector<int64_t>(s.dims, s.dims + s.ndim));
                fill_pattern(out, 0xCD);
                expect_same_as_cpu(k_binary[op], {&a, &b, &out}, {}, {}, dt(da) + "," + dt(db));
            }
}

TEST_F(RealGpuKernels, BinaryIntoAStridedOutput) {
    std::mt19937_64 rng(2);
    host_tensor a = operand(CB_DTYPE_INT16, {9}, false, rng), b = operand(CB_DTYPE_INT16, {9}, false, rng);
    host_tensor out = every_other(CB_DTYPE_INT16, 9);
    fill_pattern(out, 0x5A);  // the gaps must keep it
    expect_same_as_cpu("multiply", {&a, &b, &out}, {}, {}, "every other element");
    host_tensor r = reversed(CB_DTYPE_FLOAT64, 9), f = operand(CB_DTYPE_FLOAT64, {9}, false, rng);
    randomize(r, rng);
    host_tensor o = contiguous(CB_DTYPE_FLOAT64, {9});
    expect_same_as_cpu("subtract", {&r, &f, &o}, {}, {}, "reversed operand");
}

TEST_F(RealGpuKernels, UnaryOps) {
    std::mt19937_64 rng(3);
    for (const char* op : {"negative", "absolute"})
        for (cb_dtype d : k_all) {
            for (int layout = 0; layout < 3; ++layout) {
                host_tensor a = layout == 0   ? contiguous(d, {5, 7})
                                : layout == 1 ? transposed(d, 5, 7)
                                              : reversed(d, 35);
                randomize(a, rng, true);
                host_tensor out = contiguous(d, a.shape);
                expect_same_as_cpu(op, {&a, &out}, {}, {}, dt(d) + " layout " + std::to_string(layout));
            }
        }
}

TEST_F(RealGpuKernels, CastEveryPairWithBroadcast) {
    std::mt19937_64 rng(4);
    for (cb_dtype from : k_all)
        for (cb_dtype to : k_all) {
            host_tensor in = operand(from, {1, 7}, false, rng, true);
            host_tensor out = contiguous(to, {5, 7});
            expect_same_as_cpu("cast", {&in, &out}, {}, {}, dt(from) + "->" + dt(to));
            host_tensor tin = operand(from, {6, 3}, true, rng, true);
            host_tensor tout = contiguous(to, {6, 3});
            expect_same_as_cpu("cast", {&tin, &tout}, {}, {}, dt(from) + "->" + dt(to) + " transposed");
        }
}

TEST_F(RealGpuKernels, FillAndArange) {
    for (cb_dtype d : k_all) {
        for (const cb_kernel_arg& v : {int_arg(-1), float_arg(3.9), float_arg(std::nan("")), float_arg(-1e20)}) {
            host_tensor out = contiguous(d, {3, 5});
            expect_same_as_cpu("fill", {&out}, {v}, {}, dt(d));
            host_tensor strided = every_other(d, 11);
            fill_pattern(strided, 0x77);
            expect_same_as_cpu("fill", {&strided}, {v}, {}, dt(d) + " strided");
        }
        host_tensor a = contiguous(d, {1000});
        expect_same_as_cpu("arange", {&a}, {int_arg(-5), int_arg(3)}, {}, dt(d) + " int");
        expect_same_as_cpu("arange", {&a}, {float_arg(0.5), float_arg(0.1)}, {}, dt(d) + " float");
        expect_same_as_cpu("arange", {&a}, {int_arg(7), float_arg(-0.25)}, {}, dt(d) + " mixed");
    }
}

TEST_F(RealGpuKernels, PhiloxSameNumbersAsCpu) {
    for (cb_dtype d : {CB_DTYPE_FLOAT32, CB_DTYPE_FLOAT64})
        for (int64_t n : {int64_t{1}, int64_t{3}, int64_t{1001}, int64_t{1} << 20})
            for (uint64_t seed : {uint64_t{0}, uint64_t{42}, ~uint64_t{0}}) {
                host_tensor out = contiguous(d, {n});
                expect_same_as_cpu("random_uniform", {&out}, {u64_arg(seed), u64_arg(n * 7)}, {},
                                   dt(d) + " n=" + std::to_string(n) + " seed=" + std::to_string(seed));
            }
    host_tensor wrong = contiguous(CB_DTYPE_INT32, {8});
    expect_same_as_cpu("random_uniform", {&wrong}, {u64_arg(1), u64_arg(0)}, {}, "int32 refused");
}

TEST_F(RealGpuKernels, Reductions) {
    std::mt19937_64 rng(5);
    struct layout {
        std::vector<int64_t> shape;
        bool transposed;
        std::vector<int64_t> axes;
    };
    const layout layouts[] = {
        {{37, 53}, false, {CB_REDUCE_ALL_AXES, 0, 1, -1}},
        {{3, 4, 5}, false, {1, 2, 0}},
        {{53, 37}, true, {0, 1, CB_REDUCE_ALL_AXES}},
        {{1 << 20}, false, {CB_REDUCE_ALL_AXES}},
        {{300000, 3}, false, {0}},
        {{3, 300000}, false, {1}},
        {{0, 5}, false, {0, 1, CB_REDUCE_ALL_AXES}},
    };
    for (const char* op : {"sum", "mean", "max", "min"})
        for (cb_dtype d : k_all)
            for (const auto& l : layouts)
                for (int64_t axis : l.axes) {
                    host_tensor in = operand(d, l.shape, l.transposed, rng, false);
                    const kernels::reduce_op rop = std::string(op) == "sum"    ? kernels::reduce_op::sum
                                                   : std::string(op) == "mean" ? kernels::reduce_op::mean
                                                   : std::string(op) == "max"  ? kernels::reduce_op::max
                                                                               : kernels::reduce_op::min;
                    std::vector<int64_t> shape;
                    if (axis != CB_REDUCE_ALL_AXES) {
                        const int64_t ax = axis < 0 ? axis + int64_t(l.shape.size()) : axis;
                        for (int64_t i = 0; i < int64_t(l.shape.size()); ++i)
                            if (i != ax) shape.push_back(l.shape[i]);
                    }
                    host_tensor out = contiguous(kernels::reduce_result_dtype(rop, d), shape);
                    // Sums in a different order: float32 within 1e-5 of the value, float64 1e-12.
                    const tolerance tol = d == CB_DTYPE_FLOAT32 ? tolerance{1e-5, 1e-5} : tolerance{1e-12, 1e-12};
                    expect_same_as_cpu(op, {&in, &out}, {int_arg(axis)}, tol,
                                       dt(d) + " axis " + std::to_string(axis) + " of " +
                                           std::to_string(l.shape.size()) + "-d" + (l.transposed ? " transposed" : ""));
                }
}

TEST_F(RealGpuKernels, ReductionsPropagateNaN) {
    host_tensor in = contiguous(CB_DTYPE_FLOAT32, {4096});
    std::vector<float> v(4096, 1.0f);
    v[3000] = std::nanf("");
    std::memcpy(in.storage.data(), v.data(), in.storage.size());
    for (const char* op : {"max", "min", "sum", "mean", "prod"}) {
        host_tensor out = contiguous(CB_DTYPE_FLOAT32, {});
        expect_same_as_cpu(op, {&in, &out}, {int_arg(CB_REDUCE_ALL_AXES)}, {}, "NaN at 3000");
    }
}

TEST_F(RealGpuKernels, Matmul) {
    std::mt19937_64 rng(6);
    struct shapes {
        std::vector<int64_t> a, b;
    };
    const shapes cases[] = {{{5, 7}, {7, 3}}, {{7}, {7, 3}},        {{5, 7}, {7}},   {{7}, {7}},
                            {{5, 0}, {0, 3}}, {{64, 65}, {65, 33}}, {{1, 1}, {1, 1}}};
    std::vector<std::pair<cb_dtype, cb_dtype>> pairs;
    for (cb_dtype d : k_all) pairs.emplace_back(d, d);
    pairs.insert(pairs.end(), {{CB_DTYPE_INT32, CB_DTYPE_FLOAT32}, {CB_DTYPE_UINT8, CB_DTYPE_INT8}});
    for (auto [da, db] : pairs)
        for (const auto& c : cases) {
            host_tensor a = operand(da, c.a, false, rng, false), b = operand(db, c.b, false, rng, false);
            std::vector<int64_t> shape;
            if (c.a.size() == 2) shape.push_back(c.a[0]);
            if (c.b.size() == 2) shape.push_back(c.b[1]);
            const cb_dtype out_dtype = kernels::promote(da, db);
            host_tensor out = contiguous(out_dtype, shape);
            // cuBLAS and OpenBLAS sum in different orders: |values| <= 8, k <= 65.
            const tolerance tol = out_dtype == CB_DTYPE_FLOAT32   ? tolerance{1e-4, 1e-3}
                                  : out_dtype == CB_DTYPE_FLOAT64 ? tolerance{1e-12, 1e-10}
                                                                  : tolerance{};
            expect_same_as_cpu("matmul", {&a, &b, &out}, {}, tol, dt(da) + "@" + dt(db));
        }
    // A transposed (non-contiguous) operand is converted before the product.
    host_tensor ta = operand(CB_DTYPE_FLOAT64, {6, 4}, true, rng, false),
                tb = operand(CB_DTYPE_FLOAT64, {4, 5}, false, rng, false);
    host_tensor tout = contiguous(CB_DTYPE_FLOAT64, {6, 5});
    expect_same_as_cpu("matmul", {&ta, &tb, &tout}, {}, {1e-12, 1e-10}, "transposed a");
}

// crc32c (ABI 1.3) against the tests' own non-reflected CRC-32C, across chunk boundaries; the
// device buffers are sized exactly, so a kernel reading past its chunk would fault on a GPU.
TEST_F(RealGpuKernels, Crc32cMatchesAnIndependentCrc) {
    std::string error;
    struct crc_case {
        int64_t chunk, n;
    };
    const crc_case cases[] = {{1, 0},
                              {1, 1},
                              {1, 100},
                              {7, 6},
                              {7, 7},
                              {7, 8},
                              {4096, 4095},
                              {4096, 4096},
                              {4096, 4097},
                              {4097, (1 << 20) + 3},
                              {1 << 20, (3 << 20) + 5}};
    for (const auto& c : cases) {
        SCOPED_TRACE("n=" + std::to_string(c.n) + " chunk=" + std::to_string(c.chunk));
        const auto data = cb_test::test_bytes(static_cast<size_t>(c.n), static_cast<uint64_t>(c.n * 31 + c.chunk));
        const auto expected = cb_test::crc32c_chunks_reference(data, c.chunk);
        uint64_t in = 0, out = 0;
        ASSERT_EQ(backend().mem_alloc(device(), std::max<int64_t>(c.n, 1), in, error), CB_OK);
        ASSERT_EQ(backend().mem_alloc(device(), std::max<size_t>(expected.size(), 1) * 8, out, error), CB_OK);
        ASSERT_EQ(backend().memcpy_h2d(device(), in, data.data(), data.size(), nullptr, error), CB_OK);
        const cb_tensor_desc tin = cudabridge::sdk::contiguous_tensor(in, CB_DTYPE_UINT8, {c.n});
        const cb_tensor_desc tout =
            cudabridge::sdk::contiguous_tensor(out, CB_DTYPE_INT64, {static_cast<int64_t>(expected.size())});
        const std::vector<cb_kernel_arg> args = {cudabridge::sdk::tensor_arg(tin), cudabridge::sdk::tensor_arg(tout),
                                                 int_arg(c.chunk)};
        cb_status s = backend().launch_builtin(
            device(), cudabridge::sdk::builtin_launch("crc32c", CB_DTYPE_INT64, args), nullptr, error);
        ASSERT_EQ(s, CB_OK) << error;
        std::vector<int64_t> got(expected.size());
        ASSERT_EQ(backend().memcpy_d2h(device(), got.data(), out, got.size() * 8, nullptr, error), CB_OK);
        EXPECT_EQ(got, expected);
        ASSERT_EQ(backend().mem_free(device(), in, error), CB_OK);
        ASSERT_EQ(backend().mem_free(device(), out, error), CB_OK);
    }
}

// take / put / copyto / sort / argsort: the fatbin's kernels against the CPU engine. put's indices
// are distinct (with a repeated index the GPU keeps one of the values, the CPU engine the last).
TEST_F(RealGpuKernels, IndexingAndSorting) {
    std::mt19937_64 rng(9);
    for (cb_dtype d : k_all) {
        host_tensor in = operand(d, {6, 7}, false, rng);
        host_tensor idx = contiguous(CB_DTYPE_INT64, {3, 5});
        randomize(idx, rng);  // any int64: wrapped into [0, 42)
        host_tensor taken = contiguous(d, {3, 5});
        expect_same_as_cpu("take", {&in, &idx, &taken}, {}, {}, dt(d));
        host_tensor distinct = contiguous(CB_DTYPE_INT64, {10});
        for (int64_t i = 0; i < 10; ++i) {
            const int64_t v = i * 4 - 20;  // -20 .. 16, negative ones wrap
            std::memcpy(distinct.storage.data() + i * 8, &v, 8);
        }
        host_tensor vals = operand(d, {10}, false, rng), target = operand(d, {6, 7}, false, rng);
        expect_same_as_cpu("put", {&vals, &distinct, &target}, {}, {}, dt(d));
        host_tensor src = operand(d, {7}, false, rng), mask = operand(CB_DTYPE_BOOL, {6, 1}, false, rng);
        host_tensor masked = operand(d, {6, 7}, false, rng);
        expect_same_as_cpu("copyto", {&src, &mask, &masked}, {}, {}, dt(d));
        host_tensor strided = transposed(d, 6, 7);  // a non-contiguous output
        randomize(strided, rng);
        expect_same_as_cpu("copyto", {&src, &mask, &strided}, {}, {}, dt(d) + " transposed");
        // 2x5000: rows past one block's size, sorted one network step per launch.
        for (const std::vector<int64_t>& shape : {std::vector<int64_t>{4, 33}, {1, 1000}, {3, 0}, {1}, {2, 5000}}) {
            // -0.0 and 0.0 compare equal here, so either order of the two passes, as numpy's.
            host_tensor rows = operand(d, shape, false, rng);
            host_tensor order = contiguous(CB_DTYPE_INT64, shape);
            expect_same_as_cpu("argsort", {&rows, &order}, {}, {}, dt(d) + " argsort");
            host_tensor sorted = contiguous(d, shape);
            expect_same_as_cpu("sort", {&rows, &sorted}, {}, {}, dt(d) + " sort");
        }
    }
}
