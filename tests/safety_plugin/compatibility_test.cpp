// The compatibility verdict: each refusal with its figures, and the compatible cases.
#include "has_text.hpp"
#include "health_samples.hpp"
#include "policy/compatibility.hpp"

#include <gtest/gtest.h>

namespace sf = cudabridge::plugins::safety;
using cudabridge::test::nvidia_facts;
using cudabridge::test::has_text;

namespace {

sf::verdict check(const cb_device_facts& f, const sf::parameters& p = {}) { return sf::check_compatibility(f, p); }

}  // namespace

TEST(SafetyCompatibility, NvidiaGpuOnAGoodLinkIsCompatible) {
    const sf::verdict v = check(nvidia_facts());
    EXPECT_TRUE(v.compatible);
    EXPECT_EQ(v.reason.rfind("compatible", 0), 0u) << v.reason;
    EXPECT_EQ(v.reason.find("IOMMU"), std::string::npos);
}

TEST(SafetyCompatibility, NoIommuProtectionIsNotedButCompatible) {
    auto f = nvidia_facts();
    f.iommu_dma_protection = 0;
    const sf::verdict v = check(f);
    EXPECT_TRUE(v.compatible);
    EXPECT_TRUE(has_text(v.reason, "no IOMMU DMA protection"));
}

TEST(SafetyCompatibility, RefusesOtherVendorsNamingTheId) {
    auto f = nvidia_facts();
    f.pci_vendor_id = 0x1002;
    const sf::verdict v = check(f);
    EXPECT_FALSE(v.compatible);
    EXPECT_TRUE(has_text(v.reason, "0x1002"));
}

TEST(SafetyCompatibility, RefusesNonDisplayClassesAndAdmits3dControllers) {
    auto f = nvidia_facts();
    f.pci_class_code = 0x040300;  // audio: the card's HDMI audio function
    sf::verdict v = check(f);
    EXPECT_FALSE(v.compatible);
    EXPECT_TRUE(has_text(v.reason, "0x040300"));
    f.pci_class_code = 0x030200;  // 3D controller (data-centre cards)
    EXPECT_TRUE(check(f).compatible);
}

TEST(SafetyCompatibility, RefusesSecurityLevelsWithoutPcieTunnels) {
    for (auto [level, name] : {std::pair{CB_SECURITY_DPONLY, "dponly"}, std::pair{CB_SECURITY_USBONLY, "usbonly"},
                               std::pair{CB_SECURITY_NOPCIE, "nopcie"}}) {
        auto f = nvidia_facts();
        f.security_level = level;
        const sf::verdict v = check(f);
        EXPECT_FALSE(v.compatible) << name;
        EXPECT_TRUE(has_text(v.reason, name));
    }
    for (auto level : {CB_SECURITY_NONE, CB_SECURITY_USER, CB_SECURITY_SECURE}) {
        auto f = nvidia_facts();
        f.security_level = level;
        EXPECT_TRUE(check(f).compatible) << level;
    }
}

TEST(SafetyCompatibility, RefusesALinkBelowTheProfilesMinimumWithBothFigures) {
    auto f = nvidia_facts();
    f.min_link_bandwidth_gbs = 3.0;
    f.link_bandwidth_gbs = 2.5;
    const sf::verdict v = check(f);
    EXPECT_FALSE(v.compatible);
    EXPECT_TRUE(has_text(v.reason, "2.50 GB/s"));
    EXPECT_TRUE(has_text(v.reason, "3.00 GB/s"));
    f.link_bandwidth_gbs = 3.0;  // exactly the minimum is enough
    EXPECT_TRUE(check(f).compatible);
}

TEST(SafetyCompatibility, TheParameterRaisesTheFloor) {
    auto f = nvidia_facts();  // 3.8 GB/s, profile minimum 2.0
    sf::parameters p;
    p.min_link_bandwidth_gbs = 4.0;
    const sf::verdict v = check(f, p);
    EXPECT_FALSE(v.compatible);
    EXPECT_TRUE(has_text(v.reason, "3.80 GB/s"));
    EXPECT_TRUE(has_text(v.reason, "4.00 GB/s"));
    EXPECT_TRUE(has_text(v.reason, "min_link_bandwidth_gbs"));
    p.min_link_bandwidth_gbs = 1.0;  // below the profile's: the profile's applies
    EXPECT_TRUE(check(f, p).compatible);
    f.min_link_bandwidth_gbs = 0;  // no minimum at all
    f.link_bandwidth_gbs = 0.5;
    EXPECT_TRUE(check(f, sf::parameters{}).compatible);
}

TEST(SafetyCompatibility, RefusesAnEnclosureThatCannotPowerTheCard) {
    auto f = nvidia_facts();
    f.enclosure_power_w = 350;
    f.board_power_w = 575;
    const sf::verdict v = check(f);
    EXPECT_FALSE(v.compatible);
    EXPECT_TRUE(has_text(v.reason, "350 W"));
    EXPECT_TRUE(has_text(v.reason, "575 W"));
    f.enclosure_power_w = 0;  // unknown: not a refusal
    EXPECT_TRUE(check(f).compatible);
    f.enclosure_power_w = 575;
    EXPECT_TRUE(check(f).compatible);
}

TEST(SafetyCompatibility, TheFirstRefusalInOrderIsTheReason) {
    auto f = nvidia_facts();
    f.pci_vendor_id = 0x8086;
    f.pci_class_code = 0x020000;
    f.link_bandwidth_gbs = 0.1;
    EXPECT_TRUE(has_text(check(f).reason, "0x8086"));
}
