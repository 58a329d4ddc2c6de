// CUDABRIDGE_VISIBLE_DEVICES: a program's runtime uses the connected eGPUs it names, in its
// order, and refuses a value that names no device; the CLI's runtime sees every eGPU.
#include "host_fixture.hpp"
#include "runtime/visible_devices.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/host/runtime.hpp>

#include <Poco/JSON/Array.h>

#include <cstdlib>

namespace cudabridge::test {
namespace {

using host::parse_visible_devices;
using host::resolve_visible_devices;

std::vector<size_t> select(const char* text, const std::vector<std::string>& uuids) {
    return resolve_visible_devices(*parse_visible_devices(text), uuids);
}

// The message of the core::error that `body` throws ("" when it throws none).
template <typename F>
std::string refusal(F&& body) {
    try {
        body();
    } catch (const core::error& e) {
        EXPECT_EQ(e.status(), CB_ERR_INVALID_ARGUMENT);
        return e.what();
    }
    return {};
}

const std::vector<std::string> two = {"GPU-2b850001-aaaa-4000-8000-000000000001",
                                      "GPU-661d9d6e-bbbb-4000-8000-000000000002"};

TEST(visible_devices, UnsetMeansEveryDeviceAndEmptyMeansNone) {
    EXPECT_FALSE(parse_visible_devices(nullptr).has_value());
    EXPECT_TRUE(parse_visible_devices("")->empty());
    EXPECT_TRUE(parse_visible_devices("  ")->empty());
}

TEST(visible_devices, IndicesAndUuidPrefixesSelectInTheGivenOrder) {
    EXPECT_EQ(select("1,0", two), (std::vector<size_t>{1, 0}));
    EXPECT_EQ(select(" 1 ", two), (std::vector<size_t>{1}));
    EXPECT_EQ(select("GPU-661D9D6E", two), (std::vector<size_t>{1})) << "a prefix, any case";
    EXPECT_EQ(select("gpu-2b850001-aaaa,1", two), (std::vector<size_t>{0, 1}));
}

TEST(visible_devices, AnEntryThatNamesNoDeviceIsRefusedNotDropped) {
    EXPECT_NE(refusal([] { select("2", two); }).find("names device 2, but 2 eGPU(s) are connected"), std::string::npos);
    EXPECT_NE(refusal([] { select("GPU-00000000", two); }).find("none of the connected"), std::string::npos);
    EXPECT_NE(refusal([] { select("0,0", two); }).find("twice"), std::string::npos);
    const std::vector<std::string> alike = {"GPU-12345678-a", "GPU-12345678-b"};
    EXPECT_NE(refusal([&] { select("GPU-12345678", alike); }).find("several"), std::string::npos);
}

TEST(visible_devices, AMalformedValueSaysWhatIsWrongAndNamesTheVariable) {
    for (const char* text : {"0,,1", "-1", "gpu0", "GPU-1234", "1.5", "99999"}) {
        const std::string why = refusal([&] { parse_visible_devices(text); });
        EXPECT_EQ(why.rfind("CUDABRIDGE_VISIBLE_DEVICES: ", 0), 0u) << text << ": " << why;
    }
}

// Two connected eGPUs: the default one and a copy of it in a second enclosure.
class visible_runtime_test : public host_test {
protected:
    void SetUp() override {
        edit_layout([](Poco::JSON::Object::Ptr layout) {
            auto enclosures = layout->getArray("enclosures");
            Poco::JSON::Object::Ptr second = new Poco::JSON::Object(*enclosures->getObject(0));
            second->set("id", std::string("cb5a1e00-0000-4000-8000-0000000000b2"));
            second->set("name", std::string("Second simulated enclosure"));
            enclosures->add(second);
        });
        setup_ = open_session();
        for (const auto& d : host::detect(*setup_)) {
            host::connect_options o;
            o.device = d.enclosure.id;
            ids_.push_back(d.enclosure.id);
            owners_.push_back(host::connect(*setup_, o));
            uuids_.push_back(owners_.back()->properties().uuid);
        }
        ASSERT_EQ(ids_.size(), 2u);
        ASSERT_NE(uuids_[0], uuids_[1]);
    }
    void TearDown() override {
        ::unsetenv("CUDABRIDGE_VISIBLE_DEVICES");
        owners_.clear();
    }
    // A program's runtime under `value` (nullptr: unset); its devices' enclosure ids in order.
    std::vector<std::string> seen_by_a_program(const char* value, std::string* why = nullptr, bool cli = false) {
        if (value)
            ::setenv("CUDABRIDGE_VISIBLE_DEVICES", value, 1);
        else
            ::unsetenv("CUDABRIDGE_VISIBLE_DEVICES");
        host::runtime_options o = runtime_options({{"heartbeat_interval_ms", "3600000"}});
        o.session.use_environment = true;  // as a program's runtime reads it
        o.autoconnect = !cli;
        o.visible_devices = !cli;
        host::runtime r(std::move(o));
        std::vector<std::string> out;
        for (int i = 0; i < r.device_count(); ++i) out.push_back(r.device(i).id());
        if (why) *why = r.startup_error();
        return out;
    }

    std::unique_ptr<host::session> setup_;
    std::vector<std::unique_ptr<host::device>> owners_;
    std::vector<std::string> ids_, uuids_;
};

TEST_F(visible_runtime_test, UnsetTheProgramUsesEveryConnectedEgpu) { EXPECT_EQ(seen_by_a_program(nullptr), ids_); }

TEST_F(visible_runtime_test, TheProgramUsesTheNamedEgpusInTheGivenOrder) {
    EXPECT_EQ(seen_by_a_program("1"), (std::vector<std::string>{ids_[1]}));
    EXPECT_EQ(seen_by_a_program("1,0"), (std::vector<std::string>{ids_[1], ids_[0]}));
    EXPECT_EQ(seen_by_a_program(uuids_[1].substr(0, 12).c_str()), (std::vector<std::string>{ids_[1]}));
}

TEST_F(visible_runtime_test, NoneOrAWrongNameLeavesTheProgramWithoutADeviceAndSaysWhy) {
    std::string why;
    EXPECT_TRUE(seen_by_a_program("", &why).empty()) << "an empty list selects none and connects none";
    EXPECT_NE(why.find("selects no eGPU"), std::string::npos) << why;
    EXPECT_TRUE(seen_by_a_program("0,5", &why).empty());
    EXPECT_NE(why.find("names device 5"), std::string::npos) << why;
}

TEST_F(visible_runtime_test, TheCliSeesEveryEgpuWhateverTheVariableSays) {
    EXPECT_EQ(seen_by_a_program("1", nullptr, true), ids_);
}

}  // namespace
}  // namespace cudabridge::test
