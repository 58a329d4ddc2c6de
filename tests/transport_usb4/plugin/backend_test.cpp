// Backend choice: the simulator without a Thunderbolt domain, the Linux backend over a fixture
// sysfs tree with one, and a clear refusal when Linux is forced without a domain.
#include "transport_fixture.hpp"

#include <cudabridge/core/error.hpp>

namespace cudabridge::test {
namespace {

TEST_F(usb4_test, AutoPicksTheSimulatorWithoutADomainAndSaysWhy) {
    auto i = make({{"backend", "auto"}, {"sysfs_root", fixture_root("no_thunderbolt")}});
    size_t needed = 0;
    std::string reply(4096, '\0');
    ASSERT_EQ(i->transport()->control(i->handle(), R"({"op":"backend"})", reply.data(), reply.size(), &needed), CB_OK);
    reply.resize(needed - 1);
    EXPECT_NE(reply.find("\"simulated\":true"), std::string::npos) << reply;
    EXPECT_NE(reply.find("no Thunderbolt/USB4 domain"), std::string::npos) << reply;
}

TEST_F(usb4_test, AutoPicksLinuxWhenTheFixtureHasADomain) {
    auto i = make({{"backend", "auto"}, {"sysfs_root", fixture_root("tb3_user_authorized")}});
    size_t count = 0;
    ASSERT_EQ(i->transport()->enumerate(i->handle(), nullptr, 0, &count), CB_OK);
    std::vector<cb_endpoint_info> v(count);
    for (auto& e : v) e.struct_size = sizeof e;
    ASSERT_EQ(i->transport()->enumerate(i->handle(), v.data(), v.size(), &count), CB_OK);
    bool gpu = false;
    for (const auto& e : v) {
        EXPECT_EQ(e.is_simulated, 0);
        gpu |= e.kind == CB_ENDPOINT_PCI_FUNCTION && e.pci_vendor_id == 0x10de;
    }
    EXPECT_TRUE(gpu);
    cb_link* link = nullptr;
    EXPECT_EQ(i->transport()->open_link(i->handle(), "0000:07:00.0", &link), CB_ERR_UNSUPPORTED);
    EXPECT_NE(core::last_error().find("kernel"), std::string::npos);
}

TEST_F(usb4_test, LinuxForcedWithoutADomainIsRefusedWithTheReason) {
    try {
        make({{"backend", "linux"}, {"sysfs_root", fixture_root("no_thunderbolt")}});
        FAIL() << "backend=linux should be refused without a domain";
    } catch (const core::error& e) {
        EXPECT_EQ(e.status(), CB_ERR_NO_DEVICE);
        EXPECT_NE(std::string(e.what()).find("no Thunderbolt/USB4 domain"), std::string::npos) << e.what();
    }
    EXPECT_THROW(make({{"backend", "quantum"}}), core::error);
}

}  // namespace
}  // namespace cudabridge::test
