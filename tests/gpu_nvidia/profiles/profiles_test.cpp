#include "common/profiles/profile.hpp"

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

using namespace cudabridge::nv;

namespace {

// Re-serializes `profile` after `edit` changed its JSON object.
template <typename Edit>
std::string edited_json(const gpu_profile& profile, Edit edit) {
    Poco::JSON::Parser parser;
    auto o = parser.parse(to_json(profile)).extract<Poco::JSON::Object::Ptr>();
    edit(*o);
    std::ostringstream out;
    o->stringify(out);
    return out.str();
}

const gpu_profile& rtx5090() {
    const auto* p = find_profile_by_key("rtx-5090");
    EXPECT_NE(p, nullptr);
    return *p;
}

}  // namespace

TEST(GpuProfiles, EverySeededProfileValidates) {
    const auto& all = all_profiles();
    EXPECT_GE(all.size(), 17u);
    for (const auto& p : all) {
        const auto problems = validate(p);
        EXPECT_TRUE(problems.empty()) << p.key << ": " << (problems.empty() ? "" : problems.front());
    }
}

TEST(GpuProfiles, KeysAndPciIdsAreUnique) {
    std::set<std::string> keys;
    std::set<uint16_t> ids;
    for (const auto& p : all_profiles()) {
        EXPECT_TRUE(keys.insert(p.key).second) << p.key;
        EXPECT_TRUE(ids.insert(p.pci_device_id).second) << p.key;
        for (uint16_t a : p.alias_pci_device_ids) EXPECT_TRUE(ids.insert(a).second) << p.key << " alias " << a;
    }
}

TEST(GpuProfiles, EveryFigureHasASource) {
    for (const auto& p : all_profiles()) {
        for (const auto& field : profile_field_names()) {
            if (field == "key" || field == "sources") continue;
            const auto it = p.sources.find(field);
            ASSERT_NE(it, p.sources.end()) << p.key << " has no source for " << field;
            EXPECT_FALSE(it->second.empty());
        }
        // Figures the reference lacks say how they were derived (the 4080 SUPER has them from
        // a real nvidia-smi capture).
        if (p.key != "rtx-4080-super") {
            EXPECT_EQ(p.sources.at("power_min_w").rfind("derived: ", 0), 0u) << p.key;
            EXPECT_EQ(p.sources.at("power_max_w").rfind("derived: ", 0), 0u) << p.key;
            EXPECT_EQ(p.sources.at("slowdown_temp_c").rfind("derived: ", 0), 0u) << p.key;
            EXPECT_EQ(p.sources.at("shutdown_temp_c").rfind("derived: ", 0), 0u) << p.key;
        }
        EXPECT_EQ(p.sources.at("thermal_resistance_c_per_w").rfind("model choice: ", 0), 0u);
    }
}

TEST(GpuProfiles, UnverifiedReferenceItemsKeepTheirMark) {
    EXPECT_NE(rtx5090().sources.at("power_default_w").find("(?"), std::string::npos);
    EXPECT_NE(find_profile_by_key("rtx-a4000")->sources.at("boost_clock_mhz").find("(?)"), std::string::npos);
    EXPECT_NE(find_profile_by_key("h100-pcie")->sources.at("base_clock_mhz").find("(?)"), std::string::npos);
    // A verified one carries no mark.
    EXPECT_EQ(find_profile_by_key("rtx-4090")->sources.at("power_default_w").find("(?)"), std::string::npos);
}

TEST(GpuProfiles, LookupByKeyAndPciId) {
    const auto* p5090 = find_profile_by_pci_id(0x2b85);
    ASSERT_NE(p5090, nullptr);
    EXPECT_EQ(p5090->key, "rtx-5090");
    EXPECT_EQ(p5090->name, "NVIDIA GeForce RTX 5090");
    EXPECT_EQ(p5090->architecture, "Blackwell");
    EXPECT_EQ(p5090->compute_major, 12);
    EXPECT_EQ(p5090->sm_count, 170u);
    EXPECT_EQ(p5090->vram_bytes, 32ull << 30);
    EXPECT_EQ(p5090->power_default_w, 575);

    const auto* p4090 = find_profile_by_pci_id(0x2684);
    ASSERT_NE(p4090, nullptr);
    EXPECT_EQ(p4090->key, "rtx-4090");
    EXPECT_EQ(p4090->sm_count, 128u);
    EXPECT_EQ(p4090->memory_bus_width_bits, 384u);
    EXPECT_EQ(find_profile_by_key("rtx-4090"), p4090);

    EXPECT_EQ(find_profile_by_pci_id(0x2504)->key, "rtx-3060");  // LHR alias
    EXPECT_EQ(find_profile_by_pci_id(0x20b1)->key, "a100-pcie-40gb");
    EXPECT_EQ(find_profile_by_pci_id(0x2702)->key, "rtx-4080-super");
    EXPECT_EQ(find_profile_by_pci_id(0x1234), nullptr);
    EXPECT_EQ(find_profile_by_key("rtx-9999"), nullptr);
    // NVML's pciDeviceId is (device << 16) | vendor.
    EXPECT_EQ(find_profile_by_pci_id(static_cast<uint16_t>(0x270210DEu >> 16))->key, "rtx-4080-super");

    for (const char* key :
         {"rtx-3060", "rtx-3070", "rtx-3080", "rtx-3090", "rtx-4060-ti", "rtx-4070", "rtx-4080", "rtx-4090", "rtx-5070",
          "rtx-5080", "rtx-5090", "rtx-a4000", "rtx-a6000", "l4", "a100-pcie-40gb", "h100-pcie"})
        EXPECT_NE(find_profile_by_key(key), nullptr) << key;
}

TEST(GpuProfiles, DerivedFiguresFollowTheirRules) {
    // The 4080 SUPER capture is reproduced by the rules it anchors.
    const auto* s = find_profile_by_key("rtx-4080-super");
    EXPECT_EQ(s->power_min_w, 150);
    EXPECT_EQ(s->power_max_w, 400);
    EXPECT_EQ(s->max_operating_temp_c, 90);
    EXPECT_EQ(s->slowdown_temp_c, 96);
    EXPECT_EQ(s->shutdown_temp_c, 101);
    EXPECT_EQ(s->max_clock_mhz, 3165u);
    EXPECT_NEAR(s->memory_clock_mhz, 11501, 2);
    // Datacenter: max power = default; passive boards have no fan curve.
    const auto* h = find_profile_by_key("h100-pcie");
    EXPECT_EQ(h->power_max_w, h->power_default_w);
    EXPECT_TRUE(h->passive());
    EXPECT_FALSE(rtx5090().passive());
    EXPECT_EQ(find_profile_by_key("a100-pcie-40gb")->sm_count * 64, 6912u);
}

TEST(GpuProfiles, JsonRoundTripsEveryProfile) {
    for (const auto& p : all_profiles()) {
        std::string error;
        const auto back = profile_from_json(to_json(p), error);
        ASSERT_TRUE(back.has_value()) << p.key << ": " << error;
        EXPECT_EQ(*back, p) << p.key;
    }
}

TEST(GpuProfiles, PciIdAcceptedAsIntegerToo) {
    std::string error;
    const auto back =
        profile_from_json(edited_json(rtx5090(), [](Poco::JSON::Object& o) { o.set("pci_device_id", 0x2b85); }), error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(back->pci_device_id, 0x2b85);
}

TEST(GpuProfiles, MalformedJsonRefused) {
    std::string error;
    EXPECT_FALSE(profile_from_json("{\"key\": ", error));
    EXPECT_NE(error.find("malformed JSON"), std::string::npos) << error;
    EXPECT_FALSE(profile_from_json("[1, 2]", error));
    EXPECT_NE(error.find("object"), std::string::npos) << error;
    EXPECT_FALSE(profile_from_json("", error));
}

TEST(GpuProfiles, UnknownKeysRefusedNamingTheKey) {
    std::string error;
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(), [](auto& o) { o.set("warp_speed", 9); }), error));
    EXPECT_NE(error.find("unknown key 'warp_speed'"), std::string::npos) << error;
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(),
                                               [](auto& o) {
                                                   auto src = o.getObject("sources");
                                                   src->set("bogus_field", "x");
                                               }),
                                   error));
    EXPECT_NE(error.find("sources.bogus_field"), std::string::npos) << error;
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(),
                                               [](auto& o) {
                                                   auto fan = o.getArray("fan_curve");
                                                   fan->getObject(0)->set("rpm", 1000);
                                               }),
                                   error));
    EXPECT_NE(error.find("fan_curve[0].rpm"), std::string::npos) << error;
}

TEST(GpuProfiles, MissingAndMistypedKeysRefusedNamingTheKey) {
    std::string error;
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(), [](auto& o) { o.remove("sm_count"); }), error));
    EXPECT_NE(error.find("'sm_count'"), std::string::npos) << error;
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(), [](auto& o) { o.set("sm_count", "many"); }), error));
    EXPECT_NE(error.find("'sm_count'"), std::string::npos) << error;
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(), [](auto& o) { o.set("power_default_w", "575 W"); }), error));
    EXPECT_NE(error.find("'power_default_w'"), std::string::npos) << error;
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(), [](auto& o) { o.set("sm_count", -5); }), error));
    EXPECT_NE(error.find("'sm_count'"), std::string::npos) << error;
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(), [](auto& o) { o.set("pci_device_id", "0xzz"); }), error));
    EXPECT_NE(error.find("'pci_device_id'"), std::string::npos) << error;
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(), [](auto& o) { o.set("resizable_bar", 1); }), error));
    EXPECT_NE(error.find("'resizable_bar'"), std::string::npos) << error;
}

// A profile written before L2 sizes were modeled still loads (its L2 then reads 0); one that
// names it gets it, within bounds.
TEST(GpuProfiles, L2CacheSizeIsOptionalAndChecked) {
    EXPECT_EQ(rtx5090().l2_cache_bytes, uint64_t{96} << 20);
    std::string error;
    const auto older = profile_from_json(edited_json(rtx5090(), [](auto& o) { o.remove("l2_cache_bytes"); }), error);
    ASSERT_TRUE(older) << error;
    EXPECT_EQ(older->l2_cache_bytes, 0u);
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(), [](auto& o) { o.set("l2_cache_bytes", "96 MiB"); }), error));
    EXPECT_NE(error.find("'l2_cache_bytes'"), std::string::npos) << error;
    EXPECT_FALSE(
        profile_from_json(edited_json(rtx5090(), [](auto& o) { o.set("l2_cache_bytes", uint64_t{4} << 30); }), error));
    EXPECT_NE(error.find("'l2_cache_bytes'"), std::string::npos) << error;
}

TEST(GpuProfiles, OutOfRangeValuesRefusedNamingTheKey) {
    struct tc {
        const char* key;
        double value;
    };
    for (const tc& c : {tc{"power_max_w", 5000}, tc{"shutdown_temp_c", 500}, tc{"memory_bandwidth_gbps", 1},
                        tc{"thermal_resistance_c_per_w", 0}, tc{"ambient_temp_c", -100},
                        tc{"min_link_bandwidth_gbps", 0}, tc{"slowdown_temp_c", 20}}) {
        std::string error;
        EXPECT_FALSE(profile_from_json(edited_json(rtx5090(), [&](auto& o) { o.set(c.key, c.value); }), error))
            << c.key;
        EXPECT_NE(error.find(c.key), std::string::npos) << c.key << ": " << error;
    }
    std::string error;
    // Inconsistent figures: min power above default; boost below base; fan curve not increasing.
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(), [](auto& o) { o.set("power_min_w", 600.0); }), error));
    EXPECT_NE(error.find("power_"), std::string::npos) << error;
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(), [](auto& o) { o.set("boost_clock_mhz", 1000); }), error));
    EXPECT_NE(error.find("clock"), std::string::npos) << error;
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(), [](auto& o) { o.set("vram_bytes", 1000); }), error));
    EXPECT_NE(error.find("vram_bytes"), std::string::npos) << error;
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(), [](auto& o) { o.set("cuda_cores", 1000); }), error));
    EXPECT_NE(error.find("cuda_cores"), std::string::npos) << error;
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(), [](auto& o) { o.set("architecture", "Kepler2"); }), error));
    EXPECT_NE(error.find("architecture"), std::string::npos) << error;
    EXPECT_FALSE(profile_from_json(edited_json(rtx5090(), [](auto& o) { o.set("key", "RTX 5090!"); }), error));
    EXPECT_NE(error.find("key"), std::string::npos) << error;
    auto bad_fan = rtx5090();
    bad_fan.fan_curve = {{60, 50}, {50, 40}};
    EXPECT_FALSE(profile_from_json(to_json(bad_fan), error));
    EXPECT_NE(error.find("fan_curve[1]"), std::string::npos) << error;
}

TEST(GpuProfiles, ValidateReportsEveryProblem) {
    auto p = rtx5090();
    p.sm_count = 0;
    p.power_min_w = -1;
    p.sources["not_a_field"] = "x";
    const auto problems = validate(p);
    EXPECT_GE(problems.size(), 3u);
    std::string all;
    for (const auto& s : problems) all += s + "\n";
    EXPECT_NE(all.find("sm_count"), std::string::npos) << all;
    EXPECT_NE(all.find("power_min_w"), std::string::npos) << all;
    EXPECT_NE(all.find("not_a_field"), std::string::npos) << all;
}
