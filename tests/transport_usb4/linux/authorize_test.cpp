// Authorize / deauthorize write the right values into a copy of a fixture, and refuse what the
// kernel would refuse with a reason that says what to do.
#include "fixture_tree.hpp"
#include "sysfs_authorize.hpp"

#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <iterator>

namespace cudabridge::usb4::linux_sysfs {
namespace {

using test::fixture_copy;
using test::read_text;

constexpr const char* enclosure_uid = "c6030000-0062-0e1e-83bf-8d5e7f1bc021";
const std::string device_dir = "sys/devices/pci0000:00/0000:00:0d.2/domain0/0-0/0-1";

std::array<std::uint8_t, 32> test_key() {
    std::array<std::uint8_t, 32> k{};
    for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(i * 7 + 1);
    return k;
}

TEST(LinuxAuthorize, UserLevelWritesOne) {
    fixture_copy fx("tb3_user_unauthorized");
    std::string error;
    EXPECT_EQ(authorize(fx.root(), enclosure_uid, CB_AUTH_AUTHORIZED, {}, error), CB_OK) << error;
    EXPECT_EQ(read_text(fx / (device_dir + "/authorized")), "1");
}

TEST(LinuxAuthorize, BySysfsNameAndCaseInsensitiveUuid) {
    fixture_copy fx("tb3_user_unauthorized");
    std::string error;
    EXPECT_EQ(authorize(fx.root(), "0-1", CB_AUTH_AUTHORIZED, {}, error), CB_OK) << error;
    EXPECT_EQ(read_text(fx / (device_dir + "/authorized")), "1");
    fixture_copy fx2("tb3_user_unauthorized");
    EXPECT_EQ(authorize(fx2.root(), "C6030000-0062-0E1E-83BF-8D5E7F1BC021", CB_AUTH_AUTHORIZED, {}, error), CB_OK)
        << error;
}

TEST(LinuxAuthorize, AlreadyAuthorizedWritesNothing) {
    // The kernel would answer EINVAL to a second write; the fixture's "1\n" must stay as it is
    // (a write would leave "1" without the newline).
    fixture_copy fx("tb3_user_authorized");
    std::string error;
    EXPECT_EQ(authorize(fx.root(), enclosure_uid, CB_AUTH_AUTHORIZED, {}, error), CB_OK) << error;
    std::ifstream in(fx / (device_dir + "/authorized"), std::ios::binary);
    std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(raw, "1\n");
}

TEST(LinuxAuthorize, SecureLevelEnrollsTheKeyThenWritesOne) {
    fixture_copy fx("tb3_secure");
    const auto key = test_key();
    std::string error;
    EXPECT_EQ(authorize(fx.root(), enclosure_uid, CB_AUTH_AUTHORIZED, key, error), CB_OK) << error;
    const std::string hex = read_text(fx / (device_dir + "/key"));
    EXPECT_EQ(hex.size(), 64u);
    EXPECT_EQ(hex, key_hex(key));
    EXPECT_EQ(hex.substr(0, 6), "01080f");
    EXPECT_EQ(read_text(fx / (device_dir + "/authorized")), "1");
}

TEST(LinuxAuthorize, SecureLevelChallengeWritesTwo) {
    fixture_copy fx("tb3_secure");
    const auto key = test_key();
    std::string error;
    EXPECT_EQ(authorize(fx.root(), enclosure_uid, CB_AUTH_SECURE, key, error), CB_OK) << error;
    EXPECT_EQ(read_text(fx / (device_dir + "/key")), key_hex(key));
    EXPECT_EQ(read_text(fx / (device_dir + "/authorized")), "2");
}

TEST(LinuxAuthorize, ChallengeWithoutKeyIsRefused) {
    fixture_copy fx("tb3_secure");
    std::string error;
    EXPECT_EQ(authorize(fx.root(), enclosure_uid, CB_AUTH_SECURE, {}, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("needs the 32-byte key"), std::string::npos) << error;
    EXPECT_EQ(read_text(fx / (device_dir + "/authorized")), "0");
}

TEST(LinuxAuthorize, KeyWhereTheDeviceTakesNone) {
    fixture_copy fx("tb3_user_unauthorized");
    const auto key = test_key();
    std::string error;
    EXPECT_EQ(authorize(fx.root(), enclosure_uid, CB_AUTH_AUTHORIZED, key, error), CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("authorize it without a key"), std::string::npos) << error;
    EXPECT_EQ(read_text(fx / (device_dir + "/authorized")), "0");
}

TEST(LinuxAuthorize, WrongKeyLengthAndLevel) {
    fixture_copy fx("tb3_secure");
    const std::array<std::uint8_t, 16> short_key{};
    std::string error;
    EXPECT_EQ(authorize(fx.root(), enclosure_uid, CB_AUTH_AUTHORIZED, short_key, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(authorize(fx.root(), enclosure_uid, CB_AUTH_NONE, {}, error), CB_ERR_INVALID_ARGUMENT);
}

TEST(LinuxAuthorize, DpOnlyRefusesWithTheReason) {
    fixture_copy fx("tb3_dponly");
    std::string error;
    EXPECT_EQ(authorize(fx.root(), enclosure_uid, CB_AUTH_AUTHORIZED, {}, error), CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("dponly"), std::string::npos) << error;
    EXPECT_NE(error.find("no PCIe"), std::string::npos) << error;
    EXPECT_FALSE(std::filesystem::exists(fx / (device_dir + "/authorized")));
}

TEST(LinuxAuthorize, UnknownDeviceAndHostRouter) {
    fixture_copy fx("tb3_user_unauthorized");
    std::string error;
    EXPECT_EQ(authorize(fx.root(), "no-such-device", CB_AUTH_AUTHORIZED, {}, error), CB_ERR_NOT_FOUND);
    EXPECT_EQ(authorize(fx.root(), "0-3", CB_AUTH_AUTHORIZED, {}, error), CB_ERR_NOT_FOUND);
    EXPECT_EQ(authorize(fx.root(), "0-0", CB_AUTH_AUTHORIZED, {}, error), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(authorize(test::fixture("no_thunderbolt"), "0-1", CB_AUTH_AUTHORIZED, {}, error), CB_ERR_NOT_FOUND);
}

TEST(LinuxAuthorize, WriteFailureBecomesAClearError) {
    // Tests run as root, which ignores file modes: make the attribute a folder (EISDIR) instead.
    fixture_copy fx("tb3_secure");
    const auto key_path = fx / (device_dir + "/key");
    std::filesystem::remove(key_path);
    std::filesystem::create_directory(key_path);
    std::string error;
    EXPECT_EQ(authorize(fx.root(), enclosure_uid, CB_AUTH_AUTHORIZED, test_key(), error), CB_ERR_INTERNAL);
    EXPECT_NE(error.find("storing the key of"), std::string::npos) << error;
    EXPECT_NE(error.find(key_path.string()), std::string::npos) << error;
    // The sequence stopped: authorized was not written.
    EXPECT_EQ(read_text(fx / (device_dir + "/authorized")), "0");
}

TEST(LinuxDeauthorize, WritesZeroWhereSupported) {
    fixture_copy fx("tb3_user_authorized");
    std::string error;
    EXPECT_EQ(deauthorize(fx.root(), enclosure_uid, error), CB_OK) << error;
    EXPECT_EQ(read_text(fx / (device_dir + "/authorized")), "0");
}

TEST(LinuxDeauthorize, RefusedWithoutDomainSupport) {
    fixture_copy fx("downgraded_discrete");
    std::string error;
    EXPECT_EQ(deauthorize(fx.root(), "0-1", error), CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("does not support deauthorization"), std::string::npos) << error;
    const auto dir = fx /
                     "sys/devices/pci0000:00/0000:00:1c.4/0000:03:00.0/0000:04:00.0/"
                     "0000:05:00.0/domain0/0-0/0-1";
    EXPECT_EQ(read_text(dir / "authorized"), "1");
}

TEST(LinuxDeauthorize, NotAuthorizedIsAlreadyDone) {
    fixture_copy fx("tb3_user_unauthorized");
    std::string error;
    EXPECT_EQ(deauthorize(fx.root(), enclosure_uid, error), CB_OK) << error;
    EXPECT_EQ(read_text(fx / (device_dir + "/authorized")), "0");
}

}  // namespace
}  // namespace cudabridge::usb4::linux_sysfs
