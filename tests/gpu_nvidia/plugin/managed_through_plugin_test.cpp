// ABI 1.9's managed and zero-copy memory through the plugin on the simulated GPU: mem_alloc_managed
// gives host memory its PTX kernels reach at the same address (and no VRAM), host_device_address
// answers the host pointer for registered memory and CB_ERR_NOT_FOUND for any other, and a kernel
// touching host memory once unregistered faults.
#include "gpu_fixture.hpp"

#include <cudabridge/core/error.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cudabridge::test {
namespace {

class nvidia_managed : public gpu_test {
protected:
    void SetUp() override {
        gpu_test::SetUp();
        bring_up();
        std::ifstream f(std::string(CB_PTX_CORPUS_DIR) + "/saxpy.ptx");
        std::stringstream text;
        text << f.rdbuf();
        const std::string ptx = text.str();
        char log[256] = {};
        ASSERT_EQ(g()->module_load(gh(), dev, ptx.c_str(), ptx.size() + 1, CB_MODULE_PTX, &saxpy, log, sizeof log),
                  CB_OK)
            << core::last_error() << log;
    }

    // y = a * x + y over n floats at device addresses x and y; the launch's status after a sync.
    cb_status run_saxpy(int64_t n, double a, uint64_t x, uint64_t y) {
        const std::vector<cb_kernel_arg> args = {sdk::int64_arg(n), sdk::float64_arg(a), sdk::device_ptr_arg(x),
                                                 sdk::device_ptr_arg(y)};
        cb_kernel_launch l{};
        l.struct_size = sizeof l;
        l.name = "saxpy";
        l.grid[0] = static_cast<uint32_t>((n + 127) / 128);
        l.grid[1] = l.grid[2] = 1;
        l.block[0] = 128;
        l.block[1] = l.block[2] = 1;
        l.args = args.data();
        l.arg_count = args.size();
        if (cb_status st = g()->launch_kernel(gh(), saxpy, &l, nullptr); st != CB_OK) return st;
        return g()->device_synchronize(gh(), dev);
    }

    cb_gpu_module* saxpy = nullptr;
};

TEST_F(nvidia_managed, ManagedMemoryIsOneAddressForHostAndKernelsAndTakesNoVram) {
    uint64_t free_before = 0, free_after = 0, total = 0;
    ASSERT_EQ(g()->mem_info(gh(), dev, &free_before, &total), CB_OK);
    const int64_t n = 20000;
    uint64_t x = 0, y = 0;
    ASSERT_EQ(g()->mem_alloc_managed(gh(), dev, n * 4, &x), CB_OK) << core::last_error();
    ASSERT_EQ(g()->mem_alloc_managed(gh(), dev, n * 4, &y), CB_OK) << core::last_error();
    EXPECT_EQ(x % 4096, 0u) << "page-aligned";
    auto* hx = reinterpret_cast<float*>(x);
    auto* hy = reinterpret_cast<float*>(y);
    for (int64_t i = 0; i < n; ++i) hx[i] = static_cast<float>(i % 101), hy[i] = -1.0f;
    ASSERT_EQ(g()->mem_info(gh(), dev, &free_after, &total), CB_OK);
    EXPECT_EQ(free_after, free_before);

    ASSERT_EQ(run_saxpy(n, 0.5, x, y), CB_OK) << core::last_error();
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hy[i], std::fma(0.5f, static_cast<float>(i % 101), -1.0f)) << i;
    uint64_t address = 0;
    EXPECT_EQ(g()->host_device_address(gh(), dev, hx + 7, &address), CB_OK) << core::last_error();
    EXPECT_EQ(address, x + 28);

    EXPECT_EQ(g()->mem_free(gh(), dev, x), CB_OK) << core::last_error();
    EXPECT_EQ(g()->mem_free(gh(), dev, y), CB_OK) << core::last_error();
    EXPECT_EQ(g()->mem_free(gh(), dev, y), CB_ERR_INVALID_ARGUMENT) << "freed already";
    EXPECT_EQ(g()->mem_alloc_managed(gh(), dev, 0, &x), CB_ERR_INVALID_ARGUMENT);
}

TEST_F(nvidia_managed, RegisteredHostMemoryIsReachedAtItsOwnAddressUntilUnregistered) {
    const int64_t n = 5000;
    std::vector<float> x(n, 2.0f), y(n, 1.0f);
    uint64_t address = 0;
    EXPECT_EQ(g()->host_device_address(gh(), dev, x.data(), &address), CB_ERR_NOT_FOUND);
    ASSERT_EQ(g()->host_register(gh(), dev, x.data(), n * 4), CB_OK) << core::last_error();
    ASSERT_EQ(g()->host_register(gh(), dev, y.data(), n * 4), CB_OK) << core::last_error();
    ASSERT_EQ(g()->host_device_address(gh(), dev, y.data(), &address), CB_OK) << core::last_error();
    EXPECT_EQ(address, reinterpret_cast<uint64_t>(y.data()));

    const auto dx = reinterpret_cast<uint64_t>(x.data()), dy = reinterpret_cast<uint64_t>(y.data());
    ASSERT_EQ(run_saxpy(n, 3.0, dx, dy), CB_OK) << core::last_error();
    EXPECT_EQ(y[0], 7.0f);
    EXPECT_EQ(y[n - 1], 7.0f);

    ASSERT_EQ(g()->host_unregister(gh(), dev, y.data()), CB_OK) << core::last_error();
    EXPECT_EQ(g()->host_device_address(gh(), dev, y.data(), &address), CB_ERR_NOT_FOUND);
    EXPECT_EQ(run_saxpy(n, 3.0, dx, dy), CB_ERR_ILLEGAL_ADDRESS);
    EXPECT_NE(core::last_error().find("ILLEGAL_ADDRESS"), std::string::npos) << core::last_error();
    EXPECT_EQ(y[0], 7.0f) << "unregistered memory is never touched";
    EXPECT_EQ(g()->host_unregister(gh(), dev, x.data()), CB_OK) << core::last_error();
}

}  // namespace
}  // namespace cudabridge::test
