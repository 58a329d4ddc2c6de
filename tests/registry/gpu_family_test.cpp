// GPU families across ABI minors: an ABI 1.1 family (its table ends before `control`) is
// accepted and its control reads as NULL; a current family's control seeds the store's model
// profiles when the host asks, never on the registry's own: core knows no plugin kind's domain.
#include "registry_fixture.hpp"

#include <cudabridge/host/gpu_profile_seed.hpp>

namespace cudabridge::test {
namespace {

std::string gpu_variant_dir(const std::string& variant) { return std::string(CB_TEST_GPU_PLUGIN_ROOT) + "/" + variant; }

TEST(verify_gpu, Abi11FamilyWithoutControlIsAccepted) {
    auto r = core::verify_plugin_file(gpu_variant_dir("gpu_v11") + "/libgpu_v11.so");
    EXPECT_TRUE(r.ok) << r.reason;
    ASSERT_EQ(r.plugins.size(), 1u);
    EXPECT_EQ(r.plugins[0].kind, CB_KIND_GPU);
    EXPECT_EQ(r.plugins[0].abi_minor, 1);
}

TEST_F(registry_test, Abi11FamilyReadsControlAsNullAndSeedsNothing) {
    core::registry reg(*db, only({gpu_variant_dir("gpu_v11")}));
    reg.scan();
    auto inst = reg.create(CB_KIND_GPU, "testgpu");
    const cb_gpu_table* t = inst->gpu();
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->struct_size, sizeof(cb_gpu_table));
    EXPECT_EQ(t->control, nullptr);  // the plugin's bytes past struct_size are not copied
    ASSERT_NE(t->claim, nullptr);
    cb_endpoint_info e{};
    e.struct_size = sizeof e;
    e.pci_vendor_id = 0x10de;
    cb_bool claimed = 0;
    EXPECT_EQ(t->claim(inst->handle(), &e, &claimed), CB_OK);
    EXPECT_EQ(claimed, 1);
    EXPECT_EQ(host::seed_gpu_profiles(*db, t, inst->handle(), "testgpu"), 0u);
    EXPECT_TRUE(core::list_gpu_profiles(*db).empty());
}

TEST_F(registry_test, CreatingAFamilyStoresNoProfilesTheHostSeedsThem) {
    core::registry reg(*db, only({gpu_variant_dir("gpu_v12")}));
    reg.scan();
    auto inst = reg.create(CB_KIND_GPU, "testgpu");
    ASSERT_NE(inst->gpu()->control, nullptr);
    EXPECT_TRUE(core::list_gpu_profiles(*db).empty());  // the registry asks a family nothing
    EXPECT_EQ(host::seed_gpu_profiles(*db, inst->gpu(), inst->handle(), "testgpu"), 2u);
    const auto rows = core::list_gpu_profiles(*db);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].pci_device_id, 0x1a01);
    EXPECT_EQ(rows[0].key, "test-a");
    EXPECT_EQ(rows[1].pci_device_id, 6658);
    EXPECT_EQ(rows[1].name, "Test GPU B");
    EXPECT_EQ(rows[1].source, "plugin testgpu");
    // Another op is the family's to refuse.
    char reply[64];
    EXPECT_EQ(inst->gpu()->control(inst->handle(), "{\"op\":\"live\"}", reply, sizeof reply, nullptr),
              CB_ERR_UNSUPPORTED);
}

}  // namespace
}  // namespace cudabridge::test
