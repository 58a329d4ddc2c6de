// Backend choice: the simulator without a Thunderbolt domain, the Linux backend over a fixture
// sysfs tree with one, and a clear refusal when Linux is forced without a domain.
#include "transport_fixture.hpp"

#include <cudabridge/core/error.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

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
    EXPECT_EQ(i->transport()->open_link(i->handle(), "0000:2e:00.0", &link), CB_ERR_UNSUPPORTED);
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

// control() on an instance other than the fixture's.
std::string control_of(core::plugin_instance& i, const std::string& request, cb_status expect = CB_OK) {
    std::string reply(64 * 1024, '\0');
    size_t needed = 0;
    cb_status st = i.transport()->control(i.handle(), request.c_str(), reply.data(), reply.size(), &needed);
    EXPECT_EQ(st, expect) << request << ": " << core::last_error();
    if (st != CB_OK) return core::last_error();
    reply.resize(needed - 1);
    return reply;
}

TEST_F(usb4_test, LinkReportReadsTheEnclosurePortNotTheTunnelBridge) {
    auto i = make({{"backend", "linux"}, {"sysfs_root", fixture_root("tb3_user_authorized")}});
    auto reply = control_of(*i, R"({"op":"link_report","pci":"0000:2e:00.0"})");
    EXPECT_NE(reply.find("\"port\":\"0000:2c:00.0\""), std::string::npos) << reply;
    EXPECT_NE(reply.find("\"current_gen\":3"), std::string::npos) << reply;
    EXPECT_NE(reply.find("\"current_width\":4"), std::string::npos) << reply;
    EXPECT_NE(reply.find("\"modeled\":false"), std::string::npos) << reply;
    // The simulator has no such operation.
    EXPECT_NE(control(R"({"op":"rescan"})", CB_ERR_UNSUPPORTED).find("real hardware"), std::string::npos);
}

TEST_F(usb4_test, SafeRemoveUnbindsAndRemovesInACopiedTree) {
    std::filesystem::copy(fixture_root("tb3_user_authorized"), tmp / "sysfs",
                          std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
    auto i = make({{"backend", "linux"}, {"sysfs_root", (tmp / "sysfs").string()}});
    auto reply = control_of(*i, R"({"op":"safe_remove","pci":"0000:2e:00.0"})");
    // The GPU's audio function goes first, then the GPU: unbind, then remove, each.
    EXPECT_NE(reply.find("unbound 0000:2e:00.0 from driver nvidia"), std::string::npos) << reply;
    EXPECT_NE(reply.find("removed 0000:2e:00.0 from the PCI bus"), std::string::npos) << reply;
    EXPECT_NE(control_of(*i, R"({"op":"safe_remove"})", CB_ERR_INVALID_ARGUMENT).find("needs 'pci'"),
              std::string::npos);
    EXPECT_NE(control_of(*i, R"({"op":"rescan"})").find("rescan"), std::string::npos);
}

void collect(void* user, const cb_transport_event* ev) {
    auto* box = static_cast<std::pair<std::mutex, std::vector<cb_transport_event>>*>(user);
    std::lock_guard lock(box->first);
    box->second.push_back(*ev);
}

TEST_F(usb4_test, LinuxHotplugEventsComeFromPollingSysfs) {
    std::filesystem::copy(fixture_root("tb3_user_authorized"), tmp / "sysfs",
                          std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
    auto i = make({{"backend", "linux"}, {"sysfs_root", (tmp / "sysfs").string()}, {"poll_ms", "50"}});
    std::pair<std::mutex, std::vector<cb_transport_event>> box;
    ASSERT_EQ(i->transport()->set_event_handler(i->handle(), &collect, &box), CB_OK);
    const auto file = tmp / "sysfs/sys/devices/pci0000:00/0000:00:0d.2/domain0/0-0/0-1/authorized";
    auto write = [&](const char* v) { std::ofstream(file) << v << "\n"; };
    auto wait_for = [&](cb_transport_event_type type) {
        for (int k = 0; k < 250; ++k) {
            {
                std::lock_guard lock(box.first);
                for (const auto& ev : box.second)
                    if (ev.type == type) return true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return false;
    };
    // The poller compares with its first reading; if that reading came after the change (a
    // loaded machine), authorize again and deauthorize once more so a change is always seen.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // usually enough for the first reading
    write("0");
    bool seen = wait_for(CB_TRANSPORT_DEAUTHORIZED);
    if (!seen) {
        write("1");
        ASSERT_TRUE(wait_for(CB_TRANSPORT_AUTHORIZED));
        write("0");
        seen = wait_for(CB_TRANSPORT_DEAUTHORIZED);
    }
    EXPECT_TRUE(seen);
    ASSERT_EQ(i->transport()->set_event_handler(i->handle(), nullptr, nullptr), CB_OK);
}

}  // namespace
}  // namespace cudabridge::test
