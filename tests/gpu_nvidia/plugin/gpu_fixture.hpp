// The nvidia family and the usb4 transport loaded through the registry on a private store, wired
// as the host wires them: the family's simulated GPU hosted by the simulated enclosure, the
// enclosure authorized, the tunnel opened, and the GPU opened over it by the userspace driver.
#pragma once

#include "temp_dir.hpp"

#include <cudabridge/cpp/builtin_args.hpp>
#include <cudabridge/core/registry.hpp>
#include <cudabridge/core/store.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace cudabridge::test {

class gpu_test : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;

    // Brings up the default fabric's GPU with `gpu_config` entries for the nvidia instance.
    void bring_up(core::config_entries gpu_config = {}, const std::string& model_request = "");
    void tear_down();

    const cb_gpu_table* g() const { return gpu->gpu(); }
    void* gh() const { return gpu->handle(); }
    const cb_transport_table* t() const { return transport->transport(); }
    void* th() const { return transport->handle(); }

    // Device memory helpers (fail the test on error).
    uint64_t alloc(uint64_t bytes);
    void upload(uint64_t dst, const void* src, size_t bytes);
    void download(void* dst, uint64_t src, size_t bytes);
    std::string enclosure_id();
    std::string function_id();

    temp_dir tmp;
    std::unique_ptr<core::store> database;
    std::unique_ptr<core::registry> reg;
    std::unique_ptr<core::plugin_instance> transport;
    std::unique_ptr<core::plugin_instance> gpu;
    void* model = nullptr;
    cb_link* link = nullptr;
    cb_gpu_device* dev = nullptr;
};

}  // namespace cudabridge::test
