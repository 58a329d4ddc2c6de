// The simulated fabric through the plugin: enumeration, authorization, events, and a layout
// shared through the store.
#include "transport_fixture.hpp"

#include <cudabridge/core/error.hpp>

#include <array>

namespace cudabridge::test {
namespace {

size_t count_kind(const std::vector<cb_endpoint_info>& v, cb_endpoint_kind kind) {
    size_t n = 0;
    for (const auto& e : v) n += e.kind == kind ? 1 : 0;
    return n;
}

TEST_F(usb4_test, DefaultFabricIsOneTb4EnclosureWaitingForAuthorization) {
    auto v = endpoints();
    EXPECT_EQ(count_kind(v, CB_ENDPOINT_DOMAIN), 1u);
    EXPECT_EQ(count_kind(v, CB_ENDPOINT_HOST_ROUTER), 1u);
    ASSERT_EQ(count_kind(v, CB_ENDPOINT_DEVICE_ROUTER), 1u);
    EXPECT_EQ(count_kind(v, CB_ENDPOINT_PCI_FUNCTION), 0u);  // no tunnel before authorization
    for (const auto& e : v) {
        EXPECT_EQ(e.is_simulated, 1);
        if (e.kind != CB_ENDPOINT_DEVICE_ROUTER) continue;
        EXPECT_EQ(e.generation, CB_LINK_TB4);
        EXPECT_EQ(e.lanes, 2u);
        EXPECT_DOUBLE_EQ(e.lane_speed_gbps, 20.0);
        EXPECT_EQ(e.authorized, CB_AUTH_NONE);
        EXPECT_EQ(e.security_level, CB_SECURITY_USER);
    }
}

void record_event(void* user, const cb_transport_event* ev) {
    static_cast<std::vector<cb_transport_event>*>(user)->push_back(*ev);
}

TEST_F(usb4_test, AuthorizationBringsThePciFunctionAndRaisesEvents) {
    std::vector<cb_transport_event> events;
    ASSERT_EQ(t()->set_event_handler(h(), &record_event, &events), CB_OK);
    const std::string id = enclosure_id();
    ASSERT_EQ(t()->authorize(h(), id.c_str(), CB_AUTH_AUTHORIZED, nullptr, 0), CB_OK);
    auto v = endpoints();
    ASSERT_EQ(count_kind(v, CB_ENDPOINT_PCI_FUNCTION), 1u);
    for (const auto& e : v)
        if (e.kind == CB_ENDPOINT_PCI_FUNCTION) {
            EXPECT_EQ(e.pci_vendor_id, 0x10de);
            EXPECT_EQ(e.pci_device_id, 0x2b85);
            EXPECT_EQ(e.pci_class_code, 0x030000u);
            EXPECT_EQ(e.pcie_link_gen, 3u);
            EXPECT_EQ(e.pcie_link_width, 4u);
            EXPECT_EQ(std::string(e.parent_id), id);
        }
    ASSERT_EQ(t()->deauthorize(h(), id.c_str()), CB_OK);
    EXPECT_EQ(count_kind(endpoints(), CB_ENDPOINT_PCI_FUNCTION), 0u);
    control(R"({"op":"unplug","id":")" + id + R"("})");
    EXPECT_EQ(count_kind(endpoints(), CB_ENDPOINT_DEVICE_ROUTER), 0u);
    control(R"({"op":"plug","id":")" + id + R"("})");
    ASSERT_EQ(events.size(), 4u) << [&] {
        std::string s;
        for (auto& e : events) s += std::to_string(e.type) + " " + e.message + "\n";
        return s;
    }();
    EXPECT_EQ(events[0].type, CB_TRANSPORT_AUTHORIZED);
    EXPECT_EQ(events[1].type, CB_TRANSPORT_DEAUTHORIZED);
    EXPECT_EQ(events[2].type, CB_TRANSPORT_UNPLUGGED);
    EXPECT_EQ(events[3].type, CB_TRANSPORT_PLUGGED);
    EXPECT_EQ(std::string(events[3].endpoint_id), id);
}

TEST_F(usb4_test, AnotherInstanceOnTheSameStoreSeesTheSameFabric) {
    const std::string id = enclosure_id();
    ASSERT_EQ(t()->authorize(h(), id.c_str(), CB_AUTH_AUTHORIZED, nullptr, 0), CB_OK);
    auto other = make();
    size_t count = 0;
    ASSERT_EQ(other->transport()->enumerate(other->handle(), nullptr, 0, &count), CB_OK);
    std::vector<cb_endpoint_info> v(count);
    for (auto& e : v) e.struct_size = sizeof e;
    ASSERT_EQ(other->transport()->enumerate(other->handle(), v.data(), v.size(), &count), CB_OK);
    EXPECT_EQ(count_kind(v, CB_ENDPOINT_PCI_FUNCTION), 1u);
}

TEST_F(usb4_test, SecureDomainEnrollsThenChallenges) {
    EXPECT_NE(control(R"({"op":"layout"})").find("\"security\":\"user\""), std::string::npos);
    set_layout("apple-silicon", "secure");
    const std::string id = enclosure_id();
    EXPECT_EQ(t()->authorize(h(), id.c_str(), CB_AUTH_AUTHORIZED, nullptr, 0), CB_ERR_PERMISSION);
    EXPECT_NE(core::last_error().find("enroll"), std::string::npos) << core::last_error();
    std::array<uint8_t, 32> key{};
    key.fill(7);
    ASSERT_EQ(t()->authorize(h(), id.c_str(), CB_AUTH_AUTHORIZED, key.data(), key.size()), CB_OK);
    ASSERT_EQ(t()->deauthorize(h(), id.c_str()), CB_OK);
    std::array<uint8_t, 32> wrong{};
    EXPECT_EQ(t()->authorize(h(), id.c_str(), CB_AUTH_SECURE, wrong.data(), wrong.size()), CB_ERR_PERMISSION);
    EXPECT_NE(core::last_error().find("EKEYREJECTED"), std::string::npos);
    EXPECT_EQ(t()->authorize(h(), id.c_str(), CB_AUTH_SECURE, key.data(), key.size()), CB_OK);
}

TEST_F(usb4_test, ControlRefusesUnknownAndMalformedRequests) {
    EXPECT_NE(control(R"({"op":"explode"})", CB_ERR_UNSUPPORTED).find("unknown control op"), std::string::npos);
    EXPECT_NE(control("{not json", CB_ERR_INVALID_ARGUMENT).find("not JSON"), std::string::npos);
    EXPECT_NE(control(R"({"op":"set_layout","layout":{"domains":[{"security":"odd"}]}})", CB_ERR_INVALID_ARGUMENT)
                  .find("security"),
              std::string::npos);
    EXPECT_NE(control(R"({"op":"plug","id":"nosuch"})", CB_ERR_NOT_FOUND).find("nosuch"), std::string::npos);
    EXPECT_NE(control(R"({"op":"fault","bit_error_rate":0.1})", CB_ERR_NOT_FOUND).find("no open link"),
              std::string::npos);
}

TEST_F(usb4_test, OpenLinkNeedsAuthorizationAndAModel) {
    attach_loopback();
    cb_link* link = nullptr;
    // The function's address is known, but no tunnel may be opened before authorization.
    EXPECT_EQ(t()->open_link(h(), "0000:12:00.0", &link), CB_ERR_PERMISSION);
    EXPECT_NE(core::last_error().find("not authorized"), std::string::npos) << core::last_error();
    EXPECT_EQ(t()->open_link(h(), "0000:99:00.0", &link), CB_ERR_NOT_FOUND);
    ASSERT_EQ(t()->authorize(h(), enclosure_id().c_str(), CB_AUTH_AUTHORIZED, nullptr, 0), CB_OK);
    ASSERT_EQ(t()->detach_endpoint_model(h(), enclosure_id().c_str()), CB_OK);
    EXPECT_EQ(t()->open_link(h(), function_id().c_str(), &link), CB_ERR_NO_DEVICE);
    EXPECT_NE(core::last_error().find("no endpoint model"), std::string::npos);
}

}  // namespace
}  // namespace cudabridge::test
