// Safe removal writes the address into the driver's unbind and 1 into remove, for every
// function of the device; rescan writes 1; internal devices are refused.
#include "fixture_tree.hpp"
#include "sysfs_pci_removal.hpp"

#include <gtest/gtest.h>

namespace cudabridge::usb4::linux_sysfs {
namespace {

using test::fixture_copy;
using test::read_text;

const std::string gpu_dir = "sys/devices/pci0000:00/0000:00:07.0/0000:2c:00.0/0000:2d:01.0/0000:2e:00.0";
const std::string audio_dir = "sys/devices/pci0000:00/0000:00:07.0/0000:2c:00.0/0000:2d:01.0/0000:2e:00.1";

TEST(LinuxSafeRemove, UnbindsThenRemovesEveryFunction) {
    fixture_copy fx("tb3_user_authorized");
    std::vector<std::string> steps;
    std::string error;
    ASSERT_EQ(safe_remove(fx.root(), "0000:2e:00.0", steps, error), CB_OK) << error;
    EXPECT_EQ(read_text(fx / "sys/bus/pci/drivers/nvidia/unbind"), "0000:2e:00.0");
    EXPECT_EQ(read_text(fx / (gpu_dir + "/remove")), "1");
    EXPECT_EQ(read_text(fx / "sys/bus/pci/drivers/snd_hda_intel/unbind"), "0000:2e:00.1");
    EXPECT_EQ(read_text(fx / (audio_dir + "/remove")), "1");
    ASSERT_EQ(steps.size(), 4u);
    EXPECT_EQ(steps[0], "unbound 0000:2e:00.1 from driver snd_hda_intel");
    EXPECT_EQ(steps[1], "removed 0000:2e:00.1 from the PCI bus");
    EXPECT_EQ(steps[2], "unbound 0000:2e:00.0 from driver nvidia");
    EXPECT_EQ(steps[3], "removed 0000:2e:00.0 from the PCI bus");
    // Nothing else was touched.
    EXPECT_EQ(read_text(fx / "sys/bus/pci/drivers/pcieport/unbind"), "");
}

TEST(LinuxSafeRemove, NoDriverBoundSkipsTheUnbind) {
    fixture_copy fx("tb3_user_authorized");
    std::filesystem::remove(fx / (audio_dir + "/driver"));
    std::vector<std::string> steps;
    std::string error;
    ASSERT_EQ(safe_remove(fx.root(), "0000:2e:00.1", steps, error), CB_OK) << error;
    EXPECT_EQ(steps.front(), "unbound 0000:2e:00.0 from driver nvidia");
    EXPECT_EQ(steps[2], "0000:2e:00.1 has no driver bound");
    EXPECT_EQ(read_text(fx / "sys/bus/pci/drivers/snd_hda_intel/unbind"), "");
    EXPECT_EQ(read_text(fx / (audio_dir + "/remove")), "1");
}

TEST(LinuxSafeRemove, FailureStopsTheSequence) {
    fixture_copy fx("tb3_user_authorized");
    const auto unbind = fx / "sys/bus/pci/drivers/nvidia/unbind";
    std::filesystem::remove(unbind);
    std::filesystem::create_directory(unbind);  // EISDIR (root ignores file modes)
    std::vector<std::string> steps;
    std::string error;
    EXPECT_EQ(safe_remove(fx.root(), "0000:2e:00.0", steps, error), CB_ERR_INTERNAL);
    EXPECT_NE(error.find("unbinding the driver of 0000:2e:00.0 failed"), std::string::npos) << error;
    EXPECT_EQ(read_text(fx / (gpu_dir + "/remove")), "");  // not reached
    EXPECT_EQ(steps.size(), 2u);                           // the audio function went first
}

TEST(LinuxSafeRemove, MissingRemoveAttribute) {
    fixture_copy fx("tb3_user_authorized");
    std::filesystem::remove(fx / (audio_dir + "/remove"));
    std::vector<std::string> steps;
    std::string error;
    EXPECT_EQ(safe_remove(fx.root(), "0000:2e:00.0", steps, error), CB_ERR_NOT_FOUND);
    EXPECT_NE(error.find("removing 0000:2e:00.1 failed"), std::string::npos) << error;
    EXPECT_NE(error.find("rescan"), std::string::npos) << error;
    EXPECT_EQ(read_text(fx / "sys/bus/pci/drivers/nvidia/unbind"), "");
}

TEST(LinuxSafeRemove, RefusesInternalAndUnknownDevices) {
    fixture_copy fx("tb3_user_authorized");
    std::vector<std::string> steps;
    std::string error;
    EXPECT_EQ(safe_remove(fx.root(), "0000:00:02.0", steps, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("not behind a Thunderbolt"), std::string::npos) << error;
    EXPECT_EQ(read_text(fx / "sys/bus/pci/drivers/i915/unbind"), "");
    EXPECT_EQ(safe_remove(fx.root(), "0000:77:00.0", steps, error), CB_ERR_NOT_FOUND);
    EXPECT_EQ(safe_remove(fx.root(), "../../../etc/x", steps, error), CB_ERR_INVALID_ARGUMENT);
    fixture_copy none("no_thunderbolt");
    EXPECT_EQ(safe_remove(none.root(), "0000:01:00.0", steps, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(read_text(none / "sys/bus/pci/drivers/nvme/unbind"), "");
    EXPECT_TRUE(steps.empty());
}

TEST(LinuxRescan, WritesOne) {
    fixture_copy fx("tb3_user_authorized");
    std::vector<std::string> steps;
    std::string error;
    ASSERT_EQ(rescan(fx.root(), steps, error), CB_OK) << error;
    EXPECT_EQ(read_text(fx / "sys/bus/pci/rescan"), "1");
    ASSERT_EQ(steps.size(), 1u);
    cudabridge::test::temp_dir empty;
    EXPECT_EQ(rescan(empty.path(), steps, error), CB_ERR_NOT_FOUND);
}

}  // namespace
}  // namespace cudabridge::usb4::linux_sysfs
