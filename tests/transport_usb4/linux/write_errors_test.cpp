// The errno -> status and advice mapping, for the errors a test cannot make the kernel produce.
#include "sysfs_write_errors.hpp"

#include <gtest/gtest.h>

#include <cerrno>

namespace cudabridge::usb4::linux_sysfs {
namespace {

const std::filesystem::path file = "/sys/bus/thunderbolt/devices/0-1/authorized";
constexpr const char* uid = "c6030000-0062-0e1e-83bf-8d5e7f1bc021";

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(LinuxWriteErrors, PermissionPointsToRootOrBoltctl) {
    for (int e : {EACCES, EPERM}) {
        auto f = describe_write_error(e, sysfs_operation::authorize, uid, file);
        EXPECT_EQ(f.status, CB_ERR_PERMISSION);
        EXPECT_TRUE(has(f.message, "run as root")) << f.message;
        EXPECT_TRUE(has(f.message, std::string("boltctl authorize ") + uid)) << f.message;
        EXPECT_TRUE(has(f.message, file.string())) << f.message;
    }
    auto key = describe_write_error(EACCES, sysfs_operation::store_key, uid, file);
    EXPECT_TRUE(has(key.message, "boltctl enroll")) << key.message;
    auto pci = describe_write_error(EACCES, sysfs_operation::remove_device, "0000:2e:00.0", file);
    EXPECT_EQ(pci.status, CB_ERR_PERMISSION);
    EXPECT_TRUE(has(pci.message, "run as root")) << pci.message;
    EXPECT_FALSE(has(pci.message, "boltctl")) << pci.message;
}

TEST(LinuxWriteErrors, NoKeyMeansEnrollFirst) {
    auto f = describe_write_error(ENOKEY, sysfs_operation::challenge, uid, file);
    EXPECT_EQ(f.status, CB_ERR_PERMISSION);
    EXPECT_TRUE(has(f.message, "the device has no key: enroll it first")) << f.message;
}

TEST(LinuxWriteErrors, RejectedKeyMeansForgetAndReEnroll) {
    auto f = describe_write_error(EKEYREJECTED, sysfs_operation::challenge, uid, file);
    EXPECT_EQ(f.status, CB_ERR_PERMISSION);
    EXPECT_TRUE(has(f.message, "the key was rejected: forget and re-enroll the device")) << f.message;
    EXPECT_TRUE(has(f.message, std::string("boltctl forget ") + uid)) << f.message;
}

TEST(LinuxWriteErrors, OtherErrnos) {
    EXPECT_EQ(describe_write_error(ENOENT, sysfs_operation::authorize, uid, file).status, CB_ERR_NOT_FOUND);
    EXPECT_EQ(describe_write_error(ENODEV, sysfs_operation::authorize, uid, file).status, CB_ERR_DEVICE_LOST);
    EXPECT_EQ(describe_write_error(EBUSY, sysfs_operation::store_key, uid, file).status, CB_ERR_BUSY);
    EXPECT_EQ(describe_write_error(EINVAL, sysfs_operation::authorize, uid, file).status, CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(describe_write_error(ETIMEDOUT, sysfs_operation::authorize, uid, file).status, CB_ERR_TIMEOUT);
    EXPECT_EQ(describe_write_error(EROFS, sysfs_operation::rescan_bus, "x", file).status, CB_ERR_PERMISSION);
    EXPECT_EQ(describe_write_error(EISDIR, sysfs_operation::authorize, uid, file).status, CB_ERR_INTERNAL);
}

}  // namespace
}  // namespace cudabridge::usb4::linux_sysfs
