// Launches of built-in kernels through the ring: the block is made as the driver makes it
// (parse_builtin + encode), the device fetches it by DMA and runs it on VRAM; results are
// checked against values computed here.
#include <cudabridge/cpp/builtin_args.hpp>
#include "gpu_harness.hpp"

#include "common/launch/builtin_call.hpp"

#include <cudabridge/builtin_kernels.h>

#include <numeric>

namespace cudabridge::test {
namespace {

cb_tensor_desc tensor(uint64_t offset, cb_dtype dtype, std::initializer_list<int64_t> shape) {
    return sdk::contiguous_tensor(hw::vram_base + offset, dtype, shape);
}
cb_kernel_arg arg(const cb_tensor_desc& d) { return sdk::tensor_arg(d); }
cb_kernel_arg arg_i64(int64_t v) { return sdk::int64_arg(v); }
cb_kernel_arg arg_f64(double v) { return sdk::float64_arg(v); }

class DeviceModelLaunch : public ::testing::Test {
protected:
    void SetUp() override { g.bring_up(); }

    // Encodes the call, places the block in host memory, runs it; the command's status.
    cb_status launch(const char* name, cb_dtype dtype, std::vector<cb_kernel_arg> args) {
        cb_kernel_launch l{};
        l.struct_size = sizeof l;
        l.name = name;
        l.dtype = dtype;
        l.args = args.data();
        l.arg_count = args.size();
        nv::builtin_call call;
        std::string error;
        cb_status parsed = nv::parse_builtin(l, call, error);
        EXPECT_EQ(parsed, CB_OK) << error;
        const std::vector<uint8_t> block = nv::encode(call);
        std::memcpy(g.link.at(block_iova), block.data(), block.size());
        g.wr(hw::reg::intr_status, hw::intr_error);
        const uint64_t fence = g.submit(gpu_harness::make(hw::opcode::launch, block_iova, 0, block.size()));
        EXPECT_TRUE(g.wait(fence));
        if (g.rd(hw::reg::status) & hw::status_error) return g.error_code();
        return CB_OK;
    }

    template <class T>
    void put(uint64_t offset, const std::vector<T>& v) {
        g.h2d(hw::vram_base + offset, v.data(), v.size() * sizeof(T));
    }
    template <class T>
    std::vector<T> get(uint64_t offset, size_t n) {
        std::vector<T> v(n);
        g.d2h(v.data(), hw::vram_base + offset, n * sizeof(T));
        return v;
    }

    gpu_harness g;
};

TEST_F(DeviceModelLaunch, AddBroadcastsARowOverAMatrix) {
    std::vector<float> a(12), b = {10, 20, 30, 40};
    for (size_t i = 0; i < a.size(); ++i) a[i] = 0.5f * static_cast<float>(i);
    put(0x0, a);
    put(0x1000, b);
    const auto ta = tensor(0x0, CB_DTYPE_FLOAT32, {3, 4}), tb = tensor(0x1000, CB_DTYPE_FLOAT32, {4}),
               tout = tensor(0x2000, CB_DTYPE_FLOAT32, {3, 4});
    ASSERT_EQ(launch("add", CB_DTYPE_FLOAT32, {arg(ta), arg(tb), arg(tout)}), CB_OK);
    const auto out = get<float>(0x2000, 12);
    for (size_t r = 0; r < 3; ++r)
        for (size_t c = 0; c < 4; ++c) EXPECT_EQ(out[r * 4 + c], a[r * 4 + c] + b[c]);
}

TEST_F(DeviceModelLaunch, SumOfInt32IsInt64) {
    std::vector<int32_t> v(1000);
    std::iota(v.begin(), v.end(), -300);
    put(0x0, v);
    const auto tin = tensor(0x0, CB_DTYPE_INT32, {1000}), tout = tensor(0x10000, CB_DTYPE_INT64, {});
    ASSERT_EQ(launch("sum", CB_DTYPE_INT64, {arg(tin), arg(tout), arg_i64(CB_REDUCE_ALL_AXES)}), CB_OK);
    EXPECT_EQ(get<int64_t>(0x10000, 1)[0], std::accumulate(v.begin(), v.end(), int64_t{0}));
}

TEST_F(DeviceModelLaunch, SumAlongAnAxis) {
    const std::vector<double> v = {1, 2, 3, 4, 5, 6};
    put(0x0, v);
    const auto tin = tensor(0x0, CB_DTYPE_FLOAT64, {2, 3}), tout = tensor(0x1000, CB_DTYPE_FLOAT64, {2});
    ASSERT_EQ(launch("sum", CB_DTYPE_FLOAT64, {arg(tin), arg(tout), arg_i64(1)}), CB_OK);
    EXPECT_EQ(get<double>(0x1000, 2), (std::vector<double>{6, 15}));
}

TEST_F(DeviceModelLaunch, Matmul) {
    const std::vector<double> a = {1, 2, 3, 4, 5, 6};     // 2x3
    const std::vector<double> b = {7, 8, 9, 10, 11, 12};  // 3x2
    put(0x0, a);
    put(0x1000, b);
    const auto ta = tensor(0x0, CB_DTYPE_FLOAT64, {2, 3}), tb = tensor(0x1000, CB_DTYPE_FLOAT64, {3, 2}),
               tout = tensor(0x2000, CB_DTYPE_FLOAT64, {2, 2});
    ASSERT_EQ(launch("matmul", CB_DTYPE_FLOAT64, {arg(ta), arg(tb), arg(tout)}), CB_OK);
    std::vector<double> expect(4, 0);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            for (int k = 0; k < 3; ++k) expect[i * 2 + j] += a[i * 3 + k] * b[k * 2 + j];
    EXPECT_EQ(get<double>(0x2000, 4), expect);
}

TEST_F(DeviceModelLaunch, FillAndArange) {
    const auto tf = tensor(0x0, CB_DTYPE_FLOAT32, {5000});
    ASSERT_EQ(launch("fill", CB_DTYPE_FLOAT32, {arg(tf), arg_f64(2.5)}), CB_OK);
    for (float x : get<float>(0x0, 5000)) ASSERT_EQ(x, 2.5f);

    const auto ta = tensor(0x10000, CB_DTYPE_INT64, {10});
    ASSERT_EQ(launch("arange", CB_DTYPE_INT64, {arg(ta), arg_i64(5), arg_i64(3)}), CB_OK);
    const auto r = get<int64_t>(0x10000, 10);
    for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(r[static_cast<size_t>(i)], 5 + 3 * i);
}

TEST_F(DeviceModelLaunch, TensorOutsideVramIsAMemoryFault) {
    cb_tensor_desc t = tensor(0, CB_DTYPE_FLOAT32, {1024});
    t.device_ptr = hw::vram_base + profile("rtx-4060-ti").vram_bytes - 16;  // runs off the end
    const uint32_t xids = g.rd(hw::reg::xid_count);
    EXPECT_EQ(launch("fill", CB_DTYPE_FLOAT32, {arg(t), arg_f64(1)}), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g.rd(hw::reg::xid_count), xids + 1);
    EXPECT_EQ(g.rd(hw::reg::last_xid), 31u);
    // The ring goes on.
    const auto ok = tensor(0, CB_DTYPE_FLOAT32, {4});
    EXPECT_EQ(launch("fill", CB_DTYPE_FLOAT32, {arg(ok), arg_f64(1)}), CB_OK);
}

}  // namespace
}  // namespace cudabridge::test
