// The session's seeding of GPU model profiles: a fake GPU family whose control answers canned
// replies (valid, malformed, unsupported, larger than the first buffer, failing) and what ends
// up in the store.
#include "temp_dir.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/store.hpp>
#include <cudabridge/cpp/text_out.hpp>
#include <cudabridge/host/gpu_profile_seed.hpp>

#include <gtest/gtest.h>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <algorithm>
#include <cstring>

using namespace cudabridge::core;
using cudabridge::host::max_gpu_control_reply;
using cudabridge::host::seed_gpu_profiles;
using cudabridge::test::temp_dir;

namespace {

// What the fake family answers, and what it was asked.
struct fake_family {
    cb_status status = CB_OK;
    std::string reply;
    std::string error_message;  // the last error it sets when status is a failure
    std::vector<std::string> requests;
    std::vector<size_t> buffer_sizes;
};

// Writes the reply like every string getter.
cb_status fake_control(void* instance, const char* request, char* reply, size_t reply_size, size_t* needed) {
    auto* f = static_cast<fake_family*>(instance);
    f->requests.emplace_back(request);
    f->buffer_sizes.push_back(reply_size);
    if (f->status != CB_OK) {
        set_last_error(f->error_message);
        return f->status;
    }
    return cudabridge::sdk::copy_text_out(f->reply, reply, reply_size, needed);
}

cb_gpu_table table_with_control() {
    cb_gpu_table t{};
    t.struct_size = sizeof t;
    t.control = &fake_control;
    return t;
}

std::string profile_json(const std::string& key, const std::string& name, const std::string& id_json,
                         const std::string& extra = "") {
    return "{\"key\":\"" + key + "\",\"name\":\"" + name + "\",\"pci_device_id\":" + id_json +
           ",\"vram_bytes\":34190917632" + extra + ",\"sources\":{\"vram_bytes\":\"reference 6\"}}";
}

std::string reply_of(const std::vector<std::string>& profiles) {
    std::string out = "{\"profiles\":[";
    for (size_t i = 0; i < profiles.size(); ++i) out += (i ? "," : "") + profiles[i];
    return out + "]}";
}

Poco::JSON::Object::Ptr parse_object(const std::string& text) {
    return Poco::JSON::Parser().parse(text).extract<Poco::JSON::Object::Ptr>();
}

class GpuProfileSeed : public ::testing::Test {
protected:
    temp_dir dir;
    store s{dir / "cudabridge.db"};
    fake_family family;
    cb_gpu_table table = table_with_control();

    size_t seed() { return seed_gpu_profiles(s, &table, &family, "fake-gpu"); }
};

TEST_F(GpuProfileSeed, StoresEveryProfileWholeWithItsSource) {
    family.reply = reply_of({profile_json("rtx-5090", "NVIDIA GeForce RTX 5090", "\"0x2b85\""),
                             profile_json("a100-sxm4-40gb", "NVIDIA A100-SXM4-40GB", "8368")});  // 0x20b0
    EXPECT_EQ(seed(), 2u);

    ASSERT_EQ(family.requests.size(), 1u);
    EXPECT_EQ(parse_object(family.requests[0])->getValue<std::string>("op"), "profiles");

    const auto rows = list_gpu_profiles(s);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].pci_device_id, 0x20b0);
    EXPECT_EQ(rows[0].key, "a100-sxm4-40gb");
    EXPECT_EQ(rows[1].pci_device_id, 0x2b85);
    EXPECT_EQ(rows[1].key, "rtx-5090");
    EXPECT_EQ(rows[1].name, "NVIDIA GeForce RTX 5090");
    for (const auto& r : rows) EXPECT_EQ(r.source, "plugin fake-gpu");

    // data is the whole profile, field order kept, sources included.
    EXPECT_EQ(rows[1].data.rfind("{\"key\":\"rtx-5090\"", 0), 0u) << rows[1].data;
    const auto data = parse_object(rows[1].data);
    EXPECT_EQ(data->getValue<std::string>("pci_device_id"), "0x2b85");
    EXPECT_EQ(data->getValue<int64_t>("vram_bytes"), 34190917632);
    EXPECT_EQ(data->getObject("sources")->getValue<std::string>("vram_bytes"), "reference 6");
    ASSERT_TRUE(find_gpu_profile_by_key(s, "rtx-5090"));
}

TEST_F(GpuProfileSeed, SeedingAgainReplacesRows) {
    family.reply = reply_of({profile_json("rtx-5090", "old name", "11141")});
    EXPECT_EQ(seed(), 1u);
    family.reply = reply_of({profile_json("rtx-5090", "NVIDIA GeForce RTX 5090", "\"0x2B85\"")});
    EXPECT_EQ(seed(), 1u);
    const auto rows = list_gpu_profiles(s);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].name, "NVIDIA GeForce RTX 5090");
}

TEST_F(GpuProfileSeed, AnEmptyListStoresNothing) {
    family.reply = "{\"profiles\":[]}";
    EXPECT_EQ(seed(), 0u);
    EXPECT_TRUE(list_gpu_profiles(s).empty());
}

TEST_F(GpuProfileSeed, UnsupportedOpSeedsNothing) {
    family.status = CB_ERR_UNSUPPORTED;
    EXPECT_EQ(seed(), 0u);
    EXPECT_EQ(family.requests.size(), 1u);
    EXPECT_TRUE(list_gpu_profiles(s).empty());
}

TEST_F(GpuProfileSeed, FamilyWithoutControlSeedsNothing) {
    table.control = nullptr;
    EXPECT_EQ(seed(), 0u);
    // An ABI 1.0 / 1.1 table ends before control: whatever lies beyond it is never called.
    table = table_with_control();
    table.struct_size = offsetof(cb_gpu_table, control);
    family.reply = reply_of({profile_json("l4", "NVIDIA L4", "\"0x27b8\"")});
    EXPECT_EQ(seed(), 0u);
    EXPECT_TRUE(family.requests.empty());
    EXPECT_TRUE(list_gpu_profiles(s).empty());
}

TEST_F(GpuProfileSeed, ALargeReplyIsAskedForAgainWithTheReportedSize) {
    // More than the first 64 KiB buffer: each profile carries a 2 KB note.
    const std::string note = ",\"note\":\"" + std::string(2000, 'n') + "\"";
    std::vector<std::string> profiles;
    const int count = 60;
    for (int i = 0; i < count; ++i)
        profiles.push_back(
            profile_json("model-" + std::to_string(i), "Model " + std::to_string(i), std::to_string(0x1000 + i), note));
    family.reply = reply_of(profiles);
    ASSERT_GT(family.reply.size(), size_t{64} << 10);

    EXPECT_EQ(seed(), static_cast<size_t>(count));
    ASSERT_EQ(family.buffer_sizes.size(), 2u);
    EXPECT_LT(family.buffer_sizes[0], family.reply.size() + 1);
    EXPECT_EQ(family.buffer_sizes[1], family.reply.size() + 1);
    const auto rows = list_gpu_profiles(s);
    ASSERT_EQ(rows.size(), static_cast<size_t>(count));
    EXPECT_EQ(rows.back().pci_device_id, 0x1000 + count - 1);
    EXPECT_NE(rows.back().data.find(std::string(2000, 'n')), std::string::npos);
}

TEST_F(GpuProfileSeed, AReplyOverTheLimitIsRefused) {
    family.reply =
        reply_of({profile_json("big", "Big", "4660", ",\"note\":\"" + std::string(max_gpu_control_reply, 'x') + "\"")});
    try {
        seed();
        ADD_FAILURE() << "no core::error thrown";
    } catch (const error& e) {
        EXPECT_EQ(e.status(), CB_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(e.what()).find("limit"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("fake-gpu"), std::string::npos) << e.what();
    }
    EXPECT_EQ(family.requests.size(), 1u);
    EXPECT_TRUE(list_gpu_profiles(s).empty());
}

TEST_F(GpuProfileSeed, AFailingCallCarriesTheFamilysStatusAndMessage) {
    family.status = CB_ERR_DEVICE_LOST;
    family.error_message = "profile table unreadable";
    try {
        seed();
        ADD_FAILURE() << "no core::error thrown";
    } catch (const error& e) {
        EXPECT_EQ(e.status(), CB_ERR_DEVICE_LOST);
        EXPECT_NE(std::string(e.what()).find("profile table unreadable"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("fake-gpu"), std::string::npos) << e.what();
    }
}

TEST_F(GpuProfileSeed, ANullTableIsRefused) { EXPECT_THROW(seed_gpu_profiles(s, nullptr, &family, "fake-gpu"), error); }

// ---- malformed replies: refused with the problem named, and nothing stored ---------------------

struct malformed_case {
    const char* label;
    std::string reply;
    const char* names;  // a fragment the message must contain
};

class MalformedReply : public ::testing::TestWithParam<malformed_case> {};

TEST_P(MalformedReply, IsRefusedAndStoresNothing) {
    temp_dir dir;
    store s(dir / "cudabridge.db");
    fake_family family;
    family.reply = GetParam().reply;
    cb_gpu_table table = table_with_control();
    try {
        seed_gpu_profiles(s, &table, &family, "fake-gpu");
        ADD_FAILURE() << "no core::error thrown";
    } catch (const error& e) {
        EXPECT_EQ(e.status(), CB_ERR_INVALID_ARGUMENT);
        const std::string msg = e.what();
        EXPECT_NE(msg.find(GetParam().names), std::string::npos) << msg;
        EXPECT_NE(msg.find("fake-gpu"), std::string::npos) << msg;
    }
    EXPECT_TRUE(list_gpu_profiles(s).empty());
}

const std::string good = profile_json("rtx-5090", "NVIDIA GeForce RTX 5090", "\"0x2b85\"");

// A valid profile first: the whole reply is refused, not just the bad profile.
std::string with_second(const std::string& bad) { return reply_of({good, bad}); }

INSTANTIATE_TEST_SUITE_P(
    Replies, MalformedReply,
    ::testing::Values(
        malformed_case{"not_json", "profiles: rtx-5090", "not valid JSON"},
        malformed_case{"truncated", good.substr(0, good.size() / 2), "not valid JSON"},
        malformed_case{"array_root", "[]", "not a JSON object"},
        malformed_case{"no_profiles", "{\"devices\":[]}", "'profiles' is missing"},
        malformed_case{"profiles_not_array", "{\"profiles\":{}}", "'profiles' must be an array"},
        malformed_case{"profile_not_object", with_second("42"), "profile 1 is not a JSON object"},
        malformed_case{"no_key", with_second("{\"name\":\"x\",\"pci_device_id\":4660}"), "'key' is missing"},
        malformed_case{"empty_key", with_second("{\"key\":\"\",\"name\":\"x\",\"pci_device_id\":4660}"),
                       "'key' is empty"},
        malformed_case{"key_not_string", with_second("{\"key\":7,\"name\":\"x\",\"pci_device_id\":4660}"),
                       "'key' must be a string"},
        malformed_case{"no_name", with_second("{\"key\":\"x\",\"pci_device_id\":4660}"), "'name' is missing"},
        malformed_case{"no_id", with_second("{\"key\":\"x\",\"name\":\"x\"}"), "'pci_device_id' is missing"},
        malformed_case{"id_unprefixed", with_second(profile_json("x", "x", "\"2b85\"")), "is not a PCI device id"},
        malformed_case{"id_too_long", with_second(profile_json("x", "x", "\"0x12345\"")), "is not a PCI device id"},
        malformed_case{"id_zero", with_second(profile_json("x", "x", "0")), "outside 0x0001..0xfffe"},
        malformed_case{"id_ffff", with_second(profile_json("x", "x", "\"0xffff\"")), "outside 0x0001..0xfffe"},
        malformed_case{"id_negative", with_second(profile_json("x", "x", "-5")), "outside 0x0001..0xfffe"},
        malformed_case{"id_fraction", with_second(profile_json("x", "x", "1.5")), "must be an integer"},
        malformed_case{"id_bool", with_second(profile_json("x", "x", "true")), "must be an integer"},
        malformed_case{"sources_not_object",
                       with_second("{\"key\":\"x\",\"name\":\"x\",\"pci_device_id\":4660,\"sources\":\"ref\"}"),
                       "'sources' must be an object"},
        malformed_case{"repeated_id", with_second(profile_json("rtx-5090-b", "x", "11141")), "share pci_device_id"},
        malformed_case{"too_deep", "{\"profiles\":[" + std::string(100, '[') + std::string(100, ']') + "]}",
                       "not valid JSON"}),
    [](const ::testing::TestParamInfo<malformed_case>& param_info) { return std::string(param_info.param.label); });

}  // namespace
