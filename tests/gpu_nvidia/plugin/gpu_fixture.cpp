#include "gpu_fixture.hpp"

#include <cudabridge/core/error.hpp>

#include <cstdio>

namespace cudabridge::test {

void gpu_test::SetUp() {
    database = std::make_unique<core::store>(tmp / "cb.database");
    core::search_options o;
    o.extra_paths = {CB_TEST_PLUGIN_DIR};
    o.use_environment = false;
    o.privileged = false;
    o.installed_dir = "/nonexistent";
    reg = std::make_unique<core::registry>(*database, o);
    reg->scan();
}

void gpu_test::TearDown() { tear_down(); }

std::string gpu_test::enclosure_id() {
    size_t count = 0;
    EXPECT_EQ(t()->enumerate(th(), nullptr, 0, &count), CB_OK);
    std::vector<cb_endpoint_info> v(count);
    for (auto& e : v) e.struct_size = sizeof e;
    EXPECT_EQ(t()->enumerate(th(), v.data(), v.size(), &count), CB_OK);
    for (const auto& e : v)
        if (e.kind == CB_ENDPOINT_DEVICE_ROUTER) return e.id;
    return "";
}

std::string gpu_test::function_id() {
    size_t count = 0;
    EXPECT_EQ(t()->enumerate(th(), nullptr, 0, &count), CB_OK);
    std::vector<cb_endpoint_info> v(count);
    for (auto& e : v) e.struct_size = sizeof e;
    EXPECT_EQ(t()->enumerate(th(), v.data(), v.size(), &count), CB_OK);
    for (const auto& e : v)
        if (e.kind == CB_ENDPOINT_PCI_FUNCTION) return e.id;
    return "";
}

void gpu_test::bring_up(core::config_entries gpu_config, const std::string& model_request) {
    transport = reg->create(CB_KIND_TRANSPORT, "usb4", {{"backend", "sim"}});
    bool has_driver = false;
    for (const auto& [k, v] : gpu_config) has_driver |= k == "cuda_library";
    // No real driver in tests: a path that does not exist keeps the kernel-driver backend idle.
    if (!has_driver) gpu_config.emplace_back("cuda_library", "/nonexistent/libcuda.so.1");
    gpu = reg->create(CB_KIND_GPU, "nvidia", gpu_config);
    const std::string enclosure = enclosure_id();
    ASSERT_FALSE(enclosure.empty());
    const std::string request =
        model_request.empty() ? R"({"key":"rtx-5090","device_id":")" + enclosure + "\"}" : model_request;
    const cb_endpoint_model_table* table = nullptr;
    ASSERT_EQ(g()->create_endpoint_model(gh(), request.c_str(), &model, &table), CB_OK) << core::last_error();
    ASSERT_EQ(t()->attach_endpoint_model(th(), enclosure.c_str(), table, model), CB_OK) << core::last_error();
    ASSERT_EQ(t()->authorize(th(), enclosure.c_str(), CB_AUTH_AUTHORIZED, nullptr, 0), CB_OK) << core::last_error();
    const std::string function = function_id();
    ASSERT_EQ(t()->open_link(th(), function.c_str(), &link), CB_OK) << core::last_error();
    cb_endpoint_info endpoint{};
    endpoint.struct_size = sizeof endpoint;
    endpoint.kind = CB_ENDPOINT_PCI_FUNCTION;
    std::snprintf(endpoint.id, sizeof endpoint.id, "%s", function.c_str());
    cb_gpu_open_params p{};
    p.struct_size = sizeof p;
    p.ordinal = -1;
    p.transport = t();
    p.transport_instance = th();
    p.link = link;
    p.endpoint = &endpoint;
    ASSERT_EQ(g()->open_device(gh(), &p, &dev), CB_OK) << core::last_error();
}

void gpu_test::tear_down() {
    if (dev) {
        EXPECT_EQ(g()->close_device(gh(), dev), CB_OK) << core::last_error();
    }
    dev = nullptr;
    if (link) {
        EXPECT_EQ(t()->close_link(th(), link), CB_OK) << core::last_error();
    }
    link = nullptr;
    if (model) {
        t()->detach_endpoint_model(th(), enclosure_id().c_str());
        EXPECT_EQ(g()->destroy_endpoint_model(gh(), model), CB_OK);
    }
    model = nullptr;
    gpu.reset();
    transport.reset();
}

uint64_t gpu_test::alloc(uint64_t bytes) {
    uint64_t p = 0;
    EXPECT_EQ(g()->mem_alloc(gh(), dev, bytes, &p), CB_OK) << core::last_error();
    return p;
}

void gpu_test::upload(uint64_t dst, const void* src, size_t bytes) {
    EXPECT_EQ(g()->memcpy_h2d(gh(), dev, dst, src, bytes, nullptr), CB_OK) << core::last_error();
}

void gpu_test::download(void* dst, uint64_t src, size_t bytes) {
    EXPECT_EQ(g()->memcpy_d2h(gh(), dev, dst, src, bytes, nullptr), CB_OK) << core::last_error();
}

}  // namespace cudabridge::test
