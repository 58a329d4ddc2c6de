#include "transport_fixture.hpp"

#include <cudabridge/core/error.hpp>

namespace cudabridge::test {

void usb4_test::SetUp() {
    db = std::make_unique<core::store>(tmp / "cb.db");
    core::search_options o;
    o.extra_paths = {CB_TEST_PLUGIN_DIR};
    o.use_environment = false;
    o.privileged = false;
    o.installed_dir = "/nonexistent";
    reg = std::make_unique<core::registry>(*db, o);
    reg->scan();
    inst = make();
}

void usb4_test::TearDown() {
    inst.reset();
    model.reset();
}

std::unique_ptr<core::plugin_instance> usb4_test::make(core::config_entries config) {
    bool has_backend = false;
    for (const auto& [k, v] : config) has_backend |= k == "backend";
    if (!has_backend) config.emplace_back("backend", "sim");
    return reg->create(CB_KIND_TRANSPORT, "usb4", config);
}

std::string usb4_test::control(const std::string& request, cb_status expect) {
    // One call: a control request acts each time it is made, so the reply buffer is sized once.
    std::string reply(64 * 1024, '\0');
    size_t needed = 0;
    cb_status st = t()->control(h(), request.c_str(), reply.data(), reply.size(), &needed);
    EXPECT_EQ(st, expect) << request << ": " << core::last_error();
    if (st != CB_OK) return core::last_error();
    EXPECT_LE(needed, reply.size());
    reply.resize(needed - 1);
    return reply;
}

std::vector<cb_endpoint_info> usb4_test::endpoints() {
    size_t count = 0;
    EXPECT_EQ(t()->enumerate(h(), nullptr, 0, &count), CB_OK);
    std::vector<cb_endpoint_info> v(count);
    for (auto& e : v) e.struct_size = sizeof e;
    EXPECT_EQ(t()->enumerate(h(), v.data(), v.size(), &count), CB_OK);
    return v;
}

std::string usb4_test::enclosure_id() {
    for (const auto& e : endpoints())
        if (e.kind == CB_ENDPOINT_DEVICE_ROUTER) return e.id;
    return "";
}

std::string usb4_test::function_id() {
    for (const auto& e : endpoints())
        if (e.kind == CB_ENDPOINT_PCI_FUNCTION) return e.id;
    return "";
}

void usb4_test::set_layout(const std::string& host, const std::string& security) {
    control(R"({"op":"set_layout","layout":{"host":")" + host + R"(","domains":[{"index":0,"security":")" + security +
            R"("}],"enclosures":[{"id":"e-1","name":"test enclosure","vendor":"test","domain":0,"generation":"tb4",)"
            R"("power_budget_w":750,"gpu_model":"rtx-5090","gpu_vendor_id":4318,"gpu_device_id":11141}]}})");
}

void usb4_test::attach_loopback() {
    model = std::make_unique<loopback_model>(sdk::host(model_host.services()), 8 << 20);
    sdk::endpoint_model* base = model.get();  // the table's adapters cast the handle back to this
    ASSERT_EQ(t()->attach_endpoint_model(h(), enclosure_id().c_str(), sdk::endpoint_model::table(), base), CB_OK);
}

cb_link* usb4_test::authorize_and_open() {
    attach_loopback();
    EXPECT_EQ(t()->authorize(h(), enclosure_id().c_str(), CB_AUTH_AUTHORIZED, nullptr, 0), CB_OK) << core::last_error();
    cb_link* link = nullptr;
    EXPECT_EQ(t()->open_link(h(), function_id().c_str(), &link), CB_OK) << core::last_error();
    return link;
}

}  // namespace cudabridge::test
