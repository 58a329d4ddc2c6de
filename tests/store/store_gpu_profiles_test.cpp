// GPU model profiles in the store: round trip, upsert by PCI device id, lookup by key, and the
// all-or-none write.
#include "store_test_util.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/gpu_profiles.hpp>

using namespace cudabridge::core;
using namespace cb_store_test;

namespace {

gpu_profile_row row(int id, std::string key, std::string name, std::string source = "test") {
    gpu_profile_row r;
    r.pci_device_id = id;
    r.key = key;
    r.name = name;
    r.data = "{\"key\":\"" + key + "\",\"name\":\"" + name + "\",\"pci_device_id\":" + std::to_string(id) + "}";
    r.source = std::move(source);
    return r;
}

void expect_same(const gpu_profile_row& got, const gpu_profile_row& want) {
    EXPECT_EQ(got.pci_device_id, want.pci_device_id);
    EXPECT_EQ(got.key, want.key);
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.data, want.data);
    EXPECT_EQ(got.source, want.source);
}

class StoreGpuProfiles : public ::testing::Test {
protected:
    temp_dir dir;
    store s{dir.db()};
};

TEST_F(StoreGpuProfiles, EmptyStoreHasNone) {
    EXPECT_TRUE(list_gpu_profiles(s).empty());
    EXPECT_FALSE(find_gpu_profile(s, 0x2b85));
    EXPECT_FALSE(find_gpu_profile_by_key(s, "rtx-5090"));
    EXPECT_FALSE(find_gpu_profile_by_key(s, ""));
}

TEST_F(StoreGpuProfiles, RoundTripInIdOrder) {
    const auto a = row(0x2b85, "rtx-5090", "NVIDIA GeForce RTX 5090");
    const auto b = row(0x20b0, "a100-sxm4-40gb", "NVIDIA A100-SXM4-40GB");
    const auto c = row(0x27b8, "l4", "NVIDIA L4");
    put_gpu_profiles(s, {a, b, c});

    const auto all = list_gpu_profiles(s);
    ASSERT_EQ(all.size(), 3u);
    expect_same(all[0], b);  // 0x20b0 < 0x27b8 < 0x2b85
    expect_same(all[1], c);
    expect_same(all[2], a);

    const auto found = find_gpu_profile(s, 0x2b85);
    ASSERT_TRUE(found);
    expect_same(*found, a);
    const auto by_key = find_gpu_profile_by_key(s, "l4");
    ASSERT_TRUE(by_key);
    expect_same(*by_key, c);
    EXPECT_FALSE(find_gpu_profile(s, 0x1234));
    EXPECT_FALSE(find_gpu_profile_by_key(s, "rtx-9090"));
}

TEST_F(StoreGpuProfiles, PutReplacesTheRowWithTheSameId) {
    put_gpu_profiles(
        s, {row(0x2b85, "rtx-5090", "old name", "plugin old"), row(0x2204, "rtx-3090", "NVIDIA GeForce RTX 3090")});
    const auto newer = row(0x2b85, "rtx-5090", "NVIDIA GeForce RTX 5090", "plugin gpu-nvidia");
    put_gpu_profiles(s, {newer});

    EXPECT_EQ(list_gpu_profiles(s).size(), 2u);
    const auto found = find_gpu_profile(s, 0x2b85);
    ASSERT_TRUE(found);
    expect_same(*found, newer);
    EXPECT_EQ(count_rows(s, "SELECT count(*) FROM gpu_profiles WHERE pci_device_id = 11141"), 1);  // 0x2b85
    ASSERT_TRUE(find_gpu_profile(s, 0x2204));                                                      // untouched
}

TEST_F(StoreGpuProfiles, AnInvalidIdStoresNothing) {
    for (int bad : {0, 0xffff, -1, 0x10000}) {
        SCOPED_TRACE(bad);
        try {
            put_gpu_profiles(s, {row(0x2b85, "rtx-5090", "ok"), row(bad, "bad", "bad")});
            ADD_FAILURE() << "no core::error thrown";
        } catch (const error& e) {
            EXPECT_EQ(e.status(), CB_ERR_INVALID_ARGUMENT);
            EXPECT_NE(std::string(e.what()).find(std::to_string(bad)), std::string::npos) << e.what();
        }
        EXPECT_TRUE(list_gpu_profiles(s).empty());
    }
}

TEST_F(StoreGpuProfiles, AFailedWriteRollsBackEveryRow) {
    put_gpu_profiles(s, {row(0x2204, "rtx-3090", "before")});
    // A trigger refuses the second row: the first row's update must not survive.
    s.exec(
        "CREATE TRIGGER refuse_l4 BEFORE INSERT ON gpu_profiles WHEN NEW.key = 'l4' "
        "BEGIN SELECT RAISE(ABORT, 'refused by test'); END");
    EXPECT_THROW(put_gpu_profiles(s, {row(0x2204, "rtx-3090", "after"), row(0x27b8, "l4", "NVIDIA L4")}), error);
    const auto kept = find_gpu_profile(s, 0x2204);
    ASSERT_TRUE(kept);
    EXPECT_EQ(kept->name, "before");
    EXPECT_FALSE(find_gpu_profile(s, 0x27b8));
}

TEST_F(StoreGpuProfiles, EmptyPutIsANoOp) {
    put_gpu_profiles(s, {});
    EXPECT_TRUE(list_gpu_profiles(s).empty());
}

TEST_F(StoreGpuProfiles, ValuesAreNotSql) {
    auto r = row(0x2b85, "rtx-5090", "x'); DROP TABLE gpu_profiles; --");
    r.data = "{\"quote\":\"'\\\"\"}";
    put_gpu_profiles(s, {r});
    const auto found = find_gpu_profile_by_key(s, "rtx-5090");
    ASSERT_TRUE(found);
    expect_same(*found, r);
}

TEST_F(StoreGpuProfiles, OverridesLayerOverTheStoredProfile) {
    put_gpu_profiles(s, {row(0x2b85, "rtx-5090", "NVIDIA GeForce RTX 5090")});
    set_setting(s, gpu_profile_scope("rtx-5090"), "power_max_w", "600", "test");
    set_setting(s, gpu_profile_scope("rtx-5090"), "memory_type", "\"GDDR7X\"", "test");
    auto eff = find_effective_gpu_profile(s, 0x2b85);
    ASSERT_TRUE(eff);
    EXPECT_NE(eff->data.find("\"power_max_w\":600"), std::string::npos) << eff->data;
    EXPECT_NE(eff->data.find("\"memory_type\":\"GDDR7X\""), std::string::npos) << eff->data;
    EXPECT_NE(eff->data.find("\"key\":\"rtx-5090\""), std::string::npos) << eff->data;
    // The seeded row itself is unchanged; the override's history has old and new.
    EXPECT_EQ(find_gpu_profile(s, 0x2b85)->data.find("power_max_w"), std::string::npos);
    EXPECT_EQ(gpu_profile_overrides(s, "rtx-5090").size(), 2u);
    EXPECT_EQ(find_effective_gpu_profile_by_key(s, "rtx-5090")->data, eff->data);
    set_setting(s, gpu_profile_scope("rtx-5090"), "sm_count", "not json", "test");
    EXPECT_THROW(find_effective_gpu_profile(s, 0x2b85), cudabridge::core::error);
}

}  // namespace
