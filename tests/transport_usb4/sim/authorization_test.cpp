// Authorization at each security level, as the kernel's sysfs interface behaves.
#include "sim/authorization.hpp"

#include <gtest/gtest.h>

#include <array>

namespace cudabridge::usb4 {
namespace {

struct setup {
    domain_layout domain;
    enclosure_layout enclosure;
    explicit setup(cb_security_level level) {
        domain.security = level;
        enclosure.id = "e1";
    }
};

std::array<uint8_t, 32> key(uint8_t fill) {
    std::array<uint8_t, 32> k{};
    k.fill(fill);
    return k;
}

TEST(authorization, UserLevelAuthorizesWithoutAKey) {
    setup s(CB_SECURITY_USER);
    EXPECT_FALSE(pcie_allowed(s.domain, s.enclosure));
    auto r = apply_authorization(s.domain, s.enclosure, CB_AUTH_AUTHORIZED, nullptr, 0);
    EXPECT_EQ(r.status, CB_OK) << r.message;
    EXPECT_EQ(s.enclosure.authorized, CB_AUTH_AUTHORIZED);
    EXPECT_TRUE(pcie_allowed(s.domain, s.enclosure));
}

TEST(authorization, NoneLevelNeedsNothing) {
    setup s(CB_SECURITY_NONE);
    EXPECT_TRUE(pcie_allowed(s.domain, s.enclosure));
    EXPECT_EQ(apply_deauthorization(s.domain, s.enclosure).status, CB_ERR_UNSUPPORTED);
}

TEST(authorization, SecureLevelEnrollsThenChallenges) {
    setup s(CB_SECURITY_SECURE);
    auto k = key(0x5a);
    auto r = apply_authorization(s.domain, s.enclosure, CB_AUTH_SECURE, k.data(), k.size());
    EXPECT_EQ(r.status, CB_ERR_PERMISSION);
    EXPECT_NE(r.message.find("ENOKEY"), std::string::npos);

    r = apply_authorization(s.domain, s.enclosure, CB_AUTH_AUTHORIZED, nullptr, 0);
    EXPECT_EQ(r.status, CB_ERR_PERMISSION);
    EXPECT_NE(r.message.find("enroll"), std::string::npos);

    r = apply_authorization(s.domain, s.enclosure, CB_AUTH_AUTHORIZED, k.data(), k.size());
    ASSERT_EQ(r.status, CB_OK) << r.message;
    std::string expected;
    for (int i = 0; i < 32; ++i) expected += "5a";
    EXPECT_EQ(s.enclosure.key_hex, expected);

    // A later connection: deauthorized, then challenged.
    ASSERT_EQ(apply_deauthorization(s.domain, s.enclosure).status, CB_OK);
    EXPECT_FALSE(pcie_allowed(s.domain, s.enclosure));
    auto wrong = key(0x11);
    r = apply_authorization(s.domain, s.enclosure, CB_AUTH_SECURE, wrong.data(), wrong.size());
    EXPECT_EQ(r.status, CB_ERR_PERMISSION);
    EXPECT_NE(r.message.find("EKEYREJECTED"), std::string::npos);
    EXPECT_EQ(s.enclosure.authorized, CB_AUTH_NONE);
    r = apply_authorization(s.domain, s.enclosure, CB_AUTH_SECURE, k.data(), k.size());
    EXPECT_EQ(r.status, CB_OK) << r.message;
    EXPECT_EQ(s.enclosure.authorized, CB_AUTH_SECURE);
    EXPECT_TRUE(pcie_allowed(s.domain, s.enclosure));
}

TEST(authorization, KeyMustBe32Bytes) {
    setup s(CB_SECURITY_SECURE);
    uint8_t short_key[8] = {};
    EXPECT_EQ(apply_authorization(s.domain, s.enclosure, CB_AUTH_AUTHORIZED, short_key, 8).status,
              CB_ERR_INVALID_ARGUMENT);
}

TEST(authorization, LevelsWithoutPcieRefuseEveryRequest) {
    for (cb_security_level level : {CB_SECURITY_DPONLY, CB_SECURITY_USBONLY, CB_SECURITY_NOPCIE}) {
        setup s(level);
        auto r = apply_authorization(s.domain, s.enclosure, CB_AUTH_AUTHORIZED, nullptr, 0);
        EXPECT_EQ(r.status, CB_ERR_PERMISSION);
        EXPECT_NE(r.message.find("allows no PCIe tunnels"), std::string::npos) << r.message;
        EXPECT_FALSE(pcie_allowed(s.domain, s.enclosure));
    }
}

TEST(authorization, UnpluggedDeviceAndDomainWithoutDeauthorization) {
    setup s(CB_SECURITY_USER);
    s.enclosure.plugged = false;
    EXPECT_EQ(apply_authorization(s.domain, s.enclosure, CB_AUTH_AUTHORIZED, nullptr, 0).status, CB_ERR_NO_DEVICE);
    s.enclosure.plugged = true;
    s.domain.deauthorization = false;
    ASSERT_EQ(apply_authorization(s.domain, s.enclosure, CB_AUTH_AUTHORIZED, nullptr, 0).status, CB_OK);
    auto r = apply_deauthorization(s.domain, s.enclosure);
    EXPECT_EQ(r.status, CB_ERR_UNSUPPORTED);
    EXPECT_EQ(s.enclosure.authorized, CB_AUTH_AUTHORIZED);
}

}  // namespace
}  // namespace cudabridge::usb4
